//! The target bodies, grouped by what they read: wire bytes ([`wire`]), text that reaches
//! the host ([`text`]), and JSON inputs of the detectors ([`detectors`]).

mod detectors;
mod text;
mod wire;

pub use detectors::{confirmation, descriptor, elicitation, output_schema, url_gate};
pub use text::{markdown, result, sanitize_html, terminal};
pub use wire::{canonical_json, envelope, frame_reader, strict_json};
