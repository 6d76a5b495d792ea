//! `check --worktree` and the agent's stop hook: the working tree
//! (tracked and non-ignored untracked files) lands on HEAD; with
//! `--since REV`, the commits from `REV` to HEAD are steps of the change
//! too. The configuration comes from that base, so an agent's edit of
//! `hooks.yaml` in the working tree never relaxes its own gate. The stop
//! hook ([`agent_landing`]) judges everything since the branch left its
//! upstream or the default branch, under the default branch's
//! configuration.

use super::judge::{Collected, judge};
use super::{At, Landing, Target, ViewKind, steps};
use crate::repo::tree::{View, short};
use crate::repo::{Repo, RepoError};

/// The working tree landing on HEAD, or on `since`.
pub fn landing(repo: &Repo, since: Option<&str>) -> Result<Landing, RepoError> {
    let since = match since {
        Some(rev) => Some(repo.resolve_commit(rev)?),
        None => None,
    };
    let default = crate::repo::remote::local_default_branch(repo);
    landing_on(repo, since, None, default)
}

/// The commit whose configuration judges an agent's work: the default
/// branch's tip as this clone knows it, else HEAD (`None`: no commit yet).
/// Never the working tree, and never a commit only the agent's branch has
/// where the default branch is known.
pub fn protected_commit(repo: &Repo) -> Result<Option<gix::ObjectId>, RepoError> {
    match crate::repo::remote::local_default_branch(repo) {
        Some((_, tip)) => Ok(Some(tip)),
        None => repo.head_commit(),
    }
}

/// The agent's work as its stop hook judges it: every commit since the
/// merge base of HEAD with its upstream (`@{upstream}`), else with the
/// default branch, and the working tree, committed or not (an agent that
/// commits with `--no-verify` is still judged), under the configuration of
/// the default branch's tip where it is known ([`protected_commit`]), so a
/// relaxed `hooks.yaml` the agent committed on its branch relaxes nothing.
pub fn agent_landing(repo: &Repo) -> Result<Landing, RepoError> {
    let head = repo.head_commit()?;
    let known = crate::repo::remote::local_default_branch(repo);
    let default = known.as_ref().map(|(_, tip)| *tip);
    let upstream = repo
        .resolve_commit("@{upstream}")
        .ok()
        .filter(|id| repo.has_commit(*id));
    let since = match (head, upstream.or(default)) {
        (Some(head), Some(other)) => repo.merge_base(head, other)?,
        _ => None,
    };
    landing_on(repo, since, default, known)
}

/// The working tree on HEAD with the commits since `since` as steps,
/// judged under `target`'s configuration (`None`: `since`, else HEAD);
/// `default_branch` is [`crate::repo::remote::local_default_branch`],
/// read once by the caller.
fn landing_on(
    repo: &Repo,
    since: Option<gix::ObjectId>,
    target: Option<gix::ObjectId>,
    default_branch: Option<(String, gix::ObjectId)>,
) -> Result<Landing, RepoError> {
    let head = repo.head_commit()?;
    let base_commit = since.or(head);
    let head_view = match head {
        Some(id) => View::commit_beside_index(repo, id)?,
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
    let (_, landed_locally) = steps::local_destination(branch.as_deref(), default_branch);
    let base_label = match base_commit {
        Some(id) => format!("commit {}", short(id)),
        None => "the empty tree (no commit yet)".to_string(),
    };
    let target = match target {
        Some(id) if Some(id) != base_commit => {
            Target::at(repo, Some(id), format!("the default branch {}", short(id)))?
        }
        _ => Target::at(repo, base_commit, base_label.clone())?,
    };
    Ok(Landing {
        kind: ViewKind::Worktree,
        target,
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
        destination: None,
        landed_locally,
    })
}

/// Judge the working tree.
pub fn check(repo: &Repo, since: Option<&str>, out: &mut Collected) -> Result<(), RepoError> {
    judge(repo, &landing(repo, since)?, out);
    Ok(())
}
