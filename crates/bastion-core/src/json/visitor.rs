//! The `serde` visitor behind [`super::parse_frame`]: builds a `serde_json::Value` while
//! enforcing depth, duplicate and protocol-member rules. Errors are recorded in [`Ctx`]
//! (typed) and signalled to serde with an opaque custom error.

use super::Member;
use super::ParseError;
use super::fold::{fold_key, protocol_member_for};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

/// Parse state shared by every seed of one parse.
pub(super) struct Ctx {
    max_depth: usize,
    /// The typed reason of the first failure.
    pub(super) error: Option<ParseError>,
    /// The top-level `id`, once read.
    pub(super) top_id: Option<Value>,
    /// `true` once a top-level `method` member name was read: the frame is a request or
    /// a notification, not a response.
    pub(super) method_seen: bool,
}

impl Ctx {
    pub(super) fn new(max_depth: usize) -> Self {
        Self {
            max_depth,
            error: None,
            top_id: None,
            method_seen: false,
        }
    }
}

/// `params`, `result` and `error` objects with fewer members than this are checked for
/// case-fold duplicates of ASCII names by comparing with each earlier name; larger ones,
/// and any with a non-ASCII name, through an index of folded names.
const SCAN_MEMBERS: usize = 8;

/// Where in a JSON-RPC message an object sits; decides which member-name rules apply.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    /// The top-level envelope object.
    Envelope,
    /// `params`, `result` or `error` of the envelope.
    Protocol,
    /// Anything deeper (arguments, schemas, content).
    Data,
    /// Not a message at all (`parse_value`): exact duplicates only.
    Plain,
}

pub(super) struct ValueSeed<'c> {
    ctx: &'c RefCell<Ctx>,
    depth: usize,
    level: Level,
}

impl<'c> ValueSeed<'c> {
    pub(super) fn envelope(ctx: &'c RefCell<Ctx>) -> Self {
        Self {
            ctx,
            depth: 1,
            level: Level::Envelope,
        }
    }

    pub(super) fn data(ctx: &'c RefCell<Ctx>) -> Self {
        Self {
            ctx,
            depth: 1,
            level: Level::Plain,
        }
    }

    fn child(&self, level: Level) -> Self {
        Self {
            ctx: self.ctx,
            depth: self.depth + 1,
            level,
        }
    }

    fn fail<E: de::Error>(&self, error: ParseError) -> E {
        let mut ctx = self.ctx.borrow_mut();
        if ctx.error.is_none() {
            ctx.error = Some(error);
        }
        E::custom("refused by strict parser")
    }

    fn check_depth<E: de::Error>(&self) -> Result<(), E> {
        let limit = self.ctx.borrow().max_depth;
        if self.depth > limit {
            Err(self.fail(ParseError::MaxDepth { limit }))
        } else {
            Ok(())
        }
    }

