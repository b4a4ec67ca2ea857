//! The listener's bearer token (issue 8 §2): generated on first start, kept in a file only
//! its owner may read (mode 0600), rotated on request. Hosts send it as
//! `Authorization: Bearer <token>` (RFC 6750 §2.1); the listener keeps only its SHA-256
//! ([`bastion_core::http_gate::token_digest`]).

use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Random bytes per token (256 bits), written as 64 lowercase hex characters (a
/// `token68`, RFC 7235 §2.1).
const TOKEN_BYTES: usize = 32;

/// Why the token file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// Reading, creating or replacing the file failed.
    #[error("cannot {action} the listener token file {path}: {source}")]
    Io {
        /// What was being done (`read`, `create`, `replace`).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is readable by other users; a shared secret there is not a secret.
    #[error(
        "the listener token file {path} is readable by group or others (mode {mode:o}); run `chmod 600 {path}` or `mcp-bastion serve --rotate-token`"
    )]
    Exposed {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The file is a symbolic link, or belongs to another user: someone else may know
    /// (or have chosen) the token.
    #[error(
        "the listener token file {path} {why}; remove it (a new token is generated) or point --token-file at a file of your own"
    )]
    NotOwn {
        /// The file.
        path: PathBuf,
        /// `is a symbolic link` or `belongs to another user`.
        why: &'static str,
    },
    /// The file holds no usable token.
    #[error(
        "the listener token file {path} does not hold a token (64 hex characters); delete it or run `mcp-bastion serve --rotate-token`"
    )]
    Malformed {
        /// The file.
        path: PathBuf,
    },
    /// The operating system gave no randomness.
    #[error("cannot generate a listener token: {0}")]
    Random(String),
}

/// How the token was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenOrigin {
    /// Read from the existing file.
    Existing,
    /// Generated now (first start, or `--rotate-token`).
    Generated,
}

/// The token in `path`: read when the file exists (refused when group or others may read
/// it, or when it holds no 64-hex token), otherwise generated and written with mode 0600
/// (its directory created with 0700). With `rotate`, a new token replaces the file
/// atomically (written beside it, then renamed).
///
/// # Errors
/// [`TokenError`] as documented on each variant.
pub fn load_or_create(path: &Path, rotate: bool) -> Result<(String, TokenOrigin), TokenError> {
    if !rotate {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let meta = std::fs::symlink_metadata(path).map_err(|source| TokenError::Io {
                    action: "read",
                    path: path.into(),
                    source,
                })?;
                if meta.file_type().is_symlink() {
                    return Err(TokenError::NotOwn {
                        path: path.into(),
                        why: "is a symbolic link",
                    });
                }
                // The effective uid of this process is the owner of /proc/self (Linux).
                let me = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
                if me.is_some_and(|uid| uid != meta.uid()) {
                    return Err(TokenError::NotOwn {
                        path: path.into(),
                        why: "belongs to another user",
                    });
                }
                let mode = meta.permissions().mode();
                if mode & 0o077 != 0 {
                    return Err(TokenError::Exposed {
                        path: path.into(),
                        mode: mode & 0o777,
                    });
                }
                let token = text.trim();
                if token.len() != TOKEN_BYTES * 2 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(TokenError::Malformed { path: path.into() });
                }
                return Ok((token.to_owned(), TokenOrigin::Existing));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(TokenError::Io {
                    action: "read",
                    path: path.into(),
                    source,
                });
            }
        }
    }
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| TokenError::Random(e.to_string()))?;
    let token = hex::encode(bytes);
    write_private(path, &token)?;
    Ok((token, TokenOrigin::Generated))
}

/// Writes `token` to `path` with mode 0600 through a temporary file in the same
/// directory and a rename, so a reader never sees a partial token.
fn write_private(path: &Path, token: &str) -> Result<(), TokenError> {
    let io = |action, source| TokenError::Io {
        action,
        path: path.into(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| io("create", e))?;
    }
    // A name of our own beside the file (never an existing file's): `.NAME.RANDOM.tmp`.
    let mut tag = [0u8; 8];
    getrandom::fill(&mut tag).map_err(|e| TokenError::Random(e.to_string()))?;
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".{}.tmp", hex::encode(tag)));
    let tmp = path.with_file_name(name);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(|e| io("create", e))?;
    file.write_all(token.as_bytes())
        .and_then(|()| file.write_all(b"\n"))
        .and_then(|()| file.sync_all())
        .map_err(|e| io("create", e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io("replace", e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_once_then_read_back_and_rotated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/serve-token");
        let (first, origin) = load_or_create(&path, false).unwrap();
        assert_eq!(origin, TokenOrigin::Generated);
        assert_eq!(first.len(), 64);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let (again, origin) = load_or_create(&path, false).unwrap();
        assert_eq!(
            (again.as_str(), origin),
            (first.as_str(), TokenOrigin::Existing)
        );
        let (rotated, origin) = load_or_create(&path, true).unwrap();
        assert_eq!(origin, TokenOrigin::Generated);
        assert_ne!(rotated, first);
        assert_eq!(load_or_create(&path, false).unwrap().0, rotated);
    }

    #[test]
    fn symlinks_are_refused_and_neighbours_kept() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real-token");
        load_or_create(&real, false).unwrap();
        let link = dir.path().join("serve-token");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(matches!(
            load_or_create(&link, false),
            Err(TokenError::NotOwn { .. })
        ));
        // Writing never touches a file that merely looks like a temporary name.
        let neighbour = dir.path().join("serve-token.tmp");
        std::fs::write(&neighbour, "precious").unwrap();
        load_or_create(&dir.path().join("serve-token2"), false).unwrap();
        assert_eq!(std::fs::read_to_string(&neighbour).unwrap(), "precious");
    }

    #[test]
    fn exposed_or_malformed_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("serve-token");
        load_or_create(&path, false).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(
            load_or_create(&path, false),
            Err(TokenError::Exposed { mode: 0o644, .. })
        ));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(&path, "short\n").unwrap();
        assert!(matches!(
            load_or_create(&path, false),
            Err(TokenError::Malformed { .. })
        ));
    }
}
