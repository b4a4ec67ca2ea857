//! Unit tests of `serve::session` (kept apart: the module's own code is one concern).

use super::*;

/// A session with no relay behind it: what it writes to the relay is read from the
/// returned end.
fn detached_session() -> (Arc<Session>, DuplexStream) {
    let (host_side, relay_side) = tokio::io::duplex(PIPE_BYTES);
    let (_, to_relay) = tokio::io::split(host_side);
    let session = Arc::new_cyclic(|me| Session {
        me: me.clone(),
        id: "test".into(),
        shared: false,
        name: "test".into(),
        input: tokio::sync::Mutex::new(Some(to_relay)),
        closing: std::sync::atomic::AtomicBool::new(false),
        closed: tokio::sync::Notify::new(),
        routes: Mutex::new(Routes::default()),
        last_seen: Mutex::new(Instant::now()),
    });
    (session, relay_side)
}

/// Everything the session wrote to the relay until it was closed, one message a line.
async fn written(session: &Session, relay: DuplexStream) -> Vec<Value> {
    session.close().await;
    let mut lines = BufReader::new(relay).lines();
    let mut out = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        out.push(serde_json::from_str(&line).unwrap());
    }
    out
}

#[tokio::test]
async fn a_request_whose_cancellation_reached_the_relay_first_is_cancelled_after_it() {
    let call = |n: u8| format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call"}}"#);
    let (session, relay) = detached_session();
    let id = Id::Int(5);
    // Another connection's cancellation holds the relay pipe, so the request waits
    // with its stream already registered.
    let pipe = session.input.lock().await;
    let handing = tokio::spawn({
        let (session, id) = (session.clone(), id.clone());
        async move {
            session
                .request_as(id, call(5).as_bytes(), None)
                .await
                .map(|_| ())
        }
    });
    while !session.routes().waiters.contains_key(&id) {
        tokio::task::yield_now().await;
    }
    // The cancellation is written first (the relay ignores it: it has not seen the
    // request) and ends the request's stream.
    session.end_stream(&id);
    drop(pipe);
    assert_eq!(handing.await.unwrap(), Ok(()));
    let sent = written(&session, relay).await;
    let methods: Vec<&Value> = sent.iter().map(|m| &m["method"]).collect();
    assert_eq!(
        methods,
        ["tools/call", "notifications/cancelled"],
        "{sent:?}"
    );
    assert_eq!(sent[1]["params"]["requestId"], 5);
    // A request whose stream still waits goes on alone.
    let (session, relay) = detached_session();
    let _inlet = session
        .request_as(Id::Int(6), call(6).as_bytes(), None)
        .await
        .unwrap();
    let sent = written(&session, relay).await;
    assert_eq!(sent, [serde_json::from_str::<Value>(&call(6)).unwrap()]);
}

#[test]
fn a_body_the_listener_reserializes_grows_at_most_fourfold() {
    // serde_json writes each number in its shortest round-trip form, with `.0` for
    // integral floats: short exponent forms grow the most.
    for n in 0..=30 {
        for token in [
            format!("1e{n}"),
            format!("-1e{n}"),
            format!("1e-{n}"),
            format!("9E+{n}"),
        ] {
            let body = format!("[{}]", vec![token.as_str(); 1000].join(","));
            let v: Value = serde_json::from_str(&body).unwrap();
            let out = serde_json::to_vec(&v).unwrap();
            assert!(
                out.len() <= body.len() * 4 + 64,
                "{token}: {} -> {}",
                body.len(),
                out.len()
            );
        }
    }
}

