//! The gate over one change (DESIGN.md section 5).
//!
//! Each mode builds a [`Landing`] ([`landing`], one module per mode): the
//! steps a commit, a push, a pull request or a pre-receive update would
//! land on top of a protected base ([`change`]), what lands, and the target
//! whose configuration is in force. The gate attributes every step to the
//! tasks whose folders it touched ([`attribution`]), judges each task over
//! its whole history at its last step ([`task`], [`task_history`],
//! [`receipts`]), sends what no task covers to the untasked policy
//! ([`untasked`]), and runs the checks only a range has: the contract
//! against the base ([`spec_policy`]), changes of the configuration
//! ([`config_change`]) and of CI definitions, symlinks under
//! `.mastermind/`, and the configured agent files ([`agent_files`]).
//!
//! Every artifact is read as a blob of a step (never from disk, except in
//! the working-tree mode), and the policy comes from the landing's target.

pub mod agent_files;
pub mod attribution;
pub mod change;
pub mod config_change;
pub mod identity;
pub mod landing;
pub mod planning;
pub mod range_checks;
pub mod receipts;
pub mod scope;
pub mod spec_policy;
pub mod task;
pub mod task_history;
pub mod untasked;
pub mod verifications;

pub use crate::bookkeeping::{MASTERMIND_DIR, TASKS_DIR};
pub use landing::ViewKind;

use crate::codes::Code;
use crate::config::Config;
use crate::contract::mastermind::spec::declared_paths;
use crate::contract::mastermind::spec::{self, ParsedSpec};
use crate::diagnostic::Diagnostic;
use crate::repo::changes::ChangeKind;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{Content, Entry, View, short};
use crate::repo::{Repo, Result};
use crate::report::{FileResult, TaskResult};
use change::Step;
use gix::ObjectId;
use landing::Landing;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// One landing under its configuration: what a gate run judges.
pub struct Gate<'a> {
    pub repo: &'a Repo,
    /// The configuration in force: the landing's target's.
    pub config: &'a Config,
    pub landing: &'a Landing,
}

impl<'a> Gate<'a> {
    /// The pending step's view (the index or the working tree).
    pub fn pending(&self) -> Option<&'a View> {
        self.landing.pending.as_ref()
    }

    /// What lands.
    pub fn lands(&self) -> Snapshot<'a> {
        self.landing.snapshot(self.landing.lands)
    }

    /// The tip of the change.
    pub fn tip(&self) -> Snapshot<'a> {
        self.landing.snapshot(self.landing.tip)
    }
}

/// What a gate run found.
#[derive(Debug, Default)]
pub struct GateOutcome {
    pub tasks: Vec<TaskResult>,
    /// Configured agent files (ledgers, plastic files, subagent returns).
    pub files: Vec<FileResult>,
    /// Findings about the change rather than a task.
    pub diagnostics: Vec<Diagnostic>,
}

/// A content path a task changed, as judged at its last step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attributed {
    /// Net change from the task's baseline to its last step.
    pub kind: ChangeKind,
    /// The last of the task's steps that changed it.
    pub by: String,
}

/// One task, ready to be judged.
pub struct TaskContext<'a> {
    pub gate: &'a Gate<'a>,
    pub dir: String,
    /// The task's whole history, oldest first: earlier commits, then the
    /// change's steps that touched it.
    pub steps: Vec<Step>,
    /// The task's last step: every artifact is read there.
    pub at: Snapshot<'a>,
    pub at_label: String,
    /// Where the task started (`creates` must be absent there).
    pub baseline: Snapshot<'a>,
    pub baseline_label: String,
    /// The content paths the task changed, from its baseline to `at`.
    pub paths: BTreeMap<String, Attributed>,
    /// How many of the last `steps` belong to the change being judged
    /// (the rest landed earlier).
    pub change_steps: usize,
}

impl TaskContext<'_> {
    pub fn read(&self, path: &str, limit: usize) -> Result<Option<Content>> {
        self.at.read(self.gate.repo, path, limit)
    }

    /// The task's spec as it lands. The task's own steps leave it as `at`
    /// has it, but what lands may carry a newer spec from the base (CI's
    /// merge, a merge of the base into the branch, which the task's steps
    /// did not make): the contract that lands binds the work that lands.
    /// Where the landing has no spec (the task is archived there), the
    /// task's own is read.
    pub fn read_spec(&self, limit: usize) -> Result<Option<Content>> {
        let path = format!("{}/spec.md", self.dir);
        match self.gate.lands().read(self.gate.repo, &path, limit)? {
            None => self.read(&path, limit),
            landed => Ok(landed),
        }
    }
}

