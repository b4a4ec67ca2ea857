//! Loopback-only network fixtures for the SSRF fetcher tests: a tiny DNS server (UDP,
//! messages encoded by `hickory-proto`) answering chosen names with chosen addresses,
//! and an HTTP/1.1 server answering every request with one canned reply while counting
//! hits. Nothing here sends traffic anywhere but 127.0.0.1.

use hickory_resolver::proto::op::{Message, ResponseCode};
use hickory_resolver::proto::rr::rdata::{A, AAAA};
use hickory_resolver::proto::rr::{Name, RData, Record, RecordType};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, UdpSocket};
use tokio_rustls::TlsAcceptor;

/// A DNS server on `127.0.0.1:<port>`: `zone` maps a lowercase name (no final dot) to
/// its answers, in order; A queries get the IPv4 ones, AAAA the IPv6 ones; unknown names
/// get NXDOMAIN. Runs until the test's runtime ends.
pub(crate) async fn dns_server(zone: &[(&str, &[&str])]) -> SocketAddr {
    let zone: HashMap<String, Vec<IpAddr>> = zone
        .iter()
        .map(|(name, ips)| {
            let ips = ips.iter().map(|s| s.parse().expect("test IP")).collect();
            ((*name).to_owned(), ips)
        })
        .collect();
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = socket.local_addr().unwrap();
    tokio::spawn(async move {
        let mut buf = vec![0_u8; 4096];
        loop {
            let Ok((n, peer)) = socket.recv_from(&mut buf).await else {
                return;
            };
            let Ok(query) = Message::from_vec(&buf[..n]) else {
                continue;
            };
            let reply = answer(&zone, &query);
            let _ = socket.send_to(&reply.to_vec().unwrap(), peer).await;
        }
    });
    addr
}

fn answer(zone: &HashMap<String, Vec<IpAddr>>, query: &Message) -> Message {
    let mut reply = Message::response(query.metadata.id, query.metadata.op_code);
    reply.metadata.recursion_desired = query.metadata.recursion_desired;
    reply.metadata.recursion_available = true;
    reply.metadata.authoritative = true;
    let mut known = false;
    for q in &query.queries {
        reply.add_query(q.clone());
        let name = q
            .name()
            .to_ascii()
            .trim_end_matches('.')
            .to_ascii_lowercase();
        let Some(ips) = zone.get(&name) else { continue };
        known = true;
        let owner = Name::from_ascii(q.name().to_ascii()).unwrap();
        for ip in ips {
            let rdata = match (ip, q.query_type()) {
                (IpAddr::V4(v4), RecordType::A) => RData::A(A(*v4)),
                (IpAddr::V6(v6), RecordType::AAAA) => RData::AAAA(AAAA(*v6)),
                _ => continue,
            };
            reply.add_answer(Record::from_rdata(owner.clone(), 60, rdata));
        }
    }
    if !known {
        reply.metadata.response_code = ResponseCode::NXDomain;
    }
    reply
}

/// What the HTTP test server answers.
#[derive(Clone)]
pub(crate) enum Reply {
    /// These bytes, then close.
    Raw(Vec<u8>),
    /// A 200 head without `Content-Length`, then one byte every `every`, forever.
    Dribble { every: Duration },
    /// Count the connection and close it without reading (a TLS client sees the
    /// handshake fail at once).
    Close,
    /// By request path (the request target up to `?`); 404 for other paths.
    Routes(Vec<(String, Reply)>),
}

