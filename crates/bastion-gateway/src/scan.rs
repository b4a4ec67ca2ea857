//! `mcp-bastion scan -- CMD…`: start a server, handshake in its era, list every tool,
//! prompt, resource and resource template (all pages), and run every descriptor
//! detector — without relaying anything to a host.
//!
//! Handshake (as the official SDKs negotiate): `server/discover` at 2026-07-28 first;
//! a server that answers it and lists 2026-07-28 among `supportedVersions` is stateless
//! and every later request carries `params._meta` with the protocol version and client
//! capabilities; any other answer falls back to the legacy `initialize` handshake
//! (2025-11-25) plus `notifications/initialized`.

use crate::io::{FrameReader, ReadEvent};
use crate::{GatewayError, child};
use bastion_core::detect::DescriptorKind;
use bastion_core::envelope::{self, Id, Kind, codes};
use bastion_core::era::{Era, META_PROTOCOL_VERSION};
use bastion_core::finding::{Finding, Verdict, pointer_push};
use bastion_core::{Limits, json, lists, methods};
use serde::Serialize;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

/// Most pages fetched per list (a server that never stops paginating is cut off).
const MAX_PAGES: usize = 1000;

/// One scanned descriptor.
#[derive(Debug, Clone, Serialize)]
pub struct ScanItem {
    /// `tool`, `prompt`, `resource`, `resource_template` or `server_instructions`.
    pub kind: DescriptorKind,
    /// Its name, uri or uriTemplate.
    pub key: String,
    /// `allow`, `flag` or `block`.
    pub verdict: Verdict,
    /// Its findings; paths point into the list result (`/tools/3/description`).
    pub findings: Vec<Finding>,
    /// The descriptor exactly as the server listed it (for `contract from-server`); the
    /// instructions string for `server_instructions`. Not part of the JSON report.
    #[serde(skip)]
    pub descriptor: Value,
}

/// What `scan` found.
#[derive(Debug, Clone, Serialize)]
pub struct ScanReport {
    /// `legacy` or `stateless`.
    pub era: &'static str,
    /// Negotiated protocol version.
    pub protocol_version: Option<String>,
    /// The server's self-reported `serverInfo` (`name`, `version`, ...), unverified.
    pub server_info: Option<Value>,
    /// Every descriptor, in listing order per kind.
    pub items: Vec<ScanItem>,
    /// Problems that did not stop the scan (a list the server failed to answer).
    pub errors: Vec<String>,
}

impl ScanReport {
    /// The worst item verdict (`allow` when empty).
    pub fn verdict(&self) -> Verdict {
        self.items
            .iter()
            .map(|i| i.verdict)
            .max()
            .unwrap_or(Verdict::Allow)
    }
}

struct Client<R, W> {
    reader: FrameReader<R>,
    writer: W,
    next_id: i64,
    limits: Limits,
    timeout: Duration,
    era: Era,
    version: String,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Client<R, W> {
    async fn send(&mut self, msg: &Value) -> Result<(), GatewayError> {
        let mut bytes = serde_json::to_vec(msg).unwrap_or_default();
        bytes.push(b'\n');
        self.writer.write_all(&bytes).await?;
        self.writer.flush().await?;
        Ok(())
    }

    fn params(&self, mut params: Value) -> Value {
        if self.era == Era::Stateless
            && let Some(obj) = params.as_object_mut()
        {
            obj.insert(
                "_meta".into(),
                json!({
                    META_PROTOCOL_VERSION: self.version,
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "mcp-bastion-scan", "version": env!("CARGO_PKG_VERSION")}
                }),
            );
        }
        params
    }

