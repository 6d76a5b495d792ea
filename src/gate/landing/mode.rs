//! Which mode the user asked for, and the one report of a run in it: open
//! the repository, let the mode's module build and judge its landings, and
//! gather every finding.

use super::ci::{self, Rerun};
use super::judge::Collected;
use super::{push, receive, staged, worktree};
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::repo::{Repo, RepoError, SharedRepo};
use crate::report::Report;

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
    /// The agent's stop hook: the working tree and every commit since the
    /// merge base with the default branch (as the remote reports it) or the
    /// upstream, whichever is older ([`worktree::agent_landing`]).
    AgentWork(worktree::AgentTarget),
    /// A bare repository's pre-receive hook.
    Receive,
}

impl Mode {
    /// Hooks print human output to stderr (git shows it); the rest use stdout.
    pub fn human_to_stderr(&self) -> bool {
        matches!(self, Mode::Staged | Mode::Push { .. } | Mode::Receive)
    }
}

/// The repository around the current directory.
fn discover() -> Result<Repo, RepoError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    Repo::discover(&cwd)
}

/// Run the gate in `mode` from the current directory and return the
/// report (no rendering). For a command's process, which ends after it:
/// the repository it opened is never freed.
pub fn report(mode: &Mode) -> Report {
    report_on(mode, None)
}

/// [`report`], judging `opened` where the caller has discovered the
/// repository already (from the current directory, as [`report`] would):
/// the agent hooks open it before they start the gate's thread, which then
/// reads no configuration file, HEAD or object directory a second time.
pub fn report_on(mode: &Mode, opened: Option<SharedRepo>) -> Report {
    let mut out = Collected::default();
    // Reads its ref lines before it opens the repository, and then reads
    // the pushed objects through git's quarantine.
    if *mode == Mode::Receive {
        receive::check(&mut out);
        return out.into_report();
    }
    let repo = match opened.map_or_else(discover, |shared| Ok(Repo::from_shared(shared))) {
        Ok(repo) => repo,
        Err(e) => {
            out.fail(e);
            return out.into_report();
        }
    };
    // The index's checksum is verified beside the judging and waited for
    // before the verdict. Not in CI, whose re-runs need every other thread
    // gone (and which judges commits, not the index).
    let deferred = !matches!(mode, Mode::Ci { .. });
    if deferred {
        repo.defer_index_checksums();
    }
    let result = match mode {
        Mode::Receive => Ok(()), // judged above
        Mode::Staged => staged::check(&repo, &mut out),
        Mode::Push { remote, url } => {
            push::check(&repo, remote.as_deref(), url.as_deref(), &mut out)
        }
        Mode::Ci { base, head, rerun } => ci::check(
            &repo,
            base.as_deref(),
            head.as_deref(),
            rerun.as_ref(),
            &mut out,
        ),
        Mode::Worktree { since } => worktree::check(&repo, since.as_deref(), &mut out),
        Mode::AgentWork(target) => worktree::agent_landing(&repo, target).map(|landing| {
            super::judge::judge(&repo, &landing, &mut out);
        }),
    };
    if let Err(e) = result {
        out.fail(e);
    }
    // Whatever was judged from an index whose checksum does not hold
    // (objects it names that do not exist, paths it garbles) is void: the
    // index is the one finding.
    if deferred && let Err(e) = repo.settle_index_checksums() {
        out = Collected::default();
        out.fail(e);
        return out.into_report();
    }
    if out.missed_objects() && repo.is_partial_clone() {
        out.note(Diagnostic::new(
            Code::git_partial_clone,
            "this clone is partial (`git clone --filter=...`) and lacks objects the gate reads (every file of what lands, the trees of the commits it compares), so nothing here was judged",
        ).with_hint("fetch them with `git fetch --refetch --no-filter origin` (or clone without `--filter`: on GitHub, leave actions/checkout's `filter` unset), then run the gate again"));
    }
    // The repository is left for the process's exit to reclaim: freeing
    // what it read (decoded packs, blob memos) took 2 ms of a cold `check
    // --ci` on the limit repository, and the caller (a command) only
    // renders the report and exits. It holds no lock, temporary file or
    // running thread by now (the checksum threads were joined above).
    std::mem::forget(repo);
    out.into_report()
}
