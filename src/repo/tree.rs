//! Views of a tree: the flat list of files (path, mode, object id) that a
//! commit, the index, an in-memory merge or the working tree contains, and
//! reading a file's content from that view.

use super::{Repo, RepoError, Result};
use crate::codes::Code;
use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

mod derived_base;
mod file_list;
mod index_list;
mod sparse;
#[cfg(test)]
mod staged_differential;
pub mod stat_reuse;
pub mod untracked;
pub mod worktree;

pub use file_list::FileList;
pub use worktree::{Contents, DiskContent, Known, Reads};

/// A file's mode as git records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryMode {
    Regular,
    Executable,
    Symlink,
    /// A gitlink: the object id is a commit of another repository.
    Submodule,
}

impl EntryMode {
    /// The mode as git writes it in octal ASCII.
    pub fn octal(self) -> &'static str {
        match self {
            EntryMode::Regular => "100644",
            EntryMode::Executable => "100755",
            EntryMode::Symlink => "120000",
            EntryMode::Submodule => "160000",
        }
    }

    pub fn is_file(self) -> bool {
        matches!(self, EntryMode::Regular | EntryMode::Executable)
    }
}

/// One file of a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    pub mode: EntryMode,
    /// Blob id (files and symlinks) or commit id (submodules).
    pub oid: ObjectId,
}

/// Where a view's content lives.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Storage {
    /// Blobs in the object database (commit, index and merge views).
    Objects,
    /// Files on disk under this root (working tree view), with how each
    /// entry's content is known (aligned with the view's entries).
    Disk {
        root: PathBuf,
        contents: Arc<Contents>,
    },
}

/// The flat file list of one tree, sorted by path bytes.
#[derive(Clone, Debug)]
pub struct View {
    /// What this view is, for messages ("the index", "commit abc1234").
    pub label: String,
    storage: Storage,
    /// Sorted by path bytes, each path once. A sorted list rather than a
    /// map: views are built once from sorted input and then only searched
    /// and walked in order. Shared when this view is derived from another
    /// one.
    entries: Arc<FileList>,
    /// Where this view differs from `entries` (`None`: the path is absent
    /// here). Empty except for a view derived from another view's list.
    patch: BTreeMap<BString, Option<Entry>>,
    /// Number of files, patch applied.
    len: usize,
    /// Directories (empty for the root, else ending in `/`) whose files in
    /// this view are exactly the git tree with that id, sorted by path: a
    /// digest can take such a directory's value from a memo by tree id.
    trees: Arc<Vec<(BString, ObjectId)>>,
}

/// A shared sorted list with a patch laid over it, in path order, from
/// the `start`th file of the list on (the patch must not name paths before
/// it). Between two patched paths the list's files are passed on without a
/// comparison: the next patched path's place is found by binary search, so
/// a derived view is walked at the cost of its list.
struct Patched<'a, P: Iterator<Item = (&'a BString, &'a Option<Entry>)>> {
    list: &'a FileList,
    /// The next file of the list.
    at: usize,
    /// The list's files before this one come before the pending path.
    until: usize,
    /// The patched path whose place is `until`, with its entry there.
    pending: Option<(&'a BString, &'a Option<Entry>)>,
    patch: P,
}

fn patched<'a, P: Iterator<Item = (&'a BString, &'a Option<Entry>)>>(
    list: &'a FileList,
    start: usize,
    patch: P,
) -> Patched<'a, P> {
    Patched {
        list,
        at: start,
        until: start,
        pending: None,
        patch,
    }
}

impl<'a, P: Iterator<Item = (&'a BString, &'a Option<Entry>)>> Iterator for Patched<'a, P> {
    type Item = (&'a BStr, &'a Entry);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.at < self.until {
                let i = self.at;
                self.at += 1;
                return Some((self.list.path(i), self.list.entry(i)));
            }
            if let Some((path, entry)) = self.pending.take() {
                // The patch replaces or removes the list's file there, or
                // adds one.
                if self.at < self.list.len() && self.list.path(self.at) == path.as_slice() {
                    self.at += 1;
                }
                self.until = self.at;
                if let Some(entry) = entry {
                    return Some((path.as_bstr(), entry));
                }
                continue;
            }
            match self.patch.next() {
                Some((path, entry)) => {
                    self.until = self
                        .list
                        .partition_point_from(self.at, |p| p < path.as_slice());
                    self.pending = Some((path, entry));
                }
                None if self.at < self.list.len() => self.until = self.list.len(),
                None => return None,
            }
        }
    }
}

/// The result of reading a file from a view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// The file's bytes (at most `limit + 1` of them).
    Bytes(Vec<u8>),
    /// The path is a symlink or submodule, not a regular file.
    NotRegular(EntryMode),
    /// The blob is larger than the limit; it was not read.
    TooLarge { size: u64 },
}

fn mode_of_tree_entry(kind: gix::object::tree::EntryKind) -> Option<EntryMode> {
    use gix::object::tree::EntryKind;
    match kind {
        EntryKind::Blob => Some(EntryMode::Regular),
        EntryKind::BlobExecutable => Some(EntryMode::Executable),
        EntryKind::Link => Some(EntryMode::Symlink),
        EntryKind::Commit => Some(EntryMode::Submodule),
        EntryKind::Tree => None,
    }
}

impl View {
    /// A view with no files (the base before the first commit).
    pub fn empty(label: impl Into<String>) -> View {
        View::sorted(label, Storage::Objects, FileList::default())
    }

