//! Integration tests of the store on real `SQLite` files and, with
//! `BASTION_TEST_POSTGRES`, on real `PostgreSQL` databases (see `support/testdb.rs` for
//! when those are skipped or fail).
//!
//! The store API tests are written once, taking the store URL, and run on both backends
//! by [`on_both_backends!`]: `sqlite::NAME` and `postgres::NAME`.

mod support {
    pub mod testdb;
}

use bastion_store::{AuditEvent, AuditQuery, Store, StoreError};
use support::testdb;

/// For each named `async fn NAME(url: &str)`, one test per backend, on a fresh database.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    let db = super::testdb::sqlite();
                    super::$name(&db.url).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let Some(db) = super::testdb::postgres().await else {
                        return;
                    };
                    super::$name(&db.url).await;
                    db.remove().await;
                }
            )*
        }
    };
}

on_both_backends!(
    audit_round_trip_survives_reopen,
    audit_events_carry_their_instance,
    pins_approve_revoke_and_version,
    grants_are_bound_to_the_pin_hash_and_survive_reopen,
    consent_is_read_back_unique_and_consumed_once,
    contracts_accepted_versions_and_activations,
    two_handles_race_for_one_consent_and_exactly_one_wins,
    a_pin_approved_through_one_handle_is_seen_by_the_other,
    pin_writes_are_compare_and_set,
    two_processes_race_for_one_consent_and_exactly_one_wins,
    a_store_from_before_migration_6_is_upgraded_in_place,
    concurrent_first_opens_migrate_once,
    oauth_tokens_and_clients_round_trip,
);

/// Every audit event (the newest 100), oldest first.
async fn all_events(store: &Store) -> Vec<AuditEvent> {
    store.audit_events(&AuditQuery::default()).await.unwrap()
}

fn event(server: &str, time_ms: i64, verdict: &str) -> AuditEvent {
    AuditEvent {
        time_ms,
        server: server.into(),
        direction: "server_to_host".into(),
        message_kind: Some("result".into()),
        method: Some("tools/call".into()),
        tool: Some("echo".into()),
        request_id: Some("7".into()),
        verdict: verdict.into(),
        reason: Some("terminal_escape".into()),
        codes: vec!["terminal_escape".into(), "control_character".into()],
        bytes: 120,
        removed_chars: 9,
        digest: Some("ab".repeat(32)),
        ..AuditEvent::default()
    }
}

