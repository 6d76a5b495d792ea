//! Opening files and directories safely: every file the tool reads or
//! writes is opened with `O_NONBLOCK` (a FIFO, socket or device never
//! blocks the open) and checked with `fstat` on the open descriptor (regular
//! files only, so nothing can be swapped in between a check and the open);
//! files and directories the tool writes are reached with `O_NOFOLLOW`, one
//! path component at a time from a directory descriptor, so a symlink
//! planted anywhere on the way is refused instead of followed and nothing
//! is ever created outside the directory the caller named.
//!
//! The system calls come from `rustix` (already in the build through gix);
//! metadata is read through `std::fs::File` on the same descriptor.

use rustix::fs::{AtFlags, Mode, OFlags};
use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Why a file or directory could not be opened safely.
#[derive(Debug)]
pub enum Error {
    /// Nothing exists at the path.
    NotFound,
    /// The path (or a directory on the way to it) is a symbolic link where
    /// links are not followed.
    Symlink,
    /// Not a regular file: what it is instead ("a FIFO", "a directory", ...).
    NotRegular(&'static str),
    /// Not a directory where one was expected: what it is instead.
    NotDirectory(&'static str),
    /// A name that is not one plain path component.
    InvalidName,
    /// Any other I/O error.
    Io(std::io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotFound => write!(f, "does not exist"),
            Error::Symlink => write!(
                f,
                "is a symbolic link (or lies below one); it is never followed"
            ),
            Error::NotRegular(kind) => write!(f, "is {kind}, not a regular file"),
            Error::NotDirectory(kind) => write!(f, "is {kind}, not a directory"),
            Error::InvalidName => write!(f, "is not a plain file name"),
            Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::NotFound
        } else {
            Error::Io(e)
        }
    }
}

/// The error as the operating system words it (a missing file is
/// `ENOENT`), for messages that show an I/O error.
impl From<Error> for std::io::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::NotFound => std::io::Error::from_raw_os_error(libc::ENOENT),
            Error::Io(e) => e,
            other => std::io::Error::other(other.to_string()),
        }
    }
}

impl From<rustix::io::Errno> for Error {
    fn from(e: rustix::io::Errno) -> Self {
        Error::from(std::io::Error::from(e))
    }
}

/// Whether the last component of a path may be a symbolic link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Follow {
    /// Follow it (a path the user named explicitly).
    Links,
    /// Refuse it (an artifact the repository owns).
    NoLinks,
}

/// What a file type is, for messages.
pub fn describe(file_type: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_block_device() || file_type.is_char_device() {
        "a device"
    } else if file_type.is_dir() {
        "a directory"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// The descriptor as a file, if it is a regular one.
fn regular(fd: OwnedFd) -> Result<File, Error> {
    let file = File::from(fd);
    let metadata = file.metadata()?;
    if metadata.is_file() {
        Ok(file)
    } else {
        Err(Error::NotRegular(describe(metadata.file_type())))
    }
}

/// Classify a failed `O_NOFOLLOW` open: a link, a non-directory, or the
/// error itself.
fn classify(dir: &OwnedFd, name: &OsStr, error: rustix::io::Errno, want_dir: bool) -> Error {
    let maybe_link = [
        rustix::io::Errno::LOOP,
        rustix::io::Errno::NOTDIR,
        rustix::io::Errno::MLINK,
    ]
    .contains(&error);
    if !maybe_link {
        return Error::from(error);
    }
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => {
            let kind = rustix::fs::FileType::from_raw_mode(stat.st_mode);
            if kind == rustix::fs::FileType::Symlink {
                Error::Symlink
            } else if want_dir && kind != rustix::fs::FileType::Directory {
                Error::NotDirectory(match kind {
                    rustix::fs::FileType::RegularFile => "a regular file",
                    rustix::fs::FileType::Fifo => "a FIFO",
                    rustix::fs::FileType::Socket => "a socket",
                    rustix::fs::FileType::CharacterDevice | rustix::fs::FileType::BlockDevice => {
                        "a device"
                    }
                    _ => "not a directory",
                })
            } else {
                Error::from(error)
            }
        }
        Err(_) => Error::from(error),
    }
}

fn base_flags() -> OFlags {
    OFlags::CLOEXEC | OFlags::NONBLOCK
}

/// Open a regular file for reading without blocking on a FIFO or device;
/// with [`Follow::NoLinks`] a symlink as the last component is refused.
pub fn open_read(path: &Path, follow: Follow) -> Result<File, Error> {
    let mut flags = OFlags::RDONLY | base_flags();
    if follow == Follow::NoLinks {
        flags |= OFlags::NOFOLLOW;
    }
    match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(fd) => regular(fd),
        Err(rustix::io::Errno::LOOP | rustix::io::Errno::MLINK) if follow == Follow::NoLinks => {
            Err(Error::Symlink)
        }
        Err(e) => Err(Error::from(e)),
    }
}

