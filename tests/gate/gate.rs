//! The gate end to end: real repositories built with the `git` binary, the
//! built `mastermind-hooks` binary run against them in every mode.

use crate::common::*;

const TASK: &str = "001-change-value";

/// A repository with one commit: src/lib.py, src/other.py, README.md, and
/// a configuration that lets anyone plan.
fn base_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
    repo.write("src/lib.py", "def value():\n    return 1\n");
    repo.write("src/other.py", "x = 1\n");
    repo.write("README.md", "# demo\n");
    repo.commit_all("base");
    repo
}

fn check_json(repo: &TestRepo, mode: &[&str]) -> (i32, serde_json::Value) {
    let mut args = vec!["check"];
    args.extend_from_slice(mode);
    args.extend(["--format", "json"]);
    let output = repo.run(&args, None);
    (status(&output), json(&output))
}

#[test]
fn an_in_scope_change_passes_and_names_the_task() {
    let repo = in_scope_change_staged();
    let output = repo.run(&["check", "--staged"], None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(text(&output).contains("ok: task .mastermind/tasks/001-change-value"));
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0);
    assert_eq!(report["summary"]["tasks"], 1);
    assert_eq!(report["tasks"][0]["ok"], true);
}

/// The base repository with a task declaring `src/lib.py` and that file's
/// change staged: a change the task covers.
fn in_scope_change_staged() -> TestRepo {
    let repo = base_repo();
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.git(&["add", "-A"]);
    repo
}

/// The base repository with a task declaring `src/lib.py` and a staged
/// change to `src/other.py` as well (reported, but outside the scope).
fn out_of_scope_change_staged() -> TestRepo {
    let repo = base_repo();
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py", "src/other.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.write("src/other.py", "x = 2\n");
    repo.git(&["add", "-A"]);
    repo
}

#[test]
fn a_file_outside_the_declared_scope_fails_with_unexpected_file() {
    let repo = out_of_scope_change_staged();
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    let codes = codes(&report);
    assert!(codes.contains(&"unexpected_file".to_string()), "{codes:?}");
    let diagnostic = report["tasks"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["diagnostics"].as_array().unwrap())
        .find(|d| d["code"] == "unexpected_file")
        .unwrap();
    assert_eq!(diagnostic["path"], "src/other.py");
    assert_eq!(diagnostic["task"], ".mastermind/tasks/001-change-value");
    // Human output shows the declared-versus-real diff.
    let human = text(&repo.run(&["check", "--staged"], None));
    assert!(human.contains("+src/other.py"), "{human}");
}

#[test]
fn a_change_touching_no_task_passes_with_a_warning_locally_unless_a_task_is_required() {
    let repo = base_repo();
    repo.write("src/other.py", "x = 3\n");
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0, "the local hooks warn: {report}");
    assert_eq!(codes(&report), ["untasked_change"]);
    assert_eq!(report["diagnostics"][0]["severity"], "warning");

    repo.git(&["reset", "-q"]);
    repo.write(".mastermind/hooks.yaml", "require_task: true\n");
    repo.git(&["add", ".mastermind/hooks.yaml"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "require tasks"]);
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["task_required"]);
}

#[test]
fn a_partially_staged_file_is_judged_by_its_staged_content() {
    let repo = in_scope_change_staged();
    // Break the report in the working tree only: the staged copy is valid.
    let report_path = ".mastermind/tasks/001-change-value/executor-report.md";
    let good = std::fs::read_to_string(repo.path().join(report_path)).unwrap();
    repo.write(report_path, &good.replace("status: complete", "status: ~"));
    let (code, _) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0, "the staged report is valid");

    // Now stage the broken report and repair the working tree copy.
    repo.git(&["add", report_path]);
    repo.write(report_path, &good);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["yaml_null_value"]);

    // Hunk-level: stage only the first of two edits of one file.
    repo.git(&["add", report_path]);
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
    let first = lines
        .iter()
        .position(|l| l.contains("- id: plan-1"))
        .unwrap();
    lines[first] = "  - id: plan-2".into();
    let last = lines
        .iter()
        .position(|l| l.contains("result: pass"))
        .unwrap();
    lines[last] = "    result: fail".into();
    repo.write(report_path, &(lines.join("\n") + "\n"));
    // Interactively stage the first hunk only (y), skip the second (n).
    let mut add = repo.command("git");
    add.args(["add", "-p", report_path]);
    let output = run_with_stdin(add, Some("y\nn\n"));
    assert!(output.status.success(), "{}", text(&output));
    let staged = repo.git(&["show", &format!(":{report_path}")]);
    assert!(
        staged.contains("plan-2") && staged.contains("result: pass"),
        "{staged}"
    );
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0, "{report}");
}

