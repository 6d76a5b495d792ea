//! `actors`: who runs a CI gate, from the platform's variables and event
//! data (GitHub `GITHUB_ACTOR`, `GITHUB_TRIGGERING_ACTOR` and the pull
//! request's `user.login`; GitLab `GITLAB_USER_LOGIN`), never from the
//! commits; and `branches` as the target branch in CI, with
//! `source_branches` for the name whoever pushes chooses.

use crate::common::{TestRepo, codes, json, status, text};
use std::process::Output;

const ALLOW_MAINTAINER: &str =
    "untasked:\n  rules:\n    - action: allow\n      actors: [maintainer]\n";

/// main with `config`, and a branch `branch` with one untasked commit.
fn change(config: &str, branch: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/lib.py", "x = 1\n");
    repo.write(".mastermind/hooks.yaml", config);
    repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", branch]);
    repo.write("src/lib.py", "x = 2\n");
    repo.commit_all("untasked work");
    repo
}

fn sha(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["rev-parse", rev]).trim().to_string()
}

/// `check --ci` as GitHub Actions runs it for a pull request from `branch`
/// into main opened by `author`, with `GITHUB_ACTOR` and
/// `GITHUB_TRIGGERING_ACTOR` as given.
fn github(
    repo: &TestRepo,
    branch: &str,
    author: &str,
    actor: &str,
    triggering: &str,
    extra: &[(&str, &str)],
) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let event = dir.path().join("event.json");
    let payload = serde_json::json!({
        "pull_request": {
            "base": {"sha": sha(repo, "main"), "ref": "main"},
            "head": {"sha": sha(repo, branch), "ref": branch},
            "user": {"login": author},
        },
        "repository": {"default_branch": "main"},
    });
    std::fs::write(&event, payload.to_string()).unwrap();
    let mut env = vec![
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_NAME", "pull_request"),
        ("GITHUB_EVENT_PATH", event.to_str().unwrap()),
        ("GITHUB_ACTOR", actor),
        ("GITHUB_TRIGGERING_ACTOR", triggering),
    ];
    env.extend_from_slice(extra);
    repo.run_env(&["check", "--ci", "--format", "json"], &env)
}

