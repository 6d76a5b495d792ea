//! mastermind-hooks: a fast, fail-closed git gate for coding-agent work.
//!
//! The crate is split into a pure core and thin edges:
//!
//! * [`contract`]: artifact contracts, bytes in, values and diagnostics out;
//! * [`schema`]: the embedded JSON Schemas, compiled once;
//! * [`codes`] and [`diagnostic`]: the one diagnostic model and its codes;
//! * [`input`], [`commands`], [`render`], [`cli`]: disk, commands, output;
//! * [`safe_fs`]: opening files without following links or blocking;
//! * [`install`]: the git hook shims (`install`, `uninstall`, `status`);
//! * [`agent`]: the agent-harness hook protocols (`agent-hook`, `install --agent`);
//! * [`process_env`]: git variables child processes must not inherit;
//! * [`crash`]: what a panic does (exit 2, or a crash its waiter reports).

// Diagnostics are the error values of this crate; they are built once per
// finding, never on a hot path, so their size is not worth boxing.
#![allow(clippy::result_large_err)]

// The hook shims are POSIX sh, and the runner relies on process groups and
// Unix signals. Say so at build time instead of failing on some API deep in.
#[cfg(not(unix))]
compile_error!(
    "mastermind-hooks runs on Unix-like systems (Linux, macOS, the BSDs); Windows is not supported yet"
);

pub mod agent;
pub mod artifact;
pub mod bookkeeping;
pub mod cli;
pub mod codes;
pub mod commands;
pub mod config;
pub mod contract;
pub mod crash;
pub mod diagnostic;
pub mod diff;
pub mod digest;
pub mod gate;
pub mod input;
pub mod install;
pub mod process_env;
pub mod render;
pub mod repo;
pub mod report;
pub mod runner;
pub mod safe_fs;
pub mod scaffold;
pub mod schema;
pub mod suggest;
