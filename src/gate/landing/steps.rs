//! The steps of a landing: the commits of a range, and the pending step
//! (the index or the working tree) with what a merge being concluded owns.

use super::destination::Destination;
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
    let range = repo.range(tips, hidden)?;
    // git merges the range's merges in the background while the other
    // commits' changes are read here; each merge's own changes wait for it.
    repo.start_merges(&range);
    let early: Vec<Option<Result<Vec<PathChange>, RepoError>>> = range
        .iter()
        .map(|meta| (meta.parents.len() != 2).then(|| repo.commit_changes(meta)))
        .collect();
    let steps = range
        .iter()
        .zip(early)
        .map(|(meta, early)| {
            let changes = match early {
                Some(changes) => changes?,
                None => repo.commit_changes(meta)?,
            };
            Ok(Step::commit(meta, changes))
        })
        .collect();
    repo.settle_merges();
    steps
}

/// The short name of the branch HEAD is on, if any.
pub fn current_branch(repo: &Repo) -> Option<String> {
    let name = repo.head_ref_name()?;
    let name = gix::refs::FullName::try_from(name).ok()?;
    Some(name.shorten().to_str_lossy().into_owned())
}

/// For the local modes: where the commit being made on `branch` lands
/// (that branch, with the clone's default branch as
/// [`crate::repo::remote::local_default_branch`] knows it: `default`, its
/// name and tip), and, on a branch other than the default branch, the
/// default branch's tip (where a task's spec is read to tell whether it
/// landed). A detached HEAD lands on no branch the mode can name:
/// `(None, None)`, judged strictly against HEAD.
pub fn local_destination(
    branch: Option<&str>,
    default: Option<(String, ObjectId)>,
) -> (Option<Destination>, Option<ObjectId>) {
    let Some(branch) = branch else {
        return (None, None);
    };
    let landed = default
        .as_ref()
        .filter(|(name, _)| name != branch)
        .map(|(_, tip)| *tip);
    let destination = Destination::branch(branch, default.map(|(name, _)| name));
    (Some(destination), landed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_branch_lands_on_itself_and_reads_the_default_branch_beside_it() {
        let tip = ObjectId::null(gix::hash::Kind::Sha1);
        let main = || Some(("main".to_string(), tip));
        let (lands, landed) = local_destination(Some("feature/x"), main());
        assert_eq!(
            lands,
            Some(Destination::branch("feature/x", Some("main".to_string())))
        );
        assert_eq!(landed, Some(tip));
        let (lands, landed) = local_destination(Some("main"), main());
        assert_eq!(lands.map(|d| d.branch), Some("main".to_string()));
        assert_eq!(landed, None);
        assert_eq!(
            local_destination(None, main()),
            (None, None),
            "a detached HEAD is strict"
        );
        let (lands, landed) = local_destination(Some("feature"), None);
        assert_eq!(
            lands.and_then(|d| d.default_branch),
            None,
            "no default known: strict unless a pattern decides"
        );
        assert_eq!(landed, None);
    }
}
