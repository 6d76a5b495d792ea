//! The fast untracked walk against gix's `dirwalk`, differentially: over
//! random working trees made with the `git` binary (committed, staged,
//! untracked and deleted files with names that sort apart from their
//! directories, `.gitignore` files at several levels with negations,
//! `.git/info/exclude`, empty directories, a nested repository, a gitlink,
//! a directory holding a `.git` that is no repository, links to files and
//! directories, a FIFO, a file where the index has a directory and the
//! reverse), both walks find the same untracked files.

use crate::common::TestRepo;
use mastermind_hooks::repo::Repo;
use mastermind_hooks::repo::tree::untracked::both_walks;
use proptest::prelude::*;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// File paths, as bytes (one is not UTF-8).
const POOL: &[&[u8]] = &[
    b"a",
    b"a-b",
    b"a.b",
    b"a0",
    b"a/x",
    b"a/y.log",
    b"a/keep.log",
    b"a-b/x",
    b"x.log",
    b"keep.log",
    b"root-only",
    b"d/root-only",
    b"d/keep.log",
    b"d/e/f",
    b"d/e/g.log",
    b"d/build/o",
    b"build/out.o",
    b"build/keep.log",
    b"dir/a/b",
    b"dir/c",
    b".dot",
    b".dotdir/z",
    b"sp ace/f g",
    b"caf\xe9",
    b"\xc3\xbc/\xc3\xb6",
    b"t/x",
    b"f",
];

/// Ignore patterns to draw from.
const PATTERNS: &[&str] = &[
    "*.log",
    "build/",
    "/root-only",
    "!keep.log",
    "dir/**",
    "!dir/c",
    "a*",
    "!a0",
    "e/",
    "*.b",
    "sp*",
    "x",
    "!x.log",
    "f",
    ".dot*",
    "nested",
    "empty/",
    "lnk-*",
    "fifo",
];

/// Where `.gitignore` files may be.
const IGNORE_DIRS: &[&str] = &["", "a/", "d/", "d/e/", "dir/", "build/"];

#[derive(Clone, Copy, Debug)]
enum State {
    Absent,
    Committed,
    Staged,
    Untracked,
    /// Committed, then deleted from the disk.
    Deleted,
}

#[derive(Clone, Debug)]
struct Tree {
    files: Vec<State>,
    ignores: Vec<(usize, Vec<usize>)>,
    commit_ignores: bool,
    info_exclude: Vec<usize>,
    extras: [bool; 9],
}

