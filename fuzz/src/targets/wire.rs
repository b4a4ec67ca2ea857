//! Wire-level targets: frame reader, strict JSON parser, envelope classification and
//! RFC 8785 canonical JSON.

use bastion_core::check::{self, CheckKind};
use bastion_core::envelope::classify;
use bastion_core::frame::{FrameDecoder, FrameEvent, PREFIX_KEEP};
use bastion_core::json::{ParseError, parse_frame, parse_value, recover};
use bastion_core::pins::{canonical_json as jcs, descriptor_hash, sha256_hex};
use bastion_core::{Limits, Verdict};
use serde_json::{Value, json};

/// The frames of `stream` as the stdio transport defines them (newline-delimited,
/// whitespace-only lines skipped, lines over `limit` reported with their first
/// [`PREFIX_KEEP`] bytes), leaving out line number `dropped` entirely.
fn reference_frames(stream: &[u8], limit: usize, dropped: Option<usize>) -> Vec<FrameEvent> {
    let mut out = Vec::new();
    for (n, line) in stream.split(|&b| b == b'\n').enumerate() {
        if Some(n) == dropped {
            continue;
        }
        if line.len() > limit {
            out.push(FrameEvent::Oversized {
                bytes: line.len(),
                prefix: line[..line.len().min(PREFIX_KEEP)].to_vec(),
            });
        } else if !line.iter().all(u8::is_ascii_whitespace) {
            out.push(FrameEvent::Frame(line.to_vec()));
        }
    }
    out
}

/// Frame reader: byte 0 is the frame limit (0..=255), byte 1 seeds the read sizes and,
/// when its high bit is set, a read timeout (`discard_partial`) half-way through. The
/// frames equal the lines of the stream whatever the read boundaries, minus the line cut
/// by the timeout; the buffer never exceeds the limit.
///
/// # Panics
/// When a property fails.
pub fn frame_reader(data: &[u8]) {
    let [limit, seed, stream @ ..] = data else {
        return;
    };
    let limit = usize::from(*limit);
    let timeout_at = (seed & 0x80 != 0).then_some(stream.len() / 2);
    let mut d = FrameDecoder::new(limit);
    let mut got = Vec::new();
    let mut dropped = None;
    let mut at = 0;
    let mut step = usize::from(seed % 17) + 1;
    while at < stream.len() {
        let mut to = (at + step).min(stream.len());
        if let Some(mid) = timeout_at.filter(|&m| at < m && m < to) {
            to = mid;
        }
        d.push(&stream[at..to], &mut got);
        assert!(
            d.buffered() <= limit,
            "buffered {} > limit {limit}",
            d.buffered()
        );
        if Some(to) == timeout_at && d.has_partial() {
            d.discard_partial();
            dropped = Some(stream[..to].split(|&b| b == b'\n').count() - 1);
        }
        at = to;
        step = (step * 7 + 3) % 23 + 1;
    }
    got.extend(d.finish());
    assert_eq!(got, reference_frames(stream, limit, dropped));
}

/// Strict JSON: whatever `parse_value` accepts, `serde_json` accepts as the same value;
/// what `serde_json` accepts and the strict parser refuses is a duplicate name or too
/// deep. `parse_frame` accepts a subset of `parse_value`; a recovered `id` is a scalar.
///
/// # Panics
/// When a property fails.
pub fn strict_json(data: &[u8]) {
    let strict = parse_value(data, 64);
    match (&strict, serde_json::from_slice::<Value>(data)) {
        (Ok(v), Ok(r)) => assert_eq!(v, &r),
        (Ok(v), Err(e)) => panic!("strict parse accepted {v} that serde_json refuses: {e}"),
        (Err(e), Ok(_)) => assert!(
            matches!(
                e,
                ParseError::DuplicateKey { .. } | ParseError::MaxDepth { .. }
            ),
            "strict parse refused valid JSON: {e:?}"
        ),
        (Err(_), Err(_)) => {}
    }
    match parse_frame(data, 64) {
        Ok(map) => assert_eq!(strict.as_ref().ok(), Some(&Value::Object(map))),
        Err(rejected) => {
            assert!(
                rejected
                    .id
                    .as_ref()
                    .is_none_or(|id| !id.is_object() && !id.is_array())
            );
        }
    }
    let recovered = recover(data);
    assert!(
        recovered
            .id
            .as_ref()
            .is_none_or(|id| !id.is_object() && !id.is_array())
    );
}

/// Envelope classification and `check message` in both directions: a single frame
/// within the limit that the strict parser refuses is never allowed, and the check is
/// deterministic.
///
/// # Panics
/// When a property fails.
pub fn envelope(data: &[u8]) {
    let parsed = parse_frame(data, 64);
    if let Ok(map) = &parsed {
        let _ = classify(map);
    }
    let limits = Limits::default();
    let single = !data.contains(&b'\n') && !data.iter().all(u8::is_ascii_whitespace);
    for direction in ["host_to_server", "server_to_host"] {
        let input = json!({"raw_hex": hex::encode(data), "direction": direction});
        let Ok(report) = check::run(CheckKind::Message, &input, &limits) else {
            continue;
        };
        if single && data.len() <= limits.max_host_frame_bytes && parsed.is_err() {
            assert_eq!(
                report.verdict,
                Verdict::Block,
                "refused frame not blocked ({direction})"
            );
        }
        let again = check::run(CheckKind::Message, &input, &limits).ok();
        assert_eq!(
            again.as_ref(),
            Some(&report),
            "check message not deterministic"
        );
    }
}

/// RFC 8785: the canonical text of any strictly parsed value parses again and is its
/// own canonical form; the descriptor hash is the SHA-256 of that text.
///
/// # Panics
/// When a property fails.
pub fn canonical_json(data: &[u8]) {
    let Some(value) = crate::checks::json(data) else {
        return;
    };
    let Ok(text) = jcs(&value) else {
        return;
    };
    let again = parse_value(text.as_bytes(), 256).expect("canonical text parses strictly");
    assert_eq!(
        jcs(&again).as_deref(),
        Ok(text.as_str()),
        "not a fixed point"
    );
    assert_eq!(
        descriptor_hash(&value).ok(),
        Some(sha256_hex(text.as_bytes()))
    );
}
