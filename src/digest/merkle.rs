//! The tree-v2 digest: a Merkle hash over directories, so the digest of a
//! git tree can be memoized by tree id and the digests of several commits
//! cost only the directories in which they differ.
//!
//! Byte layout. Every directory's digest is SHA-256 over
//!
//! ```text
//! "mastermind-hooks-tree-v2" 0x00
//! for every covered entry of the directory, in git's tree order (a
//! directory sorts as its name followed by "/"):
//!     name bytes                      (one path component, never NUL or "/")
//!     0x00
//!     mode as octal ASCII             ("100644", "100755", "120000",
//!                                      "160000", or "40000" for a directory)
//!     0x00
//!     digest, 32 raw bytes
//! ```
//!
//! where a file's digest is the sha256 of its content, a symlink's the
//! sha256 of its target text, a submodule's the sha256 of its commit id as
//! lowercase hex ASCII (the same 32-byte stand-ins as tree-v1), and a
//! directory's is its own digest by this rule. A path is covered unless
//! [`crate::bookkeeping::outside_digest`] says it is the agents'
//! bookkeeping (a task folder's known artifacts, configured agent files
//! inside a task folder, the controller's runtime files). A directory with
//! no covered entry is left out of its parent. The digest of a view is its
//! root directory's, lowercase hex; an empty view hashes the domain tag
//! alone.
//!
//! Because a flat list of paths sorted by bytes visits directories depth
//! first in git's tree order, the same value comes from a git tree (walked
//! here, memoized by tree id) and from the sorted flat list of the index or
//! the working tree ([`TreeV2`], pure).

use super::AssemblyError;
use super::cache::{LazyTable, SHA256_STEM, Sha256Cache};
use super::view::{CacheSource, Stats, assembly_failed, blob_shas, file_shas};
use super::{TreeV1, submodule_sha256};
use crate::bookkeeping::{MASTERMIND_DIR, TASKS_DIR, outside_digest};
use crate::codes::Code;
use crate::config::{Config, Globs};
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{EntryMode, View};
use crate::repo::{Repo, RepoError, Result};
use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// The domain tag every tree-v2 directory digest starts with.
pub const TREE_V2_DOMAIN: &[u8] = b"mastermind-hooks-tree-v2\0";
/// A file's mode and the SHA-256 the tree digest gives it.
pub type FileLeaf = (EntryMode, [u8; 32]);

/// The mode a directory entry is written with (git's, without a leading 0).
pub const DIRECTORY_MODE: &str = "40000";

/// The digest of a directory with no covered entry (the empty view's).
pub fn empty_directory() -> [u8; 32] {
    Sha256::digest(TREE_V2_DOMAIN).into()
}

/// One directory being hashed.
struct Level {
    hasher: Sha256,
    /// Where this directory's name starts in the open path.
    name_start: usize,
}

impl Level {
    fn new(name_start: usize) -> Level {
        let mut hasher = Sha256::new();
        hasher.update(TREE_V2_DOMAIN);
        Level { hasher, name_start }
    }
}

fn entry_bytes(hasher: &mut Sha256, name: &[u8], mode: &str, digest: &[u8; 32]) {
    hasher.update(name);
    hasher.update([0]);
    hasher.update(mode.as_bytes());
    hasher.update([0]);
    hasher.update(digest);
}

/// A directory's path (ending in `/`, empty for the root) and digest.
pub type DirDigest = (Vec<u8>, [u8; 32]);

/// Incremental tree-v2 assembly from a flat list of covered files in
/// ascending byte order of their paths (pure). The caller leaves out what
/// is not covered.
pub struct TreeV2 {
    /// Open directories, the root first.
    stack: Vec<Level>,
    /// The path of the innermost open directory, with its trailing `/`.
    open: Vec<u8>,
    last: Option<Vec<u8>>,
    /// The last directory added whole: nothing may follow inside it.
    sealed: Option<Vec<u8>>,
    files: usize,
    /// With [`TreeV2::recording`]: every directory hashed, with its path.
    closed: Option<Vec<DirDigest>>,
}

impl Default for TreeV2 {
    fn default() -> Self {
        TreeV2::new()
    }
}

impl TreeV2 {
    pub fn new() -> TreeV2 {
        TreeV2 {
            stack: vec![Level::new(0)],
            open: Vec::new(),
            last: None,
            sealed: None,
            files: 0,
            closed: None,
        }
    }