#[test]
fn commit_dash_a_with_an_out_of_scope_edit_is_refused_by_the_hook() {
    let repo = base_repo();
    repo.raw_hook("pre-commit", "check --staged");
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.git(&["add", "-A"]);
    // An unstaged out-of-scope edit to a tracked file.
    repo.write("src/other.py", "x = 99\n");
    let output = repo.git_output(&["commit", "-q", "-a", "-m", "all"]);
    assert!(!output.status.success(), "commit -a must be refused");
    assert!(
        text(&output).contains("unexpected_file"),
        "{}",
        text(&output)
    );
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim(), "1");
    // `git commit <paths>` builds a temporary index from the working tree
    // copies of those paths: with src/other.py in it, the task is out of scope,
    // although the real index alone would pass.
    let output = repo.git_output(&[
        "commit",
        "-q",
        "-m",
        "paths",
        "--",
        ".mastermind",
        "src/lib.py",
        "src/other.py",
    ]);
    assert!(
        !output.status.success(),
        "the temporary index must be checked"
    );
    assert!(text(&output).contains("src/other.py"), "{}", text(&output));
    // The staged index alone is in scope: a plain commit passes.
    let output = repo.git_output(&["commit", "-q", "-m", "task"]);
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]).trim(), "2");
}

#[test]
fn deletions_and_renames_are_seen() {
    let repo = base_repo();
    // A declared deletion listed in files_modified passes.
    repo.write_task(TASK, &["src/other.py"], &["src/other.py"]);
    repo.remove("src/other.py");
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0, "{report}");
    // Unlisted, the deletion is a changed file missing from the report.
    repo.write_task(TASK, &["src/other.py"], &[]);
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(codes(&report).contains(&"executor_report_missing_changed_file".to_string()));

    // A rename is a deletion plus an addition: the new name is undeclared.
    let repo = base_repo();
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.git(&["add", "-A"]);
    repo.git(&["mv", "src/lib.py", "src/renamed.py"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    let all = codes(&report);
    assert!(all.contains(&"unexpected_file".to_string()), "{all:?}");
    assert!(
        all.contains(&"executor_report_missing_changed_file".to_string()),
        "{all:?}"
    );
    let text = serde_json::to_string(&report).unwrap();
    assert!(text.contains("src/renamed.py was added"), "{text}");
}

#[test]
fn files_modified_must_match_the_real_changes_both_ways() {
    let repo = base_repo();
    repo.write_task(TASK, &["src/lib.py", "README.md"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.write("README.md", "# demo, changed\n");
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(
        codes(&report)
            .into_iter()
            .filter(|c| c.starts_with("executor_report"))
            .collect::<Vec<_>>(),
        ["executor_report_missing_changed_file"]
    );
    repo.write_task(
        TASK,
        &["src/lib.py", "README.md"],
        &["src/lib.py", "README.md", "src/other.py"],
    );
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(codes(&report).contains(&"executor_report_unchanged_file".to_string()));
    // A declared file that did not change is only a warning.
    repo.write_task(
        TASK,
        &["src/lib.py", "README.md", "src/other.py"],
        &["src/lib.py", "README.md"],
    );
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0, "{report}");
    assert!(codes(&report).contains(&"missing_expected_file".to_string()));
}

#[test]
fn creates_must_be_added_and_new() {
    let repo = base_repo();
    let spec_dir = ".mastermind/tasks/001-change-value";
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py", "src/new.py"]);
    let spec = std::fs::read_to_string(repo.path().join(format!("{spec_dir}/spec.md"))).unwrap();
    repo.write(
        &format!("{spec_dir}/spec.md"),
        &spec.replace("verify:", "creates: [src/new.py]\nverify:"),
    );
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.write("src/new.py", "y = 1\n");
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0, "{report}");
    // Declaring an existing file as created is wrong.
    repo.write(
        &format!("{spec_dir}/spec.md"),
        &spec.replace("verify:", "creates: [src/other.py]\nverify:"),
    );
    repo.git(&["rm", "-q", "--cached", "src/new.py"]);
    repo.git(&["add", &format!("{spec_dir}/spec.md")]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(
        codes(&report).contains(&"creation_exists_in_baseline".to_string()),
        "{report}"
    );
}

#[test]
fn the_report_must_name_this_task_and_be_complete() {
    let repo = base_repo();
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    let path = ".mastermind/tasks/001-change-value/executor-report.md";
    let good = std::fs::read_to_string(repo.path().join(path)).unwrap();
    repo.write(
        path,
        &good.replace("tasks/001-change-value/spec.md", "tasks/002-other/spec.md"),
    );
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["executor_report_task_mismatch"]);
    let partial = good.replace("status: complete", "status: partial").replace(
        "defects: []",
        "defects:\n  - {kind: implementation_defect, phase: plan-1, details: x, remediation_hint: y}",
    );
    repo.write(path, &partial);
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["executor_report_rejected"]);
    repo.git(&["rm", "-q", "--cached", path]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["executor_report_missing"]);
}

