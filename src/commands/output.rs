//! The output edge every checking command shares: render the report in the
//! chosen format (human output to stderr for git hooks, everything else to
//! stdout) and, for `--format github`, append the Markdown job summary to the
//! file named by `GITHUB_STEP_SUMMARY`.

use crate::commands::emit;
use crate::diagnostic::ExitStatus;
use crate::render::{self, ColorChoice, Format, RenderOptions, github};
use crate::report::Report;
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

// The output flags of `validate` and `check`. (A plain comment: clap builds
// a subcommand's flags only when that subcommand runs, and then takes a
// flattened struct's doc comment for the subcommand's own description.)
#[derive(Clone, Debug, clap::Args)]
pub struct OutputArgs {
    /// Output format. `github` prints workflow commands (annotations) and appends a job
    /// summary to $GITHUB_STEP_SUMMARY when it is set.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// When to colour human output (NO_COLOR and CLICOLOR_FORCE are honoured by `auto`).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// With --format github: at most N annotations of each kind (error, warning,
    /// notice), errors first; one notice counts exactly what was left out. Default:
    /// GitHub's per-step limit.
    #[arg(long, value_name = "N", default_value_t = github::DEFAULT_MAX_ANNOTATIONS)]
    pub max_annotations: usize,
    /// Human output: print nothing unless there is an error or a warning (a passing
    /// hook stays silent). The exit status is unchanged.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl Default for OutputArgs {
    fn default() -> Self {
        OutputArgs {
            format: Format::Human,
            color: ColorChoice::Auto,
            max_annotations: github::DEFAULT_MAX_ANNOTATIONS,
            quiet: false,
        }
    }
}

/// The environment variable GitHub Actions sets to the job summary file.
pub const STEP_SUMMARY_VAR: &str = "GITHUB_STEP_SUMMARY";

/// Append the job summary to `path`, with the command that checks the
/// change again locally when the CI context names its base.
pub fn append_step_summary(path: &Path, report: &Report) -> std::io::Result<()> {
    let local = local_base(&|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
        .map(|base| github::local_command(&base));
    // A FIFO or device there is refused instead of blocking the gate.
    let mut file = crate::safe_fs::open_append(path)?;
    file.write_all(github::step_summary_with(report, local.as_deref()).as_bytes())?;
    file.flush()
}

/// The base a developer passes to `check --ci` to judge the change on their
/// machine as GitHub Actions did: `origin/<base branch>` of a pull request
/// or merge group, the old tip of a push, else `origin/<default branch>`.
/// From GitHub's variables and event payload; `None` when they do not say.
pub fn local_base(var: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if let Some(branch) = var("GITHUB_BASE_REF") {
        return Some(format!("origin/{branch}"));
    }
    let event: serde_json::Value = var("GITHUB_EVENT_PATH")
        .and_then(|path| {
            crate::safe_fs::read_bounded(Path::new(&path), 32 << 20, crate::safe_fs::Follow::Links)
                .ok()
        })
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())?;
    let text = |pointer: &str| {
        event
            .pointer(pointer)
            .and_then(|v| v.as_str())
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    if let Some(base) = text("/merge_group/base_ref") {
        return Some(format!(
            "origin/{}",
            base.strip_prefix("refs/heads/").unwrap_or(&base)
        ));
    }
    if var("GITHUB_EVENT_NAME").as_deref() == Some("push")
        && let Some(before) = text("/before").filter(|b| b.bytes().any(|c| c != b'0'))
    {
        return Some(before);
    }
    text("/repository/default_branch").map(|branch| format!("origin/{branch}"))
}

/// Where human output goes. Machine formats always go to stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HumanTo {
    Stdout,
    /// Git hooks: git shows a hook's stderr to the user.
    Stderr,
}

/// Print the report to stdout and return the run's exit status. Output that
/// cannot be written (stdout, or the job summary that was asked for) is exit
/// 2: a result nobody can see is no pass.
pub fn finish(report: &Report, args: &OutputArgs) -> ExitStatus {
    finish_to(report, args, HumanTo::Stdout)
}

