//! The call digest an approval is bound to (issue 5 §2): SHA-256 over the server
//! identity, the tool's pin hash and the RFC 8785 canonical form of the call's params.
//! Right before forwarding, the gateway re-canonicalizes the outgoing params and refuses
//! when [`verify`] says they changed.
//!
//! Framing (unambiguous: every field is length-prefixed, so no two different inputs
//! concatenate to the same bytes):
//!
//! ```text
//! "mcp-bastion/call-digest/v1" 0x00
//! u64be(len) server.name
//! u64be(len) server.launch_hash
//! 0x00                               (no tool pin)   | 0x01 u64be(len) tool_pin
//! u64be(len) canonical_json(params without "_meta")
//! ```
//!
//! `params` minus `_meta` holds `name`, `arguments` (absent stays absent: `{}` is a
//! different call) and any other member a host sends; `_meta` is left out because hosts
//! and the gateway legitimately set it per request (`progressToken`, stateless-era
//! protocol fields), and it carries no tool input.

use crate::pins::{CanonicalError, ServerIdentity, canonical_json, descriptor_hash};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

const DOMAIN: &[u8] = b"mcp-bastion/call-digest/v1\0";

/// What a digest binds besides the params: the server and the pinned tool.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Binding {
    /// The server's identity (name + launch-config hash, issue 3 §1). For `check
    /// confirmation` the launch hash is the input's `server_launch_hash` or empty.
    pub server: ServerIdentity,
    /// SHA-256 hex of the pinned tool descriptor ([`descriptor_hash`]); `None` when the
    /// tool has no pin.
    pub tool_pin: Option<String>,
}

impl Binding {
    /// The binding for a call of `pinned_tool` (the descriptor as pinned) on `server`.
    ///
    /// # Errors
    /// [`CanonicalError`] when the descriptor cannot be canonicalized (too deep).
    pub fn of(server: ServerIdentity, pinned_tool: Option<&Value>) -> Result<Self, CanonicalError> {
        Ok(Self {
            server,
            tool_pin: pinned_tool.map(descriptor_hash).transpose()?,
        })
    }
}

/// Why a digest could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DigestError {
    /// `params` is not a JSON object.
    #[error("tools/call params must be a JSON object to be digested")]
    NotAnObject,
    /// The params have no canonical form.
    #[error(transparent)]
    Canonical(#[from] CanonicalError),
}

/// The outcome of [`verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DigestCheck {
    /// The outgoing params are exactly what was approved.
    Match,
    /// They differ: refuse the call (reason `approval_denied`).
    Changed {
        /// The digest of the outgoing params.
        actual: String,
    },
}

/// The canonical JSON text of `params` without `_meta`: what the digest covers and the
/// view shows.
///
/// # Errors
/// [`DigestError`] when `params` is not an object or cannot be canonicalized.
pub fn canonical_params(params: &Value) -> Result<String, DigestError> {
    let Value::Object(map) = params else {
        return Err(DigestError::NotAnObject);
    };
    let mut bound = map.clone();
    bound.remove("_meta");
    Ok(canonical_json(&Value::Object(bound))?)
}

fn push_field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_be_bytes());
    h.update(bytes);
}

/// The call digest: 64 lowercase hex digits (module docs for the framing).
///
/// # Errors
/// As [`canonical_params`].
pub fn call_digest(binding: &Binding, params: &Value) -> Result<String, DigestError> {
    let canonical = canonical_params(params)?;
    let mut h = Sha256::new();
    h.update(DOMAIN);
    push_field(&mut h, binding.server.name.as_bytes());
    push_field(&mut h, binding.server.launch_hash.as_bytes());
    match &binding.tool_pin {
        None => h.update([0u8]),
        Some(pin) => {
            h.update([1u8]);
            push_field(&mut h, pin.as_bytes());
        }
    }
    push_field(&mut h, canonical.as_bytes());
    Ok(hex::encode(h.finalize()))
}

