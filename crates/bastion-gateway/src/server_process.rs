//! The wrapped server's process or remote connection ([`Upstream`]), and a server
//! started before its store was open ([`EarlyServer`]). Whatever way the gateway gives up
//! on a local server before it has been waited for, dropping it kills its whole process
//! group (the process and what it started), not only the process `kill_on_drop` reaches.

use crate::audit::AuditSink;
use crate::wrap::{INTERNAL_FAILURE, WrapConfig};
use crate::{GatewayError, child};
use nix::sys::signal::Signal;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::process::Child;

/// A local server started before its store was open ([`EarlyServer::start`]), to be
/// relayed by [`crate::wrap_early`]. Dropped before that (an error, a panic), it kills the
/// server's whole process group.
#[derive(Debug)]
pub struct EarlyServer(Option<Child>);

impl Drop for EarlyServer {
    fn drop(&mut self) {
        if let Some(c) = &self.0 {
            child::signal_group(c, Signal::SIGKILL);
        }
    }
}

impl EarlyServer {
    /// Starts `cfg.command` now (exact argv, its own process group, as [`crate::wrap()`] does),
    /// so that the server's own start-up overlaps the creation of a new store: for
    /// `tofu` pinning and a store that does not exist yet
    /// ([`bastion_store::Store::is_absent`]), whose launch check approves the launch (an
    /// empty store holds no revocation). Must run inside a tokio runtime. Nothing is
    /// read from or written to the server until [`crate::wrap_early`] has checked the launch
    /// config; if that check refuses after all (a store put in place meanwhile, write
    /// races lost to other gateways), the server's process group is killed.
    ///
    /// # Errors
    /// As [`child::spawn`]: [`GatewayError::NoCommand`], [`GatewayError::Spawn`].
    pub fn start(cfg: &WrapConfig) -> Result<Self, GatewayError> {
        child::spawn(&cfg.command).map(|c| Self(Some(c)))
    }

    /// The process, now owned by the relay (which stops it with its group).
    fn into_child(mut self) -> Option<Child> {
        self.0.take()
    }
}

/// The server: a local process (its stdin, stdout and stderr), or a remote one over
/// Streamable HTTP ([`crate::upstream`]) seen through an in-memory pipe.
pub(crate) enum Upstream {
    Process(Child),
    Http(tokio::task::JoinHandle<()>),
}

impl Drop for Upstream {
    /// A server process still running when the gateway gives up on it (an error before
    /// the relay ran, such as the store failing while pins load) is killed with its
    /// whole process group, not only the process `kill_on_drop` reaches. Once the server
    /// has been waited for, it has no id any more and nothing is signalled.
    fn drop(&mut self) {
        if let Self::Process(c) = self {
            child::signal_group(c, Signal::SIGKILL);
        }
    }
}

pub(crate) type ServerIn = std::pin::Pin<Box<dyn AsyncWrite + Send>>;
pub(crate) type ServerOut = std::pin::Pin<Box<dyn AsyncRead + Send>>;
pub(crate) type ServerErr = Option<tokio::process::ChildStderr>;

impl Upstream {
    /// `own_mark`: the secret that marks the HTTP pump's own errors (`wrap --url`; see
    /// `Relay::with_http_upstream`).
    pub(crate) fn start(
        cfg: &WrapConfig,
        audit: &AuditSink,
        early: Option<EarlyServer>,
        own_mark: &str,
    ) -> Result<(Self, ServerIn, ServerOut, ServerErr), GatewayError> {
        if let Some(remote) = &cfg.remote {
            // Not a local server: one started early has no place here (`wrap_early`
            // refuses this case first); dropping it kills its process group.
            drop(early);
            let (pipe, task) =
                crate::upstream::start(&cfg.name, audit.clone(), remote, &cfg.limits, own_mark);
            let (out, input) = tokio::io::split(pipe);
            return Ok((Self::Http(task), Box::pin(input), Box::pin(out), None));
        }
        let mut server = match early.and_then(EarlyServer::into_child) {
            Some(started) => started,
            None => child::spawn(&cfg.command)?,
        };
        let server_in = server
            .stdin
            .take()
            .ok_or_else(|| GatewayError::Protocol("server stdin unavailable".into()))?;
        let server_out = server
            .stdout
            .take()
            .ok_or_else(|| GatewayError::Protocol("server stdout unavailable".into()))?;
        let server_err = server.stderr.take();
        Ok((
            Self::Process(server),
            Box::pin(server_in),
            Box::pin(server_out),
            server_err,
        ))
    }

    /// The process group to clean up after (local servers).
    pub(crate) fn pgid(&self) -> Option<u32> {
        match self {
            Self::Process(c) => c.id(),
            Self::Http(_) => None,
        }
    }

    /// Waits until the server is gone: its exit code. A remote session ends with 0, or
    /// with 3 when its task panicked (a bug, reported on stderr under `name`): the
    /// session is over either way, and pending requests are answered `upstream_exited`.
    pub(crate) async fn wait(&mut self, name: &str) -> std::io::Result<i32> {
        match self {
            Self::Process(c) => c.wait().await.map(child::exit_code),
            Self::Http(task) => match task.await {
                Err(e) if e.is_panic() => {
                    eprintln!(
                        "mcp-bastion[{name}]: the connection to the remote server failed inside mcp-bastion (a bug: please report it with the location printed above); the session ends"
                    );
                    Ok(INTERNAL_FAILURE)
                }
                _ => Ok(0),
            },
        }
    }

    /// Stops the server: a process gets `grace`, SIGTERM, SIGKILL; a remote session is
    /// ended (`DELETE`) within `grace`.
    pub(crate) async fn stop(&mut self, grace: Duration) -> std::io::Result<i32> {
        match self {
            Self::Process(c) => child::stop(c, grace).await.map(child::exit_code),
            Self::Http(task) => {
                if tokio::time::timeout(grace + Duration::from_secs(2), &mut *task)
                    .await
                    .is_err()
                {
                    task.abort();
                }
                Ok(0)
            }
        }
    }
}
