//! Random edits of a working tree for the differential checks of the
//! stat-reuse fast path: a property test (`tests/digest_v2.rs`) and a fuzz
//! target (`fuzz/fuzz_targets/stat_reuse.rs`) drive the same operations and
//! demand that the working-tree view built with stat reuse names exactly the
//! entries, and digests exactly like, the view that reads every file.
//!
//! Standalone (std, tempfile and the library only) so the fuzz crate can
//! include it by path.
#![allow(dead_code)]

use mastermind_hooks::config::Config;
use mastermind_hooks::digest::TreeDigester;
use mastermind_hooks::digest::cache::{Format, Sha256Cache};
use mastermind_hooks::repo::Repo;
use mastermind_hooks::repo::tree::{Known, View};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

/// The paths the operations play with: tree-order neighbours (`a-b`,
/// `a.b`, `a0` around the directory `a/`), nesting, and bookkeeping and
/// content under `.mastermind/`.
pub const NAMES: &[&str] = &[
    "a-b",
    "a.b",
    "a/x",
    "a/e/z",
    "a0",
    "b/c",
    ".mastermind/hooks.yaml",
    ".mastermind/tasks/t/spec.md",
    ".mastermind/tasks/t/helper.py",
    ".mastermind/tools/run.sh",
];

/// One edit of the working tree or the index.
#[derive(Clone, Debug)]
pub enum Op {
    /// New content; `same_size` keeps the length (so only the clock and
    /// the inode's change time tell).
    Write {
        file: u8,
        seed: u8,
        same_size: bool,
    },
    /// A same-size edit whose mtime is then set back to what it was.
    Restamp {
        file: u8,
        seed: u8,
    },
    /// mtime moved to now, content untouched.
    Touch {
        file: u8,
    },
    /// Toggle the execute bit.
    Chmod {
        file: u8,
    },
    /// `mv` without telling git.
    Rename {
        from: u8,
        to: u8,
    },
    Delete {
        file: u8,
    },
    /// Replace with a symlink to another name.
    Symlink {
        file: u8,
        target: u8,
    },
    /// Content changed and mtime set ahead of the index: racy.
    Future {
        file: u8,
        seed: u8,
    },
    /// `git add` one path (it becomes racy: staged in this second).
    Add {
        file: u8,
    },
    /// `git add -A`.
    AddAll,
}

impl Op {
    /// Decode an operation from bytes (the fuzz target's input).
    pub fn from_bytes(bytes: &[u8]) -> Vec<Op> {
        bytes
            .chunks(3)
            .filter(|c| c.len() == 3)
            .map(|c| {
                let (a, b) = (c[1], c[2]);
                match c[0] % 10 {
                    0 => Op::Write {
                        file: a,
                        seed: b,
                        same_size: b & 1 == 0,
                    },
                    1 => Op::Restamp { file: a, seed: b },
                    2 => Op::Touch { file: a },
                    3 => Op::Chmod { file: a },
                    4 => Op::Rename { from: a, to: b },
                    5 => Op::Delete { file: a },
                    6 => Op::Symlink { file: a, target: b },
                    7 => Op::Future { file: a, seed: b },
                    8 => Op::Add { file: a },
                    _ => Op::AddAll,
                }
            })
            .collect()
    }
}

fn name(i: u8) -> &'static str {
    NAMES[usize::from(i) % NAMES.len()]
}

fn content(seed: u8, len: usize) -> Vec<u8> {
    (0..len).map(|i| b'a' + ((i as u8) ^ seed) % 26).collect()
}

