//! Properties of the plastic and subagent-return parsers:
//!
//! * arbitrary bytes (and arbitrary text built from each grammar's own
//!   tokens) never panic any of them;
//! * an input that breaks a rule we can construct cheaply is never valid,
//!   whatever else the input holds, and the broken rule's code is reported.

use mastermind_hooks::artifact::{self, Kind};
use mastermind_hooks::codes::Code;
use proptest::prelude::*;

const NEW_KINDS: &[Kind] = &[
    Kind::PlasticReport,
    Kind::PlasticIntent,
    Kind::PlasticSavepoints,
    Kind::PlasticInsight,
    Kind::SubagentReturn,
    Kind::FindingBlocks,
    Kind::FindingsLedger,
];

const ROLES: &[Option<&str>] = &[
    None,
    Some("executor"),
    Some("composer"),
    Some("phase-validator"),
    Some("nope"),
];

fn codes(kind: Kind, text: &str, role: Option<&str>) -> Vec<Code> {
    artifact::check_with_role(kind, text.as_bytes(), role)
        .diagnostics
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect()
}

/// Text made of the tokens the grammars care about, so random input reaches
/// past the first check.
fn grammar_soup() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "\n",
        "\n",
        "  ",
        " ",
        "- ",
        "**",
        "## ",
        "### ",
        "#### ",
        ": ",
        "·",
        " · ",
        " — ",
        "—",
        "›",
        "[",
        "]",
        "{",
        "}",
        "\"",
        ",",
        "handover",
        "role",
        "cycle",
        "status",
        "next-action",
        "Role",
        "Status",
        "delivered",
        "blocked",
        "Insights",
        "## Insights",
        "none",
        "n/a",
        "2026-09-10T06:21:57Z",
        "2026-13-40T99:99:99Z",
        "What",
        "Done",
        "n1",
        "done",
        "gates=x",
        "=== Plastic agent report (synthesized) ===",
        "=== end report ===",
        "Checklist: 0/0",
        "**Pass 4 — probe (2026-03-02)**",
        "**Pass 4 summary:** probes=1, boundaries=1, suspected-bugs=0 (crit=0, high=0, med=0, low=0)",
        "Scope: x",
        "### j-x",
        "<!-- coverage-expansion-adversarial:generated -->",
        "- **j-x-4-01** [high] — t",
        "  - scope: s",
        "- expected: e",
        "- ledger-only: true",
        "[must-fix]",
        "pv-2-01",
        "j-x-1-1-R-01",
        "AF-1",
        "\u{0}",
        "\r",
        "\t",
        "é",
        "🦀",
    ]);
    prop::collection::vec(token, 0..80).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048), role in prop::sample::select(ROLES)) {
        for &kind in NEW_KINDS {
            let _ = artifact::check_with_role(kind, &bytes, role);
        }
    }

    #[test]
    fn grammar_shaped_text_never_panics(text in grammar_soup(), role in prop::sample::select(ROLES)) {
        for &kind in NEW_KINDS {
            let _ = artifact::check_with_role(kind, text.as_bytes(), role);
        }
    }
}

const REPORT: &str = "- **Role**: executor
- **Intent id and stage**: 74 / Exec
- **Status**: delivered
- **Artifacts written**: src/a.rb
- **Verification / tests run**: rake test: 12 runs, 0 failures
- **Checklist deltas**: 1, 2
- **Deviations from spec**: none
- **Blockers / handoff notes**: none
- **Insights**: none
- **Actions implemented**: 2/5
- **Code changed**: src/a.rb gains the lease check
";

const SAVEPOINTS: &str =
    "2026-09-10T05:00:00Z  What  12--x.md\n2026-09-10T05:10:00Z  Why  spec.md created\n";
const INSIGHT_A: &str = "2026-09-10T07:06:10Z · Exec · lead:12 — first";
const RETURN: &str = r#"{"handover": {"role": "probe-j-cart", "cycle": 1, "status": "clean", "next-action": "none"}, "journey": "j-cart"}"#;
const BLOCK: &str = "- **j-cart-4-01** [high] — Total is trusted\n  - scope: s\n  - expected: e\n  - observed: o\n  - coverage: none\n";

