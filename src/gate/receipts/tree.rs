//! The tree receipt (`<id>.tree.json`, this project's extension): current
//! iff it is sound, bound to the spec's current declaration, spec path,
//! spec bytes and this platform, what its check ran on matches what lands
//! ([`super::freshness`]: by its territory record under `freshness: scope`,
//! else by its `tree_after` against the tree digest of the content it must
//! describe), and its executable
//! is unchanged where it can be resolved: a repository-relative `argv[0]`
//! from the task's last step in every mode, an absolute or `PATH` one on
//! this machine in the local modes only (a CI runner's `/usr/bin/python3`
//! is not the developer's). A repository-relative `argv[0]` the commit does
//! not carry (`node_modules/.bin/vitest`, `.venv/bin/pytest`: an ignored
//! directory the project's setup fills) is bound by its path and the sha256
//! the runner saw: the local modes compare it on disk, the others cannot see
//! it and leave it to `check --ci --rerun`, which resolves it after setup.

use super::freshness;
use super::{CheckResult, Declared, Memo, sha_hex};
use crate::codes::Code;
use crate::config::Freshness;
use crate::contract::mastermind::argv_display::{RunDeclaration, declaration_sha256};
use crate::contract::mastermind::receipt::{self, CheckState};
use crate::contract::mastermind::tree_receipt::{self, Expected};
use crate::diagnostic::Diagnostic;
use crate::gate::TaskContext;
use crate::repo::Result;
use crate::repo::tree::{Content, EntryMode};
use crate::runner::executable;

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
#[derive(Debug)]
enum Current {
    Sha(String),
    Unresolved(String),
    NotCompared,
}
fn executable_now<'r>(
    ctx: &TaskContext<'r>,
    memo: &mut Memo<'r>,
    run: &RunDeclaration,
) -> Result<Current> {
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
            None => outside_the_tree(ctx, memo, &path, &run.cwd, argv0),
        }),
        _ if !gate.landing.kind.is_local() => Ok(Current::NotCompared),
        _ => {
            let Some(root) = root else {
                return Ok(Current::NotCompared);
            };
            let cwd = root.join(&run.cwd);
            let memo = memo.executables(ctx);
            let path_env = std::env::var_os("PATH");
            Ok(
                match executable::resolve_remembered(argv0, &cwd, path_env.as_deref(), memo) {
                    Ok(r) => Current::Sha(r.sha256),
                    Err(e) => Current::Unresolved(e.to_string()),
                },
            )
        }
    }
}

/// A repository-relative executable the view does not carry: an ignored
/// directory's tool. On this machine (the local modes) it is compared on
/// disk; elsewhere it cannot be seen (a re-run resolves it).
fn outside_the_tree<'r>(
    ctx: &TaskContext<'r>,
    memo: &mut Memo<'r>,
    path: &str,
    cwd: &str,
    argv0: &str,
) -> Current {
    let gate = ctx.gate;
    let root = gate.repo.workdir().filter(|_| gate.landing.kind.is_local());
    let Some(root) = root else {
        return Current::NotCompared;
    };
    let memo = memo.executables(ctx);
    match executable::resolve_remembered(argv0, &root.join(cwd), None, memo) {
        Ok(found) => Current::Sha(found.sha256),
        Err(e) => Current::Unresolved(format!(
            "{path} is neither in {} nor on disk ({e})",
            ctx.at_label
        )),
    }
}

/// Whether the executable changed since the check ran: `recorded` is the
/// receipt's sha256 (any case), `now` what the executable is now.
fn executable_changed(
    recorded: Option<&str>,
    now: Current,
    run: &RunDeclaration,
) -> Option<String> {
    let recorded = recorded.map(str::to_ascii_lowercase);
    match now {
        Current::Sha(sha) if Some(&sha) == recorded.as_ref() => None,
        Current::Sha(sha) => Some(format!(
            "`{}` now hashes to {sha}, not {} as when check `{}` ran",
            run.argv[0],
            recorded.as_deref().unwrap_or("(none)"),
            run.id
        )),
        Current::Unresolved(why) => Some(format!(
            "the executable of check `{}` no longer resolves: {why}",
            run.id
        )),
        Current::NotCompared => None,
    }
}

