//! The gate over one view of the repository (DESIGN.md section 5): find the
//! tasks whose folder changed, read every artifact from the view (never from
//! disk, except in the working-tree view), and run the per-task checks.

pub mod agent_files;
pub mod receipts;
pub mod scope;
pub mod task;
pub mod verifications;

use crate::codes::Code;
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::repo::changes::ChangeSet;
use crate::repo::tree::View;
use crate::repo::{Repo, Result};
use crate::report::{FileResult, TaskResult};
use gix::ObjectId;
use gix::bstr::ByteSlice;
use std::collections::{BTreeSet, HashMap};

/// Where tasks live.
pub const TASKS_DIR: &str = ".mastermind/tasks/";
/// Everything under this prefix is the agents' own bookkeeping, not scope.
pub const MASTERMIND_DIR: &str = ".mastermind/";

/// Which mode a gate run serves: decides receipt policy (the sha256 cache
/// and executable comparison are local-only; v1 receipts need the working
/// tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    Staged,
    Push,
    Ci,
    Worktree,
}

/// One gate run over one view.
pub struct Gate<'a> {
    pub kind: ViewKind,
    pub repo: &'a Repo,
    pub config: &'a Config,
    /// The tree that would land; artifacts are read from it.
    pub view: &'a View,
    /// The tree change sets are computed to. The view itself, except in CI,
    /// where it is the head commit: a task's change is what the branch did,
    /// not what the base did since (the merge view still supplies artifacts).
    pub target: &'a View,
    /// The mode's base (HEAD, the remote commit, the merge base, ...).
    pub base: &'a View,
    /// A label for the view in task results (the pushed ref, say).
    pub label: Option<String>,
}

/// What a gate run found.
#[derive(Debug, Default)]
pub struct GateOutcome {
    pub tasks: Vec<TaskResult>,
    /// Configured agent files (ledgers, plastic files, subagent returns).
    pub files: Vec<FileResult>,
    /// Findings about the run rather than a task.
    pub diagnostics: Vec<Diagnostic>,
}

/// Change sets computed once per base (the mode's base and every distinct
/// task baseline), so a run never diffs the same pair twice.
pub struct ChangeCache<'a> {
    gate: &'a Gate<'a>,
    mode: ChangeSet,
    by_baseline: HashMap<ObjectId, (View, ChangeSet)>,
    /// Receipt digests, computed at most once per run.
    pub receipts: receipts::Memo,
}

impl<'a> ChangeCache<'a> {
    fn new(gate: &'a Gate<'a>) -> Self {
        ChangeCache {
            gate,
            mode: ChangeSet::between(gate.base, gate.target),
            by_baseline: HashMap::new(),
            receipts: receipts::Memo::default(),
        }
    }

    /// The base view and change set for a task: its baseline commit when
    /// given and present, else the mode's base.
    pub fn for_baseline(&mut self, baseline: Option<ObjectId>) -> Result<(&View, &ChangeSet)> {
        let Some(id) = baseline else {
            return Ok((self.gate.base, &self.mode));
        };
        if !self.by_baseline.contains_key(&id) {
            let view = View::from_commit(self.gate.repo, id)?;
            let changes = ChangeSet::between(&view, self.gate.target);
            self.by_baseline.insert(id, (view, changes));
        }
        let (view, changes) = &self.by_baseline[&id];
        Ok((view, changes))
    }
}

/// Task folders (`.mastermind/tasks/<dir>`) with a changed path inside them.
/// Files directly under `tasks/` do not make a task.
pub fn touched_tasks(changes: &ChangeSet) -> Vec<String> {
    let mut tasks = BTreeSet::new();
    for (path, _) in changes.iter() {
        let Ok(path) = path.to_str() else { continue };
        if let Some((dir, _inside)) = path
            .strip_prefix(TASKS_DIR)
            .and_then(|rest| rest.split_once('/'))
        {
            tasks.insert(format!("{TASKS_DIR}{dir}"));
        }
    }
    tasks.into_iter().collect()
}

/// Run the gate over one view.
pub fn run(gate: &Gate<'_>) -> Result<GateOutcome> {
    let mut cache = ChangeCache::new(gate);
    let tasks = touched_tasks(&cache.mode);
    let mut outcome = GateOutcome::default();
    let outside: Vec<String> = cache
        .mode
        .iter()
        .filter(|(p, _)| !p.starts_with(MASTERMIND_DIR.as_bytes()))
        .map(|(p, _)| p.to_str_lossy().into_owned())
        .collect();
    if tasks.is_empty() {
        let view = gate.view.label.clone();
        if gate.config.require_task && !outside.is_empty() {
            outcome.diagnostics.push(
                Diagnostic::new(
                    Code::task_required,
                    format!(
                        "require_task is set but no task folder changed in {view}, while {} path(s) outside .mastermind/ did (first: {})",
                        outside.len(),
                        outside[0]
                    ),
                )
                .with_path(outside[0].clone()),
            );
        } else {
            outcome.diagnostics.push(Diagnostic::new(
                Code::no_task_changed,
                format!(
                    "no task folder changed in {view} ({} changed path{}); nothing to check against a task",
                    cache.mode.len(),
                    if cache.mode.len() == 1 { "" } else { "s" }
                ),
            ));
        }
    }
    for dir in &tasks {
        let mut result = task::check(gate, &mut cache, dir)?;
        result.view = gate.label.clone();
        for check in &mut result.checks {
            for d in &mut check.diagnostics {
                *d = gate.config.apply(d.clone());
            }
            check.ok = !check.diagnostics.iter().any(Diagnostic::is_error);
        }
        result.ok = result.checks.iter().all(|c| c.ok);
        outcome.tasks.push(result);
    }
    outcome.files = agent_files::check(gate, &cache.mode)?;
    outcome.diagnostics = outcome
        .diagnostics
        .into_iter()
        .map(|d| gate.config.apply(d))
        .collect();
    Ok(outcome)
}
