//! The tree-v2 digest and the stat-reuse fast path, differentially:
//!
//! * the v2 digest of a commit's tree (walked and memoized by tree id), of
//!   the index that holds the same content and of a working tree with the
//!   same files are equal, over random trees with `.mastermind/` content,
//!   modes, symlinks and submodules;
//! * the working-tree view that trusts the index's stat data names the same
//!   entries and digests alike as the view that reads every file, over
//!   random edits, renames, mode changes, racy timestamps and touches.

use crate::common;

use crate::common::TestRepo;
use crate::common::worktree_ops::{NAMES, Op, agree, prepared};
use mastermind_hooks::config::Config;
use mastermind_hooks::digest::TreeDigester;
use mastermind_hooks::repo::Repo;
use mastermind_hooks::repo::tree::View;
use proptest::prelude::*;

/// One file of a random tree.
#[derive(Clone, Debug)]
enum Kind {
    Regular(u8),
    Executable(u8),
    Link(u8),
}

const POOL: &[&str] = &[
    "a",
    "a-b",
    "a.b",
    "a0",
    "d/a",
    "d/a-b",
    "d/e/f",
    "d/e/g.txt",
    "z/y/x/w",
    ".mastermind/hooks.yaml",
    ".mastermind/mmcg.db",
    ".mastermind/tools/run.sh",
    ".mastermind/notes.md",
    ".mastermind/tasks/README.md",
    ".mastermind/tasks/001-a/spec.md",
    ".mastermind/tasks/001-a/executor-report.md",
    ".mastermind/tasks/001-a/helper.py",
    ".mastermind/tasks/001-a/verification/unit.tree.json",
    ".mastermind/tasks/001-a/verification/nested/x.json",
    ".mastermind/tasks/001-a/review/adversarial-findings.md",
    ".mastermind/tasks/002-b/state.json",
    "src/.mastermind/tasks/001-a/spec.md",
];

fn tree_files() -> impl Strategy<Value = Vec<(usize, Kind)>> {
    let kind = prop_oneof![
        any::<u8>().prop_map(Kind::Regular),
        any::<u8>().prop_map(Kind::Executable),
        any::<u8>().prop_map(Kind::Link),
    ];
    prop::collection::btree_map(0..POOL.len(), kind, 0..POOL.len())
        .prop_map(|m| m.into_iter().collect())
}

fn write_tree(repo: &TestRepo, files: &[(usize, Kind)]) {
    for (i, kind) in files {
        let rel = POOL[*i];
        match kind {
            Kind::Regular(seed) => repo.write(rel, &format!("content {seed}\n")),
            Kind::Executable(seed) => {
                repo.write(rel, &format!("#!/bin/sh\n# {seed}\n"));
                common::make_executable(&repo.path().join(rel));
            }
            Kind::Link(seed) => {
                let path = repo.path().join(rel);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::os::unix::fs::symlink(format!("target-{seed}"), path).unwrap();
            }
        }
    }
}

