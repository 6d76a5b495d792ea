//! `install`, `uninstall` and `status`: putting the gate where git runs hooks,
//! taking it out again, and saying what git will run.
//!
//! * [`hooks_dir`]: the directory git runs hooks from, and why (asks git);
//! * [`shim`]: the POSIX `sh` shim templates (`hooks/`), rendering and parsing;
//! * [`managers`]: the scripts other hook managers write, and their recipes;
//!   [`manager_config`]: whether a manager's configuration runs the gate;
//! * [`binary`]: the stable absolute path of the running binary;
//! * [`files`]: what is on disk at a hook's path and its `.legacy` path;
//! * [`plan`]: pure decisions (install, uninstall) from those observations;
//! * [`apply`]: the filesystem effects of a plan (atomic, no-clobber);
//! * [`status`]: pure evaluation of what git will run;
//! * [`agent`]: the agent-harness hook entries (`install --agent`), and
//!   [`codex_toml`]: the inline hooks of Codex's `config.toml`, for status;
//! * [`flow`]: each command's flow from a working directory to an outcome.
//!
//! **Why ask git, not gix, where the hooks directory is.** Hooks are run by
//! git, so git's own answer (`git rev-parse --path-format=absolute --git-path
//! hooks`, and `git config --show-scope --show-origin --get core.hooksPath`
//! for the reason) is correct by definition: it applies every config scope,
//! `include`/`includeIf` (gitdir, onbranch, hasconfig), per-worktree config,
//! `GIT_DIR`/`GIT_COMMON_DIR`, `~` expansion, relative `core.hooksPath`
//! (relative to the worktree root), linked worktrees (the common dir) and
//! submodules (their git dir under `.git/modules`). Reimplementing that with
//! gix would make every difference a hook written where git never runs it,
//! the failure this module exists to avoid. The cost is three short `git`
//! processes at install and status time, never in the hook's path; `git` is
//! spawned directly with an argument vector, no shell involved. Without git
//! (or with git older than 2.31, which lacks `--path-format`), the commands
//! stop with `hook_git_unavailable`: a machine without git runs no hooks.

pub mod agent;
pub mod apply;
pub mod binary;
pub mod codex_toml;
pub mod files;
pub mod flow;
pub mod hooks_dir;
pub mod manager_config;
pub mod managers;
pub mod plan;
pub mod server;
pub mod shim;
pub mod status;

use serde::Serialize;

/// A hook this tool manages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Hook {
    /// `check --staged` before each commit.
    PreCommit,
    /// `check --push` before each push.
    PrePush,
    /// `check --staged` before git records a merge (`git merge`; git runs
    /// no pre-commit hook for it).
    PreMergeCommit,
}

impl Hook {
    /// Every managed hook, in the order commands report them.
    pub const ALL: [Hook; 3] = [Hook::PreCommit, Hook::PrePush, Hook::PreMergeCommit];

    /// The hook's file name, as git looks it up.
    pub fn name(self) -> &'static str {
        match self {
            Hook::PreCommit => "pre-commit",
            Hook::PrePush => "pre-push",
            Hook::PreMergeCommit => "pre-merge-commit",
        }
    }

    /// The file name a replaced hook is kept under.
    pub fn legacy_name(self) -> String {
        format!("{}.legacy", self.name())
    }

    /// The gate command the shim runs.
    pub fn gate_command(self) -> &'static str {
        match self {
            Hook::PreCommit | Hook::PreMergeCommit => "check --staged",
            Hook::PrePush => "check --push",
        }
    }

    pub fn from_name(name: &str) -> Option<Hook> {
        Hook::ALL.into_iter().find(|hook| hook.name() == name)
    }

    /// The hooks a command works on: the ones named, else all; sorted, once each.
    pub fn selection(named: &[Hook]) -> Vec<Hook> {
        let mut hooks = if named.is_empty() {
            Hook::ALL.to_vec()
        } else {
            named.to_vec()
        };
        hooks.sort();
        hooks.dedup();
        hooks
    }
}

impl std::fmt::Display for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_defaults_to_every_hook_and_deduplicates() {
        assert_eq!(Hook::selection(&[]), Hook::ALL.to_vec());
        assert_eq!(
            Hook::selection(&[Hook::PrePush, Hook::PreCommit, Hook::PrePush]),
            vec![Hook::PreCommit, Hook::PrePush]
        );
        assert_eq!(
            Hook::from_name("pre-merge-commit"),
            Some(Hook::PreMergeCommit)
        );
        assert_eq!(Hook::from_name("pre-push"), Some(Hook::PrePush));
        assert_eq!(Hook::from_name("post-commit"), None);
        assert_eq!(Hook::PreCommit.legacy_name(), "pre-commit.legacy");
    }
}
