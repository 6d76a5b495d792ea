//! The commit view of `check --staged`, derived from the index's own list.
//!
//! The index remembers, per directory, the tree id its files hash to (the
//! cache-tree extension) and whether that is still valid; `git add` and
//! `git rm` invalidate the directories on the changed path. Git trusts a
//! valid entry when it writes the commit, so where a valid cached tree
//! equals the commit's tree of the same directory, the commit's files there
//! are exactly the index's. Those directories are neither read nor copied:
//! only the others are walked, and the commit view is the index's list with
//! the differences laid over it. As a guard against a damaged extension, a
//! cached tree counts only when its file count matches the index's files
//! under that directory.

use super::{Entry, FileList, Storage, View, walk_tree_pruned};
use crate::codes::Code;
use crate::repo::merge_join::{Paired, merge_join};
use crate::repo::{Repo, RepoError, Result};
use gix::ObjectId;
use gix::bstr::{BStr, BString};
use gix::index::extension::Tree as CachedTree;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A directory's cached tree, its subdirectories sorted by name.
struct Node<'a> {
    children: Vec<&'a CachedTree>,
}

impl<'a> Node<'a> {
    fn new(tree: &'a CachedTree) -> Node<'a> {
        let mut children: Vec<&CachedTree> = tree.children.iter().collect();
        children.sort_by(|a, b| a.name.as_slice().cmp(b.name.as_slice()));
        Node { children }
    }

    fn child(&self, name: &[u8]) -> Option<&'a CachedTree> {
        self.children
            .binary_search_by(|c| c.name.as_slice().cmp(name))
            .ok()
            .map(|i| self.children[i])
    }
}

/// The number of files of the sorted list under `dir` (empty: the root;
/// otherwise ending in `/`).
#[cfg(test)]
pub(super) fn files_under(list: &FileList, dir: &[u8]) -> usize {
    let (start, end) = range_under(list, 0, dir);
    end - start
}

/// The files of the sorted list under `dir` (empty: the root; otherwise
/// ending in `/`), searched from the `from`th file on: the first one and
/// the one past the last.
pub(super) fn range_under(list: &FileList, from: usize, dir: &[u8]) -> (usize, usize) {
    let Some((_, stem)) = dir.split_last() else {
        return (from.min(list.len()), list.len());
    };
    // Paths starting with `stem/` sort between `stem/` and `stem0`.
    let start = list.partition_point_from(from, |path| path < dir);
    let end = list.partition_point_from(start, |path| precedes_stem_zero(path, stem));
    (start, end)
}

/// Whether `path` sorts before `stem` followed by `0` (the byte after
/// `/`), without building that string for every directory asked.
fn precedes_stem_zero(path: &[u8], stem: &[u8]) -> bool {
    match path.get(..stem.len()) {
        // Shorter than the stem: before it unless it differs upwards.
        None => path <= stem,
        Some(head) if head != stem => head < stem,
        Some(_) => path.get(stem.len()).is_none_or(|next| *next < b'0'),
    }
}

/// Whether a cached tree vouches for the index's files under `dir` being
/// the tree `id`; `files_under` counts them (asked only when the ids agree).
fn vouches(
    cached: &CachedTree,
    id: &ObjectId,
    dir: &[u8],
    files_under: &mut dyn FnMut(&[u8]) -> usize,
) -> bool {
    cached.id == *id
        && cached
            .num_entries
            .is_some_and(|n| n as usize == files_under(dir))
}

/// The number of files under a directory, for directories asked mostly in
/// path order (a tree walk's): each search starts where the previous
/// directory's files did when this one sorts after it, which holds its
/// files at or after there.
struct Counter<'a> {
    list: &'a FileList,
    last_dir: Vec<u8>,
    last_start: usize,
}

impl<'a> Counter<'a> {
    fn new(list: &'a FileList) -> Self {
        Counter {
            list,
            last_dir: Vec::new(),
            last_start: 0,
        }
    }

    fn files_under(&mut self, dir: &[u8]) -> usize {
        let from = if dir >= self.last_dir.as_slice() {
            self.last_start
        } else {
            0
        };
        let (start, end) = range_under(self.list, from, dir);
        self.last_dir.clear();
        self.last_dir.extend_from_slice(dir);
        self.last_start = start;
        end - start
    }
}

