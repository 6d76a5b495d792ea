//! The merges of a range computed in bulk (one `git merge-tree --stdin`
//! process, `Repo::prepare_merges`) answer exactly as the merges computed
//! one by one and as `git merge-tree --write-tree` itself, over generated
//! histories with every kind of merge git makes: clean merges of topic
//! branches, conflicts resolved each way (content, modify/delete, add/add),
//! renames against edits, criss-crosses (several merge bases), merges git
//! need not make (a side that contains the other, equal trees) and merges
//! of unrelated histories. A git without `--stdin` (before 2.40) gets the
//! same verdict one merge at a time.

use crate::common::{TestRepo, make_executable, text};
use gix::ObjectId;
use gix::bstr::BString;
use mastermind_hooks::repo::Repo;
use mastermind_hooks::repo::merge::Merge;

/// A small deterministic generator (the tests need no randomness crate).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

fn lines(name: &str, n: usize) -> String {
    (0..n).map(|i| format!("{name} line {i}\n")).collect()
}

/// Commit everything as is (hooks off), returning the new commit.
fn commit(repo: &TestRepo, message: &str) -> String {
    repo.git(&["add", "-A"]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "--allow-empty",
        "-m",
        message,
    ]);
    repo.head()
}

/// Start a merge of `other` (no commit; conflicts expected), let `resolve`
/// settle the files, commit it.
fn merge(repo: &TestRepo, other: &str, extra: &[&str], resolve: impl FnOnce(&TestRepo)) {
    let mut args = vec![
        "merge",
        "-q",
        "--no-ff",
        "--no-commit",
        "--no-edit",
        "--no-verify",
    ];
    args.extend_from_slice(extra);
    args.push(other);
    let out = repo.git_output(&args);
    assert!(out.status.code().unwrap_or(2) <= 1, "{}", text(&out));
    resolve(repo);
    commit(repo, &format!("merge {other}"));
}

