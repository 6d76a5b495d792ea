//! `verification run`: run a spec's observed checks as declared and write
//! their tree receipts (`<task>/verification/<id>.tree.json`).
//!
//! Order of events, each step fail-closed:
//!
//! 1. read the spec (inside the repository, reached without links; in an
//!    isolated run, from the index or `--rev`) and its declarations; pick
//!    the checks (`--id`, or `--all` in declaration order); refusals write
//!    nothing, and a wrong id lists the declared ones;
//! 2. refuse a submodule checkout the digest would not see (see
//!    [`submodules`]); for `--isolated`, make a git worktree of the view in
//!    a temporary directory outside the repository ([`place`]: its files
//!    written from their blobs by [`checkout`], `git ls-files` and `git diff`
//!    working there) and run `rerun.setup` from HEAD's configuration in it
//!    ([`setup`]), as `check --ci --rerun` does;
//! 3. open `<task>/verification/` and take its `run.lock` without following
//!    links or blocking ([`records`]; a second runner is refused with
//!    `verification_busy`);
//! 4. per check: write a `pending` receipt (previous attempt + 1) *before*
//!    anything else, so an interrupted or killed run never leaves an older
//!    success (an isolated run keeps its attempt aside, under the git
//!    directory, and puts it in place of the task's receipt only when it
//!    passed: it never destroys the record of an earlier run, [`records`]); resolve the cwd and the executable, take the tree-v2 digest
//!    (the working tree, or the checkout's content), write `pending` again
//!    with them;
//! 5. run argv directly (no shell unless argv names one), stdin null, its
//!    own process group, repository-local git variables removed, the
//!    declared timeout and the 1 MiB stream cap killing the whole group,
//!    its output streamed to stderr while it is hashed ([`echo`]);
//! 6. take the digest again (or verify the checkout's files) and re-resolve
//!    the executable and the spec: any change is `input_changed`, and the
//!    paths that appeared, changed or vanished are named;
//! 7. check for SIGINT/SIGTERM one last time ([`signals`]), then write the
//!    final receipt atomically (temporary file, fsync, rename; mode 0600).
//!    The `pending` receipts of step 4 are renamed into place without the
//!    flushes: they replace an older result for every reader and across
//!    the runner's death, and a power loss that brought an older receipt
//!    back would bring back its tree digest with it, which the gate
//!    compares with what lands.

pub mod attestation;
pub mod checkout;
pub mod echo;
mod error;
pub mod executable;
pub mod execute;
pub mod hint;
pub mod place;
pub mod records;
pub mod rerun;
pub mod secrets;
pub mod setup;
pub mod signals;
pub mod snapshot;
pub mod submodules;
pub mod supervise;

use crate::codes::Code;
use crate::config::{CONFIG_PATH, Config, MAX_CONFIG_BYTES};
use crate::contract::mastermind::argv_display::{RunDeclaration, declaration_sha256};
use crate::contract::mastermind::receipt::{Executable, PROVENANCE, Status, StreamDigest};
use crate::contract::mastermind::spec::{self, MAX_SPEC_BYTES};
use crate::contract::mastermind::territory::{Leaf, Territory};
use crate::contract::mastermind::tree_receipt::{
    MAX_TREE_RECEIPT_BYTES, SpecBinding, TREE_RECEIPT_SCHEMA_VERSION, TreeReceipt,
};
use crate::diagnostic::{Diagnostic, Severity};
use crate::digest::TREE_DIGEST_VERSION;
use crate::digest::TreeDigester;
use crate::digest::file_memo::FileMemo;
use crate::repo::Repo;
use crate::repo::tree::{Content, View};
use crate::safe_fs::Dir;
pub use error::RunError;
use records::{Aside, Records};
use sha2::{Digest, Sha256};
use snapshot::{Changes, Snapshot};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The reason recorded when inputs changed during the run.
pub const INPUTS_CHANGED: &str = "verification_inputs_changed_or_unavailable";

/// Room a receipt keeps for its `reason` when the territory record's size
/// is judged (the reasons the runner writes are shorter).
const RECEIPT_REASON_ROOM: usize = 1024;
/// Room a receipt keeps below the limit for fields whose width varies
/// (durations, byte counts, paths of the executable).
const RECEIPT_MARGIN: usize = 4096;

/// Which declared checks to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Select {
    /// The check with this `run.id`.
    One(String),
    /// Every observed check, in declaration order.
    All,
}

/// Where checks run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The working tree itself.
    Worktree,
    /// A temporary checkout of exactly the index (`rev: None`) or of a
    /// commit's tree.
    Isolated { rev: Option<String> },
}

/// The content paths a task changed when `view` (the content a check runs
/// on) lands on HEAD, as the gate attributes them: the paths of the task's
/// commits, of the commits that belong to it, and every content path where
/// `view` differs from HEAD. Given the repository, the configuration whose
/// agent-file globs say what is bookkeeping, the view and the task's
/// directory. The runner lives below the gate, so the caller supplies it.
pub type ChangedPaths<'a> =
    &'a dyn Fn(&Repo, &Config, &View, &str) -> Result<BTreeSet<String>, Diagnostic>;