/// A temporary repository driven by the real `git`, isolated from the
/// machine's configuration.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Result<Sandbox, String> {
        let sandbox = Sandbox {
            dir: tempfile::tempdir().map_err(|e| e.to_string())?,
            home: tempfile::tempdir().map_err(|e| e.to_string())?,
        };
        sandbox.git(&["init", "-q", "-b", "main"])?;
        Ok(sandbox)
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn git(&self, args: &[&str]) -> Result<String, String> {
        let out = Command::new("git")
            .args(args)
            .current_dir(self.path())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join(".config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            // No background `git maintenance` after each commit (git 2.47
            // and later), which can outlive the sandbox (common/mod.rs,
            // TEST_GITCONFIG).
            .env("GIT_CONFIG_COUNT", "1")
            .env("GIT_CONFIG_KEY_0", "maintenance.auto")
            .env("GIT_CONFIG_VALUE_0", "false")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "git {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn at(&self, rel: &str) -> PathBuf {
        self.path().join(rel)
    }

    /// Write a file, replacing a link or file there; parents created.
    pub fn write(&self, rel: &str, data: &[u8]) -> Result<(), String> {
        let path = self.at(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            std::fs::remove_file(&path).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, data).map_err(|e| e.to_string())
    }

    fn cache(&self) -> Sha256Cache {
        let sha256 = self
            .git(&["rev-parse", "--show-object-format"])
            .is_ok_and(|format| format.trim() == "sha256");
        let format = if sha256 { Format::Sha256 } else { Format::Sha1 };
        Sha256Cache::at(self.home.path().join("cache"), [7; 32], format)
    }

    /// Commit every file, then make the index look written later than
    /// every file so its entries are not racy (as after a pause), and wait
    /// past the filesystem's timestamp tick so later edits get a new ctime.
    pub fn settle(&self) -> Result<(), String> {
        self.git(&["add", "-A"])?;
        self.git(&["commit", "-q", "--no-verify", "--allow-empty", "-m", "c"])?;
        let index = std::fs::File::options()
            .write(true)
            .open(self.at(".git/index"))
            .map_err(|e| e.to_string())?;
        index
            .set_modified(SystemTime::now() + Duration::from_secs(2))
            .map_err(|e| e.to_string())?;
        std::thread::sleep(Duration::from_millis(30));
        Ok(())
    }

    /// Apply one operation (a missing source is a no-op).
    pub fn apply(&self, op: &Op) -> Result<(), String> {
        let exists = |rel: &str| std::fs::symlink_metadata(self.at(rel)).is_ok();
        let is_file =
            |rel: &str| std::fs::symlink_metadata(self.at(rel)).is_ok_and(|m| m.is_file());
        match *op {
            Op::Write {
                file,
                seed,
                same_size,
            } => {
                let rel = name(file);
                let len = if same_size && is_file(rel) {
                    std::fs::metadata(self.at(rel)).map_or(8, |m| m.len() as usize)
                } else {
                    usize::from(seed % 40)
                };
                self.write(rel, &content(seed, len))?;
            }
            Op::Restamp { file, seed } => {
                let rel = name(file);
                if is_file(rel) {
                    let path = self.at(rel);
                    let meta = std::fs::metadata(&path).map_err(|e| e.to_string())?;
                    let mtime = meta.modified().map_err(|e| e.to_string())?;
                    let mut data = std::fs::read(&path).map_err(|e| e.to_string())?;
                    if let Some(first) = data.first_mut() {
                        *first = b'A' + seed % 26;
                    }
                    std::fs::write(&path, &data).map_err(|e| e.to_string())?;
                    let handle = std::fs::File::options()
                        .write(true)
                        .open(&path)
                        .map_err(|e| e.to_string())?;
                    handle.set_modified(mtime).map_err(|e| e.to_string())?;
                }
            }
            Op::Touch { file } => {
                let rel = name(file);
                if is_file(rel) {
                    let handle = std::fs::File::options()
                        .write(true)
                        .open(self.at(rel))
                        .map_err(|e| e.to_string())?;
                    handle
                        .set_modified(SystemTime::now())
                        .map_err(|e| e.to_string())?;
                }
            }
            Op::Chmod { file } => {
                use std::os::unix::fs::PermissionsExt;
                let rel = name(file);
                if is_file(rel) {
                    let path = self.at(rel);
                    let mode = std::fs::metadata(&path)
                        .map_err(|e| e.to_string())?
                        .permissions()
                        .mode();
                    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode ^ 0o111))
                        .map_err(|e| e.to_string())?;
                }
            }
            Op::Rename { from, to } => {
                let (from, to) = (name(from), name(to));
                if from != to && exists(from) {
                    let target = self.at(to);
                    if let Some(parent) = target.parent() {
                        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
                    }
                    if exists(to) {
                        std::fs::remove_file(&target).map_err(|e| e.to_string())?;
                    }
                    std::fs::rename(self.at(from), target).map_err(|e| e.to_string())?;
                }
            }
            Op::Delete { file } => {
                let rel = name(file);
                if exists(rel) {
                    std::fs::remove_file(self.at(rel)).map_err(|e| e.to_string())?;
                }
            }
            Op::Symlink { file, target } => {
                let rel = name(file);
                let path = self.at(rel);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
                }
                if exists(rel) {
                    std::fs::remove_file(&path).map_err(|e| e.to_string())?;
                }
                std::os::unix::fs::symlink(name(target), &path).map_err(|e| e.to_string())?;
            }
            Op::Future { file, seed } => {
                let rel = name(file);
                self.write(rel, &content(seed, 12))?;
                let handle = std::fs::File::options()
                    .write(true)
                    .open(self.at(rel))
                    .map_err(|e| e.to_string())?;
                handle
                    .set_modified(SystemTime::now() + Duration::from_secs(5))
                    .map_err(|e| e.to_string())?;
            }
            Op::Add { file } => {
                // A path git no longer has anywhere is a no-op.
                let _ = self.git(&["add", "-A", "--", name(file)]);
            }
            Op::AddAll => {
                self.git(&["add", "-A"])?;
            }
        }
        Ok(())
    }
}

