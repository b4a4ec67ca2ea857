//! The URL elicitation flow state machine (issue 6 §6; MCP 2025-11-25 "Elicitation §URL
//! Mode", "§Completion Notifications"):
//!
//! ```text
//! CREATED -> USER_REVIEW -> DECLINED | CANCELLED | NAVIGATION_ACCEPTED
//! NAVIGATION_ACCEPTED -> OUT_OF_BAND_PENDING
//! OUT_OF_BAND_PENDING -> COMPLETION_NOTIFIED -> REQUIREMENT_VERIFIED
//! OUT_OF_BAND_PENDING -> EXPIRED | USER_RETRY
//! ```
//!
//! A URL `accept` is consent to navigate only ([`FlowState::NavigationAccepted`]), never
//! completion. `notifications/elicitation/complete` advances a flow only when it names a
//! known flow of the same server and session in `OUT_OF_BAND_PENDING` before its deadline
//! ([`judge_completion`]); an unknown, already completed, expired or other-session id is
//! dropped (and audited by the gateway with [`FlowError::reason`]). Time is passed in
//! (milliseconds since the Unix epoch, from the caller's clock); nothing here reads a
//! clock. The gateway persists [`UrlFlow`] (state names from [`FlowState::as_str`]).

use std::fmt;

/// States of a URL elicitation flow (stable upper-case names for the store).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FlowState {
    /// Request received from the server, not yet shown.
    Created,
    /// Shown to the user, awaiting accept / decline / cancel.
    UserReview,
    /// The user declined (terminal).
    Declined,
    /// The user cancelled (terminal).
    Cancelled,
    /// The user agreed to open the URL (consent to navigate, not completion).
    NavigationAccepted,
    /// The accept was sent to the server; the interaction happens out of band.
    OutOfBandPending,
    /// The server sent a valid completion notification.
    CompletionNotified,
    /// The requirement is verified (the original operation may continue or be retried).
    RequirementVerified,
    /// No completion before the deadline (terminal; the user may still retry by hand).
    Expired,
    /// The user asked to retry by hand (terminal for this flow).
    UserRetry,
}

impl FlowState {
    /// Every state, in the order above.
    pub const ALL: &'static [Self] = &[
        Self::Created,
        Self::UserReview,
        Self::Declined,
        Self::Cancelled,
        Self::NavigationAccepted,
        Self::OutOfBandPending,
        Self::CompletionNotified,
        Self::RequirementVerified,
        Self::Expired,
        Self::UserRetry,
    ];

    /// Stable name, e.g. `OUT_OF_BAND_PENDING`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Created => "CREATED",
            Self::UserReview => "USER_REVIEW",
            Self::Declined => "DECLINED",
            Self::Cancelled => "CANCELLED",
            Self::NavigationAccepted => "NAVIGATION_ACCEPTED",
            Self::OutOfBandPending => "OUT_OF_BAND_PENDING",
            Self::CompletionNotified => "COMPLETION_NOTIFIED",
            Self::RequirementVerified => "REQUIREMENT_VERIFIED",
            Self::Expired => "EXPIRED",
            Self::UserRetry => "USER_RETRY",
        }
    }

    /// Parses a name from [`FlowState::as_str`].
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|s| s.as_str() == name)
    }

    /// `true` for states no event leaves.
    pub const fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Declined
                | Self::Cancelled
                | Self::RequirementVerified
                | Self::Expired
                | Self::UserRetry
        )
    }
}

impl fmt::Display for FlowState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the host answered to a URL elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostAction {
    /// `accept`: the user agreed to navigate.
    Accept,
    /// `decline`.
    Decline,
    /// `cancel`.
    Cancel,
}

