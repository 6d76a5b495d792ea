//! The edge of the tree digests: the sha256 of every file of a view.
//! Object-backed views (index, commit, merge) hash their blobs, looking
//! each sha256 up in the cache first when the caller allows it. A
//! working-tree view uses the sha256 it kept of the bytes it read; for a
//! file it did not read (its stat data vouched for its index entry) the
//! cache is asked by blob id, and on a miss the file is read now. Work is
//! spread over the available cores with scoped threads.

use super::cache::Sha256Cache;
use super::{TreeV1, is_covered, submodule_sha256};
use crate::codes::Code;
use crate::repo::parallel::parallel;
use crate::repo::tree::{EntryMode, Known, View, worktree};
use crate::repo::{Repo, RepoError, Result};
use gix::ObjectId;
use gix::bstr::{BStr, ByteSlice};
use sha2::{Digest, Sha256};
use std::path::Path;

/// A digest and how it was obtained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Computed {
    pub digest: String,
    /// Covered files.
    pub files: usize,
    /// Bytes hashed (cache hits excluded).
    pub bytes_hashed: u64,
    pub cache_hits: usize,
}

/// Work counters, summed over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Covered files digested (a memoized directory's files not counted).
    pub files: usize,
    pub bytes_hashed: u64,
    pub cache_hits: usize,
}

/// A view whose paths break the tree-v1 rules (never sorted, empty or with
/// NUL in practice): a bug here, so the check cannot run.
pub(crate) fn assembly_failed(error: super::AssemblyError) -> RepoError {
    RepoError::new(
        Code::internal_error,
        format!("tree digest assembly: {error}"),
    )
}

/// Where the sha256 cache comes from: an open one, or one opened on first
/// need.
pub(crate) trait CacheSource {
    fn cache(&mut self) -> Option<&mut Sha256Cache>;
}

impl CacheSource for Option<&mut Sha256Cache> {
    fn cache(&mut self) -> Option<&mut Sha256Cache> {
        self.as_deref_mut()
    }
}

/// The sha256 of the content of each blob in `ids` (in order): from the
/// cache when it knows the id, else read from the object database on all
/// cores (and the cache learns it).
pub(crate) fn blob_shas(
    repo: &Repo,
    ids: &[ObjectId],
    source: &mut dyn CacheSource,
    stats: &mut Stats,
) -> Result<Vec<[u8; 32]>> {
    let mut cache = source.cache();
    let mut shas = vec![[0u8; 32]; ids.len()];
    let mut jobs: Vec<usize> = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        match cache.as_mut().and_then(|c| c.get(id)) {
            Some(found) => {
                shas[i] = found;
                stats.cache_hits += 1;
            }
            None => jobs.push(i),
        }
    }
    if jobs.is_empty() {
        return Ok(shas);
    }
    // Each blob is read once: caching them would only hold the repository's
    // content in memory (16 MiB on 100,000 files), so the readers have no
    // object cache.
    let mut base = repo.gix().clone();
    base.object_cache_size(None);
    let hashed = parallel(
        jobs.len(),
        || base.clone(),
        |local, j| {
            let id = ids[jobs[j]];
            let blob = local.find_blob(id).map_err(|e| {
                RepoError::new(
                    Code::git_object_unavailable,
                    format!("cannot read blob {id} for the tree digest: {e}"),
                )
            })?;
            let sha: [u8; 32] = Sha256::digest(&blob.data).into();
            Ok((sha, blob.data.len() as u64))
        },
    )?;
    for (i, (sha, len)) in jobs.into_iter().zip(hashed) {
        shas[i] = sha;
        stats.bytes_hashed += len;
        if let Some(cache) = cache.as_mut() {
            cache.insert(&ids[i], sha);
        }
    }
    Ok(shas)
}

/// The sha256 of files a working-tree view did not read, read now from
/// disk (in order). The cache learns a file's sha256 only when its bytes
/// still have the index's blob id.
fn disk_shas(
    repo: &Repo,
    root: &Path,
    files: &[(&BStr, ObjectId)],
    mut cache: Option<&mut Sha256Cache>,
    stats: &mut Stats,
) -> Result<Vec<[u8; 32]>> {
    let format = repo.gix().object_hash();
    let read = parallel(
        files.len(),
        || (),
        |(), i| {
            let (path, _) = files[i];
            let relative = gix::path::from_bstr(path.as_bstr()).map_err(|_| {
                RepoError::new(
                    Code::git_worktree_unavailable,
                    format!("path `{}` cannot be represented here", path.to_str_lossy()),
                )
            })?;
            worktree::read_file(&root.join(relative), format)?.ok_or_else(|| {
                RepoError::new(
                    Code::git_worktree_unavailable,
                    format!(
                        "{} disappeared while the working tree was read; run again",
                        path.to_str_lossy()
                    ),
                )
            })
        },
    )?;
    let mut shas = Vec::with_capacity(files.len());
    for ((_, indexed), (entry, content)) in files.iter().zip(read) {
        stats.bytes_hashed += content.len;
        if entry.oid == *indexed
            && let Some(cache) = cache.as_mut()
        {
            cache.insert(indexed, content.sha256);
        }
        shas.push(content.sha256);
    }
    Ok(shas)
}

