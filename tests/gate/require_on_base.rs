//! `specs.require_on_base: true`: the plan lands before the work. A change
//! that brings only a task's plan (its spec, state and report skeleton, no
//! content) lands when a planner the planning rules allow makes it; work on
//! a spec that is not on the protected branch is refused. The planning
//! rules here allow the planner by what GitHub's pull request event and
//! GitLab's server say: an agent's plan-only change is no plan.

use crate::common::landing::*;
use crate::common::tasks::*;

const HUMAN: &str = "Human <human@example.invalid>";

fn forge() -> Forge {
    let forge = Forge::new(&[("src/a.py", "a = 0\n"), ("src/b.py", "b = 0\n")]);
    forge.work.write(
        ".mastermind/hooks.yaml",
        "specs:\n  require_on_base: true\nuntasked:\n  default: allow\nplanning:\n  rules:\n    - action: allow\n      actors: [planner]\n    - action: allow\n      pushers: [planner]\n",
    );
    commit_as(
        &forge.work,
        "plans land first",
        HUMAN,
        "2024-01-01T09:00:00",
    );
    forge.receive(&["main"]).expect(0, "the policy");
    forge
}

/// Every mode on what is in the working tree, committed as `branch`, as
/// `who` (the pull request's author in CI, the pusher in pre-receive).
fn every_mode(forge: &Forge, branch: &str, who: &str) -> Vec<(&'static str, Verdict)> {
    let repo = &forge.work;
    repo.git(&["add", "-A"]);
    let staged = verdict(&repo.run(&["check", "--staged", "--format", "json"], None));
    vec![
        ("pre-commit", staged),
        ("check --ci", {
            commit_as(repo, branch, HUMAN, "2024-01-01T10:00:00");
            forge.github_pull_request("origin/main", branch, who)
        }),
        ("pre-push", forge.pre_push(branch, "heads/main")),
        (
            "pre-receive",
            forge.receive_as(&[("GL_USERNAME", who)], &[&format!("{branch}:main")]),
        ),
    ]
}

#[test]
fn the_plan_lands_first_then_the_work() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "plan"]);
    write_spec(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.write(".mastermind/tasks/001-a/state.json", "{}\n");
    for (mode, verdict) in every_mode(&forge, "plan", "planner") {
        verdict.expect(0, &format!("{mode}: the plan alone"));
        assert!(!verdict.has("spec_not_on_base"), "{mode}: {verdict:?}");
        assert!(verdict.has("task_planned"), "{mode}: {verdict:?}");
    }
    // The work on the landed plan, by anyone (the agent): the plan is not
    // theirs to change, and they do not.
    repo.git(&["checkout", "-q", "-b", "work"]);
    do_work(repo, "001-a", "src/a.py", "alpha");
    for (mode, verdict) in every_mode(&forge, "work", "agent-bot") {
        verdict.expect(0, &format!("{mode}: the work"));
        assert!(!verdict.has("task_created"), "{mode}: {verdict:?}");
    }
}

#[test]
fn an_agents_plan_alone_is_no_plan() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "plan"]);
    // The agent plans a task over the CI definition and the code.
    write_spec(
        repo,
        "001-a",
        &["src/a.py", ".github/workflows/ci.yml"],
        "src/a.py",
        "alpha",
    );
    for (mode, verdict) in every_mode(&forge, "plan", "agent-bot") {
        assert!(verdict.has("task_created"), "{mode}: {verdict:?}");
        match mode {
            // The local hooks warn, naming what CI and pre-receive decide.
            "pre-commit" | "pre-push" => {
                verdict.expect(0, mode);
                assert!(
                    verdict.text.contains("CI and pre-receive refuse it unless"),
                    "{mode}: {}",
                    verdict.text
                );
            }
            _ => verdict.expect(1, mode),
        }
    }
}

#[test]
fn work_on_a_spec_that_is_not_on_the_protected_branch_is_refused() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "both"]);
    do_task(repo, "002-b", "src/b.py", "beta");
    for (mode, verdict) in every_mode(&forge, "both", "planner") {
        verdict.expect(1, mode);
        assert!(verdict.has("spec_not_on_base"), "{mode}: {verdict:?}");
    }
}
