//! Member-name folding: NFKC, then Unicode full case folding (UTS #46-style key
//! comparison), so `Name`, `NAME` and `ｎａｍｅ` all fold to `name`, `paramſ` (U+017F)
//! folds to `params` and `K` (U+212A) folds to `k`.

use std::borrow::Cow;
use unicode_normalization::UnicodeNormalization;

/// JSON-RPC 2.0 and MCP member names (both eras) that decide how a message is routed
/// or what a result means. A member name that is not byte-identical to one of these but
/// folds onto it is refused: some decoders match names case-insensitively or fold them,
/// so the look-alike could be read as the real member by the server or the host.
pub const PROTOCOL_MEMBERS: &[&str] = &[
    "_meta",
    "action",
    "annotations",
    "arguments",
    "audience",
    "blob",
    "cacheScope",
    "capabilities",
    "clientInfo",
    "code",
    "content",
    "contents",
    "cursor",
    "data",
    "description",
    "elicitationId",
    "error",
    "execution",
    "icons",
    "id",
    "inputRequests",
    "inputSchema",
    "instructions",
    "isError",
    "jsonrpc",
    "kind",
    "messages",
    "message",
    "method",
    "mimeType",
    "mode",
    "name",
    "nextCursor",
    "outputSchema",
    "params",
    "progress",
    "progressToken",
    "prompts",
    "protocolVersion",
    "reason",
    "requestId",
    "requestState",
    "requestedSchema",
    "resource",
    "resourceTemplates",
    "resources",
    "result",
    "resultType",
    "role",
    "serverInfo",
    "size",
    "structuredContent",
    "supportedVersions",
    "task",
    "text",
    "title",
    "tools",
    "total",
    "ttlMs",
    "type",
    "uri",
    "uriTemplate",
    "url",
];

/// The fold of a member name: NFKC and full Unicode case folding; then, when the result is
/// ASCII but for combining marks and dotless `ı`/`ȷ`, those are dropped/mapped; otherwise
/// NFKC again.
/// Borrowed when the name is already folded (the common, all-lowercase ASCII case).
pub fn fold_key(name: &str) -> Cow<'_, str> {
    if name.is_ascii() {
        if name.bytes().any(|b| b.is_ascii_uppercase()) {
            return Cow::Owned(name.to_ascii_lowercase());
        }
        return Cow::Borrowed(name);
    }
    let nfkc: String = name.nfkc().collect();
    let folded = icu_casemap::CaseMapper::new()
        .fold_string(&nfkc)
        .into_owned();
    // For names that are ASCII but for marks and dotless letters, the marks are dropped
    // and dotless i/j mapped, so `İd` (folds to `i` + U+0307), `ıd` and `íd` all meet
    // `id`: lenient decoders (Java `equalsIgnoreCase`, accent-folding collations) treat
    // them as the same name. Names in other scripts keep their marks (`カ` is not `ガ`).
    let bare: String = folded
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .map(|c| match c {
            '\u{131}' => 'i',
            '\u{237}' => 'j',
            other => other,
        })
        .collect();
    if bare.is_ascii() {
        return Cow::Owned(bare);
    }
    Cow::Owned(folded.nfkc().collect())
}

/// The protocol member whose fold equals `folded`, if any.
pub(crate) fn protocol_member_for(folded: &str) -> Option<&'static str> {
    /// The members by their ASCII-lowercase form, sorted for a binary search (this runs
    /// for member names of every message).
    static BY_LOWER: std::sync::OnceLock<Vec<(String, &'static str)>> = std::sync::OnceLock::new();
    if !folded.is_ascii() {
        return None;
    }
    let table = BY_LOWER.get_or_init(|| {
        let mut t: Vec<(String, &'static str)> = PROTOCOL_MEMBERS
            .iter()
            .map(|m| (m.to_ascii_lowercase(), *m))
            .collect();
        t.sort_unstable();
        t
    });
    let lower = fold_ascii_lower(folded);
    table
        .binary_search_by(|(l, _)| l.as_str().cmp(&lower))
        .ok()
        .map(|i| table[i].1)
}

/// `s` in ASCII lowercase, borrowed when it already is.
fn fold_ascii_lower(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(s.to_ascii_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds() {
        assert_eq!(fold_key("name"), "name");
        assert!(matches!(fold_key("name"), Cow::Borrowed(_)));
        assert_eq!(fold_key("Name"), "name");
        assert_eq!(fold_key("param\u{17f}"), "params");
        assert_eq!(fold_key("\u{212a}ind"), "kind");
        assert_eq!(fold_key("\u{ff4e}\u{ff41}\u{ff4d}\u{ff45}"), "name");
        assert_eq!(fold_key("Stra\u{df}e"), "strasse");
        assert_eq!(fold_key("\u{6771}\u{4eac}"), "\u{6771}\u{4eac}");
        assert_eq!(fold_key("\u{130}d"), "id");
        assert_eq!(fold_key("\u{131}d"), "id");
        assert_eq!(fold_key("\u{ed}d"), "id");
        assert_eq!(fold_key("caf\u{e9}"), "cafe");
        assert_eq!(fold_key("\u{30ac}"), "\u{30ac}");
    }

    #[test]
    fn protocol_lookup() {
        assert_eq!(protocol_member_for("params"), Some("params"));
        assert_eq!(protocol_member_for("nextcursor"), Some("nextCursor"));
        assert_eq!(protocol_member_for("city"), None);
        assert_eq!(protocol_member_for("NEXTCURSOR"), Some("nextCursor"));
        assert_eq!(protocol_member_for("_meta"), Some("_meta"));
        assert_eq!(protocol_member_for("p\u{e4}rams"), None);
        for m in PROTOCOL_MEMBERS {
            assert_eq!(protocol_member_for(m), Some(*m));
            assert_eq!(protocol_member_for(&m.to_ascii_uppercase()), Some(*m));
        }
    }
}