/// An event that was refused; the flow is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FlowError {
    /// The event is not allowed in the current state.
    #[error("`{event}` is not allowed in state {from}")]
    IllegalTransition {
        /// Current state.
        from: FlowState,
        /// The event's name.
        event: &'static str,
    },
    /// No flow has this elicitation id.
    #[error("no URL elicitation with this id is known")]
    UnknownId,
    /// The notification comes from another server than the one that asked.
    #[error("the completion comes from another server than the one that started the flow")]
    OtherServer,
    /// The notification comes from another session (e.g. an old one).
    #[error("the completion comes from another session than the one that started the flow")]
    OtherSession,
    /// The flow's deadline has passed.
    #[error("the flow expired at {expires_ms} ms")]
    Expired {
        /// The deadline.
        expires_ms: u64,
    },
    /// A completion for a flow that already completed.
    #[error("the flow already completed")]
    AlreadyCompleted,
    /// `now_ms` is earlier than the flow's last update.
    #[error("time went backwards: {now_ms} ms is before the last update at {last_ms} ms")]
    ClockWentBack {
        /// Time given.
        now_ms: u64,
        /// Last update.
        last_ms: u64,
    },
}

impl FlowError {
    /// Stable reason code for the audit log (`completion_unknown_id`, ...).
    pub const fn reason(&self) -> &'static str {
        match self {
            Self::IllegalTransition { .. } => "flow_illegal_transition",
            Self::UnknownId => "completion_unknown_id",
            Self::OtherServer => "completion_other_server",
            Self::OtherSession => "completion_other_session",
            Self::Expired { .. } => "flow_expired",
            Self::AlreadyCompleted => "completion_duplicate",
            Self::ClockWentBack { .. } => "flow_clock_went_back",
        }
    }
}

/// One URL elicitation flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlFlow {
    /// `elicitationId` from the server.
    pub elicitation_id: String,
    /// The server (wrapped server name) that asked.
    pub server: String,
    /// The session the request came in.
    pub session: String,
    /// The normalized URL shown to the user.
    pub url: String,
    /// Current state.
    pub state: FlowState,
    /// Creation time, ms since the Unix epoch.
    pub created_ms: u64,
    /// Last transition, ms.
    pub updated_ms: u64,
    /// Deadline for completion, ms.
    pub expires_ms: u64,
}

impl UrlFlow {
    /// A new flow in [`FlowState::Created`], expiring `ttl_ms` after `now_ms`.
    pub fn new(
        elicitation_id: impl Into<String>,
        server: impl Into<String>,
        session: impl Into<String>,
        url: impl Into<String>,
        now_ms: u64,
        ttl_ms: u64,
    ) -> Self {
        Self {
            elicitation_id: elicitation_id.into(),
            server: server.into(),
            session: session.into(),
            url: url.into(),
            state: FlowState::Created,
            created_ms: now_ms,
            updated_ms: now_ms,
            expires_ms: now_ms.saturating_add(ttl_ms),
        }
    }

    fn step(
        &mut self,
        event: &'static str,
        from: &[FlowState],
        to: FlowState,
        now_ms: u64,
    ) -> Result<FlowState, FlowError> {
        if now_ms < self.updated_ms {
            return Err(FlowError::ClockWentBack {
                now_ms,
                last_ms: self.updated_ms,
            });
        }
        if !from.contains(&self.state) {
            return Err(FlowError::IllegalTransition {
                from: self.state,
                event,
            });
        }
        self.state = to;
        self.updated_ms = now_ms;
        Ok(to)
    }

    /// `CREATED` → `USER_REVIEW`: the request was shown to the user.
    ///
    /// # Errors
    /// [`FlowError::IllegalTransition`] in any other state; [`FlowError::ClockWentBack`].
    pub fn show(&mut self, now_ms: u64) -> Result<FlowState, FlowError> {
        self.step("show", &[FlowState::Created], FlowState::UserReview, now_ms)
    }

    /// `USER_REVIEW` → `DECLINED` | `CANCELLED` | `NAVIGATION_ACCEPTED`: the host's answer.
    ///
    /// # Errors
    /// [`FlowError::IllegalTransition`] in any other state; [`FlowError::ClockWentBack`].
    pub fn answer(&mut self, action: HostAction, now_ms: u64) -> Result<FlowState, FlowError> {
        let to = match action {
            HostAction::Accept => FlowState::NavigationAccepted,
            HostAction::Decline => FlowState::Declined,
            HostAction::Cancel => FlowState::Cancelled,
        };
        self.step("answer", &[FlowState::UserReview], to, now_ms)
    }

