//! Where work lands (DESIGN.md section 5): the protected branches are the
//! default branch and the globs of `protected_branches`; pre-receive,
//! pre-push and CI are strict wherever a push or a merge lands on one, and
//! every other branch is work in progress, for anyone's work: unfinished
//! tasks and untasked changes are warnings there, never a rejected push.
//! Real pushes to a bare repository whose pre-receive hook is the gate
//! (`install --server`), pre-push fed git's lines, and `check --ci` with a
//! platform's event data.

use crate::common::landing::*;
use crate::common::tasks::*;
use crate::common::{TestRepo, text};
use serde_json::{Value, json};

const AGENT: &str = "Agent <agent@example.invalid>";

/// git-flow: main, develop and release branches are protected.
const GIT_FLOW: &str = "protected_branches: [main, develop, 'release/*']\n";

/// A server whose `HEAD` is `develop` (git-flow), with `main`, `develop` and
/// `release/1.x` at the first commit, judged by `policy` (untasked work
/// allowed, so what is judged below is the unfinished task).
fn git_flow(policy: &str) -> Forge {
    let forge = Forge::new(&[
        (
            ".mastermind/hooks.yaml",
            &format!("{ALLOW_UNTASKED}{policy}"),
        ),
        ("src/a.py", "a = 0\n"),
    ]);
    let work = &forge.work;
    work.git(&["checkout", "-q", "-b", "develop"]);
    forge.receive(&["develop"]).expect(0, "develop");
    work.git(&["branch", "release/1.x", "develop"]);
    forge.receive(&["release/1.x"]).expect(0, "release/1.x");
    forge.server.git(&[
        "-C",
        forge.bare().to_str().unwrap(),
        "symbolic-ref",
        "HEAD",
        "refs/heads/develop",
    ]);
    forge
}

/// A task half done (spec and edit; no receipt, no report) committed on
/// a branch `feature` from develop.
fn unfinished(forge: &Forge) {
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "feature", "develop"]);
    write_spec(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.write("src/a.py", "alpha\n");
    commit_as(repo, "wip: task a", AGENT, "2024-01-01T10:00:00");
}

/// `check --ci` on GitHub Actions with `payload` as the event `name`.
fn github(repo: &TestRepo, name: &str, payload: Value) -> Verdict {
    let dir = tempfile::tempdir().unwrap();
    let event = dir.path().join("event.json");
    std::fs::write(&event, payload.to_string()).unwrap();
    verdict(&repo.run_env(
        &["check", "--ci", "--format", "json"],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", name),
            ("GITHUB_EVENT_PATH", event.to_str().unwrap()),
        ],
    ))
}

/// A GitHub pull request of `head` into `base` on a repository whose
/// default branch is `default`.
fn pull_request(repo: &TestRepo, base: &str, head: &str, default: &str) -> Verdict {
    let sha = |rev: &str| repo.git(&["rev-parse", rev]).trim().to_string();
    github(
        repo,
        "pull_request",
        json!({
            "pull_request": {
                "base": {"sha": sha(base), "ref": base},
                "head": {"sha": sha(head), "ref": head},
                "user": {"login": "someone"}
            },
            "repository": {"default_branch": default}
        }),
    )
}

/// A GitHub push of `branch` from `before` on a repository whose default
/// branch is `default`.
fn pushed(repo: &TestRepo, branch: &str, before: &str, default: &str) -> Verdict {
    let sha = |rev: &str| repo.git(&["rev-parse", rev]).trim().to_string();
    github(
        repo,
        "push",
        json!({
            "ref": format!("refs/heads/{branch}"),
            "before": sha(before),
            "after": sha(branch),
            "repository": {"default_branch": default}
        }),
    )
}

/// The severity of the first finding with `code` in a JSON report.
fn severity(verdict: &Verdict, code: &str) -> String {
    let report = verdict.report.as_ref().expect("a JSON report");
    let mut all: Vec<&Value> = report["diagnostics"].as_array().unwrap().iter().collect();
    for task in report["tasks"].as_array().unwrap() {
        for check in task["checks"].as_array().unwrap() {
            all.extend(check["diagnostics"].as_array().unwrap());
        }
    }
    all.into_iter()
        .find(|d| d["code"] == code)
        .and_then(|d| d["severity"].as_str())
        .unwrap_or_else(|| panic!("no {code}: {report}"))
        .to_string()
}

