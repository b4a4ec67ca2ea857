//! Opens the authorization URL in the user's browser without a shell.
//!
//! The URL reaching here has passed the core URL gate and is `https://…` (or
//! `http://` to a loopback host under the development flag): it cannot start with `-`.
//!
//! * Linux and other Unix desktops: the launchers of the `open` crate (5.x,
//!   `open::commands`), run here by argv with `std::process::Command`: `xdg-open URL`,
//!   then `gio open URL`, `gnome-open URL`, `kde-open6|kde-open5|kde-open -- URL`. None
//!   goes through `sh -c`; the URL is one argument. (`xdg-open` is itself a shell
//!   script, but it receives the URL as `$1`, never as code.) Under WSL the crate puts
//!   `powershell.exe -Command <fixed script>` first, with the URL in an environment
//!   variable; Bastion skips every launcher not in the list above, so PowerShell is
//!   never run.
//! * macOS: `/usr/bin/open -- URL` (the crate's only launcher there).
//! * Windows: the crate runs `powershell.exe` (a shell, even though the URL travels in
//!   an environment variable), so Bastion does not use the crate there and runs
//!   `rundll32.exe url.dll,FileProtocolHandler URL` itself: argv, no `cmd /c`.
//!
//! The first launcher that starts is left running on its own (stdio closed); Bastion
//! never waits for the browser.

use std::process::{Command, Stdio};

/// Launcher programs accepted from `open::commands` (see the module docs).
#[cfg(not(windows))]
const ACCEPTED: &[&str] = &[
    "xdg-open",
    "gio",
    "gnome-open",
    "kde-open6",
    "kde-open5",
    "kde-open",
    "/usr/bin/open",
];

/// The commands that may open `url`, in order: argv only, never a shell.
pub(crate) fn launchers(url: &str) -> Vec<Command> {
    #[cfg(windows)]
    {
        let mut cmd = Command::new("rundll32.exe");
        cmd.arg("url.dll,FileProtocolHandler").arg(url);
        vec![cmd]
    }
    #[cfg(not(windows))]
    {
        open::commands(url)
            .into_iter()
            .filter(|c| ACCEPTED.iter().any(|p| c.get_program() == *p))
            .collect()
    }
}

/// Starts the first launcher that can be started for `url`.
///
/// # Errors
/// A sentence naming the launchers tried when none could be started.
pub(crate) fn open_browser(url: &str) -> Result<(), String> {
    let mut tried = Vec::new();
    for mut cmd in launchers(url) {
        tried.push(cmd.get_program().to_string_lossy().into_owned());
        let started = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        if let Ok(mut child) = started {
            // Reap it in the background; its exit status says nothing about the browser.
            std::thread::spawn(move || child.wait());
            return Ok(());
        }
    }
    Err(format!("none of {} could be started", tried.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launchers_take_the_url_as_one_argument_and_never_a_shell() {
        let url = "https://as.example/authorize?a=1&b=$(id)`id`;x";
        let cmds = launchers(url);
        assert!(!cmds.is_empty());
        for c in &cmds {
            let program = c.get_program().to_string_lossy().into_owned();
            for shell in [
                "sh",
                "bash",
                "/bin/sh",
                "cmd",
                "cmd.exe",
                "powershell.exe",
                "pwsh",
            ] {
                assert_ne!(program, shell);
            }
            let args: Vec<_> = c.get_args().collect();
            assert_eq!(
                args.last()
                    .map(|a| a.to_string_lossy().into_owned())
                    .as_deref(),
                Some(url)
            );
            assert!(
                !args
                    .iter()
                    .any(|a| *a == "-c" || *a == "/c" || *a == "-Command")
            );
        }
    }
}
