//! Merges as git makes them (DESIGN.md section 5): every merge base and
//! git's own merge algorithm, by running `git merge-tree --write-tree`
//! (git 2.38 or newer) once per pair of commits. git writes the merge's new
//! objects (the result's trees, merged blobs, virtual merge bases) into a
//! scratch object directory outside the repository, reading the
//! repository's own objects (and a pre-receive quarantine) as alternates;
//! they are carried into this process's in-memory object store, so nothing
//! is ever written to the repository.
//!
//! What a merge owns ([`own_changes`]) is what its result makes differ from
//! that merge, plus the paths the merge could not resolve: one routine for
//! committed merges, the pending merge of pre-merge-commit and CI's landing.

use super::changes::{ChangeKind, PathChange};
use super::tree::{Entry, short};
use super::{Repo, RepoError, Result};
use crate::codes::Code;
use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};

/// The first git release with `git merge-tree --write-tree`.
pub const MERGE_TREE_GIT: &str = "2.38";

/// Git's merge of two commits: the tree it writes (conflicted files with
/// their conflict markers) and the paths it could not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merge {
    pub tree: ObjectId,
    pub conflicts: Vec<BString>,
}

fn unavailable(message: String) -> RepoError {
    RepoError::new(Code::git_object_unavailable, message)
}

/// Parse `git merge-tree --write-tree -z --name-only --no-messages` output:
/// the tree id, then the conflicted paths, each NUL-terminated.
fn parse_merge_tree(stdout: &[u8]) -> Option<Merge> {
    let mut fields = stdout.split(|b| *b == 0).filter(|f| !f.is_empty());
    let tree = ObjectId::from_hex(fields.next()?).ok()?;
    let mut conflicts: Vec<BString> = fields.map(BString::from).collect();
    conflicts.sort();
    conflicts.dedup();
    Some(Merge { tree, conflicts })
}

impl Repo {
    /// Git's merge of `ours` and `theirs`, computed once per pair; `None`
    /// when they share no history (or a shallow clone hides it).
    pub fn merge_commits(&self, ours: ObjectId, theirs: ObjectId) -> Result<Option<Merge>> {
        if let Some(done) = self.merges.borrow().get(&(ours, theirs)) {
            return Ok(done.clone());
        }
        let merged = self.compute_merge(ours, theirs)?;
        self.merges
            .borrow_mut()
            .insert((ours, theirs), merged.clone());
        Ok(merged)
    }

    fn compute_merge(&self, ours: ObjectId, theirs: ObjectId) -> Result<Option<Merge>> {
        let whole = |tree| Merge {
            tree,
            conflicts: Vec::new(),
        };
        let our_tree = self.commit_tree(ours)?;
        let their_tree = self.commit_tree(theirs)?;
        // Exact answers git would give without merging anything: one side
        // contains the other (the merge base is that side), or both sides
        // hold the same tree.
        if ours == theirs || our_tree == their_tree {
            return Ok(Some(whole(our_tree)));
        }
        match self.merge_base(ours, theirs)? {
            None => return Ok(None),
            Some(base) if base == ours => return Ok(Some(whole(their_tree))),
            Some(base) if base == theirs => return Ok(Some(whole(our_tree))),
            Some(_) => {}
        }
        self.git_merge_tree(ours, theirs).map(Some)
    }

    /// Run `git merge-tree --write-tree` with its object writes sent to a
    /// scratch directory, and carry the new objects into memory.
    fn git_merge_tree(&self, ours: ObjectId, theirs: ObjectId) -> Result<Merge> {
        let what = format!("the merge of {} and {}", short(ours), short(theirs));
        let scratch = tempfile::Builder::new()
            .prefix("mastermind-hooks-merge-")
            .tempdir()
            .map_err(|e| {
                unavailable(format!("cannot compute {what}: no scratch directory: {e}"))
            })?;
        let objects = scratch.path().join("objects");
        std::fs::create_dir_all(&objects)
            .map_err(|e| unavailable(format!("cannot compute {what}: {e}")))?;
        let alternates = std::env::join_paths(self.object_dirs.iter())
            .map_err(|e| unavailable(format!("cannot compute {what}: {e}")))?;
        let mut command = Command::new("git");
        let names: Vec<std::ffi::OsString> = std::env::vars_os().map(|(name, _)| name).collect();
        for name in crate::process_env::git_local_vars_to_clear(names.iter().map(|n| n.as_os_str()))
        {
            command.env_remove(name);
        }
        command
            .arg("--git-dir")
            .arg(self.git_dir())
            .args([
                "merge-tree",
                "--write-tree",
                "-z",
                "--name-only",
                "--no-messages",
            ])
            .arg(ours.to_string())
            .arg(theirs.to_string())
            .env("GIT_OBJECT_DIRECTORY", &objects)
            .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", &alternates)
            // As the gate itself: replace refs would show git other commits.
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let output = command.output().map_err(|e| {
            super::git_spawn_error(
                &format!("cannot run `git merge-tree` for {what}"),
                &e,
                Code::git_object_unavailable,
            )
        })?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let merged = match output.status.code() {
            Some(0 | 1) => parse_merge_tree(&output.stdout),
            _ => None,
        };
        let Some(merged) = merged else {
            if stderr.contains("write-tree") || output.status.code() == Some(129) {
                return Err(RepoError::new(
                    Code::git_version_unsupported,
                    format!(
                        "computing {what} needs `git merge-tree --write-tree`, which git {MERGE_TREE_GIT} or newer has; install a newer git ({})",
                        stderr.trim()
                    ),
                ));
            }
            return Err(unavailable(format!(
                "`git merge-tree` could not compute {what}: {}",
                stderr.trim()
            )));
        };
        self.adopt_loose_objects(&objects)?;
        Ok(merged)
    }