#[test]
fn declared_commands_need_passing_rows() {
    let repo = base_repo();
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    let path = ".mastermind/tasks/001-change-value/executor-report.md";
    let good = std::fs::read_to_string(repo.path().join(path)).unwrap();
    repo.write(path, &good.replace("cmd: make test", "cmd: make check"));
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&report), ["verification_requirement_unmet"]);
    repo.write(path, &good.replace("exit_code: 0", "exit_code: 3"));
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(
        codes(&report),
        [
            "observed_exit_code_nonzero",
            "verification_requirement_unmet"
        ]
    );
}

#[test]
fn the_first_commit_is_checked_against_the_empty_tree() {
    let repo = TestRepo::new();
    repo.write("src/lib.py", "x = 1\n");
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0, "{report}");
}

/// [`base_repo`] in the middle of a merge of a branch `side` whose change
/// to src/other.py conflicts with main's.
fn conflicted_merge() -> TestRepo {
    let repo = base_repo();
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("src/other.py", "x = side\n");
    repo.commit_all("side");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/other.py", "x = main\n");
    repo.commit_all("main");
    let merge = repo.git_output(&["merge", "-q", "side"]);
    assert!(!merge.status.success(), "the merge conflicts");
    repo
}

#[test]
fn unmerged_index_entries_cannot_be_checked() {
    let repo = conflicted_merge();
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 2);
    assert_eq!(codes(&report), ["git_index_unmerged"]);
}

