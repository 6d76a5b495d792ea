//! Defaults that keep their word: with no rule, CI and pre-receive refuse a
//! change that belongs to no task and name the rule that would allow it,
//! while the local hooks only warn; `MASTERMIND_HOOKS_REQUIRE_TASK=true`
//! overrides every allow rule; the agent recognisers are cooperative marks
//! that an agent evades by leaving them out; `init` writes an allow-rule
//! skeleton keyed on what the platform vouches for.

use crate::common::{TestRepo, codes, json, status, text};
use std::process::Output;

/// main with `config` (none: no configuration file), and a branch
/// `feature` with one commit that touches no task, made with `message`.
fn untasked(config: Option<&str>, message: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/lib.py", "x = 1\n");
    if let Some(config) = config {
        repo.write(".mastermind/hooks.yaml", config);
    }
    repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/lib.py", "x = 2\n");
    repo.commit_all(message);
    repo
}

fn ci(repo: &TestRepo, env: &[(&str, &str)]) -> Output {
    repo.run_env(
        &[
            "check", "--ci", "--base", "main", "--head", "feature", "--format", "json",
        ],
        env,
    )
}

fn finding<'a>(report: &'a serde_json::Value, code: &str) -> &'a serde_json::Value {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {report}"))
}

#[test]
fn ci_refuses_untasked_work_by_default_and_names_the_rule_to_add() {
    let repo = untasked(None, "work without a task");
    let output = ci(&repo, &[]);
    assert_eq!(status(&output), 1, "{}", text(&output));
    let report = json(&output);
    let refusal = finding(&report, "task_required");
    let hint = refusal["hint"].as_str().unwrap();
    for rule in ["signers: [", "paths: [\"src/lib.py\"]", "task new"] {
        assert!(hint.contains(rule), "{rule} in {hint}");
    }
    // The same commit in the local hooks: a warning, never a block.
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/lib.py", "x = 3\n");
    repo.git(&["add", "-A"]);
    let staged = repo.run(&["check", "--staged", "--format", "json"], None);
    assert_eq!(status(&staged), 0, "{}", text(&staged));
    assert_eq!(
        finding(&json(&staged), "untasked_change")["severity"],
        "warning"
    );
}

#[test]
fn require_task_overrides_allow_rules() {
    // The base allows untasked work by anyone whose author is at
    // example.com (forgeable), and changes of the configuration (planning)
    // by anyone.
    let config = "untasked:\n  rules:\n    - action: allow\n      authors: ['* <*@example.com>']\nplanning:\n  rules:\n    - action: allow\n      paths: [.mastermind/hooks.yaml]\n";
    let repo = untasked(Some(config), "work without a task");
    repo.git(&[
        "commit",
        "-q",
        "--amend",
        "--no-edit",
        "--author",
        "Anyone <anyone@example.com>",
    ]);
    let allowed = ci(&repo, &[]);
    assert_eq!(
        status(&allowed),
        0,
        "the rule allows it: {}",
        text(&allowed)
    );
    let required = ci(&repo, &[("MASTERMIND_HOOKS_REQUIRE_TASK", "true")]);
    assert_eq!(status(&required), 1, "{}", text(&required));
    let report = json(&required);
    let message = finding(&report, "task_required")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("MASTERMIND_HOOKS_REQUIRE_TASK"),
        "{message}"
    );
    // The configuration file is planning, which the variable leaves to the
    // planning rules: it can still change.
    repo.git(&["reset", "-q", "--hard", "main"]);
    repo.write(".mastermind/hooks.yaml", &format!("{config}exclude: []\n"));
    repo.commit_all("maintain the policy");
    let config_change = ci(&repo, &[("MASTERMIND_HOOKS_REQUIRE_TASK", "true")]);
    assert_eq!(status(&config_change), 0, "{}", text(&config_change));
}

#[test]
fn agent_recognisers_are_cooperative_marks() {
    let config =
        "untasked:\n  default: allow\n  rules:\n    - action: deny\n      agents: [claude-code]\n";
    let marked = untasked(
        Some(config),
        "Fix\n\nCo-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>",
    );
    let output = ci(&marked, &[]);
    assert_eq!(status(&output), 1, "the agent's mark: {}", text(&output));
    // The same agent leaving its trailer out is not recognised: only the
    // default (deny, unless a rule allows) holds against it.
    let unmarked = untasked(Some(config), "Fix");
    let output = ci(&unmarked, &[]);
    assert_eq!(status(&output), 0, "{}", text(&output));
    let strict = untasked(None, "Fix");
    let output = ci(&strict, &[]);
    assert_eq!(status(&output), 1, "{}", text(&output));
    assert!(codes(&json(&output)).contains(&"task_required".to_string()));
}

#[test]
fn init_writes_an_allow_rule_skeleton_keyed_on_vouched_conditions() {
    let repo = TestRepo::new();
    repo.write("src/lib.py", "x = 1\n");
    repo.commit_all("base");
    let init = repo.run(&["init"], None);
    assert_eq!(status(&init), 0, "{}", text(&init));
    let written = std::fs::read_to_string(repo.path().join(".mastermind/hooks.yaml")).unwrap();
    for condition in [
        "#      actors:",
        "#      pushers:",
        "#      signers:",
        "#      paths:",
    ] {
        assert!(written.contains(condition), "{condition} in\n{written}");
    }
    // Nothing in it allows untasked work yet: CI refuses it.
    repo.commit_all("adopt the gate");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/lib.py", "x = 2\n");
    repo.commit_all("untasked");
    let output = ci(&repo, &[]);
    assert_eq!(status(&output), 1, "{}", text(&output));
}

#[test]
fn status_says_which_modes_know_a_rules_conditions() {
    let repo = TestRepo::new();
    repo.write(
        ".mastermind/hooks.yaml",
        "untasked:\n  rules:\n    - action: allow\n      actors: [maintainer]\n      signers: [maintainer@example.com]\n    - action: allow\n      paths: [docs/**]\nplanning:\n  rules:\n    - action: allow\n      pushers: [planner]\n",
    );
    repo.commit_all("base");
    let output = repo.run(&["status", "--format", "json"], None);
    let report = json(&output);
    let notes: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "condition_unknown_locally")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 2, "{report}");
    assert!(
        notes[0].starts_with("untasked.rules[0]")
            && notes[0].contains("`actors`, which only CI knows")
            && notes[0].contains("`signers`, which pre-push, pre-receive and CI know"),
        "{notes:?}"
    );
    assert!(
        notes[1].starts_with("planning.rules[0]")
            && notes[1].contains("`pushers`, which only pre-receive knows"),
        "{notes:?}"
    );
    let human = text(&repo.run(&["status"], None));
    assert!(human.contains("note[condition_unknown_locally]"), "{human}");
}