/// Read at most `limit + 1` bytes of an open file.
pub fn read_to_limit(file: File, limit: usize) -> Result<Vec<u8>, Error> {
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(limit.min(size as usize).saturating_add(1));
    file.take((limit as u64).saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Read all of an open file.
pub fn read_all(mut file: File) -> Result<Vec<u8>, Error> {
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Read at most `limit + 1` bytes of the regular file at `path`.
pub fn read_bounded(path: &Path, limit: usize, follow: Follow) -> Result<Vec<u8>, Error> {
    read_to_limit(open_read(path, follow)?, limit)
}

/// Open a regular file for appending, creating it when absent (links
/// followed: for paths the environment names, such as a CI job summary).
/// A FIFO without a reader is refused instead of waited for.
pub fn open_append(path: &Path) -> Result<File, Error> {
    let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE | base_flags();
    let fd = rustix::fs::open(path, flags, Mode::from_raw_mode(0o644))?;
    regular(fd)
}

/// True when `name` is one plain path component.
fn plain(name: &OsStr) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes != b"."
        && bytes != b".."
        && !bytes.contains(&b'/')
        && !bytes.contains(&0)
}

/// How far a replaced file is made to last ([`Dir::replace`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// The file and then the directory flushed to disk: the new content
    /// survives a power loss or a crash of the system.
    Synced,
    /// Renamed into place without a flush: every reader sees the old or the
    /// new content whole, and the new content survives the writer's death,
    /// but a power loss may bring the old one back.
    Atomic,
}

/// An open directory, reached without following links (except for the
/// root it was opened from). Everything below it is addressed relative to
/// the descriptor, so renaming or replacing a directory on the way after it
/// was opened cannot redirect a write.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

impl Dir {
    /// Open an existing directory by path (links on the way are followed:
    /// for a root the caller has already canonicalized).
    pub fn open(path: &Path) -> Result<Dir, Error> {
        let fd = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Dir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// Open `relative` (`/`-separated, each component plain) below `root`,
    /// refusing a symbolic link at any component.
    pub fn open_beneath(root: &Path, relative: &str) -> Result<Dir, Error> {
        let mut dir = Dir::open(root)?;
        for component in relative.split('/').filter(|c| !c.is_empty()) {
            dir = dir.child_dir(component, false)?;
        }
        Ok(dir)
    }

    /// The path this directory was reached by (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The descriptor, for calls this module does not wrap.
    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// The descriptor itself, for a caller that addresses paths below it
    /// with calls this module does not wrap.
    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }

    /// A directory entry's path, for messages.
    pub fn join<N: AsRef<OsStr>>(&self, name: N) -> PathBuf {
        self.path.join(name.as_ref())
    }

    /// Open the subdirectory `name` (creating it with mode 0755 first when
    /// `create`), never through a symbolic link.
    pub fn child_dir<N: AsRef<OsStr>>(&self, name: N, create: bool) -> Result<Dir, Error> {
        let name = name.as_ref();
        if !plain(name) {
            return Err(Error::InvalidName);
        }
        if create {
            self.create_dir(name, 0o755)?;
        }
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => Ok(Dir {
                fd,
                path: self.path.join(name),
            }),
            Err(e) => Err(classify(&self.fd, name, e, true)),
        }
    }

    /// Create the directory `name` with `mode` (less the umask) unless
    /// something already has that name; true when this call created it.
    /// Nothing is followed: an existing link or file is left for
    /// [`Dir::child_dir`] to refuse.
    pub fn create_dir<N: AsRef<OsStr>>(&self, name: N, mode: u32) -> Result<bool, Error> {
        let name = name.as_ref();
        if !plain(name) {
            return Err(Error::InvalidName);
        }
        match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(mode)) {
            Ok(()) => Ok(true),
            Err(rustix::io::Errno::EXIST) => Ok(false),
            Err(e) => Err(Error::from(e)),
        }
    }

    /// Remove the empty directory `name` (never through a link).
    pub fn remove_dir<N: AsRef<OsStr>>(&self, name: N) -> Result<(), Error> {
        let name = name.as_ref();
        if !plain(name) {
            return Err(Error::InvalidName);
        }
        rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)?;
        Ok(())
    }

    /// A second handle on the same directory.
    pub fn try_clone(&self) -> Result<Dir, Error> {
        Ok(Dir {
            fd: self.fd.try_clone()?,
            path: self.path.clone(),
        })
    }

    /// Open the regular file `name` for reading, never through a link.
    pub fn open_file<N: AsRef<OsStr>>(&self, name: N) -> Result<File, Error> {
        let name = name.as_ref();
        if !plain(name) {
            return Err(Error::InvalidName);
        }
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | base_flags();
        match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => regular(fd),
            Err(e) => Err(classify(&self.fd, name, e, false)),
        }
    }

    /// Read at most `limit + 1` bytes of the regular file `name`.
    pub fn read_bounded<N: AsRef<OsStr>>(&self, name: N, limit: usize) -> Result<Vec<u8>, Error> {
        read_to_limit(self.open_file(name)?, limit)
    }

    /// Open (creating with mode 0600 when absent) the regular file `name`
    /// for use as a lock: never through a link, never blocking on a FIFO.
    pub fn open_lock<N: AsRef<OsStr>>(&self, name: N) -> Result<File, Error> {
        let name = name.as_ref();
        if !plain(name) {
            return Err(Error::InvalidName);
        }
        let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | base_flags();
        match rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o600)) {
            Ok(fd) => regular(fd),
            Err(rustix::io::Errno::NXIO) => Err(Error::NotRegular("a FIFO or socket")),
            Err(e) => Err(classify(&self.fd, name, e, false)),
        }
    }

    /// [`Dir::open_lock`], saying whether this call created the file.
    pub fn open_lock_created<N: AsRef<OsStr>>(&self, name: N) -> Result<(File, bool), Error> {
        let name = name.as_ref();
        if !plain(name) {
            return Err(Error::InvalidName);
        }
        let flags = OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | base_flags();
        match rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o600)) {
            Ok(fd) => Ok((regular(fd)?, true)),
            Err(rustix::io::Errno::EXIST) => Ok((self.open_lock(name)?, false)),
            Err(e) => Err(classify(&self.fd, name, e, false)),
        }
    }

    /// True when `name` (not followed) is the very file `file` has open:
    /// a lock taken on a file someone has since removed or replaced guards
    /// nothing.
    pub fn still_names<N: AsRef<OsStr>>(&self, name: N, file: &File) -> bool {
        let Ok(open) = rustix::fs::fstat(file) else {
            return false;
        };
        rustix::fs::statat(&self.fd, name.as_ref(), AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|named| named.st_dev == open.st_dev && named.st_ino == open.st_ino)
    }

    /// Create the new regular file `name` with `mode` (less the umask),
    /// open for writing: it must not exist, not even as a link or a FIFO.
    pub fn create_new<N: AsRef<OsStr>>(&self, name: N, mode: u32) -> Result<File, Error> {
        let name = name.as_ref();
        if !plain(name) {
            return Err(Error::InvalidName);
        }
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(mode))?;
        Ok(File::from(fd))
    }

    /// Create the new regular file `name` (it must not exist) with `mode`
    /// and write `bytes` to it.
    pub fn create_file<N: AsRef<OsStr>>(
        &self,
        name: N,
        bytes: &[u8],
        mode: u32,
    ) -> Result<File, Error> {
        let mut file = self.create_new(name, mode)?;
        file.write_all(bytes)?;
        Ok(file)
    }

    /// Create the symbolic link `name` pointing at `target` (never followed
    /// by this module).
    pub fn create_symlink<N: AsRef<OsStr>>(&self, name: N, target: &[u8]) -> Result<(), Error> {
        let name = name.as_ref();
        if !plain(name) || target.contains(&0) {
            return Err(Error::InvalidName);
        }
        let target = OsStr::from_bytes(target);
        rustix::fs::symlinkat(target, &self.fd, name)?;
        Ok(())
    }

    /// Remove the file (not directory) `name`; absent is fine.
    pub fn remove_file<N: AsRef<OsStr>>(&self, name: N) -> Result<(), Error> {
        let name = name.as_ref();
        if !plain(name) {
            return Err(Error::InvalidName);
        }
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
            Err(e) => Err(Error::from(e)),
        }
    }

    /// Replace `name` with `bytes` atomically: a private (0600) temporary
    /// file beside it, flushed to disk, renamed over the target (a link
    /// there is replaced, never followed), the directory flushed. On error
    /// the temporary file is removed and the target is unchanged.
    pub fn write_atomic<N: AsRef<OsStr>>(&self, name: N, bytes: &[u8]) -> Result<(), Error> {
        self.replace(name, bytes, Durability::Synced)
    }

    /// [`Dir::write_atomic`] with the durability asked for.
    pub fn replace<N: AsRef<OsStr>>(
        &self,
        name: N,
        bytes: &[u8],
        durability: Durability,
    ) -> Result<(), Error> {
        self.replace_with_mode(name, bytes, durability, 0o600)
    }

    /// [`Dir::replace`] with the new file's mode (less the umask): a report
    /// other tools of the job read is `0o644`.
    pub fn replace_with_mode<N: AsRef<OsStr>>(
        &self,
        name: N,
        bytes: &[u8],
        durability: Durability,
        mode: u32,
    ) -> Result<(), Error> {
        let name = name.as_ref();
        if !plain(name) {
            return Err(Error::InvalidName);
        }
        let mut suffix = [0u8; 8];
        getrandom::fill(&mut suffix)
            .map_err(|e| Error::Io(std::io::Error::other(e.to_string())))?;
        let mut temp = std::ffi::OsString::from(".");
        temp.push(name);
        temp.push(format!(".tmp.{}", hex::encode(suffix)));
        let temp = temp.as_os_str();
        let result = (|| {
            let file = self.create_file(temp, bytes, mode)?;
            if durability == Durability::Synced {
                file.sync_all()?;
            }
            rustix::fs::renameat(&self.fd, temp, &self.fd, name)?;
            if durability == Durability::Synced {
                let _ = rustix::fs::fsync(&self.fd);
            }
            Ok(())
        })();
        if result.is_err() {
            let _ = rustix::fs::unlinkat(&self.fd, temp, AtFlags::empty());
        }
        result
    }
}