    /// A view of `entries`, which must be sorted by path, each path once.
    fn sorted(label: impl Into<String>, storage: Storage, entries: FileList) -> View {
        View {
            label: label.into(),
            storage,
            len: entries.len(),
            entries: Arc::new(entries),
            patch: BTreeMap::new(),
            trees: Arc::default(),
        }
    }

    /// Every file of a tree object.
    pub fn from_tree(repo: &Repo, tree: ObjectId, label: impl Into<String>) -> Result<View> {
        let mut trees = vec![(BString::default(), tree)];
        let entries = walk_tree_pruned(repo, tree, (), |_, dir, id| {
            trees.push((dir.into(), *id));
            Some(())
        })?;
        // A depth-first walk in git's tree order yields paths sorted by
        // bytes, so this is one pass. A malformed tree (a name repeated or
        // out of order) gets no directory ids: its flat list is not its
        // trees.
        let well_formed = entries.is_sorted_unique();
        let mut view = View::sorted(label, Storage::Objects, entries.into_sorted_unique());
        if well_formed {
            trees.sort_by(|a, b| a.0.cmp(&b.0));
            view.trees = Arc::new(trees);
        }
        Ok(view)
    }

    /// Every file of a commit.
    pub fn from_commit(repo: &Repo, commit: ObjectId) -> Result<View> {
        let tree = repo.commit_tree(commit)?;
        View::from_tree(repo, tree, format!("commit {}", short(commit)))
    }

    /// Every file of the index git would commit (`GIT_INDEX_FILE` honoured).
    /// Unmerged entries make the view unavailable; intent-to-add entries are
    /// not part of a commit and are left out.
    pub fn from_index(repo: &Repo) -> Result<View> {
        let (index, shape) = open_index_shaped(repo)?;
        Ok(View::from_index_file(&index, shape)?.0)
    }

    /// The index and the files of the commit `head`, for `check --staged`.
    /// The commit's view is derived from the index's list where the index's
    /// cached trees show a directory unchanged (see `derived_base`), so a
    /// large unchanged tree is neither read nor copied.
    pub fn index_and_commit(repo: &Repo, head: ObjectId) -> Result<(View, View)> {
        let (index, shape) = open_index_shaped(repo)?;
        let (view, trusted) = View::from_index_file(&index, shape)?;
        let base = View::commit_over(repo, &view, index.tree(), trusted, head)?;
        Ok((view, base))
    }

    /// [`View::index_and_commit`] for `check --staged`, which reads nothing
    /// else of the index: where the gate verifies the index's checksum on
    /// a thread of its own ([`Repo::defer_index_checksums`]), the files
    /// are read straight from the file ([`index_list`]), and the gix
    /// decoding answers only what that does not read.
    pub fn staged_and_commit(repo: &Repo, head: ObjectId) -> Result<(View, View)> {
        match listed_index(repo) {
            Some(index_list::Listed {
                files,
                cache,
                cache_trusted,
            }) => {
                let trusted = cache.as_ref().filter(|_| cache_trusted);
                let view = View::from_index_list(files, trusted);
                let base = View::commit_over(repo, &view, cache.as_ref(), trusted, head)?;
                Ok((view, base))
            }
            None => View::index_and_commit(repo, head),
        }
    }

    /// The files of the commit `head` over the index's `view`, after the
    /// index's cached trees `cache` are checked against it. The commit's
    /// view leans on the cached trees only where they are `trusted` (see
    /// [`trusted_cache`]); otherwise the commit is read whole. The check
    /// runs either way: `git commit` writes a valid cached tree as it is,
    /// whatever shape the index has.
    fn commit_over(
        repo: &Repo,
        view: &View,
        cache: Option<&gix::index::extension::Tree>,
        trusted: Option<&gix::index::extension::Tree>,
        head: ObjectId,
    ) -> Result<View> {
        let tree = repo.commit_tree(head)?;
        derived_base::check_cached_trees(repo, view, cache, Some(tree))?;
        let label = format!("commit {}", short(head));
        match trusted {
            Some(_) => derived_base::commit_over_index(repo, view, trusted, tree, label),
            None => View::from_tree(repo, tree, label),
        }
    }

    /// The files of the commit `head` for a working-tree run, derived from
    /// the index's list as [`View::index_and_commit`] derives them (where a
    /// valid cached tree is the commit's tree of a directory, the commit's
    /// files there are the index's, as `git status` takes them), so the
    /// commit's unchanged trees are not read. An index that cannot serve
    /// (unmerged or sparse entries, a cached tree that does not hold) makes
    /// this read the commit whole.
    pub fn commit_beside_index(repo: &Repo, head: ObjectId) -> Result<View> {
        match View::index_and_commit(repo, head) {
            Ok((_, commit)) => Ok(commit),
            Err(_) => View::from_commit(repo, head),
        }
    }

