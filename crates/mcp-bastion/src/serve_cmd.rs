//! `mcp-bastion serve`: one server command behind a Streamable HTTP listener for many
//! hosts (issue 8 §2). The listener logic lives in [`bastion_gateway::serve`]; this
//! module reads the flags, the token file and the config, and runs it.

use crate::{Failure, config, elicit_setup, guard_relay, input, internal, relay_config};
use anyhow::Context;
use bastion_core::http_gate::{ListenerPolicy, token_digest};
use bastion_gateway::serve::{ServeConfig, serve, token};
use bastion_gateway::{AuditSink, child};
use bastion_store::Store;
use std::net::SocketAddr;
use std::path::PathBuf;

/// Flags of `serve`.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on. Loopback by default; another address exposes the listener
    /// to the network (hosts still need the token, and `Host` must be allowed).
    #[arg(long, default_value = "127.0.0.1:8931")]
    listen: SocketAddr,
    /// Server name used in the audit log, pins and errors (default: the command's file
    /// name).
    #[arg(long)]
    name: Option<String>,
    /// Another accepted `Host` value (`name[:port]`), e.g. the name a reverse proxy
    /// forwards. Repeatable.
    #[arg(long = "allow-host", value_name = "HOST")]
    allow_host: Vec<String>,
    /// An origin whose pages may call the listener (`https://app.example`); requests
    /// with any other `Origin` are refused (403). Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// The hosts' bearer token file (default
    /// `$XDG_CONFIG_HOME/mcp-bastion/serve-token`; created with mode 0600 on first start).
    #[arg(long, value_name = "PATH")]
    token_file: Option<PathBuf>,
    /// Replace the token with a new one before starting (hosts need the new one).
    #[arg(long)]
    rotate_token: bool,
    /// Most concurrent host sessions (each runs one server process).
    #[arg(long, default_value_t = 32)]
    max_sessions: usize,
    /// Most open HTTP connections; at the cap a new connection takes the slot of the one
    /// idle the longest (no request in flight), else it is closed.
    #[arg(long, default_value_t = 512, value_name = "N")]
    max_connections: usize,
    /// End a session unused for this long with no open stream (`30m`, `90s`).
    #[arg(long, default_value = "30m")]
    idle_timeout: humantime::Duration,
    /// Answer a request with `application/json` when its answer is the first message
    /// for it and comes within 1 s (else an event stream, as without this flag): no
    /// chunked framing and no event parsing for the host. Hosts must accept both (MCP
    /// Streamable HTTP).
    #[arg(long)]
    json_answers: bool,
    /// Threads that run the listener, the sessions' relays and the upstream client (the
    /// audit writer has its own). One by default: on two vCPUs shared with the hosts and
    /// servers, one thread spent about 30% less CPU per call than two, which hand each
    /// call's steps to each other. More let one instance use more cores; several
    /// instances behind a load balancer scale further (docs/deploy.md).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// `--upstream URL`: a remote server over Streamable HTTP instead of a command;
    /// each legacy-era host session gets its own upstream session.
    #[command(flatten)]
    remote: crate::wrap_remote::RemoteFlags,
    /// The server command and its arguments, after `--` (not with `--upstream`).
    #[arg(last = true, required_unless_present = "url", num_args = 1..)]
    command: Vec<String>,
}

/// Runs `serve` until SIGTERM or SIGINT; exit code 0 after a clean shutdown.
pub(crate) fn run(
    cfg: &config::Config,
    store_url: &str,
    config_path: Option<&std::path::Path>,
    args: &ServeArgs,
) -> Result<i32, Failure> {
    let remote = crate::wrap_remote::remote_server(&args.remote, config_path).map_err(input)?;
    let name = args.name.clone().unwrap_or_else(|| match &remote {
        Some(server) => crate::remote_name(&server.server.url),
        None => crate::default_name(&args.command),
    });
    let token_path = args
        .token_file
        .clone()
        .or_else(|| {
            config::default_config_path().and_then(|p| p.parent().map(|d| d.join("serve-token")))
        })
        .ok_or_else(|| {
            input(anyhow::anyhow!(
                "no place for the listener token: pass --token-file PATH (HOME is not set)"
            ))
        })?;
    let mut wcfg = relay_config(cfg, &name, args.command.clone());
    let oauth = remote.as_ref().and_then(|r| r.oauth.clone());
    wcfg.remote = remote.map(|r| r.server);
    child::adopt_orphans();
    // Detectors build on their own thread while the listener and the store open.
    bastion_gateway::start_warm_up();
    let rt = serve_runtime(args.threads)?;
    let code = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))
            .map_err(internal)?;
        let bound = listener.local_addr().map_err(internal)?;
        // Only once the address is ours: a rotation by a second instance that cannot
        // listen would lock every host out of the running one.
        let (token, origin) =
            token::load_or_create(&token_path, args.rotate_token).map_err(input)?;
        let mut policy = ListenerPolicy::new(bound, token_digest(&token), &cfg.limits);
        for h in &args.allow_host {
            policy = policy.allow_host(h).map_err(input)?;
        }
        for o in &args.allow_origin {
            policy = policy.allow_origin(o).map_err(input)?;
        }
        let store = Store::open(store_url).await.map_err(internal)?;
        // `--oauth`: one OAuth client shared by every host session (one authorization,
        // one token; never sent to a host).
        crate::wrap_remote::attach_oauth(wcfg.remote.as_mut(), oauth, &store).map_err(input)?;
        let (sink, writer) = AuditSink::start(store.clone(), &name);
        let sink = if cfg.audit.fail_closed {
            sink
        } else {
            sink.fail_open()
        };
        wcfg.elicitation = elicit_setup(cfg, &store);
        // Confirmation goes through the host's session (elicitation), never this
        // process's terminal: the person at the listener is not the one calling.
        guard_relay(&mut wcfg, cfg, &store, None);
        let mut scfg = ServeConfig::new(wcfg, policy);
        scfg.max_sessions = args.max_sessions.max(1);
        scfg.idle_timeout = args.idle_timeout.into();
        scfg.json_answers = args.json_answers;
        scfg.max_connections = args.max_connections.max(1);
        if !bound.ip().is_loopback() {
            eprintln!(
                "mcp-bastion: warning: listening on {bound}, beyond this machine; hosts still need the token"
            );
        }
        let made = match origin {
            token::TokenOrigin::Generated => "new token",
            _ => "token",
        };
        eprintln!(
            "mcp-bastion: serving {name:?} at http://{bound}{} ; hosts send `Authorization: Bearer <{made} in {}>`",
            scfg.policy.endpoint(),
            token_path.display()
        );
        serve(listener, scfg, sink).await;
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
        store.close().await;
        Ok::<i32, Failure>(0)
    })?;
    child::kill_adopted();
    rt.shutdown_background();
    Ok(code)
}

/// The runtime `serve` runs on: one thread (`threads` 1: no wake-ups between threads on
/// each call), else a work-stealing pool of `threads` workers.
fn serve_runtime(threads: u16) -> Result<tokio::runtime::Runtime, Failure> {
    let mut builder = if threads <= 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(usize::from(threads));
        b
    };
    builder
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .map_err(internal)
}