/// What to run and how.
#[derive(Clone)]
pub struct Request<'a> {
    pub spec: &'a Path,
    pub select: Select,
    pub source: Source,
    /// Stream the check's output to stderr while it runs.
    pub stream: bool,
    /// The task's changed paths, for the receipt's territory record.
    pub changed_paths: ChangedPaths<'a>,
}

/// A finished run: the receipt written, where, and what to tell the user.
#[derive(Debug)]
pub struct Finished {
    pub receipt: TreeReceipt,
    /// Repository-relative path of the receipt.
    pub path: String,
    /// Notes and hints about the outcome (changed paths, the re-run
    /// command).
    pub notes: Vec<Diagnostic>,
}

/// A path or name from the repository, safe to print (control characters
/// escaped).
fn shown(text: &str) -> String {
    echo::escape(text.as_bytes())
}

fn refuse(code: Code, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, message)
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn random_run_id() -> Result<String, Diagnostic> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        refuse(
            Code::verification_io_failed,
            format!("no randomness for run_id: {e}"),
        )
    })?;
    Ok(hex::encode(bytes))
}

/// The spec's repository-relative path, checked to be inside the working
/// tree (its directory canonicalized; the file itself is opened later
/// without following a link).
pub(crate) fn locate_spec(root: &Path, spec: &Path) -> Result<(PathBuf, String), Diagnostic> {
    let invalid = |m: String| refuse(Code::verification_spec_invalid, m);
    let absolute = if spec.is_absolute() {
        spec.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| invalid(format!("no current directory: {e}")))?
            .join(spec)
    };
    let name = absolute
        .file_name()
        .ok_or_else(|| invalid(format!("{} names no file", spec.display())))?;
    let parent = absolute
        .parent()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .ok_or_else(|| {
            invalid(format!(
                "{}: the spec's directory does not exist",
                spec.display()
            ))
        })?;
    let full = parent.join(name);
    let relative = full.strip_prefix(root).map_err(|_| {
        invalid(format!(
            "{} is outside the repository {}",
            spec.display(),
            root.display()
        ))
    })?;
    let relative = relative
        .to_str()
        .ok_or_else(|| invalid(format!("{} is not a UTF-8 path", spec.display())))?
        .replace('\\', "/");
    Ok((full, relative))
}

const DECLARATION_CODES: &[Code] = &[
    Code::frontmatter_invalid,
    Code::frontmatter_unterminated,
    Code::verification_declaration_limit,
    Code::verification_id_invalid,
    Code::verification_cmd_ambiguous,
    Code::verification_argv_invalid,
    Code::verification_argv_shell_operator,
    Code::verification_cwd_not_canonical,
    Code::verification_cmd_mismatch,
];

/// Every observed check the spec declares, in order, or why it cannot be
/// used.
pub fn declarations(bytes: &[u8], spec: &str) -> Result<Vec<(String, RunDeclaration)>, Diagnostic> {
    let (parsed, diagnostics) = spec::check(bytes);
    if let Some(d) = diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error && DECLARATION_CODES.contains(&d.code))
    {
        return Err(refuse(
            Code::verification_spec_invalid,
            format!("{}: {} ({})", shown(spec), d.message, d.code.as_str()),
        )
        .with_path(spec.to_string())
        .with_line(d.line)
        .with_hint(match &d.hint {
            // The rule's own fix (a declared shell, the display form of argv).
            Some(fix) => format!(
                "{}{} Check the spec with `{}`, then run again.",
                fix.trim_end(),
                if fix.trim_end().ends_with('.') {
                    ""
                } else {
                    "."
                },
                hint::validate_command(spec)
            ),
            None => format!(
                "Fix the spec's front matter, check it with `{}`, then run again.",
                hint::validate_command(spec)
            ),
        }));
    }
    let frontmatter = parsed.frontmatter.ok_or_else(|| {
        refuse(
            Code::verification_spec_invalid,
            format!(
                "{} has no front matter declaring observed checks",
                shown(spec)
            ),
        )
        .with_path(spec.to_string())
    })?;
    Ok(frontmatter
        .observed()
        .map(|(cmd, run)| (cmd.to_string(), run.clone()))
        .collect())
}

