//! `check --ci --rerun`: independent evidence. A receipt is the owner's
//! record of a run; anyone who can write the tree can write one. The re-run
//! executes every observed check of every checked task again, in an
//! isolated checkout of exactly the tree that lands ([`Checkout`]), under
//! the runner's supervision (own process group, declared timeout, 1 MiB
//! stream cap, SIGINT/SIGTERM), with CI credentials and command files
//! removed from the environment and the output quoted so it cannot issue
//! workflow commands. A check fails the gate unless it passes there and
//! its receipt records that pass: a forged passing receipt for a failing
//! command is `rerun_contradicts_receipt`.
//!
//! `--rerun-timeout SECONDS` bounds the whole re-run: each check gets the
//! smaller of its declared timeout and what is left; a check cut short by
//! the budget, or one that cannot start on the CI machine, is
//! `rerun_unavailable` (exit 2: not judged), never a pass.

use super::checkout::{self, Checkout};
use super::{echo, execute, hint, supervise};
use crate::codes::Code;
use crate::contract::mastermind::argv_display::RunDeclaration;
use crate::contract::mastermind::receipt::Status;
use crate::contract::mastermind::spec::MAX_SPEC_BYTES;
use crate::contract::mastermind::tree_receipt::{self, MAX_TREE_RECEIPT_BYTES, TreeReceipt};
use crate::diagnostic::Diagnostic;
use crate::repo::Repo;
use crate::repo::tree::{Content, View};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How one re-executed check ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RerunResult {
    /// Exit 0, no signal, inputs unchanged.
    Passed { duration_ms: u64 },
    /// It ran and did not pass.
    Failed {
        status: Status,
        exit_code: Option<i32>,
        signal: Option<i32>,
        reason: Option<String>,
        duration_ms: u64,
    },
    /// It could not be judged (cannot start here, budget, interruption).
    Unavailable { reason: String },
}

/// One re-executed check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RerunOutcome {
    pub id: String,
    /// The spec's `cmd` for the check.
    pub command: String,
    pub result: RerunResult,
}

/// A checkout of the tree that lands, reused by every check.
pub struct Rerun<'a> {
    repo: &'a Repo,
    view: &'a View,
    worktree: Option<&'a Path>,
    checkout: Checkout,
    /// A check changed the checkout: the next one gets a fresh copy.
    spoiled: bool,
    deadline: Option<Instant>,
    interrupt: &'a AtomicBool,
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn unavailable(reason: impl Into<String>) -> RerunResult {
    RerunResult::Unavailable {
        reason: reason.into(),
    }
}

fn materialize(
    repo: &Repo,
    view: &View,
    worktree: Option<&Path>,
    interrupt: &AtomicBool,
) -> Result<Checkout, Diagnostic> {
    Checkout::materialize(repo, view, worktree, interrupt).map_err(|failure| match failure {
        checkout::Failure::Interrupted => Diagnostic::new(
            Code::rerun_unavailable,
            format!(
                "interrupted while checking out {} for the re-run",
                view.label
            ),
        ),
        checkout::Failure::Refused(d) => Diagnostic::new(
            Code::rerun_unavailable,
            format!(
                "cannot check out {} for the re-run: {}",
                view.label, d.message
            ),
        ),
    })
}

