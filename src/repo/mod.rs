//! The repository edge: gix-backed access to commits, trees, the index and
//! the working tree. Everything the gate reads comes through here; nothing
//! here ever writes to the repository (merges are computed with in-memory
//! objects).

pub mod changes;
pub mod history;
mod loose;
pub mod merge;
pub mod merge_join;
pub(crate) mod parallel;
pub mod refs;
pub mod reftable;
pub mod remote;
pub mod signatures;
pub mod snapshot;
pub mod tree;

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use gix::ObjectId;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A repository problem: always "could not check".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoError {
    pub code: Code,
    pub message: String,
}

impl RepoError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        RepoError {
            code,
            message: message.into(),
        }
    }

    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::new(self.code, self.message.clone())
    }
}

impl std::fmt::Display for RepoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code.as_str())
    }
}

impl std::error::Error for RepoError {}

pub type Result<T> = std::result::Result<T, RepoError>;

/// The error for a `git` process that could not be started (`what` says
/// which command, for what): a missing program is `git_not_found`, naming
/// the PATH that was searched, since a server hook's environment or a
/// container may have no git; any other failure is `otherwise`.
pub(crate) fn git_spawn_error(what: &str, error: &std::io::Error, otherwise: Code) -> RepoError {
    if error.kind() == std::io::ErrorKind::NotFound {
        let path = std::env::var_os("PATH").map_or_else(
            || "PATH is not set".to_string(),
            |path| format!("PATH={}", path.to_string_lossy()),
        );
        return RepoError::new(
            Code::git_not_found,
            format!(
                "{what}: there is no `git` program on the PATH this process searched ({path}); the gate needs git {} or newer where it runs",
                merge::MERGE_TREE_GIT
            ),
        );
    }
    RepoError::new(otherwise, format!("{what}: {error}"))
}

