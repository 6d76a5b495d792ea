//! The gate over one change (DESIGN.md section 5).
//!
//! Each mode builds a [`Landing`] ([`landing`], one module per mode): the
//! steps a commit, a push, a pull request or a pre-receive update would
//! land on the protected target ([`change`]), what lands, and the target
//! whose configuration is in force. The gate attributes every step to the
//! tasks whose folders it touched ([`attribution`]), judges each task on
//! what lands over its whole history, wherever its steps sit
//! ([`task`], [`task_history`], [`receipts`]), sends what no task covers
//! to the untasked policy ([`untasked`]), grades planning (new, copied,
//! widened and reopened tasks, control files) by who the platform vouches
//! for ([`planning`]), and runs the checks only a range has: the contract
//! against the target ([`spec_policy`]), changes of the configuration
//! ([`config_change`]) and of CI definitions, symlinks under
//! `.mastermind/`, unrelated histories, and the configured agent files
//! ([`agent_files`]).
//!
//! Every artifact is read as a blob of what lands (never from disk, except
//! in the working-tree mode), and the policy comes from the target.

pub mod adoption;
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
pub mod spec_memo;
pub mod spec_policy;
pub mod task;
pub mod task_history;
pub mod territory;
pub mod untasked;
pub mod verifications;
pub mod work_in_progress;

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
use change::{Bookkeeping, Step};
use gix::ObjectId;
use landing::Landing;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

/// One landing under its configuration: what a gate run judges.
pub struct Gate<'a> {
    pub repo: &'a Repo,
    /// The configuration in force: the landing's target's.
    pub config: &'a Config,
    pub landing: &'a Landing,
    /// What is bookkeeping (receipts: those the specs that land declare).
    pub bookkeeping: Bookkeeping<'a>,
}

impl<'a> Gate<'a> {
    pub fn new(repo: &'a Repo, config: &'a Config, landing: &'a Landing) -> Gate<'a> {
        Gate {
            repo,
            config,
            landing,
            bookkeeping: Bookkeeping::declared_in(
                config.agent_files().to_vec(),
                &config.control_files,
                repo,
                landing.snapshot(landing.lands),
            ),
        }
    }

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

    /// The protected target as it is now.
    pub fn target(&self) -> Snapshot<'static> {
        self.landing.target.snapshot()
    }

    /// The protected branch's tip this landing is judged against: whose
    /// content freshness by scope trusts, whose tasks have landed, whose
    /// specs are the planner's. Where the landing lands on a protected
    /// branch other than the default branch (`protected_branches`: a
    /// release branch, git-flow's `main`), that branch's own tip before the
    /// change (the target), as a pull request into it has it; else the
    /// default branch as the mode knows it ([`Landing::protected`]). A
    /// release branch's own content was judged strictly where it landed,
    /// as the default branch's was: the same landing gets the same verdict
    /// in CI, pre-push and pre-receive.
    pub fn protected(&self) -> Option<ObjectId> {
        let landing = self.landing;
        let own_branch = landing.destination.as_ref().is_some_and(|d| {
            d.default_branch.as_deref() != Some(d.branch.as_str())
                && d.is_protected(&self.config.protected_branches)
        });
        match landing.target.commit {
            Some(target) if own_branch => Some(target),
            _ => landing.protected(),
        }
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

/// A content path a task changed, as judged on what lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attributed {
    /// Net change from the task's baseline to what lands.
    pub kind: ChangeKind,
    /// The last of the task's steps that changed it.
    pub by: String,
}

/// One task, ready to be judged.
pub struct TaskContext<'a> {
    pub gate: &'a Gate<'a>,
    pub dir: String,
    /// The task's whole history, parents first: its earlier commits, then
    /// the change's steps that touched it (wherever they sit: parallel
    /// branches, both sides of a merge).
    pub steps: Vec<Rc<Step>>,
    /// Where the task's artifacts are read: what lands, or where the task
    /// is archived there, the last of its steps that has them.
    pub at: Snapshot<'a>,
    pub at_label: String,
    /// Where the task started (`creates` must be absent there).
    pub baseline: Snapshot<'a>,
    pub baseline_label: String,
    /// The content paths the task changed: what its steps changed, each
    /// compared between `at` and the baseline.
    pub paths: BTreeMap<String, Attributed>,
    /// How many of the last `steps` belong to the change being judged
    /// (the rest landed earlier).
    pub change_steps: usize,
    /// The change only plans the task: its steps in the change write its
    /// spec, none of its steps (earlier ones included) changed content, and
    /// its report is absent or the skeleton `task new` wrote (with
    /// `specs.require_on_base`, a new spec with no content is a plan
    /// whatever its report says). Only its spec is judged. Never in the
    /// working tree (`--worktree`, the agent's stop hook): there the agent
    /// finishes its work.
    pub planned: bool,
}

