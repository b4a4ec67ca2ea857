//! Unit tests of `policy.rs`.

use super::*;

fn policy(toml_text: &str) -> Policy {
    let config: PolicyConfig = toml::from_str(toml_text).unwrap();
    Policy::new(config).unwrap()
}

#[test]
fn defaults() {
    let p = Policy::default();
    let c = p.confirmation();
    assert_eq!(c.default, Action::Ask);
    assert_eq!(c.fallback, Fallback::Deny);
    assert_eq!(c.channels, vec![Channel::Elicitation, Channel::Tty]);
    assert_eq!(c.timeout_ms, 120_000);
    assert!(!p.trusted("anything"));
    assert_eq!(p.rule_for("x", "y").action, None);
}

#[test]
fn most_specific_action_wins_and_args_accumulate() {
    let p = policy(
        r#"
        [servers.gh]
        trusted = true
        [servers.gh.tools."*"]
        action = "deny"
        [[servers.gh.tools."*".args]]
        name = "path"
        under = ["/srv"]
        [servers.gh.tools."read_*"]
        action = "allow"
        [servers.gh.tools."read_secret"]
        action = "ask"
        [servers.gh.tools."rea[d]_*"]
        action = "deny"
        "#,
    );
    assert!(p.trusted("gh"));
    let m = p.rule_for("gh", "read_file");
    // "read_*" and "rea[d]_*" have the same literal count: the stricter wins.
    assert_eq!(m.action, Some((Action::Deny, "rea[d]_*")));
    assert_eq!(m.args.len(), 1);
    assert_eq!(
        p.rule_for("gh", "read_secret").action,
        Some((Action::Ask, "read_secret"))
    );
    assert_eq!(p.rule_for("gh", "write").action, Some((Action::Deny, "*")));
    assert_eq!(p.rule_for("other", "write").action, None);
}

#[test]
fn longer_literal_beats_shorter() {
    let p = policy(
        r#"
        [servers.s.tools."*"]
        action = "ask"
        [servers.s.tools."get_*"]
        action = "allow"
        [servers.s.tools."get_admin_*"]
        action = "deny"
        "#,
    );
    assert_eq!(p.rule_for("s", "get_x").action.unwrap().0, Action::Allow);
    assert_eq!(
        p.rule_for("s", "get_admin_keys").action.unwrap().0,
        Action::Deny
    );
    assert_eq!(p.rule_for("s", "put").action.unwrap().0, Action::Ask);
    // Case-sensitive, whole-name match.
    assert_eq!(p.rule_for("s", "GET_x").action.unwrap().0, Action::Ask);
    assert_eq!(p.rule_for("s", "xget_x").action.unwrap().0, Action::Ask);
    // `*` crosses `/` and `.`.
    assert_eq!(
        p.rule_for("s", "get_admin_/x.y").action.unwrap().0,
        Action::Deny
    );
    assert_eq!(p.rule_for("s", "ns/put").action.unwrap().0, Action::Ask);
}

#[test]
fn config_errors() {
    let bad = |t: &str| Policy::new(toml::from_str::<PolicyConfig>(t).unwrap()).unwrap_err();
    let e = bad("[servers.s.tools.\"a[\"]\naction = \"ask\"\n");
    assert!(e.to_string().contains("invalid glob"), "{e}");
    let e = bad("[confirmation]\nchannels = [\"tty\", \"tty\"]\n");
    assert_eq!(e, PolicyError::DuplicateChannel("tty".into()));
    assert_eq!(
        bad("[confirmation]\ntimeout_ms = 0\n"),
        PolicyError::ZeroTimeout
    );
    let e = bad("[[servers.s.tools.\"w\".args]]\nname = \"p\"\nunder = [\"rel/dir\"]\n");
    assert!(e.to_string().contains("absolute"), "{e}");
    for unknown in [
        "[confirmation]\ndefualt = \"ask\"\n",
        "[servers.s]\ntrusted = true\nextra = 1\n",
        "[servers.s.tools.\"x\"]\nactoin = \"ask\"\n",
        "[servers.s.tools.\"x\"]\naction = \"maybe\"\n",
        "[confirmation]\nchannels = [\"smoke-signal\"]\n",
    ] {
        assert!(
            toml::from_str::<PolicyConfig>(unknown).is_err(),
            "{unknown}"
        );
    }
}

#[test]
fn json_round_trip_keeps_the_rules() {
    let config: PolicyConfig = toml::from_str(
        r#"
        [confirmation]
        channels = ["tty"]
        [servers.fs.tools."write_*"]
        action = "allow"
        [[servers.fs.tools."write_*".args]]
        name = "path"
        under = ["/srv"]
        "#,
    )
    .unwrap();
    let json = serde_json::to_value(&config).unwrap();
    assert_eq!(
        json["servers"]["fs"]["tools"]["write_*"]["args"][0]["under"][0],
        "/srv"
    );
    let back: PolicyConfig = serde_json::from_value(json).unwrap();
    assert_eq!(back.confirmation.channels, vec![Channel::Tty]);
    let p = Policy::new(back).unwrap();
    let m = p.rule_for("fs", "write_file");
    assert_eq!(m.action, Some((Action::Allow, "write_*")));
    let args = serde_json::json!({"path": "/etc/x"});
    assert_eq!(m.args[0].0.violations(args.as_object().unwrap()).len(), 1);
}
