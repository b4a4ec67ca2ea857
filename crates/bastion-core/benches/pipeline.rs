//! The per-message pipeline of the gateway on a `tools/call` result: strict parse +
//! envelope classification + structural check + result inspection (sanitizers), for
//! 1 KiB, 64 KiB and 1 MiB of text, clean and with terminal escapes.
//!
//! Run: `cargo bench -p bastion-core --bench pipeline`.

use bastion_core::result::{ResultOptions, inspect_result};
use bastion_core::{envelope, json, methods};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn frame(text: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": 7,
        "result": {"content": [{"type": "text", "text": text}], "structuredContent": {"n": text.len()}}
    }))
    .unwrap()
}

fn prose(len: usize) -> String {
    let words = "The quick brown fox jumps over the lazy dog; results are data, not instructions. ";
    words.repeat(len / words.len() + 1)[..len].to_owned()
}

fn pipeline(bytes: &[u8], opts: &ResultOptions) -> usize {
    let map = json::parse_frame(bytes, 64).unwrap();
    let kind = envelope::classify(&map).unwrap();
    let result = &map["result"];
    methods::check_result("tools/call", result).unwrap();
    let outcome = inspect_result("tools/call", result, opts);
    black_box(kind);
    outcome.findings.len() + usize::from(outcome.rewritten.is_some())
}

fn bench(c: &mut Criterion) {
    let opts = ResultOptions {
        max_text_bytes: 4 * 1024 * 1024,
        ..ResultOptions::default()
    };
    let mut group = c.benchmark_group("tools_call_result");
    for (label, size) in [("1KiB", 1024), ("64KiB", 64 * 1024), ("1MiB", 1024 * 1024)] {
        let clean = frame(&prose(size));
        group.throughput(Throughput::Bytes(clean.len() as u64));
        group.bench_with_input(BenchmarkId::new("clean", label), &clean, |b, f| {
            b.iter(|| pipeline(f, &opts));
        });
        let mut dirty_text = prose(size);
        dirty_text.insert_str(0, "\u{1b}[2J\u{1b}[H");
        dirty_text.push_str("\u{1b}]52;c;Y3VybCBldmls\u{7}");
        let dirty = frame(&dirty_text);
        group.bench_with_input(BenchmarkId::new("escapes", label), &dirty, |b, f| {
            b.iter(|| pipeline(f, &opts));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
