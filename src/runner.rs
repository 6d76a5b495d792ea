//! `verification run`: run one observed check as declared and write its
//! tree receipt (`<task>/verification/<id>.tree.json`).
//!
//! Order of events, each step fail-closed:
//!
//! 1. read and validate the spec (inside the repository, no symlink, valid
//!    declarations); find the declaration (refusals write nothing);
//! 2. take `<task>/verification/run.lock` (exclusive, non-blocking: a
//!    second runner is refused with `verification_busy`);
//! 3. write a `pending` receipt (previous attempt + 1) *before* anything
//!    else, so an interrupted or killed run never leaves an older success;
//! 4. resolve the cwd and the executable, take the tree-v2 digest of the
//!    working tree, write `pending` again with them;
//! 5. run argv directly (no shell unless argv names one), stdin null, its
//!    own process group, repository-local git variables removed, the
//!    declared timeout and the 1 MiB stream cap killing the whole group;
//! 6. take the digest again and re-resolve the executable and the spec: any
//!    change is `input_changed`;
//! 7. check for SIGINT/SIGTERM one last time, then write the final receipt
//!    atomically (temporary file, fsync, rename; mode 0600).

pub mod executable;
pub mod supervise;

use crate::codes::Code;
use crate::config::{CONFIG_PATH, Config, MAX_CONFIG_BYTES};
use crate::contract::argv_display::{RunDeclaration, declaration_sha256};
use crate::contract::receipt::{Executable, PROVENANCE, Status, StreamDigest};
use crate::contract::spec::{self, MAX_SPEC_BYTES};
use crate::contract::tree_receipt::{SpecBinding, TreeReceipt};
use crate::diagnostic::{Diagnostic, Severity};
use crate::digest::{TREE_DIGEST_VERSION, TreeDigester};
use crate::repo::tree::View;
use crate::repo::{Repo, RepoError};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The reason recorded when inputs changed during the run.
pub const INPUTS_CHANGED: &str = "verification_inputs_changed_or_unavailable";

/// A finished run: the receipt written and where.
#[derive(Debug)]
pub struct Finished {
    pub receipt: TreeReceipt,
    pub path: PathBuf,
}

fn refuse(code: Code, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, message)
}

/// Write `bytes` to `path` atomically: a private temporary file beside it,
/// flushed to disk, renamed over the target, the directory flushed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("receipt path has no directory"))?;
    let mut suffix = [0u8; 8];
    getrandom::fill(&mut suffix).map_err(|e| std::io::Error::other(e.to_string()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp.{}", hex::encode(suffix)));
    let result = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)?;
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn random_run_id() -> Result<String, Diagnostic> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        refuse(
            Code::verification_io_failed,
            format!("no randomness for run_id: {e}"),
        )
    })?;
    Ok(hex::encode(bytes))
}

/// The spec's repository-relative path, checked to be a regular file
/// inside the working tree, reached without symlinks at the end.
pub(crate) fn locate_spec(root: &Path, spec: &Path) -> Result<(PathBuf, String), Diagnostic> {
    let invalid = |m: String| refuse(Code::verification_spec_invalid, m);
    let absolute = if spec.is_absolute() {
        spec.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| invalid(format!("no current directory: {e}")))?
            .join(spec)
    };
    let name = absolute
        .file_name()
        .ok_or_else(|| invalid(format!("{} names no file", spec.display())))?;
    let parent = absolute
        .parent()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .ok_or_else(|| {
            invalid(format!(
                "{}: the spec's directory does not exist",
                spec.display()
            ))
        })?;
    let full = parent.join(name);
    let relative = full.strip_prefix(root).map_err(|_| {
        invalid(format!(
            "{} is outside the repository {}",
            spec.display(),
            root.display()
        ))
    })?;
    let relative = relative
        .to_str()
        .ok_or_else(|| invalid(format!("{} is not a UTF-8 path", spec.display())))?
        .replace('\\', "/");
    Ok((full, relative))
}

