//! URL-mode elicitation (MCP 2025-11-25 "Elicitation §URL Mode"): the URL gate on the
//! `url`, and the message the host shows instead of the server's own (issue 6 §4):
//! a first line naming the server and the registrable domain, one warning line per flag,
//! then the server's message. Only `message` and `url` (replaced by the normalized URL)
//! change; Bastion never fetches the URL.

use crate::finding::Severity;
use crate::url_gate::UrlAssessment;
use serde_json::Value;

/// The first line of a rewritten message: `mcp-bastion: the server "NAME" asks you to
/// open a page on DOMAIN` (Unicode form, with the ASCII form in parentheses when they
/// differ; the host when there is no registrable domain).
pub fn header_line(server: &str, url: &UrlAssessment) -> String {
    let ascii = url
        .registrable_domain
        .as_deref()
        .or(url.host_ascii.as_deref())
        .unwrap_or("an unknown site");
    let unicode = url
        .registrable_domain_unicode
        .as_deref()
        .or(url.host_unicode.as_deref())
        .unwrap_or(ascii);
    let shown_server = crate::unicode::escape_for_display(server);
    if unicode == ascii {
        format!("mcp-bastion: the server \"{shown_server}\" asks you to open a page on {ascii}")
    } else {
        format!(
            "mcp-bastion: the server \"{shown_server}\" asks you to open a page on {unicode} (really {ascii})"
        )
    }
}

/// The `params` of a URL-mode `elicitation/create` as the host receives them: `message`
/// rewritten (header line, a `Warning: …` line per `warn` finding of `url`, a blank line,
/// `Message from the server:` and the original message, so that server text cannot pass
/// for Bastion's lines) and `url` replaced by the normalized URL. Every other member is
/// kept as is. Call only for an assessment that is not `block`.
pub fn rewrite_params(params: &Value, server: &str, url: &UrlAssessment) -> Value {
    let mut out = params.clone();
    let original = params.get("message").and_then(Value::as_str).unwrap_or("");
    let mut message = header_line(server, url);
    for f in url.findings.iter().filter(|f| f.severity == Severity::Warn) {
        message.push_str("\nWarning: ");
        message.push_str(&f.message);
    }
    message.push_str("\n\nMessage from the server:\n");
    message.push_str(original);
    if let Some(obj) = out.as_object_mut() {
        obj.insert("message".into(), Value::String(message));
        if let Some(n) = &url.normalized {
            obj.insert("url".into(), Value::String(n.clone()));
        }
    }
    out
}
