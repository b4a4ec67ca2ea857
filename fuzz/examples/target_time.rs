//! Times one fuzz target body over every file of a directory and prints the slowest
//! inputs, to find where a slow target spends its executions.
//!
//! Run: `cargo run --release --no-default-features --example target_time -- TARGET DIR [N]`
//! (TARGET: `markdown` or `sanitize_html`; N slowest inputs listed, default 10).
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let target = args.next().expect("usage: target_time TARGET DIR [N]");
    let dir = args.next().expect("usage: target_time TARGET DIR [N]");
    let keep: usize = args.next().map_or(10, |n| n.parse().expect("N is a count"));
    let body: fn(&[u8]) = match target.as_str() {
        "markdown" => bastion_fuzz::markdown,
        "sanitize_html" => bastion_fuzz::sanitize_html,
        "result" => bastion_fuzz::result,
        other => panic!("unknown target {other}"),
    };
    let mut times = Vec::new();
    let started = Instant::now();
    for entry in std::fs::read_dir(&dir).expect("readable directory") {
        let path = entry.expect("entry").path();
        let data = std::fs::read(&path).expect("readable input");
        let at = Instant::now();
        body(&data);
        times.push((at.elapsed(), data.len(), path));
    }
    let total = started.elapsed();
    times.sort_by_key(|t| std::cmp::Reverse(t.0));
    println!(
        "{} inputs in {:.3} s ({:.0}/s)",
        times.len(),
        total.as_secs_f64(),
        f64::from(u32::try_from(times.len()).unwrap_or(u32::MAX)) / total.as_secs_f64()
    );
    for (took, len, path) in times.iter().take(keep) {
        println!(
            "{:>9.3} ms {len:>6} bytes {}",
            took.as_secs_f64() * 1e3,
            path.display()
        );
    }
}
