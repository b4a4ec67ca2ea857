//! Table-driven tests of the core against the named fixture files in `tests/fixtures/`
//! (format: `tests/fixtures/README.md`). One integration-test binary for the crate.

use bastion_core::check::{self, CheckKind};
use bastion_core::{Limits, Severity, Verdict};
use serde_json::Value;
use std::path::{Path, PathBuf};

#[path = "core/props_json.rs"]
mod props_json;
#[path = "core/props_markdown.rs"]
mod props_markdown;
#[path = "core/props_wire.rs"]
mod props_wire;

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

fn first_text(output: &Value) -> Option<&str> {
    output
        .pointer("/content/0/text")
        .or_else(|| output.pointer("/contents/0/text"))
        .and_then(Value::as_str)
}

/// Runs every fixture of `dir` through `check KIND`; returns the failures.
fn run_dir(dir: &str, kind: CheckKind) -> (usize, Vec<String>) {
    let files = fixtures(dir);
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read(path).unwrap();
        let fx: Value =
            serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
        let input = fx
            .get("input")
            .unwrap_or_else(|| panic!("{name}: no input"));
        let report = match check::run(kind, input, &Limits::default()) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: check error: {e}"));
                continue;
            }
        };
        let got_codes: Vec<&str> = report.findings.iter().map(|f| f.code.as_str()).collect();
        let expect = fx["expect"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: no expect"));
        if report.verdict.as_str() != expect {
            failures.push(format!(
                "{name}: verdict {} (expected {expect}); findings {:?}",
                report.verdict, report.findings
            ));
        }
        if expect == "allow"
            && let Some(f) = report
                .findings
                .iter()
                .find(|f| f.severity >= Severity::High)
        {
            failures.push(format!(
                "{name}: allow case has a {:?} finding {f:?}",
                f.severity
            ));
        }
        for code in fx
            .get("codes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let code = code.as_str().unwrap();
            assert!(
                bastion_core::Code::from_name(code).is_some(),
                "{name}: unknown code {code}"
            );
            if !got_codes.contains(&code) {
                failures.push(format!("{name}: missing code {code}; got {got_codes:?}"));
            }
        }
        for code in fx
            .get("absent_codes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if got_codes.contains(&code.as_str().unwrap()) {
                failures.push(format!("{name}: unexpected code {code}"));
            }
        }
        let output = report.output.clone().unwrap_or(Value::Null);
        let output_json = output.to_string();
        if let Some(want) = fx.get("output_text").and_then(Value::as_str)
            && first_text(&output) != Some(want)
        {
            failures.push(format!(
                "{name}: output text {:?}, expected {want:?}",
                first_text(&output)
            ));
        }
        for s in fx
            .get("output_includes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !output_json.contains(s.as_str().unwrap()) {
                failures.push(format!(
                    "{name}: output lacks {s}: {}",
                    truncate(&output_json)
                ));
            }
        }
        for s in fx
            .get("output_excludes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if output_json.contains(s.as_str().unwrap()) {
                failures.push(format!(
                    "{name}: output still holds {s}: {}",
                    truncate(&output_json)
                ));
            }
        }
        if report.verdict == Verdict::Sanitize && output == *input {
            failures.push(format!(
                "{name}: verdict sanitize but the output equals the input"
            ));
        }
    }
    (files.len(), failures)
}

fn truncate(s: &str) -> String {
    s.chars().take(400).collect()
}

