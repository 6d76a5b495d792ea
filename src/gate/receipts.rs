//! Receipts (DESIGN.md section 5 item 6): every observed check of a
//! checked task needs a receipt that is current, and every declared
//! acceptance criterion needs all its checks current.
//!
//! Receipts are read as blobs of the task's last step, like every artifact.
//! Per check, `<id>.tree.json` (tree receipt) is used when present, else
//! `<id>.json` (Mastermind v1):
//!
//! * a tree receipt is current iff it is sound, bound to the spec's current
//!   declaration, spec path, spec bytes and this platform, and its
//!   `tree_after` equals the tree digest of the content it is judged
//!   against. With `freshness: task` (the default) that is where the check
//!   ran: the step that added or last changed the receipt (the staged tree
//!   in pre-commit), and any later step of the same task that changes
//!   content makes it stale; steps of other tasks and untasked steps do
//!   not. `freshness: merge` compares with what lands (CI's merge tree) and
//!   `head` with the tip. Its executable is compared where it can be
//!   resolved: a repository-relative argv[0] from the task's last step in
//!   every mode, an absolute or `PATH` one on this machine in the local
//!   modes only (a CI runner's `/usr/bin/python3` is not the developer's);
//! * a v1 receipt is inspected with the reference's full state table in
//!   `--worktree` (binding against `state.json`, declaration, platform,
//!   `run.lock`, snapshot v1 digest, executable); elsewhere it cannot be
//!   recomputed and is `receipt_unverifiable` (a warning with
//!   `receipts.accept_unverifiable_v1: true`).

use super::TaskContext;
use super::landing::{self, At, Landing, ViewKind};
use crate::codes::{Code, Outcome};
use crate::config::Freshness;
use crate::contract::mastermind::argv_display::{RunDeclaration, declaration_sha256};
use crate::contract::mastermind::receipt::{self, CheckState};
use crate::contract::mastermind::spec::{self, ParsedSpec};
use crate::contract::mastermind::tree_receipt::{self, Expected};
use crate::diagnostic::{Diagnostic, Severity};
use crate::digest::{TreeDigester, snapshot_v1};
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::View;
use crate::repo::tree::{Content, EntryMode};
use crate::repo::{RepoError, Result};
use crate::report::CheckOutcome;
use crate::runner::executable;
use gix::ObjectId;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// Which content a digest was taken of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Digested {
    Tree(ObjectId),
    Pending,
    Empty,
}

/// Digests computed once per gate run; one tree digester for all of them,
/// so the trees of several commits of a range share their unchanged
/// directories.
#[derive(Default)]
pub struct Memo<'r> {
    digester: Option<TreeDigester<'r>>,
    /// By content and digest version.
    digests: HashMap<(Digested, u32), std::result::Result<String, RepoError>>,
    snapshots: HashMap<String, std::result::Result<String, RepoError>>,
}

/// The inspected state of one observed check.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    pub id: String,
    pub state: CheckState,
    pub reason: Option<Code>,
    /// SHA-256 of the receipt file's bytes.
    pub receipt_revision: Option<String>,
    pub run_id: Option<String>,
    /// An unverifiable v1 receipt that configuration accepts.
    pub accepted_unverifiable: bool,
    pub diagnostics: Vec<Diagnostic>,
}

impl CheckResult {
    /// True when the check counts as satisfied.
    pub fn counts(&self) -> bool {
        self.state == CheckState::Current || self.accepted_unverifiable
    }
}

fn sha_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn result(id: &str, state: CheckState, code: Code, message: String, path: &str) -> CheckResult {
    CheckResult {
        id: id.to_string(),
        state,
        reason: Some(code),
        receipt_revision: None,
        run_id: None,
        accepted_unverifiable: false,
        diagnostics: vec![Diagnostic::new(code, message).with_path(path)],
    }
}

