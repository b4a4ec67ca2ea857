//! `mcp-bastion wrap`: the stdio gateway (DESIGN §3, §4).
//!
//! The host starts `mcp-bastion wrap --name N -- CMD ARGS…` instead of the server. Bastion
//! spawns the server, relays both directions concurrently (a reader and a writer task
//! per pipe, queues bounded in bytes, so a full pipe on one side never stalls the
//! other), and stops the server when the host goes away:
//!
//! 1. host closes stdin → the server's stdin is closed after queued frames are written;
//! 2. the server gets `grace` to exit, then SIGTERM (its process group), then SIGKILL;
//! 3. when the server exits, pending host requests are answered with `upstream_exited`
//!    and the gateway exits with the server's exit code.

use crate::audit::AuditSink;
use crate::io::{FrameReader, Outbox, write_frames};
use crate::pinning::{PinMode, Pinning};
use crate::relay::Relay;
pub use crate::server_process::EarlyServer;
use crate::server_process::Upstream;
use crate::{GatewayError, child};
use bastion_core::Limits;
use bastion_core::finding::{Code, Verdict};
use bastion_core::pins::LaunchConfig;
use bastion_core::result::ResultOptions;
use bastion_core::sanitize::sanitize_text;
use readers::{read_host, read_server};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

mod readers;

/// Everything `wrap` needs.
#[derive(Debug, Clone)]
pub struct WrapConfig {
    /// Server name (`--name`), used in audit events, error data and stderr prefixes.
    pub name: String,
    /// The server's exact argv.
    pub command: Vec<String>,
    /// Size, depth and time limits.
    pub limits: Limits,
    /// Result sanitizing options.
    pub result: ResultOptions,
    /// How long the server may take to exit after its stdin closes, ms (default 2000).
    pub grace_ms: u64,
    /// Descriptor pinning and launch-config checks; `None` disables them.
    pub pinning: Option<PinningSetup>,
    /// Tool-call confirmation (policy, channels, grants); `None` forwards every call
    /// that passes the other checks.
    pub confirmation: Option<crate::confirm::ConfirmSetup>,
    /// Elicitation mediation: URL gate policy and the consent-ledger store (without a
    /// store, URL-mode requests are refused).
    pub elicitation: crate::relay::ElicitSetup,
    /// A signed contract (verified by the caller) whose entries the listings must match;
    /// anything else is withheld and its calls refused (`contract_mismatch`).
    pub contract: Option<Arc<bastion_core::publish::ContractIndex>>,
    /// Publisher mode (`mcp-bastion publish`): cache hints from the contract, and
    /// `list_changed` withheld while the contract is not the active one.
    pub publish: Option<crate::relay::PublishSetup>,
    /// A remote server over Streamable HTTP (`wrap --url`) instead of `command`.
    pub remote: Option<RemoteServer>,
}

/// A remote MCP server (`wrap --url`).
#[derive(Debug, Clone)]
pub struct RemoteServer {
    /// The MCP endpoint (`https://…/mcp`).
    pub url: String,
    /// The client every request goes through (URL gate, vetting resolver, no proxy).
    pub fetcher: crate::fetch::SafeFetcher,
    /// Headers sent with every request (e.g. `Authorization`).
    pub headers: reqwest::header::HeaderMap,
    /// The OAuth client (`--oauth`): its token goes in `Authorization`, and a 401 with a
    /// `Bearer` challenge runs discovery and the authorization flow, then the request is
    /// sent once more. `None`: a 401 is answered `upstream_unavailable`.
    pub oauth: Option<crate::oauth::OAuthClient>,
}

/// Where pins live and how strictly they apply.
#[derive(Debug, Clone)]
pub struct PinningSetup {
    /// The store holding pins (the audit store).
    pub store: bastion_store::Store,
    /// `tofu` or `strict`.
    pub mode: PinMode,
}

