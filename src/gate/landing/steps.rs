//! The steps of a landing: the commits of a range, and the pending step
//! (the index or the working tree) with what a merge being concluded owns.

use crate::gate::change::{Identity, Step, StepAt};
use crate::repo::changes::ChangeSet;
use crate::repo::history::PathChange;
use crate::repo::merge::own_changes;
use crate::repo::tree::View;
use crate::repo::{Repo, RepoError};
use gix::ObjectId;
use gix::bstr::ByteSlice;

/// A pending step (the index or the working tree) over `base_view`, with
/// `parents` (HEAD, and the commits a merge being concluded brings in). A
/// merge of two parents owns what a committed merge would
/// ([`crate::repo::merge::own_changes`]): what differs from git's own merge
/// of its parents, and the paths that merge could not resolve.
pub fn pending(
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
    if let [ours, theirs] = parents.as_slice()
        && let Some(merge) = repo.merge_commits(*ours, *theirs)?
    {
        let first = repo.commit_tree(*ours)?;
        let second = repo.commit_tree(*theirs)?;
        changes = own_changes(repo, changes, first, second, &merge)?;
    }
    Ok(Step {
        at: StepAt::Pending,
        parents,
        label: view.label.clone(),
        identity: Identity {
            author: repo.person(false),
            committer: repo.person(true),
            message: None,
        },
        changes,
    })
}

/// The commits reachable from `tips` and from none of `hidden`, as steps.
pub fn commits(
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
pub fn current_branch(repo: &Repo) -> Option<String> {
    let name = repo.head_ref_name()?;
    let name = gix::refs::FullName::try_from(name).ok()?;
    Some(name.shorten().to_str_lossy().into_owned())
}

/// For the local modes: whether the commit being made on `branch` lands on
/// the clone's default branch (`default`: its name and tip, as
/// [`crate::repo::remote::local_default_branch`] knows it). On another
/// branch: why the commit does not land there (its unfinished tasks are
/// work in progress) and the default branch's tip (where a task's spec is
/// read to tell whether it landed). On the default branch, a detached
/// HEAD, or where no default branch is known: `(None, None)`, judged
/// strictly against HEAD.
pub fn elsewhere(
    branch: Option<&str>,
    default: Option<(String, ObjectId)>,
) -> (Option<String>, Option<ObjectId>) {
    match (branch, default) {
        (Some(branch), Some((default, tip))) if branch != default => (
            Some(format!(
                "branch {branch} is not the default branch {default}"
            )),
            Some(tip),
        ),
        _ => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_named_branch_other_than_the_default_is_elsewhere() {
        let tip = ObjectId::null(gix::hash::Kind::Sha1);
        let main = || Some(("main".to_string(), tip));
        let (why, landed) = elsewhere(Some("feature/x"), main());
        assert!(why.is_some_and(|w| w.contains("branch feature/x is not the default branch main")));
        assert_eq!(landed, Some(tip));
        assert_eq!(elsewhere(Some("main"), main()), (None, None));
        assert_eq!(
            elsewhere(None, main()),
            (None, None),
            "a detached HEAD is strict"
        );
        assert_eq!(
            elsewhere(Some("feature"), None),
            (None, None),
            "no default known: strict"
        );
    }
}
