//! Link-time layout of the `dist` build: the functions a running gateway executes are
//! placed next to each other.
//!
//! A page fault on the binary's code maps the pages around the faulting one too (the
//! kernel's fault-around, 64 KiB), so the ~4 MiB of functions a `wrap` relay executes,
//! scattered over 18 MiB of `.text`, kept some 14 MiB of it resident. With the functions
//! listed in `hot-symbols.txt` (written by `scripts/hot-symbols.sh` from a run of the
//! gateway under callgrind) placed first, about 5 MiB stays resident.
//!
//! The ordering is handed to the linker only when all of these hold, and otherwise the
//! build is the same as without this script:
//! - the profile is `dist` (the build users install; `cargo install --profile dist`);
//! - the target is `x86_64-unknown-linux-gnu`, whose default linker since Rust 1.90 is the
//!   bundled LLD, which reads `--symbol-ordering-file`;
//! - no linker is configured for it (`RUSTC_LINKER`, or `linker`/`fuse-ld` in the
//!   rustflags): another linker may not know the option;
//! - `MCP_BASTION_SYMBOL_ORDER` is not `off`.
//!
//! A symbol of the list the binary does not have (another compiler or dependency version
//! names it differently) is skipped without a warning; the list then only helps less.

use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=hot-symbols.txt");
    println!("cargo:rerun-if-env-changed=MCP_BASTION_SYMBOL_ORDER");
    if env::var("MCP_BASTION_SYMBOL_ORDER").is_ok_and(|v| v == "off") {
        return;
    }
    if env::var("TARGET").as_deref() != Ok("x86_64-unknown-linux-gnu") {
        return;
    }
    if env::var_os("RUSTC_LINKER").is_some() {
        return;
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if flags.contains("linker") || flags.contains("fuse-ld") {
        return;
    }
    // OUT_DIR is <target dir>[/<triple>]/<profile>/build/<package>-<hash>/out.
    let out_dir = env::var("OUT_DIR").unwrap_or_default();
    let profile = Path::new(&out_dir)
        .ancestors()
        .nth(3)
        .and_then(Path::file_name)
        .and_then(|n| n.to_str());
    if profile != Some("dist") {
        return;
    }
    let list =
        Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("hot-symbols.txt");
    if !list.is_file() {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin=mcp-bastion=-Wl,--symbol-ordering-file={}",
        list.display()
    );
    println!("cargo:rustc-link-arg-bin=mcp-bastion=-Wl,--no-warn-symbol-ordering");
}
