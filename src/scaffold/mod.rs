//! Scaffolding: the files `init` and `task new` write, as pure text.
//!
//! * [`config`]: the commented `.mastermind/hooks.yaml` and the CI snippet
//!   for the platform a repository is hosted on;
//! * [`task`]: a task's `spec.md` (whose `cmd` and `run.argv` agree by
//!   construction) and an `executor-report.md` skeleton.
//!
//! Everything here is checked by the contracts it produces for (the unit
//! tests parse the output with the same code the gate uses), so a template
//! can never drift from what the gate accepts.

pub mod config;
pub mod task;