    /// Sends a request and waits for its answer: `Ok(Ok(result))` or `Ok(Err(error))`.
    /// Server requests arriving meanwhile are answered with "method not found";
    /// notifications are ignored; frames failing the strict checks are reported.
    async fn request(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<Result<Value, Value>, GatewayError> {
        self.next_id += 1;
        let id = self.next_id;
        let params = self.params(params);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        let deadline = tokio::time::Instant::now() + self.timeout;
        loop {
            let ev = tokio::time::timeout_at(deadline, self.reader.next())
                .await
                .map_err(|_| {
                    GatewayError::Protocol(format!(
                        "no answer to {method} within {} ms",
                        self.timeout.as_millis()
                    ))
                })??;
            let frame = match ev {
                ReadEvent::Frame(f) => f,
                ReadEvent::Eof => {
                    return Err(GatewayError::Protocol(format!(
                        "the server exited while answering {method}"
                    )));
                }
                ReadEvent::Oversized { bytes, .. } => {
                    return Err(GatewayError::Protocol(format!(
                        "answer to {method} exceeds the frame limit ({bytes} bytes)"
                    )));
                }
                ReadEvent::PartialTimeout { .. } => {
                    return Err(GatewayError::Protocol(format!(
                        "answer to {method} stayed incomplete"
                    )));
                }
            };
            let map = json::parse_frame(&frame, self.limits.max_depth).map_err(|r| {
                GatewayError::Protocol(format!("answer to {method} refused: {}", r.error))
            })?;
            match envelope::classify(&map)
                .map_err(|e| GatewayError::Protocol(format!("{method}: {e}")))?
            {
                Kind::Result { id: Id::Int(got) } if got == i128::from(id) => {
                    let result = map.get("result").cloned().unwrap_or(Value::Null);
                    methods::check_result(method, &result)
                        .map_err(|e| GatewayError::Protocol(e.to_string()))?;
                    return Ok(Ok(result));
                }
                Kind::Error {
                    id: Some(Id::Int(got)),
                    ..
                } if got == i128::from(id) => {
                    return Ok(Err(map.get("error").cloned().unwrap_or(Value::Null)));
                }
                Kind::Request { .. } => {
                    let reply = envelope::error_response(
                        map.get("id"),
                        codes::METHOD_NOT_FOUND,
                        "mcp-bastion scan does not serve client features",
                        Value::Null,
                    );
                    let reply: Value = serde_json::from_slice(&reply).unwrap_or(Value::Null);
                    self.send(&reply).await?;
                }
                _ => {}
            }
        }
    }
}

/// Scans the server started from `argv`.
///
/// # Errors
/// [`GatewayError::Spawn`] when it cannot start, [`GatewayError::Protocol`] when it
/// does not complete a handshake.
pub async fn scan(
    argv: &[String],
    limits: &Limits,
    name: &str,
) -> Result<ScanReport, GatewayError> {
    let mut server = child::spawn(argv)?;
    let stdin = server
        .stdin
        .take()
        .ok_or_else(|| GatewayError::Protocol("server stdin unavailable".into()))?;
    let stdout = server
        .stdout
        .take()
        .ok_or_else(|| GatewayError::Protocol("server stdout unavailable".into()))?;
    if let Some(err) = server.stderr.take() {
        tokio::spawn(crate::wrap::pump_stderr(err, name.to_owned()));
    }
    let mut client = Client {
        reader: FrameReader::new(
            stdout,
            limits.max_frame_bytes,
            Duration::from_millis(limits.read_timeout_ms),
        ),
        writer: stdin,
        next_id: 0,
        limits: limits.clone(),
        timeout: Duration::from_millis(limits.request_timeout_ms),
        era: Era::Legacy,
        version: "2025-11-25".into(),
    };
    let outcome = run(&mut client).await;
    drop(client);
    let _ = child::stop(&mut server, Duration::from_secs(2)).await;
    if let Some(pgid) = server.id() {
        child::signal_group_id(pgid, nix::sys::signal::Signal::SIGKILL);
    }
    outcome
}

async fn run<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    c: &mut Client<R, W>,
) -> Result<ScanReport, GatewayError> {
    // A legacy server may ignore an unknown method before `initialize`: probe briefly.
    let full = c.timeout;
    c.timeout = full.min(Duration::from_secs(5));
    let discover = c
        .request(
            "server/discover",
            json!({"_meta": {META_PROTOCOL_VERSION: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await;
    c.timeout = full;
    let supports_stateless = |r: &Value| {
        r.get("supportedVersions")
            .and_then(Value::as_array)
            .is_some_and(|v| v.iter().any(|x| x == "2026-07-28"))
    };
    let handshake = match discover {
        Ok(Ok(r)) if supports_stateless(&r) => {
            c.era = Era::Stateless;
            c.version = "2026-07-28".into();
            r
        }
        _ => {
            let init = c
                .request(
                    "initialize",
                    json!({"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "mcp-bastion-scan", "version": env!("CARGO_PKG_VERSION")}}),
                )
                .await?
                .map_err(|e| GatewayError::Protocol(format!("initialize failed: {e}")))?;
            init.get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or("2025-11-25")
                .clone_into(&mut c.version);
            c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .await?;
            init
        }
    };
    let server_info = handshake
        .get("serverInfo")
        .or_else(|| {
            handshake
                .get("_meta")
                .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
        })
        .cloned();
    let mut report = ScanReport {
        era: c.era.as_str(),
        protocol_version: Some(c.version.clone()),
        server_info,
        items: Vec::new(),
        errors: Vec::new(),
    };
    let instr = lists::inspect_instructions(&handshake);
    if handshake.get("instructions").is_some() {
        report.items.push(ScanItem {
            kind: DescriptorKind::ServerInstructions,
            key: "instructions".into(),
            verdict: Verdict::from_findings(&instr.findings, false),
            findings: instr.findings,
            descriptor: handshake["instructions"].clone(),
        });
    }
    let caps = handshake
        .get("capabilities")
        .cloned()
        .unwrap_or(Value::Null);
    for (method, cap) in [
        ("tools/list", "tools"),
        ("prompts/list", "prompts"),
        ("resources/list", "resources"),
        ("resources/templates/list", "resources"),
    ] {
        if caps.get(cap).is_none() {
            continue;
        }
        if let Err(e) = list_all(c, method, &mut report).await {
            report.errors.push(format!("{method}: {e}"));
        }
    }
    Ok(report)
}

async fn list_all<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    c: &mut Client<R, W>,
    method: &str,
    report: &mut ScanReport,
) -> Result<(), GatewayError> {
    let shape = lists::shape_of(method)
        .ok_or_else(|| GatewayError::Protocol(format!("{method} is not a list")))?;
    let mut cursor: Option<String> = None;
    let mut seen_cursors = std::collections::HashSet::new();
    let mut offset = 0usize;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(cur) => json!({"cursor": cur}),
            None => json!({}),
        };
        let page = c
            .request(method, params)
            .await?
            .map_err(|e| GatewayError::Protocol(format!("error answer: {e}")))?;
        let outcome = lists::inspect_list(shape, &page);
        let count = outcome.items.len();
        let listed = page
            .get(shape.member)
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for (n, mut item) in outcome.items.into_iter().enumerate() {
            // Paths point into the concatenated list, not the page.
            for f in &mut item.findings {
                if let Some(rest) = f.path.strip_prefix(&pointer_push("", shape.member)) {
                    let mut parts = rest.trim_start_matches('/').splitn(2, '/');
                    let index: usize = parts.next().and_then(|i| i.parse().ok()).unwrap_or(0);
                    let tail = parts.next().map(|t| format!("/{t}")).unwrap_or_default();
                    f.path = format!("/{}/{}{tail}", shape.member, index + offset);
                }
            }
            report.items.push(ScanItem {
                kind: shape.kind,
                key: item.key,
                verdict: item.verdict,
                findings: item.findings,
                descriptor: listed.get(n).cloned().unwrap_or(Value::Null),
            });
        }
        offset += count;
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) if seen_cursors.insert(next.to_owned()) => cursor = Some(next.to_owned()),
            Some(_) => {
                return Err(GatewayError::Protocol(format!(
                    "{method} repeated a cursor; stopped paging"
                )));
            }
            None => return Ok(()),
        }
    }
    Err(GatewayError::Protocol(format!(
        "{method} returned more than {MAX_PAGES} pages; stopped paging"
    )))
}
