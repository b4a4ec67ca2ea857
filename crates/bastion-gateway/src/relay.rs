//! Per-message handling in both directions: strict parse, classify, correlate, inspect
//! (all decisions by `bastion-core`), then forward, rewrite, refuse or drop — and audit.

use crate::audit::AuditSink;
use crate::io::Outbox;
use crate::pending::{HostRequest, Pending};
use bastion_core::envelope::{self, Id, Kind, codes};
use bastion_core::era::{self, Era};
use bastion_core::finding::{Code, Finding, Verdict};
use bastion_core::lists::{self, ListOutcome};
use bastion_core::result::{ResultOptions, inspect_result};
use bastion_core::sanitize::sanitize_text;
use bastion_core::{Limits, json, methods};
use bastion_store::AuditEvent;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;

/// Mutable session state, behind a mutex never held across an await.
#[derive(Debug, Default)]
struct State {
    pending: Pending,
    /// Withheld descriptor keys per list member (`tools`, `prompts`, `resources`, ...).
    withheld: HashMap<&'static str, HashSet<String>>,
    era: Option<Era>,
    protocol_version: Option<String>,
}

/// The relay of one wrapped server.
pub(crate) struct Relay {
    name: String,
    limits: Limits,
    /// Result options with `scan_injection` off: the relay runs that scan after forwarding.
    result_opts: std::sync::Arc<ResultOptions>,
    state: Mutex<State>,
    pub(crate) to_host: Outbox,
    pub(crate) to_server: Outbox,
    audit: AuditSink,
    timer_wake: Notify,
}

/// Audit event under construction.
struct Ev(AuditEvent);

impl Ev {
    fn new(direction: &str, kind: &str, verdict: Verdict, bytes: usize) -> Self {
        Self(AuditEvent {
            direction: direction.into(),
            message_kind: Some(kind.into()),
            verdict: verdict.as_str().into(),
            bytes: i64::try_from(bytes).unwrap_or(i64::MAX),
            ..AuditEvent::default()
        })
    }
    fn method(mut self, m: &str) -> Self {
        self.0.method = Some(m.into());
        self
    }
    fn target(mut self, t: Option<&str>) -> Self {
        self.0.tool = t.map(str::to_owned);
        self
    }
    fn id(mut self, id: &Value) -> Self {
        self.0.request_id = Some(id.to_string());
        self
    }
    fn reason(mut self, r: &str) -> Self {
        self.0.reason = Some(r.into());
        self
    }
    fn codes(mut self, findings: &[Finding]) -> Self {
        for f in findings {
            let c = f.code.as_str().to_owned();
            if !self.0.codes.contains(&c) {
                self.0.codes.push(c);
            }
        }
        self
    }
    fn code(mut self, c: Code) -> Self {
        self.0.codes.push(c.as_str().into());
        self
    }
    fn removed(mut self, n: usize) -> Self {
        self.0.removed_chars = i64::try_from(n).unwrap_or(i64::MAX);
        self
    }
    fn digest(mut self, frame: &[u8]) -> Self {
        self.0.digest = Some(hex::encode(Sha256::digest(frame)));
        self
    }
}

/// Frames up to this size get their audit work (digest, instruction scan) inline right
/// after forwarding; larger ones on a blocking thread, bytes.
const INLINE_AUDIT_BYTES: usize = 64 * 1024;

const H2S: &str = "host_to_server";
const S2H: &str = "server_to_host";

fn target_of(method: &str, params: Option<&Value>) -> Option<String> {
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return None,
    };
    params
        .and_then(|p| p.get(field))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The list member whose withheld set guards `method`'s target.
fn guarded_list(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" => Some("tools"),
        "prompts/get" => Some("prompts"),
        "resources/read" | "resources/subscribe" => Some("resources"),
        _ => None,
    }
}

fn serialize(map: &Map<String, Value>) -> Vec<u8> {
    serde_json::to_vec(map).unwrap_or_default()
}