    /// Read every loose object under `objects` into the in-memory store.
    fn adopt_loose_objects(&self, objects: &Path) -> Result<()> {
        use gix::objs::Write;
        let store = gix::odb::loose::Store::at(objects, self.gix().object_hash());
        let mut buf = Vec::new();
        for id in store.iter() {
            let id =
                id.map_err(|e| unavailable(format!("cannot list the merge's objects: {e}")))?;
            let data = store
                .try_find(&id, &mut buf)
                .map_err(|e| unavailable(format!("cannot read the merge's object {id}: {e}")))?
                .ok_or_else(|| unavailable(format!("the merge's object {id} vanished")))?;
            self.gix()
                .objects
                .write_buf_with_known_id(data.kind, data.data, id)
                .map_err(|e| unavailable(format!("cannot keep the merge's object {id}: {e}")))?;
        }
        Ok(())
    }
}

/// What a two-parent merge owns, given `changes` (its result against its
/// first parent, sorted by path), the first parent's tree, the second
/// parent's tree and git's merge of the two: every path where the result
/// differs from git's merge, and every path git's merge could not resolve
/// (with the first parent's entry as the old one, or where the result kept
/// the first parent's entry, the second parent's). Paths where it took a
/// side as git would are that side's commits' changes.
pub fn own_changes(
    repo: &Repo,
    changes: Vec<PathChange>,
    first: ObjectId,
    second: ObjectId,
    merge: &Merge,
) -> Result<Vec<PathChange>> {
    let incoming: BTreeMap<BString, PathChange> = repo
        .tree_changes(Some(first), Some(merge.tree))?
        .into_iter()
        .map(|c| (c.path.clone(), c))
        .collect();
    let conflicted: HashSet<&BString> = merge.conflicts.iter().collect();
    let mut covered: HashSet<BString> = HashSet::new();
    let mut out = Vec::new();
    for change in changes {
        covered.insert(change.path.clone());
        let merged = match incoming.get(&change.path) {
            Some(i) => i.new,
            None => change.old,
        };
        if conflicted.contains(&change.path) || merged != change.new {
            out.push(change);
        }
    }
    // The result kept the first parent's entry where git's merge changed
    // it: the merge dropped that change.
    for (path, i) in &incoming {
        if covered.contains(path) {
            continue;
        }
        covered.insert(path.clone());
        if let Some(kind) = ChangeKind::between(i.new.as_ref(), i.old.as_ref()) {
            out.push(PathChange {
                path: path.clone(),
                kind,
                old: i.new,
                new: i.old,
            });
        }
    }
    // A conflict resolved to the first parent's entry, where git's merge
    // also left that entry: the merge overrode the second parent's side.
    for path in &merge.conflicts {
        if covered.contains(path) {
            continue;
        }
        let Ok(text) = path.to_str() else {
            continue;
        };
        let theirs: Option<Entry> = repo.tree_entry(second, text)?;
        let ours: Option<Entry> = repo.tree_entry(first, text)?;
        if let Some(kind) = ChangeKind::between(theirs.as_ref(), ours.as_ref()) {
            out.push(PathChange {
                path: path.clone(),
                kind,
                old: theirs,
                new: ours,
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_tree_output_is_a_tree_then_conflicted_paths() {
        let tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        let clean = parse_merge_tree(format!("{tree}\0").as_bytes()).unwrap();
        assert_eq!(clean.tree.to_string(), tree);
        assert!(clean.conflicts.is_empty());
        let conflicted =
            parse_merge_tree(format!("{tree}\0b.txt\0a.txt\0a.txt\0\0").as_bytes()).unwrap();
        assert_eq!(
            conflicted.conflicts,
            [BString::from("a.txt"), BString::from("b.txt")]
        );
        assert_eq!(parse_merge_tree(b""), None);
        assert_eq!(parse_merge_tree(b"not a tree\0"), None);
    }
}