/// The declarations `select` names, or a refusal that lists the declared
/// ids.
pub fn select(
    declared: Vec<(String, RunDeclaration)>,
    select: &Select,
    spec: &str,
) -> Result<Vec<(String, RunDeclaration)>, Diagnostic> {
    let ids: Vec<String> = declared
        .iter()
        .map(|(_, r)| format!("`{}`", r.id))
        .collect();
    if declared.is_empty() {
        return Err(refuse(
            Code::observed_verification_not_declared,
            format!(
                "observed_verification_not_declared: {} declares no observed checks (`verify[]` entries with a `run` block)",
                shown(spec)
            ),
        )
        .with_path(spec.to_string())
        .with_hint("Declare the check under `verify:` with `run: {id, argv, cwd, timeout_secs}` (see `mastermind-hooks schema spec-frontmatter-v1`), then run again."));
    }
    match select {
        Select::All => Ok(declared),
        Select::One(id) => {
            let first = declared[0].1.id.clone();
            let found: Vec<_> = declared.into_iter().filter(|(_, r)| &r.id == id).collect();
            if found.is_empty() {
                return Err(refuse(
                    Code::observed_verification_not_declared,
                    format!(
                        "observed_verification_not_declared: {} declares no observed check `{}`; it declares {}",
                        shown(spec),
                        shown(id),
                        ids.join(", ")
                    ),
                )
                .with_path(spec.to_string())
                .with_hint(format!(
                    "Run a declared one, for example `{}`, or every one with `{}`.",
                    hint::run_command(spec, Some(&first)),
                    hint::run_command(spec, None)
                )));
            }
            Ok(found)
        }
    }
}

fn stream(s: &supervise::Stream) -> Option<StreamDigest> {
    (s.complete && s.bytes <= supervise::STREAM_CAP).then(|| StreamDigest {
        bytes: s.bytes,
        sha256: s.sha256.clone(),
    })
}

fn executable_record(resolved: &executable::Resolved) -> Executable {
    Executable {
        invocation_path: resolved.invocation_path.to_string_lossy().into_owned(),
        resolved_path: resolved.resolved_path.to_string_lossy().into_owned(),
        sha256: resolved.sha256.clone(),
    }
}

/// Where the checks of one invocation run, and what they are compared with.
// One value per invocation, never in a collection: the isolated variant's
// size (object ids as wide as SHA-256's) costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
enum Place {
    Worktree {
        /// The snapshot the next check starts from, when known.
        last: Option<Box<Snapshot>>,
    },
    Isolated {
        place: place::Place,
        /// The view written there.
        view: Box<View>,
        /// The tree digest of the view written there.
        digest: String,
        /// Where this run's attempts are kept until one passes.
        aside: Aside,
    },
}

/// The configuration whose agent-file globs decide what the tree digest
/// covers: the working tree's, as `check --worktree` reads it; the strict
/// defaults when it is absent or invalid (the gate reports an invalid one).
fn digest_config(root: &Path) -> Config {
    crate::input::read_bounded_no_follow(&root.join(CONFIG_PATH), MAX_CONFIG_BYTES)
        .ok()
        .and_then(|bytes| Config::parse(&bytes, CONFIG_PATH).ok())
        .unwrap_or_else(Config::strict_defaults)
}

/// Everything one invocation shares between its checks.
struct Context<'a> {
    repo: &'a Repo,
    task: Dir,
    spec_rel: String,
    spec_name: String,
    spec_sha: String,
    records: Records,
    place: Place,
    /// One tree digester for every snapshot of the invocation: the sha256
    /// cache is read once and learns every file a snapshot reads (saved
    /// when the digester is dropped).
    digester: TreeDigester<'a>,
    /// The sha256 of large executables by file identity (saved when the
    /// context is dropped), so `node` is not read twice per check.
    executables: FileMemo<'a>,
    interrupt: &'a AtomicBool,
    stream: bool,
    /// The paths of the task's territory, recorded with what each check
    /// runs on, each with whether the task had changed it.
    territory: Vec<(String, bool)>,
}

fn spec_sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The spec's bytes in the view an isolated run checks out.
fn spec_in_view(repo: &Repo, view: &View, spec_rel: &str) -> Result<Vec<u8>, Diagnostic> {
    match view.read(repo, spec_rel, MAX_SPEC_BYTES) {
        Ok(Some(Content::Bytes(bytes))) if bytes.len() <= MAX_SPEC_BYTES => Ok(bytes),
        Ok(None) => Err(refuse(
            Code::verification_spec_invalid,
            format!(
                "{} is not in {}; an isolated run checks exactly that content (`git add` it first, or pass --rev)",
                shown(spec_rel),
                view.label
            ),
        )
        .with_path(spec_rel.to_string())),
        Ok(Some(_)) => Err(refuse(
            Code::verification_spec_invalid,
            format!(
                "{} is too large or not a regular file in {}",
                shown(spec_rel),
                view.label
            ),
        )
        .with_path(spec_rel.to_string())),
        Err(e) => Err(e.to_diagnostic()),
    }
}

/// Keep memory the process frees for its next allocations instead of
/// handing it back to the kernel. A run takes two snapshots of the working
/// tree, each allocating the same few megabytes; glibc serves allocations
/// that large with fresh mappings and unmaps them when freed, so the second
/// snapshot paid a page fault for every page again (482 of a run's 2,217 on
/// the bench's limit repository). Elsewhere the default stays.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // glibc's largest accepted threshold on 64-bit systems.
        const KEEP: libc::c_int = 32 * 1024 * 1024;
        // SAFETY: mallopt takes the allocator's lock and only changes its
        // tuning parameters; no memory is touched.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, KEEP);
            libc::mallopt(libc::M_TRIM_THRESHOLD, KEEP);
        }
    }
}

