//! The small things a newcomer meets first: scaffolding that refuses
//! cleanly, quiet hooks on commits that touch no task, `check --push` run by
//! hand, and a committed hooks directory that is never rewritten silently.

use crate::common;

use crate::common::TestRepo;
use std::process::Output;

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_commit_that_touches_no_task_prints_one_warning_line_even_quiet() {
    let repo = TestRepo::new();
    repo.write("a.txt", "a\n");
    repo.commit_all("start");
    repo.write("a.txt", "b\n");
    repo.git(&["add", "-A"]);
    let output = repo.run(&["check", "--staged"], None);
    assert_eq!(output.status.code(), Some(0));
    let said = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(said.lines().count(), 1, "{said}");
    // The local hooks warn (CI and pre-receive would refuse it) but do not
    // block a human at their desk.
    assert!(
        said.starts_with("mastermind-hooks: warning: the index touches no task: a.txt (modified); CI and pre-receive refuse"),
        "{said}"
    );
    // Quiet never hides a warning, and it stays one line.
    let quiet = repo.run(&["check", "--staged", "--quiet"], None);
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(text(&quiet), said);
    // Quiet never hides a finding.
    repo.write(
        ".mastermind/tasks/t/spec.md",
        "---\ntouches:\n  - file: a.txt\n---\n",
    );
    repo.git(&["add", "-A"]);
    let failing = repo.run(&["check", "--staged", "--quiet"], None);
    assert_eq!(failing.status.code(), Some(1));
    assert!(
        text(&failing).contains("executor_report_missing"),
        "{}",
        text(&failing)
    );
}

#[test]
fn check_push_with_nothing_on_stdin_says_nothing_was_pushed() {
    let repo = TestRepo::new();
    repo.write("a.txt", "a\n");
    repo.commit_all("start");
    let output = repo.run(&["check", "--push"], Some(""));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let said = text(&output);
    assert!(said.contains("push_no_refs"), "{said}");
    assert!(
        said.contains("check --ci --base origin/main --head HEAD"),
        "{said}"
    );
}

#[test]
fn task_new_writes_a_task_the_gate_reads_and_refuses_without_writing() {
    let repo = TestRepo::new();
    repo.write("lib.py", "x = 1\n");
    repo.commit_all("start");
    let output = repo.run(
        &[
            "task",
            "new",
            "fix",
            "--touches",
            "lib.py",
            "--check",
            "sh -c 'exit 0'",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(text(&output).contains("verification run .mastermind/tasks/fix/spec.md --id sh"));
    let spec = repo.path().join(".mastermind/tasks/fix/spec.md");
    let validated = repo.run(&["validate", &spec.display().to_string()], None);
    assert_eq!(validated.status.code(), Some(0), "{}", text(&validated));
    let before = std::fs::read(&spec).unwrap();

    // The folder exists: refused, nothing changed.
    let again = repo.run(&["task", "new", "fix", "--touches", "other.py"], None);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again).contains("already exists"), "{}", text(&again));
    assert_eq!(std::fs::read(&spec).unwrap(), before);
    // Bad arguments: refused before anything is written.
    for args in [
        &["task", "new", "../escape"][..],
        &["task", "new", "x", "--touches", "../outside"],
        &["task", "new", "y", "--check", "echo 'unbalanced"],
    ] {
        let refused = repo.run(args, None);
        assert_eq!(
            refused.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&refused)
        );
    }
    for name in ["x", "y"] {
        assert!(!repo.path().join(".mastermind/tasks").join(name).exists());
    }
    // The report skeleton is not a report until it is filled in.
    let report = repo.path().join(".mastermind/tasks/fix/executor-report.md");
    let skeleton = repo.run(&["validate", &report.display().to_string()], None);
    assert_eq!(skeleton.status.code(), Some(1), "{}", text(&skeleton));
}

#[test]
fn init_keeps_an_existing_configuration() {
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", "require_task: true\n");
    repo.commit_all("start");
    let output = repo.run(&["init"], None);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(text(&output).contains("already there, left as it is"));
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".mastermind/hooks.yaml")).unwrap(),
        "require_task: true\n"
    );
    assert!(repo.path().join(".git/hooks/pre-merge-commit").is_file());
}

#[test]
fn a_tracked_hooks_directory_needs_force_and_gets_portable_shims() {
    let repo = TestRepo::new();
    repo.write(".githooks/post-checkout", "#!/bin/sh\nexit 0\n");
    repo.commit_all("team hooks");
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    let refused = repo.run(&["install"], None);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        text(&refused).contains("hook_path_tracked"),
        "{}",
        text(&refused)
    );
    assert!(
        text(&refused).contains("install --force"),
        "{}",
        text(&refused)
    );
    assert!(!repo.path().join(".githooks/pre-commit").exists());
    let status = repo.run(&["status"], None);
    assert!(
        text(&status).contains("mastermind-hooks install --force"),
        "status suggests what works: {}",
        text(&status)
    );

    let forced = repo.run(&["install", "--force"], None);
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced));
    assert!(
        text(&forced).contains("warning[hook_path_tracked]"),
        "{}",
        text(&forced)
    );
    let shim = std::fs::read_to_string(repo.path().join(".githooks/pre-commit")).unwrap();
    assert!(shim.contains("\nbin=''\n"), "{shim}");
    let bin_dir = std::path::Path::new(common::BIN).parent().unwrap();
    assert!(
        !shim.contains(&bin_dir.display().to_string()),
        "no machine-local path"
    );
    // The portable shim runs the gate from PATH.
    repo.write("a.txt", "a\n");
    repo.git(&["add", "-A"]);
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut commit = repo.command("git");
    commit
        .args(["commit", "-qm", "through the portable shim"])
        .env("PATH", path);
    let committed = commit.output().unwrap();
    assert!(committed.status.success(), "{}", text(&committed));
    assert!(
        String::from_utf8_lossy(&committed.stderr)
            .contains("mastermind-hooks: warning: the index touches no task"),
        "{}",
        text(&committed)
    );
}

#[test]
fn a_merge_commit_runs_the_gate_through_pre_merge_commit() {
    let repo = TestRepo::new();
    repo.write("a.txt", "a\n");
    repo.commit_all("start");
    let installed = repo.run(&["install"], None);
    assert_eq!(installed.status.code(), Some(0), "{}", text(&installed));
    repo.git(&["switch", "-q", "-c", "topic"]);
    repo.write(
        ".mastermind/tasks/t/spec.md",
        "---\ntouches:\n  - file: b.txt\n---\n",
    );
    repo.write("b.txt", "b\n");
    repo.git(&["add", "-A"]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-m",
        "a task without its report",
    ]);
    repo.git(&["switch", "-q", "main"]);
    repo.write("c.txt", "c\n");
    repo.commit_all("meanwhile on main");
    let merge = repo.git_output(&["merge", "--no-ff", "-m", "merge topic", "topic"]);
    assert!(
        !merge.status.success(),
        "the merge went through: {}",
        text(&merge)
    );
    assert!(
        text(&merge).contains("executor_report_missing"),
        "{}",
        text(&merge)
    );
}
