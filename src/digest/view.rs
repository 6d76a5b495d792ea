//! The edge of the tree-v1 digest: reading content. Object-backed views
//! (index, commit, merge) hash their blobs, looking each sha256 up in the
//! cache first when the caller allows it; the working tree hashes its files
//! from disk (every byte, every time: stat data is never trusted), or, for
//! a working-tree view, from the sha256 the view kept of the bytes it read.
//! Work is spread over the available cores with scoped threads.

use super::cache::Sha256Cache;
use super::{TreeV1, is_covered, submodule_sha256};
use crate::codes::Code;
use crate::repo::parallel::parallel;
use crate::repo::tree::{
    DiskContent, Entry, EntryMode, View, is_executable, link_target, worktree_listing,
};
use crate::repo::{Repo, RepoError, Result};
use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use sha2::{Digest, Sha256};
use std::io::Read;
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

/// A view whose paths break the tree-v1 rules (never sorted, empty or with
/// NUL in practice): a bug here, so the check cannot run.
fn assembly_failed(error: super::AssemblyError) -> RepoError {
    RepoError::new(Code::internal_error, format!("tree-v1 assembly: {error}"))
}

fn assemble<P: AsRef<[u8]>>(entries: &[(P, EntryMode, [u8; 32])]) -> Result<String> {
    let mut tree = TreeV1::new();
    for (path, mode, sha) in entries {
        tree.push(path.as_ref(), *mode, sha)
            .map_err(assembly_failed)?;
    }
    Ok(tree.finish())
}

/// The tree-v1 digest of an object-backed view. With a cache, known blobs
/// are not read and new ones are remembered (the caller saves the cache).
pub fn of_objects(
    repo: &Repo,
    view: &View,
    mut cache: Option<&mut Sha256Cache>,
) -> Result<Computed> {
    // One sha256 per covered file, in view order; paths and modes are
    // read from the view again when assembling (no second copy of them).
    let mut shas: Vec<[u8; 32]> = Vec::with_capacity(view.len());
    let mut jobs: Vec<(usize, ObjectId)> = Vec::new();
    let mut hits = 0;
    let covered = || {
        view.entries()
            .filter(|(path, _)| is_covered(path.as_slice()))
    };
    for (_, entry) in covered() {
        let sha = if entry.mode == EntryMode::Submodule {
            submodule_sha256(&entry.oid.to_hex().to_string())
        } else if let Some(found) = cache.as_mut().and_then(|c| c.get(&entry.oid)) {
            hits += 1;
            found
        } else {
            jobs.push((shas.len(), entry.oid));
            [0; 32]
        };
        shas.push(sha);
    }
    let base = repo.gix().clone();
    let hashed = parallel(
        jobs.len(),
        || base.clone(),
        |local, i| {
            let id = jobs[i].1;
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
    let mut bytes = 0;
    for ((row, id), (sha, len)) in jobs.iter().zip(hashed) {
        shas[*row] = sha;
        bytes += len;
        if let Some(cache) = cache.as_mut() {
            cache.insert(id, sha);
        }
    }
    let mut tree = TreeV1::new();
    for ((path, entry), sha) in covered().zip(&shas) {
        tree.push(path.as_slice(), entry.mode, sha)
            .map_err(assembly_failed)?;
    }
    Ok(Computed {
        digest: tree.finish(),
        files: shas.len(),
        bytes_hashed: bytes,
        cache_hits: hits,
    })
}

/// What one working-tree path turned out to be.
enum Found {
    Gone,
    File(EntryMode, [u8; 32], u64, Option<ObjectId>),
}

/// Hash one file (or link target) from disk, never following a link. With
/// `blob_ids`, also compute the git blob id of the same bytes, so the cache
/// can learn it.
fn hash_disk(path: &Path, format: gix::hash::Kind, blob_ids: bool) -> Result<Found> {
    let unreadable = |e: std::io::Error| {
        RepoError::new(
            Code::git_worktree_unavailable,
            format!("cannot read {} for the tree digest: {e}", path.display()),
        )
    };
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Gone),
        Err(e) => return Err(unreadable(e)),
    };
    let blob_id = |data: &[u8]| {
        blob_ids
            .then(|| gix::objs::compute_hash(format, gix::object::Kind::Blob, data).ok())
            .flatten()
    };
    if metadata.file_type().is_symlink() {
        let target = link_target(path)?;
        let sha: [u8; 32] = Sha256::digest(target.as_slice()).into();
        return Ok(Found::File(
            EntryMode::Symlink,
            sha,
            target.len() as u64,
            blob_id(target.as_slice()),
        ));
    }
    if !metadata.is_file() {
        return Ok(Found::Gone);
    }
    let mode = if is_executable(&metadata) {
        EntryMode::Executable
    } else {
        EntryMode::Regular
    };
    let mut file = match crate::safe_fs::open_read(path, crate::safe_fs::Follow::NoLinks) {
        Ok(f) => f,
        // Gone or swapped for a non-file since the stat: never blocks.
        Err(crate::safe_fs::Error::NotFound | crate::safe_fs::Error::NotRegular(_)) => {
            return Ok(Found::Gone);
        }
        Err(e) => return Err(unreadable(e.into())),
    };
    let declared = metadata.len();
    let mut sha = Sha256::new();
    let mut git = blob_ids.then(|| {
        let mut h = gix::hash::hasher(format);
        h.update(&gix::objs::encode::loose_header(
            gix::object::Kind::Blob,
            declared,
        ));
        h
    });
    let mut buffer = vec![0u8; 256 * 1024];
    let mut total = 0u64;
    loop {
        let n = file.read(&mut buffer).map_err(unreadable)?;
        if n == 0 {
            break;
        }
        sha.update(&buffer[..n]);
        if let Some(h) = git.as_mut() {
            h.update(&buffer[..n]);
        }
        total += n as u64;
    }
    // A file that changed length while being read gets no blob id: the
    // header above would not describe the bytes hashed.
    let id = git
        .filter(|_| total == declared)
        .and_then(|h| h.try_finalize().ok());
    Ok(Found::File(mode, sha.finalize().into(), total, id))
}

