//! Where a re-run and an isolated run execute the checks: **where the
//! project really runs**.
//!
//! * [`Place::workspace`]: the repository's own working tree, when it is a
//!   clean checkout whose tree is exactly the landing (a CI job's checkout of
//!   GitHub's merge ref, a push's commit, GitLab's merged-results commit),
//!   after the job's own steps installed the project's dependencies into its
//!   ignored directories. Clean means `git status` shows nothing: no tracked
//!   change, no untracked file that is not ignored.
//! * [`Place::worktree`]: anywhere else, a real git worktree of the landing in
//!   a private temporary directory: the files are written from their blobs by
//!   [`Checkout`] (no link followed, no `.git` path written, modes kept,
//!   submodule checkouts copied), then a repository is made around them whose
//!   objects are the project's own (an alternate object store, nothing is
//!   written to the project's repository), whose index is the landing's, and
//!   whose `HEAD` is a commit of the landing tree (the head commit itself
//!   when its tree is the landing, else a commit of that tree on top of it),
//!   with the project's branches, tags and remote-tracking refs mirrored. So
//!   `git ls-files`, `git diff --exit-code`, `git describe` and `git log` work
//!   in a check as they do in a clone. Attributes are neutralised in that
//!   repository (`* -text -filter -ident`), so its files are byte for byte
//!   the blobs the tree digest names.
//!
//! Either way the place can say afterwards whether a check changed the
//! files of the landing ([`Place::verify`]).

use super::checkout::{self, Checkout};
use super::snapshot::Changes;
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::process_env::clear_inherited_git_vars;
use crate::repo::Repo;
use crate::repo::tree::{EntryMode, View, short};
use gix::ObjectId;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;

/// Which kind of place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The repository's own working tree.
    Workspace,
    /// A temporary git worktree of the landing.
    Worktree,
}

impl Kind {
    /// `workspace` or `worktree` (the attestation's and the notes' word).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Workspace => "workspace",
            Kind::Worktree => "worktree",
        }
    }
}

/// Where checks run.
#[derive(Debug)]
pub struct Place {
    kind: Kind,
    /// Canonical root the checks' cwd is below.
    root: PathBuf,
    /// The landing's tree.
    tree: ObjectId,
    /// The commit `HEAD` names there.
    commit: ObjectId,
    /// For a worktree: its files, removed with it.
    checkout: Option<Checkout>,
}

fn failed(message: String) -> Diagnostic {
    Diagnostic::new(Code::verification_isolation_failed, message)
}

/// A git command with no repository-local variable of the hook or job
/// inherited.
fn git(cwd: &Path) -> Command {
    let mut command = Command::new("git");
    // No hook of the user's configuration runs for the gate's own commands
    // (`update-ref` would run a reference-transaction hook).
    command
        .current_dir(cwd)
        .args(["-c", "core.hooksPath=/dev/null"]);
    clear_inherited_git_vars(&mut command);
    command.env("GIT_TERMINAL_PROMPT", "0");
    command
}

/// Why a place for the checks could not be had (the workspace is not a
/// clean checkout of the landing, git failed, a file could not be written):
/// the text a note or an error shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaceError(pub String);

impl std::fmt::Display for PlaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlaceError {}

impl From<String> for PlaceError {
    fn from(why: String) -> Self {
        PlaceError(why)
    }
}

/// Run `command` with `input` on stdin; its stdout, or the failure named.
fn output(mut command: Command, input: Option<&[u8]>, what: &str) -> Result<Vec<u8>, PlaceError> {
    command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start git for {what}: {e}"))?;
    let writer = match (input, child.stdin.take()) {
        (Some(bytes), Some(mut pipe)) => {
            let bytes = bytes.to_vec();
            Some(std::thread::spawn(move || pipe.write_all(&bytes)))
        }
        _ => None,
    };
    let out = child
        .wait_with_output()
        .map_err(|e| format!("git for {what} failed: {e}"))?;
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(PlaceError(format!(
            "git for {what} failed ({}): {}",
            out.status,
            super::echo::escape(String::from_utf8_lossy(&out.stderr).trim().as_bytes())
        )))
    }
}

