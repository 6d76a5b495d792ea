//! The steps of a landing: the commits of a range, and the pending step
//! (the index or the working tree) with what a merge being concluded owns.

use crate::gate::change::{Identity, Step, StepAt};
use crate::repo::changes::{ChangeKind, ChangeSet};
use crate::repo::history::PathChange;
use crate::repo::tree::{Entry, View};
use crate::repo::{Repo, RepoError};
use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};

/// A pending step (the index or the working tree) over `base_view`, with
/// `parents` (HEAD, and `MERGE_HEAD` while a merge is being concluded). A
/// merge owns what a committed merge would ([`Repo::commit_changes`]):
/// what differs from git's automatic merge of its two parents, and the
/// paths that merge could not resolve.
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
    let auto = match parents.as_slice() {
        [ours, theirs] => repo.auto_merge(*ours, *theirs)?,
        _ => None,
    };
    if let (Some(auto), Some(head)) = (auto, parents.first()) {
        let head_tree = repo.commit_tree(*head)?;
        let own = |path: &BString, entry: Option<Entry>| -> Result<bool, RepoError> {
            if auto.conflicts.contains(path) {
                return Ok(true);
            }
            let Ok(text) = std::str::from_utf8(path) else {
                return Ok(true);
            };
            Ok(repo.tree_entry(auto.tree, text)? != entry)
        };
        let mut kept = Vec::new();
        for change in changes {
            if own(&change.path, change.new)? {
                kept.push(change);
            }
        }
        // Paths the automatic merge took from the other side but the
        // staged result keeps as HEAD has them: the merge dropped them.
        for incoming in repo.tree_changes(Some(head_tree), Some(auto.tree))? {
            if kept.iter().any(|c| c.path == incoming.path) {
                continue;
            }
            let staged = view.get_bytes(&incoming.path).copied();
            // The automatic merge changed the path, so it differs from
            // HEAD's entry, which the staged one equals here.
            if staged == incoming.old
                && let Some(kind) = ChangeKind::between(incoming.new.as_ref(), staged.as_ref())
            {
                kept.push(PathChange {
                    kind,
                    old: incoming.new,
                    new: staged,
                    path: incoming.path,
                });
            }
        }
        kept.sort_by(|a, b| a.path.cmp(&b.path));
        changes = kept;
    }
    let who = |signature: Option<Result<gix::actor::SignatureRef<'_>, _>>| {
        signature.and_then(Result::ok).map(|s| {
            format!(
                "{} <{}>",
                s.name.to_str_lossy().trim(),
                s.email.to_str_lossy().trim()
            )
        })
    };
    Ok(Step {
        at: StepAt::Pending,
        parents,
        label: view.label.clone(),
        identity: Identity {
            author: who(repo.gix().author()),
            committer: who(repo.gix().committer()),
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
    repo.gix()
        .head_name()
        .ok()
        .flatten()
        .map(|name| name.shorten().to_str_lossy().into_owned())
}