fn state() -> impl Strategy<Value = State> {
    prop_oneof![
        3 => Just(State::Absent),
        2 => Just(State::Committed),
        1 => Just(State::Staged),
        3 => Just(State::Untracked),
        1 => Just(State::Deleted),
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    let patterns = prop::collection::vec(0..PATTERNS.len(), 0..5);
    (
        prop::collection::vec(state(), POOL.len()),
        prop::collection::vec((0..IGNORE_DIRS.len(), patterns.clone()), 0..4),
        any::<bool>(),
        patterns,
        any::<[bool; 9]>(),
    )
        .prop_map(
            |(files, ignores, commit_ignores, info_exclude, extras)| Tree {
                files,
                ignores,
                commit_ignores,
                info_exclude,
                extras,
            },
        )
}

fn os(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

fn write(root: &Path, rel: &[u8], content: &str) {
    let full = root.join(os(rel));
    let parent = full.parent().expect("parent");
    // A path where a file of an earlier draw sits is skipped.
    if std::fs::create_dir_all(parent).is_ok() && !full.is_dir() {
        std::fs::write(full, content).expect("write");
    }
}

fn git_add(repo: &TestRepo, paths: &[&[u8]]) {
    if paths.is_empty() {
        return;
    }
    let mut cmd = repo.command("git");
    cmd.args(["add", "-f", "--"]);
    for p in paths {
        if repo.path().join(os(p)).exists() {
            cmd.arg(os(p));
        }
    }
    let out = cmd.output().expect("git add");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn ignore_file(patterns: &[usize]) -> String {
    patterns
        .iter()
        .map(|p| format!("{}\n", PATTERNS[*p]))
        .collect()
}

fn build(t: &Tree) -> TestRepo {
    let repo = TestRepo::new();
    let root = repo.path().to_path_buf();
    let pick = |want: fn(State) -> bool| -> Vec<&[u8]> {
        POOL.iter()
            .zip(&t.files)
            .filter(|(_, s)| want(**s))
            .map(|(p, _)| *p)
            .collect()
    };
    let committed = pick(|s| matches!(s, State::Committed | State::Deleted));
    for p in &committed {
        write(&root, p, "committed\n");
    }
    let write_ignores = || {
        for (dir, patterns) in &t.ignores {
            let path = format!("{}.gitignore", IGNORE_DIRS[*dir]);
            write(&root, path.as_bytes(), &ignore_file(patterns));
        }
    };
    if t.commit_ignores {
        write_ignores();
        repo.git(&["add", "-f", "--all"]);
    }
    git_add(&repo, &committed);
    let [
        empty,
        nested,
        gitlink,
        link_file,
        link_dir,
        fifo,
        fake_git,
        file_for_dir,
        tracked_nested,
    ] = t.extras;
    if file_for_dir {
        write(&root, b"fd/inner", "x\n");
        write(&root, b"df", "x\n");
        git_add(&repo, &[b"fd/inner", b"df"]);
    }
    if tracked_nested {
        write(&root, b"tn/tracked", "x\n");
        git_add(&repo, &[b"tn/tracked"]);
    }
    repo.git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", "base"]);
    if gitlink {
        let head = repo.head();
        repo.git(&[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{head},sub"),
        ]);
        write(&root, b"sub/inside", "x\n");
    }
    let staged = pick(|s| matches!(s, State::Staged));
    for p in &staged {
        write(&root, p, "staged\n");
    }
    git_add(&repo, &staged);
    for p in pick(|s| matches!(s, State::Deleted)) {
        let _ = std::fs::remove_file(root.join(os(p)));
    }
    for p in pick(|s| matches!(s, State::Untracked)) {
        write(&root, p, "untracked\n");
    }
    if !t.commit_ignores {
        write_ignores();
    }
    if !t.info_exclude.is_empty() {
        std::fs::write(root.join(".git/info/exclude"), ignore_file(&t.info_exclude))
            .expect("exclude");
    }
    if empty {
        let _ = std::fs::create_dir_all(root.join("empty/deeper"));
    }
    if nested {
        let _ = std::fs::create_dir_all(root.join("nested"));
        repo.git(&["init", "-q", "nested"]);
        write(&root, b"nested/file", "x\n");
    }
    if link_file {
        let _ = std::os::unix::fs::symlink("a", root.join("lnk-f"));
        let _ = std::os::unix::fs::symlink("missing", root.join("d-lnk"));
    }
    if link_dir {
        let _ = std::fs::create_dir_all(root.join("target-dir"));
        write(&root, b"target-dir/t", "x\n");
        let _ = std::os::unix::fs::symlink("target-dir", root.join("lnk-d"));
    }
    if fifo {
        let _ = std::fs::create_dir_all(root.join("pipes"));
        let status = std::process::Command::new("mkfifo")
            .arg(root.join("pipes/fifo"))
            .arg(root.join("fifo"))
            .status()
            .expect("mkfifo");
        assert!(status.success());
    }
    if fake_git {
        let _ = std::fs::create_dir_all(root.join("fake/.git"));
        write(&root, b"fake/file", "x\n");
        write(&root, b"fake2/.git", "not a gitdir\n");
        write(&root, b"fake2/file", "x\n");
        write(&root, b"d/.git", "gitdir: nowhere\n");
    }
    if file_for_dir {
        let _ = std::fs::remove_dir_all(root.join("fd"));
        write(&root, b"fd", "now a file\n");
        let _ = std::fs::remove_file(root.join("df"));
        write(&root, b"df/inner", "now a dir\n");
    }
    if tracked_nested {
        repo.git(&["init", "-q", "tn"]);
        write(&root, b"tn/untracked", "x\n");
    }
    repo
}

fn agree(repo: &TestRepo) {
    let opened = Repo::open(repo.path()).expect("open");
    let (fast, oracle) = both_walks(&opened).expect("walks");
    let fast = fast.expect("the fast walk applies to a plain repository");
    let show = |v: &[gix::bstr::BString]| v.iter().map(|p| format!("{p:?}")).collect::<Vec<_>>();
    assert_eq!(show(&fast), show(&oracle));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn the_fast_untracked_walk_finds_what_gix_dirwalk_finds(t in tree()) {
        let repo = build(&t);
        agree(&repo);
    }
}

#[test]
fn every_extra_at_once_agrees() {
    let t = Tree {
        files: POOL
            .iter()
            .enumerate()
            .map(|(i, _)| match i % 5 {
                0 => State::Committed,
                1 => State::Untracked,
                2 => State::Staged,
                3 => State::Deleted,
                _ => State::Untracked,
            })
            .collect(),
        ignores: vec![(0, vec![0, 1, 3, 2]), (2, vec![3, 11]), (4, vec![5])],
        commit_ignores: false,
        info_exclude: vec![9],
        extras: [true; 9],
    };
    let repo = build(&t);
    agree(&repo);
    let opened = Repo::open(repo.path()).expect("open");
    let (fast, oracle) = both_walks(&opened).expect("walks");
    assert!(!oracle.is_empty());
    assert!(fast.is_some());
}

#[test]
fn case_folding_and_conflicts_fall_back_to_gix() {
    let repo = TestRepo::new();
    repo.write("a", "x\n");
    repo.commit_all("base");
    repo.git(&["config", "core.ignoreCase", "true"]);
    let opened = Repo::open(repo.path()).expect("open");
    assert!(both_walks(&opened).expect("walks").0.is_none());
    repo.git(&["config", "core.ignoreCase", "false"]);
    let opened = Repo::open(repo.path()).expect("open");
    assert!(both_walks(&opened).expect("walks").0.is_some());
    // A conflict: stages 1 and 3 of one path.
    let blob = repo.git(&["hash-object", "-w", "a"]);
    let blob = blob.trim();
    let info = format!(
        "0 {}\ta\n100644 {blob} 1\ta\n100644 {blob} 3\ta\n",
        repo.zero_id()
    );
    let out = repo
        .command("git")
        .args(["update-index", "--index-info"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(info.as_bytes())?;
            child.wait_with_output()
        })
        .expect("update-index");
    assert!(out.status.success());
    let opened = Repo::open(repo.path()).expect("open");
    let (fast, oracle) = both_walks(&opened).expect("walks");
    assert!(fast.is_none());
    assert_eq!(oracle, vec![gix::bstr::BString::from("a")]);
}

#[test]
fn a_linked_worktree_agrees() {
    let repo = TestRepo::new();
    repo.write("a", "x\n");
    repo.write("d/b", "x\n");
    repo.write(".gitignore", "*.log\n");
    repo.commit_all("base");
    let linked = tempfile::tempdir().expect("tempdir");
    let path = linked.path().join("wt");
    repo.git(&["worktree", "add", "-q", &path.display().to_string()]);
    for (rel, content) in [("new", "x\n"), ("d/new", "x\n"), ("d/x.log", "x\n")] {
        std::fs::write(path.join(rel), content).expect("write");
    }
    let opened = Repo::open(&path).expect("open");
    let (fast, oracle) = both_walks(&opened).expect("walks");
    assert_eq!(fast, Some(oracle.clone()));
    assert_eq!(
        oracle,
        vec![gix::bstr::BString::from("d/new"), "new".into()]
    );
}