/// A history of `rounds` merges into `main` of every kind, from `seed`,
/// ending (with `stranger`) in a merge of an unrelated history.
fn history(seed: u64, rounds: usize, stranger: bool) -> TestRepo {
    let repo = TestRepo::new();
    let mut rng = Lcg(seed);
    for f in 0..8 {
        repo.write(&format!("src/f{f}.txt"), &lines(&format!("f{f}"), 12));
    }
    commit(&repo, "base");
    for n in 0..3 {
        repo.write("src/main.txt", &format!("main {n}\n"));
        commit(&repo, &format!("main {n}"));
    }
    for round in 0..rounds {
        let topic = format!("topic{round}");
        let file = |rng: &mut Lcg| format!("src/f{}.txt", rng.below(8));
        // Fork a few commits back on main's first-parent line.
        let back = rng.below(3);
        repo.git(&["checkout", "-q", "-b", &topic, &format!("main~{back}")]);
        match rng.below(8) {
            // A clean merge: the topic edits its own file.
            0 | 1 => {
                let path = format!("src/topic{round}.txt");
                repo.write(&path, &lines(&topic, 3));
                commit(&repo, &format!("{topic}: add"));
                repo.git(&["checkout", "-q", "main"]);
                repo.write(&format!("src/main{round}.txt"), "main\n");
                commit(&repo, &format!("main beside {topic}"));
                merge(&repo, &topic, &[], |_| {});
            }
            // A content conflict, resolved as ours, theirs or something new.
            2 => {
                let path = file(&mut rng);
                repo.write(&path, &format!("{topic} wins\n"));
                commit(&repo, &format!("{topic}: edit"));
                repo.git(&["checkout", "-q", "main"]);
                repo.write(&path, &format!("main wins {round}\n"));
                commit(&repo, &format!("main edits {path}"));
                let how = rng.below(3);
                merge(&repo, &topic, &[], |repo| match how {
                    0 => {
                        repo.git(&["checkout", "-q", "--ours", "--", &path]);
                    }
                    1 => {
                        repo.git(&["checkout", "-q", "--theirs", "--", &path]);
                    }
                    _ => repo.write(&path, "resolved by hand\n"),
                });
            }
            // Modify/delete: the topic deletes what main edits.
            3 => {
                let path = format!("src/md{round}.txt");
                repo.git(&["checkout", "-q", "main"]);
                repo.write(&path, "to be fought over\n");
                commit(&repo, &format!("main adds {path}"));
                repo.git(&["checkout", "-q", &topic]);
                repo.git(&["merge", "-q", "--no-edit", "--no-verify", "main"]);
                repo.remove(&path);
                commit(&repo, &format!("{topic}: delete {path}"));
                repo.git(&["checkout", "-q", "main"]);
                repo.write(&path, "edited on main\n");
                commit(&repo, &format!("main edits {path}"));
                merge(&repo, &topic, &[], |repo| {
                    repo.git(&["add", "-A"]);
                });
            }
            // Add/add: both sides add the same path differently.
            4 => {
                let path = format!("src/both{round}.txt");
                repo.write(&path, "the topic's\n");
                commit(&repo, &format!("{topic}: add {path}"));
                repo.git(&["checkout", "-q", "main"]);
                repo.write(&path, "main's\n");
                commit(&repo, &format!("main adds {path}"));
                merge(&repo, &topic, &[], |repo| repo.write(&path, "both\n"));
            }
            // A rename on the topic against an edit on main.
            5 => {
                let path = file(&mut rng);
                let renamed = format!("src/renamed{round}.txt");
                if repo.path().join(&path).exists() {
                    repo.git(&["mv", &path, &renamed]);
                    commit(&repo, &format!("{topic}: rename"));
                    repo.git(&["checkout", "-q", "main"]);
                    let mut body =
                        std::fs::read_to_string(repo.path().join(&path)).unwrap_or_default();
                    body.push_str("appended on main\n");
                    repo.write(&path, &body);
                    commit(&repo, &format!("main edits {path}"));
                } else {
                    repo.git(&["checkout", "-q", "main"]);
                }
                merge(&repo, &topic, &[], |repo| {
                    repo.git(&["add", "-A"]);
                });
            }
            // A criss-cross: the topic merges main, main merges the topic's
            // earlier state, then the topic lands (two merge bases).
            6 => {
                let path = file(&mut rng);
                repo.write(&path, &format!("{topic} first\n"));
                let early = commit(&repo, &format!("{topic}: first"));
                repo.git(&["checkout", "-q", "main"]);
                repo.write(&format!("src/cc{round}.txt"), "main side\n");
                commit(&repo, &format!("main beside {topic}"));
                let main_before = repo.head();
                merge(&repo, &early, &[], |repo| {
                    repo.git(&["add", "-A"]);
                });
                repo.git(&["checkout", "-q", &topic]);
                merge(&repo, &main_before, &[], |repo| {
                    repo.git(&["add", "-A"]);
                });
                repo.write(&format!("src/cc{round}.txt"), "the topic's side\n");
                commit(&repo, &format!("{topic}: second"));
                repo.git(&["checkout", "-q", "main"]);
                merge(&repo, &topic, &[], |repo| {
                    repo.git(&["add", "-A"]);
                });
            }
            // Merges git need not make: main has not moved (the merge base
            // is main), or the topic changes nothing.
            _ => {
                repo.git(&["checkout", "-q", "main"]);
                repo.git(&["branch", "-f", &topic, "main"]);
                repo.git(&["checkout", "-q", &topic]);
                if rng.below(2) == 0 {
                    repo.write(&format!("src/ff{round}.txt"), "ff\n");
                }
                commit(&repo, &format!("{topic}: maybe nothing"));
                repo.git(&["checkout", "-q", "main"]);
                merge(&repo, &topic, &[], |_| {});
            }
        }
    }
    if !stranger {
        return repo;
    }
    // And a merge of an unrelated history.
    repo.git(&["checkout", "-q", "--orphan", "stranger"]);
    repo.git(&["rm", "-rq", "--cached", "."]);
    for entry in std::fs::read_dir(repo.path().join("src")).expect("src") {
        let entry = entry.expect("entry");
        std::fs::remove_file(entry.path()).expect("remove");
    }
    repo.write("stranger.txt", "from elsewhere\n");
    commit(&repo, "stranger");
    repo.git(&["checkout", "-q", "-f", "main"]);
    merge(&repo, "stranger", &["--allow-unrelated-histories"], |_| {});
    repo
}

