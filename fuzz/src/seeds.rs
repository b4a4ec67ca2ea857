//! Seed inputs for every target, built from the check inputs of the named fixtures in
//! `crates/bastion-core/tests/fixtures/` and, when given, the shared attack corpus
//! (`cases.jsonl`, see its README). Nothing of the corpus is committed here: the
//! `seed-corpus` binary writes the seeds to `fuzz/corpus/<target>/` for `cargo fuzz`,
//! and `tests/replay.rs` builds them in memory.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// One check input and the `check` kind that takes it (fixture directory name).
#[derive(Debug, Clone)]
pub struct Input {
    /// `message`, `descriptor`, `result`, `url`, `elicitation`, `confirmation`, `contract`, `drift`,
    /// `lookalike`.
    pub kind: String,
    /// The check input.
    pub input: Value,
}

/// The repository root (the parent of `fuzz/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// Every fixture input under `crates/bastion-core/tests/fixtures/` (a kind's directory
/// and the directories in it), sorted by path.
///
/// # Panics
/// When the fixture directory cannot be read or a fixture is not JSON (a broken checkout).
pub fn fixture_inputs() -> Vec<Input> {
    let dir = repo_root().join("crates/bastion-core/tests/fixtures");
    let mut out = Vec::new();
    let mut kinds: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    kinds.sort();
    for kind_dir in kinds {
        let kind = kind_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut files: Vec<PathBuf> = Vec::new();
        // The kind's own files, then those one directory down (`contract/build/`).
        let mut dirs = vec![kind_dir.clone()];
        while let Some(dir) = dirs.pop() {
            for path in std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .filter_map(|e| e.ok().map(|e| e.path()))
            {
                if path.is_dir() && dir == kind_dir {
                    dirs.push(path);
                } else if path.extension().is_some_and(|x| x == "json") {
                    files.push(path);
                }
            }
        }
        files.sort();
        for file in files {
            let text = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let fx: Value = serde_json::from_slice(&text)
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", file.display()));
            // `lookalike/` files are descriptor sets, not `{input, expect}` fixtures.
            let input = fx.get("input").cloned().unwrap_or(fx);
            out.push(Input {
                kind: kind.clone(),
                input,
            });
        }
    }
    out
}

/// The inputs of the shared corpus file `cases_jsonl` (one case per line), with each
/// category mapped to the check kind its README names. Unknown categories are skipped.
///
/// # Errors
/// When the file cannot be read or a line is not JSON.
pub fn corpus_inputs(cases_jsonl: &Path) -> Result<Vec<Input>, String> {
    let text = std::fs::read_to_string(cases_jsonl)
        .map_err(|e| format!("{}: {e}", cases_jsonl.display()))?;
    let mut out = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let case: Value = serde_json::from_str(line)
            .map_err(|e| format!("{} line {}: {e}", cases_jsonl.display(), n + 1))?;
        let kind = match case["category"].as_str().unwrap_or_default() {
            "framing" => "message",
            "descriptor" => "descriptor",
            "result_sanitize" | "output_schema" => "result",
            "elicitation_form" | "elicitation_url" => "elicitation",
            "url_open" | "ssrf" => "url",
            "confirmation" => "confirmation",
            "rug_pull" => "drift",
            _ => continue,
        };
        out.push(Input {
            kind: kind.to_owned(),
            input: case["input"].clone(),
        });
    }
    Ok(out)
}

/// The wire bytes of a `message` input (`raw`, `raw_hex`, or `generate` with the fill
/// capped at 4 KiB so seeds stay small).
pub fn wire_bytes(input: &Value) -> Option<Vec<u8>> {
    if let Some(raw) = input.get("raw").and_then(Value::as_str) {
        return Some(raw.as_bytes().to_vec());
    }
    if let Some(h) = input.get("raw_hex").and_then(Value::as_str) {
        return hex::decode(h).ok();
    }
    let generate = input.get("generate")?;
    let template = generate.get("template")?.as_str()?;
    let fill = generate
        .get("fill_char")
        .and_then(Value::as_str)
        .unwrap_or("a");
    let count = generate
        .get("fill_bytes")
        .and_then(Value::as_u64)
        .unwrap_or(16)
        .min(4096);
    let count = usize::try_from(count).unwrap_or(4096);
    Some(template.replace("<FILL>", &fill.repeat(count)).into_bytes())
}

fn strings(value: &Value, out: &mut Vec<Vec<u8>>) {
    crate::checks::for_each_string(value, "", &mut |s, _| {
        if !s.is_empty() {
            out.push(s.as_bytes().to_vec());
        }
    });
}

fn compact(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

/// The seeds of target `name` from `inputs`, deduplicated, in a stable order.
pub fn seeds_for(name: &str, inputs: &[Input]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for Input { kind, input } in inputs {
        match (name, kind.as_str()) {
            ("frame_reader", "message") => {
                if let Some(raw) = wire_bytes(input) {
                    // Byte 0: frame limit; byte 1: read-boundary seed (see the target).
                    let mut seed = vec![0xff, 7];
                    seed.extend_from_slice(&raw);
                    seed.push(b'\n');
                    seed.extend_from_slice(&raw);
                    out.push(seed);
                }
            }
            ("strict_json" | "envelope", "message") => out.extend(wire_bytes(input)),
            ("strict_json" | "canonical_json", _) => out.push(compact(input)),
            ("descriptor", "descriptor") => {
                out.push(compact(input));
                if let Some(d) = input.get("descriptor") {
                    out.push(compact(d));
                }
            }
            ("descriptor", "lookalike") => {
                for d in input.as_array().into_iter().flatten() {
                    out.push(compact(d));
                }
            }
            ("terminal" | "sanitize_html" | "markdown", "result" | "descriptor") => {
                strings(input, &mut out);
            }
            ("result", "result") => {
                out.push(compact(input.get("result").unwrap_or(input)));
            }
            ("output_schema", "result") if input.get("outputSchema").is_some() => {
                out.push(compact(input));
            }
            ("output_schema", "descriptor") => {
                for key in ["outputSchema", "inputSchema"] {
                    if let Some(schema) = input.get("descriptor").and_then(|d| d.get(key)) {
                        out.push(compact(
                            &json!({"outputSchema": schema, "result": {"structuredContent": {}}}),
                        ));
                    }
                }
            }
            ("url_gate", "url") => {
                out.push(compact(input));
                if let Some(u) = input.get("url").and_then(Value::as_str) {
                    out.push(u.as_bytes().to_vec());
                }
            }
            ("elicitation", "elicitation") | ("confirmation", "confirmation") => {
                out.push(compact(input));
            }
            // Source and reviewed manifests, a signature, a public key, as written, and
            // the source inside a reviewed manifest or a `contract build` case (`build/`).
            ("contract", "contract") => {
                out.push(compact(input));
                out.extend(input.get("source").map(compact));
            }
            _ => {}
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|s| seen.insert(s.clone()));
    out
}