/// Make `path` a directory, as `mkdir -p` does, and open it: the part of
/// the path that exists is followed as it is (a path the user or git named,
/// links included); every missing component is created with `mode` (less
/// the umask) and entered without following a link, so a link planted
/// while it is made is refused instead of written through.
pub fn create_dirs(path: &Path, mode: u32) -> Result<Dir, Error> {
    let mut missing = Vec::new();
    let mut at = path;
    let mut dir = loop {
        let existing = if at.as_os_str().is_empty() {
            Path::new(".")
        } else {
            at
        };
        match Dir::open(existing) {
            Ok(dir) => break dir,
            Err(Error::NotFound) => match (at.parent(), at.file_name()) {
                (Some(parent), Some(name)) => {
                    missing.push(name);
                    at = parent;
                }
                _ => return Err(Error::NotFound),
            },
            Err(e) => return Err(e),
        }
    };
    for name in missing.into_iter().rev() {
        dir.create_dir(name, mode)?;
        dir = dir.child_dir(name, false)?;
    }
    Ok(dir)
}

/// What [`walk`] met below its root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Walked {
    /// A regular file.
    File(PathBuf),
    /// An entry that is not read: a symbolic link (never followed), a
    /// FIFO, socket or device (never opened), or a directory that could not
    /// be opened; with what it is.
    Skipped(PathBuf, String),
}