fn spec_sha256(path: &Path) -> Result<(Vec<u8>, String), Diagnostic> {
    let bytes = crate::input::read_bounded_no_follow(path, MAX_SPEC_BYTES)
        .map_err(|d| refuse(Code::verification_spec_invalid, d.message))?;
    if bytes.len() > MAX_SPEC_BYTES {
        return Err(refuse(
            Code::verification_spec_invalid,
            format!("{} is larger than {MAX_SPEC_BYTES} bytes", path.display()),
        ));
    }
    let sha = hex::encode(Sha256::digest(&bytes));
    Ok((bytes, sha))
}

const DECLARATION_CODES: &[Code] = &[
    Code::frontmatter_invalid,
    Code::frontmatter_unterminated,
    Code::verification_declaration_limit,
    Code::verification_id_invalid,
    Code::verification_cmd_ambiguous,
    Code::verification_argv_invalid,
    Code::verification_cwd_not_canonical,
    Code::verification_cmd_mismatch,
];

/// The declaration to run, or why not.
fn declaration(bytes: &[u8], spec: &str, id: &str) -> Result<(String, RunDeclaration), Diagnostic> {
    let (parsed, diagnostics) = spec::check(bytes);
    if let Some(d) = diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error && DECLARATION_CODES.contains(&d.code))
    {
        return Err(refuse(
            Code::verification_spec_invalid,
            format!("{spec}: {} ({})", d.message, d.code.as_str()),
        ));
    }
    let frontmatter = parsed.frontmatter.ok_or_else(|| {
        refuse(
            Code::verification_spec_invalid,
            format!("{spec} has no front matter declaring observed checks"),
        )
    })?;
    frontmatter
        .observed()
        .find(|(_, run)| run.id == id)
        .map(|(cmd, run)| (cmd.to_string(), run.clone()))
        .ok_or_else(|| {
            refuse(
                Code::observed_verification_not_declared,
                format!("observed_verification_not_declared: {spec} declares no `verify[].run` with id `{id}`"),
            )
        })
}

fn previous_attempt(path: &Path) -> u64 {
    crate::input::read_bounded_no_follow(
        path,
        crate::contract::tree_receipt::MAX_TREE_RECEIPT_BYTES,
    )
    .ok()
    .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
    .and_then(|v| v.get("attempt").and_then(serde_json::Value::as_u64))
    .unwrap_or(0)
}

fn io_failed(e: impl std::fmt::Display, what: &str) -> Diagnostic {
    refuse(Code::verification_io_failed, format!("{what}: {e}"))
}

fn stream(s: &supervise::Stream) -> Option<StreamDigest> {
    (s.complete && s.bytes <= supervise::STREAM_CAP).then(|| StreamDigest {
        bytes: s.bytes,
        sha256: s.sha256.clone(),
    })
}

fn executable_record(resolved: &executable::Resolved) -> Executable {
    Executable {
        invocation_path: resolved.invocation_path.to_string_lossy().into_owned(),
        resolved_path: resolved.resolved_path.to_string_lossy().into_owned(),
        sha256: resolved.sha256.clone(),
    }
}

/// The configuration whose agent-file globs decide what the tree digest
/// covers: the working tree's, as `check --worktree` reads it; the strict
/// defaults when it is absent or invalid (the gate reports an invalid one).
fn digest_config(root: &Path) -> Config {
    crate::input::read_bounded_no_follow(&root.join(CONFIG_PATH), MAX_CONFIG_BYTES)
        .ok()
        .and_then(|bytes| Config::parse(&bytes, CONFIG_PATH).ok())
        .unwrap_or_else(Config::strict_defaults)
}

/// The tree-v2 digest of the working tree as it is now.
fn snapshot(repo: &Repo, digester: &mut TreeDigester<'_>) -> Result<String, RepoError> {
    let view = View::from_worktree(repo)?;
    digester.of_view(&view)
}