/// A merge in progress leaves a conflicted file with stages 1 to 3 only: it
/// is still in the working tree, read from disk, never "deleted".
#[test]
fn a_conflicted_file_is_in_the_working_tree_as_it_is_on_disk() {
    let repo = conflicted_merge();
    let digest = || {
        let output = repo.run(&["digest", "--worktree", "--json"], None);
        assert_eq!(status(&output), 0, "{}", text(&output));
        json(&output)["digest"].as_str().unwrap().to_string()
    };
    repo.write("src/other.py", "x = resolved\n");
    let conflicted = digest();
    repo.write("src/other.py", "x = resolved again\n");
    assert_ne!(conflicted, digest(), "the conflicted file's content counts");
    repo.write("src/other.py", "x = resolved\n");
    repo.git(&["add", "src/other.py"]);
    assert_eq!(
        conflicted,
        digest(),
        "the same files as once it is resolved"
    );
    repo.git(&["reset", "-q", "--merge"]);
    let merge = repo.git_output(&["merge", "-q", "side"]);
    assert!(!merge.status.success(), "the merge conflicts again");
    let output = repo.run(&["check", "--worktree"], None);
    let shown = text(&output);
    assert!(shown.contains("src/other.py (modified)"), "{shown}");
    assert!(!shown.contains("deleted"), "{shown}");
}

fn push_line(repo: &TestRepo, branch: &str, remote_sha: &str) -> String {
    let sha = repo.git(&["rev-parse", branch]).trim().to_string();
    format!("refs/heads/{branch} {sha} refs/heads/{branch} {remote_sha}\n")
}

