//! Integration tests of the store on real `SQLite` files.

use bastion_store::{AuditEvent, AuditQuery, Store, StoreError};

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

#[tokio::test]
async fn audit_round_trip_on_a_real_file_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/bastion.db");
    let url = format!("sqlite://{}", path.display());
    let store = Store::open(&url).await.unwrap();
    store
        .record_audit(&event("a", 1000, "sanitize"))
        .await
        .unwrap();
    store
        .record_audit_batch(&[event("b", 2000, "allow"), event("a", 3000, "block")])
        .await
        .unwrap();
    store.close().await;

    assert!(path.is_file());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    let store = Store::open(&url).await.unwrap();
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
    assert_eq!(
        store
            .audit_events(&AuditQuery::default())
            .await
            .unwrap()
            .len(),
        1
    );
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

#[tokio::test]
async fn pins_approve_revoke_and_version() {
    use bastion_store::{PinFilter, PinState, ServerRecord};
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("p.db").to_str().unwrap())
        .await
        .unwrap();
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

#[tokio::test]
async fn grants_are_bound_to_the_pin_hash_and_survive_reopen() {
    use bastion_store::{ApprovalDecision, Grant, GrantFilter};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.db");
    let store = Store::open(path.to_str().unwrap()).await.unwrap();
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

    let store = Store::open(path.to_str().unwrap()).await.unwrap();
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

#[tokio::test]
async fn consent_is_read_back_unique_and_consumed_once() {
    use bastion_store::{ConsentRecord, FlowRecord};
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("c.db").to_str().unwrap())
        .await
        .unwrap();
    let consent = ConsentRecord {
        consent_id: "c0ffee".into(),
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
        ..ConsentRecord::default()
    };
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
