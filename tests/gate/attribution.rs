//! The model of a change on real histories: each task is judged over its
//! own commits, wherever they sit in a range, with the same verdict in
//! pre-commit, pre-push and CI.

use crate::common::tasks::*;
use crate::common::*;

fn check(repo: &TestRepo, args: &[&str]) -> (i32, Vec<String>, String) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend(["--format", "json"]);
    let out = repo.run(&all, None);
    let report = json(&out);
    (status(&out), codes(&report), text(&out))
}

fn errors(repo: &TestRepo, args: &[&str]) -> (i32, String) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    let out = repo.run(&all, None);
    (status(&out), text(&out))
}

/// A repository with a first commit (anyone plans) and a bare remote
/// `origin` that has it; pre-push runs the gate.
fn repo_with_remote() -> (TestRepo, tempfile::TempDir) {
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
    repo.write("src/a.py", "a = 0\n");
    repo.write("src/b.py", "b = 0\n");
    repo.write("README.md", "# demo\n");
    repo.commit_all("initial");
    let remote = tempfile::tempdir().expect("remote");
    let bare = remote.path().join("origin.git");
    repo.git(&["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    repo.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    repo.git(&["push", "-q", "origin", "main"]);
    repo.raw_hook("pre-push", "check --push \"$@\"");
    (repo, remote)
}

/// Commit what is in the working tree after the pre-commit gate passed on
/// it (as the installed hook would).
fn commit_gated(repo: &TestRepo, message: &str) -> String {
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(repo, &["--staged"]);
    assert_eq!(code, 0, "pre-commit refused {message}: {codes:?}\n{out}");
    repo.git(&["commit", "-q", "--no-verify", "-m", message]);
    repo.head()
}

fn push(repo: &TestRepo, args: &[&str]) -> std::process::Output {
    let mut all = vec!["push", "-q"];
    all.extend_from_slice(args);
    repo.git_output(&all)
}

fn pushed_ok(repo: &TestRepo, args: &[&str]) {
    let out = push(repo, args);
    assert!(
        out.status.success(),
        "push {args:?} refused:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn two_tasks_in_one_push_are_each_judged_by_their_own_commit() {
    let (repo, _remote) = repo_with_remote();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(&repo, "001-a", "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    do_task(&repo, "002-b", "src/b.py", "beta");
    commit_gated(&repo, "task b");
    pushed_ok(&repo, &["origin", "feature"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    assert!(!codes.iter().any(|c| c == "unexpected_file"), "{codes:?}");
}

#[test]
fn a_human_follow_up_after_a_task_can_be_pushed_and_is_listed() {
    let (repo, _remote) = repo_with_remote();
    // CI refuses untasked work unless a rule on the base allows it: this
    // repository lets anyone touch README.md without a task.
    repo.write(
        ".mastermind/hooks.yaml",
        &format!(
            "untasked:\n  rules:\n    - action: allow\n      paths: [README.md]\n{}",
            ANYONE_PLANS
        ),
    );
    repo.commit_all("README.md needs no task");
    pushed_ok(&repo, &["origin", "main"]);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(&repo, "001-a", "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    repo.write("README.md", "# demo, with notes\n");
    commit_gated(&repo, "human follow-up");
    pushed_ok(&repo, &["origin", "feature"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    assert!(
        codes.iter().any(|c| c == "untasked_change"),
        "the follow-up is listed for a reviewer: {codes:?}"
    );
    assert!(out.contains("README.md"), "{out}");
}

#[test]
fn an_unrelated_commit_on_the_base_and_a_merge_of_it_keep_receipts_current() {
    let (repo, _remote) = repo_with_remote();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(&repo, "001-a", "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/b.py", "b = 1\n");
    repo.commit_all("unrelated work on main");
    pushed_ok(&repo, &["origin", "main"]);
    // CI on the open branch: the base moved on.
    let (code, codes, out) = check(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    // Merge the base into the branch: no re-run needed.
    repo.git(&["checkout", "-q", "feature"]);
    repo.git(&["merge", "-q", "--no-edit", "main"]);
    pushed_ok(&repo, &["origin", "feature"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
}

#[test]
fn a_rebase_onto_unrelated_work_keeps_the_receipt_current_and_an_amend_passes() {
    let (repo, _remote) = repo_with_remote();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(&repo, "001-a", "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/b.py", "b = 1\n");
    repo.commit_all("main moves");
    repo.git(&["checkout", "-q", "feature"]);
    repo.git(&["rebase", "-q", "main"]);
    // The task's commit now sits on other content, but what its check ran
    // on (the task's territory) is what lands: the receipt is current.
    let (code, codes, out) = check(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    // Re-running and amending changes nothing of that.
    verify(&repo, "001-a");
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    repo.git(&["commit", "-q", "--amend", "--no-edit", "--no-verify"]);
    pushed_ok(&repo, &["origin", "feature"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
}

#[test]
fn an_amended_task_commit_passes() {
    let (repo, _remote) = repo_with_remote();
    do_task(&repo, "001-a", "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    // The agent fixes its report's wording and amends.
    write_report(&repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.write(".mastermind/tasks/001-a/state.json", "{\"iteration\": 2}\n");
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    repo.git(&["commit", "-q", "--amend", "--no-edit", "--no-verify"]);
    pushed_ok(&repo, &["origin", "main"]);
}

/// Push main to a new, empty bare remote through the pre-push gate; panics
/// unless the push is accepted. Git's stderr.
fn first_push_to_an_empty_remote(repo: &TestRepo) -> String {
    let remote = tempfile::tempdir().expect("remote");
    let bare = remote.path().join("empty.git");
    repo.git(&["init", "-q", "--bare", bare.to_str().unwrap()]);
    repo.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    repo.raw_hook("pre-push", "check --push \"$@\"");
    let out = push(repo, &["origin", "main"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

#[test]
fn the_first_push_to_an_empty_remote_judges_commits_not_history() {
    let repo = TestRepo::new();
    repo.write("src/a.py", "a = 0\n");
    repo.write("vendor/big.txt", "third-party\n");
    repo.commit_all("initial import");
    do_task(&repo, "001-a", "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    let stderr = first_push_to_an_empty_remote(&repo);
    assert!(
        !stderr.contains("unexpected_file"),
        "the initial commit's files are not the task's: {stderr}"
    );
}

#[test]
fn archiving_a_finished_task_is_allowed_and_reported() {
    let (repo, _remote) = repo_with_remote();
    do_task(&repo, "001-a", "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    pushed_ok(&repo, &["origin", "main"]);
    repo.git(&["rm", "-r", "-q", ".mastermind/tasks/001-a"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    assert_eq!(codes, ["task_archived"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "archive task a"]);
    pushed_ok(&repo, &["origin", "main"]);
    // Refusing archival is one severity override away.
    repo.git(&["revert", "--no-edit", "HEAD"]);
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("severity:\n  task_archived: error\n{}", ANYONE_PLANS),
    );
    repo.commit_all("archiving needs a review");
    repo.git(&["rm", "-r", "-q", ".mastermind/tasks/001-a"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!((code, codes), (1, vec!["task_archived".to_string()]));
}

#[test]
fn editing_an_old_task_re_judges_it_whole() {
    let (repo, _remote) = repo_with_remote();
    do_task(&repo, "001-a", "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    repo.write("README.md", "# later\n");
    commit_gated(&repo, "unrelated");
    pushed_ok(&repo, &["origin", "main"]);
    // Much later, a typo fix in the old task's report.
    let report = ".mastermind/tasks/001-a/executor-report.md";
    let text = std::fs::read_to_string(repo.path().join(report)).unwrap();
    repo.write(report, &text.replace("# Report", "# Report (final)"));
    let (code, codes, out) = {
        repo.git(&["add", "-A"]);
        check(&repo, &["--staged"])
    };
    assert_eq!(
        code, 0,
        "the task is whole and its receipt current: {codes:?}\n{out}"
    );
    // But a report that stops listing the task's file is caught: the
    // task's history still changed it.
    repo.write(
        report,
        &text
            .replace("  - src/a.py\n", "")
            .replace("files_modified:\n", "files_modified: []\n"),
    );
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(
        codes
            .iter()
            .any(|c| c == "executor_report_missing_changed_file"),
        "{codes:?}"
    );
}

#[test]
fn one_task_over_three_commits_and_two_pushes() {
    let (repo, _remote) = repo_with_remote();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    write_spec(
        &repo,
        "001-a",
        &["src/a.py", "src/b.py"],
        "src/a.py",
        "alpha",
    );
    repo.write("src/a.py", "alpha\n");
    verify(&repo, "001-a");
    write_report(&repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    commit_gated(&repo, "task a, part 1");
    pushed_ok(&repo, &["origin", "feature"]);
    // Part 2 changes more content, so the check runs again.
    repo.write("src/b.py", "b = 2\n");
    verify(&repo, "001-a");
    write_report(
        &repo,
        "001-a",
        &["src/a.py", "src/b.py"],
        "src/a.py",
        "alpha",
    );
    commit_gated(&repo, "task a, part 2");
    // Part 3 is bookkeeping only.
    repo.write(".mastermind/tasks/001-a/state.json", "{\"iteration\": 2}\n");
    commit_gated(&repo, "task a, part 3");
    // The second push holds parts 2 and 3; the task is judged over all
    // three commits (its report lists src/a.py from part 1).
    pushed_ok(&repo, &["origin", "feature"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    // A report that forgot part 1's file is caught, though part 1 landed:
    // on the feature branch as unfinished work (a warning), on main as an
    // error.
    write_report(&repo, "001-a", &["src/b.py"], "src/a.py", "alpha");
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 0, "{codes:?}");
    for expected in ["executor_report_missing_changed_file", "work_in_progress"] {
        assert!(codes.iter().any(|c| c == expected), "{codes:?}");
    }
    repo.git(&["commit", "-q", "--no-verify", "-m", "forgot part 1"]);
    let (code, codes, _) = check(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 1);
    assert!(
        codes
            .iter()
            .any(|c| c == "executor_report_missing_changed_file"),
        "{codes:?}"
    );
}

#[test]
fn a_later_commit_of_the_same_task_makes_its_receipt_stale() {
    let (repo, _remote) = repo_with_remote();
    do_task(&repo, "001-a", "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    // More work for the task after the check ran.
    repo.write("src/a.py", "alpha\nmore\n");
    repo.write(".mastermind/tasks/001-a/state.json", "{\"iteration\": 2}\n");
    repo.git(&["add", "-A"]);
    let (code, out) = errors(&repo, &["--staged"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("receipt_snapshot_changed"), "{out}");
    assert!(
        out.contains("mastermind-hooks verification run"),
        "the fix is printed: {out}"
    );
}

#[test]
fn commit_all_with_the_task_folder_untracked_under_an_agent_policy() {
    let (repo, _remote) = repo_with_remote();
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("untasked:\n  default: allow\n  rules:\n    - action: deny\n      agents: [claude-code]\n{}", ANYONE_PLANS),
    );
    repo.commit_all("policy: agent commits need a task");
    pushed_ok(&repo, &["origin", "main"]);
    // The agent works on src/a.py with its task folder untracked and
    // commits with `git commit -a`, which leaves the folder out.
    do_task(&repo, "001-a", "src/a.py", "alpha");
    repo.git(&[
        "commit",
        "-q",
        "-a",
        "--no-verify",
        "-m",
        "Change a\n\nCo-Authored-By: Claude <noreply@anthropic.com>",
    ]);
    let out = push(&repo, &["origin", "main"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "the agent's untasked commit is caught"
    );
    assert!(stderr.contains("task_required"), "{stderr}");
    assert!(stderr.contains("src/a.py"), "{stderr}");
    // A human's untasked commit passes.
    repo.git(&["reset", "-q", "--hard", "origin/main"]);
    repo.write("src/b.py", "b = 3\n");
    repo.git(&["commit", "-q", "-a", "--no-verify", "-m", "Human fix"]);
    pushed_ok(&repo, &["origin", "main"]);
}

#[test]
fn require_task_denies_untasked_changes_but_exclude_exempts_paths() {
    let (repo, _remote) = repo_with_remote();
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("require_task: true\nexclude: ['docs/**']\n{}", ANYONE_PLANS),
    );
    repo.commit_all("strict");
    repo.write("docs/guide.md", "# guide\n");
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 0, "excluded paths need no task: {codes:?}\n{out}");
    repo.write("src/a.py", "a = 9\n");
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!((code, codes), (1, vec!["task_required".to_string()]));
}

#[test]
fn a_commit_touching_two_tasks_is_judged_against_their_union() {
    let (repo, _remote) = repo_with_remote();
    write_spec(&repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    write_spec(&repo, "002-b", &["src/b.py"], "src/b.py", "beta");
    repo.write("src/a.py", "alpha\n");
    repo.write("src/b.py", "beta\n");
    verify(&repo, "001-a");
    verify(&repo, "002-b");
    write_report(&repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    write_report(&repo, "002-b", &["src/b.py"], "src/b.py", "beta");
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    // A path neither declares is out of scope for both.
    repo.write("README.md", "# sneaked in\n");
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(
        codes.iter().filter(|c| *c == "unexpected_file").count(),
        2,
        "{codes:?}"
    );
}

#[test]
fn a_task_archived_in_the_same_push_is_still_judged_at_its_last_commit() {
    let (repo, _remote) = repo_with_remote();
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("require_task: true\n{}", ANYONE_PLANS),
    );
    repo.commit_all("strict");
    pushed_ok(&repo, &["origin", "main"]);
    // The task's work and its archiving, pushed together: the work is the
    // task's (judged at its commit), never untasked.
    do_task(&repo, "001-a", "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    repo.git(&["rm", "-r", "-q", ".mastermind/tasks/001-a"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "archive task a"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", "origin/main", "--head", "HEAD"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    assert!(codes.iter().any(|c| c == "task_archived"), "{codes:?}");
    assert!(out.contains("judged at"), "{out}");
    pushed_ok(&repo, &["origin", "main"]);
    // Work that strays from the task's scope is still the task's finding.
    do_task(&repo, "002-b", "src/b.py", "beta");
    repo.write("src/a.py", "strayed\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "task b strays"]);
    repo.git(&["rm", "-r", "-q", ".mastermind/tasks/002-b"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "archive task b"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", "origin/main", "--head", "HEAD"]);
    assert_eq!(code, 1, "{codes:?}\n{out}");
    assert!(codes.iter().any(|c| c == "unexpected_file"), "{codes:?}");
    assert!(!codes.iter().any(|c| c == "task_required"), "{codes:?}");
}

#[test]
fn a_clean_merge_of_main_is_no_untasked_change_under_a_deny_policy() {
    let (repo, _remote) = repo_with_remote();
    repo.write("src/a.py", "a = 0\n\n\n\n\n\nend = 0\n");
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("require_task: true\n{}", ANYONE_PLANS),
    );
    repo.commit_all("strict");
    pushed_ok(&repo, &["origin", "main"]);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    write_spec(&repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.write("src/a.py", "a = 0\n\n\n\n\n\nend = 0\nalpha = 1\n");
    verify(&repo, "001-a");
    write_report(&repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    commit_gated(&repo, "task a");
    // main edits the same file elsewhere (a maintainer's commit).
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/a.py", "a = 1\n\n\n\n\n\nend = 0\n");
    repo.git(&["commit", "-q", "--no-verify", "-am", "main fix"]);
    pushed_ok(&repo, &["--no-verify", "origin", "main"]);
    repo.git(&["checkout", "-q", "feature"]);
    repo.git(&["merge", "-q", "--no-edit", "main"]);
    // The merged file differs from both parents, yet it is git's own merge:
    // nothing of it is the merge's.
    let (code, codes, out) = check(&repo, &["--ci", "--base", "origin/main", "--head", "HEAD"]);
    assert!(
        !codes.iter().any(|c| c == "task_required"),
        "{codes:?}\n{out}"
    );
    // What lands in the task's file is content its check never ran on: the
    // receipt is stale until the check runs again on the merge.
    assert_eq!(code, 1, "{codes:?}\n{out}");
    assert_eq!(
        codes,
        ["receipt_snapshot_changed", "task_created"],
        "the stale receipt, and the note of who planned the task: {out}"
    );
    verify(&repo, "001-a");
    commit_gated(&repo, "task a: re-run on the merge");
    let (code, codes, out) = check(&repo, &["--ci", "--base", "origin/main", "--head", "HEAD"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
}

#[test]
fn a_first_push_keeps_a_baseline_in_the_pushed_history() {
    let repo = TestRepo::new();
    repo.write("src/a.py", "a = 0\n");
    repo.commit_all("initial import");
    let first = repo.head();
    do_task(&repo, "001-a", "src/a.py", "alpha");
    repo.write(
        ".mastermind/tasks/001-a/state.json",
        &format!("{{\"baseline_ref\": \"{first}\"}}\n"),
    );
    commit_gated(&repo, "task a");
    let stderr = first_push_to_an_empty_remote(&repo);
    assert!(!stderr.contains("task_baseline_invalid"), "{stderr}");
}

#[test]
fn converted_files_get_a_hint_to_run_isolated_and_an_isolated_receipt_passes() {
    let (repo, _remote) = repo_with_remote();
    repo.write(".gitattributes", "*.py text eol=crlf\n");
    repo.commit_all("attributes");
    // Check the files out again so that they are converted on disk.
    for file in ["src/a.py", "src/b.py"] {
        std::fs::remove_file(repo.path().join(file)).unwrap();
    }
    repo.git(&["checkout", "--", "."]);
    repo.git(&["push", "-q", "--no-verify", "origin", "main"]);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    write_spec(&repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.write("src/a.py", "alpha\r\n");
    verify(&repo, "001-a");
    write_report(&repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "task a"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", "main", "--head", "HEAD"]);
    assert_eq!(code, 1, "{codes:?}\n{out}");
    assert!(
        codes.iter().any(|c| c == "receipt_snapshot_changed"),
        "{codes:?}"
    );
    assert!(out.contains("--isolated"), "{out}");
    // The isolated run digests exactly the committed content.
    let run = repo.run(
        &[
            "verification",
            "run",
            ".mastermind/tasks/001-a/spec.md",
            "--id",
            "unit",
            "--isolated",
        ],
        None,
    );
    assert_eq!(status(&run), 0, "{}", text(&run));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "--amend", "--no-edit"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", "main", "--head", "HEAD"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
}
