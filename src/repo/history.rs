//! History: the commits of a range, each commit's own changes, and point
//! lookups in a commit's tree. A commit's changes come from a tree diff
//! against its parents, which skips every unchanged subtree, so cost grows
//! with the commits and changed paths of a range, never with repository size.

use super::changes::ChangeKind;
pub use super::changes::PathChange;
use super::tree::{Content, Entry, EntryMode};
use super::{Repo, RepoError, Result};
use crate::codes::Code;
use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use std::collections::{BTreeMap, HashMap};

/// Trees with at least this many entries are indexed by name on first use.
const INDEXED_TREE_ENTRIES: usize = 64;

/// One tree's entries by name.
pub(crate) type TreeIndex = HashMap<Vec<u8>, (gix::object::tree::EntryMode, ObjectId)>;

/// What a commit says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitMeta {
    pub id: ObjectId,
    pub parents: Vec<ObjectId>,
    pub tree: ObjectId,
    /// `Name <email>`.
    pub author: String,
    /// `Name <email>`.
    pub committer: String,
    pub message: String,
}

impl CommitMeta {
    /// The first line of the message.
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("").trim()
    }
}

/// Blobs up to this size are kept once read ([`Repo::read_blob`]): the
/// task artifacts a gate run reads more than once are far smaller.
const SMALL_BLOB_BYTES: usize = 64 * 1024;

/// At most this many bytes of small blobs are kept in all.
const SMALL_BLOBS_KEPT: usize = 8 * 1024 * 1024;

fn unavailable(what: String) -> RepoError {
    RepoError::new(Code::git_object_unavailable, what)
}

fn mode_of(mode: gix::object::tree::EntryMode) -> Option<EntryMode> {
    use gix::object::tree::EntryKind;
    match mode.kind() {
        EntryKind::Blob => Some(EntryMode::Regular),
        EntryKind::BlobExecutable => Some(EntryMode::Executable),
        EntryKind::Link => Some(EntryMode::Symlink),
        EntryKind::Commit => Some(EntryMode::Submodule),
        EntryKind::Tree => None,
    }
}

fn ident(signature: gix::actor::SignatureRef<'_>) -> String {
    format!(
        "{} <{}>",
        signature.name.to_str_lossy().trim(),
        signature.email.to_str_lossy().trim()
    )
}

impl Repo {
    /// A commit's parents, tree, identities and message.
    pub fn commit_meta(&self, id: ObjectId) -> Result<CommitMeta> {
        let data = self.loose_or(&id, gix::object::Kind::Commit, || {
            self.gix()
                .find_commit(id)
                .map(|commit| commit.detach().data)
                .map_err(|e| unavailable(format!("cannot read commit {id}: {e}")))
        })?;
        let decoded = gix::objs::CommitRef::from_bytes(&data, id.kind())
            .map_err(|e| unavailable(format!("cannot decode commit {id}: {e}")))?;
        let author = decoded
            .author()
            .map_err(|e| unavailable(format!("commit {id} has an unreadable author: {e}")))?;
        let committer = decoded
            .committer()
            .map_err(|e| unavailable(format!("commit {id} has an unreadable committer: {e}")))?;
        self.commit_trees.borrow_mut().insert(id, decoded.tree());
        Ok(CommitMeta {
            id,
            parents: decoded.parents().collect(),
            tree: decoded.tree(),
            author: ident(author),
            committer: ident(committer),
            message: decoded.message.to_str_lossy().into_owned(),
        })
    }

    /// Commits reachable from `tips` and from none of `hidden`, parents
    /// before children (ties in the order the walk met them, oldest first).
    pub fn range(&self, tips: &[ObjectId], hidden: &[ObjectId]) -> Result<Vec<CommitMeta>> {
        let walk = self
            .gix()
            .rev_walk(tips.iter().copied())
            .with_hidden(hidden.iter().copied())
            .all()
            .map_err(|e| unavailable(format!("cannot walk the history: {e}")))?;
        let mut found = Vec::new();
        for info in walk {
            let info = info.map_err(|e| {
                let message = format!("cannot walk the history: {e}");
                if self.is_shallow() {
                    RepoError::new(
                        Code::git_shallow_history,
                        format!(
                            "{message}; the clone is shallow: fetch the full history (`git fetch --unshallow`, actions/checkout `fetch-depth: 0`, GitLab `GIT_DEPTH: 0`)"
                        ),
                    )
                } else {
                    unavailable(message)
                }
            })?;
            found.push(self.commit_meta(info.id)?);
        }
        Ok(topological(found))
    }

