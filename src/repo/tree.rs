//! Views of a tree: the flat list of files (path, mode, object id) that a
//! commit, the index, an in-memory merge or the working tree contains, and
//! reading a file's content from that view.

use super::{Repo, RepoError, Result};
use crate::codes::Code;
use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use std::collections::BTreeMap;
use std::path::PathBuf;

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
    /// Files on disk under this root (working tree view).
    Disk(PathBuf),
}

/// The flat file list of one tree, sorted by path bytes.
#[derive(Clone, Debug)]
pub struct View {
    /// What this view is, for messages ("the index", "commit abc1234").
    pub label: String,
    storage: Storage,
    entries: BTreeMap<BString, Entry>,
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
        View {
            label: label.into(),
            storage: Storage::Objects,
            entries: BTreeMap::new(),
        }
    }

    /// Every file of a tree object.
    pub fn from_tree(repo: &Repo, tree: ObjectId, label: impl Into<String>) -> Result<View> {
        let tree = repo.gix().find_tree(tree).map_err(|e| {
            RepoError::new(
                Code::git_object_unavailable,
                format!("cannot read tree {tree}: {e}"),
            )
        })?;
        let mut recorder = gix::traverse::tree::Recorder::default();
        tree.traverse().breadthfirst(&mut recorder).map_err(|e| {
            RepoError::new(
                Code::git_object_unavailable,
                format!("cannot walk tree: {e}"),
            )
        })?;
        let entries = recorder
            .records
            .into_iter()
            .filter_map(|record| {
                mode_of_tree_entry(record.mode.kind()).map(|mode| {
                    (
                        record.filepath,
                        Entry {
                            mode,
                            oid: record.oid,
                        },
                    )
                })
            })
            .collect();
        Ok(View {
            label: label.into(),
            storage: Storage::Objects,
            entries,
        })
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
        let index = open_index(repo)?;
        let mut entries = Vec::with_capacity(index.entries().len());
        let mut unmerged = Vec::new();
        for entry in index.entries() {
            let path = entry.path(&index);
            if entry.stage_raw() != 0 {
                unmerged.push(path.to_str_lossy().into_owned());
                continue;
            }
            if entry
                .flags
                .contains(gix::index::entry::Flags::INTENT_TO_ADD)
            {
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
            entries.push((
                path.to_owned(),
                Entry {
                    mode,
                    oid: entry.id,
                },
            ));
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
        Ok(View {
            label: "the index".into(),
            storage: Storage::Objects,
            // Bulk-built: sorting already sorted input is linear.
            entries: entries.into_iter().collect(),
        })
    }

    /// The in-memory merge of `head` into `base` (ancestor: their merge
    /// base). Conflicts make the view unavailable. Returns the view and the
    /// merge base.
    pub fn from_merge(repo: &Repo, base: ObjectId, head: ObjectId) -> Result<(View, ObjectId)> {
        let Some(merge_base) = repo.merge_base(base, head)? else {
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
        };
        let ancestor = repo.commit_tree(merge_base)?;
        let ours = repo.commit_tree(base)?;
        let theirs = repo.commit_tree(head)?;
        let gix_repo = repo.gix();
        let options = gix_repo.tree_merge_options().map_err(|e| {
            RepoError::new(Code::git_object_unavailable, format!("merge options: {e}"))
        })?;
        let labels = gix::merge::blob::builtin_driver::text::Labels {
            ancestor: Some("merge base".into()),
            current: Some("base".into()),
            other: Some("head".into()),
        };
        let mut outcome = gix_repo
            .merge_trees(ancestor, ours, theirs, labels, options)
            .map_err(|e| {
                RepoError::new(Code::git_object_unavailable, format!("cannot merge: {e}"))
            })?;
        if outcome.has_unresolved_conflicts(gix::merge::tree::TreatAsUnresolved::default()) {
            let paths: Vec<String> = outcome
                .conflicts
                .iter()
                .map(|c| c.ours.location().to_str_lossy().into_owned())
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
        let tree = outcome.tree.write().map_err(|e| {
            RepoError::new(
                Code::git_object_unavailable,
                format!("cannot build the merge tree: {e}"),
            )
        })?;
        let view = View::from_tree(
            repo,
            tree.detach(),
            format!("the merge of {} into {}", short(head), short(base)),
        )?;
        Ok((view, merge_base))
    }

    /// The working tree: tracked files as they are on disk (deleted ones
    /// left out) plus untracked files that are not ignored.
    pub fn from_worktree(repo: &Repo) -> Result<View> {
        let (root, paths) = worktree_listing(repo)?;
        let mut entries = BTreeMap::new();
        for (path, index_mode, index_oid) in paths {
            if index_mode == Some(EntryMode::Submodule) {
                entries.insert(
                    path,
                    Entry {
                        mode: EntryMode::Submodule,
                        oid: index_oid,
                    },
                );
                continue;
            }
            let Ok(relative) = gix::path::from_bstr(path.as_bstr()) else {
                return Err(RepoError::new(
                    Code::git_worktree_unavailable,
                    format!(
                        "path `{}` cannot be represented on this platform",
                        path.to_str_lossy()
                    ),
                ));
            };
            let disk = root.join(relative);
            let metadata = match std::fs::symlink_metadata(&disk) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    return Err(RepoError::new(
                        Code::git_worktree_unavailable,
                        format!("cannot stat {}: {e}", disk.display()),
                    ));
                }
            };
            let unreadable = |e: std::io::Error| {
                RepoError::new(
                    Code::git_worktree_unavailable,
                    format!("cannot read {}: {e}", disk.display()),
                )
            };
            let (mode, data) = if metadata.file_type().is_symlink() {
                let target = std::fs::read_link(&disk).map_err(unreadable)?;
                let target = gix::path::into_bstr(target)
                    .map_err(|e| {
                        RepoError::new(
                            Code::git_worktree_unavailable,
                            format!(
                                "symlink {} has an unrepresentable target: {e}",
                                disk.display()
                            ),
                        )
                    })?
                    .into_owned();
                (EntryMode::Symlink, Vec::from(target))
            } else if metadata.is_file() {
                (
                    if is_executable(&metadata) {
                        EntryMode::Executable
                    } else {
                        EntryMode::Regular
                    },
                    std::fs::read(&disk).map_err(unreadable)?,
                )
            } else {
                // A directory where the index has a file, or a FIFO: not a file.
                continue;
            };
            let oid = repo.blob_id(&data)?;
            entries.insert(path, Entry { mode, oid });
        }
        Ok(View {
            label: "the working tree".into(),
            storage: Storage::Disk(root),
            entries,
        })
    }

    /// True for the working-tree view (content read from disk).
    pub fn is_worktree(&self) -> bool {
        matches!(self.storage, Storage::Disk(_))
    }

    /// Every file, sorted by path bytes.
    pub fn entries(&self) -> impl Iterator<Item = (&BString, &Entry)> {
        self.entries.iter()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries.get(path.as_bytes().as_bstr())
    }

    /// Paths of files under a directory prefix (`prefix` ends with `/`).
    pub fn paths_under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a BString> + 'a {
        self.entries
            .range::<[u8], _>((
                std::ops::Bound::Included(prefix.as_bytes()),
                std::ops::Bound::Unbounded,
            ))
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
            Storage::Objects => {
                let header = repo.gix().find_header(entry.oid).map_err(|e| {
                    RepoError::new(
                        Code::git_object_unavailable,
                        format!("cannot read {path} ({}): {e}", entry.oid),
                    )
                })?;
                let size = header.size();
                if size > limit as u64 {
                    return Ok(Some(Content::TooLarge { size }));
                }
                let blob = repo.gix().find_blob(entry.oid).map_err(|e| {
                    RepoError::new(
                        Code::git_object_unavailable,
                        format!("cannot read {path} ({}): {e}", entry.oid),
                    )
                })?;
                Ok(Some(Content::Bytes(blob.data.clone())))
            }
            Storage::Disk(root) => {
                let disk = root.join(path);
                match crate::input::read_bounded_no_follow(&disk, limit) {
                    Ok(bytes) => Ok(Some(Content::Bytes(bytes))),
                    Err(d) => Err(RepoError::new(Code::git_worktree_unavailable, d.message)),
                }
            }
        }
    }
}