#[test]
fn a_push_of_two_refs_fails_when_only_the_second_is_bad() {
    let repo = base_repo();
    let base = repo.head();
    repo.git(&["checkout", "-q", "-b", "good"]);
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.commit_all("good");
    repo.git(&["checkout", "-q", "-b", "bad", &base]);
    repo.write_task("002-bad", &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 3\n");
    repo.write("src/other.py", "x = 4\n");
    repo.commit_all("bad");
    let input = format!(
        "{}{}",
        push_line(&repo, "good", &base),
        push_line(&repo, "bad", &base)
    );
    let output = repo.run(
        &[
            "check",
            "--push",
            "origin",
            "file:///remote",
            "--format",
            "json",
        ],
        Some(&input),
    );
    assert_eq!(status(&output), 1, "{}", text(&output));
    let report = json(&output);
    let tasks = report["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[0]["ok"], true);
    assert_eq!(
        tasks[0]["view"],
        "refs/heads/good -> origin refs/heads/good"
    );
    assert_eq!(tasks[1]["ok"], false);
    assert!(codes(&report).contains(&"unexpected_file".to_string()));

    // Only the good ref: passes. A deletion line is skipped.
    let zero = repo.zero_id();
    let input = format!(
        "{}(delete) {zero} refs/heads/gone {base}\n",
        push_line(&repo, "good", &base)
    );
    let output = repo.run(&["check", "--push", "--format", "json"], Some(&input));
    assert_eq!(status(&output), 0, "{}", text(&output));

    // Garbage on stdin is a usage error, never a pass.
    let output = repo.run(&["check", "--push"], Some("not a ref line\n"));
    assert_eq!(status(&output), 2);
}

#[test]
fn a_real_push_through_a_pre_push_hook_to_a_bare_remote() {
    let repo = base_repo();
    let remote = tempfile::tempdir().unwrap();
    let remote_path = remote.path().display().to_string();
    repo.git(&["init", "-q", "--bare", &remote_path]);
    repo.git(&["remote", "add", "origin", &remote_path]);
    repo.git(&["push", "-q", "origin", "main"]);
    repo.git(&["fetch", "-q", "origin"]);
    repo.raw_hook("pre-push", "check --push \"$@\"");
    // A new branch with a good task: only what origin lacks is checked.
    repo.git(&["checkout", "-q", "-b", "good"]);
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.commit_all("good");
    let output = repo.git_output(&["push", "-q", "origin", "good"]);
    assert!(output.status.success(), "{}", text(&output));
    // A bad branch next to another good ref in the same push is refused.
    repo.git(&["checkout", "-q", "-b", "bad", "main"]);
    repo.write_task("002-bad", &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 3\n");
    repo.write("README.md", "# changed\n");
    repo.commit_all("bad");
    repo.git(&["checkout", "-q", "good"]);
    repo.write("src/lib.py", "def value():\n    return 22\n");
    repo.commit_all("good again");
    let output = repo.git_output(&["push", "-q", "origin", "good", "bad"]);
    assert!(!output.status.success(), "the push must be refused");
    assert!(
        text(&output).contains("unexpected_file"),
        "{}",
        text(&output)
    );
}

/// main with a task-free base; branch `feature` adds a task.
fn ci_repo() -> TestRepo {
    let repo = base_repo();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.commit_all("feature");
    repo.git(&["checkout", "-q", "main"]);
    repo
}

#[test]
fn ci_checks_the_merge_and_ignores_what_the_base_did_meanwhile() {
    let repo = ci_repo();
    // The base moves on elsewhere after the branch forked.
    repo.write("src/other.py", "x = 10\n");
    repo.commit_all("main moves");
    let before = fingerprint(&repo);
    let (code, report) = check_json(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["summary"]["tasks"], 1);
    assert_eq!(
        before,
        fingerprint(&repo),
        "a check changes nothing in the repository"
    );
}

#[test]
fn a_branch_cannot_relax_its_own_gate() {
    // The relaxation, keeping the rule that lets anyone plan (a change of
    // the configuration is planning).
    let relaxed = format!("severity:\n  unexpected_file: note\n{ANYONE_PLANS}");
    let relaxed = relaxed.as_str();
    let repo = base_repo();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py", "src/other.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.write("src/other.py", "x = 5\n");
    repo.write(".mastermind/hooks.yaml", relaxed);
    repo.commit_all("feature relaxes the gate");
    let (code, report) = check_json(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 1, "judged by the base's configuration: {report}");
    assert!(codes(&report).contains(&"unexpected_file".to_string()));
    // The same relaxation on the base applies.
    repo.git(&["checkout", "-q", "main"]);
    repo.write(".mastermind/hooks.yaml", relaxed);
    repo.commit_all("base relaxes the gate");
    let (code, report) = check_json(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 0, "{report}");
}

#[test]
fn ci_merge_conflicts_cannot_be_checked() {
    let repo = ci_repo();
    repo.write("src/lib.py", "def value():\n    return 9\n");
    repo.commit_all("main edits the same line");
    let (code, report) = check_json(&repo, &["--ci", "--base", "main", "--head", "feature"]);
    assert_eq!(code, 2);
    assert_eq!(codes(&report), ["git_merge_conflict"]);
    let human = text(&repo.run(
        &["check", "--ci", "--base", "main", "--head", "feature"],
        None,
    ));
    assert!(
        human.contains("src/lib.py") && human.contains("rebase"),
        "{human}"
    );
}

#[test]
fn a_shallow_clone_that_hides_the_merge_base_cannot_be_checked() {
    let origin = ci_repo();
    origin.write("src/other.py", "x = 11\n");
    origin.commit_all("main moves");
    let clone = TestRepo::clone_of(&origin, &["--depth", "1", "--branch", "feature"]);
    clone.git(&[
        "fetch",
        "-q",
        "--depth",
        "1",
        "origin",
        "main:refs/remotes/origin/main",
    ]);
    let (code, report) = check_json(&clone, &["--ci", "--base", "origin/main", "--head", "HEAD"]);
    assert_eq!(code, 2, "{report}");
    assert_eq!(codes(&report), ["git_shallow_history"]);
    let human = text(&clone.run(&["check", "--ci", "--base", "origin/main"], None));
    assert!(human.contains("fetch-depth: 0"), "{human}");
    // A base the clone does not have at all.
    let (code, report) = check_json(&clone, &["--ci", "--base", "no-such-branch"]);
    assert_eq!(code, 2);
    assert_eq!(codes(&report), ["git_shallow_history"]);
}

#[test]
fn ci_reads_github_and_gitlab_variables() {
    let repo = ci_repo();
    let main = repo.git(&["rev-parse", "main"]).trim().to_string();
    let feature = repo.git(&["rev-parse", "feature"]).trim().to_string();
    let event = repo.path().join("event.json");
    std::fs::write(
        &event,
        format!(
            r#"{{"pull_request": {{"base": {{"sha": "{main}"}}, "head": {{"sha": "{feature}"}}}}}}"#
        ),
    )
    .unwrap();
    let event = event.display().to_string();
    let output = repo.run_env(
        &["check", "--ci", "--format", "json"],
        &[("GITHUB_ACTIONS", "true"), ("GITHUB_EVENT_PATH", &event)],
    );
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert_eq!(json(&output)["summary"]["tasks"], 1);
    let output = repo.run_env(
        &["check", "--ci", "--format", "json"],
        &[
            ("GITLAB_CI", "true"),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", &main),
            ("CI_COMMIT_SHA", &feature),
        ],
    );
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert_eq!(json(&output)["summary"]["tasks"], 1);
    // Without flags or variables there is no base: exit 2, not a pass.
    let output = repo.run(&["check", "--ci"], None);
    assert_eq!(status(&output), 2);
    assert!(text(&output).contains("--base"));
}

#[test]
fn a_task_baseline_covers_the_whole_task_across_commits() {
    let repo = base_repo();
    let baseline = repo.head();
    repo.write_task(
        TASK,
        &["src/lib.py", "README.md"],
        &["src/lib.py", "README.md"],
    );
    repo.write(
        ".mastermind/tasks/001-change-value/state.json",
        &format!("{{\"status\": \"approved\", \"baseline_ref\": \"{baseline}\"}}\n"),
    );
    repo.write("README.md", "# first part\n");
    repo.commit_all("first part");
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.git(&["add", "-A"]);
    // Against HEAD only src/lib.py changed, but the task's baseline sees
    // README.md too, which the report lists: no unchanged_file finding.
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0, "{report}");
    // A broken state.json is a finding, not a silent fallback.
    repo.write(".mastermind/tasks/001-change-value/state.json", "{not json");
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(codes(&report).contains(&"task_state_invalid".to_string()));
}

#[test]
fn worktree_mode_sees_untracked_files_but_not_ignored_ones() {
    let repo = base_repo();
    repo.write(".gitignore", "*.log\n");
    repo.commit_all("ignore logs");
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.write("debug.log", "noise\n");
    let (code, report) = check_json(&repo, &["--worktree"]);
    assert_eq!(code, 0, "ignored files are not changes: {report}");
    repo.write("src/untracked.py", "z = 1\n");
    let (code, report) = check_json(&repo, &["--worktree"]);
    assert_eq!(code, 1);
    assert!(codes(&report).contains(&"unexpected_file".to_string()));
    // --since compares with an older commit.
    let (code, _) = check_json(&repo, &["--worktree", "--since", "HEAD~1"]);
    assert_eq!(code, 1);
}

#[test]
fn an_invalid_configuration_stops_the_gate() {
    let repo = base_repo();
    repo.write(".mastermind/hooks.yaml", "require_tasks: true\n");
    repo.commit_all("typo in config");
    repo.write("src/other.py", "x = 6\n");
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 2);
    assert_eq!(codes(&report), ["config_invalid"]);
}

#[test]
fn outside_a_repository_nothing_can_be_checked() {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(BIN)
        .args(["check", "--staged", "--format", "json"])
        .current_dir(dir.path())
        .env("GIT_CEILING_DIRECTORIES", dir.path().parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(status(&output), 2);
    assert_eq!(codes(&json(&output)), ["git_repository_unavailable"]);
}

#[test]
fn staged_and_worktree_checks_change_nothing() {
    let repo = in_scope_change_staged();
    repo.write("src/untracked.py", "u = 1\n");
    let before = fingerprint(&repo);
    let mtime = std::fs::metadata(repo.path().join(".git/index"))
        .unwrap()
        .modified()
        .unwrap();
    for mode in [["--staged"], ["--worktree"]] {
        let _ = check_json(&repo, &mode);
    }
    assert_eq!(before, fingerprint(&repo));
    assert_eq!(
        mtime,
        std::fs::metadata(repo.path().join(".git/index"))
            .unwrap()
            .modified()
            .unwrap()
    );
}

#[test]
fn oversized_and_symlinked_artifacts_are_findings() {
    let repo = base_repo();
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    let report = ".mastermind/tasks/001-change-value/executor-report.md";
    repo.write(report, &"x".repeat(1024 * 1024 + 1));
    repo.git(&["add", "-A"]);
    let (code, json) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&json), ["input_too_large"]);
    repo.remove(report);
    std::os::unix::fs::symlink("../../../README.md", repo.path().join(report)).unwrap();
    repo.git(&["add", "-A"]);
    let (code, json) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1);
    // The link is refused as an artifact and, being under .mastermind/, as
    // a symlink there.
    assert_eq!(
        codes(&json),
        ["artifact_not_regular_file", "mastermind_symlink"]
    );
}