/// The object format git says the repository at `dir` uses (`sha1`,
/// `sha256`), asked of git only when the repository cannot be opened.
fn object_format(dir: &Path) -> Option<String> {
    let output = std::process::Command::new("git")
        .current_dir(dir)
        .args(["rev-parse", "--show-object-format"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .filter(|format| !format.is_empty())
}

fn object_error(what: &str, error: impl std::fmt::Display) -> RepoError {
    RepoError::new(Code::git_object_unavailable, format!("{what}: {error}"))
}

/// What a receipt or statement records as the object format of `repo`:
/// `None` for SHA-1 (the format every record without the field was made
/// in), else its name (`sha256`).
pub fn object_format_field(repo: &Repo) -> Option<String> {
    let format = repo.gix().object_hash();
    (format != gix::hash::Kind::Sha1).then(|| format.to_string())
}

/// The delta base cache's size when `core.deltaBaseCacheLimit` does not
/// set one: below git's 96 MiB, as the gate's heap budget is 32 MiB, and
/// enough for the trees a range's diffs read again and again.
const DELTA_BASE_CACHE_BYTES: usize = 4 * 1024 * 1024;

/// Keep the objects that deltas in a pack are built on, as git does
/// (`core.deltaBaseCacheLimit`): without it every object read from a pack
/// inflates its whole delta chain again, which was half of `check --ci`
/// over a range of 3,000 commits. `0` turns it off, as in git.
fn delta_base_cache(repo: &mut gix::Repository) {
    let configured = repo
        .config_snapshot()
        .integer("core.deltaBaseCacheLimit")
        .and_then(|bytes| usize::try_from(bytes).ok());
    match configured.unwrap_or(DELTA_BASE_CACHE_BYTES) {
        0 => repo.objects.unset_pack_cache(),
        bytes => repo.objects.set_pack_cache(move || {
            Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(bytes))
        }),
    }
}

/// A repository as [`Repo::discover_shared`] found it, which any thread
/// can take over ([`Repo::from_shared`]); a [`Repo`] belongs to the thread
/// that made it.
#[derive(Clone)]
pub struct SharedRepo(gix::ThreadSafeRepository);

/// An opened repository.
pub struct Repo {
    inner: gix::Repository,
    /// Where its objects are (the pre-receive quarantine first, then the
    /// repository's own store): what a git child process must read.
    object_dirs: Vec<PathBuf>,
    /// Merges computed so far ([`merge`]), by (ours, theirs).
    merges: RefCell<HashMap<(ObjectId, ObjectId), Option<merge::Merge>>>,
    /// Whether merges may still be computed in bulk ([`Repo::prepare_merges`]):
    /// cleared once a batch fails (a git without `--stdin`), so the rest
    /// go one by one without trying again.
    batch_merges: std::cell::Cell<bool>,
    /// A batch of merges git is computing in the background
    /// ([`Repo::start_merges`]).
    pending_merges: RefCell<Option<merge::PendingMerges>>,
    /// The tree of every commit read so far ([`Repo::commit_tree`]): a
    /// range's changes ask for each parent's tree, whose commit the walk
    /// has already decoded.
    pub(crate) commit_trees: RefCell<HashMap<ObjectId, ObjectId>>,
    /// Merge bases found so far, by the pair asked ([`Repo::merge_base`]):
    /// CI's landing asks for the same pair twice, each a walk of history.
    merge_bases: RefCell<HashMap<(ObjectId, ObjectId), Option<ObjectId>>>,
    /// Large trees decoded once into a name index (`.mastermind/tasks` with
    /// thousands of folders): a lookup there costs a hash, not a scan, so
    /// one change touching N task folders costs O(N), not O(N²).
    pub(crate) tree_index: RefCell<HashMap<ObjectId, std::rc::Rc<history::TreeIndex>>>,
    /// The index as last decoded, with the stat data of the file it was
    /// decoded from: a later read of an unchanged file (the runner's
    /// snapshots before and after a check) reuses it.
    pub(crate) index_memo: RefCell<Option<tree::IndexMemo>>,
    /// Small blobs read so far, by id ([`Repo::read_blob`]): one gate run
    /// reads a task's spec, report and receipt several times, and a blob
    /// just staged is a loose object, opened and inflated on every read.
    pub(crate) small_blobs: RefCell<HashMap<ObjectId, std::rc::Rc<Vec<u8>>>>,
    /// Their bytes in all.
    pub(crate) small_blob_bytes: std::cell::Cell<usize>,
    /// Loose objects read so far, by id ([`Repo::read_loose`]); `None`:
    /// not a loose object this reader reads (gix answers for it).
    pub(crate) loose_seen: RefCell<loose::Seen>,
    /// Index checksums being verified on threads of their own, when the
    /// caller joins them itself ([`Repo::defer_index_checksums`]); `None`:
    /// every index read waits for its own.
    pub(crate) index_checksums: RefCell<Option<tree::PendingChecksums>>,
    /// Where its references are kept, and so who reads them ([`refs`]).
    ref_store: refs::RefStore,
    /// What was read through git of them ([`refs`]).
    refs_memo: refs::Memo,
}

impl Repo {
    /// Open the repository the way a hook sees it: `GIT_DIR`, `GIT_WORK_TREE`
    /// and `GIT_INDEX_FILE` are honoured, else discovery from `dir` upwards.
    ///
    /// Replace refs (`git replace`) are ignored: they are local, unpushed
    /// and would let a repository show the gate another commit than the one
    /// git transfers.
    pub fn discover(dir: &Path) -> Result<Repo> {
        Repo::discover_shared(dir).map(Repo::from_shared)
    }

    /// What [`Repo::discover`] finds, before a thread makes it its own: one
    /// thread discovers the repository (its configuration files, HEAD, its
    /// object directories), and each thread that judges it takes it over
    /// with [`Repo::from_shared`] without reading any of that again.
    pub fn discover_shared(dir: &Path) -> Result<SharedRepo> {
        let mut trust = gix::sec::trust::Mapping::<gix::open::Options>::default();
        let no_replace = ["core.useReplaceRefs=false"];
        trust.full = trust.full.config_overrides(no_replace);
        trust.reduced = trust.reduced.config_overrides(no_replace);
        gix::ThreadSafeRepository::discover_with_environment_overrides_opts(
            dir,
            Default::default(),
            trust,
        )
        .map(SharedRepo)
        .map_err(|e| match object_format(dir).as_deref() {
            Some(format) if format != "sha1" && format != "sha256" => RepoError::new(
                Code::git_object_format_unsupported,
                format!(
                    "the repository at {} uses {} object ids (`extensions.objectFormat = {format}`), which this build of mastermind-hooks cannot read: it reads SHA-1 and SHA-256 repositories, so nothing was checked",
                    dir.display(),
                    format.to_ascii_uppercase().replace("SHA", "SHA-")
                ),
            ),
            _ => RepoError::new(
                Code::git_repository_unavailable,
                format!("no git repository at {}: {e}", dir.display()),
            ),
        })
    }

    /// This thread's handle on a discovered repository: its own caches,
    /// over the object store the discovery opened.
    pub fn from_shared(shared: SharedRepo) -> Repo {
        // Merges write their result trees to memory, never to the object
        // store. A small object cache: a range's commits share most trees.
        let mut inner = shared.0.to_thread_local().with_object_memory();
        inner.object_cache_size_if_unset(8 * 1024 * 1024);
        delta_base_cache(&mut inner);
        Repo::wrap(inner)
    }

    fn wrap(inner: gix::Repository) -> Repo {
        let own = inner.common_dir().join("objects");
        let ref_store = refs::RefStore::of(&inner);
        Repo {
            ref_store,
            refs_memo: refs::Memo::default(),
            inner,
            object_dirs: vec![own],
            merges: RefCell::new(HashMap::new()),
            batch_merges: std::cell::Cell::new(true),
            pending_merges: RefCell::new(None),
            commit_trees: RefCell::new(HashMap::new()),
            merge_bases: RefCell::new(HashMap::new()),
            tree_index: RefCell::new(HashMap::new()),
            index_memo: RefCell::new(None),
            small_blobs: RefCell::new(HashMap::new()),
            small_blob_bytes: std::cell::Cell::new(0),
            loose_seen: RefCell::new(loose::Seen::default()),
            index_checksums: RefCell::new(None),
        }
    }

    /// Open the repository at `dir` itself (its working tree or git dir),
    /// ignoring `GIT_DIR` and friends: for a submodule's own repository
    /// while a hook's variables name the superproject.
    pub fn open(dir: &Path) -> Result<Repo> {
        let repo = gix::open_opts(dir, gix::open::Options::isolated()).map_err(|e| {
            RepoError::new(
                Code::git_repository_unavailable,
                format!("no git repository at {}: {e}", dir.display()),
            )
        })?;
        Ok(Repo::wrap(repo.with_object_memory()))
    }

    /// The same repository reading its objects through `objects` (the
    /// pre-receive quarantine), still without writing any; `dirs` are the
    /// object directories behind it, for git child processes.
    pub fn with_object_store(mut self, objects: gix::OdbHandle, dirs: Vec<PathBuf>) -> Repo {
        self.inner.objects = objects;
        delta_base_cache(&mut self.inner);
        Repo {
            ref_store: self.ref_store,
            refs_memo: refs::Memo::default(),
            inner: self.inner.with_object_memory(),
            object_dirs: dirs,
            merges: RefCell::new(HashMap::new()),
            batch_merges: std::cell::Cell::new(true),
            pending_merges: RefCell::new(None),
            commit_trees: RefCell::new(HashMap::new()),
            merge_bases: RefCell::new(HashMap::new()),
            tree_index: RefCell::new(HashMap::new()),
            index_memo: RefCell::new(None),
            small_blobs: RefCell::new(HashMap::new()),
            small_blob_bytes: std::cell::Cell::new(0),
            loose_seen: RefCell::new(loose::Seen::default()),
            index_checksums: RefCell::new(None),
        }
    }

    /// From now on, an index read hands its checksum's verification to a
    /// thread that [`Repo::settle_index_checksums`] joins, instead of waiting
    /// for it: the caller must settle before it acts on what it read.
    pub fn defer_index_checksums(&self) {
        self.index_checksums
            .borrow_mut()
            .get_or_insert_with(Vec::new);
    }

    /// Wait for every deferred index checksum: an index whose checksum
    /// does not hold is unavailable, and so is anything judged from it.
    /// Reads after this wait for their own again.
    pub fn settle_index_checksums(&self) -> Result<()> {
        let pending = self.index_checksums.borrow_mut().take().unwrap_or_default();
        let mut first = None;
        for tree::PendingChecksum {
            path,
            handle,
            mapping,
        } in pending
        {
            if let Err(e) = tree::checksum_verdict(&path, handle.join()) {
                first.get_or_insert(e);
            }
            // Unmapped only now, the thread gone (tree::spawn_shared_checksum).
            drop(mapping);
        }
        first.map_or(Ok(()), Err)
    }

    pub fn gix(&self) -> &gix::Repository {
        &self.inner
    }

    /// The author (`committer: false`) or committer `git commit` would
    /// record, as "Name <email>", resolved as gix's own `author()` and
    /// `committer()` do (environment, `author.*` or `committer.*`, then
    /// `user.*`, then gix's fallbacks; name and email independently), but
    /// without the date: gix computes the local time with them, which loads
    /// the time-zone database (a walk of the zoneinfo directory, about a
    /// millisecond) for a date the gate never reads.
    pub fn person(&self, committer: bool) -> Option<String> {
        use gix::bstr::ByteSlice;
        use gix::config::tree::{Author, Committer, User, gitoxide};
        let config = self.inner.config_snapshot();
        let (name, email, name_fallback, email_fallback) = if committer {
            (
                Committer::NAME,
                Committer::EMAIL,
                gitoxide::Committer::NAME_FALLBACK,
                gitoxide::Committer::EMAIL_FALLBACK,
            )
        } else {
            (
                Author::NAME,
                Author::EMAIL,
                gitoxide::Author::NAME_FALLBACK,
                gitoxide::Author::EMAIL_FALLBACK,
            )
        };
        let name = config
            .string(name)
            .or_else(|| config.string(User::NAME))
            .or_else(|| config.string(name_fallback))?;
        let email = config
            .string(email)
            .or_else(|| config.string(User::EMAIL))
            .or_else(|| config.string(gitoxide::User::EMAIL_FALLBACK))
            .or_else(|| config.string(email_fallback))?;
        Some(format!(
            "{} <{}>",
            name.to_str_lossy().trim(),
            email.to_str_lossy().trim()
        ))
    }

    /// The working tree root, for non-bare repositories.
    pub fn workdir(&self) -> Option<&Path> {
        self.inner.workdir()
    }

    pub fn git_dir(&self) -> &Path {
        self.inner.git_dir()
    }

    /// The index file git would use: `GIT_INDEX_FILE` when set, else the
    /// repository's own.
    pub fn index_path(&self) -> PathBuf {
        match std::env::var_os("GIT_INDEX_FILE") {
            Some(path) if !path.is_empty() => {
                let path = PathBuf::from(path);
                if path.is_absolute() {
                    path
                } else {
                    std::env::current_dir()
                        .map(|cwd| cwd.join(&path))
                        .unwrap_or(path)
                }
            }
            _ => self.inner.index_path(),
        }
    }

    /// Resolve a revision to a commit id.
    pub fn resolve_commit(&self, rev: &str) -> Result<ObjectId> {
        let id = self.revision_id(rev)?;
        let object = self
            .inner
            .find_object(id)
            .map_err(|e| object_error(&format!("revision `{rev}`"), e))?;
        let commit = object.peel_to_commit().map_err(|e| {
            RepoError::new(
                Code::git_revision_unknown,
                format!("revision `{rev}` is not a commit: {e}"),
            )
        })?;
        Ok(commit.id)
    }

    /// The commit a revision names after peeling tags, `None` when it names
    /// a tree or a blob (a tag of one carries no commit).
    pub fn commit_of(&self, rev: &str) -> Result<Option<ObjectId>> {
        let id = self.revision_id(rev)?;
        let object = self
            .inner
            .find_object(id)
            .map_err(|e| object_error(&format!("revision `{rev}`"), e))?;
        let peeled = object
            .peel_tags_to_end()
            .map_err(|e| object_error(&format!("revision `{rev}`"), e))?;
        Ok((peeled.kind == gix::object::Kind::Commit).then_some(peeled.id))
    }

    /// The commit HEAD points to, or `None` before the first commit.
    pub fn head_commit(&self) -> Result<Option<ObjectId>> {
        self.head_state().map(|(id, _)| id)
    }

    /// The full name of the branch HEAD points at (`refs/heads/main`), if
    /// HEAD is a symbolic ref.
    pub fn head_ref_name(&self) -> Option<String> {
        self.head_state().ok().and_then(|(_, name)| name)
    }

    /// True when the object exists and is a commit.
    pub fn has_commit(&self, id: ObjectId) -> bool {
        self.inner
            .find_object(id)
            .is_ok_and(|object| object.kind == gix::object::Kind::Commit)
    }

    /// `git --git-dir <this repository>`, with none of the caller's
    /// repository variables, no replace refs (as the gate reads objects)
    /// and no prompt for credentials.
    pub(crate) fn git_command(&self) -> std::process::Command {
        let mut command = std::process::Command::new("git");
        crate::process_env::clear_inherited_git_vars(&mut command);
        command
            .arg("--git-dir")
            .arg(self.git_dir())
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_TERMINAL_PROMPT", "0");
        command
    }

    /// The tree of a commit.
    pub fn commit_tree(&self, commit: ObjectId) -> Result<ObjectId> {
        if let Some(tree) = self.commit_trees.borrow().get(&commit) {
            return Ok(*tree);
        }
        let data = self.loose_or(&commit, gix::object::Kind::Commit, || {
            self.inner
                .find_commit(commit)
                .map(|found| found.detach().data)
                .map_err(|e| object_error(&format!("commit {commit}"), e))
        })?;
        let tree = gix::objs::CommitRefIter::from_bytes(&data, commit.kind())
            .tree_id()
            .map_err(|e| object_error("commit tree", e))?;
        self.commit_trees.borrow_mut().insert(commit, tree);
        Ok(tree)
    }

    /// The best merge base of two commits.
    pub fn merge_base(&self, one: ObjectId, two: ObjectId) -> Result<Option<ObjectId>> {
        if let Some(known) = self.merge_bases.borrow().get(&(one, two)) {
            return Ok(*known);
        }
        let base = self
            .inner
            .merge_base(one, two)
            .map(|base| base.map(|id| id.detach()))
            .map_err(|e| {
                RepoError::new(
                    Code::git_object_unavailable,
                    format!("cannot compute the merge base of {one} and {two}: {e}"),
                )
            })?;
        self.merge_bases.borrow_mut().insert((one, two), base);
        Ok(base)
    }

    /// True for a partial clone (`git clone --filter=...`): objects may be
    /// missing, to be fetched from a promisor remote.
    pub fn is_partial_clone(&self) -> bool {
        let config = self.inner.config_snapshot();
        config.string("extensions.partialClone").is_some()
            || self.inner.remote_names().iter().any(|name| {
                config.boolean(format!("remote.{name}.promisor").as_str()) == Some(true)
            })
    }

    pub fn is_shallow(&self) -> bool {
        self.inner.is_shallow().unwrap_or(false)
    }

    /// The object id git would give `data` as a blob.
    pub fn blob_id(&self, data: &[u8]) -> Result<ObjectId> {
        gix::objs::compute_hash(self.inner.object_hash(), gix::object::Kind::Blob, data)
            .map_err(|e| object_error("hashing a blob", e))
    }
}

/// Test support: the real `git` binary, run in a directory.
#[cfg(test)]
pub(crate) mod test_git {
    /// Run `git args` in `dir` (as a user `t`); its trimmed stdout. Panics,
    /// with git's stderr, when git fails.
    pub(crate) fn git(dir: &std::path::Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    /// Make a repository at `dir` on branch `branch`, its references in the
    /// store `refs` (`files`, `reftable`) and its objects in the format
    /// `objects` (`sha1`, `sha256`; `None`: git's default, which the test
    /// runs vary with `GIT_DEFAULT_HASH`).
    pub(crate) fn init(dir: &std::path::Path, branch: &str, refs: &str, objects: Option<&str>) {
        let refs = format!("--ref-format={refs}");
        let mut args = vec!["init", "-q", "-b", branch, &refs];
        let objects = objects.map(|format| format!("--object-format={format}"));
        args.extend(objects.as_deref());
        git(dir, &args);
    }

    /// Leave the repository at `dir`, on `main`, in a merge that conflicts
    /// on `path`: a branch `other` from HEAD and `main` each commit their
    /// own content of it, and `main` merges `other`.
    pub(crate) fn conflicted_merge(dir: &std::path::Path, path: &str) {
        git(dir, &["checkout", "-qb", "other"]);
        std::fs::write(dir.join(path), "theirs\n").unwrap();
        git(dir, &["commit", "-qam", "theirs"]);
        git(dir, &["checkout", "-q", "main"]);
        std::fs::write(dir.join(path), "ours\n").unwrap();
        git(dir, &["commit", "-qam", "ours"]);
        let merged = std::process::Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(["merge", "-q", "other"])
            .output()
            .unwrap();
        assert!(!merged.status.success(), "the merge conflicts");
    }

    /// A new repository on branch `main` holding `files` (path, content)
    /// in its working tree, nothing staged.
    pub(crate) fn repository_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        for (path, body) in files {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), body).unwrap();
        }
        dir
    }
}
