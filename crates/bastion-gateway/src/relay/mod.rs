//! Per-message handling in both directions: strict parse, classify, correlate, inspect
//! (all decisions by `bastion-core`), then forward, rewrite, refuse or drop — and audit.
//!
//! [`host`] handles what the host sends, [`server`] what the server sends, [`timers`]
//! deadlines and shutdown. Shared here: the session state, the audit event builder and
//! the refusal helpers.

mod approve;
mod approve_record;
mod approve_stateless;
mod boundary;
mod contract;
mod deferred;
mod elicit;
mod elicit_required;
mod host;
mod http_headers;
mod lists;
mod own_list;
mod publish;
mod refusals;
mod server;
mod server_requests;
mod timers;

pub(crate) use approve::OWN_ID_PREFIX;
use bastion_core::json::Member;
pub(crate) use boundary::{
    HOST_TO_SERVER, INSPECTION_FAILED, REASON as INSPECTION_FAILED_REASON, SERVER_TO_HOST,
};
use deferred::{Deferred, INLINE_AUDIT_BYTES, Job, Work};
pub use elicit::ElicitSetup;
pub use publish::PublishSetup;

use crate::audit::AuditSink;
use crate::io::{Outbox, Sent};
use crate::pending::Pending;
use bastion_core::envelope;
use bastion_core::era::Era;
use bastion_core::finding::{Code, Finding, Verdict};
use bastion_core::result::ResultOptions;
use bastion_core::{Limits, uri};
use bastion_store::AuditEvent;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Host requests that may be pending at once; more are refused (`too_many_pending`).
const MAX_PENDING: usize = 65_536;
/// Longest request id accepted, bytes of its JSON text. Ids are echoed and kept while
/// pending, so an unbounded id is unbounded memory.
pub(crate) const MAX_ID_BYTES: usize = 1024;

const H2S: &str = "host_to_server";
const S2H: &str = "server_to_host";
/// Reason of a descriptor withheld, and its calls refused, because its pin could not be
/// read or written.
const PIN_STORE_UNAVAILABLE: &str = "pin_store_unavailable";

