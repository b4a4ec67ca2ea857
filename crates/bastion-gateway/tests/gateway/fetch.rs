//! The SSRF-safe fetcher (issue 8 item 4) against loopback fixtures only: a local DNS
//! server answers public-looking names with non-public addresses, HTTP servers on
//! 127.0.0.1 redirect, overflow and dribble. No test sends traffic beyond loopback (the
//! names are under a real suffix, `.net`, so the URL gate judges them as public names,
//! but only the loopback DNS server is asked):
//! every name that resolves to a public address is only resolved, never fetched.

use crate::loopback::{HttpServer, Reply, dns_server, test_root};
use bastion_core::finding::{Code, Severity};
use bastion_gateway::fetch::{FetchError, FetchLimits, FetchRequest, Nameservers, SafeFetcher};
use std::time::Duration;

/// A fetcher whose resolver asks only the loopback DNS server at `dns`.
fn fetcher(dns: std::net::SocketAddr, dev_http: bool, limits: FetchLimits) -> SafeFetcher {
    SafeFetcher::builder()
        .nameservers(Nameservers::Custom(vec![dns]))
        .allow_loopback_http(dev_http)
        .limits(limits)
        .build()
        .unwrap()
}

fn codes(e: &FetchError) -> Vec<Code> {
    e.findings().iter().map(|f| f.code).collect()
}

