//! The untasked policy (DESIGN.md section 6): what happens to changes no
//! task covers — steps that touched no task folder, and what a step that
//! archives a task changed besides it. Control files (the configuration
//! among them) are planning, not untasked ([`super::planning::control`]).
//!
//! Each untasked path of a step is decided by the configuration's rules in
//! order (first match wins, else the default; [`super::identity::rules`]):
//! `allow` passes (a note where the change also carries a task, so a
//! reviewer sees what no task covers), `warn` passes with a warning
//! (`untasked_change`), `deny` fails (`task_required`, whose hint names the
//! rule that would allow the change). Unset, the default denies in CI and
//! pre-receive and warns in the local hooks. Paths the configuration
//! excludes are exempt. With `MASTERMIND_HOOKS_REQUIRE_TASK=true` every
//! content path is denied whatever the rules say.
//!
//! Two things come before the rules. A change that adopts the gate (its own
//! files brought to a base with no gate configuration,
//! [`super::adoption`]) is a `gate_adopted` note for those files. And on a
//! branch that is not protected, a refusal is a warning
//! ([`super::work_in_progress::apply_run`]).

use super::Gate;
use super::adoption::Adoption;
use super::attribution::Attribution;
use super::change::Step;
use super::identity::Known;
use super::identity::rules::{Subject, allow_hint, decide};
use super::landing::ViewKind;
use crate::codes::Code;
use crate::config::UntaskedAction;
use crate::diagnostic::{Diagnostic, Severity};
use crate::repo::changes::ChangeKind;
use std::collections::BTreeSet;

/// Content a step changed besides the task it archived.
pub struct ArchiveLeftover {
    pub step: usize,
    pub paths: Vec<(String, ChangeKind)>,
}

/// How many paths a finding names before it counts the rest.
const SHOWN: usize = 10;

fn listed(paths: &[(String, ChangeKind)]) -> String {
    let mut text: Vec<String> = paths
        .iter()
        .take(SHOWN)
        .map(|(p, k)| format!("{p} ({})", k.as_str()))
        .collect();
    if paths.len() > SHOWN {
        text.push(format!("and {} more", paths.len() - SHOWN));
    }
    text.join(", ")
}

/// Why a path got its action, for messages.
enum Why {
    Rule(usize),
    Default { unset: bool, empty: bool },
    Forced,
}

impl Why {
    fn text(&self) -> String {
        match self {
            Why::Rule(index) => format!("untasked.rules[{index}]"),
            Why::Default { unset: false, .. } => "untasked.default".to_string(),
            Why::Default { empty: true, .. } => {
                "the default (untasked.default unset, and nothing is protected yet in this empty repository, so only a warning until its first commit lands)".to_string()
            }
            Why::Default { unset: true, .. } => {
                "the default (untasked.default unset: deny in CI, pre-receive and the agent's stop hook, warn in the local git hooks)".to_string()
            }
            Why::Forced => {
                "MASTERMIND_HOOKS_REQUIRE_TASK=true (the CI template's require-task), which overrides every untasked rule".to_string()
            }
        }
    }
}

/// The subject the rules see for one step.
pub fn subject<'a>(known: &'a Known<'a>, step: &'a Step) -> Subject<'a> {
    Subject {
        identity: &step.identity,
        target_branch: known.target_branch,
        source_branch: known.source_branch(),
        pushers: known.facts.pushers.as_deref(),
        actors: known.facts.actors.as_deref(),
        signer: known.signer(step),
    }
}

