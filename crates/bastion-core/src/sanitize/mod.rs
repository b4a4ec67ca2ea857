//! Sanitizers for text that reaches the host: terminal control sequences and hidden
//! characters ([`text`], [`terminal`]), HTML and markdown ([`markup`]), and every string
//! of a JSON value ([`value`]).

pub mod html;
pub mod markdown;
pub mod markup;
pub mod second_reading;
pub mod terminal;
pub mod text;
pub mod value;

pub use markup::{ContentPolicy, HtmlInText, InjectionMode, MarkupOutcome, sanitize_markup};
pub use text::{TextOutcome, sanitize_text};
pub use value::{ValueOutcome, sanitize_result, sanitize_value};
