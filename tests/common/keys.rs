//! Real SSH signing keys from `ssh-keygen`, allowed-signers lines for them,
//! and commits signed with them as git signs (`gpg.format=ssh`), for tests
//! of `signers` rules.

use super::{TestRepo, require_tool, text};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Ed25519 keys made by `ssh-keygen` in a directory that lives as long as
/// this value.
pub struct Keys {
    _dir: tempfile::TempDir,
    program: PathBuf,
    dir: PathBuf,
}

impl Keys {
    /// `None` (the test returns) where `ssh-keygen` is missing outside CI;
    /// under `CI=true` a missing tool fails the test ([`require_tool`]).
    pub fn new() -> Option<Keys> {
        let program = require_tool("ssh-keygen")?;
        let dir = tempfile::tempdir().expect("keys dir");
        Some(Keys {
            program,
            dir: dir.path().to_path_buf(),
            _dir: dir,
        })
    }

    /// A new key named `name` (the private half's path; `.pub` beside it).
    pub fn key(&self, name: &str) -> PathBuf {
        let key = self.dir.join(name);
        if !key.exists() {
            let output = Command::new(&self.program)
                .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
                .arg(&key)
                .output()
                .expect("ssh-keygen");
            assert!(output.status.success(), "ssh-keygen: {}", text(&output));
        }
        key
    }
}

/// An allowed-signers line (git's `gpg.ssh.allowedSignersFile` format) for
/// `key`'s public half under `principal`.
pub fn allowed_line(principal: &str, key: &Path) -> String {
    let public = std::fs::read_to_string(key.with_extension("pub")).expect("public key");
    let mut fields = public.split_whitespace();
    let (kind, blob) = (
        fields.next().expect("key type"),
        fields.next().expect("key blob"),
    );
    format!("{principal} namespaces=\"git\" {kind} {blob}\n")
}

/// Commit everything in the working tree as `author` (`Name <email>`),
/// signed with `key` (none: unsigned), without running hooks; the new
/// commit's id.
pub fn commit_signed(repo: &TestRepo, key: Option<&Path>, author: &str, message: &str) -> String {
    repo.git(&["add", "-A"]);
    let mut command = repo.command("git");
    if let Some(key) = key {
        command.args([
            "-c",
            "gpg.format=ssh",
            "-c",
            &format!("user.signingkey={}", key.display()),
        ]);
    }
    command.args([
        "commit",
        "-q",
        "--no-verify",
        "--allow-empty",
        "--author",
        author,
        "-m",
        message,
    ]);
    if key.is_some() {
        command.arg("-S");
    }
    let output = command.output().expect("git commit");
    assert!(output.status.success(), "commit: {}", text(&output));
    repo.head()
}
