//! Spawning and stopping the wrapped server.
//!
//! The server is started from its exact argv (no shell, so nothing in a name or an
//! argument is ever interpreted), in its own process group so that it and its children
//! (`npx` → `node`, `uvx` → `python`) can be stopped together and no orphan survives.

use crate::GatewayError;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::process::{Child, Command};

/// Spawns `argv` with piped stdin, stdout and stderr, in a new process group. The
/// environment is inherited.
///
/// # Errors
/// [`GatewayError::NoCommand`] for an empty argv, [`GatewayError::Spawn`] when the
/// program cannot be started (not found, not executable).
pub fn spawn(argv: &[String]) -> Result<Child, GatewayError> {
    let (program, args) = argv.split_first().ok_or(GatewayError::NoCommand)?;
    Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| GatewayError::Spawn {
            command: program.clone(),
            source,
        })
}

/// Sends `signal` to the child's whole process group (best effort: the group may be
/// gone already).
pub fn signal_group(child: &Child, signal: Signal) {
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        let _ = killpg(Pid::from_raw(pid), signal);
    }
}

/// Sends `signal` to a process group by its leader's pid (best effort).
pub fn signal_group_id(pgid: u32, signal: Signal) {
    if let Ok(pid) = i32::try_from(pgid) {
        let _ = killpg(Pid::from_raw(pid), signal);
    }
}

/// Stops the child: waits `grace` for it to exit on its own (its stdin is closed by
/// then), then sends SIGTERM to its group, waits up to 2 s more, then SIGKILL.
///
/// # Errors
/// I/O errors from waiting on the child.
pub async fn stop(child: &mut Child, grace: Duration) -> std::io::Result<ExitStatus> {
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        return status;
    }
    signal_group(child, Signal::SIGTERM);
    if let Ok(status) = tokio::time::timeout(Duration::from_secs(2), child.wait()).await {
        return status;
    }
    signal_group(child, Signal::SIGKILL);
    child.kill().await?;
    child.wait().await
}

/// The exit code to report for a server status: its code, or 128 + signal number when
/// it was killed by a signal (the shell convention).
pub fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}
