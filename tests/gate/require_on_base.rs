//! `specs.require_on_base: true`: the plan lands before the work. A change
//! that brings only a task's plan (its spec, state and report skeleton, no
//! content) lands; work on a spec that is not on the protected branch is
//! refused.

use crate::common::landing::*;
use crate::common::tasks::*;

const HUMAN: &str = "Human <human@example.invalid>";

fn forge() -> Forge {
    let forge = Forge::new(&[("src/a.py", "a = 0\n"), ("src/b.py", "b = 0\n")]);
    forge.work.write(
        ".mastermind/hooks.yaml",
        "specs:\n  require_on_base: true\nuntasked:\n  default: allow\n",
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

fn every_mode(forge: &Forge, branch: &str) -> Vec<(&'static str, Verdict)> {
    let repo = &forge.work;
    repo.git(&["add", "-A"]);
    let staged = verdict(&repo.run(&["check", "--staged", "--format", "json"], None));
    vec![
        ("pre-commit", staged),
        ("check --ci", {
            commit_as(repo, branch, HUMAN, "2024-01-01T10:00:00");
            forge.ci("origin/main", branch)
        }),
        ("pre-push", forge.pre_push(branch, "heads/main")),
        ("pre-receive", forge.receive(&[&format!("{branch}:main")])),
    ]
}

#[test]
fn the_plan_lands_first_then_the_work() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "plan"]);
    write_spec(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.write(".mastermind/tasks/001-a/state.json", "{}\n");
    for (mode, verdict) in every_mode(&forge, "plan") {
        verdict.expect(0, &format!("{mode}: the plan alone"));
        assert!(!verdict.has("spec_not_on_base"), "{mode}: {verdict:?}");
    }
    // The work on the landed plan.
    repo.git(&["checkout", "-q", "-b", "work"]);
    repo.write("src/a.py", "alpha\n");
    verify(repo, "001-a");
    write_report(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    for (mode, verdict) in every_mode(&forge, "work") {
        verdict.expect(0, &format!("{mode}: the work"));
    }
}

#[test]
fn work_on_a_spec_that_is_not_on_the_protected_branch_is_refused() {
    let forge = forge();
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "both"]);
    do_task(repo, "002-b", "src/b.py", "beta");
    for (mode, verdict) in every_mode(&forge, "both") {
        verdict.expect(1, mode);
        assert!(verdict.has("spec_not_on_base"), "{mode}: {verdict:?}");
    }
}