/// The tree digest of a snapshot, of the version a receipt recorded,
/// computed once per run.
fn digest_of<'r>(
    ctx: &TaskContext<'r>,
    memo: &mut Memo<'r>,
    snapshot: Snapshot<'_>,
    version: u32,
) -> std::result::Result<String, RepoError> {
    let gate = ctx.gate;
    let key = match snapshot {
        Snapshot::Tree(tree) => Digested::Tree(tree),
        Snapshot::View(_) => Digested::Pending,
        Snapshot::Empty => Digested::Empty,
    };
    if let Some(done) = memo.digests.get(&(key, version)) {
        return done.clone();
    }
    // The local caches never decide a CI or pre-receive verdict.
    let digester = memo.digester.get_or_insert_with(|| {
        TreeDigester::new(gate.repo, gate.config, gate.landing.kind.is_local())
    });
    let digest = match (snapshot, version) {
        (Snapshot::Tree(tree), 1) => {
            View::from_tree(gate.repo, tree, "a tree").and_then(|v| digester.of_view_v1(&v))
        }
        (Snapshot::Tree(tree), _) => digester.of_tree(tree),
        (Snapshot::View(view), 1) => digester.of_view_v1(view),
        (Snapshot::View(view), _) => digester.of_view(view),
        (Snapshot::Empty, 1) => digester.of_view_v1(&View::empty("the empty tree")),
        (Snapshot::Empty, _) => digester.of_view(&View::empty("the empty tree")),
    };
    memo.digests.insert((key, version), digest.clone());
    digest
}

/// The content a receipt must match, and what may have changed since.
struct Target<'a> {
    snapshot: Snapshot<'a>,
    /// What the snapshot is, for messages.
    label: String,
    /// The content paths of the step itself (what may have changed after
    /// the check ran, when the digests differ).
    own_paths: Vec<String>,
    /// Later steps of the task that changed content: each makes the
    /// receipt stale.
    later: Vec<(String, Vec<String>)>,
}

/// Where the receipt at `receipt_path` must be current.
fn target<'a>(ctx: &TaskContext<'a>, receipt_path: &str) -> Option<Target<'a>> {
    let gate = ctx.gate;
    let fixed = |snapshot: Snapshot<'a>, label: &str| Target {
        snapshot,
        label: label.to_string(),
        own_paths: Vec::new(),
        later: Vec::new(),
    };
    match gate.config.freshness {
        Freshness::Merge => return Some(fixed(gate.lands(), &gate.landing.lands_label)),
        Freshness::Head => return Some(fixed(gate.tip(), &gate.landing.tip_label)),
        Freshness::Task => {}
    }
    if ctx.steps.is_empty() {
        return Some(fixed(ctx.at, &ctx.at_label));
    }
    let agent_files = gate.config.agent_files();
    let index = ctx.steps.iter().rposition(|step| {
        step.changes.iter().any(|c| {
            c.path.as_slice() == receipt_path.as_bytes()
                && c.kind != crate::repo::changes::ChangeKind::Deleted
        })
    })?;
    let step = &ctx.steps[index];
    let content = |s: &super::change::Step| -> Vec<String> {
        s.content_changes(&agent_files)
            .map(|(p, _)| p.to_string())
            .collect()
    };
    Some(Target {
        snapshot: step.snapshot(gate.pending()),
        label: step.label.clone(),
        own_paths: content(step),
        later: ctx.steps[index + 1..]
            .iter()
            .filter(|s| s.changes_content(&agent_files))
            .map(|s| (s.label.clone(), content(s)))
            .collect(),
    })
}

/// At most `limit` paths, comma-separated, with a count of the rest.
fn list_paths(paths: &[String], limit: usize) -> String {
    let mut text = paths
        .iter()
        .take(limit)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > limit {
        text.push_str(&format!(" and {} more", paths.len() - limit));
    }
    if text.is_empty() {
        text.push_str("no content path");
    }
    text
}

/// True when git may convert files on their way into the repository:
/// `core.autocrlf` is set, or the root `.gitattributes` of `at` gives a
/// converting attribute. (Nested attribute files are not read: this only
/// chooses a hint.)
fn converts_on_add(ctx: &TaskContext<'_>, at: Snapshot<'_>) -> Result<bool> {
    use crate::repo::tree::stat_reuse::{attributes_may_convert, autocrlf_on};
    let repo = ctx.gate.repo;
    if autocrlf_on(repo) {
        return Ok(true);
    }
    Ok(match at.read(repo, ".gitattributes", 1024 * 1024)? {
        Some(Content::Bytes(bytes)) => attributes_may_convert(&bytes),
        _ => false,
    })
}

