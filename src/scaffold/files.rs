//! The disk edge of scaffolding: the new directories and files `init` and
//! `task new` write under the working tree. Every directory on the way is
//! entered through [`crate::safe_fs::Dir`] (one component at a time from
//! the working tree's descriptor, `O_NOFOLLOW`), so a symbolic link or a
//! file planted anywhere on the way is refused instead of written through,
//! a FIFO never blocks, and nothing lands outside the repository. Files are
//! created `O_EXCL`: nothing existing is ever replaced. What one writer
//! created can be taken back together ([`NewFiles::undo`]).

use super::ScaffoldError;
use super::task::TaskDraft;
use crate::safe_fs::{self, Dir};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Directories are created as `mkdir` does (0777 less the umask), files as
/// `open(O_CREAT)` does (0666 less the umask).
const DIR_MODE: u32 = 0o777;
const FILE_MODE: u32 = 0o666;

/// The repository's working tree top, from the current directory.
pub fn worktree_top() -> Result<PathBuf, ScaffoldError> {
    let cwd = std::env::current_dir().map_err(ScaffoldError::NoCurrentDir)?;
    let repo = crate::repo::Repo::discover(&cwd).map_err(ScaffoldError::Repo)?;
    repo.workdir()
        .map(Path::to_path_buf)
        .ok_or(ScaffoldError::Bare)
}

/// The directories and files one scaffold creates below the working tree,
/// each remembered with the directory it was created in.
#[derive(Debug)]
pub struct NewFiles {
    top: Dir,
    /// Created directories, outermost first.
    dirs: Vec<(Dir, OsString)>,
    files: Vec<(Dir, OsString)>,
}

/// An I/O error as the operating system words it.
fn os(e: safe_fs::Error) -> std::io::Error {
    e.into()
}

impl NewFiles {
    /// Start writing below the working tree `top` (an existing directory,
    /// taken as it is).
    pub fn below(top: &Path) -> Result<NewFiles, ScaffoldError> {
        let top = Dir::open(top).map_err(|e| ScaffoldError::Inspect {
            path: top.to_path_buf(),
            source: os(e),
        })?;
        Ok(NewFiles {
            top,
            dirs: Vec::new(),
            files: Vec::new(),
        })
    }

    /// Make `rel` (relative, `/`-separated) a real directory below the top
    /// and open it: every missing component is created, an existing one
    /// that is a symlink or not a directory is refused. On a refusal the
    /// directories this call created are removed again.
    pub fn dir(&mut self, rel: &str) -> Result<Dir, ScaffoldError> {
        let before = self.dirs.len();
        let walked = self.walk(rel);
        if walked.is_err() {
            for (parent, name) in self.dirs.drain(before..).rev() {
                let _ = parent.remove_dir(&name);
            }
        }
        walked
    }

    fn walk(&mut self, rel: &str) -> Result<Dir, ScaffoldError> {
        let mut dir = self.top.try_clone().map_err(|e| ScaffoldError::Inspect {
            path: self.top.path().to_path_buf(),
            source: os(e),
        })?;
        for name in rel.split('/').filter(|c| !c.is_empty()) {
            let path = dir.join(name);
            let inspect = |e: safe_fs::Error, path: PathBuf| match e {
                safe_fs::Error::Symlink => ScaffoldError::Symlink { path },
                safe_fs::Error::NotDirectory(_) => ScaffoldError::NotDirectory { path },
                other => ScaffoldError::Inspect {
                    path,
                    source: os(other),
                },
            };
            let child = match dir.child_dir(name, false) {
                Ok(child) => child,
                Err(safe_fs::Error::NotFound) => {
                    let created =
                        dir.create_dir(name, DIR_MODE)
                            .map_err(|e| ScaffoldError::CreateDir {
                                path: path.clone(),
                                source: os(e),
                            })?;
                    let child = dir
                        .child_dir(name, false)
                        .map_err(|e| inspect(e, path.clone()))?;
                    if created {
                        self.dirs.push((dir, name.into()));
                    }
                    child
                }
                Err(e) => return Err(inspect(e, path)),
            };
            dir = child;
        }
        Ok(dir)
    }

    /// Create the new file `name` in `dir` (from [`NewFiles::dir`]) with
    /// `text`; never replaces anything or follows a link there.
    pub fn file(&mut self, dir: &Dir, name: &str, text: &str) -> Result<(), ScaffoldError> {
        let path = dir.join(name);
        let dir = dir.try_clone().map_err(|e| ScaffoldError::Inspect {
            path: dir.path().to_path_buf(),
            source: os(e),
        })?;
        let mut file = dir
            .create_new(name, FILE_MODE)
            .map_err(|e| ScaffoldError::CreateFile {
                path: path.clone(),
                source: os(e),
            })?;
        self.files.push((dir, name.into()));
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|source| ScaffoldError::Write { path, source })
    }

    /// Remove everything this writer created: files first, then
    /// directories deepest first. Best effort; the error that caused it is
    /// what is reported.
    pub fn undo(self) {
        for (dir, name) in self.files.iter().rev() {
            let _ = dir.remove_file(name);
        }
        for (dir, name) in self.dirs.iter().rev() {
            let _ = dir.remove_dir(name);
        }
    }
}

