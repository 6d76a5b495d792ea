//! `mastermind-hooks check`: the gate in one of its modes. The mode's
//! landing is built and judged in [`crate::gate::landing`]; this module
//! renders the one report (human output to stderr for git hooks).

use crate::commands::output::{self, HumanTo, OutputArgs};
use crate::diagnostic::ExitStatus;
pub use crate::gate::landing::ci::Rerun;
pub use crate::gate::landing::mode::Mode;
pub use crate::runner::rerun::Preference as RerunPlace;

pub fn run(mode: &Mode, out: &OutputArgs) -> ExitStatus {
    // A re-run removes the job-summary variable from the environment before
    // the change's code runs; the summary still goes where it named.
    let step_summary = std::env::var_os(output::STEP_SUMMARY_VAR);
    let human = if mode.human_to_stderr() {
        HumanTo::Stderr
    } else {
        HumanTo::Stdout
    };
    let attestation = match mode {
        Mode::Ci {
            rerun: Some(rerun), ..
        } => rerun.attestation.as_deref(),
        _ => None,
    };
    // Every file the run will write is checked before any check runs: a
    // re-run that takes minutes must not end in "cannot write".
    let problems = output::preflight(out, attestation, step_summary.as_deref());
    if !problems.is_empty() {
        return output::refuse(problems, out, step_summary);
    }
    let report = crate::gate::landing::mode::report(mode);
    let status = output::finish_run(&report, out, human, step_summary, attestation);
    // A GitLab server hook (Gitaly sets GL_REPOSITORY and GL_ID): the lines
    // its web interface shows when it refuses a merge or an edit there.
    if matches!(mode, Mode::Receive) && under_gitlab(&|name| std::env::var_os(name)) {
        eprint!("{}", crate::render::gitlab::hook_errors(&report));
    }
    status
}

/// True when GitLab's Gitaly runs this hook.
fn under_gitlab(var: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    ["GL_REPOSITORY", "GL_ID"]
        .iter()
        .any(|name| var(name).is_some_and(|v| !v.is_empty()))
}
