//! A plastic completion report (the agent's final message): the nine-field
//! envelope every role carries and the role's payload.
//!
//! The role comes from `--role` when given, else from the report's Role
//! field. A text carrying the synthesized banner is judged by
//! [`super::synthesized`] instead. Payload parts are required of a
//! `delivered` report; a `blocked` report needs only the envelope.

use super::fields::{self, Fields};
use super::payload;
use super::role::Role;
use super::synthesized;
use crate::codes::Code;
use crate::contract::text;
use crate::diagnostic::Diagnostic;

/// Bytes a completion report may have.
pub const MAX_REPORT_BYTES: usize = 1024 * 1024;

/// The envelope's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Delivered,
    Blocked,
}

/// A completion report whose envelope is valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionReport {
    pub role: Role,
    pub intent_id: String,
    pub stage: String,
    pub status: Status,
}

/// The envelope fields, with the intent id and the stage apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Role,
    IntentId,
    Stage,
    Status,
    Artifacts,
    Verification,
    Checklist,
    Deviations,
    Blockers,
    Insights,
}

impl Slot {
    const ALL: [Slot; 10] = [
        Slot::Role,
        Slot::IntentId,
        Slot::Stage,
        Slot::Status,
        Slot::Artifacts,
        Slot::Verification,
        Slot::Checklist,
        Slot::Deviations,
        Slot::Blockers,
        Slot::Insights,
    ];

    fn name(self) -> &'static str {
        match self {
            Slot::Role => "Role",
            Slot::IntentId => "Intent id (of `Intent id and stage`)",
            Slot::Stage => "stage (of `Intent id and stage`)",
            Slot::Status => "Status",
            Slot::Artifacts => "Artifacts written",
            Slot::Verification => "Verification / tests run",
            Slot::Checklist => "Checklist deltas",
            Slot::Deviations => "Deviations from spec",
            Slot::Blockers => "Blockers / handoff notes",
            Slot::Insights => "Insights",
        }
    }
}

/// Envelope labels (normalized) and the slots each fills.
const ENVELOPE_LABELS: &[(&str, &[Slot])] = &[
    ("role", &[Slot::Role]),
    ("intent id and stage", &[Slot::IntentId, Slot::Stage]),
    ("intent and stage", &[Slot::IntentId, Slot::Stage]),
    ("intent id / stage", &[Slot::IntentId, Slot::Stage]),
    ("intent / stage", &[Slot::IntentId, Slot::Stage]),
    ("intent", &[Slot::IntentId]),
    ("intent id", &[Slot::IntentId]),
    ("stage", &[Slot::Stage]),
    ("status", &[Slot::Status]),
    ("artifacts written", &[Slot::Artifacts]),
    ("artifacts", &[Slot::Artifacts]),
    ("verification / tests run", &[Slot::Verification]),
    ("verification", &[Slot::Verification]),
    ("tests run", &[Slot::Verification]),
    ("checklist deltas", &[Slot::Checklist]),
    ("checklist delta", &[Slot::Checklist]),
    ("checklist", &[Slot::Checklist]),
    ("deviations from spec", &[Slot::Deviations]),
    ("deviations", &[Slot::Deviations]),
    ("blockers / handoff notes", &[Slot::Blockers]),
    ("blockers", &[Slot::Blockers]),
    ("handoff notes", &[Slot::Blockers]),
    ("insights", &[Slot::Insights]),
];

/// Labels that are one half of a conjoined envelope label.
fn is_split_half(label: &str) -> bool {
    matches!(
        label,
        "verification" | "tests run" | "blockers" | "handoff notes"
    )
}

fn slots_of(label: &str) -> &'static [Slot] {
    ENVELOPE_LABELS
        .iter()
        .find(|(l, _)| *l == label)
        .map_or(&[], |(_, slots)| slots)
}

const STAGES: &[&str] = &["what", "why", "how", "exec", "done"];
const FILLER: &[&str] = &["intent", "id", "stage", "and"];

