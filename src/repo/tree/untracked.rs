//! The untracked, non-ignored files of the working tree: what gix's
//! `dirwalk` finds (matching emission, no ignored, no tracked entries, no
//! recursion into nested repositories; then only untracked files and
//! links), found by a walk that decides "tracked" by merging each
//! directory's sorted names with the index's sorted entries instead of a
//! binary search of the whole index per name.
//!
//! The fast walk mirrors `gix_dir::walk::classify::path` case by case for
//! the index and configuration it accepts (see [`plain_index`] and
//! [`fast`]); everything else goes to gix's own walk, which also stands as
//! the oracle of the differential test.

use crate::codes::Code;
use crate::repo::{Repo, RepoError, Result};
use gix::bstr::{BString, ByteSlice};
use gix::index::entry::{Flags, Mode};
use std::ops::Range;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The untracked, non-ignored files and links of the working tree, sorted
/// by path. It takes the gix repository alone (a clone may be moved to a
/// thread of its own, which the gate's `Repo` may not).
pub(super) fn untracked_files(
    gix_repo: &gix::Repository,
    index: &gix::index::State,
) -> Result<(Vec<BString>, Option<ListedDirs>)> {
    match fast_walk(gix_repo, index)? {
        Some((found, listed)) => Ok((found, Some(listed))),
        None => Ok((gix_dirwalk(gix_repo, index)?, None)),
    }
}

/// The directories the fast walk read (empty for the root, else ending in
/// `/`), each with whether it held a `.gitattributes` then: the stat-reuse
/// plan needs to know, and need not look again.
pub type ListedDirs = std::collections::HashMap<BString, bool>;

/// Both walks of the repository's working tree against its index: the fast
/// one's answer (`None`: it fell back) and gix's. For the differential
/// test.
#[doc(hidden)]
pub fn both_walks(repo: &Repo) -> Result<(Option<Vec<BString>>, Vec<BString>)> {
    let index = super::open_index(repo)?;
    Ok((fast(repo, &index)?, dirwalk(repo, &index)?))
}

/// gix's own walk: the fallback, and the oracle the fast walk is tested
/// against.
pub fn dirwalk(repo: &Repo, index: &gix::index::State) -> Result<Vec<BString>> {
    gix_dirwalk(repo.gix(), index)
}

