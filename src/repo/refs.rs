//! Reading references, whatever store holds them.
//!
//! git keeps references in one of two stores, named by the repository's
//! `extensions.refStorage`: `files` (loose files under `refs/` and
//! `packed-refs`; the default, and the only one before `refStorage`
//! existed) and `reftable` (binary tables under `reftable/`, git 2.45 and
//! later; the default of git 3.0 and of GitLab's Gitaly). gix 0.90 reads
//! the files store only: in a reftable repository it sees the placeholder
//! git leaves for old tools (`HEAD` pointing at `refs/heads/.invalid`,
//! `refs/heads` a file) and fails, or worse, answers about the placeholder.
//!
//! So every reference the gate reads comes through here, chosen per
//! repository when it is opened ([`RefStore::of`]): gix for the files store,
//! git's own commands (`git rev-parse`, `git symbolic-ref`,
//! `git for-each-ref`) for any other store, so a store git supports is a
//! store the gate supports. Only the names go through git: the objects they
//! name are read and peeled by gix as everywhere else. Nothing outside this
//! module reads references through gix (`tests/docs/architecture.rs` holds
//! that).
//!
//! A git process costs a millisecond or more, most of a hook's budget, so
//! the `reftable` store is read in process first ([`super::reftable`]):
//! HEAD, a reference by its full name, a revision that is a full name and
//! `@{upstream}` of a branch with none configured are answered from the
//! tables (the repository's stack, and a linked worktree's own for its HEAD
//! and per-worktree references). Whatever that reader cannot answer for
//! sure (a table it does not know or that vanished under a compaction, a
//! chain of symbolic references deeper than git follows, a name reaching
//! into another worktree, a configured upstream, any other revision) is
//! still asked of git.

use super::{Repo, RepoError, Result};
use crate::codes::Code;
use gix::ObjectId;
use std::cell::RefCell;
use std::collections::HashMap;
use std::process::Stdio;

/// The reference store of a repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefStore {
    /// Loose files and `packed-refs`: read by gix.
    Files,
    /// Any other store git knows (`reftable`, or a later one), named as
    /// the configuration names it: read through git.
    Git(String),
}

impl RefStore {
    /// The store `extensions.refStorage` names (absent: the files store).
    pub fn of(repo: &gix::Repository) -> RefStore {
        let config = repo.config_snapshot();
        match config.string("extensions.refStorage") {
            Some(name) if !name.eq_ignore_ascii_case(b"files") => {
                RefStore::Git(name.to_string().to_ascii_lowercase())
            }
            _ => RefStore::Files,
        }
    }

    /// The store's name as git spells it (`files`, `reftable`).
    pub fn name(&self) -> &str {
        match self {
            RefStore::Files => "files",
            RefStore::Git(name) => name,
        }
    }
}

/// A reference found by its full name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The full name of the reference it points at, when it is symbolic
    /// (`refs/remotes/origin/HEAD` -> `refs/remotes/origin/main`).
    pub symbolic: Option<String>,
    /// The object it finally names, symbolic links followed and annotated
    /// tags peeled; `None` where that object is missing.
    pub id: Option<ObjectId>,
}

/// What a repository keeps of its references for the rest of the run:
/// HEAD, read once (the gate never moves HEAD; through git each read is a
/// process, and a hook asks where HEAD is and which branch it is on from
/// several places), and every reference looked up and revision resolved,
/// by what was asked, in either store: the stop hook asked git for the
/// same branch twice, and for HEAD's branch, which HEAD's read had already
/// named, and opened HEAD five times and its branch five in the files
/// store (issue 53). One run sees one state of the references, however often it
/// asks.
#[derive(Debug, Default)]
pub(super) struct Memo {
    head: RefCell<Option<HeadState>>,
    references: RefCell<HashMap<String, Option<Reference>>>,
    revisions: RefCell<HashMap<String, Result<ObjectId>>>,
    /// The `reftable` stacks, as read at the first question; `None`: they
    /// cannot be read here, git answers.
    tables: std::cell::OnceCell<Option<Stacks>>,
}

/// What one handle read of a repository's references ([`Repo::refs_seen`]),
/// for another handle on it in the same run ([`Repo::assume_refs`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefsSeen {
    /// The git directory they were read in.
    git_dir: std::path::PathBuf,
    head: Option<HeadState>,
    references: HashMap<String, Option<Reference>>,
    revisions: HashMap<String, Result<ObjectId>>,
}

/// The tables (oldest first) of the repository's `reftable` stack, and of
/// the linked worktree's own stack when the repository was opened from one.
#[derive(Debug)]
struct Stacks {
    shared: Vec<Vec<u8>>,
    worktree: Option<Vec<Vec<u8>>>,
}

impl Stacks {
    /// The stack that holds `name`, as git's reftable backend picks it:
    /// a linked worktree keeps HEAD and its other root references
    /// (`ORIG_HEAD`, ...) and `refs/worktree/`, `refs/bisect/` and
    /// `refs/rewritten/` in its own stack; everything else is shared.
    /// `None` for the names that reach into another worktree
    /// (`main-worktree/...`, `worktrees/<name>/...`), which git resolves.
    fn of(&self, name: &str) -> Option<&[Vec<u8>]> {
        let Some(own) = &self.worktree else {
            return Some(&self.shared);
        };
        if name.starts_with("main-worktree/") || name.starts_with("worktrees/") {
            return None;
        }
        let per_worktree = !name.starts_with("refs/")
            || ["refs/worktree/", "refs/bisect/", "refs/rewritten/"]
                .iter()
                .any(|prefix| name.starts_with(prefix));
        Some(if per_worktree { own } else { &self.shared })
    }
}

