//! Receipts (DESIGN.md section 5 item 6): every observed check of a
//! checked task needs a receipt that is current, and every declared
//! acceptance criterion needs all its checks current.
//!
//! Receipts are read as blobs of the task's last step, like every artifact.
//! Per check, `<id>.tree.json` is judged when present ([`tree`], with
//! [`freshness`] deciding which content it must describe), else `<id>.json`
//! ([`v1`], the reference's receipt); [`acceptance`] maps the results onto
//! the spec's criteria; [`cleared`] turns what a passing CI re-run answers
//! into notes. This module reads the receipts of one task and
//! gathers the gate's "receipts" and "acceptance" checks.

pub mod acceptance;
pub mod cleared;
pub mod freshness;
pub mod tree;
pub mod v1;

use super::TaskContext;
use super::landing::{self, At, Landing, ViewKind};
use crate::codes::{Code, Outcome};
use crate::contract::mastermind::argv_display::RunDeclaration;
use crate::contract::mastermind::receipt::{self, CheckState};
use crate::contract::mastermind::spec::{self, ParsedSpec, declared_paths};
use crate::contract::mastermind::tree_receipt;
use crate::diagnostic::Diagnostic;
use crate::digest::TreeDigester;
use crate::digest::file_memo::FileMemo;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{Content, View};
use crate::repo::{RepoError, Result};
use crate::report::CheckOutcome;
use freshness::Digested;
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};

/// Digests computed once per gate run; one tree digester for all of them,
/// so the trees of several commits of a range share their unchanged
/// directories.
#[derive(Default)]
pub struct Memo<'r> {
    digester: Option<TreeDigester<'r>>,
    /// By content and digest version.
    digests: HashMap<(Digested, u32), std::result::Result<String, RepoError>>,
    snapshots: HashMap<String, std::result::Result<String, RepoError>>,
    /// The sha256 of large executables by file identity, local modes only.
    executables: Option<FileMemo<'r>>,
}

impl<'r> Memo<'r> {
    /// The run's tree digester. The local caches never decide a CI or
    /// pre-receive verdict.
    fn digester(&mut self, ctx: &TaskContext<'r>) -> &mut TreeDigester<'r> {
        let gate = ctx.gate;
        self.digester.get_or_insert_with(|| {
            TreeDigester::new(gate.repo, gate.config, gate.landing.kind.is_local())
        })
    }

    /// The executables' memo of this run: the local table in the local
    /// modes, none in CI and pre-receive (whose verdicts never read a
    /// local cache).
    fn executables(&mut self, ctx: &TaskContext<'r>) -> &mut FileMemo<'r> {
        let gate = ctx.gate;
        self.executables
            .get_or_insert_with(|| FileMemo::new(gate.repo, gate.landing.kind.is_local()))
    }
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

/// One observed check as the spec in the view declares it.
#[derive(Clone, Copy)]
struct Declared<'a> {
    spec_path: &'a str,
    spec_sha: &'a str,
    cmd: &'a str,
    run: &'a RunDeclaration,
    /// The task's declared scope (normalized paths).
    scope: &'a BTreeSet<String>,
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
    let scope: BTreeSet<String> = declared_paths::admit(parsed).targets.into_keys().collect();
    let mut results = Vec::new();
    for (cmd, run) in frontmatter.observed() {
        let declared = Declared {
            spec_path: &spec_path,
            spec_sha: &spec_sha,
            cmd,
            run,
            scope: &scope,
        };
        let tree_path = format!("{dir}/verification/{}.tree.json", run.id);
        let v1_path = format!("{dir}/verification/{}.json", run.id);
        let limit = tree_receipt::MAX_TREE_RECEIPT_BYTES;
        let result = match ctx.read(&tree_path, limit)? {
            Some(Content::Bytes(bytes)) => tree::check(ctx, memo, declared, &tree_path, &bytes)?,
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
                None => {
                    let mut missing = result(
                        &run.id,
                        CheckState::Missing,
                        Code::receipt_missing,
                        format!(
                            "receipt_missing: observed check `{}` has no receipt in {} ({tree_path} or {v1_path})",
                            run.id, ctx.at_label
                        ),
                        &tree_path,
                    );
                    let hint = freshness::refresh_hint(&spec_path, &run.id, &tree_path);
                    missing.diagnostics = missing
                        .diagnostics
                        .into_iter()
                        .map(|d| d.with_hint(hint.clone()))
                        .collect();
                    missing
                }
                Some(Content::NotRegular(_)) => result(
                    &run.id,
                    CheckState::Unavailable,
                    Code::artifact_not_regular_file,
                    format!("{v1_path} is not a regular file in {}", ctx.at_label),
                    &v1_path,
                ),
                Some(Content::Bytes(bytes)) if ctx.at.is_worktree() => {
                    v1::worktree_check(ctx, memo, dir, declared, &v1_path, &bytes)?
                }
                Some(Content::Bytes(bytes)) => v1::in_tree(
                    &run.id,
                    &v1_path,
                    &bytes,
                    &ctx.at_label,
                    gate.config.accept_unverifiable_v1,
                ),
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
        heads: head.into_iter().collect(),
        unrelated_to: None,
        pending: Some(view),
        lands: At::Pending,
        lands_label: label.clone(),
        tip: At::Pending,
        tip_label: label.clone(),
        branch: None,
        label: None,
        identity: Default::default(),
        destination: None,
        landed_locally: None,
    };
    let gate = super::Gate::new(repo, config, &landing);
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
        planned: false,
    };
    evaluate(&ctx, &mut Memo::default(), parsed)
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
    if let Some(diagnostics) = acceptance::unmet(parsed, &results) {
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
    use super::*;

    fn result(state: CheckState, reason: Option<Code>, accepted: bool) -> CheckResult {
        CheckResult {
            id: "unit".into(),
            state,
            reason,
            receipt_revision: None,
            run_id: None,
            accepted_unverifiable: accepted,
            diagnostics: Vec::new(),
        }
    }

    #[test]
    fn only_current_or_accepted_receipts_count() {
        assert!(result(CheckState::Current, None, false).counts());
        assert!(
            result(
                CheckState::Unavailable,
                Some(Code::receipt_unverifiable),
                true
            )
            .counts()
        );
        for state in [
            CheckState::Stale,
            CheckState::Missing,
            CheckState::Unavailable,
        ] {
            assert!(!result(state, Some(Code::receipt_missing), false).counts());
        }
    }

    #[test]
    fn a_receipt_that_could_not_be_judged_is_told_apart() {
        let code = Code::receipt_lock_missing;
        assert_eq!(
            cannot_check(&result(CheckState::Unavailable, Some(code), false)),
            code.outcome() == Outcome::CannotCheck
        );
        assert!(!cannot_check(&result(CheckState::Current, None, false)));
        assert!(!cannot_check(&result(
            CheckState::Stale,
            Some(Code::receipt_snapshot_changed),
            false
        )));
    }
}
