//! The gate's configured agent files end to end: subagent returns routed by
//! their recorded dispatch description (a `# dispatch:` first line, else the
//! file name, else `handover.role`), and the `contracts:` knobs grading
//! synthesized plastic reports, role-prompt rules and unknown prefixes. Real
//! repositories, the real `git` and the built binary.

use crate::common::*;

const BASE_CONFIG: &str = "subagent_returns: ['returns/**']\nplastic_reports: ['reports/**']\n";

/// A repository whose base commit holds `config` as its gate configuration.
fn repo_with(config: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.md", "# demo\n");
    repo.write(".mastermind/hooks.yaml", config);
    repo.commit_all("base");
    repo
}

/// Stage `files` and run `check --staged`: the exit status and the codes of
/// the agent files' findings.
fn staged(repo: &TestRepo, files: &[(&str, &str)]) -> (i32, Vec<String>) {
    for (path, content) in files {
        repo.write(path, content);
    }
    repo.git(&["add", "-A"]);
    let output = repo.run(&["check", "--staged", "--format", "json"], None);
    let report = json(&output);
    let codes = report["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["diagnostics"].as_array().into_iter().flatten())
        .filter_map(|d| d["code"].as_str().map(str::to_string))
        .collect();
    (status(&output), codes)
}

const COMPOSER_BLOCKED: &str = r#"{"handover": {"role": "composer-j-login", "cycle": 1, "status": "blocked", "next-action": "fix the fixture"}, "journey": "j-login", "blocked-reason": "no users seeded"}"#;
const COMPOSER_BROKEN: &str = r#"{"handover": {"role": "composer-j-login", "cycle": 1, "status": "blocked", "next-action": "fix the fixture"}, "journey": "j-login"}"#;

#[test]
fn returns_are_routed_by_their_file_name() {
    let repo = repo_with(BASE_CONFIG);
    let (code, codes) = staged(
        &repo,
        &[("returns/composer-j-login.json", COMPOSER_BLOCKED)],
    );
    assert_eq!((code, codes), (0, vec![]));
    let (code, codes) = staged(&repo, &[("returns/composer-j-login.json", COMPOSER_BROKEN)]);
    assert_eq!(code, 1);
    assert_eq!(codes, ["subagent_return_schema_violation"]);
    // The name routes even when handover.role would not: a free-form j- return.
    repo.remove("returns/composer-j-login.json");
    let (code, codes) = staged(
        &repo,
        &[("returns/j-login.md", "Explored the journey; nothing odd.\n")],
    );
    assert_eq!((code, codes), (0, vec![]));
}

#[test]
fn a_dispatch_comment_beats_the_file_name_and_handover_role_is_the_fallback() {
    let repo = repo_with(BASE_CONFIG);
    let probe = "# dispatch: probe-j-cart: pass 4 probes\nhandover:\n  role: probe-j-cart\n  cycle: 02\n  status: clean\n  next-action: advance to pass 5\njourney: j-cart\n";
    let (code, codes) = staged(&repo, &[("returns/return-17.yaml", probe)]);
    assert_eq!((code, codes), (0, vec![]));
    let broken = probe.replace("status: clean", "status: findings-emitted");
    let (code, codes) = staged(&repo, &[("returns/return-17.yaml", &broken)]);
    assert_eq!(code, 1);
    assert!(
        codes
            .iter()
            .all(|c| c == "subagent_return_schema_violation"),
        "{codes:?}"
    );
    // No comment, a name that routes nowhere: handover.role routes.
    repo.remove("returns/return-17.yaml");
    let (code, codes) = staged(&repo, &[("returns/return-18.json", COMPOSER_BROKEN)]);
    assert_eq!(
        (code, codes),
        (1, vec!["subagent_return_schema_violation".to_string()])
    );
}

#[test]
fn an_unknown_prefix_is_what_contracts_unknown_dispatch_says() {
    let unrouted = r#"{"handover": {"role": "explorer", "cycle": 1, "status": "done", "next-action": "none"}}"#;
    let file = [("returns/explore-1.json", unrouted)];
    let warn = repo_with(BASE_CONFIG);
    assert_eq!(
        staged(&warn, &file),
        (0, vec!["subagent_dispatch_unknown".to_string()])
    );
    let allow = repo_with(&format!(
        "{BASE_CONFIG}contracts:\n  unknown_dispatch: allow\n"
    ));
    assert_eq!(staged(&allow, &file), (0, vec![]));
    let block = repo_with(&format!(
        "{BASE_CONFIG}contracts:\n  unknown_dispatch: block\n"
    ));
    assert_eq!(
        staged(&block, &file),
        (2, vec!["subagent_dispatch_unknown".to_string()])
    );
}

const SYNTHESIZED: &str = "=== Plastic agent report (synthesized) ===\nIntent: 418 - Lease sweeps\nStage: 2026-09-11T04:20:04Z  Exec  started\nRole: plastic-executor\nStatus: synthesized (filesystem-derived; no agent-authored report)\nArtifacts present: 418--lease-sweeps.md, spec.md, plan.md, checklist.md, actions/\nChecklist: 3/5\nOutcome: (no outcome yet)\nInsights: (none)\n=== end report ===\n";

const PLANNER_NO_TIER: &str = "- **Role**: planner\n- **Intent id and stage**: 418 / How\n- **Status**: delivered\n- **Artifacts written**: plan.md\n- **Verification / tests run**: n/a\n- **Checklist deltas**: n/a\n- **Deviations from spec**: none\n- **Blockers / handoff notes**: none\n- **Insights**: none\n- **Ordered actions**: 1. lease table (lease_test)\n- **Decomposition rationale**: one action\n- **Checklist coverage**: 2 items\n";

#[test]
fn contracts_knobs_grade_synthesized_reports_and_role_prompt_rules() {
    let files = [
        ("reports/418-executor.md", SYNTHESIZED),
        ("reports/418-planner.md", PLANNER_NO_TIER),
    ];
    let lenient = repo_with(BASE_CONFIG);
    let (code, mut codes) = staged(&lenient, &files);
    codes.sort();
    assert_eq!(
        (code, codes),
        (
            0,
            vec![
                "plastic_report_prompt_part_missing".to_string(),
                "plastic_report_synthesized".to_string()
            ]
        )
    );
    let strict = repo_with(&format!(
        "{BASE_CONFIG}contracts:\n  synthesized_reports: error\n  role_prompt_rules: error\n"
    ));
    let output_of = |repo: &TestRepo| {
        for (path, content) in &files {
            repo.write(path, content);
        }
        repo.git(&["add", "-A"]);
        let output = repo.run(&["check", "--staged", "--format", "json"], None);
        (status(&output), json(&output))
    };
    let (code, report) = output_of(&strict);
    assert_eq!(code, 1);
    let severities: Vec<(&str, &str)> = report["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["diagnostics"].as_array().into_iter().flatten())
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default(),
                d["severity"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert!(
        severities.contains(&("plastic_report_synthesized", "error")),
        "{severities:?}"
    );
    assert!(
        severities.contains(&("plastic_report_prompt_part_missing", "error")),
        "{severities:?}"
    );
}
