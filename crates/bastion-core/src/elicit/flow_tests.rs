//! Unit tests of the URL elicitation flow state machine.

use super::*;

fn pending() -> UrlFlow {
    let mut f = UrlFlow::new(
        "e-1",
        "billing",
        "s-1",
        "https://x.example.com/",
        1_000,
        60_000,
    );
    f.show(1_100).unwrap();
    f.answer(HostAction::Accept, 1_200).unwrap();
    f.await_out_of_band(1_300).unwrap();
    f
}

#[test]
fn happy_path() {
    let mut f = pending();
    assert_eq!(f.state, FlowState::OutOfBandPending);
    assert_eq!(
        f.complete("billing", "s-1", 2_000),
        Ok(FlowState::CompletionNotified)
    );
    assert_eq!(f.verify(2_100), Ok(FlowState::RequirementVerified));
    assert!(f.state.is_terminal());
}

#[test]
fn accept_is_not_completion() {
    let mut f = UrlFlow::new("e-1", "billing", "s-1", "u", 0, 10);
    f.show(0).unwrap();
    assert_eq!(
        f.answer(HostAction::Accept, 1),
        Ok(FlowState::NavigationAccepted)
    );
    // A completion before the accept reached the server is refused.
    assert!(matches!(
        f.complete("billing", "s-1", 2),
        Err(FlowError::IllegalTransition { .. })
    ));
    assert_eq!(f.verify(2).unwrap_err().reason(), "flow_illegal_transition");
}

#[test]
fn completions_that_are_dropped() {
    let mut f = pending();
    assert_eq!(
        f.complete("other", "s-1", 2_000),
        Err(FlowError::OtherServer)
    );
    assert_eq!(
        f.complete("billing", "s-0", 2_000),
        Err(FlowError::OtherSession)
    );
    assert_eq!(f.state, FlowState::OutOfBandPending);
    f.complete("billing", "s-1", 2_000).unwrap();
    assert_eq!(
        f.complete("billing", "s-1", 2_001),
        Err(FlowError::AlreadyCompleted)
    );
    assert_eq!(
        judge_completion(None, "billing", "s-1", 0),
        Err(FlowError::UnknownId)
    );
    let mut g = pending();
    assert_eq!(
        judge_completion(Some(&mut g), "billing", "s-1", 61_000),
        Err(FlowError::Expired { expires_ms: 61_000 })
    );
    assert_eq!(g.state, FlowState::Expired);
}

#[test]
fn decline_cancel_retry_and_clock() {
    for (action, want) in [
        (HostAction::Decline, FlowState::Declined),
        (HostAction::Cancel, FlowState::Cancelled),
    ] {
        let mut f = UrlFlow::new("e", "s", "x", "u", 0, 10);
        f.show(0).unwrap();
        assert_eq!(f.answer(action, 1), Ok(want));
        assert!(f.await_out_of_band(2).is_err());
    }
    let mut f = pending();
    assert_eq!(f.user_retry(1_400), Ok(FlowState::UserRetry));
    let mut f = pending();
    assert!(matches!(
        f.user_retry(10),
        Err(FlowError::ClockWentBack { .. })
    ));
    assert!(!f.expire_if_due(60_999));
    assert!(f.expire_if_due(61_000));
    for s in FlowState::ALL {
        assert_eq!(FlowState::parse(s.as_str()), Some(*s));
    }
}