/// The commands that refresh a receipt.
pub fn refresh_hint(spec_path: &str, id: &str, receipt_path: &str) -> String {
    format!(
        "re-run the check on the content you commit: `mastermind-hooks verification run {spec_path} --id {id}`, then `git add {receipt_path}` and commit it with (or after) the change it verifies"
    )
}

/// Lexically join the check's cwd and a relative argv[0]; `None` when the
/// result leaves the repository.
fn repository_path(cwd: &str, argv0: &str) -> Option<String> {
    let mut parts: Vec<&str> = if cwd == "." {
        Vec::new()
    } else {
        cwd.split('/').collect()
    };
    for segment in argv0.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Where the executable comes from now, and its sha256 if it resolves.
enum Current {
    Sha(String),
    Unresolved(String),
    NotCompared,
}

fn executable_now(ctx: &TaskContext<'_>, run: &RunDeclaration) -> Result<Current> {
    let gate = ctx.gate;
    let argv0 = &run.argv[0];
    let relative = !argv0.starts_with('/') && argv0.contains('/');
    let in_repo = relative.then(|| repository_path(&run.cwd, argv0)).flatten();
    let root = gate.repo.workdir().map(|p| p.to_path_buf());
    match in_repo {
        Some(path) if !ctx.at.is_worktree() => Ok(match ctx.at.get(gate.repo, &path)? {
            Some(entry) if entry.mode == EntryMode::Executable => {
                match ctx
                    .at
                    .read(gate.repo, &path, executable::MAX_EXECUTABLE_BYTES as usize)?
                {
                    Some(Content::Bytes(bytes))
                        if bytes.len() as u64 <= executable::MAX_EXECUTABLE_BYTES =>
                    {
                        Current::Sha(sha_hex(&bytes))
                    }
                    _ => Current::Unresolved(format!(
                        "{path} is too large or unreadable in {}",
                        ctx.at_label
                    )),
                }
            }
            Some(_) => Current::Unresolved(format!(
                "{path} is not an executable regular file in {}",
                ctx.at_label
            )),
            None => Current::Unresolved(format!("{path} does not exist in {}", ctx.at_label)),
        }),
        _ if !gate.landing.kind.is_local() => Ok(Current::NotCompared),
        _ => {
            let Some(root) = root else {
                return Ok(Current::NotCompared);
            };
            let cwd = root.join(&run.cwd);
            Ok(
                match executable::resolve(argv0, &cwd, std::env::var_os("PATH").as_deref()) {
                    Ok(r) => Current::Sha(r.sha256),
                    Err(e) => Current::Unresolved(e),
                },
            )
        }
    }
}

/// One observed check as the spec in the view declares it.
#[derive(Clone, Copy)]
struct Declared<'a> {
    spec_path: &'a str,
    spec_sha: &'a str,
    cmd: &'a str,
    run: &'a RunDeclaration,
}

