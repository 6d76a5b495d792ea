//! `mastermind-hooks digest`: print the tree-v1 digest of a view, the value a
//! tree receipt's `tree_after` must equal for the receipt to be current there.

use crate::codes::Code;
use crate::commands::emit;
use crate::diagnostic::ExitStatus;
use crate::digest::cache::Sha256Cache;
use crate::digest::view::{Computed, of_view};
use crate::repo::tree::View;
use crate::repo::{Repo, RepoError};

/// Which view to digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The index git would commit.
    Staged,
    /// Tracked and non-ignored untracked files on disk.
    Worktree,
    /// A commit's tree.
    Rev(String),
}

fn compute(target: &Target, use_cache: bool) -> Result<(String, Computed), RepoError> {
    let cwd = std::env::current_dir().map_err(|e| {
        RepoError::new(
            Code::git_repository_unavailable,
            format!("no current directory: {e}"),
        )
    })?;
    let repo = Repo::discover(&cwd)?;
    let view = match target {
        Target::Staged => View::from_index(&repo)?,
        Target::Worktree => View::from_worktree(&repo)?,
        Target::Rev(rev) => View::from_commit(&repo, repo.resolve_commit(rev)?)?,
    };
    let mut cache = if use_cache {
        Sha256Cache::open(&repo)
    } else {
        None
    };
    let computed = of_view(&repo, &view, cache.as_mut())?;
    if let Some(cache) = cache.as_mut() {
        cache.save();
    }
    Ok((view.label.clone(), computed))
}

pub fn run(target: &Target, use_cache: bool, json: bool) -> ExitStatus {
    match compute(target, use_cache) {
        Ok((label, computed)) => {
            let text = if json {
                format!(
                    "{}\n",
                    serde_json::json!({
                        "version": 1,
                        "digest_version": "tree-v1",
                        "digest": computed.digest,
                        "view": label,
                        "files": computed.files,
                        "bytes_hashed": computed.bytes_hashed,
                        "cache_hits": computed.cache_hits,
                    })
                )
            } else {
                format!(
                    "tree-v1 {} ({} files, {label})\n",
                    computed.digest, computed.files
                )
            };
            match emit(&text) {
                Ok(()) => ExitStatus::Pass,
                Err(_) => ExitStatus::CannotCheck,
            }
        }
        Err(e) => {
            eprintln!("error[{}]: {}", e.code.as_str(), e.message);
            ExitStatus::CannotCheck
        }
    }
}