/// Every two-parent merge reachable from main, as (ours, theirs).
fn merge_pairs(repo: &TestRepo) -> Vec<(ObjectId, ObjectId)> {
    repo.git(&["rev-list", "--merges", "--parents", "main"])
        .lines()
        .filter_map(|line| {
            let ids: Vec<ObjectId> = line
                .split_whitespace()
                .map(|id| ObjectId::from_hex(id.as_bytes()).expect("id"))
                .collect();
            (ids.len() == 3).then(|| (ids[1], ids[2]))
        })
        .collect()
}

/// `git merge-tree --write-tree` of one pair: the tree and the conflicted
/// paths, `None` where git refuses (no common history).
fn git_merge(repo: &TestRepo, ours: ObjectId, theirs: ObjectId) -> Option<Merge> {
    let out = repo.git_output(&[
        "merge-tree",
        "--write-tree",
        "-z",
        "--name-only",
        "--no-messages",
        &ours.to_string(),
        &theirs.to_string(),
    ]);
    if !matches!(out.status.code(), Some(0 | 1)) {
        return None;
    }
    let mut fields = out.stdout.split(|b| *b == 0).filter(|f| !f.is_empty());
    let tree = ObjectId::from_hex(fields.next()?).expect("tree id");
    let mut conflicts: Vec<BString> = fields.map(BString::from).collect();
    conflicts.sort();
    conflicts.dedup();
    Some(Merge { tree, conflicts })
}

#[test]
fn merges_in_bulk_are_git_merges_one_by_one() {
    // The last history has enough merges for a process per core (at least
    // 32 merges each), so a machine with two cores merges it in two.
    for (seed, rounds) in [(1, 24), (7, 24), (53, 80)] {
        let repo = history(seed, rounds, true);
        let pairs = merge_pairs(&repo);
        assert!(pairs.len() >= rounds, "seed {seed}: {} merges", pairs.len());
        let bulk = Repo::discover(repo.path()).expect("open");
        let commits: Vec<_> = repo
            .git(&["rev-list", "main"])
            .lines()
            .map(|id| {
                let id = ObjectId::from_hex(id.as_bytes()).expect("id");
                bulk.commit_meta(id).expect("meta")
            })
            .collect();
        bulk.prepare_merges(&commits);
        let single = Repo::discover(repo.path()).expect("open");
        let mut conflicted = 0;
        for (ours, theirs) in &pairs {
            let from_bulk = bulk.merge_commits(*ours, *theirs).expect("bulk merge");
            let alone = single.merge_commits(*ours, *theirs).expect("single merge");
            assert_eq!(from_bulk, alone, "seed {seed}: {ours} {theirs}");
            let by_git = git_merge(&repo, *ours, *theirs);
            assert_eq!(
                from_bulk, by_git,
                "seed {seed}: git's merge of {ours} {theirs}"
            );
            conflicted += usize::from(by_git.is_some_and(|m| !m.conflicts.is_empty()));
        }
        assert!(conflicted > 0, "seed {seed}: some merge conflicts");
        // What each merge owns follows: the same in both, and the same as
        // the long way round (every path of the merge against its first
        // parent, held against git's merge), which a merge equal to git's
        // clean merge skips.
        for line in repo.git(&["rev-list", "main"]).lines() {
            let id = ObjectId::from_hex(line.as_bytes()).expect("id");
            let meta = bulk.commit_meta(id).expect("meta");
            let owned = bulk.commit_changes(&meta).expect("bulk changes");
            assert_eq!(
                owned,
                single.commit_changes(&meta).expect("single changes"),
                "seed {seed}: commit {id}"
            );
            if let [ours, theirs] = meta.parents.as_slice()
                && let Some(merge) = single.merge_commits(*ours, *theirs).expect("merge")
            {
                let first = single.commit_tree(*ours).expect("tree");
                let second = single.commit_tree(*theirs).expect("tree");
                let all = single
                    .tree_changes(Some(first), Some(meta.tree))
                    .expect("changes");
                let long_way =
                    mastermind_hooks::repo::merge::own_changes(&single, all, first, second, &merge)
                        .expect("own changes");
                assert_eq!(owned, long_way, "seed {seed}: merge {id}");
            }
        }
    }
}