    /// The view of the decoded `index`, and the cached trees views may
    /// lean on ([`trusted_cache`]; `shape`: how the file was laid out).
    fn from_index_file(
        index: &gix::index::File,
        shape: IndexShape,
    ) -> Result<(View, Option<&gix::index::extension::Tree>)> {
        use gix::index::entry::Flags;
        let mut entries =
            FileList::with_capacity(index.entries().len(), index.path_backing().len());
        let mut unmerged = Vec::new();
        let mut plain = shape == IndexShape::Plain;
        for entry in index.entries() {
            let path = entry.path(index);
            if entry.stage_raw() != 0 {
                unmerged.push(path.to_str_lossy().into_owned());
                continue;
            }
            if entry
                .flags
                .intersects(Flags::INTENT_TO_ADD | Flags::SKIP_WORKTREE)
            {
                plain = false;
            }
            if entry.flags.contains(Flags::INTENT_TO_ADD) {
                continue;
            }
            let mode = index_mode(entry.mode).ok_or_else(|| {
                RepoError::new(
                    Code::git_index_unavailable,
                    format!(
                        "the index holds `{}` as a sparse directory; expand the sparse index (`git sparse-checkout disable` or index.sparse=false) to check it",
                        path.to_str_lossy()
                    ),
                )
            })?;
            entries.push(
                path,
                Entry {
                    mode,
                    oid: entry.id,
                },
            );
        }
        if !unmerged.is_empty() {
            unmerged.dedup();
            return Err(RepoError::new(
                Code::git_index_unmerged,
                format!(
                    "the index has unmerged paths ({}); resolve the conflicts and stage the result first",
                    unmerged.join(", ")
                ),
            ));
        }
        let trusted = trusted_cache(index.tree(), plain);
        Ok((View::from_index_list(entries, trusted), trusted))
    }

    /// The view of the index's stage-0 `entries` (sorted here, each path
    /// once), with the directories its cached trees `cache` vouch for.
    fn from_index_list(entries: FileList, cache: Option<&gix::index::extension::Tree>) -> View {
        let entries = entries.into_sorted_unique();
        let trees = derived_base::vouched_trees(cache, &entries);
        let mut view = View::sorted("the index", Storage::Objects, entries);
        view.trees = Arc::new(trees);
        view
    }

    /// The in-memory merge of `head` into `base` (ancestor: their merge
    /// base). Conflicts make the view unavailable. Returns the view and the
    /// merge base.
    pub fn from_merge(repo: &Repo, base: ObjectId, head: ObjectId) -> Result<(View, ObjectId)> {
        let (tree, merge_base) = View::merge_tree(repo, base, head)?;
        let view = View::from_tree(
            repo,
            tree,
            format!("the merge of {} into {}", short(head), short(base)),
        )?;
        Ok((view, merge_base))
    }

    /// The tree of git's merge of `head` into `base` (every merge base,
    /// git's own algorithm: [`Repo::merge_commits`]; kept in memory, never
    /// written to the repository) and a merge base of the two. Conflicts
    /// leave what lands unknown.
    pub fn merge_tree(repo: &Repo, base: ObjectId, head: ObjectId) -> Result<(ObjectId, ObjectId)> {
        let (merge_base, merged) = match (
            repo.merge_base(base, head)?,
            repo.merge_commits(base, head)?,
        ) {
            (Some(merge_base), Some(merged)) => (merge_base, merged),
            _ => {
                let (code, message) = if repo.is_shallow() {
                    (
                        Code::git_shallow_history,
                        format!(
                            "the clone is shallow and hides the merge base of {} and {}; fetch the full history (actions/checkout `fetch-depth: 0`, GitLab `GIT_DEPTH: 0`, or `git fetch --unshallow`)",
                            short(base),
                            short(head)
                        ),
                    )
                } else {
                    (
                        Code::git_no_merge_base,
                        format!("{} and {} have no common history", short(base), short(head)),
                    )
                };
                return Err(RepoError::new(code, message));
            }
        };
        if !merged.conflicts.is_empty() {
            let paths: Vec<String> = merged
                .conflicts
                .iter()
                .map(|p| p.to_str_lossy().into_owned())
                .collect();
            return Err(RepoError::new(
                Code::git_merge_conflict,
                format!(
                    "merging {} into {} conflicts ({}); rebase or merge the base into the branch and resolve the conflicts",
                    short(head),
                    short(base),
                    paths.join(", ")
                ),
            ));
        }
        Ok((merged.tree, merge_base))
    }

    /// The working tree: tracked files as they are on disk (deleted ones
    /// left out) plus untracked files that are not ignored. A tracked file
    /// whose stat data matches its non-racy index entry has that entry's
    /// blob id and is not read (see `stat_reuse`); every other file is read
    /// once, on all cores, for its blob id and its sha256 (kept for the
    /// digest, so the digest is of the very bytes the view names).
    pub fn from_worktree(repo: &Repo) -> Result<View> {
        worktree::view(repo, true)
    }

    /// [`View::from_worktree`] taking over the files `earlier` read where
    /// their stat data shows them unchanged since (see
    /// [`worktree::Reads`]), and what this view read, for the next one.
    pub fn from_worktree_after(
        repo: &Repo,
        earlier: Option<&worktree::Reads>,
    ) -> Result<(View, worktree::Reads)> {
        worktree::view_after(repo, true, earlier)
    }

    /// [`View::from_worktree`] reading every file, trusting no stat data:
    /// the reference the stat-reuse fast path is checked against.
    pub fn from_worktree_reading_all(repo: &Repo) -> Result<View> {
        worktree::view(repo, false)
    }

    /// A working-tree view of sorted `entries` under `root`, with how each
    /// one's content is known.
    fn on_disk(
        root: PathBuf,
        entries: FileList,
        contents: Contents,
        trees: Vec<(BString, ObjectId)>,
    ) -> View {
        let mut view = View::sorted(
            "the working tree",
            Storage::Disk {
                root,
                contents: Arc::new(contents),
            },
            entries,
        );
        view.trees = Arc::new(trees);
        view
    }