impl TaskContext<'_> {
    pub fn read(&self, path: &str, limit: usize) -> Result<Option<Content>> {
        self.at.read(self.gate.repo, path, limit)
    }

    /// The task's spec as it lands: the contract that binds the work that
    /// lands (a spec a maintainer tightened on the target binds a branch
    /// started before, once it is merged in).
    pub fn read_spec(&self, limit: usize) -> Result<Option<Content>> {
        self.read(&format!("{}/spec.md", self.dir), limit)
    }

    /// The change's own steps of the task.
    pub fn change(&self) -> &[Rc<Step>] {
        &self.steps[self.steps.len() - self.change_steps..]
    }
}

/// The spec of a task as one step has it, parsed (`None`: absent or
/// unreadable).
fn spec_at(repo: &Repo, at: Snapshot<'_>, dir: &str) -> Result<Option<Rc<spec_memo::Checked>>> {
    let path = format!("{dir}/spec.md");
    Ok(match at.read(repo, &path, spec::MAX_SPEC_BYTES)? {
        Some(Content::Bytes(bytes)) => Some(spec_memo::check(&bytes)),
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
/// ancestor of the protected target, else where the task started.
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
    let anchored = match gate.landing.target.commit {
        Some(target) => gate.repo.is_ancestor(id, target)?,
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
                "baseline_ref {} is not an ancestor of {}: a task's baseline must be history the protected target already has, never a commit of the change itself",
                short(id),
                gate.landing.target.label
            ),
        )
    }
}

/// Which content paths of a step belong to which task, computed once per
/// step and shared by every task: a step touching one task gives it all its
/// content; a step touching several gives each path to the tasks whose
/// scope (as the step has it) declares it, or to all of them when none
/// does.
struct Owners<'g> {
    gate: &'g Gate<'g>,
    /// Keyed by the step's commit (`None`: the pending step).
    by_step: HashMap<Option<ObjectId>, ByTask>,
}

/// A step's content paths per task that owns them.
type ByTask = HashMap<String, Vec<(String, ChangeKind)>>;

