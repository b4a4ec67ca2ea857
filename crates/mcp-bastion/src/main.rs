//! `mcp-bastion`: a security gateway between MCP hosts and untrusted MCP servers.
//!
//! Commands and exit codes follow DESIGN §3: `0` allowed/success, `1` findings that
//! flag or block (`scan`, `check`), `2` usage or input error, `3` internal or upstream
//! failure; `wrap` exits with the wrapped server's exit code.

mod approvals_cmd;
mod auth_cmd;
mod config;
mod contract_cmd;
mod contract_gate;
mod contract_io;
mod contract_show;
mod from_server;
mod output;
mod pins_cmd;
mod serve_cmd;
mod ui_files;
mod wrap_contract;
mod wrap_remote;

use anyhow::{Context, Result};
use bastion_core::check::{self, CheckKind};
use bastion_gateway::confirm::ConfirmSetup;
use bastion_gateway::{AuditSink, PinningSetup, WrapConfig, scan, stdio, wrap};
use bastion_store::{AuditEvent, AuditQuery, Store};
use clap::{Parser, Subcommand};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Security gateway for the Model Context Protocol.
#[derive(Debug, Parser)]
#[command(name = "mcp-bastion", version, about, long_about = None)]
struct Cli {
    /// Configuration file (TOML).
    #[arg(long, global = true, env = "MCP_BASTION_CONFIG")]
    config: Option<PathBuf>,
    /// Store URL (default <sqlite://$XDG_DATA_HOME/mcp-bastion/bastion.db>;
    /// postgres://user@host:port/db for a store shared by several gateways).
    #[arg(long, global = true, env = "MCP_BASTION_STORE")]
    store: Option<String>,
    /// Machine output: one JSON object (per line for `audit`).
    #[arg(long, global = true)]
    json: bool,
    /// More output on stderr.
    #[arg(short, long, global = true, conflicts_with = "quiet")]
    verbose: bool,
    /// Less output on stderr.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run an MCP server behind the gateway (the host starts this instead of the server).
    Wrap {
        /// Server name used in the audit log and errors (default: the command's file name).
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        contract: wrap_contract::ContractFlags,
        #[command(flatten)]
        remote: wrap_remote::RemoteFlags,
        /// The server command and its arguments, after `--` (not with `--url`).
        #[arg(last = true, required_unless_present = "url", num_args = 1..)]
        command: Vec<String>,
    },
    /// Run one's own MCP server behind the gateway, publishing exactly a signed contract:
    /// its entries only (sorted), its cache hints on 2026-07-28 results, `list_changed`
    /// withheld unless it is the active contract.
    Publish {
        /// Server name used in the audit log and errors (default: the command's file name).
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        contract: wrap_contract::PublishFlags,
        /// The server command and its arguments, after `--`.
        #[arg(last = true, required = true, num_args = 1..)]
        command: Vec<String>,
    },
    /// Serve one server command to many hosts over Streamable HTTP (a session, and a
    /// server process, per host), behind the same checks as `wrap`.
    Serve(serve_cmd::ServeArgs),
    /// Start a server, list every tool, prompt, resource and template, and report findings.
    Scan {
        /// Server name for messages (default: the command's file name).
        #[arg(long)]
        name: Option<String>,
        /// The server command and its arguments, after `--`.
        #[arg(last = true, required = true, num_args = 1..)]
        command: Vec<String>,
    },
    /// Run one detector family on one input (a file, or `-` / nothing for stdin).
    Check {
        /// message | http-request | descriptor | result | drift | confirmation | url |
        /// elicitation | server-json | ui-resources
        kind: String,
        /// Input file (JSON); `-` or absent reads stdin.
        input: Option<PathBuf>,
        /// ui-resources: read the declared content files below this folder (no symlinks
        /// followed) and judge their size and hash too.
        #[arg(long)]
        ui_root: Option<PathBuf>,
    },
    /// Print the table of finding codes (markdown).
    Codes,
    /// Review descriptor and launch-config pins (list, show, diff, approve, revoke).
    Pins {
        #[command(subcommand)]
        command: pins_cmd::PinsCommand,
    },
    /// Explicit "always allow" grants and the log of confirmation decisions.
    Approvals {
        #[command(subcommand)]
        command: approvals_cmd::ApprovalsCommand,
    },
    /// Publisher contract manifests: from-server, build, check, keygen, sign, verify,
    /// approve, activate, diff.
    Contract {
        #[command(subcommand)]
        command: from_server::ContractCli,
    },
    /// OAuth for remote servers: `login` authorizes ahead of time (the tokens are
    /// stored encrypted and used by `wrap --url … --oauth`), `logout` deletes them.
    Auth {
        #[command(subcommand)]
        command: auth_cmd::AuthCommand,
    },
    /// Print the audit log.
    Audit {
        /// Only events of this server.
        #[arg(long)]
        server: Option<String>,
        /// Only events since this time: a duration ago (`90s`, `15m`, `2h`, `7d`) or RFC 3339.
        #[arg(long)]
        since: Option<String>,
        /// At most this many (the newest) events.
        #[arg(long, default_value_t = 100)]
        limit: i64,
        /// Only events recorded by this gateway instance (`instance` in `--json`).
        #[arg(long)]
        instance: Option<String>,
        /// Print the URL consent ledger (elicitation decisions) instead of events.
        #[arg(long)]
        consents: bool,
    },
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(report_panic));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(u8::try_from(code.clamp(0, 255)).unwrap_or(3)),
        Err(Failure::Input(e)) => {
            eprintln!("mcp-bastion: {e:#}");
            ExitCode::from(2)
        }
        Err(Failure::Internal(e)) => {
            eprintln!("mcp-bastion: {e:#}");
            ExitCode::from(3)
        }
    }
}