    /// An assembly that remembers every directory digest it computes
    /// (see [`TreeV2::finish_recorded`]).
    pub fn recording() -> TreeV2 {
        TreeV2 {
            closed: Some(Vec::new()),
            ..TreeV2::new()
        }
    }

    /// Close the innermost directory into its parent.
    fn close(&mut self) {
        let Some(level) = self.stack.pop() else {
            return;
        };
        let digest: [u8; 32] = level.hasher.finalize().into();
        if let Some(closed) = self.closed.as_mut() {
            closed.push((self.open.clone(), digest));
        }
        let name_end = self.open.len() - 1;
        if let Some(parent) = self.stack.last_mut() {
            entry_bytes(
                &mut parent.hasher,
                &self.open[level.name_start..name_end],
                DIRECTORY_MODE,
                &digest,
            );
        }
        self.open.truncate(level.name_start);
    }

    /// Add one covered file. Paths must come in strictly ascending byte
    /// order, with no empty component.
    pub fn push(
        &mut self,
        path: &[u8],
        mode: EntryMode,
        sha256: &[u8; 32],
    ) -> std::result::Result<(), AssemblyError> {
        self.push_entry(path, mode.octal(), sha256)?;
        self.files += 1;
        Ok(())
    }

    /// Add a whole directory (`dir` ends in `/`) whose digest is known;
    /// `None` for one with no covered entry. Nothing inside it may follow.
    pub fn push_dir(
        &mut self,
        dir: &[u8],
        digest: Option<&[u8; 32]>,
    ) -> std::result::Result<(), AssemblyError> {
        let Some(name) = dir.strip_suffix(b"/") else {
            return Err(AssemblyError::InvalidPath { path: dir.to_vec() });
        };
        // A directory sorts as its name followed by `/`.
        self.check_order(name, dir)?;
        if let Some(digest) = digest {
            self.add_entry(name, DIRECTORY_MODE, digest);
        }
        self.sealed = Some(dir.to_vec());
        Ok(())
    }

    /// Validate `path` and check that its sort key `key` (the path, or for
    /// a directory the path followed by `/`) comes after everything so far.
    fn check_order(&mut self, path: &[u8], key: &[u8]) -> std::result::Result<(), AssemblyError> {
        if path.is_empty()
            || path.contains(&0)
            || path.starts_with(b"/")
            || path.ends_with(b"/")
            || path.find(b"//").is_some()
        {
            return Err(AssemblyError::InvalidPath {
                path: path.to_vec(),
            });
        }
        let out_of_order = || AssemblyError::NotAscending {
            path: path.to_vec(),
        };
        if self
            .sealed
            .as_ref()
            .is_some_and(|dir| path.starts_with(dir))
        {
            return Err(out_of_order());
        }
        match &mut self.last {
            Some(last) if last.as_slice() >= key => return Err(out_of_order()),
            Some(last) => {
                last.clear();
                last.extend_from_slice(key);
            }
            None => self.last = Some(key.to_vec()),
        }
        Ok(())
    }

    fn push_entry(
        &mut self,
        path: &[u8],
        mode: &str,
        digest: &[u8; 32],
    ) -> std::result::Result<(), AssemblyError> {
        self.check_order(path, path)?;
        self.add_entry(path, mode, digest);
        Ok(())
    }

    /// Add an entry already checked for order.
    fn add_entry(&mut self, path: &[u8], mode: &str, digest: &[u8; 32]) {
        while !path.starts_with(&self.open) {
            self.close();
        }
        // Open the directories between the innermost open one and the entry.
        let mut rest = &path[self.open.len()..];
        while let Some(slash) = rest.find_byte(b'/') {
            let start = self.open.len();
            self.open.extend_from_slice(&rest[..=slash]);
            self.stack.push(Level::new(start));
            rest = &rest[slash + 1..];
        }
        let top = self.stack.len() - 1;
        entry_bytes(&mut self.stack[top].hasher, rest, mode, digest);
    }

    /// Files added so far.
    pub fn files(&self) -> usize {
        self.files
    }

    /// The root digest, raw.
    pub fn finish_raw(self) -> [u8; 32] {
        self.finish_recorded().0
    }

