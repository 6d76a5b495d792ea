//! The working-tree view: which paths it has (the index's stage-0 paths plus
//! untracked files that are not ignored) and what each one holds. A tracked
//! file whose stat data vouches for its index entry (see [`stat_reuse`]) is
//! not read: its blob id is the entry's, as git itself would conclude. Every
//! other file is read once, never through a symlink and never blocking on a
//! FIFO, socket or device, for its blob id and its sha256.

use super::stat_reuse::{Plan, stat_matches};
use super::{Entry, EntryMode, View, index_mode, open_index};
use crate::codes::Code;
use crate::repo::parallel::parallel;
use crate::repo::{Repo, RepoError, Result};
use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::Stat;
use sha2::{Digest, Sha256};
use std::io::{Read, Seek};
use std::path::Path;

/// What a working-tree file's bytes hashed to when its view read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskContent {
    pub sha256: [u8; 32],
    pub len: u64,
}

/// How a working-tree view knows a file's content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// Read from disk when the view was built.
    Read(DiskContent),
    /// Not read: its `lstat` matched a non-racy index entry, so its content
    /// is that entry's blob (the view entry's `oid`).
    Indexed,
    /// A submodule: its commit id stands for it.
    Submodule,
}

/// How each file of a working-tree view is known, in the view's order:
/// a word per file, with the digests of the few files read kept aside (a
/// [`Known`] per file took 48 bytes, for 10,000 files half a megabyte).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contents {
    /// Per file: [`Contents::INDEXED`], [`Contents::SUBMODULE`], or where
    /// its digest is in `read`.
    slots: Vec<usize>,
    read: Vec<DiskContent>,
}

impl Contents {
    const INDEXED: usize = usize::MAX;
    const SUBMODULE: usize = usize::MAX - 1;

    pub fn with_capacity(files: usize) -> Contents {
        Contents {
            slots: Vec::with_capacity(files),
            read: Vec::new(),
        }
    }

    /// The next file's.
    pub fn push(&mut self, known: Known) {
        let slot = match known {
            Known::Indexed => Contents::INDEXED,
            Known::Submodule => Contents::SUBMODULE,
            Known::Read(content) => {
                self.read.push(content);
                self.read.len() - 1
            }
        };
        self.slots.push(slot);
    }

    fn known(&self, slot: usize) -> Known {
        match slot {
            Contents::INDEXED => Known::Indexed,
            Contents::SUBMODULE => Known::Submodule,
            // A slot is only ever a position `push` gave.
            at => self
                .read
                .get(at)
                .map_or(Known::Indexed, |c| Known::Read(*c)),
        }
    }

    /// The `i`th file's (`None` past the end).
    pub fn get(&self, i: usize) -> Option<Known> {
        self.slots.get(i).map(|slot| self.known(*slot))
    }

    /// Every file's, in order.
    pub fn iter(&self) -> impl Iterator<Item = Known> + '_ {
        self.slots.iter().map(|slot| self.known(*slot))
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

/// A candidate path of the working tree, borrowed from the index or the
/// untracked walk's list (a list of 10,000 owned paths cost 10,000
/// allocations per view), with its stage-0 index entry. Small (32 bytes):
/// a view lists every file, and each megabyte of list is a page fault per
/// 4 KiB.
#[derive(Clone, Debug)]
struct Listed<'a> {
    path: &'a BStr,
    /// `None`: untracked, or conflicted during a merge.
    indexed: Option<&'a gix::index::Entry>,
    /// The entry's stat data may stand for the content.
    vouching: bool,
}

impl<'a> Listed<'a> {
    /// A path no stage-0 index entry stands for (untracked, or conflicted
    /// during a merge): read from disk.
    fn from_disk(path: &'a BStr) -> Listed<'a> {
        Listed {
            path,
            indexed: None,
            vouching: false,
        }
    }

    /// The index entry's mode (`None`: untracked, or a sparse directory).
    fn index_mode(&self) -> Option<EntryMode> {
        self.indexed.and_then(|e| index_mode(e.mode))
    }

    /// The index entry's stat data, when it may stand for the content.
    fn vouching_stat(&self) -> Option<&'a Stat> {
        self.indexed.filter(|_| self.vouching).map(|e| &e.stat)
    }
}

