//! Who decides (issue 47): a task the agent writes is not a planner's.
//! A new task's spec (alone or with its work), a task folder copied or
//! renamed, a wider spec, a reopened task and a change of a control file
//! are planning, graded in CI and pre-receive by `planning.rules` against
//! who the platform or a key vouches for, never by what the agent writes.
//! Drawn as a hostile agent would, with real SSH keys (`ssh-keygen`, git's
//! own verification against the allowed-signers file on the protected
//! branch), GitHub's `pull_request` event payload, GitLab's predefined
//! variables and the servers' pre-receive variables; and the honest routes:
//! a planner's plan, then the agent's work under it, in two changes and in
//! one change whose planning commit the planner signed.

use crate::common::keys::{Keys, allowed_line, commit_signed};
use crate::common::landing::*;
use crate::common::tasks::*;

const AGENT: &str = "Agent <agent@example.invalid>";
/// The agent writes the planner's name into its commits: a cooperative
/// mark, which no rule below keys on.
const FORGED: &str = "Alice <alice@example.com>";
const ALICE: &str = "Alice <alice@example.com>";

/// The team's policy, as `init --planner github:alice --planner
/// signer:alice@example.com` writes it: alice plans (the CI actor, the
/// pusher, the signer); untasked work is refused by default.
const TEAM: &str = "identity:\n  allowed_signers: .mastermind/allowed_signers\nplanning:\n  rules:\n    - action: allow\n      actors: [alice]\n    - action: allow\n      pushers: [alice]\n    - action: allow\n      signers: [alice@example.com]\n";

/// SSH keys (`None` where the test cannot make them: it returns early)
/// and a server (pre-receive is the gate) whose main has the team's
/// policy, alice's key in the allowed signers, and src/a.py, src/b.py.
fn team() -> Option<(Keys, Forge)> {
    let keys = Keys::new()?;
    let signers = allowed_line("alice@example.com", &keys.key("alice"));
    let forge = Forge::new(&[
        (".mastermind/hooks.yaml", TEAM),
        (".mastermind/allowed_signers", &signers),
        ("src/a.py", "a = 0\n"),
        ("src/b.py", "b = 0\n"),
    ]);
    Some((keys, forge))
}

/// The severity of the first finding `code` in a JSON verdict.
fn severity(verdict: &Verdict, code: &str) -> Option<String> {
    let report = verdict.report.as_ref()?;
    let tasks = report["tasks"].as_array().into_iter().flatten();
    tasks
        .flat_map(|t| t["checks"].as_array().into_iter().flatten())
        .flat_map(|c| c["diagnostics"].as_array().into_iter().flatten())
        .chain(report["diagnostics"].as_array().into_iter().flatten())
        .find(|d| d["code"] == code)
        .and_then(|d| d["severity"].as_str())
        .map(str::to_string)
}

/// The plan record of the first task in a JSON verdict.
fn plan(verdict: &Verdict) -> serde_json::Value {
    verdict.report.as_ref().expect("a JSON report")["tasks"][0]["contract"]["plan"].clone()
}

/// `git push` of `refspec` to the server as `pusher` (GitLab's variables).
fn push_as(forge: &Forge, pusher: &str, refspec: &str) -> Verdict {
    forge.receive_as(&[("GL_USERNAME", pusher), ("GL_ID", "user-7")], &[refspec])
}

#[test]
fn an_agents_new_task_is_no_plan_in_ci_and_pre_receive() {
    let Some((_keys, forge)) = team() else { return };
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "agent"]);
    // Any scope it likes, CI definitions included, its work, a passing
    // receipt and a complete report: everything but a planner.
    write_spec(
        repo,
        "001-a",
        &["src/a.py", "src/b.py", ".github/workflows/ci.yml"],
        "src/a.py",
        "alpha",
    );
    do_work(repo, "001-a", "src/a.py", "alpha");
    commit_as(repo, "task a", FORGED, "2024-01-01T10:00:00");
    let github = forge.github_pull_request("origin/main", "agent", "agent-bot");
    github.expect(1, "GitHub: the agent's pull request");
    assert_eq!(severity(&github, "task_created").as_deref(), Some("error"));
    assert!(
        github
            .text
            .contains("by agent-bot (the actor, GITHUB_ACTOR)"),
        "the refusal names who the platform says planned it: {}",
        github.text
    );
    let gitlab = forge.gitlab_merge_request("main", "agent", "agent-bot");
    gitlab.expect(1, "GitLab: the agent's merge request");
    assert!(gitlab.has("task_created"), "{gitlab:?}");
    let received = push_as(&forge, "agent-bot", "agent:main");
    received.expect(1, "pre-receive of the agent's push to main");
    assert!(
        received.text.contains("error[task_created]"),
        "{}",
        received.text
    );
    // The planner's own pull request and push of the same change land.
    let planner = forge.github_pull_request("origin/main", "agent", "alice");
    planner.expect(0, "alice's pull request");
    assert_eq!(severity(&planner, "task_created").as_deref(), Some("note"));
    let landed = push_as(&forge, "alice", "agent:main");
    landed.expect(0, "alice's push");
}