    /// The root digest and, when recording, every directory digest
    /// computed (path ending in `/`), the root's last with an empty path.
    pub fn finish_recorded(mut self) -> ([u8; 32], Vec<DirDigest>) {
        while self.stack.len() > 1 {
            self.close();
        }
        let root = match self.stack.pop() {
            Some(root) => root.hasher.finalize().into(),
            None => empty_directory(),
        };
        let mut closed = self.closed.take();
        if let Some(closed) = closed.as_mut() {
            closed.push((Vec::new(), root));
        }
        (root, closed.unwrap_or_default())
    }

    /// The root digest, lowercase hex.
    pub fn finish(self) -> String {
        hex::encode(self.finish_raw())
    }
}

/// The tree-v2 digest of `(path, mode, sha256)` entries of covered files.
pub fn tree_v2<'a>(
    entries: impl IntoIterator<Item = (&'a [u8], EntryMode, [u8; 32])>,
) -> std::result::Result<String, AssemblyError> {
    let mut tree = TreeV2::new();
    for (path, mode, sha) in entries {
        tree.push(path, mode, &sha)?;
    }
    Ok(tree.finish())
}

/// How a directory's memoized digest is keyed. A directory's covered set
/// depends on where it sits only at the root, at `.mastermind/` and under
/// `.mastermind/tasks/` (where bookkeeping lives); everywhere else every
/// path is covered and the tree id alone decides.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum MemoKey {
    Tree(ObjectId),
    Placed(BString, ObjectId),
}

fn memo_key(dir: &[u8], id: ObjectId) -> MemoKey {
    let placed =
        dir.is_empty() || dir == MASTERMIND_DIR.as_bytes() || dir.starts_with(TASKS_DIR.as_bytes());
    if placed {
        MemoKey::Placed(dir.into(), id)
    } else {
        MemoKey::Tree(id)
    }
}

/// What stands for one entry of a directory being digested. Indexes are
/// `u32` and names live in one arena so a plan of 100,000 files stays a
/// few MiB (a tree's entry count is far below `u32::MAX`).
#[derive(Clone, Copy)]
enum Slot {
    /// Index into the plan's known digests.
    Known(u32),
    /// Index into the blob jobs.
    Blob(u32),
    /// Index into the directories being digested.
    Dir(u32),
}

/// One entry of a directory being digested: its name (a range of the
/// plan's name arena), mode and what stands for its content.
#[derive(Clone, Copy)]
struct PlannedEntry {
    name_at: u32,
    name_len: u32,
    mode: &'static str,
    slot: Slot,
}

/// A directory being digested: its entries in tree order.
struct DirWork {
    key: MemoKey,
    entries: Vec<PlannedEntry>,
}

/// The directories of a tree to digest, the blobs they need, and the
/// storage their entries point into.
struct Plan {
    dirs: Vec<DirWork>,
    blobs: Vec<ObjectId>,
    names: Vec<u8>,
    known: Vec<[u8; 32]>,
}

impl Plan {
    fn name(&self, entry: &PlannedEntry) -> &[u8] {
        let start = entry.name_at as usize;
        &self.names[start..start + entry.name_len as usize]
    }
}

/// A plan index or length as `u32`.
fn small(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        RepoError::new(
            Code::git_object_unavailable,
            "a tree too large to digest (over 4 GiB of names or 4 billion entries)",
        )
    })
}

/// Git's tree order: a directory sorts as its name followed by `/`.
fn tree_order(a: &[u8], a_mode: &str, b: &[u8], b_mode: &str) -> std::cmp::Ordering {
    let slash = |mode: &str| (mode == DIRECTORY_MODE).then_some(&b'/');
    a.iter()
        .chain(slash(a_mode))
        .cmp(b.iter().chain(slash(b_mode)))
}

impl CacheSource for LazyTable<'_> {
    fn cache(&mut self) -> Option<&mut Sha256Cache> {
        self.get()
    }
}

/// The stem of the local table of tree-v2 directory digests by tree id
/// (directories outside `.mastermind/`, whose digest the id alone decides).
pub const TREE_MEMO_STEM: &str = "tree-v2-memo";

/// True when a path is covered (not bookkeeping) under these globs.
fn covered_by(globs: &[&Globs], path: &[u8]) -> bool {
    // Bookkeeping lives under `.mastermind/` and is ASCII; any other path,
    // valid UTF-8 or not, is content.
    if !path.starts_with(MASTERMIND_DIR.as_bytes()) {
        return true;
    }
    match std::str::from_utf8(path) {
        Ok(path) => !outside_digest(path, globs),
        Err(_) => true,
    }
}