/// `check --ci` as a GitLab merge request pipeline started by `user`.
fn gitlab(repo: &TestRepo, branch: &str, user: &str) -> Output {
    // A detached pipeline lands on the target branch's tip, which GitLab's
    // clone has as `origin/main`.
    repo.git(&["update-ref", "refs/remotes/origin/main", "main"]);
    let base = sha(repo, "main");
    let head = sha(repo, branch);
    repo.run_env(
        &["check", "--ci", "--format", "json"],
        &[
            ("GITLAB_CI", "true"),
            ("CI_PIPELINE_SOURCE", "merge_request_event"),
            ("CI_MERGE_REQUEST_EVENT_TYPE", "detached"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", &base),
            ("CI_COMMIT_SHA", &head),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main"),
            ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", branch),
            ("GITLAB_USER_LOGIN", user),
        ],
    )
}

fn passes(output: &Output, why: &str) {
    assert_eq!(status(output), 0, "{why}: {}", text(output));
}

fn refused(output: &Output, why: &str) {
    assert_eq!(status(output), 1, "{why}: {}", text(output));
    let report = json(output);
    assert!(
        codes(&report).contains(&"task_required".to_string()),
        "{why}: {report}"
    );
}

/// The hint of the first `task_required` finding.
fn hint(output: &Output) -> String {
    let report = json(output);
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "task_required")
        .and_then(|d| d["hint"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn github_actors_and_the_pull_request_author_are_who_the_rules_see() {
    let repo = change(ALLOW_MAINTAINER, "feature");
    passes(
        &github(
            &repo,
            "feature",
            "maintainer",
            "maintainer",
            "maintainer",
            &[],
        ),
        "the maintainer's own pull request",
    );
    let agent = github(&repo, "feature", "agent-bot", "agent-bot", "agent-bot", &[]);
    refused(&agent, "an agent's pull request");
    assert!(
        hint(&agent).contains("actors: [\"agent-bot\"]"),
        "the refusal names the rule to add: {}",
        hint(&agent)
    );
    refused(
        &github(
            &repo,
            "feature",
            "agent-bot",
            "agent-bot",
            "maintainer",
            &[],
        ),
        "the maintainer re-running the agent's pull request does not make it theirs",
    );
    refused(
        &github(
            &repo,
            "feature",
            "maintainer",
            "agent-bot",
            "agent-bot",
            &[],
        ),
        "an agent pushing to the maintainer's pull request",
    );
}

#[test]
fn gitlab_names_who_started_the_pipeline() {
    let repo = change(ALLOW_MAINTAINER, "feature");
    passes(
        &gitlab(&repo, "feature", "maintainer"),
        "the maintainer's pipeline",
    );
    let agent = gitlab(&repo, "feature", "agent-bot");
    refused(&agent, "the agent's pipeline");
    assert!(
        hint(&agent).contains("actors: [\"agent-bot\"]"),
        "{}",
        hint(&agent)
    );
}

#[test]
fn forged_authors_committers_trailers_and_branch_names_make_nobody_an_actor() {
    let repo = change(ALLOW_MAINTAINER, "maintainer/hotfix");
    repo.write("src/lib.py", "x = 'forged'\n");
    repo.git(&["add", "-A"]);
    let mut commit = repo.command("git");
    commit
        .args([
            "commit",
            "-q",
            "--author",
            "maintainer <maintainer@example.com>",
            "-m",
            "The maintainer's fix\n\nCo-authored-by: maintainer <maintainer@example.com>\nSigned-off-by: maintainer <maintainer@example.com>",
        ])
        .env("GIT_COMMITTER_NAME", "maintainer")
        .env("GIT_COMMITTER_EMAIL", "maintainer@example.com");
    assert!(commit.output().unwrap().status.success());
    refused(
        &github(
            &repo,
            "maintainer/hotfix",
            "agent-bot",
            "agent-bot",
            "agent-bot",
            &[],
        ),
        "the commits say maintainer; the platform says agent-bot",
    );
    refused(
        &gitlab(&repo, "maintainer/hotfix", "agent-bot"),
        "the same on GitLab",
    );
}

#[test]
fn outside_a_platform_no_actor_is_known() {
    let repo = change(ALLOW_MAINTAINER, "feature");
    let output = repo.run(
        &[
            "check", "--ci", "--base", "main", "--head", "feature", "--format", "json",
        ],
        None,
    );
    refused(&output, "by hand, nobody vouches for an actor");
}

#[test]
fn branches_is_the_target_branch_in_ci() {
    // The recipe the issue found broken: a rule for hotfix branches was
    // satisfied by naming the pull request's branch hotfix/x.
    let repo = change(
        "untasked:\n  rules:\n    - action: allow\n      branches: ['hotfix/*']\n",
        "hotfix/x",
    );
    refused(
        &github(
            &repo,
            "hotfix/x",
            "agent-bot",
            "agent-bot",
            "agent-bot",
            &[],
        ),
        "the pull request targets main, whatever its branch is called",
    );
    // A deny rule on the target fires in CI.
    let repo = change(
        "untasked:\n  default: allow\n  rules:\n    - action: deny\n      branches: [main]\n",
        "feature",
    );
    refused(
        &github(
            &repo,
            "feature",
            "maintainer",
            "maintainer",
            "maintainer",
            &[],
        ),
        "a change landing on main",
    );
    // source_branches is the name the pusher chose: anyone can match it.
    let repo = change(
        "untasked:\n  rules:\n    - action: allow\n      source_branches: ['hotfix/*']\n",
        "hotfix/x",
    );
    passes(
        &github(
            &repo,
            "hotfix/x",
            "agent-bot",
            "agent-bot",
            "agent-bot",
            &[],
        ),
        "source_branches matches the branch whoever pushed named",
    );
    passes(
        &gitlab(&repo, "hotfix/x", "agent-bot"),
        "the same on GitLab",
    );
}
