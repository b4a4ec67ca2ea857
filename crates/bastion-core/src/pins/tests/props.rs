//! Property tests: the canonical hash ignores key order and whitespace and follows every
//! leaf value (issue 3, "Tests that must exist").

use crate::pins::{descriptor_hash, diff};
use proptest::prelude::*;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// Random JSON: integers within ±2^53 and finite doubles (IEEE doubles are what RFC 8785
/// compares), strings with non-ASCII and control characters, nested arrays and objects.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-(1i64 << 53)..(1i64 << 53)).prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z\\u{0}-\\u{1f}\"\\\\/\\u{e9}\\u{20ac}\\u{1f600}\\u{202e} ]{0,12}"
            .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z_\\u{e9}\\u{1f600}\\u{fb33}]{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Serializes `v` by hand with object members rotated by `shift` and, when `pretty`,
/// newlines and indentation between tokens.
fn write_shuffled(v: &Value, shift: usize, pretty: bool, depth: usize, out: &mut String) {
    let ws = |out: &mut String, d: usize| {
        if pretty {
            out.push('\n');
            out.push_str(&"  ".repeat(d));
        }
    };
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ws(out, depth + 1);
                write_shuffled(item, shift, pretty, depth + 1, out);
            }
            ws(out, depth);
            out.push(']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            if !members.is_empty() {
                let n = members.len();
                members.rotate_left(shift % n);
                if shift % 2 == 1 {
                    members.reverse();
                }
            }
            out.push('{');
            for (i, (k, item)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ws(out, depth + 1);
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push_str(if pretty { ": " } else { ":" });
                write_shuffled(item, shift, pretty, depth + 1, out);
            }
            ws(out, depth);
            out.push('}');
        }
        // Numbers spelled with an exponent or a trailing zero where that keeps the value.
        Value::Number(n) if shift.is_multiple_of(3) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 && n.is_i64() => {
                let _ = write!(out, "{f:.1}");
            }
            _ => out.push_str(&n.to_string()),
        },
        other => out.push_str(&other.to_string()),
    }
}

/// Replaces the `index`-th leaf (depth-first) by a different value; false when there is
/// no such leaf.
fn mutate_leaf(v: &mut Value, index: &mut usize) -> bool {
    match v {
        Value::Array(items) => items.iter_mut().any(|i| mutate_leaf(i, index)),
        Value::Object(map) => map.values_mut().any(|i| mutate_leaf(i, index)),
        leaf => {
            if *index > 0 {
                *index -= 1;
                return false;
            }
            *leaf = match leaf.take() {
                Value::Null => Value::Bool(false),
                Value::Bool(b) => Value::Bool(!b),
                Value::Number(n) => {
                    // x + 1 changes every double below 2^53 in magnitude; halving
                    // changes every larger one.
                    let f = n.as_f64().unwrap();
                    let g = if (f + 1.0).to_bits() == f.to_bits() {
                        f / 2.0
                    } else {
                        f + 1.0
                    };
                    Value::from(g)
                }
                Value::String(s) => Value::String(format!("{s}x")),
                _ => unreachable!(),
            };
            true
        }
    }
}

fn count_leaves(v: &Value) -> usize {
    match v {
        Value::Array(items) => items.iter().map(count_leaves).sum(),
        Value::Object(map) => map.values().map(count_leaves).sum(),
        _ => 1,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn hash_ignores_key_order_and_whitespace(v in json_value(), shift in 0usize..8, pretty in any::<bool>()) {
        let mut text = String::new();
        write_shuffled(&v, shift, pretty, 0, &mut text);
        let reparsed: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(descriptor_hash(&reparsed).unwrap(), descriptor_hash(&v).unwrap());
        let compact: Value = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
        let spaced: Value = serde_json::from_str(&serde_json::to_string_pretty(&v).unwrap()).unwrap();
        prop_assert_eq!(descriptor_hash(&compact).unwrap(), descriptor_hash(&spaced).unwrap());
        prop_assert!(diff(&v, &reparsed).is_empty());
    }

    #[test]
    fn hash_follows_every_leaf(body in json_value(), name in "[a-z]{1,8}", pick in any::<prop::sample::Index>()) {
        // A descriptor-like object, so there is always at least one leaf.
        let v = serde_json::json!({"name": name, "body": body});
        let leaves = count_leaves(&v);
        let mut changed = v.clone();
        let mut index = pick.index(leaves);
        prop_assert!(mutate_leaf(&mut changed, &mut index));
        prop_assert_ne!(descriptor_hash(&changed).unwrap(), descriptor_hash(&v).unwrap());
        prop_assert!(!diff(&v, &changed).is_empty());
    }
}