    /// The own changes of a commit: against its parent, and against the
    /// empty tree for a root commit. A merge of two parents owns what it
    /// made differ from git's own merge of them (its resolutions, an edit
    /// slipped into the merge, a side's change it dropped) and every path
    /// that merge could not resolve ([`super::merge::own_changes`]). Paths
    /// where it simply took a side come from that side's commits, and are
    /// theirs. A merge whose parents share no history, or of more than two
    /// parents, owns every change against its first parent.
    pub fn commit_changes(&self, meta: &CommitMeta) -> Result<Vec<PathChange>> {
        let first = match meta.parents.first() {
            Some(parent) => Some(self.commit_tree(*parent)?),
            None => None,
        };
        let (Some(first), [ours, theirs]) = (first, meta.parents.as_slice()) else {
            return self.tree_changes(first, Some(meta.tree));
        };
        match self.merge_commits(*ours, *theirs)? {
            // The merge is exactly git's clean merge of its parents (most
            // merges): it owns nothing, and neither tree needs comparing.
            Some(merge) if merge.tree == meta.tree && merge.conflicts.is_empty() => Ok(Vec::new()),
            Some(merge) => {
                let changes = self.tree_changes(Some(first), Some(meta.tree))?;
                let second = self.commit_tree(*theirs)?;
                super::merge::own_changes(self, changes, first, second, &merge)
            }
            None => self.tree_changes(Some(first), Some(meta.tree)),
        }
    }

    /// Paths that differ between two trees (`None`: the empty tree), sorted
    /// by path bytes.
    pub fn tree_changes(
        &self,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
    ) -> Result<Vec<PathChange>> {
        use gix::diff::tree::recorder::Change;
        if old == new {
            return Ok(Vec::new());
        }
        let mut old_buf = Vec::new();
        let mut new_buf = Vec::new();
        let kind = self.gix().object_hash();
        let empty = gix::objs::TreeRefIter::from_bytes(&[], kind);
        let old_iter = match old {
            Some(id) => self
                .tree_iter(&id, &mut old_buf)
                .map_err(|e| unavailable(format!("cannot read tree {id}: {e}")))?,
            None => empty,
        };
        let new_iter = match new {
            Some(id) => self
                .tree_iter(&id, &mut new_buf)
                .map_err(|e| unavailable(format!("cannot read tree {id}: {e}")))?,
            None => gix::objs::TreeRefIter::from_bytes(&[], kind),
        };
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(
            old_iter,
            new_iter,
            gix::diff::tree::State::default(),
            super::loose::LooseFirst(self),
            &mut recorder,
        )
        .map_err(|e| unavailable(format!("cannot compare trees: {e}")))?;
        // A path can appear twice when its type changes between a tree and
        // a file; collect per path.
        let mut by_path: BTreeMap<BString, (Option<Entry>, Option<Entry>)> = BTreeMap::new();
        for change in recorder.records {
            let (path, old, new) = match change {
                Change::Addition {
                    entry_mode,
                    oid,
                    path,
                    ..
                } => (
                    path,
                    None,
                    mode_of(entry_mode).map(|mode| Entry { mode, oid }),
                ),
                Change::Deletion {
                    entry_mode,
                    oid,
                    path,
                    ..
                } => (
                    path,
                    mode_of(entry_mode).map(|mode| Entry { mode, oid }),
                    None,
                ),
                Change::Modification {
                    previous_entry_mode,
                    previous_oid,
                    entry_mode,
                    oid,
                    path,
                } => (
                    path,
                    mode_of(previous_entry_mode).map(|mode| Entry {
                        mode,
                        oid: previous_oid,
                    }),
                    mode_of(entry_mode).map(|mode| Entry { mode, oid }),
                ),
            };
            if old.is_none() && new.is_none() {
                continue;
            }
            let slot = by_path.entry(path).or_default();
            if old.is_some() {
                slot.0 = old;
            }
            if new.is_some() {
                slot.1 = new;
            }
        }
        Ok(by_path
            .into_iter()
            .filter_map(|(path, (old, new))| {
                let kind = ChangeKind::between(old.as_ref(), new.as_ref())?;
                Some(PathChange {
                    path,
                    kind,
                    old,
                    new,
                })
            })
            .collect())
    }

