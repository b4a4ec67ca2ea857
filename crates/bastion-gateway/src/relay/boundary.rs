//! The panic boundary: a bug in a check must not pass a message unchecked, leave a
//! request without its answer, or stop the gateway.
//!
//! Each frame is handled inside [`Relay::contain`] (and so is each task a frame's handler
//! spawns: [`Relay::spawn_contained`]), which catches a panic (unwinding) of the handler.
//! While a handler holds an obligation (a host request it has not yet forwarded or
//! refused, a server answer it has taken from the pending map, a listing under review,
//! ...), it keeps it in an [`Owe`] guard; a guard dropped by the unwinding files the
//! obligation with its boundary (a task-local list, so concurrent handlers never mix
//! theirs), and the boundary pays it: the side that waits gets a JSON-RPC error with
//! reason `inspection_failed` (code [`INSPECTION_FAILED`]), a listing's items are withheld
//! for the session, and the audit records the frame's direction, size, method and id
//! (never its content). The message itself is dropped: nothing that was being checked is
//! forwarded.

use super::{Ev, H2S, Relay, State, guarded_key};
use crate::pending::HostRequest;
use bastion_core::envelope::{Id, codes};
use bastion_core::finding::{Code, Verdict};
use bastion_core::uri;
use futures_util::FutureExt;
use serde_json::Value;
use std::cell::RefCell;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// JSON-RPC error code of a refusal because a check failed inside Bastion (reason
/// `inspection_failed`), in the implementation-defined range -32099..-32000 (DESIGN §4);
/// not reserved by MCP in either era.
pub(crate) const INSPECTION_FAILED: i64 = -32055;

/// Reason of such a refusal, in `error.data.reason` and in the audit.
pub(crate) const REASON: &str = "inspection_failed";

tokio::task_local! {
    /// Debts filed by guards dropped in a panic, for the innermost [`Relay::contain`].
    static OWED: RefCell<Vec<Debt>>;
}

/// An obligation a handler holds; see [`Owe`].
pub(super) enum Debt {
    /// The host's request `id`, not yet forwarded or refused: the host is answered.
    /// Once `registered` (this handler put it in the held set or the pending map), it is
    /// answered only if it is still held, and left alone when it is pending at the server
    /// (its answer or its timeout follows); before, the maps are not touched (an entry
    /// with this id there belongs to an earlier request).
    HostRequest {
        id: Id,
        raw_id: Value,
        method: String,
        registered: bool,
    },
    /// The host request whose answer (a result or error from the server) is being
    /// checked, taken from the pending map: the host is answered.
    HostAnswer(HostRequest),
    /// The server's request `id`, not yet forwarded to the host or refused: the server is
    /// answered (and, once `registered` in the pending map, the entry removed).
    ServerRequest {
        id: Id,
        raw_id: Value,
        method: String,
        registered: bool,
    },
    /// The server request whose answer from the host is being checked, taken from the
    /// pending map: the server is answered.
    ServerAnswer { raw_id: Value, method: String },
    /// A listing's items (keys of list member `member`) whose review had not finished:
    /// withheld for the session, as if a detector had blocked them.
    Listing {
        member: &'static str,
        keys: Vec<String>,
    },
    /// The message of `method` had already been passed on when the panic came (audit
    /// work after forwarding): nothing is owed, but the audit says so.
    Passed { method: String, raw_id: Value },
}

impl Debt {
    /// The method and raw id of the exchange the debt belongs to (`None` for a listing).
    fn exchange(&self) -> Option<(&str, &Value)> {
        match self {
            Self::HostRequest { method, raw_id, .. }
            | Self::ServerRequest { method, raw_id, .. }
            | Self::ServerAnswer { method, raw_id }
            | Self::Passed { method, raw_id } => Some((method, raw_id)),
            Self::HostAnswer(req) => Some((&req.method, &req.raw_id)),
            Self::Listing { .. } => None,
        }
    }
}

/// Holds a [`Debt`] while a handler works on it. Dropped normally (the handler answered,
/// forwarded or refused) it does nothing; dropped by a panic's unwinding it files the
/// debt with the innermost [`Relay::contain`]. After [`Owe::paid`] (the message has
/// left) a panic files only a [`Debt::Passed`] note.
pub(super) struct Owe {
    debt: Option<Debt>,
    settled: bool,
}