    /// For a working-tree view: its root and every file with how its
    /// content is known.
    #[allow(clippy::type_complexity)]
    pub fn disk_contents(
        &self,
    ) -> Option<(
        &std::path::Path,
        impl Iterator<Item = (&BStr, &Entry, Known)>,
    )> {
        match &self.storage {
            Storage::Disk { root, contents } => Some((
                root.as_path(),
                self.entries
                    .iter()
                    .zip(contents.iter())
                    .map(|((path, entry), known)| (path, entry, known)),
            )),
            Storage::Objects => None,
        }
    }

    /// The positions of the files outside the directories `skip` (sorted,
    /// disjoint, each ending in `/`), for a view that is not derived from
    /// another (no patch): each skipped directory's files are jumped over
    /// by binary search, so the cost follows the files kept.
    fn positions_outside<'a>(&'a self, skip: &'a [&'a [u8]]) -> impl Iterator<Item = usize> + 'a {
        debug_assert!(self.patch.is_empty());
        let list = &*self.entries;
        let mut at = 0;
        let mut ranges = Vec::with_capacity(skip.len() + 1);
        for dir in skip {
            let (start, end) = derived_base::range_under(list, at, dir);
            ranges.push(at..start);
            at = end;
        }
        ranges.push(at..list.len());
        ranges.into_iter().flatten()
    }

    /// Every file outside the directories `skip` (sorted, disjoint, each
    /// ending in `/`), in path order.
    pub fn entries_outside<'a>(
        &'a self,
        skip: &'a [&'a [u8]],
    ) -> Box<dyn Iterator<Item = (&'a BStr, &'a Entry)> + 'a> {
        if self.patch.is_empty() {
            let list = &*self.entries;
            return Box::new(
                self.positions_outside(skip)
                    .map(|i| (list.path(i), list.entry(i))),
            );
        }
        // A derived view: each stretch between two skipped directories is
        // walked from its place in the list (found by binary search) with
        // the patch's paths in that stretch, so the cost follows the files
        // kept here too.
        if skip.iter().any(|dir| dir.is_empty()) {
            return Box::new(std::iter::empty());
        }
        use std::ops::Bound;
        let list = &*self.entries;
        let patch = &self.patch;
        /// Files between two skipped directories: from the list position
        /// `start` and the path `lowest` (`None`: the first) up to the
        /// skipped directory `until` (`None`: the end).
        struct Stretch<'a> {
            start: usize,
            lowest: Option<Vec<u8>>,
            until: Option<&'a [u8]>,
        }
        let mut stretches: Vec<Stretch<'a>> = Vec::with_capacity(skip.len() + 1);
        let mut at = 0;
        let mut lowest = None;
        for dir in skip {
            stretches.push(Stretch {
                start: at,
                lowest,
                until: Some(*dir),
            });
            at = derived_base::range_under(list, at, dir).1;
            // Paths under `stem/` sort below `stem0`, and nothing between.
            let mut after = dir[..dir.len() - 1].to_vec();
            after.push(b'0');
            lowest = Some(after);
        }
        stretches.push(Stretch {
            start: at,
            lowest,
            until: None,
        });
        Box::new(stretches.into_iter().flat_map(move |stretch| {
            let low = (stretch.lowest.as_deref()).map_or(Bound::Unbounded, Bound::Included);
            let until = stretch.until;
            let high = until.map_or(Bound::Unbounded, Bound::Excluded);
            patched(list, stretch.start, patch.range::<[u8], _>((low, high)))
                .take_while(move |(path, _)| until.is_none_or(|dir| path.as_bytes() < dir))
        }))
    }

    /// [`View::disk_contents`] outside the directories `skip` (sorted,
    /// disjoint, each ending in `/`).
    #[allow(clippy::type_complexity)]
    pub fn disk_contents_outside<'a>(
        &'a self,
        skip: &'a [&'a [u8]],
    ) -> Option<(
        &'a std::path::Path,
        impl Iterator<Item = (&'a BStr, &'a Entry, Known)> + 'a,
    )> {
        match &self.storage {
            Storage::Disk { root, contents } => {
                let list = &*self.entries;
                Some((
                    root.as_path(),
                    self.positions_outside(skip)
                        .filter_map(move |i| Some((list.path(i), list.entry(i), contents.get(i)?))),
                ))
            }
            Storage::Objects => None,
        }
    }

    /// The directories (sorted, disjoint, each ending in `/`, or empty for
    /// the root) that this view and `other` both know as the same git tree
    /// (see the `trees` field): their files there are the same, so a
    /// comparison of the two views may jump over them.
    pub(crate) fn shared_trees<'a>(&'a self, other: &'a View) -> Vec<&'a [u8]> {
        let sorted = |trees: &'a [(BString, ObjectId)]| {
            let mut trees: Vec<&'a (BString, ObjectId)> = trees.iter().collect();
            if !trees.is_sorted_by(|a, b| a.0 <= b.0) {
                trees.sort_by(|a, b| a.0.cmp(&b.0));
            }
            trees
        };
        let (ours, theirs) = (sorted(&self.trees), sorted(&other.trees));
        let mut shared: Vec<&[u8]> = Vec::new();
        let pairs = super::merge_join::merge_join(ours, theirs, |a, b| a.0.cmp(&b.0));
        for pair in pairs {
            if let super::merge_join::Paired::Both((dir, ours), (_, theirs)) = pair
                && ours == theirs
                && !shared.last().is_some_and(|outer| dir.starts_with(outer))
            {
                // Directories sort before what lies under them, and the
                // paths under one are contiguous: only the outermost stay.
                shared.push(dir.as_slice());
            }
        }
        shared
    }

    /// Directories whose files in this view are exactly a known git tree
    /// (see the field); empty when the view cannot vouch for any.
    pub fn known_trees(&self) -> &[(BString, ObjectId)] {
        if self.patch.is_empty() {
            &self.trees
        } else {
            &[]
        }
    }

    /// True for the working-tree view (content read from disk).
    pub fn is_worktree(&self) -> bool {
        matches!(self.storage, Storage::Disk { .. })
    }

    /// Every file, sorted by path bytes.
    pub fn entries(&self) -> impl Iterator<Item = (&BStr, &Entry)> {
        patched(&self.entries, 0, self.patch.iter())
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.get_bytes(path.as_bytes())
    }

    /// [`View::get`] for a path that need not be UTF-8.
    pub fn get_bytes(&self, path: &[u8]) -> Option<&Entry> {
        if let Some(patched) = self.patch.get(path.as_bstr()) {
            return patched.as_ref();
        }
        self.entries.find(path).map(|i| self.entries.entry(i))
    }

    /// When this view was derived from `other`'s list and `other` is that
    /// list unchanged: the paths where the two differ, with this view's
    /// entry. A change set then needs no walk over every file.
    pub(crate) fn patch_over(&self, other: &View) -> Option<&BTreeMap<BString, Option<Entry>>> {
        (Arc::ptr_eq(&self.entries, &other.entries) && other.patch.is_empty())
            .then_some(&self.patch)
    }

    /// Paths of files under a directory prefix (`prefix` ends with `/`).
    pub fn paths_under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a BStr> + 'a {
        let start = self
            .entries
            .partition_point(|path| path < prefix.as_bytes());
        let patch = self.patch.range::<[u8], _>((
            std::ops::Bound::Included(prefix.as_bytes()),
            std::ops::Bound::Unbounded,
        ));
        patched(&self.entries, start, patch)
            .map(|(path, _)| path)
            .take_while(move |path| path.starts_with(prefix.as_bytes()))
    }

    /// Read a file of this view: `None` when absent; at most `limit + 1`
    /// bytes, so an oversize file is judged without being held whole.
    pub fn read(&self, repo: &Repo, path: &str, limit: usize) -> Result<Option<Content>> {
        let Some(entry) = self.get(path) else {
            return Ok(None);
        };
        if !entry.mode.is_file() {
            return Ok(Some(Content::NotRegular(entry.mode)));
        }
        match &self.storage {
            Storage::Objects => repo.read_blob(entry.oid, path, limit).map(Some),
            Storage::Disk { root, .. } => {
                let disk = root.join(path);
                match crate::input::read_bounded_no_follow(&disk, limit) {
                    Ok(bytes) => Ok(Some(Content::Bytes(bytes))),
                    Err(d) => Err(RepoError::new(Code::git_worktree_unavailable, d.message)),
                }
            }
        }
    }
}

