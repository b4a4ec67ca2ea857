//! Stable replay of every fuzz target (the CI smoke run, no nightly needed): each target
//! body runs over its seeds (fixture inputs, plus the shared corpus when
//! `BASTION_CORPUS` names its `cases.jsonl`), over the committed crash reproducers in
//! `regressions/<target>/`, over `corpus/<target>/` when `cargo fuzz` has filled it, and
//! over deterministic mutations of all of them (`FUZZ_REPLAY_MUTATIONS` per input,
//! default 64; a reproducer gets at most [`REPRODUCER_MUTATIONS`]: some expand into
//! hundreds of KiB of text, which a debug build inspects slowly). `FUZZ_REPLAY_NO_CORPUS=1` leaves `corpus/` out (after long fuzzing runs it
//! holds tens of thousands of inputs).

use bastion_fuzz::TARGETS;
use bastion_fuzz::mutate::{Rng, mutate};
use bastion_fuzz::seeds::{corpus_inputs, fixture_inputs, repo_root, seeds_for};
use std::path::Path;

fn files_in(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::read(p).ok())
        .collect()
}

/// Mutations per committed reproducer (`regressions/<target>/`) at most.
const REPRODUCER_MUTATIONS: usize = 8;

/// The inputs of target `name`, each with `true` when it is a committed reproducer.
fn inputs_of(name: &str) -> Vec<(Vec<u8>, bool)> {
    let mut inputs = fixture_inputs();
    if let Some(path) = std::env::var_os("BASTION_CORPUS") {
        inputs.extend(corpus_inputs(Path::new(&path)).expect("BASTION_CORPUS readable"));
    }
    let root = repo_root().join("fuzz");
    let mut all: Vec<_> = seeds_for(name, &inputs)
        .into_iter()
        .map(|i| (i, false))
        .collect();
    all.extend(
        files_in(&root.join("regressions").join(name))
            .into_iter()
            .map(|i| (i, true)),
    );
    if std::env::var_os("FUZZ_REPLAY_NO_CORPUS").is_none() {
        all.extend(
            files_in(&root.join("corpus").join(name))
                .into_iter()
                .map(|i| (i, false)),
        );
    }
    all
}

fn replay(name: &str, target: fn(&[u8])) {
    let mutations: usize = std::env::var("FUZZ_REPLAY_MUTATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64);
    let inputs = inputs_of(name);
    assert!(!inputs.is_empty(), "{name}: no seeds");
    let mut rng = Rng::new(0x5EED ^ name.len() as u64);
    for (input, reproducer) in &inputs {
        target(input);
        let n = if *reproducer {
            mutations.min(REPRODUCER_MUTATIONS)
        } else {
            mutations
        };
        for _ in 0..n {
            target(&mutate(input, &mut rng));
        }
    }
    eprintln!(
        "{name}: {} inputs ({} reproducers), each with up to {mutations} mutations",
        inputs.len(),
        inputs.iter().filter(|(_, r)| *r).count(),
    );
}

macro_rules! replay_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                replay(stringify!($name), bastion_fuzz::$name);
            }
        )*

        #[test]
        fn every_target_is_replayed() {
            let replayed = [$(stringify!($name)),*];
            for (name, _) in TARGETS {
                assert!(replayed.contains(name), "{name} has no replay test");
            }
        }
    };
}

replay_tests!(
    frame_reader,
    strict_json,
    envelope,
    descriptor,
    terminal,
    sanitize_html,
    markdown,
    result,
    output_schema,
    url_gate,
    canonical_json,
    elicitation,
    confirmation,
    contract,
);
