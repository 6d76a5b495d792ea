//! `mastermind-hooks check`: the gate in its four modes. Each mode picks the
//! view that would land and the base to compare it with, reads the
//! configuration from a tree the change cannot edit, runs the gate and
//! renders one report.
//!
//! * `--staged`: the index (`GIT_INDEX_FILE` honoured) against HEAD.
//! * `--push`: every pushed commit (git's ref lines on stdin) against what
//!   the remote already has.
//! * `--ci`: the merge of head into base; tasks are compared from the merge
//!   base (or their baseline) to head.
//! * `--worktree`: the working tree against HEAD or `--since REV`.

use crate::codes::Code;
use crate::commands::ci_env;
use crate::commands::output::{self, HumanTo, OutputArgs};
use crate::config::{CONFIG_PATH, Config, MAX_CONFIG_BYTES};
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::gate::{self, Gate, ViewKind};
use crate::repo::tree::{Content, View, short};
use crate::repo::{Repo, RepoError};
use crate::report::{FileResult, Report, TaskResult};
use gix::ObjectId;
use std::io::Read;

/// The gate mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Staged,
    Push {
        remote: Option<String>,
    },
    Ci {
        base: Option<String>,
        head: Option<String>,
    },
    Worktree {
        since: Option<String>,
    },
}

impl Mode {
    /// Hooks print human output to stderr (git shows it); the rest use stdout.
    pub fn human_to_stderr(&self) -> bool {
        matches!(self, Mode::Staged | Mode::Push { .. })
    }
}

/// Findings and tasks gathered over one invocation.
#[derive(Default)]
pub(crate) struct Collected {
    files: Vec<FileResult>,
    tasks: Vec<TaskResult>,
    diagnostics: Vec<Diagnostic>,
}

impl Collected {
    fn fail(&mut self, error: RepoError) {
        self.diagnostics.push(error.to_diagnostic());
    }

    /// A finding about the run (`--receive`).
    pub(crate) fn note(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Everything gathered, as one report (`--receive`).
    pub(crate) fn into_report(self) -> Report {
        Report::assemble(self.files, self.tasks, self.diagnostics)
    }
}

/// The variable the CI templates set for their `require-task` input.
pub const REQUIRE_TASK_VAR: &str = "MASTERMIND_HOOKS_REQUIRE_TASK";

/// Apply `MASTERMIND_HOOKS_REQUIRE_TASK` to a configuration. `true` demands
/// a task for every change; `false` or unset leaves the configuration as it
/// is, so the variable can only make the gate stricter, never relax what the
/// base's configuration asks for. Anything else is a usage error.
pub fn require_task_from_env(
    mut config: Config,
    value: Option<&std::ffi::OsStr>,
) -> Result<Config, Vec<Diagnostic>> {
    match value.map(|v| v.to_str()) {
        None => Ok(config),
        Some(Some("" | "false")) => Ok(config),
        Some(Some("true")) => {
            config.require_task = true;
            Ok(config)
        }
        Some(other) => Err(vec![Diagnostic::new(
            Code::usage_invalid,
            format!(
                "{REQUIRE_TASK_VAR} must be `true` or `false`, not `{}`",
                other.unwrap_or("(not UTF-8)")
            ),
        )]),
    }
}

/// Read the configuration from a view; absent means strict defaults. The
/// environment can only tighten it (`MASTERMIND_HOOKS_REQUIRE_TASK=true`).
pub(crate) fn config_from(repo: &Repo, view: &View) -> Result<Config, Vec<Diagnostic>> {
    let config = config_from_view(repo, view)?;
    require_task_from_env(config, std::env::var_os(REQUIRE_TASK_VAR).as_deref())
}

fn config_from_view(repo: &Repo, view: &View) -> Result<Config, Vec<Diagnostic>> {
    let source = format!("{CONFIG_PATH} in {}", view.label);
    match view.read(repo, CONFIG_PATH, MAX_CONFIG_BYTES) {
        Ok(None) => Ok(Config::strict_defaults()),
        Ok(Some(Content::Bytes(bytes))) => Config::parse(&bytes, &source),
        Ok(Some(Content::NotRegular(_))) => Err(vec![
            Diagnostic::new(
                Code::config_invalid,
                format!("{source} is not a regular file"),
            )
            .with_path(CONFIG_PATH),
        ]),
        Ok(Some(Content::TooLarge { size })) => Err(vec![
            Diagnostic::new(
                Code::config_invalid,
                format!("{source} is {size} bytes; the limit is {MAX_CONFIG_BYTES}"),
            )
            .with_path(CONFIG_PATH),
        ]),
        Err(e) => Err(vec![e.to_diagnostic()]),
    }
}

/// The configuration from `view`, or `None` after reporting why it is
/// unusable (the gate then does not run: exit 2).
fn load_config(repo: &Repo, view: &View, out: &mut Collected) -> Option<Config> {
    config_from(repo, view)
        .map_err(|ds| out.diagnostics.extend(ds))
        .ok()
}

fn view_of(repo: &Repo, commit: Option<ObjectId>, empty_label: &str) -> Result<View, RepoError> {
    match commit {
        Some(id) => View::from_commit(repo, id),
        None => Ok(View::empty(empty_label)),
    }
}

fn run_gate(out: &mut Collected, gate: &Gate<'_>) {
    match gate::run(gate) {
        Ok(outcome) => {
            out.tasks.extend(outcome.tasks);
            out.files.extend(outcome.files);
            out.diagnostics.extend(outcome.diagnostics);
        }
        Err(e) => out.fail(e),
    }
}

fn staged(repo: &Repo, out: &mut Collected) -> Result<(), RepoError> {
    let (view, base) = match repo.head_commit()? {
        Some(head) => View::index_and_commit(repo, head)?,
        None => (
            View::from_index(repo)?,
            View::empty("the empty tree (no commit yet)"),
        ),
    };
    let Some(config) = load_config(repo, &base, out) else {
        return Ok(());
    };
    run_gate(
        out,
        &Gate {
            kind: ViewKind::Staged,
            repo,
            config: &config,
            view: &view,
            target: &view,
            base: &base,
            label: None,
        },
    );
    Ok(())
}

pub(crate) fn is_zero(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b == b'0')
}

