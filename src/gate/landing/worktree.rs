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
    landing_on(repo, since, None, default, ViewKind::Worktree)
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

/// What the stop hook learned about where the agent's work lands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentTarget {
    /// The default branch as the remote reports it (name and tip), when
    /// the clone has the tip; `None`: the clone's own view of it.
    pub remote_default: Option<(String, gix::ObjectId)>,
    /// The references as the hook read them before the gate started (HEAD,
    /// the default branches), with the git directory it read them in: the
    /// gate's own handle on that repository takes them instead of reading
    /// them again.
    pub refs: Option<crate::repo::refs::RefsSeen>,
}

/// The agent's work as its stop hook judges it: every commit since the
/// merge base of HEAD with the default branch (as the remote reports it,
/// else every default branch the clone knows; both where the remote's
/// default branch is HEAD or past it) and with its upstream
/// (`@{upstream}`), whichever is oldest, never a ref that points at HEAD
/// itself (a pushed
/// branch's upstream, a tracking ref moved onto HEAD), and the working tree,
/// committed or not (an agent that commits with `--no-verify` is still
/// judged), under the configuration of the default branch's tip where it is
/// known ([`protected_commit`]), so a relaxed `hooks.yaml` the agent
/// committed on its branch relaxes nothing. It is judged as it would land
/// on the protected branch ([`ViewKind::Agent`]).
pub fn agent_landing(repo: &Repo, target: &AgentTarget) -> Result<Landing, RepoError> {
    if let Some(seen) = &target.refs {
        repo.assume_refs(seen);
    }
    let head = repo.head_commit()?;
    let known = match &target.remote_default {
        Some(reported) => Some(reported.clone()),
        None => crate::repo::remote::local_default_branch(repo),
    };
    let default = known.as_ref().map(|(_, tip)| *tip);
    let upstream = repo
        .resolve_commit("@{upstream}")
        .ok()
        .filter(|id| repo.has_commit(*id));
    // What the work is judged since: the remote's word where it was had;
    // else every default branch the clone knows (a remote's HEAD, main or
    // master, the local main or master), so one moved ref hides nothing.
    let mut others: Vec<gix::ObjectId> = Vec::new();
    let clone_knows = |others: &mut Vec<gix::ObjectId>| {
        others.extend(crate::repo::remote::local_default_tips(repo));
        for branch in ["main", "master"] {
            if let Ok(id) = repo.resolve_commit(&format!("refs/heads/{branch}")) {
                others.push(id);
            }
        }
    };
    match &target.remote_default {
        Some((_, tip)) => {
            others.push(*tip);
            // The remote says the work has landed (its default branch is
            // HEAD or past it): a remote the agent pointed `origin` at says
            // that too, so the clone's own default branches must agree
            // (where the work really landed they are HEAD, and add nothing).
            if let Some(head) = head
                && repo.merge_base(head, *tip)? == Some(head)
            {
                clone_knows(&mut others);
            }
        }
        None => clone_knows(&mut others),
    }
    others.extend(upstream);
    let since = match head {
        Some(head) => {
            let mut bases = Vec::new();
            for other in others {
                if other != head
                    && let Some(base) = repo.merge_base(head, other)?
                {
                    bases.push(base);
                }
            }
            // The older of the merge bases: where they diverge, their own
            // merge base (each is an ancestor of HEAD).
            let mut oldest: Option<gix::ObjectId> = None;
            for base in bases {
                oldest = Some(match oldest {
                    None => base,
                    Some(seen) => repo.merge_base(seen, base)?.unwrap_or(seen),
                });
            }
            oldest
        }
        None => None,
    };
    landing_on(repo, since, default, known, ViewKind::Agent)
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
    kind: ViewKind,
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
        kind,
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