/// The files a working-tree view read (those no index entry vouched for),
/// each with the stat data of the bytes it hashed, and when the view began.
/// A later view of the same tree takes over a file whose `lstat` still
/// matches and that was not racy then (its mtime and ctime at least
/// [`RACY_MARGIN_SECS`] before the earlier view began), instead of reading
/// it again: the runner's snapshot after a check reuses the one before it.
/// ctime is part of the match, and no process can set it, so a check that
/// rewrites a file and restores its mtime is still seen.
#[derive(Clone, Debug, Default)]
pub struct Reads {
    /// Whole seconds since the epoch at which the view began.
    began_secs: i64,
    /// Sorted by path.
    files: Vec<(BString, Stat, Entry, DiskContent)>,
    /// How many of them were taken over from an earlier view, not read.
    taken_over: usize,
}

/// A file changed less than this many seconds before a view began may have
/// changed again within the same timestamp tick (file timestamps come from
/// the kernel's coarse clock): it is never taken over.
pub const RACY_MARGIN_SECS: i64 = 2;

impl Reads {
    /// How many files the view knows by their bytes (read now or taken
    /// over).
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// How many of those were taken over from the earlier view, not read.
    pub fn taken_over(&self) -> usize {
        self.taken_over
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The earlier read of `path`, when it may stand for the file now.
    fn prior(&self, path: &BStr) -> Option<(&Stat, &Entry, &DiskContent)> {
        let at = self
            .files
            .binary_search_by(|(p, ..)| p.as_slice().cmp(path))
            .ok()?;
        let (_, stat, entry, content) = &self.files[at];
        let settled = |t: &gix::index::entry::stat::Time| {
            i64::from(t.secs) + RACY_MARGIN_SECS <= self.began_secs
        };
        (settled(&stat.mtime) && settled(&stat.ctime)).then_some((stat, entry, content))
    }
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The index's stage-0 files as candidates, in path order, each once, with
/// the stat data `plan` lets stand for each one's content.
fn tracked_listing<'a>(index: &'a gix::index::File, plan: &Plan) -> Vec<Listed<'a>> {
    // Sized once: 10,000 files make a megabyte of these, which growing by
    // doubling would copy and fault in again at each step.
    let mut paths: Vec<Listed> = Vec::with_capacity(index.entries().len());
    paths.extend(
        index
            .entries()
            .iter()
            .filter(|e| e.stage_raw() == 0)
            .map(|e| {
                let path = e.path(index);
                Listed {
                    path,
                    indexed: Some(e),
                    vouching: plan.vouching(e, path).is_some(),
                }
            }),
    );
    paths.dedup_by(|a, b| a.path == b.path);
    paths
}

/// The candidates read from disk because no stage-0 entry stands for them,
/// in path order, each once: the untracked files, and the paths with
/// conflict entries only (stages 1 to 3: a merge in progress), which are
/// in the working tree all the same, as `git status` shows them. The walk
/// counts a conflicted path as tracked, so without this it would be in
/// neither list and read as deleted.
fn disk_listing<'a>(index: &'a gix::index::File, untracked: &'a [BString]) -> Vec<Listed<'a>> {
    let mut paths: Vec<Listed> = Vec::with_capacity(untracked.len());
    let mut conflicted: Option<&BStr> = None;
    for entry in index.entries().iter().filter(|e| e.stage_raw() != 0) {
        let path = entry.path(index);
        if conflicted != Some(path) {
            conflicted = Some(path);
            paths.push(Listed::from_disk(path));
        }
    }
    for untracked in untracked {
        paths.push(Listed::from_disk(untracked.as_bstr()));
    }
    paths.sort_by(|a, b| a.path.cmp(b.path));
    paths.dedup_by(|a, b| a.path == b.path);
    paths
}