    /// The entry at `path` in a tree (files, symlinks, submodules; `None`
    /// for a directory or nothing).
    pub fn tree_entry(&self, tree: ObjectId, path: &str) -> Result<Option<Entry>> {
        Ok(self
            .tree_entry_any(tree, path)?
            .and_then(|(mode, oid)| mode_of(mode).map(|mode| Entry { mode, oid })))
    }

    /// The id of the subtree at `path` (`None` when absent or not a tree).
    pub fn subtree_id(&self, tree: ObjectId, path: &str) -> Result<Option<ObjectId>> {
        Ok(self
            .tree_entry_any(tree, path)?
            .filter(|(mode, _)| mode.is_tree())
            .map(|(_, oid)| oid))
    }

    /// The directories directly inside the directory at `path` of a tree,
    /// by name, with their tree ids (none when `path` is no directory).
    pub fn subtrees(&self, tree: ObjectId, path: &str) -> Result<Vec<(String, ObjectId)>> {
        let Some(dir) = self.subtree_id(tree, path)? else {
            return Ok(Vec::new());
        };
        let data = self.loose_or(&dir, gix::object::Kind::Tree, || {
            self.gix()
                .find_tree(dir)
                .map(|object| object.detach().data)
                .map_err(|e| unavailable(format!("cannot read tree {dir}: {e}")))
        })?;
        let decoded = gix::objs::TreeRef::from_bytes(&data, dir.kind())
            .map_err(|e| unavailable(format!("cannot list {path}: {e}")))?;
        Ok(decoded
            .entries
            .iter()
            .filter(|e| e.mode.is_tree())
            .filter_map(|e| {
                let name = e.filename.to_str().ok()?;
                Some((name.to_string(), e.oid.to_owned()))
            })
            .collect())
    }

    fn tree_entry_any(
        &self,
        tree: ObjectId,
        path: &str,
    ) -> Result<Option<(gix::object::tree::EntryMode, ObjectId)>> {
        let mut current = tree;
        let mut names = path.split('/').peekable();
        while let Some(name) = names.next() {
            let Some((mode, oid)) = self.entry_in(current, name.as_bytes(), path)? else {
                return Ok(None);
            };
            if names.peek().is_none() {
                return Ok(Some((mode, oid)));
            }
            if !mode.is_tree() {
                return Ok(None);
            }
            current = oid;
        }
        Ok(None)
    }

    /// The entry `name` of one tree: a scan of a small tree, a hash lookup
    /// in a large one (indexed on first use).
    fn entry_in(
        &self,
        tree: ObjectId,
        name: &[u8],
        path: &str,
    ) -> Result<Option<(gix::object::tree::EntryMode, ObjectId)>> {
        if let Some(index) = self.tree_index.borrow().get(&tree) {
            return Ok(index.get(name).copied());
        }
        let data = self.loose_or(&tree, gix::object::Kind::Tree, || {
            self.gix()
                .find_tree(tree)
                .map(|object| object.detach().data)
                .map_err(|e| unavailable(format!("cannot read tree {tree}: {e}")))
        })?;
        let decoded = gix::objs::TreeRef::from_bytes(&data, tree.kind())
            .map_err(|e| unavailable(format!("cannot look up {path}: {e}")))?;
        if decoded.entries.len() < INDEXED_TREE_ENTRIES {
            return Ok(decoded
                .entries
                .iter()
                .find(|e| e.filename.as_bytes() == name)
                .map(|e| (e.mode, e.oid.to_owned())));
        }
        let index: TreeIndex = decoded
            .entries
            .iter()
            .map(|e| (e.filename.as_bytes().to_vec(), (e.mode, e.oid.to_owned())))
            .collect();
        let found = index.get(name).copied();
        self.tree_index
            .borrow_mut()
            .insert(tree, std::rc::Rc::new(index));
        Ok(found)
    }

