//! Plastic completion reports read as prose, as properties: an executor
//! report assembled from any of the label spellings an agent uses (the
//! contract's own sentences, their rephrasings), any markup (plain, bold,
//! bold with the colon inside, headings, bullets, a key-value table) and
//! any spelling of its values (`Delivered.`, `None this turn`, `2 of 5`,
//! `checked: 2, total: 5`) is valid; the same report with a real violation
//! (an envelope field dropped, an insight unmarked, a blocker under
//! `delivered`) is rejected for that reason.

use mastermind_hooks::artifact::{self, Kind};
use mastermind_hooks::codes::Code;
use proptest::prelude::*;

/// Label spellings per field, the contract's wording first.
const ROLE: &[&str] = &["Role", "Agent role", "ROLE"];
const INTENT: &[&str] = &[
    "Intent id and stage",
    "Intent / stage",
    "Intent ID & stage",
    "Intent and stage",
];
const STATUS: &[&str] = &["Status", "Final status"];
const ARTIFACTS: &[&str] = &[
    "Artifacts written",
    "Artefacts",
    "Files written",
    "Artifacts",
];
const VERIFICATION: &[&str] = &[
    "Verification / tests run",
    "Verification",
    "Tests run",
    "Verification / test results",
];
const CHECKLIST: &[&str] = &[
    "Checklist deltas",
    "Checklist",
    "Checklist items checked off",
];
const DEVIATIONS: &[&str] = &[
    "Deviations from spec",
    "Deviations",
    "Deviations from spec or plan",
];
const BLOCKERS: &[&str] = &[
    "Blockers / handoff notes",
    "Blockers and handoff notes",
    "Handoff notes",
    "Hand-off notes",
];
const INSIGHTS: &[&str] = &["Insights", "Durable insights", "Insights (nuggets)"];
const ACTIONS: &[&str] = &[
    "Actions implemented",
    "Actions implemented this turn, mapped to checklist items checked off (checked / total)",
    "Implemented actions",
    "Actions implemented (checked / total)",
    "Checklist progress",
];
const CODE: &[&str] = &[
    "Code changed",
    "A summary of the code changed (files and the shape of the change)",
    "Summary of code changed",
    "Code changes",
    "Summary of changes",
];
const TEST: &[&str] = &[
    "Test result",
    "Test results",
    "Full-suite result",
    "Test result (full suite)",
];

const STATUS_VALUES: &[&str] = &[
    "delivered",
    "Delivered",
    "**delivered**",
    "delivered.",
    "`delivered`",
    "Delivered ✅",
];
const NONE_VALUES: &[&str] = &[
    "none",
    "None",
    "None.",
    "n/a",
    "N/A",
    "none this turn",
    "—",
    "`none`",
];
const PROGRESS: &[&str] = &[
    "ACTION_2 → item 2 (2/5)",
    "ACTION_2 → item 2, 2 of 5",
    "checked: 2, total: 5",
    "ACTION_2 done — two of five items",
    "2 / 5 checked",
    "item 2 checked (2 out of 5)",
];
const TEST_VALUES: &[&str] = &[
    "`cargo test`: 128 passed, 0 failed",
    "cargo test → 128 passed; 0 failed; 0 ignored",
    "✅ `cargo test --workspace` — 128/128 passing",
];

/// How the fields are written.
#[derive(Clone, Copy, Debug)]
enum Markup {
    Plain,
    Bold,
    BoldInside,
    Bullet,
    Heading,
    Table,
}

const MARKUPS: &[Markup] = &[
    Markup::Plain,
    Markup::Bold,
    Markup::BoldInside,
    Markup::Bullet,
    Markup::Heading,
    Markup::Table,
];

fn render(markup: Markup, fields: &[(String, String)]) -> String {
    let mut out = String::new();
    if let Markup::Table = markup {
        out.push_str("| Field | Value |\n|---|---|\n");
    }
    for (label, value) in fields {
        let one_line = !value.contains('\n');
        match markup {
            Markup::Plain if one_line => out.push_str(&format!("{label}: {value}\n")),
            Markup::Plain => out.push_str(&format!("{label}:\n{value}\n")),
            Markup::Bold if one_line => out.push_str(&format!("**{label}**: {value}\n")),
            Markup::Bold => out.push_str(&format!("**{label}**:\n{value}\n\n")),
            Markup::BoldInside if one_line => out.push_str(&format!("**{label}:** {value}\n")),
            Markup::BoldInside => out.push_str(&format!("**{label}:**\n{value}\n\n")),
            Markup::Bullet if one_line => out.push_str(&format!("- **{label}**: {value}\n")),
            Markup::Bullet => {
                out.push_str(&format!("- **{label}**:\n"));
                for line in value.lines() {
                    out.push_str(&format!("  {line}\n"));
                }
            }
            Markup::Heading => out.push_str(&format!("## {label}\n{value}\n\n")),
            Markup::Table => {
                out.push_str(&format!("| {label} | {} |\n", value.replace('\n', "<br>")));
            }
        }
    }
    out
}

