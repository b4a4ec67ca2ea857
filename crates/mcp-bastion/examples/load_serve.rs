//! Load benchmark of `mcp-bastion serve` (issue 8 §6) with a native driver and a native
//! upstream, so neither side's interpreter is what gets measured:
//!
//! ```sh
//! cargo build --release -p mcp-bastion --bins --example load_serve
//! target/release/examples/load_serve [--binary target/release/mcp-bastion] \
//!     [--sessions 200] [--calls 20000] [--upstream stdio|http] [--json-answers] \
//!     [--serve-threads N]
//! ```
//!
//! The upstream is this program itself, an MCP echo server whose `echo {n, text}` answers
//! `n` bytes of text plus `structuredContent` (the shape of
//! `../shared/bench/echo_server.py`). SESSIONS hosts run at once, each sequential, CALLS
//! `tools/call echo` in all.
//!
//! `--upstream stdio` (the default), a local server command:
//! - `direct`: each host starts its own echo server (`--echo-server`) and talks stdio to
//!   it;
//! - `serve`: one `mcp-bastion serve -- ECHO` on loopback, each host a session of its own
//!   over HTTP/1.1 keep-alive, and so an echo server process of its own behind the
//!   listener. The ratio then also holds the cost of HTTP itself, which direct stdio does
//!   not pay.
//!
//! `--upstream http`, a remote server: one Streamable HTTP echo server
//! (`--echo-http-server`, legacy era without sessions, JSON answers) on loopback;
//! - `direct`: every host talks HTTP to it;
//! - `serve`: `mcp-bastion serve --upstream URL --allow-http-loopback`, the hosts talk
//!   HTTP to the listener and it to the echo server. The ratio is what putting Bastion in
//!   front of a remote server costs.
//!
//! `--json-answers` runs `serve --json-answers` (an answer that comes first is sent as
//! `application/json`, not as an event stream). `--serve-threads N` runs `serve --threads
//! N` (default 1). Every tool is allowed by config.
//!
//! `--trivial-proxy` (with `--upstream http`) also measures `proxy`: a minimal HTTP
//! forwarder (`--echo-proxy URL`, this program: hyper via axum in, reqwest out, the
//! body passed as bytes, nothing checked, no audit). Its ratio is what any HTTP-in,
//! HTTP-out hop costs on this machine, the ceiling for `serve --upstream`.
//!
//! `--rate R` paces the calls instead of sending each as soon as the last is answered:
//! host `h`'s call `i` is due at `(i × SESSIONS + h) / R` seconds, and its latency runs
//! from when it was due (a late call counts its wait: no coordinated omission). Below
//! saturation the added latency is the gateway's own per call, not queueing. Prints one JSON object: per mode calls/s, p50/p99
//! round trip (ms); for `serve` the listener's resident memory (`VmRSS`, without its
//! server processes) before any session, with one session open (which pays the
//! process's one-time costs: the detectors compiled on the first session, the code pages
//! it touches) and with every session open and idle, and what each further idle session
//! costs (`kib_per_idle_session`; with the one-time costs spread over the sessions:
//! `kib_per_idle_session_with_first`); the listener's own CPU per call while the calls ran
//! (`listener_cpu_us_per_call`, not its server processes); then the added p50/p99 and the
//! throughput ratio.

#![allow(clippy::cast_precision_loss)] // figures for a report, not arithmetic