/// Every file under `root`, depth first in git's tree order (git sorts a
/// directory's name as if it ended in `/`, so this is the byte order of full
/// paths: the order of the index and of [`View::entries`]), asking
/// `descend(parent_state, dir, tree_id)` before reading each subtree (`dir` is its path ending in `/`): `Some(state)`
/// walks it with that state, `None` leaves it out. An explicit stack keeps
/// a hostile tree depth off the call stack.
fn walk_tree_pruned<S>(
    repo: &Repo,
    root: ObjectId,
    root_state: S,
    mut descend: impl FnMut(&S, &[u8], &ObjectId) -> Option<S>,
) -> Result<FileList> {
    struct Frame<S> {
        data: Vec<u8>,
        offset: usize,
        /// Length of the directory's path prefix (with its trailing `/`).
        prefix_len: usize,
        state: S,
    }
    let unavailable = |id: &ObjectId, e: &dyn std::fmt::Display| {
        RepoError::new(
            Code::git_object_unavailable,
            format!("cannot read tree {id}: {e}"),
        )
    };
    let kind = root.kind();
    let read = |id: &ObjectId| -> Result<Vec<u8>> {
        let mut data = Vec::new();
        repo.tree_iter(id, &mut data)
            .map_err(|e| unavailable(id, &e))?;
        Ok(data)
    };
    let mut entries = FileList::default();
    let mut path = BString::default();
    let mut stack = vec![Frame {
        data: read(&root)?,
        offset: 0,
        prefix_len: 0,
        state: root_state,
    }];
    'frames: while let Some(mut frame) = stack.pop() {
        path.truncate(frame.prefix_len);
        let mut iter = gix::objs::TreeRefIter::from_bytes(&frame.data[frame.offset..], kind);
        while let Some(entry) = iter.next() {
            let entry = entry.map_err(|e| {
                RepoError::new(
                    Code::git_object_unavailable,
                    format!("tree {root} cannot be decoded: {e}"),
                )
            })?;
            if entry.mode.is_tree() {
                let mut child_prefix = path.clone();
                child_prefix.extend_from_slice(entry.filename);
                child_prefix.push(b'/');
                let id = entry.oid.to_owned();
                let Some(state) = descend(&frame.state, &child_prefix, &id) else {
                    continue;
                };
                let child = read(&id)?;
                let child_len = child_prefix.len();
                frame.offset += iter.offset_to_next_entry(&frame.data[frame.offset..]);
                stack.push(frame);
                path = child_prefix;
                stack.push(Frame {
                    data: child,
                    offset: 0,
                    prefix_len: child_len,
                    state,
                });
                continue 'frames;
            }
            if let Some(mode) = mode_of_tree_entry(entry.mode.kind()) {
                let dir_len = path.len();
                path.extend_from_slice(entry.filename);
                entries.push(
                    &path,
                    Entry {
                        mode,
                        oid: entry.oid.to_owned(),
                    },
                );
                path.truncate(dir_len);
            }
        }
    }
    Ok(entries)
}