/// Run one declared check of `spec` and write its tree receipt.
/// `Err` is a refusal or an I/O failure before a receipt could be written.
pub fn run(spec: &Path, id: &str, interrupt: &AtomicBool) -> Result<Finished, Diagnostic> {
    let cwd = std::env::current_dir().map_err(|e| io_failed(e, "no current directory"))?;
    let repo = Repo::discover(&cwd).map_err(|e| e.to_diagnostic())?;
    let root = repo
        .workdir()
        .and_then(|w| std::fs::canonicalize(w).ok())
        .ok_or_else(|| {
            refuse(
                Code::git_worktree_unavailable,
                "verification run needs a working tree",
            )
        })?;
    let (spec_file, spec_rel) = locate_spec(&root, spec)?;
    let (spec_bytes, spec_sha) = spec_sha256(&spec_file)?;
    let (command, run) = declaration(&spec_bytes, &spec_rel, id)?;
    let task_dir = spec_file
        .parent()
        .ok_or_else(|| refuse(Code::verification_spec_invalid, "the spec has no directory"))?;
    let verification = task_dir.join("verification");
    std::fs::create_dir_all(&verification)
        .map_err(|e| io_failed(e, "cannot create verification/"))?;
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(verification.join("run.lock"))
        .map_err(|e| io_failed(e, "cannot open verification/run.lock"))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(refuse(
                Code::verification_busy,
                format!(
                    "verification_busy: another runner holds {}",
                    verification.join("run.lock").display()
                ),
            ));
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io_failed(e, "cannot lock run.lock")),
    }
    let receipt_path = verification.join(format!("{id}.tree.json"));
    let mut receipt = TreeReceipt {
        schema_version: 1,
        run_id: random_run_id()?,
        check_id: run.id.clone(),
        attempt: previous_attempt(&receipt_path).saturating_add(1),
        status: Status::Pending,
        reason: None,
        spec: SpecBinding {
            path: spec_rel.clone(),
            sha256: spec_sha.clone(),
        },
        declaration_sha256: declaration_sha256(&command, &run),
        command,
        declaration: run.clone(),
        executable: None,
        tree_digest_version: TREE_DIGEST_VERSION,
        tree_before: None,
        tree_after: None,
        started_at: now_secs(),
        duration_ms: 0,
        exit_code: None,
        signal: None,
        stdout: None,
        stderr: None,
        runner_version: env!("CARGO_PKG_VERSION").to_string(),
        platform: std::env::consts::OS.to_string(),
        provenance: PROVENANCE.to_string(),
    };
    let write = |receipt: &TreeReceipt| -> Result<(), Diagnostic> {
        let mut bytes =
            serde_json::to_vec_pretty(receipt).map_err(|e| io_failed(e, "encoding the receipt"))?;
        bytes.push(b'\n');
        write_atomic(&receipt_path, &bytes)
            .map_err(|e| io_failed(e, &format!("cannot write {}", receipt_path.display())))
    };
    // 3. Revoke any older result before preparing anything.
    write(&receipt)?;
    let finish = |mut receipt: TreeReceipt, status: Status, reason: Option<String>| {
        receipt.status = status;
        receipt.reason = reason;
        write(&receipt)?;
        Ok(Finished {
            receipt,
            path: receipt_path.clone(),
        })
    };

    // 4. Prepare.
    let work_dir = root.join(&run.cwd);
    let work_dir = match std::fs::canonicalize(&work_dir) {
        Ok(dir) if dir.is_dir() && dir.starts_with(&root) => dir,
        _ => {
            return finish(
                receipt,
                Status::SpawnFailed,
                Some(format!(
                    "cwd_unavailable: `{}` is not an existing directory inside the repository",
                    run.cwd
                )),
            );
        }
    };
    let path_env = std::env::var_os("PATH");
    let resolved = match executable::resolve(&run.argv[0], &work_dir, path_env.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            return finish(
                receipt,
                Status::SpawnFailed,
                Some(format!("executable_unavailable: {e}")),
            );
        }
    };
    receipt.executable = Some(executable_record(&resolved));
    // One digester for both snapshots: the sha256 cache is read once, and
    // saved when the digester is dropped.
    let config = digest_config(&root);
    let mut digester = TreeDigester::new(&repo, &config, true);
    let before = match snapshot(&repo, &mut digester) {
        Ok(digest) => digest,
        Err(e) => {
            return finish(
                receipt,
                Status::IoFailed,
                Some(format!("snapshot_unavailable: {}", e.message)),
            );
        }
    };
    receipt.tree_before = Some(before.clone());
    write(&receipt)?;
    if interrupt.load(Ordering::SeqCst) {
        return finish(
            receipt,
            Status::Interrupted,
            Some("runner_interrupted".into()),
        );
    }

    // 5. Run.
    let mut command = std::process::Command::new(&resolved.invocation_path);
    {
        use std::os::unix::process::CommandExt;
        command.arg0(&run.argv[0]);
    }
    command.args(&run.argv[1..]).current_dir(&work_dir);
    // Never leak the hook's repository-local git variables into the check.
    let inherited: Vec<std::ffi::OsString> = std::env::vars_os().map(|(name, _)| name).collect();
    for name in crate::process_env::git_local_vars_to_clear(inherited.iter().map(|n| n.as_os_str()))
    {
        command.env_remove(name);
    }
    let supervised = supervise::run(command, Duration::from_secs(run.timeout_secs), interrupt);
    let supervised = match supervised {
        Ok(s) => s,
        Err(e) => {
            return finish(
                receipt,
                Status::SpawnFailed,
                Some(format!("spawn_failed: {e}")),
            );
        }
    };
    receipt.duration_ms = u64::try_from(supervised.duration.as_millis()).unwrap_or(u64::MAX);
    receipt.exit_code = supervised.exit_code;
    receipt.signal = supervised.signal;
    receipt.stdout = stream(&supervised.stdout);
    receipt.stderr = stream(&supervised.stderr);

    // 6. Re-check the inputs; the cache learns the files' blob ids.
    let after = snapshot(&repo, &mut digester);
    drop(digester);
    receipt.tree_after = after.as_ref().ok().cloned();
    let executable_now = executable::resolve(&run.argv[0], &work_dir, path_env.as_deref());
    let spec_now = spec_sha256(&spec_file).map(|(_, sha)| sha);
    let inputs_changed = receipt.tree_after.as_deref() != Some(before.as_str())
        || executable_now.as_ref().map(|r| &r.sha256) != Ok(&resolved.sha256)
        || spec_now.as_ref().ok() != Some(&spec_sha);

    let (status, reason) = if supervised.interrupted {
        (Status::Interrupted, Some("runner_interrupted".to_string()))
    } else if supervised.timed_out {
        (
            Status::Timeout,
            Some(format!("timeout_secs_exceeded: {} s", run.timeout_secs)),
        )
    } else if supervised.output_limit {
        (
            Status::OutputLimit,
            Some(format!("stream_exceeded_{}_bytes", supervise::STREAM_CAP)),
        )
    } else if receipt.stdout.is_none() || receipt.stderr.is_none() {
        (
            Status::IoFailed,
            Some(
                "output_stream_incomplete: a detached process kept a pipe open or reading failed"
                    .to_string(),
            ),
        )
    } else if let Err(e) = &after {
        (
            Status::IoFailed,
            Some(format!("snapshot_unavailable: {}", e.message)),
        )
    } else if inputs_changed {
        (Status::InputChanged, Some(INPUTS_CHANGED.to_string()))
    } else if supervised.exit_code == Some(0) && supervised.signal.is_none() {
        (Status::Passed, None)
    } else {
        (Status::Failed, None)
    };
    // 7. Cancellation is decided immediately before publication.
    let (status, reason) = if interrupt.load(Ordering::SeqCst) && status != Status::Interrupted {
        (Status::Interrupted, Some("runner_interrupted".to_string()))
    } else {
        (status, reason)
    };
    let finished = finish(receipt, status, reason);
    drop(lock);
    finished
}