/// The v2 digests of the commit's tree (walked), the commit's flat view, the
/// index and the working tree, each by a fresh digester; then the flat
/// views again by one digester that walked the tree first (so they come
/// from its memo by tree id), which must agree too.
fn four_digests(repo: &TestRepo, config: &Config) -> [String; 4] {
    let opened = Repo::discover(repo.path()).unwrap();
    let head = opened.resolve_commit("HEAD").unwrap();
    let tree = opened.commit_tree(head).unwrap();
    let fresh = || TreeDigester::new(&opened, config, false);
    let commit = View::from_commit(&opened, head).unwrap();
    let index = View::from_index(&opened).unwrap();
    let digests = [
        fresh().of_tree(tree).unwrap(),
        fresh().of_view(&commit).unwrap(),
        fresh().of_view(&index).unwrap(),
        fresh()
            .of_view(&View::from_worktree(&opened).unwrap())
            .unwrap(),
    ];
    let mut shared = fresh();
    assert_eq!(shared.of_tree(tree).unwrap(), digests[0]);
    assert_eq!(shared.of_view(&commit).unwrap(), digests[1]);
    assert_eq!(shared.of_view(&index).unwrap(), digests[2]);
    digests
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn a_commit_its_index_and_its_working_tree_digest_alike(
        files in tree_files(),
        submodule in any::<bool>(),
        ledger_glob in any::<bool>(),
    ) {
        let repo = TestRepo::new();
        write_tree(&repo, &files);
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "--no-verify", "--allow-empty", "-m", "tree"]);
        if submodule {
            let head = repo.head();
            repo.git(&["update-index", "--add", "--cacheinfo", &format!("160000,{head},vendor/sub")]);
            repo.git(&["commit", "-q", "--no-verify", "-m", "submodule"]);
        }
        let config = if ledger_glob {
            Config::strict_defaults()
        } else {
            Config::parse(b"findings_ledgers: []\n", "test").unwrap()
        };
        let [tree, commit, index, worktree] = four_digests(&repo, &config);
        prop_assert_eq!(&tree, &commit);
        prop_assert_eq!(&tree, &index);
        prop_assert_eq!(&tree, &worktree);
    }

    #[test]
    fn stat_reuse_always_agrees_with_reading_every_file(
        seeds in prop::collection::vec(any::<u8>(), NAMES.len()),
        ops in prop::collection::vec(prop::collection::vec(any::<u8>(), 3), 0..12),
    ) {
        let (sandbox, reused) = prepared(&seeds).unwrap();
        prop_assert_eq!(reused, NAMES.len(), "every settled file is taken from the index");
        for op in Op::from_bytes(&ops.concat()) {
            sandbox.apply(&op).unwrap();
            if let Err(e) = agree(&sandbox) {
                prop_assert!(false, "after {:?}: {}", op, e);
            }
        }
    }
}

#[test]
fn bookkeeping_is_outside_the_digest_and_other_mastermind_files_inside() {
    let repo = TestRepo::new();
    repo.write("src/a.txt", "a\n");
    repo.write(".mastermind/tasks/001-a/spec.md", "spec\n");
    repo.commit_all("base");
    let config = Config::strict_defaults();
    let before = four_digests(&repo, &config)[0].clone();
    // A task artifact, a receipt and a ledger change nothing.
    repo.write(".mastermind/tasks/001-a/spec.md", "spec, edited\n");
    repo.write(
        ".mastermind/tasks/001-a/verification/unit.tree.json",
        "{}\n",
    );
    repo.write(".mastermind/tasks/001-a/adversarial-findings.md", "x\n");
    repo.write(".mastermind/mmcg.db", "db\n");
    repo.commit_all("bookkeeping");
    let digests = four_digests(&repo, &config);
    assert!(digests.iter().all(|d| *d == before), "{digests:?}");
    // Code the project runs from .mastermind/ and the config are content.
    for (path, text) in [
        (".mastermind/tools/run.sh", "echo\n"),
        (".mastermind/hooks.yaml", "require_task: false\n"),
        (".mastermind/tasks/001-a/helper.py", "print()\n"),
    ] {
        repo.write(path, text);
        repo.commit_all(path);
        let digests = four_digests(&repo, &config);
        assert!(digests.iter().all(|d| *d == digests[0]), "{digests:?}");
        assert_ne!(digests[0], before, "{path} is covered");
    }
}