/// [`finish`], with human output sent where `human` says.
pub fn finish_to(report: &Report, args: &OutputArgs, human: HumanTo) -> ExitStatus {
    finish_with_summary_target(report, args, human, std::env::var_os(STEP_SUMMARY_VAR))
}

fn write_stderr(text: &str) -> std::io::Result<()> {
    let mut stderr = std::io::stderr().lock();
    stderr
        .write_all(text.as_bytes())
        .and_then(|()| stderr.flush())
}

/// [`finish_to`] with the value of `GITHUB_STEP_SUMMARY` passed in.
pub fn finish_with_summary_target(
    report: &Report,
    args: &OutputArgs,
    human: HumanTo,
    step_summary: Option<OsString>,
) -> ExitStatus {
    let options = RenderOptions {
        max_annotations: args.max_annotations,
    };
    let silent = args.quiet
        && args.format == Format::Human
        && report.summary.errors == 0
        && report.summary.warnings == 0;
    let text = if silent {
        String::new()
    } else {
        render::render(report, args.format, &options)
    };
    let written = if args.format == Format::Human && human == HumanTo::Stderr {
        write_stderr(&text)
    } else {
        emit(&text)
    };
    if written.is_err() {
        return ExitStatus::CannotCheck;
    }
    if args.format == Format::Github
        && let Some(target) = step_summary.filter(|v| !v.is_empty())
        && let Err(error) = append_step_summary(Path::new(&target), report)
    {
        eprintln!(
            "error: cannot append the job summary to {STEP_SUMMARY_VAR} ({}): {error}; unset {STEP_SUMMARY_VAR} to skip the summary",
            Path::new(&target).display()
        );
        return ExitStatus::CannotCheck;
    }
    report.exit_status()
}

/// Print a flow's outcome (stderr first: warnings and refusals, then the
/// result on stdout) and return its exit status; a failure to write stdout
/// is "could not check".
pub fn show(outcome: &crate::install::flow::Outcome) -> ExitStatus {
    if !outcome.stderr.is_empty() {
        eprint!("{}", outcome.stderr);
    }
    if outcome.stdout.is_empty() {
        return outcome.status;
    }
    match emit(&outcome.stdout) {
        Ok(()) => outcome.status,
        Err(_) => ExitStatus::CannotCheck,
    }
}

#[cfg(test)]
mod tests {
    use super::local_base;

    fn base(vars: &[(&str, &str)], event: Option<serde_json::Value>) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("event.json");
        let mut vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if let Some(event) = event {
            std::fs::write(&file, event.to_string()).unwrap();
            vars.push(("GITHUB_EVENT_PATH".into(), file.display().to_string()));
        }
        local_base(&|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn the_local_base_is_what_the_event_merges_into() {
        let repository = serde_json::json!({"default_branch": "trunk"});
        assert_eq!(
            base(&[("GITHUB_BASE_REF", "release/1.x")], None).as_deref(),
            Some("origin/release/1.x")
        );
        assert_eq!(
            base(
                &[("GITHUB_EVENT_NAME", "merge_group")],
                Some(serde_json::json!({"merge_group": {"base_ref": "refs/heads/main"}, "repository": repository}))
            )
            .as_deref(),
            Some("origin/main")
        );
        let before = "a".repeat(40);
        assert_eq!(
            base(
                &[("GITHUB_EVENT_NAME", "push")],
                Some(serde_json::json!({"before": before, "repository": repository}))
            ),
            Some(before)
        );
        assert_eq!(
            base(
                &[("GITHUB_EVENT_NAME", "push")],
                Some(serde_json::json!({"before": "0".repeat(40), "repository": repository}))
            )
            .as_deref(),
            Some("origin/trunk"),
            "a new branch"
        );
        assert_eq!(base(&[], None), None);
    }
}
