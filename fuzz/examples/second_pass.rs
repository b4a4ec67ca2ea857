//! Prints, for a `result` fuzz input, what the first and the second inspection pass
//! produce for `resources/read`, and the first place where the second pass differs.
//!
//! Run: `cargo run --release --no-default-features --example second_pass -- FILE`.
use bastion_core::result::{ResultOptions, inspect_result};
use bastion_core::sanitize::sanitize_value;

fn main() {
    let path = std::env::args().nth(1).expect("usage: second_pass FILE");
    let data = std::fs::read(path).expect("readable input");
    let value: serde_json::Value = serde_json::from_slice(&data).expect("JSON input");
    let opts = ResultOptions::default();
    for method in ["tools/call", "resources/read", "prompts/get"] {
        let first = inspect_result(method, &value, &opts);
        let mut shown = first.rewritten.clone().unwrap_or_else(|| value.clone());
        sanitize_value(&mut shown);
        let again = inspect_result(method, &shown, &opts);
        let Some(second) = again.rewritten else {
            println!("{method}: fixpoint");
            continue;
        };
        let a = serde_json::to_string(&shown).unwrap();
        let b = serde_json::to_string(&second).unwrap();
        let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
        let lo = a.floor_char_boundary(at.saturating_sub(300));
        println!("{method}: second pass differs at byte {at}");
        println!(
            "first : {}",
            &a[lo..a.floor_char_boundary((at + 300).min(a.len()))]
        );
        println!(
            "second: {}",
            &b[lo..b.floor_char_boundary((at + 300).min(b.len()))]
        );
    }
}