/// The panic hook: where the bug is, never the panic's message. A message can quote the
/// hostile text being checked (a string slice's message quotes the string), and stderr
/// lands in host logs and terminals; `RUST_BACKTRACE=1` adds the backtrace.
fn report_panic(info: &std::panic::PanicHookInfo<'_>) {
    let at = info
        .location()
        .map_or_else(|| "an unknown place".to_owned(), ToString::to_string);
    let thread = std::thread::current();
    eprintln!(
        "mcp-bastion: internal error (a bug) at {at} on thread {}; the message is withheld because it may quote untrusted input. Please report it at the location given.",
        thread.name().unwrap_or("unnamed")
    );
    if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
        eprintln!("{}", std::backtrace::Backtrace::force_capture());
    }
}

/// Exit-code class of an error.
enum Failure {
    /// Usage or input error: exit 2.
    Input(anyhow::Error),
    /// Internal or upstream failure: exit 3.
    Internal(anyhow::Error),
}

fn input<E: Into<anyhow::Error>>(e: E) -> Failure {
    Failure::Input(e.into())
}

fn internal<E: Into<anyhow::Error>>(e: E) -> Failure {
    Failure::Internal(e.into())
}

/// Runs a command on an existing store: [`pins_cmd::PinInputError`]s exit 2, a closed
/// stdout (`| head`) is success, other errors exit 3.
fn store_command(
    store_url: &str,
    f: impl AsyncFnOnce(&Store) -> anyhow::Result<i32>,
) -> Result<i32, Failure> {
    runtime()?.block_on(async {
        let store = Store::open_existing(store_url).await.map_err(internal)?;
        let result = f(&store).await;
        store.close().await;
        match result {
            Ok(code) => Ok(code),
            Err(e) if e.downcast_ref::<pins_cmd::PinInputError>().is_some() => Err(input(e)),
            Err(e) if output::is_broken_pipe(&e) => Ok(0),
            Err(e) => Err(internal(e)),
        }
    })
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .map_err(internal)
}

/// The server name when `--name` is absent: the command's file name, or for a package
/// launcher (`npx`, `uvx`, `node`, `python`, ...) the package or script it starts, without
/// scope and version (`npx -y @scope/server-x@1.2` → `server-x`).
/// The default server name of a remote server: its URL's host.
fn remote_name(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| "remote".into())
}