/// The tree-v1 digest of the working tree: tracked files as they are on
/// disk (deleted ones left out) plus untracked files that are not ignored,
/// the same file set as the working-tree view. With a cache, the blob id of
/// every hashed file is computed too and the cache learns it.
pub fn of_worktree(repo: &Repo, mut cache: Option<&mut Sha256Cache>) -> Result<Computed> {
    let (root, mut listing) = worktree_listing(repo)?;
    listing.retain(|(path, _, _)| is_covered(path.as_slice()));
    listing.sort_by(|a, b| a.0.cmp(&b.0));
    listing.dedup_by(|a, b| a.0 == b.0);
    let format = repo.gix().object_hash();
    let learn = cache.is_some();
    let found = parallel(
        listing.len(),
        || (),
        |(), i| {
            let (path, index_mode, index_oid) = &listing[i];
            if *index_mode == Some(EntryMode::Submodule) {
                let sha = submodule_sha256(&index_oid.to_hex().to_string());
                return Ok(Found::File(EntryMode::Submodule, sha, 0, None));
            }
            let relative = gix::path::from_bstr(path.as_bstr()).map_err(|e| {
                RepoError::new(
                    Code::git_worktree_unavailable,
                    format!(
                        "path `{}` cannot be represented here: {e}",
                        path.to_str_lossy()
                    ),
                )
            })?;
            hash_disk(&root.join(relative), format, learn)
        },
    )?;
    let mut rows = Vec::with_capacity(listing.len());
    let mut bytes = 0;
    for ((path, _, _), found) in listing.iter().zip(found) {
        if let Found::File(mode, sha, len, id) = found {
            bytes += len;
            if let (Some(cache), Some(id)) = (cache.as_mut(), id) {
                cache.insert(&id, sha);
            }
            rows.push((path.clone(), mode, sha));
        }
    }
    Ok(Computed {
        digest: assemble(&rows)?,
        files: rows.len(),
        bytes_hashed: bytes,
        cache_hits: 0,
    })
}

/// The tree-v1 digest of any view: the working tree from the sha256s its
/// view kept of the bytes it read, the others from their objects.
pub fn of_view(repo: &Repo, view: &View, cache: Option<&mut Sha256Cache>) -> Result<Computed> {
    match view.disk_contents() {
        Some(files) => of_read_files(files, cache),
        None => of_objects(repo, view, cache),
    }
}

/// The tree-v1 digest of a working-tree view from the sha256 each file's
/// bytes had when the view read them (no second read, so the digest is of
/// the same bytes as the view's blob ids). With a cache, it learns them.
fn of_read_files<'a>(
    files: impl Iterator<Item = (&'a BString, &'a Entry, Option<&'a DiskContent>)>,
    mut cache: Option<&mut Sha256Cache>,
) -> Result<Computed> {
    let mut tree = TreeV1::new();
    let mut count = 0;
    let mut bytes = 0;
    for (path, entry, content) in files.filter(|(path, _, _)| is_covered(path.as_slice())) {
        let sha = match content {
            Some(content) => {
                bytes += content.len;
                if let Some(cache) = cache.as_mut() {
                    cache.insert(&entry.oid, content.sha256);
                }
                content.sha256
            }
            None => submodule_sha256(&entry.oid.to_hex().to_string()),
        };
        tree.push(path.as_slice(), entry.mode, &sha)
            .map_err(assembly_failed)?;
        count += 1;
    }
    Ok(Computed {
        digest: tree.finish(),
        files: count,
        bytes_hashed: bytes,
        cache_hits: 0,
    })
}