pub(super) fn index_mode(mode: gix::index::entry::Mode) -> Option<EntryMode> {
    use gix::index::entry::Mode;
    if mode == Mode::FILE {
        Some(EntryMode::Regular)
    } else if mode == Mode::FILE_EXECUTABLE {
        Some(EntryMode::Executable)
    } else if mode == Mode::SYMLINK {
        Some(EntryMode::Symlink)
    } else if mode == Mode::COMMIT {
        Some(EntryMode::Submodule)
    } else {
        None
    }
}

/// The submodules (gitlinks) the index records at stage 0 (an unmerged
/// index is no reason to refuse a working-tree run), read without building
/// a view.
pub fn index_gitlinks(repo: &Repo) -> Result<Vec<(BString, ObjectId)>> {
    let index = open_index(repo)?;
    Ok(index
        .entries()
        .iter()
        .filter(|e| e.stage_raw() == 0 && e.mode == gix::index::entry::Mode::COMMIT)
        .map(|e| (e.path(&index).to_owned(), e.id))
        .collect())
}

/// A decoded index and the stat data of the file it came from.
#[derive(Clone)]
pub(crate) struct IndexMemo {
    stamp: IndexStamp,
    index: Rc<gix::index::File>,
    shape: IndexShape,
}

/// How the index file was laid out before gix made one index of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IndexShape {
    /// One file, every path an entry of its own.
    Plain,
    /// A split index (`git update-index --split-index`,
    /// `core.splitIndex`): its entries merged with the shared index's.
    Split,
    /// A sparse index: its directory entries written out as their files
    /// (`sparse::expand`), its cached trees dropped.
    Sparse,
}

/// The cached trees a view may lean on to skip reading trees: those of a
/// plain index (`plain`: one file, no intent-to-add nor skip-worktree
/// entry), as `git add` and `git commit` leave them day to day. A split
/// index merges two files' entries under one file's cached trees, a
/// skip-worktree entry (a sparse checkout) stands for a file not on disk,
/// and an intent-to-add entry is counted by git in its directory's cached
/// tree but is no file of the commit: rare shapes, read whole instead of
/// reasoning about how far their cached trees hold. This decides only how
/// much is read, never what is accepted: `derived_base::check_cached_trees`
/// checks the cached trees of every shape.
fn trusted_cache(
    cache: Option<&gix::index::extension::Tree>,
    plain: bool,
) -> Option<&gix::index::extension::Tree> {
    cache.filter(|_| plain)
}

/// What tells one version of the index file from another: git writes the
/// index through a lock file renamed into place, so a new version has a
/// new inode, and the times and size are compared too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct IndexStamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl IndexStamp {
    fn of(path: &std::path::Path) -> Option<IndexStamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::symlink_metadata(path).ok()?;
        m.is_file().then(|| IndexStamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }
}

/// The index git would use, decoded once per version of the file: a read
/// of an index file whose stat data is unchanged since the last read
/// returns the same decoded index.
pub(super) fn open_index(repo: &Repo) -> Result<Rc<gix::index::File>> {
    Ok(open_index_shaped(repo)?.0)
}

/// [`open_index`] and how the file was laid out.
fn open_index_shaped(repo: &Repo) -> Result<(Rc<gix::index::File>, IndexShape)> {
    let path = repo.index_path();
    let stamp = IndexStamp::of(&path);
    if let (Some(stamp), Some(memo)) = (stamp, repo.index_memo.borrow().as_ref())
        && memo.stamp == stamp
    {
        return Ok((Rc::clone(&memo.index), memo.shape));
    }
    let (index, shape) = decode_index(repo)?;
    let index = Rc::new(index);
    // Kept only when the file did not change while it was decoded.
    if let Some(stamp) = stamp
        && IndexStamp::of(&path) == Some(stamp)
    {
        *repo.index_memo.borrow_mut() = Some(IndexMemo {
            stamp,
            index: Rc::clone(&index),
            shape,
        });
    }
    Ok((index, shape))
}

