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
/// environment is inherited. The stdin and stdout pipes are widened to
/// [`crate::stdio::PIPE_BYTES`] (best effort, [`crate::stdio::widen_pipe`]).
///
/// # Errors
/// [`GatewayError::NoCommand`] for an empty argv, [`GatewayError::Spawn`] when the
/// program cannot be started (not found, not executable).
pub fn spawn(argv: &[String]) -> Result<Child, GatewayError> {
    let (program, args) = argv.split_first().ok_or(GatewayError::NoCommand)?;
    let child = Command::new(program)
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
        })?;
    if let Some(stdin) = child.stdin.as_ref() {
        crate::stdio::widen_pipe(stdin);
    }
    if let Some(stdout) = child.stdout.as_ref() {
        crate::stdio::widen_pipe(stdout);
    }
    Ok(child)
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

/// Makes this process the reaper of orphaned descendants (Linux
/// `PR_SET_CHILD_SUBREAPER`): a server's children that leave its process group
/// (`setsid`, daemons) are re-parented to the gateway instead of init, so
/// [`kill_adopted`] can end them. Call once, from the binary, before spawning.
pub fn adopt_orphans() {
    #[cfg(target_os = "linux")]
    {
        let _ = nix::sys::prctl::set_child_subreaper(true);
    }
}

/// Sends SIGKILL to every remaining child of this process (orphans adopted through
/// [`adopt_orphans`]) and reaps them. Reads `/proc/*/stat` (Linux `proc(5)`); elsewhere
/// it does nothing. Call from the binary when the wrapped server has exited: in a
/// process with other children (a test harness) it would end those too.
pub fn kill_adopted() {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(me) {
            let pid = Pid::from_raw(pid);
            let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
            let _ = nix::sys::wait::waitpid(pid, None);
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::spawn;
    use crate::stdio::PIPE_BYTES;
    use nix::fcntl::{FcntlArg, fcntl};

    /// The most an unprivileged process may ask for (`pipe(7)`); root may ask for more.
    fn allowed() -> i32 {
        let max: i32 = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(PIPE_BYTES);
        if nix::unistd::Uid::effective().is_root() {
            PIPE_BYTES
        } else {
            PIPE_BYTES.min(max)
        }
    }

    #[tokio::test]
    async fn the_child_pipes_are_widened() {
        let mut child = spawn(&["cat".to_owned()]).expect("cat starts");
        let stdin = child.stdin.as_ref().expect("stdin is piped");
        let stdout = child.stdout.as_ref().expect("stdout is piped");
        for (name, size) in [
            ("stdin", fcntl(stdin, FcntlArg::F_GETPIPE_SZ)),
            ("stdout", fcntl(stdout, FcntlArg::F_GETPIPE_SZ)),
        ] {
            let size = size.expect("F_GETPIPE_SZ on a pipe");
            assert!(size >= allowed(), "{name} pipe holds {size} bytes");
        }
        drop(child.stdin.take());
        child.wait().await.expect("cat exits when its stdin closes");
    }
}
