//! The output edge every checking command shares: render the report in the
//! chosen format (human output to stderr for git hooks, everything else to
//! stdout), write the same report in every `--output FORMAT=FILE` asked for,
//! and, for `--format github`, append the Markdown job summary to the file
//! named by `GITHUB_STEP_SUMMARY`.
//!
//! One run, one report, every rendering of it: a CI job asks for its log,
//! annotations, job summary, SARIF, Code Quality and JUnit reports in one
//! invocation, so every check runs once and every output states the same
//! verdict. The files are checked before anything runs ([`preflight`]: the
//! directory exists and is writable, no two outputs name one file) and
//! written when the run ends, each atomically; if one cannot be written the
//! ones already written are removed and the run is "could not check".

use crate::codes::Code;
use crate::commands::emit;
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::render::{self, ColorChoice, Format, RenderOptions, github};
use crate::report::Report;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// `--output FORMAT=FILE`: the report rendered in `format`, written to
/// `path` when the run ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile {
    pub format: Format,
    pub path: PathBuf,
}

impl OutputFile {
    /// `sarif=results.sarif`, as given.
    pub fn shown(&self) -> String {
        format!("{}={}", format_name(self.format), self.path.display())
    }
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Human => "human",
        Format::Json => "json",
        Format::Github => "github",
        Format::Gitlab => "gitlab",
        Format::Sarif => "sarif",
        Format::Junit => "junit",
    }
}

/// Parse `FORMAT=FILE` (clap's value parser for `--output`).
pub fn parse_output_file(text: &str) -> Result<OutputFile, String> {
    let Some((name, path)) = text.split_once('=') else {
        return Err(format!(
            "`{text}` is not FORMAT=FILE; for example `--output sarif=results.sarif`"
        ));
    };
    let format = <Format as clap::ValueEnum>::from_str(name, false).map_err(|_| {
        format!("`{name}` is no output format; use human, json, github, gitlab, sarif or junit")
    })?;
    if path.is_empty() {
        return Err(format!("`{text}` names no file; write {name}=FILE"));
    }
    if path == "-" {
        return Err(format!(
            "`{text}`: stdout carries --format; give --output a file, or use --format {name}"
        ));
    }
    Ok(OutputFile {
        format,
        path: PathBuf::from(path),
    })
}

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
    /// hook stays silent) or a file was skipped. The exit status is unchanged.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Also write the report in FORMAT to FILE (repeatable): the same run's
    /// report, so every output states one verdict and every check runs once
    /// (`--output sarif=gate.sarif --output junit=gate.xml`). Stdout keeps
    /// --format. Written when the run ends; a missing directory or two
    /// outputs naming one file is refused before anything runs (exit 2).
    #[arg(long = "output", value_name = "FORMAT=FILE", value_parser = parse_output_file)]
    pub outputs: Vec<OutputFile>,
}

impl Default for OutputArgs {
    fn default() -> Self {
        OutputArgs {
            format: Format::Human,
            color: ColorChoice::Auto,
            max_annotations: github::DEFAULT_MAX_ANNOTATIONS,
            quiet: false,
            outputs: Vec::new(),
        }
    }
}

/// `path` made absolute against the current directory and cleaned of `.`
/// and `..`, its directory resolved through links where it exists: two
/// spellings of one file compare equal.
fn identity(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut absolute = PathBuf::new();
    for component in cwd.join(path).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                absolute.pop();
            }
            other => absolute.push(other),
        }
    }
    match (absolute.parent(), absolute.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|dir| dir.join(name))
            .unwrap_or(absolute.clone()),
        _ => absolute,
    }
}

/// The directory a file named by `path` goes into (`.` for a bare name).
fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Why a file cannot be written at `path`, if it cannot: a directory that
/// does not exist, is no directory or is not writable, a path that names no
/// file or names a directory.
pub fn unwritable(path: &Path) -> Option<String> {
    if path.file_name().is_none() || path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Some("it names a directory, not a file".to_string());
    }
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Some("it is a directory".to_string());
    }
    // The file is replaced, never written through: a FIFO, a socket or a
    // device there (`/dev/null`, replaced under root) is refused instead.
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        let what = if kind.is_fifo() {
            Some("a FIFO")
        } else if kind.is_socket() {
            Some("a socket")
        } else if kind.is_char_device() || kind.is_block_device() {
            Some("a device")
        } else {
            None
        };
        if let Some(what) = what {
            return Some(format!(
                "it is {what}, not a regular file (the output would replace it); name a regular file, or leave the output out"
            ));
        }
    }
    let dir = directory_of(path);
    let shown = dir.display();
    match std::fs::metadata(&dir) {
        Err(_) => Some(format!(
            "its directory `{shown}` does not exist: create it first (`mkdir -p {shown}`)"
        )),
        Ok(m) if !m.is_dir() => Some(format!("`{shown}` is not a directory")),
        Ok(_) => rustix::fs::access(
            &dir,
            rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK,
        )
        .err()
        .map(|e| format!("its directory `{shown}` is not writable ({e})")),
    }
}