impl<'a> Rerun<'a> {
    /// Check out `view` (submodule checkouts looked for under `worktree`)
    /// into a temporary directory; `budget` bounds every re-run made with
    /// the result.
    pub fn prepare(
        repo: &'a Repo,
        view: &'a View,
        worktree: Option<&'a Path>,
        budget: Option<Duration>,
        interrupt: &'a AtomicBool,
    ) -> Result<Rerun<'a>, Diagnostic> {
        let checkout = materialize(repo, view, worktree, interrupt)?;
        Ok(Rerun {
            repo,
            view,
            worktree,
            checkout,
            spoiled: false,
            deadline: budget.map(|b| Instant::now() + b),
            interrupt,
        })
    }

    /// Re-execute every observed check `spec_bytes` declares, in order.
    /// A spec whose declarations cannot be read yields no outcomes (the
    /// gate reports the spec itself).
    pub fn rerun_checks(&mut self, spec_path: &str, spec_bytes: &[u8]) -> Vec<RerunOutcome> {
        let Ok(declared) = super::declarations(spec_bytes, spec_path) else {
            return Vec::new();
        };
        declared
            .into_iter()
            .map(|(command, run)| {
                let result = self.rerun_one(&run);
                RerunOutcome {
                    id: run.id,
                    command,
                    result,
                }
            })
            .collect()
    }

    fn rerun_one(&mut self, run: &RunDeclaration) -> RerunResult {
        if self.interrupt.load(Ordering::SeqCst) {
            return unavailable("the re-run was interrupted before this check");
        }
        let declared = Duration::from_secs(run.timeout_secs);
        let timeout = match self.deadline {
            None => declared,
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return unavailable("the --rerun-timeout budget ran out before this check");
                }
                left.min(declared)
            }
        };
        if self.spoiled {
            match materialize(self.repo, self.view, self.worktree, self.interrupt) {
                Ok(fresh) => {
                    let old = std::mem::replace(&mut self.checkout, fresh);
                    old.remove();
                    self.spoiled = false;
                }
                Err(d) => return unavailable(d.message),
            }
        }
        let root = self.checkout.root().to_path_buf();
        let prepared = match execute::prepare(&root, run) {
            Ok(p) => p,
            Err(reason) => {
                return unavailable(format!(
                    "{reason} (install what the check needs in the CI job before the gate)"
                ));
            }
        };
        let echo = echo::Echo::start(echo::Style::Quoted {
            label: format!("[{}]", run.id),
        });
        let supervised = execute::start(
            &prepared,
            run,
            timeout,
            self.interrupt,
            echo.sender(),
            execute::Environment::Untrusted,
            root.parent(),
        );
        echo.finish(Duration::from_secs(3));
        let supervised = match supervised {
            Ok(s) => s,
            Err(e) => return unavailable(format!("spawn_failed: {e}")),
        };
        let changes = self.checkout.verify();
        if !changes.is_empty() {
            self.spoiled = true;
        }
        judge(&supervised, timeout < declared, run, &changes)
    }

    /// Remove the checkout.
    pub fn finish(self) {
        self.checkout.remove();
    }
}

fn judge(
    supervised: &supervise::Supervised,
    budget_bound: bool,
    run: &RunDeclaration,
    changes: &super::snapshot::Changes,
) -> RerunResult {
    let failed = |status: Status, reason: Option<String>| RerunResult::Failed {
        status,
        exit_code: supervised.exit_code,
        signal: supervised.signal,
        reason,
        duration_ms: millis(supervised.duration),
    };
    if supervised.interrupted {
        unavailable("the re-run was interrupted")
    } else if supervised.timed_out && budget_bound {
        unavailable("the --rerun-timeout budget ran out while the check ran")
    } else if supervised.timed_out {
        failed(
            Status::Timeout,
            Some(format!("timeout_secs_exceeded: {} s", run.timeout_secs)),
        )
    } else if supervised.output_limit {
        failed(
            Status::OutputLimit,
            Some(format!("stream_exceeded_{}_bytes", supervise::STREAM_CAP)),
        )
    } else if !supervised.stdout.complete || !supervised.stderr.complete {
        unavailable("a detached process kept the check's output open")
    } else if !changes.is_empty() {
        failed(
            Status::InputChanged,
            Some(format!(
                "the check changed the files it ran on ({})",
                changes.describe()
            )),
        )
    } else if supervised.exit_code == Some(0) && supervised.signal.is_none() {
        RerunResult::Passed {
            duration_ms: millis(supervised.duration),
        }
    } else {
        failed(Status::Failed, None)
    }
}