impl Owners<'_> {
    fn owned(&mut self, step: &Step, task: &str) -> Result<&[(String, ChangeKind)]> {
        let key = step.commit_id();
        if !self.by_step.contains_key(&key) {
            let computed = self.compute(step)?;
            self.by_step.insert(key, computed);
        }
        Ok(self
            .by_step
            .get(&key)
            .and_then(|by_task| by_task.get(task))
            .map(Vec::as_slice)
            .unwrap_or(&[]))
    }

    fn compute(&self, step: &Step) -> Result<ByTask> {
        let gate = self.gate;
        let touched = step.touched_tasks();
        let content: Vec<(String, ChangeKind)> = step
            .content_changes(&gate.bookkeeping)
            .map(|(p, k)| (p.to_string(), k))
            .collect();
        let mut out = ByTask::new();
        match touched.as_slice() {
            [] => {}
            [only] => {
                out.insert(only.to_string(), content);
            }
            several => {
                let snapshot = step.snapshot(gate.pending());
                let mut declaring: HashMap<String, Vec<&str>> = HashMap::new();
                for task in several {
                    for path in
                        declared_set(spec_at(gate.repo, snapshot, task)?.as_ref().map(|c| &c.0))
                    {
                        declaring.entry(path).or_default().push(task);
                    }
                }
                for (path, kind) in content {
                    let owners: &[&str] = match declaring.get(&path) {
                        Some(tasks) => tasks,
                        None => several,
                    };
                    for owner in owners {
                        out.entry(owner.to_string())
                            .or_default()
                            .push((path.clone(), kind));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Everything the gate knows about one task before judging it.
struct Prepared<'a> {
    context: TaskContext<'a>,
    baseline_problem: Option<Diagnostic>,
    /// Every content path the task's steps changed, changed back or not.
    owned: BTreeSet<String>,
}

/// True when a step removed the task's whole folder (it archives the task
/// there).
fn archived_at(gate: &Gate<'_>, step: &Step, dir: &str) -> Result<bool> {
    let at = step.snapshot(gate.pending());
    Ok(folder_gone(gate.repo, at, dir)? && at.get(gate.repo, &format!("{dir}/spec.md"))?.is_none())
}

/// Shared state of one gate run.
struct Run<'a> {
    gate: &'a Gate<'a>,
    /// The change's steps, shared with every task's history.
    steps: Vec<Rc<Step>>,
    in_change: HashSet<ObjectId>,
    owners: Owners<'a>,
    earlier: task_history::Earlier,
}

impl<'a> Run<'a> {
    fn new(gate: &'a Gate<'a>) -> Run<'a> {
        Run {
            gate,
            steps: gate.landing.steps.iter().cloned().map(Rc::new).collect(),
            in_change: gate
                .landing
                .steps
                .iter()
                .filter_map(Step::commit_id)
                .collect(),
            owners: Owners {
                gate,
                by_step: HashMap::new(),
            },
            earlier: task_history::Earlier::default(),
        }
    }
}

/// Where a task started, from the first parents of its steps that did not
/// have its folder yet: their merge base (the empty tree for none).
fn started_at(gate: &Gate<'_>, boundaries: &[ObjectId]) -> Result<Option<ObjectId>> {
    let Some((first, rest)) = boundaries.split_first() else {
        return Ok(None);
    };
    let mut base = *first;
    for other in rest {
        match gate.repo.merge_base(base, *other)? {
            Some(common) => base = common,
            None => return Ok(None),
        }
    }
    Ok(Some(base))
}

fn prepare<'a>(
    run: &mut Run<'a>,
    dir: &str,
    work: Vec<usize>,
    archived: bool,
) -> Result<Prepared<'a>> {
    let gate = run.gate;
    let change: Vec<Rc<Step>> = work.iter().map(|i| Rc::clone(&run.steps[*i])).collect();
    // Artifacts are read from what lands; where the task is archived
    // there, from the last of its steps in the change that has them.
    let (at, at_label) = match change.last().filter(|_| archived) {
        Some(last) => (last.snapshot(gate.pending()), last.label.clone()),
        None => (gate.lands(), gate.landing.lands_label.clone()),
    };
    let (declared, baseline_problem) = match declared_baseline(gate, at, dir)? {
        Baseline::Declared(id) => (Some(id), None),
        Baseline::Invalid(d) => (None, Some(d)),
        Baseline::Undeclared => (None, None),
    };
    let history = task_history::history(
        gate.repo,
        dir,
        &gate.landing.heads,
        &change,
        &run.in_change,
        declared,
        &mut run.earlier,
    )?;
    let (baseline, baseline_label) = match declared {
        Some(id) => (
            Snapshot::Tree(gate.repo.commit_tree(id)?),
            format!("the task's baseline {}", short(id)),
        ),
        None => match started_at(gate, &history.boundaries)? {
            Some(start) => (
                Snapshot::Tree(gate.repo.commit_tree(start)?),
                format!("{} (before the task's first commit)", short(start)),
            ),
            None => (Snapshot::Empty, "the empty tree".to_string()),
        },
    };
    let mut steps = history.earlier;
    let change_steps = change.len();
    steps.extend(change);
    // The task's content changes: what its steps changed, each compared
    // between `at` and the baseline. `first_old`: each path as it stood
    // before the first of the task's steps that changed it.
    let mut touched: BTreeMap<String, String> = BTreeMap::new();
    let mut first_old: HashMap<String, Option<Entry>> = HashMap::new();
    for step in &steps {
        for (path, _) in run.owners.owned(step, dir)? {
            touched.insert(path.clone(), step.label.clone());
            if !first_old.contains_key(path) {
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
                first_old.insert(path.clone(), old);
            }
        }
    }
    let spec_path = format!("{dir}/spec.md");
    let writes_spec = steps[steps.len() - change_steps..].iter().any(|step| {
        step.changes
            .iter()
            .any(|c| c.path.as_slice() == spec_path.as_bytes())
    });
    // The working tree (`--worktree`, the agent's stop hook) is the agent
    // finishing its work, never a plan that lands on its own.
    let lands_a_change = !matches!(gate.landing.kind, ViewKind::Worktree | ViewKind::Agent);
    let planned = touched.is_empty()
        && writes_spec
        && ((lands_a_change && unstarted(gate, at, dir)?)
            || (gate.config.specs_on_base && gate.target().get(gate.repo, &spec_path)?.is_none()));
    let owned: BTreeSet<String> = touched.keys().cloned().collect();
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
            at_label,
            baseline,
            baseline_label,
            paths,
            change_steps,
            planned,
        },
        baseline_problem,
        owned,
    })
}

