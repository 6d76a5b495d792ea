//! One run, one verdict: the templates' documented re-run recipes, run as
//! the platforms run them. The action with `rerun: true` after a step that
//! installs the project's dependencies, and the GitLab job with
//! `MASTERMIND_HOOKS_RERUN: "true"` after a `before_script` that does, on a
//! pull request (merged-results pipeline) whose checks need a tool the job
//! installed into the ignored `node_modules/.bin`.
//!
//! The checks append a line to a counter file outside the workspace each
//! time they start, so the tests see that every check ran once, in the job's
//! workspace, with `CI` and `NO_COLOR` set; and every output of the run (the
//! log, the annotations, the job summary, SARIF, Code Quality, JUnit, the
//! attestation) states the same verdict: a pass for the honest change, a
//! failure for the same change broken behind forged receipts. The outputs
//! are judged against the platforms' formats (`tests/data`).

use super::templates::{Runner, gate, github_event, refs, run_gitlab_job, text};
use crate::common::platforms::{assert_valid_code_quality, assert_valid_junit, assert_valid_sarif};
use crate::common::tasks::{forge_territory, write_task_with_checks};
use crate::common::{BIN, TestRepo, make_executable};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const TASK: &str = "001-value";

/// The project's check, as a package would install it: it counts its start
/// (its name, `CI`, `NO_COLOR` and where it runs) in `$CHECK_COUNTER`, says
/// in colour what it found, and passes when the value is ok.
const CHECK_TOOL: &str = "#!/bin/sh\n\
printf '%s CI=%s NO_COLOR=%s cwd=%s\\n' \"$1\" \"${CI:-}\" \"${NO_COLOR:-}\" \"$(pwd -P)\" >>\"${CHECK_COUNTER:?}\"\n\
if grep -qx ok src/value.txt; then\n\
    printf '\\033[32mPASS\\033[39m %s: the value is ok\\n' \"$1\"\n\
else\n\
    printf '\\033[31mFAIL\\033[39m %s: expected ok, got %s\\n' \"$1\" \"$(cat src/value.txt)\"\n\
    exit 1\n\
fi\n";

/// What the job's install step (`npm ci`) does here: the project's tool
/// into the ignored `node_modules/.bin`.
const INSTALL: &str = "mkdir -p node_modules/.bin && cp tools/check-value node_modules/.bin/check-value && chmod +x node_modules/.bin/check-value";

fn install(dir: &Path) {
    let out = std::process::Command::new("sh")
        .args(["-e", "-c", INSTALL])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "install: {}", text(&out.stderr));
}

/// `main` has the project and its tool; `feature` holds the task: the value
/// set to ok (or to `broken` behind forged receipts, when `honest` is
/// false), two observed checks that run the installed tool, their receipts
/// made by `verification run` with the tool installed, a complete report.
/// The agent's own counter is left outside. Returns (origin, base, head).
fn project(honest: bool) -> (TestRepo, String, String) {
    let repo = TestRepo::new();
    // Anyone plans here: what is judged is the task's checks.
    repo.write(".mastermind/hooks.yaml", crate::common::ANYONE_PLANS);
    repo.write(".gitignore", "node_modules/\n");
    repo.write("src/value.txt", "todo\n");
    repo.write("tools/check-value", CHECK_TOOL);
    make_executable(&repo.path().join("tools/check-value"));
    let base = repo.commit_all("a project whose checks need its installed tool");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    install(repo.path());
    repo.write("src/value.txt", "ok\n");
    write_task_with_checks(
        &repo,
        TASK,
        &["src/value.txt"],
        &[
            ("unit", &["node_modules/.bin/check-value", "unit"]),
            ("lint", &["node_modules/.bin/check-value", "lint"]),
        ],
        60,
    );
    let counter = tempfile::NamedTempFile::new().unwrap();
    let out = repo.run_env(
        &[
            "verification",
            "run",
            &format!(".mastermind/tasks/{TASK}/spec.md"),
            "--all",
        ],
        &[("CHECK_COUNTER", counter.path().to_str().unwrap())],
    );
    assert!(
        out.status.success(),
        "verification run: {}",
        text(&out.stderr)
    );
    repo.commit_all("the task, done and checked");
    if !honest {
        // The value broken after the checks ran, the receipts rewritten to
        // claim the new tree (the digest leaves the receipts out) and the
        // new content of their territory (the record's hash is public):
        // the forgery a re-run exists to catch.
        repo.write("src/value.txt", "broken\n");
        repo.commit_all("an untested change");
        let digest = repo.run(&["digest", "--rev", "HEAD"], None);
        let digest = text(&digest.stdout)
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string();
        for id in ["unit", "lint"] {
            let path = repo.path().join(format!(
                ".mastermind/tasks/{TASK}/verification/{id}.tree.json"
            ));
            let mut receipt: Value =
                serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            receipt["tree_before"] = Value::String(digest.clone());
            receipt["tree_after"] = Value::String(digest.clone());
            forge_territory(&repo, &mut receipt);
            std::fs::write(&path, serde_json::to_vec_pretty(&receipt).unwrap()).unwrap();
        }
        // One commit with the task's folder, so it is the task's own.
        repo.git(&["commit", "-q", "-a", "--amend", "--no-edit"]);
    }
    let head = repo.head();
    (repo, base, head)
}