/// The launch config pinned for `name` running `command`: the exact argv and the
/// environment variables that change what runs (loaders and preloads such as
/// `NODE_OPTIONS`, `LD_PRELOAD`, `PYTHONPATH`, and `PATH`) as this process sees them.
/// Other variables are left out: they differ between shells and hosts without changing
/// the server.
pub fn launch_config(name: &str, command: &[String]) -> LaunchConfig {
    let env = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| bastion_core::pins::is_loader_variable(k))
        .collect();
    LaunchConfig {
        name: name.to_owned(),
        command: command.first().cloned(),
        args: command.iter().skip(1).cloned().collect(),
        env,
        url: None,
    }
}

impl WrapConfig {
    /// A config with default limits for `name` and `command`.
    pub fn new(name: impl Into<String>, command: Vec<String>) -> Self {
        Self {
            name: name.into(),
            command,
            limits: Limits::default(),
            result: ResultOptions::default(),
            grace_ms: 2000,
            pinning: None,
            confirmation: None,
            elicitation: crate::relay::ElicitSetup::default(),
            contract: None,
            publish: None,
            remote: None,
        }
    }
}

/// Why the relay stopped waiting on the host.
enum HostEnd {
    /// The host closed its stdin.
    Closed,
    /// The host stopped reading our stdout.
    Gone,
    /// SIGTERM or SIGINT.
    Signal,
    /// A session-long task (deadlines, pin watching) kept failing (see [`supervised`]).
    Broken,
}

/// How often a session-long task is started again after a panic before the session ends.
const TASK_RESTARTS: u32 = 3;

/// The exit code of a session ended by an internal failure (DESIGN §3: 3, internal or
/// upstream failure).
pub(crate) const INTERNAL_FAILURE: i32 = 3;

/// Runs the session-long task `start` makes (`what`: deadlines, pin watching) until it
/// ends; when it panics (a bug: the panic hook has printed the location), says so on
/// stderr and starts it again, up to [`TASK_RESTARTS`] times; after that it notifies
/// `broken`, and the gateway stops the server and exits with code 3, so that no request
/// waits for a deadline nobody keeps.
async fn supervised<F, Fut>(name: String, what: &'static str, broken: Arc<Notify>, mut start: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = ()>,
{
    use futures_util::FutureExt;
    for failures in 1..=TASK_RESTARTS + 1 {
        if std::panic::AssertUnwindSafe(start())
            .catch_unwind()
            .await
            .is_ok()
        {
            return;
        }
        if failures <= TASK_RESTARTS {
            eprintln!(
                "mcp-bastion[{name}]: the {what} task failed inside mcp-bastion (a bug: please report it with the location printed above); started again ({failures} of {TASK_RESTARTS})"
            );
        }
    }
    eprintln!(
        "mcp-bastion[{name}]: the {what} task failed inside mcp-bastion {} times; stopping the server, and pending requests are answered (reason upstream_exited)",
        TASK_RESTARTS + 1
    );
    broken.notify_one();
}

/// Runs the gateway until the server exits; returns the exit code to use (the server's,
/// or 128 + signal).
///
/// # Errors
/// [`GatewayError::NoCommand`]/[`GatewayError::Spawn`] when the server cannot start,
/// [`GatewayError::Io`] on errors waiting for it.
pub async fn wrap<R, W>(
    cfg: WrapConfig,
    host_in: R,
    host_out: W,
    audit: AuditSink,
) -> Result<i32, GatewayError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    run(cfg, None, host_in, host_out, audit).await
}

