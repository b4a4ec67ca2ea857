//! [`Vault`]: OAuth secrets sealed at rest with `XChaCha20-Poly1305` (`RustCrypto`
//! `chacha20poly1305`; draft-irtf-cfrg-xchacha, RFC 8439 AEAD) under a 32-byte key kept in
//! a file beside the configuration.
//!
//! Sealed form: `base64(nonce[24] || ciphertext || tag[16])` (standard alphabet, padded).
//! The nonce is 24 random bytes from the OS for every seal, so nonce reuse is not a
//! practical concern. The caller's associated data names the row (issuer, resource,
//! client id): a sealed value copied to another row does not open.
//!
//! The key file (default `$XDG_CONFIG_HOME/mcp-bastion/oauth.key`) holds 32 raw bytes.
//! It is created on first use with mode 0600 (its directory 0700 when created) and
//! refused when it is a symbolic link, not a regular file, readable or writable by group
//! or others, owned by another user, or not exactly 32 bytes long. The checks run on the
//! opened file (`O_NOFOLLOW`, then `fstat`), not on the path, so a swap between check and
//! read does not help.

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use zeroize::Zeroize as _;

/// Key length, bytes.
const KEY_BYTES: usize = 32;
/// Nonce length, bytes (`XChaCha20`).
const NONCE_BYTES: usize = 24;

/// Why the key file cannot be used, or a sealed value does not open.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VaultError {
    /// The key file is a symbolic link.
    #[error("the OAuth key file {} is a symbolic link; refused (replace it by a regular file of mode 0600)", .0.display())]
    Symlink(PathBuf),
    /// The key file is readable or writable by group or others, or not a regular file.
    #[error("the OAuth key file {} has mode {mode:o}; refused: it must be a regular file readable by its owner only (chmod 600)", .path.display())]
    Permissions {
        /// The file.
        path: PathBuf,
        /// Its mode bits.
        mode: u32,
    },
    /// The key file belongs to another user.
    #[error("the OAuth key file {} belongs to user {owner}, not to this user ({me}); refused", .path.display())]
    Owner {
        /// The file.
        path: PathBuf,
        /// Its owner's uid.
        owner: u32,
        /// This process's effective uid.
        me: u32,
    },
    /// The key file does not hold exactly 32 bytes.
    #[error("the OAuth key file {} holds {len} bytes, not 32; refused (delete it to make a new key: stored tokens are then lost)", .path.display())]
    BadKey {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
    },
    /// The key file cannot be read or created.
    #[error("cannot read or create the OAuth key file {}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The OS random source failed.
    #[error("the operating system's random source failed: {0}")]
    Random(String),
    /// A sealed value is damaged, was sealed under another key, or belongs to another
    /// row (associated data differs).
    #[error(
        "a stored OAuth secret does not decrypt: it was made with another key or belongs to another issuer, resource or client"
    )]
    Unsealable,
}

/// The sealing key (see the module docs). Its `Debug` shows no key material; the key is
/// wiped from memory when the vault is dropped (`zeroize`).
pub struct Vault {
    cipher: XChaCha20Poly1305,
    path: PathBuf,
}

impl std::fmt::Debug for Vault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vault")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Vault {
    /// Opens the key file at `path`, creating it (and its directory, mode 0700) with a
    /// fresh random key of mode 0600 when missing.
    ///
    /// # Errors
    /// [`VaultError::Symlink`], [`VaultError::Permissions`], [`VaultError::Owner`],
    /// [`VaultError::BadKey`] for a file that is not safe to use; [`VaultError::Io`],
    /// [`VaultError::Random`].
    pub fn open_or_create(path: &Path) -> Result<Self, VaultError> {
        let io = |source| VaultError::Io {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
            && !dir.exists()
        {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(io)?;
        }
        let nofollow = nix::fcntl::OFlag::O_NOFOLLOW.bits();
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(nofollow)
            .open(path)
        {
            Ok(mut file) => {
                let mut key = [0u8; KEY_BYTES];
                getrandom::fill(&mut key).map_err(|e| VaultError::Random(e.to_string()))?;
                let written = file.write_all(&key).and_then(|()| file.sync_all());
                let vault = Self::from_key(&key, path);
                key.zeroize();
                written.map_err(io)?;
                return Ok(vault);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io(e)),
        }
        if std::fs::symlink_metadata(path)
            .map_err(io)?
            .file_type()
            .is_symlink()
        {
            return Err(VaultError::Symlink(path.to_owned()));
        }
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nofollow)
            .open(path)
            .map_err(|e| {
                if e.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32) {
                    VaultError::Symlink(path.to_owned())
                } else {
                    io(e)
                }
            })?;
        let meta = file.metadata().map_err(io)?;
        let mode = meta.mode() & 0o7777;
        if !meta.is_file() || mode & 0o077 != 0 {
            return Err(VaultError::Permissions {
                path: path.to_owned(),
                mode,
            });
        }
        let me = nix::unistd::geteuid().as_raw();
        if meta.uid() != me {
            return Err(VaultError::Owner {
                path: path.to_owned(),
                owner: meta.uid(),
                me,
            });
        }
        if meta.len() != KEY_BYTES as u64 {
            return Err(VaultError::BadKey {
                path: path.to_owned(),
                len: meta.len(),
            });
        }
        let mut key = [0u8; KEY_BYTES];
        let read = file.read_exact(&mut key);
        let vault = Self::from_key(&key, path);
        key.zeroize();
        read.map_err(io)?;
        Ok(vault)
    }

    fn from_key(key: &[u8; KEY_BYTES], path: &Path) -> Self {
        Self {
            cipher: XChaCha20Poly1305::new(key.into()),
            path: path.to_owned(),
        }
    }

    /// The key file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Seals `plaintext` bound to `associated` (the row key); the sealed text.
    ///
    /// # Errors
    /// [`VaultError::Random`] when no nonce can be drawn.
    pub fn seal(&self, associated: &[u8], plaintext: &[u8]) -> Result<String, VaultError> {
        let mut nonce = [0u8; NONCE_BYTES];
        getrandom::fill(&mut nonce).map_err(|e| VaultError::Random(e.to_string()))?;
        let sealed = self
            .cipher
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: plaintext,
                    aad: associated,
                },
            )
            .map_err(|_| VaultError::Unsealable)?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Ok(base64::engine::general_purpose::STANDARD.encode(out))
    }

    /// Opens a value [`Vault::seal`] made with the same key and `associated` data.
    ///
    /// # Errors
    /// [`VaultError::Unsealable`] for anything else (damaged, other key, other row).
    pub fn open(&self, associated: &[u8], sealed: &str) -> Result<Vec<u8>, VaultError> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(sealed)
            .map_err(|_| VaultError::Unsealable)?;
        if bytes.len() < NONCE_BYTES + 16 {
            return Err(VaultError::Unsealable);
        }
        let (nonce, body) = bytes.split_at(NONCE_BYTES);
        let nonce: [u8; NONCE_BYTES] = nonce.try_into().map_err(|_| VaultError::Unsealable)?;
        self.cipher
            .decrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: body,
                    aad: associated,
                },
            )
            .map_err(|_| VaultError::Unsealable)
    }
}