use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const INIT: &str = r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}"#;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--echo-server") => return echo_server(),
        Some("--echo-http-server") => return echo_http_server(),
        Some("--echo-proxy") => return echo_proxy(args.get(1).cloned().unwrap_or_default()),
        _ => {}
    }
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let sessions: usize = flag("--sessions").map_or(Ok(200), |s| s.parse())?;
    let calls: usize = flag("--calls").map_or(Ok(20_000), |s| s.parse())?;
    let http_upstream = match flag("--upstream").as_deref() {
        None | Some("stdio") => false,
        Some("http") => true,
        Some(other) => anyhow::bail!("--upstream stdio|http, not {other:?}"),
    };
    let json_answers = args.iter().any(|a| a == "--json-answers");
    let serve_threads = flag("--serve-threads");
    let trivial_proxy = args.iter().any(|a| a == "--trivial-proxy");
    if trivial_proxy && !http_upstream {
        anyhow::bail!("--trivial-proxy needs --upstream http");
    }
    let rate: Option<f64> = flag("--rate").map(|r| r.parse()).transpose()?;
    let pace = Pace { sessions, rate };
    let binary = flag("--binary").unwrap_or_else(|| {
        let exe = std::env::current_exe().unwrap_or_default();
        // target/<profile>/examples/load_serve → target/<profile>/mcp-bastion
        exe.parent()
            .and_then(std::path::Path::parent)
            .map(|d| d.join("mcp-bastion").display().to_string())
            .unwrap_or_default()
    });
    let per_host = (calls / sessions.max(1)).max(1);
    // reqwest is built without a default TLS provider (the gateway picks ring).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        // `http`: one native Streamable HTTP echo server that the direct hosts and
        // `serve --upstream` share, as a remote server would be.
        let upstream = if http_upstream {
            Some(Upstream::start().await?)
        } else {
            None
        };
        let direct_target = match &upstream {
            Some(u) => Target::Http {
                url: u.url.clone(),
                token: String::new(),
            },
            None => Target::Stdio,
        };
        let direct = run_hosts(pace, per_host, &direct_target, None).await?;
        let proxy = match (&upstream, trivial_proxy) {
            (Some(u), true) => {
                let forwarder = Upstream::start_with(&["--echo-proxy", &u.url]).await?;
                let via = Target::Http {
                    url: forwarder.url.clone(),
                    token: String::new(),
                };
                Some(run_hosts(pace, per_host, &via, None).await?)
            }
            _ => None,
        };
        let served = Served::start(
            &binary,
            sessions + 1,
            upstream.as_ref().map(|u| u.url.as_str()),
            json_answers,
            serve_threads.as_deref(),
        )
        .await?;
        let through = Target::Http {
            url: served.url.clone(),
            token: served.token.clone(),
        };
        let rss_before = served.rss_before;
        // One session first, kept open and idle: it pays what every process pays once
        // (the detectors' automata, compiled on the first session; the code it touches).
        let mut first = Host::open(&through)?;
        first
            .request("initialize", serde_json::from_str(INIT)?)
            .await?;
        first.notify("notifications/initialized").await?;
        first.request("tools/list", json!({})).await?;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let rss_one = rss_kib(served.pid);
        let serve = run_hosts(pace, per_host, &through, Some(served.pid)).await?;
        let after = rss_kib(served.pid);
        drop(first);
        served.stop().await;
        let mut out = json!({
            "sessions": sessions,
            "upstream": if http_upstream { "http" } else { "stdio" },
            "json_answers": json_answers,
            "serve_threads": serve_threads.as_deref().unwrap_or("1"),
            "calls_per_host": per_host,
            "rate_per_s": rate,
            "direct": direct.json(),
            "serve": serve.json(),
        });
        out["serve"]["rss_kib_before_sessions"] = json!(rss_before);
        out["serve"]["rss_kib_one_session"] = json!(rss_one);
        out["serve"]["rss_kib_sessions_idle"] = json!(serve.idle_rss);
        // What each further idle session costs.
        out["serve"]["kib_per_idle_session"] =
            json!((serve.idle_rss.saturating_sub(rss_one)) as f64 / sessions as f64);
        // The same with the one-time cost spread over the sessions (the figure before).
        out["serve"]["kib_per_idle_session_with_first"] =
            json!((serve.idle_rss.saturating_sub(rss_before)) as f64 / (sessions + 1) as f64);
        out["serve"]["rss_kib_after_load"] = json!(after);
        out["added_p50_ms"] = json!(serve.pct(0.5) - direct.pct(0.5));
        out["added_p99_ms"] = json!(serve.pct(0.99) - direct.pct(0.99));
        out["throughput_ratio"] = json!(serve.per_sec() / direct.per_sec());
        if let Some(proxy) = proxy {
            out["proxy"] = proxy.json();
            out["proxy_added_p50_ms"] = json!(proxy.pct(0.5) - direct.pct(0.5));
            out["proxy_throughput_ratio"] = json!(proxy.per_sec() / direct.per_sec());
        }
        println!("{out}");
        anyhow::Ok(())
    })
}