/// Tree digests for one run: the repository, the agent-file globs of the
/// configuration in force, the sha256 cache when allowed, and the digests
/// of the directories already computed.
pub struct TreeDigester<'r> {
    repo: &'r Repo,
    agent_files: Vec<Globs>,
    cache: LazyTable<'r>,
    /// Directory digests by tree id kept across runs (with the cache).
    tree_memo: LazyTable<'r>,
    memo: HashMap<MemoKey, Option<[u8; 32]>>,
    stats: Stats,
}

impl<'r> TreeDigester<'r> {
    /// `use_cache`: the local sha256-by-blob-id cache may be read and
    /// extended (never in CI). The cache is opened on first need and saved
    /// when the digester is dropped.
    pub fn new(repo: &'r Repo, config: &Config, use_cache: bool) -> Self {
        TreeDigester {
            repo,
            agent_files: config.agent_files().into_iter().cloned().collect(),
            cache: LazyTable::new(use_cache.then_some(repo), SHA256_STEM),
            tree_memo: LazyTable::new(use_cache.then_some(repo), TREE_MEMO_STEM),
            memo: HashMap::new(),
            stats: Stats::default(),
        }
    }

    /// A digester that uses `cache` (an explicitly opened file, for tests
    /// and benchmarks) and the tree memo beside it, instead of the
    /// per-user ones.
    pub fn with_cache(repo: &'r Repo, config: &Config, cache: Sha256Cache) -> Self {
        let mut digester = TreeDigester::new(repo, config, true);
        digester.tree_memo = LazyTable::opened(cache.sibling(TREE_MEMO_STEM));
        digester.cache = LazyTable::opened(cache);
        digester
    }