fn tree_check<'r>(
    ctx: &TaskContext<'r>,
    memo: &mut Memo<'r>,
    declared: Declared<'_>,
    path: &str,
    bytes: &[u8],
) -> Result<CheckResult> {
    let Declared {
        spec_path,
        spec_sha,
        cmd,
        run,
    } = declared;
    let declaration = declaration_sha256(cmd, run);
    let expected = Expected {
        declaration_sha256: &declaration,
        spec_path,
        spec_sha256: spec_sha,
        platform: std::env::consts::OS,
    };
    let inspection = tree_receipt::inspect(bytes, Some(&expected));
    let mut out = CheckResult {
        id: run.id.clone(),
        state: inspection.state,
        reason: inspection.reason,
        receipt_revision: Some(sha_hex(bytes)),
        run_id: inspection.receipt.as_ref().map(|r| r.run_id.clone()),
        accepted_unverifiable: false,
        diagnostics: Vec::new(),
    };
    let locate = |d: Diagnostic| d.with_path(path);
    if inspection.state != CheckState::Current {
        out.diagnostics = inspection.diagnostics.into_iter().map(locate).collect();
        return Ok(out);
    }
    let Some(receipt) = inspection.receipt else {
        return Ok(out);
    };
    let stale = |out: &mut CheckResult, code: Code, detail: String| {
        out.state = CheckState::Stale;
        out.reason = Some(code);
        out.diagnostics =
            vec![receipt::state_diagnostic(CheckState::Stale, code, &detail).with_path(path)];
    };
    let refresh = refresh_hint(spec_path, &run.id, path);
    let Some(target) = target(ctx, path) else {
        stale(
            &mut out,
            Code::receipt_snapshot_changed,
            format!(
                "check `{}`: no commit of the task's history since its baseline ({}) added this receipt, so where it ran is unknown",
                run.id, ctx.baseline_label
            ),
        );
        out.diagnostics = std::mem::take(&mut out.diagnostics)
            .into_iter()
            .map(|d| d.with_hint(refresh.clone()))
            .collect();
        return Ok(out);
    };
    match digest_of(ctx, memo, target.snapshot, receipt.tree_digest_version) {
        Err(e) => {
            out.state = CheckState::Unavailable;
            out.reason = Some(e.code);
            out.diagnostics = vec![
                Diagnostic::new(
                    e.code,
                    format!(
                        "cannot take the tree digest of {} for check `{}`: {}",
                        target.label, run.id, e.message
                    ),
                )
                .with_path(path),
            ];
            return Ok(out);
        }
        Ok(digest) if receipt.tree_after.as_deref() != Some(digest.as_str()) => {
            let detail = if target.own_paths.is_empty() {
                String::new()
            } else {
                format!(
                    "; it changed {} there, so look for edits made after the check ran",
                    list_paths(&target.own_paths, 8)
                )
            };
            stale(
                &mut out,
                Code::receipt_snapshot_changed,
                format!(
                    "check `{}` ran on content with tree digest {}, but {} (where the receipt was added) digests to {digest} (tree-v{}): the receipt does not describe the content it was committed with{detail}",
                    run.id,
                    receipt.tree_after.as_deref().unwrap_or("(none)"),
                    target.label,
                    receipt.tree_digest_version,
                ),
            );
            // Where git converts files on `git add`, the bytes the check
            // ran on are not the blobs committed, and a re-run in place
            // digests the same bytes again.
            let hint = if converts_on_add(ctx, target.snapshot)? {
                format!(
                    "this repository converts files on their way into git (core.autocrlf, or `text`/`eol`/`filter` in .gitattributes), so the bytes on disk differ from the committed blobs: stage the change, then run the check on exactly the staged content with `mastermind-hooks verification run {spec_path} --id {} --isolated`, `git add {path}` and commit",
                    run.id
                )
            } else {
                refresh.clone()
            };
            out.diagnostics = std::mem::take(&mut out.diagnostics)
                .into_iter()
                .map(|d| d.with_hint(hint.clone()))
                .collect();
            return Ok(out);
        }
        Ok(_) => {}
    }
    if let Some((label, paths)) = target.later.first() {
        stale(
            &mut out,
            Code::receipt_snapshot_changed,
            format!(
                "check `{}` ran on {}, but the task's later {label} changed {}{}",
                run.id,
                target.label,
                list_paths(paths, 8),
                if target.later.len() > 1 {
                    format!(
                        " (and {} more of its commits changed content)",
                        target.later.len() - 1
                    )
                } else {
                    String::new()
                }
            ),
        );
        out.diagnostics = std::mem::take(&mut out.diagnostics)
            .into_iter()
            .map(|d| d.with_hint(refresh.clone()))
            .collect();
        return Ok(out);
    }
    let recorded = receipt
        .executable
        .as_ref()
        .map(|e| e.sha256.to_ascii_lowercase());
    match executable_now(ctx, run)? {
        Current::Sha(sha) if Some(&sha) == recorded.as_ref() => {}
        Current::Sha(sha) => stale(
            &mut out,
            Code::receipt_executable_changed,
            format!(
                "`{}` now hashes to {sha}, not {} as when check `{}` ran",
                run.argv[0],
                recorded.as_deref().unwrap_or("(none)"),
                run.id
            ),
        ),
        Current::Unresolved(why) => stale(
            &mut out,
            Code::receipt_executable_changed,
            format!(
                "the executable of check `{}` no longer resolves: {why}",
                run.id
            ),
        ),
        Current::NotCompared => {}
    }
    Ok(out)
}

