//! The shapes a team's repository takes (issue 51), each working or
//! refused by name with the fix: a linked worktree, a sparse checkout with
//! and without a sparse index, the untracked cache, an fsmonitor, a shallow
//! clone, a HEAD on a symbolic branch. In each, an honest task's check is
//! run by `verification run`, its receipt is current in the local modes and
//! once committed, and a task that strays is refused with a verdict (exit 1).
//!
//! Elsewhere: a split index (`gate::a_split_index_is_read_as_the_same_index_written_whole`),
//! a partial clone (`corners::a_partial_ci_clone_says_how_to_fetch_what_the_gate_reads`:
//! `git_partial_clone`), a shallow CI clone that hides the base
//! (`gate::a_shallow_clone_that_hides_the_merge_base_cannot_be_checked`:
//! `git_shallow_history`). `.ci/run` runs this module again in SHA-256 and
//! reftable repositories.

use crate::common::landing::verdict;
use crate::common::tasks::do_task;
use crate::common::{TestRepo, json, status, text};

/// A repository with files in and outside `src/`, committed.
fn project() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/a.py", "a = 0\n");
    repo.write("src/b.py", "b = 0\n");
    repo.write("docs/guide.md", "# guide\n");
    repo.write("docs/deep/more.md", "more\n");
    repo.write("tools/run.sh", "echo run\n");
    repo.commit_all("start");
    repo
}

/// The tree digest of `target` (`--staged`, `--worktree`, `HEAD`).
fn digest(repo: &TestRepo, target: &str) -> String {
    let mut args = vec!["digest", "--json"];
    if target.starts_with("--") {
        args.push(target);
    } else {
        args.extend(["--rev", target]);
    }
    let out = repo.run(&args, None);
    assert_eq!(status(&out), 0, "digest {target}: {}", text(&out));
    json(&out)["digest"].as_str().unwrap().to_string()
}

/// `check MODE --format json`.
fn check(repo: &TestRepo, mode: &str) -> crate::common::landing::Verdict {
    verdict(&repo.run(&["check", mode, "--format", "json"], None))
}

/// An honest task passes `--worktree` and `--staged`, its digest is the
/// same in the working tree, the index and the commit, and a straying
/// change is refused with a verdict in both modes.
fn honest_then_stray(repo: &TestRepo, what: &str) {
    do_task(repo, "001-honest", "src/a.py", "honest");
    let worktree = check(repo, "--worktree");
    worktree.expect(0, &format!("{what}: --worktree on the honest task"));
    repo.git(&["add", "-A"]);
    let staged = check(repo, "--staged");
    staged.expect(0, &format!("{what}: --staged on the honest task"));
    let in_worktree = digest(repo, "--worktree");
    assert_eq!(in_worktree, digest(repo, "--staged"), "{what}");
    repo.git(&["commit", "-q", "--no-verify", "-m", "honest"]);
    assert_eq!(in_worktree, digest(repo, "HEAD"), "{what}");
    // A second task strays onto a file it does not declare.
    do_task(repo, "002-stray", "src/b.py", "stray");
    repo.write("tools/run.sh", "echo changed\n");
    let worktree = check(repo, "--worktree");
    worktree.expect(1, &format!("{what}: --worktree on the stray task"));
    assert!(
        worktree.has("unexpected_file"),
        "{what}: {:?}",
        worktree.codes
    );
    repo.git(&["add", "-A"]);
    let staged = check(repo, "--staged");
    staged.expect(1, &format!("{what}: --staged on the stray task"));
    assert!(staged.has("unexpected_file"), "{what}: {:?}", staged.codes);
}

#[test]
fn a_linked_worktree_is_checked_like_the_main_one() {
    let repo = project();
    // The linked worktree in an empty directory of its own.
    let linked = TestRepo::new();
    std::fs::remove_dir_all(linked.path().join(".git")).unwrap();
    let at = linked.path().to_str().unwrap();
    repo.git(&["worktree", "add", "-q", "-b", "side", at]);
    honest_then_stray(&linked, "linked worktree");
    // The main worktree saw none of it.
    check(&repo, "--worktree").expect(0, "the main worktree");
}

#[test]
fn a_sparse_checkout_reads_the_files_outside_its_cone_as_git_does() {
    for sparse_index in ["--no-sparse-index", "--sparse-index"] {
        let repo = project();
        // The cone: the code and the task folders.
        repo.git(&["sparse-checkout", "set", sparse_index, "src", ".mastermind"]);
        assert!(
            !repo.path().join("docs/guide.md").exists(),
            "{sparse_index}: docs/ is outside the cone"
        );
        if sparse_index == "--sparse-index" {
            let listed = repo.git(&["ls-files", "--sparse"]);
            assert!(listed.contains("docs/\n"), "a sparse index: {listed}");
        }
        // The cone's files are the commit's, and so is everything outside.
        let head = digest(&repo, "HEAD");
        assert_eq!(digest(&repo, "--worktree"), head, "{sparse_index}");
        assert_eq!(digest(&repo, "--staged"), head, "{sparse_index}");
        // The honest task's receipt is current in every mode; a stray one
        // is refused.
        let what = format!("sparse checkout {sparse_index}");
        do_task(&repo, "001-honest", "src/a.py", "honest");
        check(&repo, "--worktree").expect(0, &what);
        repo.git(&["add", "-A"]);
        check(&repo, "--staged").expect(0, &what);
        repo.git(&["commit", "-q", "--no-verify", "-m", "honest"]);
        let ci = verdict(&repo.run(
            &[
                "check", "--ci", "--base", "HEAD~1", "--head", "HEAD", "--format", "json",
            ],
            None,
        ));
        // Untasked commits are refused in CI by default: the task's own
        // commit is the one judged.
        assert!(
            !ci.has("receipt_snapshot_changed"),
            "{what}: {:?}",
            ci.codes
        );
        do_task(&repo, "002-stray", "src/b.py", "stray");
        repo.write("src/a.py", "undeclared\n");
        repo.git(&["add", "-A"]);
        let stray = check(&repo, "--staged");
        stray.expect(1, &what);
        assert!(stray.has("unexpected_file"), "{what}: {:?}", stray.codes);
    }
}