/// Mutable session state, behind a mutex never held across an await.
#[derive(Debug, Default)]
struct State {
    pending: Pending,
    /// Withheld descriptor keys per list member (`tools`, `prompts`, `resources`), for
    /// the whole session: a server cannot un-withhold an item by dropping it from a later
    /// listing. Resource keys are [`uri::resource_key`]s.
    withheld: HashMap<&'static str, HashSet<String>>,
    /// Literal prefixes of withheld resource templates ([`uri::template_prefix`]).
    withheld_templates: Vec<String>,
    /// The era the host speaks, once known.
    era: Option<Era>,
    /// outputSchema of each listed tool (not withheld), by name, with its compiled
    /// validator once a call needed it.
    output_schemas: HashMap<String, SchemaSlot>,
    /// Keys withheld until a user reviews them (pinning), per list member; resource keys
    /// are [`uri::resource_key`]s.
    pending_review: HashMap<&'static str, HashSet<String>>,
    /// The keys of [`State::pending_review`] withheld because the pin store could not be
    /// read or written (locked, read-only, disk full), not for a change: refused as
    /// `pin_store_unavailable` so the user is sent to the store, not to `pins list`.
    pin_unavailable: HashMap<&'static str, HashSet<String>>,
    /// `true` when the host speaks the legacy era and so may be sent
    /// `notifications/*/list_changed` after an approval.
    notify_list_changed: bool,
    /// Keys shown in the last listing, per list member (raw keys).
    shown: HashMap<&'static str, HashSet<String>>,
    /// Tool descriptors shown to the host in the last listing, by name: what a call is
    /// confirmed against (they passed pinning, so they are the pinned versions).
    tools: HashMap<String, Arc<Value>>,
    /// Pin hashes of those descriptors (RFC 8785 SHA-256), computed on first use.
    tool_pins: HashMap<String, String>,
    /// What the policy decision reads from those descriptors alone, computed on a tool's
    /// first call (per listing).
    tool_facts: HashMap<String, Arc<bastion_core::confirm::ToolFacts>>,
    /// The host declared form-mode elicitation in `initialize` (legacy era).
    host_elicitation: bool,
    /// Bastion's own requests to the host awaiting an answer, by id.
    own_requests: HashMap<String, tokio::sync::oneshot::Sender<Value>>,
    /// Bastion's own `tools/list` pages awaiting the server's answer, by id: the
    /// waiter gets the page's `nextCursor` (`None` on the last page); a dropped sender
    /// means the listing failed (error, timeout, server gone).
    own_lists: HashMap<String, tokio::sync::oneshot::Sender<Option<String>>>,
    /// Host `tools/call` ids held while a human is asked.
    held: HashSet<bastion_core::envelope::Id>,
    /// Calls a human approved, by digest: each later round the server asked for (its
    /// own `input_required`, and the `requestState` it issued) runs once without a
    /// second question (`approve_stateless`).
    approved_rounds: HashMap<String, approve_stateless::ApprovedRound>,
    /// Held calls the host cancelled meanwhile: dropped when their approval ends.
    cancelled: HashSet<bastion_core::envelope::Id>,
    /// The elicitation modes the host declared in `initialize`; `None` before it.
    host_modes: Option<bastion_core::elicit::DeclaredModes>,
    /// Forwarded server `elicitation/create` requests awaiting the host's answer, by id.
    asked: HashMap<String, elicit::Asked>,
    /// Forms of servers' stateless-era `input_required` results, by `requestState`: the
    /// retry's `inputResponses` are validated against them.
    /// Entries expire with the URL flow TTL (unix ms).
    stateless_forms: HashMap<String, (u64, Vec<(String, bastion_core::elicit::FormSchema)>)>,
    /// -32042 requirements by the digest of their original request.
    requirements: HashMap<String, bastion_core::elicit::required::Requirement>,
    /// URL elicitation flows of this session, by `elicitationId`.
    flows: HashMap<String, bastion_core::elicit::flow::UrlFlow>,
    /// Stateless-era approvals awaiting the host's retry: pending id → expiry (unix ms).
    stateless_pending: HashMap<String, u64>,
    /// Calls forwarded in this session, oldest first (toxic-flow signals); decisions read
    /// the newest 64, and up to 15 older ones wait to be dropped together.
    /// Shared so a decision reads a snapshot without copying it; a push copies only while
    /// a snapshot is alive.
    history: Arc<Vec<bastion_core::confirm::HistoryEntry>>,
    /// The signed contract the listings must match (`wrap --contract`).
    contract: Option<contract::ContractGuard>,
}

/// A listed tool's outputSchema and, after the first call that needed it, the compiled
/// validator (or the refusal) for the era it was compiled under. Calls reuse it without
/// hashing or cloning the schema again.
#[derive(Debug)]
struct SchemaSlot {
    schema: Value,
    compiled: Option<(Era, CompiledSchema)>,
}

/// A compiled outputSchema, or why it cannot be used.
type CompiledSchema =
    Result<Arc<bastion_core::schema::OutputValidator>, bastion_core::schema::Refusal>;