/// The echo server's one tool.
fn echo_tools() -> Value {
    json!([{
        "name": "echo",
        "description": "Return a text content block of n bytes plus structured content.",
        "inputSchema": {"type": "object", "properties": {
            "n": {"type": "integer", "minimum": 0}, "text": {"type": "string"}},
            "required": ["n"], "additionalProperties": false},
        "outputSchema": {"type": "object", "properties": {
            "length": {"type": "integer"}, "echoed": {"type": "string"}},
            "required": ["length", "echoed"]},
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
    }])
}

/// The echo server's answer to `msg`; `None` for a notification or an answer.
fn echo_answer(msg: &Value, tools: &Value) -> Option<Value> {
    let id = msg.get("id").filter(|_| msg.get("method").is_some())?;
    let result = match msg["method"].as_str().unwrap_or_default() {
        "initialize" => json!({"protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}}),
        "tools/list" => json!({"tools": tools}),
        "tools/call" => {
            let args = &msg["params"]["arguments"];
            let n = usize::try_from(args["n"].as_u64().unwrap_or(0)).unwrap_or(0);
            let text = args["text"].as_str().unwrap_or_default();
            json!({"content": [{"type": "text", "text": "x".repeat(n)}],
                "structuredContent": {"length": n, "echoed": text}})
        }
        "ping" | "resources/list" | "prompts/list" => json!({}),
        _ => {
            return Some(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}}));
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// The upstream: a stdio MCP echo server, as small and fast as it can be.
fn echo_server() -> anyhow::Result<()> {
    let tools = echo_tools();
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let Ok(msg) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        if let Some(answer) = echo_answer(&msg, &tools) {
            writeln!(out, "{answer}")?;
            out.flush()?;
        }
    }
    Ok(())
}

/// The upstream over Streamable HTTP (legacy era, no sessions): `POST /mcp` answers a
/// request with one `application/json` message, anything else with 202. Prints
/// `listening on http://ADDR/mcp` on stdout.
fn echo_http_server() -> anyhow::Result<()> {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;
    let tools = Arc::new(echo_tools());
    serve_on_loopback(|| {
        axum::Router::new().route(
            "/mcp",
            axum::routing::post(move |body: axum::body::Bytes| {
                let tools = tools.clone();
                async move {
                    let answer = serde_json::from_slice::<Value>(&body)
                        .ok()
                        .and_then(|msg| echo_answer(&msg, &tools));
                    match answer {
                        Some(a) => ([(header::CONTENT_TYPE, "application/json")], a.to_string())
                            .into_response(),
                        None => StatusCode::ACCEPTED.into_response(),
                    }
                }
            }),
        )
    })
}

/// Runs the router `app` makes on an ephemeral loopback port until killed, after printing
/// `listening on http://ADDR/mcp` on stdout.
fn serve_on_loopback(app: impl FnOnce() -> axum::Router) -> anyhow::Result<()> {
    let app = app();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("listening on http://{}/mcp", listener.local_addr()?);
        axum::serve(listener, app).await?;
        anyhow::Ok(())
    })
}

/// The trivial forwarder (`--echo-proxy URL`): every `POST /mcp` is sent on to `URL`
/// with its body and content headers, and the answer's status, content type and body
/// come back. Prints `listening on http://ADDR/mcp` on stdout.
fn echo_proxy(upstream: String) -> anyhow::Result<()> {
    use axum::http::{HeaderMap, StatusCode, header};
    use axum::response::IntoResponse;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder().no_proxy().build()?;
    serve_on_loopback(|| {
        axum::Router::new().route(
            "/mcp",
            axum::routing::post(move |headers: HeaderMap, body: axum::body::Bytes| {
                let (client, upstream) = (client.clone(), upstream.clone());
                async move {
                    let mut request = client.post(upstream).body(body);
                    for name in [header::CONTENT_TYPE, header::ACCEPT] {
                        if let Some(v) = headers.get(&name) {
                            request = request.header(name, v);
                        }
                    }
                    let Ok(answer) = request.send().await else {
                        return StatusCode::BAD_GATEWAY.into_response();
                    };
                    let status = answer.status();
                    let kind = answer.headers().get(header::CONTENT_TYPE).cloned();
                    let Ok(bytes) = answer.bytes().await else {
                        return StatusCode::BAD_GATEWAY.into_response();
                    };
                    let mut response = (status, bytes).into_response();
                    if let Some(kind) = kind {
                        response.headers_mut().insert(header::CONTENT_TYPE, kind);
                    }
                    response
                }
            }),
        )
    })
}