/// Judge the tree receipt at `path` (`bytes`) of one observed check.
pub(super) fn check<'r>(
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
        ..
    } = declared;
    let declaration = declaration_sha256(cmd, run);
    let object_format = ctx.gate.repo.gix().object_hash().to_string();
    let expected = Expected {
        declaration_sha256: &declaration,
        spec_path,
        spec_sha256: spec_sha,
        platform: std::env::consts::OS,
        object_format: &object_format,
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
        // A receipt that must simply be written again says how (issue 27:
        // "Re-run the check" named no command).
        let refresh = freshness::refresh_hint(spec_path, &run.id, path);
        out.diagnostics = inspection
            .diagnostics
            .into_iter()
            .map(locate)
            .map(|d| match d.code {
                Code::receipt_spec_changed
                | Code::receipt_binding_mismatch
                | Code::receipt_executable_changed
                | Code::receipt_pending => d.with_hint(refresh.clone()),
                _ => d,
            })
            .collect();
        return Ok(out);
    }
    let Some(receipt) = inspection.receipt else {
        return Ok(out);
    };
    let stale = |out: &mut CheckResult, code: Code, detail: String, hint: Option<&str>| {
        out.state = CheckState::Stale;
        out.reason = Some(code);
        let mut diagnostic =
            receipt::state_diagnostic(CheckState::Stale, code, &detail).with_path(path);
        if let Some(hint) = hint {
            diagnostic = diagnostic.with_hint(hint);
        }
        out.diagnostics = vec![diagnostic];
    };
    let refresh = freshness::refresh_hint(spec_path, &run.id, path);
    // A receipt that records what its check ran on is judged by content,
    // whichever commit carries it.
    let by_record = ctx.gate.config.freshness == Freshness::Scope && !ctx.steps.is_empty();
    if let Some(territory) = receipt.territory.as_ref().filter(|_| by_record) {
        // The inspection refused a record that does not read back.
        let record = territory.leaves(&receipt.run_id).unwrap_or_default();
        let changed = freshness::against_record(ctx, memo, &record, declared.scope)?;
        if !changed.is_empty() {
            let hint = if freshness::converts_on_add(ctx, ctx.at)? {
                freshness::converted_hint(spec_path, &run.id, path)
            } else {
                freshness::rerun_hint(spec_path, &run.id, path)
            };
            stale(
                &mut out,
                Code::receipt_snapshot_changed,
                freshness::record_differs(&run.id, &changed),
                Some(&hint),
            );
            return Ok(out);
        }
        let recorded = receipt.executable.as_ref().map(|e| e.sha256.as_str());
        if let Some(detail) = executable_changed(recorded, executable_now(ctx, memo, run)?, run) {
            stale(&mut out, Code::receipt_executable_changed, detail, None);
        }
        return Ok(out);
    }
    let Some(ran_on) = freshness::ran_on(ctx, path)? else {
        stale(
            &mut out,
            Code::receipt_snapshot_changed,
            freshness::origin_unknown(&run.id, &ctx.baseline_label),
            Some(&refresh),
        );
        return Ok(out);
    };
    let snapshot = ran_on.snapshot;
    match freshness::digest_of(ctx, memo, snapshot, receipt.tree_digest_version) {
        Err(e) => {
            out.state = CheckState::Unavailable;
            out.reason = Some(e.code);
            out.diagnostics = vec![
                Diagnostic::new(
                    e.code,
                    format!(
                        "cannot take the tree digest of {} for check `{}`: {}",
                        ran_on.label, run.id, e.message
                    ),
                )
                .with_path(path),
            ];
            return Ok(out);
        }
        Ok(digest) if receipt.tree_after.as_deref() != Some(digest.as_str()) => {
            let hint = if freshness::converts_on_add(ctx, snapshot)? {
                freshness::converted_hint(spec_path, &run.id, path)
            } else {
                refresh
            };
            stale(
                &mut out,
                Code::receipt_snapshot_changed,
                freshness::digest_differs(
                    &run.id,
                    receipt.tree_after.as_deref(),
                    &ran_on,
                    &digest,
                    receipt.tree_digest_version,
                ),
                Some(&hint),
            );
            return Ok(out);
        }
        Ok(_) => {}
    }
    if ran_on.scoped {
        let changed = freshness::changed_since(ctx, &ran_on, declared.scope)?;
        if !changed.is_empty() {
            stale(
                &mut out,
                Code::receipt_snapshot_changed,
                freshness::changed_after(&run.id, &ran_on, &changed),
                Some(&freshness::rerun_hint(spec_path, &run.id, path)),
            );
            return Ok(out);
        }
    }
    let recorded = receipt.executable.as_ref().map(|e| e.sha256.as_str());
    if let Some(detail) = executable_changed(recorded, executable_now(ctx, memo, run)?, run) {
        stale(&mut out, Code::receipt_executable_changed, detail, None);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(repository_path(".", "."), None, "the root is no file");
    }

    fn run() -> RunDeclaration {
        RunDeclaration {
            id: "unit".into(),
            argv: vec!["./t.sh".into()],
            cwd: ".".into(),
            timeout_secs: 60,
        }
    }

    #[test]
    fn an_executable_changes_when_its_hash_differs_or_it_is_gone() {
        let sha = "ab".repeat(32);
        let same = Current::Sha(sha.clone());
        assert_eq!(
            executable_changed(Some(&sha.to_uppercase()), same, &run()),
            None,
            "recorded hashes compare in any case"
        );
        let other = executable_changed(Some(&sha), Current::Sha("cd".repeat(32)), &run()).unwrap();
        assert!(
            other.starts_with(&format!(
                "`./t.sh` now hashes to {}, not {sha}",
                "cd".repeat(32)
            )),
            "{other}"
        );
        let unrecorded = executable_changed(None, Current::Sha(sha), &run()).unwrap();
        assert!(unrecorded.contains("not (none)"), "{unrecorded}");
        let gone = executable_changed(
            Some("x"),
            Current::Unresolved("t.sh does not exist".into()),
            &run(),
        );
        assert_eq!(
            gone.as_deref(),
            Some("the executable of check `unit` no longer resolves: t.sh does not exist")
        );
        assert_eq!(
            executable_changed(Some("x"), Current::NotCompared, &run()),
            None,
            "an executable this machine cannot see is not compared"
        );
    }
}
