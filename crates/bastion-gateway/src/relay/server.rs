//! Server → host: refuse what fails the checks (answering the pending host request at
//! once), correlate answers, inspect them (instructions, results; descriptor lists and
//! their pins in `lists.rs`), clean every string, forward — then audit, with the slow
//! audit work off the latency path. Server requests and notifications: `server_requests.rs`.

use super::boundary::HeldAnswer;
use super::{Ev, INLINE_AUDIT_BYTES, Relay, S2H, serialize};
use crate::pending::HostRequest;
use bastion_core::envelope::{Id, Kind, codes};
use bastion_core::finding::{Code, Finding, Severity, Verdict};
use bastion_core::json::Member;
use bastion_core::json::{self, Recovered};
use bastion_core::lists;
use bastion_core::result::{injection_findings, inspect_result};
use bastion_core::sanitize::{sanitize_result, sanitize_value};
use bastion_core::{envelope, methods, schema};
use serde_json::{Map, Value, json};

/// What inspecting a result produced.
pub(super) struct Inspected {
    pub(super) rewritten: Option<Value>,
    pub(super) verdict: Verdict,
    pub(super) findings: Vec<Finding>,
    pub(super) removed: usize,
}

impl Relay {
    pub(crate) async fn on_server_frame(&self, frame: Vec<u8>) {
        let map = match json::parse_frame(&frame, self.limits.max_depth) {
            Ok(m) => m,
            Err(rej) => {
                let rec = Recovered {
                    id: rej.id.clone(),
                    method_seen: rej.method_seen,
                };
                self.server_rejected(rej.error.code(), &rej.error.to_string(), &rec, frame.len())
                    .await;
                return;
            }
        };
        let kind = match envelope::classify(&map) {
            Ok(k) => k,
            Err(e) => {
                let rec = Recovered {
                    id: map.member("id").cloned(),
                    method_seen: map.has_member("method"),
                };
                self.server_rejected(Code::InvalidEnvelope, &e.to_string(), &rec, frame.len())
                    .await;
                return;
            }
        };
        match kind {
            Kind::Result { id } => self.server_result(frame, map, &id).await,
            Kind::Error { id, .. } => self.server_error(frame, map, id.as_ref()).await,
            Kind::Request { id, method } => self.server_request(frame, map, id, &method).await,
            Kind::Notification { method } => self.server_notification(frame, map, &method).await,
        }
    }

    /// The server's answer (result or error) to the host request `raw_id` does not match
    /// the MCP schema: audited as `ev` with reason `upstream_message_rejected`, and the
    /// host gets that error instead.
    async fn refuse_malformed_answer(&self, ev: Ev, raw_id: &Value, e: &methods::StructureError) {
        let ev = ev
            .reason("upstream_message_rejected")
            .code(Code::MalformedMessage);
        self.audit.record(ev.0).await;
        let message = format!("The server's answer was refused by mcp-bastion: {e}");
        let extra = json!({"finding": Code::MalformedMessage.as_str()});
        self.answer_host(
            Some(raw_id),
            codes::UPSTREAM_REJECTED,
            &message,
            "upstream_message_rejected",
            extra,
        )
        .await;
    }

