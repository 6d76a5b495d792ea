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
    /// Compare two views entry by entry (mode and object id).
    pub fn between(base: &View, target: &View) -> ChangeSet {
        if let Some(patch) = base.patch_over(target) {
            return ChangeSet::from_patch(patch, target);
        }
        let mut changes = BTreeMap::new();
        let pairs = merge_join(base.entries(), target.entries(), |(old, _), (new, _)| {
            old.cmp(new)
        });
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