impl Owe {
    pub(super) fn new(debt: Debt) -> Self {
        Self {
            debt: Some(debt),
            settled: false,
        }
    }

    /// The debt is settled: the message was forwarded or answered.
    pub(super) fn paid(&mut self) {
        self.settled = true;
    }

    /// The request is now in the held set or the pending map, put there by this handler.
    pub(super) fn registered(&mut self) {
        if let Some(Debt::HostRequest { registered, .. } | Debt::ServerRequest { registered, .. }) =
            &mut self.debt
        {
            *registered = true;
        }
    }
}

impl Drop for Owe {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        let Some(debt) = self.debt.take() else {
            return;
        };
        let filed = if self.settled {
            let Some((method, raw_id)) = debt.exchange() else {
                return;
            };
            Debt::Passed {
                method: method.to_owned(),
                raw_id: raw_id.clone(),
            }
        } else {
            debt
        };
        // Outside any boundary (cannot happen for the relay's own tasks) there is no one
        // to pay it.
        let _ = OWED.try_with(|owed| owed.borrow_mut().push(filed));
    }
}

/// The host request a server answer is being checked for, owed an answer until the
/// check is done: dereferences to the [`HostRequest`].
pub(super) struct HeldAnswer(Owe);

impl HeldAnswer {
    pub(super) fn new(req: HostRequest) -> Self {
        Self(Owe::new(Debt::HostAnswer(req)))
    }

    /// The host got its answer (forwarded or refused).
    pub(super) fn paid(&mut self) {
        self.0.paid();
    }
}

impl std::ops::Deref for HeldAnswer {
    type Target = HostRequest;

    fn deref(&self) -> &HostRequest {
        match &self.0.debt {
            Some(Debt::HostAnswer(req)) => req,
            // Built with a `HostAnswer`, taken only by `drop`.
            _ => unreachable!("a held answer holds its request until dropped"),
        }
    }
}

/// Withholds `keys` of list member `member` for the session (resources by
/// [`uri::resource_key`], templates by their literal prefix).
pub(super) fn withhold(st: &mut State, member: &str, keys: impl IntoIterator<Item = String>) {
    for key in keys {
        match member {
            "resourceTemplates" => {
                let prefix = uri::template_prefix(&key);
                if !st.withheld_templates.contains(&prefix) {
                    st.withheld_templates.push(prefix);
                }
            }
            "resources" => {
                st.withheld
                    .entry("resources")
                    .or_default()
                    .insert(guarded_key("resources", &key));
            }
            "tools" => {
                st.tools.remove(&key);
                st.tool_pins.remove(&key);
                st.tool_facts.remove(&key);
                st.output_schemas.remove(&key);
                st.withheld.entry("tools").or_default().insert(key);
            }
            "prompts" => {
                st.withheld.entry("prompts").or_default().insert(key);
            }
            _ => {}
        }
    }
}

/// The `direction` of [`Relay::contain`] for work of the gateway's own (answering a request
/// whose deadline passed), as in its audit events.
pub(super) const GATEWAY: &str = "gateway";

impl Relay {
    /// Runs `handling` (the handling of one `bytes`-long frame that came from
    /// `direction`, [`H2S`] or [`super::S2H`], a task it spawned, or [`GATEWAY`] work); a panic inside it is
    /// caught here, the debts its guards filed are paid, and an audit event with reason
    /// `inspection_failed` records the frame's size (and method and id when a debt names
    /// them). Returns `false` when the handling panicked.
    pub(crate) async fn contain<F: Future<Output = ()>>(
        &self,
        direction: &'static str,
        bytes: usize,
        handling: F,
    ) -> bool {
        let (panicked, debts) = OWED
            .scope(RefCell::new(Vec::new()), async {
                let panicked = AssertUnwindSafe(handling).catch_unwind().await.is_err();
                let debts = OWED.with(|owed| std::mem::take(&mut *owed.borrow_mut()));
                (panicked, debts)
            })
            .await;
        if !panicked {
            return true;
        }
        // The report is its own boxed future: inline, its state (the audit event, the
        // message) made every frame's handling future kilobytes larger, and those bytes
        // were copied each time a frame's handling started.
        Box::pin(self.report_panic(direction, bytes, debts)).await;
        false
    }