impl State {
    /// Why `target` of `method` is refused, if it is: `blocked_descriptor` (the detectors
    /// withheld it), `contract_mismatch` (outside the enforced contract) or `pending_review` (it changed since it was pinned, is new under
    /// `strict` pinning, or was revoked).
    fn withheld_reason(&self, method: &str, target: &str) -> Option<&'static str> {
        let list = guarded_list(method)?;
        if list != "resources" {
            return self.withheld_key(list, target, Some(target));
        }
        // A resource URI with an encoded `/` or `\` in its path has a second identity
        // (the servers that decode it): refused when withheld or pending under either.
        // The contract is an allow-list of the URIs as listed, so only the first
        // identity is looked up there (`repo://octo/hello%2Fx` listed is readable).
        self.withheld_key(list, &uri::resource_key(target), Some(target))
            .or_else(|| {
                uri::separator_decoded_key(target)
                    .and_then(|key| self.withheld_key(list, &key, None))
            })
    }

    /// [`State::withheld_reason`] for the key `key` of a target in list `list`; the
    /// contract is consulted when `target` (the target as sent) is given.
    fn withheld_key(&self, list: &str, key: &str, target: Option<&str>) -> Option<&'static str> {
        let in_template = |prefixes: &[String]| {
            list == "resources"
                && prefixes
                    .iter()
                    .any(|p| !p.is_empty() && key.starts_with(p.as_str()))
        };
        if self.withheld.get(list).is_some_and(|w| w.contains(key))
            || in_template(&self.withheld_templates)
        {
            return Some("blocked_descriptor");
        }
        if let Some(target) = target
            && self.contract_refuses(list, key, target)
        {
            return Some(contract::CONTRACT_MISMATCH);
        }
        if self
            .pending_review
            .get(list)
            .is_some_and(|w| w.contains(key))
        {
            if self
                .pin_unavailable
                .get(list)
                .is_some_and(|w| w.contains(key))
            {
                return Some(PIN_STORE_UNAVAILABLE);
            }
            return Some("pending_review");
        }
        None
    }
}

/// The relay of one wrapped server.
pub(crate) struct Relay {
    name: String,
    limits: Limits,
    /// Result options with `scan_injection` off: the relay runs that scan after forwarding.
    result_opts: Arc<ResultOptions>,
    state: Mutex<State>,
    pub(crate) to_host: Outbox,
    pub(crate) to_server: Outbox,
    audit: AuditSink,
    timer_wake: Notify,
    /// Set while the server is not reading its input (a send to it timed out); cleared by
    /// the next send that gets through. While set, host frames are refused at once.
    server_stalled: AtomicBool,
    /// Audit work of large results, done on one worker thread off the relay thread.
    deferred: Deferred,
    /// Audit work of small results, run once the reader has no frame left to handle
    /// (after the writers had their turn): the answer reaches the host before it.
    inline_jobs: Mutex<Vec<Job>>,
    /// The events of server messages that answer no request, folded past a rate
    /// (`refusals.rs`).
    refusals: refusals::Refusals,
    /// Compiled outputSchemas, by tool and schema hash.
    schemas: bastion_core::schema::OutputSchemaCache,
    /// Descriptor pinning, when a store is configured.
    pinning: Option<Arc<crate::pinning::Pinning>>,
    /// Tool-call confirmation, when configured.
    confirm: Option<crate::confirm::ConfirmSetup>,
    /// Sequence of Bastion's own requests to the host.
    own_seq: std::sync::atomic::AtomicU64,
    /// Per-process unpredictable part of those ids.
    own_nonce: u64,
    /// Bastion's own listings: one at a time, and the number completed (see
    /// `own_list`).
    own_listing: own_list::OwnListing,
    /// HMAC key of the `requestState` tokens of stateless-era approvals (random per
    /// gateway process: a token outlives neither the process nor its TTL).
    state_key: bastion_core::confirm::StateKey,
    /// Elicitation mediation (URL gate policy, consent ledger store).
    elicit: ElicitSetup,
    /// This gateway session's id (one `wrap` run), for flows and the consent ledger.
    session: String,
    /// Publisher mode (`mcp-bastion publish`): cache hints, `list_changed` gate.
    publish: Option<PublishSetup>,
    /// The server is remote over Streamable HTTP (`wrap --url`): tools with invalid
    /// `x-mcp-header` declarations are withheld (MCP 2026-07-28, SEP-2243).
    http_upstream: bool,
    /// The HTTP pump's secret mark of its own errors (`with_http_upstream`).
    upstream_mark: Option<String>,
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
    /// The method, at most [`MAX_METHOD_BYTES`] ([`shown_method`]).
    fn method(mut self, m: &str) -> Self {
        self.0.method = Some(shown_method(m).into_owned());
        self
    }
    fn target(mut self, t: Option<&str>) -> Self {
        self.0.tool = t.map(str::to_owned);
        self
    }
    /// The request id as JSON text, at most [`MAX_ID_BYTES`] (longer ids are refused
    /// before they are audited in full).
    fn id(mut self, id: &Value) -> Self {
        self.0.request_id = Some(cut_text(id.to_string(), MAX_ID_BYTES));
        self
    }
    fn reason(mut self, r: &str) -> Self {
        self.0.reason = Some(r.into());
        self
    }
    fn codes(mut self, findings: &[Finding]) -> Self {
        for f in findings {
            self = self.code(f.code);
        }
        self
    }
    fn code(mut self, c: Code) -> Self {
        let c = c.as_str().to_owned();
        if !self.0.codes.contains(&c) {
            self.0.codes.push(c);
        }
        self
    }
    fn removed(mut self, n: usize) -> Self {
        self.0.removed_chars = i64::try_from(n).unwrap_or(i64::MAX);
        self
    }
}