/// The spec of a task as one step has it, parsed (`None`: absent or
/// unreadable).
fn spec_at(repo: &Repo, at: Snapshot<'_>, dir: &str) -> Result<Option<ParsedSpec>> {
    let path = format!("{dir}/spec.md");
    Ok(match at.read(repo, &path, spec::MAX_SPEC_BYTES)? {
        Some(Content::Bytes(bytes)) => Some(spec::check(&bytes).0),
        _ => None,
    })
}

/// The paths a parsed spec declares (normalized).
fn declared_set(parsed: Option<&ParsedSpec>) -> BTreeSet<String> {
    parsed
        .filter(|p| p.frontmatter_error.is_none())
        .map(|p| declared_paths::admit(p).targets.into_keys().collect())
        .unwrap_or_default()
}

/// True when nothing of the task folder is left in a snapshot.
fn folder_gone(repo: &Repo, at: Snapshot<'_>, dir: &str) -> Result<bool> {
    Ok(match at {
        Snapshot::Empty => true,
        Snapshot::Tree(tree) => repo.subtree_id(tree, dir)?.is_none(),
        Snapshot::View(view) => view.paths_under(&format!("{dir}/")).next().is_none(),
    })
}

/// The baseline of a task: `state.json`'s `baseline_ref` when it is an
/// ancestor of the change's base, else the parent of its first step.
enum Baseline {
    /// From `state.json`.
    Declared(ObjectId),
    /// `state.json` names a commit that cannot be a baseline.
    Invalid(Diagnostic),
    /// None declared.
    Undeclared,
}

fn declared_baseline(gate: &Gate<'_>, at: Snapshot<'_>, dir: &str) -> Result<Baseline> {
    let path = format!("{dir}/state.json");
    let bytes = match at.read(gate.repo, &path, task::MAX_STATE_BYTES)? {
        Some(Content::Bytes(bytes)) if bytes.len() <= task::MAX_STATE_BYTES => bytes,
        // Unreadable or oversized state is reported by the task's checks.
        _ => return Ok(Baseline::Undeclared),
    };
    // An unusable state.json or baseline_ref is the task check's finding
    // (task_state_invalid); here it simply declares nothing.
    let Ok(Some(reference)) = task::declared_baseline_ref(&bytes) else {
        return Ok(Baseline::Undeclared);
    };
    let invalid = |code: Code, message: String| {
        Ok(Baseline::Invalid(
            Diagnostic::new(code, message)
                .with_path(path.clone())
                .with_pointer("/baseline_ref"),
        ))
    };
    let id = match ObjectId::from_hex(reference.as_bytes()) {
        Ok(id) if gate.repo.has_commit(id) => id,
        _ => {
            return invalid(
                Code::task_baseline_unavailable,
                format!(
                    "baseline_ref {reference} is not a commit of this repository; a task's baseline must be a commit the base already has"
                ),
            );
        }
    };
    let anchored = match gate.landing.base {
        Some(base) => gate.repo.is_ancestor(id, base)?,
        // Nothing is protected yet (a first push to an empty remote): the
        // whole history is the change, and a baseline in it is as good as
        // any other commit of it.
        None => {
            let mut inside = false;
            for commit in gate.landing.steps.iter().rev().filter_map(Step::commit_id) {
                if gate.repo.is_ancestor(id, commit)? {
                    inside = true;
                    break;
                }
            }
            inside
        }
    };
    if anchored {
        Ok(Baseline::Declared(id))
    } else {
        invalid(
            Code::task_baseline_invalid,
            format!(
                "baseline_ref {} is not an ancestor of {}: a task's baseline must be history the base already has, never a commit of the change itself",
                short(id),
                gate.landing.base_label
            ),
        )
    }
}

/// The content paths of a step that belong to `task`, given which tasks
/// the step touched and what each declares.
fn owned_paths<'s>(
    step: &'s Step,
    task: &str,
    scopes: &mut ScopeCache<'_>,
    step_snapshot: Snapshot<'_>,
) -> Result<Vec<(&'s str, ChangeKind)>> {
    let agent_files = scopes.gate.config.agent_files();
    let touched = step.touched_tasks();
    let content: Vec<(&str, ChangeKind)> = step.content_changes(&agent_files).collect();
    if touched.len() <= 1 {
        return Ok(content);
    }
    let mut declared: HashMap<&str, BTreeSet<String>> = HashMap::new();
    for other in &touched {
        declared.insert(other, scopes.declared(other, step, step_snapshot)?);
    }
    Ok(content
        .into_iter()
        .filter(|(path, _)| {
            attribution::owners(&touched, |t| declared[t].contains(*path)).contains(&task)
        })
        .collect())
}

