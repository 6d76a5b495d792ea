//! A maintainer lands the second of two pull requests locally: with the
//! quick start's set-up (hooks installed by `init`), after an unrelated
//! commit on main, `git merge --no-ff change-value` goes through the
//! pre-merge-commit hook, and pre-push, pre-receive and CI say the same of
//! the same landing.

use crate::common::landing::*;
use crate::common::tasks::task_new;
use crate::common::{BIN, TestRepo, status, text};

/// `git ARGS` through the installed hooks (no `--no-verify`).
fn hooked(repo: &TestRepo, args: &[&str]) -> std::process::Output {
    repo.git_output(args)
}

fn report(task: &str, file: &str, check: &str) -> String {
    format!(
        "# Executor report: {task}\n\nDone.\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: .mastermind/tasks/{task}/spec.md\nstatus: complete\nphases:\n  - id: implement\n    status: done\nfiles_modified:\n  - {file}\nclaims: []\ndefects: []\nverifications:\n  - cmd: {check}\n    result: pass\n    observed:\n      exit_code: 0\n```\n<!-- mastermind:report-end -->\n"
    )
}

/// The quick start up to a pushed task branch `change-value`.
fn quick_start() -> Forge {
    let forge = Forge::new(&[
        ("lib.py", "def value():\n    return 1\n"),
        ("README.md", "# demo\n"),
    ]);
    let repo = &forge.work;
    // The configuration `init` writes, in place of the forge's own.
    repo.remove(".mastermind/hooks.yaml");
    let init = repo.run(&["init"], None);
    assert_eq!(status(&init), 0, "{}", text(&init));
    repo.git(&["add", ".mastermind/hooks.yaml"]);
    let out = hooked(
        repo,
        &[
            "commit",
            "-q",
            "-m",
            "Gate agent work with mastermind-hooks",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    forge
        .receive(&["main"])
        .expect(0, "the configuration lands");
    repo.git(&["switch", "-q", "-c", "change-value"]);
    task_new(repo, "change-value", "lib.py", "grep -q 2 lib.py");
    repo.write("lib.py", "def value():\n    return 2\n");
    let run = repo.run(
        &[
            "verification",
            "run",
            ".mastermind/tasks/change-value/spec.md",
            "--id",
            "grep-2",
        ],
        None,
    );
    assert_eq!(status(&run), 0, "{}", text(&run));
    repo.write(
        ".mastermind/tasks/change-value/executor-report.md",
        &report("change-value", "lib.py", "grep -q 2 lib.py"),
    );
    repo.git(&["add", "-A"]);
    let out = hooked(repo, &["commit", "-q", "-m", "value() returns 2"]);
    assert!(out.status.success(), "pre-commit: {}", text(&out));
    forge
        .receive(&["change-value"])
        .expect(0, "the task branch");
    forge
}

#[test]
fn a_maintainers_local_merge_of_a_second_pull_request_passes_every_mode() {
    let forge = quick_start();
    let repo = &forge.work;
    assert!(
        std::fs::read_to_string(repo.path().join(".git/hooks/pre-merge-commit"))
            .unwrap()
            .contains(BIN),
        "init installed the pre-merge-commit hook"
    );
    // Another pull request landed first: one unrelated commit on main.
    repo.git(&["switch", "-q", "main"]);
    repo.write("README.md", "# demo, documented\n");
    repo.git(&["add", "-A"]);
    let out = hooked(repo, &["commit", "-q", "-m", "Document the demo"]);
    assert!(out.status.success(), "{}", text(&out));
    // (Untasked: it lands as an administrator's push; the default policy
    // refuses it through the gate.)
    forge.push_unjudged(&["main"]);
    let before = repo.head();
    // CI on the pull request, before the maintainer merges it.
    forge.ci(&before, "change-value").expect(0, "check --ci");
    let out = hooked(repo, &["merge", "--no-ff", "--no-edit", "change-value"]);
    assert!(
        out.status.success(),
        "the pre-merge-commit hook refused git's own merge: {}",
        text(&out)
    );
    forge.pre_push("main", "heads/main").expect(0, "pre-push");
    forge.receive(&["main"]).expect(0, "pre-receive");
}

#[test]
fn a_local_merge_that_slips_in_an_edit_is_refused_where_the_task_is_judged() {
    let forge = quick_start();
    let repo = &forge.work;
    repo.git(&["switch", "-q", "main"]);
    repo.write("README.md", "# demo, documented\n");
    repo.git(&["add", "-A"]);
    assert!(
        hooked(repo, &["commit", "-q", "-m", "Document the demo"])
            .status
            .success()
    );
    // The merge brings the task, and the maintainer's merge edits the
    // task's checked file on the way: the receipt no longer describes what
    // lands.
    let out = repo.git_output(&["merge", "--no-ff", "--no-commit", "change-value"]);
    assert!(out.status.success(), "{}", text(&out));
    repo.write("lib.py", "def value():\n    return 3\n");
    repo.git(&["add", "-A"]);
    let out = hooked(repo, &["commit", "-q", "--no-edit"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("receipt_snapshot_changed"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("lib.py"), "{}", text(&out));
}