/// `git status` of a working tree, as changes of its tracked files (and,
/// with `untracked`, the untracked files that are not ignored).
fn status(root: &Path, untracked: bool) -> Result<Changes, PlaceError> {
    let mut command = git(root);
    command.args([
        "--no-optional-locks",
        "status",
        "--porcelain=v1",
        "-z",
        "--ignore-submodules=none",
    ]);
    command.arg(if untracked {
        "--untracked-files=normal"
    } else {
        "--untracked-files=no"
    });
    let out = output(command, None, "the status of the workspace")?;
    let mut changes = Changes::default();
    let mut records = out.split(|&b| b == 0).filter(|r| !r.is_empty());
    while let Some(record) = records.next() {
        if record.len() < 4 {
            continue;
        }
        let (code, path) = (&record[..2], super::echo::escape(&record[3..]));
        match code {
            b"??" => changes.appeared.push(path),
            [_, b'D'] | [b'D', _] => changes.vanished.push(path),
            _ => changes.changed.push(path),
        }
        // A rename or copy names its source next.
        if code[0] == b'R' || code[0] == b'C' {
            records.next();
        }
    }
    Ok(changes)
}

impl Place {
    /// The repository's working tree, when it is a clean checkout of exactly
    /// `tree`; else why not (for the note that says where the checks ran).
    pub fn workspace(repo: &Repo, tree: ObjectId) -> Result<Place, PlaceError> {
        let root = repo
            .workdir()
            .and_then(|w| std::fs::canonicalize(w).ok())
            .ok_or_else(|| "the repository has no working tree".to_string())?;
        let head = repo
            .head_commit()
            .ok()
            .flatten()
            .ok_or_else(|| "the working tree has no commit checked out".to_string())?;
        let head_tree = repo.commit_tree(head).map_err(|e| e.message)?;
        if head_tree != tree {
            return Err(PlaceError(format!(
                "the working tree is checked out at {}, whose tree is not the landing's",
                short(head)
            )));
        }
        let changes = status(&root, true)?;
        if !changes.is_empty() {
            return Err(PlaceError(format!(
                "the working tree is not clean ({}); ignore what the job's setup writes, or let the gate use a worktree",
                changes.describe()
            )));
        }
        Ok(Place {
            kind: Kind::Workspace,
            root,
            tree,
            commit: head,
            checkout: None,
        })
    }

    /// A git worktree of `view` (whose tree is `tree` when known) in a
    /// private temporary directory, its `HEAD` a commit of that tree on
    /// `parent` (or `parent` itself when its tree is the view's); submodule
    /// checkouts are looked for under `worktree`.
    pub fn worktree(
        repo: &Repo,
        view: &View,
        tree: Option<ObjectId>,
        parent: Option<ObjectId>,
        worktree: Option<&Path>,
        interrupt: &AtomicBool,
    ) -> Result<Place, Diagnostic> {
        let checkout = Checkout::materialize(repo, view, worktree, interrupt).map_err(
            |failure| match failure {
                checkout::Failure::Interrupted => failed(format!(
                    "interrupted while writing a worktree of {}",
                    view.label
                )),
                checkout::Failure::Refused(d) => d,
            },
        )?;
        let root = checkout.root().to_path_buf();
        let made = make_repository(repo, view, &root, tree, parent).map_err(|why| {
            failed(format!(
                "cannot make a git worktree of {} in {}: {why}",
                view.label,
                root.display()
            ))
        })?;
        Ok(Place {
            kind: Kind::Worktree,
            root,
            tree: made.0,
            commit: made.1,
            checkout: Some(checkout),
        })
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The canonical root the checks run below.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The landing's tree.
    pub fn tree(&self) -> ObjectId {
        self.tree
    }

    /// The commit `HEAD` names there.
    pub fn commit(&self) -> ObjectId {
        self.commit
    }

    /// Where git in a check stops looking for a repository: above a
    /// worktree (never the project's own); nothing for the workspace.
    pub fn ceiling(&self) -> Option<&Path> {
        match self.kind {
            Kind::Worktree => self.root.parent(),
            Kind::Workspace => None,
        }
    }

    /// For messages: `the CI workspace` or `a worktree of ...`.
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Workspace => format!("the workspace ({})", self.root.display()),
            Kind::Worktree => format!("a worktree of the landing ({})", short(self.commit)),
        }
    }

    /// Which files of the landing a check changed or removed (files it
    /// added do not count). A workspace that can no longer be inspected
    /// counts as changed.
    pub fn verify(&self) -> Changes {
        match (&self.checkout, self.kind) {
            (Some(checkout), _) => checkout.verify(),
            (None, _) => match status(&self.root, false) {
                Ok(changes) => changes,
                Err(why) => Changes {
                    changed: vec![format!("(the workspace cannot be inspected: {why})")],
                    ..Changes::default()
                },
            },
        }
    }

    /// Remove a worktree now (it is removed on drop anyway); the workspace
    /// stays.
    pub fn remove(self) {
        if let Some(checkout) = self.checkout {
            checkout.remove();
        }
    }
}

