//! Audit write cost on the embedded store: `cargo run --release -p bastion-store --example
//! audit_write [EVENTS] [BATCH]` writes EVENTS (default 30,000) exchange-shaped events in
//! batches of BATCH (default 2,048, the gateway's largest) to a new `SQLite` file and
//! prints events/s and the process's CPU time per event (µs, from `/proc/self/stat`).

use bastion_store::{AuditEvent, Store};

fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<f64>().ok())
        .sum();
    ticks / 100.0
}

fn event(i: usize) -> AuditEvent {
    AuditEvent {
        time_ms: 1_796_000_000_000 + i64::try_from(i).unwrap_or(0),
        server: "bench".into(),
        direction: "server_to_host".into(),
        message_kind: Some("result".into()),
        method: Some("tools/call".into()),
        tool: Some("echo".into()),
        request_id: Some(format!("{i}")),
        verdict: "allow".into(),
        bytes: 245,
        digest: Some(format!("{i:064x}")),
        instance: Some("vm-1a2b3c4d".into()),
        ..AuditEvent::default()
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let events: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(30_000);
    let batch: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2048);
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("audit.db").display());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let store = Store::open(&url).await.expect("store");
        let all: Vec<AuditEvent> = (0..events).map(event).collect();
        let (cpu0, t0) = (cpu_seconds(), std::time::Instant::now());
        for chunk in all.chunks(batch) {
            store.record_audit_batch(chunk).await.expect("write");
        }
        let (cpu, secs) = (cpu_seconds() - cpu0, t0.elapsed().as_secs_f64());
        #[allow(clippy::cast_precision_loss)]
        let n = events as f64;
        println!(
            "{events} events in batches of {batch}: {:.0} events/s, {:.2} µs CPU per event",
            n / secs,
            cpu * 1e6 / n
        );
        store.close().await;
    });
}
