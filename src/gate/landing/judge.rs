//! One landing through the gate: the configuration of its target, then the
//! gate's judgement, gathered with the other findings of the run into one
//! report.

use super::{Landing, config};
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::gate::{self, Gate};
use crate::repo::{Repo, RepoError};
use crate::report::{FileResult, Report, TaskResult};

/// Findings and tasks gathered over one invocation.
#[derive(Default)]
pub struct Collected {
    pub(super) files: Vec<FileResult>,
    pub(super) tasks: Vec<TaskResult>,
    pub(super) diagnostics: Vec<Diagnostic>,
}

impl Collected {
    /// A run that could not go on.
    pub fn fail(&mut self, error: RepoError) {
        self.diagnostics.push(error.to_diagnostic());
    }

    /// A finding about the run rather than a task.
    pub fn note(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// True when a finding says a git object could not be read.
    pub(super) fn missed_objects(&self) -> bool {
        let missing = |d: &Diagnostic| d.code == crate::codes::Code::git_object_unavailable;
        self.diagnostics.iter().any(missing)
            || self
                .tasks
                .iter()
                .flat_map(|t| t.checks.iter())
                .flat_map(|c| c.diagnostics.iter())
                .any(missing)
    }

    /// Everything gathered, as one report.
    pub fn into_report(self) -> Report {
        Report::assemble(self.files, self.tasks, self.diagnostics)
    }
}

/// Judge `landing` under its target's configuration. Returns that
/// configuration when the gate ran (a landing with no usable configuration
/// is only reported).
pub fn judge(repo: &Repo, landing: &Landing, out: &mut Collected) -> Option<Config> {
    let config = match config::in_force(repo, landing) {
        Ok(config) => config,
        Err(diagnostics) => {
            out.diagnostics.extend(diagnostics);
            return None;
        }
    };
    out.diagnostics.extend(config.notes.iter().cloned());
    let gate = Gate::new(repo, &config, landing);
    match gate::run(&gate) {
        Ok(outcome) => {
            out.tasks.extend(outcome.tasks);
            out.files.extend(outcome.files);
            out.diagnostics.extend(outcome.diagnostics);
        }
        Err(e) => out.fail(e),
    }
    Some(config)
}
