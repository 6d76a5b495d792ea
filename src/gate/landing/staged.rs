//! `check --staged` (pre-commit, pre-merge-commit): the index git is about
//! to commit (`GIT_INDEX_FILE` honoured) lands on HEAD. While a merge is
//! being concluded, the merged commits are steps of the change and the
//! pending step owns only what differs from git's own merge.

use super::judge::{Collected, judge};
use super::{At, Landing, Target, ViewKind, steps};
use crate::repo::remote::{local_default_branch, local_default_tips};
use crate::repo::tree::View;
use crate::repo::{Repo, RepoError};
use gix::ObjectId;

/// The commits a merge being concluded brings in. `git commit` after a
/// stopped merge finds them in `MERGE_HEAD`; git runs `pre-merge-commit`
/// before it writes that file, so there they are the commits `git merge`
/// was given (its `GIT_REFLOG_ACTION`, `merge <commit>...`), or for
/// `git pull` the fetched heads marked for merging in `FETCH_HEAD`. Heads
/// HEAD already contains bring nothing.
fn merge_heads(repo: &Repo, head: Option<ObjectId>) -> Result<Vec<ObjectId>, RepoError> {
    let read = |name: &str| std::fs::read_to_string(repo.git_dir().join(name)).ok();
    let mut heads: Vec<ObjectId> = match read("MERGE_HEAD") {
        Some(text) => text
            .lines()
            .filter_map(|line| ObjectId::from_hex(line.trim().as_bytes()).ok())
            .collect(),
        None => match std::env::var("GIT_REFLOG_ACTION") {
            Ok(action) if action.starts_with("merge ") => action
                .split_whitespace()
                .skip(1)
                .filter_map(|rev| repo.resolve_commit(rev).ok())
                .collect(),
            Ok(action) if action == "pull" || action.starts_with("pull ") => read("FETCH_HEAD")
                .unwrap_or_default()
                .lines()
                .filter(|line| !line.contains("\tnot-for-merge\t"))
                .filter_map(|line| line.split('\t').next())
                .filter_map(|id| ObjectId::from_hex(id.trim().as_bytes()).ok())
                .collect(),
            _ => Vec::new(),
        },
    };
    heads.retain(|id| repo.has_commit(*id));
    let mut kept = Vec::new();
    for id in heads {
        let contained = match head {
            Some(head) => repo.is_ancestor(id, head)?,
            None => false,
        };
        if !contained && !kept.contains(&id) {
            kept.push(id);
        }
    }
    Ok(kept)
}

/// The index landing on HEAD. While a merge is concluded, the commits it
/// brings in (those neither HEAD nor the local view of the remotes'
/// default branches has) are steps of the change too, and the index is
/// the merge.
pub fn landing(repo: &Repo) -> Result<Landing, RepoError> {
    let head = repo.head_commit()?;
    let (view, base_view) = match head {
        Some(head) => View::staged_and_commit(repo, head)?,
        None => (
            View::from_index(repo)?,
            View::empty("the empty tree (no commit yet)"),
        ),
    };
    let merged = merge_heads(repo, head)?;
    let mut steps = Vec::new();
    if !merged.is_empty() {
        let mut hidden: Vec<ObjectId> = head.into_iter().collect();
        hidden.extend(local_default_tips(repo));
        steps = steps::commits(repo, &merged, &hidden)?;
    }
    let mut parents: Vec<ObjectId> = head.into_iter().collect();
    parents.extend(merged);
    let heads = parents.clone();
    steps.push(steps::pending(repo, &view, &base_view, parents)?);
    let base_label = base_view.label.clone();
    let branch = steps::current_branch(repo);
    let (destination, landed_locally) =
        steps::local_destination(branch.as_deref(), local_default_branch(repo));
    Ok(Landing {
        kind: ViewKind::Staged,
        target: Target::at(repo, head, base_label.clone())?,
        base: head,
        base_label,
        steps,
        heads,
        unrelated_to: None,
        lands: At::Pending,
        lands_label: view.label.clone(),
        tip: At::Pending,
        tip_label: view.label.clone(),
        pending: Some(view),
        branch,
        label: None,
        identity: Default::default(),
        destination,
        landed_locally,
    })
}

/// Judge the index.
pub fn check(repo: &Repo, out: &mut Collected) -> Result<(), RepoError> {
    judge(repo, &landing(repo)?, out);
    Ok(())
}