impl Reply {
    /// `302 Found` to `location`.
    pub(crate) fn redirect(location: &str) -> Self {
        Self::Raw(
            format!(
                "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            .into_bytes(),
        )
    }

    /// `200 OK` with `body` and its `Content-Length`.
    pub(crate) fn ok(content_type: &str, body: &[u8]) -> Self {
        let mut raw = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        raw.extend_from_slice(body);
        Self::Raw(raw)
    }

    /// `404 Not Found`.
    pub(crate) fn not_found() -> Self {
        Self::Raw(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
        )
    }

    /// `200 OK` with a JSON body.
    pub(crate) fn json(value: &serde_json::Value) -> Self {
        Self::ok("application/json", value.to_string().as_bytes())
    }

    /// The reply for a request to `path`.
    fn for_path(self, path: &str) -> Self {
        match self {
            Self::Routes(routes) => routes
                .into_iter()
                .find(|(p, _)| p == path)
                .map_or_else(Self::not_found, |(_, r)| r),
            other => other,
        }
    }

    /// `200 OK` with `body` delimited by closing the connection (no length).
    pub(crate) fn ok_until_close(body: &[u8]) -> Self {
        let mut raw = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n".to_vec();
        raw.extend_from_slice(body);
        Self::Raw(raw)
    }
}

/// An HTTP server on `127.0.0.1:<port>` answering every connection with one reply.
pub(crate) struct HttpServer {
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    hits: Arc<AtomicUsize>,
}

impl HttpServer {
    /// Starts the server.
    pub(crate) async fn start(reply: Reply) -> Self {
        Self::start_with(|_| reply).await
    }

    /// Starts the server with a reply built from its own address (for documents that
    /// name their own URL).
    pub(crate) async fn start_with(reply: impl FnOnce(SocketAddr) -> Reply) -> Self {
        Self::listen(reply, None).await
    }

    /// Starts the server behind TLS with the test certificate
    /// (`tests/fixtures/tls/server.pem`: `loop.example-public.net`,
    /// `redirect.example-public.net`, `127.0.0.1`; issued by [`test_root`]).
    pub(crate) async fn start_tls(reply: Reply) -> Self {
        let dir = tls_dir();
        let chain = CertificateDer::pem_file_iter(dir.join("server.pem"))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let key = PrivateKeyDer::from_pem_file(dir.join("server.key")).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
        Self::listen(|_| reply, Some(TlsAcceptor::from(Arc::new(config)))).await
    }

    async fn listen(reply: impl FnOnce(SocketAddr) -> Reply, tls: Option<TlsAcceptor>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let reply = reply(addr);
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = hits.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                let reply = reply.clone();
                if matches!(reply, Reply::Close) {
                    continue;
                }
                let tls = tls.clone();
                tokio::spawn(async move {
                    match tls {
                        Some(acceptor) => {
                            if let Ok(s) = acceptor.accept(stream).await {
                                serve(s, reply).await;
                            }
                        }
                        None => serve(stream, reply).await,
                    }
                });
            }
        });
        Self { addr, hits }
    }

    /// Connections accepted so far.
    pub(crate) fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// `http://127.0.0.1:<port><path>`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// Answers one connection: reads the request head, writes the reply for its path.
async fn serve(mut stream: impl AsyncRead + AsyncWrite + Unpin, reply: Reply) {
    // Read (and ignore) the request head: up to the blank line or 8 KiB.
    let mut head = Vec::new();
    let mut buf = [0_u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 8192 {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    // The request target: second word of the request line, up to `?`.
    let line = head.split(|b| *b == b'\r').next().unwrap_or_default();
    let target = String::from_utf8_lossy(line)
        .split(' ')
        .nth(1)
        .unwrap_or("/")
        .split('?')
        .next()
        .unwrap_or("/")
        .to_owned();
    match reply.for_path(&target) {
        Reply::Raw(bytes) => {
            let _ = stream.write_all(&bytes).await;
        }
        Reply::Routes(_) | Reply::Close => unreachable!("resolved before serving"),
        Reply::Dribble { every } => {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
                .await;
            while stream.write_all(b".").await.is_ok() {
                tokio::time::sleep(every).await;
            }
        }
    }
    let _ = stream.shutdown().await;
}

fn tls_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls")
}

/// The root certificate that issued the test server certificate (its key was
/// discarded after issuing).
pub(crate) fn test_root() -> CertificateDer<'static> {
    CertificateDer::from_pem_file(tls_dir().join("ca.pem")).unwrap()
}
