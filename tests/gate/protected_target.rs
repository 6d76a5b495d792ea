//! The configuration comes from the protected target as it is now, in
//! every mode: the target branch's tip for a merge request (GitLab's
//! detached pipelines included), the default branch's tip for a new branch
//! or tag. A ref with no history in common with the default branch is
//! refused unless the configuration allows it, and a repair of an invalid
//! configuration may fix it, never loosen it.

use crate::common::landing::*;
use crate::common::{TestRepo, codes, json, status, text};

const HUMAN: &str = "Human <human@example.invalid>";

fn forge() -> Forge {
    Forge::new(&[("src/a.py", "a = 0\n"), ("README.md", "# demo\n")])
}

/// A branch started before main required a task for every change (on every
/// branch: `work_in_progress: deny`), with an untasked change on it.
fn branch_before_the_policy(forge: &Forge) {
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/a.py", "a = 1\n");
    commit_as(repo, "untasked work", HUMAN, "2024-01-01T10:00:00");
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        ".mastermind/hooks.yaml",
        "require_task: true\nwork_in_progress: deny\n",
    );
    commit_as(repo, "require a task", HUMAN, "2024-01-01T11:00:00");
    forge.receive(&["main"]).expect(0, "the policy lands");
}

#[test]
fn a_gitlab_detached_merge_request_pipeline_reads_the_target_branchs_configuration() {
    let forge = forge();
    branch_before_the_policy(&forge);
    let fork = forge
        .work
        .git(&["merge-base", "main", "feature"])
        .trim()
        .to_string();
    forge.push_unjudged(&["feature"]);
    // GitLab clones the merge request's source; the target branch is not
    // in the clone until the gate fetches it.
    let ci = forge.clone(&["--single-branch", "--branch", "feature"]);
    assert!(
        !ci.git_output(&["rev-parse", "--verify", "-q", "refs/remotes/origin/main"])
            .status
            .success()
    );
    let head = ci.head();
    let out = ci.run_env(
        &["check", "--ci", "--format", "json"],
        &[
            ("GITLAB_CI", "true"),
            ("CI_PIPELINE_SOURCE", "merge_request_event"),
            ("CI_MERGE_REQUEST_EVENT_TYPE", "detached"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", &fork),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main"),
            ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "feature"),
            ("CI_COMMIT_SHA", &head),
        ],
    );
    let codes = codes(&json(&out));
    assert_eq!(status(&out), 1, "{codes:?}\n{}", text(&out));
    assert!(codes.iter().any(|c| c == "task_required"), "{codes:?}");
}

#[test]
fn a_new_branch_or_tag_takes_the_configuration_of_the_default_branchs_tip() {
    let forge = forge();
    branch_before_the_policy(&forge);
    let verdict = forge.pre_push("feature", "heads/feature");
    verdict.expect(1, "pre-push of a new branch");
    assert!(verdict.has("task_required"), "{verdict:?}");
    let verdict = forge.receive(&["feature"]);
    verdict.expect(1, "pre-receive of a new branch");
    assert!(verdict.has("task_required"), "{verdict:?}");
    forge.work.git(&["tag", "v1", "feature"]);
    let verdict = forge.pre_push("v1", "tags/v1");
    verdict.expect(1, "pre-push of a new tag");
    assert!(verdict.has("task_required"), "{verdict:?}");
    let verdict = forge.receive(&["v1"]);
    verdict.expect(1, "pre-receive of a new tag");
    assert!(verdict.has("task_required"), "{verdict:?}");
}