#[test]
fn the_untracked_cache_hides_no_untracked_file() {
    let repo = project();
    repo.git(&["config", "core.untrackedCache", "true"]);
    repo.git(&["update-index", "--untracked-cache"]);
    // git fills the cache, then a file appears in a directory it cached.
    repo.git(&["status", "--porcelain"]);
    honest_then_stray(&repo, "untracked cache");
    repo.write("docs/new.md", "new\n");
    repo.git(&["status", "--porcelain"]);
    let with_cache = digest(&repo, "--worktree");
    repo.git(&["update-index", "--no-untracked-cache"]);
    repo.git(&["config", "core.untrackedCache", "false"]);
    assert_eq!(digest(&repo, "--worktree"), with_cache);
    let worktree = check(&repo, "--worktree");
    assert!(
        worktree.text.contains("docs/new.md"),
        "the new untracked file is seen: {}",
        worktree.text
    );
}

#[test]
fn an_fsmonitor_that_reports_nothing_cannot_hide_a_change() {
    let repo = project();
    // A hook-based monitor (protocol 2) that says nothing ever changed:
    // git's status trusts it, the gate reads the disk.
    let monitor = repo.home().join("fsmonitor.sh");
    std::fs::write(&monitor, "#!/bin/sh\nprintf '%s\\0' \"$2\"\n").unwrap();
    crate::common::make_executable(&monitor);
    repo.git(&["config", "core.fsmonitor", monitor.to_str().unwrap()]);
    repo.git(&["status", "--porcelain"]);
    repo.write("tools/run.sh", "echo hidden\n");
    let status_said = repo.git(&["status", "--porcelain"]);
    assert!(
        !status_said.contains("tools/run.sh"),
        "git trusts the monitor: {status_said}"
    );
    let worktree = check(&repo, "--worktree");
    assert!(
        worktree.text.contains("tools/run.sh"),
        "the gate sees the change: {}",
        worktree.text
    );
    repo.write("tools/run.sh", "echo run\n");
    // A monitor that says everything may have changed (`/`): git keeps its
    // fsmonitor data in the index, and the gate reads that index.
    std::fs::write(&monitor, "#!/bin/sh\nprintf '%s\\0/\\0' \"$2\"\n").unwrap();
    repo.git(&["status", "--porcelain"]);
    honest_then_stray(&repo, "fsmonitor");
}

#[test]
fn a_shallow_clone_is_checked_where_it_holds_what_lands() {
    let origin = project();
    for i in 0..3 {
        origin.write("docs/guide.md", &format!("# guide {i}\n"));
        origin.commit_all("more history");
    }
    let clone = TestRepo::clone_of(&origin, &["--depth", "1"]);
    assert_eq!(
        clone.git(&["rev-parse", "--is-shallow-repository"]).trim(),
        "true"
    );
    honest_then_stray(&clone, "shallow clone");
    // pre-push of the honest commit to the branch it came from: its base
    // (the remote's tip) is in the clone.
    let tip = clone.git(&["rev-parse", "HEAD~1"]).trim().to_string();
    let remote = clone.git(&["rev-parse", "origin/main"]).trim().to_string();
    let line = format!("refs/heads/main {tip} refs/heads/main {remote}\n");
    let pushed = verdict(&clone.run(&["check", "--push", "--format", "json"], Some(&line)));
    pushed.expect(0, "pre-push from a shallow clone");
}

/// HEAD on a branch that is itself a symbolic reference (`HEAD ->
/// refs/heads/alias -> refs/heads/main`, as some tools leave a renamed
/// default branch): the gate judges against the commit at the end of the
/// chain, as git does, not against the empty tree. An honest task passes,
/// a straying one is refused, and an untasked change names only the file
/// it adds.
#[test]
fn a_head_on_a_symbolic_branch_is_the_commit_at_the_end_of_the_chain() {
    let repo = project();
    repo.head_on_symbolic_branch();
    repo.write("tools/new.sh", "echo new\n");
    repo.git(&["add", "tools/new.sh"]);
    let staged = check(&repo, "--staged");
    staged.expect(0, "an untasked file, warned about");
    let untasked: Vec<String> = (staged.report.as_ref().unwrap()["diagnostics"].as_array())
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "untasked_change")
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(untasked.len(), 1, "{}", staged.text);
    assert!(
        untasked[0].contains("tools/new.sh (added)") && !untasked[0].contains("src/a.py"),
        "judged against HEAD's commit, not the empty tree: {}",
        untasked[0]
    );
    repo.git(&["rm", "-q", "--cached", "tools/new.sh"]);
    repo.remove("tools/new.sh");
    honest_then_stray(&repo, "HEAD on a symbolic branch");
}