/// Lines of harmless prose (no labels, no grammar tokens).
fn prose_line() -> impl Strategy<Value = String> {
    "[a-z]{1,8}( [a-z]{1,8}){0,5}"
}

fn word() -> impl Strategy<Value = String> {
    "[a-z][a-z-]{0,12}"
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_baselines_are_valid(_x in 0..1u8) {
        prop_assert!(codes(Kind::PlasticReport, REPORT, None).is_empty());
        prop_assert!(codes(Kind::PlasticSavepoints, SAVEPOINTS, None).is_empty());
        prop_assert!(codes(Kind::SubagentReturn, RETURN, None).is_empty());
        prop_assert!(codes(Kind::FindingBlocks, BLOCK, None).is_empty());
    }

    #[test]
    fn a_status_other_than_delivered_or_blocked_is_never_valid(status in word(), tail in prose_line()) {
        prop_assume!(status != "delivered" && status != "blocked");
        let text = format!("{}\n{tail}\n", REPORT.replace("**Status**: delivered", &format!("**Status**: {status}")));
        prop_assert!(codes(Kind::PlasticReport, &text, None).contains(&Code::plastic_report_status_invalid));
    }

    #[test]
    fn a_report_missing_an_envelope_field_is_never_valid(drop in 0usize..9, tail in prose_line()) {
        let text: String = REPORT.lines().enumerate().filter(|(i, _)| *i != drop).map(|(_, l)| format!("{l}\n")).collect();
        let text = format!("{text}{tail}\n");
        prop_assert!(codes(Kind::PlasticReport, &text, None).contains(&Code::plastic_report_field_missing));
    }

    #[test]
    fn an_edited_synthesized_report_is_never_valid(checked in 0u64..50, extra in 1u64..50) {
        let report = format!(
            "=== Plastic agent report (synthesized) ===\nIntent: 1 - x\nStage: What\nRole: What\nStatus: synthesized (filesystem-derived; no agent-authored report)\nArtifacts present: (none)\nChecklist: {}/{}\nOutcome: (no outcome yet)\nInsights: (none)\n=== end report ===\n",
            checked + extra, checked
        );
        prop_assert_eq!(codes(Kind::PlasticReport, &report, None), vec![Code::plastic_synthesized_malformed]);
        let zero = report.replace(&format!("Checklist: {}/{}", checked + extra, checked), "Checklist: 0/0");
        prop_assert_eq!(codes(Kind::PlasticReport, &zero, None), vec![Code::plastic_synthesized_malformed]);
        let fine = report.replace(&format!("Checklist: {}/{}", checked + extra, checked), &format!("Checklist: {}/{}", checked, checked + extra));
        // Well-formed: recognised, and a warning (seed 002: never a hard block).
        prop_assert_eq!(codes(Kind::PlasticReport, &fine, None), vec![]);
        let all: Vec<Code> = artifact::check(Kind::PlasticReport, fine.as_bytes()).diagnostics.into_iter().map(|d| d.code).collect();
        prop_assert_eq!(all, vec![Code::plastic_report_synthesized]);
    }

    #[test]
    fn an_insight_without_its_separators_is_never_valid(sep in prop::sample::select(vec![" - ", " -- ", " – ", " | ", "  —  ", " —", "— "]), text in prose_line()) {
        let line = format!("2026-09-10T07:06:10Z · Exec · lead:12{sep}{text}");
        prop_assert!(codes(Kind::PlasticInsight, &line, None).contains(&Code::plastic_insight_malformed));
    }

    #[test]
    fn insights_going_back_in_time_are_never_valid(seconds in 0u32..60, minutes in 0u32..6, text in prose_line()) {
        let older = format!("2026-09-10T07:0{minutes}:{seconds:02}Z · Exec · lead:12 — {text}");
        let section = format!("## Insights\n{INSIGHT_A}\n{INSIGHT_A}\n{older}\n");
        prop_assert!(codes(Kind::PlasticIntent, &section, None).contains(&Code::plastic_insight_out_of_order));
    }

    #[test]
    fn a_done_line_other_than_delivered_or_abandoned_is_never_valid(text in word()) {
        prop_assume!(text != "delivered" && text != "abandoned");
        let ledger = format!("{SAVEPOINTS}2026-09-10T05:20:00Z  Done  {text}\n");
        prop_assert_eq!(codes(Kind::PlasticSavepoints, &ledger, None), vec![Code::plastic_savepoint_done_invalid]);
    }

    #[test]
    fn an_unknown_subject_is_never_valid(subject in "[A-Z][a-z]{2,8}", text in prose_line()) {
        prop_assume!(!["What", "Why", "How", "Exec", "Done", "Review", "Commit", "Report", "Lock", "Tier", "Intent"].contains(&subject.as_str()));
        let ledger = format!("{SAVEPOINTS}2026-09-10T05:20:00Z  {subject}  {text}\n");
        prop_assert_eq!(codes(Kind::PlasticSavepoints, &ledger, None), vec![Code::plastic_savepoint_subject_unknown]);
    }

    #[test]
    fn a_return_without_a_usable_cycle_is_never_valid(cycle in prop_oneof![(-50i64..1).prop_map(|n| n.to_string()), word().prop_map(|w| format!("\"{w}\""))]) {
        let text = RETURN.replace("\"cycle\": 1", &format!("\"cycle\": {cycle}"));
        prop_assert!(codes(Kind::SubagentReturn, &text, None).contains(&Code::subagent_return_cycle_invalid));
    }

    #[test]
    fn an_off_enum_status_is_never_valid(status in word()) {
        prop_assume!(!["clean", "findings-emitted", "blocked"].contains(&status.as_str()));
        let text = RETURN.replace("\"status\": \"clean\"", &format!("\"status\": \"{status}\""));
        prop_assert!(codes(Kind::SubagentReturn, &text, None).contains(&Code::subagent_return_schema_violation));
    }

    #[test]
    fn a_return_judged_without_its_envelope_is_never_valid(key in word(), value in word()) {
        let text = format!("{{\"{key}\": \"{value}\"}}");
        prop_assert!(!codes(Kind::SubagentReturn, &text, Some("probe")).is_empty());
        prop_assert!(!codes(Kind::SubagentReturn, &text, None).is_empty());
    }

    #[test]
    fn a_severity_outside_the_enum_is_never_valid(severity in word()) {
        prop_assume!(!["critical", "high", "medium", "low", "info"].contains(&severity.as_str()));
        let text = BLOCK.replace("[high]", &format!("[{severity}]"));
        prop_assert_eq!(codes(Kind::FindingBlocks, &text, None), vec![Code::finding_severity_invalid]);
    }

    #[test]
    fn a_summary_that_miscounts_is_never_valid(high in 0u64..5, reported in 0u64..5) {
        prop_assume!(high != reported);
        let findings: String = (1..=high)
            .map(|n| format!("#### j-x-4-{n:02} [high] — t\n- expected: e\n- observed: o\n- ledger-only: true\n- coverage: none\n\n"))
            .collect();
        let ledger = format!(
            "<!-- coverage-expansion-adversarial:generated -->\n# Adversarial Findings — app\n**Generated by:** coverage-expansion (depth mode, passes 4–5)\n**Pass 4 date:** 2026-03-02\n**Pass 5 date:** _(filled by pass 5)_\n**Dedup date:** _(filled by cleanup subagent)_\n## Cross-cutting findings\n### j-x\n**Pass 4 — probe (2026-03-02)**\nScope: s\n{findings}**Pass 4 summary:** probes=9, boundaries=9, suspected-bugs={reported} (crit=0, high={reported}, med=0, low=0)\n"
        );
        prop_assert_eq!(codes(Kind::FindingsLedger, &ledger, None), vec![Code::ledger_summary_count_mismatch]);
        let honest = ledger.replace(&format!("suspected-bugs={reported} (crit=0, high={reported}"), &format!("suspected-bugs={high} (crit=0, high={high}"));
        prop_assert!(codes(Kind::FindingsLedger, &honest, None).is_empty());
    }
}