    /// Work done so far (bytes hashed, cache hits).
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The digest of a git tree (a commit's tree), version 2, memoized by
    /// subtree id.
    pub fn of_tree(&mut self, tree: gix::ObjectId) -> Result<String> {
        let key = memo_key(b"", tree);
        if let Some(found) = self.memo.get(&key) {
            return Ok(hex::encode(found.unwrap_or_else(empty_directory)));
        }
        let plan = self.plan_tree(tree)?;
        self.stats.files += plan
            .dirs
            .iter()
            .flat_map(|d| &d.entries)
            .filter(|e| e.mode != DIRECTORY_MODE)
            .count();
        let repo = self.repo;
        let mut stats = self.stats;
        let shas = blob_shas(repo, &plan.blobs, &mut self.cache, &mut stats)?;
        self.stats = stats;
        let mut digests: Vec<Option<[u8; 32]>> = vec![None; plan.dirs.len()];
        for (i, dir) in plan.dirs.iter().enumerate().rev() {
            let mut hasher: Option<Sha256> = None;
            for entry in &dir.entries {
                let digest = match entry.slot {
                    Slot::Known(k) => plan.known[k as usize],
                    Slot::Blob(j) => shas[j as usize],
                    Slot::Dir(k) => match digests[k as usize] {
                        Some(d) => d,
                        None => continue,
                    },
                };
                let h = hasher.get_or_insert_with(|| {
                    let mut h = Sha256::new();
                    h.update(TREE_V2_DOMAIN);
                    h
                });
                entry_bytes(h, plan.name(entry), entry.mode, &digest);
            }
            digests[i] = hasher.map(|h| h.finalize().into());
        }
        let dirs = plan.dirs;
        for (dir, digest) in dirs.into_iter().zip(&digests) {
            if let (MemoKey::Tree(id), Some(digest)) = (&dir.key, digest)
                && let Some(memo) = self.tree_memo.get()
            {
                memo.insert(id, *digest);
            }
            self.memo.insert(dir.key, *digest);
        }
        Ok(hex::encode(
            digests
                .first()
                .copied()
                .flatten()
                .unwrap_or_else(empty_directory),
        ))
    }

    /// Read the directories of `tree` that are not memoized, in pre-order
    /// (a directory before its subdirectories), and the blobs they need.
    fn plan_tree(&mut self, tree: ObjectId) -> Result<Plan> {
        use gix::objs::FindExt;
        let objects = &self.repo.gix().objects;
        let mut dirs: Vec<DirWork> = Vec::new();
        let mut blobs: Vec<ObjectId> = Vec::new();
        let mut blob_index: HashMap<ObjectId, u32> = HashMap::new();
        let mut names: Vec<u8> = Vec::new();
        let mut known: Vec<[u8; 32]> = Vec::new();
        let mut pending: Vec<(usize, BString, ObjectId)> = vec![(0, BString::default(), tree)];
        dirs.push(DirWork {
            key: memo_key(b"", tree),
            entries: Vec::new(),
        });
        let mut buffer = Vec::new();
        let globs: Vec<&Globs> = self.agent_files.iter().collect();
        while let Some((index, prefix, id)) = pending.pop() {
            let data = objects.find_tree_iter(&id, &mut buffer).map_err(|e| {
                RepoError::new(
                    Code::git_object_unavailable,
                    format!("cannot read tree {id}: {e}"),
                )
            })?;
            let mut entries = Vec::new();
            for entry in data {
                let entry = entry.map_err(|e| {
                    RepoError::new(
                        Code::git_object_unavailable,
                        format!("tree {id} cannot be decoded: {e}"),
                    )
                })?;
                let name: &[u8] = entry.filename.as_ref();
                let oid = entry.oid.to_owned();
                let mut plan = |mode: &'static str, slot: Slot| -> Result<PlannedEntry> {
                    let name_at = small(names.len())?;
                    names.extend_from_slice(name);
                    Ok(PlannedEntry {
                        name_at,
                        name_len: small(name.len())?,
                        mode,
                        slot,
                    })
                };
                // Only paths under `.mastermind/` can be bookkeeping.
                let sensitive = prefix.is_empty() || prefix.starts_with(MASTERMIND_DIR.as_bytes());
                let covered = |name: &[u8]| {
                    !sensitive || {
                        let mut path = prefix.clone();
                        path.extend_from_slice(name);
                        covered_by(&globs, &path)
                    }
                };
                use gix::object::tree::EntryKind;
                match entry.mode.kind() {
                    EntryKind::Tree => {
                        let mut path = prefix.clone();
                        path.extend_from_slice(name);
                        path.push(b'/');
                        let key = memo_key(&path, oid);
                        let kept = match &key {
                            MemoKey::Tree(id) if !self.memo.contains_key(&key) => {
                                self.tree_memo.get().and_then(|memo| memo.get(id)).map(Some)
                            }
                            _ => None,
                        };
                        if let Some(found) = kept {
                            self.memo.insert(key.clone(), found);
                        }
                        match self.memo.get(&key) {
                            Some(Some(digest)) => {
                                let k = small(known.len())?;
                                known.push(*digest);
                                entries.push(plan(DIRECTORY_MODE, Slot::Known(k))?);
                            }
                            Some(None) => {}
                            None => {
                                let child = dirs.len();
                                dirs.push(DirWork {
                                    key,
                                    entries: Vec::new(),
                                });
                                pending.push((child, path, oid));
                                entries.push(plan(DIRECTORY_MODE, Slot::Dir(small(child)?))?);
                            }
                        }
                    }
                    EntryKind::Commit => {
                        if covered(name) {
                            let k = small(known.len())?;
                            known.push(submodule_sha256(&oid.to_hex().to_string()));
                            entries.push(plan(EntryMode::Submodule.octal(), Slot::Known(k))?);
                        }
                    }
                    kind => {
                        if covered(name) {
                            let mode = match kind {
                                EntryKind::BlobExecutable => EntryMode::Executable,
                                EntryKind::Link => EntryMode::Symlink,
                                _ => EntryMode::Regular,
                            };
                            let next = small(blobs.len())?;
                            let job = *blob_index.entry(oid).or_insert(next);
                            if job == next {
                                blobs.push(oid);
                            }
                            entries.push(plan(mode.octal(), Slot::Blob(job))?);
                        }
                    }
                }
            }
            // A well-formed tree is already in tree order; a malformed one
            // is put in it, a repeated name keeping its last entry (as the
            // flat view of the same tree does).
            let order = |a: &PlannedEntry, b: &PlannedEntry| {
                let name = |e: &PlannedEntry| {
                    let start = e.name_at as usize;
                    &names[start..start + e.name_len as usize]
                };
                tree_order(name(a), a.mode, name(b), b.mode)
            };
            if !entries.windows(2).all(|w| order(&w[0], &w[1]).is_lt()) {
                entries.reverse();
                entries.sort_by(order);
                entries.dedup_by(|later, earlier| order(later, earlier).is_eq());
            }
            dirs[index].entries = entries;
        }
        Ok(Plan {
            dirs,
            blobs,
            names,
            known,
        })
    }