/// How deep git follows symbolic references (`SYMREF_MAXDEPTH`); a
/// deeper chain is left to git.
const SYMREF_DEPTH: usize = 5;

/// The most a `tables.list` or a stack's tables may hold to be read here;
/// a larger stack is left to git, which searches it by its indexes.
const LIST_BYTES: usize = 64 * 1024;
const TABLE_BYTES: usize = 4 * 1024 * 1024;

/// A reference as the reftable resolves it.
struct Resolved {
    /// Its own record's target, when that is symbolic.
    symbolic: Option<String>,
    /// The name its chain of symbolic references ends at.
    last: String,
    /// The object that name holds; `None`: it has no record (a dangling
    /// symbolic reference, or an unborn branch).
    id: Option<ObjectId>,
}

/// HEAD: the commit it names (`None` before the first commit) and the full
/// name of the branch it is on (`None` when detached).
pub type HeadState = (Option<ObjectId>, Option<String>);

/// HEAD could not be read, and why.
fn head_unreadable(why: &dyn std::fmt::Display) -> RepoError {
    RepoError::new(
        Code::git_revision_unknown,
        format!("cannot read HEAD: {why}"),
    )
}

/// What one `git` command for the references printed, or why it failed.
struct GitOutput {
    /// The exit code (`None`: killed by a signal).
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Repo {
    /// The store this repository keeps its references in.
    pub fn ref_store(&self) -> &RefStore {
        &self.ref_store
    }

    /// Run `git args` on this repository's references: its git dir, the
    /// object directories the gate reads (the pre-receive quarantine
    /// first), no replace refs, nothing else of the caller's repository
    /// variables.
    fn git_for_refs(&self, args: &[&str]) -> Result<GitOutput> {
        let mut command = self.git_command();
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some((first, rest)) = self.object_dirs.split_first() {
            command.env("GIT_OBJECT_DIRECTORY", first);
            if !rest.is_empty()
                && let Ok(alternates) = std::env::join_paths(rest)
            {
                command.env("GIT_ALTERNATE_OBJECT_DIRECTORIES", alternates);
            }
        }
        let shown = args.join(" ");
        let output = command.output().map_err(|e| {
            super::git_spawn_error(
                &format!(
                    "cannot run `git {shown}` to read the references of {} (its `{}` store)",
                    self.git_dir().display(),
                    self.ref_store.name()
                ),
                &e,
                Code::git_repository_unavailable,
            )
        })?;
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        // git 2.44 and older know no `refStorage`; a later store's name is
        // an invalid value to a git that predates it.
        if stderr.contains("unknown repository extension")
            || stderr.contains("'extensions.refstorage'")
        {
            return Err(RepoError::new(
                Code::git_version_unsupported,
                format!(
                    "the repository at {} keeps its references in the `{}` store, which the installed git cannot read (`git {shown}`: {stderr}); install git 2.45 or newer",
                    self.git_dir().display(),
                    self.ref_store.name()
                ),
            ));
        }
        Ok(GitOutput {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).trim().to_string(),
            stderr,
        })
    }

    /// The object a revision names, unpeeled (`HEAD`, `origin/main`,
    /// `main~2`, `@{upstream}`, an object id).
    pub(super) fn revision_id(&self, rev: &str) -> Result<ObjectId> {
        let unknown = |why: &dyn std::fmt::Display| {
            RepoError::new(
                Code::git_revision_unknown,
                format!("cannot resolve revision `{rev}`: {why}"),
            )
        };
        // A full object id is that object in every store, as in git (a ref
        // of the same name only earns a warning there).
        if rev.len() == self.inner.object_hash().len_in_hex()
            && let Ok(id) = ObjectId::from_hex(rev.as_bytes())
        {
            return Ok(id);
        }
        if let Some(known) = self.refs_memo.revisions.borrow().get(rev) {
            return known.clone();
        }
        // HEAD, and the branch HEAD's read named (the reference it finally
        // resolves to, never a symbolic one): the object that read gave.
        if let Some((Some(id), branch)) = self.refs_memo.head.borrow().as_ref()
            && (rev == "HEAD" || branch.as_deref() == Some(rev))
        {
            return Ok(*id);
        }
        match &self.ref_store {
            RefStore::Files => {
                let found = self
                    .inner
                    .rev_parse_single(rev)
                    .map(|id| id.detach())
                    .map_err(|e| unknown(&e));
                self.refs_memo
                    .revisions
                    .borrow_mut()
                    .insert(rev.to_string(), found.clone());
                found
            }
            RefStore::Git(_) => {
                if let Some(found) = self.reftable_revision(rev) {
                    let found = found.map_err(|why| unknown(&why));
                    self.refs_memo
                        .revisions
                        .borrow_mut()
                        .insert(rev.to_string(), found.clone());
                    return found;
                }
                let out = self.git_for_refs(&["rev-parse", "--verify", "--end-of-options", rev])?;
                let found = match out.code {
                    Some(0) => ObjectId::from_hex(out.stdout.as_bytes()).map_err(|e| unknown(&e)),
                    _ => Err(unknown(&format!("git: {}", out.stderr))),
                };
                self.refs_memo
                    .revisions
                    .borrow_mut()
                    .insert(rev.to_string(), found.clone());
                found
            }
        }
    }