/// Every directory the index's cached trees claim valid: `(dir, tree id,
/// number of index entries under it)`, `dir` empty for the root or ending
/// in `/`, sorted by `dir`.
pub(super) fn valid_trees(cache: Option<&CachedTree>) -> Vec<(BString, ObjectId, usize)> {
    let mut out = Vec::new();
    let Some(root) = cache else {
        return out;
    };
    let mut stack: Vec<(BString, &CachedTree)> = vec![(BString::default(), root)];
    while let Some((dir, node)) = stack.pop() {
        // An invalid directory's subdirectories may still be valid.
        if let Some(n) = node.num_entries {
            out.push((dir.clone(), node.id, n as usize));
        }
        for child in &node.children {
            let mut path = dir.clone();
            path.extend_from_slice(&child.name);
            path.push(b'/');
            stack.push((path, child));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The directories whose files in the index's sorted `list` are exactly a
/// git tree, by the index's cached trees (a count that disagrees with the
/// list is a damaged extension and vouches for nothing).
pub(super) fn vouched_trees(
    cache: Option<&CachedTree>,
    list: &FileList,
) -> Vec<(BString, ObjectId)> {
    // Sorted by directory: each search goes on from the previous one's.
    let mut counter = Counter::new(list);
    valid_trees(cache)
        .into_iter()
        .filter(|(dir, _, n)| *n == counter.files_under(dir))
        .map(|(dir, id, _)| (dir, id))
        .collect()
}

/// Check that every valid cached tree that `git commit` would write as is
/// (one that is not simply the commit `head`'s tree of that directory)
/// names exactly the index's files there. A crafted index could otherwise
/// show the gate one set of files while git writes another tree. A cached
/// tree whose object is missing is not used by git either, and is skipped.
/// Only directories that differ from `head` are read, level by level, so
/// the cost follows the staged change, not the repository.
pub(super) fn check_cached_trees(
    repo: &Repo,
    index: &View,
    cache: Option<&CachedTree>,
    head_tree: Option<ObjectId>,
) -> Result<()> {
    let list: &FileList = &index.entries;
    let Some(root) = cache else {
        return Ok(());
    };
    // Directories to look at, each with the commit's tree there. The cached
    // trees are walked from the root, and the commit's trees are read only
    // for directories whose cached tree is invalid: as `git add` leaves the
    // index, only the directories on the staged paths.
    let mut pending: Vec<(BString, &CachedTree, Option<ObjectId>)> =
        vec![(BString::default(), root, head_tree)];
    while let Some((dir, node, at_head)) = pending.pop() {
        if node.num_entries.is_some() {
            if at_head == Some(node.id) {
                // The commit's own tree: nothing below changes.
                continue;
            }
            // Git would not use a tree it lacks; it rebuilds this directory
            // from its subdirectories' cached trees, checked on their own.
            if repo.gix().has_object(node.id) {
                if !same_level_by_level(repo, list, &dir, node.id, at_head)? {
                    return Err(cache_tree_mismatch(&dir, node.id));
                }
                continue;
            }
        }
        if node.children.is_empty() {
            continue;
        }
        let mut data = Vec::new();
        let head_dirs = match at_head {
            Some(tree) => tree_level(repo, tree, &mut data)?.1,
            None => Vec::new(),
        };
        for child in &node.children {
            let mut child_dir = dir.clone();
            child_dir.extend_from_slice(&child.name);
            child_dir.push(b'/');
            let at_head = subtree(&head_dirs, &child.name);
            pending.push((child_dir, child, at_head));
        }
    }
    Ok(())
}

fn cache_tree_mismatch(dir: &[u8], id: ObjectId) -> RepoError {
    let shown = match dir.strip_suffix(b"/") {
        Some(dir) => String::from_utf8_lossy(dir).into_owned(),
        None => "/".to_string(),
    };
    RepoError::new(
        Code::git_index_cache_tree_mismatch,
        format!(
            "the index's cached tree for `{shown}` ({}) does not match the files the index lists there: `git commit` would write that tree, not the files staged, so the gate cannot judge what lands",
            super::short(id)
        ),
    )
}

/// One tree object's files (name and entry) and subtrees (name and id),
/// each sorted by name, borrowing the names from `data`, which holds the
/// object's bytes.
type TreeLevel<'b> = (Vec<(&'b [u8], Entry)>, Vec<(&'b [u8], ObjectId)>);

/// Read the tree `id` into `data` and list its level ([`TreeLevel`]).
fn tree_level<'b>(repo: &Repo, id: ObjectId, data: &'b mut Vec<u8>) -> Result<TreeLevel<'b>> {
    let iter = repo.tree_iter(&id, data).map_err(|e| {
        RepoError::new(
            Code::git_object_unavailable,
            format!("cannot read tree {id}: {e}"),
        )
    })?;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for entry in iter {
        let entry = entry.map_err(|e| {
            RepoError::new(
                Code::git_object_unavailable,
                format!("tree {id} cannot be decoded: {e}"),
            )
        })?;
        let name: &'b [u8] = entry.filename;
        match super::mode_of_tree_entry(entry.mode.kind()) {
            Some(mode) => files.push((
                name,
                Entry {
                    mode,
                    oid: entry.oid.to_owned(),
                },
            )),
            None => dirs.push((name, entry.oid.to_owned())),
        }
    }
    // Git's tree order sorts a subtree as if its name ended in `/`; the
    // files alone are already in byte order unless the tree is malformed.
    // A repeated name keeps its last entry.
    sort_by_name(&mut files);
    sort_by_name(&mut dirs);
    Ok((files, dirs))
}

/// A level's list sorted by name, a repeated name keeping its last entry.
fn sort_by_name<T>(list: &mut Vec<(&[u8], T)>) {
    if list.windows(2).all(|w| w[0].0 < w[1].0) {
        return;
    }
    list.reverse();
    // Stable: of a repeated name, the last one (now first) stays.
    list.sort_by(|a, b| a.0.cmp(b.0));
    list.dedup_by(|later, earlier| later.0 == earlier.0);
}

/// The subtree `name` of a level's sorted subtrees.
fn subtree(dirs: &[(&[u8], ObjectId)], name: &[u8]) -> Option<ObjectId> {
    dirs.binary_search_by(|(dir, _)| dir.cmp(&name))
        .ok()
        .map(|i| dirs[i].1)
}

/// True when the tree `id` holds exactly the index's files under `dir`,
/// reading only the subtrees that differ from `head` (the commit's tree of
/// the same directory): where they agree, git writes the commit's subtree
/// and the derived base takes the index's files there as the commit's.
fn same_level_by_level(
    repo: &Repo,
    list: &FileList,
    dir: &[u8],
    id: ObjectId,
    head: Option<ObjectId>,
) -> Result<bool> {
    let (mut data, mut head_data) = (Vec::new(), Vec::new());
    let (files, dirs) = tree_level(repo, id, &mut data)?;
    let head_dirs = match head {
        Some(head) => tree_level(repo, head, &mut head_data)?.1,
        None => Vec::new(),
    };
    let (index_files, mut index_dirs) = index_level(list, dir);
    index_dirs.sort_unstable();
    let files_agree = files.len() == index_files.len()
        && files
            .iter()
            .zip(&index_files)
            .all(|((name, entry), (indexed, indexed_entry))| {
                name == indexed && entry == *indexed_entry
            });
    if !files_agree || !dirs.iter().map(|(name, _)| *name).eq(index_dirs) {
        return Ok(false);
    }
    for (name, child) in &dirs {
        let head_child = subtree(&head_dirs, name);
        if head_child == Some(*child) {
            continue;
        }
        let mut child_dir = dir.to_vec();
        child_dir.extend_from_slice(name);
        child_dir.push(b'/');
        if !same_level_by_level(repo, list, &child_dir, *child, head_child)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// One directory of the index: its files (name and entry) and the names
/// of its subdirectories.
type Level<'a> = (Vec<(&'a [u8], &'a Entry)>, Vec<&'a [u8]>);

/// The index's files directly under `dir` (name and entry, by name) and
/// the names of its subdirectories there (in index order), from the sorted
/// `list`. Each subdirectory's files are jumped over by binary search, so
/// the cost follows the directory's own entries, not everything below it.
fn index_level<'a>(list: &'a FileList, dir: &[u8]) -> Level<'a> {
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    let mut at = list.partition_point(|path| path < dir);
    while let Some((path, entry)) = list.get(at) {
        let Some(rest) = path.strip_prefix(dir) else {
            break;
        };
        match rest.iter().position(|b| *b == b'/') {
            None => {
                files.push((rest, entry));
                at += 1;
            }
            Some(slash) => {
                dirs.push(&rest[..slash]);
                // A directory's paths are contiguous in byte order.
                let prefix = &path[..dir.len() + slash + 1];
                at = list.partition_point_from(at, |path| path.starts_with(prefix));
            }
        }
    }
    (files, dirs)
}

