//! Descriptor pinning and launch-config drift at the gateway (issue: descriptor
//! governance). The core classifies (`bastion_core::pins`: RFC 8785 hashes, `compare`,
//! `drift`); this module keeps the decisions in the store and answers "show or withhold".
//!
//! - Launch config: pinned per server name. A change is reported (audit, stderr); in
//!   `strict` mode the server is not started until the new config is approved.
//! - Descriptors: pinned per server identity (name + launch-config hash). `tofu` pins a
//!   clean descriptor seen for the first time; `strict` withholds it until approved. A
//!   changed or renamed descriptor is withheld (`pending_review`) in both modes until a
//!   user approves it with `mcp-bastion pins approve`; approvals are noticed while running.

use crate::GatewayError;
use bastion_core::detect::DescriptorKind;
use bastion_core::finding::Finding;
use bastion_core::pins::{
    self, Change, CurrentItem, DescriptorKey, LaunchConfig, LaunchFingerprint, PinnedItem,
};
use bastion_store::{PinFilter, PinRecord, PinState, ServerRecord, Store};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;

/// `[pinning] mode` (DESIGN §5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PinMode {
    /// Trust on first use: a clean descriptor seen for the first time is pinned.
    #[default]
    Tofu,
    /// Nothing reaches the host until approved.
    Strict,
}

/// The store kind name of launch-config pins.
pub const LAUNCH_KIND: &str = "launch_config";

/// What to do with one listed descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Pinned and unchanged (or newly pinned in `tofu`): show it.
    Show,
    /// Withhold it until reviewed; the reason code and a sentence.
    Withhold {
        /// `new` (strict), `changed`, `renamed:<old key>` or `revoked`.
        why: String,
    },
}

/// The outcome of checking the launch config at start-up.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchCheck {
    /// Drift findings against the last approved config of this name (empty: same or new).
    pub findings: Vec<Finding>,
    /// `true` when the server must not be started (strict mode, not approved).
    pub refused: bool,
    /// Row id of the launch-config pin, for `pins approve`.
    pub pin_id: i64,
}

struct Cache {
    /// Pins of this identity by (kind name, key).
    pins: HashMap<(String, String), PinRecord>,
    /// `pins_version` the cache was loaded at.
    version: i64,
    /// Tool names of the other servers in the store (`tool_name_collision`).
    shadow: std::sync::Arc<bastion_core::detect::ShadowIndex>,
}

/// Pinning for one wrapped server.
pub struct Pinning {
    store: Store,
    identity: String,
    name: String,
    mode: PinMode,
    cache: Mutex<Cache>,
}

impl std::fmt::Debug for Pinning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pinning")
            .field("identity", &self.identity)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

fn canonical(v: &Value) -> String {
    pins::canonical_json(v).unwrap_or_default()
}

fn launch_fingerprint_json(fp: &LaunchFingerprint) -> String {
    canonical(&fp.to_value())
}

/// Pinning whose launch config is checked ([`Pinning::check_launch`]) but whose server
/// identity is not yet recorded and whose pins are not yet loaded.
#[derive(Debug)]
pub struct Opening {
    store: Store,
    server: ServerRecord,
    mode: PinMode,
}

impl Opening {
    /// Records the server identity (`<name>:<launch hash>`, approved when the launch
    /// check passed) and loads the pins: the second half of opening, after
    /// [`Pinning::check_launch`].
    ///
    /// # Errors
    /// [`GatewayError::Store`] when the store cannot be read or written.
    pub async fn finish(self) -> Result<Pinning, GatewayError> {
        self.store.upsert_server(&self.server).await?;
        let pinning = Pinning {
            store: self.store,
            identity: self.server.identity,
            name: self.server.name,
            mode: self.mode,
            cache: Mutex::new(Cache {
                pins: HashMap::new(),
                version: -1,
                shadow: std::sync::Arc::default(),
            }),
        };
        pinning.reload().await?;
        Ok(pinning)
    }
}

