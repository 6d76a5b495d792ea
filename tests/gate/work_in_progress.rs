//! Work in progress (DESIGN.md section 7): an unfinished task may be
//! committed and pushed on a branch that does not land on the protected
//! branch, with warnings that name the commands that finish it; whatever
//! lands on the protected branch is judged strictly, with one verdict in
//! CI, pre-push and pre-receive; contract violations stay errors; and
//! `work_in_progress: deny` turns the allowance off.

use crate::common::landing::*;
use crate::common::tasks::*;
use crate::common::{codes, json, status, text};

const AGENT: &str = "Agent <agent@example.invalid>";

fn forge(policy: &str) -> Forge {
    Forge::new(&[
        (
            ".mastermind/hooks.yaml",
            &format!("untasked:\n  default: allow\nplanning:\n  default: allow\n{policy}"),
        ),
        ("src/a.py", "a = 0\n"),
    ])
}

/// A task half done on branch `feature`: spec and edit, no receipt, no
/// report.
fn unfinished(forge: &Forge) {
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    write_spec(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.write("src/a.py", "alpha\n");
    repo.git(&["add", "-A"]);
}

fn staged(forge: &Forge) -> Verdict {
    verdict(
        &forge
            .work
            .run(&["check", "--staged", "--format", "json"], None),
    )
}

#[test]
fn an_unfinished_task_is_committed_and_pushed_on_a_branch_and_refused_where_it_lands() {
    let forge = forge("");
    unfinished(&forge);
    let repo = &forge.work;
    // pre-commit on the feature branch: warnings, exit 0, and the way out.
    let commit = staged(&forge);
    commit.expect(0, "pre-commit of unfinished work on a branch");
    for code in [
        "executor_report_missing",
        "receipt_missing",
        "work_in_progress",
    ] {
        assert!(commit.has(code), "{code}: {commit:?}");
    }
    let human = repo.run(&["check", "--staged"], None);
    let shown = text(&human);
    for named in [
        "warning[work_in_progress]",
        "branch feature is not the default branch main",
        "refused where it lands on a protected branch",
        "mastermind-hooks verification run .mastermind/tasks/001-a/spec.md --id unit",
        "set `status: complete` in .mastermind/tasks/001-a/executor-report.md",
    ] {
        assert!(shown.contains(named), "{named}: {shown}");
    }
    commit_as(repo, "wip: task a", AGENT, "2024-01-01T10:00:00");

    // pre-push and pre-receive of the branch itself: warnings, exit 0.
    let push = forge.pre_push("feature", "heads/feature");
    push.expect(0, "pre-push of the branch");
    assert!(push.has("work_in_progress"), "{push:?}");
    let received = forge.receive(&["feature"]);
    received.expect(0, "pre-receive of the branch");
    assert!(received.has("work_in_progress"), "{received:?}");

    // What lands on main is judged strictly, the same in every mode.
    for (mode, verdict) in [
        ("check --ci", forge.ci("main", "feature")),
        ("pre-push to main", forge.pre_push("feature", "heads/main")),
        ("pre-receive of main", forge.receive(&["feature:main"])),
    ] {
        verdict.expect(1, mode);
        assert!(verdict.has("receipt_missing"), "{mode}: {verdict:?}");
        assert!(!verdict.has("work_in_progress"), "{mode}: {verdict:?}");
    }

    // A CI push pipeline of the branch is work in progress too; the pull
    // request's pipeline is not.
    let sha = repo.head();
    let zero = repo.zero_id();
    let gitlab = |extra: &[(&'static str, &str)]| {
        let mut env: Vec<(&str, &str)> = vec![("GITLAB_CI", "true"), ("CI_DEFAULT_BRANCH", "main")];
        env.extend_from_slice(extra);
        forge.ci_env("", "", &env)
    };
    let pipeline = gitlab(&[
        ("CI_PIPELINE_SOURCE", "push"),
        ("CI_COMMIT_BRANCH", "feature"),
        ("CI_COMMIT_SHA", &sha),
        ("CI_COMMIT_BEFORE_SHA", &zero),
    ]);
    pipeline.expect(0, "a GitLab push pipeline of the branch");
    assert!(pipeline.has("work_in_progress"), "{pipeline:?}");
    let main_tip = forge.remote_id("heads/main");
    let request = gitlab(&[
        ("CI_PIPELINE_SOURCE", "merge_request_event"),
        ("CI_MERGE_REQUEST_EVENT_TYPE", "detached"),
        ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main"),
        ("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", &main_tip),
        ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "feature"),
        ("CI_COMMIT_SHA", &sha),
    ]);
    request.expect(1, "the merge request's pipeline");
    assert!(!request.has("work_in_progress"), "{request:?}");

    // Finished, it lands.
    verify(repo, "001-a");
    write_report(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.git(&["add", "-A"]);
    let done = staged(&forge);
    done.expect(0, "pre-commit of the finished task");
    assert!(!done.has("work_in_progress"), "{done:?}");
    commit_as(repo, "task a done", AGENT, "2024-01-01T11:00:00");
    forge.ci("main", "feature").expect(0, "check --ci");
    forge
        .receive(&["feature:main"])
        .expect(0, "pre-receive of main");
}

#[test]
fn contract_violations_stay_errors_on_a_branch() {
    let forge = forge("");
    unfinished(&forge);
    // Work outside the task's scope is no unfinished work.
    forge.work.write("src/other.py", "x = 1\n");
    forge.work.git(&["add", "-A"]);
    let verdict = staged(&forge);
    verdict.expect(1, "an undeclared file on a branch");
    assert!(verdict.has("unexpected_file"), "{verdict:?}");
    // A malformed report is no unfinished report.
    forge.work.remove("src/other.py");
    forge
        .work
        .write(".mastermind/tasks/001-a/executor-report.md", "# nothing\n");
    forge.work.git(&["add", "-A"]);
    let verdict = staged(&forge);
    verdict.expect(1, "a malformed report on a branch");
    assert!(verdict.has("executor_report_no_tail"), "{verdict:?}");
}

#[test]
fn on_the_default_branch_and_with_work_in_progress_denied_unfinished_work_is_refused() {
    // Committing on main itself.
    let forge = forge("");
    let repo = &forge.work;
    write_spec(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.write("src/a.py", "alpha\n");
    repo.git(&["add", "-A"]);
    let out = repo.run(&["check", "--staged", "--format", "json"], None);
    assert_eq!(status(&out), 1, "{}", text(&out));
    assert!(!codes(&json(&out)).contains(&"work_in_progress".to_string()));

    // `work_in_progress: deny` on the protected branch: strict everywhere.
    let forge = forge_denying();
    unfinished(&forge);
    let commit = staged(&forge);
    commit.expect(1, "pre-commit with work_in_progress: deny");
    assert!(commit.has("receipt_missing") && !commit.has("work_in_progress"));
    commit_as(&forge.work, "wip", AGENT, "2024-01-01T10:00:00");
    forge
        .pre_push("feature", "heads/feature")
        .expect(1, "pre-push with work_in_progress: deny");
    forge
        .receive(&["feature"])
        .expect(1, "pre-receive with work_in_progress: deny");
}

fn forge_denying() -> Forge {
    forge("work_in_progress: deny\n")
}

#[test]
fn allowing_work_in_progress_again_is_reported_as_a_loosening() {
    let forge = forge_denying();
    let repo = &forge.work;
    repo.write(
        ".mastermind/hooks.yaml",
        "untasked:\n  default: allow\nplanning:\n  default: allow\nwork_in_progress: allow\n",
    );
    repo.git(&["add", "-A"]);
    let verdict = staged(&forge);
    assert!(verdict.has("config_loosened"), "{verdict:?}");
    assert!(
        verdict.text.contains("work_in_progress: deny -> allow"),
        "{}",
        verdict.text
    );
    repo.write("other.yaml", "work_in_progress: sometimes\n");
    let invalid = repo.run(&["validate", "--kind", "hooks-config", "other.yaml"], None);
    assert_eq!(status(&invalid), 1, "{}", text(&invalid));
}

/// `task widen 001-a --touches PATH`, the edit, the re-run the command
/// names, the report; then pre-commit. Asserts that before the re-run the
/// receipt is stale (the spec it ran under changed) and that the route
/// itself meets no refusal.
fn widen_route(forge: &Forge, path: &str, files: &[&str]) {
    let repo = &forge.work;
    let widened = repo.run(&["task", "widen", "001-a", "--touches", path], None);
    assert_eq!(status(&widened), 0, "{}", text(&widened));
    let named = "mastermind-hooks verification run .mastermind/tasks/001-a/spec.md --id unit";
    assert!(text(&widened).contains(named), "{}", text(&widened));
    repo.write(path, "alpha too\n");
    let before = repo.run(&["check", "--worktree", "--format", "json"], None);
    let found = codes(&json(&before));
    assert!(
        found.contains(&"receipt_spec_changed".to_string()),
        "the widened spec makes the receipt stale until it runs again: {found:?}"
    );
    assert!(
        !found.contains(&"spec_changed_with_work".to_string()),
        "{found:?}"
    );
    verify(repo, "001-a");
    write_report(repo, "001-a", files, "src/a.py", "alpha");
    repo.git(&["add", "-A"]);
    let commit = staged(forge);
    commit.expect(0, &format!("pre-commit after widening to {path}"));
    for code in [
        "spec_changed_with_work",
        "work_in_progress",
        "receipt_spec_changed",
    ] {
        assert!(!commit.has(code), "{code}: {commit:?}");
    }
}

#[test]
fn widening_a_task_whose_spec_never_landed_passes_before_and_after_a_push() {
    let forge = forge("");
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(repo, "001-a", "src/a.py", "alpha");
    repo.git(&["add", "-A"]);
    staged(&forge).expect(0, "the task's first commit");
    commit_as(repo, "task a", AGENT, "2024-01-01T10:00:00");

    // Before any push: one more file.
    widen_route(&forge, "src/b.py", &["src/a.py", "src/b.py"]);
    commit_as(repo, "task a: b too", AGENT, "2024-01-01T11:00:00");
    forge
        .pre_push("feature", "heads/feature")
        .expect(0, "pre-push");
    forge.receive(&["feature"]).expect(0, "pre-receive");

    // After the push: the spec on the remote branch is still the agent's
    // own, since it never landed on main.
    widen_route(&forge, "src/c.py", &["src/a.py", "src/b.py", "src/c.py"]);
    commit_as(repo, "task a: c too", AGENT, "2024-01-01T12:00:00");
    let push = forge.pre_push("feature", "heads/feature");
    push.expect(0, "pre-push after widening a pushed branch");
    assert!(!push.has("spec_changed_with_work"), "{push:?}");
    forge.receive(&["feature"]).expect(0, "pre-receive");

    // It lands as one task.
    forge.ci("main", "feature").expect(0, "check --ci");
    forge
        .receive(&["feature:main"])
        .expect(0, "pre-receive of main");

    // A spec that has landed is the plan: widening it with the work is
    // still refused (the planning rule), on a branch too.
    repo.git(&["fetch", "-q", "origin"]);
    repo.git(&["checkout", "-q", "-b", "more", "origin/main"]);
    let widened = repo.run(&["task", "widen", "001-a", "--touches", "src/d.py"], None);
    assert_eq!(status(&widened), 0, "{}", text(&widened));
    repo.write("src/d.py", "d\n");
    verify(repo, "001-a");
    write_report(
        repo,
        "001-a",
        &["src/a.py", "src/b.py", "src/c.py", "src/d.py"],
        "src/a.py",
        "alpha",
    );
    repo.git(&["add", "-A"]);
    let verdict = staged(&forge);
    verdict.expect(1, "widening a landed spec with the work");
    assert!(verdict.has("spec_changed_with_work"), "{verdict:?}");
}

#[test]
fn a_backup_commit_right_after_task_new_is_work_in_progress_not_a_broken_report() {
    let forge = forge("");
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let new = repo.run(
        &[
            "task",
            "new",
            "fix",
            "--touches",
            "src/a.py",
            "--check",
            "true",
        ],
        None,
    );
    assert_eq!(status(&new), 0, "{}", text(&new));
    repo.write("src/a.py", "a = 1\n");
    repo.git(&["add", "-A"]);
    let commit = staged(&forge);
    commit.expect(0, "a backup commit of a fresh task on a branch");
    for code in [
        "executor_report_unfilled",
        "receipt_missing",
        "work_in_progress",
    ] {
        assert!(commit.has(code), "{code}: {commit:?}");
    }
    assert!(
        !commit.has("executor_report_schema_violation"),
        "{commit:?}"
    );
    // Where it lands, the skeleton is an error.
    commit_as(repo, "wip", AGENT, "2024-01-01T10:00:00");
    let ci = forge.ci("main", "feature");
    ci.expect(1, "check --ci");
    assert!(ci.has("executor_report_unfilled"), "{ci:?}");
}