    /// `NAVIGATION_ACCEPTED` → `OUT_OF_BAND_PENDING`: the accept reached the server.
    ///
    /// # Errors
    /// [`FlowError::IllegalTransition`] in any other state; [`FlowError::ClockWentBack`].
    pub fn await_out_of_band(&mut self, now_ms: u64) -> Result<FlowState, FlowError> {
        self.step(
            "await_out_of_band",
            &[FlowState::NavigationAccepted],
            FlowState::OutOfBandPending,
            now_ms,
        )
    }

    /// `OUT_OF_BAND_PENDING` → `COMPLETION_NOTIFIED`: `notifications/elicitation/complete`
    /// from `server` in `session`. Only then is the notification forwarded to the host.
    ///
    /// # Errors
    /// [`FlowError::OtherServer`], [`FlowError::OtherSession`], [`FlowError::Expired`]
    /// (the flow moves to `EXPIRED`), [`FlowError::AlreadyCompleted`] (`COMPLETION_NOTIFIED`
    /// or `REQUIREMENT_VERIFIED`), [`FlowError::IllegalTransition`] otherwise.
    pub fn complete(
        &mut self,
        server: &str,
        session: &str,
        now_ms: u64,
    ) -> Result<FlowState, FlowError> {
        if server != self.server {
            return Err(FlowError::OtherServer);
        }
        if session != self.session {
            return Err(FlowError::OtherSession);
        }
        if matches!(
            self.state,
            FlowState::CompletionNotified | FlowState::RequirementVerified
        ) {
            return Err(FlowError::AlreadyCompleted);
        }
        if self.expire_if_due(now_ms) || self.state == FlowState::Expired {
            return Err(FlowError::Expired {
                expires_ms: self.expires_ms,
            });
        }
        self.step(
            "complete",
            &[FlowState::OutOfBandPending],
            FlowState::CompletionNotified,
            now_ms,
        )
    }

    /// `COMPLETION_NOTIFIED` → `REQUIREMENT_VERIFIED`: the original operation's requirement
    /// is met (the server continued it, or its retry was answered).
    ///
    /// # Errors
    /// [`FlowError::IllegalTransition`] in any other state; [`FlowError::ClockWentBack`].
    pub fn verify(&mut self, now_ms: u64) -> Result<FlowState, FlowError> {
        self.step(
            "verify",
            &[FlowState::CompletionNotified],
            FlowState::RequirementVerified,
            now_ms,
        )
    }

    /// `OUT_OF_BAND_PENDING` → `USER_RETRY`: the user chose to retry by hand.
    ///
    /// # Errors
    /// [`FlowError::IllegalTransition`] in any other state; [`FlowError::ClockWentBack`].
    pub fn user_retry(&mut self, now_ms: u64) -> Result<FlowState, FlowError> {
        self.step(
            "user_retry",
            &[FlowState::OutOfBandPending],
            FlowState::UserRetry,
            now_ms,
        )
    }

    /// `OUT_OF_BAND_PENDING` → `EXPIRED` when `now_ms` is at or past the deadline; whether it
    /// expired now. Other states are left alone.
    pub fn expire_if_due(&mut self, now_ms: u64) -> bool {
        if self.state == FlowState::OutOfBandPending
            && now_ms >= self.expires_ms
            && now_ms >= self.updated_ms
        {
            self.state = FlowState::Expired;
            self.updated_ms = now_ms;
            return true;
        }
        false
    }
}

/// Judges a `notifications/elicitation/complete` for the flow found by its
/// `elicitationId` (`None`: no such flow): `Ok` means forward it to the host.
///
/// # Errors
/// [`FlowError::UnknownId`] for `None`, else as [`UrlFlow::complete`].
pub fn judge_completion(
    flow: Option<&mut UrlFlow>,
    server: &str,
    session: &str,
    now_ms: u64,
) -> Result<FlowState, FlowError> {
    flow.ok_or(FlowError::UnknownId)?
        .complete(server, session, now_ms)
}

#[cfg(test)]
#[path = "flow_tests.rs"]
mod tests;
