//! `check --receive`: the gate as a bare repository's pre-receive hook.
//!
//! git runs `pre-receive` once per push, after the objects arrived and
//! before any ref moves, with one `<old> <new> <ref>` line per ref on stdin
//! (githooks(5), "pre-receive"). The pushed objects are still in git's
//! quarantine: `GIT_QUARANTINE_PATH` / `GIT_OBJECT_DIRECTORY` name the
//! incoming directory and `GIT_ALTERNATE_OBJECT_DIRECTORIES` the
//! repository's own store (git-receive-pack(1), "QUARANTINE ENVIRONMENT").
//! Every ref update is judged as `check --push` judges it: the commits from
//! the ref's old tip (for a new ref, the newest commit of the default branch
//! it contains) to the new tip, with the configuration of that base.
//! Nothing is written to the repository: objects are read through a
//! temporary object directory outside it whose alternates are the
//! quarantine and the store, and no cache is kept. Findings go to stderr,
//! which git relays to the pusher as `remote:` lines; a non-zero exit
//! rejects the whole push. `MASTERMIND_HOOKS_SKIP` is never read here.

use super::destination::{Destination, branch_of_ref};
use super::judge::{Collected, judge};
use super::push::Update;
use super::{ViewKind, is_zero};
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::repo::tree::short;
use crate::repo::{Repo, RepoError};
use gix::ObjectId;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One line of git's pre-receive input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefUpdate {
    pub old: String,
    pub new: String,
    pub name: String,
}

/// What a ref update asks the gate to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// Judge the update of the ref from `old` (none: a new ref) to `tip`.
    Judge {
        old: Option<ObjectId>,
        tip: ObjectId,
    },
    /// Lands no code: a deletion, or a ref outside branches and tags.
    Skip(String),
    /// A tag of a tree or a blob: no commit, so no task.
    NotACommit,
    /// Refused without judging commits: a rewrite of the default branch.
    Refuse(String),
}

fn valid_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Parse git's `<old> <new> <ref>` lines; anything else is a usage error.
pub fn parse(input: &str) -> Result<Vec<RefUpdate>, Diagnostic> {
    let mut updates = Vec::new();
    for (number, line) in input.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(' ').collect();
        if fields.len() != 3 || !valid_id(fields[0]) || !valid_id(fields[1]) || fields[2].is_empty()
        {
            return Err(Diagnostic::new(
                Code::usage_invalid,
                format!(
                    "pre-receive input line {} is not `<old id> <new id> <ref>`: {line:?}",
                    number + 1
                ),
            ));
        }
        updates.push(RefUpdate {
            old: fields[0].to_string(),
            new: fields[1].to_string(),
            name: fields[2].to_string(),
        });
    }
    Ok(updates)
}

fn id(hex: &str) -> Result<ObjectId, RepoError> {
    ObjectId::from_hex(hex.as_bytes())
        .map_err(|e| RepoError::new(Code::usage_invalid, format!("`{hex}` is no object id: {e}")))
}

/// Decide what to judge for one update. `default_ref` is the default
/// branch (the bare repository's HEAD).
pub fn judgement(
    repo: &Repo,
    update: &RefUpdate,
    default_ref: Option<&str>,
) -> Result<Judgement, RepoError> {
    if is_zero(&update.new) {
        return Ok(Judgement::Skip(format!(
            "{}: deleted, which lands no code",
            update.name
        )));
    }
    if !update.name.starts_with("refs/heads/") && !update.name.starts_with("refs/tags/") {
        return Ok(Judgement::Skip(format!(
            "{}: not a branch or tag, not judged",
            update.name
        )));
    }
    let Some(tip) = repo.commit_of(&update.new)? else {
        return Ok(Judgement::NotACommit);
    };
    let old = if is_zero(&update.old) {
        None
    } else {
        let old = id(&update.old)?;
        // Judging only the new commits of a forced update would let it drop
        // landed work unseen: the default branch only moves forward.
        if default_ref == Some(update.name.as_str()) && !repo.is_ancestor(old, tip)? {
            return Ok(Judgement::Refuse(format!(
                "{} is the default branch and {} does not contain its tip {}: a forced update would drop work that has landed; merge or rebase onto {} and push without --force",
                update.name,
                short(tip),
                short(old),
                short(old)
            )));
        }
        Some(old)
    };
    Ok(Judgement::Judge { old, tip })
}