/// One line of git's pre-push input.
struct PushLine {
    local_ref: String,
    local: String,
    remote_ref: String,
    remote: String,
}

fn parse_push_input(input: &str) -> Result<Vec<PushLine>, Diagnostic> {
    let mut lines = Vec::new();
    for (number, line) in input.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let valid_id =
            |s: &str| (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit());
        if fields.len() != 4 || !valid_id(fields[1]) || !valid_id(fields[3]) {
            return Err(Diagnostic::new(
                Code::usage_invalid,
                format!(
                    "pre-push input line {} is not `<local ref> <local id> <remote ref> <remote id>`: {line:?}",
                    number + 1
                ),
            ));
        }
        lines.push(PushLine {
            local_ref: fields[0].to_string(),
            local: fields[1].to_string(),
            remote_ref: fields[2].to_string(),
            remote: fields[3].to_string(),
        });
    }
    Ok(lines)
}

/// The base of a new branch: the newest commit any remote-tracking ref
/// already has, among the pushed commit's ancestors.
fn new_branch_base(repo: &Repo, local: ObjectId) -> Result<Option<ObjectId>, RepoError> {
    let mut bases = Vec::new();
    for remote in repo.remote_tracking_commits()? {
        if let Some(base) = repo.merge_base(local, remote)? {
            bases.push(base);
        }
    }
    bases.sort();
    bases.dedup();
    // Keep the base that every other base is an ancestor of.
    let mut best: Option<ObjectId> = None;
    for candidate in bases {
        best = match best {
            None => Some(candidate),
            Some(current) => {
                if repo.merge_base(current, candidate)? == Some(current) {
                    Some(candidate)
                } else {
                    Some(current)
                }
            }
        };
    }
    Ok(best)
}

/// Judge one ref update: the commits from `base_commit` (what the other
/// side already has; `None` for nothing) to `tip`, with the configuration
/// of `base_commit`. Shared by `--push` and `--receive`.
pub(crate) fn judge_update(
    repo: &Repo,
    out: &mut Collected,
    kind: ViewKind,
    base_commit: Option<ObjectId>,
    tip: ObjectId,
    label: String,
) -> Result<(), RepoError> {
    let base = view_of(
        repo,
        base_commit,
        "the empty tree (nothing on the remote yet)",
    )?;
    let view = View::from_commit(repo, tip)?;
    let Some(config) = load_config(repo, &base, out) else {
        return Ok(());
    };
    run_gate(
        out,
        &Gate {
            kind,
            repo,
            config: &config,
            view: &view,
            target: &view,
            base: &base,
            label: Some(label),
        },
    );
    Ok(())
}

fn push(repo: &Repo, remote: Option<&str>, out: &mut Collected) -> Result<(), RepoError> {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        out.diagnostics.push(Diagnostic::new(
            Code::usage_invalid,
            format!("cannot read git's pre-push lines from stdin: {e}"),
        ));
        return Ok(());
    }
    let lines = match parse_push_input(&input) {
        Ok(lines) => lines,
        Err(d) => {
            out.diagnostics.push(d);
            return Ok(());
        }
    };
    for line in lines {
        if is_zero(&line.local) {
            continue; // a deletion lands nothing
        }
        let label = format!(
            "{} -> {}{}",
            line.local_ref,
            remote.map(|r| format!("{r} ")).unwrap_or_default(),
            line.remote_ref
        );
        let local = repo.resolve_commit(&line.local)?;
        let remote_id = if is_zero(&line.remote) {
            None
        } else {
            ObjectId::from_hex(line.remote.as_bytes())
                .ok()
                .filter(|id| repo.has_commit(*id))
        };
        let base_commit = match remote_id {
            Some(id) => Some(id),
            None => new_branch_base(repo, local)?,
        };
        judge_update(repo, out, ViewKind::Push, base_commit, local, label)?;
    }
    Ok(())
}

