//! The checks of one task on what lands: spec, executor report, scope,
//! files_modified, declared commands, receipts and the audit tail, each
//! reported as its own group (only the spec for a task the change only
//! plans: see [`super::TaskContext::planned`]).

use super::{TaskContext, receipts, scope, verifications};
use crate::codes::Code;
use crate::contract::mastermind::executor_report::{self, ExecutorReport, ReportStatus};
use crate::contract::mastermind::spec::declared_paths;
use crate::contract::mastermind::tree_receipt::MAX_TREE_RECEIPT_BYTES;
use crate::contract::mastermind::{audit_tail, spec};
use crate::diagnostic::Diagnostic;
use crate::repo::Result;
use crate::repo::tree::{Content, EntryMode};
use crate::report::{CheckOutcome, Judged, TaskContract, TaskResult};

pub const MAX_STATE_BYTES: usize = 1024 * 1024;

/// Read an artifact of the task from the view, or say why it cannot be used.
enum Artifact {
    Absent,
    Bytes(Vec<u8>),
    Refused(Diagnostic),
}

fn read(ctx: &TaskContext<'_>, path: &str, limit: usize) -> Result<Artifact> {
    artifact(ctx, path, limit, ctx.read(path, limit)?)
}

/// An artifact as read (from the task's last step, or the spec as it
/// lands).
fn artifact(
    ctx: &TaskContext<'_>,
    path: &str,
    limit: usize,
    content: Option<Content>,
) -> Result<Artifact> {
    Ok(match content {
        None => Artifact::Absent,
        Some(Content::Bytes(bytes)) => Artifact::Bytes(bytes),
        Some(Content::TooLarge { size }) => Artifact::Refused(
            Diagnostic::new(
                Code::input_too_large,
                format!(
                    "{path} is {size} bytes in {}; the limit is {limit} bytes",
                    ctx.at_label
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
                    ctx.at_label
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

/// What makes a `state.json` (or its `baseline_ref`) unusable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateError {
    TooLarge,
    NotJson(String),
    NotObject,
    /// The value given, which is no full object id.
    NotFullId(String),
    NotString,
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::TooLarge => write!(f, "larger than {MAX_STATE_BYTES} bytes"),
            StateError::NotJson(e) => write!(f, "not JSON: {e}"),
            StateError::NotObject => f.write_str("not a JSON object"),
            StateError::NotFullId(value) => {
                write!(f, "baseline_ref `{value}` is not a full object id")
            }
            StateError::NotString => f.write_str("baseline_ref is not a string"),
        }
    }
}

impl std::error::Error for StateError {}

/// The `baseline_ref` a `state.json` declares: `Ok(None)` when it names
/// none, `Err` with what makes the file or the value unusable. A declared
/// ref is always a full object id.
pub fn declared_baseline_ref(bytes: &[u8]) -> std::result::Result<Option<String>, StateError> {
    if bytes.len() > MAX_STATE_BYTES {
        return Err(StateError::TooLarge);
    }
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| StateError::NotJson(e.to_string()))?;
    let Some(object) = value.as_object() else {
        return Err(StateError::NotObject);
    };
    match object.get("baseline_ref") {
        None => Ok(None),
        Some(serde_json::Value::String(reference)) => {
            let full_oid = (reference.len() == 40 || reference.len() == 64)
                && reference.bytes().all(|b| b.is_ascii_hexdigit());
            if full_oid {
                Ok(Some(reference.clone()))
            } else {
                Err(StateError::NotFullId(reference.clone()))
            }
        }
        Some(_) => Err(StateError::NotString),
    }
}

/// Check that `state.json`, when present, is usable (see
/// [`declared_baseline_ref`]). Whether its commit may be the task's
/// baseline is decided with the change (see `gate::prepare`).
fn check_state(ctx: &TaskContext<'_>, out: &mut Vec<Diagnostic>) -> Result<()> {
    let path = format!("{}/state.json", ctx.dir);
    match read(ctx, &path, MAX_STATE_BYTES)? {
        Artifact::Absent => {}
        Artifact::Refused(d) => out.push(d),
        Artifact::Bytes(bytes) => {
            if let Err(detail) = declared_baseline_ref(&bytes) {
                out.push(
                    Diagnostic::new(Code::task_state_invalid, format!("{path}: {detail}"))
                        .with_path(path.clone()),
                );
            }
        }
    }
    Ok(())
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

/// Run every check of one task. `baseline_problem` is the change's verdict
/// on the task's declared baseline.
pub fn check<'r>(
    ctx: &TaskContext<'r>,
    memo: &mut receipts::Memo<'r>,
    baseline_problem: Option<Diagnostic>,
) -> Result<TaskResult> {
    let dir = ctx.dir.as_str();
    let gate = ctx.gate;
    let spec_path = format!("{dir}/spec.md");
    let report_path = format!("{dir}/executor-report.md");
    let mut checks = Vec::new();

    // 1. The spec.
    let mut spec_diagnostics = Vec::new();
    let spec_bytes = ctx.read_spec(spec::MAX_SPEC_BYTES)?;
    let mut judged_spec = None;
    let checked_spec = match artifact(ctx, &spec_path, spec::MAX_SPEC_BYTES, spec_bytes)? {
        Artifact::Absent => {
            spec_diagnostics.push(
                Diagnostic::new(
                    Code::task_spec_missing,
                    format!(
                        "{spec_path} does not exist in {}, but other files of the task do; restore it, or remove the whole folder to archive the task",
                        ctx.at_label
                    ),
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
            let checked = super::spec_memo::check(&bytes);
            spec_diagnostics.extend(checked.1.iter().cloned());
            judged_spec = Some(bytes);
            Some(checked)
        }
    };
    let parsed: Option<&spec::ParsedSpec> = checked_spec.as_deref().map(|(parsed, _)| parsed);
    check_state(ctx, &mut spec_diagnostics)?;
    spec_diagnostics.extend(baseline_problem);
    checks.push(CheckOutcome::new(
        "spec",
        located(spec_diagnostics, &spec_path, dir),
    ));
    if ctx.planned {
        // The plan lands before the work: the work is judged when it comes.
        checks.push(CheckOutcome::new(
            "plan",
            located(
                vec![Diagnostic::new(
                    Code::task_planned,
                    format!(
                        "task {dir} is planned in {}: this change writes its spec, none of its steps changes content and its report is not written yet, so only the spec is judged now; its work lands in a change of its own",
                        ctx.at_label
                    ),
                )],
                &spec_path,
                dir,
            ),
        ));
        let mut result = TaskResult::new(dir, checks);
        result.contract = Some(contract(ctx, parsed));
        return Ok(result);
    }

    // 2. The executor report.
    let mut report_diagnostics = Vec::new();
    let report: Option<ExecutorReport> = match read(
        ctx,
        &report_path,
        executor_report::MAX_REPORT_BYTES,
    )? {
        Artifact::Absent => {
            report_diagnostics.push(Diagnostic::new(
                Code::executor_report_missing,
                format!("{report_path} does not exist in {}", ctx.at_label),
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
            Err(errors) if executor_report::is_unfilled_skeleton(&bytes, &errors) => {
                report_diagnostics.push(
                    Diagnostic::new(
                        Code::executor_report_unfilled,
                        format!(
                            "{report_path} is still the skeleton `mastermind-hooks task new` wrote: its status is `{}`",
                            executor_report::STATUS_PLACEHOLDER
                        ),
                    )
                    .with_pointer("/status"),
                );
                None
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

    // 3 and 4. Scope and files_modified, against the task's own changes.
    let real = scope::real_changes(&ctx.paths, gate.config);
    let mut scope_diagnostics = Vec::new();
    if let Some(parsed) = parsed.filter(|p| p.frontmatter_error.is_none()) {
        let admission = declared_paths::admit(parsed);
        scope_diagnostics.extend(scope::check_scope(&admission.targets, &real, ctx)?);
    }
    checks.push(CheckOutcome::new(
        "scope",
        located(scope_diagnostics, &spec_path, dir),
    ));
    if let Some(report) = &report {
        checks.push(CheckOutcome::new(
            "files_modified",
            located(
                scope::check_files_modified(report, &real, gate.config, &gate.bookkeeping),
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
    checks.extend(receipts::check(ctx, memo, parsed)?);

    // 7. The audit tail, when the task has one.
    let tail_path = format!("{dir}/audit-tail.md");
    match read(ctx, &tail_path, audit_tail::MAX_TAIL_BYTES)? {
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

    let mut result = TaskResult::new(dir, checks);
    result.contract = Some(contract(ctx, parsed));
    if gate.landing.kind == super::ViewKind::Ci
        && let Some(spec) = judged_spec
    {
        result.judged = Some(judged(ctx, spec_path, spec)?);
    }
    Ok(result)
}

/// What `check --ci --rerun` re-executes for the task: the spec as judged
/// and each observed check's tree receipt as read at the task's last step.
fn judged(ctx: &TaskContext<'_>, spec_path: String, spec: Vec<u8>) -> Result<Judged> {
    let mut receipts = Vec::new();
    for (_, run) in crate::runner::declarations(&spec, &spec_path).unwrap_or_default() {
        let path = format!("{}/verification/{}.tree.json", ctx.dir, run.id);
        let bytes = match ctx.read(&path, MAX_TREE_RECEIPT_BYTES)? {
            Some(Content::Bytes(bytes)) => Some(bytes),
            _ => None,
        };
        receipts.push((run.id, bytes));
    }
    Ok(Judged {
        spec_path,
        spec,
        receipts,
    })
}

/// The task's contract next to what it changed.
fn contract(ctx: &TaskContext<'_>, parsed: Option<&spec::ParsedSpec>) -> TaskContract {
    let frontmatter = parsed.and_then(|p| p.frontmatter.as_ref());
    TaskContract {
        judged_at: ctx.at_label.clone(),
        commits: ctx.steps.iter().map(|s| s.label.clone()).collect(),
        touches: frontmatter
            .map(|f| f.touches.iter().map(|t| t.file.clone()).collect())
            .unwrap_or_default(),
        creates: frontmatter.map(|f| f.creates.clone()).unwrap_or_default(),
        expected_docs: frontmatter
            .map(|f| f.expected_docs.clone())
            .unwrap_or_default(),
        checks: frontmatter
            .map(|f| f.observed().map(|(_, run)| run.id.clone()).collect())
            .unwrap_or_default(),
        changed: ctx
            .paths
            .iter()
            .map(|(path, a)| format!("{path} ({})", a.kind.as_str()))
            .collect(),
        plan: None,
    }
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
