//! `check --staged` (pre-commit, pre-merge-commit): the index git is about
//! to commit (`GIT_INDEX_FILE` honoured) lands on HEAD. While a merge is
//! being concluded, `MERGE_HEAD` names the other parents and the pending
//! step owns only what differs from git's automatic merge.

use super::judge::{Collected, judge};
use super::{At, Landing, Target, ViewKind, steps};
use crate::repo::tree::View;
use crate::repo::{Repo, RepoError};
use gix::ObjectId;

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

/// The index landing on HEAD.
pub fn landing(repo: &Repo) -> Result<Landing, RepoError> {
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
    let steps = vec![steps::pending(repo, &view, &base_view, parents)?];
    let base_label = base_view.label.clone();
    Ok(Landing {
        kind: ViewKind::Staged,
        target: Target::at(repo, head, base_label.clone())?,
        base: head,
        base_label,
        steps,
        lands: At::Pending,
        lands_label: view.label.clone(),
        tip: At::Pending,
        tip_label: view.label.clone(),
        pending: Some(view),
        branch: steps::current_branch(repo),
        label: None,
        identity: Default::default(),
    })
}

/// Judge the index.
pub fn check(repo: &Repo, out: &mut Collected) -> Result<(), RepoError> {
    judge(repo, &landing(repo)?, out);
    Ok(())
}