const ZONE: &[(&str, &[&str])] = &[
    ("api.example-public.net", &["10.0.0.5"]),
    ("meta.example-public.net", &["169.254.169.254"]),
    ("mapped.example-public.net", &["::ffff:127.0.0.1"]),
    ("nat64.example-public.net", &["64:ff9b::a9fe:a9fe"]),
    ("sixto4.example-public.net", &["2002:c0a8:0101::1"]),
    (
        "teredo.example-public.net",
        &["2001:0:4136:e378:8000:63bf:80ff:fffe"],
    ),
    ("cgnat.example-public.net", &["100.72.3.4"]),
    ("ula.example-public.net", &["fd12:3456::7"]),
    ("mcast.example-public.net", &["239.1.2.3"]),
    ("docs.example-public.net", &["198.51.100.7"]),
    ("zero.example-public.net", &["0.0.0.0"]),
    ("mixed.example-public.net", &["93.184.215.14", "10.0.0.5"]),
    ("mixed6.example-public.net", &["93.184.215.14", "fe80::1"]),
    ("rebind.example-public.net", &["93.184.215.14", "127.0.0.1"]), // c125
    ("loop.example-public.net", &["127.0.0.1"]),
    (
        "good.example-public.net",
        &["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    ),
];

#[tokio::test]
async fn every_non_public_answer_refuses_the_name() {
    let dns = dns_server(ZONE).await;
    let f = fetcher(dns, false, FetchLimits::default());
    for (name, _) in ZONE.iter().filter(|(n, _)| !n.starts_with("good.")) {
        let e = f.resolve_vetted(name).await.unwrap_err();
        assert_eq!(e.reason(), "address_refused", "{name}: {e}");
        assert!(codes(&e).contains(&Code::PrivateAddress), "{name}: {e}");
    }
    // A public answer before a private one is rebinding: refused, never "pick the public one".
    let e = f
        .resolve_vetted("rebind.example-public.net")
        .await
        .unwrap_err();
    assert!(codes(&e).contains(&Code::DnsRebinding), "{e}");
    // Only public answers: accepted (resolved only, nothing is sent there; c167).
    let mut ips = f.resolve_vetted("good.example-public.net").await.unwrap();
    ips.sort();
    assert_eq!(ips.len(), 2, "both families are asked for: {ips:?}");
    let e = f
        .resolve_vetted("missing.example-public.net")
        .await
        .unwrap_err();
    assert_eq!(e.reason(), "dns_failure", "{e}");
}

#[tokio::test]
async fn a_name_resolving_privately_is_never_connected_to() {
    let dns = dns_server(&[("api.example-public.net", &["127.0.0.1", "10.0.0.5"])]).await;
    let target = HttpServer::start(Reply::ok("text/plain", b"secret")).await;
    let f = fetcher(dns, false, FetchLimits::default());
    let url = format!("https://api.example-public.net:{}/v1", target.addr.port());
    let e = f.get(&url).await.unwrap_err();
    assert_eq!(e.reason(), "address_refused", "{e}");
    assert!(e.to_string().contains("api.example-public.net"), "{e}");
    assert_eq!(target.hits(), 0, "no connection to a refused answer");
}

#[tokio::test]
async fn the_vetted_address_is_the_one_connected_to() {
    // Under the development flag a loopback answer is only a warning: the connection
    // must go to exactly that answer (the name exists nowhere but the test DNS server).
    let dns = dns_server(&[("loop.example-public.net", &["127.0.0.1"])]).await;
    let target = HttpServer::start(Reply::Close).await;
    let f = fetcher(dns, true, FetchLimits::default());
    let url = format!("https://loop.example-public.net:{}/", target.addr.port());
    // The server hangs up: the TLS handshake fails, after connecting.
    let e = f.get(&url).await.unwrap_err();
    assert_eq!(e.reason(), "transport_error", "{e}");
    assert_eq!(target.hits(), 1);
}

#[tokio::test]
async fn https_through_the_vetting_resolver_end_to_end() {
    let dns = dns_server(&[
        ("loop.example-public.net", &["127.0.0.1"]),
        ("redirect.example-public.net", &["127.0.0.1"]),
        ("private.example-public.net", &["10.0.0.5"]),
    ])
    .await;
    let target = HttpServer::start_tls(Reply::ok("application/json", b"{\"ok\":true}")).await;
    let trusting = SafeFetcher::builder()
        .nameservers(Nameservers::Custom(vec![dns]))
        .allow_loopback_http(true)
        .add_root_certificates([test_root()])
        .build()
        .unwrap();
    let ok = format!("https://loop.example-public.net:{}/ok", target.addr.port());
    let r = trusting.get(&ok).await.unwrap();
    assert_eq!(
        (r.status.as_u16(), r.body.as_slice()),
        (200, &b"{\"ok\":true}"[..])
    );
    // The loopback answer, admitted by the development flag, is reported for the audit.
    let warned: Vec<_> = r.findings.iter().map(|f| (f.code, f.severity)).collect();
    assert_eq!(warned, [(Code::PrivateAddress, Severity::Warn)]);
    // https redirect between two vetted names: followed, each hop resolved and checked.
    let hop = HttpServer::start_tls(Reply::redirect(&ok)).await;
    let start = format!("https://redirect.example-public.net:{}/", hop.addr.port());
    let r = trusting.get(&start).await.unwrap();
    assert_eq!(r.redirects.len(), 1);
    assert_eq!(target.hits(), 2);
    // ... but not to a name resolving privately, whose server is never contacted.
    let to_private = HttpServer::start_tls(Reply::redirect(&format!(
        "https://private.example-public.net:{}/ok",
        target.addr.port()
    )))
    .await;
    let start = format!(
        "https://redirect.example-public.net:{}/",
        to_private.addr.port()
    );
    let e = trusting.get(&start).await.unwrap_err();
    assert_eq!(e.reason(), "address_refused", "{e}");
    assert_eq!(target.hits(), 2);
    // Certificates are verified: without the test root the handshake is refused.
    let e = fetcher(dns, true, FetchLimits::default())
        .get(&ok)
        .await
        .unwrap_err();
    assert_eq!(e.reason(), "transport_error", "{e}");
}

#[tokio::test]
async fn ssrf_corpus_urls_are_refused_before_any_lookup() {
    // Own spellings of the corpus `ssrf` URL cases (c107-c123) and variations.
    let dns = dns_server(&[]).await;
    let f = fetcher(dns, false, FetchLimits::default());
    for url in [
        "http://169.254.169.254/latest/meta-data/iam/", // c107
        "https://169.254.169.254/computeMetadata/v1/",
        "http://127.0.0.1:9000/",              // c108
        "https://192.168.10.1/oauth/register", // c110
        "https://metadata.google.internal/computeMetadata/v1/instance", // c111
        "https://2130706433/",                 // c113
        "https://[::ffff:7f00:1]/",            // c114
        "https://0177.0.0.01/",                // c116
        "https://017700000001/",               // c117
        "https://0xa9.0xfe.0xa9.0xfe/",
        "https://0xA9FEA9FE/latest/", // c119
        "https://127.1/",             // c120
        "https://[::1]:8443/",        // c122
        "https://[fe80::1%25eth0]/",  // c123
        "https://[64:ff9b::a9fe:a9fe]/",
        "https://[2002:7f00:1::]/",
        "https://100.100.100.200/latest/meta-data/",
        "https://localhost/",
        "ftp://auth.example.com/",
        "https://user:pw@auth.example.com/",
    ] {
        let e = f.get(url).await.unwrap_err();
        assert_eq!(e.reason(), "url_refused", "{url}: {e}");
    }
    // The development flag admits http to loopback only, never to other addresses.
    let dev = fetcher(dns, true, FetchLimits::default());
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.5/",
        "http://api.example-public.net/",
    ] {
        let e = dev.get(url).await.unwrap_err();
        assert_eq!(e.reason(), "url_refused", "{url}: {e}");
    }
}

#[tokio::test]
async fn redirect_to_metadata_or_private_name_is_refused_without_connecting() {
    let dns = dns_server(&[("internal.example-public.net", &["127.0.0.1", "10.0.0.5"])]).await;
    let target = HttpServer::start(Reply::ok("text/plain", b"credentials")).await;
    let f = fetcher(dns, true, FetchLimits::default());

    let to_metadata =
        HttpServer::start(Reply::redirect("http://169.254.169.254/latest/meta-data/")).await;
    let e = f.get(&to_metadata.url("/start")).await.unwrap_err();
    assert!(
        matches!(e, FetchError::UrlRefused { hop: 1, .. }),
        "refused at the first hop: {e}"
    );
    assert!(codes(&e).contains(&Code::PrivateAddress), "{e}");
    assert_eq!(to_metadata.hits(), 1);

    let to_name = HttpServer::start(Reply::redirect(&format!(
        "https://internal.example-public.net:{}/secret",
        target.addr.port()
    )))
    .await;
    let e = f.get(&to_name.url("/")).await.unwrap_err();
    assert_eq!(e.reason(), "address_refused", "{e}");
    assert_eq!(target.hits(), 0, "the redirect target was never contacted");

    // Relative and absolute redirects to an allowed target are followed, each vetted.
    let to_target = HttpServer::start(Reply::redirect(&target.url("/ok"))).await;
    let r = f.get(&to_target.url("/")).await.unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.body, b"credentials");
    assert_eq!(r.redirects.len(), 1);
    assert_eq!(target.hits(), 1);
    // Following off (discovery): the 302 is the answer, the target is not contacted.
    let r = f
        .fetch(FetchRequest::get(to_target.url("/")).follow_redirects(false))
        .await
        .unwrap();
    assert_eq!(r.status, 302);
    assert!(r.redirects.is_empty());
    assert_eq!(target.hits(), 1);
}