/// The objects directory of `repo`.
fn objects_dir(repo: &Repo) -> PathBuf {
    repo.gix().objects.store_ref().path().to_path_buf()
}

/// Make `root` (already holding the view's files) a git repository whose
/// index is the view and whose `HEAD` is a commit of its tree; the tree and
/// the commit.
fn make_repository(
    repo: &Repo,
    view: &View,
    root: &Path,
    expected: Option<ObjectId>,
    parent: Option<ObjectId>,
) -> Result<(ObjectId, ObjectId), PlaceError> {
    // The project's object format and reference store: the landing's ids
    // are its ids, and a check sees the kind of repository it would there.
    let mut init = git(root);
    init.args(["init", "-q", "--template="])
        .arg(format!("--object-format={}", repo.gix().object_hash()));
    if let crate::repo::refs::RefStore::Git(store) = repo.ref_store() {
        init.arg(format!("--ref-format={store}"));
    }
    init.arg(root);
    output(init, None, "git init")?;
    let git_dir = root.join(".git");
    let objects = objects_dir(repo);
    let objects = std::fs::canonicalize(&objects).unwrap_or(objects);
    let write = |path: PathBuf, text: &[u8], append: bool| -> Result<(), PlaceError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(append)
            .write(true)
            .truncate(!append)
            .open(&path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        file.write_all(text)
            .map_err(|e| PlaceError(format!("cannot write {}: {e}", path.display())))
    };
    let mut alternates = objects.as_os_str().as_encoded_bytes().to_vec();
    alternates.push(b'\n');
    write(git_dir.join("objects/info/alternates"), &alternates, false)?;
    // The files are the blobs' bytes: no conversion, filter or expansion.
    write(
        git_dir.join("info/attributes"),
        b"* -text -filter -ident -working-tree-encoding\n",
        false,
    )?;
    write(
        git_dir.join("config"),
        b"[core]\n\tautocrlf = false\n\tfsmonitor = false\n\tuntrackedCache = false\n\tsymlinks = true\n\tfilemode = true\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n",
        true,
    )?;
    let shallow = repo.gix().common_dir().join("shallow");
    if let Ok(bytes) = std::fs::read(&shallow) {
        write(git_dir.join("shallow"), &bytes, false)?;
    }

    // Objects the project's store lacks (a merge's new blobs live only in
    // the gate's memory): written from the checkout's files.
    let mut blobs: Vec<(ObjectId, &[u8])> = view
        .entries()
        .filter(|(_, e)| e.mode != EntryMode::Submodule)
        .map(|(path, e)| (e.oid, &**path))
        .collect();
    blobs.sort_by_key(|(oid, _)| *oid);
    blobs.dedup_by_key(|(oid, _)| *oid);
    let mut query = Vec::new();
    for (oid, _) in &blobs {
        writeln!(query, "{oid}").map_err(|e| e.to_string())?;
    }
    let mut check = git(root);
    check.args(["cat-file", "--batch-check"]);
    let present = output(check, Some(&query), "finding the landing's objects")?;
    let missing: Vec<&[u8]> = present
        .split(|&b| b == b'\n')
        .zip(&blobs)
        .filter(|(line, _)| line.ends_with(b" missing"))
        .map(|(_, (_, path))| *path)
        .collect();
    if !missing.is_empty() {
        let mut paths = Vec::new();
        for path in &missing {
            paths.extend_from_slice(path);
            paths.push(b'\n');
        }
        let mut hash = git(root);
        hash.args(["hash-object", "-w", "--no-filters", "--stdin-paths"]);
        output(hash, Some(&paths), "writing the merge's new blobs")?;
    }

    let mut index = Vec::new();
    for (path, entry) in view.entries() {
        write!(index, "{} {}\t", entry.mode.octal(), entry.oid).map_err(|e| e.to_string())?;
        index.extend_from_slice(path);
        index.push(0);
    }
    let mut update = git(root);
    update.args(["update-index", "-z", "--index-info"]);
    output(update, Some(&index), "the index of the landing")?;
    let written = output(
        {
            let mut c = git(root);
            c.arg("write-tree");
            c
        },
        None,
        "the landing's tree",
    )?;
    let tree = parse_oid(&written)?;
    if let Some(expected) = expected
        && expected != tree
    {
        return Err(PlaceError(format!(
            "the worktree's tree {} is not the landing's {}",
            short(tree),
            short(expected)
        )));
    }
    let commit = match parent {
        Some(parent) if repo.commit_tree(parent).ok() == Some(tree) => parent,
        _ => {
            let mut make = git(root);
            make.args(["commit-tree", &tree.to_string(), "-m"])
                .arg("mastermind-hooks: the landing, as the re-run checks it");
            if let Some(parent) = parent {
                make.args(["-p", &parent.to_string()]);
            }
            for (name, value) in [
                ("GIT_AUTHOR_NAME", "mastermind-hooks"),
                ("GIT_AUTHOR_EMAIL", "mastermind-hooks@localhost"),
                ("GIT_COMMITTER_NAME", "mastermind-hooks"),
                ("GIT_COMMITTER_EMAIL", "mastermind-hooks@localhost"),
            ] {
                make.env(name, value);
            }
            parse_oid(&output(make, None, "a commit of the landing")?)?
        }
    };
    let mut head = git(root);
    head.args(["update-ref", "--no-deref", "HEAD", &commit.to_string()]);
    output(head, None, "HEAD")?;

    // The project's refs, so `git describe` and `git diff origin/main` work.
    let mut refs = git(root);
    refs.arg(format!("--git-dir={}", repo.git_dir().display()))
        .args([
            "for-each-ref",
            "--format=%(objectname) %(refname)",
            "refs/heads",
            "refs/tags",
            "refs/remotes",
        ]);
    let listed = output(refs, None, "the project's refs")?;
    let mut updates = Vec::new();
    for line in listed.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        if let Some(space) = line.iter().position(|&b| b == b' ') {
            updates.extend_from_slice(b"create ");
            updates.extend_from_slice(&line[space + 1..]);
            updates.push(b' ');
            updates.extend_from_slice(&line[..space]);
            updates.push(b'\n');
        }
    }
    if !updates.is_empty() {
        let mut mirror = git(root);
        mirror.args(["update-ref", "--stdin"]);
        output(mirror, Some(&updates), "mirroring the project's refs")?;
    }

    // Stat data for every file, so `git diff` and `git status` compare
    // nothing but what a check changes.
    let mut refresh = git(root);
    refresh.args(["update-index", "-q", "--refresh"]);
    let _ = output(refresh, None, "refreshing the index");
    let mut clean = git(root);
    clean.args(["diff-files", "--quiet", "--ignore-submodules"]);
    output(clean, None, "comparing the files with the landing")
        .map_err(|_| "the files written differ from the landing's index".to_string())?;
    Ok((tree, commit))
}

fn parse_oid(text: &[u8]) -> Result<ObjectId, PlaceError> {
    let trimmed = text.trim_ascii();
    ObjectId::from_hex(trimmed).map_err(|_| {
        PlaceError(format!(
            "git printed no object id: {}",
            String::from_utf8_lossy(trimmed)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_have_their_words() {
        assert_eq!(Kind::Workspace.as_str(), "workspace");
        assert_eq!(Kind::Worktree.as_str(), "worktree");
    }
}
