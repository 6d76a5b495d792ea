//! `check --ci --rerun` on real repositories: a forged passing receipt for
//! a failing command passes the gate alone and is caught by the re-run with
//! `rerun_contradicts_receipt`; an honest receipt passes; a check that
//! cannot start on the CI machine or outlives `--rerun-timeout` is never a
//! pass (exit 2); the check's output cannot issue workflow commands and
//! never sees the CI's credentials.

use crate::common::*;
use mastermind_hooks::contract::mastermind::argv_display::display_command;
use serde_json::Value;
use std::process::Output;

const TASK: &str = ".mastermind/tasks/001-t";
const SPEC: &str = ".mastermind/tasks/001-t/spec.md";
const RECEIPT: &str = ".mastermind/tasks/001-t/verification/unit.tree.json";

fn write_task(repo: &TestRepo, argv: &[&str]) {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let cmd = serde_json::to_string(&display_command(&argv)).unwrap();
    repo.write(
        SPEC,
        &format!(
            "---\nmode: verified\ntouches:\n  - file: src/lib.py\nverify:\n  - cmd: {cmd}\n    run:\n      id: unit\n      argv: {}\n      cwd: .\n      timeout_secs: 60\n---\n# Task\n",
            serde_json::to_string(&argv).unwrap()
        ),
    );
    repo.write(
        &format!("{TASK}/executor-report.md"),
        &format!(
            "# Report\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: {SPEC}\nstatus: complete\nphases: []\nfiles_modified:\n  - src/lib.py\nclaims: []\ndefects: []\nverifications:\n  - cmd: {cmd}\n    result: pass\n```\n<!-- mastermind:report-end -->\n"
        ),
    );
}

/// A base commit, then a task on `feature` whose check is `argv`, its
/// receipt written by the runner on the task's content.
fn task_branch(argv: &[&str]) -> (TestRepo, String) {
    let repo = TestRepo::new();
    repo.write("src/lib.py", "def value():\n    return 1\n");
    let base = repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    write_task(&repo, argv);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    (repo, base)
}

fn run_check(repo: &TestRepo) -> Output {
    repo.run(
        &["verification", "run", SPEC, "--id", "unit", "--quiet"],
        None,
    )
}

