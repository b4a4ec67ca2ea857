//! Human confirmation of tool calls, the I/O side (issue 5 §3): the setup `wrap` gets,
//! and the terminal channel. What to ask, what the user sees and what an answer means
//! are decided by `bastion_core::confirm`; the relay (`relay/approve.rs`) drives the
//! channels in the configured order.
//!
//! The terminal channel writes to and reads from `/dev/tty` only, never stdin/stdout
//! (they carry MCP). It is used when `tty` is among `[confirmation] channels` and a
//! controlling terminal can be opened.

use bastion_core::confirm::{Answer, Policy, parse_tty_answer};
use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;
use std::time::Duration;

/// What `wrap` needs to confirm tool calls.
#[derive(Debug, Clone)]
pub struct ConfirmSetup {
    /// The compiled `[confirmation]` + `[servers.*]` policy.
    pub policy: Arc<Policy>,
    /// Where grants live and decisions are recorded (normally the audit store);
    /// `None`: no grants, decisions only in the audit log.
    pub store: Option<bastion_store::Store>,
    /// `audit.log_arguments`: record redacted argument values with each decision.
    pub log_arguments: bool,
    /// The terminal to prompt on (`/dev/tty`); tests point it elsewhere. `None`
    /// disables the terminal channel.
    pub tty_path: Option<std::path::PathBuf>,
}

impl ConfirmSetup {
    /// The setup for `policy` with the terminal channel on `/dev/tty`, no store.
    pub fn new(policy: Policy) -> Self {
        Self {
            policy: Arc::new(policy),
            store: None,
            log_arguments: false,
            tty_path: Some("/dev/tty".into()),
        }
    }
}

/// Why the terminal channel could not produce an answer.
#[derive(Debug, thiserror::Error)]
pub enum TtyError {
    /// No terminal could be opened (no controlling terminal, a service, CI).
    #[error("no terminal to ask on ({0})")]
    Unavailable(std::io::Error),
    /// Nothing was answered in time.
    #[error("no answer on the terminal within {0} ms")]
    Timeout(u64),
}

/// Shows `message` on the terminal at `path` and reads one line: `y`/`yes` approves
/// once, `a`/`always` approves and remembers for this tool (only when `offer_always`),
/// anything else denies ([`parse_tty_answer`]). Waits at most `timeout`.
///
/// Runs on a blocking thread; a read still blocked at the timeout is abandoned (the
/// thread ends when the user presses enter or the terminal closes).
///
/// # Errors
/// [`TtyError::Unavailable`] when the terminal cannot be opened for reading and
/// writing; [`TtyError::Timeout`] when no line arrives within `timeout`.
pub async fn ask_on_tty(
    path: &std::path::Path,
    message: &str,
    offer_always: bool,
    timeout: Duration,
) -> Result<Answer, TtyError> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(TtyError::Unavailable)?;
    let prompt = if offer_always {
        "\nApprove? [y]es once / [a]lways for this tool / [N]o: "
    } else {
        "\nApprove? [y]es once / [N]o: "
    };
    let text = format!("\n{message}{prompt}");
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("bastion-tty".into())
        .spawn(move || {
            let mut w = &tty;
            let line = w
                .write_all(text.as_bytes())
                .and_then(|()| w.flush())
                .and_then(|()| {
                    let mut line = String::new();
                    BufReader::new(&tty).read_line(&mut line).map(|_| line)
                });
            let _ = tx.send(line);
        })
        .map_err(TtyError::Unavailable)?;
    let millis = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    match tokio::time::timeout(timeout, rx).await {
        Ok(Ok(Ok(line))) => {
            let answer = parse_tty_answer(&line);
            Ok(match answer {
                Answer::Approve { .. } if !offer_always => Answer::Approve {
                    remember: bastion_core::confirm::Remember::Once,
                },
                other => other,
            })
        }
        Ok(Ok(Err(e))) => Err(TtyError::Unavailable(e)),
        Ok(Err(_)) | Err(_) => Err(TtyError::Timeout(millis)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bastion_core::confirm::Remember;

    /// A pseudo-terminal stands in for `/dev/tty`: the gateway opens its slave side by
    /// path; the test plays the user on the master side.
    fn pty() -> (std::fs::File, std::path::PathBuf) {
        use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let name = ptsname(&master, Vec::new()).unwrap();
        let path = std::path::PathBuf::from(name.to_string_lossy().into_owned());
        (std::fs::File::from(master), path)
    }

    #[tokio::test]
    async fn terminal_answers_are_read_and_fail_closed() {
        for (line, offer, expect) in [
            ("y\n", true, Some(Remember::Once)),
            ("always\n", true, Some(Remember::AlwaysForThisTool)),
            ("a\n", false, Some(Remember::Once)),
            ("\n", true, None),
            ("yes please\n", true, None),
            ("n\n", true, None),
        ] {
            let (master, path) = pty();
            let user = std::thread::spawn(move || {
                use std::io::Read;
                // Wait for the question, then answer it.
                let mut seen = Vec::new();
                let mut buf = [0u8; 4096];
                let mut m = &master;
                while !String::from_utf8_lossy(&seen).contains("Approve?") {
                    let n = m.read(&mut buf).unwrap();
                    seen.extend_from_slice(&buf[..n]);
                }
                m.write_all(line.as_bytes()).unwrap();
                m.flush().unwrap();
                // Closing the master hangs the terminal up: keep it open until the
                // answer was read.
                (String::from_utf8_lossy(&seen).into_owned(), master)
            });
            let answer = ask_on_tty(&path, "may it run?", offer, Duration::from_secs(5))
                .await
                .unwrap();
            let (shown, _master) = user.join().unwrap();
            assert!(shown.contains("may it run?"), "{shown}");
            assert_eq!(shown.contains("[a]lways"), offer, "{shown}");
            match (answer, expect) {
                (Answer::Approve { remember }, Some(r)) => assert_eq!(remember, r, "{line:?}"),
                (Answer::Deny { .. }, None) => {}
                (a, e) => panic!("{line:?}: got {a:?}, expected {e:?}"),
            }
        }
    }

    #[tokio::test]
    async fn no_terminal_and_no_answer_are_errors() {
        let missing = ask_on_tty(
            std::path::Path::new("/nonexistent/tty"),
            "m",
            true,
            Duration::from_secs(1),
        )
        .await;
        assert!(matches!(missing, Err(TtyError::Unavailable(_))));
        // A terminal nobody answers on.
        let (_master, path) = pty();
        let silent = ask_on_tty(&path, "m", true, Duration::from_millis(200)).await;
        assert!(matches!(silent, Err(TtyError::Timeout(200))), "{silent:?}");
    }
}
