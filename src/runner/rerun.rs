//! `check --ci --rerun`: independent evidence. A receipt is the owner's
//! record of a run; anyone who can write the tree can write one. After the
//! gate has judged the change, the re-run executes every observed check of
//! every task the gate judged (archived ones included), as the spec the
//! gate judged declares them, on exactly the tree that lands, **where the
//! project really runs** ([`Place`]): the CI workspace when it is a clean
//! checkout of the landing (after the job's own steps installed the
//! project's dependencies), else a git worktree of the landing prepared by
//! `rerun.setup` from the protected configuration ([`super::setup`]).
//!
//! * Before the first process starts, the gate drops the CI's credentials
//!   and command files from its own environment and makes itself
//!   non-dumpable ([`super::secrets`]); every check runs under the runner's
//!   supervision (own process group, declared timeout, 1 MiB stream cap,
//!   SIGINT/SIGTERM) with those variables absent and git unable to find a
//!   repository above a worktree.
//! * Checks of different tasks run in parallel, up to `--rerun-jobs N`
//!   (default: the machine's available parallelism); a task's own checks run
//!   in declaration order. `--rerun-timeout SECONDS` bounds the whole re-run:
//!   each check gets the smaller of its declared timeout and what is left.
//!   Output streams as it comes, every line prefixed `[task/check]` and
//!   quoted so it cannot issue workflow commands ([`super::echo`]).
//! * A check that changes a file of the landing fails (`input_changed`), and
//!   the checks after it get a fresh worktree.
//!
//! The findings, per check ([`diagnostics`]):
//!
//! * `rerun_passed` (a note) when it passed;
//! * `rerun_unavailable` (exit 2) when it could not be judged: it cannot
//!   start, a tool it calls is missing (exit 126 or 127, the tool named from
//!   its output), the budget ran out, the run was interrupted;
//! * `rerun_contradicts_receipt` when it failed and its receipt records a
//!   pass on exactly this tree (its own digest equals the landing's);
//! * `rerun_failed` for every other failure, with the end of its output.
//!
//! Everything a statement needs ([`Record`]) is kept for
//! [`super::attestation`].

use super::place::{Kind, Place};
use super::setup::{self, SetupRun, tail_lines};
use super::{echo, execute, hint, supervise};
use crate::codes::Code;
use crate::config::Config;
use crate::contract::mastermind::argv_display::RunDeclaration;
use crate::contract::mastermind::receipt::{Status, StreamDigest};
use crate::contract::mastermind::tree_receipt::{self, TreeReceipt};
use crate::diagnostic::Diagnostic;
use crate::digest::TreeDigester;
use crate::digest::file_memo::FileMemo;
use crate::repo::Repo;
use crate::repo::tree::View;
use crate::report::Judged;
use gix::ObjectId;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Where the re-run may execute the checks (`--rerun-in`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Preference {
    /// The workspace when it holds exactly the landing, else a worktree.
    #[default]
    Auto,
    /// Only the workspace; a workspace that does not hold the landing is
    /// `rerun_unavailable`.
    Workspace,
    /// Always a worktree of the landing.
    Worktree,
}

/// `check --ci --rerun [--rerun-timeout SECONDS] [--rerun-jobs N]
/// [--rerun-in WHERE] [--attestation FILE]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The time all re-runs together may take.
    pub timeout: Option<Duration>,
    /// How many checks may run at once (default: available parallelism).
    pub jobs: Option<usize>,
    pub place: Preference,
    /// Where to write the in-toto statement.
    pub attestation: Option<PathBuf>,
}

/// What lands: the tree, and the change's head commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Landing {
    pub tree: ObjectId,
    pub head: ObjectId,
    /// For messages (`the merge of abc1234 into def5678`).
    pub label: String,
}

/// One task the gate judged, as it judged it.
#[derive(Clone, Copy, Debug)]
pub struct Task<'a> {
    /// Repository-relative task directory.
    pub dir: &'a str,
    pub judged: &'a Judged,
}

/// How one re-executed check ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RerunResult {
    /// Exit 0, no signal, the landing's files unchanged.
    Passed,
    /// It ran and did not pass.
    Failed {
        status: Status,
        reason: Option<String>,
    },
    /// It could not be judged.
    Unavailable { reason: String },
}

