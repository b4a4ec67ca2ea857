//! The gateway's own stdin and stdout as async streams.
//!
//! `tokio::io::stdin()`/`stdout()` hand every read and write to a blocking thread, which
//! costs two thread wake-ups per frame. Hosts connect to a stdio server through a pipe
//! (most) or a Unix socket pair (Node.js/libuv `stdio: 'pipe'`), both of which can be
//! driven by the reactor directly; a duplicate of the descriptor is switched to
//! non-blocking mode and registered with tokio. Anything else (a terminal, a regular
//! file) falls back to tokio's blocking-thread stdio.
//!
//! Pipes are widened to [`PIPE_BYTES`] ([`widen_pipe`]): with the kernel's default of
//! 64 KiB, a 64 KiB result (plus its envelope) does not fit, so the writer blocks halfway
//! and every such frame costs extra wake-ups of both ends.

use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;
use std::pin::Pin;
use tokio::io::{AsyncRead, AsyncWrite};

/// A readable end: the host's stdin.
pub type HostReader = Pin<Box<dyn AsyncRead + Send>>;
/// A writable end: the host's stdout.
pub type HostWriter = Pin<Box<dyn AsyncWrite + Send>>;

enum Kind {
    Fifo(std::fs::File),
    Socket(std::os::unix::net::UnixStream),
    Other,
}

/// The capacity asked for each pipe Bastion reads or writes frames through, bytes: the
/// largest an unprivileged process may set by default (`/proc/sys/fs/pipe-max-size`,
/// `pipe(7)`). Pipe pages are allocated as data arrives, so an idle pipe costs nothing
/// more.
pub const PIPE_BYTES: i32 = 1024 * 1024;

/// Asks the kernel for a [`PIPE_BYTES`] buffer on the pipe `fd` (Linux `F_SETPIPE_SZ`,
/// `fcntl(2)`). Best effort: on another kind of descriptor, past the per-user pipe
/// quota (`EPERM`) or on another system the pipe keeps its size, which is only slower.
pub fn widen_pipe(fd: &impl AsFd) {
    #[cfg(target_os = "linux")]
    {
        let _ = nix::fcntl::fcntl(fd.as_fd(), nix::fcntl::FcntlArg::F_SETPIPE_SZ(PIPE_BYTES));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

fn classify(fd: std::io::Result<OwnedFd>) -> Kind {
    let Ok(fd) = fd else { return Kind::Other };
    let file = std::fs::File::from(fd);
    match file.metadata().map(|m| m.file_type()) {
        Ok(t) if t.is_fifo() => {
            widen_pipe(&file);
            Kind::Fifo(file)
        }
        Ok(t) if t.is_socket() => {
            Kind::Socket(std::os::unix::net::UnixStream::from(OwnedFd::from(file)))
        }
        _ => Kind::Other,
    }
}

/// The process's stdin as an async reader, reactor-driven when it is a pipe or socket.
/// Must be called inside a tokio runtime.
pub fn host_stdin() -> HostReader {
    match classify(std::io::stdin().as_fd().try_clone_to_owned()) {
        Kind::Fifo(f) => match tokio::net::unix::pipe::Receiver::from_file(f) {
            Ok(r) => Box::pin(r),
            Err(_) => Box::pin(tokio::io::stdin()),
        },
        Kind::Socket(s) => match s
            .set_nonblocking(true)
            .and_then(|()| tokio::net::UnixStream::from_std(s))
        {
            Ok(s) => Box::pin(s),
            Err(_) => Box::pin(tokio::io::stdin()),
        },
        Kind::Other => Box::pin(tokio::io::stdin()),
    }
}

/// The process's stdout as an async writer, reactor-driven when it is a pipe or socket.
/// Must be called inside a tokio runtime.
pub fn host_stdout() -> HostWriter {
    match classify(std::io::stdout().as_fd().try_clone_to_owned()) {
        Kind::Fifo(f) => match tokio::net::unix::pipe::Sender::from_file(f) {
            Ok(w) => Box::pin(w),
            Err(_) => Box::pin(tokio::io::stdout()),
        },
        Kind::Socket(s) => match s
            .set_nonblocking(true)
            .and_then(|()| tokio::net::UnixStream::from_std(s))
        {
            Ok(s) => Box::pin(s),
            Err(_) => Box::pin(tokio::io::stdout()),
        },
        Kind::Other => Box::pin(tokio::io::stdout()),
    }
}
