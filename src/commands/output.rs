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

/// The output flags of `validate` and `check`.
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

/// Append the job summary to `path`.
pub fn append_step_summary(path: &Path, report: &Report) -> std::io::Result<()> {
    // A FIFO or device there is refused instead of blocking the gate.
    let mut file = crate::safe_fs::open_append(path)?;
    file.write_all(github::step_summary(report).as_bytes())?;
    file.flush()
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