const LEDGER_PATH: &str = "tests/e2e/docs/adversarial-findings.md";

fn ledger() -> String {
    std::fs::read_to_string(format!(
        "{}/tests/cmd/subagent.in/{LEDGER_PATH}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn a_commit_that_breaks_the_findings_ledger_is_refused() {
    let repo = base_repo();
    repo.write(LEDGER_PATH, &ledger());
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["files"][0]["kind"], "findings-ledger");
    repo.commit_all("ledger");

    // Appending a new journey is fine.
    let appended = format!(
        "{}\n### j-search\n\n**Pass 4 — probe (2026-03-02)**\nScope: search box.\n\n**Pass 4 summary:** probes=2, boundaries=1, suspected-bugs=0 (crit=0, high=0, med=0, low=0)\n",
        ledger()
    );
    repo.write(LEDGER_PATH, &appended);
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 0, "{report}");

    // A malformed finding heading breaks the ledger contract.
    repo.write(
        LEDGER_PATH,
        &ledger().replace("#### j-checkout-4-02 [info]", "#### j-checkout-4-02 [p0]"),
    );
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1, "{report}");

    // Rewriting another journey's section is reported even when well-formed.
    repo.write(
        LEDGER_PATH,
        &ledger().replace(
            "Scope: session cookie, password reset token.",
            "Scope: session cookie.",
        ),
    );
    repo.git(&["add", "-A"]);
    let (code, report) = check_json(&repo, &["--staged"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        codes(&report),
        ["untasked_change", "ledger_section_rewritten"]
    );

    // Through a real hook, the commit is refused.
    repo.raw_hook("pre-commit", "check --staged");
    let output = repo.git_output(&["commit", "-q", "-m", "rewrite"]);
    assert!(!output.status.success());
    assert!(
        text(&output).contains("ledger_section_rewritten"),
        "{}",
        text(&output)
    );
}

