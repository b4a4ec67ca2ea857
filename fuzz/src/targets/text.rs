//! Targets for text that reaches the host: terminal stripping, the HTML and markdown
//! sanitizers, and whole `tools/call` results.

use crate::checks::{assert_clean_text, for_each_string, json, text};
use crate::html_check::{active_in_rendering, active_parts};
use bastion_core::result::{ResultOptions, inspect_result};
use bastion_core::sanitize::terminal::strip_terminal;
use bastion_core::sanitize::{ContentPolicy, sanitize_markup, sanitize_text, sanitize_value};
use pulldown_cmark::{Event, Options, Parser, Tag};
use std::borrow::Cow;

/// Terminal and hidden-character sanitizers: the output of `sanitize_text` is clean
/// ([`assert_clean_text`]); both `strip_terminal` and `sanitize_text` are idempotent and
/// borrow on the second pass.
///
/// # Panics
/// When a property fails.
pub fn terminal(data: &[u8]) {
    let input = text(data);
    let stripped = strip_terminal(&input);
    let again = strip_terminal(&stripped.text);
    assert!(
        matches!(again.text, Cow::Borrowed(_)),
        "strip_terminal not idempotent"
    );
    let clean = sanitize_text(&input);
    assert_clean_text(&clean.text, "sanitize_text");
    let again = sanitize_text(&clean.text);
    assert!(
        matches!(again.text, Cow::Borrowed(_)),
        "sanitize_text not idempotent"
    );
    assert_eq!(clean.removed == 0, clean.codes.is_empty());
}

/// Panics when `html` holds anything [`active_parts`] reports.
fn assert_html_inert(html: &str, context: &str) {
    let active = active_parts(html);
    assert!(active.is_empty(), "{active:?} in {html:?} ({context})");
}

/// HTML sanitizer (`text/html` content): output inert and idempotent.
///
/// # Panics
/// When a property fails.
pub fn sanitize_html(data: &[u8]) {
    let input = text(data);
    let policy = ContentPolicy::default();
    let once = sanitize_markup(&input, Some("text/html"), &policy, "/t");
    assert_html_inert(&once.text, "text/html");
    let twice = sanitize_markup(&once.text, Some("text/html"), &policy, "/t");
    assert_eq!(twice.text, once.text, "HTML sanitizer not idempotent");
}

/// Markdown sanitizer (tool text): idempotent; the output, read by a `CommonMark`
/// parser, has no link or image to a script or data URL and no inline or block HTML with
/// an active element; rendered the way cmark-gfm renders it (`comrak`, raw HTML let
/// through), it has no active element, handler, script URL, comment or non-relative
/// image.
///
/// # Panics
/// When a property fails.
pub fn markdown(data: &[u8]) {
    let input = text(data);
    let policy = ContentPolicy::default();
    let once = sanitize_markup(&input, None, &policy, "/t");
    let twice = sanitize_markup(&once.text, None, &policy, "/t");
    assert_eq!(twice.text, once.text, "markdown sanitizer not idempotent");
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    for event in Parser::new_ext(&once.text, options) {
        match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                let dest = dest_url.trim().to_ascii_lowercase();
                for scheme in ["javascript:", "vbscript:", "data:"] {
                    assert!(
                        !dest.starts_with(scheme),
                        "{dest_url:?} kept in {:?}",
                        once.text
                    );
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                let active = active_parts(&html);
                assert!(
                    active.is_empty(),
                    "{active:?} kept as HTML in {:?}",
                    once.text
                );
            }
            _ => {}
        }
    }
    // The way cmark-gfm (GitHub's renderer) reads it, raw HTML let through.
    let mut options = bastion_core::sanitize::second_reading::options();
    options.render.r#unsafe = true;
    let html = comrak::markdown_to_html(&once.text, &options);
    let active = active_in_rendering(&html);
    assert!(
        active.is_empty(),
        "{active:?} in cmark-gfm's rendering {html:?} of {:?}",
        once.text
    );
}

/// Whole `tools/call` / `resources/read` / `prompts/get` results as the gateway treats
/// them: `inspect_result`, then `sanitize_value` over every other string (URIs, `_meta`,
/// names). Every string of the final result is clean, and a second pass over it changes
/// nothing (unless the first one truncated text).
///
/// # Panics
/// When a property fails.
pub fn result(data: &[u8]) {
    let Some(value) = json(data) else {
        return;
    };
    let opts = ResultOptions::default();
    for method in ["tools/call", "resources/read", "prompts/get"] {
        let outcome = inspect_result(method, &value, &opts);
        let mut shown = outcome.rewritten.clone().unwrap_or_else(|| value.clone());
        sanitize_value(&mut shown);
        for_each_string(&shown, "", &mut |s, path| {
            assert_clean_text(s, &format!("{method} result {path}"));
        });
        let truncated = outcome
            .findings
            .iter()
            .any(|f| f.code.as_str() == "text_truncated");
        if !truncated {
            let again = inspect_result(method, &shown, &opts);
            assert!(
                again.rewritten.is_none(),
                "{method}: second pass rewrote {shown}"
            );
        }
    }
}
