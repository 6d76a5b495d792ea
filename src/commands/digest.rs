//! `mastermind-hooks digest`: print the tree digest of a view (tree-v2 by
//! default, `--digest-version 1` for tree-v1), the value a tree receipt's
//! `tree_after` must equal for the receipt to be current there.

use crate::codes::Code;
use crate::commands::emit;
use crate::config::{CONFIG_PATH, Config, MAX_CONFIG_BYTES};
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::digest::TreeDigester;
use crate::gate::landing::config::config_from;
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

/// A computed digest and what it took.
struct Computed {
    digest: String,
    label: String,
    files: usize,
    bytes_hashed: u64,
    cache_hits: usize,
}

/// Why no digest was printed.
enum Failure {
    Repo(RepoError),
    /// The view's configuration (which decides the agent files) is invalid.
    Config(Vec<Diagnostic>),
}

fn compute(target: &Target, use_cache: bool, version: u32) -> Result<Computed, Failure> {
    let cwd = std::env::current_dir().map_err(|e| {
        Failure::Repo(RepoError::new(
            Code::git_repository_unavailable,
            format!("no current directory: {e}"),
        ))
    })?;
    let repo = Repo::discover(&cwd).map_err(Failure::Repo)?;
    // The index's checksum is verified on its own thread while the view is
    // read and digested, and waited for before any digest is given: a
    // digest of an index whose checksum does not hold is no digest.
    repo.defer_index_checksums();
    let computed = compute_in(&repo, target, use_cache, version);
    repo.settle_index_checksums().map_err(Failure::Repo)?;
    computed
}

fn compute_in(
    repo: &Repo,
    target: &Target,
    use_cache: bool,
    version: u32,
) -> Result<Computed, Failure> {
    let view = match target {
        Target::Staged => View::from_index(repo),
        Target::Worktree => View::from_worktree(repo),
        Target::Rev(rev) => {
            let commit = repo.resolve_commit(rev).map_err(Failure::Repo)?;
            if version == 2 {
                // A commit's tree is digested directly (no flat list).
                let tree = repo.commit_tree(commit).map_err(Failure::Repo)?;
                let config = config_of_tree(repo, tree)?;
                let mut digester = TreeDigester::new(repo, &config, use_cache);
                let digest = digester.of_tree(tree).map_err(Failure::Repo)?;
                let stats = digester.stats();
                return Ok(Computed {
                    digest,
                    label: format!("commit {}", crate::repo::tree::short(commit)),
                    files: stats.files,
                    bytes_hashed: stats.bytes_hashed,
                    cache_hits: stats.cache_hits,
                });
            }
            View::from_commit(repo, commit)
        }
    };
    let view = view.map_err(Failure::Repo)?;
    let config = config_from(repo, &view).map_err(Failure::Config)?;
    let mut digester = TreeDigester::new(repo, &config, use_cache);
    let digest = if version == 1 {
        digester.of_view_v1(&view)
    } else {
        digester.of_view(&view)
    }
    .map_err(Failure::Repo)?;
    let stats = digester.stats();
    Ok(Computed {
        digest,
        label: view.label.clone(),
        files: stats.files,
        bytes_hashed: stats.bytes_hashed,
        cache_hits: stats.cache_hits,
    })
}

/// The configuration a commit's tree holds (strict defaults without one).
fn config_of_tree(repo: &Repo, tree: gix::ObjectId) -> Result<Config, Failure> {
    let unavailable = |e: &dyn std::fmt::Display| {
        Failure::Repo(RepoError::new(
            Code::git_object_unavailable,
            format!("cannot read {CONFIG_PATH} from tree {tree}: {e}"),
        ))
    };
    let mut tree = repo.gix().find_tree(tree).map_err(|e| unavailable(&e))?;
    let Some(entry) = tree
        .peel_to_entry_by_path(CONFIG_PATH)
        .map_err(|e| unavailable(&e))?
    else {
        return Ok(Config::strict_defaults());
    };
    let source = format!("{CONFIG_PATH} in tree {}", tree.id);
    if !entry.mode().is_blob() {
        return Err(Failure::Config(vec![Diagnostic::new(
            Code::config_invalid,
            format!("{source} is not a regular file"),
        )]));
    }
    let blob = repo
        .gix()
        .find_blob(entry.object_id())
        .map_err(|e| unavailable(&e))?;
    if blob.data.len() > MAX_CONFIG_BYTES {
        return Err(Failure::Config(vec![Diagnostic::new(
            Code::config_invalid,
            format!(
                "{source} is {} bytes; the limit is {MAX_CONFIG_BYTES}",
                blob.data.len()
            ),
        )]));
    }
    Config::parse(&blob.data, &source).map_err(Failure::Config)
}

pub fn run(target: &Target, use_cache: bool, json: bool, version: u32) -> ExitStatus {
    match compute(target, use_cache, version) {
        Ok(computed) => {
            let text = if json {
                format!(
                    "{}\n",
                    serde_json::json!({
                        "version": 1,
                        "digest_version": format!("tree-v{version}"),
                        "digest": computed.digest,
                        "view": computed.label,
                        "files": computed.files,
                        "bytes_hashed": computed.bytes_hashed,
                        "cache_hits": computed.cache_hits,
                    })
                )
            } else {
                format!(
                    "tree-v{version} {} ({} files, {})\n",
                    computed.digest, computed.files, computed.label
                )
            };
            match emit(&text) {
                Ok(()) => ExitStatus::Pass,
                Err(_) => ExitStatus::CannotCheck,
            }
        }
        Err(Failure::Repo(e)) => {
            eprintln!("error[{}]: {}", e.code.as_str(), e.message);
            ExitStatus::CannotCheck
        }
        Err(Failure::Config(diagnostics)) => {
            for d in diagnostics {
                eprintln!("error[{}]: {}", d.code.as_str(), d.message);
            }
            ExitStatus::CannotCheck
        }
    }
}