fn default_name(command: &[String]) -> String {
    const LAUNCHERS: &[&str] = &[
        "npx", "pnpx", "bunx", "uvx", "pipx", "node", "deno", "bun", "python", "python3", "uv",
        "docker",
    ];
    const SUBCOMMANDS: &[&str] = &["run", "exec", "tool", "dlx"];
    let base = |s: &str| {
        std::path::Path::new(s)
            .file_name()
            .map_or_else(|| s.to_owned(), |n| n.to_string_lossy().into_owned())
    };
    let Some(program) = command.first() else {
        return "server".into();
    };
    let program = base(program);
    if !LAUNCHERS.contains(&program.as_str()) {
        return program;
    }
    let target = command[1..]
        .iter()
        .find(|a| !a.starts_with('-') && !SUBCOMMANDS.contains(&a.as_str()));
    let Some(target) = target else { return program };
    let unscoped = target.rsplit('/').next().unwrap_or(target);
    let unversioned = unscoped.split(['@', '=']).next().unwrap_or(unscoped);
    let stem = unversioned
        .strip_suffix(".py")
        .or_else(|| unversioned.strip_suffix(".js"))
        .unwrap_or(unversioned);
    if stem.is_empty() {
        program
    } else {
        stem.to_owned()
    }
}

fn run(cli: Cli) -> Result<i32, Failure> {
    let cfg = config::load(cli.config.as_deref()).map_err(input)?;
    let store_url = cli.store.clone().unwrap_or_else(config::default_store_url);
    match cli.command {
        Command::Check {
            kind,
            input: path,
            ui_root,
        } => {
            let kind = CheckKind::parse(&kind).map_err(input)?;
            let text = read_input(path.as_deref()).map_err(input)?;
            let value = bastion_core::json::parse_value(&text, 10_000)
                .map_err(|e| input(anyhow::anyhow!("input is not valid JSON: {e}")))?;
            let value = match (kind, ui_root) {
                (CheckKind::Confirmation, _) => cfg.with_confirmation_policy(value),
                (CheckKind::UiResources, Some(root)) => {
                    ui_files::with_file_facts(value, &root).map_err(input)?
                }
                _ => value,
            };
            let report = check::run(kind, &value, &cfg.limits).map_err(input)?;
            let printed = if cli.json {
                let mut out = std::io::stdout().lock();
                serde_json::to_string(&report)
                    .map_err(anyhow::Error::from)
                    .and_then(|line| writeln!(out, "{line}").map_err(anyhow::Error::from))
            } else {
                output::print_report(&report)
            };
            printed_ok(printed)?;
            Ok(check::exit_code(report.verdict))
        }
        Command::Pins { command } => store_command(&store_url, async |store| {
            pins_cmd::run(store, command, cli.json).await
        }),
        Command::Approvals { command } => store_command(&store_url, async |store| {
            approvals_cmd::run(store, command, cli.json).await
        }),
        Command::Contract {
            command: from_server::ContractCli::Publisher(command),
        } => match contract_cmd::run(command, cli.json, &store_url) {
            Ok(code) => Ok(code),
            Err(e)
                if e.downcast_ref::<contract_io::ContractInputError>()
                    .is_some() =>
            {
                Err(input(e))
            }
            Err(e) if output::is_broken_pipe(&e) => Ok(0),
            Err(e) => Err(internal(e)),
        },
        Command::Codes => {
            printed_ok(
                write!(std::io::stdout().lock(), "{}", bastion_core::Code::table())
                    .map_err(anyhow::Error::from),
            )?;
            Ok(0)
        }
        Command::Audit {
            server,
            limit,
            consents: true,
            ..
        } => store_command(&store_url, async |store| {
            let rows = store.consents(server.as_deref(), limit).await?;
            output::print_consents(&rows, cli.json)?;
            Ok(0)
        }),
        Command::Audit {
            server,
            since,
            limit,
            instance,
            consents: false,
        } => {
            let since_ms = since
                .as_deref()
                .map(output::parse_since)
                .transpose()
                .map_err(input)?;
            let rt = runtime()?;
            rt.block_on(async {
                let store = Store::open_existing(&store_url).await.map_err(internal)?;
                let events = store
                    .audit_events(&AuditQuery {
                        server,
                        since_ms,
                        limit: Some(limit),
                        instance,
                    })
                    .await
                    .map_err(internal)?;
                printed_ok(output::print_audit(&events, cli.json))?;
                Ok(0)
            })
        }
        Command::Contract {
            command:
                from_server::ContractCli::FromServer {
                    output: out,
                    server_id,
                    owner,
                    name,
                    command,
                },
        } => {
            let name = name.unwrap_or_else(|| default_name(&command));
            let rt = runtime()?;
            let report = rt
                .block_on(scan::scan(&command, &cfg.limits, &name))
                .map_err(internal)?;
            let (manifest, notes) =
                from_server::manifest_from_scan(&report, server_id.as_deref(), &owner)
                    .map_err(internal)?;
            let mut bytes = serde_json::to_vec_pretty(&manifest).map_err(internal)?;
            bytes.push(b'\n');
            contract_io::write_atomic(&out, &bytes).map_err(input)?;
            if !cli.quiet {
                for note in &notes {
                    eprintln!("mcp-bastion: {note}");
                }
                eprintln!(
                    "mcp-bastion: wrote {} ({} tools, {} prompts, {} resources, {} templates); review every governance field before `contract build`",
                    out.display(),
                    manifest["tools"].as_array().map_or(0, Vec::len),
                    manifest["prompts"].as_array().map_or(0, Vec::len),
                    manifest["resources"].as_array().map_or(0, Vec::len),
                    manifest["resource_templates"]
                        .as_array()
                        .map_or(0, Vec::len),
                );
            }
            Ok(0)
        }
        Command::Scan { name, command } => {
            let name = name.unwrap_or_else(|| default_name(&command));
            let rt = runtime()?;
            let report = rt
                .block_on(scan::scan(&command, &cfg.limits, &name))
                .map_err(internal)?;
            rt.block_on(record_scan(&store_url, &name, &report, cli.quiet))
                .map_err(internal)?;
            printed_ok(output::print_scan(&name, &report, cli.json))?;
            if !report.errors.is_empty() {
                // Part of the server's surface could not be listed: not a clean scan.
                return Ok(3);
            }
            Ok(i32::from(report.verdict() >= bastion_core::Verdict::Flag))
        }
        Command::Publish {
            name,
            contract,
            command,
        } => run_wrap(&cfg, &store_url, name, &contract.into(), command, true),
        Command::Wrap {
            name,
            contract,
            remote,
            command,
        } => match wrap_remote::remote_server(&remote, cli.config.as_deref()) {
            Ok(None) => run_wrap(&cfg, &store_url, name, &contract, command, false),
            Ok(Some(server)) => {
                let name = name.unwrap_or_else(|| remote_name(&server.server.url));
                run_wrap_remote(&cfg, &store_url, name, &contract, server)
            }
            Err(e) => Err(input(e)),
        },
        Command::Serve(args) => serve_cmd::run(&cfg, &store_url, cli.config.as_deref(), &args),
        Command::Auth { command } => {
            auth_cmd::run(&store_url, cli.config.as_deref(), &command, cli.json)
        }
    }
}