/// The check's tree receipt in `view`, if it decodes (claims are judged by
/// the gate; here only whether it records a pass matters).
pub fn receipt_in(repo: &Repo, view: &View, task: &str, id: &str) -> Option<TreeReceipt> {
    let path = format!("{task}/verification/{id}.tree.json");
    match view.read(repo, &path, MAX_TREE_RECEIPT_BYTES) {
        Ok(Some(Content::Bytes(bytes))) => tree_receipt::inspect(&bytes, None).receipt,
        _ => None,
    }
}

/// The findings for one task's re-run: a note per check that passed again,
/// an error per check that did not (`rerun_contradicts_receipt` when its
/// receipt records a pass), `rerun_unavailable` where it could not be
/// judged.
pub fn diagnostics(
    task: &str,
    spec_path: &str,
    outcomes: &[RerunOutcome],
    receipt: impl Fn(&str) -> Option<TreeReceipt>,
    label: &str,
) -> Vec<Diagnostic> {
    outcomes
        .iter()
        .map(|outcome| {
            let command = echo::escape(outcome.command.as_bytes());
            let recorded = receipt(&outcome.id);
            let claims_pass = recorded.as_ref().is_some_and(TreeReceipt::passed);
            let receipt_path = format!("{task}/verification/{}.tree.json", outcome.id);
            let locally = format!(
                "{} --isolated",
                hint::run_command(spec_path, Some(&outcome.id))
            );
            let diagnostic = match &outcome.result {
                RerunResult::Passed { duration_ms } => Diagnostic::new(
                    Code::rerun_passed,
                    format!(
                        "check `{}` (`{}`) passed again on {label} (exit 0, {duration_ms} ms){}",
                        outcome.id,
                        command,
                        if claims_pass {
                            ", as its receipt records"
                        } else {
                            "; its receipt does not record that pass"
                        }
                    ),
                ),
                RerunResult::Failed {
                    status,
                    exit_code,
                    signal,
                    reason,
                    duration_ms,
                } => {
                    let how = match (exit_code, signal) {
                        (Some(code), _) => format!("exit {code}"),
                        (None, Some(signal)) => format!("signal {signal}"),
                        (None, None) => "no exit status".to_string(),
                    };
                    let reason = reason
                        .as_deref()
                        .map(|r| format!(", {r}"))
                        .unwrap_or_default();
                    let what = format!(
                        "check `{}` (`{}`) {} when re-run on {label} ({how}, {duration_ms} ms{reason})",
                        outcome.id,
                        command,
                        crate::contract::mastermind::receipt::status_name(*status)
                    );
                    if claims_pass {
                        Diagnostic::new(
                            Code::rerun_contradicts_receipt,
                            format!(
                                "{what}, but its receipt records a pass: the receipt does not describe this content"
                            ),
                        )
                        .with_hint(format!(
                            "Reproduce it in a clean checkout with `{locally}`, fix the failure, commit the new receipt and push."
                        ))
                    } else {
                        Diagnostic::new(Code::rerun_failed, what).with_hint(format!(
                            "Reproduce it in a clean checkout with `{locally}`, fix the failure, commit the new receipt and push."
                        ))
                    }
                }
                RerunResult::Unavailable { reason } => Diagnostic::new(
                    Code::rerun_unavailable,
                    format!(
                        "check `{}` (`{}`) could not be re-run on {label}: {reason}",
                        outcome.id, command
                    ),
                ),
            };
            diagnostic.with_path(receipt_path).with_task(task)
        })
        .collect()
}

