//! `check --staged` derives HEAD's view from the index where the index's
//! cached trees vouch for a directory. These tests hold the derived view to
//! the full walk of HEAD in every staging state git can produce, and show
//! that vouched directories are really not read.

use crate::common::TestRepo;
use gix::bstr::BString;
use mastermind_hooks::repo::Repo;
use mastermind_hooks::repo::changes::ChangeSet;
use mastermind_hooks::repo::tree::{Entry, View};

fn open(repo: &TestRepo) -> (Repo, gix::ObjectId) {
    let opened = Repo::discover(repo.path()).expect("discover");
    let head = opened.head_commit().expect("head").expect("a commit");
    (opened, head)
}

fn listing(view: &View) -> Vec<(BString, Entry)> {
    view.entries().map(|(p, e)| (p.to_owned(), *e)).collect()
}

/// The derived view answers exactly as the full walk does.
fn assert_same(repo: &TestRepo, state: &str) {
    let (opened, head) = open(repo);
    let full = View::from_commit(&opened, head).expect("full walk");
    let index = View::from_index(&opened).expect("index");
    let (index2, derived) = View::index_and_commit(&opened, head).expect("derived");
    assert_eq!(listing(&index), listing(&index2), "{state}: index views");
    assert_eq!(listing(&derived), listing(&full), "{state}: entries");
    let beside = View::commit_beside_index(&opened, head).expect("beside the index");
    assert_eq!(
        listing(&beside),
        listing(&full),
        "{state}: working-tree base"
    );
    assert_eq!(derived.len(), full.len(), "{state}: len");
    assert_eq!(derived.is_empty(), full.is_empty(), "{state}: is_empty");
    for (path, _) in index.entries().chain(full.entries()) {
        let path = path.to_string();
        assert_eq!(derived.get(&path), full.get(&path), "{state}: get {path}");
    }
    assert_eq!(derived.get("no/such/file"), None);
    for prefix in ["a/", "a/b/", "lib/", "docs/", "x/"] {
        let ours: Vec<_> = derived.paths_under(prefix).map(|p| p.to_owned()).collect();
        let theirs: Vec<_> = full.paths_under(prefix).map(|p| p.to_owned()).collect();
        assert_eq!(ours, theirs, "{state}: paths under {prefix}");
    }
    let expected = ChangeSet::between(&full, &index);
    assert_eq!(
        ChangeSet::between(&derived, &index2),
        expected,
        "{state}: change set"
    );
}

fn seeded() -> TestRepo {
    let repo = TestRepo::new();
    for (path, body) in [
        ("a/b/c.txt", "c"),
        ("a/b/d.txt", "d"),
        ("a/e.txt", "e"),
        ("a-b", "dash"),
        ("a.b", "dot"),
        ("a0", "zero"),
        ("lib/one.rs", "1"),
        ("lib/deep/two.rs", "2"),
        ("docs/readme.md", "r"),
        ("top.txt", "t"),
    ] {
        repo.write(path, body);
    }
    repo.commit_all("seed");
    repo
}

#[test]
fn a_clean_index_is_the_commit() {
    let repo = seeded();
    assert_same(&repo, "clean");
}

/// One way of changing what is staged.
type Step = dyn Fn(&TestRepo);

#[test]
fn every_staging_state_matches_the_full_walk() {
    let repo = seeded();
    let steps: &[(&str, &Step)] = &[
        ("modify deep file", &|r| {
            r.write("a/b/c.txt", "changed");
            r.git(&["add", "a/b/c.txt"]);
        }),
        ("add in new dir", &|r| {
            r.write("x/y/new.txt", "new");
            r.git(&["add", "x"]);
        }),
        ("add in existing dir", &|r| {
            r.write("lib/three.rs", "3");
            r.git(&["add", "lib/three.rs"]);
        }),
        ("remove cached", &|r| {
            r.git(&["rm", "-q", "--cached", "docs/readme.md"]);
        }),
        ("remove a whole dir", &|r| {
            r.git(&["rm", "-q", "-r", "lib/deep"]);
        }),
        ("chmod", &|r| {
            r.git(&["update-index", "--chmod=+x", "top.txt"]);
        }),
        ("intent to add", &|r| {
            r.write("a/ita.txt", "later");
            r.git(&["add", "-N", "a/ita.txt"]);
        }),
        ("move a dir", &|r| {
            r.git(&["mv", "a/b", "a/bb"]);
        }),
        ("dir becomes file", &|r| {
            r.git(&["rm", "-q", "-r", "--cached", "lib"]);
            std::fs::remove_dir_all(r.path().join("lib")).expect("rm lib");
            r.write("lib", "now a file");
            r.git(&["add", "lib"]);
        }),
        ("symlink", &|r| {
            std::os::unix::fs::symlink("top.txt", r.path().join("link")).expect("symlink");
            r.git(&["add", "link"]);
        }),
        ("gitlink", &|r| {
            let id = r.head();
            r.git(&[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("160000,{id},vendor/sub"),
            ]);
        }),
    ];
    for (name, step) in steps {
        step(&repo);
        assert_same(&repo, name);
    }
    // Committed: the cached trees are whole again.
    repo.git(&["commit", "-q", "-m", "all of it"]);
    assert_same(&repo, "after commit");
}

