//! Merges as git makes them (DESIGN.md section 5): every merge base and
//! git's own merge algorithm, by running `git merge-tree --write-tree`
//! (git 2.38 or newer). The merges of a whole range are computed ahead in
//! one process ([`Repo::prepare_merges`]: `git merge-tree --stdin`, git
//! 2.40 or newer), so a history with a thousand merges costs one process,
//! not a thousand; a merge that batch did not settle (an older git, a
//! merge git refuses) is computed alone when asked, which gives its error.
//! git writes the merge's new objects (the result's trees, merged blobs,
//! virtual merge bases) into a scratch object directory outside the
//! repository, reading the repository's own objects (and a pre-receive
//! quarantine) as alternates; they are carried into this process's
//! in-memory object store, so nothing is ever written to the repository.
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
use std::collections::{BTreeMap, HashMap, HashSet};
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

/// Parse the output of `git merge-tree --stdin --write-tree -z --name-only
/// --no-messages` for `count` merges: per merge its status (`1` clean, `0`
/// conflicted), the tree id and the conflicted paths, each NUL-terminated,
/// and an empty field closing the merge. `None` unless it is exactly
/// `count` well-formed merges (a status below 0 is a merge git could not
/// make).
fn parse_merge_tree_batch(stdout: &[u8], count: usize) -> Option<Vec<Merge>> {
    let mut fields = stdout.split(|b| *b == 0);
    let mut merges = Vec::with_capacity(count);
    for _ in 0..count {
        let clean = match fields.next()? {
            b"1" => true,
            b"0" => false,
            _ => return None,
        };
        let tree = ObjectId::from_hex(fields.next()?).ok()?;
        let mut conflicts: Vec<BString> = Vec::new();
        loop {
            match fields.next()? {
                b"" => break,
                path => conflicts.push(BString::from(path)),
            }
        }
        // A conflict git reports only as a message (a directory rename
        // split between sides) leaves no path: the merge is still taken as
        // the tree it wrote, as for a single merge.
        if clean && !conflicts.is_empty() {
            return None;
        }
        conflicts.sort();
        conflicts.dedup();
        merges.push(Merge { tree, conflicts });
    }
    // Nothing after the last merge but the end of the output.
    match (fields.next(), fields.next()) {
        (Some(b""), None) | (None, None) => Some(merges),
        _ => None,
    }
}

/// What a merge of two commits is before any merging: an answer git would
/// give without merging anything, or a merge git must make.
enum Before {
    Known(Option<Merge>),
    NeedsGit,
}

impl Repo {
    /// Git's merge of `ours` and `theirs`, computed once per pair; `None`
    /// when they share no history (or a shallow clone hides it).
    pub fn merge_commits(&self, ours: ObjectId, theirs: ObjectId) -> Result<Option<Merge>> {
        if let Some(done) = self.merges.borrow().get(&(ours, theirs)) {
            return Ok(done.clone());
        }
        let pending = self
            .pending_merges
            .borrow()
            .as_ref()
            .is_some_and(|p| p.pairs.contains(&(ours, theirs)));
        if pending {
            self.settle_merges();
            if let Some(done) = self.merges.borrow().get(&(ours, theirs)) {
                return Ok(done.clone());
            }
        }
        let merged = self.compute_merge(ours, theirs)?;
        self.merges
            .borrow_mut()
            .insert((ours, theirs), merged.clone());
        Ok(merged)
    }

    fn compute_merge(&self, ours: ObjectId, theirs: ObjectId) -> Result<Option<Merge>> {
        let base = |ours, theirs| self.merge_base(ours, theirs);
        match self.before_merging(ours, theirs, base)? {
            Before::Known(merge) => Ok(merge),
            Before::NeedsGit => self.git_merge_tree(ours, theirs).map(Some),
        }
    }

    /// The exact answers git would give without merging anything: one side
    /// contains the other (the merge base, by `merge_base`, is that side),
    /// both sides hold the same tree, or they share no history.
    fn before_merging(
        &self,
        ours: ObjectId,
        theirs: ObjectId,
        mut merge_base: impl FnMut(ObjectId, ObjectId) -> Result<Option<ObjectId>>,
    ) -> Result<Before> {
        let whole = |tree| {
            Before::Known(Some(Merge {
                tree,
                conflicts: Vec::new(),
            }))
        };
        let our_tree = self.commit_tree(ours)?;
        let their_tree = self.commit_tree(theirs)?;
        if ours == theirs || our_tree == their_tree {
            return Ok(whole(our_tree));
        }
        Ok(match merge_base(ours, theirs)? {
            None => Before::Known(None),
            Some(base) if base == ours => whole(their_tree),
            Some(base) if base == theirs => whole(our_tree),
            Some(_) => Before::NeedsGit,
        })
    }