/// One host's connection: stdio to its own echo server, or HTTP to `serve`.
enum Host {
    Stdio {
        _child: Box<tokio::process::Child>,
        input: tokio::process::ChildStdin,
        output: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
        n: u64,
    },
    Http {
        client: reqwest::Client,
        url: String,
        token: String,
        session: Option<String>,
        n: u64,
    },
}

impl Host {
    fn stdio() -> anyhow::Result<Self> {
        let mut child = tokio::process::Command::new(std::env::current_exe()?)
            .arg("--echo-server")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let input = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped")).lines();
        Ok(Self::Stdio {
            _child: Box::new(child),
            input,
            output,
            n: 0,
        })
    }

    fn open(target: &Target) -> anyhow::Result<Self> {
        match target {
            Target::Stdio => Self::stdio(),
            Target::Http { url, token } => Ok(Self::Http {
                client: reqwest::Client::builder().no_proxy().build()?,
                url: url.clone(),
                token: token.clone(),
                session: None,
                n: 0,
            }),
        }
    }

    /// Sends a request and returns its answer.
    async fn request(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        match self {
            Self::Stdio {
                input, output, n, ..
            } => {
                *n += 1;
                let id = *n;
                let mut line =
                    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
                        .to_string();
                line.push('\n');
                input.write_all(line.as_bytes()).await?;
                loop {
                    let line = output
                        .next_line()
                        .await?
                        .ok_or_else(|| anyhow::anyhow!("the echo server closed"))?;
                    let m: Value = serde_json::from_str(&line)?;
                    if m["id"] == id {
                        return Ok(m);
                    }
                }
            }
            Self::Http { n, .. } => {
                *n += 1;
                let id = *n;
                let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                let text = self.post(&body).await?;
                // A JSON body, or an event stream whose `data:` lines are messages.
                let messages = if text.trim_start().starts_with('{') {
                    vec![serde_json::from_str::<Value>(&text)?]
                } else {
                    text.lines()
                        .filter_map(|l| l.strip_prefix("data:"))
                        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
                        .collect()
                };
                messages
                    .into_iter()
                    .find(|m| m["id"] == id)
                    .ok_or_else(|| anyhow::anyhow!("no answer to {method}: {text:.200}"))
            }
        }
    }

    async fn notify(&mut self, method: &str) -> anyhow::Result<()> {
        let msg = json!({"jsonrpc": "2.0", "method": method});
        match self {
            Self::Stdio { input, .. } => {
                input.write_all(format!("{msg}\n").as_bytes()).await?;
            }
            Self::Http { .. } => {
                self.post(&msg).await?;
            }
        }
        Ok(())
    }

    async fn post(&mut self, body: &Value) -> anyhow::Result<String> {
        let Self::Http {
            client,
            url,
            token,
            session,
            ..
        } = self
        else {
            anyhow::bail!("not an HTTP host");
        };
        let mut request = client
            .post(url.as_str())
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", format!("Bearer {token}"))
            .header("MCP-Protocol-Version", "2025-11-25")
            .body(body.to_string());
        if let Some(s) = session {
            request = request.header("Mcp-Session-Id", s.as_str());
        }
        let response = request.send().await?;
        if let Some(s) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            *session = Some(s.to_owned());
        }
        Ok(response.text().await?)
    }
}

/// Where a host connects: an echo server of its own over stdio, or HTTP (`serve` or the
/// HTTP echo server).
enum Target {
    Stdio,
    Http { url: String, token: String },
}