/// What a request targets, as the audit log records it: the tool or prompt name, or the
/// resource URI without query, fragment or user information ([`uri::redacted`]).
fn target_of(method: &str, params: Option<&Value>) -> Option<String> {
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return None,
    };
    params
        .and_then(|p| p.member(field))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The target as written to the audit log.
fn audit_target(method: &str, target: Option<&str>) -> Option<String> {
    target.map(|t| {
        if method.starts_with("resources/") {
            uri::redacted(t)
        } else {
            t.to_owned()
        }
    })
}

/// A listed key as the withheld sets of list `member` hold it: resources as
/// [`uri::resource_key`]s, other keys as they are.
fn guarded_key(member: &str, key: &str) -> String {
    if member == "resources" {
        uri::resource_key(key)
    } else {
        key.to_owned()
    }
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

/// 32 random bytes from the OS as a `requestState` key (see [`crate::os_random`]).
fn random_state_key() -> bastion_core::confirm::StateKey {
    bastion_core::confirm::StateKey::new(&crate::os_random::<32>())
        .unwrap_or_else(|_| unreachable!("32 bytes is the minimum key length"))
}

/// Bytes of a method name Bastion writes to its audit rows and stderr: a server may send
/// any string as a method, up to the frame limit (4 MiB), and a refused one is still
/// recorded. MCP's longest method names are under 50 bytes.
const MAX_METHOD_BYTES: usize = 256;

/// `method` as audited and printed: cut to [`MAX_METHOD_BYTES`] on a character boundary,
/// ending with `…` when cut.
pub(super) fn shown_method(method: &str) -> std::borrow::Cow<'_, str> {
    if method.len() <= MAX_METHOD_BYTES {
        return std::borrow::Cow::Borrowed(method);
    }
    std::borrow::Cow::Owned(cut_text(method.to_owned(), MAX_METHOD_BYTES))
}