    /// Compute git's merges of `pairs` (ours, theirs) ahead, in the
    /// background ([`Repo::start_merges`] with the range's commits):
    /// `parents` holds the parents of every commit of the range, to tell a
    /// merge of a rebased branch from one git must compute.
    pub(crate) fn start_merge_pairs(
        &self,
        pairs: impl Iterator<Item = (ObjectId, ObjectId)>,
        parents: &HashMap<ObjectId, &[ObjectId]>,
    ) {
        self.settle_merges();
        let mut batch: Vec<(ObjectId, ObjectId)> = Vec::new();
        let mut queued: HashSet<(ObjectId, ObjectId)> = HashSet::new();
        for pair in pairs {
            if self.merges.borrow().contains_key(&pair) || !queued.insert(pair) {
                continue;
            }
            // Only the answers that need no walk of the history: the merge
            // bases are git's to find (the walks cost more than the
            // merges). A pair without common history makes git refuse the
            // whole batch; the merge bases are then found and the batch
            // retried.
            match self.same_sides(pair.0, pair.1) {
                Ok(Some(merge)) => {
                    self.merges.borrow_mut().insert(pair, Some(merge));
                }
                Ok(None) if contains(parents, pair.1, pair.0) => {
                    // The second parent's history holds the first (a
                    // branch rebased before it was merged, as merge queues
                    // land them): the merge base is the first parent, and
                    // git's merge is the second parent's tree.
                    match self.commit_tree(pair.1) {
                        Ok(tree) => {
                            let merge = Merge {
                                tree,
                                conflicts: Vec::new(),
                            };
                            self.merges.borrow_mut().insert(pair, Some(merge));
                        }
                        Err(_) => batch.push(pair),
                    }
                }
                Ok(None) => batch.push(pair),
                Err(_) => {}
            }
        }
        // One merge costs one process either way; its errors are the
        // single merge's to give.
        if batch.len() < 2 || !self.batch_merges.get() {
            return;
        }
        if let Some(pending) = PendingMerges::spawn(self, batch) {
            *self.pending_merges.borrow_mut() = Some(pending);
        }
    }

    /// Wait for the merges [`Repo::start_merges`] started and keep them; a
    /// batch git refused is retried without the pairs that need no git
    /// (found through their merge bases), and what is still unsettled is
    /// left to [`Repo::merge_commits`], one merge at a time.
    pub fn settle_merges(&self) {
        let Some(pending) = self.pending_merges.borrow_mut().take() else {
            return;
        };
        let pairs = pending.pairs.clone();
        match pending.finish(self) {
            Batch::Merged(merges) => self.keep_merges(pairs, merges),
            Batch::NoStdin => self.batch_merges.set(false),
            Batch::Refused => self.merges_through_bases(pairs),
        }
    }

    fn keep_merges(&self, pairs: Vec<(ObjectId, ObjectId)>, merges: Vec<Merge>) {
        let mut memo = self.merges.borrow_mut();
        for (pair, merge) in pairs.into_iter().zip(merges) {
            memo.insert(pair, Some(merge));
        }
    }

    /// The merges of `pairs` with their merge bases found first (one commit
    /// graph for all of them: each commit is read once), so that only the
    /// merges git must make are sent to it, in one more batch.
    fn merges_through_bases(&self, pairs: Vec<(ObjectId, ObjectId)>) {
        let Ok(commit_graph) = self.gix().commit_graph_if_enabled() else {
            return;
        };
        let mut graph = self.gix().revision_graph(commit_graph.as_ref());
        let mut merge_base = |ours: ObjectId, theirs: ObjectId| {
            self.gix()
                .merge_base_with_graph(ours, theirs, &mut graph)
                .map(|base| base.map(|id| id.detach()))
                .map_err(|e| unavailable(format!("cannot compute a merge base: {e}")))
        };
        let mut batch = Vec::new();
        for pair in pairs {
            match self.before_merging(pair.0, pair.1, &mut merge_base) {
                Ok(Before::Known(merge)) => {
                    self.merges.borrow_mut().insert(pair, merge);
                }
                Ok(Before::NeedsGit) => batch.push(pair),
                Err(_) => {}
            }
        }
        if batch.len() < 2 {
            return;
        }
        let finished = PendingMerges::spawn(self, batch.clone()).map(|p| p.finish(self));
        match finished {
            Some(Batch::Merged(merges)) => self.keep_merges(batch, merges),
            _ => self.batch_merges.set(false),
        }
    }