/// The associated data of a sealed value: a label and the row's key fields, each
/// length-prefixed so no two different rows give the same bytes.
pub(crate) fn row_key(label: &str, fields: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in std::iter::once(label).chain(fields.iter().copied()) {
        out.extend_from_slice(&(part.len() as u64).to_be_bytes());
        out.extend_from_slice(part.as_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_new_key_file_is_private_and_reopens_to_the_same_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/oauth.key");
        let v = Vault::open_or_create(&path).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert_eq!(
            std::fs::metadata(path.parent().unwrap())
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o700
        );
        assert_eq!(meta.len(), 32);
        let ad = row_key(
            "token",
            &["https://as.example", "https://mcp.example/mcp", "c"],
        );
        let sealed = v.seal(&ad, b"secret").unwrap();
        assert!(!sealed.contains("secret"));
        let again = Vault::open_or_create(&path).unwrap();
        assert_eq!(again.open(&ad, &sealed).unwrap(), b"secret");
        // Two seals of the same text differ (fresh nonce).
        assert_ne!(v.seal(&ad, b"secret").unwrap(), sealed);
    }

    #[test]
    fn a_sealed_value_opens_only_for_its_row_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let v = Vault::open_or_create(&dir.path().join("a.key")).unwrap();
        let other = Vault::open_or_create(&dir.path().join("b.key")).unwrap();
        let ad = row_key("token", &["https://as.example", "r", "c"]);
        let sealed = v.seal(&ad, b"tok").unwrap();
        let moved = row_key("token", &["https://evil.example", "r", "c"]);
        assert!(matches!(
            v.open(&moved, &sealed),
            Err(VaultError::Unsealable)
        ));
        assert!(matches!(
            other.open(&ad, &sealed),
            Err(VaultError::Unsealable)
        ));
        assert!(matches!(v.open(&ad, "AAAA"), Err(VaultError::Unsealable)));
        // Field boundaries count: ("ab", "c") is not ("a", "bc").
        assert_ne!(row_key("t", &["ab", "c"]), row_key("t", &["a", "bc"]));
    }

    #[test]
    fn unsafe_key_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oauth.key");
        Vault::open_or_create(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        let e = Vault::open_or_create(&path).unwrap_err();
        assert!(
            matches!(e, VaultError::Permissions { mode: 0o640, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("chmod 600"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link.key");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(matches!(
            Vault::open_or_create(&link),
            Err(VaultError::Symlink(_))
        ));
        // Another user's file (only root can make one here).
        if nix::unistd::geteuid().is_root() {
            let theirs = dir.path().join("theirs.key");
            std::fs::write(&theirs, [1u8; 32]).unwrap();
            std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o600)).unwrap();
            std::os::unix::fs::chown(&theirs, Some(65534), None).unwrap();
            assert!(matches!(
                Vault::open_or_create(&theirs),
                Err(VaultError::Owner { owner: 65534, .. })
            ));
        }
        let short = dir.path().join("short.key");
        std::fs::write(&short, b"0123").unwrap();
        std::fs::set_permissions(&short, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(matches!(
            Vault::open_or_create(&short),
            Err(VaultError::BadKey { len: 4, .. })
        ));
    }
}