#[test]
fn an_index_of_another_commit_is_walked_not_trusted() {
    let repo = seeded();
    repo.write("lib/one.rs", "changed");
    repo.write("a/b/c.txt", "changed");
    repo.commit_all("second");
    // The index now holds the first commit's trees, cached and valid, but
    // they are not HEAD's trees for `lib/` and `a/b/`.
    repo.git(&["read-tree", "HEAD~1"]);
    assert_same(&repo, "read-tree HEAD~1");
    repo.git(&["read-tree", "HEAD"]);
    assert_same(&repo, "read-tree HEAD");
}

#[test]
fn a_vouched_directory_is_not_read() {
    let repo = seeded();
    repo.write("a/e.txt", "staged");
    repo.git(&["add", "a/e.txt"]);
    // Delete the loose tree object of `lib/`, which the staged change does
    // not touch: the full walk needs it, the derived view must not.
    let lib = repo.git(&["rev-parse", "HEAD:lib"]);
    let lib = lib.trim();
    let object = repo
        .path()
        .join(".git/objects")
        .join(&lib[..2])
        .join(&lib[2..]);
    std::fs::remove_file(&object).expect("remove the tree object");
    let (opened, head) = open(&repo);
    assert!(View::from_commit(&opened, head).is_err());
    let (index, derived) = View::index_and_commit(&opened, head).expect("derived");
    let changes: Vec<_> = ChangeSet::between(&derived, &index)
        .iter()
        .map(|(p, k)| (p.to_string(), k.as_str()))
        .collect();
    assert_eq!(changes, vec![("a/e.txt".to_string(), "modified")]);
    assert!(derived.get("lib/deep/two.rs").is_some());
}

/// A long random walk of edits, stagings, unstagings and commits (a fixed
/// seed, so a failure replays), checked after every step.
#[test]
fn a_random_walk_of_stagings_matches_the_full_walk() {
    let repo = seeded();
    let paths = [
        "a/b/c.txt",
        "a/b/n.txt",
        "a/e.txt",
        "a-b",
        "a0",
        "lib/one.rs",
        "lib/deep/two.rs",
        "lib/deep/er/three.rs",
        "docs/readme.md",
        "z/z/z/z.txt",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for step in 0..80 {
        let path = paths[next(paths.len())];
        let name = match next(6) {
            0 | 1 => {
                repo.write(path, &format!("body {step}"));
                repo.git(&["add", path]);
                format!("{step}: stage {path}")
            }
            2 => {
                let _ = repo.git_output(&["rm", "-q", "--cached", "--ignore-unmatch", path]);
                format!("{step}: unstage {path}")
            }
            3 => {
                let _ = repo.git_output(&["reset", "-q", "HEAD", "--", path]);
                format!("{step}: reset {path}")
            }
            4 => {
                let _ = repo.git_output(&["commit", "-q", "-m", &format!("step {step}")]);
                format!("{step}: commit")
            }
            _ => {
                repo.git(&["add", "-A"]);
                format!("{step}: add everything")
            }
        };
        assert_same(&repo, &name);
    }
}

/// A working-tree run on an index git cannot commit (a conflict) still
/// gets HEAD's files: the commit is read whole.
#[test]
fn an_unmerged_index_reads_the_commit_whole() {
    let repo = seeded();
    let main = repo.git(&["rev-parse", "--abbrev-ref", "HEAD"]);
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("a/e.txt", "theirs");
    repo.commit_all("theirs");
    repo.git(&["checkout", "-q", main.trim()]);
    repo.write("a/e.txt", "ours");
    repo.commit_all("ours");
    let merge = repo.git_output(&["merge", "-q", "other"]);
    assert!(!merge.status.success(), "the merge conflicts");
    let (opened, head) = open(&repo);
    assert!(View::index_and_commit(&opened, head).is_err());
    let full = View::from_commit(&opened, head).expect("full walk");
    let beside = View::commit_beside_index(&opened, head).expect("beside the index");
    assert_eq!(listing(&beside), listing(&full));
}