/// [`wrap`] for a server already started with [`EarlyServer::start`]: the launch
/// config is checked (and pinning opened) first; a refused launch kills the server's
/// process group and returns the error [`wrap`] would.
///
/// # Errors
/// As [`wrap`]; [`GatewayError::EarlyStart`] (the server killed) unless `cfg` has
/// `tofu` pinning and no remote server: only then may a server start before its check.
pub async fn wrap_early<R, W>(
    cfg: WrapConfig,
    server: EarlyServer,
    host_in: R,
    host_out: W,
    audit: AuditSink,
) -> Result<i32, GatewayError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let tofu = cfg
        .pinning
        .as_ref()
        .is_some_and(|p| p.mode == PinMode::Tofu);
    if !tofu || cfg.remote.is_some() {
        // Dropping the server kills its process group.
        return Err(GatewayError::EarlyStart);
    }
    run(cfg, Some(server), host_in, host_out, audit).await
}

async fn run<R, W>(
    cfg: WrapConfig,
    early: Option<EarlyServer>,
    host_in: R,
    host_out: W,
    audit: AuditSink,
) -> Result<i32, GatewayError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    #[cfg(feature = "failpoints")]
    set_failpoints();
    // Compile the detectors and the sanitizers while the server starts, not on its first
    // answer (a no-op when the caller started it earlier, as `mcp-bastion wrap` does).
    crate::start_warm_up();
    // The launch config is checked before anything is started: in strict mode a new or
    // changed command must not run until it is approved. A server started early is
    // stopped, with its process group, when the check refuses or fails (it is dropped).
    let opening = match &cfg.pinning {
        Some(setup) => Some(open_pinning(&cfg, setup, &audit).await?),
        None => None,
    };
    // `wrap --url`: the HTTP pump's own errors (unreachable server, refused access) reach
    // the relay on the server's path; this per-session secret, which never leaves the
    // process, tells the relay they are Bastion's (`Relay::with_http_upstream`).
    let own_mark = hex::encode(crate::os_random::<16>());
    let (mut server, server_in, server_out, server_err) =
        Upstream::start(&cfg, &audit, early, &own_mark)?;
    // The rest of pinning (server identity, loading the pins) runs while the server
    // starts up; no frame is read before it is done. On a store failure the server is
    // killed when it is dropped.
    let pinning = match opening {
        Some(opening) => Some(Arc::new(opening.finish().await?)),
        None => None,
    };
    let pgid = server.pgid();

    let (to_host, host_rx) = Outbox::new();
    let (to_server, server_rx) = Outbox::new();
    let close_host = Arc::new(Notify::new());
    let close_server = Arc::new(Notify::new());
    let mut host_writer = tokio::spawn(write_frames(host_rx, host_out, close_host.clone()));
    let server_writer = tokio::spawn(write_frames(server_rx, server_in, close_server.clone()));
    let stderr_pump = tokio::spawn({
        let name = cfg.name.clone();
        async move {
            if let Some(err) = server_err {
                pump_stderr(err, name).await;
            }
        }
    });

    let relay = Arc::new(
        Relay::new(
            cfg.name.clone(),
            cfg.limits.clone(),
            cfg.result.clone(),
            to_host,
            to_server,
            audit,
            pinning,
            cfg.confirmation.clone(),
            cfg.elicitation.clone(),
        )
        .with_contract(cfg.contract.clone())
        .with_publish(cfg.publish.clone())
        .with_http_upstream(cfg.remote.is_some().then_some(own_mark)),
    );
    // Deadlines and pin watching last the session; a panic (a bug) starts them again,
    // and after `TASK_RESTARTS` the session ends (`broken`), since requests could
    // otherwise wait forever or a revoked pin stay in use.
    let broken = Arc::new(Notify::new());
    let timers = tokio::spawn({
        let r = relay.clone();
        let (name, broken) = (cfg.name.clone(), broken.clone());
        supervised(name, "deadline", broken, move || {
            let r = r.clone();
            async move { r.run_timers().await }
        })
    });
    // The folded rows of refusal floods (`relay/refusals.rs`), once their second ends.
    let folder = tokio::spawn({
        let r = relay.clone();
        async move { r.record_folded_refusals().await }
    });
    let pin_watch = tokio::spawn({
        let r = relay.clone();
        let (name, broken) = (cfg.name.clone(), broken.clone());
        supervised(name, "pin-watching", broken, move || {
            let r = r.clone();
            async move { r.watch_pins().await }
        })
    });
    let read_timeout = Duration::from_millis(cfg.limits.read_timeout_ms);
    let mut server_reader = tokio::spawn({
        let r = relay.clone();
        let limit = cfg.limits.max_frame_bytes;
        async move { read_server(&r, FrameReader::new(server_out, limit, read_timeout)).await }
    });
    let mut host_reader = tokio::spawn({
        let r = relay.clone();
        let limit = cfg.limits.max_host_frame_bytes;
        async move { read_host(&r, FrameReader::new(host_in, limit, read_timeout)).await }
    });

    let grace = Duration::from_millis(cfg.grace_ms);
    // An error waiting for the server still runs the cleanup below (pending requests
    // answered, folded audit rows written) before it is returned.
    let code = tokio::select! {
        code = server.wait(&cfg.name) => code,
        end = async {
            tokio::select! {
                _ = &mut host_reader => HostEnd::Closed,
                _ = &mut host_writer => HostEnd::Gone,
                () = shutdown_signal() => HostEnd::Signal,
                () = broken.notified() => HostEnd::Broken,
            }
        } => {
            let broke = matches!(end, HostEnd::Broken);
            let why = match end {
                HostEnd::Closed => "the client closed the connection",
                HostEnd::Gone => {
                    eprintln!("mcp-bastion[{}]: the client stopped reading; stopping the server", cfg.name);
                    "the client stopped reading"
                }
                HostEnd::Signal => {
                    eprintln!("mcp-bastion[{}]: signal received; stopping the server", cfg.name);
                    "the gateway is shutting down"
                }
                HostEnd::Broken => "the gateway failed internally",
            };
            // Requests the host can no longer receive answers to: the server may stop them.
            relay.cancel_all_upstream(why);
            close_server.notify_one();
            // An internal failure is exit code 3 (DESIGN §3), whatever the server said.
            server.stop(grace).await.map(|code| if broke { INTERNAL_FAILURE } else { code })
        }
    };

    // The server is gone: read what it wrote before exiting, then answer the rest.
    if tokio::time::timeout(Duration::from_secs(2), &mut server_reader)
        .await
        .is_err()
    {
        server_reader.abort();
        // Awaited after the abort: on a multi-thread runtime the task may still be
        // running (folding a refusal) until then.
        let _ = server_reader.await;
    }
    // Bounded: a host that stopped reading must not keep the gateway alive.
    let _ = tokio::time::timeout(Duration::from_secs(2), relay.fail_all_pending()).await;
    timers.abort();
    folder.abort();
    let _ = folder.await;
    if tokio::time::timeout(Duration::from_secs(2), relay.flush_refusals())
        .await
        .is_err()
    {
        eprintln!(
            "mcp-bastion[{}]: the audit store did not take the last folded refusal rows within 2 s; they are missing from the audit",
            cfg.name
        );
    }
    pin_watch.abort();
    host_reader.abort();
    close_server.notify_one();
    let _ = tokio::time::timeout(Duration::from_secs(1), server_writer).await;
    if let Some(pgid) = pgid {
        // Children of the server that outlived it (e.g. `npx` → `node`).
        child::signal_group_id(pgid, nix::sys::signal::Signal::SIGKILL);
    }
    drop(relay);
    close_host.notify_one();
    let _ = tokio::time::timeout(Duration::from_secs(2), &mut host_writer).await;
    stderr_pump.abort();
    Ok(code?)
}

