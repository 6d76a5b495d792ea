//! The planning acts of one task, and who planned it ([`crate::report::Plan`]).
//!
//! * A task whose spec is not on the protected branch and whose spec the
//!   change's steps add or change is planned in this change:
//!   - `task_copied` when that spec is, byte for byte, the spec of another
//!     task folder on the protected branch (a copy, or a rename where this
//!     change removes the original folder): its scope and checks were
//!     planned for another task, and whatever that task's landed plan and
//!     status said no longer binds the copy. Always graded;
//!   - else `task_created`, graded where `planning.new_tasks: planner`
//!     (the default), a note where `anyone`.
//!
//!   A new task whose spec came in an earlier change of its branch (a
//!   push of a branch that is not protected) was judged then; what lands
//!   on the protected branch carries that step again.
//! * A task whose spec is on the protected branch:
//!   - `spec_widened`: the change's own steps make its spec declare paths
//!     (`touches`, `creates`, `expected_docs`) that neither the spec
//!     before them nor the spec on the protected branch declares (a spec
//!     narrowed there after the branch started is not widened by a branch
//!     that never touched it);
//!   - `task_reopened`: the change does new work (content, not only the
//!     task's artifacts) for a task whose report there says `complete`.
//!
//! The acts of a new task are decided over the steps that changed its spec
//! ([`super::Verdict::over`]): a plan a planner signed, followed by the
//! agent's work in commits that leave the spec alone, is the planner's.

use super::super::TaskContext;
use super::super::change::Step;
use super::super::identity::Known;
use super::{Verdict, protected};
use crate::codes::Code;
use crate::config::{NewTasks, UntaskedAction};
use crate::contract::mastermind::executor_report::{self, ReportStatus};
use crate::contract::mastermind::spec::{self, declared_paths};
use crate::diagnostic::Diagnostic;
use crate::repo::Result;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{Content, View};
use crate::report::Plan;
use gix::ObjectId;
use std::collections::{BTreeSet, HashMap};

/// How many widened paths a finding names before it counts the rest.
const SHOWN: usize = 10;

/// What one gate run learns once for every task: the specs of the task
/// folders on the protected branch, by blob (read only when a task is new).
#[derive(Default)]
pub struct Memo {
    landed_specs: Option<HashMap<ObjectId, Vec<String>>>,
}

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
    let checked = super::super::spec_memo::check(bytes);
    let parsed = &checked.0;
    if parsed.frontmatter_error.is_some() {
        return BTreeSet::new();
    }
    declared_paths::admit(parsed).targets.into_keys().collect()
}

/// What a spec grants, for messages: `touches a, b; creates c; checks unit`.
fn grants(bytes: &[u8]) -> String {
    let checked = super::super::spec_memo::check(bytes);
    let Some(frontmatter) = checked
        .0
        .frontmatter
        .as_ref()
        .filter(|_| checked.0.frontmatter_error.is_none())
    else {
        return "a spec without valid front matter".to_string();
    };
    let mut parts = Vec::new();
    let list = |items: Vec<String>| {
        let mut shown: Vec<String> = items.iter().take(SHOWN).cloned().collect();
        if items.len() > SHOWN {
            shown.push(format!("and {} more", items.len() - SHOWN));
        }
        shown.join(", ")
    };
    let touches: Vec<String> = frontmatter.touches.iter().map(|t| t.file.clone()).collect();
    for (key, items) in [
        ("touches", touches),
        ("creates", frontmatter.creates.clone()),
        ("expected_docs", frontmatter.expected_docs.clone()),
        (
            "checks",
            frontmatter
                .observed()
                .map(|(_, run)| run.id.clone())
                .collect(),
        ),
    ] {
        if !items.is_empty() {
            parts.push(format!("{key} {}", list(items)));
        }
    }
    if parts.is_empty() {
        "no path and no check".to_string()
    } else {
        parts.join("; ")
    }
}