/// The candidates of two listings in path order, each path once: where
/// both have a path, the first listing's (a stage-0 entry stands over
/// conflict entries of the same path in a malformed index).
fn merged<'a>(
    first: impl Iterator<Item = (Listed<'a>, Examined)>,
    second: impl Iterator<Item = (Listed<'a>, Examined)>,
) -> impl Iterator<Item = (Listed<'a>, Examined)> {
    let (mut first, mut second) = (first.peekable(), second.peekable());
    std::iter::from_fn(move || match (first.peek(), second.peek()) {
        (Some((a, _)), Some((b, _))) => match a.path.cmp(b.path) {
            std::cmp::Ordering::Less => first.next(),
            std::cmp::Ordering::Greater => second.next(),
            std::cmp::Ordering::Equal => {
                second.next();
                first.next()
            }
        },
        (Some(_), None) => first.next(),
        (None, _) => second.next(),
    })
}

/// Every file of the working tree, read on all cores where stat data does
/// not vouch for it. With `reuse` false, every file is read.
pub(super) fn view(repo: &Repo, reuse: bool) -> Result<View> {
    view_after(repo, reuse, None).map(|(view, _)| view)
}

/// [`view`], taking over the unchanged files `earlier` read, and what this
/// view read.
pub(super) fn view_after(
    repo: &Repo,
    reuse: bool,
    earlier: Option<&Reads>,
) -> Result<(View, Reads)> {
    let began_secs = now_secs();
    let format = repo.gix().object_hash();
    let root = repo.workdir().map(|p| p.to_path_buf()).ok_or_else(|| {
        RepoError::new(
            Code::git_worktree_unavailable,
            "the repository is bare; reading the working tree needs a working tree",
        )
    })?;
    let index = open_index(repo)?;
    let index: &gix::index::File = &index;
    let provisional = if reuse {
        Plan::new(repo, index)
    } else {
        Plan::never()
    };
    let root_fd = open_root(&root);
    let examine_all = |paths: &[Listed]| {
        parallel(
            paths.len(),
            || (),
            |(), i| examine(&root, root_fd.as_ref(), &paths[i], format, earlier),
        )
    };
    // The walk for untracked files runs on a thread of its own while the
    // index's files are looked at: both are mostly system calls, and the
    // walk alone would leave the other cores idle for as long as it takes.
    // The plan cannot wait for the walk (which says which directories hold
    // a `.gitattributes`), so the index's files are looked at under the
    // plan's global part; the walk's thread then finds the directories
    // whose `.gitattributes` may convert, and the few files under them are
    // read again below.
    let walk_then_plan = |gix_repo: &gix::Repository| {
        let (untracked, listed) = super::untracked::untracked_files(gix_repo, index)?;
        let converting = provisional.converting_dirs(gix_repo, &root, index, listed.as_ref());
        Ok((untracked, converting))
    };
    let (tracked, found, walked) = std::thread::scope(|scope| {
        let walker = repo.gix().clone();
        let walk = std::thread::Builder::new()
            .name("untracked-walk".into())
            .spawn_scoped(scope, move || walk_then_plan(&walker))
            .ok();
        let tracked = tracked_listing(index, &provisional);
        let found = examine_all(&tracked);
        let walked: Result<(Vec<BString>, Vec<BString>)> = match walk {
            Some(walk) => walk.join().unwrap_or_else(|_| {
                Err(RepoError::new(
                    Code::internal_error,
                    "the untracked walk's thread panicked",
                ))
            }),
            None => walk_then_plan(repo.gix()),
        };
        (tracked, found, walked)
    });
    let (untracked, converting) = walked?;
    let mut found = found?;
    let plan = provisional.with_converting(converting);
    // The files stat data vouched for under a converting `.gitattributes`:
    // read after all.
    let again: Vec<usize> = (0..tracked.len())
        .filter(|i| tracked[*i].vouching && plan.converts_under(tracked[*i].path))
        .collect();
    let unvouched: Vec<Listed> = (again.iter())
        .map(|i| Listed {
            vouching: false,
            ..tracked[*i].clone()
        })
        .collect();
    for (i, examined) in again.into_iter().zip(examine_all(&unvouched)?) {
        found[i] = examined;
    }
    let valid = if reuse {
        super::derived_base::valid_trees(index.tree())
    } else {
        Vec::new()
    };
    let from_disk = disk_listing(index, &untracked);
    let found_on_disk = examine_all(&from_disk)?;
    let count = tracked.len() + from_disk.len();
    let path_bytes = (tracked.iter().chain(&from_disk))
        .map(|listed| listed.path.len())
        .sum();
    let mut entries = super::FileList::with_capacity(count, path_bytes);
    let mut contents = Contents::with_capacity(count);
    let mut reads = Reads {
        began_secs,
        files: Vec::new(),
        taken_over: 0,
    };
    // clean[i]: entry i is its index entry, unread and unchanged in mode.
    let mut clean_before = Vec::with_capacity(count + 1);
    let mut clean = 0usize;
    let candidates = merged(
        tracked.into_iter().zip(found),
        from_disk.into_iter().zip(found_on_disk),
    );
    for (listed, found) in candidates {
        let (entry, known) = match found {
            Examined::Absent => continue,
            Examined::Indexed(entry) => (entry, Known::Indexed),
            Examined::Submodule(entry) => (entry, Known::Submodule),
            Examined::Read(read) => {
                let ReadFile {
                    entry,
                    content,
                    stat,
                    origin,
                } = *read;
                if let Some(stat) = stat {
                    reads
                        .files
                        .push((listed.path.to_owned(), stat, entry, content));
                    reads.taken_over += usize::from(origin == Origin::Earlier);
                }
                (entry, Known::Read(content))
            }
        };
        clean_before.push(clean);
        if known == Known::Indexed && Some(entry.mode) == listed.index_mode() {
            clean += 1;
        }
        entries.push(listed.path, entry);
        contents.push(known);
    }
    clean_before.push(clean);
    // A directory the index's cached trees vouch for is that tree on disk
    // too when every file under it is its unread, unchanged index entry and
    // no file came or went.
    let trees: Vec<(BString, ObjectId)> = valid
        .iter()
        .filter(|(dir, _, n)| {
            let (start, end) = super::derived_base::range_under(&entries, 0, dir);
            let wanted = end - start;
            wanted == *n && clean_before[start + wanted] - clean_before[start] == wanted
        })
        .map(|(dir, id, _)| (dir.clone(), *id))
        .collect();
    Ok((View::on_disk(root, entries, contents, trees), reads))
}

fn relative(path: &BStr) -> Result<std::borrow::Cow<'_, Path>> {
    gix::path::from_bstr(path).map_err(|_| {
        RepoError::new(
            Code::git_worktree_unavailable,
            format!(
                "path `{}` cannot be represented on this platform",
                path.to_str_lossy()
            ),
        )
    })
}

