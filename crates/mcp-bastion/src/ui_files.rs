//! The I/O half of the UI-resource rules (issue 7 §6): find each declared `ui://` content
//! file below the UI root without following symbolic links, measure and hash it, and
//! hand the facts to the core ([`bastion_core::publish::check_ui_resources`]), which
//! decides. Used by `check ui-resources --ui-root DIR` and by `contract build`
//! ([`review`]).

use anyhow::{Context, bail};
use bastion_core::contract::SourceManifest;
use bastion_core::pins::sha256_hex;
use bastion_core::publish::{
    UiFileFacts, UiPolicy, check_ui_resources, content_path_problem, fill_ui_content,
};
use bastion_core::{Finding, Severity};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Facts about every declared content file of `source` below `root`: symlinks on the
/// way (not followed), regular file or not, size, SHA-256 (only when read whole within
/// `max_bytes`). Paths the core refuses by their text, and files that do not exist, get
/// no entry (the core reports them).
///
/// # Errors
/// `root` is not a readable folder, or a file cannot be read for another reason than
/// not existing.
pub(crate) fn inspect(
    root: &Path,
    source: &SourceManifest,
    max_bytes: u64,
) -> anyhow::Result<BTreeMap<String, UiFileFacts>> {
    let meta = std::fs::metadata(root)
        .with_context(|| format!("UI root {} is not readable", root.display()))?;
    if !meta.is_dir() {
        bail!("UI root {} is not a folder", root.display());
    }
    let mut facts = BTreeMap::new();
    for ui in &source.ui_resources {
        let rel = &ui.content.path;
        if content_path_problem(rel).is_some() || facts.contains_key(rel) {
            continue;
        }
        if let Some(found) = inspect_one(root, rel, max_bytes)
            .with_context(|| format!("reading UI content {rel} below {}", root.display()))?
        {
            facts.insert(rel.clone(), found);
        }
    }
    Ok(facts)
}

fn not_regular(symlink: bool) -> UiFileFacts {
    UiFileFacts {
        symlink,
        regular: false,
        hard_linked: false,
        size: 0,
        sha256: None,
    }
}

/// Walks `rel` below `root` one component at a time with `lstat`, so that a symlinked
/// folder is seen, then opens the file with `O_NOFOLLOW` and re-checks it on the open
/// descriptor (a swap between the two steps is caught).
fn inspect_one(root: &Path, rel: &str, max_bytes: u64) -> std::io::Result<Option<UiFileFacts>> {
    let mut path = PathBuf::from(root);
    for component in rel.split('/').filter(|c| !c.is_empty() && *c != ".") {
        path.push(component);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => return Ok(Some(not_regular(true))),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        }
    }
    if !std::fs::symlink_metadata(&path)?.is_file() {
        return Ok(Some(not_regular(false)));
    }
    let file = open_no_follow(&path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(Some(not_regular(false)));
    }
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    let size = bytes.len() as u64;
    let sha256 = (size <= max_bytes).then(|| sha256_hex(&bytes));
    Ok(Some(UiFileFacts {
        symlink: false,
        regular: true,
        hard_linked: std::os::unix::fs::MetadataExt::nlink(&meta) > 1,
        size,
        sha256,
    }))
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// The UI-resource review `contract build` runs: reads `policy_path` (JSON
/// [`UiPolicy`]; defaults when absent); with a `root`, inspects the content files below
/// it and, when nothing high or critical was found, records each file's `sha256`/`size`
/// in `source`; without one, judges the declarations and content paths only. Returns
/// every finding (the caller refuses to build on a high one).
///
/// # Errors
/// Unreadable or malformed policy, unusable root, unreadable file.
pub(crate) fn review(
    source: &mut SourceManifest,
    root: Option<&Path>,
    policy_path: Option<&Path>,
) -> anyhow::Result<Vec<Finding>> {
    let policy = load_policy(policy_path)?;
    let Some(root) = root else {
        return Ok(check_ui_resources(source, &policy, None));
    };
    let facts = inspect(root, source, policy.max_ui_bytes)?;
    let findings = check_ui_resources(source, &policy, Some(&facts));
    if !findings.iter().any(|f| f.severity >= Severity::High) {
        fill_ui_content(source, &facts);
    }
    Ok(findings)
}

