//! What a remote already has, asked of the remote itself (`git ls-remote`):
//! a push's base must never come from local remote-tracking refs alone,
//! which anyone with the working copy can move.

use super::{Repo, RepoError, Result};
use crate::codes::Code;
use gix::ObjectId;
use std::process::{Command, Stdio};

/// The refs a remote advertises.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Advertised {
    /// Every advertised commit id (branches and tags), deduplicated.
    pub tips: Vec<ObjectId>,
    /// The tip of the remote's default branch (its `HEAD`), if any.
    pub default_tip: Option<ObjectId>,
    /// The full name of the remote's default branch, when its `HEAD` is
    /// symbolic (`refs/heads/main`).
    pub default_ref: Option<String>,
}

/// Parse `git ls-remote --symref` output.
pub fn parse(output: &str) -> Advertised {
    let mut advertised = Advertised::default();
    let mut head_target: Option<String> = None;
    let mut by_name: Vec<(String, ObjectId)> = Vec::new();
    for line in output.lines() {
        if let Some(rest) = line.strip_prefix("ref: ") {
            if let Some((target, name)) = rest.split_once('\t')
                && name == "HEAD"
            {
                head_target = Some(target.to_string());
            }
            continue;
        }
        let Some((id, name)) = line.split_once('\t') else {
            continue;
        };
        let Ok(id) = ObjectId::from_hex(id.trim().as_bytes()) else {
            continue;
        };
        by_name.push((name.trim_end_matches("^{}").to_string(), id));
    }
    advertised.default_tip = match &head_target {
        Some(target) => by_name.iter().find(|(n, _)| n == target).map(|(_, id)| *id),
        None => by_name.iter().find(|(n, _)| n == "HEAD").map(|(_, id)| *id),
    };
    advertised.default_ref = head_target;
    let mut tips: Vec<ObjectId> = by_name.into_iter().map(|(_, id)| id).collect();
    tips.sort();
    tips.dedup();
    advertised.tips = tips;
    advertised
}

/// Ask `place` (a remote name or URL) for its refs.
pub fn advertised(repo: &Repo, place: &str) -> Result<Advertised> {
    let output = Command::new("git")
        .arg("--git-dir")
        .arg(repo.git_dir())
        .args(["ls-remote", "--symref", "--", place])
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| {
            RepoError::new(
                Code::push_base_unknown,
                format!("cannot run `git ls-remote {place}`: {e}"),
            )
        })?;
    if !output.status.success() {
        return Err(RepoError::new(
            Code::push_base_unknown,
            format!(
                "`git ls-remote {place}` failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ),
        ));
    }
    Ok(parse(&String::from_utf8_lossy(&output.stdout)))
}

/// Make sure `refs/remotes/<remote>/<branch>` is here, fetching the branch
/// through git when the clone lacks it (a CI clone of a merge request's
/// source has no target branch).
pub fn fetch_branch(repo: &Repo, remote: &str, branch: &str) -> Result<()> {
    let tracking = format!("refs/remotes/{remote}/{branch}");
    if repo.resolve_commit(&tracking).is_ok() {
        return Ok(());
    }
    let fix = format!("fetch it before the gate: `git fetch {remote} {branch}`");
    let output = Command::new("git")
        .arg("--git-dir")
        .arg(repo.git_dir())
        .args(["fetch", "--quiet", "--no-tags", remote])
        .arg(format!("+refs/heads/{branch}:{tracking}"))
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| {
            RepoError::new(
                Code::git_revision_unknown,
                format!("cannot run `git fetch` for the target branch {branch}: {e}; {fix}"),
            )
        })?;
    if !output.status.success() {
        return Err(RepoError::new(
            Code::git_revision_unknown,
            format!(
                "the clone lacks the target branch {branch} and `git fetch {remote}` failed ({}); {fix}",
                String::from_utf8_lossy(&output.stderr).trim()
            ),
        ));
    }
    Ok(())
}

