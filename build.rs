//! Build script: one standard, probed link flag on Linux with glibc, nothing
//! else.
//!
//! Packed relative relocations (`-z pack-relative-relocs`, DT_RELR): the
//! tens of thousands of pointers in Rust's vtables and static tables
//! otherwise take one 24-byte `.rela.dyn` entry each (about 1 MB of the
//! binary), all applied at every start of every hook. The flag needs a
//! linker that knows it (GNU ld 2.38, lld 15, mold) and a C library that
//! applies DT_RELR (glibc 2.36), and a binary linked with it does not start
//! on an older glibc. So the script links and runs a one-line C program with
//! the flag, the way cargo will link the binary, and passes the flag on only
//! when that program ran. `cargo install` builds for the machine it runs on,
//! where the probe is exact; `MASTERMIND_HOOKS_NO_RELR=1` leaves the flag out
//! of a binary meant for an older glibc than the build machine's.
//!
//! Cross builds, other systems and musl (the release's static binaries) are
//! left exactly as cargo builds them. Nothing here changes what the program
//! does, where cargo puts it (`target/release`) or which C library it uses
//! (the system's, dynamically).

use std::path::PathBuf;
use std::process::{Command, Stdio};

const RELR: &str = "-Wl,-z,pack-relative-relocs";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MASTERMIND_HOOKS_NO_RELR");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target != host || !target.ends_with("-linux-gnu") {
        return;
    }
    if std::env::var_os("MASTERMIND_HOOKS_NO_RELR").is_some() {
        return;
    }
    if links_and_runs(&[RELR]) {
        println!("cargo:rustc-link-arg-bins={RELR}");
    }
}

/// True when a one-line C program linked with `flags` by the linker cargo
/// uses for this target (`cc` unless configured) runs on this machine.
fn links_and_runs(flags: &[&str]) -> bool {
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let source = out.join("link_probe.c");
    let program = out.join("link_probe");
    if std::fs::write(&source, "int main(void) { return 0; }\n").is_err() {
        return false;
    }
    let linker = std::env::var_os("RUSTC_LINKER").unwrap_or_else(|| "cc".into());
    let linked = Command::new(linker)
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .args(flags)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    linked
        && Command::new(&program)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
}