/// Declared scopes of tasks at steps, parsed once.
struct ScopeCache<'g> {
    gate: &'g Gate<'g>,
    /// Keyed by task and commit (`None`: the pending step).
    by_step: HashMap<(String, Option<ObjectId>), BTreeSet<String>>,
}

impl ScopeCache<'_> {
    fn declared(
        &mut self,
        task: &str,
        step: &Step,
        snapshot: Snapshot<'_>,
    ) -> Result<BTreeSet<String>> {
        let key = (task.to_string(), step.commit_id());
        if let Some(set) = self.by_step.get(&key) {
            return Ok(set.clone());
        }
        let set = declared_set(spec_at(self.gate.repo, snapshot, task)?.as_ref());
        self.by_step.insert(key, set.clone());
        Ok(set)
    }
}

/// Everything the gate knows about one task before judging it.
struct Prepared<'a> {
    context: TaskContext<'a>,
    baseline_problem: Option<Diagnostic>,
}

/// True when a task's last step removed its whole folder (the task is
/// archived).
fn archived_at(gate: &Gate<'_>, last: &Step, dir: &str) -> Result<bool> {
    let at = last.snapshot(gate.pending());
    Ok(folder_gone(gate.repo, at, dir)? && at.get(gate.repo, &format!("{dir}/spec.md"))?.is_none())
}

fn prepare<'a>(
    gate: &'a Gate<'a>,
    dir: &str,
    change_steps: Vec<usize>,
    in_change: &HashSet<ObjectId>,
    scopes: &mut ScopeCache<'a>,
) -> Result<Prepared<'a>> {
    let last = &gate.landing.steps[*change_steps.last().unwrap_or(&0)];
    let at = last.snapshot(gate.pending());
    let (declared, baseline_problem) = match declared_baseline(gate, at, dir)? {
        Baseline::Declared(id) => (Some(id), None),
        Baseline::Invalid(d) => (None, Some(d)),
        Baseline::Undeclared => (None, None),
    };
    let starts: Vec<ObjectId> = change_steps
        .iter()
        .flat_map(|i| gate.landing.steps[*i].parents.iter().copied())
        .collect();
    let mut steps = task_history::earlier_steps(gate.repo, dir, &starts, in_change, declared)?;
    steps.extend(change_steps.iter().map(|i| gate.landing.steps[*i].clone()));
    let (baseline, baseline_label) = match declared {
        Some(id) => (
            Snapshot::Tree(gate.repo.commit_tree(id)?),
            format!("the task's baseline {}", short(id)),
        ),
        None => match steps.first().and_then(|s| s.parents.first()) {
            Some(parent) => (
                Snapshot::Tree(gate.repo.commit_tree(*parent)?),
                format!("{} (before the task's first commit)", short(*parent)),
            ),
            None => (Snapshot::Empty, "the empty tree".to_string()),
        },
    };
    // The task's content changes: what its steps changed, net from the
    // baseline to its last step.
    // `first_old`: each path as it stood before the first of the task's
    // steps that changed it.
    let mut touched: BTreeMap<String, String> = BTreeMap::new();
    let mut first_old: HashMap<String, Option<Entry>> = HashMap::new();
    for step in &steps {
        let snapshot = step.snapshot(gate.pending());
        for (path, _) in owned_paths(step, dir, scopes, snapshot)? {
            touched.insert(path.to_string(), step.label.clone());
            if !first_old.contains_key(path) {
                // Steps list their changes by path; a miss falls back to a scan.
                let changes = &step.changes;
                let old = changes
                    .binary_search_by(|c| c.path.as_slice().cmp(path.as_bytes()))
                    .ok()
                    .map(|i| &changes[i])
                    .or_else(|| {
                        changes
                            .iter()
                            .find(|c| c.path.as_slice() == path.as_bytes())
                    })
                    .and_then(|c| c.old);
                first_old.insert(path.to_string(), old);
            }
        }
    }
    let mut paths = BTreeMap::new();
    for (path, by) in touched {
        let before = baseline.get(gate.repo, &path)?;
        let after = at.get(gate.repo, &path)?;
        // Equal to the baseline is no change (changed and changed back),
        // unless the task's steps moved the path away from what stood
        // before them: a baseline older than that content must not let a
        // task undo it unseen.
        let first = first_old.get(&path).copied().flatten();
        let Some(kind) = ChangeKind::between(before.as_ref(), after.as_ref())
            .or_else(|| ChangeKind::between(first.as_ref(), after.as_ref()))
        else {
            continue;
        };
        paths.insert(path, Attributed { kind, by });
    }
    Ok(Prepared {
        context: TaskContext {
            gate,
            dir: dir.to_string(),
            steps,
            at,
            at_label: last.label.clone(),
            baseline,
            baseline_label,
            paths,
            change_steps: change_steps.len(),
        },
        baseline_problem,
    })
}

