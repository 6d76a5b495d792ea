//! The checks of one task: spec, executor report, scope, files_modified,
//! declared commands and the audit tail, each reported as its own group.

use super::{ChangeCache, Gate, receipts, scope, verifications};
use crate::codes::Code;
use crate::contract::executor_report::{self, ExecutorReport, ReportStatus};
use crate::contract::{audit_tail, declared_paths, spec};
use crate::diagnostic::Diagnostic;
use crate::repo::Result;
use crate::repo::tree::{Content, EntryMode};
use crate::report::{CheckOutcome, TaskResult};
use gix::ObjectId;

const MAX_STATE_BYTES: usize = 1024 * 1024;

/// Read an artifact of the task from the view, or say why it cannot be used.
enum Artifact {
    Absent,
    Bytes(Vec<u8>),
    Refused(Diagnostic),
}

fn read(gate: &Gate<'_>, path: &str, limit: usize) -> Result<Artifact> {
    Ok(match gate.view.read(gate.repo, path, limit)? {
        None => Artifact::Absent,
        Some(Content::Bytes(bytes)) => Artifact::Bytes(bytes),
        Some(Content::TooLarge { size }) => Artifact::Refused(
            Diagnostic::new(
                Code::input_too_large,
                format!(
                    "{path} is {size} bytes in {}; the limit is {limit} bytes",
                    gate.view.label
                ),
            )
            .with_path(path),
        ),
        Some(Content::NotRegular(mode)) => Artifact::Refused(
            Diagnostic::new(
                Code::artifact_not_regular_file,
                format!(
                    "{path} is a {} in {}, not a regular file",
                    match mode {
                        EntryMode::Symlink => "symlink",
                        EntryMode::Submodule => "submodule",
                        _ => "special file",
                    },
                    gate.view.label
                ),
            )
            .with_path(path),
        ),
    })
}

fn located(diagnostics: Vec<Diagnostic>, path: &str, task: &str) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .map(|mut d| {
            if d.path.is_none() {
                d.path = Some(path.to_string());
            }
            d.task = Some(task.to_string());
            d
        })
        .collect()
}

/// The baseline commit named by `state.json`, if usable.
enum Baseline {
    None,
    Commit(ObjectId),
    Unavailable(String),
}

fn baseline(gate: &Gate<'_>, dir: &str, out: &mut Vec<Diagnostic>) -> Result<Baseline> {
    let path = format!("{dir}/state.json");
    let bytes = match read(gate, &path, MAX_STATE_BYTES)? {
        Artifact::Absent => return Ok(Baseline::None),
        Artifact::Refused(d) => {
            out.push(d);
            return Ok(Baseline::None);
        }
        Artifact::Bytes(bytes) => bytes,
    };
    let invalid = |detail: String| {
        Diagnostic::new(Code::task_state_invalid, format!("{path}: {detail}"))
            .with_path(path.clone())
    };
    if bytes.len() > MAX_STATE_BYTES {
        out.push(invalid(format!("larger than {MAX_STATE_BYTES} bytes")));
        return Ok(Baseline::None);
    }
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            out.push(invalid(format!("not JSON: {e}")));
            return Ok(Baseline::None);
        }
    };
    let Some(object) = value.as_object() else {
        out.push(invalid("not a JSON object".into()));
        return Ok(Baseline::None);
    };
    let Some(reference) = object.get("baseline_ref") else {
        return Ok(Baseline::None);
    };
    let Some(reference) = reference.as_str() else {
        out.push(invalid("baseline_ref is not a string".into()));
        return Ok(Baseline::None);
    };
    let full_oid = (reference.len() == 40 || reference.len() == 64)
        && reference.bytes().all(|b| b.is_ascii_hexdigit());
    if !full_oid {
        out.push(invalid(format!(
            "baseline_ref `{reference}` is not a full object id"
        )));
        return Ok(Baseline::None);
    }
    match ObjectId::from_hex(reference.as_bytes()) {
        Ok(id) if gate.repo.has_commit(id) => Ok(Baseline::Commit(id)),
        _ => Ok(Baseline::Unavailable(reference.to_string())),
    }
}

/// The report's `spec`, normalized as the reference compares it: one
/// leading `./` stripped, an absolute path under the root made relative.
fn report_spec_matches(
    report_spec: &str,
    spec_path: &str,
    workdir: Option<&std::path::Path>,
) -> bool {
    let trimmed = report_spec.trim();
    let mut candidate = trimmed.strip_prefix("./").unwrap_or(trimmed).to_string();
    if let Some(relative) =
        workdir.and_then(|root| std::path::Path::new(trimmed).strip_prefix(root).ok())
    {
        candidate = relative.to_string_lossy().into_owned();
    }
    candidate == spec_path
}