#[test]
fn a_git_flow_server_refuses_unfinished_work_pushed_to_main_or_a_release_branch() {
    let forge = git_flow(GIT_FLOW);
    unfinished(&forge);
    let repo = &forge.work;

    // The feature branch itself is work in progress, in every mode.
    for (mode, verdict) in [
        (
            "pre-push of feature",
            forge.pre_push("feature", "heads/feature"),
        ),
        ("pre-receive of feature", forge.receive(&["feature"])),
        (
            "CI of the push of feature",
            pushed(repo, "feature", "develop", "develop"),
        ),
    ] {
        verdict.expect(0, mode);
        assert!(verdict.has("work_in_progress"), "{mode}: {verdict:?}");
    }

    // Straight to main, to the existing release branch, to a new one, and
    // as a pull request into either: strict.
    for (mode, verdict) in [
        ("pre-push to main", forge.pre_push("feature", "heads/main")),
        (
            "pre-push to release/1.x",
            forge.pre_push("feature", "heads/release/1.x"),
        ),
        ("pre-receive of main", forge.receive(&["feature:main"])),
        (
            "pre-receive of release/1.x",
            forge.receive(&["feature:refs/heads/release/1.x"]),
        ),
        (
            "pre-receive of a new release/2.x",
            forge.receive(&["feature:refs/heads/release/2.x"]),
        ),
        (
            "CI of a pull request into release/1.x",
            pull_request(repo, "release/1.x", "feature", "develop"),
        ),
        (
            "CI of a pull request into main",
            pull_request(repo, "main", "feature", "develop"),
        ),
        (
            "CI of a pull request into develop",
            pull_request(repo, "develop", "feature", "develop"),
        ),
    ] {
        verdict.expect(1, mode);
        assert!(verdict.has("receipt_missing"), "{mode}: {verdict:?}");
        assert!(!verdict.has("work_in_progress"), "{mode}: {verdict:?}");
    }

    // A pull request into another feature branch (stacked) is judged by
    // its target: work in progress.
    repo.git(&["branch", "feature-base", "develop"]);
    let stacked = pull_request(repo, "feature-base", "feature", "develop");
    stacked.expect(0, "CI of a pull request into a feature branch");
    assert!(stacked.has("work_in_progress"), "{stacked:?}");
    assert!(
        stacked
            .text
            .contains("the target branch feature-base of this change request is neither the default branch develop nor one of protected_branches (main, develop, release/*)"),
        "{}",
        stacked.text
    );

    // GitLab: a merge request by its target branch too.
    let merge_request = |target: &str| {
        let sha = |rev: &str| repo.git(&["rev-parse", rev]).trim().to_string();
        forge.ci_env(
            "",
            "",
            &[
                ("GITLAB_CI", "true"),
                ("CI_DEFAULT_BRANCH", "develop"),
                ("CI_PIPELINE_SOURCE", "merge_request_event"),
                ("CI_MERGE_REQUEST_EVENT_TYPE", "merged_result"),
                ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", target),
                ("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", &sha(target)),
                ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "feature"),
                ("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", &sha("feature")),
                ("CI_COMMIT_SHA", &sha("feature")),
            ],
        )
    };
    let protected = merge_request("release/1.x");
    protected.expect(1, "a GitLab merge request into release/1.x");
    assert!(!protected.has("work_in_progress"), "{protected:?}");
    let stacked = merge_request("feature-base");
    stacked.expect(0, "a GitLab merge request into a feature branch");
    assert!(stacked.has("work_in_progress"), "{stacked:?}");

    // CI of a push to a release branch: strict too.
    repo.git(&["branch", "-f", "release/1.x", "develop"]);
    repo.git(&["checkout", "-q", "release/1.x"]);
    repo.git(&["merge", "-q", "--ff-only", "feature"]);
    let release = pushed(repo, "release/1.x", "develop", "develop");
    release.expect(1, "CI of a push to release/1.x");
    assert!(!release.has("work_in_progress"), "{release:?}");

    // Locally: pre-commit of another unfinished task warns on feature and
    // is strict on the release branch.
    repo.git(&["checkout", "-q", "feature"]);
    write_spec(repo, "002-b", &["src/b.py"], "src/b.py", "beta");
    repo.write("src/b.py", "beta\n");
    repo.git(&["add", "-A"]);
    let staged = || verdict(&repo.run(&["check", "--staged", "--format", "json"], None));
    let on_feature = staged();
    on_feature.expect(0, "pre-commit on feature");
    assert!(on_feature.has("work_in_progress"), "{on_feature:?}");
    repo.git(&["checkout", "-q", "release/1.x"]);
    let on_release = staged();
    on_release.expect(1, "pre-commit on release/1.x");
    assert!(!on_release.has("work_in_progress"), "{on_release:?}");
}

