//! A snapshot: the content of one point of a change (a commit's tree, the
//! index, the working tree, a merge), read by path. A commit's tree is read
//! with point lookups, so judging a task at some commit never lists every
//! file of the repository.

use super::tree::{Content, Entry, View};
use super::{Repo, Result};
use gix::ObjectId;

/// Where a snapshot's files come from.
#[derive(Clone, Copy, Debug)]
pub enum Snapshot<'v> {
    /// Nothing (before the first commit, an empty remote).
    Empty,
    /// A git tree (a commit's or a merge's).
    Tree(ObjectId),
    /// A listed view (the index, the working tree).
    View(&'v View),
}

impl Snapshot<'_> {
    /// The entry at `path` (files, symlinks, submodules).
    pub fn get(&self, repo: &Repo, path: &str) -> Result<Option<Entry>> {
        match self {
            Snapshot::Empty => Ok(None),
            Snapshot::Tree(tree) => repo.tree_entry(*tree, path),
            Snapshot::View(view) => Ok(view.get(path).copied()),
        }
    }

    /// Read the file at `path`: `None` when absent, at most `limit + 1`
    /// bytes.
    pub fn read(&self, repo: &Repo, path: &str, limit: usize) -> Result<Option<Content>> {
        match self {
            Snapshot::Empty => Ok(None),
            Snapshot::Tree(tree) => repo.read_tree_file(*tree, path, limit),
            Snapshot::View(view) => view.read(repo, path, limit),
        }
    }

    /// True for the working tree (files read from disk).
    pub fn is_worktree(&self) -> bool {
        matches!(self, Snapshot::View(view) if view.is_worktree())
    }
}
