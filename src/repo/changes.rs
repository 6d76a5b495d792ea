//! Change sets: which paths differ between two views, as added, modified
//! or deleted. A rename is a deletion plus an addition; deletions are never
//! dropped. The controller's runtime files are never part of a change set.

use super::merge_join::{Paired, merge_join};
use super::tree::{Entry, View};
use gix::bstr::{BString, ByteSlice};
use std::collections::BTreeMap;

use crate::bookkeeping::RUNTIME_ARTIFACTS;

/// True for a runtime artifact's path where both sides are regular files
/// (or absent): a symlink or gitlink under such a name is no runtime file
/// and stays in the change set.
fn is_runtime_artifact(path: &[u8], old: Option<&Entry>, new: Option<&Entry>) -> bool {
    let regular = |e: Option<&Entry>| e.is_none_or(|e| e.mode.is_file());
    RUNTIME_ARTIFACTS.iter().any(|a| a.as_bytes() == path) && regular(old) && regular(new)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

impl ChangeKind {
    /// How a path changed from entry `old` to entry `new` (`None`: absent
    /// on that side); `None` when it did not change.
    pub fn between(old: Option<&Entry>, new: Option<&Entry>) -> Option<ChangeKind> {
        match (old, new) {
            (None, Some(_)) => Some(ChangeKind::Added),
            (Some(_), None) => Some(ChangeKind::Deleted),
            (Some(a), Some(b)) if a != b => Some(ChangeKind::Modified),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
        }
    }
}

/// One changed path of a commit (files, symlinks and submodules; never
/// trees). Renames are a deletion plus an addition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathChange {
    pub path: BString,
    pub kind: ChangeKind,
    /// The entry before (`None` when added).
    pub old: Option<Entry>,
    /// The entry after (`None` when deleted).
    pub new: Option<Entry>,
}

/// Paths that differ between a base view and a target view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeSet {
    changes: BTreeMap<BString, ChangeKind>,
}

impl ChangeSet {
    /// Compare two views entry by entry (mode and object id), jumping over
    /// the directories both know as the same git tree.
    pub fn between(base: &View, target: &View) -> ChangeSet {
        if let Some(patch) = base.patch_over(target) {
            return ChangeSet::from_patch(patch, target);
        }
        let mut changes = BTreeMap::new();
        // Directories both views know as the same git tree hold the same
        // files: only the rest is compared.
        let shared = base.shared_trees(target);
        if shared.first().is_some_and(|dir| dir.is_empty()) {
            return ChangeSet { changes };
        }
        let pairs = merge_join(
            base.entries_outside(&shared),
            target.entries_outside(&shared),
            |(old, _), (new, _)| old.cmp(new),
        );
        for pair in pairs {
            let (path, kind, old, new) = match pair {
                Paired::Left((path, old)) => (path, ChangeKind::Deleted, Some(old), None),
                Paired::Right((path, new)) => (path, ChangeKind::Added, None, Some(new)),
                Paired::Both((path, old), (_, new)) if old != new => {
                    (path, ChangeKind::Modified, Some(old), Some(new))
                }
                Paired::Both(..) => continue,
            };
            if !is_runtime_artifact(path, old, new) {
                changes.insert(path.to_owned(), kind);
            }
        }
        ChangeSet { changes }
    }

    /// The change set when the base is the target's list with `patch`
    /// laid over it: only the patched paths can differ.
    fn from_patch(patch: &BTreeMap<BString, Option<Entry>>, target: &View) -> ChangeSet {
        let mut changes = BTreeMap::new();
        for (path, old) in patch {
            let new = target.get_bytes(path);
            let Some(kind) = ChangeKind::between(old.as_ref(), new) else {
                continue;
            };
            if !is_runtime_artifact(path, old.as_ref(), new) {
                changes.insert(path.clone(), kind);
            }
        }
        ChangeSet { changes }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&BString, ChangeKind)> {
        self.changes.iter().map(|(p, k)| (p, *k))
    }

    pub fn get(&self, path: &str) -> Option<ChangeKind> {
        self.changes.get(path.as_bytes().as_bstr()).copied()
    }

    pub fn len(&self) -> usize {
        self.changes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::Repo;
    use crate::repo::test_git::{git, repository_with};

    /// Every path whose entry differs between the two views, compared file
    /// by file with nothing jumped over.
    fn file_by_file(base: &View, target: &View) -> Vec<(BString, ChangeKind)> {
        let old: BTreeMap<BString, Entry> =
            base.entries().map(|(p, e)| (p.to_owned(), *e)).collect();
        let new: BTreeMap<BString, Entry> =
            target.entries().map(|(p, e)| (p.to_owned(), *e)).collect();
        let mut paths: Vec<&BString> = old.keys().chain(new.keys()).collect();
        paths.sort();
        paths.dedup();
        paths
            .into_iter()
            .filter_map(|p| {
                let kind = ChangeKind::between(old.get(p), new.get(p))?;
                Some((p.clone(), kind))
            })
            .collect()
    }

    #[test]
    fn directories_both_views_know_as_one_tree_are_jumped_over_exactly() {
        let dir = repository_with(&[
            ("a/one.txt", "1\n"),
            ("a/deep/two.txt", "2\n"),
            ("a-b/three.txt", "3\n"),
            ("b/four.txt", "4\n"),
            ("b/inner/five.txt", "5\n"),
            ("c/six.txt", "6\n"),
            ("top.txt", "t\n"),
        ]);
        let root = dir.path();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "base"]);
        // Staged in `b/inner/`, changed on disk only in `a/deep/`, deleted
        // in `c/`, one new file at the top; `a-b/` untouched.
        std::fs::write(root.join("b/inner/five.txt"), "staged\n").unwrap();
        git(root, &["add", "b/inner/five.txt"]);
        // The index's cached trees are written again: `b/` is now known
        // under its staged id, which differs from the commit's.
        git(root, &["write-tree"]);
        std::fs::write(root.join("a/deep/two.txt"), "on disk\n").unwrap();
        std::fs::remove_file(root.join("c/six.txt")).unwrap();
        std::fs::write(root.join("new.txt"), "n\n").unwrap();
        // Fresh stat data in the index, so the working tree's clean
        // directories vouch for their trees.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        git(root, &["status", "--porcelain"]);

        let repo = Repo::discover(root).unwrap();
        let head = repo.head_commit().unwrap().unwrap();
        let commit = View::commit_beside_index(&repo, head).unwrap();
        let index = View::from_index(&repo).unwrap();
        let worktree = View::from_worktree(&repo).unwrap();
        let whole = View::from_commit(&repo, head).unwrap();
        assert!(
            !commit.shared_trees(&worktree).is_empty(),
            "the commit and the working tree share clean directories"
        );
        for (base, target) in [
            (&commit, &worktree),
            (&whole, &worktree),
            (&commit, &index),
            (&index, &worktree),
            (&worktree, &commit),
        ] {
            let got: Vec<(BString, ChangeKind)> = ChangeSet::between(base, target)
                .iter()
                .map(|(p, k)| (p.clone(), k))
                .collect();
            assert_eq!(
                got,
                file_by_file(base, target),
                "{} -> {}",
                base.label,
                target.label
            );
        }
        let changed: Vec<(BString, ChangeKind)> = file_by_file(&commit, &worktree);
        assert_eq!(
            changed,
            [
                ("a/deep/two.txt".into(), ChangeKind::Modified),
                ("b/inner/five.txt".into(), ChangeKind::Modified),
                ("c/six.txt".into(), ChangeKind::Deleted),
                ("new.txt".into(), ChangeKind::Added),
            ]
        );
    }
}
