//! Freshness by scope: a receipt is current when the content its check ran
//! on equals what lands on every path of its task's territory (declared
//! scope and changed paths), except where what lands is the protected
//! target's own content. A later edit there by anyone (an untasked commit,
//! another task) makes it stale, and the finding names the commit, its
//! author, the paths and both ways out.

use crate::common::landing::*;
use crate::common::tasks::*;

const AGENT: &str = "Agent <agent@example.invalid>";
const HUMAN: &str = "Human <human@example.invalid>";

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
        ("src/b.py", "b = 0\n"),
        ("README.md", "# demo\n"),
    ])
}

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

/// On branch `feature`, task 001-a declares src/a.py and src/b.py and
/// changes only src/a.py (committed by the agent); main then changes the
/// other declared file, src/b.py, and lands it. Leaves main checked out.
fn task_then_main_moves_b(forge: &Forge) {
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    write_spec(
        repo,
        "001-a",
        &["src/a.py", "src/b.py"],
        "src/a.py",
        "alpha",
    );
    do_work(repo, "001-a", "src/a.py", "alpha");
    commit_as(repo, "task a", AGENT, "2024-01-01T10:00:00");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/b.py", "b = 1\n");
    commit_as(repo, "main moves b", HUMAN, "2024-01-01T11:00:00");
    forge.receive(&["main"]).expect(0, "main moves");
}

#[test]
fn a_later_untasked_commit_that_edits_checked_code_makes_the_receipt_stale() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(repo, "001-a", "src/a.py", "alpha");
    commit_as(repo, "task a", AGENT, "2024-01-01T10:00:00");
    // A follow-up that touches no task folder breaks what the check covers.
    repo.write("src/a.py", "beta\n");
    commit_as(repo, "tidy up a", HUMAN, "2024-01-01T11:00:00");
    for (mode, verdict) in every_mode(&forge, "feature") {
        verdict.expect(1, mode);
        assert!(
            verdict.has("receipt_snapshot_changed"),
            "{mode}: {verdict:?}"
        );
        for named in [
            "src/a.py",
            "tidy up a",
            "Human <human@example.invalid>",
            "mastermind-hooks verification run .mastermind/tasks/001-a/spec.md --id unit",
            "--rerun",
        ] {
            assert!(
                verdict.text.contains(named),
                "{mode} names {named}: {}",
                verdict.text
            );
        }
    }
}

#[test]
fn another_tasks_commit_that_edits_checked_code_makes_the_receipt_stale() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(repo, "001-a", "src/a.py", "alpha");
    commit_as(repo, "task a", AGENT, "2024-01-01T10:00:00");
    // Task b declares the same file and rewrites it; its own check passes.
    do_task(repo, "002-b", "src/a.py", "beta");
    commit_as(repo, "task b", AGENT, "2024-01-01T11:00:00");
    for (mode, verdict) in every_mode(&forge, "feature") {
        verdict.expect(1, mode);
        assert!(
            verdict.has("receipt_snapshot_changed"),
            "{mode}: {verdict:?}"
        );
        assert!(verdict.text.contains("task b"), "{mode}: {}", verdict.text);
    }
}

#[test]
fn the_targets_own_newer_content_keeps_a_receipt_current() {
    let forge = forge();
    let repo = &forge.work;
    task_then_main_moves_b(&forge);
    // CI's merge takes main's src/b.py: the target's own content.
    forge.ci("main", "feature").expect(0, "check --ci");
    // Merging main into the branch lands the same content.
    repo.git(&["checkout", "-q", "feature"]);
    repo.git(&["merge", "-q", "--no-edit", "--no-verify", "main"]);
    for (mode, verdict) in every_mode(&forge, "feature") {
        verdict.expect(0, mode);
    }
    // Strict freshness compares the whole tree with what lands.
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        ".mastermind/hooks.yaml",
        "receipts:\n  freshness: merge\nuntasked:\n  default: allow\nplanning:\n  default: allow\n",
    );
    commit_as(repo, "strict receipts", HUMAN, "2024-01-01T12:00:00");
    forge.receive(&["main"]).expect(0, "strict receipts");
    let verdict = forge.ci("main", "feature");
    verdict.expect(1, "freshness: merge");
    assert!(verdict.has("receipt_snapshot_changed"), "{verdict:?}");
}

#[test]
fn freshness_task_is_read_as_scope_and_flagged() {
    let forge = forge();
    let repo = &forge.work;
    repo.write(
        ".mastermind/hooks.yaml",
        "receipts:\n  freshness: task\nuntasked:\n  default: allow\nplanning:\n  default: allow\n",
    );
    commit_as(repo, "old setting", HUMAN, "2024-01-01T09:00:00");
    forge.receive(&["main"]).expect(0, "the old setting");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(repo, "001-a", "src/a.py", "alpha");
    commit_as(repo, "task a", AGENT, "2024-01-01T10:00:00");
    repo.write("src/a.py", "beta\n");
    commit_as(repo, "tidy up a", HUMAN, "2024-01-01T11:00:00");
    let verdict = forge.ci("main", "feature");
    verdict.expect(1, "check --ci");
    assert!(verdict.has("receipt_snapshot_changed"), "{verdict:?}");
    assert!(verdict.has("config_deprecated"), "{verdict:?}");
}

#[test]
fn a_squash_after_main_moved_a_declared_file_the_task_did_not_change_stays_current() {
    let forge = forge();
    let repo = &forge.work;
    task_then_main_moves_b(&forge);
    let old = repo.head();
    repo.git(&["merge", "--squash", "-q", "feature"]);
    commit_as(repo, "task a (squashed)", HUMAN, "2024-01-01T12:00:00");
    let squashed = repo.head();
    forge.ci(&old, &squashed).expect(0, "CI of main's push");
    forge.pre_push("main", "heads/main").expect(0, "pre-push");
    forge.receive(&["main"]).expect(0, "pre-receive");
}

#[test]
fn a_file_the_task_changed_must_land_as_its_check_saw_it() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    // The check ran with a new declared file that is then left out of the
    // commit: what lands is the protected branch's content there (nothing),
    // but the task had changed it.
    write_spec(
        repo,
        "001-a",
        &["src/a.py", "src/helper.py"],
        "src/a.py",
        "alpha",
    );
    repo.write("src/helper.py", "help = 1\n");
    do_work(repo, "001-a", "src/a.py", "alpha");
    repo.git(&["add", "src/a.py", ".mastermind"]);
    let out = repo
        .command("git")
        .args(["commit", "-q", "--no-verify", "-m", "task a"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let verdict = forge.ci("main", "feature");
    verdict.expect(1, "check --ci");
    assert!(verdict.has("receipt_snapshot_changed"), "{verdict:?}");
    assert!(verdict.text.contains("src/helper.py"), "{}", verdict.text);
}