/// Run the selected checks of `request.spec`; `report` sees each finished
/// run as soon as its receipt is written. `Err` is a refusal or a failure
/// before any check of this invocation could be recorded.
pub fn run(
    request: &Request<'_>,
    interrupt: &AtomicBool,
    mut report: impl FnMut(&Finished),
) -> Result<Vec<Finished>, Diagnostic> {
    keep_freed_memory();
    let cwd = std::env::current_dir().map_err(|e| {
        refuse(
            Code::verification_io_failed,
            format!("no current directory: {e}"),
        )
    })?;
    let repo = Repo::discover(&cwd).map_err(|e| e.to_diagnostic())?;
    let root = repo
        .workdir()
        .and_then(|w| std::fs::canonicalize(w).ok())
        .ok_or_else(|| {
            refuse(
                Code::git_worktree_unavailable,
                "verification run needs a working tree",
            )
        })?;
    let (_, spec_rel) = locate_spec(&root, request.spec)?;
    let (task_rel, spec_name) = match spec_rel.rsplit_once('/') {
        Some((dir, name)) => (dir.to_string(), name.to_string()),
        None => (String::new(), spec_rel.clone()),
    };
    let task = Dir::open_beneath(&root, &task_rel).map_err(|e| {
        refuse(
            Code::verification_path_unsafe,
            format!(
                "verification_path_unsafe: the task directory `{}` {e}",
                shown(&task_rel)
            ),
        )
        .with_path(task_rel.clone())
    })?;
    let spec_unreadable = |e: crate::safe_fs::Error| {
        refuse(
            Code::verification_spec_invalid,
            format!("{} {e}", shown(&spec_rel)),
        )
        .with_path(spec_rel.clone())
    };
    let (spec_bytes, view) = match &request.source {
        Source::Worktree => {
            let bytes = task
                .read_bounded(&spec_name, MAX_SPEC_BYTES)
                .map_err(spec_unreadable)?;
            (bytes, None)
        }
        Source::Isolated { rev } => {
            let view = match rev {
                None => View::from_index(&repo),
                Some(rev) => repo
                    .resolve_commit(rev)
                    .and_then(|id| View::from_commit(&repo, id)),
            }
            .map_err(|e| e.to_diagnostic())?;
            (spec_in_view(&repo, &view, &spec_rel)?, Some(view))
        }
    };
    if spec_bytes.len() > MAX_SPEC_BYTES {
        return Err(refuse(
            Code::verification_spec_invalid,
            format!("{} is larger than {MAX_SPEC_BYTES} bytes", shown(&spec_rel)),
        ));
    }
    let selected = select(
        declarations(&spec_bytes, &spec_rel)?,
        &request.select,
        &spec_rel,
    )?;
    let again = hint::run_command(
        &spec_rel,
        match &request.select {
            Select::One(id) => Some(id.as_str()),
            Select::All => None,
        },
    );
    // Submodule checkouts a check would see but the digest would not.
    let gitlinks = match &view {
        Some(view) => snapshot::gitlinks_of(view),
        None => snapshot::gitlinks_in_index(&repo)?,
    };
    snapshot::check_submodules(&repo, &gitlinks)?;
    let config = digest_config(&root);
    let mut digester = TreeDigester::new(&repo, &config, true);
    let place = match view {
        None => Place::Worktree { last: None },
        Some(view) => {
            let digest = digester.of_view(&view).map_err(|e| e.to_diagnostic())?;
            let parent = match &request.source {
                Source::Isolated { rev: Some(rev) } => repo.resolve_commit(rev).ok(),
                _ => repo.head_commit().ok().flatten(),
            };
            let place = place::Place::worktree(&repo, &view, None, parent, Some(&root), interrupt)?;
            let rerun = committed_config(&repo).rerun;
            let echo = request.stream.then(|| echo::Echo::start(echo::Style::Raw));
            let setup = setup::run(
                &place,
                &rerun,
                None,
                execute::Environment::Local,
                interrupt,
                echo.as_ref(),
            );
            if let Some(echo) = echo {
                echo.finish(Duration::from_secs(3));
            }
            setup?;
            let aside = Aside::open(repo.git_dir(), &task_rel)?;
            Place::Isolated {
                place,
                view: Box::new(view),
                digest,
                aside,
            }
        }
    };
    let records = Records::open(&task, &task_rel, &again)?;
    let declared: BTreeSet<String> = {
        let (parsed, _) = spec::check(&spec_bytes);
        spec::declared_paths::admit(&parsed)
            .targets
            .into_keys()
            .collect()
    };
    let mut context = Context {
        repo: &repo,
        task,
        spec_sha: spec_sha256(&spec_bytes),
        spec_rel,
        spec_name,
        records,
        place,
        digester,
        executables: FileMemo::new(&repo, true),
        interrupt,
        stream: request.stream,
        territory: Vec::new(),
    };
    // What each receipt records: the task's territory as the gate will
    // judge it, read from the content the first check runs on, before any
    // receipt is touched (a record that cannot fit refuses the run).
    context.territory = context.territory_paths(
        request.changed_paths,
        &config,
        &declared,
        &task_rel,
        &selected,
    )?;
    let mut finished = Vec::new();
    for (command, run) in selected {
        if interrupt.load(Ordering::SeqCst) {
            break;
        }
        let done = context.run_one(command, run)?;
        report(&done);
        finished.push(done);
    }
    if let Place::Isolated { place, .. } = context.place {
        place.remove();
    }
    Ok(finished)
}

