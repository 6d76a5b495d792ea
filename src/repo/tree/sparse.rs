//! A sparse index (`git sparse-checkout set --sparse-index`, or
//! `index.sparse = true`) written out whole.
//!
//! Outside a sparse checkout's cone, a sparse index keeps one entry per
//! directory: its mode `040000`, its object id the directory's tree, and
//! the skip-worktree flag. What git commits there is that tree's files, so
//! the gate reads the index as git itself does whenever it needs every
//! path (`ensure_full_index`): each directory entry is replaced by the
//! files of its tree, skip-worktree like it. The index's cached trees are
//! dropped with it, since their entry counts describe the sparse form;
//! views that would lean on them are then built from the entries alone.

use crate::codes::Code;
use crate::repo::{Repo, RepoError, Result};
use gix::ObjectId;
use gix::bstr::{BStr, BString};
use gix::index::entry::{Flags, Mode, Stat};

/// True when the index holds a directory entry.
pub(super) fn is_sparse(index: &gix::index::State) -> bool {
    index.entries().iter().any(|e| e.mode.is_sparse())
}

/// `index` with every directory entry replaced by its tree's files.
pub(super) fn expand(repo: &Repo, index: &mut gix::index::State) -> Result<()> {
    let directories: Vec<(BString, ObjectId)> = index
        .entries()
        .iter()
        .filter(|e| e.mode.is_sparse())
        .map(|e| (e.path(index).to_owned(), e.id))
        .collect();
    index.remove_entries(|_, _, entry| entry.mode.is_sparse());
    for (directory, tree) in directories {
        let mut prefix = directory;
        if !prefix.ends_with(b"/") {
            prefix.push(b'/');
        }
        push_tree(repo, index, &mut prefix, tree)?;
    }
    index.sort_entries();
    index.remove_tree();
    Ok(())
}

/// Push the files of `tree`, found at `prefix` (ending in `/`).
fn push_tree(
    repo: &Repo,
    index: &mut gix::index::State,
    prefix: &mut BString,
    tree: ObjectId,
) -> Result<()> {
    let at = prefix.clone();
    let unavailable = |e: &dyn std::fmt::Display| {
        RepoError::new(
            Code::git_object_unavailable,
            format!(
                "the sparse index names tree {tree} for `{at}`, which cannot be read ({e}); fetch it, or write the index whole (`git config index.sparse false && git sparse-checkout reapply`)"
            ),
        )
    };
    let object = repo.gix().find_tree(tree).map_err(|e| unavailable(&e))?;
    let data = object.detach().data;
    let start = prefix.len();
    for entry in gix::objs::TreeRefIter::from_bytes(&data, tree.kind()) {
        let entry = entry.map_err(|e| unavailable(&e))?;
        prefix.truncate(start);
        prefix.extend_from_slice(entry.filename);
        use gix::objs::tree::EntryKind;
        let mode = match entry.mode.kind() {
            EntryKind::Tree => {
                prefix.push(b'/');
                push_tree(repo, index, prefix, entry.oid.to_owned())?;
                continue;
            }
            EntryKind::Blob => Mode::FILE,
            EntryKind::BlobExecutable => Mode::FILE_EXECUTABLE,
            EntryKind::Link => Mode::SYMLINK,
            EntryKind::Commit => Mode::COMMIT,
        };
        let path: &BStr = prefix.as_ref();
        index.dangerously_push_entry(
            Stat::default(),
            entry.oid.to_owned(),
            Flags::SKIP_WORKTREE | Flags::EXTENDED,
            mode,
            path,
        );
    }
    prefix.truncate(start);
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::repo::Repo;
    use crate::repo::test_git::{git, repository_with};
    use crate::repo::tree::View;

    #[test]
    fn a_sparse_index_reads_as_the_same_index_written_whole() {
        let dir = repository_with(&[
            ("src/a.py", "a\n"),
            ("docs/guide/intro.md", "intro\n"),
            ("docs/guide/deep/more.md", "more\n"),
            ("docs/readme.md", "readme\n"),
            ("tools/run.sh", "run\n"),
        ]);
        let root = dir.path();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "one"]);
        let whole = |root: &std::path::Path| {
            let repo = Repo::discover(root).unwrap();
            let view = View::from_index(&repo).unwrap();
            view.entries()
                .map(|(path, e)| (path.to_vec(), e.mode, e.oid))
                .collect::<Vec<_>>()
        };
        let full = whole(root);
        git(root, &["sparse-checkout", "set", "--sparse-index", "src"]);
        let listed = git(root, &["ls-files", "--sparse"]);
        assert!(
            listed.contains("docs/\n"),
            "git wrote a sparse index: {listed}"
        );
        assert_eq!(whole(root), full);
        // The working tree: the files outside the cone are the index's.
        let repo = Repo::discover(root).unwrap();
        let worktree = View::from_worktree(&repo).unwrap();
        let on_disk: Vec<_> = worktree
            .entries()
            .map(|(path, e)| (path.to_vec(), e.mode, e.oid))
            .collect();
        assert_eq!(on_disk, full);
    }
}
