//! `init --planner`: a team's set-up, from an empty repository to an
//! agent's self-planned pull request that CI refuses and a planner's plan
//! under which the same work lands; and the solo set-up (`init` alone),
//! under which the agent's own plan is yours. The steps are those of the
//! team recipe in docs/src/configuration.md ("Planning"): `init` with the
//! planner, the policy landed through the server's pre-receive hook, the
//! agent's task made with `task new`, `verification run` and its report,
//! CI of its pull request with GitHub's event data.

use crate::common::landing::{Verdict, gated_server, github_pull_request, verdict};
use crate::common::tasks::task_new;
use crate::common::{BIN, TestRepo, status, text};
use std::process::Output;

/// An empty server repository whose pre-receive hook is the gate, and an
/// empty clone of it.
fn empty() -> (TestRepo, TestRepo) {
    let (server, bare) = gated_server();
    let work = TestRepo::new();
    work.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    (server, work)
}

/// `git` with the hooks `init` installed, as `who` (GitLab's pusher
/// variable reaches the server's hook).
fn git_as(work: &TestRepo, who: &str, args: &[&str]) -> Output {
    let mut command = work.command("git");
    command
        .args(args)
        .env("GIT_AUTHOR_NAME", who)
        .env("GIT_AUTHOR_EMAIL", format!("{who}@example.com"))
        .env("GL_USERNAME", who)
        .env("PATH", path_with_bin());
    command.output().unwrap()
}