/// Digesting several commits with one digester reuses what it computed, and
/// a tree placed at the root and the same tree elsewhere are told apart
/// (bookkeeping exists only at the root's `.mastermind/`).
#[test]
fn memoized_commit_digests_equal_fresh_ones() {
    let repo = TestRepo::new();
    repo.write("src/a.txt", "a\n");
    repo.write(".mastermind/tasks/001-a/spec.md", "spec\n");
    let first = repo.commit_all("first");
    // Copy the whole first tree under vendor/: its spec.md is content there.
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
    repo.git(&["read-tree", "--prefix=vendor/", tree.trim()]);
    repo.git(&["checkout", "--", "."]);
    let second = repo.commit_all("second");
    repo.write("src/b.txt", "b\n");
    let third = repo.commit_all("third");
    let opened = Repo::discover(repo.path()).unwrap();
    let config = Config::strict_defaults();
    let ids: Vec<_> = [first, second, third]
        .iter()
        .map(|c| {
            let id = opened.resolve_commit(c.trim()).unwrap();
            (id, opened.commit_tree(id).unwrap())
        })
        .collect();
    let mut shared = TreeDigester::new(&opened, &config, false);
    let memoized: Vec<String> = ids
        .iter()
        .map(|(_, tree)| shared.of_tree(*tree).unwrap())
        .collect();
    let hashed_before_repeat = shared.stats().bytes_hashed;
    assert_eq!(shared.of_tree(ids[2].1).unwrap(), memoized[2]);
    assert_eq!(shared.stats().bytes_hashed, hashed_before_repeat);
    for ((commit, tree), memo) in ids.iter().zip(&memoized) {
        let mut fresh = TreeDigester::new(&opened, &config, false);
        assert_eq!(&fresh.of_tree(*tree).unwrap(), memo);
        let flat = View::from_commit(&opened, *commit).unwrap();
        assert_eq!(&fresh.of_view(&flat).unwrap(), memo);
    }
    assert_ne!(memoized[0], memoized[1], "vendor/ is content");
}

#[test]
fn stat_reuse_is_off_where_content_filters_may_apply() {
    let (sandbox, reused) = prepared(&[]).unwrap();
    assert_eq!(reused, NAMES.len());
    // An attributes file that converts line endings turns reuse off below it.
    sandbox
        .write("a/.gitattributes", b"*.txt text eol=crlf\n")
        .unwrap();
    let repo = Repo::discover(sandbox.path()).unwrap();
    let view = View::from_worktree(&repo).unwrap();
    let (_, files) = view.disk_contents().unwrap();
    for (path, _, known) in files {
        let under = path.starts_with(b"a/");
        assert_eq!(
            known == mastermind_hooks::repo::tree::Known::Indexed,
            !under && !path.ends_with(b".gitattributes"),
            "{path}"
        );
    }
    agree(&sandbox).unwrap();
    // core.autocrlf turns it off everywhere.
    sandbox.git(&["config", "core.autocrlf", "input"]).unwrap();
    let repo = Repo::discover(sandbox.path()).unwrap();
    let view = View::from_worktree(&repo).unwrap();
    let (_, mut files) = view.disk_contents().unwrap();
    assert!(files.all(|(_, _, known)| known != mastermind_hooks::repo::tree::Known::Indexed));
}

#[test]
fn a_same_size_edit_with_its_mtime_restored_is_seen() {
    let (sandbox, _) = prepared(&[]).unwrap();
    for file in 0..NAMES.len() as u8 {
        sandbox.apply(&Op::Restamp { file, seed: 3 }).unwrap();
    }
    agree(&sandbox).unwrap();
    // And entries staged in this second (racy) are read, not trusted.
    sandbox.apply(&Op::AddAll).unwrap();
    sandbox.apply(&Op::Restamp { file: 0, seed: 9 }).unwrap();
    agree(&sandbox).unwrap();
}