/// `wrap`, or `publish` (`publish` = true): contract enforcement when a contract is
/// given; `publish` adds the contract's cache hints and the `list_changed` gate, and
/// leaves out what guards a user against an untrusted server (pinning, tool-call
/// confirmation): the server is the publisher's own and the signed contract fixes what
/// it may publish.
fn run_wrap(
    cfg: &config::Config,
    store_url: &str,
    name: Option<String>,
    contract: &wrap_contract::ContractFlags,
    command: Vec<String>,
    publish: bool,
) -> Result<i32, Failure> {
    run_wrap_with(cfg, store_url, name, contract, command, publish, None)
}

fn run_wrap_with(
    cfg: &config::Config,
    store_url: &str,
    name: Option<String>,
    contract: &wrap_contract::ContractFlags,
    command: Vec<String>,
    publish: bool,
    remote: Option<wrap_remote::Remote>,
) -> Result<i32, Failure> {
    // Detectors build on their own thread while the store opens and the server starts.
    bastion_gateway::start_warm_up();
    let name = name.unwrap_or_else(|| default_name(&command));
    let contract = match wrap_contract::load(contract, store_url) {
        Ok(wrap_contract::Loaded::Absent) => None,
        Ok(wrap_contract::Loaded::Enforce(v)) => Some(v),
        Ok(wrap_contract::Loaded::Refused(lines)) => {
            eprint!(
                "mcp-bastion: the contract for server {name:?} is refused; the server is not started\n{lines}"
            );
            return Ok(1);
        }
        Err(e)
            if e.downcast_ref::<contract_io::ContractInputError>()
                .is_some() =>
        {
            return Err(input(e));
        }
        Err(e) => return Err(internal(e)),
    };
    let mut wcfg = relay_config(cfg, &name, command);
    let oauth = remote.as_ref().and_then(|r| r.oauth.clone());
    wcfg.remote = remote.map(|r| r.server);
    let audit_fail_closed = cfg.audit.fail_closed;
    bastion_gateway::child::adopt_orphans();
    // One thread runs the whole relay: no cross-thread wake-ups per frame.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .map_err(internal)?;
    // A store that does not exist yet holds no pin and no revocation, so under `tofu`
    // pinning the launch check approves the launch: the server starts while the store is
    // created (about 7 ms on a first run) instead of after it, and nothing is relayed
    // before the check has run (should it refuse after all, the server is killed).
    // Strict pinning, contracts, `publish` and remote servers always wait for the store.
    let start_early = !publish
        && contract.is_none()
        && wcfg.remote.is_none()
        && cfg.pinning.mode == bastion_gateway::PinMode::Tofu
        && Store::is_absent(store_url);
    let code = rt.block_on(async {
        let early = if start_early {
            Some(bastion_gateway::EarlyServer::start(&wcfg).map_err(internal)?)
        } else {
            None
        };
        // On an error below, dropping `early` kills the server's process group.
        let store = Store::open(store_url).await.map_err(internal)?;
        wrap_remote::attach_oauth(wcfg.remote.as_mut(), oauth, &store).map_err(input)?;
        if let Some(v) = contract {
            if publish {
                let active = store
                    .active_contract(&v.index.server_id)
                    .await
                    .map_err(internal)?
                    .is_some_and(|a| a.manifest_sha256 == v.manifest_sha256);
                if !active {
                    eprintln!(
                        "mcp-bastion[{name}]: contract {} v{} is not the active contract (`contract activate`): list_changed notifications are withheld",
                        v.index.server_id, v.index.contract_version
                    );
                }
                wcfg.publish = Some(bastion_gateway::PublishSetup {
                    cache: v.cache,
                    active,
                });
            }
            wcfg.contract = Some(v.index);
        }
        let (sink, writer) = AuditSink::start(store.clone(), &name);
        let sink = if audit_fail_closed {
            sink
        } else {
            sink.fail_open()
        };
        wcfg.elicitation = elicit_setup(cfg, &store);
        if !publish {
            guard_relay(&mut wcfg, cfg, &store, Some("/dev/tty".into()));
        }
        let (stdin, stdout) = (stdio::host_stdin(), stdio::host_stdout());
        let code = match early {
            Some(server) => bastion_gateway::wrap_early(wcfg, server, stdin, stdout, sink).await,
            None => wrap(wcfg, stdin, stdout, sink).await,
        }
        .map_err(internal)?;
        // All sinks are dropped with the relay; let the writer drain.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
        store.close().await;
        Ok::<i32, Failure>(code)
    });
    // Children of the server that escaped its process group (setsid daemons), also when
    // the gateway failed (a refused launch config, a store that did not open).
    bastion_gateway::child::kill_adopted();
    // The host's stdin may still be held by a blocking reader thread: do not wait for it.
    rt.shutdown_background();
    code
}

