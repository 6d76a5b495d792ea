//! What code a change brings into CI must not reach: before the first
//! process of a re-run starts, the gate drops the CI platform's credentials
//! and command files ([`CI_SECRETS`]) from its own environment, so no
//! process it starts later inherits them, and makes itself non-dumpable
//! (Linux `prctl(PR_SET_DUMPABLE, 0)`), so a process of the same user can
//! no longer read the gate's `/proc/<pid>/environ` or memory. Removing a
//! variable does not erase the bytes the process was started with (which
//! `/proc/<pid>/environ` shows, and which a root-run check in a container
//! could still read), so their values are overwritten first.
//!
//! What this cannot close, a process of the same user still reaches: the
//! environment of the step's own shell and of the runner's other processes,
//! files the runner keeps (`$RUNNER_TEMP`), credentials a checkout left in
//! `.git/config`. docs/src/threat-model.md names them and shows the
//! separate-job recipe.

/// Variables a re-run never leaves to the change's code: tokens, and the
/// files through which a step sets the environment or outputs of later
/// steps (GitHub's `GITHUB_ENV`, `GITHUB_OUTPUT`, `GITHUB_PATH`,
/// `GITHUB_STATE`, `GITHUB_STEP_SUMMARY`; GitLab's job token and registry
/// credentials).
pub const CI_SECRETS: &[&str] = &[
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_CACHE_URL",
    "ACTIONS_RESULTS_URL",
    "GITHUB_ENV",
    "GITHUB_OUTPUT",
    "GITHUB_PATH",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
    "CI_JOB_TOKEN",
    "CI_JOB_JWT",
    "CI_JOB_JWT_V1",
    "CI_JOB_JWT_V2",
    "CI_REGISTRY_PASSWORD",
    "CI_DEPLOY_PASSWORD",
    "CI_DEPENDENCY_PROXY_PASSWORD",
];

/// What sealing did, for the re-run's notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealed {
    /// The variables that were set and are now gone.
    pub removed: Vec<&'static str>,
    /// The process is non-dumpable (always false off Linux).
    pub non_dumpable: bool,
}

/// Drop [`CI_SECRETS`] from this process's environment and make it
/// non-dumpable. Call it before the re-run starts any process or thread.
pub fn seal() -> Sealed {
    let mut removed = Vec::new();
    for name in CI_SECRETS {
        if std::env::var_os(name).is_some() {
            erase_value(name);
            // SAFETY: the re-run calls this on the main thread before it
            // starts any thread or process of its own; the gate's earlier
            // work (git reads, digests) has joined its worker threads, and
            // no library thread reads the environment concurrently.
            unsafe { std::env::remove_var(name) };
            removed.push(*name);
        }
    }
    Sealed {
        removed,
        non_dumpable: non_dumpable(),
    }
}

/// Overwrite the bytes of `name`'s value where the environment keeps them
/// (the block the process started with, which `/proc/<pid>/environ`
/// shows), as `setproctitle` implementations overwrite that block.
fn erase_value(name: &str) {
    let Ok(name) = std::ffi::CString::new(name) else {
        return;
    };
    // SAFETY: single-threaded (see `seal`); getenv returns null or a
    // pointer to the NUL-terminated value inside the environment block,
    // which is writable memory of this process and stays valid until the
    // environment is changed, which happens only after this returns.
    unsafe {
        let value = libc::getenv(name.as_ptr());
        if !value.is_null() {
            let len = libc::strlen(value);
            std::ptr::write_bytes(value, 0, len);
        }
    }
}

#[cfg(target_os = "linux")]
fn non_dumpable() -> bool {
    // SAFETY: prctl with PR_SET_DUMPABLE takes plain integers and touches
    // no memory of ours.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn non_dumpable() -> bool {
    false
}

/// True when this process is non-dumpable (Linux).
#[cfg(target_os = "linux")]
pub fn is_non_dumpable() -> bool {
    // SAFETY: PR_GET_DUMPABLE reads a flag of this process.
    unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) == 0 }
}

/// True when this process is non-dumpable (never off Linux).
#[cfg(not(target_os = "linux"))]
pub fn is_non_dumpable() -> bool {
    false
}

#[cfg(test)]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn the_process_can_be_made_non_dumpable() {
        assert!(super::non_dumpable());
        assert!(super::is_non_dumpable());
    }

    #[test]
    fn the_job_s_credentials_and_command_files_are_listed() {
        for name in [
            "GITHUB_TOKEN",
            "ACTIONS_RUNTIME_TOKEN",
            "CI_JOB_TOKEN",
            "GITHUB_ENV",
            "GITHUB_OUTPUT",
            "GITHUB_PATH",
            "GITHUB_STEP_SUMMARY",
        ] {
            assert!(super::CI_SECRETS.contains(&name), "{name}");
        }
    }
}