/// The object directories of a pre-receive hook: the quarantine (or
/// `GIT_OBJECT_DIRECTORY`), then every `GIT_ALTERNATE_OBJECT_DIRECTORIES`
/// entry, then the repository's own store.
pub fn object_directories(
    quarantine: Option<&str>,
    object_directory: Option<&str>,
    alternates: Option<&str>,
    own: &Path,
) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut add = |p: PathBuf| {
        if !p.as_os_str().is_empty() && !dirs.contains(&p) {
            dirs.push(p);
        }
    };
    if let Some(dir) = object_directory.or(quarantine) {
        add(PathBuf::from(dir));
    }
    if let Some(list) = alternates {
        for entry in list.split(':') {
            add(PathBuf::from(entry.trim_matches('"')));
        }
    }
    add(own.to_path_buf());
    dirs
}

/// The repository reading objects through a temporary object directory
/// (outside the repository) whose alternates are `dirs`. The directory
/// lives as long as the returned guard.
fn with_quarantine(repo: Repo, dirs: &[PathBuf]) -> Result<(Repo, tempfile::TempDir), RepoError> {
    let unusable = |e: std::io::Error| {
        RepoError::new(
            Code::git_object_unavailable,
            format!("cannot set up reading the pushed objects: {e}"),
        )
    };
    let scratch = tempfile::Builder::new()
        .prefix("mastermind-hooks-receive-")
        .tempdir()
        .map_err(unusable)?;
    let objects = scratch.path().join("objects");
    std::fs::create_dir_all(objects.join("info")).map_err(unusable)?;
    let cwd = std::env::current_dir().map_err(unusable)?;
    let absolute: Vec<PathBuf> = dirs
        .iter()
        .map(|d| {
            if d.is_absolute() {
                d.clone()
            } else {
                cwd.join(d)
            }
        })
        .collect();
    let lines: String = absolute
        .iter()
        .map(|d| format!("{}\n", d.display()))
        .collect();
    std::fs::write(objects.join("info/alternates"), lines).map_err(unusable)?;
    let hash = repo.gix().object_hash();
    let handle = gix::odb::at(&objects, hash).map_err(unusable)?;
    Ok((repo.with_object_store(handle.into(), absolute), scratch))
}