/// True when a task's report is absent, or still the skeleton `task new`
/// wrote: nobody has reported work on it yet.
fn unstarted(gate: &Gate<'_>, at: Snapshot<'_>, dir: &str) -> Result<bool> {
    use crate::contract::mastermind::executor_report;
    let path = format!("{dir}/executor-report.md");
    Ok(
        match at.read(gate.repo, &path, executor_report::MAX_REPORT_BYTES)? {
            None => true,
            Some(Content::Bytes(bytes)) => match executor_report::parse(&bytes) {
                Ok(_) => false,
                Err(errors) => executor_report::is_unfilled_skeleton(&bytes, &errors),
            },
            Some(_) => false,
        },
    )
}

/// Judge one change.
pub fn run<'a>(gate: &'a Gate<'a>) -> Result<GateOutcome> {
    let mut outcome = GateOutcome::default();
    let mut attribution = attribution::attribute(&gate.landing.steps);
    let mut run = Run::new(gate);
    territory::follow_ups(&mut run, &mut attribution)?;
    let known = identity::gather(gate)?;
    let mut memo = receipts::Memo::default();
    let mut planning_memo = planning::task::Memo::default();
    let mut untasked_extra: Vec<untasked::ArchiveLeftover> = Vec::new();
    let mut judged = 0usize;
    for (dir, change_steps) in &attribution.tasks {
        let archived = folder_gone(gate.repo, gate.lands(), dir)?
            && gate
                .lands()
                .get(gate.repo, &format!("{dir}/spec.md"))?
                .is_none();
        let mut work = change_steps.clone();
        if archived {
            // The steps that removed the folder archive the task; what they
            // changed besides it is covered by no task, unless the step
            // also touched another task, whose judgement takes it. The
            // task's other steps in this change are still its work, judged
            // with the last of them that has its artifacts.
            work = Vec::new();
            let mut by = None;
            for index in change_steps {
                let step = &gate.landing.steps[*index];
                if !archived_at(gate, step, dir)? {
                    work.push(*index);
                    continue;
                }
                by = Some(step.label.clone());
                if step.touched_tasks().len() > 1 {
                    continue;
                }
                let content: Vec<(String, ChangeKind)> = step
                    .content_changes(&gate.bookkeeping)
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
            let removed_in = by.unwrap_or_else(|| gate.landing.lands_label.clone());
            outcome.diagnostics.push(
                Diagnostic::new(
                    Code::task_archived,
                    format!("task {dir} was removed in {removed_in}{judged_at}"),
                )
                .with_path(dir.clone()),
            );
            if work.is_empty() {
                continue;
            }
        }
        judged += 1;
        let prepared = prepare(&mut run, dir, work, archived)?;
        let mut result = task::check(&prepared.context, &mut memo, prepared.baseline_problem)?;
        let mut contract = spec_policy::check(&prepared.context)?;
        let (planning, plan) =
            planning::task::check(&prepared.context, &known, &mut planning_memo)?;
        contract.extend(planning);
        if let Some(task_contract) = result.contract.as_mut() {
            task_contract.plan = Some(plan);
        }
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
        work_in_progress::apply(gate, &mut result);
        result
            .checks
            .retain(|c| c.name != "contract" || !c.diagnostics.is_empty());
        result.ok = result.checks.iter().all(|c| c.ok);
        outcome.tasks.push(result);
    }
    outcome.diagnostics.extend(known.notes.iter().cloned());
    let adoption = adoption::find(gate);
    let mut adopted = std::collections::BTreeSet::new();
    let untasked = untasked::check(
        gate,
        &known,
        &attribution,
        &untasked_extra,
        judged > 0,
        &adoption,
        &mut adopted,
    );
    let control = planning::control::check(gate, &known, &adoption, &mut adopted)?;
    let quiet = untasked.is_empty() && control.is_empty() && adopted.is_empty();
    outcome.diagnostics.extend(untasked);
    outcome.diagnostics.extend(control);
    outcome
        .diagnostics
        .extend(adoption.note(&adopted, &gate.landing.target.label));
    if attribution.tasks.is_empty() && quiet {
        outcome.diagnostics.push(untasked::no_task_changed(gate));
    }
    outcome.diagnostics.extend(range_checks::check(gate)?);
    outcome.diagnostics.extend(config_change::check(gate)?);
    outcome.files = agent_files::check(gate)?;
    outcome.diagnostics = outcome
        .diagnostics
        .into_iter()
        .map(|d| gate.config.apply(d))
        .collect();
    work_in_progress::apply_run(gate, &mut outcome.diagnostics);
    Ok(outcome)
}
