//! The typed form a `requestedSchema` parses into ([`super::schema::parse_form`]) and
//! its size limits: what the host's answer is validated against ([`super::answer`]).

/// Size limits for a form schema.
///
/// # Defaults
/// 32 properties, 256 choices per enum, 1000 characters per title/description/label,
/// 65536 bytes of schema JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FormLimits {
    /// Most properties in one form.
    pub max_properties: usize,
    /// Most choices in one enum.
    pub max_choices: usize,
    /// Longest title, description, enum value or label, in characters.
    pub max_label_chars: usize,
    /// Largest `requestedSchema`, in bytes of compact JSON.
    pub max_schema_bytes: usize,
}

impl Default for FormLimits {
    fn default() -> Self {
        Self {
            max_properties: 32,
            max_choices: 256,
            max_label_chars: 1000,
            max_schema_bytes: 65_536,
        }
    }
}

/// A string format the form may request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TextFormat {
    /// `email` (RFC 5321 mailbox).
    Email,
    /// `uri` (RFC 3986 absolute URI).
    Uri,
    /// `date` (RFC 3339 full-date).
    Date,
    /// `date-time` (RFC 3339 date-time).
    DateTime,
}

/// The kind of one form field, with its constraints.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FieldKind {
    /// Free text.
    Text {
        /// `minLength`, characters.
        min_len: Option<u64>,
        /// `maxLength`, characters.
        max_len: Option<u64>,
        /// `format`.
        format: Option<TextFormat>,
    },
    /// `number` or `integer`.
    Number {
        /// `type: "integer"`.
        integer: bool,
        /// `minimum` (inclusive).
        minimum: Option<f64>,
        /// `maximum` (inclusive).
        maximum: Option<f64>,
    },
    /// `boolean`.
    Boolean,
    /// One of `values`.
    SingleChoice {
        /// Allowed values (`enum` or the `const` of each `oneOf`).
        values: Vec<String>,
    },
    /// Several of `values`.
    MultiChoice {
        /// Allowed values.
        values: Vec<String>,
        /// `minItems`.
        min_items: Option<u64>,
        /// `maxItems`.
        max_items: Option<u64>,
    },
}

/// One field of a form.
#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    /// Property name (the key in `content`).
    pub name: String,
    /// Kind and constraints.
    pub kind: FieldKind,
}

/// A form schema that passed [`super::schema::parse_form`]: what the host's answer is validated against.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FormSchema {
    /// Fields in schema order.
    pub fields: Vec<FormField>,
    /// Names of required fields.
    pub required: Vec<String>,
}