/// Findings for one step's untasked paths; the paths the change adopts go
/// to `adopted` instead.
#[allow(clippy::too_many_arguments)]
fn judge_step(
    gate: &Gate<'_>,
    known: &Known<'_>,
    step: &Step,
    paths: Vec<(String, ChangeKind)>,
    what: &str,
    carries_task: bool,
    adoption: &Adoption,
    adopted: &mut BTreeSet<String>,
) -> Vec<Diagnostic> {
    let policy = &gate.config.untasked;
    let subject = subject(known, step);
    let empty = !known.enforcing
        && matches!(
            gate.landing.kind,
            ViewKind::Ci | ViewKind::Receive | ViewKind::Agent
        );
    let mut denied: Vec<(String, ChangeKind)> = Vec::new();
    let mut warned: Vec<(String, ChangeKind)> = Vec::new();
    let mut allowed: Vec<(String, ChangeKind)> = Vec::new();
    let mut deny_why = None;
    let mut warn_why = None;
    for (path, kind) in paths {
        if gate.config.exclude.is_match(&path) {
            continue;
        }
        if adoption.covers(&path) {
            adopted.insert(path);
            continue;
        }
        let (action, why) = if policy.forced {
            (UntaskedAction::Deny, Why::Forced)
        } else {
            match decide(policy, &subject, &path, known.enforcing) {
                (action, Some(index)) => (action, Why::Rule(index)),
                (action, None) => (
                    action,
                    Why::Default {
                        unset: policy.default.is_none(),
                        empty,
                    },
                ),
            }
        };
        match action {
            UntaskedAction::Deny => {
                deny_why.get_or_insert(why);
                denied.push((path, kind));
            }
            UntaskedAction::Warn => {
                warn_why.get_or_insert(why);
                warned.push((path, kind));
            }
            UntaskedAction::Allow => allowed.push((path, kind)),
        }
    }
    let mut out = Vec::new();
    if let (Some(first), Some(why)) = (denied.first(), &deny_why) {
        let hint = match why {
            Why::Forced => "make the change part of a task: commit it together with a change to that task's .mastermind/tasks/<task>/ folder (`mastermind-hooks task new NAME` starts one); no rule can allow it while the CI step's require-task input is true".to_string(),
            _ => format!(
                "make the change part of a task (commit it together with a change to that task's .mastermind/tasks/<task>/ folder; `mastermind-hooks task new NAME` starts one), or {}",
                allow_hint("untasked.rules", &subject, &first.0, "this path")
            ),
        };
        out.push(
            Diagnostic::new(
                Code::task_required,
                format!(
                    "{} {what} and belongs to no task, which {} denies: {}",
                    step.label,
                    why.text(),
                    listed(&denied)
                ),
            )
            .with_path(first.0.clone())
            .with_hint(hint),
        );
    }
    if let (Some(first), Some(why)) = (warned.first(), &warn_why) {
        let message = match why {
            // The local hooks' default: say what CI and pre-receive will do.
            Why::Default {
                unset: true,
                empty: false,
            } => format!(
                "{} {what}: {}; CI and pre-receive refuse a change that belongs to no task unless a rule on the protected branch allows it",
                step.label,
                listed(&warned)
            ),
            _ => format!(
                "{} {what} and belongs to no task ({} warns): {}",
                step.label,
                why.text(),
                listed(&warned)
            ),
        };
        out.push(
            Diagnostic::new(Code::untasked_change, message)
                .with_path(first.0.clone())
                .with_severity(Severity::Warning),
        );
    }
    if !allowed.is_empty() && carries_task {
        out.push(
            Diagnostic::new(
                Code::untasked_change,
                format!(
                    "{} {what} and belongs to no task: {}",
                    step.label,
                    listed(&allowed)
                ),
            )
            .with_path(allowed[0].0.clone()),
        );
    }
    out
}

/// The untasked findings of a change. `extra` holds what archiving steps
/// changed besides their task; `carries_task` is true when the change has
/// a judged task (allowed untasked paths are then listed as notes). The
/// paths the change adopts go to `adopted` instead.
pub fn check(
    gate: &Gate<'_>,
    known: &Known<'_>,
    attribution: &Attribution,
    extra: &[ArchiveLeftover],
    carries_task: bool,
    adoption: &Adoption,
    adopted: &mut BTreeSet<String>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (index, step) in gate.landing.steps.iter().enumerate() {
        let mut paths = attribution.untasked_changes(index, step, &gate.bookkeeping);
        let archives = extra.iter().any(|e| e.step == index);
        for leftover in extra.iter().filter(|e| e.step == index) {
            paths.extend(leftover.paths.iter().cloned());
        }
        if paths.is_empty() {
            continue;
        }
        let what = if archives {
            "archives a task"
        } else {
            "touches no task"
        };
        out.extend(judge_step(
            gate,
            known,
            step,
            paths,
            what,
            carries_task,
            adoption,
            adopted,
        ));
    }
    out
}

/// The note for a change that touches no task folder and nothing the
/// untasked or planning policy judged.
pub fn no_task_changed(gate: &Gate<'_>) -> Diagnostic {
    Diagnostic::new(
        Code::no_task_changed,
        format!(
            "no task folder changed in {}; nothing to check against a task",
            gate.landing.tip_label
        ),
    )
}