/// The live binding a v1 receipt must carry, from `state.json`.
fn v1_binding_problem(
    ctx: &TaskContext<'_>,
    dir: &str,
    spec_path: &str,
    spec_sha: &str,
    binding: &receipt::Binding,
) -> Result<Option<String>> {
    let state_path = format!("{dir}/state.json");
    let state: serde_json::Value = match ctx.read(&state_path, 128 * 1024 + 1)? {
        Some(Content::Bytes(bytes)) if bytes.len() <= 128 * 1024 => {
            match serde_json::from_slice(&bytes) {
                Ok(v) => v,
                Err(e) => return Ok(Some(format!("{state_path} is not JSON: {e}"))),
            }
        }
        Some(Content::Bytes(_)) => return Ok(Some(format!("{state_path} is larger than 128 KiB"))),
        _ => {
            return Ok(Some(format!(
                "the task has no {state_path} (no pre-flight to bind to)"
            )));
        }
    };
    let text = |key: &str| state.get(key).and_then(|v| v.as_str()).map(str::to_string);
    let number = |key: &str| state.get(key).and_then(serde_json::Value::as_u64);
    let checks: [(&str, bool); 7] = [
        (
            "repository_identity",
            text("repository_identity").as_deref() == Some(binding.repository_identity.as_str()),
        ),
        (
            "intake_revision",
            text("intake_revision") == binding.intake_revision,
        ),
        ("spec_path", binding.spec_path == spec_path),
        (
            "spec_sha256",
            binding.spec_sha256.eq_ignore_ascii_case(spec_sha),
        ),
        (
            "baseline_oid",
            text("baseline_ref").as_deref() == Some(binding.baseline_oid.as_str()),
        ),
        (
            "iteration",
            number("iteration") == Some(u64::from(binding.iteration)),
        ),
        (
            "preflight_started_at",
            number("started_at") == Some(binding.preflight_started_at),
        ),
    ];
    Ok(checks.iter().find(|(_, ok)| !ok).map(|(field, _)| {
        format!("binding.{field} differs from the task's current pre-flight ({state_path})")
    }))
}