fn assert_dir(dir: &str, kind: CheckKind, at_least: usize) {
    let (count, failures) = run_dir(dir, kind);
    assert!(
        count >= at_least,
        "expected at least {at_least} fixtures in {dir}, found {count}"
    );
    assert!(
        failures.is_empty(),
        "{} of {count} fixtures failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn message_fixtures() {
    assert_dir("message", CheckKind::Message, 25);
}

#[test]
fn descriptor_fixtures() {
    assert_dir("descriptor", CheckKind::Descriptor, 20);
}

#[test]
fn drift_fixtures() {
    assert_dir("drift", CheckKind::Drift, 20);
}

#[test]
fn result_fixtures() {
    assert_dir("result", CheckKind::Result, 20);
}

#[test]
fn confirmation_fixtures() {
    assert_dir("confirmation", CheckKind::Confirmation, 25);
}

#[test]
fn elicitation_fixtures() {
    assert_dir("elicitation", CheckKind::Elicitation, 40);
}

#[test]
fn server_json_fixtures() {
    assert_dir("server-json", CheckKind::ServerJson, 50);
}

#[test]
fn ui_resources_fixtures() {
    assert_dir("ui-resources", CheckKind::UiResources, 40);
}

#[test]
fn http_request_fixtures() {
    assert_dir("http-request", CheckKind::HttpRequest, 40);
}

#[test]
fn url_fixtures() {
    assert_dir("url", CheckKind::Url, 60);
}

/// At least 200 ordinary public https URLs pass the URL gate: allowed without any finding
/// to navigate, and without a high/critical finding to fetch.
#[test]
fn ordinary_public_urls_are_allowed() {
    use bastion_core::url_gate::{UrlPolicy, assess};
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/url/ordinary-public-https-urls.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let urls: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(urls.len() >= 200, "only {} URLs", urls.len());
    let mut failures = Vec::new();
    for url in &urls {
        let nav = assess(url, &UrlPolicy::navigate(), "/url");
        if nav.verdict != Verdict::Allow {
            failures.push(format!("{url}: navigate {:?}", nav.findings));
        }
        let fetch = assess(url, &UrlPolicy::default(), "/url");
        if let Some(f) = fetch.findings.iter().find(|f| f.severity >= Severity::High) {
            failures.push(format!("{url}: fetch {f:?}"));
        }
        if nav.normalized.is_none() || nav.host_ascii.is_none() {
            failures.push(format!("{url}: no normalized form or host"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} ordinary URLs failed:\n{}",
        failures.len(),
        urls.len(),
        failures.join("\n")
    );
}

/// Every corpus case of the categories the gateway foundation covers has a fixture
/// (fixtures name the case in "about" as `corpus cNNN`).
#[test]
fn corpus_cases_have_fixtures() {
    const REQUIRED: &[&str] = &[
        // framing (stdio)
        "c001", "c002", "c004", "c005", "c007", "c008", "c011", "c013", "c014", "c172", "c173",
        // framing (http)
        "c010", "c016", "c017", // descriptor
        "c019", "c020", "c022", "c023", "c025", "c026", "c028", "c029", "c031", "c032", "c034",
        "c035", "c037", "c038", "c149", "c150", "c152", "c153", // result_sanitize
        "c046", "c047", "c049", "c050", "c052", "c053", "c055", "c056", "c058", "c059", "c061",
        "c062", "c064", "c065", "c067", "c068", "c070", "c071", "c156", "c157", "c159", "c160",
        // output_schema
        "c143", "c144", "c146", "c147", // rug_pull
        "c039", "c040", "c042", "c043", "c045", "c175", // confirmation
        "c138", "c139", "c141", "c142", // url_open
        "c097", "c098", "c100", "c101", "c103", "c104", "c106", "c166", // ssrf
        "c107", "c108", "c110", "c111", "c113", "c114", "c116", "c117", "c119", "c120", "c122",
        "c123", "c125", "c126", "c128", "c167", // elicitation_form
        "c072", "c073", "c075", "c076", "c078", "c079", "c162", "c163",
        // elicitation_url
        "c080", "c081", "c083", "c084", "c086", "c087", "c089", "c090", "c092", "c093", "c095",
        "c096", "c165",
    ];
    let mut abouts = String::new();
    for dir in [
        "message",
        "http-request",
        "descriptor",
        "result",
        "drift",
        "confirmation",
        "url",
        "elicitation",
    ] {
        for path in fixtures(dir) {
            let fx: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            abouts.push_str(fx["about"].as_str().unwrap_or(""));
            abouts.push('\n');
        }
    }
    let missing: Vec<&&str> = REQUIRED
        .iter()
        .filter(|id| !abouts.contains(&format!("corpus {id}")))
        .collect();
    assert!(
        missing.is_empty(),
        "corpus cases without a fixture: {missing:?}"
    );
}

/// The real reference server's descriptors pass without a withholding finding.
#[test]
fn server_everything_descriptors_are_not_withheld() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/lookalike/server-everything-2026.8.31.json");
    let set: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    for (member, method) in [
        ("tools", "tools/list"),
        ("prompts", "prompts/list"),
        ("resources", "resources/list"),
        ("resourceTemplates", "resources/templates/list"),
    ] {
        let result = serde_json::json!({ member: set[member].clone() });
        let shape = bastion_core::lists::shape_of(method).unwrap();
        let outcome = bastion_core::lists::inspect_list(shape, &result);
        assert_eq!(outcome.items.len(), set[member].as_array().unwrap().len());
        let withheld: Vec<_> = outcome
            .items
            .iter()
            .filter(|i| i.verdict == Verdict::Block)
            .collect();
        assert!(withheld.is_empty(), "{method}: withheld {withheld:#?}");
    }
    let instr = bastion_core::lists::inspect_instructions(
        &serde_json::json!({"instructions": set["instructions"]}),
    );
    assert!(
        instr.rewritten.is_none(),
        "instructions withheld: {:?}",
        instr.findings
    );
}

/// The finding-code table in docs/finding-codes.md is the generated one.
#[test]
fn finding_code_table_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/finding-codes.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    let table = bastion_core::Code::table();
    assert!(
        doc.contains(&table),
        "docs/finding-codes.md is out of date; regenerate it with:\n  cargo run -p mcp-bastion -- codes > docs/finding-codes.md\n(expected table:)\n{table}"
    );
}

mod contract;