/// The sha256 standing for each file of `view` outside the directories
/// `skip` (sorted, disjoint, each ending in `/`; never looked at) whose
/// path `keep` accepts, in view order, with its path and mode.
pub(crate) fn file_shas<'v>(
    repo: &Repo,
    view: &'v View,
    skip: &'v [&'v [u8]],
    mut keep: impl FnMut(&[u8]) -> bool,
    source: &mut dyn CacheSource,
    stats: &mut Stats,
) -> Result<Vec<(&'v BStr, EntryMode, [u8; 32])>> {
    let mut rows = Vec::new();
    match view.disk_contents_outside(skip) {
        Some((root, files)) => {
            let mut indexed: Vec<(usize, ObjectId)> = Vec::new();
            let mut read: Vec<(ObjectId, [u8; 32])> = Vec::new();
            for (path, entry, known) in files.filter(|(path, _, _)| keep(path.as_bytes())) {
                let sha = match known {
                    Known::Read(content) => {
                        stats.bytes_hashed += content.len;
                        read.push((entry.oid, content.sha256));
                        content.sha256
                    }
                    Known::Submodule => submodule_sha256(&entry.oid.to_hex().to_string()),
                    Known::Indexed => {
                        indexed.push((rows.len(), entry.oid));
                        [0; 32]
                    }
                };
                rows.push((path, entry.mode, sha));
            }
            let mut cache = source.cache();
            // The cache learns what was read (each id is of the bytes read).
            if let Some(cache) = cache.as_mut() {
                for (id, sha) in &read {
                    cache.insert(id, *sha);
                }
            }
            let mut unread: Vec<(usize, ObjectId)> = Vec::new();
            for (row, id) in indexed {
                match cache.as_mut().and_then(|c| c.get(&id)) {
                    Some(found) => {
                        stats.cache_hits += 1;
                        rows[row].2 = found;
                    }
                    None => unread.push((row, id)),
                }
            }
            let files: Vec<(&BStr, ObjectId)> =
                unread.iter().map(|(row, id)| (rows[*row].0, *id)).collect();
            let shas = disk_shas(repo, root, &files, cache, stats)?;
            for ((row, _), sha) in unread.iter().zip(shas) {
                rows[*row].2 = sha;
            }
        }
        None => {
            let mut ids: Vec<ObjectId> = Vec::new();
            let mut blob_rows: Vec<usize> = Vec::new();
            for (path, entry) in view
                .entries_outside(skip)
                .filter(|(path, _)| keep(path.as_bytes()))
            {
                let sha = if entry.mode == EntryMode::Submodule {
                    submodule_sha256(&entry.oid.to_hex().to_string())
                } else {
                    blob_rows.push(rows.len());
                    ids.push(entry.oid);
                    [0; 32]
                };
                rows.push((path, entry.mode, sha));
            }
            let shas = blob_shas(repo, &ids, source, stats)?;
            for (row, sha) in blob_rows.into_iter().zip(shas) {
                rows[row].2 = sha;
            }
        }
    }
    Ok(rows)
}

/// The tree-v1 digest of any view. With a cache, known blobs are not read
/// and new ones are remembered (the caller saves the cache).
pub fn of_view(repo: &Repo, view: &View, mut cache: Option<&mut Sha256Cache>) -> Result<Computed> {
    let mut stats = Stats::default();
    let rows = file_shas(repo, view, &[], is_covered, &mut cache, &mut stats)?;
    stats.files += rows.len();
    let mut tree = TreeV1::new();
    for (path, mode, sha) in &rows {
        tree.push(path.as_bytes(), *mode, sha)
            .map_err(assembly_failed)?;
    }
    Ok(Computed {
        digest: tree.finish(),
        files: rows.len(),
        bytes_hashed: stats.bytes_hashed,
        cache_hits: stats.cache_hits,
    })
}

/// [`of_view`] for an object-backed view (kept for callers that name it).
pub fn of_objects(repo: &Repo, view: &View, cache: Option<&mut Sha256Cache>) -> Result<Computed> {
    of_view(repo, view, cache)
}
