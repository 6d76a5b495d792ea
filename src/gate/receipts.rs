//! Receipts in every view (DESIGN.md section 5 item 6): every observed
//! check of a checked task needs a receipt that is current *for this view*,
//! and every declared acceptance criterion needs all its checks current.
//!
//! Receipts are read as blobs of the view, like every artifact. Per check,
//! `<id>.tree.json` (tree receipt) is used when present, else `<id>.json`
//! (Mastermind v1):
//!
//! * a tree receipt is current iff it is sound, bound to the spec's current
//!   declaration, spec path, spec bytes and this platform, and its
//!   `tree_after` equals the tree digest (of the version it records) of the view (in `--ci` the
//!   merge, or the head commit with `freshness: head`); its executable is
//!   compared where it can be resolved: a repository-relative argv[0] from
//!   the view in every mode, an absolute or `PATH` one on this machine in
//!   the local modes only (a CI runner's `/usr/bin/python3` is not the
//!   developer's, so CI proves the content, not the interpreter build);
//! * a v1 receipt is inspected with the reference's full state table in
//!   `--worktree` (binding against `state.json`, declaration, platform,
//!   `run.lock`, snapshot v1 digest, executable); in tree views it cannot be
//!   recomputed and is `receipt_unverifiable` (a warning with
//!   `receipts.accept_unverifiable_v1: true`).