impl RerunResult {
    /// `passed`, `failed` or `unavailable`.
    pub fn word(&self) -> &'static str {
        match self {
            RerunResult::Passed => "passed",
            RerunResult::Failed { .. } => "failed",
            RerunResult::Unavailable { .. } => "unavailable",
        }
    }
}

/// The executable a re-run resolved, as it saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// Relative to the place's root when inside it (`node_modules/.bin/x`),
    /// else absolute.
    pub path: String,
    pub sha256: String,
}

/// One re-executed check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckRun {
    pub id: String,
    /// The spec's `cmd` for the check.
    pub command: String,
    pub declaration: RunDeclaration,
    pub result: RerunResult,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub duration_ms: u64,
    pub stdout: Option<StreamDigest>,
    pub stderr: Option<StreamDigest>,
    pub executable: Option<Seen>,
    /// The last lines of its output (`| ` stdout, `! ` stderr), escaped.
    pub tail: Vec<String>,
}

/// One task's re-run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRun {
    pub dir: String,
    pub spec_path: String,
    pub spec_sha256: String,
    pub checks: Vec<CheckRun>,
}

/// Everything a statement about the re-run says, but the verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub landing: Landing,
    /// Where the checks ran (`None`: nowhere could be prepared).
    pub place: Option<Kind>,
    pub setup: Vec<SetupRun>,
    pub tasks: Vec<TaskRun>,
    /// RFC 3339 (UTC) times of the re-run.
    pub started_at: String,
    pub finished_at: String,
}

impl Record {
    /// The ids of the checks of task `dir` whose re-run passed.
    pub fn passed(&self, dir: &str) -> std::collections::BTreeSet<String> {
        self.tasks
            .iter()
            .filter(|t| t.dir == dir)
            .flat_map(|t| &t.checks)
            .filter(|c| c.result == RerunResult::Passed)
            .map(|c| c.id.clone())
            .collect()
    }
}

/// The re-run's findings: per task, and about the run itself.
#[derive(Debug)]
pub struct Done {
    pub per_task: Vec<(String, Vec<Diagnostic>)>,
    pub notes: Vec<Diagnostic>,
    pub record: Record,
}