    /// The merge of two commits when they are the same commit or hold the
    /// same tree: that tree, as git's merge would give it.
    fn same_sides(&self, ours: ObjectId, theirs: ObjectId) -> Result<Option<Merge>> {
        let our_tree = self.commit_tree(ours)?;
        if ours == theirs || our_tree == self.commit_tree(theirs)? {
            return Ok(Some(Merge {
                tree: our_tree,
                conflicts: Vec::new(),
            }));
        }
        Ok(None)
    }

    /// Run `git merge-tree --write-tree` with its object writes sent to a
    /// scratch directory, and carry the new objects into memory.
    fn git_merge_tree(&self, ours: ObjectId, theirs: ObjectId) -> Result<Merge> {
        let what = format!("the merge of {} and {}", short(ours), short(theirs));
        let scratch = MergeScratch::new(self)
            .map_err(|e| unavailable(format!("cannot compute {what}: {e}")))?;
        let mut command = scratch.command(self);
        command
            .args([
                "merge-tree",
                "--write-tree",
                "-z",
                "--name-only",
                "--no-messages",
            ])
            .arg(ours.to_string())
            .arg(theirs.to_string())
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
        self.adopt_loose_objects(&scratch.objects)?;
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

/// A scratch object directory for git's merges, removed when dropped, and
/// the object directories git reads beside it.
struct MergeScratch {
    _dir: tempfile::TempDir,
    objects: std::path::PathBuf,
    alternates: std::ffi::OsString,
}

impl MergeScratch {
    fn new(repo: &Repo) -> std::result::Result<MergeScratch, String> {
        let dir = tempfile::Builder::new()
            .prefix("mastermind-hooks-merge-")
            .tempdir()
            .map_err(|e| format!("no scratch directory: {e}"))?;
        let objects = dir.path().join("objects");
        std::fs::create_dir_all(&objects).map_err(|e| e.to_string())?;
        let alternates =
            std::env::join_paths(repo.object_dirs.iter()).map_err(|e| e.to_string())?;
        Ok(MergeScratch {
            _dir: dir,
            objects,
            alternates,
        })
    }

    /// `git` on the repository, writing its objects here and reading the
    /// repository's as alternates, with none of the caller's repository
    /// variables and no replace refs.
    fn command(&self, repo: &Repo) -> Command {
        let mut command = repo.git_command();
        command
            .env("GIT_OBJECT_DIRECTORY", &self.objects)
            .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", &self.alternates);
        command
    }
}

/// The most commits [`contains`] visits for one merge.
const CONTAINS_STEPS: usize = 64;

/// Whether `ancestor` is `tip` or in its history, by the `parents` of the
/// commits at hand only, visiting at most [`CONTAINS_STEPS`] of them:
/// `false` means "not found that way", never "not an ancestor".
fn contains(parents: &HashMap<ObjectId, &[ObjectId]>, tip: ObjectId, ancestor: ObjectId) -> bool {
    let mut stack = vec![tip];
    // At most CONTAINS_STEPS of them: a scan costs less than hashing ids
    // (a set here was 7% of `check --ci` over the bench's 1,000 merges).
    let mut seen: Vec<ObjectId> = Vec::with_capacity(CONTAINS_STEPS + 1);
    while let Some(commit) = stack.pop() {
        if commit == ancestor {
            return true;
        }
        if seen.len() > CONTAINS_STEPS || seen.contains(&commit) {
            continue;
        }
        seen.push(commit);
        if let Some(up) = parents.get(&commit) {
            stack.extend(up.iter().copied());
        }
    }
    false
}

/// How a batch of merges ended.
enum Batch {
    /// Every merge, in the order asked.
    Merged(Vec<Merge>),
    /// This git has no `git merge-tree --stdin` (before 2.40).
    NoStdin,
    /// git refused or failed (a pair without common history stops it).
    Refused,
}

/// Merges a batch process takes at least: fewer are not worth a process.
const MERGES_PER_PROCESS: usize = 32;

/// `git merge-tree --stdin` processes merging `pairs` (one per core for a
/// large batch, each a consecutive share), each one's input written and
/// output read on a thread of its own, all writing their objects into
/// `scratch`.
pub(crate) struct PendingMerges {
    pairs: Vec<(ObjectId, ObjectId)>,
    scratch: MergeScratch,
    runs: Vec<std::thread::JoinHandle<Option<std::process::Output>>>,
}

impl PendingMerges {
    fn spawn(repo: &Repo, pairs: Vec<(ObjectId, ObjectId)>) -> Option<PendingMerges> {
        let scratch = MergeScratch::new(repo).ok()?;
        let processes = super::parallel::cores()
            .min(pairs.len() / MERGES_PER_PROCESS)
            .clamp(1, 8);
        let share = pairs.len().div_ceil(processes);
        let mut runs = Vec::with_capacity(processes);
        for chunk in pairs.chunks(share.max(1)) {
            let input: String = chunk
                .iter()
                .map(|(ours, theirs)| format!("{ours} {theirs}\n"))
                .collect();
            runs.push(spawn_merge_tree(scratch.command(repo), input)?);
        }
        Some(PendingMerges {
            pairs,
            scratch,
            runs,
        })
    }

    /// Wait for git, read its answers and carry its objects into memory.
    fn finish(self, repo: &Repo) -> Batch {
        let mut outputs = Vec::with_capacity(self.runs.len());
        for run in self.runs {
            match run.join() {
                Ok(Some(output)) => outputs.push(output),
                _ => return Batch::Refused,
            }
        }
        let share = self.pairs.len().div_ceil(outputs.len().max(1));
        let mut merges = Vec::with_capacity(self.pairs.len());
        for (output, chunk) in outputs.iter().zip(self.pairs.chunks(share.max(1))) {
            match output.status.code() {
                Some(0) => {}
                // Usage error: an option this git does not know.
                Some(129) => return Batch::NoStdin,
                _ => return Batch::Refused,
            }
            match parse_merge_tree_batch(&output.stdout, chunk.len()) {
                Some(done) => merges.extend(done),
                None => return Batch::Refused,
            }
        }
        if merges.len() != self.pairs.len() {
            return Batch::Refused;
        }
        match repo.adopt_loose_objects(&self.scratch.objects) {
            Ok(()) => Batch::Merged(merges),
            Err(_) => Batch::Refused,
        }
    }
}

/// Start `command` (`git merge-tree --stdin ...`) on a thread that writes
/// `input` to it and collects its output.
fn spawn_merge_tree(
    mut command: Command,
    input: String,
) -> Option<std::thread::JoinHandle<Option<std::process::Output>>> {
    use std::io::Write;
    command
        .args([
            "merge-tree",
            "--stdin",
            "--write-tree",
            "-z",
            "--name-only",
            "--no-messages",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    std::thread::Builder::new()
        .name("merge-tree".into())
        .spawn(move || {
            let mut child = command.spawn().ok()?;
            let mut stdin = child.stdin.take()?;
            // Written beside the reading: git answers each line as it
            // reads it, and a full pipe either way would stop both.
            let writer = std::thread::Builder::new()
                .name("merge-tree-stdin".into())
                .spawn(move || stdin.write_all(input.as_bytes()));
            let output = child.wait_with_output().ok();
            let wrote = match writer {
                Ok(writer) => writer.join().ok().is_some_and(|w| w.is_ok()),
                Err(_) => false,
            };
            output.filter(|_| wrote)
        })
        .ok()
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

    #[test]
    fn batch_output_is_status_tree_paths_and_an_empty_field_per_merge() {
        let tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        let two = format!("1\0{tree}\0\x000\0{tree}\0b\0a\0\0");
        let merges = parse_merge_tree_batch(two.as_bytes(), 2).unwrap();
        assert!(merges[0].conflicts.is_empty());
        assert_eq!(
            merges[1].conflicts,
            [BString::from("a"), BString::from("b")]
        );
        // Too few, too many, a failed merge, a clean merge with conflicted
        // paths, and anything after the last merge: not believed.
        assert_eq!(parse_merge_tree_batch(two.as_bytes(), 3), None);
        assert_eq!(parse_merge_tree_batch(two.as_bytes(), 1), None);
        let failed = format!("-1\0{tree}\0\0");
        assert_eq!(parse_merge_tree_batch(failed.as_bytes(), 1), None);
        let clean_with_paths = format!("1\0{tree}\0a\0\0");
        assert_eq!(parse_merge_tree_batch(clean_with_paths.as_bytes(), 1), None);
        let conflicted_without = format!("0\0{tree}\0\0");
        let merges = parse_merge_tree_batch(conflicted_without.as_bytes(), 1).unwrap();
        assert!(
            merges[0].conflicts.is_empty(),
            "as `parse_merge_tree` takes it"
        );
        let trailing = format!("1\0{tree}\0\0junk");
        assert_eq!(parse_merge_tree_batch(trailing.as_bytes(), 1), None);
        assert_eq!(parse_merge_tree_batch(b"", 0), Some(Vec::new()));
    }
}
