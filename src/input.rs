//! Reading inputs from disk, bounded: regular files only (a FIFO is refused
//! without blocking), at most `limit + 1` bytes, so an oversize file is
//! judged by its contract without ever being held whole in memory. The
//! opening itself is [`crate::safe_fs`]'s.

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::safe_fs::{self, Follow};
use std::path::{Path, PathBuf};

/// Why an input file could not be read: its path and what [`safe_fs`]
/// found there.
#[derive(Debug)]
pub struct InputError {
    pub path: PathBuf,
    pub source: safe_fs::Error,
}

impl InputError {
    /// The reason code: not a regular file (or a link), or unreadable.
    pub fn code(&self) -> Code {
        match self.source {
            safe_fs::Error::NotRegular(_) | safe_fs::Error::Symlink => Code::input_not_regular_file,
            _ => Code::input_unreadable,
        }
    }

    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::new(self.code(), self.to_string())
    }
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match &self.source {
            safe_fs::Error::NotRegular(kind) => write!(f, "{path} is {kind}, not a regular file"),
            safe_fs::Error::Symlink => write!(
                f,
                "{path} is a symlink; repository artifacts are never followed through links"
            ),
            // The operating system's wording, as for any other read error.
            safe_fs::Error::NotFound => write!(
                f,
                "cannot read {path}: {}",
                std::io::Error::from_raw_os_error(libc::ENOENT)
            ),
            other => write!(f, "cannot read {path}: {other}"),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Read at most `limit + 1` bytes of the regular file at `path`; with
/// [`Follow::NoLinks`] a symlink there is refused.
pub fn read(path: &Path, limit: usize, follow: Follow) -> Result<Vec<u8>, InputError> {
    safe_fs::read_bounded(path, limit, follow).map_err(|source| InputError {
        path: path.to_path_buf(),
        source,
    })
}

/// Read at most `limit + 1` bytes of the regular file at `path` (symlinks
/// are followed, as for an explicitly named file).
pub fn read_bounded(path: &Path, limit: usize) -> Result<Vec<u8>, Diagnostic> {
    read(path, limit, Follow::Links).map_err(|e| e.to_diagnostic())
}

/// Like [`read_bounded`], but a symlink is refused instead of followed (for
/// repository-owned artifacts, which must not point elsewhere).
pub fn read_bounded_no_follow(path: &Path, limit: usize) -> Result<Vec<u8>, Diagnostic> {
    read(path, limit, Follow::NoLinks).map_err(|e| e.to_diagnostic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_at_most_one_byte_past_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, vec![b'x'; 100]).unwrap();
        assert_eq!(read_bounded(&path, 10).unwrap().len(), 11);
        assert_eq!(read_bounded(&path, 1000).unwrap().len(), 100);
    }

    #[test]
    fn refuses_directories_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = read_bounded(dir.path(), 10).unwrap_err();
        assert_eq!(d.code, Code::input_not_regular_file);
        let d = read_bounded(&dir.path().join("missing"), 10).unwrap_err();
        assert_eq!(d.code, Code::input_unreadable);
    }

    #[cfg(unix)]
    #[test]
    fn refuses_a_fifo_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let d = read_bounded(&fifo, 10).unwrap_err();
        assert_eq!(d.code, Code::input_not_regular_file);
        assert!(d.message.contains("FIFO"));
    }
}