#[test]
fn under_the_defaults_a_task_wrapped_around_untasked_code_is_refused() {
    // No rule at all: CI refuses untasked work by default...
    let forge = Forge::new(&[
        (".mastermind/hooks.yaml", "version: 1\n"),
        ("src/a.py", "a = 0\n"),
    ]);
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "agent"]);
    repo.write("src/a.py", "alpha\n");
    commit_as(repo, "untasked", AGENT, "2024-01-01T10:00:00");
    let untasked = forge.github_pull_request("origin/main", "agent", "agent-bot");
    untasked.expect(1, "untasked code");
    assert!(untasked.has("task_required"), "{untasked:?}");
    // ...and a spec the agent writes around the same code changes nothing.
    write_spec(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    verify(repo, "001-a");
    write_report(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    commit_as(repo, "wrap it in a task", AGENT, "2024-01-01T11:00:00");
    let wrapped = forge.github_pull_request("origin/main", "agent", "agent-bot");
    wrapped.expect(1, "the same code in a task the agent planned");
    assert_eq!(severity(&wrapped, "task_created").as_deref(), Some("error"));
    assert!(
        wrapped.text.contains("planning.default unset"),
        "{}",
        wrapped.text
    );
    push_as(&forge, "agent-bot", "agent:main").expect(1, "pre-receive");
    // The local hooks only warn, and say what CI will do.
    repo.git(&["checkout", "-q", "-b", "local", "main"]);
    write_spec(repo, "002-b", &["src/a.py"], "src/a.py", "beta");
    repo.git(&["add", "-A"]);
    let staged = verdict(&repo.run(&["check", "--staged", "--format", "json"], None));
    staged.expect(0, "pre-commit");
    assert_eq!(
        severity(&staged, "task_created").as_deref(),
        Some("warning")
    );
    assert!(
        staged.text.contains("CI and pre-receive refuse it"),
        "{}",
        staged.text
    );
}

#[test]
fn a_plan_then_the_work_in_two_changes() {
    let Some((_keys, forge)) = team() else { return };
    let repo = &forge.work;
    // 1. alice's plan, alone: CI of her pull request, pre-receive of her
    //    push.
    repo.git(&["checkout", "-q", "-b", "plan"]);
    write_spec(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    commit_as(repo, "plan 001-a", ALICE, "2024-01-01T10:00:00");
    let ci = forge.github_pull_request("origin/main", "plan", "alice");
    ci.expect(0, "alice's plan");
    assert!(ci.has("task_planned"), "{ci:?}");
    assert_eq!(plan(&ci)["origin"], "new");
    assert!(
        plan(&ci)["by"]
            .as_str()
            .unwrap()
            .contains("alice (the actor"),
        "{}",
        plan(&ci)
    );
    push_as(&forge, "alice", "plan:main").expect(0, "the plan lands");
    // 2. the agent's work under it: the plan is not the agent's to
    //    change, and it does not.
    repo.git(&["checkout", "-q", "-b", "work", "origin/main"]);
    do_work(repo, "001-a", "src/a.py", "alpha");
    commit_as(repo, "do 001-a", AGENT, "2024-01-01T11:00:00");
    let work = forge.github_pull_request("origin/main", "work", "agent-bot");
    work.expect(0, "the agent's work");
    assert!(!work.has("task_created"), "{work:?}");
    assert_eq!(plan(&work)["origin"], "landed");
    let gitlab = forge.gitlab_merge_request("main", "work", "agent-bot");
    gitlab.expect(0, "GitLab: the agent's work");
    push_as(&forge, "agent-bot", "work:main").expect(0, "pre-receive of the work");
}

#[test]
fn a_plan_then_the_work_in_one_change_with_a_signed_planning_commit() {
    let Some((keys, forge)) = team() else { return };
    let repo = &forge.work;
    let alice = keys.key("alice");
    let eve = keys.key("eve");
    repo.git(&["checkout", "-q", "-b", "task"]);
    write_spec(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    let planned = commit_signed(repo, Some(&alice), ALICE, "plan 001-a");
    do_work(repo, "001-a", "src/a.py", "alpha");
    commit_signed(repo, None, AGENT, "do 001-a");
    let ci = forge.github_pull_request("origin/main", "task", "agent-bot");
    ci.expect(0, "the agent's pull request carrying alice's signed plan");
    assert_eq!(severity(&ci, "task_created").as_deref(), Some("note"));
    assert!(
        plan(&ci)["by"]
            .as_str()
            .unwrap()
            .contains("alice@example.com (the signer"),
        "{}",
        plan(&ci)
    );
    // The job summary says who planned the task and what it grants.
    let summary_dir = tempfile::tempdir().unwrap();
    let summary = summary_dir.path().join("summary.md");
    std::fs::write(&summary, "").unwrap();
    let event_dir = tempfile::tempdir().unwrap();
    let event = event_dir.path().join("event.json");
    let sha = |rev: &str| repo.git(&["rev-parse", rev]).trim().to_string();
    std::fs::write(
        &event,
        serde_json::json!({"pull_request": {
            "base": {"ref": "main", "sha": sha("origin/main")},
            "head": {"ref": "task", "sha": sha("task")},
            "user": {"login": "agent-bot"}},
            "repository": {"default_branch": "main"}})
        .to_string(),
    )
    .unwrap();
    let github = repo.run_env(
        &["check", "--ci", "--format", "github"],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_EVENT_PATH", event.to_str().unwrap()),
            ("GITHUB_ACTOR", "agent-bot"),
            ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
        ],
    );
    assert_eq!(github.status.code(), Some(0));
    let markdown = std::fs::read_to_string(&summary).unwrap();
    assert!(
        markdown.contains("| task | plan | planned by | grants |")
            && markdown.contains("alice@example.com (the signer")
            && markdown.contains("touches: src/a.py; checks: unit"),
        "{markdown}"
    );
    let honest = repo.head();

    // The agent widening the spec in its own commit makes that commit a
    // planning step, and it is nobody's plan.
    repo.git(&["reset", "-q", "--hard", &planned]);
    write_spec(
        repo,
        "001-a",
        &["src/a.py", "src/b.py"],
        "src/a.py",
        "alpha",
    );
    repo.write("src/a.py", "alpha\n");
    repo.write("src/b.py", "b = 1\n");
    verify(repo, "001-a");
    write_report(
        repo,
        "001-a",
        &["src/a.py", "src/b.py"],
        "src/a.py",
        "alpha",
    );
    commit_signed(repo, None, ALICE, "do 001-a, and a little more");
    let widened = forge.github_pull_request("origin/main", "task", "agent-bot");
    widened.expect(1, "the agent's own change of the plan");
    assert_eq!(severity(&widened, "task_created").as_deref(), Some("error"));
    // A plan signed with a key the allowed signers do not list (the
    // agent's own) is nobody's.
    repo.git(&["checkout", "-q", "-B", "task", "origin/main"]);
    write_spec(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    commit_signed(repo, Some(&eve), ALICE, "plan 001-a, signed by eve");
    let eves = forge.github_pull_request("origin/main", "task", "agent-bot");
    eves.expect(1, "a plan signed by a key nobody lists");
    assert!(
        eves.text
            .contains("a good signature by a key no allowed signer holds"),
        "{}",
        eves.text
    );
    push_as(&forge, "agent-bot", "task:main").expect(1, "pre-receive of eve's plan");
    // pre-receive of the honest change, pushed by the agent.
    repo.git(&["checkout", "-q", "-B", "task", &honest]);
    push_as(&forge, "agent-bot", "task:main").expect(0, "pre-receive of the same change");
}

#[test]
fn the_allowed_signers_file_cannot_ride_in_a_task() {
    let Some((keys, forge)) = team() else { return };
    let repo = &forge.work;
    let alice = keys.key("alice");
    let eve = keys.key("eve");
    // The agent's new task declares the allowed-signers file and lists its
    // own key under alice's name, every commit signed with that key.
    repo.git(&["checkout", "-q", "-b", "agent"]);
    write_spec(
        repo,
        "001-a",
        &["src/a.py", ".mastermind/allowed_signers"],
        "src/a.py",
        "alpha",
    );
    repo.write("src/a.py", "alpha\n");
    let listed = format!(
        "{}{}",
        allowed_line("alice@example.com", &alice),
        allowed_line("alice@example.com", &eve)
    );
    repo.write(".mastermind/allowed_signers", &listed);
    verify(repo, "001-a");
    write_report(
        repo,
        "001-a",
        &["src/a.py", ".mastermind/allowed_signers"],
        "src/a.py",
        "alpha",
    );
    commit_signed(repo, Some(&eve), ALICE, "task a");
    let ci = forge.github_pull_request("origin/main", "agent", "agent-bot");
    ci.expect(1, "the agent's task carrying a key");
    assert_eq!(
        severity(&ci, "control_file_changed").as_deref(),
        Some("error")
    );
    assert!(
        ci.text
            .contains("a new key for alice@example.com (ssh-ed25519"),
        "the added key is listed as a loosening: {}",
        ci.text
    );
    push_as(&forge, "agent-bot", "agent:main").expect(1, "pre-receive");

    // Under alice's signed plan that declares the file, the agent's work
    // commit that adds its key is still no task's work.
    repo.git(&["checkout", "-q", "-B", "agent", "origin/main"]);
    write_spec(
        repo,
        "001-a",
        &["src/a.py", ".mastermind/allowed_signers"],
        "src/a.py",
        "alpha",
    );
    commit_signed(repo, Some(&alice), ALICE, "plan 001-a");
    repo.write(".mastermind/allowed_signers", &listed);
    do_work(repo, "001-a", "src/a.py", "alpha");
    commit_signed(repo, Some(&eve), AGENT, "do 001-a");
    let ci = forge.github_pull_request("origin/main", "agent", "agent-bot");
    ci.expect(1, "a key added under a planner's plan");
    assert_eq!(
        severity(&ci, "control_file_changed").as_deref(),
        Some("error")
    );
    assert!(!ci.has("unexpected_file"), "never task work: {ci:?}");
    assert_eq!(severity(&ci, "task_created").as_deref(), Some("note"));
    push_as(&forge, "agent-bot", "agent:main").expect(1, "pre-receive");
    // alice's own push of the same change lands, and says what it adds.
    let landed = push_as(&forge, "alice", "agent:main");
    landed.expect(0, "alice adds a key");
    assert!(landed.has("config_loosened"), "{}", landed.text);
}

#[test]
fn a_planner_widens_an_unstarted_task_on_its_own() {
    let Some((_keys, forge)) = team() else { return };
    let repo = &forge.work;
    // alice plans a task with `task new` and lands it (its report is the
    // skeleton `task new` writes).
    repo.git(&["checkout", "-q", "-b", "plan"]);
    task_new(repo, "fix", "src/a.py", "grep -q alpha src/a.py");
    commit_as(repo, "plan fix", ALICE, "2024-01-01T10:00:00");
    push_as(&forge, "alice", "plan:main").expect(0, "the plan lands");
    // She widens it with the route `task widen` prints: the spec alone.
    repo.git(&["checkout", "-q", "-b", "widen", "origin/main"]);
    let widen = repo.run(&["task", "widen", "fix", "--touches", "src/b.py"], None);
    let printed = crate::common::text(&widen);
    assert!(printed.contains("land it alone first"), "{printed}");
    repo.git(&["add", ".mastermind/tasks/fix/spec.md"]);
    commit_as(repo, "fix: declare src/b.py", ALICE, "2024-01-01T11:00:00");
    let ci = forge.github_pull_request("origin/main", "widen", "alice");
    ci.expect(0, "alice's wider spec");
    assert_eq!(severity(&ci, "spec_widened").as_deref(), Some("note"));
    assert!(ci.has("task_planned"), "{ci:?}");
    assert!(!ci.has("executor_report_unfilled"), "{ci:?}");
    assert_eq!(plan(&ci)["origin"], "widened");
    // The agent's same change is refused.
    let agents = forge.github_pull_request("origin/main", "widen", "agent-bot");
    agents.expect(1, "the agent's wider spec");
    assert_eq!(severity(&agents, "spec_widened").as_deref(), Some("error"));
    push_as(&forge, "agent-bot", "widen:main").expect(1, "pre-receive, the agent");
    push_as(&forge, "alice", "widen:main").expect(0, "pre-receive, alice");
    // The agent's work under the wider plan.
    repo.git(&["checkout", "-q", "-b", "work", "origin/main"]);
    repo.write("src/a.py", "alpha\n");
    repo.write("src/b.py", "b = 1\n");
    let run = repo.run(
        &[
            "verification",
            "run",
            ".mastermind/tasks/fix/spec.md",
            "--all",
            "--quiet",
        ],
        None,
    );
    assert_eq!(run.status.code(), Some(0), "{}", crate::common::text(&run));
    let report = ".mastermind/tasks/fix/executor-report.md";
    repo.write(
        report,
        "# Executor report: fix\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: .mastermind/tasks/fix/spec.md\nstatus: complete\nphases: []\nfiles_modified:\n  - src/a.py\n  - src/b.py\nclaims: []\ndefects: []\nverifications:\n  - cmd: grep -q alpha src/a.py\n    result: pass\n    observed:\n      exit_code: 0\n```\n<!-- mastermind:report-end -->\n",
    );
    commit_as(repo, "do fix", AGENT, "2024-01-01T12:00:00");
    forge
        .github_pull_request("origin/main", "work", "agent-bot")
        .expect(0, "the work under the wider plan");
    push_as(&forge, "agent-bot", "work:main").expect(0, "pre-receive of the work");
}

#[test]
fn a_copied_or_renamed_task_is_planning_even_where_anyone_may_start_one() {
    let forge = Forge::new(&[
        (
            ".mastermind/hooks.yaml",
            "planning:\n  new_tasks: anyone\n  rules:\n    - action: allow\n      actors: [alice]\n",
        ),
        ("src/a.py", "a = 0\n"),
        ("src/b.py", "b = 0\n"),
    ]);
    let repo = &forge.work;
    // alice's finished task 001-a on main.
    repo.git(&["checkout", "-q", "-b", "done"]);
    do_task(repo, "001-a", "src/a.py", "alpha");
    commit_as(repo, "task a", ALICE, "2024-01-01T10:00:00");
    forge.push_unjudged(&["done:main"]);
    repo.git(&["fetch", "-q", "origin"]);
    // Anyone may start a new task here.
    repo.git(&["checkout", "-q", "-b", "new", "origin/main"]);
    do_task(repo, "002-b", "src/b.py", "beta");
    commit_as(repo, "task b", AGENT, "2024-01-01T11:00:00");
    let fresh = forge.github_pull_request("origin/main", "new", "agent-bot");
    fresh.expect(0, "a new task, where anyone may start one");
    assert_eq!(severity(&fresh, "task_created").as_deref(), Some("note"));
    // A copy of the finished task, to do more work under its plan.
    repo.git(&["checkout", "-q", "-b", "copy", "origin/main"]);
    let copy = ".mastermind/tasks/001-a-again";
    std::fs::create_dir_all(repo.path().join(copy)).unwrap();
    std::fs::copy(
        repo.path().join(".mastermind/tasks/001-a/spec.md"),
        repo.path().join(format!("{copy}/spec.md")),
    )
    .unwrap();
    repo.write("src/a.py", "alpha again\n");
    let report = std::fs::read_to_string(
        repo.path()
            .join(".mastermind/tasks/001-a/executor-report.md"),
    )
    .unwrap()
    .replace(".mastermind/tasks/001-a/", &format!("{copy}/"));
    repo.write(&format!("{copy}/executor-report.md"), &report);
    let run = repo.run(
        &[
            "verification",
            "run",
            &format!("{copy}/spec.md"),
            "--id",
            "unit",
        ],
        None,
    );
    assert_eq!(run.status.code(), Some(0), "{}", crate::common::text(&run));
    commit_as(
        repo,
        "more work under a copied plan",
        AGENT,
        "2024-01-01T12:00:00",
    );
    let copied = forge.github_pull_request("origin/main", "copy", "agent-bot");
    copied.expect(1, "a copied plan");
    assert_eq!(severity(&copied, "task_copied").as_deref(), Some("error"));
    assert!(
        copied
            .text
            .contains("copied from task .mastermind/tasks/001-a"),
        "{}",
        copied.text
    );
    // A rename (git mv) of the finished task, with new work.
    repo.git(&["checkout", "-q", "-b", "rename", "origin/main"]);
    repo.git(&[
        "mv",
        ".mastermind/tasks/001-a",
        ".mastermind/tasks/001-a-renamed",
    ]);
    commit_as(repo, "rename 001-a", AGENT, "2024-01-01T13:00:00");
    let renamed = forge.github_pull_request("origin/main", "rename", "agent-bot");
    renamed.expect(1, "a renamed plan");
    assert!(
        renamed.text.contains(
            "renamed from (this change removes the original folder of) task .mastermind/tasks/001-a"
        ),
        "{}",
        renamed.text
    );
    let alices = forge.github_pull_request("origin/main", "rename", "alice");
    assert_eq!(
        severity(&alices, "task_copied").as_deref(),
        Some("note"),
        "alice may rename it (its report and receipts still name the old folder): {alices:?}"
    );
}

#[test]
fn a_control_file_in_a_tasks_scope_is_still_a_planners_to_change() {
    let forge = Forge::new(&[
        (
            ".mastermind/hooks.yaml",
            "planning:\n  rules:\n    - action: allow\n      actors: [alice]\n    - action: allow\n      pushers: [alice]\n",
        ),
        ("src/a.py", "a = 0\n"),
        (".github/workflows/ci.yml", "on: [pull_request]\n"),
        ("CODEOWNERS", "* @alice\n"),
    ]);
    let repo = &forge.work;
    // alice's plan (landed) lets the task change the workflow and the code
    // owners.
    repo.git(&["checkout", "-q", "-b", "plan"]);
    write_spec(
        repo,
        "001-a",
        &["src/a.py", ".github/workflows/ci.yml", "CODEOWNERS"],
        "src/a.py",
        "alpha",
    );
    commit_as(repo, "plan 001-a", ALICE, "2024-01-01T10:00:00");
    push_as(&forge, "alice", "plan:main").expect(0, "the plan");
    repo.git(&["checkout", "-q", "-b", "work", "origin/main"]);
    repo.write("src/a.py", "alpha\n");
    repo.write(".github/workflows/ci.yml", "on: [workflow_dispatch]\n");
    repo.write("CODEOWNERS", "* @agent-bot\n");
    verify(repo, "001-a");
    write_report(
        repo,
        "001-a",
        &["src/a.py", ".github/workflows/ci.yml", "CODEOWNERS"],
        "src/a.py",
        "alpha",
    );
    commit_as(repo, "do 001-a", AGENT, "2024-01-01T11:00:00");
    let agent = forge.github_pull_request("origin/main", "work", "agent-bot");
    agent.expect(1, "the agent changes the pipeline and the owners");
    let refused: Vec<&str> = agent.report.as_ref().unwrap()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "control_file_changed" && d["severity"] == "error")
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        refused,
        [".github/workflows/ci.yml", "CODEOWNERS"],
        "{agent:?}"
    );
    assert!(!agent.has("unexpected_file"), "{agent:?}");
    assert!(!agent.has("missing_expected_file"), "{agent:?}");
    push_as(&forge, "agent-bot", "work:main").expect(1, "pre-receive, the agent");
    // The same change is alice's to make.
    forge
        .github_pull_request("origin/main", "work", "alice")
        .expect(0, "alice's pull request");
    push_as(&forge, "alice", "work:main").expect(0, "alice's push");
}

#[test]
fn a_plan_on_a_branch_that_is_not_protected_is_work_in_progress() {
    let Some((_keys, forge)) = team() else { return };
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(repo, "001-a", "src/a.py", "alpha");
    commit_as(repo, "task a", AGENT, "2024-01-01T10:00:00");
    // Pushed to its own branch: not landing yet, a warning.
    let parked = push_as(&forge, "agent-bot", "feature");
    parked.expect(0, "the agent's branch");
    assert!(
        parked.text.contains("warning[task_created]"),
        "{}",
        parked.text
    );
    assert!(parked.text.contains("not landing yet"), "{}", parked.text);
    // Where it lands on main, one verdict: CI of the pull request, and
    // pre-receive of the merge GitHub Enterprise pushes (the merger and the
    // pull request's author).
    forge
        .github_pull_request("origin/main", "origin/feature", "agent-bot")
        .expect(1, "CI of the pull request");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&[
        "merge",
        "-q",
        "--no-ff",
        "--no-verify",
        "-m",
        "Merge pull request #1",
        "feature",
    ]);
    let merged = forge.receive_as(
        &[
            ("GITHUB_USER_LOGIN", "alice"),
            ("GITHUB_PULL_REQUEST_AUTHOR_LOGIN", "agent-bot"),
        ],
        &["main"],
    );
    merged.expect(1, "pre-receive of the merge alice pushes");
    assert!(
        merged.text.contains("error[task_created]"),
        "{}",
        merged.text
    );
}