/// Write `<dir>/<name>` below the working tree `top` (creating `dir`), for
/// `init`'s configuration. A directory created before a failure to write
/// the file stays.
pub fn write_new(top: &Path, rel_dir: &str, name: &str, text: &str) -> Result<(), ScaffoldError> {
    let mut files = NewFiles::below(top)?;
    let dir = files.dir(rel_dir)?;
    files.file(&dir, name, text)
}

/// Write a task's `spec.md` (`spec`) and report skeleton under `top`; on
/// any failure everything written is removed again.
pub fn write_task(top: &Path, draft: &TaskDraft, spec: &str) -> Result<(), ScaffoldError> {
    let mut files = NewFiles::below(top)?;
    let written = files.dir(&draft.dir()).and_then(|dir| {
        files.file(&dir, "spec.md", spec)?;
        files.file(&dir, "executor-report.md", &draft.report())
    });
    if written.is_err() {
        files.undo();
    }
    written
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
    fn symlinked_or_clashing_components_are_refused_and_nothing_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        let mut files = NewFiles::below(top).unwrap();
        std::fs::create_dir(top.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(top.join("elsewhere"), top.join("link")).unwrap();
        assert!(matches!(
            files.dir("link/tasks"),
            Err(ScaffoldError::Symlink { .. })
        ));
        assert!(!top.join("elsewhere/tasks").exists());
        std::fs::write(top.join("file"), "x").unwrap();
        assert!(files.dir("a/b/file/c").is_ok());
        let before = files.dirs.len();
        let made = files.dir("new/file2").unwrap();
        assert_eq!(made.path(), top.join("new/file2"));
        assert_eq!(files.dirs.len() - before, 2);
        std::fs::write(top.join("new/file2/x"), "").unwrap();
        assert!(files.dir("z/y").is_ok());
        std::fs::write(top.join("plain"), "x").unwrap();
        assert!(files.dir("q/plain").is_ok());
        assert!(matches!(
            files.dir("plain/inner"),
            Err(ScaffoldError::NotDirectory { .. })
        ));
        let target = files.dir("new/file2").unwrap();
        assert!(
            files.file(&target, "x", "again").is_err(),
            "never overwrites"
        );
        std::os::unix::fs::symlink(top.join("nowhere"), top.join("dangling")).unwrap();
        let top_dir = files.dir("").unwrap();
        assert!(files.file(&top_dir, "dangling", "x").is_err());
        assert!(!top.join("nowhere").exists(), "never follows a symlink");
    }

    #[test]
    fn a_refusal_takes_back_the_directories_of_that_call() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        let mut files = NewFiles::below(top).unwrap();
        assert!(matches!(
            files.dir("new/deeper/../x"),
            Err(ScaffoldError::Inspect { .. })
        ));
        assert!(!top.join("new").exists());
        assert!(files.dirs.is_empty());
    }

    #[test]
    fn a_symlinked_directory_component_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let top = dir.path();
        std::fs::create_dir(top.join(".mastermind")).unwrap();
        std::os::unix::fs::symlink(outside.path(), top.join(".mastermind/tasks")).unwrap();
        let draft = TaskDraft::new("t", &[], &[]).unwrap();
        let err = write_task(top, &draft, &draft.spec()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{} is a symlink; refusing to write through it",
                top.join(".mastermind/tasks").display()
            )
        );
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
        assert!(top.join(".mastermind").is_dir(), "what existed stays");
    }

    #[test]
    fn fifos_on_the_way_or_in_place_of_a_file_never_block() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        std::fs::create_dir(top.join(".mastermind")).unwrap();
        fifo(&top.join(".mastermind/tasks"));
        let draft = TaskDraft::new("t", &[], &[]).unwrap();
        let err = write_task(top, &draft, &draft.spec()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{} exists and is not a directory",
                top.join(".mastermind/tasks").display()
            )
        );
        std::fs::remove_file(top.join(".mastermind/tasks")).unwrap();
        std::fs::create_dir_all(top.join(".mastermind/tasks/t")).unwrap();
        fifo(&top.join(".mastermind/tasks/t/executor-report.md"));
        let err = write_task(top, &draft, &draft.spec()).unwrap_err();
        assert!(matches!(err, ScaffoldError::CreateFile { .. }), "{err}");
        assert!(
            !top.join(".mastermind/tasks/t/spec.md").exists(),
            "the spec written before is taken back"
        );
        assert!(
            top.join(".mastermind/tasks/t").is_dir(),
            "it existed before"
        );
    }

    #[test]
    fn a_task_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        let draft = TaskDraft::new("t", &[], &[]).unwrap();
        write_task(top, &draft, &draft.spec()).unwrap();
        let written = std::fs::read_to_string(top.join(".mastermind/tasks/t/spec.md")).unwrap();
        assert_eq!(written, draft.spec());
        assert!(top.join(".mastermind/tasks/t/executor-report.md").is_file());
        write_new(top, ".mastermind", "hooks.yaml", "x: 1\n").unwrap();
        assert!(write_new(top, ".mastermind", "hooks.yaml", "x: 2\n").is_err());
        assert_eq!(
            std::fs::read_to_string(top.join(".mastermind/hooks.yaml")).unwrap(),
            "x: 1\n"
        );
    }
}
