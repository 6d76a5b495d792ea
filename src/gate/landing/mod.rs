//! Landings: what each mode puts before the gate (DESIGN.md section 5).
//!
//! Every mode builds the same value, a [`Landing`]: the protected
//! [`Target`] the change lands on (its configuration is in force), the base
//! the change's steps start from, the steps themselves, the content that
//! lands and the change's tip. One module per mode builds it:
//!
//! * [`staged`]: the index git is about to commit, on HEAD (and
//!   `MERGE_HEAD` while a merge is concluded);
//! * [`push`]: each pushed ref (git's pre-push lines on stdin), on what the
//!   remote already has;
//! * [`receive`]: each ref update of a pre-receive hook, read through git's
//!   quarantine;
//! * [`ci`]: the merge of head into base, with base and head from the CI
//!   platform's event data ([`ci::github`], [`ci::gitlab`]);
//! * [`worktree`]: the working tree on HEAD (or `--since REV`).
//!
//! Shared pieces: [`steps`] (a range's commits and the pending step),
//! [`config`] (the configuration from the target, and the repair rule),
//! [`destination`] (the branch a landing lands on, and whether it is
//! protected), [`judge`] (one landing under its configuration through the
//! gate) and [`mode`] (which mode the user asked for, and the one report).

pub mod ci;
pub mod config;
pub mod destination;
pub mod judge;
pub mod mode;
pub mod push;
pub mod receive;
pub mod staged;
pub mod steps;
pub mod worktree;

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::gate::change::Step;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::View;
use crate::repo::{Repo, Result};
use gix::ObjectId;

/// Which mode a gate run serves: decides receipt policy (the sha256 cache
/// and executable comparison are local-only; v1 receipts need the working
/// tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    Staged,
    Push,
    Ci,
    Worktree,
    Receive,
    /// The agent's stop hook: the working tree, judged as it would land on
    /// the protected branch (untasked work gets CI's verdict).
    Agent,
}

impl ViewKind {
    /// Modes that run on a developer's machine (local caches, `PATH`).
    pub fn is_local(self) -> bool {
        matches!(
            self,
            ViewKind::Staged | ViewKind::Push | ViewKind::Worktree | ViewKind::Agent
        )
    }
}

/// Where a landing's content is: a git tree, or the pending view (the
/// index or the working tree) the landing carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    Tree(ObjectId),
    Pending,
}

/// The protected target a change lands on: the configuration in force is
/// read from its tree, never from the change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Its commit; `None` when there is none yet (no commit, an empty
    /// remote).
    pub commit: Option<ObjectId>,
    /// The commit's tree.
    pub tree: Option<ObjectId>,
    /// For messages: `commit abc1234`, `the base abc1234`.
    pub label: String,
}

impl Target {
    /// The target at `commit` (none: nothing yet).
    pub fn at(repo: &Repo, commit: Option<ObjectId>, label: impl Into<String>) -> Result<Target> {
        Ok(Target {
            commit,
            tree: commit.map(|id| repo.commit_tree(id)).transpose()?,
            label: label.into(),
        })
    }

    /// Its content.
    pub fn snapshot(&self) -> Snapshot<'static> {
        match self.tree {
            Some(tree) => Snapshot::Tree(tree),
            None => Snapshot::Empty,
        }
    }
}

/// One change as it would land: the value the gate judges.
pub struct Landing {
    pub kind: ViewKind,
    /// The protected target; its configuration is in force.
    pub target: Target,
    /// The landed commit the change's steps start from: the target's
    /// commit (HEAD, the remote's commit, the default branch's or the
    /// target branch's tip); `None` when there is nothing yet (first
    /// commit, empty remote).
    pub base: Option<ObjectId>,
    /// For messages: `commit abc1234`, `the empty tree`.
    pub base_label: String,
    /// The steps being landed, parents before children; the pending step
    /// (index or working tree), if any, last.
    pub steps: Vec<Step>,
    /// The commits whose content the landing joins (the pushed tip; CI's
    /// target and head; HEAD and the heads a merge brings in): a task's
    /// history is walked back from them.
    pub heads: Vec<ObjectId>,
    /// For a pushed ref: the default branch's tip when the ref shares no
    /// history with it (refused unless configured).
    pub unrelated_to: Option<ObjectId>,
    /// The pending step's content.
    pub pending: Option<View>,
    /// What lands: CI's merge tree, the pushed tip, the index or the
    /// working tree (receipts with `freshness: merge`).
    pub lands: At,
    pub lands_label: String,
    /// The tip of the change (receipts with `freshness: head`).
    pub tip: At,
    pub tip_label: String,
    /// The branch being changed (the target branch), for the policies'
    /// `branches`.
    pub branch: Option<String>,
    /// What the mode knows about who makes the change (pushers, actors),
    /// where it comes from and the protected branch (`crate::gate::identity`).
    pub identity: crate::gate::identity::facts::Facts,
    /// A label for the change in task results (the pushed ref, say).
    pub label: Option<String>,
    /// The branch the landing lands on (the branch committed to, the
    /// pushed or received branch, the pull request's target, the branch a
    /// CI push pipeline builds) and the default branch, as the mode knows
    /// them. Where that branch is not protected (`protected_branches`), the
    /// landing is work in progress (`crate::gate::work_in_progress`).
    /// `None`: the mode cannot tell (a tag, a detached HEAD, CI by hand,
    /// the agent's stop hook), and it is judged strictly.
    pub destination: Option<destination::Destination>,
    /// The protected branch's tip as a local mode knows it (the clone's
    /// default branch, `crate::repo::remote::local_default_branch`), used
    /// only to judge less: whether a task's spec has landed. Where the mode
    /// knows the protected branch (`identity.protected`), that wins.
    pub landed_locally: Option<ObjectId>,
}

impl Landing {
    /// The protected branch's tip, as far as the mode knows it: what it
    /// vouches for (`identity.protected`), else the local view of it.
    pub fn protected(&self) -> Option<ObjectId> {
        self.identity.protected.or(self.landed_locally)
    }

    /// The content at `at`.
    pub fn snapshot(&self, at: At) -> Snapshot<'_> {
        match (at, &self.pending) {
            (At::Tree(tree), _) => Snapshot::Tree(tree),
            (At::Pending, Some(view)) => Snapshot::View(view),
            (At::Pending, None) => Snapshot::Empty,
        }
    }
}

/// The note for a pushed ref that names a tree or a blob: nothing to judge.
pub(crate) fn not_a_commit(refname: &str, id: &str) -> Diagnostic {
    Diagnostic::new(
        Code::ref_not_a_commit,
        format!(
            "{refname}: {id} is a tree or a blob, not a commit; it carries no task and is not judged"
        ),
    )
}

/// True for git's all-zero object id (a ref that does not exist on one
/// side of an update).
pub(crate) fn is_zero(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b == b'0')
}
