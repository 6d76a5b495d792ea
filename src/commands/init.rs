//! `mastermind-hooks init`: set a repository up for the gate in one step.
//! Writes a commented `.mastermind/hooks.yaml` (never over an existing
//! one): a solo repository's, or with `--planner` one whose planning rules
//! allow exactly those planners; installs the hooks exactly as `install`
//! does, and prints the CI step for the platform the repository is hosted
//! on.

use crate::commands::emit;
use crate::commands::output::show;
use crate::config::CONFIG_PATH;
use crate::diagnostic::ExitStatus;
use crate::scaffold::config::{Platform, ci_snippet, config_template};
use crate::scaffold::files::{worktree_top, write_new};
use crate::scaffold::planners::{self, Planner};
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

pub fn run(given: &[String]) -> ExitStatus {
    let mut planners: Vec<Planner> = Vec::new();
    for text in given {
        match Planner::parse(text) {
            Ok(planner) => planners.push(planner),
            Err(e) => {
                eprintln!("error[usage_invalid]: {e}; nothing was written");
                return ExitStatus::CannotCheck;
            }
        }
    }
    let top = match worktree_top() {
        Ok(top) => top,
        Err(message) => {
            eprintln!("error[usage_invalid]: {message}");
            return ExitStatus::CannotCheck;
        }
    };
    // The gate must read this repository (its object format, its
    // references), and so must the git its hooks run under: a team learns
    // here that either cannot, not at its first commit.
    let readable = crate::repo::Repo::discover(&top)
        .and_then(|repo| repo.head_commit().and(repo.git_reads_references()));
    if let Err(e) = readable {
        eprintln!(
            "error[{}]: {}; nothing was written or installed",
            e.code.as_str(),
            e.message
        );
        return ExitStatus::CannotCheck;
    }
    let config = top.join(CONFIG_PATH);
    let wrote = match std::fs::symlink_metadata(&config) {
        Ok(_) if planners.is_empty() => format!("{CONFIG_PATH}: already there, left as it is\n"),
        Ok(_) => format!(
            "{CONFIG_PATH}: already there, left as it is; to make these planners the only ones, put these rules under `planning:` (and remove any `default: allow` there):\n  rules:\n{}",
            planners::rules_yaml(&planners)
        ),
        Err(_) => {
            let (dir, name) = CONFIG_PATH.rsplit_once('/').unwrap_or(("", CONFIG_PATH));
            match write_new(&top, dir, name, &config_template(&planners)) {
                Ok(()) if planners.is_empty() => format!(
                    "{CONFIG_PATH}: written (every key at its default, each explained; anyone's plan is allowed: a solo repository; `init --planner github:LOGIN` names the planners instead); commit it\n"
                ),
                Ok(()) => format!(
                    "{CONFIG_PATH}: written (every key at its default, each explained); only {} plan: anyone else's new task, wider spec or control-file change is refused in CI and pre-receive; commit it\n",
                    planners
                        .iter()
                        .map(Planner::label)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Err(message) => {
                    eprintln!("error[usage_invalid]: {message}; nothing was installed");
                    return ExitStatus::CannotCheck;
                }
            }
        }
    };
    let mut wrote = wrote;
    let signers_file = top.join(".mastermind/allowed_signers");
    for planner in planners
        .iter()
        .filter(|p| p.platform == planners::Platform::Signer)
    {
        if std::fs::symlink_metadata(&signers_file).is_err() {
            wrote.push_str(&format!(
                ".mastermind/allowed_signers: add {}'s public key and commit it with the configuration (the gate reads it from the protected branch): `echo \"{} namespaces=\\\"git\\\" $(cat ~/.ssh/id_ed25519.pub)\" >> .mastermind/allowed_signers`\n",
                planner.name, planner.name
            ));
        }
    }
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