/// What looking at one candidate found: its entry and how its content is
/// known (a link is its target; a submodule keeps its index id). Small (24
/// bytes) for the same reason as [`Listed`]: the few files read are boxed.
enum Examined {
    /// Gone, or not a file or link (a directory where the index has a
    /// file, a FIFO).
    Absent,
    /// Its index entry stands for it (stat data vouched).
    Indexed(Entry),
    /// A submodule: its commit id stands for it.
    Submodule(Entry),
    /// Read now, or taken over from an earlier view.
    Read(Box<ReadFile>),
}

/// A file known by its bytes: its entry, what they hashed to, the stat
/// data of the bytes read (`None` where it could not be taken), and
/// whether it was read now.
struct ReadFile {
    entry: Entry,
    content: DiskContent,
    stat: Option<Stat>,
    origin: Origin,
}

/// Whether an examined file was read now or taken over from an earlier view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Now,
    Earlier,
}

fn examine(
    root: &Path,
    root_fd: Option<&std::os::fd::OwnedFd>,
    listed: &Listed,
    format: gix::hash::Kind,
    earlier: Option<&Reads>,
) -> Result<Examined> {
    let index_mode = listed.index_mode();
    if let (Some(EntryMode::Submodule), Some(indexed)) = (index_mode, listed.indexed) {
        return Ok(Examined::Submodule(Entry {
            mode: EntryMode::Submodule,
            oid: indexed.id,
        }));
    }
    // A sparse checkout's file outside its cone (skip-worktree): git takes
    // its index entry for it, on disk or not, and so does the view.
    if let (Some(indexed), Some(mode)) = (listed.indexed, index_mode)
        && indexed
            .flags
            .contains(gix::index::entry::Flags::SKIP_WORKTREE)
    {
        return Ok(Examined::Indexed(Entry {
            mode,
            oid: indexed.id,
        }));
    }
    // The full path is made only when a file is read or a message needs it:
    // a file the index vouches for is looked at through the root's handle.
    let disk = || -> Result<std::path::PathBuf> { Ok(root.join(relative(listed.path)?)) };
    let lstat = || match root_fd {
        Some(fd) => lstat_at(fd, listed.path),
        None => match relative(listed.path) {
            Ok(path) => lstat_path(&root.join(path)),
            Err(_) => Err(std::io::Error::from(std::io::ErrorKind::InvalidInput)),
        },
    };
    // The `lstat` taken for the index entry, kept for the earlier read.
    let mut seen: Option<Lstat> = None;
    if let (Some(indexed), Some(recorded), Some(index_mode)) =
        (listed.indexed, listed.vouching_stat(), index_mode)
    {
        let (mode, stat) = match lstat() {
            Ok(found) => found,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Examined::Absent),
            Err(e) => {
                return Err(RepoError::new(
                    Code::git_worktree_unavailable,
                    format!("cannot stat {}: {e}", disk()?.display()),
                ));
            }
        };
        let same_kind =
            mode.is_some_and(|m| (m == EntryMode::Symlink) == (index_mode == EntryMode::Symlink));
        let matches = stat_matches(recorded, &stat);
        if let (true, true, Some(mode)) = (same_kind, matches, mode) {
            return Ok(Examined::Indexed(Entry {
                mode,
                oid: indexed.id,
            }));
        }
        seen = Some((mode, stat));
    }
    if let Some((stat, entry, content)) = earlier.and_then(|reads| reads.prior(listed.path)) {
        let found = match seen {
            Some(seen) => Ok(seen),
            None => lstat(),
        };
        if let Ok((Some(mode), now)) = found
            && mode == entry.mode
            && stat_matches(stat, &now)
        {
            return Ok(Examined::Read(Box::new(ReadFile {
                entry: *entry,
                content: *content,
                stat: Some(now),
                origin: Origin::Earlier,
            })));
        }
    }
    Ok(match read_file_with_stat(&disk()?, format)? {
        Some((entry, content, stat)) => Examined::Read(Box::new(ReadFile {
            entry,
            content,
            stat,
            origin: Origin::Now,
        })),
        None => Examined::Absent,
    })
}