fn decode_index(repo: &Repo) -> Result<(gix::index::File, IndexShape)> {
    let path = repo.index_path();
    let kind = repo.gix().object_hash();
    let unreadable = |e: &dyn std::fmt::Display| index_unreadable(&path, e);
    // Regular files only (links followed, as git does): gix opens the
    // file itself, and an index that is a FIFO must not block the gate.
    // One that cannot be looked at is unavailable, never taken as empty.
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(unreadable(&"it is not a regular file")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // No index yet (fresh repository): an empty one.
            return Ok((
                gix::index::File::from_state(gix::index::State::new(kind), path),
                IndexShape::Plain,
            ));
        }
        Err(e) => return Err(unreadable(&e)),
    }
    // Mapped once, for the decoding and for the checksum. The trailing
    // checksum is verified on a second thread while the entries are
    // decoded (for a large index the hash costs more than the decoding); a
    // mismatch makes the index unavailable all the same. A caller that
    // deferred the verification (the gate) joins that thread only before it
    // gives its verdict, so the hash runs beside the judging too.
    let file = crate::safe_fs::open_read(&path, crate::safe_fs::Follow::Links)
        .map_err(|e| unreadable(&e))?;
    let modified = file.metadata().map_err(|e| unreadable(&e))?;
    // SAFETY: read-only; git replaces the index by renaming a new file over
    // it, never by writing into it (as in `listed_index`).
    let data =
        std::sync::Arc::new(unsafe { memmap2::Mmap::map(&file) }.map_err(|e| unreadable(&e))?);
    let decode = |data: &[u8]| -> Result<(gix::index::File, IndexShape)> {
        let timestamp = filetime::FileTime::from_last_modification_time(&modified);
        let options = gix::index::decode::Options::default();
        let (state, _) = gix::index::State::from_bytes(data, timestamp, kind, options)
            .map_err(|e| unreadable(&e))?;
        let (mut file, mut shape) = if state.link().is_some() {
            // A split index: gix reads the shared index it names and merges
            // the two, which only its own opening does.
            let file =
                gix::index::File::at(&path, kind, true, options).map_err(|e| unreadable(&e))?;
            (file, IndexShape::Split)
        } else {
            (
                gix::index::File::from_state(state, path.clone()),
                IndexShape::Plain,
            )
        };
        // A sparse index: its directories written out as their files. One
        // that only carries the sparse marker (`sdir`; git writes it after
        // `read-tree` expanded every directory) is read whole too.
        if gix::index::State::is_sparse(&file) {
            shape = IndexShape::Sparse;
        }
        if sparse::is_sparse(&file) {
            sparse::expand(repo, &mut file)?;
            shape = IndexShape::Sparse;
        }
        Ok((file, shape))
    };
    if let Some(handle) = spawn_shared_checksum(repo, &data, kind) {
        let decoded = decode(&data)?;
        defer_checksum(repo, path.clone(), handle, data);
        return Ok(decoded);
    }
    std::thread::scope(|scope| {
        let checksum = scope.spawn(|| checksum_holds(&data, kind));
        let decoded = decode(&data);
        checksum_verdict(&path, checksum.join())?;
        decoded
    })
}

/// Where the caller deferred the index checksums
/// ([`Repo::defer_index_checksums`]), verify the index's checksum
/// ([`checksum_holds`]) on a thread of its own, over a mapping the caller
/// reads too; `None` when nothing was deferred or no thread could be
/// started. The caller's handle on the mapping waits in the pending list
/// and is let go only after the thread is joined, so the mapping is
/// unmapped once, by the joining thread, with no other thread of the
/// process left running: an unmapping while another thread runs makes the
/// kernel interrupt that thread's core to flush its address translations
/// (0.2 ms of `check --staged` on the bench's limit repository; development
/// chapter).
fn spawn_shared_checksum(
    repo: &Repo,
    data: &std::sync::Arc<memmap2::Mmap>,
    kind: gix::hash::Kind,
) -> Option<std::thread::JoinHandle<bool>> {
    repo.index_checksums.borrow().as_ref()?;
    let shared = std::sync::Arc::clone(data);
    std::thread::Builder::new()
        .name("index-checksum".into())
        .spawn(move || checksum_holds(&shared, kind))
        .ok()
}

/// The index's stage-0 files and cached trees read straight from the file
/// ([`index_list::list`]), its checksum verified on a deferred thread;
/// `None` where the gix decoding must answer: checksums not deferred, no
/// regular index file, a layout the fast path leaves to gix, or an index
/// already decoded by gix in this run.
fn listed_index(repo: &Repo) -> Option<index_list::Listed> {
    if repo.index_memo.borrow().is_some() {
        return None;
    }
    let path = repo.index_path();
    let kind = repo.gix().object_hash();
    // Regular files only, links followed as git follows them; a FIFO
    // never blocks (crate::safe_fs).
    let file = crate::safe_fs::open_read(&path, crate::safe_fs::Follow::Links).ok()?;
    // SAFETY: read-only and private; git replaces the index by renaming a
    // new file over it, never by writing into it, and a file truncated
    // underneath would at worst fault this read, as it would gix's own
    // mapping of the same file. The checksum thread hashes this mapping.
    let data = std::sync::Arc::new(unsafe { memmap2::Mmap::map(&file) }.ok()?);
    // The hash runs while the files are listed. Where the listing leaves
    // the index to gix, the same verdict is waited for all the same.
    let handle = spawn_shared_checksum(repo, &data, kind)?;
    let listed = index_list::list(&data, kind);
    defer_checksum(repo, path, handle, data);
    listed
}

/// Leave the checksum thread `handle` of the index at `path`, which hashes
/// `mapping`, for the caller to join ([`spawn_shared_checksum`]).
fn defer_checksum(
    repo: &Repo,
    path: PathBuf,
    handle: std::thread::JoinHandle<bool>,
    mapping: std::sync::Arc<memmap2::Mmap>,
) {
    if let Some(pending) = repo.index_checksums.borrow_mut().as_mut() {
        pending.push(PendingChecksum {
            path,
            handle,
            mapping,
        });
    }
}

/// An index checksum still being verified on its own thread, for the
/// caller to join ([`crate::repo::Repo::settle_index_checksums`]).
pub(crate) struct PendingChecksum {
    pub path: PathBuf,
    pub handle: std::thread::JoinHandle<bool>,
    /// The mapping the thread hashes, which the caller read too: held
    /// here until the thread is joined ([`spawn_shared_checksum`]).
    pub mapping: std::sync::Arc<memmap2::Mmap>,
}

/// The checksums a gate run has yet to join.
pub(crate) type PendingChecksums = Vec<PendingChecksum>;

/// The index at `path` is unavailable, for the reason `why`.
fn index_unreadable(path: &std::path::Path, why: &dyn std::fmt::Display) -> RepoError {
    RepoError::new(
        Code::git_index_unavailable,
        format!("cannot read the index {}: {why}", path.display()),
    )
}