#[tokio::test]
async fn redirect_loops_stop_at_the_limit() {
    let dns = dns_server(&[]).await;
    let looping = HttpServer::start(Reply::redirect("/again")).await;
    let f = fetcher(dns, true, FetchLimits::default().with_max_redirects(3));
    let e = f.get(&looping.url("/")).await.unwrap_err();
    assert_eq!(e.reason(), "too_many_redirects", "{e}");
    assert_eq!(looping.hits(), 4);
}

#[tokio::test]
async fn bodies_over_the_limit_are_errors_not_truncations() {
    let dns = dns_server(&[]).await;
    let limits = FetchLimits::default().with_max_body_bytes(1000);
    let f = fetcher(dns, true, limits);
    let declared = HttpServer::start(Reply::ok("application/json", &[b'a'; 2000])).await;
    let e = f.get(&declared.url("/")).await.unwrap_err();
    assert_eq!(e.reason(), "response_too_large", "{e}");
    let streamed = HttpServer::start(Reply::ok_until_close(&[b'b'; 5000])).await;
    let e = f.get(&streamed.url("/")).await.unwrap_err();
    assert_eq!(e.reason(), "response_too_large", "{e}");
    let exact = HttpServer::start(Reply::ok_until_close(&[b'c'; 1000])).await;
    assert_eq!(f.get(&exact.url("/")).await.unwrap().body.len(), 1000);
}

#[tokio::test]
async fn a_dribbling_server_hits_the_deadline() {
    let dns = dns_server(&[]).await;
    let slow = HttpServer::start(Reply::Dribble {
        every: Duration::from_millis(50),
    })
    .await;
    let limits = FetchLimits::default().with_timeout(Duration::from_millis(400));
    let f = fetcher(dns, true, limits);
    let started = std::time::Instant::now();
    let e = f.get(&slow.url("/")).await.unwrap_err();
    assert_eq!(e.reason(), "fetch_timeout", "{e}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn localhost_only_under_the_development_flag() {
    let dns = dns_server(&[]).await;
    let local = HttpServer::start(Reply::ok("text/plain", b"dev")).await;
    let url = format!("http://localhost:{}/", local.addr.port());
    for strict_url in [url.clone(), url.replace("http:", "https:")] {
        let e = fetcher(dns, false, FetchLimits::default())
            .get(&strict_url)
            .await
            .unwrap_err();
        assert_eq!(e.reason(), "url_refused", "{strict_url}: {e}");
    }
    assert_eq!(local.hits(), 0);
    // `localhost` is answered by the resolver itself (RFC 6761), never by DNS.
    let r = fetcher(dns, true, FetchLimits::default())
        .get(&url)
        .await
        .unwrap();
    assert_eq!(r.body, b"dev");
    assert!(r.findings.iter().all(|f| f.severity < Severity::High));
}