    /// Read a blob, at most `limit + 1` bytes of it. A small blob (at most
    /// 64 KiB, 8 MiB of them in all) is kept once read.
    pub fn read_blob(&self, id: ObjectId, what: &str, limit: usize) -> Result<Content> {
        if let Some(data) = self.small_blobs.borrow().get(&id) {
            return Ok(if data.len() > limit {
                Content::TooLarge {
                    size: data.len() as u64,
                }
            } else {
                Content::Bytes(data.to_vec())
            });
        }
        let mut data = Vec::new();
        match self.read_loose(&id, &mut data, limit) {
            Some(super::loose::Loose::TooLarge(size)) => return Ok(Content::TooLarge { size }),
            Some(super::loose::Loose::Read(gix::object::Kind::Blob)) => {}
            // Anything else (not loose, not a blob): gix reads it, or says
            // why it cannot.
            _ => {
                let header = self
                    .gix()
                    .find_header(id)
                    .map_err(|e| unavailable(format!("cannot read {what} ({id}): {e}")))?;
                if header.size() > limit as u64 {
                    return Ok(Content::TooLarge {
                        size: header.size(),
                    });
                }
                data = self
                    .gix()
                    .find_blob(id)
                    .map_err(|e| unavailable(format!("cannot read {what} ({id}): {e}")))?
                    .detach()
                    .data;
            }
        }
        let kept = self.small_blob_bytes.get();
        if data.len() <= SMALL_BLOB_BYTES && kept + data.len() <= SMALL_BLOBS_KEPT {
            self.small_blob_bytes.set(kept + data.len());
            self.small_blobs
                .borrow_mut()
                .insert(id, std::rc::Rc::new(data.clone()));
        }
        Ok(Content::Bytes(data))
    }

    /// Read the file at `path` of a tree: `None` when absent.
    pub fn read_tree_file(
        &self,
        tree: ObjectId,
        path: &str,
        limit: usize,
    ) -> Result<Option<Content>> {
        let Some(entry) = self.tree_entry(tree, path)? else {
            return Ok(None);
        };
        if !entry.mode.is_file() {
            return Ok(Some(Content::NotRegular(entry.mode)));
        }
        self.read_blob(entry.oid, path, limit).map(Some)
    }

    /// True when `ancestor` is `descendant` or one of its ancestors.
    pub fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> Result<bool> {
        if ancestor == descendant {
            return Ok(true);
        }
        Ok(self.merge_base(ancestor, descendant)? == Some(ancestor))
    }
}

impl Repo {
    /// Compute git's merges of the two-parent merges among `commits`
    /// ahead, in one `git merge-tree --stdin` process for all those git
    /// must make, so that [`Repo::merge_commits`] finds them done. Best
    /// effort: a pair it cannot settle (a git before 2.40, which has no
    /// `--stdin`, a merge git refuses, a commit that cannot be read) is
    /// left to [`Repo::merge_commits`], which computes it alone and gives
    /// its error.
    pub fn prepare_merges(&self, commits: &[CommitMeta]) {
        self.start_merges(commits);
        self.settle_merges();
    }

    /// [`Repo::prepare_merges`] in the background: git merges while the
    /// caller does other work; the first [`Repo::merge_commits`] of one of
    /// these pairs (or [`Repo::settle_merges`]) waits for it. The caller
    /// settles before it returns, so no thread outlives its work.
    pub fn start_merges(&self, commits: &[CommitMeta]) {
        let parents: HashMap<ObjectId, &[ObjectId]> = commits
            .iter()
            .map(|meta| (meta.id, meta.parents.as_slice()))
            .collect();
        self.start_merge_pairs(merge_pairs(commits), &parents);
    }
}

/// The parents of every two-parent merge among `commits`: the merges
/// [`Repo::commit_changes`] asks git for, computed ahead in one process
/// ([`Repo::prepare_merges`]).
pub(crate) fn merge_pairs(
    commits: &[CommitMeta],
) -> impl Iterator<Item = (ObjectId, ObjectId)> + '_ {
    commits
        .iter()
        .filter_map(|meta| match meta.parents.as_slice() {
            [ours, theirs] => Some((*ours, *theirs)),
            _ => None,
        })
}