/// The task folder on the protected branch whose spec is `bytes` (other
/// than `dir`), and whether what lands still has it.
fn copied_from(
    ctx: &TaskContext<'_>,
    memo: &mut Memo,
    at: Snapshot<'_>,
    bytes: &[u8],
) -> Result<Option<(String, bool)>> {
    let gate = ctx.gate;
    if memo.landed_specs.is_none() {
        let mut specs: HashMap<ObjectId, Vec<String>> = HashMap::new();
        let tasks = crate::bookkeeping::TASKS_DIR.trim_end_matches('/');
        if let Snapshot::Tree(tree) = at
            && let Some(subtree) = gate.repo.subtree_id(tree, tasks)?
        {
            let view = View::from_tree(gate.repo, subtree, "the protected branch's tasks")?;
            for (path, entry) in view.entries() {
                let Ok(path) = std::str::from_utf8(path) else {
                    continue;
                };
                if let Some(dir) = path.strip_suffix("/spec.md")
                    && !dir.contains('/')
                    && entry.mode.is_file()
                {
                    specs
                        .entry(entry.oid)
                        .or_default()
                        .push(format!("{tasks}/{dir}"));
                }
            }
        }
        memo.landed_specs = Some(specs);
    }
    let id = gate.repo.blob_id(bytes)?;
    let Some(source) = memo
        .landed_specs
        .as_ref()
        .and_then(|specs| specs.get(&id))
        .and_then(|dirs| dirs.iter().find(|d| **d != ctx.dir))
    else {
        return Ok(None);
    };
    let kept = gate
        .lands()
        .get(gate.repo, &format!("{source}/spec.md"))?
        .is_some();
    Ok(Some((source.clone(), kept)))
}

/// The change's steps of the task that changed its spec.
fn changing_spec<'s>(ctx: &'s TaskContext<'_>, spec_path: &str) -> Vec<&'s Step> {
    ctx.change()
        .iter()
        .map(|s| &**s)
        .filter(|s| {
            s.changes
                .iter()
                .any(|c| c.path.as_slice() == spec_path.as_bytes())
        })
        .collect()
}