/// The HTTP echo server (this program in `--echo-http-server` mode); killed on drop.
struct Upstream {
    _child: tokio::process::Child,
    url: String,
}

impl Upstream {
    async fn start() -> anyhow::Result<Self> {
        Self::start_with(&["--echo-http-server"]).await
    }

    /// This program with `args` (a mode that prints `listening on URL` first).
    async fn start_with(args: &[&str]) -> anyhow::Result<Self> {
        let mut child = tokio::process::Command::new(std::env::current_exe()?)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let line = lines
            .next_line()
            .await?
            .ok_or_else(|| anyhow::anyhow!("the HTTP echo server exited"))?;
        let url = line
            .strip_prefix("listening on ")
            .ok_or_else(|| anyhow::anyhow!("unexpected: {line}"))?
            .to_owned();
        Ok(Self { _child: child, url })
    }
}

/// A running `serve` around the echo server.
struct Served {
    child: tokio::process::Child,
    pid: u32,
    url: String,
    token: String,
    rss_before: u64,
    _home: TempHome,
}

/// A scratch directory for the listener's config, token and store; removed on drop.
struct TempHome(std::path::PathBuf);

impl Drop for TempHome {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Served {
    /// `serve` in front of a stdio echo server per session, or of `upstream` (HTTP).
    async fn start(
        binary: &str,
        sessions: usize,
        upstream: Option<&str>,
        json_answers: bool,
        threads: Option<&str>,
    ) -> anyhow::Result<Self> {
        let home = std::env::temp_dir().join(format!("bastion-load-{}", std::process::id()));
        std::fs::create_dir_all(home.join("mcp-bastion"))?;
        std::fs::write(
            home.join("mcp-bastion/config.toml"),
            "[servers.load.tools.\"*\"]\naction = \"allow\"\n",
        )?;
        let token_file = home.join("token");
        let mut command = tokio::process::Command::new(binary);
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--name", "load"])
            .args(["--max-sessions", &sessions.to_string()])
            .arg("--token-file")
            .arg(&token_file);
        if json_answers {
            command.arg("--json-answers");
        }
        if let Some(n) = threads {
            command.args(["--threads", n]);
        }
        match upstream {
            Some(url) => command.args(["--upstream", url, "--allow-http-loopback"]),
            None => command
                .arg("--")
                .arg(std::env::current_exe()?)
                .arg("--echo-server"),
        };
        let mut child = command
            .env("XDG_CONFIG_HOME", &home)
            .env(
                "MCP_BASTION_STORE",
                format!("sqlite://{}", home.join("bastion.db").display()),
            )
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let pid = child.id().unwrap_or_default();
        let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
        let url = loop {
            let line = lines
                .next_line()
                .await?
                .ok_or_else(|| anyhow::anyhow!("serve exited before listening"))?;
            if let Some(u) = line.split_whitespace().find(|w| w.starts_with("http://")) {
                break u.to_owned();
            }
        };
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let token = std::fs::read_to_string(&token_file)?.trim().to_owned();
        tokio::time::sleep(Duration::from_millis(500)).await;
        Ok(Self {
            child,
            pid,
            url,
            token,
            rss_before: rss_kib(pid),
            _home: TempHome(home),
        })
    }

    async fn stop(mut self) {
        if let Some(pid) = self.child.id() {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
        }
        let _ = tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await;
    }
}

/// Latencies of one mode and its wall time.
struct Run {
    latencies: Vec<Duration>,
    wall: Duration,
    errors: usize,
    idle_rss: u64,
    /// CPU the listener process used while the calls ran (its own threads, not its
    /// server processes), clock ticks.
    cpu_ticks: Option<u64>,
}

impl Run {
    fn pct(&self, q: f64) -> f64 {
        let mut s = self.latencies.clone();
        s.sort_unstable();
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let i = ((q * s.len() as f64) as usize).min(s.len().saturating_sub(1));
        s.get(i).map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0)
    }

    fn per_sec(&self) -> f64 {
        self.latencies.len() as f64 / self.wall.as_secs_f64()
    }