/// `wrap --url`: as [`run_wrap`], the server being `server`.
fn run_wrap_remote(
    cfg: &config::Config,
    store_url: &str,
    name: String,
    contract: &wrap_contract::ContractFlags,
    server: wrap_remote::Remote,
) -> Result<i32, Failure> {
    run_wrap_with(
        cfg,
        store_url,
        Some(name),
        contract,
        Vec::new(),
        false,
        Some(server),
    )
}

/// The relay setup `wrap` and `serve` share: limits, result options and shutdown grace
/// from the config.
fn relay_config(cfg: &config::Config, name: &str, command: Vec<String>) -> WrapConfig {
    let mut wcfg = WrapConfig::new(name, command);
    wcfg.limits = cfg.limits.clone();
    wcfg.result = bastion_core::result::ResultOptions::new(&cfg.limits, cfg.content.clone());
    wcfg.grace_ms = cfg.gateway.shutdown_grace_ms;
    wcfg
}

/// Elicitation mediation over `store` (URL consent ledger, `[urls]` policy, modes).
fn elicit_setup(cfg: &config::Config, store: &Store) -> bastion_gateway::ElicitSetup {
    bastion_gateway::ElicitSetup {
        policy: cfg.urls.elicit_policy(),
        store: Some(store.clone()),
        url_mode: cfg.elicitation.url_mode,
        form_mode: cfg.elicitation.form_mode,
    }
}