    /// The audit event, the message on stderr and the paid debts of a handling that
    /// panicked inside [`Relay::contain`].
    async fn report_panic(&self, direction: &'static str, bytes: usize, debts: Vec<Debt>) {
        let passed = debts.iter().any(|d| matches!(d, Debt::Passed { .. }));
        let verdict = if passed {
            Verdict::Flag
        } else {
            Verdict::Block
        };
        let mut ev = Ev::new(direction, "unknown", verdict, bytes)
            .reason(REASON)
            .code(Code::InspectionFailed);
        if let Some((d, (method, raw_id))) = debts.iter().find_map(|d| Some((d, d.exchange()?))) {
            ev = ev.method(method).id(raw_id);
            if let Debt::HostAnswer(req) = d {
                ev = ev.target(req.target.as_deref());
            }
        }
        self.audit.record(ev.0).await;
        let subject = match direction {
            H2S => {
                format!("a check failed inside mcp-bastion on a client message of {bytes} bytes")
            }
            GATEWAY => "mcp-bastion failed while answering a request itself (a timeout)".to_owned(),
            _ => format!("a check failed inside mcp-bastion on a server message of {bytes} bytes"),
        };
        let what = if passed {
            "after it was passed on; its audit record is incomplete"
        } else if direction == GATEWAY {
            "the request was answered with that reason instead"
        } else {
            "the message was refused, not passed on"
        };
        eprintln!(
            "mcp-bastion[{}]: {subject}; {what} ({REASON}). This is a bug: please report it with the location printed above.",
            self.name
        );
        for debt in debts {
            self.pay(debt).await;
        }
    }

    /// Spawns `task` (work a handler of a host request hands off, e.g. an approval) behind
    /// a boundary of its own, owing `debt` until it ends.
    pub(super) fn spawn_contained<F, Fut>(self: &Arc<Self>, bytes: usize, debt: Debt, task: F)
    where
        F: FnOnce(Arc<Self>) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let relay = self.clone();
        tokio::spawn(async move {
            let boundary = relay.clone();
            let handling = async move {
                let _owe = Owe::new(debt);
                task(relay).await;
            };
            boundary.contain(H2S, bytes, handling).await;
        });
    }

    async fn pay(&self, debt: Debt) {
        match debt {
            Debt::HostRequest {
                id,
                raw_id,
                method,
                registered,
            } => {
                // A held call the host cancelled is owed nothing (MCP "Cancellation").
                let owed = !registered || {
                    let mut st = self.state();
                    let cancelled = st.cancelled.remove(&id);
                    st.held.remove(&id) && !cancelled
                };
                if owed {
                    self.refuse_host(&raw_id, &method).await;
                }
            }
            Debt::HostAnswer(req) => {
                if req.own {
                    self.own_page_failed(&req, REASON, 0).await;
                } else if !req.cancelled {
                    self.refuse_host(&req.raw_id, &req.method).await;
                }
            }
            Debt::ServerRequest {
                id,
                raw_id,
                method,
                registered,
            } => {
                let owed = !registered || self.state().pending.take_server(&id).is_some();
                if owed {
                    self.refuse_server(&raw_id, &method).await;
                }
            }
            Debt::ServerAnswer { raw_id, method } => {
                self.refuse_server(&raw_id, &method).await;
            }
            Debt::Listing { member, keys } => {
                withhold(&mut self.state(), member, keys);
            }
            Debt::Passed { .. } => {}
        }
    }

    async fn refuse_host(&self, raw_id: &Value, method: &str) {
        let message = format!(
            "mcp-bastion refused the {method} exchange: a check failed inside mcp-bastion (a bug), and what it was checking is not passed on unchecked"
        );
        self.answer_host(
            Some(raw_id),
            INSPECTION_FAILED,
            &message,
            REASON,
            Value::Null,
        )
        .await;
    }

    async fn refuse_server(&self, raw_id: &Value, method: &str) {
        let message =
            format!("mcp-bastion refused the {method} exchange: a check failed inside mcp-bastion");
        self.answer_server(Some(raw_id), codes::INTERNAL_ERROR, &message, REASON)
            .await;
    }
}

/// `S2H` for callers outside `relay` (the server reader).
pub(crate) const SERVER_TO_HOST: &str = super::S2H;
/// `H2S` for callers outside `relay` (the host reader).
pub(crate) const HOST_TO_SERVER: &str = H2S;