    /// Have the installed git read HEAD itself, whatever the tables could
    /// answer in process: `init` learns here that this git cannot read the
    /// store (git 2.44 and older know no `reftable`; an unknown store),
    /// `git_version_unsupported`, not at the team's first commit. Nothing
    /// to ask in the files store, which gix reads.
    pub fn git_reads_references(&self) -> Result<()> {
        match self.ref_store {
            RefStore::Files => Ok(()),
            RefStore::Git(_) => self.git_head().map(|_| ()),
        }
    }

    /// What this handle has read of the references so far, for another
    /// handle on the same repository in this run ([`Repo::assume_refs`]).
    pub fn refs_seen(&self) -> RefsSeen {
        RefsSeen {
            git_dir: self.git_dir().to_path_buf(),
            head: self.refs_memo.head.borrow().clone(),
            references: self.refs_memo.references.borrow().clone(),
            revisions: self.refs_memo.revisions.borrow().clone(),
        }
    }

    /// Take what another handle on this repository read of the references
    /// in this run ([`Repo::refs_seen`]) as read, instead of reading it
    /// again: the stop hook reads HEAD and the default branches before its
    /// gate opens the repository on a thread of its own. What this handle
    /// read itself stays; what another repository (another git directory)
    /// read is ignored.
    pub fn assume_refs(&self, seen: &RefsSeen) {
        if seen.git_dir != self.git_dir() {
            return;
        }
        let mut head = self.refs_memo.head.borrow_mut();
        if head.is_none() {
            head.clone_from(&seen.head);
        }
        let mut references = self.refs_memo.references.borrow_mut();
        for (name, found) in &seen.references {
            references
                .entry(name.clone())
                .or_insert_with(|| found.clone());
        }
        let mut revisions = self.refs_memo.revisions.borrow_mut();
        for (rev, found) in &seen.revisions {
            revisions
                .entry(rev.clone())
                .or_insert_with(|| found.clone());
        }
    }

    /// HEAD: the commit it names (`None` before the first commit) and the
    /// full name of the branch it is on (`None` when detached), read once
    /// per handle.
    pub fn head_state(&self) -> Result<HeadState> {
        let failed = head_unreadable;
        if let Some(known) = self.refs_memo.head.borrow().as_ref() {
            return Ok(known.clone());
        }
        let head = match &self.ref_store {
            RefStore::Files => {
                let head = self.inner.head().map_err(|e| failed(&e))?;
                match &head.kind {
                    gix::head::Kind::Symbolic(branch) => match &branch.target {
                        // The branch was read to get here, and names an
                        // object: that read answers for it too.
                        gix::refs::Target::Object(id) => {
                            let found = Reference {
                                symbolic: None,
                                id: self.peeled(*id),
                            };
                            let name = branch.name.as_bstr().to_string();
                            self.refs_memo
                                .references
                                .borrow_mut()
                                .entry(name.clone())
                                .or_insert(Some(found));
                            (Some(*id), Some(name))
                        }
                        // HEAD on a symbolic branch (`refs/heads/alias` ->
                        // `refs/heads/main`): the branch it finally resolves
                        // to, as git names it and the other store answers.
                        gix::refs::Target::Symbolic(_) => self.files_head_through(branch)?,
                    },
                    _ => (
                        head.id().map(|id| id.detach()),
                        head.referent_name().map(|n| n.as_bstr().to_string()),
                    ),
                }
            }
            RefStore::Git(_) => match self.reftable_head() {
                Some(head) => head,
                None => self.git_head()?,
            },
        };
        *self.refs_memo.head.borrow_mut() = Some(head.clone());
        Ok(head)
    }

    /// HEAD in the files store when the branch it names is itself
    /// symbolic: the reference at the end of the chain (as `git rev-parse
    /// --symbolic-full-name HEAD` names it) and the object it names; `None`
    /// for the object where that branch is unborn. A chain longer than
    /// git's own limit (5) is unreadable.
    fn files_head_through(&self, branch: &gix::refs::Reference) -> Result<HeadState> {
        let failed = head_unreadable;
        let mut name = branch.name.as_bstr().to_string();
        let mut target = branch.target.clone();
        for _ in 0..5 {
            match target {
                gix::refs::Target::Object(id) => return Ok((Some(id), Some(name))),
                gix::refs::Target::Symbolic(next) => {
                    name = next.as_bstr().to_string();
                    match self
                        .inner
                        .try_find_reference(name.as_str())
                        .map_err(|e| failed(&e))?
                    {
                        Some(found) if found.name().as_bstr() == name.as_str() => {
                            target = found.inner.target.clone();
                        }
                        _ => return Ok((None, Some(name))),
                    }
                }
            }
        }
        Err(failed(&format!(
            "HEAD goes through more than five symbolic references, ending at {name}"
        )))
    }

    /// HEAD as git reads it: one `git rev-parse` on a branch with commits
    /// or a detached HEAD, a `git symbolic-ref` and a check more on an
    /// unborn branch.
    fn git_head(&self) -> Result<HeadState> {
        let failed = head_unreadable;
        let out = self.git_for_refs(&["rev-parse", "HEAD", "--symbolic-full-name", "HEAD"])?;
        if out.code == Some(0) {
            let mut lines = out.stdout.lines();
            let (Some(id), Some(name), None) = (lines.next(), lines.next(), lines.next()) else {
                return Err(failed(&format!("git rev-parse printed {:?}", out.stdout)));
            };
            let id = ObjectId::from_hex(id.as_bytes()).map_err(|e| failed(&e))?;
            // `HEAD` itself: detached.
            let name = name.starts_with("refs/").then(|| name.to_string());
            return Ok((Some(id), name));
        }
        // No commit at HEAD: an unborn branch (its ref does not exist), or
        // something broken.
        let branch = self.git_for_refs(&["symbolic-ref", "-q", "HEAD"])?;
        if branch.code == Some(0) {
            let target = self.git_for_refs(&["rev-parse", "-q", "--verify", &branch.stdout])?;
            if target.code == Some(1) && target.stderr.is_empty() {
                return Ok((None, Some(branch.stdout)));
            }
        }
        Err(failed(&format!("git rev-parse HEAD: {}", out.stderr)))
    }