/// The job's checkout of the landing: a clone of `origin` at the merge of
/// `feature` into `main` (GitHub's `refs/pull/N/merge`, GitLab's merged
/// results commit), and that merge commit.
fn checkout_of_the_landing(origin: &TestRepo) -> (TestRepo, String) {
    let workspace = TestRepo::clone_of(origin, &[]);
    workspace.git(&["checkout", "-q", "--detach", "origin/main"]);
    workspace.git(&["merge", "-q", "--no-ff", "--no-edit", "origin/feature"]);
    let merge = workspace.head();
    (workspace, merge)
}

/// Every start the checks counted.
fn starts(counter: &Path) -> Vec<String> {
    std::fs::read_to_string(counter)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Each check started exactly once, in the job's workspace, with CI=true
/// and NO_COLOR=1.
fn assert_each_check_ran_once_in(counter: &Path, workspace: &Path) {
    let workspace = std::fs::canonicalize(workspace).unwrap();
    let mut lines = starts(counter);
    lines.sort();
    let expected: Vec<String> = ["lint", "unit"]
        .iter()
        .map(|id| format!("{id} CI=true NO_COLOR=1 cwd={}", workspace.display()))
        .collect();
    assert_eq!(lines, expected, "one start per check, in the workspace");
}

/// A check's coloured output reaches the log as plain text.
fn assert_plain_echo(log: &str, id: &str, word: &str) {
    assert!(
        log.contains(&format!("[{TASK}/{id}] | {word} {id}:")),
        "the check's output is in the log: {log}"
    );
    assert!(
        !log.contains("\u{1b}[3") && !log.contains("\\x1b") && !log.contains("\\u{1b}"),
        "no colour code, raw or escaped, in the check's output: {log}"
    );
}

/// The statement's verdict and where it says the checks ran; it is an
/// in-toto Statement that `attestation verify` accepts for `commit` exactly
/// when the verdict is pass.
fn attested(file: &Path, cwd: &Path, commit: &str) -> (String, String) {
    let statement: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    assert_eq!(statement["_type"], "https://in-toto.io/Statement/v1");
    let verdict = statement["predicate"]["verdict"]
        .as_str()
        .unwrap()
        .to_string();
    let verified = std::process::Command::new(BIN)
        .args(["attestation", "verify"])
        .arg(file)
        .args(["--commit", commit])
        .current_dir(cwd)
        .output()
        .unwrap();
    assert_eq!(
        verified.status.code(),
        Some(if verdict == "pass" { 0 } else { 1 }),
        "attestation verify: {}",
        text(&verified.stderr)
    );
    let place = statement["predicate"]["place"]
        .as_str()
        .unwrap()
        .to_string();
    (verdict, place)
}

/// SARIF results at level error.
fn sarif_errors(file: &Path) -> Vec<String> {
    let log: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    assert_valid_sarif(&log);
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["level"] == "error")
        .map(|r| r["ruleId"].as_str().unwrap().to_string())
        .collect()
}

struct GithubJob {
    output: Output,
    exit_code: Option<String>,
    summary: String,
    sarif: PathBuf,
    attestation: PathBuf,
}

/// A pull request job of the documented recipe: checkout of the merge ref,
/// the install step, then the action with `rerun: true`, `sarif-file` and
/// `attestation` (both in the workspace, as the docs write them).
fn github_job(origin: &TestRepo, base: &str, head: &str, counter: &Path) -> (TestRepo, GithubJob) {
    let (workspace, merge) = checkout_of_the_landing(origin);
    install(workspace.path());
    let scratch = tempfile::tempdir().unwrap();
    let summary = scratch.path().join("summary.md");
    let mut env = github_event(
        scratch.path(),
        "pull_request",
        serde_json::json!({"action": "synchronize", "number": 7,
            "pull_request": {"base": {"ref": "main", "sha": base}, "head": {"ref": "feature", "sha": head}},
            "repository": {"default_branch": "main", "full_name": "acme/app"}}),
        &merge,
    );
    env.push(("GITHUB_REF", "refs/pull/7/merge".into()));
    env.push(("GITHUB_STEP_SUMMARY", summary.display().to_string()));
    env.push(("CHECK_COUNTER", counter.display().to_string()));
    let run = Runner::here(scratch.path()).run(
        workspace.path(),
        &[
            ("binary-path", gate()),
            ("rerun", "true"),
            ("sarif-file", "results.sarif"),
            ("attestation", "rerun.intoto.json"),
        ],
        &refs(&env),
    );
    let job = GithubJob {
        exit_code: run.out("gate", "exit-code").map(str::to_string),
        summary: std::fs::read_to_string(&summary).unwrap_or_default(),
        sarif: workspace.path().join("results.sarif"),
        attestation: workspace.path().join("rerun.intoto.json"),
        output: run.output,
    };
    (workspace, job)
}

