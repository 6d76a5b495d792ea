//! A task's whole history: the change's steps that touched its folder, plus
//! the earlier commits that did (already landed, or pushed before), back to
//! its baseline. A task is judged over all of them, so a task that spans
//! several commits or pushes is judged whole, and a later edit of its
//! report re-judges the task, not the edit.
//!
//! The walk goes back from the task's steps through their ancestors while
//! the task folder exists, stopping at the baseline commit when one is
//! given; a commit whose folder subtree differs from its parent's (from
//! every parent's, for a merge) is one of the task's commits.

use super::change::Step;
use crate::repo::history::CommitMeta;
use crate::repo::{Repo, Result};
use gix::ObjectId;
use std::collections::{HashMap, HashSet};

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

/// The earlier commits of a task, oldest first (parents before children),
/// each as a step with its own changes.
///
/// * `dir`: the task folder;
/// * `starts`: the parents of the change's steps that touched it;
/// * `in_change`: commits of the change itself (walked through, never
///   returned: the change's own steps are judged as such);
/// * `baseline`: the task's baseline commit, where the walk stops.
pub fn earlier_steps(
    repo: &Repo,
    dir: &str,
    starts: &[ObjectId],
    in_change: &HashSet<ObjectId>,
    baseline: Option<ObjectId>,
) -> Result<Vec<Step>> {
    let mut folders = FolderIds {
        repo,
        dir,
        by_tree: HashMap::new(),
    };
    let mut seen: HashSet<ObjectId> = HashSet::new();
    let mut stack: Vec<ObjectId> = starts.to_vec();
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
    for meta in crate::repo::history::topological(found) {
        let changes = repo.commit_changes(&meta)?;
        steps.push(Step::commit(&meta, changes));
    }
    Ok(steps)
}