/// Judge one change.
pub fn run<'a>(gate: &'a Gate<'a>) -> Result<GateOutcome> {
    let mut outcome = GateOutcome::default();
    let attribution = attribution::attribute(&gate.landing.steps);
    let in_change: HashSet<ObjectId> = gate
        .landing
        .steps
        .iter()
        .filter_map(Step::commit_id)
        .collect();
    let mut scopes = ScopeCache {
        gate,
        by_step: HashMap::new(),
    };
    let known = identity::gather(gate)?;
    let mut memo = receipts::Memo::default();
    let mut untasked_extra: Vec<untasked::ArchiveLeftover> = Vec::new();
    let mut judged = 0usize;
    for (dir, change_steps) in &attribution.tasks {
        let Some(last) = change_steps.last().map(|i| &gate.landing.steps[*i]) else {
            continue;
        };
        let mut change_steps = change_steps.clone();
        if archived_at(gate, last, dir)? {
            // The steps that removed the folder archive the task; what they
            // changed besides it is covered by no task, unless the step
            // also touched another task, whose judgement takes it. The
            // task's other steps in this change are still its work, judged
            // at the last of them.
            let agent_files = gate.config.agent_files();
            let mut work = Vec::new();
            for index in &change_steps {
                let step = &gate.landing.steps[*index];
                if !archived_at(gate, step, dir)? {
                    work.push(*index);
                    continue;
                }
                if step.touched_tasks().len() > 1 {
                    continue;
                }
                let content: Vec<(String, ChangeKind)> = step
                    .content_changes(&agent_files)
                    .map(|(p, k)| (p.to_string(), k))
                    .collect();
                if !content.is_empty() {
                    untasked_extra.push(untasked::ArchiveLeftover {
                        step: *index,
                        paths: content,
                    });
                }
            }
            let judged_at = match work.last() {
                Some(index) => format!(
                    "; its work in this change is judged at {}, its last step before the removal",
                    gate.landing.steps[*index].label
                ),
                None => "; its earlier commits were judged when they landed".to_string(),
            };
            outcome.diagnostics.push(
                Diagnostic::new(
                    Code::task_archived,
                    format!("task {dir} was removed in {}{judged_at}", last.label),
                )
                .with_path(dir.clone()),
            );
            if work.is_empty() {
                continue;
            }
            change_steps = work;
        }
        judged += 1;
        let prepared = prepare(gate, dir, change_steps, &in_change, &mut scopes)?;
        let mut result = task::check(&prepared.context, &mut memo, prepared.baseline_problem)?;
        let mut contract = spec_policy::check(&prepared.context)?;
        contract.extend(planning::check(&prepared.context, &known)?);
        result
            .checks
            .push(crate::report::CheckOutcome::new("contract", contract));
        result.view = gate.landing.label.clone();
        for check in &mut result.checks {
            for d in &mut check.diagnostics {
                if d.task.is_none() {
                    d.task = Some(dir.clone());
                }
                *d = gate.config.apply(d.clone());
            }
            check.ok = !check.diagnostics.iter().any(Diagnostic::is_error);
        }
        result
            .checks
            .retain(|c| c.name != "contract" || !c.diagnostics.is_empty());
        result.ok = result.checks.iter().all(|c| c.ok);
        outcome.tasks.push(result);
    }
    outcome.diagnostics.extend(known.notes.iter().cloned());
    outcome.diagnostics.extend(untasked::check(
        gate,
        &known,
        &attribution,
        &untasked_extra,
        judged > 0,
    ));
    outcome.diagnostics.extend(range_checks::check(gate)?);
    outcome.diagnostics.extend(config_change::check(gate)?);
    outcome.files = agent_files::check(gate)?;
    outcome.diagnostics = outcome
        .diagnostics
        .into_iter()
        .map(|d| gate.config.apply(d))
        .collect();
    Ok(outcome)
}