/// One random executor report: envelope fields, payload fields, markups.
#[derive(Clone, Debug)]
struct Report {
    envelope: Vec<(String, String)>,
    payload: Vec<(String, String)>,
    envelope_markup: Markup,
    payload_markup: Markup,
    title: bool,
    separator: bool,
}

impl Report {
    fn text(&self) -> String {
        let mut out = String::new();
        if self.title {
            out.push_str("# Completion report\n\n");
        }
        out.push_str(&render(self.envelope_markup, &self.envelope));
        out.push('\n');
        if self.separator {
            out.push_str("---\n\n## Payload\n\n");
        }
        out.push_str(&render(self.payload_markup, &self.payload));
        out
    }
}

fn pick(options: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(options).prop_map(str::to_string)
}

fn insights() -> impl Strategy<Value = String> {
    prop_oneof![
        pick(NONE_VALUES),
        Just("- leases are renewed inside the sweep transaction (autonomous)".to_string()),
        Just("- leases are renewed inside the sweep transaction (autonomous)\n- the fake clock leaves the monotonic clock running (autonomous)".to_string()),
    ]
}

fn report() -> impl Strategy<Value = Report> {
    let envelope = (
        (pick(ROLE), pick(INTENT), pick(STATUS), pick(STATUS_VALUES)),
        (
            pick(ARTIFACTS),
            pick(VERIFICATION),
            pick(CHECKLIST),
            pick(DEVIATIONS),
        ),
        (
            pick(NONE_VALUES),
            pick(BLOCKERS),
            pick(NONE_VALUES),
            pick(INSIGHTS),
            insights(),
        ),
    );
    let payload = (
        pick(ACTIONS),
        pick(PROGRESS),
        pick(CODE),
        pick(TEST),
        pick(TEST_VALUES),
    );
    (
        envelope,
        payload,
        prop::sample::select(MARKUPS),
        prop::sample::select(MARKUPS),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(
                (
                    (role, intent, status, status_value),
                    (artifacts, verification, checklist, deviations),
                    (deviation_value, blockers, blocker_value, insights, insight_value),
                ),
                (actions, progress, code, test, test_value),
                envelope_markup,
                payload_markup,
                title,
                separator,
            )| Report {
                envelope: vec![
                    (role, "executor".to_string()),
                    (intent, "418 / Exec".to_string()),
                    (status, status_value),
                    (
                        artifacts,
                        "`lib/queue/lease.rb`, `test/queue/lease_test.rb`".to_string(),
                    ),
                    (
                        verification,
                        "`cargo test` → 128 passed, 0 failed".to_string(),
                    ),
                    (checklist, "item 2 checked".to_string()),
                    (deviations, deviation_value),
                    (blockers, blocker_value),
                    (insights, insight_value),
                ],
                payload: vec![
                    (actions, progress),
                    (
                        code,
                        "`lease.rb` gains `renew!`; the sweeper takes a lease per batch"
                            .to_string(),
                    ),
                    (test, test_value),
                ],
                envelope_markup,
                payload_markup,
                title,
                separator,
            },
        )
}