#[test]
fn unread_streams_of_a_session_hold_a_bounded_total_of_unsolicited_messages() {
    let mut routes = Routes::default();
    let message = format!(
        r#"{{"jsonrpc":"2.0","method":"m","params":{{"p":"{}"}}}}"#,
        "x".repeat(1 << 20)
    );
    let mib = || sse_event(message.as_bytes());
    let wait = |routes: &mut Routes, id: &str| {
        let (out, inlet) = stream_channel(STREAM_BUFFER, &routes.budget);
        routes.waiters.insert(
            Id::Str(id.to_owned()),
            Waiter {
                out,
                original: None,
            },
        );
        inlet
    };
    // A POST stream takes 5 MiB, then is answered (it leaves the routes) and its
    // client reads nothing; a replaced GET stream the same.
    let answered = wait(&mut routes, "a");
    for _ in 0..5 {
        assert_eq!(routes.push_unsolicited(mib()), 0);
    }
    if let Some(w) = routes.waiters.remove(&Id::Str("a".into())) {
        w.out.send_answer(sse_event(b"{}").answering());
    }
    let (out, replaced) = stream_channel(BACKLOG + STREAM_BUFFER, &routes.budget);
    routes.stream = Some(out);
    for _ in 0..2 {
        assert_eq!(routes.push_unsolicited(mib()), 0);
    }
    let (out, get) = stream_channel(BACKLOG + STREAM_BUFFER, &routes.budget);
    routes.stream = Some(out);
    // Forty more unread POST streams and the new GET stream share what is left.
    let inlets: Vec<Inlet> = (0..40)
        .map(|i| wait(&mut routes, &format!("r{i}")))
        .collect();
    let mut dropped = 0;
    for _ in 0..400 {
        dropped += routes.push_unsolicited(mib());
    }
    let held = answered.queued_bytes()
        + replaced.queued_bytes()
        + get.queued_bytes()
        + inlets.iter().map(Inlet::queued_bytes).sum::<usize>();
    assert!(
        held <= super::super::stream::STREAM_BYTES + sse_event(b"{}").len(),
        "{held}"
    );
    assert!(routes.backlog_bytes <= BACKLOG_BYTES);
    assert!(dropped > 300, "{dropped}");
    // Streams whose readers are gone give their share back.
    drop((answered, replaced, inlets));
    routes.waiters.clear();
    assert_eq!(routes.push_unsolicited(mib()), 0);
    assert!(get.queued_bytes() > 1 << 20);
}

#[test]
fn answers_are_told_from_requests_and_notifications() {
    assert_eq!(
        answered_id(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#),
        Some(Id::Int(7))
    );
    assert_eq!(
        answered_id(br#"{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"x"}}"#),
        Some(Id::Str("a".into()))
    );
    assert_eq!(
        answered_id(br#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}"#),
        None
    );
    assert_eq!(
        answered_id(br#"{"jsonrpc":"2.0","method":"notifications/progress"}"#),
        None
    );
    assert_eq!(answered_id(b"not json"), None);
    // Whatever the members' values and order: `result: null` is an answer, an id
    // after a large nested result is found, a `null` id or a method is not.
    assert_eq!(
        answered_id(br#"{"result":null,"jsonrpc":"2.0","id":3}"#),
        Some(Id::Int(3))
    );
    let nested = format!(
        r#"{{"jsonrpc":"2.0","result":{{"content":[{}{{}}]}},"id":"z"}}"#,
        r#"{"type":"text","text":"a\"}"},"#.repeat(1000)
    );
    assert_eq!(answered_id(nested.as_bytes()), Some(Id::Str("z".into())));
    assert_eq!(
        answered_id(br#"{"jsonrpc":"2.0","id":null,"error":{}}"#),
        None
    );
    assert_eq!(
        answered_id(br#"{"jsonrpc":"2.0","result":{},"method":"x","id":1}"#),
        None
    );
    assert_eq!(
        answered_id(br#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#),
        None
    );
}

#[test]
fn renumbered_answers_get_the_hosts_id_back() {
    let line = br#"{"jsonrpc":"2.0","id":"bastion-7","result":{"x":1}}"#;
    let back: Value = serde_json::from_slice(&with_id(line, serde_json::json!(1))).unwrap();
    assert_eq!(
        back,
        serde_json::json!({"jsonrpc":"2.0","id":1,"result":{"x":1}})
    );
}