fn v1_worktree_check(
    ctx: &TaskContext<'_>,
    memo: &mut Memo<'_>,
    dir: &str,
    declared: Declared<'_>,
    path: &str,
    bytes: &[u8],
) -> Result<CheckResult> {
    let Declared {
        spec_path,
        spec_sha,
        cmd,
        run,
    } = declared;
    let inspection = receipt::inspect_intrinsic(bytes);
    let mut out = CheckResult {
        id: run.id.clone(),
        state: inspection.state,
        reason: inspection.reason,
        receipt_revision: Some(sha_hex(bytes)),
        run_id: inspection.receipt.as_ref().map(|r| r.run_id.clone()),
        accepted_unverifiable: false,
        diagnostics: inspection
            .diagnostics
            .into_iter()
            .map(|d| d.with_path(path))
            .collect(),
    };
    let Some(receipt) = inspection.receipt else {
        return Ok(out);
    };
    if matches!(
        out.reason,
        Some(
            Code::receipt_version_or_attempt_invalid
                | Code::receipt_source_unknown
                | Code::receipt_run_id_invalid
                | Code::receipt_binding_mismatch
        )
    ) {
        return Ok(out);
    }
    let stale = |out: &mut CheckResult, code: Code, detail: String| {
        out.state = CheckState::Stale;
        out.reason = Some(code);
        out.diagnostics =
            vec![receipt::state_diagnostic(CheckState::Stale, code, &detail).with_path(path)];
    };
    // Binding before status, as in the reference's table.
    let declaration = declaration_sha256(cmd, run);
    let mismatch = if let Some(problem) =
        v1_binding_problem(ctx, dir, spec_path, spec_sha, &receipt.binding)?
    {
        Some(problem)
    } else if receipt.declaration_sha256 != declaration
        || receipt.command != cmd
        || &receipt.declaration != run
    {
        Some(format!(
            "the spec now declares check `{}` differently",
            run.id
        ))
    } else if receipt.platform != std::env::consts::OS {
        Some(format!(
            "the check ran on `{}`, this gate runs on `{}`",
            receipt.platform,
            std::env::consts::OS
        ))
    } else if receipt.runner_version.trim().is_empty() {
        Some("runner_version is empty".to_string())
    } else {
        None
    };
    if let Some(detail) = mismatch {
        stale(&mut out, Code::receipt_binding_mismatch, detail);
        return Ok(out);
    }
    if out.state != CheckState::Current {
        return Ok(out);
    }
    // The verification directory's lock must exist and be free.
    let gate = ctx.gate;
    if let Some(root) = gate.repo.workdir() {
        let lock = root.join(dir).join("verification/run.lock");
        // Never through a link, never blocking on a FIFO planted there.
        match crate::safe_fs::open_read(&lock, crate::safe_fs::Follow::NoLinks) {
            Err(e) => {
                out.state = CheckState::Unavailable;
                out.reason = Some(Code::receipt_lock_missing);
                out.diagnostics = vec![
                    Diagnostic::new(
                        Code::receipt_lock_missing,
                        format!(
                            "{dir}/verification/run.lock {}, so v1 receipts are not accepted",
                            match e {
                                crate::safe_fs::Error::NotFound => "is missing".to_string(),
                                e => e.to_string(),
                            }
                        ),
                    )
                    .with_path(path),
                ];
                return Ok(out);
            }
            Ok(file) => {
                if let Err(std::fs::TryLockError::WouldBlock) = file.try_lock_shared() {
                    out.state = CheckState::Unavailable;
                    out.reason = Some(Code::verification_busy);
                    out.diagnostics = vec![
                        Diagnostic::new(Code::verification_busy, format!("a verification run holds {dir}/verification/run.lock; check again when it finishes")).with_path(path),
                    ];
                    return Ok(out);
                }
            }
        }
    }
    let baseline = receipt.binding.baseline_oid.clone();
    let snapshot = memo
        .snapshots
        .entry(baseline.clone())
        .or_insert_with(|| snapshot_v1::compute(gate.repo, &baseline))
        .clone();
    match snapshot {
        Err(e) => {
            out.state = CheckState::Unavailable;
            out.reason = Some(e.code);
            out.diagnostics = vec![
                Diagnostic::new(
                    e.code,
                    format!("snapshot v1 for check `{}`: {}", run.id, e.message),
                )
                .with_path(path),
            ];
            return Ok(out);
        }
        Ok(digest)
            if receipt
                .snapshot_after
                .as_deref()
                .map(str::to_ascii_lowercase)
                != Some(digest.clone()) =>
        {
            stale(
                &mut out,
                Code::receipt_snapshot_changed,
                format!(
                    "check `{}` ran on snapshot {} but the working tree is now {digest}",
                    run.id,
                    receipt.snapshot_after.as_deref().unwrap_or("(none)")
                ),
            );
            return Ok(out);
        }
        Ok(_) => {}
    }
    if let (Some(recorded), Some(root)) = (&receipt.executable, gate.repo.workdir()) {
        let now = executable::resolve(
            &run.argv[0],
            &root.join(&run.cwd),
            std::env::var_os("PATH").as_deref(),
        );
        let same = now.as_ref().is_ok_and(|r| {
            r.sha256.eq_ignore_ascii_case(&recorded.sha256)
                && r.invocation_path.to_string_lossy() == recorded.invocation_path
                && r.resolved_path.to_string_lossy() == recorded.resolved_path
        });
        if !same {
            stale(
                &mut out,
                Code::receipt_executable_changed,
                match now {
                    Ok(r) => format!(
                        "`{}` now resolves to {} ({})",
                        run.argv[0],
                        r.resolved_path.display(),
                        r.sha256
                    ),
                    Err(e) => format!("`{}` no longer resolves: {e}", run.argv[0]),
                },
            );
        }
    }
    Ok(out)
}

