//! The Mastermind repository snapshot digest, version 1 (contracts
//! `mastermind.md` section 4.3), byte for byte. It mixes HEAD, the raw
//! index entries and the live files' lengths, full `st_mode` and bytes, so
//! it exists only for the working tree (`check --worktree`).
//!
//! Git is spawned a fixed number of times per computation (five), never
//! per file, as `git --literal-pathspecs -c core.fsmonitor=false -c
//! diff.external= ...` in the repository root, each answer at most 8 MiB.
//! The whole computation runs twice and must agree.

use crate::codes::Code;
use crate::repo::{Repo, RepoError, Result};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

pub const DOMAIN: &[u8] = b"mastermind-verification-worktree-v1";
pub const MAX_GIT_OUTPUT: usize = 8 * 1024 * 1024;
pub const MAX_INDEX_ENTRIES: usize = 100_000;
pub const MAX_PATHS: usize = 10_000;
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
pub const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;
const EXCLUDED: &str = ".mastermind/";

fn unavailable(message: impl Into<String>) -> RepoError {
    RepoError::new(Code::snapshot_unavailable, message)
}

/// Run one git command in `root`, returning its raw stdout (bounded).
fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let mut child = Command::new("git")
        .args([
            "--literal-pathspecs",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "diff.external=",
        ])
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| unavailable(format!("cannot run git {}: {e}", args.join(" "))))?;
    let mut out = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        stdout
            .take(MAX_GIT_OUTPUT as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| unavailable(format!("reading git {}: {e}", args.join(" "))))?;
    }
    if out.len() > MAX_GIT_OUTPUT {
        let _ = child.kill();
        let _ = child.wait();
        return Err(unavailable(format!(
            "git {} answered more than {MAX_GIT_OUTPUT} bytes",
            args.join(" ")
        )));
    }
    let status = child
        .wait()
        .map_err(|e| unavailable(format!("git {}: {e}", args.join(" "))))?;
    if !status.success() {
        return Err(unavailable(format!(
            "git {} failed ({status})",
            args.join(" ")
        )));
    }
    Ok(out)
}

fn records(output: &[u8]) -> impl Iterator<Item = &[u8]> {
    output.split(|&b| b == 0).filter(|r| !r.is_empty())
}

fn normalized_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && path
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
}

/// The path set and index bytes a snapshot covers (pure over git's answers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inputs {
    /// `<mode> <oid> <stage>\t<path>` records outside `.mastermind/`, in git's order.
    pub index_records: Vec<Vec<u8>>,
    /// Every covered path, sorted by bytes.
    pub paths: BTreeSet<String>,
}

/// Validate `ls-files --stage -z`, `diff --name-only -z` and
/// `ls-files --others -z` answers and build the covered path set.
pub fn inputs(stage: &[u8], diff: &[u8], others: &[u8]) -> Result<Inputs> {
    let mut index_records = Vec::new();
    let mut paths = BTreeSet::new();
    let add = |raw: &[u8], paths: &mut BTreeSet<String>| -> Result<()> {
        let path = std::str::from_utf8(raw).map_err(|_| {
            unavailable(format!(
                "path {:?} is not UTF-8",
                String::from_utf8_lossy(raw)
            ))
        })?;
        if path.starts_with(EXCLUDED) {
            return Ok(());
        }
        if !normalized_relative(path) {
            return Err(unavailable(format!(
                "path `{path}` is not a normalized repository-relative path"
            )));
        }
        paths.insert(path.to_string());
        if paths.len() > MAX_PATHS {
            return Err(unavailable(format!("more than {MAX_PATHS} observed paths")));
        }
        Ok(())
    };
    for (count, record) in records(stage).enumerate() {
        if count >= MAX_INDEX_ENTRIES {
            return Err(unavailable(format!(
                "more than {MAX_INDEX_ENTRIES} index entries"
            )));
        }
        let tab = record
            .iter()
            .position(|&b| b == b'\t')
            .ok_or_else(|| unavailable("an ls-files --stage record has no tab"))?;
        let (header, path) = (&record[..tab], &record[tab + 1..]);
        if path.starts_with(EXCLUDED.as_bytes()) {
            continue;
        }
        let header =
            std::str::from_utf8(header).map_err(|_| unavailable("an index header is not UTF-8"))?;
        let fields: Vec<&str> = header.split(' ').collect();
        let shown = String::from_utf8_lossy(path);
        match fields.as_slice() {
            [mode, oid, "0"]
                if (*mode == "100644" || *mode == "100755")
                    && (oid.len() == 40 || oid.len() == 64)
                    && oid.bytes().all(|b| b.is_ascii_hexdigit()) => {}
            [mode, _, "0"] => {
                return Err(unavailable(format!(
                    "`{shown}` has mode {mode}; symlinks and submodules are not supported by snapshot v1"
                )));
            }
            [_, _, _] => return Err(unavailable(format!("`{shown}` is conflicted (unmerged)"))),
            _ => return Err(unavailable(format!("malformed index header `{header}`"))),
        }
        index_records.push(record.to_vec());
        add(path, &mut paths)?;
    }
    for raw in records(diff).chain(records(others)) {
        add(raw, &mut paths)?;
    }
    Ok(Inputs {
        index_records,
        paths,
    })
}