/// The configuration as committed at HEAD (what `rerun.setup` an isolated
/// run uses): the defaults when there is none or it is unusable.
fn committed_config(repo: &Repo) -> Config {
    repo.head_commit()
        .ok()
        .flatten()
        .and_then(|head| View::from_commit(repo, head).ok())
        .and_then(
            |view| match view.read(repo, CONFIG_PATH, MAX_CONFIG_BYTES) {
                Ok(Some(Content::Bytes(bytes))) => Config::parse(&bytes, CONFIG_PATH).ok(),
                _ => None,
            },
        )
        .unwrap_or_else(Config::strict_defaults)
}

impl Context<'_> {
    fn new_receipt(
        &self,
        command: String,
        run: &RunDeclaration,
    ) -> Result<TreeReceipt, Diagnostic> {
        Ok(TreeReceipt {
            schema_version: TREE_RECEIPT_SCHEMA_VERSION,
            run_id: random_run_id()?,
            check_id: run.id.clone(),
            attempt: self.records.previous_attempt(&run.id).saturating_add(1),
            status: Status::Pending,
            reason: None,
            spec: SpecBinding {
                path: self.spec_rel.clone(),
                sha256: self.spec_sha.clone(),
            },
            declaration_sha256: declaration_sha256(&command, run),
            command,
            declaration: run.clone(),
            executable: None,
            tree_digest_version: TREE_DIGEST_VERSION,
            object_format: crate::repo::object_format_field(self.repo),
            tree_before: None,
            tree_after: None,
            territory: None,
            started_at: now_secs(),
            duration_ms: 0,
            exit_code: None,
            signal: None,
            stdout: None,
            stderr: None,
            runner_version: env!("CARGO_PKG_VERSION").to_string(),
            platform: std::env::consts::OS.to_string(),
            provenance: PROVENANCE.to_string(),
        })
    }

    /// The view the next check runs on (the working tree is read once and
    /// kept for the check that follows).
    fn current_view(&mut self) -> Result<&View, RunError> {
        if matches!(self.place, Place::Worktree { last: None }) {
            self.before()?;
        }
        match &self.place {
            Place::Isolated { view, .. } => Ok(view),
            Place::Worktree { last } => last.as_deref().map(Snapshot::view).ok_or_else(|| {
                RunError::SnapshotUnavailable(crate::repo::RepoError::new(
                    Code::internal_error,
                    "the working tree's snapshot was not kept",
                ))
            }),
        }
    }

    /// The territory's paths: the spec's declared files and the task's
    /// changed paths (`changed_paths`) as the view the first check runs on
    /// has them, bookkeeping left out (no digest covers it). Refused when
    /// their record would not fit in a receipt.
    fn territory_paths(
        &mut self,
        changed_paths: ChangedPaths<'_>,
        config: &Config,
        declared: &BTreeSet<String>,
        task_rel: &str,
        selected: &[(String, RunDeclaration)],
    ) -> Result<Vec<(String, bool)>, Diagnostic> {
        let repo = self.repo;
        let view = self.current_view().map_err(|e| {
            refuse(
                Code::verification_io_failed,
                format!("cannot read the content the check would run on: {e}"),
            )
        })?;
        let changed = changed_paths(repo, config, view, task_rel)?;
        let globs = config.agent_files();
        let covered = |p: &&String| !crate::bookkeeping::outside_digest(p, &globs);
        let mut paths: Vec<(String, bool)> = changed
            .iter()
            .filter(covered)
            .map(|p| (p.clone(), true))
            .collect();
        paths.extend(
            declared
                .iter()
                .filter(covered)
                .filter(|p| !changed.contains(*p))
                .map(|p| (p.clone(), false)),
        );
        // The largest receipt these paths can make: every path present,
        // every optional field filled.
        let widest = Territory::record(
            &"0".repeat(32),
            paths.iter().map(|(p, changed)| {
                (
                    p.as_str(),
                    Leaf::Present {
                        mode: "100644".into(),
                        sha256: "0".repeat(64),
                    },
                    *changed,
                )
            }),
        );
        for (command, run) in selected {
            let mut receipt = self.new_receipt(command.clone(), run)?;
            receipt.territory = Some(widest.clone());
            receipt.tree_before = Some("0".repeat(64));
            receipt.tree_after = receipt.tree_before.clone();
            receipt.reason = Some("r".repeat(RECEIPT_REASON_ROOM));
            let size = serde_json::to_vec_pretty(&receipt).map_or(usize::MAX, |b| b.len());
            let room = MAX_TREE_RECEIPT_BYTES - RECEIPT_MARGIN;
            if size > room {
                return Err(refuse(
                    Code::verification_territory_too_large,
                    format!(
                        "verification_territory_too_large: the receipt of check `{}` would record {} paths of the task's territory in about {size} bytes, more than the {room} a receipt may use (receipts are at most {MAX_TREE_RECEIPT_BYTES} bytes); nothing was run and no receipt was touched",
                        shown(&run.id),
                        paths.len()
                    ),
                )
                .with_path(self.records.receipt_path(&run.id))
                .with_hint(
                    "Split the task so that each declares and changes fewer files, or keep generated files out of the working tree (.gitignore); then run again.",
                ));
            }
        }
        Ok(paths)
    }

    /// What the check about to run runs on over the task's territory.
    fn territory_record(&mut self, run_id: &str) -> Result<Territory, RunError> {
        let paths = std::mem::take(&mut self.territory);
        let result = self.leaves(&paths, run_id);
        self.territory = paths;
        result
    }

    fn leaves(&mut self, paths: &[(String, bool)], run_id: &str) -> Result<Territory, RunError> {
        let view = self.current_view()?.clone();
        let names: Vec<&str> = paths.iter().map(|(p, _)| p.as_str()).collect();
        let leaves = self
            .digester
            .leaves(crate::repo::snapshot::Snapshot::View(&view), &names)
            .map_err(RunError::SnapshotUnavailable)?;
        Ok(Territory::record(
            run_id,
            paths.iter().zip(leaves).map(|((path, changed), leaf)| {
                let leaf = match leaf {
                    Some((mode, sha)) => Leaf::Present {
                        mode: mode.octal().to_string(),
                        sha256: hex::encode(sha),
                    },
                    None => Leaf::Absent,
                };
                (path.as_str(), leaf, *changed)
            }),
        ))
    }

    /// The digest a check starts from.
    fn before(&mut self) -> Result<String, RunError> {
        match &mut self.place {
            Place::Isolated { digest, .. } => Ok(digest.clone()),
            Place::Worktree { last } => {
                if let Some(snapshot) = last {
                    return Ok(snapshot.digest.clone());
                }
                let taken = snapshot::worktree(self.repo, &mut self.digester, None)
                    .map_err(RunError::SnapshotUnavailable)?;
                let digest = taken.digest.clone();
                *last = Some(Box::new(taken));
                Ok(digest)
            }
        }
    }

    /// The digest after a check (`None` when it could not be taken or the
    /// checkout's files changed), and what changed.
    fn after(&mut self) -> Result<(Option<String>, Changes), RunError> {
        match &mut self.place {
            Place::Isolated { place, digest, .. } => {
                let changes = place.verify();
                let after = changes.is_empty().then(|| digest.clone());
                Ok((after, changes))
            }
            Place::Worktree { last } => {
                let taken = snapshot::worktree(self.repo, &mut self.digester, last.as_deref());
                let taken = taken.map_err(RunError::SnapshotUnavailable)?;
                let changes = match last.as_deref() {
                    Some(before) if before.digest != taken.digest => {
                        snapshot::changes(before, &taken)
                    }
                    _ => Changes::default(),
                };
                let digest = taken.digest.clone();
                *last = Some(Box::new(taken));
                Ok((Some(digest), changes))
            }
        }
    }

    fn base(&self) -> PathBuf {
        match &self.place {
            Place::Isolated { place, .. } => place.root().to_path_buf(),
            Place::Worktree { .. } => self
                .repo
                .workdir()
                .and_then(|w| std::fs::canonicalize(w).ok())
                .unwrap_or_default(),
        }
    }

    fn spec_now(&self) -> Option<String> {
        match &self.place {
            // The view's spec cannot change under an isolated run.
            Place::Isolated { .. } => Some(self.spec_sha.clone()),
            Place::Worktree { .. } => self
                .task
                .read_bounded(&self.spec_name, MAX_SPEC_BYTES)
                .ok()
                .filter(|b| b.len() <= MAX_SPEC_BYTES)
                .map(|b| spec_sha256(&b)),
        }
    }

    /// Record the `pending` `receipt` where this run keeps its attempts: the
    /// task's receipt for a working-tree run, the aside record for an
    /// isolated one; atomic, not flushed to disk (only the finished receipt
    /// is: [`Context::publish`]).
    fn write_pending(&self, receipt: &TreeReceipt) -> Result<(), Diagnostic> {
        match &self.place {
            Place::Isolated { aside, .. } => aside.write_pending(receipt),
            Place::Worktree { .. } => self.records.write_pending(receipt),
        }
    }

    /// Write the finished receipt. An isolated run's pass replaces the
    /// task's receipt; any other outcome of it stays aside, and the task's
    /// earlier receipt is left as it was.
    fn publish(
        &self,
        receipt: TreeReceipt,
        mut notes: Vec<Diagnostic>,
    ) -> Result<Finished, Diagnostic> {
        let path = self.records.receipt_path(&receipt.check_id);
        let Place::Isolated { aside, .. } = &self.place else {
            self.records.write(&receipt)?;
            return Ok(Finished {
                receipt,
                path,
                notes,
            });
        };
        if receipt.status == Status::Passed && receipt.passed() {
            self.records.write(&receipt)?;
            aside.remove(&receipt.check_id);
            return Ok(Finished {
                receipt,
                path,
                notes,
            });
        }
        aside.write(&receipt)?;
        let kept = aside.path(&receipt.check_id);
        notes.push(
            Diagnostic::new(
                Code::verification_kept_aside,
                format!(
                    "the isolated run of `{}` did not pass; its receipt is kept aside at {}, and {} is left as it was",
                    receipt.check_id,
                    kept.display(),
                    shown(&path)
                ),
            )
            .with_path(path.clone()),
        );
        Ok(Finished {
            receipt,
            path: kept.display().to_string(),
            notes,
        })
    }

    /// Prepare `run` (its working directory and executable) and record in
    /// `receipt` what it starts from: the executable, the tree digest
    /// before, the territory. Returns the prepared run and that digest, or
    /// the status the run ends with and why: `spawn_failed` when it cannot
    /// be prepared, `io_failed` when what it starts from cannot be read.
    fn prepare(
        &mut self,
        receipt: &mut TreeReceipt,
        run: &RunDeclaration,
    ) -> Result<(execute::Prepared, String), (Status, RunError)> {
        let base = self.base();
        let prepared = execute::prepare(&base, run, &mut self.executables)
            .map_err(|reason| (Status::SpawnFailed, reason))?;
        receipt.executable = Some(executable_record(&prepared.resolved));
        let before = self.before().map_err(|reason| (Status::IoFailed, reason))?;
        receipt.tree_before = Some(before.clone());
        let territory = self
            .territory_record(&receipt.run_id)
            .map_err(|reason| (Status::IoFailed, reason))?;
        receipt.territory = Some(territory);
        Ok((prepared, before))
    }

    fn run_one(&mut self, command: String, run: RunDeclaration) -> Result<Finished, Diagnostic> {
        let mut receipt = self.new_receipt(command, &run)?;
        let mut notes = Vec::new();
        // Revoke any older result before preparing anything (an isolated
        // run's attempt is kept aside until it passes).
        self.write_pending(&receipt)?;
        let finish = |context: &Context<'_>,
                      mut receipt: TreeReceipt,
                      status: Status,
                      reason: Option<String>,
                      notes: Vec<Diagnostic>| {
            receipt.status = status;
            receipt.reason = reason;
            context.publish(receipt, notes)
        };

        if self.interrupt.load(Ordering::SeqCst) {
            return finish(
                self,
                receipt,
                Status::Interrupted,
                Some("runner_interrupted".into()),
                notes,
            );
        }

        // Prepare.
        let (prepared, before) = match self.prepare(&mut receipt, &run) {
            Ok(ready) => ready,
            Err((status, reason)) => {
                return finish(self, receipt, status, Some(reason.to_string()), notes);
            }
        };
        self.write_pending(&receipt)?;
        if self.interrupt.load(Ordering::SeqCst) {
            return finish(
                self,
                receipt,
                Status::Interrupted,
                Some("runner_interrupted".into()),
                notes,
            );
        }

        // Run.
        let (environment, ceiling) = match &self.place {
            Place::Isolated { place, .. } => (
                execute::Environment::Local,
                place.ceiling().map(Path::to_path_buf),
            ),
            Place::Worktree { .. } => (execute::Environment::Local, None),
        };
        let echo = self.stream.then(|| {
            eprintln!(
                "==> verification `{}`: {}",
                run.id,
                echo::escape(receipt.command.as_bytes())
            );
            echo::Echo::start(echo::Style::Raw)
        });
        let supervised = execute::start(
            &prepared,
            &run,
            Duration::from_secs(run.timeout_secs),
            self.interrupt,
            echo.as_ref().and_then(echo::Echo::sender),
            environment,
            ceiling.as_deref(),
        );
        if let Some(echo) = echo {
            echo.finish(Duration::from_secs(3));
        }
        let supervised = match supervised {
            Ok(s) => s,
            Err(e) => {
                return finish(
                    self,
                    receipt,
                    Status::SpawnFailed,
                    Some(format!("spawn_failed: {e}")),
                    notes,
                );
            }
        };
        receipt.duration_ms = u64::try_from(supervised.duration.as_millis()).unwrap_or(u64::MAX);
        receipt.exit_code = supervised.exit_code;
        receipt.signal = supervised.signal;
        receipt.stdout = stream(&supervised.stdout);
        receipt.stderr = stream(&supervised.stderr);

        // Re-check the inputs.
        let after = self.after();
        let executable_changed = execute::executable_now(&prepared, &run, &mut self.executables)
            .as_ref()
            != Some(&prepared.resolved.sha256);
        let spec_changed = self.spec_now().as_ref() != Some(&self.spec_sha);
        let mut changes = Changes::default();
        match &after {
            Ok((digest, found)) => {
                receipt.tree_after = digest.clone();
                changes = found.clone();
            }
            Err(_) => receipt.tree_after = None,
        }
        let tree_changed =
            matches!(&after, Ok((digest, _)) if digest.as_deref() != Some(before.as_str()));
        let inputs_changed = tree_changed || executable_changed || spec_changed;

        let (status, reason) = if supervised.interrupted {
            (Status::Interrupted, Some("runner_interrupted".to_string()))
        } else if supervised.timed_out {
            (
                Status::Timeout,
                Some(format!("timeout_secs_exceeded: {} s", run.timeout_secs)),
            )
        } else if supervised.output_limit {
            (
                Status::OutputLimit,
                Some(format!("stream_exceeded_{}_bytes", supervise::STREAM_CAP)),
            )
        } else if receipt.stdout.is_none() || receipt.stderr.is_none() {
            (
                Status::IoFailed,
                Some(
                    "output_stream_incomplete: a detached process kept a pipe open or reading failed"
                        .to_string(),
                ),
            )
        } else if let Err(reason) = &after {
            (Status::IoFailed, Some(reason.to_string()))
        } else if inputs_changed {
            (Status::InputChanged, Some(INPUTS_CHANGED.to_string()))
        } else if supervised.exit_code == Some(0) && supervised.signal.is_none() {
            (Status::Passed, None)
        } else {
            (Status::Failed, None)
        };
        // Cancellation is decided immediately before publication.
        let (status, reason) =
            if self.interrupt.load(Ordering::SeqCst) && status != Status::Interrupted {
                (Status::Interrupted, Some("runner_interrupted".to_string()))
            } else {
                (status, reason)
            };
        if status == Status::InputChanged {
            notes.push(self.input_changed_note(&run, &changes, executable_changed, spec_changed));
        }
        finish(self, receipt, status, reason, notes)
    }

    /// Say what changed during a run, and how to get a clean one.
    fn input_changed_note(
        &self,
        run: &RunDeclaration,
        changes: &Changes,
        executable_changed: bool,
        spec_changed: bool,
    ) -> Diagnostic {
        let mut what = Vec::new();
        if !changes.is_empty() {
            what.push(changes.describe());
        }
        if executable_changed {
            what.push(format!(
                "the executable `{}` changed",
                echo::escape(run.argv[0].as_bytes())
            ));
        }
        if spec_changed {
            what.push(format!("the spec {} changed", shown(&self.spec_rel)));
        }
        if what.is_empty() {
            what.push("the tree's digest changed".to_string());
        }
        let again = hint::run_command(&self.spec_rel, Some(&run.id));
        let isolated = matches!(self.place, Place::Isolated { .. });
        let fix = if changes.looks_generated() && !isolated {
            format!(
                "The check writes files into the tree (such as `__pycache__/` or a new `Cargo.lock`): add them to .gitignore, or commit them, then run again: `{again}` (or run it in a clean checkout with `{again} --isolated`)."
            )
        } else if !changes.appeared.is_empty() && !isolated {
            format!(
                "If the check generates these files, ignore them in .gitignore (or commit them); otherwise stop whatever edits the tree during the run. Then run again: `{again}`, or in a clean checkout: `{again} --isolated`."
            )
        } else {
            format!("Run the check again without changing its inputs meanwhile: `{again}`.")
        };
        Diagnostic::new(
            Code::receipt_inputs_changed,
            format!(
                "check `{}` changed its own inputs while it ran: {}",
                run.id,
                what.join("; ")
            ),
        )
        .with_path(self.records.receipt_path(&run.id))
        .with_hint(fix)
    }
}

