//! The Mastermind v1 receipt (`<id>.json`, contracts `mastermind.md`
//! section 4). Its snapshot digest mixes HEAD, the raw index and the live
//! working tree, so it is inspected with the reference's full state table
//! only in `--worktree` (binding against `state.json`, declaration,
//! platform, `run.lock`, snapshot v1 digest, executable); in the tree modes
//! it cannot be recomputed and is `receipt_unverifiable` (a warning with
//! `receipts.accept_unverifiable_v1: true`).

use super::{CheckResult, Declared, Memo, sha_hex};
use crate::codes::Code;
use crate::contract::mastermind::argv_display::declaration_sha256;
use crate::contract::mastermind::receipt::{self, CheckState};
use crate::diagnostic::{Diagnostic, Severity};
use crate::digest::snapshot_v1;
use crate::gate::TaskContext;
use crate::repo::Result;
use crate::repo::tree::Content;
use crate::runner::executable;

/// The largest `state.json` a binding is checked against.
const MAX_STATE_BYTES: usize = 128 * 1024;

/// Why a v1 receipt's binding is not the task's current pre-flight
/// (`state`, as read from `state_path`); `None` when it is.
fn binding_problem(
    state: Option<Content>,
    state_path: &str,
    spec_path: &str,
    spec_sha: &str,
    binding: &receipt::Binding,
) -> Option<String> {
    let state: serde_json::Value = match state {
        Some(Content::Bytes(bytes)) if bytes.len() <= MAX_STATE_BYTES => {
            match serde_json::from_slice(&bytes) {
                Ok(v) => v,
                Err(e) => return Some(format!("{state_path} is not JSON: {e}")),
            }
        }
        Some(Content::Bytes(_)) => return Some(format!("{state_path} is larger than 128 KiB")),
        _ => {
            return Some(format!(
                "the task has no {state_path} (no pre-flight to bind to)"
            ));
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
    checks.iter().find(|(_, ok)| !ok).map(|(field, _)| {
        format!("binding.{field} differs from the task's current pre-flight ({state_path})")
    })
}

/// Judge the v1 receipt at `path` (`bytes`) in the working tree, with the
/// reference's full state table.
pub(super) fn worktree_check<'r>(
    ctx: &TaskContext<'r>,
    memo: &mut Memo<'r>,
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
        ..
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
    let state_path = format!("{dir}/state.json");
    let state = ctx.read(&state_path, MAX_STATE_BYTES + 1)?;
    let mismatch = if let Some(problem) =
        binding_problem(state, &state_path, spec_path, spec_sha, &receipt.binding)
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
        let now = executable::resolve_remembered(
            &run.argv[0],
            &root.join(&run.cwd),
            std::env::var_os("PATH").as_deref(),
            memo.executables(ctx),
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

/// Judge the v1 receipt at `path` (`bytes`) in a tree mode, where its
/// snapshot cannot be recomputed: an intrinsically broken receipt is
/// reported as such, a sound one is unverifiable.
pub(super) fn in_tree(
    id: &str,
    path: &str,
    bytes: &[u8],
    at_label: &str,
    accept_unverifiable: bool,
) -> CheckResult {
    let intrinsic = receipt::inspect_intrinsic(bytes);
    let run_id = intrinsic.receipt.as_ref().map(|r| r.run_id.clone());
    if intrinsic.state != CheckState::Current {
        return CheckResult {
            id: id.to_string(),
            state: intrinsic.state,
            reason: intrinsic.reason,
            receipt_revision: Some(sha_hex(bytes)),
            run_id,
            accepted_unverifiable: false,
            diagnostics: intrinsic
                .diagnostics
                .into_iter()
                .map(|d| d.with_path(path))
                .collect(),
        };
    }
    let mut result = unverifiable(id, path, at_label, accept_unverifiable);
    result.receipt_revision = Some(sha_hex(bytes));
    result.run_id = run_id;
    result
}

/// A sound v1 receipt where the working tree is not what is judged: an
/// error, or a warning that counts where configuration accepts it.
fn unverifiable(id: &str, path: &str, at_label: &str, accepted: bool) -> CheckResult {
    let mut diagnostic = Diagnostic::new(
        Code::receipt_unverifiable,
        format!(
            "receipt_unverifiable: check `{id}` has only a Mastermind v1 receipt, whose snapshot binds the live working tree and cannot be recomputed in {at_label}"
        ),
    )
    .with_path(path);
    if accepted {
        diagnostic.severity = Severity::Warning;
    }
    CheckResult {
        id: id.to_string(),
        state: CheckState::Unavailable,
        reason: Some(Code::receipt_unverifiable),
        receipt_revision: None,
        run_id: None,
        accepted_unverifiable: accepted,
        diagnostics: vec![diagnostic],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn binding() -> receipt::Binding {
        receipt::Binding {
            intake_revision: None,
            repository_identity: "repo-1".into(),
            spec_path: "t/spec.md".into(),
            spec_sha256: "AB".repeat(32),
            baseline_oid: "1".repeat(40),
            iteration: 2,
            preflight_started_at: 1_700_000_000,
        }
    }

    fn state(value: serde_json::Value) -> Option<Content> {
        Some(Content::Bytes(serde_json::to_vec(&value).unwrap()))
    }

    fn current_state() -> serde_json::Value {
        json!({
            "repository_identity": "repo-1",
            "baseline_ref": "1".repeat(40),
            "iteration": 2,
            "started_at": 1_700_000_000u64,
        })
    }

    fn problem(state: Option<Content>) -> Option<String> {
        let sha = "ab".repeat(32);
        binding_problem(state, "t/state.json", "t/spec.md", &sha, &binding())
    }

    #[test]
    fn a_binding_to_the_current_pre_flight_holds() {
        assert_eq!(
            problem(state(current_state())),
            None,
            "spec_sha256 in any case"
        );
    }

    #[test]
    fn each_field_of_the_binding_is_compared_and_the_first_difference_named() {
        for (key, value, field) in [
            (
                "repository_identity",
                json!("repo-2"),
                "repository_identity",
            ),
            ("intake_revision", json!("r1"), "intake_revision"),
            ("baseline_ref", json!("2".repeat(40)), "baseline_oid"),
            ("iteration", json!(3), "iteration"),
            ("started_at", json!(1), "preflight_started_at"),
        ] {
            let mut changed = current_state();
            changed[key] = value;
            assert_eq!(
                problem(state(changed)).as_deref(),
                Some(
                    format!(
                        "binding.{field} differs from the task's current pre-flight (t/state.json)"
                    )
                    .as_str()
                ),
            );
        }
        let sha = "ab".repeat(32);
        let other_spec = binding_problem(
            state(current_state()),
            "t/state.json",
            "u/spec.md",
            &sha,
            &binding(),
        );
        assert!(other_spec.unwrap().starts_with("binding.spec_path differs"));
        let other_bytes = binding_problem(
            state(current_state()),
            "t/state.json",
            "t/spec.md",
            &"cd".repeat(32),
            &binding(),
        );
        assert!(
            other_bytes
                .unwrap()
                .starts_with("binding.spec_sha256 differs")
        );
    }

    #[test]
    fn without_a_readable_state_there_is_nothing_to_bind_to() {
        assert_eq!(
            problem(None).as_deref(),
            Some("the task has no t/state.json (no pre-flight to bind to)")
        );
        let garbage = problem(Some(Content::Bytes(b"{".to_vec()))).unwrap();
        assert!(garbage.starts_with("t/state.json is not JSON"), "{garbage}");
        let large = problem(Some(Content::Bytes(vec![b' '; MAX_STATE_BYTES + 1])));
        assert_eq!(
            large.as_deref(),
            Some("t/state.json is larger than 128 KiB")
        );
    }

    #[test]
    fn an_unverifiable_receipt_counts_only_where_configuration_accepts_it() {
        let refused = unverifiable("unit", "t/verification/unit.json", "commit abc", false);
        assert!(!refused.counts());
        assert_eq!(refused.reason, Some(Code::receipt_unverifiable));
        assert_eq!(refused.diagnostics[0].severity, Severity::Error);
        assert!(
            refused.diagnostics[0]
                .message
                .ends_with("cannot be recomputed in commit abc")
        );
        let accepted = unverifiable("unit", "t/verification/unit.json", "commit abc", true);
        assert!(accepted.counts());
        assert_eq!(accepted.state, CheckState::Unavailable);
        assert_eq!(accepted.diagnostics[0].severity, Severity::Warning);
    }
}