    /// The reference with exactly this full name (`refs/remotes/origin/HEAD`),
    /// if there is one.
    pub fn reference(&self, name: &str) -> Result<Option<Reference>> {
        let failed = |why: &dyn std::fmt::Display| {
            RepoError::new(
                Code::git_revision_unknown,
                format!("cannot read the reference {name}: {why}"),
            )
        };
        if let Some(known) = self.refs_memo.references.borrow().get(name) {
            return Ok(known.clone());
        }
        match &self.ref_store {
            RefStore::Files => {
                let found = match self
                    .inner
                    .try_find_reference(name)
                    .map_err(|e| failed(&e))?
                {
                    Some(mut found) if found.name().as_bstr() == name => {
                        let symbolic = match found.target() {
                            gix::refs::TargetRef::Symbolic(target) => {
                                Some(target.as_bstr().to_string())
                            }
                            gix::refs::TargetRef::Object(_) => None,
                        };
                        let id = found.peel_to_id().ok().map(|id| id.detach());
                        Some(Reference { symbolic, id })
                    }
                    _ => None,
                };
                self.refs_memo
                    .references
                    .borrow_mut()
                    .insert(name.to_string(), found.clone());
                Ok(found)
            }
            RefStore::Git(_) => {
                // The branch HEAD's read named is the reference HEAD finally
                // resolves to: not symbolic, and naming HEAD's object.
                if let Some((Some(id), Some(branch))) = self.refs_memo.head.borrow().as_ref()
                    && branch == name
                {
                    return Ok(Some(Reference {
                        symbolic: None,
                        id: self.peeled(*id),
                    }));
                }
                let found = match self.reftable_reference(name) {
                    Some(found) => found,
                    None => self.git_reference(name)?,
                };
                self.refs_memo
                    .references
                    .borrow_mut()
                    .insert(name.to_string(), found.clone());
                Ok(found)
            }
        }
    }

