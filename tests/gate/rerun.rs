//! `check --ci --rerun` on real repositories: a forged passing receipt for
//! a failing command passes the gate alone and is caught by the re-run with
//! `rerun_contradicts_receipt`; an honest receipt passes; a check that
//! cannot start on the CI machine, whose tool is missing (exit 127), or that
//! outlives `--rerun-timeout` is never a pass and never called a forgery
//! (exit 2); a failure on content the receipt does not describe is
//! `rerun_failed` with the end of its output; archived tasks are re-run
//! from the spec the gate judged; checks of different tasks run in
//! parallel, their output prefixed; the check's output cannot issue
//! workflow commands and never sees the CI's credentials, not even in the
//! gate's own `/proc/<pid>/environ`; an executable in an ignored directory
//! is bound by what the runner saw and resolved again after setup.

use crate::common::tasks::{forge_territory, write_task_with_checks};
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
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
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
    forge_territory(repo, &mut receipt);
    std::fs::write(&path, serde_json::to_vec_pretty(&receipt).unwrap()).unwrap();
    repo.commit_all("forged receipt");
}

fn has(codes: &[String], code: &str) -> bool {
    codes.iter().any(|c| c == code)
}

/// The codes but the note saying where the checks ran.
fn without_place(codes: &[String]) -> Vec<String> {
    codes
        .iter()
        .filter(|c| *c != "rerun_place")
        .cloned()
        .collect()
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
    assert_eq!(without_place(&codes), ["task_created", "rerun_passed"]);
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
        text(&out).contains("Install the project's dependencies in a step before the gate"),
        "{}",
        text(&out)
    );
    assert!(
        !has(&codes, "rerun_contradicts_receipt") && !has(&codes, "rerun_failed"),
        "a check that cannot start is no forgery: {codes:?}"
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
    // The check can neither see the variables nor read their values from
    // the gate's own environment block (its parent's /proc entry).
    let script = "echo '::error file=src/lib.py::forged'; printf '\\033[31mred\\n'; test -z \"$GITHUB_TOKEN$CI_JOB_TOKEN$GITHUB_ENV$GITHUB_STEP_SUMMARY\" && ! (tr '\\0' '\\n' < /proc/$PPID/environ 2>/dev/null | grep -q secret)";
    let (repo, base) = task_branch(&["sh", "-c", script]);
    assert_eq!(status(&run_check(&repo)), 0);
    repo.commit_all("task");
    let summary = tempfile::tempdir().unwrap();
    let summary_file = summary.path().join("summary.md");
    let summary_path = summary_file.to_str().unwrap().to_string();
    let env = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_TOKEN", "secret-token"),
        ("CI_JOB_TOKEN", "secret-job-token"),
        ("GITHUB_ENV", "/nonexistent/secret-env-file"),
        ("GITHUB_STEP_SUMMARY", summary_path.as_str()),
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
        err.contains("[001-t/unit] | ::error file=src/lib.py::forged"),
        "{err}"
    );
    assert!(
        err.contains("[001-t/unit] | red\n"),
        "colour codes are removed, not printed as text: {err}"
    );
    assert!(!err.contains("\\x1b[31m"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(
        !err.lines().any(|l| l.starts_with("::error")),
        "the check's output starts no workflow command: {err}"
    );
    // The gate itself still writes the job summary the check could not.
    let head = repo.head();
    let out = repo.run_env(
        &[
            "check", "--ci", "--base", &base, "--head", &head, "--rerun", "--format", "github",
        ],
        &env,
    );
    assert_eq!(status(&out), 0, "{}", text(&out));
    let written = std::fs::read_to_string(&summary_file).unwrap_or_default();
    assert!(!written.is_empty(), "the job summary was written");
}

fn message_of(out: &Output, code: &str) -> String {
    let report = json(out);
    let mut found = Vec::new();
    for task in report["tasks"].as_array().into_iter().flatten() {
        for check in task["checks"].as_array().into_iter().flatten() {
            for d in check["diagnostics"].as_array().into_iter().flatten() {
                if d["code"] == code {
                    found.push(format!(
                        "{} | {}",
                        d["message"].as_str().unwrap_or_default(),
                        d["hint"].as_str().unwrap_or_default()
                    ));
                }
            }
        }
    }
    for d in report["diagnostics"].as_array().into_iter().flatten() {
        if d["code"] == code {
            found.push(format!(
                "{} | {}",
                d["message"].as_str().unwrap_or_default(),
                d["hint"].as_str().unwrap_or_default()
            ));
        }
    }
    found.join("\n")
}

#[test]
fn an_archived_task_is_still_re_run_from_the_spec_the_gate_judged() {
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
    repo.write("src/lib.py", "def value():\n    return 1\n");
    // The untasked commit below is allowed on the base: this test is about
    // the archived task's re-run, not the untasked policy.
    repo.write(
        ".mastermind/hooks.yaml",
        &format!(
            "{}{}",
            "untasked:\n  rules:\n    - action: allow\n      paths: [src/lib.py]\n", ANYONE_PLANS
        ),
    );
    let base = repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    write_task(&repo, &["grep", "-q", "return 2", "src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    assert_eq!(status(&run_check(&repo)), 0);
    repo.commit_all("task");
    // Broken code and a forged receipt, then the task folder removed.
    repo.write("src/lib.py", "def value():\n    return 3\n");
    repo.commit_all("untested change");
    forge_receipt_for_head(&repo);
    repo.git(&["rm", "-r", "-q", TASK]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "archive the task"]);
    let (code, codes, out) = ci(&repo, &base, &[], &[]);
    assert_eq!(code, 0, "the gate alone: {codes:?} {}", text(&out));
    assert!(has(&codes, "task_archived"), "{codes:?}");
    let (code, codes, out) = ci(&repo, &base, &["--rerun"], &[]);
    assert_eq!(code, 1, "{codes:?} {}", text(&out));
    assert!(
        has(&codes, "rerun_contradicts_receipt") || has(&codes, "rerun_failed"),
        "the archived task's check ran on the landing: {codes:?}"
    );
}

#[test]
fn a_missing_tool_is_unavailable_and_named_never_a_forgery() {
    // The developer has `vitest` on PATH; the CI machine does not: `sh`
    // exits 127 ("vitest: not found"), as `npm test` does without
    // node_modules.
    let tools = tempfile::tempdir().unwrap();
    std::fs::write(tools.path().join("vitest"), "#!/bin/sh\nexit 0\n").unwrap();
    make_executable(&tools.path().join("vitest"));
    let (repo, base) = task_branch(&["sh", "-c", "vitest run"]);
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
    for place in ["workspace", "worktree"] {
        let (code, codes, out) = ci(&repo, &base, &["--rerun", "--rerun-in", place], &[]);
        assert_eq!(code, 2, "{place}: {codes:?} {}", text(&out));
        assert!(!has(&codes, "rerun_contradicts_receipt"), "{codes:?}");
        let shown = message_of(&out, "rerun_unavailable");
        assert!(shown.contains("exit 127"), "{shown}");
        assert!(shown.contains("vitest: not found"), "{shown}");
        assert!(
            shown.contains("rerun.setup") || shown.contains("before the gate"),
            "{shown}"
        );
    }
}

#[test]
fn a_failure_on_content_the_receipt_does_not_describe_is_rerun_failed_with_its_output() {
    let script =
        "grep -q 'return 2' src/lib.py || { echo 'expected return 2 in src/lib.py'; exit 1; }";
    let (repo, base) = task_branch(&["sh", "-c", script]);
    assert_eq!(status(&run_check(&repo)), 0);
    repo.commit_all("task");
    // A later change to the task's file, the receipt left as it was.
    repo.write("src/lib.py", "def value():\n    return 3\n");
    repo.commit_all("untested change");
    let (code, codes, out) = ci(&repo, &base, &["--rerun"], &[]);
    assert_eq!(code, 1, "{codes:?} {}", text(&out));
    assert!(has(&codes, "rerun_failed"), "{codes:?}");
    assert!(!has(&codes, "rerun_contradicts_receipt"), "{codes:?}");
    let shown = message_of(&out, "rerun_failed");
    assert!(
        shown.contains("its receipt records a pass on other content"),
        "{shown}"
    );
    assert!(
        shown.contains("| expected return 2 in src/lib.py"),
        "the tail of its output: {shown}"
    );
}

#[test]
fn checks_of_different_tasks_run_in_parallel_with_prefixed_output() {
    // Each check waits for the other to have started: only checks that run
    // at the same time both pass (each gives up after a while, so a serial
    // run fails instead of hanging).
    let meet = tempfile::tempdir().unwrap();
    let rendezvous = |me: &str, other: &str| {
        format!(
            "touch '{dir}/{me}'; i=0; while [ ! -e '{dir}/{other}' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; echo {me} met; test -e '{dir}/{other}'",
            dir = meet.path().display()
        )
    };
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
    repo.write("a.txt", "a\n");
    repo.write("b.txt", "b\n");
    let base = repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let (a, b) = (rendezvous("a", "b"), rendezvous("b", "a"));
    write_task_with_checks(
        &repo,
        "001-a",
        &["a.txt"],
        &[("meet", &["sh", "-c", &a])],
        60,
    );
    write_task_with_checks(
        &repo,
        "002-b",
        &["b.txt"],
        &[("meet", &["sh", "-c", &b])],
        60,
    );
    repo.write("a.txt", "a2\n");
    repo.write("b.txt", "b2\n");
    repo.commit_all("two tasks");
    let (code, codes, out) = ci(&repo, &base, &["--rerun", "--rerun-jobs", "2"], &[]);
    assert_eq!(code, 1, "no receipts, so the gate cannot pass: {codes:?}");
    assert_eq!(
        codes.iter().filter(|c| *c == "rerun_passed").count(),
        2,
        "{codes:?} {}",
        text(&out)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("[001-a/meet] | a met"), "{err}");
    assert!(err.contains("[002-b/meet] | b met"), "{err}");
}

#[test]
fn the_workspace_is_used_only_when_it_holds_the_landing() {
    let (repo, base) = task_branch(&["grep", "-q", "return 2", "src/lib.py"]);
    assert_eq!(status(&run_check(&repo)), 0);
    repo.commit_all("task");
    let head = repo.head();
    repo.git(&["checkout", "-q", &base]);
    let out = repo.run(
        &[
            "check",
            "--ci",
            "--base",
            &base,
            "--head",
            &head,
            "--rerun",
            "--rerun-in",
            "workspace",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(
        message_of(&out, "rerun_unavailable").contains("whose tree is not the landing's"),
        "{}",
        text(&out)
    );
    // Left to choose, the gate uses a worktree of the landing instead.
    let out = repo.run(
        &[
            "check", "--ci", "--base", &base, "--head", &head, "--rerun", "--format", "json",
        ],
        None,
    );
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert!(
        message_of(&out, "rerun_place").contains("not in the workspace"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_failing_setup_command_stops_the_rerun_as_unavailable() {
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
    repo.write("src/lib.py", "def value():\n    return 1\n");
    repo.write(
        ".mastermind/hooks.yaml",
        &format!(
            "{}{}",
            "rerun:\n  setup:\n    - [sh, -c, 'echo cannot install; exit 3']\n", ANYONE_PLANS
        ),
    );
    let base = repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    write_task(&repo, &["grep", "-q", "return 2", "src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    assert_eq!(status(&run_check(&repo)), 0);
    repo.commit_all("task");
    let (code, codes, out) = ci(&repo, &base, &["--rerun", "--rerun-in", "worktree"], &[]);
    assert_eq!(code, 2, "{codes:?} {}", text(&out));
    assert!(has(&codes, "rerun_setup_failed"), "{codes:?}");
    let shown = message_of(&out, "rerun_setup_failed");
    assert!(shown.contains("exited 3"), "{shown}");
    assert!(shown.contains("cannot install"), "{shown}");
    assert!(has(&codes, "rerun_unavailable"), "{codes:?}");
}

#[test]
fn an_executable_in_an_ignored_directory_is_bound_by_what_the_runner_saw() {
    // `node_modules/.bin/unit` without npm: an ignored directory's tool, as
    // the project's install step leaves it.
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
    repo.write("src/lib.py", "def value():\n    return 1\n");
    repo.write(".gitignore", "node_modules/\n");
    repo.write(".mastermind/hooks.yaml", &format!("{}{}", "work_in_progress: deny\nrerun:\n  setup:\n    - [sh, -c, 'mkdir -p node_modules/.bin && printf \"#!/bin/sh\\n# installed by CI\\ngrep -q \\\"return 2\\\" src/lib.py\\n\" > node_modules/.bin/unit && chmod +x node_modules/.bin/unit']\n", ANYONE_PLANS));
    let base = repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write(
        "node_modules/.bin/unit",
        "#!/bin/sh\ngrep -q 'return 2' src/lib.py\n",
    );
    make_executable(&repo.path().join("node_modules/.bin/unit"));
    write_task(&repo, &["node_modules/.bin/unit"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    assert_eq!(status(&run_check(&repo)), 0);
    repo.git(&["add", "-A"]);
    // pre-commit compares it on disk, where it is.
    let staged = repo.run(&["check", "--staged", "--format", "json"], None);
    assert_eq!(status(&staged), 0, "{}", text(&staged));
    repo.write(
        "node_modules/.bin/unit",
        "#!/bin/sh\n# changed\ngrep -q 'return 2' src/lib.py\n",
    );
    let staged = repo.run(&["check", "--staged", "--format", "json"], None);
    assert_eq!(status(&staged), 1, "{}", text(&staged));
    assert!(
        codes(&json(&staged)).contains(&"receipt_executable_changed".to_string()),
        "{}",
        text(&staged)
    );
    assert_eq!(status(&run_check(&repo)), 0);
    repo.commit_all("task");
    // CI cannot see it and does not call it stale...
    let (code, codes, out) = ci(&repo, &base, &[], &[]);
    assert_eq!(code, 0, "{codes:?} {}", text(&out));
    // ...the re-run resolves it after setup, and says it differs.
    let (code, codes, out) = ci(&repo, &base, &["--rerun", "--rerun-in", "worktree"], &[]);
    assert_eq!(code, 0, "{codes:?} {}", text(&out));
    let shown = message_of(&out, "rerun_passed");
    assert!(
        shown.contains("the re-run's `node_modules/.bin/unit` hashes to"),
        "{shown}"
    );
    // In the workspace the developer's own copy is the one that runs.
    let (code, _, out) = ci(&repo, &base, &["--rerun"], &[]);
    assert_eq!(code, 0, "{}", text(&out));
    assert!(
        !message_of(&out, "rerun_passed").contains("hashes to"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_change_of_rerun_setup_is_spelled_out_for_review() {
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("{}{}", "rerun:\n  setup:\n    - [npm, ci]\n", ANYONE_PLANS),
    );
    let base = repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write(".mastermind/hooks.yaml", &format!("{}{}", "rerun:\n  setup:\n    - [sh, -c, 'mkdir -p node_modules/.bin && ln -s /bin/true node_modules/.bin/vitest']\n", ANYONE_PLANS));
    repo.commit_all("a setup that stubs the test runner");
    let (_, codes, out) = ci(&repo, &base, &[], &[]);
    assert!(has(&codes, "config_loosened"), "{codes:?}");
    assert!(
        message_of(&out, "config_loosened").contains("rerun.setup changed"),
        "{}",
        text(&out)
    );
}