/// PATH with the built binary first (the installed hooks find it there
/// too).
fn path_with_bin() -> std::ffi::OsString {
    let dir = std::path::Path::new(BIN).parent().unwrap().to_path_buf();
    std::env::join_paths(std::iter::once(dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap()
}

fn ok(output: &Output, what: &str) {
    assert!(output.status.success(), "{what}: {}", text(output));
}

/// The project, `init` with `planners`, the policy committed by alice and
/// landed on the server.
fn set_up(planners: &[&str]) -> (TestRepo, TestRepo) {
    let (server, work) = empty();
    work.write("lib.py", "def value():\n    return 1\n");
    let mut args = vec!["init"];
    for planner in planners {
        args.extend(["--planner", planner]);
    }
    let init = work.run(&args, None);
    assert_eq!(status(&init), 0, "{}", text(&init));
    ok(&git_as(&work, "alice", &["add", "-A"]), "git add");
    ok(
        &git_as(&work, "alice", &["commit", "-qm", "Gate agent work"]),
        "alice commits the policy",
    );
    ok(
        &git_as(&work, "alice", &["push", "-q", "origin", "main"]),
        "alice lands the policy",
    );
    (server, work)
}

/// The agent's task on branch `agent`: `task new` (its own plan), the
/// work, the check's receipt, the report; committed and pushed as
/// agent-bot.
fn agents_task(work: &TestRepo) {
    ok(
        &git_as(work, "agent-bot", &["checkout", "-q", "-b", "agent"]),
        "branch",
    );
    task_new(work, "change-value", "lib.py", "grep -q 'return 2' lib.py");
    work.write("lib.py", "def value():\n    return 2\n");
    let spec = ".mastermind/tasks/change-value/spec.md";
    let run = work.run(&["verification", "run", spec, "--all", "--quiet"], None);
    assert_eq!(status(&run), 0, "{}", text(&run));
    work.write(
        ".mastermind/tasks/change-value/executor-report.md",
        "# Executor report: change-value\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: .mastermind/tasks/change-value/spec.md\nstatus: complete\nphases: []\nfiles_modified:\n  - lib.py\nclaims: []\ndefects: []\nverifications:\n  - cmd: grep -q 'return 2' lib.py\n    result: pass\n    observed:\n      exit_code: 0\n```\n<!-- mastermind:report-end -->\n",
    );
    ok(&git_as(work, "agent-bot", &["add", "-A"]), "git add");
    // The installed pre-commit and pre-push hooks run; a branch that is not
    // protected only warns.
    ok(
        &git_as(work, "agent-bot", &["commit", "-qm", "value() returns 2"]),
        "the agent's commit",
    );
    ok(
        &git_as(work, "agent-bot", &["push", "-q", "origin", "agent"]),
        "the agent's branch",
    );
}

fn ci(work: &TestRepo, author: &str) -> Verdict {
    github_pull_request(work, "origin/main", "origin/agent", author)
}

#[test]
fn inits_team_set_up_refuses_an_agents_self_planned_pull_request() {
    let (_server, work) = set_up(&["github:alice"]);
    agents_task(&work);
    let refused = ci(&work, "agent-bot");
    refused.expect(1, "CI of the agent's pull request");
    assert!(refused.has("task_created"), "{refused:?}");
    assert!(
        refused.text.contains("planning.default unset"),
        "{}",
        refused.text
    );
    // The agent pushing its plan to main itself: pre-receive refuses too.
    let pushed = git_as(&work, "agent-bot", &["push", "origin", "agent:main"]);
    assert!(!pushed.status.success(), "{}", text(&pushed));
    assert!(text(&pushed).contains("task_created"), "{}", text(&pushed));

    // The honest route: alice lands the plan (the spec alone), then the
    // agent's work under it lands.
    ok(
        &git_as(
            &work,
            "alice",
            &["checkout", "-q", "-b", "plan", "origin/main"],
        ),
        "branch",
    );
    ok(
        &git_as(
            &work,
            "alice",
            &[
                "checkout",
                "agent",
                "--",
                ".mastermind/tasks/change-value/spec.md",
            ],
        ),
        "take the spec",
    );
    ok(
        &git_as(&work, "alice", &["commit", "-qm", "plan change-value"]),
        "plan",
    );
    let plan = github_pull_request(&work, "origin/main", "plan", "alice");
    plan.expect(0, "CI of alice's plan");
    assert!(plan.has("task_planned"), "{plan:?}");
    ok(
        &git_as(&work, "alice", &["push", "-q", "origin", "plan:main"]),
        "the plan lands",
    );
    ok(
        &git_as(&work, "agent-bot", &["fetch", "-q", "origin"]),
        "fetch",
    );
    ok(
        &git_as(&work, "agent-bot", &["checkout", "-q", "agent"]),
        "agent",
    );
    ok(
        &git_as(&work, "agent-bot", &["rebase", "-q", "origin/main"]),
        "the agent rebases its work on the plan",
    );
    let run = work.run(
        &[
            "verification",
            "run",
            ".mastermind/tasks/change-value/spec.md",
            "--all",
            "--quiet",
        ],
        None,
    );
    assert_eq!(status(&run), 0, "{}", text(&run));
    ok(&git_as(&work, "agent-bot", &["add", "-A"]), "add");
    ok(
        &git_as(
            &work,
            "agent-bot",
            &["commit", "-q", "--allow-empty", "-m", "re-run"],
        ),
        "re-run",
    );
    ok(
        &git_as(&work, "agent-bot", &["push", "-q", "-f", "origin", "agent"]),
        "push",
    );
    let work_pr = ci(&work, "agent-bot");
    work_pr.expect(0, "CI of the agent's work under alice's plan");
    assert!(!work_pr.has("task_created"), "{work_pr:?}");
    let landed = git_as(&work, "agent-bot", &["push", "origin", "agent:main"]);
    assert!(landed.status.success(), "{}", text(&landed));
}

#[test]
fn a_solo_init_lets_you_plan_your_own_tasks() {
    let (_server, work) = set_up(&[]);
    let config = std::fs::read_to_string(work.path().join(".mastermind/hooks.yaml")).unwrap();
    assert!(
        config.contains("\n  default: allow "),
        "the one line: {config}"
    );
    agents_task(&work);
    let passed = ci(&work, "agent-bot");
    passed.expect(0, "CI where anyone plans");
    assert!(
        passed.has("task_created"),
        "who planned it is said: {passed:?}"
    );
}

#[test]
fn a_planner_that_is_no_literal_principal_writes_nothing() {
    let (_server, work) = empty();
    for bad in ["github:*", "alice", "bitbucket:alice"] {
        let output = work.run(&["init", "--planner", bad], None);
        assert_eq!(status(&output), 2, "{bad}: {}", text(&output));
        assert!(
            !work.path().join(".mastermind/hooks.yaml").exists(),
            "{bad}: nothing written"
        );
    }
    let json = verdict(&work.run(&["check", "--staged", "--format", "json"], None));
    assert_eq!(json.code, 0, "{json:?}");
}