    /// The digest of a directory `dir` that is the tree `id`, when this run
    /// or the local memo knows it (`Some(None)`: no covered entry).
    fn known_dir(&mut self, dir: &[u8], id: ObjectId) -> Option<Option<[u8; 32]>> {
        let key = memo_key(dir, id);
        if let Some(found) = self.memo.get(&key) {
            return Some(*found);
        }
        let MemoKey::Tree(id) = key else {
            return None;
        };
        let digest = self.tree_memo.get()?.get(&id)?;
        self.memo.insert(key, Some(digest));
        Some(Some(digest))
    }

    /// The digest of any view (index, working tree, merge), version 2.
    /// Directories the view vouches to be known trees (the index's cached
    /// trees, a commit's subtrees) are taken from the memo when it knows
    /// them, and remembered when it does not.
    pub fn of_view(&mut self, view: &View) -> Result<String> {
        let repo = self.repo;
        // The outermost known directories, sorted and disjoint.
        let mut shortcuts: Vec<(&[u8], Option<[u8; 32]>)> = Vec::new();
        for (dir, id) in view.known_trees() {
            if shortcuts
                .last()
                .is_some_and(|(last, _)| dir.starts_with(last))
            {
                continue;
            }
            if let Some(found) = self.known_dir(dir, *id) {
                shortcuts.push((dir.as_slice(), found));
            }
        }
        if let Some((b"", root)) = shortcuts.first() {
            return Ok(hex::encode(root.unwrap_or_else(empty_directory)));
        }
        // The shortcuts' files are never looked at.
        let skip: Vec<&[u8]> = shortcuts.iter().map(|(dir, _)| *dir).collect();
        let mut stats = self.stats;
        let globs: Vec<&Globs> = self.agent_files.iter().collect();
        let covered = |path: &[u8]| covered_by(&globs, path);
        let rows = file_shas(repo, view, &skip, covered, &mut self.cache, &mut stats)?;
        stats.files += rows.len();
        self.stats = stats;
        let learn = !view.known_trees().is_empty();
        let mut tree = if learn {
            TreeV2::recording()
        } else {
            TreeV2::new()
        };
        let mut dirs = shortcuts.iter().peekable();
        for (path, mode, sha) in &rows {
            while let Some((dir, digest)) = dirs.next_if(|(dir, _)| *dir < path.as_bytes()) {
                tree.push_dir(dir, digest.as_ref())
                    .map_err(assembly_failed)?;
            }
            tree.push(path.as_bytes(), *mode, sha)
                .map_err(assembly_failed)?;
        }
        for (dir, digest) in dirs {
            tree.push_dir(dir, digest.as_ref())
                .map_err(assembly_failed)?;
        }
        let (root, closed) = tree.finish_recorded();
        if learn {
            let closed: HashMap<Vec<u8>, [u8; 32]> = closed.into_iter().collect();
            for (dir, id) in view.known_trees() {
                let Some(digest) = closed.get(dir.as_slice()) else {
                    continue;
                };
                let key = memo_key(dir, *id);
                if let MemoKey::Tree(id) = &key
                    && let Some(memo) = self.tree_memo.get()
                {
                    memo.insert(id, *digest);
                }
                self.memo.insert(key, Some(*digest));
            }
        }
        Ok(hex::encode(root))
    }