/// What the checksum thread of the index at `path` found, as a result.
pub(super) fn checksum_verdict(
    path: &std::path::Path,
    joined: std::thread::Result<bool>,
) -> Result<()> {
    let unreadable = |e: &dyn std::fmt::Display| index_unreadable(path, e);
    match joined {
        Ok(true) => Ok(()),
        Ok(false) => Err(unreadable(&"its checksum does not match its content")),
        Err(_) => Err(unreadable(&"the checksum thread panicked")),
    }
}

/// True when the index `data` (the whole file) ends in the hash of
/// everything before it, or in a null hash (`index.skipHash`), as git
/// writes it.
///
/// Hashed with plain SHA-1 (SHA-NI where the CPU has it): the trailer is a
/// checksum against corruption, which git itself does not even verify on a
/// read, not an object id, so the collision detection git's object ids need
/// (a third of the cost) buys nothing here.
fn checksum_holds(data: &[u8], kind: gix::hash::Kind) -> bool {
    use sha1::Digest;
    let width = kind.len_in_bytes();
    if data.len() < width {
        return false;
    }
    let (body, trailer) = data.split_at(data.len() - width);
    if trailer.iter().all(|b| *b == 0) {
        return true;
    }
    match kind {
        gix::hash::Kind::Sha1 => sha1::Sha1::digest(body).as_slice() == trailer,
        // A SHA-256 repository's index ends in a SHA-256 hash: gix's hasher.
        _ => {
            let mut hasher = gix::hash::hasher(kind);
            hasher.update(body);
            hasher
                .try_finalize()
                .is_ok_and(|id| id.as_bytes() == trailer)
        }
    }
}

#[cfg(unix)]
pub(crate) fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o100 != 0
}

#[cfg(not(unix))]
pub(crate) fn is_executable(_: &std::fs::Metadata) -> bool {
    false
}

/// The first 7 hex digits of an object id.
pub fn short(id: ObjectId) -> String {
    id.to_hex_with_len(7).to_string()
}

#[cfg(test)]
mod tests {
    use super::file_list::tests::entry;
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A view's files outside some directories are its files, in
        /// order, less those under the directories: for a view with its
        /// own list and for one derived from a list by a patch.
        #[test]
        fn files_outside_directories_are_the_files_less_those_under_them(
            files in proptest::collection::btree_map("[ab/]{1,5}", 0u8..3, 0..24),
            patch in proptest::collection::btree_map("[ab/]{1,5}", proptest::option::of(0u8..3), 0..8),
            dirs in proptest::collection::btree_set("[ab]{1,2}(/[ab])?", 0..4),
        ) {
            let list = FileList::from_pairs(
                files.iter().map(|(p, n)| (BString::from(p.as_str()), entry(*n))).collect(),
            );
            let patch: BTreeMap<BString, Option<Entry>> = patch
                .into_iter()
                .map(|(p, e)| (BString::from(p), e.map(entry)))
                .collect();
            // Sorted, disjoint, each ending in `/`.
            let mut skip: Vec<Vec<u8>> = Vec::new();
            for dir in dirs {
                let dir = format!("{dir}/").into_bytes();
                if !skip.last().is_some_and(|outer| dir.starts_with(outer)) {
                    skip.push(dir);
                }
            }
            let skip: Vec<&[u8]> = skip.iter().map(|d| d.as_slice()).collect();
            for patch in [BTreeMap::new(), patch] {
                let view = View {
                    label: String::new(),
                    storage: Storage::Objects,
                    entries: Arc::new(list.clone()),
                    patch,
                    len: 0,
                    trees: Arc::default(),
                };
                let want: Vec<(BString, Entry)> = view
                    .entries()
                    .filter(|(p, _)| !skip.iter().any(|d| p.starts_with(d)))
                    .map(|(p, e)| (p.to_owned(), *e))
                    .collect();
                let got: Vec<(BString, Entry)> = view
                    .entries_outside(&skip)
                    .map(|(p, e)| (p.to_owned(), *e))
                    .collect();
                prop_assert_eq!(got, want);
            }
        }

        /// A list with a patch laid over it, from any start, is the map
        /// the patch makes of the list.
        #[test]
        fn a_patched_list_is_the_patched_map(
            files in proptest::collection::btree_map("[ab/]{1,4}", 0u8..3, 0..20),
            patch in proptest::collection::btree_map("[ab/]{1,4}", proptest::option::of(0u8..3), 0..8),
            start in 0usize..24,
        ) {
            let list = FileList::from_pairs(
                files.iter().map(|(p, n)| (BString::from(p.as_str()), entry(*n))).collect(),
            );
            let start = start.min(list.len());
            let first = list.get(start).map(|(p, _)| p.to_owned());
            let patch: BTreeMap<BString, Option<Entry>> = patch
                .into_iter()
                .map(|(p, e)| (BString::from(p), e.map(entry)))
                .filter(|(p, _)| first.as_ref().is_none_or(|f| p >= f) || start == 0)
                .collect();
            let mut expected: BTreeMap<BString, Entry> = list
                .iter_from(start)
                .map(|(p, e)| (p.to_owned(), *e))
                .collect();
            for (path, value) in &patch {
                match value {
                    Some(e) => expected.insert(path.clone(), *e),
                    None => expected.remove(path),
                };
            }
            let got: Vec<(BString, Entry)> = patched(&list, start, patch.iter())
                .map(|(p, e)| (p.to_owned(), *e))
                .collect();
            let want: Vec<(BString, Entry)> = expected.into_iter().collect();
            prop_assert_eq!(got, want);
        }
    }
}