use super::{Gate, ViewKind};
use crate::codes::{Code, Outcome};
use crate::contract::argv_display::{RunDeclaration, declaration_sha256};
use crate::contract::receipt::{self, CheckState};
use crate::contract::spec::{self, ParsedSpec};
use crate::contract::tree_receipt::{self, Expected};
use crate::diagnostic::{Diagnostic, Severity};
use crate::digest::{TreeDigester, snapshot_v1};
use crate::repo::tree::{Content, EntryMode};
use crate::repo::{RepoError, Result};
use crate::report::CheckOutcome;
use crate::runner::executable;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// Digests computed once per gate run.
#[derive(Default)]
pub struct Memo {
    /// By (digest of the target rather than the view, digest version).
    digests: HashMap<(bool, u32), std::result::Result<String, RepoError>>,
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

/// The tree digest (of the version a receipt recorded) receipts must
/// match in this view.
fn view_digest(
    gate: &Gate<'_>,
    memo: &mut Memo,
    version: u32,
) -> std::result::Result<String, RepoError> {
    let use_target =
        gate.kind == ViewKind::Ci && gate.config.freshness == crate::config::Freshness::Head;
    let view = if use_target { gate.target } else { gate.view };
    memo.digests
        .entry((use_target, version))
        .or_insert_with(|| {
            // The cache never decides a CI verdict.
            let mut digester = TreeDigester::new(gate.repo, gate.config, gate.kind != ViewKind::Ci);
            if version == 1 {
                digester.of_view_v1(view)
            } else {
                digester.of_view(view)
            }
        })
        .clone()
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

fn executable_now(gate: &Gate<'_>, run: &RunDeclaration) -> Result<Current> {
    let argv0 = &run.argv[0];
    let relative = !argv0.starts_with('/') && argv0.contains('/');
    let in_repo = relative.then(|| repository_path(&run.cwd, argv0)).flatten();
    let root = gate.repo.workdir().map(|p| p.to_path_buf());
    match in_repo {
        Some(path) if !gate.view.is_worktree() => Ok(match gate.view.get(&path) {
            Some(entry) if entry.mode == EntryMode::Executable => {
                match gate
                    .view
                    .read(gate.repo, &path, executable::MAX_EXECUTABLE_BYTES as usize)?
                {
                    Some(Content::Bytes(bytes))
                        if bytes.len() as u64 <= executable::MAX_EXECUTABLE_BYTES =>
                    {
                        Current::Sha(sha_hex(&bytes))
                    }
                    _ => Current::Unresolved(format!(
                        "{path} is too large or unreadable in {}",
                        gate.view.label
                    )),
                }
            }
            Some(_) => Current::Unresolved(format!(
                "{path} is not an executable regular file in {}",
                gate.view.label
            )),
            None => Current::Unresolved(format!("{path} does not exist in {}", gate.view.label)),
        }),
        _ if gate.kind == ViewKind::Ci => Ok(Current::NotCompared),
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

fn tree_check(
    gate: &Gate<'_>,
    memo: &mut Memo,
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
    match view_digest(gate, memo, receipt.tree_digest_version) {
        Err(e) => {
            out.state = CheckState::Unavailable;
            out.reason = Some(e.code);
            out.diagnostics = vec![
                Diagnostic::new(
                    e.code,
                    format!(
                        "cannot take the tree digest for check `{}`: {}",
                        run.id, e.message
                    ),
                )
                .with_path(path),
            ];
            return Ok(out);
        }
        Ok(digest) if receipt.tree_after.as_deref() != Some(digest.as_str()) => {
            stale(
                &mut out,
                Code::receipt_snapshot_changed,
                format!(
                    "check `{}` ran on tree {} but {} digests to {digest} (tree-v{}): files the digest covers changed after it ran",
                    run.id,
                    receipt.tree_after.as_deref().unwrap_or("(none)"),
                    gate.view.label,
                    receipt.tree_digest_version
                ),
            );
            return Ok(out);
        }
        Ok(_) => {}
    }
    let recorded = receipt
        .executable
        .as_ref()
        .map(|e| e.sha256.to_ascii_lowercase());
    match executable_now(gate, run)? {
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
    gate: &Gate<'_>,
    dir: &str,
    spec_path: &str,
    spec_sha: &str,
    binding: &receipt::Binding,
) -> Result<Option<String>> {
    let state_path = format!("{dir}/state.json");
    let state: serde_json::Value = match gate.view.read(gate.repo, &state_path, 128 * 1024 + 1)? {
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
    gate: &Gate<'_>,
    memo: &mut Memo,
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
        v1_binding_problem(gate, dir, spec_path, spec_sha, &receipt.binding)?
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
    if let Some(root) = gate.repo.workdir() {
        let lock = root.join(dir).join("verification/run.lock");
        match std::fs::OpenOptions::new().read(true).open(&lock) {
            Err(_) => {
                out.state = CheckState::Unavailable;
                out.reason = Some(Code::receipt_lock_missing);
                out.diagnostics = vec![
                    Diagnostic::new(Code::receipt_lock_missing, format!("{dir}/verification/run.lock is missing, so v1 receipts are not accepted")).with_path(path),
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
pub fn evaluate(
    gate: &Gate<'_>,
    memo: &mut Memo,
    dir: &str,
    parsed: &ParsedSpec,
) -> Result<Option<Vec<CheckResult>>> {
    let Some(frontmatter) = parsed
        .frontmatter
        .as_ref()
        .filter(|_| parsed.frontmatter_error.is_none())
    else {
        return Ok(None);
    };
    let spec_path = format!("{dir}/spec.md");
    let spec_sha = match gate
        .view
        .read(gate.repo, &spec_path, spec::MAX_SPEC_BYTES)?
    {
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
        let result = match gate.view.read(gate.repo, &tree_path, limit)? {
            Some(Content::Bytes(bytes)) => tree_check(gate, memo, declared, &tree_path, &bytes)?,
            Some(Content::NotRegular(_)) => result(
                &run.id,
                CheckState::Unavailable,
                Code::artifact_not_regular_file,
                format!("{tree_path} is not a regular file in {}", gate.view.label),
                &tree_path,
            ),
            Some(Content::TooLarge { size }) => result(
                &run.id,
                CheckState::Unavailable,
                Code::receipt_too_large,
                format!("{tree_path} is {size} bytes, more than {limit}"),
                &tree_path,
            ),
            None => match gate
                .view
                .read(gate.repo, &v1_path, receipt::MAX_RECEIPT_BYTES)?
            {
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
                        run.id, gate.view.label
                    ),
                    &tree_path,
                ),
                Some(Content::NotRegular(_)) => result(
                    &run.id,
                    CheckState::Unavailable,
                    Code::artifact_not_regular_file,
                    format!("{v1_path} is not a regular file in {}", gate.view.label),
                    &v1_path,
                ),
                Some(Content::Bytes(bytes)) if gate.view.is_worktree() => {
                    v1_worktree_check(gate, memo, dir, declared, &v1_path, &bytes)?
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
                                run.id, gate.view.label
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
pub fn check(
    gate: &Gate<'_>,
    memo: &mut Memo,
    dir: &str,
    parsed: Option<&ParsedSpec>,
) -> Result<Vec<CheckOutcome>> {
    let Some(parsed) = parsed else {
        return Ok(Vec::new());
    };
    let Some(results) = evaluate(gate, memo, dir, parsed)? else {
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
