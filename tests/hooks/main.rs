//! Hooks and CI as a user installs and meets them: `install`, `status` and
//! the shims, the other hook managers driven for real, the agent-harness
//! hooks, the CI templates, the documents' walk-throughs and what a
//! newcomer meets first.
//!
//! One test binary: `cargo test --test hooks [filter]`.

#[path = "../common/mod.rs"]
mod common;

mod agent_gate;
mod agent_hooks;
mod ci_binary;
mod formats;
mod hooks;
mod managers;
mod newcomer;
mod one_run;
mod planners;
mod release;
mod server_hooks;
mod templates;
mod walkthroughs;
mod ways_to_land;
mod widen;
