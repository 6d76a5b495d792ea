//! `check --worktree` (and the agent's stop hook): the working tree
//! (tracked and non-ignored untracked files) lands on HEAD; with
//! `--since REV`, the commits from `REV` to HEAD are steps of the change
//! too. The configuration comes from that base, so an agent's edit of
//! `hooks.yaml` in the working tree never relaxes its own gate.

use super::judge::{Collected, judge};
use super::{At, Landing, Target, ViewKind, steps};
use crate::repo::tree::{View, short};
use crate::repo::{Repo, RepoError};

/// The working tree landing on HEAD, or on `since`.
pub fn landing(repo: &Repo, since: Option<&str>) -> Result<Landing, RepoError> {
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
        (Some(since), Some(head)) => steps::commits(repo, &[head], &[since])?,
        _ => Vec::new(),
    };
    steps.push(steps::pending(
        repo,
        &view,
        &head_view,
        head.into_iter().collect(),
    )?);
    let branch = steps::current_branch(repo);
    let (_, landed_locally) = steps::elsewhere(
        branch.as_deref(),
        crate::repo::remote::local_default_branch(repo),
    );
    let base_label = match base_commit {
        Some(id) => format!("commit {}", short(id)),
        None => "the empty tree (no commit yet)".to_string(),
    };
    Ok(Landing {
        kind: ViewKind::Worktree,
        target: Target::at(repo, base_commit, base_label.clone())?,
        base: base_commit,
        base_label,
        steps,
        heads: head.into_iter().collect(),
        unrelated_to: None,
        lands: At::Pending,
        lands_label: view.label.clone(),
        tip: At::Pending,
        tip_label: view.label.clone(),
        pending: Some(view),
        branch,
        label: None,
        identity: Default::default(),
        // The agent's stop hook judges the work as it would land: strict.
        work_in_progress: None,
        landed_locally,
    })
}

/// Judge the working tree.
pub fn check(repo: &Repo, since: Option<&str>, out: &mut Collected) -> Result<(), RepoError> {
    judge(repo, &landing(repo, since)?, out);
    Ok(())
}