/// The files of the tree `tree`, as a view over the index view `index`
/// (which must not itself be derived) with `cache` its cached trees.
pub(super) fn commit_over_index(
    repo: &Repo,
    index: &View,
    cache: Option<&CachedTree>,
    tree: ObjectId,
    label: String,
) -> Result<View> {
    let list: &FileList = &index.entries;
    // The directories whose files are taken from the index unread are the
    // commit's trees there: the view knows them (`View::trees`).
    let derived = |patch: BTreeMap<BString, Option<Entry>>,
                   len: usize,
                   trees: Vec<(BString, ObjectId)>| View {
        label: label.clone(),
        storage: Storage::Objects,
        entries: Arc::clone(&index.entries),
        patch,
        len,
        trees: Arc::new(trees),
    };
    let mut counter = Counter::new(list);
    let mut count = |dir: &[u8]| counter.files_under(dir);
    if cache.is_some_and(|root| vouches(root, &tree, b"", &mut count)) {
        return Ok(derived(
            BTreeMap::new(),
            list.len(),
            vec![(BString::default(), tree)],
        ));
    }
    let mut skipped: Vec<(BString, ObjectId)> = Vec::new();
    let walked = walk_tree_pruned(repo, tree, cache.map(Node::new), |parent, dir, id| {
        let name = dir[..dir.len() - 1]
            .rsplit(|b| *b == b'/')
            .next()
            .unwrap_or_default();
        let cached = parent.as_ref().and_then(|node| node.child(name));
        match cached {
            Some(cached) if vouches(cached, id, dir, &mut count) => {
                skipped.push((dir.into(), *id));
                None
            }
            _ => Some(cached.map(Node::new)),
        }
    })?;
    let walked = walked.into_sorted_unique();

    // The index's files outside the skipped directories (sorted and
    // disjoint, as the walk found them).
    let skip: Vec<&[u8]> = skipped.iter().map(|(dir, _)| dir.as_slice()).collect();
    let outside: Vec<(&BStr, &Entry)> = index.entries_outside(&skip).collect();

    let len = list.len() - outside.len() + walked.len();
    let mut patch = BTreeMap::new();
    for pair in merge_join(walked.iter(), outside, |(ours, _), (theirs, _)| {
        ours.cmp(theirs)
    }) {
        match pair {
            Paired::Left((path, entry)) => {
                patch.insert(path.to_owned(), Some(*entry));
            }
            Paired::Right((path, _)) => {
                patch.insert(path.to_owned(), None);
            }
            Paired::Both((path, entry), (_, indexed)) => {
                if entry != indexed {
                    patch.insert(path.to_owned(), Some(*entry));
                }
            }
        }
    }
    Ok(derived(patch, len, skipped))
}