#[test]
fn a_history_unrelated_to_the_default_branch_is_refused_unless_configured() {
    let forge = forge();
    let repo = &forge.work;
    repo.write(".mastermind/hooks.yaml", "require_task: true\n");
    commit_as(repo, "require a task", HUMAN, "2024-01-01T09:00:00");
    forge.receive(&["main"]).expect(0, "the policy lands");
    repo.git(&["checkout", "-q", "--orphan", "pages"]);
    repo.git(&["rm", "-q", "-r", "--cached", "."]);
    std::fs::remove_dir_all(repo.path().join("src")).unwrap();
    std::fs::remove_dir_all(repo.path().join(".mastermind")).unwrap();
    repo.write("README.md", "# pages\n");
    commit_as(repo, "pages", HUMAN, "2024-01-01T10:00:00");
    for verdict in [
        forge.pre_push("pages", "heads/pages"),
        forge.receive(&["pages"]),
    ] {
        verdict.expect(1, "an unrelated history");
        assert!(verdict.has("ref_history_unrelated"), "{verdict:?}");
    }
    // Allowed by the default branch's configuration: judged by it.
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        ".mastermind/hooks.yaml",
        "refs:\n  allow_unrelated_histories: true\nuntasked:\n  default: allow\nplanning:\n  default: allow\n",
    );
    commit_as(
        repo,
        "allow unrelated histories",
        HUMAN,
        "2024-01-01T11:00:00",
    );
    // An administrator's change of the policy (under require_task, no
    // untasked change lands through the gate).
    forge.push_unjudged(&["main"]);
    for verdict in [
        forge.pre_push("pages", "heads/pages"),
        forge.receive(&["pages"]),
    ] {
        verdict.expect(0, "an allowed unrelated history");
    }
}

/// main: a valid configuration, then an invalid one that landed somehow.
fn broken(forge: &Forge) -> String {
    let repo = &forge.work;
    repo.write(".mastermind/hooks.yaml", "require_task: true\n");
    commit_as(repo, "require a task", HUMAN, "2024-01-01T09:00:00");
    repo.write(".mastermind/hooks.yaml", "require_task: maybe\n");
    commit_as(repo, "broken", HUMAN, "2024-01-01T10:00:00");
    forge.push_unjudged(&["main"]);
    repo.head()
}

/// Every mode on a one-commit repair of main's configuration: pre-commit,
/// CI, pre-push and pre-receive.
fn repair(forge: &Forge, main: &str, change: impl Fn(&TestRepo)) -> Vec<(&'static str, Verdict)> {
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-B", "repair", main]);
    change(repo);
    repo.git(&["add", "-A"]);
    let staged = verdict(&repo.run(&["check", "--staged", "--format", "json"], None));
    commit_as(repo, "repair", HUMAN, "2024-01-01T11:00:00");
    vec![
        ("pre-commit", staged),
        ("check --ci", forge.ci(main, "repair")),
        ("pre-push", forge.pre_push("repair", "heads/main")),
        ("pre-receive", forge.receive(&["repair:main"])),
    ]
}

#[test]
fn a_repair_of_an_invalid_configuration_may_fix_it_but_not_loosen_it() {
    let forge = forge();
    let main = broken(&forge);
    // Loosening: exclude everything.
    for (mode, verdict) in repair(&forge, &main, |repo| {
        repo.write(".mastermind/hooks.yaml", "exclude: [\"**\"]\n");
    }) {
        verdict.expect(1, mode);
        assert!(verdict.has("config_repair_loosened"), "{mode}: {verdict:?}");
    }
    // A deletion returns to the defaults, which loosen `require_task`.
    for (mode, verdict) in repair(&forge, &main, |repo| {
        repo.remove(".mastermind/hooks.yaml");
    }) {
        verdict.expect(1, mode);
        assert!(verdict.has("config_repair_loosened"), "{mode}: {verdict:?}");
    }
    // A repair that keeps what the last valid configuration asked for lands.
    for (mode, verdict) in repair(&forge, &main, |repo| {
        repo.write(".mastermind/hooks.yaml", "require_task: true\n");
    }) {
        verdict.expect(0, mode);
        assert!(verdict.has("config_repaired"), "{mode}: {verdict:?}");
    }
}