/// Re-canonicalizes the outgoing `params` and compares their digest with the approved
/// one (`expected`, compared case-insensitively as hex).
///
/// # Errors
/// As [`canonical_params`]; the gateway treats an error like [`DigestCheck::Changed`].
pub fn verify(
    expected: &str,
    binding: &Binding,
    params: &Value,
) -> Result<DigestCheck, DigestError> {
    let actual = call_digest(binding, params)?;
    if actual.eq_ignore_ascii_case(expected) {
        Ok(DigestCheck::Match)
    } else {
        Ok(DigestCheck::Changed { actual })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, json};

    fn binding() -> Binding {
        Binding {
            server: ServerIdentity {
                name: "fs".into(),
                launch_hash: "ab".repeat(32),
            },
            tool_pin: Some("cd".repeat(32)),
        }
    }

    #[test]
    fn order_whitespace_and_meta_do_not_matter() {
        let b = binding();
        let a: Value =
            serde_json::from_str(r#"{"name":"w","arguments":{"b":1.0,"a":[1,2]}}"#).unwrap();
        let c: Value = serde_json::from_str("{ \"arguments\" : { \"a\" : [ 1 , 2 ] , \"b\" : 1 } ,\n \"name\" : \"w\", \"_meta\": {\"progressToken\": 5} }").unwrap();
        let d = call_digest(&b, &a).unwrap();
        assert_eq!(d.len(), 64);
        assert_eq!(d, call_digest(&b, &c).unwrap());
        assert_eq!(
            verify(&d.to_uppercase(), &b, &c).unwrap(),
            DigestCheck::Match
        );
    }

    #[test]
    fn binding_parts_matter() {
        let p = json!({"name": "w", "arguments": {}});
        let base = call_digest(&binding(), &p).unwrap();
        let mut b = binding();
        b.tool_pin = None;
        assert_ne!(call_digest(&b, &p).unwrap(), base);
        let mut b = binding();
        b.server.name = "fs2".into();
        assert_ne!(call_digest(&b, &p).unwrap(), base);
        let mut b = binding();
        b.server.launch_hash = "ab".repeat(31);
        assert_ne!(call_digest(&b, &p).unwrap(), base);
        // Framing: moving bytes between fields changes the digest.
        let mut x = binding();
        x.server.name = "f".into();
        x.server.launch_hash = format!("s{}", "ab".repeat(32));
        assert_ne!(call_digest(&x, &p).unwrap(), base);
        // Absent arguments are not {}.
        assert_ne!(
            call_digest(&binding(), &json!({"name": "w"})).unwrap(),
            base
        );
        assert!(matches!(
            verify(
                &base,
                &binding(),
                &json!({"name": "w", "arguments": {"x": 1}})
            )
            .unwrap(),
            DigestCheck::Changed { .. }
        ));
        assert_eq!(
            call_digest(&binding(), &json!([1])),
            Err(DigestError::NotAnObject)
        );
    }

    #[test]
    fn binding_of_pins_the_descriptor() {
        let tool = json!({"name": "w", "description": "d"});
        let b = Binding::of(binding().server, Some(&tool)).unwrap();
        assert_eq!(b.tool_pin, Some(descriptor_hash(&tool).unwrap()));
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(|n| json!(n)),
            (-1.0e6f64..1.0e6).prop_map(|f| json!(f)),
            "[a-z\u{e9}\u{202e}\u{200b} ]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-c]{1,2}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    /// A value that differs from `v` (value change, type change or added member).
    fn mutate(v: &Value, salt: u8) -> Value {
        match (v, salt % 3) {
            (Value::Object(m), 0) => {
                let mut m = m.clone();
                let mut k = String::from("zz");
                while m.contains_key(&k) {
                    k.push('z');
                }
                m.insert(k, Value::Null);
                Value::Object(m)
            }
            (Value::Object(m), _) if !m.is_empty() => {
                let mut m = m.clone();
                let key = m.keys().next().cloned().unwrap_or_default();
                let inner = mutate(&m[&key], salt.wrapping_add(1));
                m.insert(key, inner);
                Value::Object(m)
            }
            (Value::Array(a), _) if !a.is_empty() => {
                let mut a = a.clone();
                a[0] = mutate(&a[0], salt.wrapping_add(1));
                Value::Array(a)
            }
            (Value::String(s), 1) => json!([s]),
            (Value::String(s), _) => Value::String(format!("{s}x")),
            (Value::Number(n), 1) => Value::String(n.to_string()),
            (Value::Number(n), _) => json!(n.as_f64().unwrap_or(0.0) + 1.5),
            (Value::Bool(b), _) => Value::Bool(!b),
            (Value::Null, _) => json!(0),
            (Value::Array(_), _) => json!([null]),
            (Value::Object(_), _) => json!({"a": null}),
        }
    }

    proptest! {
        #[test]
        fn any_argument_change_changes_the_digest(args in prop::collection::btree_map("[a-d]{1,3}", arb_json(), 0..5), salt in any::<u8>()) {
            let args: Map<String, Value> = args.into_iter().collect();
            let before = json!({"name": "t", "arguments": args});
            let after = json!({"name": "t", "arguments": mutate(&before["arguments"], salt)});
            prop_assert_ne!(call_digest(&binding(), &before).unwrap(), call_digest(&binding(), &after).unwrap());
        }

        #[test]
        fn key_order_and_whitespace_never_matter(args in prop::collection::btree_map("[a-d]{1,3}", arb_json(), 0..5)) {
            let forward: Map<String, Value> = args.clone().into_iter().collect();
            let reversed: Map<String, Value> = args.into_iter().rev().collect();
            let a = json!({"name": "t", "arguments": forward});
            let b = json!({"arguments": reversed, "name": "t"});
            let pretty: Value = serde_json::from_str(&serde_json::to_string_pretty(&b).unwrap()).unwrap();
            let d = call_digest(&binding(), &a).unwrap();
            prop_assert_eq!(&d, &call_digest(&binding(), &b).unwrap());
            prop_assert_eq!(verify(&d, &binding(), &pretty).unwrap(), DigestCheck::Match);
        }
    }
}