/// A `git` on PATH that logs every call and, with `NO_STDIN` set, refuses
/// `merge-tree --stdin` as git before 2.40 does.
fn logging_git(dir: &std::path::Path) -> std::path::PathBuf {
    let real = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .expect("sh");
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> \"{log}\"\ncase \" $* \" in *\" merge-tree \"*\"--stdin \"*) if [ -n \"$NO_STDIN\" ]; then echo \"error: unknown option \\`stdin'\" >&2; exit 129; fi ;; esac\nexec \"{real}\" \"$@\"\n",
        log = dir.join("log").display(),
    );
    std::fs::write(bin.join("git"), script).expect("script");
    make_executable(&bin.join("git"));
    bin
}

#[test]
fn a_range_costs_one_merge_process_and_an_old_git_gets_the_same_verdict() {
    // Without and with a merge of an unrelated history, which makes git
    // refuse the batch: then the merge bases are found and the merges git
    // must make are sent again, once.
    for (stranger, processes) in [(false, 1), (true, 2)] {
        let repo = history(11, 12, stranger);
        let merges = merge_pairs(&repo).len();
        let base = repo.git(&["rev-list", "--max-parents=0", "main"]);
        let base = base.lines().last().expect("root").to_string();
        let scratch = tempfile::tempdir().expect("scratch");
        let bin = logging_git(scratch.path());
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let log = scratch.path().join("log");
        let run = |no_stdin: bool| {
            let _ = std::fs::remove_file(&log);
            let mut cmd = repo.command(crate::common::BIN);
            cmd.args([
                "check", "--ci", "--base", &base, "--head", "main", "--format", "json",
            ])
            .env("PATH", &path);
            if no_stdin {
                cmd.env("NO_STDIN", "1");
            }
            let out = cmd.output().expect("run");
            let calls = std::fs::read_to_string(&log).unwrap_or_default();
            let merge_trees: Vec<String> = calls
                .lines()
                .filter(|l| l.contains("merge-tree"))
                .map(str::to_string)
                .collect();
            (out, merge_trees)
        };
        let (bulk, bulk_calls) = run(false);
        let (old, old_calls) = run(true);
        assert_eq!(
            bulk_calls.len(),
            processes,
            "stranger {stranger}: merge-tree processes for the range: {bulk_calls:?}"
        );
        assert!(bulk_calls.iter().all(|call| call.contains("--stdin")));
        assert!(
            old_calls.len() > 2,
            "without --stdin, one per merge git must make ({merges} merges): {old_calls:?}"
        );
        assert_eq!(bulk.status.code(), old.status.code(), "{}", text(&old));
        assert_eq!(
            String::from_utf8_lossy(&bulk.stdout),
            String::from_utf8_lossy(&old.stdout),
            "stranger {stranger}: the same report either way"
        );
    }
}
