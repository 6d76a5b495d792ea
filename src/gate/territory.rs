//! A task's territory: the files its spec declares and the content paths
//! it changed. Two questions are asked of it:
//!
//! * which steps that touch no task folder still belong to a task
//!   ([`follow_ups`]): those whose content paths all lie inside the
//!   territory of tasks this landing carries and the protected branch has
//!   not landed (a reviewer's fix of a declared file, a merge's own
//!   resolution of a conflict in one). They are judged with those tasks;
//! * which paths a receipt must record when its check runs
//!   ([`changed_at_run`]): the runner records what the check ran on over
//!   the declared files and these paths, and the gate compares that record
//!   with what lands on the territory as it judges it on the landing.

use super::attribution::Attribution;
use super::landing::{At, Landing, Target, ViewKind, steps};
use super::{Gate, Run, declared_set, folder_gone, prepare, spec_at};
use crate::bookkeeping::TASKS_DIR;
use crate::config::Config;
use crate::repo::tree::View;
use crate::repo::{Repo, Result};
use std::collections::{BTreeMap, BTreeSet};

/// The task folders of what lands and of the commits the landing joins
/// (for a pending view, the commits it sits on and merges) that the
/// protected branch does not have as they are: tasks whose work is on its
/// way.
fn unlanded_tasks(gate: &Gate<'_>) -> Result<Vec<String>> {
    let repo = gate.repo;
    let landing = gate.landing;
    let mut trees = Vec::new();
    if let At::Tree(tree) = landing.lands {
        trees.push(tree);
    }
    for head in &landing.heads {
        trees.push(repo.commit_tree(*head)?);
    }
    let protected = match gate.protected() {
        Some(commit) => Some(repo.commit_tree(commit)?),
        None => landing.target.tree,
    };
    let root = TASKS_DIR.trim_end_matches('/');
    let mut out: Vec<String> = Vec::new();
    for tree in trees {
        for (name, id) in repo.subtrees(tree, root)? {
            let dir = format!("{root}/{name}");
            if out.contains(&dir) {
                continue;
            }
            let landed = match protected {
                Some(protected) => repo.subtree_id(protected, &dir)?,
                None => None,
            };
            if landed != Some(id) {
                out.push(dir);
            }
        }
    }
    Ok(out)
}

/// The territory of the task in `dir` as the landing has it, from its own
/// steps (`work`: the change's steps that touched its folder).
fn territory_of(run: &mut Run<'_>, dir: &str, work: Vec<usize>) -> Result<BTreeSet<String>> {
    let gate = run.gate;
    let prepared = prepare(run, dir, work, false)?;
    let spec = spec_at(gate.repo, gate.lands(), dir)?;
    let mut territory = declared_set(spec.as_ref().map(|c| &c.0));
    territory.extend(prepared.context.paths.into_keys());
    Ok(territory)
}

/// Give the change's untasked steps that only change paths inside the
/// territory of its unlanded tasks to those tasks (see
/// [`Attribution::assign_follow_ups`]), and tell the run which of their
/// paths each task owns.
pub(super) fn follow_ups(run: &mut Run<'_>, attribution: &mut Attribution) -> Result<()> {
    let gate = run.gate;
    let has_content = attribution.untasked_steps.iter().any(|i| {
        gate.landing.steps[*i]
            .content_changes(&gate.bookkeeping)
            .next()
            .is_some()
    });
    if !has_content {
        return Ok(());
    }
    let mut territories = BTreeMap::new();
    for dir in unlanded_tasks(gate)? {
        if folder_gone(gate.repo, gate.lands(), &dir)? {
            continue;
        }
        let work = attribution.tasks.get(&dir).cloned().unwrap_or_default();
        let territory = territory_of(run, &dir, work)?;
        territories.insert(dir, territory);
    }
    attribution.assign_follow_ups(&gate.landing.steps, &gate.bookkeeping, &territories);
    for (index, owned) in &attribution.follow_ups {
        let key = gate.landing.steps[*index].commit_id();
        let by_task = owned
            .iter()
            .map(|(task, paths)| (task.clone(), paths.clone()))
            .collect();
        run.owners.by_step.insert(key, by_task);
    }
    Ok(())
}

/// The content paths the task in `dir` changed when `view` (what a check
/// runs on: the working tree, the index, a commit) lands on HEAD, as the
/// gate attributes them, plus every content path where `view` differs from
/// HEAD (what the next commit may carry, whether or not it touches the
/// task folder). `config` says what is bookkeeping. A superset of what the
/// gate will find the task changed wherever this content lands, short of
/// later work.
pub fn changed_at_run(
    repo: &Repo,
    config: &Config,
    view: &View,
    dir: &str,
) -> Result<BTreeSet<String>> {
    let head = repo.head_commit()?;
    let head_view = match head {
        Some(id) => View::commit_beside_index(repo, id)?,
        None => View::empty("the empty tree (no commit yet)"),
    };
    let pending = steps::pending(repo, view, &head_view, head.into_iter().collect())?;
    let default = crate::repo::remote::local_default_branch(repo);
    let branch = steps::current_branch(repo);
    let (_, landed_locally) = steps::local_destination(branch.as_deref(), default);
    let label = view.label.clone();
    let landing = Landing {
        kind: ViewKind::Worktree,
        target: Target::at(repo, head, "HEAD")?,
        base: head,
        base_label: "HEAD".to_string(),
        steps: vec![pending],
        heads: head.into_iter().collect(),
        unrelated_to: None,
        pending: Some(view.clone()),
        lands: At::Pending,
        lands_label: label.clone(),
        tip: At::Pending,
        tip_label: label,
        branch,
        label: None,
        identity: Default::default(),
        destination: None,
        landed_locally,
    };
    let gate = Gate::new(repo, config, &landing);
    let mut out: BTreeSet<String> = landing.steps[0]
        .content_changes(&gate.bookkeeping)
        .map(|(p, _)| p.to_string())
        .collect();
    let mut attribution = super::attribution::attribute(&landing.steps);
    let mut run = Run::new(&gate);
    follow_ups(&mut run, &mut attribution)?;
    let work = attribution.tasks.get(dir).cloned().unwrap_or_default();
    let prepared = prepare(&mut run, dir, work, false)?;
    out.extend(prepared.owned);
    out.extend(prepared.context.paths.into_keys());
    Ok(out)
}
