//! `mastermind-hooks acceptance status SPEC [--json]`: the acceptance
//! mapping of a spec in the working tree, computed from its receipts (tree
//! receipts, or Mastermind v1 receipts with the reference's full table).
//! The JSON object is the reference's (contracts `mastermind.md` 6.3).
//! Exit 0 only for `requirements_satisfied`; 1 for `blocked` and
//! `not_declared`; 2 when the spec or the repository cannot be read.

use crate::codes::Code;
use crate::commands::emit;
use crate::contract::mastermind::receipt::CheckState;
use crate::contract::mastermind::spec::{self, ParsedSpec};
use crate::diagnostic::{Diagnostic, ExitStatus, Severity};
use crate::gate::landing::config::config_from;
use crate::gate::receipts::{self, CheckResult};
use crate::render::human;
use crate::repo::Repo;
use crate::repo::tree::{Content, View};
use crate::runner::hint;
use serde_json::{Value, json};
use std::path::Path;

/// The four fixed sentences. The reference's exact wording is not in the
/// contract, so these are this project's own.
pub const PRECISION_NOTES: [&str; 4] = [
    "Check states come from local execution records that anyone with write access to the repository can produce; they are not independent attestation.",
    "A current check shows only that the declared command exited 0 on content whose digest equals the content checked now; it does not show what the command tests.",
    "Criterion statements are not evaluated: semantic_accuracy is unknown and a satisfied mapping does not prove any statement true.",
    "Overall task completion is not evaluated here; the executor report, scope, review and audit gates still apply.",
];

/// A repository path, safe to print.
fn shown(path: &str) -> String {
    crate::runner::echo::escape(path.as_bytes())
}

fn fail(diagnostic: Diagnostic) -> ExitStatus {
    let mut text = String::new();
    human::diagnostic(&mut text, &diagnostic);
    eprint!("{text}");
    ExitStatus::CannotCheck
}

const SPEC_ERRORS: &[Code] = &[
    Code::frontmatter_invalid,
    Code::frontmatter_unterminated,
    Code::verification_declaration_limit,
    Code::verification_id_invalid,
    Code::verification_cmd_ambiguous,
    Code::verification_argv_invalid,
    Code::verification_cwd_not_canonical,
    Code::verification_cmd_mismatch,
    Code::acceptance_requires_1_to_64_criteria,
    Code::acceptance_ids_must_be_unique_ascii_identifiers,
    Code::acceptance_statement_invalid_or_placeholder,
    Code::acceptance_requires_unique_observed_check_ids,
];

/// The status object for a parsed spec and its check results (`None` when
/// inspection failed as a whole).
pub fn status_object(parsed: &ParsedSpec, results: Option<&[CheckResult]>) -> Value {
    let criteria = parsed
        .frontmatter
        .as_ref()
        .and_then(|f| f.acceptance.as_ref());
    let Some(criteria) = criteria else {
        return json!({
            "schema_version": 1,
            "repository_content_untrusted": true,
            "status": "not_declared",
            "criteria": [],
            "declared": false,
            "satisfied": false,
            "evidence_basis": "current_local_execution_records",
            "semantic_accuracy": "unknown",
            "overall_task_completion": "not_evaluated",
            "precision_notes": PRECISION_NOTES,
        });
    };
    let mut all = true;
    let criteria: Vec<Value> = criteria
        .iter()
        .map(|criterion| {
            let checks: Vec<Value> = criterion
                .checks
                .iter()
                .map(|id| {
                    let found = results.and_then(|rs| rs.iter().find(|r| &r.id == id));
                    match found {
                        Some(r) if !receipts::cannot_check(r) => json!({
                            "id": id,
                            "status": if r.counts() { "current" } else { r.state.as_str() },
                            "receipt_revision": r.receipt_revision,
                            "run_id": r.run_id,
                            "reason": if r.counts() { None } else { r.reason.map(|c| c.as_str()) },
                        }),
                        _ => json!({
                            "id": id,
                            "status": CheckState::Unavailable.as_str(),
                            "receipt_revision": found.and_then(|r| r.receipt_revision.clone()),
                            "run_id": found.and_then(|r| r.run_id.clone()),
                            "reason": "verification_unavailable",
                        }),
                    }
                })
                .collect();
            let satisfied = checks.iter().all(|c| c["status"] == "current");
            all &= satisfied;
            json!({
                "id": criterion.id,
                "statement": criterion.statement,
                "status": if satisfied { "requirements_satisfied" } else { "blocked" },
                "checks": checks,
            })
        })
        .collect();
    json!({
        "schema_version": 1,
        "repository_content_untrusted": true,
        "status": if all { "requirements_satisfied" } else { "blocked" },
        "criteria": criteria,
        "declared": true,
        "satisfied": all,
        "evidence_basis": "current_local_execution_records",
        "semantic_accuracy": "unknown",
        "overall_task_completion": "not_evaluated",
        "precision_notes": PRECISION_NOTES,
    })
}