fn ci(
    repo: &TestRepo,
    base: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (i32, Vec<String>, Output) {
    let head = repo.head();
    let mut args = vec![
        "check", "--ci", "--base", base, "--head", &head, "--format", "json",
    ];
    args.extend_from_slice(extra);
    let out = repo.run_env(&args, env);
    let report = json(&out);
    (status(&out), codes(&report), out)
}

/// Rewrite the committed receipt so its digests claim the head's tree: the
/// five-line forgery (`digest --rev`, edit, commit).
fn forge_receipt_for_head(repo: &TestRepo) {
    let digest = repo.run(&["digest", "--rev", "HEAD"], None);
    let digest = String::from_utf8_lossy(&digest.stdout)
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    let path = repo.path().join(RECEIPT);
    let mut receipt: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    receipt["tree_before"] = Value::String(digest.clone());
    receipt["tree_after"] = Value::String(digest);
    std::fs::write(&path, serde_json::to_vec_pretty(&receipt).unwrap()).unwrap();
    repo.commit_all("forged receipt");
}

fn has(codes: &[String], code: &str) -> bool {
    codes.iter().any(|c| c == code)
}

#[test]
fn a_forged_passing_receipt_for_a_failing_command_is_caught_by_the_rerun() {
    let (repo, base) = task_branch(&["grep", "-q", "return 2", "src/lib.py"]);
    assert_eq!(status(&run_check(&repo)), 0);
    // The content changes so the check fails; the receipt is forged to
    // claim the new tree.
    repo.write("src/lib.py", "def value():\n    return 3\n");
    repo.commit_all("untested change");
    forge_receipt_for_head(&repo);
    let (code, codes, out) = ci(&repo, &base, &[], &[]);
    assert_eq!(
        code,
        0,
        "the receipt alone convinces the gate: {codes:?} {}",
        text(&out)
    );
    let (code, codes, out) = ci(&repo, &base, &["--rerun"], &[]);
    assert_eq!(code, 1, "{}", text(&out));
    assert!(has(&codes, "rerun_contradicts_receipt"), "{codes:?}");
    let shown = text(&out);
    assert!(shown.contains("exit 1"), "{shown}");
    assert!(
        shown.contains(&format!(
            "mastermind-hooks verification run {SPEC} --id unit --isolated"
        )),
        "{shown}"
    );
    // Nothing was written to the repository.
    assert!(repo.git(&["status", "--porcelain"]).trim().is_empty());
}

#[test]
fn an_honest_receipt_passes_the_rerun() {
    let (repo, base) = task_branch(&["grep", "-q", "return 2", "src/lib.py"]);
    assert_eq!(status(&run_check(&repo)), 0);
    repo.commit_all("task");
    let (code, codes, out) = ci(&repo, &base, &["--rerun"], &[]);
    assert_eq!(code, 0, "{codes:?} {}", text(&out));
    assert_eq!(codes, ["rerun_passed"]);
    let human = repo.run(
        &[
            "check",
            "--ci",
            "--base",
            &base,
            "--head",
            &repo.head(),
            "--rerun",
        ],
        None,
    );
    assert_eq!(status(&human), 0, "{}", text(&human));
    assert!(text(&human).contains("passed again"), "{}", text(&human));
}

#[test]
fn a_check_that_cannot_start_in_ci_is_unavailable_never_a_pass() {
    let tools = tempfile::tempdir().unwrap();
    let tool = tools.path().join("only-on-my-machine");
    std::fs::write(&tool, "#!/bin/sh\nexit 0\n").unwrap();
    make_executable(&tool);
    let (repo, base) = task_branch(&["only-on-my-machine"]);
    let path = format!(
        "{}:{}",
        tools.path().display(),
        std::env::var("PATH").unwrap()
    );
    let out = repo.run_env(
        &["verification", "run", SPEC, "--id", "unit", "--quiet"],
        &[("PATH", &path)],
    );
    assert_eq!(status(&out), 0, "{}", text(&out));
    repo.commit_all("task");
    let (code, codes, out) = ci(&repo, &base, &["--rerun"], &[]);
    assert_eq!(code, 2, "{codes:?} {}", text(&out));
    assert!(has(&codes, "rerun_unavailable"), "{codes:?}");
    assert!(
        text(&out).contains("install what the check needs"),
        "{}",
        text(&out)
    );
}

#[test]
fn the_rerun_timeout_bounds_the_whole_rerun() {
    // No receipt is needed for the re-run to run: it judges every checked
    // task's observed checks.
    let (repo, base) = task_branch(&["sleep", "30"]);
    repo.commit_all("task");
    let (code, codes, out) = ci(&repo, &base, &["--rerun", "--rerun-timeout", "1"], &[]);
    assert_eq!(code, 2, "{codes:?} {}", text(&out));
    assert!(has(&codes, "receipt_missing"), "{codes:?}");
    assert!(has(&codes, "rerun_unavailable"), "{codes:?}");
    assert!(
        text(&out).contains("--rerun-timeout budget"),
        "{}",
        text(&out)
    );
    // --rerun-timeout needs --rerun, which needs --ci.
    assert_eq!(
        status(&repo.run(&["check", "--ci", "--rerun-timeout", "5"], None)),
        2
    );
    assert_eq!(
        status(&repo.run(&["check", "--staged", "--rerun"], None)),
        2
    );
}

#[test]
fn rerun_output_cannot_issue_workflow_commands_or_read_ci_credentials() {
    let script = "echo '::error file=src/lib.py::forged'; printf '\\033[31mred\\n'; test -z \"$GITHUB_TOKEN$CI_JOB_TOKEN$GITHUB_ENV\"";
    let (repo, base) = task_branch(&["sh", "-c", script]);
    assert_eq!(status(&run_check(&repo)), 0);
    repo.commit_all("task");
    let env = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_TOKEN", "secret-token"),
        ("CI_JOB_TOKEN", "secret-job-token"),
        ("GITHUB_ENV", "/nonexistent/env-file"),
    ];
    let (code, codes, out) = ci(&repo, &base, &["--rerun"], &env);
    assert_eq!(
        code,
        0,
        "the secrets were removed: {codes:?} {}",
        text(&out)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let stop = err
        .lines()
        .find_map(|l| l.strip_prefix("::stop-commands::"))
        .unwrap_or_else(|| panic!("no stop-commands: {err}"));
    assert!(err.contains(&format!("\n::{stop}::")), "{err}");
    assert!(
        err.contains("[unit] | ::error file=src/lib.py::forged"),
        "{err}"
    );
    assert!(err.contains("[unit] | \\x1b[31mred"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(
        !err.lines().any(|l| l.starts_with("::error")),
        "the check's output starts no workflow command: {err}"
    );
}