/// Inspect every observed check of a task in this view. `None` when the
/// spec has no usable front matter (the spec check reports why).
pub fn evaluate<'r>(
    ctx: &TaskContext<'r>,
    memo: &mut Memo<'r>,
    parsed: &ParsedSpec,
) -> Result<Option<Vec<CheckResult>>> {
    let gate = ctx.gate;
    let dir = ctx.dir.as_str();
    let Some(frontmatter) = parsed
        .frontmatter
        .as_ref()
        .filter(|_| parsed.frontmatter_error.is_none())
    else {
        return Ok(None);
    };
    let spec_path = format!("{dir}/spec.md");
    let spec_sha = match ctx.read_spec(spec::MAX_SPEC_BYTES)? {
        Some(Content::Bytes(bytes)) => sha_hex(&bytes),
        _ => return Ok(None),
    };
    let mut results = Vec::new();
    for (cmd, run) in frontmatter.observed() {
        let declared = Declared {
            spec_path: &spec_path,
            spec_sha: &spec_sha,
            cmd,
            run,
        };
        let tree_path = format!("{dir}/verification/{}.tree.json", run.id);
        let v1_path = format!("{dir}/verification/{}.json", run.id);
        let limit = tree_receipt::MAX_TREE_RECEIPT_BYTES;
        let result = match ctx.read(&tree_path, limit)? {
            Some(Content::Bytes(bytes)) => tree_check(ctx, memo, declared, &tree_path, &bytes)?,
            Some(Content::NotRegular(_)) => result(
                &run.id,
                CheckState::Unavailable,
                Code::artifact_not_regular_file,
                format!("{tree_path} is not a regular file in {}", ctx.at_label),
                &tree_path,
            ),
            Some(Content::TooLarge { size }) => result(
                &run.id,
                CheckState::Unavailable,
                Code::receipt_too_large,
                format!("{tree_path} is {size} bytes, more than {limit}"),
                &tree_path,
            ),
            None => match ctx.read(&v1_path, receipt::MAX_RECEIPT_BYTES)? {
                Some(Content::TooLarge { size }) => result(
                    &run.id,
                    CheckState::Unavailable,
                    Code::receipt_too_large,
                    format!(
                        "{v1_path} is {size} bytes, more than {}",
                        receipt::MAX_RECEIPT_BYTES
                    ),
                    &v1_path,
                ),
                None => result(
                    &run.id,
                    CheckState::Missing,
                    Code::receipt_missing,
                    format!(
                        "receipt_missing: observed check `{}` has no receipt in {} ({tree_path} or {v1_path})",
                        run.id, ctx.at_label
                    ),
                    &tree_path,
                ),
                Some(Content::NotRegular(_)) => result(
                    &run.id,
                    CheckState::Unavailable,
                    Code::artifact_not_regular_file,
                    format!("{v1_path} is not a regular file in {}", ctx.at_label),
                    &v1_path,
                ),
                Some(Content::Bytes(bytes)) if ctx.at.is_worktree() => {
                    v1_worktree_check(ctx, memo, dir, declared, &v1_path, &bytes)?
                }
                Some(Content::Bytes(bytes)) => {
                    let intrinsic = receipt::inspect_intrinsic(&bytes);
                    if intrinsic.state != CheckState::Current {
                        CheckResult {
                            id: run.id.clone(),
                            state: intrinsic.state,
                            reason: intrinsic.reason,
                            receipt_revision: Some(sha_hex(&bytes)),
                            run_id: intrinsic.receipt.as_ref().map(|r| r.run_id.clone()),
                            accepted_unverifiable: false,
                            diagnostics: intrinsic
                                .diagnostics
                                .into_iter()
                                .map(|d| d.with_path(&v1_path))
                                .collect(),
                        }
                    } else {
                        let accepted = gate.config.accept_unverifiable_v1;
                        let mut diagnostic = Diagnostic::new(
                            Code::receipt_unverifiable,
                            format!(
                                "receipt_unverifiable: check `{}` has only a Mastermind v1 receipt, whose snapshot binds the live working tree and cannot be recomputed in {}",
                                run.id, ctx.at_label
                            ),
                        )
                        .with_path(&v1_path);
                        if accepted {
                            diagnostic.severity = Severity::Warning;
                        }
                        CheckResult {
                            id: run.id.clone(),
                            state: CheckState::Unavailable,
                            reason: Some(Code::receipt_unverifiable),
                            receipt_revision: Some(sha_hex(&bytes)),
                            run_id: intrinsic.receipt.as_ref().map(|r| r.run_id.clone()),
                            accepted_unverifiable: accepted,
                            diagnostics: vec![diagnostic],
                        }
                    }
                }
            },
        };
        results.push(result);
    }
    Ok(Some(results))
}

