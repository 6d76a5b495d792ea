//! `mastermind-hooks init`: set a repository up for the gate in one step.
//! Writes a commented `.mastermind/hooks.yaml` (never over an existing
//! one), installs the hooks exactly as `install` does, and prints the CI
//! step for the platform the repository is hosted on.

use crate::commands::emit;
use crate::commands::output::show;
use crate::config::CONFIG_PATH;
use crate::diagnostic::ExitStatus;
use crate::scaffold::config::{CONFIG_TEMPLATE, Platform, ci_snippet};
use crate::scaffold::files::{worktree_top, write_new};
use std::path::Path;

fn origin_url(top: &Path) -> Option<String> {
    let output = std::process::Command::new("git")
        .args(["remote", "get-url", "origin"])
        .current_dir(top)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

pub fn run() -> ExitStatus {
    let top = match worktree_top() {
        Ok(top) => top,
        Err(message) => {
            eprintln!("error[usage_invalid]: {message}");
            return ExitStatus::CannotCheck;
        }
    };
    // The gate must read this repository (its object format, its
    // references): a team learns here that it cannot, not at its first
    // commit.
    if let Err(e) = crate::repo::Repo::discover(&top).and_then(|repo| repo.head_commit()) {
        eprintln!(
            "error[{}]: {}; nothing was written or installed",
            e.code.as_str(),
            e.message
        );
        return ExitStatus::CannotCheck;
    }
    let config = top.join(CONFIG_PATH);
    let wrote = match std::fs::symlink_metadata(&config) {
        Ok(_) => format!("{CONFIG_PATH}: already there, left as it is\n"),
        Err(_) => {
            let (dir, name) = CONFIG_PATH.rsplit_once('/').unwrap_or(("", CONFIG_PATH));
            match write_new(&top, dir, name, CONFIG_TEMPLATE) {
                Ok(()) => format!(
                    "{CONFIG_PATH}: written (every key at its default, each explained); commit it\n"
                ),
                Err(message) => {
                    eprintln!("error[usage_invalid]: {message}; nothing was installed");
                    return ExitStatus::CannotCheck;
                }
            }
        }
    };
    if emit(&wrote).is_err() {
        return ExitStatus::CannotCheck;
    }
    let installed = show(&crate::install::flow::install(&top, &[], false));
    let platform = Platform::detect(
        origin_url(&top).as_deref(),
        top.join(".github").is_dir(),
        top.join(".gitlab-ci.yml").is_file(),
    );
    let which = match platform {
        Platform::Github => "GitHub Actions (from the origin remote or .github/)",
        Platform::Gitlab => "GitLab CI (from the origin remote or .gitlab-ci.yml)",
        Platform::Unknown => "no platform detected; GitHub Actions and GitLab CI shown",
    };
    let text = format!(
        "\nCI: {which}. Add this step so every pull request is gated on what lands:\n\n{}\nNext: `mastermind-hooks task new NAME --touches PATH --check CMD` starts a task.\n",
        ci_snippet(platform)
    );
    if emit(&text).is_err() {
        return ExitStatus::CannotCheck;
    }
    installed
}