/// The default branches of this clone's remotes as the clone last saw them
/// (`refs/remotes/<remote>/HEAD`, else `<remote>/main`, else
/// `<remote>/master`): history the local modes treat as landed. Local
/// remote-tracking refs are anyone's to move, so only the local hooks use
/// them, and only to judge less, never to decide a verdict that counts.
pub fn local_default_tips(repo: &Repo) -> Vec<ObjectId> {
    let mut tips = Vec::new();
    for name in repo.gix().remote_names() {
        for branch in ["HEAD", "main", "master"] {
            let reference = format!("refs/remotes/{name}/{branch}");
            let Ok(Some(found)) = repo.reference(&reference) else {
                continue;
            };
            if let Some(id) = found.id {
                if repo.has_commit(id) && !tips.contains(&id) {
                    tips.push(id);
                }
                break;
            }
        }
    }
    tips
}

/// The default branch as this clone knows it: its name and tip. The first
/// remote whose `refs/remotes/<remote>/HEAD` names a branch (`git clone`
/// and `git remote set-head` write it), else a remote's `main` or
/// `master`, else (no remote knows one) the local `main` or `master`.
/// `None` when nothing names one. Like [`local_default_tips`], local
/// knowledge anyone can move: the local hooks use it only to judge less
/// (whether a commit lands on the default branch; whether a spec landed).
pub fn local_default_branch(repo: &Repo) -> Option<(String, ObjectId)> {
    let tip = |reference: &str| -> Option<ObjectId> {
        let id = repo.reference(reference).ok().flatten()?.id?;
        repo.has_commit(id).then_some(id)
    };
    let names: Vec<String> = repo
        .gix()
        .remote_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    for name in &names {
        let head = format!("refs/remotes/{name}/HEAD");
        let Ok(Some(found)) = repo.reference(&head) else {
            continue;
        };
        if let Some(target) = found.symbolic {
            let prefix = format!("refs/remotes/{name}/");
            if let Some(branch) = target.strip_prefix(&prefix)
                && let Some(id) = tip(&target)
            {
                return Some((branch.to_string(), id));
            }
        }
    }
    for name in &names {
        for branch in ["main", "master"] {
            if let Some(id) = tip(&format!("refs/remotes/{name}/{branch}")) {
                return Some((branch.to_string(), id));
            }
        }
    }
    for branch in ["main", "master"] {
        if let Some(id) = tip(&format!("refs/heads/{branch}")) {
            return Some((branch.to_string(), id));
        }
    }
    None
}

impl Advertised {
    /// The target of a new branch or tag: the remote's default branch as
    /// it is now (none for an empty remote). A default branch whose tip
    /// this clone lacks is no target at all: judging without it would take
    /// the policy from nowhere, so it is an error.
    pub fn default_target(&self, repo: &Repo) -> Result<Option<ObjectId>> {
        let Some(default) = self.default_tip else {
            return Ok(None);
        };
        if !repo.has_commit(default) {
            return Err(RepoError::new(
                Code::push_base_unknown,
                format!(
                    "the remote's default branch is at {default}, which this clone does not have, so the new branch's target (and the policy judging it) is unknown; fetch first (`git fetch`), then push again"
                ),
            ));
        }
        Ok(Some(default))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symref_output() {
        let a = "1111111111111111111111111111111111111111";
        let b = "2222222222222222222222222222222222222222";
        let out = format!(
            "ref: refs/heads/trunk\tHEAD\n{b}\tHEAD\n{a}\trefs/heads/feature\n{b}\trefs/heads/trunk\n{a}\trefs/tags/v1^{{}}\n"
        );
        let parsed = parse(&out);
        assert_eq!(
            parsed.default_tip.map(|i| i.to_string()),
            Some(b.to_string())
        );
        assert_eq!(parsed.tips.len(), 2);
        assert_eq!(parse(""), Advertised::default());
    }
}