/// Inspect every observed check of a task in the working tree, where the
/// receipts must describe the working tree itself (`acceptance status`).
pub fn evaluate_in_worktree(
    repo: &crate::repo::Repo,
    config: &crate::config::Config,
    view: View,
    dir: &str,
    parsed: &ParsedSpec,
) -> Result<Option<Vec<CheckResult>>> {
    let head = repo.head_commit()?;
    let label = view.label.clone();
    let landing = Landing {
        kind: ViewKind::Worktree,
        target: landing::Target::at(repo, head, "HEAD")?,
        base: head,
        base_label: "HEAD".to_string(),
        steps: Vec::new(),
        pending: Some(view),
        lands: At::Pending,
        lands_label: label.clone(),
        tip: At::Pending,
        tip_label: label.clone(),
        branch: None,
        label: None,
    };
    let gate = super::Gate {
        repo,
        config,
        landing: &landing,
    };
    let ctx = TaskContext {
        gate: &gate,
        dir: dir.to_string(),
        steps: Vec::new(),
        at: gate.lands(),
        at_label: label,
        baseline: Snapshot::Empty,
        baseline_label: "the empty tree".to_string(),
        paths: Default::default(),
        change_steps: 0,
    };
    evaluate(&ctx, &mut Memo::default(), parsed)
}

/// Criteria whose checks are not all current.
pub fn acceptance_diagnostics(
    parsed: &ParsedSpec,
    results: &[CheckResult],
) -> Option<Vec<Diagnostic>> {
    let criteria = parsed.frontmatter.as_ref()?.acceptance.as_ref()?;
    let by_id: HashMap<&str, &CheckResult> = results.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut out = Vec::new();
    for (index, criterion) in criteria.iter().enumerate() {
        let unmet: Vec<String> = criterion
            .checks
            .iter()
            .filter(|c| !by_id.get(c.as_str()).is_some_and(|r| r.counts()))
            .map(|c| match by_id.get(c.as_str()) {
                Some(r) => format!(
                    "`{c}` is {}{}",
                    r.state.as_str(),
                    r.reason
                        .map(|code| format!(" ({})", code.as_str()))
                        .unwrap_or_default()
                ),
                None => format!("`{c}` is unavailable (verification_unavailable)"),
            })
            .collect();
        if !unmet.is_empty() {
            out.push(
                Diagnostic::new(
                    Code::acceptance_criterion_unmet,
                    format!(
                        "acceptance_criterion_unmet: criterion `{}`: {}",
                        criterion.id,
                        unmet.join(", ")
                    ),
                )
                .with_pointer(format!("/acceptance/{index}/checks")),
            );
        }
    }
    Some(out)
}

/// The gate checks: "receipts", then "acceptance" when declared.
pub fn check<'r>(
    ctx: &TaskContext<'r>,
    memo: &mut Memo<'r>,
    parsed: Option<&ParsedSpec>,
) -> Result<Vec<CheckOutcome>> {
    let dir = ctx.dir.as_str();
    let Some(parsed) = parsed else {
        return Ok(Vec::new());
    };
    let Some(results) = evaluate(ctx, memo, parsed)? else {
        return Ok(Vec::new());
    };
    let spec_path = format!("{dir}/spec.md");
    let locate = |mut d: Diagnostic| {
        d.task = Some(dir.to_string());
        if d.path.is_none() {
            d.path = Some(spec_path.clone());
        }
        d
    };
    let mut outcomes = Vec::new();
    if !results.is_empty() {
        let diagnostics = results
            .iter()
            .filter(|r| r.state != CheckState::Current)
            .flat_map(|r| r.diagnostics.iter().cloned())
            .map(&locate)
            .collect();
        outcomes.push(CheckOutcome::new("receipts", diagnostics));
    }
    if let Some(diagnostics) = acceptance_diagnostics(parsed, &results) {
        outcomes.push(CheckOutcome::new(
            "acceptance",
            diagnostics.into_iter().map(&locate).collect(),
        ));
    }
    Ok(outcomes)
}

/// True for codes that mean a receipt could not be judged at all.
pub fn cannot_check(result: &CheckResult) -> bool {
    result
        .reason
        .is_some_and(|c| c.outcome() == Outcome::CannotCheck)
}

#[cfg(test)]
mod tests {
    use super::repository_path;

    #[test]
    fn repository_paths_are_joined_lexically() {
        assert_eq!(
            repository_path(".", "./scripts/t.sh").as_deref(),
            Some("scripts/t.sh")
        );
        assert_eq!(
            repository_path("sub/dir", "../bin/x").as_deref(),
            Some("sub/bin/x")
        );
        assert_eq!(repository_path(".", "../outside"), None);
        assert_eq!(repository_path("a", "../../x"), None);
    }
}
