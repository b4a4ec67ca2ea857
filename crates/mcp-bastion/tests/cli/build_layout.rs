//! The function list the `dist` build hands its linker (`hot-symbols.txt`, see
//! `build.rs`): the form `scripts/hot-symbols.sh` writes, and a run of the relay behind it.

use std::path::Path;

#[test]
fn the_hot_symbol_list_is_sorted_symbols_from_a_relay_run() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("hot-symbols.txt");
    let text = std::fs::read_to_string(&path).expect("hot-symbols.txt readable");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 1000, "{} symbols only", lines.len());
    for line in &lines {
        assert!(
            !line.is_empty() && !line.contains(char::is_whitespace),
            "not a symbol name: {line:?}"
        );
    }
    // `LC_ALL=C sort -u`: byte order, no duplicates (stable diffs when regenerated).
    assert!(
        lines.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes()),
        "not sorted and unique"
    );
    // The workload reached the relay, the result checks and the audit store, not only
    // start-up code (a gateway that failed to start would leave only the latter).
    let count = |needle: &str| lines.iter().filter(|l| l.contains(needle)).count();
    assert!(
        count("bastion_gateway5relay") >= 20,
        "relay functions missing"
    );
    assert!(count("bastion_core") >= 100, "core functions missing");
    assert!(lines.contains(&"sqlite3_step"), "SQLite functions missing");
}