    /// Prefixes the path of a recorded duplicate/confusable error with `token` while the
    /// error unwinds through this container.
    fn prepend_path(&self, token: &str) {
        if let Some(
            ParseError::DuplicateKey { path, .. }
            | ParseError::ConfusableMember { path, .. }
            | ParseError::ControlInMemberName { path, .. },
        ) = self.ctx.borrow_mut().error.as_mut()
        {
            *path = format!("{}{path}", crate::finding::pointer_push("", token));
        }
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("non-finite number"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if self.level == Level::Envelope {
            return Err(self.fail(ParseError::Batch));
        }
        self.check_depth()?;
        let level = if self.level == Level::Plain {
            Level::Plain
        } else {
            Level::Data
        };
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        loop {
            let index = items.len();
            match seq.next_element_seed(self.child(level)) {
                Ok(Some(v)) => items.push(v),
                Ok(None) => break,
                Err(e) => {
                    self.prepend_path(&index.to_string());
                    return Err(e);
                }
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        self.check_depth()?;
        let mut map = Map::new();
        // Folded forms of names whose fold differs from the name, mapped to that name;
        // `None` until the object needs it (see `key_error`).
        let mut folded_names: Option<HashMap<String, String>> = None;
        while let Some(key) = access.next_key_seed(KeySeed)? {
            if self.level == Level::Envelope && key == "method" {
                self.ctx.borrow_mut().method_seen = true;
            }
            if let Some(error) = self.key_error(&key, &map, &mut folded_names) {
                return Err(self.fail(error));
            }
            let child_level = match (self.level, key.as_ref()) {
                (Level::Envelope, "params" | "result" | "error") => Level::Protocol,
                (Level::Plain, _) => Level::Plain,
                _ => Level::Data,
            };
            let value = match access.next_value_seed(self.child(child_level)) {
                Ok(v) => v,
                Err(e) => {
                    self.prepend_path(&key);
                    return Err(e);
                }
            };
            if self.level == Level::Envelope
                && key == "id"
                && !value.is_object()
                && !value.is_array()
            {
                self.ctx.borrow_mut().top_id = Some(value.clone());
            }
            map.insert(key.into_owned(), value);
        }
        Ok(Value::Object(map))
    }
}

impl ValueSeed<'_> {
    /// The member-name rule `key` breaks in an object that already holds `map`, if any.
    fn key_error(
        &self,
        key: &str,
        map: &Map<String, Value>,
        folded_names: &mut Option<HashMap<String, String>>,
    ) -> Option<ParseError> {
        let dup = |earlier: &str| ParseError::DuplicateKey {
            path: String::new(),
            name: key.to_owned(),
            earlier: earlier.to_owned(),
        };
        // Small objects (most MCP objects) are searched in place: cheaper than hashing.
        if map.has_member(key) {
            return Some(dup(key));
        }
        if self.level == Level::Plain {
            return None;
        }
        if self.level == Level::Data && key.is_ascii() {
            // Deeper than `params`/`result`/`error`, case-fold duplicates are data and
            // only non-ASCII names are compared with the protocol members.
            return key.bytes().any(|b| b.is_ascii_control()).then(|| {
                ParseError::ControlInMemberName {
                    path: String::new(),
                    name: key.to_owned(),
                }
            });
        }
        if key.chars().any(char::is_control) {
            // A NUL or other control in a member name: C-string decoders read
            // `"name\u0000"` as `name`; no protocol or data member legitimately has one.
            return Some(ParseError::ControlInMemberName {
                path: String::new(),
                name: key.to_owned(),
            });
        }
        if self.level == Level::Protocol
            && key.is_ascii()
            && folded_names.is_none()
            && map.len() < SCAN_MEMBERS
        {
            // Small `params`/`result`/`error` objects whose names so far are all ASCII
            // (any other name builds the index below): an ASCII name folds to its ASCII
            // lowercase, so a case-fold duplicate is an earlier name equal ignoring ASCII
            // case. No fold is built and nothing is indexed.
            return map
                .keys()
                .find(|earlier| earlier.eq_ignore_ascii_case(key))
                .map(|earlier| dup(earlier));
        }
        let envelope = self.level == Level::Envelope;
        if matches!(self.level, Level::Envelope | Level::Protocol) && folded_names.is_none() {
            // The names checked by the scan above are not indexed yet: index those whose
            // fold differs from the name, as the code below does for every later one.
            let mut index = HashMap::new();
            for earlier in map.keys() {
                if let Cow::Owned(folded) = fold_key(earlier) {
                    index.insert(folded, earlier.clone());
                }
            }
            *folded_names = Some(index);
        }
        // Case-fold duplicates (`name`/`Name`) are refused in the envelope and in
        // `params`/`result`/`error`, where a case-insensitive decoder would pick one of
        // them; deeper, data may legitimately hold `Maße` and `Masse` or `id` and `ID`.
        let fold_dups = matches!(self.level, Level::Envelope | Level::Protocol);
        let confusable = |folds_to: &str| ParseError::ConfusableMember {
            path: String::new(),
            name: key.to_owned(),
            folds_to: folds_to.to_owned(),
        };
        match fold_key(key) {
            Cow::Borrowed(_) => {
                if fold_dups && let Some(earlier) = folded_names.as_ref().and_then(|m| m.get(key)) {
                    return Some(dup(earlier));
                }
                // The envelope's own members, spelled right, need no lookup (every
                // message has three or four of them).
                if envelope
                    && !matches!(
                        key,
                        "jsonrpc" | "id" | "method" | "params" | "result" | "error"
                    )
                    && let Some(member) = protocol_member_for(key)
                    && member != key
                {
                    return Some(confusable(member));
                }
            }
            Cow::Owned(folded) => {
                if fold_dups {
                    if map.has_member(&folded) {
                        return Some(dup(&folded));
                    }
                    if let Some(earlier) = folded_names.as_ref().and_then(|m| m.get(&folded)) {
                        return Some(dup(earlier));
                    }
                }
                // `Method` in the envelope, or a non-ASCII name anywhere (`paramſ`,
                // U+212A KELVIN SIGN + `ind`) that folds onto a protocol member.
                if (envelope || !key.is_ascii())
                    && let Some(member) = protocol_member_for(&folded)
                    && member != key
                {
                    return Some(confusable(member));
                }
                if envelope && !key.is_ascii() {
                    return Some(confusable(&folded));
                }
                if fold_dups && let Some(index) = folded_names.as_mut() {
                    index.insert(folded, key.to_owned());
                }
            }
        }
        None
    }
}

/// Deserializes a member name without copying when the input allows it.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}