/// What guards a user against an untrusted server: descriptor pinning and tool-call
/// confirmation (asked on the terminal `tty` when given, else through the host).
fn guard_relay(wcfg: &mut WrapConfig, cfg: &config::Config, store: &Store, tty: Option<PathBuf>) {
    wcfg.pinning = Some(PinningSetup {
        store: store.clone(),
        mode: cfg.pinning.mode,
    });
    wcfg.confirmation = Some(ConfirmSetup {
        policy: std::sync::Arc::new(cfg.policy.clone()),
        store: Some(store.clone()),
        log_arguments: cfg.audit.log_arguments,
        tty_path: tty,
    });
}

/// Records one audit event per scanned descriptor (direction `gateway`, reason `scan`;
/// `bytes`: the descriptor's size as compact JSON, for the instructions the string's).
async fn record_scan(
    store_url: &str,
    name: &str,
    report: &scan::ScanReport,
    quiet: bool,
) -> Result<()> {
    let store = Store::open(store_url).await?;
    let now = bastion_gateway::now_ms();
    let events: Vec<AuditEvent> = report
        .items
        .iter()
        .map(|item| {
            let mut codes: Vec<String> = item
                .findings
                .iter()
                .map(|f| f.code.as_str().to_owned())
                .collect();
            codes.dedup();
            AuditEvent {
                time_ms: now,
                server: name.to_owned(),
                direction: "gateway".into(),
                message_kind: Some("descriptor".into()),
                method: Some(
                    serde_json::to_value(item.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                ),
                tool: Some(item.key.clone()),
                verdict: item.verdict.as_str().into(),
                reason: Some("scan".into()),
                codes,
                bytes: i64::try_from(match &item.descriptor {
                    serde_json::Value::String(s) => s.len(),
                    other => serde_json::to_vec(other).map_or(0, |v| v.len()),
                })
                .unwrap_or(i64::MAX),
                instance: Some(bastion_gateway::instance_id().to_owned()),
                ..AuditEvent::default()
            }
        })
        .collect();
    store.record_audit_batch(&events).await?;
    store.close().await;
    if !quiet {
        eprintln!(
            "mcp-bastion: {} scan result(s) recorded in {} (see `mcp-bastion audit --server {name}`)",
            events.len(),
            store.location()
        );
    }
    Ok(())
}

/// Output errors are internal failures, except a reader that closed our stdout early
/// (`mcp-bastion … | head`), which is normal use.
fn printed_ok(r: Result<()>) -> Result<(), Failure> {
    match r {
        Err(e) if !output::is_broken_pipe(&e) => Err(internal(e)),
        _ => Ok(()),
    }
}

fn read_input(path: Option<&std::path::Path>) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    match path {
        None => std::io::stdin()
            .read_to_end(&mut buf)
            .context("cannot read stdin")?,
        Some(p) if p.as_os_str() == "-" => std::io::stdin()
            .read_to_end(&mut buf)
            .context("cannot read stdin")?,
        Some(p) => {
            buf = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?;
            buf.len()
        }
    };
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::default_name;

    fn name(args: &[&str]) -> String {
        default_name(&args.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn default_names() {
        assert_eq!(
            name(&[
                "npx",
                "-y",
                "@modelcontextprotocol/server-everything@2026.8.31"
            ]),
            "server-everything"
        );
        assert_eq!(
            name(&[
                "uvx",
                "mcp-server-time==0.6.2",
                "--local-timezone=Europe/Berlin"
            ]),
            "mcp-server-time"
        );
        assert_eq!(
            name(&["/usr/bin/python3", "/srv/tools/weather.py"]),
            "weather"
        );
        assert_eq!(name(&["uv", "run", "server.py"]), "server");
        assert_eq!(name(&["/opt/bin/my-server", "--port", "1"]), "my-server");
        assert_eq!(name(&["npx"]), "npx");
        assert_eq!(name(&[]), "server");
    }
}
