//! Planning and a task's lifecycle as findings: widening the scope of a
//! task whose spec is on the protected branch (`spec_widened`) and new work
//! on a task whose report there is `complete` (`task_reopened`). The
//! planning policy grades them by who the platform says acts: a listed
//! planner's change is a note, anyone else's an error in CI and
//! pre-receive, a warning in the local hooks.

use crate::common::{BIN, TestRepo, codes, json, status, text};
use serde_json::Value;
use std::process::Output;

const TASK: &str = ".mastermind/tasks/001-a";
const CONFIG: &str = "planning:\n  rules:\n    - action: allow\n      actors: [planner]\n    - action: allow\n      pushers: [planner]\n";

/// main with a finished task 001-a (it touched src/a.py, its report says
/// complete), and a branch `feature` from it.
fn landed_task() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/a.py", "a = 0\n");
    repo.write("src/b.py", "b = 0\n");
    repo.write(".mastermind/hooks.yaml", CONFIG);
    repo.commit_all("base");
    repo.write_task("001-a", &["src/a.py"], &["src/a.py"]);
    repo.write("src/a.py", "a = 1\n");
    repo.commit_all("task 001-a");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo
}

/// The spec now also touches src/b.py: a planning-only change.
fn widen(repo: &TestRepo) {
    let spec = format!("{TASK}/spec.md");
    let text = std::fs::read_to_string(repo.path().join(&spec)).unwrap();
    repo.write(
        &spec,
        &text.replace(
            "  - file: src/a.py\n",
            "  - file: src/a.py\n  - file: src/b.py\n",
        ),
    );
    repo.commit_all("widen 001-a");
}

fn github(repo: &TestRepo, actor: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let event = dir.path().join("event.json");
    let sha = |rev: &str| repo.git(&["rev-parse", rev]).trim().to_string();
    let payload = serde_json::json!({"pull_request": {
        "base": {"sha": sha("main"), "ref": "main"},
        "head": {"sha": sha("feature"), "ref": "feature"},
        "user": {"login": actor},
    }});
    std::fs::write(&event, payload.to_string()).unwrap();
    repo.run_env(
        &["check", "--ci", "--format", "json"],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_EVENT_PATH", event.to_str().unwrap()),
            ("GITHUB_ACTOR", actor),
            ("GITHUB_TRIGGERING_ACTOR", actor),
        ],
    )
}