/// One covered path on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileState {
    Missing,
    File { st_mode: u64, content: Vec<u8> },
}

/// The digest over validated inputs (pure): the exact byte layout of
/// section 4.3.
pub fn assemble(
    baseline: &str,
    head: &[u8],
    inputs: &Inputs,
    files: &[(String, FileState)],
) -> String {
    let mut hasher = Sha256::new();
    hasher.update(DOMAIN);
    hasher.update([0]);
    hasher.update(baseline.as_bytes());
    hasher.update([0]);
    hasher.update(head);
    for record in &inputs.index_records {
        hasher.update(record);
        hasher.update([0]);
    }
    for (path, state) in files {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        match state {
            FileState::Missing => hasher.update(b"missing\0"),
            FileState::File { st_mode, content } => {
                hasher.update(b"file\0");
                hasher.update((content.len() as u64).to_le_bytes());
                hasher.update(st_mode.to_le_bytes());
                hasher.update(content);
            }
        }
        hasher.update([0]);
    }
    hex::encode(hasher.finalize())
}

fn read_file(root: &Path, path: &str, total: &mut u64) -> Result<FileState> {
    let full = root.join(path);
    let metadata = match std::fs::symlink_metadata(&full) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileState::Missing),
        Err(e) => return Err(unavailable(format!("cannot stat {path}: {e}"))),
    };
    if metadata.file_type().is_symlink() {
        return Err(unavailable(format!(
            "{path} is a symlink; snapshot v1 does not follow links"
        )));
    }
    if !metadata.is_file() {
        return Err(unavailable(format!("{path} is not a regular file")));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(unavailable(format!(
            "{path} is larger than {MAX_FILE_BYTES} bytes"
        )));
    }
    let content = crate::input::read_bounded_no_follow(&full, MAX_FILE_BYTES as usize)
        .map_err(|d| unavailable(d.message))?;
    if content.len() as u64 > MAX_FILE_BYTES {
        return Err(unavailable(format!(
            "{path} is larger than {MAX_FILE_BYTES} bytes"
        )));
    }
    *total += content.len() as u64;
    if *total > MAX_TOTAL_BYTES {
        return Err(unavailable(format!(
            "observed files exceed {MAX_TOTAL_BYTES} bytes"
        )));
    }
    #[cfg(unix)]
    let st_mode = {
        use std::os::unix::fs::MetadataExt;
        u64::from(metadata.mode())
    };
    #[cfg(not(unix))]
    let st_mode = 0o100644;
    Ok(FileState::File { st_mode, content })
}

fn once(root: &Path, baseline: &str) -> Result<String> {
    let verified = git(
        root,
        &["rev-parse", "--verify", &format!("{baseline}^{{commit}}")],
    )?;
    if String::from_utf8_lossy(&verified).trim() != baseline {
        return Err(unavailable(format!(
            "baseline {baseline} is not a full commit id here"
        )));
    }
    let head = git(root, &["rev-parse", "--verify", "HEAD"])?;
    let stage = git(root, &["ls-files", "--stage", "-z"])?;
    let diff = git(
        root,
        &[
            "diff",
            "--name-only",
            "-z",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            baseline,
            "--",
        ],
    )?;
    let others = git(root, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    let inputs = inputs(&stage, &diff, &others)?;
    let mut total = 0;
    let mut files = Vec::with_capacity(inputs.paths.len());
    for path in &inputs.paths {
        files.push((path.clone(), read_file(root, path, &mut total)?));
    }
    Ok(assemble(baseline, &head, &inputs, &files))
}

/// The snapshot v1 digest of the working tree against `baseline`, computed
/// twice; the two must agree.
pub fn compute(repo: &Repo, baseline: &str) -> Result<String> {
    let root = repo
        .workdir()
        .ok_or_else(|| unavailable("snapshot v1 needs a working tree"))?;
    let first = once(root, baseline)?;
    let second = once(root, baseline)?;
    if first != second {
        return Err(unavailable(
            "verification_snapshot_changed: the working tree changed while the snapshot was taken",
        ));
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_validate_like_the_reference() {
        let oid = "e69de29bb2d1d6434b8b29ae775a83a0c4a8a7b1";
        let stage = format!(
            "100644 {oid} 0\tb.txt\0100755 {oid} 0\ta.sh\0120000 {oid} 0\t.mastermind/link\0"
        );
        let got = inputs(stage.as_bytes(), b"gone.txt\0", b"new.txt\0.mastermind/x\0").unwrap();
        assert_eq!(
            got.index_records.len(),
            2,
            "git's order, .mastermind/ skipped"
        );
        assert_eq!(
            got.paths.iter().map(String::as_str).collect::<Vec<_>>(),
            ["a.sh", "b.txt", "gone.txt", "new.txt"]
        );
        for bad in [
            format!("120000 {oid} 0\tlink\0"),
            format!("160000 {oid} 0\tsub\0"),
            format!("100644 {oid} 1\tconflict\0"),
            format!("100644 {oid} 0\t../x\0"),
        ] {
            assert!(inputs(bad.as_bytes(), b"", b"").is_err(), "{bad}");
        }
        assert!(inputs(b"", b"\xff\0", b"").is_err(), "non-UTF-8 path");
    }
}
