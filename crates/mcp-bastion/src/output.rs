//! Human and JSON output of the commands.

use anyhow::{Result, bail};
use bastion_core::Report;
use bastion_core::finding::Finding;
use bastion_core::unicode::escape_for_display;
use bastion_gateway::scan::ScanReport;
use bastion_store::AuditEvent;
use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn finding_line(f: &Finding) -> String {
    let path = if f.path.is_empty() {
        String::new()
    } else {
        format!(" at {}", f.path)
    };
    format!(
        "  {:<8} {}{}: {}",
        f.severity.as_str(),
        f.code,
        path,
        escape_for_display(&f.message)
    )
}

/// `check` in human form: verdict, findings, and the output when it differs.
pub(crate) fn print_report(report: &Report) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "verdict: {}", report.verdict)?;
    for f in &report.findings {
        writeln!(out, "{}", finding_line(f))?;
    }
    if let Some(value) = &report.output {
        writeln!(out, "output: {}", escape_for_display(&value.to_string()))?;
    }
    Ok(())
}

/// `true` when `e` is a closed stdout (`mcp-bastion … | head`): not a failure.
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<std::io::Error>())
        .any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// `scan` output: a table, or one JSON object `{"verdict", "findings", "output"}`.
pub(crate) fn print_scan(name: &str, report: &ScanReport, json: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        let findings: Vec<&Finding> = report.items.iter().flat_map(|i| &i.findings).collect();
        let value = serde_json::json!({
            "verdict": report.verdict(),
            "findings": findings,
            "output": report,
        });
        writeln!(out, "{value}")?;
        return Ok(());
    }
    let info = report.server_info.as_ref().map_or_else(
        || "unknown".into(),
        |i| {
            let n = i.get("name").and_then(|v| v.as_str()).unwrap_or("?");
            let v = i.get("version").and_then(|v| v.as_str()).unwrap_or("?");
            format!("{} {}", escape_for_display(n), escape_for_display(v))
        },
    );
    writeln!(
        out,
        "server {name}: {info} ({} era, protocol {})",
        report.era,
        report.protocol_version.as_deref().unwrap_or("?")
    )?;
    let width = report
        .items
        .iter()
        .map(|i| i.key.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 48);
    writeln!(
        out,
        "{:<20} {:<width$} {:<8} FINDINGS",
        "KIND", "ITEM", "VERDICT"
    )?;
    for item in &report.items {
        let mut codes: Vec<&str> = item.findings.iter().map(|f| f.code.as_str()).collect();
        codes.dedup();
        let kind = serde_json::to_value(item.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        writeln!(
            out,
            "{kind:<20} {:<width$} {:<8} {}",
            escape_for_display(&item.key),
            item.verdict.as_str(),
            codes.join(",")
        )?;
    }
    for item in report.items.iter().filter(|i| !i.findings.is_empty()) {
        writeln!(
            out,
            "\n{} {}:",
            item.verdict.as_str(),
            escape_for_display(&item.key)
        )?;
        for f in &item.findings {
            writeln!(out, "{}", finding_line(f))?;
        }
    }
    for e in &report.errors {
        writeln!(out, "error: {e}")?;
    }
    let count = |v: bastion_core::Verdict| report.items.iter().filter(|i| i.verdict == v).count();
    writeln!(
        out,
        "\n{} items: {} allow, {} flag, {} block",
        report.items.len(),
        count(bastion_core::Verdict::Allow),
        count(bastion_core::Verdict::Flag),
        count(bastion_core::Verdict::Block)
    )?;
    Ok(())
}

/// `audit` output: one JSON object per line, or a table with a header.
pub(crate) fn print_audit(events: &[AuditEvent], json: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        for e in events {
            writeln!(out, "{}", serde_json::to_string(e)?)?;
        }
        return Ok(());
    }
    if events.is_empty() {
        writeln!(out, "no audit events match")?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<24} {:<12} {:<14} {:<12} {:<24} {:<8} {:<26} {:>9}  TARGET [codes]",
        "TIME", "SERVER", "DIRECTION", "KIND", "METHOD", "VERDICT", "REASON", "BYTES"
    )?;
    for e in events {
        let codes = if e.codes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", e.codes.join(","))
        };
        // A row folding several identical refusals says how many.
        let reason = match (e.reason.as_deref().unwrap_or("-"), e.count) {
            (reason, count) if count > 1 => format!("{reason} (x{count})"),
            (reason, _) => reason.to_owned(),
        };
        writeln!(
            out,
            "{:<24} {:<12} {:<14} {:<12} {:<24} {:<8} {:<26} {:>9}  {}{codes}",
            format_time(e.time_ms),
            escape_for_display(&e.server),
            e.direction,
            e.message_kind.as_deref().unwrap_or("-"),
            e.method.as_deref().unwrap_or("-"),
            e.verdict,
            reason,
            e.bytes,
            escape_for_display(e.tool.as_deref().unwrap_or("-")),
        )?;
    }
    Ok(())
}

/// Prints consent-ledger rows: a table, or one JSON object per line.
pub(crate) fn print_consents(rows: &[bastion_store::ConsentRecord], json: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        for r in rows {
            writeln!(out, "{}", serde_json::to_string(r)?)?;
        }
        return Ok(());
    }
    if rows.is_empty() {
        writeln!(out, "no URL consent decisions recorded")?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<24} {:<12} {:<10} {:<7} {:<20} URL [reasons]",
        "TIME", "SERVER", "DECISION", "VERDICT", "ELICITATION"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<24} {:<12} {:<10} {:<7} {:<20} {}{}",
            format_time(r.decided_ms),
            escape_for_display(&r.server_name),
            r.decision,
            r.verdict,
            escape_for_display(r.elicitation_id.as_deref().unwrap_or("-")),
            escape_for_display(&r.normalized_url),
            r.reason
                .as_deref()
                .map(|x| format!(" [{x}]"))
                .unwrap_or_default(),
        )?;
    }
    Ok(())
}

/// Unix milliseconds as RFC 3339 UTC with milliseconds (24 characters).
pub(crate) fn format_time(ms: i64) -> String {
    let t = UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    humantime::format_rfc3339_millis(t).to_string()
}

/// `--since`: a duration ago (`90s`, `15m`, `2h`, `7d`) or an RFC 3339 time; returns
/// unix milliseconds.
pub(crate) fn parse_since(s: &str) -> Result<i64> {
    let t = if let Ok(d) = humantime::parse_duration(s) {
        SystemTime::now().checked_sub(d).unwrap_or(UNIX_EPOCH)
    } else if let Ok(t) = humantime::parse_rfc3339_weak(s) {
        t
    } else {
        bail!(
            "--since {s:?}: expected a duration such as 15m or 2h, or an RFC 3339 time such as 2026-11-30T12:00:00Z"
        );
    };
    Ok(t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_forms() {
        assert_eq!(
            parse_since("2026-01-01T00:00:00Z").unwrap(),
            1_767_225_600_000
        );
        let ago = parse_since("1h").unwrap();
        let now = i64::try_from(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_millis(),
        )
        .unwrap();
        assert!((now - ago - 3_600_000).abs() < 5_000);
        assert!(parse_since("yesterday-ish").is_err());
    }
}
