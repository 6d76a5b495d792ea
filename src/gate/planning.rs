//! Planning and a task's lifecycle as findings (DESIGN.md section 5,
//! "Trust"): who may change the plan once it is on the protected branch.
//!
//! * `spec_widened`: the change's steps make a task's spec declare paths
//!   (`touches`, `creates`, `expected_docs`) that neither the spec before
//!   them nor the spec on the protected branch declares: one push widening
//!   the scope and the next doing the work is planning, and planning is a
//!   planner's;
//! * `task_reopened`: the change does new work (content, not only the
//!   task's artifacts) for a task whose report on the protected branch says
//!   `complete`: a finished task is not reopened at will.
//!
//! The planning policy (`planning:` in the configuration,
//! [`super::identity::rules`]) decides each finding's severity for the
//! steps that made it: `allow` (a listed planner) makes it a note, `warn` a
//! warning, `deny` an error; unset, the default denies in CI and pre-receive
//! and warns in the local hooks. The protected branch is the one the mode
//! names ([`super::identity::Facts::protected`]); where the mode cannot
//! tell, neither finding is raised. A task whose spec is not on the
//! protected branch is new work, judged by the spec it brings.

use super::TaskContext;
use super::change::Step;
use super::identity::Known;
use super::identity::rules::{allow_hint, decide};
use super::untasked::subject;
use crate::codes::Code;
use crate::config::UntaskedAction;
use crate::contract::mastermind::executor_report::{self, ReportStatus};
use crate::contract::mastermind::spec::{self, declared_paths};
use crate::diagnostic::{Diagnostic, Severity};
use crate::repo::Result;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{Content, short};
use std::collections::BTreeSet;

/// How many widened paths a finding names before it counts the rest.
const SHOWN: usize = 10;

fn read(
    ctx: &TaskContext<'_>,
    at: Snapshot<'_>,
    path: &str,
    limit: usize,
) -> Result<Option<Vec<u8>>> {
    Ok(match at.read(ctx.gate.repo, path, limit)? {
        Some(Content::Bytes(bytes)) => Some(bytes),
        _ => None,
    })
}

/// The normalized paths a spec declares (none when it cannot be parsed).
fn declared(bytes: &[u8]) -> BTreeSet<String> {
    let checked = super::spec_memo::check(bytes);
    let parsed = &checked.0;
    if parsed.frontmatter_error.is_some() {
        return BTreeSet::new();
    }
    declared_paths::admit(parsed).targets.into_keys().collect()
}

fn rank(action: UntaskedAction) -> u8 {
    match action {
        UntaskedAction::Deny => 2,
        UntaskedAction::Warn => 1,
        UntaskedAction::Allow => 0,
    }
}

/// The planning policy's verdict over the steps that made a planning
/// change: the strictest step decides.
fn verdict(
    ctx: &TaskContext<'_>,
    known: &Known<'_>,
    steps: &[&Step],
    path: &str,
) -> (UntaskedAction, String, String) {
    let policy = &ctx.gate.config.planning;
    let mut worst: Option<(UntaskedAction, Option<usize>, &Step)> = None;
    for step in steps {
        let (action, rule) = decide(policy, &subject(known, step), path, known.enforcing);
        if worst.is_none_or(|(a, _, _)| rank(action) > rank(a)) {
            worst = Some((action, rule, step));
        }
    }
    let Some((action, rule, step)) = worst else {
        return (UntaskedAction::Allow, String::new(), String::new());
    };
    let why = match rule {
        Some(index) => format!("planning.rules[{index}]"),
        None if policy.default.is_some() => "planning.default".to_string(),
        None => "the default (planning.default unset: deny in CI and pre-receive, warn in the local hooks)".to_string(),
    };
    let hint = allow_hint(
        "planning.rules",
        &subject(known, step),
        path,
        "planning this task",
    );
    (action, why, hint)
}

fn severity(action: UntaskedAction) -> Severity {
    match action {
        UntaskedAction::Deny => Severity::Error,
        UntaskedAction::Warn => Severity::Warning,
        UntaskedAction::Allow => Severity::Note,
    }
}

fn verb(action: UntaskedAction) -> &'static str {
    match action {
        UntaskedAction::Deny => "denies",
        UntaskedAction::Warn => "warns",
        UntaskedAction::Allow => "allows",
    }
}