    /// A server frame failed the limits, the strict parse or the envelope checks: it is
    /// dropped. If it was an answer (no `method`), the request it answers — by recovered
    /// id, or the only one pending — gets an error at once; if it was a server request,
    /// the server gets the error.
    pub(crate) async fn server_rejected(
        &self,
        code: Code,
        detail: &str,
        rec: &Recovered,
        bytes: usize,
    ) {
        let recovered = rec.id.as_ref().and_then(Id::from_value);
        let req = if rec.method_seen {
            None
        } else {
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
        // Taken from the pending map: a panic below still answers it.
        let req = req.map(HeldAnswer::new);
        let mut ev = Ev::new(S2H, "unknown", Verdict::Block, bytes)
            .reason(code.as_str())
            .code(code);
        // Not charged to a request: folded past the rate, and said on stderr only with a
        // row of its own.
        let own_row = if let Some(req) = &req {
            ev = ev
                .method(&req.method)
                .target(req.target.as_deref())
                .id(&req.raw_id);
            self.audit.record(ev.0).await;
            true
        } else {
            self.record_unrequested(ev.0).await
        };
        if own_row {
            eprintln!(
                "mcp-bastion[{}]: dropped a server message of {bytes} bytes ({})",
                self.name,
                code.as_str()
            );
        }
        if let Some(req) = req.as_ref().filter(|r| r.own) {
            self.own_page_failed(req, code.as_str(), bytes).await;
        } else if let Some(req) = req {
            let message = format!(
                "The server's answer to {} was refused by mcp-bastion ({detail})",
                req.method
            );
            let extra = json!({"finding": code.as_str()});
            self.answer_host(
                Some(&req.raw_id),
                codes::UPSTREAM_REJECTED,
                &message,
                "upstream_message_rejected",
                extra,
            )
            .await;
        } else if rec.method_seen && recovered.is_some() {
            let message = format!("mcp-bastion refused the request ({detail})");
            self.answer_server(
                rec.id.as_ref(),
                codes::INVALID_REQUEST,
                &message,
                code.as_str(),
            )
            .await;
        }
    }

    async fn server_result(&self, frame: Vec<u8>, mut map: Map<String, Value>, id: &Id) {
        let raw_id = map.member("id").cloned().unwrap_or(Value::Null);
        let Some(req) = self.state().pending.take_host(id) else {
            let ev = Ev::new(S2H, "result", Verdict::Block, frame.len()).id(&raw_id);
            self.record_unrequested(ev.reason(Code::UnknownResponseId.as_str()).0)
                .await;
            return;
        };
        // Until the host has its answer, a panic below answers it (`boundary`).
        let mut req = HeldAnswer::new(req);
        if let Some(d) = &req.requirement {
            self.finish_retry(d);
        }
        let bytes = frame.len();
        let ev = |verdict| {
            Ev::new(S2H, "result", verdict, bytes)
                .method(&req.method)
                .target(req.target.as_deref())
                .id(&req.raw_id)
        };
        let result = map.remove("result").unwrap_or(Value::Null);
        if let Err(e) = methods::check_result(&req.method, &result) {
            if req.own {
                self.own_page_failed(&req, "upstream_message_rejected", bytes)
                    .await;
                return;
            }
            self.refuse_malformed_answer(ev(Verdict::Block), &req.raw_id, &e)
                .await;
            return;
        }
        // 2026-07-28: the server asks the host for input inside the result.
        let mut result = result;
        let mut input_rewritten = false;
        if result.member("resultType").and_then(Value::as_str) == Some("input_required")
            && result.member("inputRequests").is_some()
        {
            let request_params = params_of(req.frame.as_deref());
            match self.review_input_required(&result, request_params.as_ref()) {
                Ok(shown) => {
                    input_rewritten = shown != result;
                    result = shown;
                }
                Err(refused) => {
                    self.audit
                        .record(
                            ev(Verdict::Block)
                                .reason("elicitation_refused")
                                .codes(&refused)
                                .0,
                        )
                        .await;
                    let first = refused
                        .iter()
                        .max_by_key(|f| f.severity)
                        .map_or("policy_denied", |f| f.code.as_str());
                    let message = format!(
                        "The server asked for input that mcp-bastion refused ({first}); nothing was shown"
                    );
                    self.answer_host(
                        Some(&req.raw_id),
                        codes::POLICY_REFUSED,
                        &message,
                        "policy_denied",
                        json!({"finding": first}),
                    )
                    .await;
                    return;
                }
            }
        }
        let Inspected {
            rewritten,
            mut verdict,
            mut findings,
            mut removed,
        } = self.inspect(&req, &result).await;
        if req.own {
            self.own_page_answered(&req, &result, verdict, &findings, bytes)
                .await;
            return;
        }
        if verdict == Verdict::Block {
            self.audit
                .record(
                    ev(Verdict::Block)
                        .reason("blocked_result")
                        .codes(&findings)
                        .0,
                )
                .await;
            let message = format!(
                "mcp-bastion refused the server's {} result: it failed security checks",
                req.method
            );
            self.answer_host(
                Some(&req.raw_id),
                codes::POLICY_REFUSED,
                &message,
                "blocked_result",
                Value::Null,
            )
            .await;
            return;
        }
        // Every other string that reaches the host (serverInfo, _meta, URIs, completion
        // values, ...) is cleaned too.
        let mut changed = rewritten.is_some() || input_rewritten;
        let mut final_result = rewritten.unwrap_or(result);
        let cleaned = sanitize_result(&mut final_result);
        if cleaned.removed > 0 {
            removed += cleaned.removed;
            verdict = verdict.max(Verdict::Sanitize);
            for code in cleaned.codes {
                findings.push(Finding::new(
                    code,
                    Severity::Info,
                    "",
                    format!("removed characters of class {code}"),
                ));
            }
        }
        // A tool that declared an outputSchema must answer with conforming
        // structuredContent; anything else is replaced by an error result.
        if req.method == "tools/call"
            && let Some(mismatch) = self.check_output_schema(req.target.as_deref(), &final_result)
        {
            findings.extend(mismatch.iter().cloned());
            if mismatch
                .iter()
                .any(|f| f.code == Code::OutputSchemaMismatch)
            {
                final_result = schema::mismatch_result(&mismatch);
                verdict = Verdict::Block;
                changed = true;
            }
        }
        // A round of an approved call that the server asks for (its own `input_required`,
        // passed every check): the host gets a requestState only it can use for it (see
        // `server_asked_round`).
        if req.method == "tools/call"
            && final_result.member("resultType").and_then(Value::as_str) == Some("input_required")
            && let Some(state) = self.server_asked_round(
                params_of(req.frame.as_deref()).as_ref(),
                final_result.member("requestState"),
            )
            && let Some(obj) = final_result.as_object_mut()
        {
            obj.insert("requestState".into(), Value::String(state));
            changed = true;
        }
        // Publisher mode: the contract's cache hints (2026-07-28).
        if self.publish_hints(&req, &mut final_result) {
            changed = true;
        }
        // Forward first; the instruction scan of result texts (audit only) and the frame
        // digest run afterwards, large frames on a blocking thread.
        let mut out = if changed || cleaned.removed > 0 {
            map.insert("result".into(), final_result);
            let out = serialize(&map);
            final_result = map.remove("result").unwrap_or(Value::Null);
            out
        } else {
            frame
        };
        out.push(b'\n');
        let bytes = out.len();
        let out = std::sync::Arc::new(out);
        let base = ev(verdict).removed(removed).0;
        self.to_host.send_shared(out.clone()).await;
        req.paid();
        let method = req.method.clone();
        let opts = self.result_opts.clone();
        let deferred = move || {
            let injection = if matches!(method.as_str(), "tools/call" | "resources/read" | "prompts/get")
                // With `injection = "block"` the scan already ran before forwarding.
                && !opts.content.injection_blocks()
            {
                // Audit-only work after forwarding: a panic in it (a bug) is recorded as
                // such, and the event is kept.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    #[cfg(feature = "failpoints")]
                    fail::fail_point!("relay::injection_scan");
                    injection_findings(&method, &final_result, &opts)
                }))
                .unwrap_or_else(|_| {
                    vec![Finding::new(
                        Code::InspectionFailed,
                        Severity::Warn,
                        "",
                        "the instruction scan of this result failed inside mcp-bastion",
                    )]
                })
            } else {
                Vec::new()
            };
            // SHA-256 of the frame as forwarded (the original bytes when nothing was rewritten).
            let digest = bastion_core::pins::sha256_hex(&out[..out.len() - 1]);
            finish_event(base, verdict, findings, injection, digest)
        };
        // Small frames: the scan and digest run here (their trees are freed by the thread
        // that built them, which keeps the allocator's arenas small). Large frames: on the
        // audit worker thread while this reader goes on with the next frame.
        if bytes <= INLINE_AUDIT_BYTES {
            self.audit_inline(Box::new(deferred)).await;
        } else {
            let work: super::Work = Box::new(move || vec![deferred()]);
            for event in self.deferred.run(work, bytes).await.unwrap_or_default() {
                self.audit.record(event).await;
            }
        }
    }

    /// Findings of `result` against the outputSchema the server listed for `tool`
    /// (MCP 2025-11-25 "Tools §Output Schema"); `None` when the tool declared none. A
    /// schema Bastion refuses to compile (too large, remote `$ref`, unsafe pattern) gives a
    /// warning and is not used.
    fn check_output_schema(&self, tool: Option<&str>, result: &Value) -> Option<Vec<Finding>> {
        let tool = tool?;
        let (compiled, schema, era) = {
            let st = self.state();
            let era = st.era.unwrap_or(bastion_core::era::Era::Legacy);
            let slot = st.output_schemas.get(tool)?;
            match &slot.compiled {
                Some((at, compiled)) if *at == era => (Some(compiled.clone()), None, era),
                _ => (None, Some(slot.schema.clone()), era),
            }
        };
        let compiled = match (compiled, schema) {
            (Some(c), _) => c,
            (None, Some(schema)) => {
                let c = self.schemas.get_or_compile(tool, era, &schema);
                if let Some(slot) = self.state().output_schemas.get_mut(tool)
                    && slot.schema == schema
                {
                    slot.compiled = Some((era, c.clone()));
                }
                c
            }
            (None, None) => return None,
        };
        Some(match compiled {
            Ok(validator) => validator.check(result),
            Err(refusal) => vec![refusal.finding("/outputSchema")],
        })
    }

    /// Runs the method's inspection.
    async fn inspect(&self, req: &HostRequest, result: &Value) -> Inspected {
        if let Some(shape) = lists::shape_of(&req.method) {
            return self.inspect_list(req, shape, result).await;
        }
        match req.method.as_str() {
            "initialize" | "server/discover" => {
                let mut o = lists::inspect_instructions(result);
                let detected = o.rewritten.is_some();
                let had_instructions = result.member("instructions").is_some();
                if let Some(pinned) = self
                    .pin_instructions(req, o.rewritten.as_ref().unwrap_or(result))
                    .await
                {
                    o.rewritten = Some(pinned);
                }
                let withheld = o
                    .rewritten
                    .as_ref()
                    .is_some_and(|r| had_instructions && r.member("instructions").is_none());
                // Advertising `listChanged` for pinning (`pin_instructions`) rewrites the
                // result too, but removes nothing of the server's: that stays `allow`.
                let verdict = if detected || withheld {
                    Verdict::Sanitize
                } else {
                    Verdict::from_findings(&o.findings, false)
                };
                if detected || withheld {
                    eprintln!(
                        "mcp-bastion[{}]: withheld the server's instructions (they failed security checks)",
                        self.name
                    );
                }
                Inspected {
                    rewritten: o.rewritten,
                    verdict,
                    findings: o.findings,
                    removed: 0,
                }
            }
            _ => {
                #[cfg(feature = "failpoints")]
                fail::fail_point!("relay::inspect");
                let o = inspect_result(&req.method, result, &self.result_opts);
                Inspected {
                    rewritten: o.rewritten,
                    verdict: o.verdict,
                    findings: o.findings,
                    removed: o.removed_chars,
                }
            }
        }
    }

    async fn server_error(&self, frame: Vec<u8>, mut map: Map<String, Value>, id: Option<&Id>) {
        let raw_id = map.member("id").cloned().unwrap_or(Value::Null);
        let req = id
            .and_then(|i| self.state().pending.take_host(i))
            .map(HeldAnswer::new);
        if let Some(r) = &req
            && r.own
        {
            self.own_page_failed(r, "upstream_error", frame.len()).await;
            return;
        }
        // A null id answers no request. JSON-RPC 2.0 §5.1 allows it for the two errors
        // where the request's id could not be read (-32700, -32600), which are passed on
        // as the server's report; any other (a URL elicitation error, -32042, that no
        // request would have it reviewed) is dropped like an unknown id.
        let unreadable_request = matches!(
            map.member("error")
                .and_then(|e| e.member("code"))
                .and_then(Value::as_i64),
            Some(codes::PARSE_ERROR | codes::INVALID_REQUEST)
        );
        if req.is_none() && (id.is_some() || !unreadable_request) {
            let ev = Ev::new(S2H, "error", Verdict::Block, frame.len()).id(&raw_id);
            self.record_unrequested(ev.reason(Code::UnknownResponseId.as_str()).0)
                .await;
            return;
        }
        // Only Bastion's own errors carry its mark (`data.gateway`): a server's error
        // written to look like a refusal by the gateway loses it, before
        // a -32042 review may replace the error with Bastion's own (marked) refusal.
        let mut pump_error = false;
        let forged = if let Some(data) = self.pump_error_data(&mut map) {
            // The HTTP pump's own error (`wrap --url`): Bastion's, so marked as such (the
            // secret it carried never leaves: the frame is written anew).
            bastion_core::envelope::mark_data(data);
            pump_error = true;
            0
        } else {
            map.get_mut("error")
                .map_or(0, bastion_core::envelope::strip_gateway_mark)
        };
        let mut reviewed = false;
        if let Some(r) = &req {
            if let Some(d) = &r.requirement {
                self.finish_retry(d);
            }
            if let Err(e) = map
                .member("error")
                .map_or(Ok(()), |error| methods::check_error(&r.method, error))
            {
                let ev = Ev::new(S2H, "error", Verdict::Block, frame.len())
                    .method(&r.method)
                    .target(r.target.as_deref())
                    .id(&r.raw_id);
                self.refuse_malformed_answer(ev, &r.raw_id, &e).await;
                return;
            }
            if map
                .member("error")
                .and_then(|e| e.member("code"))
                .and_then(Value::as_i64)
                == Some(bastion_core::elicit::required::URL_ELICITATION_REQUIRED)
            {
                let error = map.member("error").cloned().unwrap_or(Value::Null);
                let shown = self
                    .review_required(&error, &r.method, params_of(r.frame.as_deref()).as_ref())
                    .await;
                reviewed = shown != error;
                map.insert("error".into(), shown);
            }
        }
        // Error texts reach the host too: message and data.
        let cleaned = map.get_mut("error").map(sanitize_value).unwrap_or_default();
        let out = if cleaned.removed > 0 || reviewed || forged > 0 || pump_error {
            serialize(&map)
        } else {
            frame
        };
        let verdict = if cleaned.removed > 0 || forged > 0 {
            Verdict::Sanitize
        } else {
            Verdict::Allow
        };
        let mut ev = Ev::new(S2H, "error", verdict, out.len())
            .removed(cleaned.removed)
            .id(&raw_id);
        for code in cleaned.codes {
            ev = ev.code(code).reason("sanitized");
        }
        if forged > 0 {
            ev = ev
                .code(Code::ForgedGatewayMark)
                .reason(Code::ForgedGatewayMark.as_str());
        }
        // A null-id error (-32700/-32600) answers no request: a flood of them is folded.
        let own_row = if let Some(r) = &req {
            ev = ev.method(&r.method).target(r.target.as_deref());
            self.audit.record(ev.0).await;
            true
        } else {
            self.record_unrequested(ev.0).await
        };
        if forged > 0 && own_row {
            eprintln!(
                "mcp-bastion[{}]: removed `data.gateway` from a server error: only mcp-bastion's own refusals carry it",
                self.name
            );
        }
        self.to_host.send(out).await;
    }

    /// The `data` of an error the HTTP pump wrote itself (`wrap --url`): its
    /// `data.gateway` is this session's secret mark (see `Relay::with_http_upstream`),
    /// which no server can know. `None` for every other error.
    fn pump_error_data<'m>(&self, map: &'m mut Map<String, Value>) -> Option<&'m mut Value> {
        let mark = self.upstream_mark.as_deref()?;
        let data = map.get_mut("error")?.get_mut("data")?;
        let own = data
            .get(bastion_core::envelope::GATEWAY_MARK_MEMBER)?
            .as_str()
            == Some(mark);
        own.then_some(data)
    }
}

/// The `params` of a kept request frame.
fn params_of(frame: Option<&[u8]>) -> Option<Value> {
    let mut map = json::parse_frame(frame?, bastion_core::Limits::default().max_depth).ok()?;
    map.remove("params")
}

/// Completes the audit event of a result once the deferred work is done.
fn finish_event(
    mut event: bastion_store::AuditEvent,
    verdict: Verdict,
    mut findings: Vec<Finding>,
    injection: Vec<Finding>,
    digest: String,
) -> bastion_store::AuditEvent {
    let verdict = verdict.max(Verdict::from_findings(&injection, false));
    findings.extend(injection);
    event.verdict = verdict.as_str().into();
    for f in &findings {
        let code = f.code.as_str().to_owned();
        if !event.codes.contains(&code) {
            event.codes.push(code);
        }
    }
    if verdict != Verdict::Allow {
        let reason = findings
            .iter()
            .max_by_key(|f| f.severity)
            .map_or("sanitized", |f| f.code.as_str());
        event.reason = Some(reason.into());
    }
    event.digest = (!digest.is_empty()).then_some(digest);
    event
}