/// Every entry below the directory `root` (the root itself is reached as
/// named, links included: the caller named it), in byte order of paths. Nothing below the root is followed through a symbolic link,
/// nothing but directories is opened, and a directory whose name `prune`
/// accepts is not entered.
pub fn walk(root: &Path, prune: &dyn Fn(&OsStr) -> bool) -> Result<Vec<Walked>, Error> {
    let mut out = Vec::new();
    let mut pending = vec![Dir::open(root)?];
    while let Some(dir) = pending.pop() {
        let mut names: Vec<(std::ffi::OsString, rustix::fs::FileType)> = Vec::new();
        for entry in rustix::fs::Dir::read_from(&dir.fd)? {
            let entry = entry?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            // The entry's own type, never its target's.
            let kind = match rustix::fs::statat(&dir.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => rustix::fs::FileType::from_raw_mode(stat.st_mode),
                Err(rustix::io::Errno::NOENT) => continue,
                Err(e) => return Err(Error::from(e)),
            };
            names.push((name.to_os_string(), kind));
        }
        names.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut below = Vec::new();
        for (name, kind) in names {
            let path = dir.join(&name);
            match kind {
                rustix::fs::FileType::RegularFile => out.push(Walked::File(path)),
                rustix::fs::FileType::Directory => {
                    if prune(&name) {
                        continue;
                    }
                    match dir.child_dir(&name, false) {
                        Ok(child) => below.push(child),
                        Err(e) => out.push(Walked::Skipped(path, format!("a directory that {e}"))),
                    }
                }
                rustix::fs::FileType::Symlink => out.push(Walked::Skipped(
                    path,
                    "a symbolic link; links are never followed".to_string(),
                )),
                rustix::fs::FileType::Fifo => out.push(Walked::Skipped(
                    path,
                    "a FIFO, not a regular file".to_string(),
                )),
                rustix::fs::FileType::Socket => out.push(Walked::Skipped(
                    path,
                    "a socket, not a regular file".to_string(),
                )),
                _ => out.push(Walked::Skipped(
                    path,
                    "a device, not a regular file".to_string(),
                )),
            }
        }
        pending.extend(below);
    }
    let path = |w: &Walked| match w {
        Walked::File(p) | Walked::Skipped(p, _) => p.as_os_str().as_bytes().to_vec(),
    };
    out.sort_by_key(path);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    }

    #[test]
    fn a_walk_lists_files_and_never_follows_or_opens_anything_else() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::write(root.join("a/b/c.md"), b"x").unwrap();
        std::fs::write(root.join("a/z.md"), b"x").unwrap();
        std::fs::write(root.join(".git/HEAD"), b"x").unwrap();
        std::os::unix::fs::symlink("/etc", root.join("a/outside")).unwrap();
        std::os::unix::fs::symlink("z.md", root.join("a/link.md")).unwrap();
        fifo(&root.join("a/pipe"));
        let found = walk(root, &|name| name == ".git").unwrap();
        let shown: Vec<String> = found
            .iter()
            .map(|w| match w {
                Walked::File(p) => format!("file {}", p.strip_prefix(root).unwrap().display()),
                Walked::Skipped(p, why) => {
                    format!("skip {} ({why})", p.strip_prefix(root).unwrap().display())
                }
            })
            .collect();
        assert_eq!(
            shown,
            [
                "file a/b/c.md",
                "skip a/link.md (a symbolic link; links are never followed)",
                "skip a/outside (a symbolic link; links are never followed)",
                "skip a/pipe (a FIFO, not a regular file)",
                "file a/z.md",
            ]
        );
    }

    #[test]
    fn regular_files_only_and_no_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_bounded(&file, 4, Follow::NoLinks).unwrap().len(), 5);
        let pipe = dir.path().join("pipe");
        fifo(&pipe);
        assert!(matches!(
            open_read(&pipe, Follow::Links),
            Err(Error::NotRegular("a FIFO"))
        ));
        assert!(matches!(
            open_append(&pipe),
            Err(Error::NotRegular(_) | Error::Io(_))
        ));
        assert!(matches!(
            open_read(dir.path(), Follow::Links),
            Err(Error::NotRegular("a directory"))
        ));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(matches!(
            open_read(&link, Follow::NoLinks),
            Err(Error::Symlink)
        ));
        assert!(open_read(&link, Follow::Links).is_ok());
        assert!(matches!(
            open_read(&dir.path().join("missing"), Follow::Links),
            Err(Error::NotFound)
        ));
    }

    #[test]
    fn directories_are_walked_without_links() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("a/b")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("a/link")).unwrap();
        let dir = Dir::open_beneath(root.path(), "a/b").unwrap();
        assert_eq!(dir.path(), root.path().join("a/b"));
        assert!(matches!(
            Dir::open_beneath(root.path(), "a/link"),
            Err(Error::Symlink)
        ));
        let a = Dir::open_beneath(root.path(), "a").unwrap();
        // Creating through a link creates nothing on the other side.
        assert!(matches!(a.child_dir("link", true), Err(Error::Symlink)));
        assert!(matches!(a.open_lock("link"), Err(Error::Symlink)));
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
        std::fs::write(root.path().join("a/file"), b"x").unwrap();
        assert!(matches!(
            a.child_dir("file", true),
            Err(Error::NotDirectory("a regular file"))
        ));
        assert!(matches!(a.child_dir("..", true), Err(Error::InvalidName)));
        assert!(matches!(a.open_file("x/y"), Err(Error::InvalidName)));
    }

    #[test]
    fn fifos_in_a_walk_are_refused_without_blocking() {
        let root = tempfile::tempdir().unwrap();
        fifo(&root.path().join("pipe"));
        let dir = Dir::open(root.path()).unwrap();
        // Where a directory is expected: refused before anything opens it.
        assert!(matches!(
            dir.child_dir("pipe", true),
            Err(Error::NotDirectory("a FIFO"))
        ));
        assert!(matches!(
            Dir::open_beneath(root.path(), "pipe/below"),
            Err(Error::NotDirectory("a FIFO"))
        ));
        assert!(matches!(
            create_dirs(&root.path().join("pipe/below"), 0o755),
            Err(Error::Io(_))
        ));
        // Where a new file is to go: refused as existing, never opened.
        assert!(
            matches!(dir.create_new("pipe", 0o644), Err(Error::Io(e)) if e.kind() == std::io::ErrorKind::AlreadyExists)
        );
        assert!(matches!(
            dir.open_file("pipe"),
            Err(Error::NotRegular("a FIFO"))
        ));
    }

    #[test]
    fn create_dirs_follows_what_exists_and_creates_the_rest_without_links() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        // An existing link on the way is the caller's own path: followed.
        std::os::unix::fs::symlink(outside.path(), root.path().join("hooks")).unwrap();
        let made = create_dirs(&root.path().join("hooks/a/b"), 0o755).unwrap();
        assert_eq!(made.path(), root.path().join("hooks/a/b"));
        assert!(outside.path().join("a/b").is_dir());
        // Idempotent.
        assert!(create_dirs(&root.path().join("hooks/a/b"), 0o755).is_ok());
        std::fs::write(root.path().join("file"), b"x").unwrap();
        assert!(create_dirs(&root.path().join("file/sub"), 0o755).is_err());
        // The primitives: created or not, and removed again.
        let dir = Dir::open(root.path()).unwrap();
        assert!(dir.create_dir("new", 0o700).unwrap());
        assert!(!dir.create_dir("new", 0o700).unwrap());
        assert!(
            !dir.create_dir("hooks", 0o700).unwrap(),
            "a link is left alone"
        );
        assert!(matches!(dir.child_dir("hooks", false), Err(Error::Symlink)));
        let clone = dir.try_clone().unwrap();
        clone.remove_dir("new").unwrap();
        assert!(!root.path().join("new").exists());
        assert!(matches!(dir.remove_dir("new"), Err(Error::NotFound)));
    }

    #[test]
    fn locks_and_atomic_writes_refuse_special_files_and_links() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let dir = Dir::open(root.path()).unwrap();
        fifo(&root.path().join("run.lock"));
        assert!(matches!(
            dir.open_lock("run.lock"),
            Err(Error::NotRegular(_))
        ));
        let lock = dir.open_lock("other.lock").unwrap();
        assert!(lock.try_lock().is_ok());
        // A dangling link to a file outside: never created.
        let target = outside.path().join("created");
        std::os::unix::fs::symlink(&target, root.path().join("dangling")).unwrap();
        assert!(matches!(dir.open_lock("dangling"), Err(Error::Symlink)));
        assert!(!target.exists());
        // write_atomic replaces a link instead of writing through it.
        dir.write_atomic("dangling", b"data").unwrap();
        assert!(!target.exists());
        assert_eq!(
            std::fs::read(root.path().join("dangling")).unwrap(),
            b"data"
        );
        let leftovers = std::fs::read_dir(root.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains(".tmp.")
            })
            .count();
        assert_eq!(leftovers, 0);
        // Without the flushes: the same replacement, a link still replaced.
        std::os::unix::fs::symlink(&target, root.path().join("pending")).unwrap();
        dir.replace("pending", b"one", Durability::Atomic).unwrap();
        dir.replace("pending", b"two", Durability::Atomic).unwrap();
        assert!(!target.exists());
        assert_eq!(std::fs::read(root.path().join("pending")).unwrap(), b"two");
        assert!(matches!(
            dir.replace("../escape", b"x", Durability::Atomic),
            Err(Error::InvalidName)
        ));
    }
}
