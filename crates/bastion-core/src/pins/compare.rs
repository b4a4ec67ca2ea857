//! Classifying a server's current descriptors against its pins (issue 3 §2). Pure: the
//! caller loads the pins and acts on the result.

use super::canonical::{CanonicalError, descriptor_hash};
use super::identity::{DescriptorKey, KeyError, body_hash};
use crate::detect::DescriptorKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Why a descriptor could not be fingerprinted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PinError {
    /// It has no key.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// It has no canonical form.
    #[error(transparent)]
    Canonical(#[from] CanonicalError),
}

/// A descriptor as seen now: its key, the SHA-256 of its whole canonical JSON (`hash`),
/// and the SHA-256 without its key member (`body_hash`, for rename detection).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrentItem {
    /// Which descriptor.
    pub key: DescriptorKey,
    /// [`descriptor_hash`] of the whole descriptor (64 lowercase hex).
    pub hash: String,
    /// [`body_hash`] (64 lowercase hex).
    pub body_hash: String,
}

impl CurrentItem {
    /// Fingerprints one descriptor as published (for server instructions, the JSON string).
    ///
    /// # Errors
    /// [`PinError::Key`] without a key member, [`PinError::Canonical`] without a canonical form.
    pub fn of(kind: DescriptorKind, descriptor: &Value) -> Result<Self, PinError> {
        Ok(Self {
            key: DescriptorKey::of(kind, descriptor)?,
            hash: descriptor_hash(descriptor)?,
            body_hash: body_hash(kind, descriptor)?,
        })
    }

    /// The pin that accepting this item stores.
    pub fn pin(&self) -> PinnedItem {
        PinnedItem {
            key: self.key.clone(),
            hash: self.hash.clone(),
            body_hash: self.body_hash.clone(),
        }
    }
}

/// A stored pin: the fingerprints of the accepted version of a descriptor. Same fields
/// as [`CurrentItem`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedItem {
    /// Which descriptor.
    pub key: DescriptorKey,
    /// [`descriptor_hash`] of the accepted version.
    pub hash: String,
    /// [`body_hash`] of the accepted version.
    pub body_hash: String,
}

/// How one descriptor relates to the pins. JSON: `{"change": "changed", "key": {...},
/// "old_hash": "...", "new_hash": "..."}` and so on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Change {
    /// No pin under this key and no vanished pin with the same body.
    New {
        /// The new descriptor.
        key: DescriptorKey,
        /// Its hash.
        hash: String,
    },
    /// Same key, same hash.
    Unchanged {
        /// The descriptor.
        key: DescriptorKey,
        /// Its (pinned) hash.
        hash: String,
    },
    /// Same key, another hash: withheld until reviewed.
    Changed {
        /// The descriptor.
        key: DescriptorKey,
        /// The pinned hash.
        old_hash: String,
        /// The current hash.
        new_hash: String,
    },
    /// A pinned descriptor vanished and a new one with the same body (everything but the
    /// key member) appeared under another key: withheld until reviewed.
    Renamed {
        /// The pinned key that vanished.
        from: DescriptorKey,
        /// The new key.
        to: DescriptorKey,
        /// The pinned hash.
        old_hash: String,
        /// The current hash.
        new_hash: String,
    },
    /// Pinned, no longer published (and not renamed): recorded.
    Removed {
        /// The descriptor.
        key: DescriptorKey,
        /// Its pinned hash.
        hash: String,
    },
}

impl Change {
    /// The key the change is about (for [`Change::Renamed`], the new key).
    pub fn key(&self) -> &DescriptorKey {
        match self {
            Self::New { key, .. }
            | Self::Unchanged { key, .. }
            | Self::Changed { key, .. }
            | Self::Removed { key, .. } => key,
            Self::Renamed { to, .. } => to,
        }
    }

    /// Whether the current item must be withheld until the user reviews it whatever the
    /// pinning mode: [`Change::Changed`] and [`Change::Renamed`] (issue 3 §2). Whether a
    /// [`Change::New`] item is shown depends on the mode (`tofu` pins it, `strict`
    /// withholds it).
    pub const fn needs_review(&self) -> bool {
        matches!(self, Self::Changed { .. } | Self::Renamed { .. })
    }
}

/// Classifies `current` against `pinned` (issue 3 §2).
///
/// Output order: one entry per current item, in `current` order ([`Change::New`],
/// [`Change::Unchanged`], [`Change::Changed`] or [`Change::Renamed`]), then one
/// [`Change::Removed`] per pin whose key is no longer published and that no current item
/// took over, in `pinned` order. A rename pairs a current item whose key has no pin with a
/// vanished pin of the same kind and `body_hash`; when several vanished pins share the
/// body, the first in `pinned` order is taken. A key published twice is compared twice
/// against its pin (duplicate names are reported by the list detectors). Pure.
pub fn compare(pinned: &[PinnedItem], current: &[CurrentItem]) -> Vec<Change> {
    let by_key: HashMap<&DescriptorKey, &PinnedItem> =
        pinned.iter().rev().map(|p| (&p.key, p)).collect();
    let current_keys: HashSet<&DescriptorKey> = current.iter().map(|c| &c.key).collect();
    // Pins whose key vanished, in pinned order: candidates for renames.
    let mut vanished: Vec<(&PinnedItem, bool)> = pinned
        .iter()
        .filter(|p| !current_keys.contains(&p.key))
        .map(|p| (p, false))
        .collect();
    let mut out = Vec::with_capacity(current.len() + vanished.len());
    for item in current {
        if let Some(pin) = by_key.get(&item.key) {
            out.push(if pin.hash == item.hash {
                Change::Unchanged {
                    key: item.key.clone(),
                    hash: item.hash.clone(),
                }
            } else {
                Change::Changed {
                    key: item.key.clone(),
                    old_hash: pin.hash.clone(),
                    new_hash: item.hash.clone(),
                }
            });
            continue;
        }
        let renamed = vanished.iter_mut().find(|(p, taken)| {
            !*taken && p.key.kind == item.key.kind && p.body_hash == item.body_hash
        });
        out.push(match renamed {
            Some((pin, taken)) => {
                *taken = true;
                Change::Renamed {
                    from: pin.key.clone(),
                    to: item.key.clone(),
                    old_hash: pin.hash.clone(),
                    new_hash: item.hash.clone(),
                }
            }
            None => Change::New {
                key: item.key.clone(),
                hash: item.hash.clone(),
            },
        });
    }
    let mut removed_seen = HashSet::new();
    for (pin, taken) in vanished {
        if !taken && removed_seen.insert(&pin.key) {
            out.push(Change::Removed {
                key: pin.key.clone(),
                hash: pin.hash.clone(),
            });
        }
    }
    out
}