/// Opens pinning, checks the launch config, reports drift (stderr, audit) and refuses a
/// launch config that strict pinning has not approved.
async fn open_pinning(
    cfg: &WrapConfig,
    setup: &PinningSetup,
    audit: &AuditSink,
) -> Result<crate::pinning::Opening, GatewayError> {
    let mut launch = launch_config(&cfg.name, &cfg.command);
    if let Some(remote) = &cfg.remote {
        // A remote server's identity is its URL: this process's loader variables change
        // nothing about what runs there.
        launch.url = Some(remote.url.clone());
        launch.env.clear();
    }
    let (opening, check) =
        Pinning::check_launch(setup.store.clone(), &launch, setup.mode, crate::now_ms()).await?;
    if !check.findings.is_empty() || check.refused {
        let why: Vec<String> = check.findings.iter().map(|f| f.message.clone()).collect();
        let first_launch = why.is_empty();
        let why = if first_launch {
            "this launch config was never approved (strict pinning)".to_owned()
        } else {
            why.join("; ")
        };
        let verdict = if check.refused {
            Verdict::Block
        } else {
            Verdict::Flag
        };
        let mut event = bastion_store::AuditEvent {
            direction: "gateway".into(),
            message_kind: Some("launch_config".into()),
            tool: Some(cfg.name.clone()),
            verdict: verdict.as_str().into(),
            reason: Some(Code::DescriptorChanged.as_str().into()),
            ..bastion_store::AuditEvent::default()
        };
        event.codes = vec![Code::DescriptorChanged.as_str().into()];
        audit.record(event).await;
        if first_launch {
            eprintln!("mcp-bastion[{}]: {why}", cfg.name);
        } else {
            eprintln!(
                "mcp-bastion[{}]: the server's launch config changed since it was approved: {why}",
                cfg.name
            );
        }
        if check.refused {
            // The server identity is recorded as not approved (`pins` lists it).
            opening.finish().await?;
            return Err(GatewayError::LaunchNotApproved {
                name: cfg.name.clone(),
                pin_id: check.pin_id,
                why,
            });
        }
    }
    Ok(opening)
}