    /// [`Repo::reference`] through `git for-each-ref`.
    fn git_reference(&self, name: &str) -> Result<Option<Reference>> {
        let failed = |why: &dyn std::fmt::Display| {
            RepoError::new(
                Code::git_revision_unknown,
                format!("cannot read the reference {name}: {why}"),
            )
        };
        let out = self.git_for_refs(&[
            "for-each-ref",
            "--format=%(refname)%00%(symref)%00%(objectname)",
            "--",
            name,
        ])?;
        if out.code != Some(0) {
            return Err(failed(&format!("git for-each-ref: {}", out.stderr)));
        }
        for line in out.stdout.lines() {
            let mut fields = line.split('\0');
            let (Some(found), Some(symref), Some(object)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            if found != name {
                continue;
            }
            let id = ObjectId::from_hex(object.as_bytes())
                .ok()
                .and_then(|id| self.peeled(id));
            return Ok(Some(Reference {
                symbolic: (!symref.is_empty()).then(|| symref.to_string()),
                id,
            }));
        }
        Ok(None)
    }

    /// The `reftable` stacks, read once; `None` where git must answer:
    /// another store, or a list or table that cannot be read whole.
    fn reftables(&self) -> Option<&Stacks> {
        self.refs_memo
            .tables
            .get_or_init(|| {
                if self.ref_store.name() != "reftable" {
                    return None;
                }
                let shared = read_stack(&self.inner.common_dir().join("reftable"))?;
                let worktree = if self.git_dir() == self.inner.common_dir() {
                    None
                } else {
                    Some(read_stack(&self.git_dir().join("reftable"))?)
                };
                Some(Stacks { shared, worktree })
            })
            .as_ref()
    }

    /// `name` as the tables resolve it (`Some(None)`: no such reference);
    /// `None` where git must answer.
    fn reftable_resolve(&self, name: &str) -> Option<Option<Resolved>> {
        use super::reftable::{Value, stack_lookup};
        let stacks = self.reftables()?;
        let hash = self.inner.object_hash();
        let lookup = |name: &str| stack_lookup(stacks.of(name)?, name, hash).ok();
        let Some(mut value) = lookup(name)? else {
            return Some(None);
        };
        let symbolic = match &value {
            Value::Symbolic(target) => Some(target.clone()),
            _ => None,
        };
        let mut last = name.to_string();
        for _ in 0..=SYMREF_DEPTH {
            match value {
                Value::Object(id) => {
                    return Some(Some(Resolved {
                        symbolic,
                        last,
                        id: Some(id),
                    }));
                }
                Value::Symbolic(target) => match lookup(&target)? {
                    Some(next) => (value, last) = (next, target),
                    None => {
                        return Some(Some(Resolved {
                            symbolic,
                            last: target,
                            id: None,
                        }));
                    }
                },
                Value::Deleted => return None,
            }
        }
        None
    }

    /// A revision the tables answer as `git rev-parse --verify` would (the
    /// error is why it names nothing); `None` where git must answer.
    ///
    /// Two kinds are answered: a full reference name, looked up by git's
    /// rules for a name (`refs/heads/x` is also tried as `refs/refs/heads/x`,
    /// `refs/tags/refs/heads/x` and so on, the first that exists wins), and
    /// `@{upstream}` of a branch with no `branch.<name>.merge` configured
    /// (no upstream). A configured upstream (remotes and their refspecs),
    /// any other revision syntax and a dangling symbolic reference on the
    /// way are git's.
    fn reftable_revision(&self, rev: &str) -> Option<std::result::Result<ObjectId, String>> {
        if rev == "@{upstream}" {
            let branch = self.head_state().ok()?.1?;
            let short = branch.strip_prefix("refs/heads/")?;
            let merge = format!("branch.{short}.merge");
            if self
                .inner
                .config_snapshot()
                .string(merge.as_str())
                .is_some()
            {
                return None;
            }
            return Some(Err(format!("no upstream configured for branch '{short}'")));
        }
        let plain = |b: u8| b.is_ascii_alphanumeric() || b"/._-".contains(&b);
        if !rev.starts_with("refs/") || rev.contains("..") || !rev.bytes().all(plain) {
            return None;
        }
        let rules = ["", "refs/", "refs/tags/", "refs/heads/", "refs/remotes/"];
        let names = rules
            .iter()
            .map(|prefix| format!("{prefix}{rev}"))
            .chain([format!("refs/remotes/{rev}/HEAD")]);
        for name in names {
            match self.reftable_resolve(&name)? {
                None => continue,
                Some(Resolved { id: Some(id), .. }) => return Some(Ok(id)),
                Some(Resolved { id: None, .. }) => return None,
            }
        }
        Some(Err("no reference of that name".to_string()))
    }

    /// HEAD from the tables, as [`Repo::git_head`] would read it; `None`
    /// where git must answer (no HEAD record, an unborn branch behind a
    /// chain of symbolic references).
    fn reftable_head(&self) -> Option<HeadState> {
        let head = self.reftable_resolve("HEAD")??;
        match (head.symbolic, head.id) {
            (None, Some(id)) => Some((Some(id), None)),
            (Some(_), Some(id)) => {
                Some((Some(id), Some(head.last).filter(|n| n.starts_with("refs/"))))
            }
            (Some(branch), None) if branch == head.last => Some((None, Some(branch))),
            _ => None,
        }
    }

    /// [`Repo::reference`] from the tables, as `git for-each-ref` lists it:
    /// a symbolic reference names the end of its chain (`%(symref)`), and
    /// one whose chain ends nowhere is a broken one, which it leaves out.
    /// `None` where git must answer.
    fn reftable_reference(&self, name: &str) -> Option<Option<Reference>> {
        if !name.starts_with("refs/") {
            return None;
        }
        Some(match self.reftable_resolve(name)? {
            Some(Resolved {
                symbolic,
                last,
                id: Some(id),
            }) => Some(Reference {
                symbolic: symbolic.map(|_| last),
                id: self.peeled(id),
            }),
            Some(Resolved { id: None, .. }) | None => None,
        })
    }

    /// `id` with annotated tags peeled, `None` where an object is missing.
    fn peeled(&self, id: ObjectId) -> Option<ObjectId> {
        let object = self.inner.find_object(id).ok()?;
        object.peel_tags_to_end().ok().map(|peeled| peeled.id)
    }
}

/// The tables of the `reftable` stack in `dir`, oldest first, as its
/// `tables.list` names them; `None` where any cannot be read whole (a
/// table a compaction removed meanwhile, a stack over [`TABLE_BYTES`]).
fn read_stack(dir: &std::path::Path) -> Option<Vec<Vec<u8>>> {
    use crate::safe_fs::{Follow, read_bounded};
    let list = read_bounded(&dir.join("tables.list"), LIST_BYTES, Follow::NoLinks).ok()?;
    let list = String::from_utf8(list)
        .ok()
        .filter(|l| l.len() <= LIST_BYTES)?;
    let mut tables = Vec::new();
    let mut bytes = 0usize;
    for name in list.lines() {
        let plain = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'.';
        if name.is_empty() || name.starts_with('.') || !name.bytes().all(plain) {
            return None;
        }
        // A table a compaction removed since the list was read: git
        // answers from the stack as it is now.
        let table = read_bounded(&dir.join(name), TABLE_BYTES, Follow::NoLinks).ok()?;
        bytes += table.len();
        if bytes > TABLE_BYTES {
            return None;
        }
        tables.push(table);
    }
    Some(tables)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::test_git::{git, init};
    use std::path::Path;

    /// Run `git args` in `dir` with `input` on its standard input.
    fn git_stdin(dir: &Path, args: &[&str], input: &str) {
        use std::io::Write;
        let mut child = std::process::Command::new("git")
            .current_dir(dir)
            .args(args)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success(), "git {args:?}");
    }