fn words(value: &str) -> impl Iterator<Item = &str> {
    value
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .map(|w| w.trim_matches(|c| matches!(c, '.' | '-' | '_')))
        .filter(|w| !w.is_empty())
}

fn stage_in(value: &str) -> Option<&str> {
    words(value).find(|w| STAGES.contains(&w.to_lowercase().as_str()))
}

fn intent_id_in(value: &str) -> Option<&str> {
    if fields::is_not_applicable(value) {
        return None;
    }
    words(value).find(|w| {
        let lower = w.to_lowercase();
        !FILLER.contains(&lower.as_str())
            && !STAGES.contains(&lower.as_str())
            && w.starts_with(|c: char| c.is_ascii_alphanumeric())
    })
}

/// The label set in effect: the envelope, plus the payload of `role`.
fn reader(role: Option<Role>) -> impl Fn(&str) -> bool {
    move |label: &str| {
        !slots_of(label).is_empty() || role.is_some_and(|role| payload::is_label(role, label))
    }
}

/// Check a completion report; `role_option` is `--role`.
pub fn check(
    bytes: &[u8],
    role_option: Option<&str>,
) -> (Option<CompletionReport>, Vec<Diagnostic>) {
    let text = match text::decode(bytes, MAX_REPORT_BYTES, "completion report") {
        Ok(text) => text,
        Err(d) => return (None, vec![d]),
    };
    if text.trim().is_empty() {
        return (
            None,
            vec![Diagnostic::new(
                Code::plastic_report_empty,
                "completion report is empty",
            )],
        );
    }
    if synthesized::is_synthesized(text) {
        return (None, synthesized::check(text).1);
    }
    let option_role = match role_option {
        None => None,
        Some(name) => match Role::parse(name) {
            Some(role) => Some(role),
            None => {
                return (
                    None,
                    vec![Diagnostic::new(
                        Code::role_option_unknown,
                        format!(
                            "--role `{name}` is no plastic role; use {}",
                            Role::ALL
                                .iter()
                                .map(|r| r.name())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )],
                );
            }
        },
    };
    // First pass: the envelope alone, to learn the role when --role is absent.
    let envelope_only = fields::read(text, &reader(None));
    let document_role = envelope_only
        .with_label(&["role"])
        .next()
        .map(|f| (f.line, f.value.clone(), Role::parse(&f.value)));
    let role = option_role.or_else(|| document_role.as_ref().and_then(|(_, _, r)| *r));
    let fields = fields::read(text, &reader(role));
    let mut diagnostics = Vec::new();

    if let Some((line, preamble)) = &fields.preamble {
        diagnostics.push(
            Diagnostic::new(
                Code::plastic_report_preamble,
                format!("prose before the first field: `{preamble}`; the report is prose-stripped"),
            )
            .with_line(Some(*line)),
        );
    }

    let envelope = Envelope::collect(&fields, &mut diagnostics);

    // Role.
    if let Some(field) = envelope.value(Slot::Role) {
        match (Role::parse(&field.value), option_role) {
            (None, _) => diagnostics.push(
                Diagnostic::new(
                    Code::plastic_report_role_unknown,
                    format!(
                        "Role `{}` is not brainstorming, spec, planner, executor or reviewer",
                        field.value
                    ),
                )
                .with_line(Some(field.line)),
            ),
            (Some(written), Some(expected)) if written != expected => diagnostics.push(
                Diagnostic::new(
                    Code::plastic_report_role_mismatch,
                    format!(
                        "Role is `{written}` but the report was validated as `{expected}` (--role)"
                    ),
                )
                .with_line(Some(field.line)),
            ),
            _ => {}
        }
    }

    // Intent id and stage.
    let intent_id = envelope.value(Slot::IntentId).and_then(|field| {
        let id = intent_id_in(&field.value);
        if id.is_none() {
            diagnostics.push(
                Diagnostic::new(
                    Code::plastic_report_intent_invalid,
                    format!(
                        "no intent id in `{}`; write the active intent's id, e.g. `337`",
                        field.value
                    ),
                )
                .with_line(Some(field.line)),
            );
        }
        id.map(str::to_string)
    });
    let stage = envelope.value(Slot::Stage).and_then(|field| {
        let stage = stage_in(&field.value);
        if stage.is_none() {
            diagnostics.push(
                Diagnostic::new(
                    Code::plastic_report_stage_invalid,
                    format!(
                        "no cycle stage in `{}`; name What, Why, How or Exec",
                        field.value
                    ),
                )
                .with_line(Some(field.line)),
            );
        }
        stage.map(str::to_string)
    });

    // Status.
    let status =
        envelope
            .value(Slot::Status)
            .and_then(|field| match fields::strip_markup(&field.value) {
                "delivered" => Some(Status::Delivered),
                "blocked" => Some(Status::Blocked),
                other => {
                    let hint = if other.starts_with("synthesized") {
                        " (a synthesized report keeps its banner and exact form)"
                    } else {
                        ""
                    };
                    diagnostics.push(
                    Diagnostic::new(
                        Code::plastic_report_status_invalid,
                        format!(
                            "Status is `{other}`; it must be exactly `delivered` or `blocked`{hint}"
                        ),
                    )
                    .with_line(Some(field.line)),
                );
                    None
                }
            });

    // Payload and the executor's insight marker.
    if let Some(role) = role {
        if status == Some(Status::Delivered) {
            let verification = envelope.value(Slot::Verification).map(|f| f.value.as_str());
            diagnostics.extend(payload::check(role, &fields, verification));
        }
        if role == Role::Executor
            && let Some(field) = envelope.value(Slot::Insights)
            && !fields::is_not_applicable(&field.value)
        {
            for item in fields::items(&field.value) {
                if !item.contains("(autonomous)") {
                    diagnostics.push(
                        Diagnostic::new(
                            Code::plastic_report_insight_unmarked,
                            format!("executor insight `{item}` lacks the `(autonomous)` marker"),
                        )
                        .with_line(Some(field.line)),
                    );
                }
            }
        }
    }

    let report = match (role, intent_id, stage, status) {
        (Some(role), Some(intent_id), Some(stage), Some(status))
            if !diagnostics.iter().any(Diagnostic::is_error) =>
        {
            Some(CompletionReport {
                role,
                intent_id,
                stage,
                status,
            })
        }
        _ => None,
    };
    (report, diagnostics)
}

/// The envelope fields found, one per slot, after reporting missing,
/// duplicated and empty ones.
struct Envelope<'a> {
    slots: Vec<(Slot, &'a fields::Field)>,
}

impl<'a> Envelope<'a> {
    fn collect(fields: &'a Fields, diagnostics: &mut Vec<Diagnostic>) -> Envelope<'a> {
        let mut slots: Vec<(Slot, &fields::Field)> = Vec::new();
        let mut labels_seen: Vec<(&str, u32)> = Vec::new();
        for field in &fields.fields {
            let field_slots = slots_of(&field.label);
            if field_slots.is_empty() {
                continue;
            }
            let repeated_label = labels_seen.iter().find(|(l, _)| *l == field.label);
            // The halves of a conjoined label (`Verification` + `Tests run`,
            // `Blockers` + `Handoff notes`) may both appear; any other second
            // filling of a slot is a duplicate.
            let clash = field_slots.iter().find_map(|slot| {
                slots
                    .iter()
                    .find(|(s, other)| {
                        s == slot && !(is_split_half(&field.label) && is_split_half(&other.label))
                    })
                    .map(|(_, other)| other.line)
            });
            if let Some(first) = repeated_label.map(|(_, line)| *line).or(clash) {
                diagnostics.push(
                    Diagnostic::new(
                        Code::plastic_report_field_duplicated,
                        format!(
                            "field `{}` appears again (first on line {first})",
                            field.label
                        ),
                    )
                    .with_line(Some(field.line)),
                );
                continue;
            }
            labels_seen.push((&field.label, field.line));
            if field.value.is_empty() {
                diagnostics.push(
                    Diagnostic::new(
                        Code::plastic_report_field_empty,
                        format!(
                            "field `{}` has no value; write `n/a` or `none` if it does not apply",
                            field.label
                        ),
                    )
                    .with_line(Some(field.line)),
                );
            }
            for &slot in field_slots {
                // Aliases of one field (Verification + Tests run) merge: the first one counts.
                if !slots.iter().any(|(s, _)| *s == slot) {
                    slots.push((slot, field));
                }
            }
        }
        for slot in Slot::ALL {
            if !slots.iter().any(|(s, _)| *s == slot) {
                let also = match slot {
                    Slot::IntentId | Slot::Stage => {
                        "; write `Intent id and stage: <id> / <stage>` or separate `Intent` and `Stage` fields"
                    }
                    _ => "",
                };
                diagnostics.push(Diagnostic::new(
                    Code::plastic_report_field_missing,
                    format!("the envelope field `{}` is missing{also}", slot.name()),
                ));
            }
        }
        Envelope { slots }
    }

    /// The field for `slot` when it has a value.
    fn value(&self, slot: Slot) -> Option<&'a fields::Field> {
        self.slots
            .iter()
            .find(|(s, f)| *s == slot && !f.value.is_empty())
            .map(|(_, f)| *f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLANNER: &str = "- **Role**: plastic-planner
- **Intent id and stage**: 337 / How
- **Status**: delivered
- **Artifacts written**: store/337--roadmap-graph/plan.md, checklist.md
- **Verification / tests run**: n/a
- **Checklist deltas**: n/a
- **Deviations from spec**: none
- **Blockers / handoff notes**: none
- **Insights**: none
- **Ordered actions**:
  1. n1 graph model, verified by graph_model_test
  2. n2 tree renderer, verified by tree_render_test
- **Decomposition rationale**: n1 first because n2 reads its model.
- **Checklist coverage**: 9 items; every action plus suite-green is covered.
- **Tier shape**: full actions/ (L)
";

    fn codes(text: &str, role: Option<&str>) -> Vec<Code> {
        check(text.as_bytes(), role)
            .1
            .into_iter()
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn a_full_planner_report_is_valid() {
        let (report, d) = check(PLANNER.as_bytes(), None);
        assert!(d.is_empty(), "{d:?}");
        let report = report.unwrap();
        assert_eq!(report.role, Role::Planner);
        assert_eq!(report.intent_id, "337");
        assert_eq!(report.stage, "How");
        assert_eq!(report.status, Status::Delivered);
        assert!(codes(PLANNER, Some("plastic-planner")).is_empty());
    }

    #[test]
    fn envelope_rules() {
        let cases: &[(&str, &str, Code)] = &[
            (
                "- **Status**: delivered\n",
                "- **Status**: done\n",
                Code::plastic_report_status_invalid,
            ),
            (
                "- **Status**: delivered\n",
                "- **Status**: Delivered\n",
                Code::plastic_report_status_invalid,
            ),
            (
                "- **Role**: plastic-planner\n",
                "- **Role**: enforcer\n",
                Code::plastic_report_role_unknown,
            ),
            (
                "- **Insights**: none\n",
                "",
                Code::plastic_report_field_missing,
            ),
            (
                "- **Insights**: none\n",
                "- **Insights**:\n",
                Code::plastic_report_field_empty,
            ),
            (
                "- **Deviations from spec**: none\n",
                "- **Deviations from spec**: none\n- **Deviations**: x\n",
                Code::plastic_report_field_duplicated,
            ),
            ("337 / How", "How", Code::plastic_report_intent_invalid),
            ("337 / How", "337", Code::plastic_report_stage_invalid),
        ];
        for (from, to, code) in cases {
            assert!(PLANNER.contains(from), "{from}");
            let text = PLANNER.replacen(from, to, 1);
            assert_eq!(codes(&text, None), vec![*code], "{to:?}");
        }
        assert_eq!(
            codes(PLANNER, Some("executor")),
            vec![
                Code::plastic_report_role_mismatch,
                Code::plastic_report_payload_missing,
                Code::plastic_report_payload_missing,
                Code::plastic_report_payload_missing
            ]
        );
        assert_eq!(
            codes(PLANNER, Some("enforcer")),
            vec![Code::role_option_unknown]
        );
        assert_eq!(codes("  \n", None), vec![Code::plastic_report_empty]);
        assert_eq!(
            codes(&format!("Here is what I did.\n{PLANNER}"), None),
            vec![Code::plastic_report_preamble]
        );
    }

    #[test]
    fn tolerant_markup() {
        let plain = "# Completion report\n\nRole: planner\nIntent: 337 - roadmap graph\nStage: How\nStatus: `delivered`\nArtifacts: plan.md\nTests run: n/a\nChecklist: n/a\nDeviations: none\nHandoff notes: watch n3\nBlockers: none\nINSIGHTS: none\n\n## Ordered actions\n| # | action | verified by |\n|---|---|---|\n| 1 | model | graph_model_test |\n\n## Decomposition rationale\nmodel first.\n\n## Checklist coverage\n4 items\n\n## Tier shape\ninline plan-as-checklist (M)\n";
        let (report, d) = check(plain.as_bytes(), None);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(report.unwrap().intent_id, "337");
        // The combined and the split intent forms clash.
        let both = plain.replace(
            "Stage: How\n",
            "Stage: How\nIntent id and stage: 337 / How\n",
        );
        assert_eq!(
            codes(&both, None),
            vec![Code::plastic_report_field_duplicated]
        );
    }

    #[test]
    fn blocked_reports_need_only_the_envelope() {
        let blocked = "Role: executor\nIntent id and stage: 74 / Exec\nStatus: blocked\nArtifacts written: none\nVerification: cargo test: 3 failed\nChecklist deltas: n/a\nDeviations from spec: none\nBlockers / handoff notes: the fixture server is down\nInsights: none\n";
        assert!(codes(blocked, None).is_empty());
        assert_eq!(
            codes(&blocked.replace("blocked\n", "delivered\n"), None),
            vec![
                Code::plastic_report_payload_missing,
                Code::plastic_report_payload_missing
            ]
        );
    }

    /// A delivered report of `role` with `payload` lines after the envelope.
    fn delivered(role: &str, stage: &str, payload: &[(&str, &str)]) -> String {
        let mut text = format!(
            "Role: {role}\nIntent id and stage: 74 / {stage}\nStatus: delivered\nArtifacts written: spec.md\nVerification / tests run: n/a\nChecklist deltas: n/a\nDeviations from spec: none\nBlockers / handoff notes: none\nInsights: none\n"
        );
        for (label, value) in payload {
            text.push_str(&format!("{label}: {value}\n"));
        }
        text
    }

    /// Every payload part of every role: the full report passes; without the
    /// part it is `payload_missing`; with `n/a` it is missing unless the part
    /// allows it; with a value its rule rejects, it is `payload_invalid`.
    #[test]
    fn every_role_payload_part_is_required_and_checked() {
        type Part<'a> = (&'a str, &'a str, Option<&'a str>);
        let roles: &[(&str, &str, &[Part])] = &[
            (
                "brainstorming",
                "Why",
                &[
                    ("Decisions", "D1 keep one parser: fewer drifts", None),
                    (
                        "Context enriched",
                        "read GraphEdges; the cycle walk already exists",
                        None,
                    ),
                    ("Open questions", "none", None),
                    (
                        "Tier recommendation",
                        "M - two modules, one seam",
                        Some("medium"),
                    ),
                ],
            ),
            (
                "spec-specialist",
                "Why -> How",
                &[
                    (
                        "Spec sections",
                        "Problem, Goals, Non-Goals, Approach, Decisions, Acceptance Criteria",
                        Some("Problem, Approach"),
                    ),
                    (
                        "Approach",
                        "D1 and D2 make the model the single reader",
                        None,
                    ),
                    ("Acceptance criteria", "7", Some("several")),
                    ("Tier", "M", Some("XL")),
                ],
            ),
            (
                "planner",
                "How",
                &[
                    ("Ordered actions", "1. model, verified by model_test", None),
                    (
                        "Decomposition rationale",
                        "the model first, the renderer reads it",
                        None,
                    ),
                    (
                        "Checklist coverage",
                        "9 items, every action plus suite-green",
                        Some("all of them"),
                    ),
                    (
                        "Tier shape",
                        "inline plan-as-checklist (M)",
                        Some("a good one"),
                    ),
                ],
            ),
            (
                "executor",
                "Exec",
                &[
                    ("Actions implemented", "3/9", Some("12/9")),
                    ("Code changed", "src/runner.rb gains the sweep arm", None),
                    (
                        "Test result",
                        "rake test: 214 runs, 0 failures",
                        Some("green"),
                    ),
                ],
            ),
            (
                "reviewer",
                "Exec",
                &[
                    ("Verdict", "blockers found", Some("pass with notes")),
                    (
                        "Acceptance criteria",
                        "AC1 holds: row 3.2 fails before, passes after",
                        None,
                    ),
                    ("Gaps and risks", "none", None),
                ],
            ),
        ];
        for (role, stage, parts) in roles {
            let full: Vec<(&str, &str)> = parts.iter().map(|(l, v, _)| (*l, *v)).collect();
            assert_eq!(
                codes(&delivered(role, stage, &full), None),
                vec![],
                "{role}"
            );
            for (index, (label, _, bad)) in parts.iter().enumerate() {
                let without: Vec<_> = full
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != index)
                    .map(|(_, p)| *p)
                    .collect();
                assert_eq!(
                    codes(&delivered(role, stage, &without), None),
                    vec![Code::plastic_report_payload_missing],
                    "{role} without {label}"
                );
                let allows_none = payload::parts(Role::parse(role).unwrap())[index].none_allowed;
                let mut na = full.clone();
                na[index].1 = "n/a";
                let expected = if allows_none {
                    vec![]
                } else {
                    vec![Code::plastic_report_payload_missing]
                };
                assert_eq!(
                    codes(&delivered(role, stage, &na), None),
                    expected,
                    "{role} {label}: n/a"
                );
                if let Some(bad) = bad {
                    let mut broken = full.clone();
                    broken[index].1 = bad;
                    assert_eq!(
                        codes(&delivered(role, stage, &broken), None),
                        vec![Code::plastic_report_payload_invalid],
                        "{role} {label}: {bad}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_executor_test_result_may_ride_in_the_verification_field() {
        let text = delivered(
            "executor",
            "Exec",
            &[("Actions implemented", "3/9"), ("Code changed", "x")],
        )
        .replace(
            "Verification / tests run: n/a",
            "Verification / tests run: rake test: 214 runs, 0 failures",
        );
        assert_eq!(codes(&text, None), vec![]);
        let vague = text.replace("rake test: 214 runs, 0 failures", "all green");
        assert_eq!(
            codes(&vague, None),
            vec![Code::plastic_report_payload_invalid]
        );
        let marked = text.replace(
            "Insights: none",
            "Insights:\n- leases first (autonomous)\n- sweeps first",
        );
        assert_eq!(
            codes(&marked, None),
            vec![Code::plastic_report_insight_unmarked]
        );
    }

    #[test]
    fn envelope_and_payload_labels_do_not_overlap() {
        for &role in Role::ALL {
            for part in payload::parts(role) {
                for label in part.labels {
                    assert!(slots_of(label).is_empty(), "{role}: {label}");
                }
            }
        }
    }
}