#[test]
fn the_actions_rerun_recipe_passes_an_honest_change_running_each_check_once() {
    let (origin, base, head) = project(true);
    let counter = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(counter.path(), "").unwrap();
    let (workspace, job) = github_job(&origin, &base, &head, counter.path());
    let stdout = text(&job.output.stdout);
    let stderr = text(&job.output.stderr);
    assert_eq!(job.output.status.code(), Some(0), "{stdout}{stderr}");
    assert_eq!(job.exit_code.as_deref(), Some("0"));
    assert_each_check_ran_once_in(counter.path(), workspace.path());
    assert_plain_echo(&stderr, "unit", "PASS");
    // The log and the annotations.
    assert!(!stdout.contains("::error"), "{stdout}");
    assert!(
        stdout.lines().last().unwrap_or_default().starts_with(
            "mastermind-hooks: passed: 1 task checked, 0 failed (0 errors, 0 warnings,"
        ),
        "{stdout}"
    );
    // The job summary, once.
    assert!(
        job.summary.starts_with("## ✅ mastermind-hooks passed"),
        "{}",
        job.summary
    );
    assert_eq!(
        job.summary.matches("mastermind-hooks passed").count(),
        1,
        "{}",
        job.summary
    );
    // SARIF and the attestation.
    assert_eq!(sarif_errors(&job.sarif), Vec::<String>::new());
    let (verdict, place) = attested(&job.attestation, workspace.path(), &head);
    assert_eq!((verdict.as_str(), place.as_str()), ("pass", "workspace"));
}

#[test]
fn the_actions_rerun_recipe_fails_a_forged_change_in_every_output_alike() {
    let (origin, base, head) = project(false);
    let counter = tempfile::NamedTempFile::new().unwrap();
    let (workspace, job) = github_job(&origin, &base, &head, counter.path());
    let stdout = text(&job.output.stdout);
    let stderr = text(&job.output.stderr);
    assert_eq!(job.output.status.code(), Some(1), "{stdout}{stderr}");
    assert_eq!(job.exit_code.as_deref(), Some("1"));
    assert_each_check_ran_once_in(counter.path(), workspace.path());
    assert_plain_echo(&stderr, "unit", "FAIL");
    // The same failure, by the same rule, everywhere: the annotations, the
    // log's last line, the summary, SARIF and the statement.
    let annotated: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(annotated.len(), 2, "{stdout}");
    assert!(
        annotated
            .iter()
            .all(|l| l.contains("title=rerun_contradicts_receipt")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .last()
            .unwrap_or_default()
            .starts_with("mastermind-hooks: failed: 1 task checked, 1 failed (2 errors,"),
        "{stdout}"
    );
    assert!(
        job.summary.starts_with("## ❌ mastermind-hooks failed"),
        "{}",
        job.summary
    );
    assert_eq!(
        job.summary.matches("mastermind-hooks failed").count(),
        1,
        "{}",
        job.summary
    );
    assert!(
        job.summary.contains("`rerun_contradicts_receipt`"),
        "{}",
        job.summary
    );
    assert_eq!(
        sarif_errors(&job.sarif),
        ["rerun_contradicts_receipt", "rerun_contradicts_receipt"]
    );
    let (verdict, place) = attested(&job.attestation, workspace.path(), &head);
    assert_eq!((verdict.as_str(), place.as_str()), ("fail", "workspace"));
}

/// A merged-results pipeline of the documented recipe: the job's cache
/// directory restored into the project, the `before_script` install, then
/// the template's job with the re-run and an attestation.
fn gitlab_job(origin: &TestRepo, base: &str, head: &str, counter: &Path) -> (TestRepo, Output) {
    let (workspace, merge) = checkout_of_the_landing(origin);
    let root = workspace.path();
    // What GitLab's `cache:` restores before the script: the job's own
    // directory, untracked in the project.
    std::fs::create_dir_all(root.join(".mastermind-hooks/release-x")).unwrap();
    std::fs::write(root.join(".mastermind-hooks/release-x/kept"), "cached\n").unwrap();
    install(root);
    let zero = "0".repeat(40);
    let env: Vec<(&str, String)> = vec![
        ("CI", "true".into()),
        ("GITLAB_CI", "true".into()),
        ("CI_DEFAULT_BRANCH", "main".into()),
        ("CI_PROJECT_DIR", root.display().to_string()),
        ("CI_PIPELINE_SOURCE", "merge_request_event".into()),
        ("CI_MERGE_REQUEST_EVENT_TYPE", "merged_result".into()),
        ("CI_MERGE_REQUEST_DIFF_BASE_SHA", base.into()),
        ("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", base.into()),
        ("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", head.into()),
        ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main".into()),
        ("CI_COMMIT_SHA", merge),
        ("CI_COMMIT_BEFORE_SHA", zero),
        ("MASTERMIND_HOOKS_BIN", gate().into()),
        ("MASTERMIND_HOOKS_RERUN", "true".into()),
        ("MASTERMIND_HOOKS_ATTESTATION", "rerun.intoto.json".into()),
        ("CHECK_COUNTER", counter.display().to_string()),
    ];
    let output = run_gitlab_job(root, &refs(&env));
    (workspace, output)
}

/// The Code Quality issues by severity, and the JUnit failures and errors.
fn gitlab_reports(root: &Path) -> (Vec<(String, String)>, (String, String)) {
    let issues: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("gl-code-quality-report.json")).unwrap(),
    )
    .unwrap();
    assert_valid_code_quality(&issues);
    let issues = issues
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["check_name"].as_str().unwrap().to_string(),
                i["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let xml = std::fs::read_to_string(root.join("mastermind-hooks-junit.xml")).unwrap();
    assert_valid_junit(&xml);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suites = doc.root_element();
    let counts = (
        suites.attribute("failures").unwrap().to_string(),
        suites.attribute("errors").unwrap().to_string(),
    );
    (issues, counts)
}