/// The payload of the other roles: per part, label spellings and values.
type Parts = &'static [(&'static [&'static str], &'static [&'static str])];

const PAYLOADS: &[(&str, &str, Parts)] = &[
    (
        "brainstorming",
        "Why",
        &[
            (
                &[
                    "Decisions",
                    "Decisions recorded",
                    "Key decisions",
                    "Decisions recorded in `### Decisions`, each with its one-line rationale",
                ],
                &[
                    "D1 sweeps lease first — no double processing",
                    "- D1 sweeps lease first: no double processing\n- D2 five-minute leases: the longest sweep takes three",
                ],
            ),
            (
                &[
                    "Context enriched",
                    "Context",
                    "Research and key findings",
                    "Context enriched: what was researched",
                ],
                &["read scheduler.rb and lease.rb; renewals share the clock"],
            ),
            (
                &[
                    "Open questions",
                    "Open questions resolved",
                    "Questions left open",
                ],
                &[
                    "none",
                    "None — all resolved.",
                    "left for the spec: sweeping during a renewal",
                ],
            ),
            (
                &["Tier recommendation", "Tier", "Recommended tier"],
                &[
                    "M — two modules, one seam",
                    "S (one class)",
                    "Medium: two modules",
                ],
            ),
        ],
    ),
    (
        "spec-specialist",
        "How",
        &[
            (
                &[
                    "Spec sections produced",
                    "Sections written",
                    "Spec sections",
                ],
                &[
                    "Problem, Goals, Non-Goals, Approach, Decisions, Acceptance Criteria",
                    "problem / goals / non-goals / approach / decisions / acceptance criteria",
                    "all six (Problem through Acceptance Criteria)",
                ],
            ),
            (
                &[
                    "How the recorded decisions resolved into the chosen approach",
                    "Approach",
                    "Decisions → approach",
                ],
                &["D1 and D2 make the lease table the one gate"],
            ),
            (
                &[
                    "Acceptance-criteria count",
                    "Acceptance criteria",
                    "AC count",
                    "Number of acceptance criteria",
                ],
                &["6", "six", "6 (AC1–AC6)"],
            ),
            (&["Tier"], &["M", "S", "L — a full actions/ tree"]),
        ],
    ),
    (
        "planner",
        "How",
        &[
            (
                &[
                    "Ordered actions",
                    "The ordered actions, one line each",
                    "Actions (in order)",
                    "Plan",
                ],
                &[
                    "1. lease table — lease_test.rb\n2. sweeper lease — sweeper_test.rb",
                    "- ACTION_1 lease table (lease_test.rb)\n- ACTION_2 sweeper (sweeper_test.rb)",
                ],
            ),
            (
                &["Decomposition rationale", "Rationale", "Why this order"],
                &["the sweeper reads the lease table, so it lands second"],
            ),
            (
                &["Checklist coverage", "Coverage"],
                &[
                    "3 items: two actions plus suite-green",
                    "three items",
                    "3/3 actions plus suite-green",
                ],
            ),
            (
                &["Tier shape", "Tier shape produced", "Shape"],
                &[
                    "inline plan-as-checklist (S/M)",
                    "full `actions/` (L)",
                    "M, inline",
                ],
            ),
        ],
    ),
    (
        "reviewer",
        "Exec",
        &[
            (
                &[
                    "Verdict",
                    "Final verdict",
                    "Verdict: `pass` or `blockers found`",
                ],
                &[
                    "pass",
                    "PASS",
                    "**Pass** — every criterion holds",
                    "pass ✅",
                ],
            ),
            (
                &[
                    "Acceptance criteria",
                    "Each acceptance criterion checked, with the evidence that confirms or refutes it",
                    "Acceptance criteria checked",
                ],
                &[
                    "- AC1 one sweeper per batch — sweeper_test.rb\n- AC2 reclaim — reclaim_test.rb",
                    "AC1 and AC2 confirmed by their tests",
                ],
            ),
            (
                &[
                    "Gaps or risks",
                    "Gaps and risks",
                    "Risks",
                    "Gaps or risks found, ranked, with a recommended disposition",
                ],
                &[
                    "none",
                    "None found.",
                    "1. (low) batches above 500 rows untested — follow-up",
                ],
            ),
        ],
    ),
];

fn other_role_report() -> impl Strategy<Value = Report> {
    (
        0..PAYLOADS.len(),
        prop::collection::vec(
            (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
            4,
        ),
        report(),
    )
        .prop_map(|(role_index, choices, base)| {
            let (role, stage, parts) = PAYLOADS[role_index];
            let mut report = base;
            report.envelope[0].1 = role.to_string();
            report.envelope[1].1 = format!("418 / {stage}");
            report.envelope[8].1 = "none".to_string();
            report.payload = parts
                .iter()
                .zip(&choices)
                .map(|((labels, values), (label, value))| {
                    (label.get(labels).to_string(), value.get(values).to_string())
                })
                .collect();
            report
        })
}

fn errors(text: &str) -> Vec<Code> {
    artifact::check(Kind::PlasticReport, text.as_bytes())
        .diagnostics
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_honest_rendering_is_valid(report in report()) {
        let text = report.text();
        prop_assert_eq!(errors(&text), Vec::<Code>::new(), "{}", text);
    }

    #[test]
    fn any_honest_rendering_of_any_role_is_valid(report in other_role_report()) {
        let text = report.text();
        prop_assert_eq!(errors(&text), Vec::<Code>::new(), "{}", text);
    }

    #[test]
    fn a_dropped_envelope_field_is_missing(report in report(), drop in 0usize..9) {
        let mut report = report;
        report.envelope.remove(drop);
        let text = report.text();
        prop_assert!(errors(&text).contains(&Code::plastic_report_field_missing), "{}", text);
    }

    #[test]
    fn an_unmarked_insight_is_rejected(report in report()) {
        let mut report = report;
        report.envelope[8].1 = "- leases are renewed inside the sweep transaction (autonomous)\n- the fake clock leaves the monotonic clock running".to_string();
        let text = report.text();
        prop_assert!(errors(&text).contains(&Code::plastic_report_insight_unmarked), "{}", text);
    }

    /// No seed sentence states the rule: a warning (the order of
    /// authority), and nothing at all when the mention says it is unrelated.
    #[test]
    fn a_blocker_under_delivered_is_a_warning(report in report()) {
        let mut report = report;
        report.envelope[7].1 = "Blocker: the staging database refuses the migration".to_string();
        let text = report.text();
        let found = artifact::check(Kind::PlasticReport, text.as_bytes()).diagnostics;
        prop_assert!(
            found.iter().any(|d| d.code == Code::plastic_report_delivered_with_blockers && !d.is_error()),
            "{}", text
        );
        prop_assert_eq!(errors(&text), Vec::<Code>::new(), "{}", text);
        report.envelope[7].1 = "heads-up: the deploy pipeline is blocked by an expired token; not related to this change".to_string();
        let text = report.text();
        let found = artifact::check(Kind::PlasticReport, text.as_bytes()).diagnostics;
        prop_assert!(found.is_empty(), "{}\n{:?}", text, found);
    }
}
