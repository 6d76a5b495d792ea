//! Reading inputs from disk, bounded: regular files only (a FIFO is refused
//! without blocking), at most `limit + 1` bytes, so an oversize file is
//! judged by its contract without ever being held whole in memory.

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

#[cfg(target_os = "linux")]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
const O_NONBLOCK: i32 = 0x0004;

fn open_no_block(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(any(
        target_os = "linux",
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd"
    ))]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(O_NONBLOCK);
    }
    options.open(path)
}

fn describe(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_block_device() || file_type.is_char_device() {
            return "a device";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

fn not_regular(path: &Path, file_type: std::fs::FileType) -> Diagnostic {
    Diagnostic::new(
        Code::input_not_regular_file,
        format!(
            "{} is {}, not a regular file",
            path.display(),
            describe(file_type)
        ),
    )
}

fn unreadable(path: &Path, error: &std::io::Error) -> Diagnostic {
    Diagnostic::new(
        Code::input_unreadable,
        format!("cannot read {}: {error}", path.display()),
    )
}

/// Read at most `limit + 1` bytes of the regular file at `path` (symlinks
/// are followed, as for an explicitly named file).
pub fn read_bounded(path: &Path, limit: usize) -> Result<Vec<u8>, Diagnostic> {
    let metadata = std::fs::metadata(path).map_err(|e| unreadable(path, &e))?;
    if !metadata.is_file() {
        return Err(not_regular(path, metadata.file_type()));
    }
    let file = open_no_block(path).map_err(|e| unreadable(path, &e))?;
    let opened = file.metadata().map_err(|e| unreadable(path, &e))?;
    if !opened.is_file() {
        return Err(not_regular(path, opened.file_type()));
    }
    let mut bytes = Vec::with_capacity(limit.min(opened.len() as usize).saturating_add(1));
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(path, &e))?;
    Ok(bytes)
}

/// Like [`read_bounded`], but a symlink is refused instead of followed (for
/// repository-owned artifacts, which must not point elsewhere).
pub fn read_bounded_no_follow(path: &Path, limit: usize) -> Result<Vec<u8>, Diagnostic> {
    let metadata = std::fs::symlink_metadata(path).map_err(|e| unreadable(path, &e))?;
    if metadata.file_type().is_symlink() {
        return Err(Diagnostic::new(
            Code::input_not_regular_file,
            format!(
                "{} is a symlink; repository artifacts are never followed through links",
                path.display()
            ),
        ));
    }
    read_bounded(path, limit)
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
