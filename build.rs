//! Build script: link flags for Linux with glibc, nothing else.
//!
//! 1. A static binary (`.cargo/config.toml` sets `crt-static` for the
//!    machine's own target): the script links and runs a one-line C program
//!    as a static PIE first, and where that fails (a C library without its
//!    static archive, as on Fedora without glibc-static) it stops the build
//!    at once with the fix, instead of letting the final link fail minutes
//!    later with the linker's words.
//! 2. Packed relative relocations (`-z pack-relative-relocs`, DT_RELR): the
//!    tens of thousands of pointers in Rust's vtables and static tables
//!    otherwise take one 24-byte `.rela.dyn` entry each (about 1.1 MB of a
//!    10 MB binary), all applied at every start of every hook. The flag
//!    needs a linker that knows it (GNU ld 2.38, lld 15, mold) and a C
//!    library that applies DT_RELR (glibc 2.36); a binary linked with it
//!    does not start on an older glibc. So the script links and runs the
//!    same program with the flag (and statically, where the binary is) and
//!    passes the flag on only when that program ran.
//!
//! Cross builds, other systems and musl (the release workflow's static
//! binaries) are left as they are. `MASTERMIND_HOOKS_NO_RELR=1` turns the
//! relocation flag off (for a binary meant for an older glibc than the
//! build machine's).

use std::path::PathBuf;
use std::process::{Command, Stdio};

const RELR: &str = "-Wl,-z,pack-relative-relocs";
const STATIC_PIE: &str = "-static-pie";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MASTERMIND_HOOKS_NO_RELR");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target != host || !target.ends_with("-linux-gnu") {
        return;
    }
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let linked_static = features.split(',').any(|f| f == "crt-static");
    let base: &[&str] = if linked_static { &[STATIC_PIE] } else { &[] };
    if linked_static && !links_and_runs(base) {
        panic!(
            "\n\nmastermind-hooks links statically on Linux with glibc (.cargo/config.toml), \
             and this machine's C compiler cannot link a static program: the C library's \
             static archive (libc.a) is missing.\n\
             Install it (Fedora, RHEL: `dnf install glibc-static`; Debian, Ubuntu: \
             `apt install libc6-dev`), or build the dynamic binary instead:\n\
             \n    RUSTFLAGS=\"-C relocation-model=pie\" cargo install --locked --path .\n\n"
        );
    }
    if std::env::var_os("MASTERMIND_HOOKS_NO_RELR").is_some() {
        return;
    }
    if links_and_runs(&[base, &[RELR]].concat()) {
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
    let program = out.join(format!("link_probe{}", flags.len()));
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