fn human_text(object: &Value, spec_path: &str) -> String {
    let mut out = format!("acceptance: {}\n", object["status"].as_str().unwrap_or("?"));
    for criterion in object["criteria"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  {} {}: {}\n",
            criterion["status"].as_str().unwrap_or("?"),
            criterion["id"].as_str().unwrap_or("?"),
            shown(criterion["statement"].as_str().unwrap_or(""))
        ));
        for check in criterion["checks"].as_array().into_iter().flatten() {
            let reason = check["reason"]
                .as_str()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            let id = check["id"].as_str().unwrap_or("?");
            out.push_str(&format!(
                "    check {id}: {}{reason}\n",
                check["status"].as_str().unwrap_or("?")
            ));
            if check["status"] != "current" {
                out.push_str(&format!(
                    "      fix: {}\n",
                    hint::run_command(spec_path, Some(id))
                ));
            }
        }
    }
    if object["status"] == "blocked" {
        out.push_str(&format!(
            "Run every check on the current content: {}\n",
            hint::run_command(spec_path, None)
        ));
    }
    out.push_str("A mapping of local execution records; it does not prove the statements.\n");
    out
}

pub fn run(spec_arg: &str, json_output: bool) -> ExitStatus {
    let cwd = match std::env::current_dir() {
        Ok(c) => c,
        Err(e) => {
            return fail(Diagnostic::new(
                Code::git_worktree_unavailable,
                format!("no current directory: {e}"),
            ));
        }
    };
    let repo = match Repo::discover(&cwd) {
        Ok(r) => r,
        Err(e) => return fail(e.to_diagnostic()),
    };
    let Some(root) = repo.workdir().and_then(|w| std::fs::canonicalize(w).ok()) else {
        return fail(Diagnostic::new(
            Code::git_worktree_unavailable,
            "acceptance status needs a working tree",
        ));
    };
    let (_, spec_rel) = match crate::runner::locate_spec(&root, Path::new(spec_arg)) {
        Ok(found) => found,
        Err(d) => return fail(d),
    };
    let Some(dir) = spec_rel.strip_suffix("/spec.md").map(str::to_string) else {
        return fail(Diagnostic::new(
            Code::verification_spec_invalid,
            format!("{} is not a task spec (<task>/spec.md)", shown(&spec_rel)),
        ));
    };
    let view = match View::from_worktree(&repo) {
        Ok(v) => v,
        Err(e) => return fail(e.to_diagnostic()),
    };
    let bytes = match view.read(&repo, &spec_rel, spec::MAX_SPEC_BYTES) {
        Ok(Some(Content::Bytes(b))) if b.len() <= spec::MAX_SPEC_BYTES => b,
        Ok(_) => {
            return fail(Diagnostic::new(
                Code::verification_spec_invalid,
                format!(
                    "{} is missing, too large or not a regular file in the working tree",
                    shown(&spec_rel)
                ),
            ));
        }
        Err(e) => return fail(e.to_diagnostic()),
    };
    let (parsed, diagnostics) = spec::check(&bytes);
    if let Some(d) = diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error && SPEC_ERRORS.contains(&d.code))
    {
        return fail(
            Diagnostic::new(
                Code::verification_spec_invalid,
                format!(
                    "acceptance_spec_invalid: {}: {} ({})",
                    shown(&spec_rel),
                    d.message,
                    d.code.as_str()
                ),
            )
            .with_path(spec_rel.clone())
            .with_line(d.line)
            .with_hint(format!(
                "Fix the spec's front matter, check it with `{}`, then run `{}` again.",
                hint::validate_command(&spec_rel),
                hint::acceptance_command(&spec_rel)
            )),
        );
    }
    let config = match config_from(&repo, &view) {
        Ok(c) => c,
        Err(ds) => {
            return fail(ds.into_iter().next().unwrap_or_else(|| {
                Diagnostic::new(Code::config_invalid, "invalid configuration")
            }));
        }
    };
    let results = receipts::evaluate_in_worktree(&repo, &config, view, &dir, &parsed)
        .ok()
        .flatten();
    let object = status_object(&parsed, results.as_deref());
    let text = if json_output {
        serde_json::to_string_pretty(&object).unwrap_or_default() + "\n"
    } else {
        human_text(&object, &spec_rel)
    };
    if emit(&text).is_err() {
        return ExitStatus::CannotCheck;
    }
    if object["status"] == "requirements_satisfied" {
        ExitStatus::Pass
    } else {
        ExitStatus::Violations
    }
}
