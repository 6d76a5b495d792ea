//! A task's whole history in a landing: every commit that touched its
//! folder, wherever it sits (both sides of a merge, parallel branches, the
//! target's side), plus the change's own steps. A task that spans several
//! commits, pushes or branches is judged whole, and a later edit of its
//! report re-judges the task, not the edit.
//!
//! The walk goes back from the commits the landing joins (the tip, CI's
//! target and head, HEAD and the merged heads) through their ancestors
//! while the task folder exists, stopping at the baseline commit when one
//! is given; a commit whose folder subtree differs from every parent's is
//! one of the task's commits. Where the task started are the first parents
//! of its steps that did not have its folder yet. Commits are turned into
//! steps once per run ([`Earlier`]), however many tasks share them.

use super::change::Step;
use crate::repo::history::CommitMeta;
use crate::repo::{Repo, Result};
use gix::ObjectId;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Subtree ids of one task folder, memoized by root tree.
struct FolderIds<'a> {
    repo: &'a Repo,
    dir: &'a str,
    by_tree: HashMap<ObjectId, Option<ObjectId>>,
}

impl FolderIds<'_> {
    fn of_tree(&mut self, tree: ObjectId) -> Result<Option<ObjectId>> {
        if let Some(id) = self.by_tree.get(&tree) {
            return Ok(*id);
        }
        let id = self.repo.subtree_id(tree, self.dir)?;
        self.by_tree.insert(tree, id);
        Ok(id)
    }

    fn of_commit(&mut self, commit: ObjectId) -> Result<Option<ObjectId>> {
        let tree = self.repo.commit_tree(commit)?;
        self.of_tree(tree)
    }
}

/// Commits as steps, each computed once per run and shared by every task
/// whose history holds it.
#[derive(Default)]
pub struct Earlier {
    steps: HashMap<ObjectId, Rc<Step>>,
}

impl Earlier {
    fn step(&mut self, repo: &Repo, meta: &CommitMeta) -> Result<Rc<Step>> {
        if let Some(step) = self.steps.get(&meta.id) {
            return Ok(Rc::clone(step));
        }
        let step = Rc::new(Step::commit(meta, repo.commit_changes(meta)?));
        self.steps.insert(meta.id, Rc::clone(&step));
        Ok(step)
    }
}

/// A task's history outside the change, and where it started.
pub struct History {
    /// The commits before the change that touched the task's folder,
    /// parents first.
    pub earlier: Vec<Rc<Step>>,
    /// The first parents of the task's steps (earlier or in the change)
    /// that did not have its folder yet.
    pub boundaries: Vec<ObjectId>,
}

/// The history of the task in `dir` in a landing that joins `heads`.
///
/// * `change`: the change's steps that touched the task (their first
///   parents may be boundaries);
/// * `in_change`: commits of the change itself (walked through, never
///   returned: the change's own steps are judged as such);
/// * `baseline`: the task's declared baseline commit, where the walk stops.
pub fn history(
    repo: &Repo,
    dir: &str,
    heads: &[ObjectId],
    change: &[Rc<Step>],
    in_change: &HashSet<ObjectId>,
    baseline: Option<ObjectId>,
    earlier: &mut Earlier,
) -> Result<History> {
    let mut folders = FolderIds {
        repo,
        dir,
        by_tree: HashMap::new(),
    };
    let mut seen: HashSet<ObjectId> = HashSet::new();
    let mut stack: Vec<ObjectId> = heads.to_vec();
    let mut found: Vec<CommitMeta> = Vec::new();
    while let Some(commit) = stack.pop() {
        if !seen.insert(commit) || Some(commit) == baseline {
            continue;
        }
        let meta = repo.commit_meta(commit)?;
        let Some(folder) = folders.of_tree(meta.tree)? else {
            continue; // before the task existed (or after it was archived)
        };
        if !in_change.contains(&commit) {
            let mut touched = true;
            for parent in &meta.parents {
                if folders.of_commit(*parent)? == Some(folder) {
                    touched = false;
                    break;
                }
            }
            if touched {
                found.push(meta.clone());
            }
        }
        stack.extend(meta.parents.iter().copied());
    }
    let mut steps = Vec::with_capacity(found.len());
    let found = crate::repo::history::topological(found);
    repo.prepare_merges(&found);
    for meta in found {
        steps.push(earlier.step(repo, &meta)?);
    }
    let mut boundaries = Vec::new();
    for step in steps.iter().chain(change) {
        let Some(first) = step.parents.first() else {
            continue;
        };
        if Some(*first) != baseline
            && folders.of_commit(*first)?.is_none()
            && !boundaries.contains(first)
        {
            boundaries.push(*first);
        }
    }
    Ok(History {
        earlier: steps,
        boundaries,
    })
}