impl Pinning {
    /// Opens pinning for server `launch.name`, first half: checks the launch config
    /// against the last approved one of that name and records the outcome in its pin
    /// row. This is all
    /// that must happen before the server may start; [`Opening::finish`] (server
    /// identity, loading the pins: a few store round trips) can then run while the
    /// server starts up.
    ///
    /// # Errors
    /// [`GatewayError::Store`] when the store cannot be read or written;
    /// [`GatewayError::Protocol`] when the launch config cannot be hashed.
    pub async fn check_launch(
        store: Store,
        launch: &LaunchConfig,
        mode: PinMode,
        now_ms: i64,
    ) -> Result<(Opening, LaunchCheck), GatewayError> {
        let fp = launch.fingerprint();
        let launch_hash = fp
            .hash()
            .map_err(|e| GatewayError::Protocol(e.to_string()))?;
        // A lost race is checked again on the new row, up to 3 times; still contended,
        // the server is not started.
        let mut check = None;
        for _ in 0..3 {
            check = check_launch(&store, &launch.name, &fp, &launch_hash, mode, now_ms).await?;
            if check.is_some() {
                break;
            }
        }
        let check = check.unwrap_or(LaunchCheck {
            findings: Vec::new(),
            refused: true,
            pin_id: 0,
        });
        let server = ServerRecord {
            identity: format!("{}:{launch_hash}", launch.name),
            name: launch.name.clone(),
            config_hash: launch_hash,
            launch_config: launch_fingerprint_json(&fp),
            approved: !check.refused,
            first_seen_ms: now_ms,
            last_seen_ms: now_ms,
        };
        Ok((
            Opening {
                store,
                server,
                mode,
            },
            check,
        ))
    }

    /// The tools of the other servers in the store, indexed for `tool_name_collision`
    /// (loaded with the pins; refreshed when pins change).
    pub fn shadow_index(&self) -> std::sync::Arc<bastion_core::detect::ShadowIndex> {
        self.cache().shadow.clone()
    }

