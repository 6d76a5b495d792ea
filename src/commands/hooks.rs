//! `install`, `uninstall` and `status`: parse, call the flow in
//! [`crate::install::flow`], print its outcome.

use crate::commands::output::show;
use crate::diagnostic::ExitStatus;
use crate::install::Hook;
use crate::install::flow::{self, StatusFormat};
use std::path::PathBuf;

fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// `install --server`.
pub fn install_server() -> ExitStatus {
    show(&flow::install_server(&current_dir()))
}

/// `install [--hook H]... [--force]`.
pub fn install(named: &[Hook], force: bool) -> ExitStatus {
    show(&flow::install(&current_dir(), named, force))
}

/// `uninstall [--hook H]... [--force]`.
pub fn uninstall(named: &[Hook], force: bool) -> ExitStatus {
    show(&flow::uninstall(&current_dir(), named, force))
}

/// `status [--hook H]... [--format F]`.
pub fn status(named: &[Hook], format: StatusFormat) -> ExitStatus {
    let cwd = current_dir();
    let notes = crate::gate::identity::local_notes_in(&cwd);
    show(&flow::status(&cwd, named, format, notes))
}

/// `install --agent HARNESS`.
pub fn install_agent(harness: crate::agent::Harness) -> ExitStatus {
    show(&flow::install_agent(&current_dir(), harness))
}

/// `uninstall --agent HARNESS`.
pub fn uninstall_agent(harness: crate::agent::Harness) -> ExitStatus {
    show(&flow::uninstall_agent(&current_dir(), harness))
}

/// `status --agent HARNESS`.
pub fn agent_status(harness: crate::agent::Harness, format: StatusFormat) -> ExitStatus {
    show(&flow::agent_status(&current_dir(), harness, format))
}