/// The planning findings of one task and who planned it.
pub fn check(
    ctx: &TaskContext<'_>,
    known: &Known<'_>,
    memo: &mut Memo,
) -> Result<(Vec<Diagnostic>, Plan)> {
    let gate = ctx.gate;
    let policy = &gate.config.planning;
    let (tree, where_) = protected(gate)?;
    let spec_path = format!("{}/spec.md", ctx.dir);
    let touching = changing_spec(ctx, &spec_path);
    let steps: Vec<String> = touching.iter().map(|s| s.label.clone()).collect();
    let mut out = Vec::new();
    let now = read(ctx, ctx.at, &spec_path, spec::MAX_SPEC_BYTES)?;
    let Some(landed) = read(ctx, tree, &spec_path, spec::MAX_SPEC_BYTES)? else {
        // A new task.
        let (Some(now), false) = (now, touching.is_empty()) else {
            // Planned in an earlier change of the branch (or its spec is
            // missing, which the spec check reports).
            return Ok((
                out,
                Plan {
                    origin: "earlier".to_string(),
                    ..Plan::default()
                },
            ));
        };
        let verdict = Verdict::over(gate, known, &touching, &spec_path, "planning this task");
        let granted = grants(&now);
        let plan = |origin: &str, decision: Option<String>| Plan {
            origin: origin.to_string(),
            by: Some(verdict.by.clone()),
            steps: steps.clone(),
            decision,
        };
        if let Some((source, kept)) = copied_from(ctx, memo, tree, &now)? {
            let how = if kept {
                "copied from"
            } else {
                "renamed from (this change removes the original folder of)"
            };
            let what = format!(
                "task {} is new, and its spec is {how} task {source} on {where_}: a planned task's scope and checks are a planner's to give to another task (it grants {granted})",
                ctx.dir
            );
            out.push(
                verdict
                    .finding(
                        Code::task_copied,
                        what,
                        "have a planner land the copy, or start the task with a plan of its own (`mastermind-hooks task new NAME`)",
                        policy,
                    )
                    .with_path(spec_path.clone()),
            );
            return Ok((out, plan("copied", Some(verdict.decision()))));
        }
        // The local hooks know nobody the platform vouches for: a plan they
        // cannot fault is not worth a line at every commit.
        let quiet = !super::enforced_here(gate, known);
        if gate.config.new_tasks == NewTasks::Anyone {
            if quiet {
                return Ok((out, plan("new", None)));
            }
            let mut note = Diagnostic::new(
                Code::task_created,
                format!(
                    "task {} is new in this change ({}, by {}) and new tasks need no planner here (planning.new_tasks: anyone): it is judged by the spec it brings, which grants {granted}",
                    ctx.dir,
                    steps.join(", "),
                    verdict.by
                ),
            )
            .with_severity(crate::diagnostic::Severity::Note)
            .with_path(spec_path.clone());
            note.hint = None;
            out.push(note);
            return Ok((out, plan("new", None)));
        }
        if quiet && verdict.action == UntaskedAction::Allow {
            return Ok((out, plan("new", Some(verdict.decision()))));
        }
        let what = format!(
            "task {} is new: its spec is not on {where_}, and a new task's plan is a planner's (planning.new_tasks: planner); it grants {granted}",
            ctx.dir
        );
        out.push(
            verdict
                .finding(
                    Code::task_created,
                    what,
                    "have a planner land the plan: the spec alone in a change of theirs, or first in this change in a commit they sign, then the work in commits that leave the spec alone",
                    policy,
                )
                .with_path(spec_path.clone()),
        );
        return Ok((out, plan("new", Some(verdict.decision()))));
    };
    let mut plan = Plan {
        origin: "landed".to_string(),
        ..Plan::default()
    };
    // What the change's own steps added to the spec: a spec narrowed on the
    // protected branch after the branch forked is not widened by a change
    // that never touched it.
    if let (Some(first), Some(now)) = (touching.first(), now) {
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
            let verdict = Verdict::over(gate, known, &touching, &spec_path, "planning this task");
            let mut shown: Vec<String> = added.iter().take(SHOWN).cloned().collect();
            if added.len() > SHOWN {
                shown.push(format!("and {} more", added.len() - SHOWN));
            }
            let what = format!(
                "{spec_path} declares paths its spec on {where_} does not ({}): {}",
                ctx.at_label,
                shown.join(", ")
            );
            out.push(
                verdict
                    .finding(
                        Code::spec_widened,
                        what,
                        &format!("land the wider spec as a planner; or restore the scope {where_} declares"),
                        policy,
                    )
                    .with_path(spec_path.clone()),
            );
            plan = Plan {
                origin: "widened".to_string(),
                by: Some(verdict.by.clone()),
                steps: steps.clone(),
                decision: Some(verdict.decision()),
            };
        }
    }
    let report_path = format!("{}/executor-report.md", ctx.dir);
    let complete = read(ctx, tree, &report_path, executor_report::MAX_REPORT_BYTES)?
        .and_then(|bytes| executor_report::parse(&bytes).ok())
        .is_some_and(|(report, _)| report.status == ReportStatus::Complete);
    if complete {
        let bookkeeping = &gate.bookkeeping;
        let working: Vec<&Step> = ctx
            .change()
            .iter()
            .map(|s| &**s)
            .filter(|s| s.content_changes(bookkeeping).next().is_some())
            .collect();
        if let Some(first) = working.first() {
            let verdict = Verdict::over(gate, known, &working, &spec_path, "planning this task");
            let changed = first
                .content_changes(bookkeeping)
                .map(|(p, _)| p)
                .next()
                .unwrap_or("content");
            let what = format!(
                "task {} is `complete` on {where_}, and {} does new work for it ({changed})",
                ctx.dir, first.label
            );
            out.push(
                verdict
                    .finding(
                        Code::task_reopened,
                        what,
                        "do new work in a new task (`mastermind-hooks task new NAME`)",
                        policy,
                    )
                    .with_path(report_path),
            );
            if plan.origin == "landed" {
                plan = Plan {
                    origin: "reopened".to_string(),
                    by: Some(verdict.by.clone()),
                    steps: working.iter().map(|s| s.label.clone()).collect(),
                    decision: Some(verdict.decision()),
                };
            }
        }
    }
    Ok((out, plan))
}
