//! Build invariants against the named sources in `tests/fixtures/contract/build/`: each
//! `{"about", "source", "expect": "allow|flag|block", "codes", "absent_codes"?}`.

use bastion_core::Report;
use bastion_core::contract;
use serde_json::Value;

#[test]
fn build_invariant_fixtures() {
    let dir = super::dir().join("build");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{}", files.len());
    let mut failures = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let fx: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let bytes = serde_json::to_vec(&fx["source"]).unwrap();
        let source = match contract::parse_source(&bytes) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let report = Report::from_findings(contract::check_invariants(&source), false, None);
        let codes: Vec<&str> = report.findings.iter().map(|f| f.code.as_str()).collect();
        if report.verdict.as_str() != fx["expect"] {
            failures.push(format!(
                "{name}: verdict {} expected {} ({codes:?})",
                report.verdict, fx["expect"]
            ));
        }
        for c in fx["codes"].as_array().unwrap() {
            if !codes.contains(&c.as_str().unwrap()) {
                failures.push(format!("{name}: missing {c} in {codes:?}"));
            }
        }
        for c in fx["absent_codes"].as_array().into_iter().flatten() {
            if codes.contains(&c.as_str().unwrap()) {
                failures.push(format!("{name}: unexpected {c}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