    /// The value the tree digest gives each of `paths` in `at`, with the
    /// file's mode (`None`: no file there), in the order of `paths`: the
    /// SHA-256 of a file's content, of a symlink's target text, of a
    /// submodule's commit id in hex. What a receipt records of its task's
    /// territory, and what the gate compares it with; a path is looked up,
    /// never the whole snapshot hashed (a working-tree view hashes only the
    /// files named, reusing what it read).
    pub fn leaves(&mut self, at: Snapshot<'_>, paths: &[&str]) -> Result<Vec<Option<FileLeaf>>> {
        let repo = self.repo;
        let mut stats = self.stats;
        let mut out: Vec<Option<FileLeaf>> = vec![None; paths.len()];
        match at {
            Snapshot::View(view) if view.is_worktree() => {
                // Every file of the view is offered to `keep`, and a task
                // wants a few: a sorted list answers each with a comparison
                // or two, where hashing every path of the view was most of
                // the stop hook's judging (issue 53).
                let mut wanted: Vec<(&[u8], usize)> = paths
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.as_bytes(), i))
                    .collect();
                wanted.sort_unstable();
                let rows = file_shas(
                    repo,
                    view,
                    &[],
                    |path| wanted.binary_search_by(|(p, _)| (*p).cmp(path)).is_ok(),
                    &mut self.cache,
                    &mut stats,
                )?;
                for (path, mode, sha) in rows {
                    let path = path.as_bytes();
                    let first = wanted.partition_point(|(p, _)| *p < path);
                    for (_, i) in wanted[first..].iter().take_while(|(p, _)| *p == path) {
                        out[*i] = Some((mode, sha));
                    }
                }
            }
            _ => {
                let mut ids: Vec<ObjectId> = Vec::new();
                let mut slots: Vec<(usize, EntryMode)> = Vec::new();
                for (i, path) in paths.iter().enumerate() {
                    let Some(entry) = at.get(repo, path)? else {
                        continue;
                    };
                    if entry.mode == EntryMode::Submodule {
                        out[i] = Some((
                            entry.mode,
                            submodule_sha256(&entry.oid.to_hex().to_string()),
                        ));
                    } else {
                        ids.push(entry.oid);
                        slots.push((i, entry.mode));
                    }
                }
                let shas = blob_shas(repo, &ids, &mut self.cache, &mut stats)?;
                for ((i, mode), sha) in slots.into_iter().zip(shas) {
                    out[i] = Some((mode, sha));
                }
            }
        }
        self.stats = stats;
        Ok(out)
    }

    /// Version 1, for receipts that recorded it.
    pub fn of_view_v1(&mut self, view: &View) -> Result<String> {
        let repo = self.repo;
        let mut stats = self.stats;
        let rows = file_shas(
            repo,
            view,
            &[],
            super::is_covered,
            &mut self.cache,
            &mut stats,
        )?;
        stats.files += rows.len();
        self.stats = stats;
        let mut tree = TreeV1::new();
        for (path, mode, sha) in &rows {
            tree.push(path.as_bytes(), *mode, sha)
                .map_err(assembly_failed)?;
        }
        Ok(tree.finish())
    }
}

