//! Objects and sinks: what counts as a credential, data, an address or a parameter.

use super::*;

fn cred_labels(sentence: &str) -> Vec<String> {
    find_objects(sentence)
        .into_iter()
        .filter(|o| o.kind == ObjKind::CredStrong)
        .map(|o| o.label)
        .collect()
}

#[test]
fn credential_paths_match_as_one_alternation_would() {
    // A path run covers the key file inside it; at one start the earlier pattern wins.
    assert_eq!(cred_labels("read ~/.ssh/id_rsa now"), ["~/.ssh/id_rsa"]);
    assert_eq!(cred_labels("cat /root/.aws/token"), ["/root/.aws/token"]);
    assert_eq!(cred_labels("load id_rsa.pem"), ["id_rsa"]);
    assert_eq!(
        cred_labels("load server.pem and id_ed25519"),
        ["server.pem", "id_ed25519"]
    );
    assert!(cred_labels("share id_rsa.pub").is_empty());
    // A run that fails at its end no longer hides the matches inside it, nor makes
    // each of them cost a read to the end.
    let glued = "-id_rsa".repeat(4096);
    assert_eq!(cred_labels(&format!("read {glued}")).len(), 4096);
    let homes = "/root/id_rsa".repeat(1024);
    assert_eq!(cred_labels(&format!("read {homes}")).len(), 1024);
}

#[test]
fn secret_names() {
    for yes in [
        "aws_secret_access_key",
        "github_token",
        "openai_api_key",
        "db_password",
        "$password",
        "client_secret",
    ] {
        assert!(is_secret_name(yes), "{yes}");
    }
    for no in [
        "max_tokens",
        "next_page_token",
        "token_count",
        "gzip_max_fetch_size",
        "page_size",
        "api_url",
        "secret",
    ] {
        assert!(!is_secret_name(no), "{no}");
    }
}

#[test]
fn objects_by_kind() {
    let table = [
        (
            "open ~/.config/acme/credentials.json now",
            ObjKind::CredStrong,
            "~/.config/acme/credentials.json",
        ),
        (
            "print the value of aws_secret_access_key",
            ObjKind::CredStrong,
            "AWS_SECRET_ACCESS_KEY",
        ),
        ("cat ~/.ssh/id_rsa", ObjKind::CredStrong, "~/.ssh/id_rsa"),
        ("read the .env file", ObjKind::CredStrong, ".env"),
        ("print the password", ObjKind::CredWeak, "password"),
        (
            "send the full chat history",
            ObjKind::DataStrong,
            "the full chat history",
        ),
        (
            "the complete conversation so far",
            ObjKind::DataStrong,
            "the complete conversation so far",
        ),
        (
            "append the user's last message",
            ObjKind::DataMedium,
            "the user's last message",
        ),
        ("copy its full text", ObjKind::DataMedium, "its full text"),
    ];
    for (s, kind, label) in table {
        let objs = find_objects(s);
        assert!(
            objs.iter().any(|o| o.kind == kind && o.label == label),
            "{s}: {objs:?}"
        );
    }
    // Public keys, attributes and plain words are not objects.
    assert!(
        find_objects("copy ~/.ssh/id_rsa.pub")
            .iter()
            .all(|o| o.label != "id_rsa.pub")
    );
    assert!(
        find_objects("send the conversation id")
            .iter()
            .all(|o| o.kind != ObjKind::DataStrong)
    );
    assert!(find_objects("returns the sum of two numbers").is_empty());
}

#[test]
fn sinks() {
    assert_eq!(
        find_sink("send it to https://attacker.example/c?d=").as_deref(),
        Some("to a URL on attacker.example")
    );
    assert_eq!(
        find_sink("set recipient to relay@attacker.example").as_deref(),
        Some("to relay@attacker.example")
    );
    assert_eq!(
        find_sink("append it, url-encoded").as_deref(),
        Some("(url-encoded)")
    );
    assert_eq!(
        find_sink("copy it into the 'notes' argument").as_deref(),
        Some("into the 'notes' argument")
    );
    assert_eq!(
        find_sink("send the history to upload_log").as_deref(),
        Some("to upload_log")
    );
    assert!(find_sink("returns a greeting").is_none());
    assert_eq!(
        address_target("mail x@y.example").as_deref(),
        Some("x@y.example")
    );
}
