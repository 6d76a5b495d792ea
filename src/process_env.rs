//! Environment hygiene for the processes this tool starts.
//!
//! git runs hooks with repository-local variables set (`GIT_DIR`,
//! `GIT_INDEX_FILE` during `git commit -a`, `GIT_WORK_TREE`, `GIT_PREFIX`,
//! `git -c` settings in `GIT_CONFIG_PARAMETERS`, ...). The gate honours them,
//! but a command the gate starts (a declared verification check such as
//! `cargo test`) must not inherit them: a test suite that creates its own
//! temporary repositories would otherwise commit into the outer index or
//! repository. This is the list git itself clears when it switches to another
//! repository (`git rev-parse --local-env-vars`), plus the numbered
//! `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` pairs that `GIT_CONFIG_COUNT`
//! announces.

use std::ffi::{OsStr, OsString};

/// The repository-local variables, as `git rev-parse --local-env-vars`
/// lists them (git 2.47).
pub const GIT_LOCAL_ENV_VARS: &[&str] = &[
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
];

/// True when `name` is a repository-local git variable a child process must
/// not inherit.
pub fn is_git_local(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    if GIT_LOCAL_ENV_VARS.contains(&name) {
        return true;
    }
    ["GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"]
        .iter()
        .any(|prefix| {
            name.strip_prefix(prefix)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// The names among `names` (an environment's keys) to remove before
/// starting a child process, in their original order.
pub fn git_local_vars_to_clear<'a>(names: impl IntoIterator<Item = &'a OsStr>) -> Vec<OsString> {
    names
        .into_iter()
        .filter(|name| is_git_local(name))
        .map(OsStr::to_os_string)
        .collect()
}

/// Remove from `command`'s environment every repository-local git variable
/// this process inherited, so that git (or a check) started by it works on
/// the repository it is told to, not the hook's.
pub fn clear_inherited_git_vars(command: &mut std::process::Command) {
    let inherited: Vec<OsString> = std::env::vars_os().map(|(name, _)| name).collect();
    for name in git_local_vars_to_clear(inherited.iter().map(|n| n.as_os_str())) {
        command.env_remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_variables_git_sets_are_cleared() {
        for name in [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "GIT_PREFIX",
            "GIT_COMMON_DIR",
            "GIT_OBJECT_DIRECTORY",
            "GIT_CONFIG_PARAMETERS",
            "GIT_CONFIG_COUNT",
            "GIT_CONFIG_KEY_0",
            "GIT_CONFIG_VALUE_12",
        ] {
            assert!(is_git_local(OsStr::new(name)), "{name}");
        }
    }

    #[test]
    fn user_level_variables_are_kept() {
        for name in [
            "PATH",
            "HOME",
            "GIT_AUTHOR_NAME",
            "GIT_COMMITTER_EMAIL",
            "GIT_EDITOR",
            "GIT_SSH_COMMAND",
            "GIT_CONFIG_GLOBAL",
            "GIT_CONFIG_NOSYSTEM",
            "GIT_CONFIG_KEY_",
            "GIT_CONFIG_KEY_x",
            "git_dir",
            "MASTERMIND_HOOKS_SKIP",
        ] {
            assert!(!is_git_local(OsStr::new(name)), "{name}");
        }
    }

    #[test]
    fn clearing_keeps_order_and_only_local_names() {
        let env = [
            "PATH",
            "GIT_INDEX_FILE",
            "HOME",
            "GIT_DIR",
            "GIT_CONFIG_KEY_1",
        ];
        let cleared = git_local_vars_to_clear(env.iter().map(OsStr::new));
        assert_eq!(cleared, ["GIT_INDEX_FILE", "GIT_DIR", "GIT_CONFIG_KEY_1"]);
        let unique: std::collections::HashSet<_> = GIT_LOCAL_ENV_VARS.iter().collect();
        assert_eq!(unique.len(), GIT_LOCAL_ENV_VARS.len());
    }
}