/// `text` cut to at most `max` bytes on a character boundary, `…` appended when cut.
fn cut_text(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut cut = max;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

fn serialize(map: &Map<String, Value>) -> Vec<u8> {
    serde_json::to_vec(map).unwrap_or_default()
}

impl Relay {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        name: String,
        limits: Limits,
        result_opts: ResultOptions,
        to_host: Outbox,
        to_server: Outbox,
        audit: AuditSink,
        pinning: Option<Arc<crate::pinning::Pinning>>,
        confirm: Option<crate::confirm::ConfirmSetup>,
        elicit: ElicitSetup,
    ) -> Self {
        use std::hash::{BuildHasher, Hasher};
        // RandomState is seeded from the OS: enough to keep ids unguessable.
        let own_nonce = {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(crate::now_ms().unsigned_abs());
            h.finish()
        };
        Self {
            name,
            limits,
            result_opts: Arc::new(ResultOptions {
                scan_injection: false,
                ..result_opts
            }),
            state: Mutex::new(State::default()),
            to_host,
            to_server,
            timer_wake: Notify::new(),
            server_stalled: AtomicBool::new(false),
            deferred: Deferred::start(audit.clone()),
            inline_jobs: Mutex::new(Vec::new()),
            refusals: refusals::Refusals::default(),
            schemas: bastion_core::schema::OutputSchemaCache::default(),
            pinning,
            audit,
            confirm,
            own_seq: std::sync::atomic::AtomicU64::new(0),
            own_nonce,
            own_listing: own_list::OwnListing::default(),
            state_key: random_state_key(),
            elicit,
            session: format!("{own_nonce:016x}-{}", crate::now_ms()),
            publish: None,
            http_upstream: false,
            upstream_mark: None,
        }
    }

    /// Enforces `index` on every listing and call (`wrap --contract`).
    pub(crate) fn with_contract(
        self,
        index: Option<Arc<bastion_core::publish::ContractIndex>>,
    ) -> Self {
        self.state().contract = index.map(contract::ContractGuard::new);
        self
    }

    /// Publisher mode (`mcp-bastion publish`).
    pub(crate) fn with_publish(mut self, publish: Option<PublishSetup>) -> Self {
        self.publish = publish;
        self
    }

    /// The server is reached over Streamable HTTP (`wrap --url`) when `own_mark` is
    /// given: the HTTP pump's own errors carry it as `data.gateway`, which
    /// `server_error` turns into Bastion's mark instead of stripping it as forged.
    pub(crate) fn with_http_upstream(mut self, own_mark: Option<String>) -> Self {
        self.http_upstream = own_mark.is_some();
        self.upstream_mark = own_mark;
        self
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated in a way
        // that matters more than stopping; recover the data.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `data` of a refusal: `{"reason", "server", ...extra}` (DESIGN §4).
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
        // The answer takes the outbox's separate share first, so the task reading the
        // host does not wait behind server output the host has not read yet; only when
        // 64 KiB of answers are unread too does it wait (the host is owed this answer).
        if let Err((frame, Sent::Full)) = self.to_host.try_send_reply(frame) {
            self.to_host.send(frame).await;
        }
    }

    /// Forwards `frame` to the server, waiting at most `wait` (nothing while the server is
    /// known to be stalled).
    async fn forward_to_server(&self, frame: Vec<u8>, wait: std::time::Duration) -> Sent {
        let wait = if self.server_stalled.load(Ordering::Relaxed) {
            std::time::Duration::ZERO
        } else {
            wait
        };
        let sent = self.to_server.send_within(frame, wait).await;
        self.server_stalled
            .store(sent == Sent::Full, Ordering::Relaxed);
        sent
    }

    /// Answers the server with a JSON-RPC error, never waiting for room: the callers read
    /// one of the two pipes, and waiting on the server's input while it waits on its
    /// output would hold both ([`Outbox::try_send_reply`]).
    async fn answer_server(&self, id: Option<&Value>, code: i64, message: &str, reason: &str) {
        let frame = envelope::error_response(id, code, message, self.data(reason, Value::Null));
        self.reply_to_server(frame, id).await;
    }

    /// Queues one of Bastion's own answers to the server without waiting. When the server
    /// has left the answers' share and the main queue full (it is not reading), the answer
    /// is dropped and audited (`upstream_not_reading`, its id and size), and the server is
    /// treated as stalled (reported on stderr once per stall); when the server's input is
    /// closed, it is audited as `upstream_exited`.
    async fn reply_to_server(&self, frame: Vec<u8>, id: Option<&Value>) {
        let bytes = frame.len();
        let why = match self.to_server.try_send_reply(frame) {
            Ok(()) => {
                self.server_stalled.store(false, Ordering::Relaxed);
                return;
            }
            Err((_, why)) => why,
        };
        let reason = if why == Sent::Closed {
            "upstream_exited"
        } else {
            "upstream_not_reading"
        };
        let mut ev = Ev::new(H2S, "error", Verdict::Block, bytes).reason(reason);
        if let Some(id) = id {
            ev = ev.id(id);
        }
        self.record_unrequested(ev.0).await;
        if why == Sent::Full && !self.server_stalled.swap(true, Ordering::Relaxed) {
            eprintln!(
                "mcp-bastion[{}]: the server is not reading its input; error answers to it are dropped (and audited) until it reads again",
                self.name
            );
        }
    }
}
