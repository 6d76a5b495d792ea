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
use crate::gate::change::{Identity, Step, StepAt};
use crate::gate::{self, Gate, ViewKind};
use crate::repo::changes::{ChangeKind, ChangeSet};
use crate::repo::history::PathChange;
use crate::repo::remote;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{Content, Entry, View, short};
use crate::repo::{Repo, RepoError};
use crate::report::{FileResult, Report, TaskResult};
use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use std::io::Read;

/// The gate mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Staged,
    Push {
        remote: Option<String>,
        url: Option<String>,
    },
    Ci {
        base: Option<String>,
        head: Option<String>,
        /// `--rerun`: re-execute the observed checks on what lands.
        rerun: Option<Rerun>,
    },
    Worktree {
        since: Option<String>,
    },
}

/// `check --ci --rerun [--rerun-timeout SECONDS]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rerun {
    /// The time all re-runs together may take.
    pub timeout: Option<std::time::Duration>,
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
            config.untasked.default = crate::config::UntaskedAction::Deny;
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
    let config = config_in(repo, Snapshot::View(view), &view.label)?;
    require_task_from_env(config, std::env::var_os(REQUIRE_TASK_VAR).as_deref())
}

fn config_in(repo: &Repo, at: Snapshot<'_>, label: &str) -> Result<Config, Vec<Diagnostic>> {
    let source = format!("{CONFIG_PATH} in {label}");
    match at.read(repo, CONFIG_PATH, MAX_CONFIG_BYTES) {
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

/// A pending step (the index or the working tree) over `base_view`, with
/// `parents` (HEAD, and `MERGE_HEAD` while a merge is being concluded). A
/// merge owns what a committed merge would ([`Repo::commit_changes`]):
/// what differs from git's automatic merge of its two parents, and the
/// paths that merge could not resolve.
fn pending_step(
    repo: &Repo,
    view: &View,
    base_view: &View,
    parents: Vec<ObjectId>,
) -> Result<Step, RepoError> {
    let mut changes: Vec<PathChange> = ChangeSet::between(base_view, view)
        .iter()
        .map(|(path, kind)| PathChange {
            path: path.clone(),
            kind,
            old: base_view.get_bytes(path).copied(),
            new: view.get_bytes(path).copied(),
        })
        .collect();
    let auto = match parents.as_slice() {
        [ours, theirs] => repo.auto_merge(*ours, *theirs)?,
        _ => None,
    };
    if let (Some(auto), Some(head)) = (auto, parents.first()) {
        let head_tree = repo.commit_tree(*head)?;
        let own = |path: &BString, entry: Option<Entry>| -> Result<bool, RepoError> {
            if auto.conflicts.contains(path) {
                return Ok(true);
            }
            let Ok(text) = std::str::from_utf8(path) else {
                return Ok(true);
            };
            Ok(repo.tree_entry(auto.tree, text)? != entry)
        };
        let mut kept = Vec::new();
        for change in changes {
            if own(&change.path, change.new)? {
                kept.push(change);
            }
        }
        // Paths the automatic merge took from the other side but the
        // staged result keeps as HEAD has them: the merge dropped them.
        for incoming in repo.tree_changes(Some(head_tree), Some(auto.tree))? {
            if kept.iter().any(|c| c.path == incoming.path) {
                continue;
            }
            let staged = view.get_bytes(&incoming.path).copied();
            // The automatic merge changed the path, so it differs from
            // HEAD's entry, which the staged one equals here.
            if staged == incoming.old
                && let Some(kind) = ChangeKind::between(incoming.new.as_ref(), staged.as_ref())
            {
                kept.push(PathChange {
                    kind,
                    old: incoming.new,
                    new: staged,
                    path: incoming.path,
                });
            }
        }
        kept.sort_by(|a, b| a.path.cmp(&b.path));
        changes = kept;
    }
    let who = |signature: Option<Result<gix::actor::SignatureRef<'_>, _>>| {
        signature.and_then(Result::ok).map(|s| {
            format!(
                "{} <{}>",
                s.name.to_str_lossy().trim(),
                s.email.to_str_lossy().trim()
            )
        })
    };
    Ok(Step {
        at: StepAt::Pending,
        parents,
        label: view.label.clone(),
        identity: Identity {
            author: who(repo.gix().author()),
            committer: who(repo.gix().committer()),
            message: None,
        },
        changes,
    })
}

/// The commits reachable from `tips` and from none of `hidden`, as steps.
fn commit_steps(
    repo: &Repo,
    tips: &[ObjectId],
    hidden: &[ObjectId],
) -> Result<Vec<Step>, RepoError> {
    repo.range(tips, hidden)?
        .iter()
        .map(|meta| Ok(Step::commit(meta, repo.commit_changes(meta)?)))
        .collect()
}

/// The short name of the branch HEAD is on, if any.
fn current_branch(repo: &Repo) -> Option<String> {
    repo.gix()
        .head_name()
        .ok()
        .flatten()
        .map(|name| name.shorten().to_str_lossy().into_owned())
}

fn branch_of(refname: &str) -> String {
    refname
        .strip_prefix("refs/heads/")
        .unwrap_or(refname)
        .to_string()
}

/// The configuration in force for a change: the base's. An invalid base
/// configuration never locks the repository: a change that only repairs it
/// passes (`config_repaired`), and anything else is "could not check" with
/// that advice.
fn base_config(
    repo: &Repo,
    base: Snapshot<'_>,
    base_label: &str,
    steps: &[Step],
    tip: Snapshot<'_>,
    out: &mut Collected,
) -> Option<Config> {
    let problems = match config_in(repo, base, base_label) {
        Ok(config) => {
            return require_task_from_env(config, std::env::var_os(REQUIRE_TASK_VAR).as_deref())
                .map_err(|ds| out.diagnostics.extend(ds))
                .ok();
        }
        Err(problems) => problems,
    };
    let only_config = !steps.is_empty()
        && steps.iter().all(|s| {
            s.changes
                .iter()
                .all(|c| c.path.to_str().is_ok_and(|p| p == CONFIG_PATH))
        });
    if only_config && config_in(repo, tip, "the change").is_ok() {
        out.diagnostics.push(
            Diagnostic::new(
                Code::config_repaired,
                format!("{CONFIG_PATH} in {base_label} is invalid and this change only repairs it"),
            )
            .with_path(CONFIG_PATH),
        );
        return None;
    }
    out.diagnostics.extend(problems.into_iter().map(|d| {
        d.with_hint(format!(
            "fix the configuration in a change that touches only {CONFIG_PATH} (any mode lets such a repair land), then retry"
        ))
    }));
    None
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

/// The commits a merge in progress brings in (`MERGE_HEAD`), for
/// `pre-merge-commit` and a `git commit` that concludes a merge.
fn merge_heads(repo: &Repo) -> Vec<ObjectId> {
    let Ok(text) = std::fs::read_to_string(repo.git_dir().join("MERGE_HEAD")) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| ObjectId::from_hex(line.trim().as_bytes()).ok())
        .filter(|id| repo.has_commit(*id))
        .collect()
}

fn staged(repo: &Repo, out: &mut Collected) -> Result<(), RepoError> {
    let head = repo.head_commit()?;
    let (view, base_view) = match head {
        Some(head) => View::index_and_commit(repo, head)?,
        None => (
            View::from_index(repo)?,
            View::empty("the empty tree (no commit yet)"),
        ),
    };
    let mut parents: Vec<ObjectId> = head.into_iter().collect();
    parents.extend(merge_heads(repo));
    let steps = vec![pending_step(repo, &view, &base_view, parents)?];
    let base = match head {
        Some(head) => Snapshot::Tree(repo.commit_tree(head)?),
        None => Snapshot::Empty,
    };
    let base_label = base_view.label.clone();
    let Some(config) = base_config(repo, base, &base_label, &steps, Snapshot::View(&view), out)
    else {
        return Ok(());
    };
    run_gate(
        out,
        &Gate {
            kind: ViewKind::Staged,
            repo,
            config: &config,
            base: head,
            base_label,
            steps,
            pending: Some(&view),
            landing: Snapshot::View(&view),
            landing_label: view.label.clone(),
            tip: Snapshot::View(&view),
            tip_label: view.label.clone(),
            branch: current_branch(repo),
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

/// One ref update to judge: the commits from what the other side already
/// has to `tip`.
pub(crate) struct Update {
    /// The protected side: the ref's old tip, or for a new ref the newest
    /// commit of the default branch that the tip contains.
    pub base: Option<ObjectId>,
    /// Commits the other side already has (the old tip and its other refs):
    /// never part of the change.
    pub hidden: Vec<ObjectId>,
    pub tip: ObjectId,
    /// The branch being updated (for the untasked policy).
    pub branch: Option<String>,
    pub label: String,
}

/// Judge one ref update with the configuration of its base. Shared by
/// `--push` and `--receive`.
pub(crate) fn judge_update(
    repo: &Repo,
    out: &mut Collected,
    kind: ViewKind,
    update: Update,
) -> Result<(), RepoError> {
    let steps = commit_steps(repo, &[update.tip], &update.hidden)?;
    let base = match update.base {
        Some(id) => Snapshot::Tree(repo.commit_tree(id)?),
        None => Snapshot::Empty,
    };
    let base_label = match update.base {
        Some(id) => format!("commit {}", short(id)),
        None => "the empty tree (nothing on the remote yet)".to_string(),
    };
    let tip = Snapshot::Tree(repo.commit_tree(update.tip)?);
    let tip_label = format!("commit {}", short(update.tip));
    let Some(config) = base_config(repo, base, &base_label, &steps, tip, out) else {
        return Ok(());
    };
    run_gate(
        out,
        &Gate {
            kind,
            repo,
            config: &config,
            base: update.base,
            base_label,
            steps,
            pending: None,
            landing: tip,
            landing_label: tip_label.clone(),
            tip,
            tip_label,
            branch: update.branch,
            label: Some(update.label),
        },
    );
    Ok(())
}

/// How to check a branch by hand, for `check --push` run outside git.
const PUSH_BY_HAND: &str = "To check a branch by hand, run `mastermind-hooks check --ci --base origin/main --head HEAD`; to replay a push, pipe git's lines (`<local ref> <local sha> <remote ref> <remote sha>`) into `mastermind-hooks check --push REMOTE URL`.";

fn push(
    repo: &Repo,
    remote: Option<&str>,
    url: Option<&str>,
    out: &mut Collected,
) -> Result<(), RepoError> {
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        out.diagnostics.push(
            Diagnostic::new(
                Code::usage_invalid,
                "check --push reads the ref lines git gives a pre-push hook on stdin, and stdin is a terminal: there is no push to check, so nothing was checked",
            )
            .with_hint(PUSH_BY_HAND),
        );
        return Ok(());
    }
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
    if lines.is_empty() {
        out.diagnostics.push(
            Diagnostic::new(
                Code::push_no_refs,
                "git passed no ref lines on stdin: nothing is being pushed, so nothing was checked",
            )
            .with_hint(PUSH_BY_HAND),
        );
    }
    let pushed: Vec<&PushLine> = lines.iter().filter(|l| !is_zero(&l.local)).collect();
    if pushed.is_empty() {
        return Ok(());
    }
    // What the remote already has, from the remote itself: local
    // remote-tracking refs are anyone's to write.
    let advertised = match url.or(remote) {
        Some(place) => remote::advertised(repo, place),
        None => Err(RepoError::new(
            Code::push_base_unknown,
            "check --push needs the remote (git passes its name and URL to pre-push)",
        )),
    };
    for line in pushed {
        let label = format!(
            "{} -> {}{}",
            line.local_ref,
            remote.map(|r| format!("{r} ")).unwrap_or_default(),
            line.remote_ref
        );
        let tip = repo.resolve_commit(&line.local)?;
        let old = if is_zero(&line.remote) {
            None
        } else {
            ObjectId::from_hex(line.remote.as_bytes())
                .ok()
                .filter(|id| repo.has_commit(*id))
        };
        // As pre-receive does: the remote's default branch only moves
        // forward (a forced update would drop work that has landed).
        if let (Ok(refs), Some(old)) = (&advertised, old)
            && refs.default_ref.as_deref() == Some(line.remote_ref.as_str())
            && !repo.is_ancestor(old, tip)?
        {
            out.diagnostics.push(
                Diagnostic::new(
                    Code::default_branch_rewritten,
                    format!(
                        "{label}: {} is the remote's default branch and {} does not contain its tip {}: the forced update would drop work that has landed",
                        line.remote_ref,
                        short(tip),
                        short(old)
                    ),
                )
                .with_hint(format!(
                    "merge or rebase onto {} (`git pull --rebase`) and push without --force",
                    short(old)
                )),
            );
            continue;
        }
        let mut hidden: Vec<ObjectId> = old.into_iter().collect();
        let base = match (&advertised, old) {
            (Ok(refs), _) => {
                hidden.extend(refs.tips.iter().copied().filter(|id| repo.has_commit(*id)));
                match old {
                    Some(old) => Some(old),
                    None => match refs.default_base(repo, tip) {
                        Ok(base) => base,
                        Err(e) => {
                            out.diagnostics.push(e.to_diagnostic());
                            continue;
                        }
                    },
                }
            }
            (Err(_), Some(old)) => Some(old),
            (Err(e), None) if is_zero(&line.remote) => {
                out.diagnostics.push(e.to_diagnostic());
                continue;
            }
            (Err(_), None) => {
                out.diagnostics.push(Diagnostic::new(
                    Code::git_revision_unknown,
                    format!(
                        "the remote's {} is at {}, which this repository does not have; fetch first (`git fetch`), then push again",
                        line.remote_ref, line.remote
                    ),
                ));
                continue;
            }
        };
        judge_update(
            repo,
            out,
            ViewKind::Push,
            Update {
                base,
                hidden,
                tip,
                branch: Some(branch_of(&line.remote_ref)),
                label,
            },
        )?;
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
    rerun: Option<&Rerun>,
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
    let (merged, merge_base) = View::merge_tree(repo, base, head)?;
    let steps = commit_steps(repo, &[head], &[base])?;
    // Policy from the protected side: the base branch's tip.
    let base_tree = Snapshot::Tree(repo.commit_tree(base)?);
    let head_tree = Snapshot::Tree(repo.commit_tree(head)?);
    let Some(config) = base_config(
        repo,
        base_tree,
        &format!("the base {}", short(base)),
        &steps,
        head_tree,
        out,
    ) else {
        return Ok(());
    };
    run_gate(
        out,
        &Gate {
            kind: ViewKind::Ci,
            repo,
            config: &config,
            base: Some(merge_base),
            base_label: format!("the merge base {}", short(merge_base)),
            steps,
            pending: None,
            landing: Snapshot::Tree(merged),
            landing_label: format!("the merge of {} into {}", short(head), short(base)),
            tip: head_tree,
            tip_label: format!("the head {}", short(head)),
            branch: ci_env::head_branch(),
            label: None,
        },
    );
    if let Some(rerun) = rerun {
        let lands = View::from_tree(
            repo,
            merged,
            format!("the merge of {} into {}", short(head), short(base)),
        )?;
        rerun_after_gate(repo, &lands, &config, rerun, out);
    }
    Ok(())
}

/// `--rerun`, after the gate has run: re-execute every observed check of
/// every task the gate checked, in an isolated checkout of `lands` (the
/// tree that lands), and add each task's findings as its `rerun` check
/// (`crate::runner::rerun` does the work).
fn rerun_after_gate(
    repo: &Repo,
    lands: &View,
    config: &Config,
    rerun: &Rerun,
    out: &mut Collected,
) {
    let interrupt = match crate::runner::signals::install() {
        Ok(flag) => flag,
        Err(e) => {
            out.diagnostics.push(Diagnostic::new(
                Code::rerun_unavailable,
                format!("cannot handle SIGINT/SIGTERM for the re-run: {e}"),
            ));
            return;
        }
    };
    let tasks: Vec<String> = out.tasks.iter().map(|t| t.task.clone()).collect();
    match crate::runner::rerun::rerun_tasks(repo, lands, &tasks, rerun.timeout, &interrupt) {
        Err(d) => out.diagnostics.push(config.apply(d)),
        Ok(per_task) => {
            for (task, diagnostics) in per_task {
                let Some(result) = out.tasks.iter_mut().find(|t| t.task == task) else {
                    continue;
                };
                let diagnostics = diagnostics.into_iter().map(|d| config.apply(d)).collect();
                result
                    .checks
                    .push(crate::report::CheckOutcome::new("rerun", diagnostics));
                result.ok = result.checks.iter().all(|c| c.ok);
            }
        }
    }
}

fn worktree(repo: &Repo, since: Option<&str>, out: &mut Collected) -> Result<(), RepoError> {
    let head = repo.head_commit()?;
    let since = match since {
        Some(rev) => Some(repo.resolve_commit(rev)?),
        None => None,
    };
    let base_commit = since.or(head);
    let head_view = match head {
        Some(id) => View::from_commit(repo, id)?,
        None => View::empty("the empty tree (no commit yet)"),
    };
    let view = View::from_worktree(repo)?;
    let mut steps = match (since, head) {
        (Some(since), Some(head)) => commit_steps(repo, &[head], &[since])?,
        _ => Vec::new(),
    };
    steps.push(pending_step(
        repo,
        &view,
        &head_view,
        head.into_iter().collect(),
    )?);
    let (base, base_label) = match base_commit {
        Some(id) => (
            Snapshot::Tree(repo.commit_tree(id)?),
            format!("commit {}", short(id)),
        ),
        None => (
            Snapshot::Empty,
            "the empty tree (no commit yet)".to_string(),
        ),
    };
    // The configuration comes from the base here too: an agent's edit of
    // hooks.yaml in the working tree never relaxes its own gate.
    let Some(config) = base_config(repo, base, &base_label, &steps, Snapshot::View(&view), out)
    else {
        return Ok(());
    };
    run_gate(
        out,
        &Gate {
            kind: ViewKind::Worktree,
            repo,
            config: &config,
            base: base_commit,
            base_label,
            steps,
            pending: Some(&view),
            landing: Snapshot::View(&view),
            landing_label: view.label.clone(),
            tip: Snapshot::View(&view),
            tip_label: view.label.clone(),
            branch: current_branch(repo),
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
                Mode::Push { remote, url } => {
                    push(&repo, remote.as_deref(), url.as_deref(), &mut out)
                }
                Mode::Ci { base, head, rerun } => ci(
                    &repo,
                    base.as_deref(),
                    head.as_deref(),
                    rerun.as_ref(),
                    &mut out,
                ),
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
