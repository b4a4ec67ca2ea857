//! The target bodies, grouped by what they read: wire bytes ([`wire`]), text that reaches
//! the host ([`text`]), JSON inputs of the detectors ([`detectors`]) and signed tool
//! contracts ([`contract`]).

mod contract;
mod detectors;
mod text;
mod wire;

pub use contract::contract;
pub use detectors::{confirmation, descriptor, elicitation, output_schema, url_gate};
pub use text::{markdown, result, sanitize_html, terminal};
pub use wire::{canonical_json, envelope, frame_reader, strict_json};