/// Files of every name in [`NAMES`], committed and settled, the sha256
/// cache warmed by a full read. Returns the sandbox and how many entries
/// the stat-reuse view did not read (all of them, unless filters apply).
pub fn prepared(seeds: &[u8]) -> Result<(Sandbox, usize), String> {
    let sandbox = Sandbox::new()?;
    for (i, rel) in NAMES.iter().enumerate() {
        let seed = seeds.get(i).copied().unwrap_or(i as u8);
        sandbox.write(rel, &content(seed, usize::from(seed % 32) + 1))?;
    }
    sandbox.settle()?;
    let repo = Repo::discover(sandbox.path()).map_err(|e| e.to_string())?;
    let config = Config::strict_defaults();
    let full = View::from_worktree_reading_all(&repo).map_err(|e| e.to_string())?;
    TreeDigester::with_cache(&repo, &config, sandbox.cache())
        .of_view(&full)
        .map_err(|e| e.to_string())?;
    let fast = View::from_worktree(&repo).map_err(|e| e.to_string())?;
    let reused = fast.disk_contents().map_or(0, |(_, files)| {
        files
            .filter(|(_, _, known)| *known == Known::Indexed)
            .count()
    });
    Ok((sandbox, reused))
}

/// The differential check: the stat-reuse view (digested with the warm
/// cache) and the view that reads every file (digested with no cache) name
/// the same entries and digest alike, in both digest versions.
pub fn agree(sandbox: &Sandbox) -> Result<(), String> {
    let repo = Repo::discover(sandbox.path()).map_err(|e| e.to_string())?;
    let config = Config::strict_defaults();
    let fast = View::from_worktree(&repo).map_err(|e| e.to_string())?;
    let full = View::from_worktree_reading_all(&repo).map_err(|e| e.to_string())?;
    let fast_entries: Vec<_> = fast.entries().collect();
    let full_entries: Vec<_> = full.entries().collect();
    if fast_entries != full_entries {
        return Err(format!(
            "entries differ:\n fast {fast_entries:?}\n full {full_entries:?}"
        ));
    }
    let mut warm = TreeDigester::with_cache(&repo, &config, sandbox.cache());
    let mut cold = TreeDigester::new(&repo, &config, false);
    let pairs = [
        (warm.of_view(&fast), cold.of_view(&full)),
        (warm.of_view_v1(&fast), cold.of_view_v1(&full)),
    ];
    for (version, (fast, full)) in pairs.into_iter().enumerate() {
        let fast = fast.map_err(|e| e.to_string())?;
        let full = full.map_err(|e| e.to_string())?;
        if fast != full {
            return Err(format!("digest v{} differs: {fast} != {full}", 2 - version));
        }
    }
    Ok(())
}