#[test]
fn by_default_only_the_default_branch_is_protected() {
    // The same server without the list: main is just another branch when
    // HEAD is develop, so unfinished work pushed there only warns, and
    // develop is strict.
    let forge = git_flow("");
    unfinished(&forge);
    for refspec in ["feature:main", "feature:refs/heads/release/1.x"] {
        let verdict = forge.receive(&[refspec]);
        verdict.expect(0, refspec);
        assert!(verdict.has("work_in_progress"), "{refspec}: {verdict:?}");
        assert!(
            verdict
                .text
                .contains("is not the default branch develop, the only protected branch"),
            "{}",
            verdict.text
        );
    }
    let develop = forge.receive(&["feature:develop"]);
    develop.expect(1, "pre-receive of develop");
    assert!(develop.has("receipt_missing"), "{develop:?}");
}

#[test]
fn a_teammates_untasked_branch_is_pushed_with_a_warning_and_refused_where_it_lands() {
    // The defaults: no allow rule, so CI and pre-receive refuse untasked
    // work where it lands.
    let forge = Forge::new(&[
        (".mastermind/hooks.yaml", "version: 1\n"),
        ("README.md", "# project\n"),
    ]);
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "docs/readme"]);
    repo.write("README.md", "# project\n\nHow to build it.\n");
    commit_as(
        repo,
        "docs: how to build",
        "Teammate <t@example.invalid>",
        "2024-01-01T10:00:00",
    );

    // On its branch: accepted, with the refusal it will meet as a warning.
    let received = forge.receive(&["docs/readme"]);
    received.expect(0, "pre-receive of the documentation branch");
    assert!(
        received.text.contains("warning[task_required]"),
        "{}",
        received.text
    );
    assert!(
        received
            .text
            .contains("so this is work in progress and a warning here: it is refused where it lands on a protected branch"),
        "{}",
        received.text
    );
    let pipeline = pushed(repo, "docs/readme", "main", "main");
    pipeline.expect(0, "CI of the push of the branch");
    assert_eq!(severity(&pipeline, "task_required"), "warning");
    forge
        .pre_push("docs/readme", "heads/docs/readme")
        .expect(0, "pre-push of the branch");

    // Where it lands: refused, in CI of its pull request and in pre-receive.
    let request = pull_request(repo, "main", "docs/readme", "main");
    request.expect(1, "CI of the pull request into main");
    assert_eq!(severity(&request, "task_required"), "error");
    let landed = forge.receive(&["docs/readme:main"]);
    landed.expect(1, "pre-receive of main");
    assert!(
        landed.text.contains("error[task_required]"),
        "{}",
        landed.text
    );

    // `work_in_progress: deny` on the protected branch: refused everywhere.
    let strict = Forge::new(&[
        (".mastermind/hooks.yaml", "work_in_progress: deny\n"),
        ("README.md", "# project\n"),
    ]);
    let repo = &strict.work;
    repo.git(&["checkout", "-q", "-b", "docs/readme"]);
    repo.write("README.md", "# project\n\nHow to build it.\n");
    commit_as(
        repo,
        "docs",
        "Teammate <t@example.invalid>",
        "2024-01-01T10:00:00",
    );
    let refused = strict.receive(&["docs/readme"]);
    refused.expect(1, "pre-receive of the branch with work_in_progress: deny");
    assert!(
        refused.text.contains("error[task_required]"),
        "{}",
        refused.text
    );
    assert!(
        !refused.text.contains("work in progress"),
        "{}",
        refused.text
    );
}