#[cfg(test)]
mod tests {
    use super::super::EntryMode;
    use super::*;

    fn list(paths: &[&str]) -> FileList {
        FileList::from_pairs(
            paths
                .iter()
                .map(|p| {
                    (
                        BString::from(*p),
                        Entry {
                            mode: EntryMode::Regular,
                            oid: ObjectId::null(gix::hash::Kind::Sha1),
                        },
                    )
                })
                .collect(),
        )
    }

    proptest::proptest! {
        /// The comparison with `stem` + `0` is the byte-wise one.
        #[test]
        fn precedes_stem_zero_is_byte_order(
            path in proptest::collection::vec(proptest::sample::select(b"ab0/.".to_vec()), 0..8),
            stem in proptest::collection::vec(proptest::sample::select(b"ab0/.".to_vec()), 0..6),
        ) {
            let mut upper = stem.clone();
            upper.push(b'0');
            proptest::prop_assert_eq!(precedes_stem_zero(&path, &stem), path < upper);
        }
    }

    #[test]
    fn files_under_counts_only_that_directory() {
        let l = list(&["a-b", "a/c", "a/d/e", "a0", "ab/x", "b"]);
        assert_eq!(files_under(&l, b""), 6);
        assert_eq!(files_under(&l, b"a/"), 2);
        assert_eq!(files_under(&l, b"a/d/"), 1);
        assert_eq!(files_under(&l, b"ab/"), 1);
        assert_eq!(files_under(&l, b"c/"), 0);
    }

    #[test]
    fn index_level_lists_direct_files_and_jumps_over_subdirectories() {
        let l = list(&["a-b", "a/c", "a/d/e", "a/d/f", "a0", "ab/x", "ab/y/z", "b"]);
        let names = |files: Vec<(&[u8], &Entry)>| -> Vec<Vec<u8>> {
            files.into_iter().map(|(name, _)| name.to_vec()).collect()
        };
        let (files, dirs) = index_level(&l, b"");
        assert_eq!(names(files), [&b"a-b"[..], b"a0", b"b"]);
        assert_eq!(dirs, [&b"a"[..], b"ab"]);
        let (files, dirs) = index_level(&l, b"a/");
        assert_eq!(names(files), [&b"c"[..]]);
        assert_eq!(dirs, [&b"d"[..]]);
        let (files, dirs) = index_level(&l, b"c/");
        assert!(files.is_empty() && dirs.is_empty());
    }
}
