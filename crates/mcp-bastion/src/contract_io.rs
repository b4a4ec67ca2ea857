//! File and clock edges of `mcp-bastion contract`: atomic 0600 writes, reading inputs,
//! OS randomness, the current time and the git HEAD. The rules are in
//! `bastion_core::contract`.

use anyhow::{Context, Result, bail};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// An input error of a contract command (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ContractInputError(pub(crate) String);

/// Reads a whole input file.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path)
        .with_context(|| format!("cannot read {}", path.display()))
        .map_err(|e| ContractInputError(format!("{e:#}")).into())
}

/// Reads a secret key file, refusing one that other users can read or write (as `ssh`
/// does): a leaked signing key signs any manifest.
pub(crate) fn read_secret(path: &Path) -> Result<Vec<u8>> {
    use std::os::unix::fs::PermissionsExt;
    let bytes = read(path)?;
    let mode = std::fs::metadata(path).map_or(0, |m| m.permissions().mode() & 0o777);
    if mode & 0o077 != 0 {
        bail!(ContractInputError(format!(
            "{} is accessible by other users (mode {mode:03o}); run `chmod 600 {}`",
            path.display(),
            path.display()
        )));
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` atomically: a new temporary file beside it (mode 0600,
/// created exclusively), flushed to disk, then renamed over `path`. Readers see the old
/// file or the new one, never a part.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("{} is not a file path", path.display()))?;
    let temp = path.with_file_name(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = (|| -> Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)
            .with_context(|| format!("cannot create {}", temp.display()))?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
            .with_context(|| format!("cannot move {} to {}", temp.display(), path.display()))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// `KEY.pub` for `KEY`.
pub(crate) fn pub_path(key: &Path) -> PathBuf {
    let mut name = key.as_os_str().to_owned();
    name.push(".pub");
    PathBuf::from(name)
}

/// `N` bytes from the operating system's random source.
pub(crate) fn random<const N: usize>() -> Result<[u8; N]> {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).map_err(|e| anyhow::anyhow!("no OS randomness: {e}"))?;
    Ok(buf)
}

/// Now in Unix seconds, or `at` when given (`--at`, for audits and tests).
pub(crate) fn now_secs(at: Option<u64>) -> Result<u64> {
    if let Some(at) = at {
        return Ok(at);
    }
    Ok(SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("the system clock is before 1970")?
        .as_secs())
}

/// `built_at` of a build: `SOURCE_DATE_EPOCH` when set (reproducible builds), else now.
pub(crate) fn build_time() -> Result<u64> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(v) => v.trim().parse().map_err(|_| {
            ContractInputError(format!("SOURCE_DATE_EPOCH={v:?} is not Unix seconds")).into()
        }),
        Err(_) => now_secs(None),
    }
}

/// The commit the current directory's git repository has checked out.
pub(crate) fn git_head() -> Result<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--verify", "HEAD"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_owned()),
        _ => bail!(ContractInputError(
            "cannot read the git HEAD here (not a git checkout, or git is missing): pass --handler-commit SHA".into()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn atomic_write_replaces_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "temp file left"
        );
        assert_eq!(pub_path(&path), dir.path().join("out.json.pub"));
        assert!(read_secret(&path).is_ok());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = read_secret(&path).unwrap_err().to_string();
        assert!(err.contains("chmod 600"), "{err}");
    }
}