/// A note on where and how the re-run executed the checks.
fn place_note(message: String) -> Diagnostic {
    Diagnostic::new(Code::rerun_place, message)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn unavailable(reason: impl Into<String>) -> RerunResult {
    RerunResult::Unavailable {
        reason: reason.into(),
    }
}

/// Seconds since the epoch as RFC 3339 in UTC (`1970-01-01T00:00:00Z`).
pub fn rfc3339(secs: u64) -> String {
    let days = secs / 86_400;
    let rest = secs % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

fn now() -> String {
    rfc3339(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    )
}

/// A check ready to be scheduled.
struct Planned {
    task: usize,
    command: String,
    run: RunDeclaration,
}

/// The label of a check's output lines: `[<task folder>/<check id>]`.
fn label(dir: &str, id: &str) -> String {
    let name = dir.rsplit('/').next().unwrap_or(dir);
    format!("[{name}/{id}]")
}

/// What one check's worker sends back.
struct Finished {
    planned: usize,
    generation: u64,
    run: CheckRun,
    changed: super::snapshot::Changes,
}

/// Run one check in `place` (on a worker thread).
fn execute_one(
    place: &Place,
    run: &RunDeclaration,
    command: String,
    deadline: Option<Instant>,
    interrupt: &AtomicBool,
    echo: Option<echo::Sender>,
) -> (CheckRun, super::snapshot::Changes) {
    let mut done = CheckRun {
        id: run.id.clone(),
        command,
        declaration: run.clone(),
        result: RerunResult::Passed,
        exit_code: None,
        signal: None,
        duration_ms: 0,
        stdout: None,
        stderr: None,
        executable: None,
        tail: Vec::new(),
    };
    let unchanged = super::snapshot::Changes::default();
    if interrupt.load(Ordering::SeqCst) {
        done.result = unavailable("the re-run was interrupted before this check");
        return (done, unchanged);
    }
    let declared = Duration::from_secs(run.timeout_secs);
    let timeout = match deadline {
        None => declared,
        Some(deadline) => {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                done.result = unavailable("the --rerun-timeout budget ran out before this check");
                return (done, unchanged);
            }
            left.min(declared)
        }
    };
    let prepared = match execute::prepare(place.root(), run, &mut FileMemo::none()) {
        Ok(p) => p,
        Err(reason) => {
            done.result = unavailable(format!("{reason} in {}", place.describe()));
            return (done, unchanged);
        }
    };
    let resolved = &prepared.resolved;
    done.executable = Some(Seen {
        path: resolved
            .invocation_path
            .strip_prefix(place.root())
            .unwrap_or(&resolved.invocation_path)
            .to_string_lossy()
            .trim_start_matches("./")
            .to_string(),
        sha256: resolved.sha256.clone(),
    });
    if let Some(echo) = &echo {
        echo.send(
            echo::Source::Stderr,
            format!("$ {}\n", done.command).as_bytes(),
        );
    }
    let supervised = execute::start(
        &prepared,
        run,
        timeout,
        interrupt,
        echo.clone(),
        execute::Environment::Untrusted,
        place.ceiling(),
    );
    if let Some(echo) = &echo {
        echo.close();
    }
    let supervised = match supervised {
        Ok(s) => s,
        Err(e) => {
            done.result = unavailable(format!(
                "spawn_failed: `{}` could not be started: {e}",
                echo::escape(run.argv[0].as_bytes())
            ));
            return (done, unchanged);
        }
    };
    done.exit_code = supervised.exit_code;
    done.signal = supervised.signal;
    done.duration_ms = millis(supervised.duration);
    let digest = |s: &supervise::Stream| {
        (s.complete && s.bytes <= supervise::STREAM_CAP).then(|| StreamDigest {
            bytes: s.bytes,
            sha256: s.sha256.clone(),
        })
    };
    done.stdout = digest(&supervised.stdout);
    done.stderr = digest(&supervised.stderr);
    let mut tail: Vec<String> = tail_lines(&supervised.stdout.tail, 6)
        .into_iter()
        .map(|l| format!("| {l}"))
        .collect();
    tail.extend(
        tail_lines(&supervised.stderr.tail, 6)
            .into_iter()
            .map(|l| format!("! {l}")),
    );
    done.tail = tail;
    let changes = place.verify();
    done.result = judge(&supervised, timeout < declared, run, &changes, &done.tail);
    (done, changes)
}

/// The line of a missing tool's message in a check's output, if any.
fn missing_tool(tail: &[String]) -> Option<String> {
    tail.iter()
        .rev()
        .find(|l| {
            let lower = l.to_ascii_lowercase();
            lower.contains("not found")
                || lower.contains("no such file")
                || lower.contains("permission denied")
                || lower.contains("cannot execute")
        })
        .map(|l| l.get(2..).unwrap_or(l).trim().to_string())
}

fn judge(
    supervised: &supervise::Supervised,
    budget_bound: bool,
    run: &RunDeclaration,
    changes: &super::snapshot::Changes,
    tail: &[String],
) -> RerunResult {
    let failed = |status: Status, reason: Option<String>| RerunResult::Failed { status, reason };
    if supervised.interrupted {
        unavailable("the re-run was interrupted")
    } else if supervised.timed_out && budget_bound {
        unavailable("the --rerun-timeout budget ran out while the check ran")
    } else if supervised.timed_out {
        failed(
            Status::Timeout,
            Some(format!("timeout_secs_exceeded: {} s", run.timeout_secs)),
        )
    } else if supervised.output_limit {
        failed(
            Status::OutputLimit,
            Some(format!("stream_exceeded_{}_bytes", supervise::STREAM_CAP)),
        )
    } else if !supervised.stdout.complete || !supervised.stderr.complete {
        unavailable("a detached process kept the check's output open")
    } else if !changes.is_empty() {
        failed(
            Status::InputChanged,
            Some(format!(
                "the files of the landing changed while it ran ({})",
                changes.describe()
            )),
        )
    } else if supervised.exit_code == Some(0) && supervised.signal.is_none() {
        RerunResult::Passed
    } else if let (Some(code @ (126 | 127)), None) = (supervised.exit_code, supervised.signal) {
        let what = if code == 127 {
            "a command it calls was not found"
        } else {
            "a command it calls could not be executed"
        };
        let named = missing_tool(tail)
            .map(|line| format!(" (`{line}`)"))
            .unwrap_or_default();
        unavailable(format!("exit {code}: {what}{named}"))
    } else {
        failed(Status::Failed, None)
    }
}

/// Run every observed check of `tasks` on `landing` (see the module
/// documentation); `config` is the protected configuration (`rerun.setup`,
/// and the digest's agent-file globs).
pub fn after_gate(
    repo: &Repo,
    landing: &Landing,
    tasks: &[Task<'_>],
    config: &Config,
    options: &Options,
) -> Done {
    let started_at = now();
    let mut done = Done {
        per_task: Vec::new(),
        notes: Vec::new(),
        record: Record {
            landing: landing.clone(),
            place: None,
            setup: Vec::new(),
            tasks: Vec::new(),
            started_at: started_at.clone(),
            finished_at: started_at,
        },
    };
    // Before anything of the change can run.
    let sealed = super::secrets::seal();
    let interrupt = match super::signals::install() {
        Ok(flag) => flag,
        Err(e) => {
            done.notes.push(Diagnostic::new(
                Code::rerun_unavailable,
                format!("cannot handle SIGINT/SIGTERM for the re-run: {e}"),
            ));
            return done;
        }
    };
    let mut plans: Vec<Planned> = Vec::new();
    // The judged task of each task run.
    let mut sources: Vec<&Task<'_>> = Vec::new();
    for task in tasks {
        let Ok(declared) = super::declarations(&task.judged.spec, &task.judged.spec_path) else {
            continue;
        };
        if declared.is_empty() {
            continue;
        }
        let index = done.record.tasks.len();
        sources.push(task);
        done.record.tasks.push(TaskRun {
            dir: task.dir.to_string(),
            spec_path: task.judged.spec_path.clone(),
            spec_sha256: hex::encode(Sha256::digest(&task.judged.spec)),
            checks: Vec::new(),
        });
        for (command, run) in declared {
            plans.push(Planned {
                task: index,
                command,
                run,
            });
        }
    }
    if plans.is_empty() {
        done.record.finished_at = now();
        return done;
    }
    let deadline = options.timeout.map(|b| Instant::now() + b);
    let echo = echo::Echo::start(echo::Style::Quoted);
    let prepared = prepare_place(repo, landing, config, options, deadline, &interrupt, &echo);
    let mut not_workspace = None;
    let outcome = match prepared {
        Ok((place, setup)) => {
            done.record.place = Some(place.kind());
            done.record.setup = setup.runs;
            done.notes.extend(setup.notes);
            not_workspace = setup.not_workspace;
            schedule(
                repo, landing, config, options, place, &plans, deadline, &interrupt, &echo,
                &mut done,
            )
        }
        Err(d) => {
            let reason = d.message.clone();
            done.notes.push(d);
            plans
                .iter()
                .map(|p| CheckRun {
                    id: p.run.id.clone(),
                    command: p.command.clone(),
                    declaration: p.run.clone(),
                    result: unavailable(format!(
                        "no place to re-run it could be prepared ({reason})"
                    )),
                    exit_code: None,
                    signal: None,
                    duration_ms: 0,
                    stdout: None,
                    stderr: None,
                    executable: None,
                    tail: Vec::new(),
                })
                .collect()
        }
    };
    echo.finish(Duration::from_secs(3));
    for (plan, run) in plans.iter().zip(outcome) {
        done.record.tasks[plan.task].checks.push(run);
    }
    if !sealed.removed.is_empty() {
        done.notes.push(place_note(format!(
            "the re-run removed {} from the gate's environment before any check started{}",
            sealed.removed.join(", "),
            if sealed.non_dumpable {
                ", and made the gate non-dumpable"
            } else {
                ""
            }
        )));
    }
    let kind = done.record.place;
    let mut digests = LandingDigests::new(repo, config, landing.tree);
    for (run, task) in done.record.tasks.iter().zip(sources) {
        let receipts: BTreeMap<&str, TreeReceipt> = task
            .judged
            .receipts
            .iter()
            .filter_map(|(id, bytes)| {
                let receipt = tree_receipt::inspect(bytes.as_deref()?, None).receipt?;
                Some((id.as_str(), receipt))
            })
            .collect();
        let found = diagnostics(
            run,
            |id| receipts.get(id).cloned(),
            |version| digests.of(version),
            &landing.label,
            kind,
            not_workspace.as_deref(),
        );
        done.per_task.push((run.dir.clone(), found));
    }
    done.record.finished_at = now();
    done
}

/// The landing's tree digests, by version, computed when first asked.
struct LandingDigests<'r> {
    repo: &'r Repo,
    digester: TreeDigester<'r>,
    tree: ObjectId,
    known: BTreeMap<u32, Option<String>>,
}

impl<'r> LandingDigests<'r> {
    fn new(repo: &'r Repo, config: &Config, tree: ObjectId) -> Self {
        LandingDigests {
            repo,
            // CI never trusts a local cache.
            digester: TreeDigester::new(repo, config, false),
            tree,
            known: BTreeMap::new(),
        }
    }

    fn of(&mut self, version: u32) -> Option<String> {
        if let Some(known) = self.known.get(&version) {
            return known.clone();
        }
        let digest = match version {
            1 => View::from_tree(self.repo, self.tree, "the landing")
                .and_then(|v| self.digester.of_view_v1(&v))
                .ok(),
            _ => self.digester.of_tree(self.tree).ok(),
        };
        self.known.insert(version, digest.clone());
        digest
    }
}

/// What preparing the place ran and said.
struct Prepared {
    runs: Vec<SetupRun>,
    notes: Vec<Diagnostic>,
    /// Why the checks run in a worktree rather than the job's workspace.
    not_workspace: Option<String>,
}

/// The place the checks run in first, with `rerun.setup` run in a
/// worktree.
fn prepare_place(
    repo: &Repo,
    landing: &Landing,
    config: &Config,
    options: &Options,
    deadline: Option<Instant>,
    interrupt: &AtomicBool,
    echo: &echo::Echo,
) -> Result<(Place, Prepared), Diagnostic> {
    let mut notes = Vec::new();
    let mut not_workspace = None;
    if options.place != Preference::Worktree {
        match Place::workspace(repo, landing.tree) {
            Ok(place) => {
                notes.push(place_note(format!(
                        "the checks ran in {}, a clean checkout of exactly {}, after the job's own setup steps",
                        place.describe(),
                        landing.label
                    ),
                ));
                return Ok((
                    place,
                    Prepared {
                        runs: Vec::new(),
                        notes,
                        not_workspace: None,
                    },
                ));
            }
            Err(why) if options.place == Preference::Workspace => {
                return Err(Diagnostic::new(
                    Code::rerun_unavailable,
                    format!("--rerun-in workspace, but {why}"),
                )
                .with_hint(
                    "Check out exactly what lands (the merge ref of the pull request, the pushed commit, GitLab's merged-results commit), keep the workspace clean, or drop --rerun-in workspace.",
                ));
            }
            Err(why) => {
                notes.push(place_note(format!(
                    "the checks ran in a git worktree of {} (prepared by `rerun.setup`), not in the workspace, because {why}",
                    landing.label
                )));
                not_workspace = Some(why.to_string());
            }
        }
    }
    if options.place == Preference::Worktree {
        notes.push(place_note(format!(
                "the checks ran in a git worktree of {} (prepared by `rerun.setup`), as --rerun-in worktree asks",
                landing.label
            ),
        ));
        not_workspace = Some("--rerun-in worktree asks for one".to_string());
    }
    let (place, runs) = fresh_worktree(repo, landing, config, deadline, interrupt, echo)?;
    Ok((
        place,
        Prepared {
            runs,
            notes,
            not_workspace,
        },
    ))
}

/// A new worktree of the landing, `rerun.setup` run in it.
fn fresh_worktree(
    repo: &Repo,
    landing: &Landing,
    config: &Config,
    deadline: Option<Instant>,
    interrupt: &AtomicBool,
    echo: &echo::Echo,
) -> Result<(Place, Vec<SetupRun>), Diagnostic> {
    let unavailable = |d: Diagnostic| {
        Diagnostic::new(
            Code::rerun_unavailable,
            format!(
                "cannot prepare a worktree of {} for the re-run: {}",
                landing.label, d.message
            ),
        )
    };
    let view = View::from_tree(repo, landing.tree, landing.label.clone())
        .map_err(|e| unavailable(e.to_diagnostic()))?;
    super::snapshot::check_submodules(repo, &super::snapshot::gitlinks_of(&view))
        .map_err(unavailable)?;
    let place = Place::worktree(
        repo,
        &view,
        Some(landing.tree),
        Some(landing.head),
        repo.workdir(),
        interrupt,
    )
    .map_err(unavailable)?;
    let runs = setup::run(
        &place,
        &config.rerun,
        deadline,
        execute::Environment::Untrusted,
        interrupt,
        Some(echo),
    )?;
    Ok((place, runs))
}

/// Run the planned checks: tasks in parallel up to the jobs limit, a task's
/// checks in order; a place a check changed is replaced by a fresh
/// worktree before the next check starts. The runs, in plan order.
#[allow(clippy::too_many_arguments)]
fn schedule(
    repo: &Repo,
    landing: &Landing,
    config: &Config,
    options: &Options,
    place: Place,
    plans: &[Planned],
    deadline: Option<Instant>,
    interrupt: &AtomicBool,
    echo: &echo::Echo,
    done: &mut Done,
) -> Vec<CheckRun> {
    let jobs = options
        .jobs
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
        .max(1);
    let tasks = done.record.tasks.len();
    // Per task, its plans in order.
    let mut queues: Vec<VecDeque<usize>> = vec![VecDeque::new(); tasks];
    for (index, plan) in plans.iter().enumerate() {
        queues[plan.task].push_back(index);
    }
    let mut results: Vec<Option<CheckRun>> = vec![None; plans.len()];
    let mut busy = vec![false; tasks];
    let mut place = Some(Arc::new(place));
    let mut generation = 0u64;
    let mut spoiled: Option<String> = None;
    let mut running = 0usize;
    let (tx, rx) = mpsc::channel::<Finished>();
    std::thread::scope(|scope| {
        loop {
            // A changed place is replaced once nothing runs in it.
            if let Some(why) = spoiled.clone()
                && running == 0
            {
                if let Some(old) = place.take()
                    && let Ok(old) = Arc::try_unwrap(old)
                {
                    old.remove();
                }
                generation += 1;
                spoiled = None;
                match fresh_worktree(repo, landing, config, deadline, interrupt, echo) {
                    Ok((fresh, runs)) => {
                        done.notes.push(place_note(format!(
                                "a check changed the files it ran on ({why}); the checks after it ran in a fresh worktree of {}",
                                landing.label
                            ),
                        ));
                        done.record.setup.extend(runs);
                        place = Some(Arc::new(fresh));
                    }
                    Err(d) => {
                        done.notes.push(d);
                        // Nothing left can run.
                        for queue in &mut queues {
                            for index in queue.drain(..) {
                                results[index] = Some(never_ran(
                                    &plans[index],
                                    "an earlier check changed the files of the landing and no fresh worktree could be prepared",
                                ));
                            }
                        }
                    }
                }
            }
            // Start what may start.
            if spoiled.is_none()
                && let Some(current) = &place
            {
                for task in 0..tasks {
                    if running >= jobs {
                        break;
                    }
                    if busy[task] {
                        continue;
                    }
                    let Some(index) = queues[task].pop_front() else {
                        continue;
                    };
                    busy[task] = true;
                    running += 1;
                    let plan = &plans[index];
                    let place = Arc::clone(current);
                    let sender = echo.source(label(&done.record.tasks[task].dir, &plan.run.id));
                    let tx = tx.clone();
                    let run = plan.run.clone();
                    let command = plan.command.clone();
                    let this_generation = generation;
                    scope.spawn(move || {
                        let (run, changed) =
                            execute_one(&place, &run, command, deadline, interrupt, sender);
                        // Let go of the place before the coordinator hears of
                        // it, so a changed one can be removed at once.
                        drop(place);
                        let _ = tx.send(Finished {
                            planned: index,
                            generation: this_generation,
                            run,
                            changed,
                        });
                    });
                }
            }
            // Nothing runs: everything is done, or nothing more can start.
            if running == 0 {
                break;
            }
            let Ok(finished) = rx.recv() else {
                break;
            };
            running -= 1;
            let task = plans[finished.planned].task;
            busy[task] = false;
            if !finished.changed.is_empty() && finished.generation == generation {
                spoiled.get_or_insert_with(|| finished.changed.describe());
            }
            results[finished.planned] = Some(finished.run);
        }
    });
    if let Some(place) = place.take()
        && let Ok(place) = Arc::try_unwrap(place)
    {
        place.remove();
    }
    results
        .into_iter()
        .zip(plans)
        .map(|(run, plan)| {
            run.unwrap_or_else(|| never_ran(plan, "the re-run ended before this check started"))
        })
        .collect()
}

fn never_ran(plan: &Planned, why: &str) -> CheckRun {
    CheckRun {
        id: plan.run.id.clone(),
        command: plan.command.clone(),
        declaration: plan.run.clone(),
        result: unavailable(why),
        exit_code: None,
        signal: None,
        duration_ms: 0,
        stdout: None,
        stderr: None,
        executable: None,
        tail: Vec::new(),
    }
}

/// What to do when a check cannot run where it ran.
fn setup_hint(place: Option<Kind>) -> &'static str {
    match place {
        Some(Kind::Workspace) => {
            "Install the project's dependencies in a step before the gate (checkout, install dependencies, gate), or raise --rerun-timeout; then run the job again."
        }
        _ => {
            "Add the command that installs the project's dependencies to `rerun.setup` in .mastermind/hooks.yaml on the protected branch (for example `setup: [[npm, ci]]`), or raise --rerun-timeout; then run the job again."
        }
    }
}