/// A path of the working tree: tracked (with its index mode and id) or
/// untracked and not ignored (no mode, null id).
pub type ListedPath = (BString, Option<EntryMode>, ObjectId);

/// The working tree's candidate paths without reading any file: the
/// index's stage-0 paths plus untracked files that are not ignored. Returns
/// the root and the paths (not sorted: untracked ones follow tracked ones).
pub fn worktree_listing(repo: &Repo) -> Result<(PathBuf, Vec<ListedPath>)> {
    let root = repo.workdir().map(|p| p.to_path_buf()).ok_or_else(|| {
        RepoError::new(
            Code::git_worktree_unavailable,
            "the repository is bare; reading the working tree needs a working tree",
        )
    })?;
    let index = open_index(repo)?;
    let mut paths: Vec<ListedPath> = index
        .entries()
        .iter()
        .filter(|e| e.stage_raw() == 0)
        .map(|e| (e.path(&index).to_owned(), index_mode(e.mode), e.id))
        .collect();
    paths.dedup_by(|a, b| a.0 == b.0);
    for untracked in untracked_files(repo, &index)? {
        paths.push((untracked, None, ObjectId::null(repo.gix().object_hash())));
    }
    Ok((root, paths))
}

fn index_mode(mode: gix::index::entry::Mode) -> Option<EntryMode> {
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

fn open_index(repo: &Repo) -> Result<gix::index::File> {
    let path = repo.index_path();
    if !path.exists() {
        // No index yet (fresh repository): an empty one.
        return Ok(gix::index::File::from_state(
            gix::index::State::new(repo.gix().object_hash()),
            path,
        ));
    }
    gix::index::File::at(
        &path,
        repo.gix().object_hash(),
        false,
        gix::index::decode::Options::default(),
    )
    .map_err(|e| {
        RepoError::new(
            Code::git_index_unavailable,
            format!("cannot read the index {}: {e}", path.display()),
        )
    })
}

fn untracked_files(repo: &Repo, index: &gix::index::File) -> Result<Vec<BString>> {
    let gix_repo = repo.gix();
    let options = gix_repo
        .dirwalk_options()
        .map_err(|e| RepoError::new(Code::git_worktree_unavailable, format!("dirwalk: {e}")))?
        .emit_untracked(gix::dir::walk::EmissionMode::Matching)
        .emit_ignored(None)
        .emit_tracked(false)
        .recurse_repositories(false);
    let mut collect = gix::dir::walk::delegate::Collect::default();
    let interrupt = std::sync::atomic::AtomicBool::new(false);
    gix_repo
        .dirwalk(index, None::<&str>, &interrupt, options, &mut collect)
        .map_err(|e| {
            RepoError::new(
                Code::git_worktree_unavailable,
                format!("cannot walk the working tree: {e}"),
            )
        })?;
    Ok(collect
        .into_entries_by_path()
        .into_iter()
        .filter(|(entry, _)| {
            entry.status == gix::dir::entry::Status::Untracked
                && matches!(
                    entry.disk_kind,
                    Some(gix::dir::entry::Kind::File | gix::dir::entry::Kind::Symlink)
                )
        })
        .map(|(entry, _)| entry.rela_path)
        .collect())
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
