//! Parallel steps of one task: commits of a task on two branches, joined by
//! git's own clean merge, are one task judged on what lands, in CI, pre-push
//! and pre-receive alike, whichever way round the branches were merged.

use crate::common::landing::*;
use crate::common::tasks::*;

const TASK: &str = "001-a";

/// Pushes of the branch itself are compared with CI's verdict on its
/// merge into main: `work_in_progress: deny` judges them as strictly (by
/// default an unfinished task only warns on a branch that does not land on
/// the protected branch).
fn forge() -> Forge {
    Forge::new(&[
        (
            ".mastermind/hooks.yaml",
            "untasked:\n  default: allow\nplanning:\n  default: allow\nwork_in_progress: deny\n",
        ),
        ("src/a.py", "a = 0\n"),
        ("src/b.py", "ok\n"),
        ("README.md", "# demo\n"),
    ])
}

/// CI, pre-push and pre-receive on `branch` landing on main.
fn every_mode(forge: &Forge, branch: &str) -> Vec<(&'static str, Verdict)> {
    vec![
        ("check --ci", forge.ci("main", branch)),
        (
            "pre-push",
            forge.pre_push(branch, &format!("heads/{branch}")),
        ),
        ("pre-receive", forge.receive(&[branch])),
    ]
}

fn merge(forge: &Forge, other: &str, date: &str) {
    let out = forge
        .work
        .command("git")
        .args(["merge", "-q", "--no-edit", "--no-verify", other])
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", crate::common::text(&out));
}

#[test]
fn the_other_sides_undeclared_file_is_the_tasks_in_every_mode() {
    let forge = forge();
    let repo = &forge.work;
    // One side records the task's progress and slips in a file.
    repo.git(&["checkout", "-q", "-b", "side", "main"]);
    repo.write(&format!(".mastermind/tasks/{TASK}/state.json"), "{}\n");
    repo.write("src/evil.py", "steal()\n");
    commit_as(
        repo,
        "side step",
        "Agent <agent@example.invalid>",
        "2024-01-01T10:00:00",
    );
    // The other does the declared work, with its receipt and report.
    repo.git(&["checkout", "-q", "-b", "feat", "main"]);
    do_task(repo, TASK, "src/a.py", "alpha");
    commit_as(
        repo,
        "task a",
        "Agent <agent@example.invalid>",
        "2024-01-01T11:00:00",
    );
    merge(&forge, "side", "2024-01-01T12:00:00");
    for (mode, verdict) in every_mode(&forge, "feat") {
        verdict.expect(1, mode);
        assert!(verdict.has("unexpected_file"), "{mode}: {verdict:?}");
        assert!(
            verdict.text.contains("src/evil.py"),
            "{mode}: {}",
            verdict.text
        );
    }
}

#[test]
fn the_other_sides_edit_that_breaks_the_check_makes_the_receipt_stale() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "side", "main"]);
    repo.write(&format!(".mastermind/tasks/{TASK}/state.json"), "{}\n");
    // Declared by the task, and the task's check greps it for `ok`.
    repo.write("src/b.py", "broken\n");
    commit_as(
        repo,
        "side step",
        "Agent <agent@example.invalid>",
        "2024-01-01T10:00:00",
    );
    repo.git(&["checkout", "-q", "-b", "feat", "main"]);
    write_spec(repo, TASK, &["src/a.py", "src/b.py"], "src/b.py", "ok");
    repo.write("src/a.py", "alpha\n");
    verify(repo, TASK);
    write_report(repo, TASK, &["src/a.py"], "src/b.py", "ok");
    commit_as(
        repo,
        "task a",
        "Agent <agent@example.invalid>",
        "2024-01-01T11:00:00",
    );
    merge(&forge, "side", "2024-01-01T12:00:00");
    for (mode, verdict) in every_mode(&forge, "feat") {
        verdict.expect(1, mode);
        assert!(
            verdict.has("receipt_snapshot_changed"),
            "{mode}: {verdict:?}"
        );
        assert!(
            verdict.text.contains("src/b.py"),
            "{mode}: {}",
            verdict.text
        );
    }
}

/// Two branches of one task: the work (spec, edit, receipt, report) on one,
/// the task's own bookkeeping on the other, made later. `into` merges
/// `from`.
fn honest_parallel(into: &str, from: &str) {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "work", "main"]);
    do_task(repo, TASK, "src/a.py", "alpha");
    commit_as(
        repo,
        "task a",
        "Agent <agent@example.invalid>",
        "2024-01-01T10:00:00",
    );
    repo.git(&["checkout", "-q", "-b", "notes", "main"]);
    repo.write(
        &format!(".mastermind/tasks/{TASK}/state.json"),
        "{\"iteration\": 1}\n",
    );
    commit_as(
        repo,
        "task a: progress",
        "Agent <agent@example.invalid>",
        "2024-01-01T11:00:00",
    );
    repo.git(&["checkout", "-q", into]);
    merge(&forge, from, "2024-01-01T12:00:00");
    for (mode, verdict) in every_mode(&forge, into) {
        verdict.expect(0, &format!("{mode} ({into} merged {from})"));
        assert!(!verdict.has("receipt_missing"), "{mode}: {verdict:?}");
    }
}

#[test]
fn honest_parallel_steps_pass_when_the_work_branch_merges_the_other() {
    honest_parallel("work", "notes");
}

#[test]
fn honest_parallel_steps_pass_when_the_other_branch_merges_the_work() {
    honest_parallel("notes", "work");
}