    fn json(&self) -> Value {
        let mut out = json!({"calls": self.latencies.len(), "errors": self.errors,
            "calls_per_s": self.per_sec(), "p50_ms": self.pct(0.5), "p99_ms": self.pct(0.99)});
        if let Some(ticks) = self.cpu_ticks {
            // Linux reports process CPU in clock ticks of 10 ms (USER_HZ 100).
            out["listener_cpu_us_per_call"] =
                json!(ticks as f64 * 10_000.0 / self.latencies.len().max(1) as f64);
        }
        out
    }
}

/// How the hosts send their calls: `sessions` hosts, each sequential; with `rate`, each
/// call is due at a fixed time (module docs), else as soon as the last is answered.
#[derive(Clone, Copy)]
struct Pace {
    sessions: usize,
    rate: Option<f64>,
}

impl Pace {
    /// When host `h`'s call `i` is due, from the start.
    fn due(self, h: usize, i: usize) -> Option<Duration> {
        self.rate
            .map(|r| Duration::from_secs_f64((i * self.sessions + h) as f64 / r))
    }
}

/// Opens `pace.sessions` hosts (direct, or through `served`), waits until all are
/// ready, then lets each make `per_host` sequential calls at once (or paced).
async fn run_hosts(
    pace: Pace,
    per_host: usize,
    target: &Target,
    measured: Option<u32>,
) -> anyhow::Result<Run> {
    let sessions = pace.sessions;
    let ready = Arc::new(tokio::sync::Barrier::new(sessions + 1));
    let go = Arc::new(tokio::sync::Barrier::new(sessions + 1));
    let mut tasks = tokio::task::JoinSet::new();
    for h in 0..sessions {
        let mut host = Host::open(target)?;
        let (ready, go) = (ready.clone(), go.clone());
        tasks.spawn(async move {
            let opened = async {
                host.request("initialize", serde_json::from_str(INIT)?)
                    .await?;
                host.notify("notifications/initialized").await?;
                host.request("tools/list", json!({})).await
            }
            .await;
            ready.wait().await;
            go.wait().await;
            let start = tokio::time::Instant::now();
            let mut mine = Vec::with_capacity(per_host);
            let mut errors = usize::from(opened.is_err());
            if opened.is_ok() {
                for i in 0..per_host {
                    let t0 = match pace.due(h, i) {
                        Some(due) => {
                            tokio::time::sleep_until(start + due).await;
                            (start + due).into_std()
                        }
                        None => Instant::now(),
                    };
                    let m = host
                        .request(
                            "tools/call",
                            json!({"name": "echo", "arguments": {"n": 100, "text": format!("x{i}")}}),
                        )
                        .await;
                    match m {
                        Ok(m) if m.get("result").is_some() => mine.push(t0.elapsed()),
                        _ => errors += 1,
                    }
                }
            }
            drop(host);
            anyhow::Ok((mine, errors))
        });
    }
    ready.wait().await;
    // Every session open and idle: the listener's memory now.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle_rss = measured.map_or(0, rss_kib);
    let cpu_before = measured.map(cpu_ticks);
    let t0 = Instant::now();
    go.wait().await;
    let mut run = Run {
        latencies: Vec::new(),
        wall: Duration::ZERO,
        errors: 0,
        idle_rss,
        cpu_ticks: None,
    };
    while let Some(done) = tasks.join_next().await {
        let (mine, errors) = done??;
        run.latencies.extend(mine);
        run.errors += errors;
    }
    run.wall = t0.elapsed();
    run.cpu_ticks = measured
        .map(cpu_ticks)
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    Ok(run)
}

/// `VmRSS` of `pid` in KiB (0 when unreadable).
/// User plus system CPU of process `pid` so far, clock ticks (`/proc/PID/stat` fields
/// 14 and 15, `proc(5)`); 0 when it cannot be read.
fn cpu_ticks(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            // The command name (field 2) may hold spaces: count from after its `)`.
            let rest = &s[s.rfind(')')? + 1..];
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let user: u64 = fields.get(11)?.parse().ok()?;
            let system: u64 = fields.get(12)?.parse().ok()?;
            Some(user + system)
        })
        .unwrap_or(0)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}
