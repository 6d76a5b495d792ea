//! The disk edge of scaffolding: new files under the repository, created
//! without following symlinks and without overwriting anything.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Make `top/rel` (relative, `/`-separated) a real directory: every missing
/// component is created, and an existing component that is a symlink or not
/// a directory is refused, so nothing is written outside the repository.
/// Returns the directories it created, deepest last, for [`undo`].
pub fn real_dirs(top: &Path, rel: &str) -> Result<Vec<PathBuf>, String> {
    let mut path = top.to_path_buf();
    let mut created = Vec::new();
    for component in rel.split('/').filter(|c| !c.is_empty()) {
        path.push(component);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                undo(&created, &[]);
                return Err(format!(
                    "{} is a symlink; refusing to write through it",
                    path.display()
                ));
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                undo(&created, &[]);
                return Err(format!("{} exists and is not a directory", path.display()));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Err(e) = std::fs::create_dir(&path) {
                    undo(&created, &[]);
                    return Err(format!("cannot create {}: {e}", path.display()));
                }
                created.push(path.clone());
            }
            Err(e) => {
                undo(&created, &[]);
                return Err(format!("cannot inspect {}: {e}", path.display()));
            }
        }
    }
    Ok(created)
}

/// Create `path` with `text`; never replaces an existing file or follows a
/// symlink there (`O_EXCL`).
pub fn create_new(path: &Path, text: &str) -> Result<(), String> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Remove what a failed scaffold created: files first, then directories
/// deepest first. Best effort; the error that caused it is what is reported.
pub fn undo(dirs: &[PathBuf], files: &[PathBuf]) {
    for file in files {
        let _ = std::fs::remove_file(file);
    }
    for dir in dirs.iter().rev() {
        let _ = std::fs::remove_dir(dir);
    }
}

/// The repository's working tree top, from the current directory.
pub fn worktree_top() -> Result<PathBuf, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?;
    let repo = crate::repo::Repo::discover(&cwd).map_err(|e| e.message)?;
    repo.workdir()
        .map(Path::to_path_buf)
        .ok_or_else(|| "this is a bare repository: scaffold a task in a working tree".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlinked_or_clashing_components_are_refused_and_nothing_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        std::fs::create_dir(top.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(top.join("elsewhere"), top.join("link")).unwrap();
        assert!(real_dirs(top, "link/tasks").is_err());
        assert!(!top.join("elsewhere/tasks").exists());
        std::fs::write(top.join("file"), "x").unwrap();
        assert!(real_dirs(top, "a/b/file/c").is_ok());
        let err = real_dirs(top, "new/file2").map(|created| created.len());
        assert_eq!(err, Ok(2));
        std::fs::write(top.join("new/file2/x"), "").unwrap();
        assert!(real_dirs(top, "z/y").is_ok());
        std::fs::write(top.join("plain"), "x").unwrap();
        assert!(real_dirs(top, "q/plain").is_ok());
        assert!(real_dirs(top, "plain/inner").is_err());
        let target = top.join("new/file2/x");
        assert!(create_new(&target, "again").is_err(), "never overwrites");
        std::os::unix::fs::symlink(top.join("nowhere"), top.join("dangling")).unwrap();
        assert!(create_new(&top.join("dangling"), "x").is_err());
        assert!(!top.join("nowhere").exists(), "never follows a symlink");
    }
}
