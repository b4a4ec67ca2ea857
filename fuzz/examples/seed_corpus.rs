//! Writes the seed corpus of every fuzz target to `fuzz/corpus/<target>/` (git-ignored):
//! the check inputs of the core's fixtures and, when a path to the shared attack corpus
//! `cases.jsonl` is given (argument or `BASTION_CORPUS`), its inputs too.
//!
//! Usage: `cargo run --no-default-features --example seed-corpus [-- PATH/cases.jsonl]`

use bastion_fuzz::seeds::{corpus_inputs, fixture_inputs, repo_root, seeds_for};
use bastion_fuzz::{TARGETS, checks};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut inputs = fixture_inputs();
    let corpus = std::env::args_os()
        .nth(1)
        .or_else(|| std::env::var_os("BASTION_CORPUS"))
        .map(PathBuf::from);
    if let Some(path) = corpus {
        match corpus_inputs(&path) {
            Ok(more) => inputs.extend(more),
            Err(e) => {
                eprintln!("seed-corpus: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let root = repo_root().join("fuzz/corpus");
    for (name, _) in TARGETS {
        let dir = root.join(name);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("seed-corpus: {}: {e}", dir.display());
            return ExitCode::from(2);
        }
        let seeds = seeds_for(name, &inputs);
        for seed in &seeds {
            let file = dir.join(format!("seed-{}", &checks::digest(seed)[..16]));
            if let Err(e) = std::fs::write(&file, seed) {
                eprintln!("seed-corpus: {}: {e}", file.display());
                return ExitCode::from(2);
            }
        }
        println!("{name}: {} seeds", seeds.len());
    }
    ExitCode::SUCCESS
}