/// The findings for one task's re-run: a note per check that passed again,
/// an error per check that did not, `rerun_unavailable` where it could not
/// be judged. `receipt` is the check's tree receipt as the gate judged it;
/// `landing_digest` the landing's tree digest of a version; `place` where
/// the checks ran, and `not_workspace` why that was a worktree rather than
/// the job's workspace.
///
/// A receipt records a run in a working tree of the project, with the
/// dependencies its owner installed. Only a failure in the same kind of
/// place, the job's workspace after the job's own setup, contradicts it
/// (`rerun_contradicts_receipt`); in a worktree that holds only what
/// `rerun.setup` installs, the same failure is `rerun_failed`, and says so.
pub fn diagnostics(
    run: &TaskRun,
    receipt: impl Fn(&str) -> Option<TreeReceipt>,
    mut landing_digest: impl FnMut(u32) -> Option<String>,
    label: &str,
    place: Option<Kind>,
    not_workspace: Option<&str>,
) -> Vec<Diagnostic> {
    let task = run.dir.as_str();
    let spec_path = run.spec_path.as_str();
    let where_ = match (place, not_workspace) {
        (Some(Kind::Workspace), _) => " in the job's workspace".to_string(),
        (Some(Kind::Worktree), Some(why)) => format!(
            " in a git worktree of it prepared by `rerun.setup` (not the job's workspace: {why})"
        ),
        (Some(Kind::Worktree), None) => {
            " in a git worktree of it prepared by `rerun.setup`".to_string()
        }
        (None, _) => String::new(),
    };
    run.checks
        .iter()
        .map(|check| {
            let command = echo::escape(check.command.as_bytes());
            let recorded = receipt(&check.id);
            let claims_pass = recorded.as_ref().is_some_and(TreeReceipt::passed);
            let receipt_path = format!("{task}/verification/{}.tree.json", check.id);
            let locally = format!(
                "{} --isolated",
                hint::run_command(spec_path, Some(&check.id))
            );
            // The receipt's executable against the one the re-run ran.
            let executable = match (&check.executable, recorded.as_ref().and_then(|r| r.executable.as_ref())) {
                (Some(seen), Some(bound)) if !seen.sha256.eq_ignore_ascii_case(&bound.sha256) => format!(
                    "; the re-run's `{}` hashes to {}, the receipt's executable to {}",
                    echo::escape(seen.path.as_bytes()),
                    &seen.sha256[..seen.sha256.len().min(12)],
                    &bound.sha256[..bound.sha256.len().min(12)]
                ),
                _ => String::new(),
            };
            let output = if check.tail.is_empty() {
                String::new()
            } else {
                format!(
                    "\n  its output ended with (`|` stdout, `!` stderr):\n    {}",
                    check.tail.join("\n    ")
                )
            };
            let diagnostic = match &check.result {
                RerunResult::Passed => Diagnostic::new(
                    Code::rerun_passed,
                    format!(
                        "check `{}` (`{}`) passed again on {label}{where_} (exit 0, {} ms){}{executable}",
                        check.id,
                        command,
                        check.duration_ms,
                        if claims_pass {
                            ", as its receipt records"
                        } else {
                            "; its receipt does not record that pass"
                        }
                    ),
                ),
                RerunResult::Failed { status, reason } => {
                    let how = match (check.exit_code, check.signal) {
                        (Some(code), _) => format!("exit {code}"),
                        (None, Some(signal)) => format!("signal {signal}"),
                        (None, None) => "no exit status".to_string(),
                    };
                    let reason = reason
                        .as_deref()
                        .map(|r| format!(", {r}"))
                        .unwrap_or_default();
                    let what = format!(
                        "check `{}` (`{}`) {} when re-run on {label}{where_} ({how}, {} ms{reason})",
                        check.id,
                        command,
                        crate::contract::mastermind::receipt::status_name(*status),
                        check.duration_ms
                    );
                    let fix = format!(
                        "Reproduce it with `{locally}`, fix the failure, commit the new receipt and push."
                    );
                    let same_tree = recorded.as_ref().filter(|_| claims_pass).and_then(|r| {
                        let digest = landing_digest(r.tree_digest_version)?;
                        (r.tree_after.as_deref() == Some(digest.as_str())).then_some(digest)
                    });
                    match same_tree {
                        Some(digest) if place != Some(Kind::Workspace) => Diagnostic::new(
                            Code::rerun_failed,
                            format!(
                                "{what}; its receipt records a pass on exactly this tree (digest {}), but in a working tree of the project: a worktree holds only what `rerun.setup` installs, so this is not taken as a false receipt{executable}{output}",
                                &digest[..digest.len().min(12)]
                            ),
                        )
                        .with_hint(format!(
                            "Reproduce it with `{locally}`, which prepares its checkout the same way. If it passes in your working tree but not there, the worktree lacks a dependency: add its install command to `rerun.setup` in .mastermind/hooks.yaml on the protected branch, or let the gate run in the job's workspace (check out exactly what lands, install the dependencies in a step before the gate, leave no untracked file). Else fix the failure, commit the new receipt and push."
                        )),
                        Some(digest) => Diagnostic::new(
                            Code::rerun_contradicts_receipt,
                            format!(
                                "{what}, but its receipt records a pass on exactly this tree (digest {}): the receipt does not describe what its check does here{executable}{output}",
                                &digest[..digest.len().min(12)]
                            ),
                        )
                        .with_hint(fix),
                        None => {
                            let about = if claims_pass {
                                "; its receipt records a pass on other content"
                            } else {
                                ""
                            };
                            Diagnostic::new(Code::rerun_failed, format!("{what}{about}{executable}{output}"))
                                .with_hint(fix)
                        }
                    }
                }
                RerunResult::Unavailable { reason } => Diagnostic::new(
                    Code::rerun_unavailable,
                    format!(
                        "check `{}` (`{}`) could not be re-run on {label}{where_}: {reason}{output}",
                        check.id, command
                    ),
                )
                .with_hint(setup_hint(place)),
            };
            diagnostic.with_path(receipt_path).with_task(task)
        })
        .collect()
}

#[cfg(test)]
mod tests;
