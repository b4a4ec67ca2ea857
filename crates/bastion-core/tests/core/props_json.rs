//! Property: the strict parser ([`bastion_core::json::parse_value`]) accepts exactly what
//! `serde_json` (the reference RFC 8259 parser) accepts, minus texts with a duplicate
//! member name or nesting deeper than the limit; what it accepts it reads as the same
//! value. [`bastion_core::json::parse_frame`] accepts a subset of that with the same
//! value (issue 9 §2).
//!
//! Inputs are JSON texts written from random trees whose objects often repeat a name,
//! with random whitespace, then (in most cases) mangled by a byte-level edit so that
//! invalid UTF-8, lone surrogates, truncation, trailing data and stray tokens are all
//! exercised. The reference decision comes from `serde_json` reading into [`DupTree`],
//! a tree that keeps every member (so duplicates stay visible).

use bastion_core::json::{ParseError, parse_frame, parse_value};
use proptest::prelude::*;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// A JSON value read by `serde_json` with every object member kept in order.
#[derive(Debug, Clone)]
enum DupTree {
    Leaf(Value),
    Array(Vec<DupTree>),
    Object(Vec<(String, DupTree)>),
}

impl<'de> Deserialize<'de> for DupTree {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = DupTree;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<DupTree, E> {
        Ok(DupTree::Leaf(Value::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<DupTree, E> {
        Ok(DupTree::Leaf(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<DupTree, E> {
        Ok(DupTree::Leaf(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<DupTree, E> {
        serde_json::Number::from_f64(v)
            .map(|n| DupTree::Leaf(Value::Number(n)))
            .ok_or_else(|| E::custom("non-finite"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<DupTree, E> {
        Ok(DupTree::Leaf(Value::String(v.to_owned())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<DupTree, E> {
        Ok(DupTree::Leaf(Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<DupTree, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(DupTree::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<DupTree, A::Error> {
        let mut members = Vec::new();
        while let Some((k, v)) = access.next_entry::<String, DupTree>()? {
            members.push((k, v));
        }
        Ok(DupTree::Object(members))
    }
}

impl DupTree {
    /// Container nesting: a scalar is 0, `{}` and `[]` are 1 (the strict parser counts
    /// the top-level container as depth 1).
    fn depth(&self) -> usize {
        match self {
            Self::Leaf(_) => 0,
            Self::Array(items) => 1 + items.iter().map(Self::depth).max().unwrap_or(0),
            Self::Object(m) => 1 + m.iter().map(|(_, v)| v.depth()).max().unwrap_or(0),
        }
    }

    fn has_exact_duplicate(&self) -> bool {
        match self {
            Self::Leaf(_) => false,
            Self::Array(items) => items.iter().any(Self::has_exact_duplicate),
            Self::Object(m) => {
                let mut names: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
                names.sort_unstable();
                names.windows(2).any(|w| w[0] == w[1])
                    || m.iter().any(|(_, v)| v.has_exact_duplicate())
            }
        }
    }

    fn to_value(&self) -> Value {
        match self {
            Self::Leaf(v) => v.clone(),
            Self::Array(items) => Value::Array(items.iter().map(Self::to_value).collect()),
            Self::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }
}

/// The reference decision for `parse_value(bytes, max_depth)`.
fn reference(bytes: &[u8], max_depth: usize) -> Option<Value> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let tree = DupTree::deserialize(&mut de).and_then(|t| de.end().map(|()| t));
    let tree = tree.ok()?;
    (tree.depth() <= max_depth && !tree.has_exact_duplicate()).then(|| tree.to_value())
}

/// Random trees; member names come from a small set so repeats are common, including
/// names equal up to case or NFKC (which `parse_value` must accept: data may hold both).
fn tree() -> impl Strategy<Value = DupTree> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z\\u{0}-\\u{1f}\"\\\\/\\u{e9}\\u{2028}\\u{fffd}\\u{1f600} ]{0,8}"
            .prop_map(Value::String),
    ]
    .prop_map(DupTree::Leaf);
    let name = prop_oneof![
        Just("a"),
        Just("b"),
        Just("id"),
        Just("Id"),
        Just("\u{ff49}d"),
        Just(""),
        Just("a\u{0}"),
        Just("\u{e9}"),
        Just("e\u{301}"),
    ]
    .prop_map(str::to_owned);
    leaf.prop_recursive(8, 64, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(DupTree::Array),
            prop::collection::vec((name.clone(), inner), 0..5).prop_map(DupTree::Object),
        ]
    })
}

/// Writes `t` as JSON with whitespace from `ws` (cycled) between tokens.
fn write(t: &DupTree, ws: &[&str], n: &mut usize, out: &mut String) {
    let pad = |out: &mut String, n: &mut usize| {
        if !ws.is_empty() {
            out.push_str(ws[*n % ws.len()]);
            *n += 1;
        }
    };
    match t {
        DupTree::Leaf(v) => out.push_str(&v.to_string()),
        DupTree::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(out, n);
                write(item, ws, n, out);
            }
            pad(out, n);
            out.push(']');
        }
        DupTree::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(out, n);
                out.push_str(&serde_json::to_string(k).unwrap());
                pad(out, n);
                out.push(':');
                write(v, ws, n, out);
            }
            pad(out, n);
            out.push('}');
        }
    }
}

/// Byte-level edits that turn valid text into the interesting invalid kinds.
const SPLICES: &[&[u8]] = &[
    b",",
    b"}",
    b"]",
    b"\"",
    b"\\",
    b"\\ud800",
    b"\"\\udc00\"",
    b"\"\\ud83d\\ude00\"",
    b"1e999",
    b"-",
    b"0x1",
    b"NaN",
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\"k\":1,",
    b" {} ",
    b"\t\r\n",
    b"/*c*/",
];

#[derive(Debug, Clone)]
enum Edit {
    None,
    Insert(prop::sample::Index, usize),
    Delete(prop::sample::Index, usize),
    Truncate(prop::sample::Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        2 => Just(Edit::None),
        3 => (any::<prop::sample::Index>(), 0..SPLICES.len()).prop_map(|(i, s)| Edit::Insert(i, s)),
        1 => (any::<prop::sample::Index>(), 1usize..4).prop_map(|(i, n)| Edit::Delete(i, n)),
        1 => any::<prop::sample::Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(text: &str, edit: &Edit) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    match edit {
        Edit::Insert(at, s) => {
            let at = at.index(b.len() + 1);
            b.splice(at..at, SPLICES[*s].iter().copied());
        }
        Edit::Delete(at, n) if !b.is_empty() => {
            let at = at.index(b.len());
            let end = (at + n).min(b.len());
            b.drain(at..end);
        }
        Edit::None | Edit::Delete(..) => {}
        Edit::Truncate(at) => b.truncate(at.index(b.len() + 1)),
    }
    b
}

fn whitespace() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(
        prop::sample::select(vec!["", " ", "\n", "\t", "\r\n", "  "]),
        0..4,
    )
}

proptest! {
    #![proptest_config(crate::props_wire::config(1024))]

    #[test]
    fn strict_parse_accepts_what_serde_json_accepts_minus_duplicates_and_depth(
        t in tree(),
        ws in whitespace(),
        e in edit(),
        max_depth in 1usize..10,
    ) {
        let mut text = String::new();
        write(&t, &ws, &mut 0, &mut text);
        let bytes = apply(&text, &e);
        let want = reference(&bytes, max_depth);
        match (parse_value(&bytes, max_depth), want) {
            (Ok(got), Some(want)) => prop_assert_eq!(got, want),
            (Err(_), None) => {}
            (Ok(got), None) => prop_assert!(false, "strict accepted {:?} as {}", String::from_utf8_lossy(&bytes), got),
            (Err(err), Some(_)) => prop_assert!(false, "strict refused {:?}: {:?}", String::from_utf8_lossy(&bytes), err),
        }
    }

    #[test]
    fn frame_parse_accepts_a_subset_with_the_same_value(
        t in tree(),
        ws in whitespace(),
        e in edit(),
    ) {
        let mut text = String::new();
        write(&t, &ws, &mut 0, &mut text);
        let bytes = apply(&text, &e);
        if let Ok(map) = parse_frame(&bytes, 64) {
            let plain = parse_value(&bytes, 64);
            prop_assert_eq!(plain.as_ref().ok(), Some(&Value::Object(map)));
        }
    }

    /// The depth refusal is typed and names the configured limit.
    #[test]
    fn too_deep_is_max_depth(depth in 2usize..40, limit in 1usize..40) {
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let got = parse_value(text.as_bytes(), limit);
        if depth > limit {
            prop_assert_eq!(got, Err(ParseError::MaxDepth { limit }));
        } else {
            prop_assert!(got.is_ok());
        }
    }
}
