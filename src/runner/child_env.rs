//! The child's environment: inherited, minus the repository-local git
//! variables (the list `git rev-parse --local-env-vars` prints), so a check
//! started from a hook never operates on the hook's index or git dir by
//! accident. A small local copy: no shared helper for this exists yet.

use std::process::Command;

/// `git rev-parse --local-env-vars` (git 2.47).
pub const LOCAL_GIT_ENV: &[&str] = &[
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

/// Remove every repository-local git variable from the child's environment.
pub fn scrub(command: &mut Command) {
    for name in LOCAL_GIT_ENV {
        command.env_remove(name);
    }
}