fn gix_dirwalk(gix_repo: &gix::Repository, index: &gix::index::State) -> Result<Vec<BString>> {
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

/// The fast walk's answer, or `None` where it cannot be sure to answer as
/// [`dirwalk`] does: a bare repository, case-insensitive or precomposing
/// configuration (both change how gix reads directories and looks paths
/// up), an index that is not [`plain_index`], or any failure to set up
/// what the walk needs (then gix's walk reports it).
pub fn fast(repo: &Repo, index: &gix::index::State) -> Result<Option<Vec<BString>>> {
    Ok(fast_walk(repo.gix(), index)?.map(|(found, _)| found))
}

/// [`fast`], with the directories it read.
fn fast_walk(
    gix_repo: &gix::Repository,
    index: &gix::index::State,
) -> Result<Option<(Vec<BString>, ListedDirs)>> {
    let Some(root) = gix_repo.workdir() else {
        return Ok(None);
    };
    let Ok(caps) = gix_repo.filesystem_options() else {
        return Ok(None);
    };
    if caps.ignore_case || caps.precompose_unicode || !plain_index(index) {
        return Ok(None);
    }
    // Read only to fail over as gix's walk would (it reads these first).
    if gix_repo.dirwalk_options().is_err() {
        return Ok(None);
    }
    let Ok(excludes) = gix_repo.excludes(
        index,
        None,
        gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
    ) else {
        return Ok(None);
    };
    let Ok(git_dir_real) = gix::path::realpath_opts(
        gix_repo.git_dir(),
        gix_repo.current_dir(),
        gix::path::realpath::MAX_SYMLINKS,
    ) else {
        return Ok(None);
    };
    let mut walk = Walk {
        index,
        excludes,
        git_dir_real,
        current_dir: gix_repo.current_dir(),
        found: Vec::new(),
        listed: ListedDirs::new(),
        dirents: vec![std::mem::MaybeUninit::uninit(); DIRENT_BUFFER],
    };
    let mut rel = BString::default();
    let mut disk = root.as_os_str().as_bytes().to_vec();
    if disk.len() > 1 && disk.ends_with(b"/") {
        disk.pop();
    }
    walk.directory(&mut rel, &mut disk, 0..index.entries().len())?;
    let mut found = walk.found;
    found.sort_unstable();
    Ok(Some((found, walk.listed)))
}

/// An index whose lookups the merge reproduces exactly: not sparse; every
/// entry at stage 0 (gix looks a conflicted path up by its stage 0 or 2
/// entry only), with no flag or mode that makes gix trust the index over
/// the disk or treat a path as excluded from the working tree (up-to-date,
/// assume-valid, skip-worktree, sparse directory); paths strictly
/// increasing (gix's binary search assumes the order the merge relies
/// on).
fn plain_index(index: &gix::index::State) -> bool {
    if index.is_sparse() {
        return false;
    }
    let special = Flags::UPTODATE | Flags::ASSUME_VALID | Flags::SKIP_WORKTREE;
    let entries = index.entries();
    entries
        .iter()
        .all(|e| e.stage_raw() == 0 && !e.flags.intersects(special) && !e.mode.is_sparse())
        && entries
            .windows(2)
            .all(|pair| pair[0].path(index) < pair[1].path(index))
}

/// What a path is, as `gix_dir::entry::Kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    File,
    Symlink,
    Directory,
    Repository,
    /// A FIFO, socket or device.
    Untrackable,
}

impl Kind {
    fn is_dir(self) -> bool {
        matches!(self, Kind::Directory | Kind::Repository)
    }

    /// An index entry's kind as gix's `resolve_file_type_with_index` sees it.
    fn in_index(entry: &gix::index::Entry) -> Option<Kind> {
        if entry.mode.is_submodule() {
            Some(Kind::Repository)
        } else if entry.mode.contains(Mode::FILE) {
            Some(Kind::File)
        } else if entry.mode.contains(Mode::SYMLINK) {
            Some(Kind::Symlink)
        } else {
            None
        }
    }
}

/// A directory's child as the index knows it.
enum Child {
    /// An entry with exactly that path (its position).
    Entry(usize),
    /// The entries under `child/`.
    Dir(Range<usize>),
}

struct Walk<'a> {
    index: &'a gix::index::State,
    excludes: gix::AttributeStack<'a>,
    git_dir_real: PathBuf,
    current_dir: &'a Path,
    found: Vec<BString>,
    listed: ListedDirs,
    /// The buffer `getdents64` fills, reused for every directory (each is
    /// read whole before the walk goes deeper).
    dirents: Vec<std::mem::MaybeUninit<u8>>,
}

/// Room for a few hundred directory entries per `getdents64` call (one
/// entry takes at most 280 bytes).
const DIRENT_BUFFER: usize = 32 * 1024;

/// A directory's names back to back, and per name its span there and its
/// kind on disk (`None`: it could not be told).
type Names = (Vec<u8>, Vec<(Range<usize>, Option<Kind>)>);

/// A name's first eight bytes as a number that orders as the bytes do (a
/// shorter name padded with zeros, which no name contains): equal keys
/// leave the order to the rest of the names.
fn sort_key(name: &[u8]) -> u64 {
    let mut key = [0u8; 8];
    let head = name.len().min(8);
    key[..head].copy_from_slice(&name[..head]);
    u64::from_be_bytes(key)
}

/// The path of a walked directory or file: the working tree's root and
/// the path inside it, as bytes.
fn as_path(disk: &[u8]) -> &Path {
    Path::new(std::ffi::OsStr::from_bytes(disk))
}