/// What `lstat` says of a path: its kind as an entry mode (`None`: neither a
/// regular file nor a link) and its stat data as the index records it.
type Lstat = (Option<EntryMode>, Stat);

fn lstat_parts(st: &rustix::fs::Stat) -> Lstat {
    use gix::index::entry::stat::Time;
    use rustix::fs::FileType;
    let mode = match FileType::from_raw_mode(st.st_mode) {
        FileType::Symlink => Some(EntryMode::Symlink),
        FileType::RegularFile if st.st_mode & 0o100 != 0 => Some(EntryMode::Executable),
        FileType::RegularFile => Some(EntryMode::Regular),
        _ => None,
    };
    // Truncated to 32 bits as git records them in the index.
    let stat = Stat {
        mtime: Time {
            secs: st.st_mtime as u32,
            nsecs: st.st_mtime_nsec as u32,
        },
        ctime: Time {
            secs: st.st_ctime as u32,
            nsecs: st.st_ctime_nsec as u32,
        },
        dev: st.st_dev as u32,
        ino: st.st_ino as u32,
        uid: st.st_uid,
        gid: st.st_gid,
        size: st.st_size as u32,
    };
    (mode, stat)
}

/// `lstat` of a repository path relative to the root's directory handle:
/// the kernel walks only the path's own components (rustix builds the C
/// path on the stack, so a tracked file costs no allocation).
fn lstat_at(root: &std::os::fd::OwnedFd, path: &BStr) -> std::io::Result<Lstat> {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(path);
    let st = rustix::fs::statat(root, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?;
    Ok(lstat_parts(&st))
}

fn lstat_path(path: &Path) -> std::io::Result<Lstat> {
    Ok(lstat_parts(&rustix::fs::lstat(path)?))
}

/// The root directory's handle for [`lstat_at`] (`None`: use full paths).
fn open_root(root: &Path) -> Option<std::os::fd::OwnedFd> {
    crate::safe_fs::Dir::open(root)
        .ok()
        .map(crate::safe_fs::Dir::into_fd)
}

/// A symbolic link's target as git stores it (the blob of a link), never
/// followed.
pub(crate) fn link_target(path: &Path) -> Result<BString> {
    let target = std::fs::read_link(path).map_err(|e| {
        RepoError::new(
            Code::git_worktree_unavailable,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    gix::path::into_bstr(target)
        .map(|target| target.into_owned())
        .map_err(|e| {
            RepoError::new(
                Code::git_worktree_unavailable,
                format!(
                    "symlink {} has an unrepresentable target: {e}",
                    path.display()
                ),
            )
        })
}

/// Open a regular file for reading without following a final symlink and
/// without blocking on a FIFO ([`crate::safe_fs::open_read`]); `Ok(None)`
/// when it is a link or not a regular file (the caller saw a file; it
/// changed).
fn open_regular(path: &Path) -> std::io::Result<Option<std::fs::File>> {
    use crate::safe_fs::{Error, Follow, open_read};
    match open_read(path, Follow::NoLinks) {
        Ok(file) => Ok(Some(file)),
        Err(Error::Symlink | Error::NotRegular(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Read one file (or link target) from disk: its entry (mode from disk,
/// blob id of the bytes) and content digest; `None` when it is gone or not
/// a regular file or link.
pub(crate) fn read_file(
    disk: &Path,
    format: gix::hash::Kind,
) -> Result<Option<(Entry, DiskContent)>> {
    Ok(read_file_with_stat(disk, format)?.map(|(entry, content, _)| (entry, content)))
}

/// The stat data of `metadata` as the index records it (see [`lstat_parts`]).
fn stat_of(metadata: &std::fs::Metadata) -> Stat {
    use gix::index::entry::stat::Time;
    use std::os::unix::fs::MetadataExt;
    Stat {
        mtime: Time {
            secs: metadata.mtime() as u32,
            nsecs: metadata.mtime_nsec() as u32,
        },
        ctime: Time {
            secs: metadata.ctime() as u32,
            nsecs: metadata.ctime_nsec() as u32,
        },
        dev: metadata.dev() as u32,
        ino: metadata.ino() as u32,
        uid: metadata.uid(),
        gid: metadata.gid(),
        size: metadata.size() as u32,
    }
}

/// [`read_file`], with the stat data of the bytes it hashed: the link's
/// `lstat`, or the `fstat` of the opened file taken before its bytes were
/// read (a write during the read changes the file's ctime, so a later
/// match proves the bytes are the ones hashed).
fn read_file_with_stat(
    disk: &Path,
    format: gix::hash::Kind,
) -> Result<Option<(Entry, DiskContent, Option<Stat>)>> {
    let unreadable = |e: std::io::Error| {
        RepoError::new(
            Code::git_worktree_unavailable,
            format!("cannot read {}: {e}", disk.display()),
        )
    };
    let metadata = match std::fs::symlink_metadata(disk) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e)),
    };
    let internal = |e: &dyn std::fmt::Display| {
        RepoError::new(
            Code::internal_error,
            format!("cannot hash {}: {e}", disk.display()),
        )
    };
    if metadata.file_type().is_symlink() {
        let target = link_target(disk)?;
        let oid = gix::objs::compute_hash(format, gix::object::Kind::Blob, &target)
            .map_err(|e| internal(&e))?;
        let content = DiskContent {
            sha256: Sha256::digest(target.as_slice()).into(),
            len: target.len() as u64,
        };
        return Ok(Some((
            Entry {
                mode: EntryMode::Symlink,
                oid,
            },
            content,
            Some(stat_of(&metadata)),
        )));
    }
    if !metadata.is_file() {
        return Ok(None);
    }
    let mut file = match open_regular(disk) {
        Ok(Some(f)) => f,
        Ok(None) => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e)),
    };
    let opened = file.metadata().map_err(unreadable)?;
    let mode = if super::is_executable(&opened) {
        EntryMode::Executable
    } else {
        EntryMode::Regular
    };
    // Stream the bytes through both hashes, the blob header written from
    // the size fstat reports; a file that changes length meanwhile is read
    // again whole.
    let declared = opened.len();
    let mut sha = Sha256::new();
    let mut git = gix::hash::hasher(format);
    git.update(&gix::objs::encode::loose_header(
        gix::object::Kind::Blob,
        declared,
    ));
    let mut buffer = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = file.read(&mut buffer).map_err(unreadable)?;
        if n == 0 {
            break;
        }
        sha.update(&buffer[..n]);
        git.update(&buffer[..n]);
        total += n as u64;
    }
    // A file whose length changed while it was read has no stat data that
    // vouches for the bytes finally hashed.
    let vouching = (total == declared).then(|| stat_of(&opened));
    let (oid, sha256) = if total == declared {
        (
            git.try_finalize().map_err(|e| internal(&e))?,
            sha.finalize().into(),
        )
    } else {
        let mut data = Vec::new();
        file.rewind().map_err(unreadable)?;
        file.read_to_end(&mut data).map_err(unreadable)?;
        total = data.len() as u64;
        (
            gix::objs::compute_hash(format, gix::object::Kind::Blob, &data)
                .map_err(|e| internal(&e))?,
            Sha256::digest(&data).into(),
        )
    };
    Ok(Some((
        Entry { mode, oid },
        DiskContent { sha256, len: total },
        vouching,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn known(choice: u8) -> Known {
        match choice % 3 {
            0 => Known::Indexed,
            1 => Known::Submodule,
            _ => Known::Read(DiskContent {
                sha256: [choice; 32],
                len: u64::from(choice),
            }),
        }
    }

    proptest! {
        /// What is pushed is what is read back, in order and by position.
        #[test]
        fn contents_give_back_what_was_pushed(choices in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut contents = Contents::with_capacity(choices.len());
            for c in &choices {
                contents.push(known(*c));
            }
            let want: Vec<Known> = choices.iter().map(|c| known(*c)).collect();
            prop_assert_eq!(contents.len(), want.len());
            prop_assert_eq!(contents.iter().collect::<Vec<_>>(), want.clone());
            for (i, k) in want.iter().enumerate() {
                prop_assert_eq!(contents.get(i), Some(*k));
            }
            prop_assert_eq!(contents.get(want.len()), None);
        }
    }
}