/// The severity of the first finding with `code` in the report.
fn severity(report: &Value, code: &str) -> Option<String> {
    report["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["checks"].as_array().into_iter().flatten())
        .flat_map(|c| c["diagnostics"].as_array().into_iter().flatten())
        .find(|d| d["code"] == code)
        .and_then(|d| d["severity"].as_str())
        .map(str::to_string)
}

#[test]
fn widening_a_landed_spec_is_a_planners_change() {
    let repo = landed_task();
    widen(&repo);
    let agent = github(&repo, "agent-bot");
    assert_eq!(status(&agent), 1, "{}", text(&agent));
    let report = json(&agent);
    assert_eq!(
        severity(&report, "spec_widened").as_deref(),
        Some("error"),
        "{report}"
    );
    assert!(text(&agent).contains("src/b.py"), "{}", text(&agent));
    assert!(
        text(&agent).contains("planning.rules"),
        "the refusal names the rule to add: {}",
        text(&agent)
    );
    let planner = github(&repo, "planner");
    assert_eq!(status(&planner), 0, "{}", text(&planner));
    assert_eq!(
        severity(&json(&planner), "spec_widened").as_deref(),
        Some("note")
    );
}

#[test]
fn new_work_on_a_complete_task_reopens_it() {
    let repo = landed_task();
    repo.write("src/a.py", "a = 2\n");
    let report_path = format!("{TASK}/executor-report.md");
    let report = std::fs::read_to_string(repo.path().join(&report_path)).unwrap();
    repo.write(
        &report_path,
        &report.replace("# Report\n", "# Report\n\nMore.\n"),
    );
    repo.commit_all("more work on 001-a");
    let agent = github(&repo, "agent-bot");
    assert_eq!(status(&agent), 1, "{}", text(&agent));
    assert_eq!(
        severity(&json(&agent), "task_reopened").as_deref(),
        Some("error"),
        "{}",
        text(&agent)
    );
    let planner = github(&repo, "planner");
    assert_eq!(status(&planner), 0, "{}", text(&planner));
    assert_eq!(
        severity(&json(&planner), "task_reopened").as_deref(),
        Some("note")
    );
    // Only the task's artifacts changing is no new work.
    repo.git(&["reset", "-q", "--hard", "main"]);
    repo.write(
        &report_path,
        &report.replace("# Report\n", "# Report\n\nA typo.\n"),
    );
    repo.commit_all("fix the report's prose");
    let prose = github(&repo, "agent-bot");
    assert!(
        !codes(&json(&prose)).contains(&"task_reopened".to_string()),
        "{}",
        text(&prose)
    );
}

#[test]
fn planning_through_pre_receive_alone_is_refused() {
    // The attack: one push widens the scope, the next does the work.
    let repo = landed_task();
    let server = tempfile::tempdir().unwrap();
    let bare = server.path().join("server.git");
    repo.git(&["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    repo.git(&["push", "-q", bare.to_str().unwrap(), "main"]);
    let mut install = repo.command(BIN);
    install.current_dir(&bare).args(["install", "--server"]);
    assert!(install.output().unwrap().status.success());
    widen(&repo);
    let push = |pusher: &str| {
        let mut command = repo.command("git");
        command
            .args(["push", bare.to_str().unwrap(), "feature:main"])
            .env("GITHUB_USER_LOGIN", pusher);
        command.output().unwrap()
    };
    let agent = push("agent-bot");
    assert_ne!(status(&agent), 0, "{}", text(&agent));
    assert!(text(&agent).contains("spec_widened"), "{}", text(&agent));
    let planner = push("planner");
    assert_eq!(status(&planner), 0, "{}", text(&planner));
}

#[test]
fn a_local_hook_only_warns() {
    let repo = landed_task();
    let remote = tempfile::tempdir().unwrap();
    let bare = remote.path().join("origin.git");
    repo.git(&["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    repo.git(&["push", "-q", bare.to_str().unwrap(), "main"]);
    widen(&repo);
    // pre-push knows the remote's default branch: the planning finding is
    // a warning there, so the author is not blocked at their desk.
    let lines = format!(
        "refs/heads/feature {} refs/heads/main {}\n",
        repo.head(),
        repo.git(&["rev-parse", "main"]).trim()
    );
    let output = repo.run(
        &[
            "check",
            "--push",
            "origin",
            bare.to_str().unwrap(),
            "--format",
            "json",
        ],
        Some(&lines),
    );
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert_eq!(
        severity(&json(&output), "spec_widened").as_deref(),
        Some("warning"),
        "{}",
        text(&output)
    );
}

#[test]
fn a_spec_narrowed_on_main_is_not_widened_by_a_branch_that_never_touched_it() {
    let repo = TestRepo::new();
    repo.write("src/a.py", "a = 0\n");
    repo.write("src/b.py", "b = 0\n");
    repo.write(".mastermind/hooks.yaml", CONFIG);
    repo.commit_all("base");
    // The plan lands first: the spec alone, declaring both files.
    for (path, content) in crate::common::task_files("001-a", &["src/a.py", "src/b.py"], &[]) {
        if path.ends_with("spec.md") {
            repo.write(&path, &content);
        }
    }
    repo.commit_all("plan 001-a");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    // A planner narrows the spec on main while the branch works.
    repo.git(&["checkout", "-q", "main"]);
    let spec = format!("{TASK}/spec.md");
    let planned = std::fs::read_to_string(repo.path().join(&spec)).unwrap();
    repo.write(&spec, &planned.replace("  - file: src/b.py\n", ""));
    repo.commit_all("narrow 001-a");
    repo.git(&["checkout", "-q", "feature"]);
    for (path, content) in crate::common::task_files("001-a", &["src/a.py"], &["src/a.py"]) {
        if path.ends_with("executor-report.md") {
            repo.write(&path, &content);
        }
    }
    repo.write("src/a.py", "a = 1\n");
    repo.commit_all("do 001-a");
    let output = github(&repo, "agent-bot");
    assert!(
        !codes(&json(&output)).contains(&"spec_widened".to_string()),
        "{}",
        text(&output)
    );
    assert_eq!(status(&output), 0, "{}", text(&output));
}