impl Relay {
    pub(crate) fn new(
        name: String,
        limits: Limits,
        result_opts: ResultOptions,
        to_host: Outbox,
        to_server: Outbox,
        audit: AuditSink,
    ) -> Self {
        Self {
            name,
            limits,
            result_opts: std::sync::Arc::new(ResultOptions {
                scan_injection: false,
                ..result_opts
            }),
            state: Mutex::new(State::default()),
            to_host,
            to_server,
            audit,
            timer_wake: Notify::new(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated in a way
        // that matters more than stopping; recover the data.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn data(&self, reason: &str, extra: Value) -> Value {
        let mut d = json!({"reason": reason, "server": self.name});
        if let (Some(d), Value::Object(extra)) = (d.as_object_mut(), extra) {
            d.extend(extra);
        }
        d
    }

    async fn answer_host(
        &self,
        id: Option<&Value>,
        code: i64,
        message: &str,
        reason: &str,
        extra: Value,
    ) {
        let frame = envelope::error_response(id, code, message, self.data(reason, extra));
        self.to_host.send(frame).await;
    }

    // ----- host → server -------------------------------------------------------------

    pub(crate) async fn on_host_frame(&self, frame: Vec<u8>) {
        let map = match json::parse_frame(&frame, self.limits.max_depth) {
            Ok(m) => m,
            Err(rej) => {
                let parse = rej.error.is_parse_error();
                let path = rej.error.path().to_owned();
                self.host_rejected(
                    rej.error.code(),
                    &rej.error.to_string(),
                    rej.id.as_ref(),
                    parse,
                    &path,
                    frame.len(),
                )
                .await;
                return;
            }
        };
        let kind = match envelope::classify(&map) {
            Ok(k) => k,
            Err(e) => {
                let id = map
                    .get("id")
                    .filter(|v| Id::from_value(v).is_some())
                    .cloned();
                self.host_rejected(
                    Code::InvalidEnvelope,
                    &e.to_string(),
                    id.as_ref(),
                    false,
                    "",
                    frame.len(),
                )
                .await;
                return;
            }
        };
        match kind {
            Kind::Request { id, method } => self.host_request(frame, &map, id, method).await,
            Kind::Notification { method } => {
                if let Err(e) = methods::check_request_params(&method, map.get("params")) {
                    self.audit
                        .record(
                            Ev::new(H2S, "notification", Verdict::Block, frame.len())
                                .method(&method)
                                .reason(Code::MalformedMessage.as_str())
                                .0,
                        )
                        .await;
                    eprintln!(
                        "mcp-bastion[{}]: dropped a host notification: {e}",
                        self.name
                    );
                    return;
                }
                self.to_server.send(frame).await;
            }
            Kind::Result { id } | Kind::Error { id: Some(id), .. } => {
                self.host_answer(frame, &map, &id).await;
            }
            Kind::Error { id: None, .. } => {
                // The host could not read something: nothing to correlate; record it.
                self.audit
                    .record(
                        Ev::new(H2S, "error", Verdict::Block, frame.len())
                            .reason("unknown_response_id")
                            .0,
                    )
                    .await;
            }
        }
    }

    /// A host frame exceeded `max_host_frame_bytes` and was discarded while reading.
    pub(crate) async fn host_oversized(&self, bytes: usize, id: Option<Value>) {
        let detail = format!(
            "a frame of {bytes} bytes exceeds the limit of {} bytes",
            self.limits.max_host_frame_bytes
        );
        self.host_rejected(Code::FrameTooLarge, &detail, id.as_ref(), false, "", bytes)
            .await;
    }

    /// A host frame stayed incomplete beyond `read_timeout_ms` and was discarded.
    pub(crate) async fn host_read_timeout(&self, bytes: usize, id: Option<Value>) {
        let detail = format!(
            "a frame stayed incomplete ({bytes} bytes) for more than {} ms",
            self.limits.read_timeout_ms
        );
        self.host_rejected(Code::ReadTimeout, &detail, id.as_ref(), false, "", bytes)
            .await;
    }

    /// A host frame failed the strict parse or envelope checks.
    async fn host_rejected(
        &self,
        code: Code,
        detail: &str,
        id: Option<&Value>,
        parse: bool,
        path: &str,
        bytes: usize,
    ) {
        let parsed_id = id.and_then(Id::from_value);
        let answers_server = parsed_id
            .as_ref()
            .and_then(|i| self.state().pending.take_server(i));
        let ev = Ev::new(H2S, "unknown", Verdict::Block, bytes)
            .reason(code.as_str())
            .code(code);
        if let (Some(method), Some(id)) = (answers_server, id) {
            // The host's answer to a server request was refused: the server gets an error.
            self.audit.record(ev.method(&method).id(id).0).await;
            let frame = envelope::error_response(
                Some(id),
                codes::INTERNAL_ERROR,
                "The client's answer was refused by mcp-bastion",
                self.data(code.as_str(), Value::Null),
            );
            self.to_server.send(frame).await;
            return;
        }
        self.audit
            .record(
                match id {
                    Some(i) => ev.id(i),
                    None => ev,
                }
                .0,
            )
            .await;
        let (rpc_code, what) = if parse {
            (codes::PARSE_ERROR, "Parse error")
        } else {
            (codes::INVALID_REQUEST, "Invalid request")
        };
        self.answer_host(
            id.filter(|_| parsed_id.is_some()),
            rpc_code,
            &format!("{what}: mcp-bastion refused the message ({detail})"),
            code.as_str(),
            if path.is_empty() {
                Value::Null
            } else {
                json!({"path": path})
            },
        )
        .await;
    }

    async fn host_request(&self, frame: Vec<u8>, map: &Map<String, Value>, id: Id, method: String) {
        let raw_id = map.get("id").cloned().unwrap_or(Value::Null);
        let params = map.get("params");
        let target = target_of(&method, params);
        let ev = |verdict| {
            Ev::new(H2S, "request", verdict, frame.len())
                .method(&method)
                .target(target.as_deref())
                .id(&raw_id)
        };
        if let Err(e) = methods::check_request_params(&method, params) {
            self.audit
                .record(ev(Verdict::Block).reason(Code::MalformedMessage.as_str()).0)
                .await;
            self.answer_host(
                Some(&raw_id),
                codes::INVALID_PARAMS,
                &format!("Invalid params: {e}"),
                Code::MalformedMessage.as_str(),
                Value::Null,
            )
            .await;
            return;
        }
        let refusal = {
            let mut st = self.state();
            if let Some((era, version)) = era::from_host_request(&method, params) {
                st.era = Some(era);
                if version.is_some() {
                    st.protocol_version = version;
                }
            }
            if st.pending.host_contains(&id) {
                Some((
                    Code::DuplicateRequestId.as_str(),
                    format!("Invalid request: id {id} is already used by a request still pending"),
                ))
            } else if let (Some(list), Some(t)) = (guarded_list(&method), target.as_deref())
                && st.withheld.get(list).is_some_and(|w| w.contains(t))
            {
                Some((
                    Code::BlockedDescriptor.as_str(),
                    format!(
                        "mcp-bastion withheld {t:?} from server {:?} because its descriptor failed security checks; run `mcp-bastion audit --server {}` to see why",
                        self.name, self.name
                    ),
                ))
            } else {
                let timeout = Duration::from_millis(self.limits.timeout_for(&method));
                let continuation = params.and_then(|p| p.get("cursor")).is_some();
                let before = st.pending.next_deadline();
                let next = st.pending.add_host(
                    id.clone(),
                    method.clone(),
                    target.clone(),
                    raw_id.clone(),
                    Instant::now() + timeout,
                    continuation,
                );
                if next != before {
                    self.timer_wake.notify_one();
                }
                None
            }
        };
        if let Some((reason, message)) = refusal {
            self.audit.record(ev(Verdict::Block).reason(reason).0).await;
            let code = if reason == Code::DuplicateRequestId.as_str() {
                codes::INVALID_REQUEST
            } else {
                codes::POLICY_REFUSED
            };
            self.answer_host(Some(&raw_id), code, &message, reason, Value::Null)
                .await;
            return;
        }
        self.audit.record(ev(Verdict::Allow).digest(&frame).0).await;
        if !self.to_server.send(frame).await && self.state().pending.take_host(&id).is_some() {
            self.answer_host(
                Some(&raw_id),
                codes::UPSTREAM_UNAVAILABLE,
                "The server is no longer running",
                "upstream_exited",
                Value::Null,
            )
            .await;
        }
    }

    /// The host answers a server request.
    async fn host_answer(&self, frame: Vec<u8>, map: &Map<String, Value>, id: &Id) {
        let raw_id = map.get("id").cloned().unwrap_or(Value::Null);
        let kind = if map.contains_key("result") {
            "result"
        } else {
            "error"
        };
        let Some(method) = self.state().pending.take_server(id) else {
            self.audit
                .record(
                    Ev::new(H2S, kind, Verdict::Block, frame.len())
                        .id(&raw_id)
                        .reason(Code::UnknownResponseId.as_str())
                        .0,
                )
                .await;
            return;
        };
        if let Some(result) = map.get("result")
            && let Err(e) = methods::check_result(&method, result)
        {
            self.audit
                .record(
                    Ev::new(H2S, kind, Verdict::Block, frame.len())
                        .method(&method)
                        .id(&raw_id)
                        .reason(Code::MalformedMessage.as_str())
                        .0,
                )
                .await;
            let err = envelope::error_response(
                Some(&raw_id),
                codes::INTERNAL_ERROR,
                &format!("The client's answer was refused by mcp-bastion: {e}"),
                self.data(Code::MalformedMessage.as_str(), Value::Null),
            );
            self.to_server.send(err).await;
            return;
        }
        self.audit
            .record(
                Ev::new(H2S, kind, Verdict::Allow, frame.len())
                    .method(&method)
                    .id(&raw_id)
                    .0,
            )
            .await;
        self.to_server.send(frame).await;
    }

    // ----- server → host -------------------------------------------------------------

    pub(crate) async fn on_server_frame(&self, frame: Vec<u8>) {
        let map = match json::parse_frame(&frame, self.limits.max_depth) {
            Ok(m) => m,
            Err(rej) => {
                self.server_rejected(
                    rej.error.code(),
                    &rej.error.to_string(),
                    rej.id.as_ref(),
                    frame.len(),
                )
                .await;
                return;
            }
        };
        let kind = match envelope::classify(&map) {
            Ok(k) => k,
            Err(e) => {
                self.server_rejected(
                    Code::InvalidEnvelope,
                    &e.to_string(),
                    map.get("id"),
                    frame.len(),
                )
                .await;
                return;
            }
        };
        match kind {
            Kind::Result { id } => self.server_result(frame, map, &id).await,
            Kind::Error { id: Some(id), .. } => self.server_error(frame, map, Some(&id)).await,
            Kind::Error { id: None, .. } => self.server_error(frame, map, None).await,
            Kind::Request { id, method } => self.server_request(frame, &map, id, &method).await,
            Kind::Notification { method } => self.server_notification(frame, map, &method).await,
        }
    }

    /// A server frame failed the limits, the strict parse or the envelope checks: it is
    /// dropped; the request it answers (by recovered id, or the only one pending) gets
    /// an error at once.
    pub(crate) async fn server_rejected(
        &self,
        code: Code,
        detail: &str,
        id: Option<&Value>,
        bytes: usize,
    ) {
        let recovered = id.and_then(Id::from_value);
        let req = {
            let mut st = self.state();
            match &recovered {
                Some(i) if st.pending.host_contains(i) => st.pending.take_host(i),
                Some(_) => None,
                None => st
                    .pending
                    .sole_host()
                    .and_then(|i| st.pending.take_host(&i)),
            }
        };
        let mut ev = Ev::new(S2H, "unknown", Verdict::Block, bytes)
            .reason(code.as_str())
            .code(code);
        if let Some(req) = &req {
            ev = ev
                .method(&req.method)
                .target(req.target.as_deref())
                .id(&req.raw_id);
        }
        self.audit.record(ev.0).await;
        eprintln!(
            "mcp-bastion[{}]: dropped a server message of {bytes} bytes ({})",
            self.name,
            code.as_str()
        );
        if let Some(req) = req {
            self.answer_host(
                Some(&req.raw_id),
                codes::UPSTREAM_REJECTED,
                &format!(
                    "The server's answer to {} was refused by mcp-bastion ({detail})",
                    req.method
                ),
                "upstream_message_rejected",
                json!({"finding": code.as_str()}),
            )
            .await;
        }
    }

    async fn server_result(&self, frame: Vec<u8>, mut map: Map<String, Value>, id: &Id) {
        let raw_id = map.get("id").cloned().unwrap_or(Value::Null);
        let Some(req) = self.state().pending.take_host(id) else {
            self.audit
                .record(
                    Ev::new(S2H, "result", Verdict::Block, frame.len())
                        .id(&raw_id)
                        .reason(Code::UnknownResponseId.as_str())
                        .0,
                )
                .await;
            return;
        };
        let bytes = frame.len();
        let ev = |verdict| {
            Ev::new(S2H, "result", verdict, bytes)
                .method(&req.method)
                .target(req.target.as_deref())
                .id(&req.raw_id)
        };
        let result = map.get("result").unwrap_or(&Value::Null);
        if let Err(e) = methods::check_result(&req.method, result) {
            self.audit
                .record(
                    ev(Verdict::Block)
                        .reason("upstream_message_rejected")
                        .code(Code::MalformedMessage)
                        .0,
                )
                .await;
            self.answer_host(
                Some(&req.raw_id),
                codes::UPSTREAM_REJECTED,
                &format!("The server's answer was refused by mcp-bastion: {e}"),
                "upstream_message_rejected",
                json!({"finding": Code::MalformedMessage.as_str()}),
            )
            .await;
            return;
        }
        let (rewritten, verdict, findings, removed) = self.inspect(&req, result).await;
        if verdict == Verdict::Block {
            self.audit
                .record(
                    ev(Verdict::Block)
                        .reason("blocked_result")
                        .codes(&findings)
                        .0,
                )
                .await;
            self.answer_host(
                Some(&req.raw_id),
                codes::POLICY_REFUSED,
                &format!(
                    "mcp-bastion refused the server's {} result: it failed security checks",
                    req.method
                ),
                "blocked_result",
                Value::Null,
            )
            .await;
            return;
        }
        // Forward first; the instruction scan of result texts (audit only) and the
        // frame digest run afterwards, large frames on a blocking thread, so they stay off
        // the latency path.
        let (out, original) = match rewritten {
            Some(new) => {
                map.insert("result".into(), new);
                (serialize(&map), frame)
            }
            None if bytes > INLINE_AUDIT_BYTES => (frame.clone(), frame),
            None => (frame, Vec::new()),
        };
        let small = original.is_empty();
        let digest_now = small.then(|| hex::encode(Sha256::digest(&out)));
        self.to_host.send(out).await;
        let final_result = map.remove("result").unwrap_or(Value::Null);
        let method = req.method.clone();
        let opts = self.result_opts.clone();
        let deferred = move || {
            let found = if matches!(
                method.as_str(),
                "tools/call" | "resources/read" | "prompts/get"
            ) {
                bastion_core::result::injection_findings(&method, &final_result, &opts)
            } else {
                Vec::new()
            };
            let digest = digest_now.unwrap_or_else(|| hex::encode(Sha256::digest(&original)));
            (found, digest)
        };
        let (injection, digest) = if small {
            tokio::task::yield_now().await;
            deferred()
        } else {
            tokio::task::spawn_blocking(deferred)
                .await
                .unwrap_or_default()
        };
        let verdict = verdict.max(Verdict::from_findings(&injection, false));
        let findings: Vec<Finding> = findings.into_iter().chain(injection).collect();
        let reason = (verdict != Verdict::Allow).then(|| {
            findings
                .iter()
                .max_by_key(|f| f.severity)
                .map_or("sanitized", |f| f.code.as_str())
        });
        let mut e = ev(verdict).codes(&findings).removed(removed);
        e.0.digest = (!digest.is_empty()).then_some(digest);
        if let Some(r) = reason {
            e = e.reason(r);
        }
        self.audit.record(e.0).await;
    }

    /// Runs the method's inspection; returns `(rewritten result, verdict, findings,
    /// removed chars)`.
    async fn inspect(
        &self,
        req: &HostRequest,
        result: &Value,
    ) -> (Option<Value>, Verdict, Vec<Finding>, usize) {
        if let Some(shape) = lists::shape_of(&req.method) {
            let outcome: ListOutcome = lists::inspect_list(shape, result);
            let withheld: Vec<String> = outcome.withheld().map(str::to_owned).collect();
            {
                let mut st = self.state();
                let set = st.withheld.entry(shape.member).or_default();
                if !req.continuation {
                    set.clear();
                }
                set.extend(withheld.iter().cloned());
            }
            for item in outcome.items.iter().filter(|i| i.verdict >= Verdict::Flag) {
                let reason = if item.verdict == Verdict::Block {
                    Code::BlockedDescriptor.as_str()
                } else {
                    "flagged_descriptor"
                };
                self.audit
                    .record(
                        Ev::new(S2H, "descriptor", item.verdict, 0)
                            .method(&req.method)
                            .target(Some(&item.key))
                            .id(&req.raw_id)
                            .reason(reason)
                            .codes(&item.findings)
                            .0,
                    )
                    .await;
                if item.verdict == Verdict::Block {
                    let codes: Vec<&str> = item
                        .findings
                        .iter()
                        .filter(|f| f.severity >= bastion_core::Severity::High)
                        .map(|f| f.code.as_str())
                        .collect();
                    eprintln!(
                        "mcp-bastion[{}]: withheld {} {:?} ({})",
                        self.name,
                        shape.key,
                        item.key,
                        codes.join(", ")
                    );
                }
            }
            // Withholding items rewrites the list (sanitize); sorting alone does not.
            let verdict = match outcome.verdict() {
                Verdict::Block => Verdict::Sanitize,
                v => v,
            };
            let findings = outcome.items.into_iter().flat_map(|i| i.findings).collect();
            return (outcome.rewritten, verdict, findings, 0);
        }
        match req.method.as_str() {
            "initialize" | "server/discover" => {
                let o = lists::inspect_instructions(result);
                let verdict = if o.rewritten.is_some() {
                    Verdict::Sanitize
                } else {
                    Verdict::from_findings(&o.findings, false)
                };
                if o.rewritten.is_some() {
                    eprintln!(
                        "mcp-bastion[{}]: withheld the server's instructions (they failed security checks)",
                        self.name
                    );
                }
                (o.rewritten, verdict, o.findings, 0)
            }
            _ => {
                let o = inspect_result(&req.method, result, &self.result_opts);
                (o.rewritten, o.verdict, o.findings, o.removed_chars)
            }
        }
    }

    async fn server_error(&self, frame: Vec<u8>, mut map: Map<String, Value>, id: Option<&Id>) {
        let raw_id = map.get("id").cloned().unwrap_or(Value::Null);
        let req = id.and_then(|i| self.state().pending.take_host(i));
        if id.is_some() && req.is_none() {
            self.audit
                .record(
                    Ev::new(S2H, "error", Verdict::Block, frame.len())
                        .id(&raw_id)
                        .reason(Code::UnknownResponseId.as_str())
                        .0,
                )
                .await;
            return;
        }
        // Error texts reach the host too: no terminal sequences or hidden characters.
        let mut removed = 0;
        if let Some(Value::Object(err)) = map.get_mut("error")
            && let Some(Value::String(m)) = err.get_mut("message")
        {
            let clean = sanitize_text(m);
            if clean.removed > 0 {
                removed += clean.removed;
                *m = clean.text.into_owned();
            }
        }
        let out = if removed > 0 { serialize(&map) } else { frame };
        let verdict = if removed > 0 {
            Verdict::Sanitize
        } else {
            Verdict::Allow
        };
        let mut ev = Ev::new(S2H, "error", verdict, out.len())
            .removed(removed)
            .id(&raw_id);
        if let Some(r) = &req {
            ev = ev.method(&r.method).target(r.target.as_deref());
        }
        self.audit.record(ev.0).await;
        self.to_host.send(out).await;
    }

    async fn server_request(&self, frame: Vec<u8>, map: &Map<String, Value>, id: Id, method: &str) {
        let raw_id = map.get("id").cloned().unwrap_or(Value::Null);
        let ev = |v| {
            Ev::new(S2H, "request", v, frame.len())
                .method(method)
                .id(&raw_id)
        };
        let problem = match methods::check_request_params(method, map.get("params")) {
            Err(e) => Some((
                codes::INVALID_PARAMS,
                format!("Invalid params: {e}"),
                Code::MalformedMessage.as_str(),
            )),
            Ok(()) if !self.state().pending.add_server(id, method.to_owned()) => Some((
                codes::INVALID_REQUEST,
                "Invalid request: this id is already used by a request still pending".to_owned(),
                Code::DuplicateRequestId.as_str(),
            )),
            Ok(()) => None,
        };
        if let Some((code, message, reason)) = problem {
            self.audit.record(ev(Verdict::Block).reason(reason).0).await;
            let frame = envelope::error_response(
                Some(&raw_id),
                code,
                &message,
                self.data(reason, Value::Null),
            );
            self.to_server.send(frame).await;
            return;
        }
        self.audit.record(ev(Verdict::Allow).0).await;
        self.to_host.send(frame).await;
    }

    async fn server_notification(&self, frame: Vec<u8>, mut map: Map<String, Value>, method: &str) {
        // Notification texts (log messages, progress messages) reach the host as well.
        let mut removed = 0;
        if let Some(params) = map.get_mut("params") {
            removed = clean_strings(params);
        }
        if removed > 0 {
            self.audit
                .record(
                    Ev::new(S2H, "notification", Verdict::Sanitize, frame.len())
                        .method(method)
                        .removed(removed)
                        .code(Code::TerminalEscape)
                        .0,
                )
                .await;
            self.to_host.send(serialize(&map)).await;
        } else {
            self.to_host.send(frame).await;
        }
    }

    // ----- timers and shutdown ---------------------------------------------------------

    /// Answers host requests whose deadline passed with `request_timeout` and sends the
    /// server `notifications/cancelled` for each. Runs until the relay is dropped.
    pub(crate) async fn run_timers(&self) {
        loop {
            let next = self.state().pending.next_deadline();
            if let Some(t) = next {
                tokio::select! {
                    () = tokio::time::sleep_until(t) => {}
                    () = self.timer_wake.notified() => continue,
                }
            } else {
                self.timer_wake.notified().await;
                continue;
            }
            let expired = self.state().pending.expire(Instant::now());
            for req in expired {
                let ms = self.limits.timeout_for(&req.method);
                let message = format!(
                    "The server did not answer {} within {ms} ms; mcp-bastion cancelled the request",
                    req.method
                );
                self.fail_request(
                    &req,
                    codes::REQUEST_TIMEOUT,
                    &message,
                    "request_timeout",
                    json!({"timeout_ms": ms}),
                )
                .await;
                let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": req.raw_id, "reason": format!("mcp-bastion: no answer within {ms} ms")}});
                self.to_server
                    .send(serde_json::to_vec(&cancel).unwrap_or_default())
                    .await;
            }
        }
    }

    /// Answers every pending host request with `upstream_exited` (the server is gone).
    pub(crate) async fn fail_all_pending(&self) {
        let all = self.state().pending.drain_host();
        for req in all {
            let message = format!("The server exited before answering {}", req.method);
            self.fail_request(
                &req,
                codes::UPSTREAM_UNAVAILABLE,
                &message,
                "upstream_exited",
                Value::Null,
            )
            .await;
        }
    }

    /// Audits a host request the gateway answers itself and sends the host the error.
    async fn fail_request(
        &self,
        req: &HostRequest,
        code: i64,
        message: &str,
        reason: &str,
        extra: Value,
    ) {
        let ev = Ev::new("gateway", "request", Verdict::Block, 0)
            .method(&req.method)
            .target(req.target.as_deref())
            .id(&req.raw_id)
            .reason(reason);
        self.audit.record(ev.0).await;
        self.answer_host(Some(&req.raw_id), code, message, reason, extra)
            .await;
    }
}

/// Sanitizes every string inside `v` in place; returns how many characters went.
fn clean_strings(v: &mut Value) -> usize {
    match v {
        Value::String(s) => {
            let clean = sanitize_text(s);
            let n = clean.removed;
            if n > 0 {
                *s = clean.text.into_owned();
            }
            n
        }
        Value::Array(items) => items.iter_mut().map(clean_strings).sum(),
        Value::Object(map) => map.values_mut().map(clean_strings).sum(),
        _ => 0,
    }
}