    /// A repository with one commit on `main`, a lightweight and an
    /// annotated tag, and `refs/remotes/origin/HEAD` pointing at
    /// `refs/remotes/origin/main`, in the ref store `format`.
    fn repository(format: &str) -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        init(root, "main", format, None);
        std::fs::write(root.join("a"), "a\n").unwrap();
        git(root, &["add", "a"]);
        git(root, &["commit", "-q", "-m", "one"]);
        let head = git(root, &["rev-parse", "HEAD"]);
        git(root, &["tag", "light"]);
        git(root, &["tag", "-a", "-m", "annotated", "v1"]);
        git(root, &["update-ref", "refs/remotes/origin/main", &head]);
        git(
            root,
            &[
                "symbolic-ref",
                "refs/remotes/origin/HEAD",
                "refs/remotes/origin/main",
            ],
        );
        (dir, head)
    }

    #[test]
    fn both_stores_answer_alike() {
        let mut answers = Vec::new();
        for format in ["files", "reftable"] {
            let (dir, head) = repository(format);
            let repo = Repo::discover(dir.path()).unwrap();
            let expected = if format == "files" {
                RefStore::Files
            } else {
                RefStore::Git("reftable".into())
            };
            assert_eq!(repo.ref_store(), &expected);
            let head = ObjectId::from_hex(head.as_bytes()).unwrap();
            assert_eq!(repo.head_commit().unwrap(), Some(head), "{format}");
            assert_eq!(
                repo.head_ref_name().as_deref(),
                Some("refs/heads/main"),
                "{format}"
            );
            assert_eq!(repo.resolve_commit("v1").unwrap(), head, "{format}");
            assert_eq!(repo.resolve_commit("origin/main").unwrap(), head);
            assert_eq!(repo.commit_of("light").unwrap(), Some(head));
            assert_eq!(repo.commit_of("HEAD^{tree}").unwrap(), None);
            let unknown = repo.resolve_commit("nope").unwrap_err();
            assert_eq!(unknown.code, Code::git_revision_unknown, "{format}");
            let remote_head = repo.reference("refs/remotes/origin/HEAD").unwrap();
            assert_eq!(
                remote_head,
                Some(Reference {
                    symbolic: Some("refs/remotes/origin/main".into()),
                    id: Some(head),
                }),
                "{format}"
            );
            let tag = repo.reference("refs/tags/v1").unwrap().unwrap();
            assert_eq!(tag.id, Some(head), "annotated tags are peeled: {format}");
            assert_eq!(repo.reference("refs/remotes/origin").unwrap(), None);
            assert_eq!(repo.reference("refs/heads/mai").unwrap(), None);
            answers.push((
                repo.reference("refs/heads/main")
                    .unwrap()
                    .map(|r| r.symbolic),
                repo.reference("refs/heads/none").unwrap(),
            ));
        }
        assert_eq!(answers[0], answers[1]);
    }

    /// A reftable stack of several tables, reference blocks of 256 bytes
    /// and every kind of record (objects, peeled tags, symbolic references,
    /// deletions, updates, a dangling symbolic reference), in both object
    /// formats: every answer read from the tables is git's answer.
    #[test]
    fn the_tables_read_in_process_answer_as_git_does() {
        for object_format in ["sha1", "sha256"] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            init(root, "main", "reftable", Some(object_format));
            git(root, &["config", "reftable.autoCompaction", "false"]);
            git(root, &["config", "reftable.blockSize", "256"]);
            git(root, &["commit", "-q", "--allow-empty", "-m", "one"]);
            let first = git(root, &["rev-parse", "HEAD"]);
            git(root, &["commit", "-q", "--allow-empty", "-m", "two"]);
            let mut batch = String::new();
            for i in 0..120 {
                batch.push_str(&format!("create refs/heads/topic/{i:03} {first}\n"));
            }
            git_stdin(root, &["update-ref", "--stdin"], &batch);
            for i in (0..120).step_by(7) {
                git(
                    root,
                    &["update-ref", "-d", &format!("refs/heads/topic/{i:03}")],
                );
            }
            for i in (3..120).step_by(11) {
                git(
                    root,
                    &["update-ref", &format!("refs/heads/topic/{i:03}"), "HEAD"],
                );
            }
            git(root, &["tag", "light"]);
            git(root, &["tag", "-a", "-m", "annotated", "v1", &first]);
            git(root, &["update-ref", "refs/remotes/origin/main", &first]);
            let symbolic = [
                ("refs/remotes/origin/HEAD", "refs/remotes/origin/main"),
                ("refs/heads/alias", "refs/heads/main"),
                ("refs/heads/alias2", "refs/heads/alias"),
                ("refs/heads/dangling", "refs/heads/nowhere"),
            ];
            for (name, target) in symbolic {
                git(root, &["symbolic-ref", name, target]);
            }
            // A name git finds only by its rules for names.
            git(root, &["update-ref", "refs/heads/refs/heads/odd", &first]);
            let repo = Repo::discover(root).unwrap();
            assert!(
                repo.reftables().unwrap().shared.len() > 1,
                "{object_format}"
            );
            let mut names: Vec<String> = git(root, &["for-each-ref", "--format=%(refname)"])
                .lines()
                .map(str::to_string)
                .collect();
            names.extend(
                [
                    "refs/heads/topic/000",
                    "refs/heads/topic/007",
                    "refs/heads/dangling",
                    "refs/heads/nowhere",
                    "refs/heads/topic",
                    "refs/heads/topic/9999",
                    "refs/heads/zzz",
                    "refs/a",
                    "refs/heads/odd",
                ]
                .map(str::to_string),
            );
            for name in &names {
                let ours = repo.reftable_reference(name).unwrap();
                assert_eq!(
                    ours,
                    repo.git_reference(name).unwrap(),
                    "{object_format} {name}"
                );
                let out = repo
                    .git_for_refs(&["rev-parse", "--verify", "-q", "--end-of-options", name])
                    .unwrap();
                let theirs = (out.code == Some(0))
                    .then(|| ObjectId::from_hex(out.stdout.as_bytes()).unwrap());
                match repo.reftable_revision(name) {
                    Some(ours) => assert_eq!(ours.ok(), theirs, "{object_format} {name}"),
                    // Left to git: only a chain that ends nowhere.
                    None => assert!(name.contains("dangling"), "{object_format} {name}"),
                }
            }
            // No upstream configured: answered here, as git answers it; a
            // configured one is git's.
            let upstream = repo.reftable_revision("@{upstream}").unwrap();
            assert!(upstream.is_err(), "{object_format}");
            let out = repo
                .git_for_refs(&[
                    "rev-parse",
                    "--verify",
                    "-q",
                    "--end-of-options",
                    "@{upstream}",
                ])
                .unwrap();
            assert_ne!(out.code, Some(0), "{object_format}");
            git(root, &["remote", "add", "origin", "/nowhere"]);
            git(root, &["config", "branch.main.remote", "origin"]);
            git(root, &["config", "branch.main.merge", "refs/heads/main"]);
            let configured = Repo::discover(root).unwrap();
            assert!(configured.reftable_revision("@{upstream}").is_none());
            assert_eq!(
                configured.resolve_commit("@{upstream}").unwrap(),
                ObjectId::from_hex(first.as_bytes()).unwrap(),
                "{object_format}: git maps the upstream through origin's refspec"
            );
            for head in ["refs/heads/alias2", "refs/heads/unborn", "refs/heads/main"] {
                git(root, &["symbolic-ref", "HEAD", head]);
                let fresh = Repo::discover(root).unwrap();
                assert_eq!(
                    fresh.reftable_head().or_else(|| fresh.git_head().ok()),
                    Some(fresh.git_head().unwrap()),
                    "{object_format} HEAD -> {head}"
                );
            }
            // A linked worktree: its HEAD and per-worktree references in
            // its own stack, the rest shared.
            let linked = tempfile::tempdir().unwrap();
            let linked = linked.path().join("wt");
            git(
                root,
                &[
                    "worktree",
                    "add",
                    "-q",
                    "-b",
                    "feature",
                    linked.to_str().unwrap(),
                    &first,
                ],
            );
            git(&linked, &["update-ref", "refs/worktree/mark", "HEAD"]);
            git(&linked, &["update-ref", "refs/bisect/bad", "HEAD"]);
            git(&linked, &["update-ref", "refs/heads/shared", "HEAD"]);
            let worktree = Repo::discover(&linked).unwrap();
            assert!(worktree.reftables().unwrap().worktree.is_some());
            assert_eq!(
                worktree.reftable_head(),
                Some(worktree.git_head().unwrap()),
                "{object_format} linked worktree"
            );
            for name in [
                "refs/worktree/mark",
                "refs/bisect/bad",
                "refs/heads/feature",
                "refs/heads/shared",
                "refs/heads/alias2",
                "refs/remotes/origin/HEAD",
                "refs/worktree/none",
            ] {
                assert_eq!(
                    worktree.reftable_reference(name).unwrap(),
                    worktree.git_reference(name).unwrap(),
                    "{object_format} linked worktree {name}"
                );
            }
            assert!(worktree.reftable_resolve("main-worktree/HEAD").is_none());
            git(root, &["checkout", "-q", "--detach", &first]);
            let detached = Repo::discover(root).unwrap();
            assert_eq!(
                detached.reftable_head(),
                Some(detached.git_head().unwrap()),
                "{object_format} detached"
            );
        }
    }

    /// What a handle says of its repository: its directories, index, object
    /// format, store, HEAD and the tree of `commit`.
    fn answers(repo: &Repo, commit: ObjectId) -> impl PartialEq + std::fmt::Debug + use<> {
        (
            repo.git_dir().to_path_buf(),
            repo.workdir().map(Path::to_path_buf),
            repo.index_path(),
            repo.gix().object_hash(),
            repo.ref_store().clone(),
            repo.head_commit().unwrap(),
            repo.head_ref_name(),
            repo.commit_tree(commit).unwrap(),
        )
    }

    /// A repository discovered on one thread and taken over on another (the
    /// agent hooks' gate thread) is the repository a fresh discovery opens,
    /// in both reference stores: the same directories, index, object format,
    /// store, HEAD and objects.
    #[test]
    fn a_handle_taken_over_on_another_thread_is_a_fresh_discovery() {
        for format in ["files", "reftable"] {
            let (dir, head) = repository(format);
            let head = ObjectId::from_hex(head.as_bytes()).unwrap();
            let shared = Repo::discover_shared(dir.path()).unwrap();
            let fresh = Repo::discover(dir.path()).unwrap();
            let taken = std::thread::spawn(move || answers(&Repo::from_shared(shared), head))
                .join()
                .unwrap();
            assert_eq!(taken, answers(&fresh, head), "{format}");
            assert_eq!(fresh.head_commit().unwrap(), Some(head), "{format}");
        }
    }

    /// Ask `remembering` (a handle on the repository at `dir`) each of a
    /// set of references and revisions twice, and hold every answer to a
    /// fresh handle's; `label` names the case in a failure.
    fn answers_as_a_fresh_handle(dir: &Path, remembering: &Repo, label: &str) {
        let names = [
            "refs/heads/main",
            "refs/heads/alias",
            "refs/remotes/origin/HEAD",
            "refs/tags/v1",
            "refs/heads/none",
        ];
        let revisions = ["HEAD", "refs/heads/main", "refs/heads/alias", "v1", "nope"];
        let fresh = |ask: &dyn Fn(&Repo) -> String| ask(&Repo::discover(dir).unwrap());
        for _ in 0..2 {
            for name in names {
                let ask = |repo: &Repo| format!("{:?}", repo.reference(name));
                assert_eq!(ask(remembering), fresh(&ask), "{label}: {name}");
            }
            for rev in revisions {
                let ask = |repo: &Repo| format!("{:?}", repo.revision_id(rev));
                assert_eq!(ask(remembering), fresh(&ask), "{label}: {rev}");
            }
        }
    }

    /// A store read through git keeps what it was told: HEAD's read
    /// answers for the branch it named, each other question is asked once,
    /// and every answer is the one a fresh handle gets from git, also where
    /// HEAD reaches its branch through a symbolic one.
    #[test]
    fn remembered_answers_are_gits_answers() {
        let (dir, head) = repository("reftable");
        git(
            dir.path(),
            &["symbolic-ref", "refs/heads/alias", "refs/heads/main"],
        );
        git(dir.path(), &["symbolic-ref", "HEAD", "refs/heads/alias"]);
        let head = ObjectId::from_hex(head.as_bytes()).unwrap();
        let remembering = Repo::discover(dir.path()).unwrap();
        assert_eq!(
            remembering.head_state().unwrap(),
            (Some(head), Some("refs/heads/main".to_string())),
            "git names the branch HEAD finally resolves to"
        );
        answers_as_a_fresh_handle(dir.path(), &remembering, "reftable");
        let alias = remembering.reference("refs/heads/alias").unwrap().unwrap();
        assert_eq!(alias.symbolic.as_deref(), Some("refs/heads/main"));
        assert_eq!(remembering.refs_memo.references.borrow().len(), 4);
        assert_eq!(remembering.refs_memo.revisions.borrow().len(), 3);
    }

    /// The files store remembers as the store read through git does: each
    /// question asked once per handle (HEAD's branch answered by HEAD's
    /// read where the branch names an object), every answer a fresh
    /// handle's, through a symbolic branch, an annotated tag and a missing
    /// reference alike.
    #[test]
    fn the_files_store_remembers_what_a_fresh_handle_reads() {
        let (dir, head) = repository("files");
        let head = ObjectId::from_hex(head.as_bytes()).unwrap();
        for head_at in ["refs/heads/main", "refs/heads/alias"] {
            git(
                dir.path(),
                &["symbolic-ref", "refs/heads/alias", "refs/heads/main"],
            );
            git(dir.path(), &["symbolic-ref", "HEAD", head_at]);
            let remembering = Repo::discover(dir.path()).unwrap();
            assert_eq!(remembering.head_commit().unwrap(), Some(head), "{head_at}");
            // HEAD's read answers for its branch where the branch names an
            // object; a symbolic one is read when asked.
            let kept: Vec<String> = (remembering.refs_memo.references.borrow().keys())
                .cloned()
                .collect();
            let expected: &[&str] = match head_at {
                "refs/heads/main" => &["refs/heads/main"],
                _ => &[],
            };
            assert_eq!(kept, expected, "{head_at}");
            answers_as_a_fresh_handle(dir.path(), &remembering, head_at);
            assert_eq!(remembering.refs_memo.references.borrow().len(), 5);
        }
    }

    /// What one handle read stands for another handle on the same
    /// repository (the stop hook's gate), never for another repository,
    /// and never over what that handle read itself.
    #[test]
    fn references_read_by_one_handle_serve_another() {
        let (dir, head) = repository("files");
        let head = ObjectId::from_hex(head.as_bytes()).unwrap();
        let reader = Repo::discover(dir.path()).unwrap();
        assert_eq!(reader.head_commit().unwrap(), Some(head));
        let origin = reader.reference("refs/remotes/origin/HEAD").unwrap();
        let seen = reader.refs_seen();
        // Moved after the read: the handle that takes the reads sees the
        // references as the run first saw them.
        git(
            dir.path(),
            &["update-ref", "--no-deref", "-d", "refs/remotes/origin/HEAD"],
        );
        let taker = Repo::discover(dir.path()).unwrap();
        taker.assume_refs(&seen);
        assert_eq!(taker.reference("refs/remotes/origin/HEAD").unwrap(), origin);
        assert_eq!(taker.head_state().unwrap(), reader.head_state().unwrap());
        // Another repository's reads are not taken.
        let (other_dir, _) = repository("files");
        let other = Repo::discover(other_dir.path()).unwrap();
        other.assume_refs(&seen);
        assert!(other.refs_memo.references.borrow().is_empty());
        assert!(other.refs_memo.head.borrow().is_none());
        // What a handle read itself stays.
        let own = Repo::discover(dir.path()).unwrap();
        assert_eq!(own.reference("refs/remotes/origin/HEAD").unwrap(), None);
        own.assume_refs(&seen);
        assert_eq!(own.reference("refs/remotes/origin/HEAD").unwrap(), None);
    }

    #[test]
    fn an_unborn_and_a_detached_head_are_told_apart() {
        for format in ["files", "reftable"] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            init(root, "trunk", format, None);
            let repo = Repo::discover(root).unwrap();
            assert_eq!(repo.head_commit().unwrap(), None, "{format}: unborn");
            assert_eq!(repo.head_ref_name().as_deref(), Some("refs/heads/trunk"));
            std::fs::write(root.join("a"), "a\n").unwrap();
            git(root, &["add", "a"]);
            git(root, &["commit", "-q", "-m", "one"]);
            git(root, &["checkout", "-q", "--detach"]);
            let repo = Repo::discover(root).unwrap();
            assert!(repo.head_commit().unwrap().is_some(), "{format}: detached");
            assert_eq!(repo.head_ref_name(), None, "{format}: detached");
        }
    }
}