/// The planning findings of one task.
pub fn check(ctx: &TaskContext<'_>, known: &Known<'_>) -> Result<Vec<Diagnostic>> {
    let Some(protected) = known.facts.protected else {
        return Ok(Vec::new());
    };
    let gate = ctx.gate;
    let tree = Snapshot::Tree(gate.repo.commit_tree(protected)?);
    let where_ = format!("the protected branch (commit {})", short(protected));
    let spec_path = format!("{}/spec.md", ctx.dir);
    let change: Vec<&Step> = ctx.change().iter().map(|s| &**s).collect();
    let mut out = Vec::new();
    let Some(landed) = read(ctx, tree, &spec_path, spec::MAX_SPEC_BYTES)? else {
        return Ok(out); // a new task: judged by the spec it brings
    };
    // What the change's own steps added to the spec: a spec narrowed on the
    // protected branch after the branch forked is not widened by a change
    // that never touched it.
    let touching: Vec<&Step> = change
        .iter()
        .copied()
        .filter(|s| {
            s.changes
                .iter()
                .any(|c| c.path.as_slice() == spec_path.as_bytes())
        })
        .collect();
    if let (Some(first), Some(now)) = (
        touching.first(),
        read(ctx, ctx.at, &spec_path, spec::MAX_SPEC_BYTES)?,
    ) {
        let before = match first.parents.first() {
            Some(parent) => read(
                ctx,
                Snapshot::Tree(gate.repo.commit_tree(*parent)?),
                &spec_path,
                spec::MAX_SPEC_BYTES,
            )?
            .map(|bytes| declared(&bytes))
            .unwrap_or_default(),
            None => BTreeSet::new(),
        };
        let on_protected = declared(&landed);
        let added: Vec<String> = declared(&now)
            .into_iter()
            .filter(|p| !before.contains(p) && !on_protected.contains(p))
            .collect();
        if !added.is_empty() {
            let (action, why, hint) = verdict(ctx, known, &touching, &spec_path);
            let mut shown: Vec<String> = added.iter().take(SHOWN).cloned().collect();
            if added.len() > SHOWN {
                shown.push(format!("and {} more", added.len() - SHOWN));
            }
            let mut diagnostic = Diagnostic::new(
                Code::spec_widened,
                format!(
                    "{spec_path} declares paths its spec on {where_} does not ({}), which {why} {}: {}",
                    ctx.at_label,
                    verb(action),
                    shown.join(", ")
                ),
            )
            .with_path(spec_path.clone())
            .with_severity(severity(action));
            if action != UntaskedAction::Allow {
                diagnostic = diagnostic.with_hint(format!(
                    "land the wider spec as a planner, or {hint}; or restore the scope {where_} declares"
                ));
            }
            out.push(diagnostic);
        }
    }
    let report_path = format!("{}/executor-report.md", ctx.dir);
    let complete = read(ctx, tree, &report_path, executor_report::MAX_REPORT_BYTES)?
        .and_then(|bytes| executor_report::parse(&bytes).ok())
        .is_some_and(|(report, _)| report.status == ReportStatus::Complete);
    if complete {
        let bookkeeping = &gate.bookkeeping;
        let working: Vec<&Step> = change
            .iter()
            .copied()
            .filter(|s| s.content_changes(bookkeeping).next().is_some())
            .collect();
        if let Some(first) = working.first() {
            let (action, why, hint) = verdict(ctx, known, &working, &spec_path);
            let changed = first
                .content_changes(bookkeeping)
                .map(|(p, _)| p)
                .next()
                .unwrap_or("content");
            let mut diagnostic = Diagnostic::new(
                Code::task_reopened,
                format!(
                    "task {} is `complete` on {where_}, and {} does new work for it ({changed}), which {why} {}",
                    ctx.dir,
                    first.label,
                    verb(action)
                ),
            )
            .with_path(report_path)
            .with_severity(severity(action));
            if action != UntaskedAction::Allow {
                diagnostic = diagnostic.with_hint(format!(
                    "do new work in a new task (`mastermind-hooks task new NAME`), or {hint}"
                ));
            }
            out.push(diagnostic);
        }
    }
    Ok(out)
}