#[test]
fn dropping_a_protected_branch_is_a_loosening() {
    let forge = Forge::new(&[(
        ".mastermind/hooks.yaml",
        &format!("{ALLOW_UNTASKED}{GIT_FLOW}"),
    )]);
    let repo = &forge.work;
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("{ALLOW_UNTASKED}protected_branches: [main, develop]\n"),
    );
    repo.git(&["add", "-A"]);
    let out = repo.run(&["check", "--staged", "--format", "json"], None);
    let staged = verdict(&out);
    assert!(staged.has("config_loosened"), "{}", text(&out));
    assert!(
        staged
            .text
            .contains("protected_branches: release/* no longer protected"),
        "{}",
        staged.text
    );
}

#[test]
fn a_release_branch_trusts_its_own_content_as_the_default_branch_does() {
    // A task branched from release/1.x declares src/a.py and src/b.py and
    // changes src/a.py; meanwhile release/1.x (not main) moves src/b.py.
    // What lands on release/1.x is judged against release/1.x, in every
    // mode, as a pull request into it already was: the branch's own
    // content on a path the task had not changed is trusted there, as the
    // default branch's is where work lands on the default branch.
    let forge = Forge::new(&[
        (
            ".mastermind/hooks.yaml",
            &format!("{ALLOW_UNTASKED}protected_branches: ['release/*']\n"),
        ),
        ("src/a.py", "a = 0\n"),
        ("src/b.py", "b = 0\n"),
    ]);
    let repo = &forge.work;
    repo.git(&["branch", "release/1.x", "main"]);
    forge.receive(&["release/1.x"]).expect(0, "release/1.x");
    repo.git(&["checkout", "-q", "-b", "fix", "release/1.x"]);
    write_spec(
        repo,
        "001-fix",
        &["src/a.py", "src/b.py"],
        "src/a.py",
        "alpha",
    );
    do_work(repo, "001-fix", "src/a.py", "alpha");
    commit_as(repo, "fix a", AGENT, "2024-01-01T10:00:00");
    forge.receive(&["fix"]).expect(0, "the task's branch");

    repo.git(&["checkout", "-q", "release/1.x"]);
    repo.write("src/b.py", "b = 1\n");
    commit_as(
        repo,
        "release: b",
        "Maintainer <m@example.invalid>",
        "2024-01-01T11:00:00",
    );
    forge
        .receive(&["release/1.x"])
        .expect(0, "release/1.x moves src/b.py");
    let before = repo.git(&["rev-parse", "release/1.x"]).trim().to_string();

    let request = pull_request(repo, "release/1.x", "fix", "main");
    request.expect(0, "CI of the pull request into release/1.x");
    repo.git(&[
        "merge",
        "-q",
        "--no-ff",
        "--no-verify",
        "-m",
        "merge fix",
        "fix",
    ]);
    for (mode, verdict) in [
        (
            "pre-push of the merge to release/1.x",
            forge.pre_push("release/1.x", "heads/release/1.x"),
        ),
        (
            "CI of the push of release/1.x",
            pushed(repo, "release/1.x", &before, "main"),
        ),
        (
            "pre-receive of the merge to release/1.x",
            forge.receive(&["release/1.x"]),
        ),
    ] {
        verdict.expect(0, mode);
        assert!(
            !verdict.has("receipt_snapshot_changed"),
            "{mode}: {verdict:?}"
        );
        assert!(!verdict.has("work_in_progress"), "{mode}: {verdict:?}");
    }
}