/// A later run takes unchanged directories' digests from the local memo by
/// tree id (the index's cached trees vouch for them) and hashes only what
/// changed; the digest equals a cold one.
#[test]
fn the_local_tree_memo_spares_unchanged_directories() {
    use mastermind_hooks::digest::cache::Sha256Cache;
    let repo = TestRepo::new();
    let format = repo.cache_format();
    for d in 0..5 {
        for f in 0..4 {
            repo.write(&format!("src/d{d}/f{f}.txt"), &format!("{d} {f}\n"));
        }
    }
    repo.write(".mastermind/tasks/001-a/spec.md", "spec\n");
    repo.commit_all("base");
    let home = tempfile::tempdir().unwrap();
    let cache = || Sha256Cache::at(home.path().join("cache"), [5; 32], format);
    let config = Config::strict_defaults();
    let digest = |use_memo: bool| {
        let opened = Repo::discover(repo.path()).unwrap();
        let index = View::from_index(&opened).unwrap();
        let mut digester = if use_memo {
            TreeDigester::with_cache(&opened, &config, cache())
        } else {
            TreeDigester::new(&opened, &config, false)
        };
        let value = digester.of_view(&index).unwrap();
        (value, digester.stats())
    };
    let (first, stats) = digest(true);
    assert_eq!(stats.files, 20, "the first run hashes every covered file");
    // One file changes and is staged: its directory's cached tree is gone.
    repo.write("src/d3/f1.txt", "changed\n");
    repo.git(&["add", "src/d3/f1.txt"]);
    let (second, stats) = digest(true);
    assert_eq!(stats.files, 4, "only src/d3/ is read again");
    assert_ne!(first, second);
    assert_eq!(second, digest(false).0);
}

/// The runner's snapshot after a check takes over the files the snapshot
/// before it read (dirty tracked files, untracked files) where their stat
/// data shows them unchanged, and reads the rest: a same-size rewrite whose
/// mtime is put back is seen by its ctime, a grown file by its size, and the
/// result names the same entries and digest as a view that reads every
/// file.
#[test]
fn a_later_snapshot_takes_over_only_files_unchanged_since_the_earlier_one() {
    use mastermind_hooks::repo::tree::worktree::RACY_MARGIN_SECS;
    let sandbox = common::worktree_ops::Sandbox::new().unwrap();
    sandbox.write("tracked.txt", b"committed\n").unwrap();
    sandbox.settle().unwrap();
    sandbox.write("tracked.txt", b"dirty\n").unwrap();
    for (name, data) in [
        ("kept.txt", &b"kept\n"[..]),
        ("restamped.txt", b"before\n"),
        ("grown.txt", b"x\n"),
    ] {
        sandbox.write(name, data).unwrap();
    }
    // Past the racy margin: files changed just before a view began are
    // never taken over.
    std::thread::sleep(std::time::Duration::from_millis(
        (RACY_MARGIN_SECS as u64 + 1) * 1000 + 100,
    ));
    let repo = Repo::discover(sandbox.path()).unwrap();
    let (_, earlier) = View::from_worktree_after(&repo, None).unwrap();
    assert_eq!(earlier.len(), 4, "one dirty tracked file, three untracked");
    assert_eq!(earlier.taken_over(), 0);

    // What a check might do: rewrite a file at its size and put its mtime
    // back, and grow another.
    let restamped = sandbox.path().join("restamped.txt");
    let mtime = std::fs::metadata(&restamped).unwrap().modified().unwrap();
    sandbox.write("restamped.txt", b"after!\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&restamped)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    sandbox.write("grown.txt", b"xy\n").unwrap();

    let (view, later) = View::from_worktree_after(&repo, Some(&earlier)).unwrap();
    assert_eq!(later.taken_over(), 2, "tracked.txt and kept.txt");
    let full = View::from_worktree_reading_all(&repo).unwrap();
    assert_eq!(
        view.entries().collect::<Vec<_>>(),
        full.entries().collect::<Vec<_>>()
    );
    let config = Config::strict_defaults();
    assert_eq!(
        TreeDigester::new(&repo, &config, false)
            .of_view(&view)
            .unwrap(),
        TreeDigester::new(&repo, &config, false)
            .of_view(&full)
            .unwrap()
    );

    // In turn: the two settled files again; the two the check changed are
    // read again, having changed within the racy margin of the second view.
    let (_, third) = View::from_worktree_after(&repo, Some(&later)).unwrap();
    assert_eq!(third.taken_over(), 2, "tracked.txt and kept.txt");
}