/// Run every check of one task.
pub fn check(gate: &Gate<'_>, cache: &mut ChangeCache<'_>, dir: &str) -> Result<TaskResult> {
    let spec_path = format!("{dir}/spec.md");
    let report_path = format!("{dir}/executor-report.md");
    let mut checks = Vec::new();

    // 1. The spec.
    let mut spec_diagnostics = Vec::new();
    let parsed = match read(gate, &spec_path, spec::MAX_SPEC_BYTES)? {
        Artifact::Absent => {
            spec_diagnostics.push(
                Diagnostic::new(
                    Code::task_spec_missing,
                    format!("{spec_path} does not exist in {}", gate.view.label),
                )
                .with_path(spec_path.clone()),
            );
            None
        }
        Artifact::Refused(d) => {
            spec_diagnostics.push(d);
            None
        }
        Artifact::Bytes(bytes) => {
            let (parsed, diagnostics) = spec::check(&bytes);
            spec_diagnostics.extend(diagnostics);
            Some(parsed)
        }
    };

    // The task's baseline decides the change set.
    let chosen = baseline(gate, dir, &mut spec_diagnostics)?;
    let baseline_id = match chosen {
        Baseline::Commit(id) => Some(id),
        Baseline::Unavailable(reference) => {
            spec_diagnostics.push(
                Diagnostic::new(
                    Code::task_baseline_unavailable,
                    format!(
                        "baseline_ref {reference} is not in this repository; comparing against {} instead",
                        gate.base.label
                    ),
                )
                .with_path(format!("{dir}/state.json")),
            );
            None
        }
        Baseline::None => None,
    };
    checks.push(CheckOutcome::new(
        "spec",
        located(spec_diagnostics, &spec_path, dir),
    ));

    // 2. The executor report.
    let mut report_diagnostics = Vec::new();
    let report: Option<ExecutorReport> = match read(
        gate,
        &report_path,
        executor_report::MAX_REPORT_BYTES,
    )? {
        Artifact::Absent => {
            report_diagnostics.push(Diagnostic::new(
                Code::executor_report_missing,
                format!("{report_path} does not exist in {}", gate.view.label),
            ));
            None
        }
        Artifact::Refused(d) => {
            report_diagnostics.push(d);
            None
        }
        Artifact::Bytes(bytes) => match executor_report::parse(&bytes) {
            Ok((report, _warnings)) => {
                if !report_spec_matches(&report.spec, &spec_path, gate.repo.workdir()) {
                    report_diagnostics.push(
                            Diagnostic::new(
                                Code::executor_report_task_mismatch,
                                format!(
                                    "executor_report_rejected (task_mismatch): the report's spec is `{}`, not this task's `{spec_path}`",
                                    report.spec
                                ),
                            )
                            .with_pointer("/spec"),
                        );
                }
                if report.status != ReportStatus::Complete {
                    let status = executor_report::status_name(report.status);
                    report_diagnostics.push(
                            Diagnostic::new(
                                Code::executor_report_rejected,
                                format!(
                                    "executor_report_rejected (status_{status}): the report is `{status}`, so completion is rejected"
                                ),
                            )
                            .with_pointer("/status"),
                        );
                }
                Some(report)
            }
            Err(errors) => {
                report_diagnostics.extend(errors);
                None
            }
        },
    };
    checks.push(CheckOutcome::new(
        "executor_report",
        located(report_diagnostics, &report_path, dir),
    ));

    // 3 and 4. Scope and files_modified, against the task's change set.
    let (task_base, changes) = cache.for_baseline(baseline_id)?;
    let (real, mut scope_diagnostics) = scope::real_changes(changes, gate.config);
    if let Some(parsed) = parsed.as_ref().filter(|p| p.frontmatter_error.is_none()) {
        let admission = declared_paths::admit(parsed);
        scope_diagnostics.extend(scope::check_scope(
            &admission.targets,
            &real,
            task_base,
            gate.config,
        ));
        checks.push(CheckOutcome::new(
            "scope",
            located(scope_diagnostics, &spec_path, dir),
        ));
    } else {
        checks.push(CheckOutcome::new(
            "scope",
            located(scope_diagnostics, &spec_path, dir),
        ));
    }
    if let Some(report) = &report {
        checks.push(CheckOutcome::new(
            "files_modified",
            located(
                scope::check_files_modified(report, &real, gate.config),
                &report_path,
                dir,
            ),
        ));
    }

    // 5. Declared commands against the report's verification rows.
    if let (Some(parsed), Some(report)) = (&parsed, &report) {
        checks.push(CheckOutcome::new(
            "verifications",
            located(
                verifications::check(&parsed.declared_commands(), report),
                &report_path,
                dir,
            ),
        ));
    }

    // 6. Receipts for every observed check, and acceptance.
    checks.extend(receipts::check(
        gate,
        &mut cache.receipts,
        dir,
        parsed.as_ref(),
    )?);

    // 7. The audit tail, when the task has one.
    let tail_path = format!("{dir}/audit-tail.md");
    match read(gate, &tail_path, audit_tail::MAX_TAIL_BYTES)? {
        Artifact::Absent => {}
        Artifact::Refused(d) => checks.push(CheckOutcome::new(
            "audit_tail",
            located(vec![d], &tail_path, dir),
        )),
        Artifact::Bytes(bytes) => checks.push(CheckOutcome::new(
            "audit_tail",
            located(
                audit_tail::parse(&bytes).err().unwrap_or_default(),
                &tail_path,
                dir,
            ),
        )),
    }

    Ok(TaskResult::new(dir, checks))
}

#[cfg(test)]
mod tests {
    use super::report_spec_matches;
    use std::path::Path;

    #[test]
    fn report_spec_normalization() {
        let spec = ".mastermind/tasks/001/spec.md";
        assert!(report_spec_matches(spec, spec, None));
        assert!(report_spec_matches(
            "./.mastermind/tasks/001/spec.md",
            spec,
            None
        ));
        assert!(!report_spec_matches(
            "././.mastermind/tasks/001/spec.md",
            spec,
            None
        ));
        assert!(report_spec_matches(
            "/repo/.mastermind/tasks/001/spec.md",
            spec,
            Some(Path::new("/repo"))
        ));
        assert!(!report_spec_matches(
            ".mastermind/tasks/002/spec.md",
            spec,
            None
        ));
    }
}