#[test]
fn the_gitlab_rerun_recipe_passes_an_honest_change_running_each_check_once() {
    let (origin, base, head) = project(true);
    let counter = tempfile::NamedTempFile::new().unwrap();
    let (workspace, output) = gitlab_job(&origin, &base, &head, counter.path());
    let stdout = text(&output.stdout);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert_each_check_ran_once_in(counter.path(), workspace.path());
    assert_plain_echo(&stderr, "unit", "PASS");
    // The cache directory is excluded by name, and only it.
    let exclude = std::fs::read_to_string(workspace.path().join(".git/info/exclude")).unwrap();
    assert_eq!(
        exclude.matches("/.mastermind-hooks/").count(),
        1,
        "{exclude}"
    );
    // The log, the widget's report and the tests tab agree.
    assert!(stdout.contains("passed"), "{stdout}");
    let (issues, (failures, errors)) = gitlab_reports(workspace.path());
    assert!(
        issues.iter().all(|(_, severity)| severity == "info"),
        "{issues:?}"
    );
    assert_eq!((failures.as_str(), errors.as_str()), ("0", "0"));
    let (verdict, place) = attested(
        &workspace.path().join("rerun.intoto.json"),
        workspace.path(),
        &head,
    );
    assert_eq!((verdict.as_str(), place.as_str()), ("pass", "workspace"));
}

#[test]
fn the_gitlab_rerun_recipe_fails_a_forged_change_in_every_output_alike() {
    let (origin, base, head) = project(false);
    let counter = tempfile::NamedTempFile::new().unwrap();
    let (workspace, output) = gitlab_job(&origin, &base, &head, counter.path());
    let stdout = text(&output.stdout);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert_each_check_ran_once_in(counter.path(), workspace.path());
    assert_plain_echo(&stderr, "lint", "FAIL");
    assert!(stdout.contains("rerun_contradicts_receipt"), "{stdout}");
    let (issues, (failures, errors)) = gitlab_reports(workspace.path());
    let blamed: Vec<&(String, String)> = issues
        .iter()
        .filter(|(name, _)| name == "rerun_contradicts_receipt")
        .collect();
    assert_eq!(blamed.len(), 2, "{issues:?}");
    assert!(
        blamed.iter().all(|(_, severity)| severity == "major"),
        "{issues:?}"
    );
    assert_ne!(failures, "0", "the tests tab fails too");
    assert_eq!(errors, "0");
    let (verdict, place) = attested(
        &workspace.path().join("rerun.intoto.json"),
        workspace.path(),
        &head,
    );
    assert_eq!((verdict.as_str(), place.as_str()), ("fail", "workspace"));
}