/// The exit status of a finished run: 0 only for a pass.
pub fn exit_status(receipt: &TreeReceipt) -> crate::diagnostic::ExitStatus {
    use crate::diagnostic::ExitStatus;
    match receipt.status {
        Status::Passed if receipt.passed() => ExitStatus::Pass,
        Status::SpawnFailed | Status::IoFailed => ExitStatus::CannotCheck,
        _ => ExitStatus::Violations,
    }
}

/// What to tell the user after a run that did not pass.
pub fn outcome_hint(finished: &Finished) -> Option<String> {
    let receipt = &finished.receipt;
    let again = hint::run_command(&receipt.spec.path, Some(&receipt.check_id));
    match receipt.status {
        Status::Passed if receipt.passed() => None,
        Status::Failed => Some(format!(
            "The check ran and failed (its output is above). Fix the failure, then run it again: `{again}`"
        )),
        Status::Timeout => Some(format!(
            "Make the check faster or raise `timeout_secs` in {}, then run it again: `{again}`",
            receipt.spec.path
        )),
        Status::OutputLimit => Some(format!(
            "The check wrote more than 1 MiB to stdout or stderr; quieten it, then run it again: `{again}`"
        )),
        Status::SpawnFailed => Some(format!(
            "Fix what the reason names (argv[0], PATH, cwd or a submodule), then run it again: `{again}`"
        )),
        Status::Interrupted => Some(format!("Run it again: `{again}`")),
        Status::InputChanged => None,
        _ => Some(format!("Run it again: `{again}`")),
    }
}