/// What the run will write besides stdout, checked before anything runs:
/// every `--output` (and the statement `attestation` names) must be
/// writable, and no two of them, nor the job summary `step_summary` names,
/// may be one file. The problems found, each "could not check".
pub fn preflight(
    args: &OutputArgs,
    attestation: Option<&Path>,
    step_summary: Option<&OsStr>,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    // (identity, how the command line named it)
    let mut named: Vec<(PathBuf, String)> = Vec::new();
    if let Some(summary) = step_summary.filter(|s| !s.is_empty())
        && args.format == Format::Github
    {
        // The summary is appended to through a link (the runner's file),
        // so its identity is where the link leads.
        let summary = Path::new(summary);
        named.push((
            std::fs::canonicalize(summary).unwrap_or_else(|_| identity(summary)),
            format!("the job summary ({STEP_SUMMARY_VAR})"),
        ));
    }
    if let Some(path) = attestation {
        if let Some(why) = unwritable(path) {
            problems.push(
                Diagnostic::new(
                    Code::attestation_unwritable,
                    format!(
                        "cannot write the attestation {}: {why}",
                        crate::render::escape::control(&path.display().to_string())
                    ),
                )
                .with_hint("Name a file in a directory that exists and is writable (outside the repository's tracked files), then run again; nothing was run."),
            );
        }
        named.push((identity(path), format!("--attestation {}", path.display())));
    }
    for output in &args.outputs {
        let shown = crate::render::escape::control(&output.shown());
        if let Some(why) = unwritable(&output.path) {
            problems.push(
                Diagnostic::new(
                    Code::output_unwritable,
                    format!("cannot write --output {shown}: {why}"),
                )
                .with_hint("Name a file in a directory that exists and is writable, then run again; nothing was run."),
            );
        }
        let key = identity(&output.path);
        if let Some((_, first)) = named.iter().find(|(k, _)| *k == key) {
            problems.push(
                Diagnostic::new(
                    Code::output_unwritable,
                    format!(
                        "--output {shown} names the same file as {}",
                        crate::render::escape::control(first)
                    ),
                )
                .with_hint("Give each output its own file (stdout carries --format), then run again; nothing was run."),
            );
        }
        named.push((key, format!("--output {}", output.shown())));
    }
    problems
}

/// The answer to a command line whose outputs [`preflight`] refused: the
/// problems on stderr for human output, else in `--format` on stdout (with
/// the job summary, unless it is one of the files in question). Exit 2.
pub fn refuse(
    problems: Vec<Diagnostic>,
    args: &OutputArgs,
    step_summary: Option<OsString>,
) -> ExitStatus {
    if args.format == Format::Human {
        // An error about the command line, as clap's own go: on stderr.
        let mut text = String::new();
        for problem in &problems {
            render::human::diagnostic(&mut text, problem);
        }
        let _ = write_stderr(&text);
        return ExitStatus::CannotCheck;
    }
    let about_summary = problems
        .iter()
        .any(|d| d.message.contains(STEP_SUMMARY_VAR));
    let report = Report::assemble(Vec::new(), Vec::new(), problems);
    let args = OutputArgs {
        outputs: Vec::new(),
        quiet: false,
        ..args.clone()
    };
    let status = finish_run(
        &report,
        &args,
        HumanTo::Stdout,
        step_summary.filter(|_| !about_summary),
        None,
    );
    status.max(ExitStatus::CannotCheck)
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
    finish_run(report, args, human, step_summary, None)
}

/// Write every `--output` of `args`, each atomically, in the order given;
/// on the first that fails, remove those written and `attestation` (no
/// file may state a verdict the run did not end with) and say why.
fn write_outputs(
    report: &Report,
    args: &OutputArgs,
    options: &RenderOptions,
    attestation: Option<&Path>,
) -> Result<(), Diagnostic> {
    let mut written: Vec<&Path> = Vec::new();
    for output in &args.outputs {
        let mut text = render::render(report, output.format, options);
        if output.format == Format::Human {
            // A file is read later, elsewhere: no terminal colour in it.
            text =
                String::from_utf8_lossy(&render::escape::strip_sgr(text.as_bytes())).into_owned();
        }
        let result = write_file(&output.path, text.as_bytes());
        if let Err(why) = result {
            for path in written.iter().copied().chain(attestation) {
                let _ = std::fs::remove_file(path);
            }
            return Err(Diagnostic::new(
                Code::output_unwritable,
                format!(
                    "cannot write --output {}: {why}; no output of this run was kept",
                    render::escape::control(&output.shown())
                ),
            ));
        }
        written.push(&output.path);
    }
    Ok(())
}

/// Replace the file at `path` with `bytes` (a temporary file beside it,
/// renamed over it: a link there is replaced, never followed).
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let name = path
        .file_name()
        .ok_or_else(|| "it names no file".to_string())?;
    let dir = crate::safe_fs::Dir::open(&directory_of(path)).map_err(|e| e.to_string())?;
    dir.replace_with_mode(name, bytes, crate::safe_fs::Durability::Synced, 0o644)
        .map_err(|e| e.to_string())
}

/// The end of a run: every `--output` file, then stdout (or stderr for a
/// hook's human output), then the job summary, all from one report. An
/// output that cannot be written turns the run into "could not check" in
/// what stdout and the summary show, and removes what was written
/// (`attestation` too).
pub fn finish_run(
    report: &Report,
    args: &OutputArgs,
    human: HumanTo,
    step_summary: Option<OsString>,
    attestation: Option<&Path>,
) -> ExitStatus {
    let options = RenderOptions {
        max_annotations: args.max_annotations,
    };
    let amended;
    let report = match write_outputs(report, args, &options, attestation) {
        Ok(()) => report,
        Err(problem) => {
            let mut diagnostics = report.diagnostics.clone();
            diagnostics.push(problem);
            amended = Report::assemble(report.files.clone(), report.tasks.clone(), diagnostics);
            &amended
        }
    };
    let quiet = args.quiet
        && args.format == Format::Human
        && report.summary.errors == 0
        && report.summary.warnings == 0;
    let text = if quiet && report.summary.skipped == 0 {
        String::new()
    } else if quiet {
        // Nothing wrong, but files were left unjudged: a quiet run says so.
        render::human::skipped_only(report)
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