#[test]
fn digest_prints_the_same_tree_v1_for_equal_views() {
    let repo = base_repo();
    let digest = |args: &[&str]| {
        let mut all = vec!["digest", "--json"];
        all.extend_from_slice(args);
        let output = repo.run(&all, None);
        assert_eq!(status(&output), 0, "{}", text(&output));
        json(&output)["digest"].as_str().unwrap().to_string()
    };
    let head = digest(&["--rev", "HEAD", "--no-cache"]);
    assert_eq!(head, digest(&["--staged"]));
    assert_eq!(head, digest(&["--worktree"]));
    assert_eq!(head.len(), 64);
    // Task files live under .mastermind/ and never change the digest.
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    assert_eq!(head, digest(&[]));
    repo.write("src/lib.py", "changed\n");
    assert_ne!(head, digest(&["--worktree"]));
    assert_eq!(head, digest(&["--staged"]), "the index is unchanged");
    let output = repo.run(&["digest", "--rev", "no-such-rev"], None);
    assert_eq!(status(&output), 2);
}

/// A split index (`git update-index --split-index`: a small index naming a
/// shared one) is read whole in every mode: the gate maps an ordinary index
/// once and decodes it from that mapping, and leaves a split one to gix,
/// which merges the shared index in. The digests and the verdicts are those
/// of the same index written whole.
#[test]
fn a_split_index_is_read_as_the_same_index_written_whole() {
    let repo = in_scope_change_staged();
    let seen = |repo: &TestRepo| {
        let digests: Vec<String> = ["--staged", "--worktree"]
            .iter()
            .map(|target| {
                let output = repo.run(&["digest", "--json", target], None);
                assert_eq!(status(&output), 0, "{target}: {}", text(&output));
                json(&output)["digest"].as_str().unwrap().to_string()
            })
            .collect();
        let verdicts: Vec<(i32, serde_json::Value)> = [&["--staged"][..], &["--worktree"][..]]
            .iter()
            .map(|mode| {
                let (code, report) = check_json(repo, mode);
                (code, report["tasks"].clone())
            })
            .collect();
        (digests, verdicts)
    };
    let whole = seen(&repo);
    assert_eq!(whole.1[0].0, 0, "{:?}", whole.1);
    repo.git(&["update-index", "--split-index"]);
    // A change staged after the split lives in the small index only.
    repo.write("src/other.py", "x = 2\n");
    repo.git(&["add", "src/other.py"]);
    let split = seen(&repo);
    assert!(
        std::fs::read_dir(repo.path().join(".git"))
            .unwrap()
            .any(|e| e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("sharedindex.")),
        "git wrote a shared index"
    );
    repo.git(&["update-index", "--no-split-index"]);
    let rejoined = seen(&repo);
    assert_eq!(split, rejoined, "split and whole read alike");
    assert_ne!(whole.0, split.0, "the second change is seen");
}