/// Reads a UI policy file (JSON [`UiPolicy`]), or the default policy for `None`.
///
/// # Errors
/// Unreadable file, not the policy shape, or a non-canonical allowlisted origin.
pub(crate) fn load_policy(path: Option<&Path>) -> anyhow::Result<UiPolicy> {
    let Some(path) = path else {
        return Ok(UiPolicy::default());
    };
    let text =
        std::fs::read(path).with_context(|| format!("cannot read UI policy {}", path.display()))?;
    let policy: UiPolicy = serde_json::from_slice(&text)
        .with_context(|| format!("UI policy {} is malformed", path.display()))?;
    policy.validate()?;
    Ok(policy)
}

/// `check ui-resources --ui-root DIR`: adds the `files` facts of the input's manifest
/// read below `root` (an input that already has `files` keeps them).
///
/// # Errors
/// The manifest or policy of the input is malformed, or the root is unusable.
pub(crate) fn with_file_facts(
    mut input: serde_json::Value,
    root: &Path,
) -> anyhow::Result<serde_json::Value> {
    if input.get("files").is_some() {
        return Ok(input);
    }
    let source: SourceManifest = serde_json::from_value(input["manifest"].clone())
        .context("`manifest` is not a contract source manifest")?;
    let policy: UiPolicy = match input.get("policy") {
        Some(p) => serde_json::from_value(p.clone()).context("`policy` is malformed")?,
        None => UiPolicy::default(),
    };
    let facts = inspect(root, &source, policy.max_ui_bytes)?;
    input["files"] = serde_json::to_value(facts)?;
    Ok(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(path: &str) -> SourceManifest {
        let text = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../bastion-core/tests/fixtures/contract/notes.source.json"),
        )
        .unwrap();
        let mut source: SourceManifest = serde_json::from_slice(&text).unwrap();
        source.ui_resources[0].content.path = path.into();
        source
    }

    #[test]
    fn regular_file_is_hashed_and_recorded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ui")).unwrap();
        std::fs::write(dir.path().join("ui/index.html"), b"<p>ok</p>").unwrap();
        let mut source = manifest("ui/index.html");
        let findings = review(&mut source, Some(dir.path()), None).unwrap();
        assert!(findings.is_empty(), "{findings:?}");
        let content = &source.ui_resources[0].content;
        assert_eq!(content.size, Some(9));
        assert_eq!(
            content.sha256.as_deref(),
            Some(sha256_hex(b"<p>ok</p>").as_str())
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.html"), b"x").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.html"),
            dir.path().join("file.html"),
        )
        .unwrap();
        for rel in ["linked/secret.html", "file.html"] {
            let mut source = manifest(rel);
            let findings = review(&mut source, Some(dir.path()), None).unwrap();
            assert!(
                findings
                    .iter()
                    .any(|f| f.code == bastion_core::Code::UiContentRefused),
                "{rel}: {findings:?}"
            );
            assert_eq!(source.ui_resources[0].content.sha256, None);
        }
    }

    #[cfg(unix)]
    #[test]
    fn hard_linked_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        // A hard link needs one file system: the "outside" file sits beside the root.
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(dir.path().join("private.html"), b"secret").unwrap();
        std::fs::hard_link(dir.path().join("private.html"), root.join("page.html")).unwrap();
        let mut source = manifest("page.html");
        let findings = review(&mut source, Some(&root), None).unwrap();
        assert!(
            findings
                .iter()
                .any(|f| f.code == bastion_core::Code::UiContentRefused
                    && f.message.contains("hard links")),
            "{findings:?}"
        );
        assert_eq!(source.ui_resources[0].content.sha256, None);
    }

    #[test]
    fn oversize_missing_and_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.html"), vec![b'a'; 2048]).unwrap();
        std::fs::create_dir(dir.path().join("folder.html")).unwrap();
        let policy = dir.path().join("policy.json");
        std::fs::write(&policy, br#"{"max_ui_bytes": 1024}"#).unwrap();
        for rel in ["big.html", "missing.html", "folder.html", "../escape.html"] {
            let mut source = manifest(rel);
            let findings = review(&mut source, Some(dir.path()), Some(&policy)).unwrap();
            assert!(
                findings
                    .iter()
                    .any(|f| f.code == bastion_core::Code::UiContentRefused),
                "{rel}: {findings:?}"
            );
        }
    }
}