async fn audit_round_trip_survives_reopen(url: &str) {
    let store = Store::open(url).await.unwrap();
    store
        .record_audit(&event("a", 1000, "sanitize"))
        .await
        .unwrap();
    store
        .record_audit_batch(&[event("b", 2000, "allow"), event("a", 3000, "block")])
        .await
        .unwrap();
    store.close().await;

    let store = Store::open(url).await.unwrap();
    let all = store.audit_events(&AuditQuery::default()).await.unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(
        all.iter().map(|e| e.time_ms).collect::<Vec<_>>(),
        [1000, 2000, 3000]
    );
    assert_eq!(all[0].codes, ["terminal_escape", "control_character"]);
    assert_eq!(all[0].removed_chars, 9);

    let only_a = store
        .audit_events(&AuditQuery {
            server: Some("a".into()),
            ..AuditQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(
        only_a
            .iter()
            .map(|e| e.verdict.as_str())
            .collect::<Vec<_>>(),
        ["sanitize", "block"]
    );
    let since = store
        .audit_events(&AuditQuery {
            since_ms: Some(2000),
            ..AuditQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(since.len(), 2);
    let newest = store
        .audit_events(&AuditQuery {
            limit: Some(1),
            ..AuditQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(newest[0].time_ms, 3000);
}

#[tokio::test]
async fn sqlite_files_are_owner_only_and_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/bastion.db");
    let url = format!("sqlite://{}", path.display());
    let store = Store::open(&url).await.unwrap();
    store.record_audit(&event("a", 1, "allow")).await.unwrap();
    store.close().await;
    assert!(path.is_file());
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let store = Store::open(&url).await.unwrap();
    assert_eq!(all_events(&store).await.len(), 1);
    assert!(!store.is_postgres());
}

/// `audit_events` carries no secondary index (migration 9): the audit query is planned
/// as a scan by id whatever its filters (unit test `the_audit_query_reads_no_index_with_any_filter`),
/// so an index only made every row the gateway writes more expensive. A new index
/// belongs with a query that uses it.
#[tokio::test]
async fn audit_rows_update_no_index_the_audit_query_does_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("bastion.db").display());
    let store = Store::open(&url).await.unwrap();
    store.record_audit(&event("a", 1, "allow")).await.unwrap();
    store.close().await;
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    let indexes: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit_events' \
         AND sql IS NOT NULL",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(indexes.is_empty(), "{indexes:?}");
    pool.close().await;
}

async fn audit_events_carry_their_instance(url: &str) {
    let store = Store::open(url).await.unwrap();
    let mut one = event("a", 1, "allow");
    one.instance = Some("host-1-aa".into());
    let mut two = event("a", 2, "block");
    two.instance = Some("host-2-bb".into());
    let legacy = event("a", 3, "flag");
    store.record_audit_batch(&[one, two, legacy]).await.unwrap();
    let all = store.audit_events(&AuditQuery::default()).await.unwrap();
    assert_eq!(
        all.iter()
            .map(|e| e.instance.as_deref())
            .collect::<Vec<_>>(),
        [Some("host-1-aa"), Some("host-2-bb"), None]
    );
    // The JSON shape `audit --json` prints carries it.
    let json = serde_json::to_value(&all[0]).unwrap();
    assert_eq!(json["instance"], "host-1-aa");
    let of_two = store
        .audit_events(&AuditQuery {
            instance: Some("host-2-bb".into()),
            ..AuditQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(
        of_two.iter().map(|e| e.time_ms).collect::<Vec<_>>(),
        [2],
        "{of_two:?}"
    );
    store.close().await;
}

#[tokio::test]
async fn wal_mode_is_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let store = Store::open(path.to_str().unwrap()).await.unwrap();
    store.record_audit(&event("a", 1, "allow")).await.unwrap();
    assert!(
        dir.path().join("w.db-wal").exists(),
        "WAL file should exist while the pool is open"
    );
    store.close().await;
}

#[tokio::test]
async fn unsupported_and_unopenable_urls_are_typed_errors() {
    assert!(matches!(
        Store::open("mysql://x/y").await,
        Err(StoreError::UnsupportedUrl(_))
    ));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    // A path below a regular file cannot be created.
    let err = Store::open(file.join("sub/db.sqlite").to_str().unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::CreateDir { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("cannot create the store file or directory")
    );
}

#[tokio::test]
async fn new_store_files_are_owner_only_from_the_start() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fresh/dir/a.db");
    let store = Store::open(path.to_str().unwrap()).await.unwrap();
    store.record_audit(&event("a", 1, "allow")).await.unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(
        mode(&dir.path().join("fresh/dir/a.db-wal")),
        0o600,
        "WAL holds audit rows"
    );
    assert_eq!(mode(&dir.path().join("fresh/dir/a.db-shm")), 0o600);
    assert_eq!(mode(&dir.path().join("fresh/dir")), 0o700);
    store.close().await;
}

#[tokio::test]
async fn reading_commands_do_not_create_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing/x.db");
    let err = Store::open_existing(path.to_str().unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Missing(_)), "{err}");
    assert!(
        err.to_string()
            .contains("nothing has been recorded there yet")
    );
    assert!(!dir.path().join("missing").exists());
}

#[tokio::test]
async fn memory_store_for_tests() {
    let store = Store::open("sqlite::memory:").await.unwrap();
    store.record_audit(&event("m", 5, "flag")).await.unwrap();
    assert_eq!(all_events(&store).await.len(), 1);
}

fn pin(identity: &str, key: &str, state: bastion_store::PinState) -> bastion_store::PinRecord {
    bastion_store::PinRecord {
        id: 0,
        server_identity: identity.into(),
        server_name: identity.split(':').next().unwrap().into(),
        kind: "tool".into(),
        item_key: key.into(),
        state,
        approved_hash: Some("a".repeat(64)),
        approved_descriptor: Some(r#"{"name":"x"}"#.into()),
        pending_hash: None,
        pending_descriptor: None,
        pending_reason: None,
        first_seen_ms: 1,
        updated_ms: 1,
    }
}

async fn pins_approve_revoke_and_version(url: &str) {
    use bastion_store::{PinFilter, PinState, ServerRecord};
    let store = Store::open(url).await.unwrap();
    let server = ServerRecord {
        identity: "fs:abc".into(),
        name: "fs".into(),
        config_hash: "abc".into(),
        launch_config: r#"{"args":[],"command":"x","env":{}}"#.into(),
        approved: false,
        first_seen_ms: 1,
        last_seen_ms: 1,
    };
    store.upsert_server(&server).await.unwrap();
    store
        .upsert_server(&ServerRecord {
            last_seen_ms: 5,
            approved: true,
            ..server.clone()
        })
        .await
        .unwrap();
    let known = store.servers_named("fs").await.unwrap();
    assert_eq!(known.len(), 1);
    assert_eq!(known[0].last_seen_ms, 5);
    assert!(known[0].approved);
    assert_eq!(known[0].first_seen_ms, 1);

    let v0 = store.pins_version().await.unwrap();
    store
        .put_pin(&pin("fs:abc", "read", PinState::Approved))
        .await
        .unwrap();
    let mut pending = pin("fs:abc", "write", PinState::Pending);
    pending.pending_hash = Some("b".repeat(64));
    pending.pending_descriptor = Some(r#"{"name":"write","description":"new"}"#.into());
    pending.pending_reason = Some("changed".into());
    store.put_pin(&pending).await.unwrap();
    // Upsert by (identity, kind, key): no duplicate row.
    store.put_pin(&pending).await.unwrap();
    let all = store
        .pins(&PinFilter {
            server_name: Some("fs".into()),
            ..PinFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(
        all.iter().map(|p| p.item_key.as_str()).collect::<Vec<_>>(),
        ["read", "write"]
    );
    let waiting = store
        .pins(&PinFilter {
            state: Some(PinState::Pending),
            ..PinFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(waiting.len(), 1);

    let approved = store.approve_pin(waiting[0].id, 9).await.unwrap().unwrap();
    assert_eq!(approved.state, PinState::Approved);
    assert_eq!(
        approved.approved_hash.as_deref(),
        Some("b".repeat(64).as_str())
    );
    assert_eq!(approved.pending_hash, None);
    assert!(store.pins_version().await.unwrap() > v0);

    let revoked = store.revoke_pin(approved.id, 10).await.unwrap().unwrap();
    assert_eq!(revoked.state, PinState::Revoked);
    assert!(store.approve_pin(9999, 11).await.unwrap().is_none());
}

async fn grants_are_bound_to_the_pin_hash_and_survive_reopen(url: &str) {
    use bastion_store::{ApprovalDecision, Grant, GrantFilter};
    let store = Store::open(url).await.unwrap();
    let grant = Grant {
        id: 0,
        server_identity: "fs:abc".into(),
        server_name: "fs".into(),
        tool: "write_file".into(),
        pin_hash: "a".repeat(64),
        source: "elicitation".into(),
        created_ms: 10,
        revoked_ms: None,
    };
    let stored = store.put_grant(&grant).await.unwrap();
    assert!(stored.id > 0);
    // Same triple again: one row.
    assert_eq!(store.put_grant(&grant).await.unwrap().id, stored.id);
    assert!(
        store
            .grant_for("fs:abc", "write_file", &"a".repeat(64))
            .await
            .unwrap()
            .is_some()
    );
    // Another descriptor (pin hash), another identity or another tool: no grant.
    for (identity, tool, hash) in [
        ("fs:abc", "write_file", "b".repeat(64)),
        ("fs:def", "write_file", "a".repeat(64)),
        ("fs:abc", "delete_file", "a".repeat(64)),
    ] {
        assert!(
            store
                .grant_for(identity, tool, &hash)
                .await
                .unwrap()
                .is_none(),
            "{identity} {tool}"
        );
    }
    store
        .record_decision(&ApprovalDecision {
            time_ms: 11,
            server_name: "fs".into(),
            server_identity: Some("fs:abc".into()),
            tool: "write_file".into(),
            request_id: Some("7".into()),
            digest: "d".repeat(64),
            action: "ask".into(),
            tier: Some("high".into()),
            reasons: vec!["untrusted_server".into(), "destructive_hint".into()],
            channel: Some("elicitation".into()),
            outcome: "approved".into(),
            answer: Some("accept".into()),
            latency_ms: 1234,
            arguments: None,
            ..ApprovalDecision::default()
        })
        .await
        .unwrap();
    store.close().await;

    let store = Store::open(url).await.unwrap();
    let listed = store.grants(&GrantFilter::default()).await.unwrap();
    assert_eq!(listed.len(), 1);
    let revoked = store.revoke_grant(listed[0].id, 20).await.unwrap().unwrap();
    assert_eq!(revoked.revoked_ms, Some(20));
    assert!(
        store
            .revoke_grant(listed[0].id, 21)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .grant_for("fs:abc", "write_file", &"a".repeat(64))
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .grants(&GrantFilter::default())
            .await
            .unwrap()
            .is_empty()
    );
    let all = store
        .grants(&GrantFilter {
            include_revoked: true,
            ..GrantFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(all.len(), 1);
    // Granting again puts it back in force.
    assert!(store.put_grant(&grant).await.unwrap().revoked_ms.is_none());
    let decisions = store.decisions(Some("fs"), 10).await.unwrap();
    assert_eq!(decisions.len(), 1);
    assert_eq!(
        decisions[0].reasons,
        ["untrusted_server", "destructive_hint"]
    );
    assert_eq!(decisions[0].latency_ms, 1234);
    assert!(store.decisions(Some("other"), 10).await.unwrap().is_empty());
}

fn consent(id: &str) -> bastion_store::ConsentRecord {
    bastion_store::ConsentRecord {
        consent_id: id.into(),
        server_identity: "pay:abc".into(),
        server_name: "pay".into(),
        session: "s1".into(),
        elicitation_id: Some("e-1".into()),
        normalized_url: "https://pay.example.com/checkout".into(),
        registrable_domain: Some("example.com".into()),
        request_digest: "d".repeat(64),
        verdict: "allow".into(),
        decision: "accepted".into(),
        reason: None,
        created_ms: 5,
        decided_ms: 9,
        ..bastion_store::ConsentRecord::default()
    }
}

async fn consent_is_read_back_unique_and_consumed_once(url: &str) {
    use bastion_store::{ConsentRecord, FlowRecord};
    let store = Store::open(url).await.unwrap();
    let consent = consent("c0ffee");
    let stored = store.record_consent(&consent).await.unwrap();
    assert!(stored.decision_id > 0);
    assert_eq!(
        ConsentRecord {
            decision_id: 0,
            ..stored
        },
        consent
    );
    // The same consent id twice: refused by the unique constraint.
    assert!(store.record_consent(&consent).await.is_err());
    assert!(
        store
            .consume_consent("c0ffee", "navigate", 10)
            .await
            .unwrap()
    );
    assert!(
        !store
            .consume_consent("c0ffee", "navigate", 11)
            .await
            .unwrap()
    );
    assert!(
        !store
            .consume_consent("unknown", "navigate", 11)
            .await
            .unwrap()
    );
    assert_eq!(store.consents(Some("pay"), 10).await.unwrap().len(), 1);

    let mut flow = FlowRecord {
        server_name: "pay".into(),
        session: "s1".into(),
        elicitation_id: "e-1".into(),
        url: consent.normalized_url.clone(),
        state: "CREATED".into(),
        created_ms: 5,
        updated_ms: 5,
        expires_ms: 600_005,
    };
    store.put_flow(&flow).await.unwrap();
    flow.state = "OUT_OF_BAND_PENDING".into();
    flow.updated_ms = 9;
    store.put_flow(&flow).await.unwrap();
    let flows = store.flows_with_id("pay", "e-1").await.unwrap();
    assert_eq!(flows, vec![flow]);
    assert!(store.flows_with_id("pay", "e-2").await.unwrap().is_empty());
}

async fn contracts_accepted_versions_and_activations(url: &str) {
    use bastion_store::{AcceptedContract, ContractActivation};
    let accepted = |version: i64, hash: &str| AcceptedContract {
        server_id: "io.example/notes".into(),
        contract_version: version,
        manifest_sha256: hash.into(),
        key_id: "0123456789abcdef".into(),
        accepted_ms: 1,
    };
    let store = Store::open(url).await.unwrap();
    let none = store
        .latest_accepted_contract("io.example/notes")
        .await
        .unwrap();
    assert!(none.is_none());
    store
        .record_accepted_contract(&accepted(3, "aa"))
        .await
        .unwrap();
    store
        .record_accepted_contract(&accepted(5, "bb"))
        .await
        .unwrap();
    // Same version, other content: the first row stays in force.
    let again = store
        .record_accepted_contract(&accepted(5, "cc"))
        .await
        .unwrap();
    assert_eq!(again.manifest_sha256, "bb");
    let latest = store
        .latest_accepted_contract("io.example/notes")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(latest.contract_version, 5);
    assert!(
        store
            .latest_accepted_contract("other")
            .await
            .unwrap()
            .is_none()
    );
    let act = |hash: &str| ContractActivation {
        id: 0,
        server_id: "io.example/notes".into(),
        contract_version: 5,
        manifest_sha256: hash.into(),
        approver_key_ids: vec!["k1".into(), "k2".into()],
        approval_ids: vec!["a1".into(), "a2".into()],
        activated_ms: 2,
    };
    let first = store.record_contract_activation(&act("bb")).await.unwrap();
    let second = store.record_contract_activation(&act("bb2")).await.unwrap();
    assert!(first.id > 0 && second.id > first.id);
    let active = store
        .active_contract("io.example/notes")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(active, second);
    store.close().await;
}

/// Issue 8 item 5: a consent id raced by 20 concurrent attempts through two handles on
/// one database (two gateway instances) is consumed exactly once.
async fn two_handles_race_for_one_consent_and_exactly_one_wins(url: &str) {
    let a = Store::open(url).await.unwrap();
    let b = Store::open(url).await.unwrap();
    for round in 0..3 {
        let id = format!("race-{round}");
        a.record_consent(&consent(&id)).await.unwrap();
        let attempts = (0..20).map(|i| {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            let id = id.clone();
            tokio::spawn(async move { store.consume_consent(&id, "navigate", i).await })
        });
        let mut won = 0;
        for attempt in attempts.collect::<Vec<_>>() {
            if attempt.await.unwrap().unwrap() {
                won += 1;
            }
        }
        assert_eq!(won, 1, "round {round}: consumed {won} times");
    }
    a.close().await;
    b.close().await;
}

/// A pin approved through one handle (`mcp-bastion pins approve`, or another gateway)
/// is what the other handle reads next, with a bumped `pins_version`.
async fn a_pin_approved_through_one_handle_is_seen_by_the_other(url: &str) {
    use bastion_store::{PinFilter, PinState};
    let a = Store::open(url).await.unwrap();
    let b = Store::open(url).await.unwrap();
    let mut pending = pin("fs:abc", "write", PinState::Pending);
    pending.pending_hash = Some("c".repeat(64));
    a.put_pin(&pending).await.unwrap();
    let v0 = b.pins_version().await.unwrap();
    let id = b.pins(&PinFilter::default()).await.unwrap()[0].id;
    // Approvals racing on one pin: each returns the row it approved, all the same.
    let racers: Vec<_> = (0..6)
        .map(|i| {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            tokio::spawn(async move { store.approve_pin(id, 100 + i).await })
        })
        .collect();
    for r in racers {
        let row = r.await.unwrap().unwrap().unwrap();
        assert_eq!(row.state, PinState::Approved);
        assert_eq!(row.approved_hash.as_deref(), Some("c".repeat(64).as_str()));
    }
    assert!(b.pins_version().await.unwrap() >= v0 + 6);
    let seen = b.pin_by_id(id).await.unwrap().unwrap();
    assert_eq!(seen.state, PinState::Approved);
    assert_eq!(seen.pending_hash, None);
    let revoked = b.revoke_pin(id, 200).await.unwrap().unwrap();
    assert_eq!(revoked.state, PinState::Revoked);
    assert_eq!(
        a.pin_by_id(id).await.unwrap().unwrap().state,
        PinState::Revoked
    );
    a.close().await;
    b.close().await;
}

#[tokio::test]
async fn unreachable_postgres_is_a_typed_error_without_the_password() {
    // Port 1 on loopback: nothing listens there.
    let err = Store::open("postgres://bastion:hunter2@127.0.0.1:1/x")
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Connect { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("postgres://bastion@127.0.0.1:1/x"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
}

/// A gateway writes a pin row only while it is what the gateway decided on: an approval
/// made meanwhile elsewhere is not overwritten by a decision taken on a stale copy.
async fn pin_writes_are_compare_and_set(url: &str) {
    use bastion_store::{PinFilter, PinState};
    let store = Store::open(url).await.unwrap();
    let first = pin("fs:abc", "write", PinState::Approved);
    // No row seen: insert once; a second "first sight" loses.
    assert!(store.put_pin_if(&first, None).await.unwrap());
    assert!(!store.put_pin_if(&first, None).await.unwrap());
    let seen = store.pins(&PinFilter::default()).await.unwrap().remove(0);

    // Gateway 1 records a changed version as pending, based on `seen`.
    let mut changed = seen.clone();
    changed.state = PinState::Pending;
    changed.pending_hash = Some("b".repeat(64));
    changed.pending_reason = Some("changed".into());
    assert!(store.put_pin_if(&changed, Some(&seen)).await.unwrap());
    let pending = store.pin_by_id(seen.id).await.unwrap().unwrap();
    // A user approves it.
    store.approve_pin(seen.id, 5).await.unwrap().unwrap();
    // Gateway 2, still holding `seen`, records the same change: refused, the approval
    // stands.
    assert!(!store.put_pin_if(&changed, Some(&seen)).await.unwrap());
    assert!(!store.put_pin_if(&changed, Some(&pending)).await.unwrap());
    let now = store.pin_by_id(seen.id).await.unwrap().unwrap();
    assert_eq!(now.state, PinState::Approved);
    assert_eq!(now.approved_hash.as_deref(), Some("b".repeat(64).as_str()));
    // Based on the current row, it is written.
    let mut revisit = now.clone();
    revisit.updated_ms = 6;
    assert!(store.put_pin_if(&revisit, Some(&now)).await.unwrap());
    // The unconditional write replaces whatever is there.
    store.put_pin(&first).await.unwrap();
    let replaced = store.pin_by_id(seen.id).await.unwrap().unwrap();
    assert_eq!(replaced.approved_hash, first.approved_hash);
    store.close().await;
}

/// Environment of [`consent_racer`]: the store URL and the consent id to consume.
const RACE_URL: &str = "BASTION_TEST_RACE_URL";
const RACE_ID: &str = "BASTION_TEST_RACE_ID";

/// The other side of [`two_processes_race_for_one_consent_and_exactly_one_wins`], run in
/// a child process of this test binary (`--ignored --exact consent_racer`): 10 concurrent
/// consumptions of one consent id; prints `won N`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "runs only as the child process of a consent race test"]
async fn consent_racer() {
    let url = std::env::var(RACE_URL).expect("run by the consent race test");
    let id = std::env::var(RACE_ID).expect("run by the consent race test");
    let store = Store::open(&url).await.unwrap();
    let attempts: Vec<_> = (0..10)
        .map(|i| {
            let (store, id) = (store.clone(), id.clone());
            tokio::spawn(async move { store.consume_consent(&id, "navigate", i).await })
        })
        .collect();
    let mut won = 0;
    for a in attempts {
        won += usize::from(a.await.unwrap().unwrap());
    }
    store.close().await;
    println!("won {won}");
}

/// Issue 8 item 5 with two processes (two gateway instances, each with its own pool):
/// 20 concurrent consumptions of one consent id, 10 from each, win exactly once.
async fn two_processes_race_for_one_consent_and_exactly_one_wins(url: &str) {
    let store = Store::open(url).await.unwrap();
    let id = "race-across-processes";
    store.record_consent(&consent(id)).await.unwrap();
    let racers: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--ignored", "--exact", "consent_racer", "--nocapture"])
                .env(RACE_URL, url)
                .env(RACE_ID, id)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut wins = Vec::new();
    for racer in racers {
        let out = racer.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let won: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("won "))
            .unwrap_or_else(|| panic!("no result from the racer: {text}"))
            .parse()
            .unwrap();
        wins.push(won);
    }
    assert_eq!(wins.iter().sum::<usize>(), 1, "wins per process: {wins:?}");
    assert!(!store.consume_consent(id, "navigate", 99).await.unwrap());
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_commands_do_not_create_a_postgres_store() {
    let Some(db) = testdb::postgres().await else {
        return;
    };
    let err = Store::open_existing(&db.url).await.unwrap_err();
    assert!(matches!(err, StoreError::MissingSchema(_)), "{err}");
    assert!(
        err.to_string()
            .contains("nothing has been recorded there yet")
    );
    // Still empty: a later open creates it, and then reading commands work.
    Store::open(&db.url).await.unwrap().close().await;
    let store = Store::open_existing(&db.url).await.unwrap();
    assert!(store.is_postgres());
    assert!(all_events(&store).await.is_empty());
    store.close().await;
    db.remove().await;
}

/// Migrations 1..=5 of one backend, as an older mcp-bastion applied them.
fn migrations_before_6(dir: &str) -> sqlx::migrate::Migrator {
    use sqlx::SqlSafeStr;
    use sqlx::migrate::{Migration, MigrationType, Migrator};
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    let migrations = files
        .iter()
        .take(5)
        .enumerate()
        .map(|(i, path)| {
            let sql: &'static str = std::fs::read_to_string(path).unwrap().leak();
            Migration::new(
                i64::try_from(i).unwrap() + 1,
                "older".into(),
                MigrationType::Simple,
                sql.into_sql_str(),
                false,
            )
        })
        .collect();
    Migrator::with_migrations(migrations)
}

/// A store whose schema stopped at migration 5 (before `audit_events.instance`) keeps
/// its events when opened: migration 6 adds the column, old rows read `instance: None`.
async fn a_store_from_before_migration_6_is_upgraded_in_place(url: &str) {
    use sqlx::Connection;
    let insert_old = "INSERT INTO audit_events (time_ms, server, direction, verdict, bytes) \
                      VALUES (1, 'old', 'gateway', 'allow', 3)";
    if url.starts_with("postgres") {
        let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
        migrations_before_6("postgres")
            .run(&mut conn)
            .await
            .unwrap();
        sqlx::query(insert_old).execute(&mut conn).await.unwrap();
        conn.close().await.unwrap();
    } else {
        let path = url.strip_prefix("sqlite://").unwrap();
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true);
        let mut conn = sqlx::SqliteConnection::connect_with(&options)
            .await
            .unwrap();
        migrations_before_6("sqlite").run(&mut conn).await.unwrap();
        sqlx::query(insert_old).execute(&mut conn).await.unwrap();
        conn.close().await.unwrap();
    }
    let store = Store::open(url).await.unwrap();
    let mut new = event("new", 2, "block");
    new.instance = Some("h-1-aa".into());
    store.record_audit(&new).await.unwrap();
    let events = all_events(&store).await;
    assert_eq!(events.len(), 2);
    assert_eq!(
        (events[0].server.as_str(), events[0].instance.as_deref()),
        ("old", None)
    );
    assert_eq!(events[1].instance.as_deref(), Some("h-1-aa"));
    store.close().await;
}

/// Gateways starting together on a new store: every open succeeds, each migration is
/// applied once (`SQLite`: a lock file; `PostgreSQL`: an advisory lock).
async fn concurrent_first_opens_migrate_once(url: &str) {
    // Interleaved in one task (an open's future is not `Send`-general enough for
    // `tokio::spawn`, a known rustc limitation with sqlx's migrator).
    let opened = tokio::join!(
        Store::open(url),
        Store::open(url),
        Store::open(url),
        Store::open(url)
    );
    let stores = [
        opened.0.unwrap(),
        opened.1.unwrap(),
        opened.2.unwrap(),
        opened.3.unwrap(),
    ];
    for (i, store) in stores.iter().enumerate() {
        let mut one = event("s", i64::try_from(i).unwrap(), "allow");
        one.instance = Some(format!("i{i}"));
        store.record_audit(&one).await.unwrap();
    }
    assert_eq!(all_events(&stores[0]).await.len(), 4);
    for store in stores {
        store.close().await;
    }
}

async fn oauth_tokens_and_clients_round_trip(url: &str) {
    use bastion_store::{OAuthClientRow, OAuthTokenRow};
    let store = Store::open(url).await.unwrap();
    let row = |issuer: &str, client: &str, sealed: &str, ms| OAuthTokenRow {
        issuer: issuer.into(),
        resource: "https://mcp.example.com/mcp".into(),
        client_id: client.into(),
        sealed: sealed.into(),
        updated_ms: ms,
    };
    store
        .put_oauth_token(&row("https://as.example", "c1", "s1", 1))
        .await
        .unwrap();
    store
        .put_oauth_token(&row("https://as2.example", "c2", "s2", 2))
        .await
        .unwrap();
    // Same key: replaced, not added.
    store
        .put_oauth_token(&row("https://as.example", "c1", "s3", 3))
        .await
        .unwrap();
    let rows = store
        .oauth_tokens_for("https://mcp.example.com/mcp")
        .await
        .unwrap();
    assert_eq!(
        rows,
        [
            row("https://as.example", "c1", "s3", 3),
            row("https://as2.example", "c2", "s2", 2)
        ]
    );
    assert!(
        store
            .oauth_tokens_for("https://other.example/mcp")
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store
            .delete_oauth_tokens("https://mcp.example.com/mcp")
            .await
            .unwrap(),
        2
    );
    assert!(
        store
            .oauth_tokens_for("https://mcp.example.com/mcp")
            .await
            .unwrap()
            .is_empty()
    );
    let client = OAuthClientRow {
        issuer: "https://as.example".into(),
        client_id: "dyn-1".into(),
        sealed: "x".into(),
        registered_ms: 5,
    };
    store.put_oauth_client(&client).await.unwrap();
    store
        .put_oauth_client(&OAuthClientRow {
            client_id: "dyn-2".into(),
            ..client.clone()
        })
        .await
        .unwrap();
    assert_eq!(
        store
            .oauth_client("https://as.example")
            .await
            .unwrap()
            .unwrap()
            .client_id,
        "dyn-2"
    );
    assert!(
        store
            .oauth_client("https://as2.example")
            .await
            .unwrap()
            .is_none()
    );
    store.close().await;
}