/// `digest --staged` and `--worktree` give no digest of an index whose
/// checksum does not hold, although the checksum is verified while the
/// view is read: the digest waits for it.
#[test]
fn digest_refuses_an_index_whose_checksum_does_not_hold() {
    let repo = base_repo();
    let index_path = repo.path().join(".git/index");
    let mut index = std::fs::read(&index_path).unwrap();
    let last = index.len() - 1;
    index[last] ^= 0xff;
    std::fs::write(&index_path, &index).unwrap();
    for target in ["--staged", "--worktree"] {
        let output = repo.run(&["digest", "--json", target], None);
        assert_eq!(status(&output), 2, "{target}: {}", text(&output));
        let shown = text(&output);
        assert!(
            shown.contains("checksum does not match"),
            "{target}: {shown}"
        );
        assert!(
            !shown.contains("\"digest\""),
            "{target}: no digest: {shown}"
        );
    }
    // A commit's digest does not read the index.
    let output = repo.run(&["digest", "--rev", "HEAD"], None);
    assert_eq!(status(&output), 0, "{}", text(&output));
}

/// A hook's human output goes to stderr, which is what git shows: `auto`
/// colour follows stderr, not stdout. Run under `script` for a terminal.
#[test]
fn hook_output_is_coloured_by_whether_stderr_is_a_terminal() {
    let repo = out_of_scope_change_staged();
    let under_terminal = |inner: &str| {
        let output = repo
            .command("script")
            .args(["-q", "-e", "-c", inner, "/dev/null"])
            .env("TERM", "xterm")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .output()
            .expect("script(1) from util-linux runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    // stderr on the terminal, stdout to a file: coloured.
    let shown = under_terminal(&format!("'{BIN}' check --staged > stdout.txt"));
    assert!(shown.contains("unexpected_file"), "{shown}");
    assert!(shown.contains("\u{1b}["), "stderr is a terminal: {shown:?}");
    // stderr to a file, stdout on the terminal: plain.
    under_terminal(&format!("'{BIN}' check --staged 2> stderr.txt"));
    let logged = std::fs::read_to_string(repo.path().join("stderr.txt")).expect("stderr.txt");
    assert!(logged.contains("unexpected_file"), "{logged}");
    assert!(!logged.contains('\u{1b}'), "stderr is a file: {logged:?}");
}
