//! The loop guard: an agent whose work keeps failing is sent back at most
//! `max_consecutive_blocks` times in a row per session, then its stop goes
//! through with a note the user sees. A stop hook must never trap an agent
//! in a loop (Claude Code ends the turn itself after 8 blocks; Codex has no
//! cap of its own).
//!
//! The harness says when a stop follows a stop hook's block
//! (`stop_hook_active`); a stop without it starts a new chain. The count of
//! this hook's own blocks in the current chain is kept per session in a
//! small file under the git directory (`<git-dir>/mastermind-hooks/
//! agent-hooks/`, reached through [`crate::safe_fs::Dir`] without following
//! a link), written atomically, never in the working tree.

use super::AgentError;
use crate::safe_fs::{self, Dir, Follow};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// What the guard makes of one stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The work passes: let the stop through, the chain ends.
    Pass,
    /// The work fails and the chain has room: block (the count after it).
    Block(u32),
    /// The work fails but the agent was blocked this many times in a row:
    /// let the stop through with a note.
    Release(u32),
}

/// Decide one stop. `previous` is the stored count, `failing` whether the
/// gate rejects the work (or cannot check it).
pub fn step(previous: u32, stop_hook_active: bool, failing: bool, max: u32) -> Step {
    let chain = if stop_hook_active { previous } else { 0 };
    if !failing {
        Step::Pass
    } else if chain >= max {
        Step::Release(chain)
    } else {
        Step::Block(chain + 1)
    }
}

impl Step {
    /// The count to store after this step.
    pub fn stored(self) -> u32 {
        match self {
            Step::Block(n) => n,
            Step::Pass | Step::Release(_) => 0,
        }
    }
}

/// Bytes a state file may have.
const MAX_STATE_BYTES: usize = 4096;

/// Per-session counters under a git directory.
#[derive(Clone, Debug)]
pub struct Store {
    git_dir: PathBuf,
    dir: PathBuf,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct State {
    version: u32,
    key: String,
    consecutive_blocks: u32,
}

fn file_name(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    format!("{}.json", &hex::encode(digest)[..40])
}

/// The directories of the store below the git directory, created with
/// mode 0700 when missing.
const STORE_DIRS: [&str; 2] = ["mastermind-hooks", "agent-hooks"];

impl Store {
    /// The store of the repository whose git directory is `git_dir`.
    pub fn in_git_dir(git_dir: &Path) -> Store {
        Store {
            git_dir: git_dir.to_path_buf(),
            dir: STORE_DIRS
                .iter()
                .fold(git_dir.to_path_buf(), |d, c| d.join(c)),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The bytes stored for `key` (`None` when there are none).
    pub fn load_bytes(&self, key: &str) -> Result<Option<Vec<u8>>, AgentError> {
        let path = self.dir.join(file_name(key));
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(AgentError::StateStat { path, source }),
            Ok(_) => {}
        }
        crate::input::read(&path, MAX_STATE_BYTES, Follow::NoLinks)
            .map(Some)
            .map_err(AgentError::StateRead)
    }

    /// Store `bytes` for `key`, atomically.
    pub fn save_bytes(&self, key: &str, bytes: &[u8]) -> Result<(), AgentError> {
        let name = file_name(key);
        let path = self.dir.join(&name);
        let dir = self.open_dir(&path)?;
        dir.write_atomic(&name, bytes)
            .map_err(|e| AgentError::StateWrite {
                path,
                source: e.into(),
            })
    }

    /// The stored count for `key` (0 when there is none).
    pub fn load(&self, key: &str) -> Result<u32, AgentError> {
        let path = self.dir.join(file_name(key));
        let Some(bytes) = self.load_bytes(key)? else {
            return Ok(0);
        };
        let state: State = match serde_json::from_slice(&bytes) {
            Ok(state) => state,
            Err(source) => return Err(AgentError::StateInvalid { path, source }),
        };
        if state.version != 1 || state.key != key {
            return Err(AgentError::StateForeign { path });
        }
        Ok(state.consecutive_blocks)
    }

    /// The store's directory, created (mode 0700) where missing, reached
    /// from the git directory without following a link; the git directory
    /// itself must already exist.
    fn open_dir(&self, path: &Path) -> Result<Dir, AgentError> {
        let os = |source: safe_fs::Error| AgentError::StateWrite {
            path: path.to_path_buf(),
            source: source.into(),
        };
        let mut dir = Dir::open(&self.git_dir).map_err(os)?;
        for name in STORE_DIRS {
            dir.create_dir(name, 0o700).map_err(os)?;
            dir = match dir.child_dir(name, false) {
                Ok(child) => child,
                Err(safe_fs::Error::Symlink | safe_fs::Error::NotDirectory(_)) => {
                    return Err(AgentError::StateDir {
                        path: path.to_path_buf(),
                        dir: dir.join(name),
                    });
                }
                Err(e) => return Err(os(e)),
            };
        }
        Ok(dir)
    }

    /// Store `count` for `key`; 0 removes the state.
    pub fn save(&self, key: &str, count: u32) -> Result<(), AgentError> {
        let name = file_name(key);
        let path = self.dir.join(&name);
        if count == 0 {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(AgentError::StateRemove { path, source: e })
                }
                _ => Ok(()),
            };
        }
        let state = State {
            version: 1,
            key: key.to_string(),
            consecutive_blocks: count,
        };
        let bytes = serde_json::to_vec(&state).map_err(AgentError::StateEncode)?;
        self.save_bytes(key, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_then_releases_and_restarts_with_a_new_chain() {
        let max = 3;
        let mut stored = 0;
        let mut steps = Vec::new();
        for active in [false, true, true, true] {
            let s = step(stored, active, true, max);
            stored = s.stored();
            steps.push(s);
        }
        assert_eq!(
            steps,
            [
                Step::Block(1),
                Step::Block(2),
                Step::Block(3),
                Step::Release(3)
            ]
        );
        assert_eq!(stored, 0);
        // A stop that does not follow a block starts over, even with a count.
        assert_eq!(step(2, false, true, max), Step::Block(1));
        assert_eq!(step(2, true, false, max), Step::Pass);
        assert_eq!(step(0, true, true, 1), Step::Block(1));
        assert_eq!(step(1, true, true, 1), Step::Release(1));
    }

    #[test]
    fn store_round_trips_and_cleans_up() {
        let git = tempfile::tempdir().unwrap();
        let store = Store::in_git_dir(git.path());
        assert_eq!(store.load("session-a").unwrap(), 0);
        store.save("session-a", 2).unwrap();
        store.save("session-b", 1).unwrap();
        assert_eq!(store.load("session-a").unwrap(), 2);
        assert_eq!(store.load("session-b").unwrap(), 1);
        store.save("session-a", 0).unwrap();
        assert_eq!(store.load("session-a").unwrap(), 0);
        assert_eq!(std::fs::read_dir(store.dir()).unwrap().count(), 1);
        std::fs::write(store.dir().join(file_name("session-b")), b"garbage").unwrap();
        assert!(store.load("session-b").is_err());
    }

    #[test]
    fn never_creates_the_git_directory() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::in_git_dir(&dir.path().join("gone/.git"));
        assert!(store.save("s", 1).is_err());
        assert!(!dir.path().join("gone").exists());
    }

    #[cfg(unix)]
    #[test]
    fn refuses_a_symlinked_state_file() {
        let git = tempfile::tempdir().unwrap();
        let store = Store::in_git_dir(git.path());
        store.save("s", 1).unwrap();
        let path = store.dir().join(file_name("s"));
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", &path).unwrap();
        assert!(store.load("s").is_err());
    }
}