fn judge_all(repo: &Repo, updates: &[RefUpdate], out: &mut Collected) -> Result<(), RepoError> {
    let default_tip = repo.head_commit()?;
    let default_ref = repo.head_ref_name();
    // Only the protected side is landed history: the default branch and
    // the updated ref's own old tip. Commits other refs already name (a
    // feature branch, a ref outside `refs/heads/` that was never judged)
    // are judged again when they come to this ref.
    let pushers = crate::gate::identity::server::pushers_from_process();
    for update in updates {
        match judgement(repo, update, default_ref.as_deref())? {
            Judgement::Skip(why) => {
                out.note(Diagnostic::new(Code::receive_ref_skipped, why));
            }
            Judgement::Refuse(why) => {
                out.note(Diagnostic::new(Code::default_branch_rewritten, why));
            }
            Judgement::NotACommit => out.note(super::not_a_commit(&update.name, &update.new)),
            Judgement::Judge { old, tip } => {
                let label = match old {
                    Some(old) => format!("{} ({}..{})", update.name, short(old), short(tip)),
                    None => format!("{} (new, {})", update.name, short(tip)),
                };
                // Judged from objects alone, like CI: no sha256 cache (it
                // would be written into the repository) and no comparison
                // with executables on this machine.
                let change = Update::new(
                    repo,
                    old,
                    tip,
                    default_tip,
                    default_ref.as_deref() == Some(update.name.as_str()),
                    Some(
                        update
                            .name
                            .strip_prefix("refs/heads/")
                            .unwrap_or(&update.name)
                            .to_string(),
                    ),
                    label,
                )?;
                let mut landing = change.landing(repo, ViewKind::Receive)?;
                // Who the server says pushed, and the default branch as it
                // was before the push (crate::gate::identity).
                landing.identity.pushers = pushers.clone();
                landing.identity.protected = default_tip;
                // As pre-push: where the update lands, beside the default
                // branch (the repository's HEAD). Where HEAD names a
                // branch that does not exist, no default branch is known:
                // strict unless a pattern decides.
                landing.destination = branch_of_ref(&update.name).map(|branch| {
                    let default = default_ref
                        .as_deref()
                        .filter(|_| default_tip.is_some())
                        .and_then(branch_of_ref)
                        .map(str::to_string);
                    Destination::branch(branch, default)
                });
                judge(repo, &landing, out);
            }
        }
    }
    Ok(())
}

/// Judge every ref update of stdin's lines, reading the pushed objects
/// through git's quarantine.
pub fn check(out: &mut Collected) {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        out.note(Diagnostic::new(
            Code::usage_invalid,
            format!("cannot read git's pre-receive lines from stdin: {e}"),
        ));
        return;
    }
    let result = parse(&input).map_err(|d| vec![d]).and_then(|updates| {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let repo = Repo::discover(&cwd).map_err(|e| vec![e.to_diagnostic()])?;
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let own = repo.gix().common_dir().join("objects");
        let dirs = object_directories(
            var("GIT_QUARANTINE_PATH").as_deref(),
            var("GIT_OBJECT_DIRECTORY").as_deref(),
            var("GIT_ALTERNATE_OBJECT_DIRECTORIES").as_deref(),
            &own,
        );
        if dirs.len() == 1 {
            // Not run by git (no quarantine): every object is in the store.
            return judge_all(&repo, &updates, out).map_err(|e| vec![e.to_diagnostic()]);
        }
        let (repo, _scratch) = with_quarantine(repo, &dirs).map_err(|e| vec![e.to_diagnostic()])?;
        judge_all(&repo, &updates, out).map_err(|e| vec![e.to_diagnostic()])
    });
    if let Err(diagnostics) = result {
        for d in diagnostics {
            out.note(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_lines_parse_and_garbage_is_refused() {
        let zero = "0".repeat(40);
        let one = "1".repeat(40);
        let updates = parse(&format!(
            "{zero} {one} refs/heads/a\n\n{one} {zero} refs/tags/v1\n"
        ))
        .unwrap();
        assert_eq!(updates.len(), 2);
        assert_eq!(updates[0].name, "refs/heads/a");
        assert!(parse("abc def refs/heads/a\n").is_err());
        assert!(parse(&format!("{one} {one}\n")).is_err());
        assert!(parse(&format!("{one} {one} refs/heads/a extra\n")).is_err());
    }

    #[test]
    fn quarantine_first_then_alternates_then_the_store() {
        let dirs = object_directories(
            Some("/r/objects/incoming-x"),
            Some("/r/objects/incoming-x"),
            Some("/r/objects:\"/other/objects\""),
            Path::new("/r/objects"),
        );
        assert_eq!(
            dirs,
            [
                PathBuf::from("/r/objects/incoming-x"),
                PathBuf::from("/r/objects"),
                PathBuf::from("/other/objects"),
            ]
        );
        assert_eq!(
            object_directories(None, None, None, Path::new("/r/objects")),
            [PathBuf::from("/r/objects")]
        );
    }
}