fn resolve_for_ci(repo: &Repo, rev: &str, role: &str) -> Result<ObjectId, RepoError> {
    repo.resolve_commit(rev).map_err(|e| {
        if repo.is_shallow() {
            RepoError::new(
                Code::git_shallow_history,
                format!(
                    "the {role} `{rev}` is not in this shallow clone; fetch the full history (actions/checkout `fetch-depth: 0`, GitLab `GIT_DEPTH: 0`, or `git fetch --unshallow`)"
                ),
            )
        } else {
            RepoError::new(
                e.code,
                format!("{}; fetch the {role} branch (for example `git fetch origin`)", e.message),
            )
        }
    })
}

fn ci(
    repo: &Repo,
    base: Option<&str>,
    head: Option<&str>,
    out: &mut Collected,
) -> Result<(), RepoError> {
    let (base_rev, head_rev) = match ci_env::ci_revisions(base, head) {
        Ok(revs) => revs,
        Err(d) => {
            out.diagnostics.push(d);
            return Ok(());
        }
    };
    let base = resolve_for_ci(repo, &base_rev, "base")?;
    let head = resolve_for_ci(repo, &head_rev, "head")?;
    let base_view = View::from_commit(repo, base)?;
    // The base's configuration: a change cannot relax its own gate.
    let Some(config) = load_config(repo, &base_view, out) else {
        return Ok(());
    };
    let (merged, merge_base) = View::from_merge(repo, base, head)?;
    let head_view = View::from_commit(repo, head)?;
    let mut merge_base_view = View::from_commit(repo, merge_base)?;
    merge_base_view.label = format!("the merge base {}", short(merge_base));
    run_gate(
        out,
        &Gate {
            kind: ViewKind::Ci,
            repo,
            config: &config,
            view: &merged,
            target: &head_view,
            base: &merge_base_view,
            label: None,
        },
    );
    Ok(())
}

fn worktree(repo: &Repo, since: Option<&str>, out: &mut Collected) -> Result<(), RepoError> {
    let base_commit = match since {
        Some(rev) => Some(repo.resolve_commit(rev)?),
        None => repo.head_commit()?,
    };
    let base = view_of(repo, base_commit, "the empty tree (no commit yet)")?;
    let view = View::from_worktree(repo)?;
    let Some(config) = load_config(repo, &view, out) else {
        return Ok(());
    };
    run_gate(
        out,
        &Gate {
            kind: ViewKind::Worktree,
            repo,
            config: &config,
            view: &view,
            target: &view,
            base: &base,
            label: None,
        },
    );
    Ok(())
}

/// Run the gate and return the report (no rendering).
pub fn gate_report(mode: &Mode) -> Report {
    let mut out = Collected::default();
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    match Repo::discover(&cwd) {
        Ok(repo) => {
            let result = match mode {
                Mode::Staged => staged(&repo, &mut out),
                Mode::Push { remote } => push(&repo, remote.as_deref(), &mut out),
                Mode::Ci { base, head } => ci(&repo, base.as_deref(), head.as_deref(), &mut out),
                Mode::Worktree { since } => worktree(&repo, since.as_deref(), &mut out),
            };
            if let Err(e) = result {
                out.fail(e);
            }
        }
        Err(e) => out.fail(e),
    }
    Report::assemble(out.files, out.tasks, out.diagnostics)
}

pub fn run(mode: &Mode, out: &OutputArgs) -> ExitStatus {
    let report = gate_report(mode);
    let human = if mode.human_to_stderr() {
        HumanTo::Stderr
    } else {
        HumanTo::Stdout
    };
    output::finish_to(&report, out, human)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn require_task_from_the_environment_only_tightens() {
        use std::ffi::OsStr;
        let strict = |v: Option<&str>| {
            require_task_from_env(Config::strict_defaults(), v.map(OsStr::new))
                .map(|c| c.require_task)
        };
        assert!(!strict(None).unwrap());
        assert!(!strict(Some("")).unwrap());
        assert!(!strict(Some("false")).unwrap());
        assert!(strict(Some("true")).unwrap());
        let errors = strict(Some("yes")).unwrap_err();
        assert_eq!(errors[0].code, Code::usage_invalid);
        let mut required = Config::strict_defaults();
        required.require_task = true;
        let kept = require_task_from_env(required, Some(OsStr::new("false"))).unwrap();
        assert!(kept.require_task, "false never relaxes the configuration");
    }

    #[test]
    fn push_lines_parse_and_reject_garbage() {
        let zero = "0".repeat(40);
        let one = "1".repeat(40);
        let lines = parse_push_input(&format!(
            "refs/heads/a {one} refs/heads/a {zero}\n\nrefs/heads/b {zero} refs/heads/b {one}\n"
        ))
        .unwrap();
        assert_eq!(lines.len(), 2);
        assert!(is_zero(&lines[0].remote) && is_zero(&lines[1].local));
        assert!(is_zero(&"0".repeat(64)));
        assert!(parse_push_input("refs/heads/a abc refs/heads/a def\n").is_err());
        assert!(parse_push_input("one two three\n").is_err());
    }
}