    /// The server identity pins are stored under (`<name>:<launch hash>`).
    pub fn identity(&self) -> &str {
        &self.identity
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn reload(&self) -> Result<(), GatewayError> {
        let version = self.store.pins_version().await?;
        let rows = self
            .store
            .pins(&PinFilter {
                server_identity: Some(self.identity.clone()),
                ..PinFilter::default()
            })
            .await?;
        let others = self.store.tools_of_other_servers(&self.name).await?;
        let shadow = bastion_core::detect::ShadowIndex::new(
            others.iter().map(|(s, t)| (s.as_str(), t.as_str())),
        );
        let mut cache = self.cache();
        cache.shadow = std::sync::Arc::new(shadow);
        cache.pins = rows
            .into_iter()
            .map(|p| ((p.kind.clone(), p.item_key.clone()), p))
            .collect();
        cache.version = version;
        Ok(())
    }

    /// Re-reads the pins when another process approved or revoked something; returns
    /// `true` when they changed.
    ///
    /// # Errors
    /// [`GatewayError::Store`] when the store cannot be read.
    pub async fn refresh(&self) -> Result<bool, GatewayError> {
        let version = self.store.pins_version().await?;
        if version == self.cache().version {
            return Ok(false);
        }
        self.reload().await?;
        Ok(true)
    }

    /// The approved hash of `(kind, key)`, if any and not revoked.
    pub fn approved_hash(&self, kind: DescriptorKind, key: &str) -> Option<String> {
        let cache = self.cache();
        let pin = cache
            .pins
            .get(&(pins::kind_name(kind).to_owned(), key.to_owned()))?;
        (pin.state != PinState::Revoked)
            .then(|| pin.approved_hash.clone())
            .flatten()
    }

    /// Decides, for every descriptor of one listing of `kind` (`items`: the descriptors the
    /// detectors did not block), whether the host may see it, and records new pins and
    /// pending versions. `complete` is `false` for a page of a paginated list (then
    /// removals are not recorded). Returns one decision per item, by key.
    ///
    /// Pin rows are written compare-and-set ([`bastion_store::Store::put_pin_if`]): when one changed
    /// since it was cached (approved or revoked by `mcp-bastion pins`, or recorded by
    /// another gateway sharing the store), the pins are re-read and the listing decided
    /// again, up to 3 times; an item still contended then is withheld (`changed`).
    ///
    /// # Errors
    /// [`GatewayError::Store`] when the store cannot be written.
    pub async fn review(
        &self,
        kind: DescriptorKind,
        items: &[&Value],
        complete: bool,
        now_ms: i64,
    ) -> Result<HashMap<String, Decision>, GatewayError> {
        const ATTEMPTS: usize = 3;
        let mut attempt = 1;
        loop {
            let (mut decisions, lost) = self.review_once(kind, items, complete, now_ms).await?;
            self.reload().await?;
            if lost.is_empty() {
                return Ok(decisions);
            }
            if attempt == ATTEMPTS {
                for key in lost {
                    decisions.insert(
                        key,
                        Decision::Withhold {
                            why: "changed".into(),
                        },
                    );
                }
                return Ok(decisions);
            }
            attempt += 1;
        }
    }

    /// One pass of [`Pinning::review`] on the cached pins: the decisions, and the keys
    /// whose row write lost a race (the row changed since it was cached).
    async fn review_once(
        &self,
        kind: DescriptorKind,
        items: &[&Value],
        complete: bool,
        now_ms: i64,
    ) -> Result<(HashMap<String, Decision>, Vec<String>), GatewayError> {
        let kind_name = pins::kind_name(kind);
        let current: Vec<(CurrentItem, &Value)> = items
            .iter()
            .filter_map(|d| CurrentItem::of(kind, d).ok().map(|c| (c, *d)))
            .collect();
        let (pinned, rows): (Vec<PinnedItem>, HashMap<String, PinRecord>) = {
            let cache = self.cache();
            let rows: HashMap<String, PinRecord> = cache
                .pins
                .iter()
                .filter(|((k, _), _)| k == kind_name)
                .map(|((_, key), p)| (key.clone(), p.clone()))
                .collect();
            let pinned = rows
                .values()
                .filter(|p| p.state != PinState::Removed)
                .filter_map(|p| {
                    let hash = p.approved_hash.clone()?;
                    let body = p
                        .approved_descriptor
                        .as_deref()
                        .and_then(|d| serde_json::from_str::<Value>(d).ok())
                        .and_then(|d| pins::body_hash(kind, &d).ok())?;
                    Some(PinnedItem {
                        key: DescriptorKey::new(kind, p.item_key.clone()),
                        hash,
                        body_hash: body,
                    })
                })
                .collect();
            (pinned, rows)
        };
        let currents: Vec<CurrentItem> = current.iter().map(|(c, _)| c.clone()).collect();
        let by_key: HashMap<&str, &Value> = current
            .iter()
            .map(|(c, d)| (c.key.key.as_str(), *d))
            .collect();
        let mut decisions = HashMap::new();
        let mut lost = Vec::new();
        for change in pins::compare(&pinned, &currents) {
            let key = change.key().key.clone();
            let existing = rows.get(&key);
            let descriptor = by_key.get(key.as_str()).map(|d| canonical(d));
            let base = |state: PinState| PinRecord {
                id: 0,
                server_identity: self.identity.clone(),
                server_name: self.name.clone(),
                kind: kind_name.to_owned(),
                item_key: key.clone(),
                state,
                approved_hash: existing.and_then(|p| p.approved_hash.clone()),
                approved_descriptor: existing.and_then(|p| p.approved_descriptor.clone()),
                pending_hash: None,
                pending_descriptor: None,
                pending_reason: None,
                first_seen_ms: existing.map_or(now_ms, |p| p.first_seen_ms),
                updated_ms: now_ms,
            };
            let pending = |reason: &str, hash: &str| PinRecord {
                pending_hash: Some(hash.to_owned()),
                pending_descriptor: descriptor.clone(),
                pending_reason: Some(reason.to_owned()),
                ..base(PinState::Pending)
            };
            let (record, decision) = match &change {
                Change::New { hash, .. } => match (existing.map(|p| p.state), self.mode) {
                    (Some(PinState::Revoked), _) => (
                        None,
                        Decision::Withhold {
                            why: "revoked".into(),
                        },
                    ),
                    (_, PinMode::Tofu) => (
                        Some(PinRecord {
                            approved_hash: Some(hash.clone()),
                            approved_descriptor: descriptor.clone(),
                            ..base(PinState::Approved)
                        }),
                        Decision::Show,
                    ),
                    (_, PinMode::Strict) => {
                        let unchanged =
                            existing.is_some_and(|p| p.pending_hash.as_deref() == Some(hash));
                        (
                            (!unchanged).then(|| pending("new", hash)),
                            Decision::Withhold { why: "new".into() },
                        )
                    }
                },
                Change::Unchanged { .. } => match existing.map(|p| p.state) {
                    Some(PinState::Revoked) => (
                        None,
                        Decision::Withhold {
                            why: "revoked".into(),
                        },
                    ),
                    Some(PinState::Approved) => (None, Decision::Show),
                    // The server went back to the approved version.
                    _ => (Some(base(PinState::Approved)), Decision::Show),
                },
                Change::Changed { new_hash, .. } => {
                    let unchanged =
                        existing.is_some_and(|p| p.pending_hash.as_deref() == Some(new_hash));
                    (
                        (!unchanged).then(|| pending("changed", new_hash)),
                        Decision::Withhold {
                            why: "changed".into(),
                        },
                    )
                }
                Change::Renamed { from, new_hash, .. } => {
                    let why = format!("renamed:{}", from.key);
                    let unchanged =
                        existing.is_some_and(|p| p.pending_hash.as_deref() == Some(new_hash));
                    (
                        (!unchanged).then(|| pending(&why, new_hash)),
                        Decision::Withhold { why },
                    )
                }
                Change::Removed { .. } => {
                    let record = (complete
                        && existing.is_some_and(|p| p.state != PinState::Removed))
                    .then(|| PinRecord {
                        state: PinState::Removed,
                        ..base(PinState::Removed)
                    });
                    (record, Decision::Show)
                }
                _ => (
                    None,
                    Decision::Withhold {
                        why: "unknown".into(),
                    },
                ),
            };
            let removed = matches!(change, Change::Removed { .. });
            if let Some(record) = record
                && !self.store.put_pin_if(&record, existing).await?
                && !removed
            {
                lost.push(key.clone());
            }
            if !removed {
                decisions.insert(key, decision);
            }
        }
        Ok((decisions, lost))
    }

    /// The state of the pin of `(kind, key)`, if there is one.
    pub fn state(&self, kind: DescriptorKind, key: &str) -> Option<PinState> {
        self.cache()
            .pins
            .get(&(pins::kind_name(kind).to_owned(), key.to_owned()))
            .map(|p| p.state)
    }

    /// The pinning mode.
    pub const fn mode(&self) -> PinMode {
        self.mode
    }
}

/// Checks the launch config of `name` against its pin and records the outcome. The pin
/// row is written compare-and-set: `None` when another process changed it between the
/// read and the write (another instance starting, `pins approve` or `revoke`); the
/// caller checks again on the new row.
async fn check_launch(
    store: &Store,
    name: &str,
    fp: &LaunchFingerprint,
    hash: &str,
    mode: PinMode,
    now_ms: i64,
) -> Result<Option<LaunchCheck>, GatewayError> {
    let existing = store
        .pins(&PinFilter {
            server_identity: Some(name.to_owned()),
            ..PinFilter::default()
        })
        .await?
        .into_iter()
        .find(|p| p.kind == LAUNCH_KIND && p.item_key == name);
    let json = launch_fingerprint_json(fp);
    let record = |state: PinState| PinRecord {
        id: 0,
        server_identity: name.to_owned(),
        server_name: name.to_owned(),
        kind: LAUNCH_KIND.to_owned(),
        item_key: name.to_owned(),
        state,
        approved_hash: existing.as_ref().and_then(|p| p.approved_hash.clone()),
        approved_descriptor: existing
            .as_ref()
            .and_then(|p| p.approved_descriptor.clone()),
        pending_hash: None,
        pending_descriptor: None,
        pending_reason: None,
        first_seen_ms: existing.as_ref().map_or(now_ms, |p| p.first_seen_ms),
        updated_ms: now_ms,
    };
    let approved_fp = existing
        .as_ref()
        .and_then(|p| p.approved_descriptor.as_deref())
        .and_then(|d| serde_json::from_str::<LaunchFingerprint>(d).ok());
    let mut findings = Vec::new();
    let (row, refused) = match &existing {
        Some(p) if p.state == PinState::Revoked => (None, true),
        Some(p) if p.approved_hash.as_deref() == Some(hash) => (None, false),
        Some(p) => {
            if let Some(old) = &approved_fp {
                findings = pins::drift_fingerprints(old, fp);
            }
            match mode {
                PinMode::Tofu => (
                    Some(PinRecord {
                        approved_hash: Some(hash.to_owned()),
                        approved_descriptor: Some(json.clone()),
                        ..record(PinState::Approved)
                    }),
                    false,
                ),
                PinMode::Strict => {
                    let same = p.pending_hash.as_deref() == Some(hash);
                    let row = (!same).then(|| PinRecord {
                        pending_hash: Some(hash.to_owned()),
                        pending_descriptor: Some(json.clone()),
                        pending_reason: Some(
                            if p.approved_hash.is_some() {
                                "changed"
                            } else {
                                "new"
                            }
                            .into(),
                        ),
                        ..record(PinState::Pending)
                    });
                    (row, true)
                }
            }
        }
        None => match mode {
            PinMode::Tofu => (
                Some(PinRecord {
                    approved_hash: Some(hash.to_owned()),
                    approved_descriptor: Some(json.clone()),
                    ..record(PinState::Approved)
                }),
                false,
            ),
            PinMode::Strict => (
                Some(PinRecord {
                    pending_hash: Some(hash.to_owned()),
                    pending_descriptor: Some(json.clone()),
                    pending_reason: Some("new".into()),
                    ..record(PinState::Pending)
                }),
                true,
            ),
        },
    };
    let wrote = row.is_some();
    if let Some(row) = row
        && !store.put_pin_if(&row, existing.as_ref()).await?
    {
        return Ok(None);
    }
    // An unchanged row keeps its id: the usual start (approved, same launch config) reads
    // the store once.
    let pin_id = match existing.as_ref().filter(|_| !wrote) {
        Some(p) => p.id,
        None => store
            .pins(&PinFilter {
                server_identity: Some(name.to_owned()),
                ..PinFilter::default()
            })
            .await?
            .into_iter()
            .find(|p| p.kind == LAUNCH_KIND)
            .map_or(0, |p| p.id),
    };
    Ok(Some(LaunchCheck {
        findings,
        refused,
        pin_id,
    }))
}
