//! Scaffolding: the files `init` and `task new` write.
//!
//! * [`config`]: the commented `.mastermind/hooks.yaml` and the CI snippet
//!   for the platform a repository is hosted on;
//! * [`planners`]: `init --planner`, the principals that plan, as the
//!   planning rules the configuration names them in;
//! * [`task`]: a task's `spec.md` (whose `cmd` and `run.argv` agree by
//!   construction) and an `executor-report.md` skeleton;
//! * [`widen`]: `task widen`, more declared paths in a spec's front matter,
//!   every other byte kept;
//! * [`files`]: the disk edge, writing them under the working tree through
//!   [`crate::safe_fs::Dir`] (no link followed, nothing replaced);
//! * [`ScaffoldError`]: why nothing was written, as a value.
//!
//! `config` and `task` are pure text, checked by the contracts they produce
//! for (the unit tests parse the output with the same code the gate uses),
//! so a template can never drift from what the gate accepts.

pub mod config;
mod error;
pub mod files;
pub mod planners;
pub mod task;
pub mod widen;

pub use error::ScaffoldError;