/// Test builds only (feature `failpoints`): the fail points `FAILPOINTS` names
/// (`name=actions;...`, the `fail` crate's syntax), once per process; each is reported
/// on stderr, a malformed one is reported and skipped.
#[cfg(feature = "failpoints")]
pub(crate) fn set_failpoints() {
    static SET: std::sync::Once = std::sync::Once::new();
    SET.call_once(|| {
        let Ok(spec) = std::env::var("FAILPOINTS") else {
            return;
        };
        for point in spec.split(';').filter(|p| !p.trim().is_empty()) {
            let (name, actions) = point.split_once('=').unwrap_or((point, ""));
            let name = name.trim();
            match fail::cfg(name, actions.trim()) {
                Ok(()) => eprintln!("mcp-bastion: test build: fail point {name:?} set"),
                Err(e) => eprintln!("mcp-bastion: test build: fail point {name:?} ignored: {e}"),
            }
        }
    });
}

/// Test builds only (feature `failpoints`): waits the milliseconds fail point `name`
/// carries (`name=return(MS)`) on the runtime's timer, so the gateway's other tasks go
/// on meanwhile (the `fail` crate's own `sleep` and `delay` block the thread).
#[cfg(feature = "failpoints")]
pub(crate) async fn failpoint_delay(name: &str) {
    let ms = fail::eval(name, |arg| arg.and_then(|a| a.trim().parse::<u64>().ok())).flatten();
    if let Some(ms) = ms {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}

/// Copies the server's stderr to ours, line by line, prefixed with `[name]` and without
/// terminal control sequences. Lines are read with a bounded buffer.
pub(crate) async fn pump_stderr<R: AsyncRead + Unpin>(err: R, name: String) {
    let mut lines = BufReader::new(err);
    let mut out = tokio::io::stderr();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = match (&mut lines)
            .take(64 * 1024)
            .read_until(b'\n', &mut buf)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let text = String::from_utf8_lossy(&buf[..n]);
        let clean = sanitize_text(text.trim_end_matches(['\n', '\r']));
        let line = format!("[{name}] {}\n", clean.text);
        if out.write_all(line.as_bytes()).await.is_err() {
            return;
        }
    }
}

pub(crate) async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