/// Re-run the observed checks of every task in `tasks` (task directories)
/// on `view`, the tree that lands; per task, the findings. `Err` when the
/// checkout itself cannot be made.
pub fn rerun_tasks(
    repo: &Repo,
    view: &View,
    tasks: &[String],
    budget: Option<Duration>,
    interrupt: &AtomicBool,
) -> Result<Vec<(String, Vec<Diagnostic>)>, Diagnostic> {
    let mut specs = Vec::new();
    for task in tasks {
        let spec_path = format!("{task}/spec.md");
        if let Ok(Some(Content::Bytes(bytes))) = view.read(repo, &spec_path, MAX_SPEC_BYTES)
            && bytes.len() <= MAX_SPEC_BYTES
            && super::declarations(&bytes, &spec_path).is_ok_and(|d| !d.is_empty())
        {
            specs.push((task.clone(), spec_path, bytes));
        }
    }
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    super::snapshot::check_submodules(repo, &super::snapshot::gitlinks_of(view)).map_err(|d| {
        Diagnostic::new(
            Code::rerun_unavailable,
            format!(
                "cannot check out {} for the re-run: {}",
                view.label, d.message
            ),
        )
    })?;
    let worktree = repo.workdir();
    let mut rerun = Rerun::prepare(repo, view, worktree, budget, interrupt)?;
    let mut out = Vec::new();
    for (task, spec_path, bytes) in specs {
        let outcomes = rerun.rerun_checks(&spec_path, &bytes);
        let found = diagnostics(
            &task,
            &spec_path,
            &outcomes,
            |id| receipt_in(repo, view, &task, id),
            &view.label,
        );
        out.push((task, found));
    }
    rerun.finish();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;
    use crate::contract::mastermind::receipt::{Executable, PROVENANCE, StreamDigest};
    use crate::contract::mastermind::tree_receipt::SpecBinding;
    use crate::diagnostic::Severity;

    fn passing_receipt() -> TreeReceipt {
        let hex = "a".repeat(64);
        let stream = || {
            Some(StreamDigest {
                bytes: 0,
                sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".into(),
            })
        };
        TreeReceipt {
            schema_version: 1,
            run_id: "0".repeat(32),
            check_id: "unit".into(),
            attempt: 1,
            status: Status::Passed,
            reason: None,
            spec: SpecBinding {
                path: "t/spec.md".into(),
                sha256: hex.clone(),
            },
            declaration_sha256: hex.clone(),
            command: "true".into(),
            declaration: RunDeclaration {
                id: "unit".into(),
                argv: vec!["true".into()],
                cwd: ".".into(),
                timeout_secs: 5,
            },
            executable: Some(Executable {
                invocation_path: "/bin/true".into(),
                resolved_path: "/bin/true".into(),
                sha256: hex.clone(),
            }),
            tree_digest_version: 1,
            tree_before: Some(hex.clone()),
            tree_after: Some(hex),
            started_at: 1,
            duration_ms: 1,
            exit_code: Some(0),
            signal: None,
            stdout: stream(),
            stderr: stream(),
            runner_version: "0.1.0".into(),
            platform: "linux".into(),
            provenance: PROVENANCE.into(),
        }
    }

    fn outcome(result: RerunResult) -> RerunOutcome {
        RerunOutcome {
            id: "unit".into(),
            command: "true".into(),
            result,
        }
    }

    #[test]
    fn outcomes_and_receipts_make_the_findings() {
        assert!(passing_receipt().passed());
        let failed = RerunResult::Failed {
            status: Status::Failed,
            exit_code: Some(1),
            signal: None,
            reason: None,
            duration_ms: 3,
        };
        let cases = [
            (
                RerunResult::Passed { duration_ms: 2 },
                true,
                Code::rerun_passed,
            ),
            (
                RerunResult::Passed { duration_ms: 2 },
                false,
                Code::rerun_passed,
            ),
            (failed.clone(), true, Code::rerun_contradicts_receipt),
            (failed, false, Code::rerun_failed),
            (unavailable("budget"), true, Code::rerun_unavailable),
        ];
        for (result, claims_pass, code) in cases {
            let found = diagnostics(
                "t",
                "t/spec.md",
                &[outcome(result.clone())],
                |_| claims_pass.then(passing_receipt),
                "the merge",
            );
            assert_eq!(found.len(), 1);
            assert_eq!(found[0].code, code, "{result:?} {claims_pass}");
            assert_eq!(
                found[0].path.as_deref(),
                Some("t/verification/unit.tree.json")
            );
            assert_eq!(found[0].task.as_deref(), Some("t"));
            assert_eq!(
                found[0].severity == Severity::Note,
                code == Code::rerun_passed
            );
        }
    }
}
