//! Prints what the markdown sanitizer makes of a `markdown` fuzz input, and how cmark-gfm
//! renders it (raw HTML let through), around a given needle.
//!
//! Run: `cargo run --release --no-default-features --example markdown_case -- FILE [NEEDLE]`.
use bastion_core::sanitize::{ContentPolicy, sanitize_markup};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: markdown_case FILE [NEEDLE]");
    let needle = args.next().unwrap_or_else(|| "<img".to_owned());
    let data = std::fs::read(path).expect("readable input");
    let input = String::from_utf8_lossy(&data);
    let once = sanitize_markup(&input, None, &ContentPolicy::default(), "/t");
    let mut options = bastion_core::sanitize::second_reading::options();
    options.render.r#unsafe = true;
    let html = comrak::markdown_to_html(&once.text, &options);
    println!("sanitized ({} bytes):\n{}\n", once.text.len(), once.text);
    for (at, _) in html.match_indices(&needle) {
        let lo = html.floor_char_boundary(at.saturating_sub(200));
        let hi = html.floor_char_boundary((at + 200).min(html.len()));
        println!("rendered around {at}: {:?}", &html[lo..hi]);
    }
}