impl Drop for TreeDigester<'_> {
    /// The cache learns what this run hashed (failures ignored: it is an
    /// optimisation).
    fn drop(&mut self) {
        self.cache.save();
        self.tree_memo.save();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(data: &[u8]) -> [u8; 32] {
        Sha256::digest(data).into()
    }

    fn dir(entries: &[(&str, &str, [u8; 32])]) -> [u8; 32] {
        let mut bytes = TREE_V2_DOMAIN.to_vec();
        for (name, mode, digest) in entries {
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(0);
            bytes.extend_from_slice(mode.as_bytes());
            bytes.push(0);
            bytes.extend_from_slice(digest);
        }
        sha(&bytes)
    }

    #[test]
    fn layout_is_exactly_the_documented_bytes() {
        let a = sha(b"hello\n");
        let link = sha(b"target/file");
        let sub = submodule_sha256("0123456789abcdef0123456789abcdef01234567");
        let got = tree_v2([
            (&b"a-b"[..], EntryMode::Regular, a),
            (&b"a/x/run"[..], EntryMode::Executable, a),
            (&b"a/y"[..], EntryMode::Symlink, link),
            (&b"a0"[..], EntryMode::Submodule, sub),
        ])
        .unwrap();
        let x = dir(&[("run", "100755", a)]);
        let inner = dir(&[("x", "40000", x), ("y", "120000", link)]);
        let root = dir(&[
            ("a-b", "100644", a),
            ("a", "40000", inner),
            ("a0", "160000", sub),
        ]);
        assert_eq!(got, hex::encode(root));
        assert_eq!(tree_v2([]).unwrap(), hex::encode(sha(TREE_V2_DOMAIN)));
    }

    #[test]
    fn every_part_of_an_entry_changes_the_digest() {
        let one = sha(b"1");
        let base = tree_v2([(&b"d/a"[..], EntryMode::Regular, one)]).unwrap();
        for other in [
            tree_v2([(&b"d/a"[..], EntryMode::Executable, one)]).unwrap(),
            tree_v2([(&b"d/a"[..], EntryMode::Regular, sha(b"2"))]).unwrap(),
            tree_v2([(&b"d/b"[..], EntryMode::Regular, one)]).unwrap(),
            tree_v2([(&b"e/a"[..], EntryMode::Regular, one)]).unwrap(),
            tree_v2([
                (&b"d/a"[..], EntryMode::Regular, one),
                (&b"d/c"[..], EntryMode::Regular, one),
            ])
            .unwrap(),
            // The same file one level up is not the same tree.
            tree_v2([(&b"a"[..], EntryMode::Regular, one)]).unwrap(),
        ] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn order_and_paths_are_enforced() {
        let one = sha(b"1");
        for bad in [&b"/a"[..], b"a/", b"a//b", b"", b"a\0b"] {
            assert!(
                matches!(
                    tree_v2([(bad, EntryMode::Regular, one)]),
                    Err(AssemblyError::InvalidPath { .. })
                ),
                "{bad:?}"
            );
        }
        assert!(matches!(
            tree_v2([
                (&b"b"[..], EntryMode::Regular, one),
                (&b"a/c"[..], EntryMode::Regular, one)
            ]),
            Err(AssemblyError::NotAscending { .. })
        ));
    }

    #[test]
    fn a_known_directory_stands_for_its_files() {
        let one = sha(b"1");
        let files: [(&[u8], EntryMode, [u8; 32]); 5] = [
            (b"a-b", EntryMode::Regular, one),
            (b"a.b", EntryMode::Regular, one),
            (b"a/x", EntryMode::Regular, one),
            (b"a/y/z", EntryMode::Executable, one),
            (b"a0", EntryMode::Regular, one),
        ];
        let mut recording = TreeV2::recording();
        for (path, mode, sha) in &files {
            recording.push(path, *mode, sha).unwrap();
        }
        let (root, closed) = recording.finish_recorded();
        let a = closed.iter().find(|(dir, _)| dir == b"a/").unwrap().1;
        let mut shortcut = TreeV2::new();
        shortcut.push(b"a-b", EntryMode::Regular, &one).unwrap();
        shortcut.push(b"a.b", EntryMode::Regular, &one).unwrap();
        shortcut.push_dir(b"a/", Some(&a)).unwrap();
        assert!(matches!(
            shortcut.push(b"a/z", EntryMode::Regular, &one),
            Err(AssemblyError::NotAscending { .. })
        ));
        shortcut.push(b"a0", EntryMode::Regular, &one).unwrap();
        assert_eq!(shortcut.finish_raw(), root);
        assert_eq!(closed.last().map(|(dir, _)| dir.as_slice()), Some(&b""[..]));
    }

    #[test]
    fn memo_keys_depend_on_placement_only_where_bookkeeping_lives() {
        let id = ObjectId::null(gix::hash::Kind::Sha1);
        assert_eq!(memo_key(b"src/", id), MemoKey::Tree(id));
        assert_eq!(memo_key(b".mastermind/tools/", id), MemoKey::Tree(id));
        assert_eq!(memo_key(b"src/.mastermind/", id), MemoKey::Tree(id));
        for placed in [
            &b""[..],
            b".mastermind/",
            b".mastermind/tasks/",
            b".mastermind/tasks/a/verification/",
        ] {
            assert_eq!(memo_key(placed, id), MemoKey::Placed(placed.into(), id));
        }
    }

    #[test]
    fn bookkeeping_is_left_out_and_everything_else_covered() {
        let config = Config::strict_defaults();
        let globs: Vec<&Globs> = config.agent_files().into_iter().collect();
        for path in [
            ".mastermind/tasks/a/spec.md",
            ".mastermind/tasks/a/verification/unit.tree.json",
            ".mastermind/tasks/a/adversarial-findings.md",
            ".mastermind/mmcg.db",
        ] {
            assert!(!covered_by(&globs, path.as_bytes()), "{path}");
        }
        for path in [
            ".mastermind/hooks.yaml",
            ".mastermind/tools/run.sh",
            ".mastermind/tasks/a/helper.py",
            "src/.mastermind/tasks/a/spec.md",
            "adversarial-findings.md",
        ] {
            assert!(covered_by(&globs, path.as_bytes()), "{path}");
        }
        assert!(covered_by(&globs, b".mastermind/tasks/a/\xff"));
    }
}