fn unavailable(what: &str, path: &[u8], e: impl std::fmt::Display) -> RepoError {
    RepoError::new(
        Code::git_worktree_unavailable,
        format!(
            "cannot walk the working tree: {what} {}: {e}",
            as_path(path).display()
        ),
    )
}

/// The kind of a directory entry from its type in the directory (never
/// following a link, never opening the file); a file system that does not
/// say is asked with `lstat` relative to the directory.
fn kind_of(dir: &rustix::fd::OwnedFd, entry: &rustix::fs::RawDirEntry<'_>) -> Option<Kind> {
    use rustix::fs::FileType;
    let kind = |file_type: FileType| match file_type {
        FileType::Directory => Kind::Directory,
        FileType::Symlink => Kind::Symlink,
        FileType::RegularFile => Kind::File,
        _ => Kind::Untrackable,
    };
    match entry.file_type() {
        FileType::Unknown => rustix::fs::statat(
            dir,
            entry.file_name(),
            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
        )
        .ok()
        .map(|stat| kind(FileType::from_raw_mode(stat.st_mode))),
        known => Some(kind(known)),
    }
}

impl Walk<'_> {
    /// The names in the directory `disk` but `.`, `..` and `.git` (gix
    /// prunes `.git` at every level, never emitting or entering it), sorted,
    /// read whole into one buffer: the directory is closed before the walk
    /// goes deeper, so a deep tree holds no descriptors.
    fn read_names(&mut self, disk: &[u8]) -> Result<Names> {
        use rustix::fs::{Mode, OFlags, RawDir};
        let dir = rustix::fs::open(
            as_path(disk),
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| unavailable("cannot read", disk, e))?;
        let mut names = Vec::new();
        let mut spans = Vec::new();
        let mut listing = RawDir::new(&dir, &mut self.dirents);
        while let Some(entry) = listing.next() {
            let entry = entry.map_err(|e| unavailable("cannot read an entry of", disk, e))?;
            let name = entry.file_name().to_bytes();
            if matches!(name, b"." | b".." | b".git") {
                continue;
            }
            let start = names.len();
            names.extend_from_slice(name);
            spans.push((sort_key(name), start..names.len(), kind_of(&dir, &entry)));
        }
        // By the names' first eight bytes, then (rarely) the rest.
        spans.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| names[a.1.clone()].cmp(&names[b.1.clone()]))
        });
        let spans = spans
            .into_iter()
            .map(|(_, span, kind)| (span, kind))
            .collect();
        Ok((names, spans))
    }

    /// Walk the directory `rel` (`disk` on disk) whose index entries are
    /// `range` (all of them, and only them, lie under `rel/`).
    fn directory(
        &mut self,
        rel: &mut BString,
        disk: &mut Vec<u8>,
        range: Range<usize>,
    ) -> Result<()> {
        let index = self.index;
        let entries = index.entries();
        let (names, spans) = self.read_names(disk)?;
        let mut dir = rel.clone();
        if !dir.is_empty() {
            dir.push(b'/');
        }
        let attributes = spans
            .iter()
            .any(|(span, _)| &names[span.clone()] == b".gitattributes");
        self.listed.insert(dir, attributes);

        // The index's children of this directory, in one pass over its
        // range: an entry directly inside, or the block of entries under a
        // subdirectory (found by a search within the block's remainder).
        let prefix_len = if rel.is_empty() { 0 } else { rel.len() + 1 };
        let mut children: Vec<(&[u8], Child)> = Vec::new();
        let mut i = range.start;
        while i < range.end {
            let path = entries[i].path(index);
            let rest = &path[prefix_len..];
            match rest.find_byte(b'/') {
                None => {
                    children.push((rest, Child::Entry(i)));
                    i += 1;
                }
                Some(slash) => {
                    let under = &path[..prefix_len + slash + 1];
                    let end = i + entries[i..range.end]
                        .partition_point(|e| e.path(index).starts_with(under));
                    children.push((&rest[..slash], Child::Dir(i..end)));
                    i = end;
                }
            }
        }
        // Entries sort by full path (`a-b` < `a.b` < `a/c` < `a0`); sorted
        // by name alone, a file and a directory of one name meet.
        children.sort_by(|a, b| a.0.cmp(b.0));

        let mut at = 0;
        for (span, kind) in spans {
            let name = &names[span];
            while at < children.len() && children[at].0 < name {
                at += 1;
            }
            let mut exact = None;
            let mut under: Option<Range<usize>> = None;
            let mut k = at;
            while k < children.len() && children[k].0 == name {
                match &children[k].1 {
                    Child::Entry(e) => {
                        exact = exact.or(Some(*e));
                    }
                    Child::Dir(r) => under = Some(r.clone()),
                }
                k += 1;
            }
            let index_kind = match exact {
                Some(e) => Kind::in_index(&entries[e]),
                None => under.as_ref().map(|_| Kind::Directory),
            };

            let before = rel.len();
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(name);
            let disk_before = disk.len();
            disk.push(b'/');
            disk.extend_from_slice(name);
            let outcome = self.child(rel, disk, kind, index_kind, under);
            disk.truncate(disk_before);
            rel.truncate(before);
            outcome?;
        }
        Ok(())
    }

    /// One directory entry, classified as `gix_dir::walk::classify::path`
    /// does: tracked when the index and the disk agree on whether it is a
    /// directory (a tracked directory is entered, a submodule is not);
    /// otherwise excluded or untracked, an untracked file or link found, an
    /// untracked directory entered unless it holds another repository.
    fn child(
        &mut self,
        rel: &mut BString,
        disk: &mut Vec<u8>,
        kind: Option<Kind>,
        index_kind: Option<Kind>,
        under: Option<Range<usize>>,
    ) -> Result<()> {
        if index_kind.map(Kind::is_dir) == kind.map(Kind::is_dir) {
            if let (Some(Kind::Directory), Some(Kind::Directory), Some(under)) =
                (kind, index_kind, under)
            {
                return self.directory(rel, disk, under);
            }
            return Ok(());
        }
        let mode = kind.map(|k| if k.is_dir() { Mode::DIR } else { Mode::FILE });
        let excluded = self
            .excludes
            .at_entry(rel.as_bstr(), mode)
            .map_err(|e| unavailable("cannot read the ignore rules for", disk, e))?
            .excluded_kind()
            .is_some();
        if excluded {
            return Ok(());
        }
        match kind {
            Some(Kind::File | Kind::Symlink) => self.found.push(rel.clone()),
            Some(Kind::Directory) if !self.holds_repository(disk) => {
                return self.directory(rel, disk, under.unwrap_or(0..0));
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether the directory `disk` holds a repository other than this one
    /// (`gix_dir`'s `maybe_upgrade_to_repository`, not looking harder).
    fn holds_repository(&self, disk: &mut Vec<u8>) -> bool {
        let before = disk.len();
        disk.extend_from_slice(b"/.git");
        let git = as_path(disk);
        let nested = gix::discover::is_git(git).is_ok()
            && !gix::path::realpath_opts(git, self.current_dir, gix::path::realpath::MAX_SYMLINKS)
                .is_ok_and(|real| real == self.git_dir_real);
        disk.truncate(before);
        nested
    }
}

#[cfg(test)]
mod tests {
    use super::sort_key;
    use proptest::prelude::*;

    proptest! {
        /// Ordering by the key, then by the bytes, is the bytes' order for
        /// any names a directory can hold (no NUL).
        #[test]
        fn key_then_bytes_is_byte_order(
            a in proptest::collection::vec(1u8..=255, 0..12),
            b in proptest::collection::vec(1u8..=255, 0..12),
        ) {
            let keyed = sort_key(&a).cmp(&sort_key(&b)).then_with(|| a.cmp(&b));
            prop_assert_eq!(keyed, a.cmp(&b));
        }
    }
}
