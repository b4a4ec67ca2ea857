//! The panic boundary: a bug in a check must not pass a message unchecked, leave a
//! request without its answer, or stop the gateway.
//!
//! Each frame is handled inside [`Relay::contain`], which catches a panic (unwinding) of
//! the handler. While a handler holds an obligation (a host request it has not yet
//! forwarded or refused, a server answer it has taken from the pending map, ...), it
//! keeps it in an [`Owe`] guard; a guard dropped by the unwinding files the obligation
//! with the relay, and the boundary pays it: the side that waits gets a JSON-RPC error
//! with reason `inspection_failed` (code [`INSPECTION_FAILED`]), and the audit records
//! the frame's direction, size, method and id (never its content). The message itself
//! is dropped: nothing that was being checked is forwarded.

use super::{Ev, H2S, Relay, S2H};
use crate::pending::HostRequest;
use bastion_core::envelope::{Id, codes};
use bastion_core::finding::{Code, Verdict};
use futures_util::FutureExt;
use serde_json::Value;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::PoisonError;

/// JSON-RPC error code of a refusal because a check failed inside Bastion (reason
/// `inspection_failed`), in the implementation-defined range -32099..-32000 (DESIGN §4);
/// not reserved by MCP in either era.
pub(crate) const INSPECTION_FAILED: i64 = -32055;

/// Reason of such a refusal, in `error.data.reason` and in the audit.
const REASON: &str = "inspection_failed";

/// An obligation a frame's handler holds; see [`Owe`].
pub(super) enum Debt {
    /// The host's request `id`, not yet forwarded or refused: the host is answered, and
    /// the request leaves the pending and held sets if it got there.
    HostRequest {
        id: Id,
        raw_id: Value,
        method: String,
    },
    /// The host request whose answer (a result or error from the server) is being
    /// checked, taken from the pending map: the host is answered.
    HostAnswer(HostRequest),
    /// The server's request `id`, not yet forwarded to the host or refused: the server is
    /// answered, and the request leaves the pending map if it got there.
    ServerRequest {
        id: Id,
        raw_id: Value,
        method: String,
    },
    /// The server request whose answer from the host is being checked, taken from the
    /// pending map: the server is answered.
    ServerAnswer { raw_id: Value, method: String },
}

impl Debt {
    fn method(&self) -> &str {
        match self {
            Self::HostRequest { method, .. }
            | Self::ServerRequest { method, .. }
            | Self::ServerAnswer { method, .. } => method,
            Self::HostAnswer(req) => &req.method,
        }
    }

    fn raw_id(&self) -> &Value {
        match self {
            Self::HostRequest { raw_id, .. }
            | Self::ServerRequest { raw_id, .. }
            | Self::ServerAnswer { raw_id, .. } => raw_id,
            Self::HostAnswer(req) => &req.raw_id,
        }
    }
}

/// Holds a [`Debt`] while a handler works on it. Dropped normally (the handler answered,
/// forwarded or refused) it does nothing; dropped by a panic's unwinding it files the
/// debt with the relay for [`Relay::contain`] to pay. [`Owe::paid`] releases it early,
/// once the message has left (so a panic in later audit work does not answer twice).
pub(super) struct Owe<'r> {
    relay: &'r Relay,
    debt: Option<Debt>,
    settled: bool,
}

impl<'r> Owe<'r> {
    pub(super) fn new(relay: &'r Relay, debt: Debt) -> Self {
        Self {
            relay,
            debt: Some(debt),
            settled: false,
        }
    }

    /// The debt is settled: the message was forwarded or answered.
    pub(super) fn paid(&mut self) {
        self.settled = true;
    }
}

impl Drop for Owe<'_> {
    fn drop(&mut self) {
        if !self.settled
            && std::thread::panicking()
            && let Some(debt) = self.debt.take()
        {
            self.relay
                .owed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(debt);
        }
    }
}

/// The host request a server answer is being checked for, owed an answer until the
/// check is done: dereferences to the [`HostRequest`].
pub(super) struct HeldAnswer<'r>(Owe<'r>);

impl<'r> HeldAnswer<'r> {
    pub(super) fn new(relay: &'r Relay, req: HostRequest) -> Self {
        Self(Owe::new(relay, Debt::HostAnswer(req)))
    }

    /// The host got its answer (forwarded or refused).
    pub(super) fn paid(&mut self) {
        self.0.paid();
    }
}

impl std::ops::Deref for HeldAnswer<'_> {
    type Target = HostRequest;

    fn deref(&self) -> &HostRequest {
        match &self.0.debt {
            Some(Debt::HostAnswer(req)) => req,
            // Built with a `HostAnswer`, taken only by `drop`.
            _ => unreachable!("a held answer holds its request until dropped"),
        }
    }
}

impl Relay {
    /// Runs `handling` (the handling of one `bytes`-long frame that came from
    /// `direction`, [`H2S`] or [`S2H`]); a panic inside it is caught here, the debts its
    /// guards filed are paid, and an audit event with reason `inspection_failed` records
    /// the frame's size (and method and id when a debt names them). Returns `false` when
    /// the handling panicked.
    pub(crate) async fn contain<F: Future<Output = ()>>(
        &self,
        direction: &'static str,
        bytes: usize,
        handling: F,
    ) -> bool {
        if AssertUnwindSafe(handling).catch_unwind().await.is_ok() {
            return true;
        }
        let debts = std::mem::take(&mut *self.owed.lock().unwrap_or_else(PoisonError::into_inner));
        let mut ev = Ev::new(direction, "unknown", Verdict::Block, bytes)
            .reason(REASON)
            .code(Code::InspectionFailed);
        if let Some(d) = debts.first() {
            ev = ev.method(d.method()).id(d.raw_id());
            if let Debt::HostAnswer(req) = d {
                ev = ev.target(req.target.as_deref());
            }
        }
        self.audit.record(ev.0).await;
        let side = if direction == H2S { "client" } else { "server" };
        eprintln!(
            "mcp-bastion[{}]: a check failed inside mcp-bastion on a {side} message of {bytes} bytes; the message was refused, not passed on ({REASON}). This is a bug: please report it with the location printed above.",
            self.name
        );
        for debt in debts {
            self.pay(debt).await;
        }
        false
    }

    async fn pay(&self, debt: Debt) {
        match debt {
            Debt::HostRequest { id, raw_id, method } => {
                {
                    let mut st = self.state();
                    st.held.remove(&id);
                    st.pending.take_host(&id);
                }
                self.refuse_host(&raw_id, &method).await;
            }
            Debt::HostAnswer(req) => {
                if req.own {
                    self.own_page_failed(&req, REASON, 0).await;
                } else {
                    self.refuse_host(&req.raw_id, &req.method).await;
                }
            }
            Debt::ServerRequest { id, raw_id, method } => {
                self.state().pending.take_server(&id);
                self.refuse_server(&raw_id, &method).await;
            }
            Debt::ServerAnswer { raw_id, method } => {
                self.refuse_server(&raw_id, &method).await;
            }
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
pub(crate) const SERVER_TO_HOST: &str = S2H;
/// `H2S` for callers outside `relay` (the host reader).
pub(crate) const HOST_TO_SERVER: &str = H2S;