/// Order commits so that every commit comes after all of its parents that
/// are in the list; among independent commits, older walk positions first.
pub(crate) fn topological(commits: Vec<CommitMeta>) -> Vec<CommitMeta> {
    // The walk yields children before parents in most cases: reverse it so
    // ties come out oldest first, then settle parents before children.
    let mut commits = commits;
    commits.reverse();
    let position: HashMap<ObjectId, usize> =
        commits.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); commits.len()];
    let mut waiting: Vec<usize> = vec![0; commits.len()];
    for (i, commit) in commits.iter().enumerate() {
        for parent in &commit.parents {
            if let Some(&p) = position.get(parent) {
                children[p].push(i);
                waiting[i] += 1;
            }
        }
    }
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = waiting
        .iter()
        .enumerate()
        .filter(|(_, w)| **w == 0)
        .map(|(i, _)| std::cmp::Reverse(i))
        .collect();
    let mut order = Vec::with_capacity(commits.len());
    while let Some(std::cmp::Reverse(i)) = ready.pop() {
        order.push(i);
        for &child in &children[i] {
            waiting[child] -= 1;
            if waiting[child] == 0 {
                ready.push(std::cmp::Reverse(child));
            }
        }
    }
    let mut slots: Vec<Option<CommitMeta>> = commits.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> ObjectId {
        ObjectId::from_bytes_or_panic(&[n; 20])
    }

    fn commit(n: u8, parents: &[u8]) -> CommitMeta {
        CommitMeta {
            id: id(n),
            parents: parents.iter().map(|p| id(*p)).collect(),
            tree: id(0),
            author: String::new(),
            committer: String::new(),
            message: String::new(),
        }
    }

    #[test]
    fn topological_order_puts_parents_first() {
        // Walk order (newest first): 4 (merge of 2 and 3), 3, 2, 1.
        let walked = vec![
            commit(4, &[2, 3]),
            commit(3, &[1]),
            commit(2, &[1]),
            commit(1, &[]),
        ];
        let order: Vec<u8> = topological(walked)
            .iter()
            .map(|c| c.id.as_bytes()[0])
            .collect();
        assert_eq!(order, [1, 2, 3, 4]);
        // A walk that met a parent first still settles it first.
        let odd = vec![commit(1, &[]), commit(3, &[2]), commit(2, &[1])];
        let order: Vec<u8> = topological(odd)
            .iter()
            .map(|c| c.id.as_bytes()[0])
            .collect();
        assert_eq!(order, [1, 2, 3]);
    }
}

#[cfg(test)]
mod lookup_tests {
    use super::*;
    use crate::repo::test_git::git;

    #[test]
    fn lookups_in_an_indexed_tree_match_a_scan() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        let tasks = dir.path().join(".mastermind/tasks");
        for i in 0..(INDEXED_TREE_ENTRIES * 2) {
            std::fs::create_dir_all(tasks.join(format!("t{i:03}"))).unwrap();
            std::fs::write(tasks.join(format!("t{i:03}/spec.md")), format!("{i}\n")).unwrap();
        }
        std::fs::write(tasks.join("plain"), "file\n").unwrap();
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-q", "-m", "many"]);
        let repo = Repo::open(dir.path()).unwrap();
        let tree = repo
            .commit_tree(repo.head_commit().unwrap().unwrap())
            .unwrap();
        // Twice: the first lookup builds the index, the second reads it.
        for _ in 0..2 {
            for i in [0, 7, INDEXED_TREE_ENTRIES * 2 - 1] {
                let path = format!(".mastermind/tasks/t{i:03}/spec.md");
                let entry = repo.tree_entry(tree, &path).unwrap().expect("present");
                let expected = git(dir.path(), &["rev-parse", &format!("HEAD:{path}")]);
                assert_eq!(entry.oid.to_string(), expected, "{path}");
            }
            for absent in [
                ".mastermind/tasks/t999/spec.md",
                ".mastermind/tasks/plain/spec.md",
                ".mastermind/tasks//spec.md",
                "",
            ] {
                assert!(
                    repo.tree_entry(tree, absent).unwrap().is_none(),
                    "{absent:?}"
                );
            }
            assert!(
                repo.subtree_id(tree, ".mastermind/tasks/t001")
                    .unwrap()
                    .is_some()
            );
        }
        assert_eq!(
            repo.tree_index.borrow().len(),
            1,
            "only the large tree is indexed"
        );
    }
}
