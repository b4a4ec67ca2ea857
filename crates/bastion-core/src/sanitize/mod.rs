//! Sanitizers for text that reaches the host: terminal control sequences and hidden
//! characters ([`text`], [`terminal`]), HTML and markdown ([`markup`]).

pub mod html;
pub mod markdown;
pub mod markup;
pub mod terminal;
pub mod text;

pub use markup::{ContentPolicy, MarkupOutcome, sanitize_markup};
pub use text::{TextOutcome, sanitize_text};
