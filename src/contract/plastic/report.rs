//! A plastic completion report (the agent's final message): the nine-field
//! envelope every role carries and the role's payload.
//!
//! The role comes from `--role` when given, else from the report's Role
//! field. A text carrying the synthesized banner is judged by
//! [`super::synthesized`] instead. Labels are matched by meaning
//! ([`super::labels`]), values read with one normalisation
//! ([`super::values`]). Payload parts are required of a `delivered` report;
//! a `blocked` report needs only the envelope. A `delivered` report that
//! names a blocker contradicts itself.

use super::envelope::{self, Slot};
use super::fields::{self, Field, Fields, Form};
use super::labels::{self, Match};
use super::payload::{self, Authority, Fallback};
use super::role::Role;
use super::synthesized;
use super::values;
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

/// What a label names: an envelope field or a part of the role's payload
/// (by its index in [`payload::parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Slot(Slot),
    Part(usize),
}

/// The labeler for a role (`None`: the envelope alone).
fn labeler(role: Option<Role>) -> impl Fn(&str, usize) -> Option<(Target, Match)> {
    move |label: &str, slack: usize| {
        let parts: &[payload::Part] = role.map_or(&[], payload::parts);
        labels::best(
            label,
            Slot::LABELS
                .iter()
                .map(|slot| (Target::Slot(*slot), slot.concept()))
                .chain(
                    parts
                        .iter()
                        .enumerate()
                        .map(|(index, part)| (Target::Part(index), &part.concept)),
                ),
            slack,
        )
    }
}

fn role_option(name: &str) -> Result<Role, Diagnostic> {
    Role::parse(name).ok_or_else(|| {
        Diagnostic::new(
            Code::role_option_unknown,
            format!(
                "--role `{name}` is no plastic role; use {}",
                Role::ALL
                    .iter()
                    .map(|r| r.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })
}

/// Check a completion report; `role_option` is `--role`.
pub fn check(
    bytes: &[u8],
    role_option: Option<&str>,
) -> (Option<CompletionReport>, Vec<Diagnostic>) {
    let text = match text::decode(bytes, MAX_REPORT_BYTES, "completion report") {
        Ok(text) => text.strip_prefix('\u{feff}').unwrap_or(text),
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
    let option_role = match role_option.map(self::role_option).transpose() {
        Ok(role) => role,
        Err(d) => return (None, vec![d]),
    };
    // First pass: the envelope alone, to learn the role when --role is absent.
    let envelope_only = fields::read(text, &labeler(None));
    let document_role = envelope_only
        .of(Target::Slot(Slot::Role))
        .next()
        .and_then(|f| Role::parse(&f.value));
    let role = option_role.or(document_role);
    let fields = fields::read(text, &labeler(role));
    let mut diagnostics = Vec::new();

    if let Some((line, preamble)) = &fields.preamble {
        diagnostics.push(
            Diagnostic::new(
                Code::plastic_report_preamble,
                format!(
                    "prose before the first field: {}; the report is prose-stripped",
                    text::code(preamble)
                ),
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
                        "Role {} is not brainstorming, spec, planner, executor or reviewer",
                        text::code(first_line(&field.value))
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
        let id = envelope::intent_id_in(&field.value);
        if id.is_none() {
            diagnostics.push(
                Diagnostic::new(
                    Code::plastic_report_intent_invalid,
                    format!(
                        "no intent id in {}; write the active intent's id, e.g. `337`",
                        text::code(first_line(&field.value))
                    ),
                )
                .with_line(Some(field.line)),
            );
        }
        id
    });
    let stage = envelope.value(Slot::Stage).and_then(|field| {
        let stage = envelope::stage_in(&field.value);
        if stage.is_none() {
            diagnostics.push(
                Diagnostic::new(
                    Code::plastic_report_stage_invalid,
                    format!(
                        "no cycle stage in {}; name What, Why, How or Exec",
                        text::code(first_line(&field.value))
                    ),
                )
                .with_line(Some(field.line)),
            );
        }
        stage
    });

    // Status.
    let status = envelope.value(Slot::Status).and_then(|field| {
        if values::starts_with_word(&field.value, "delivered") {
            return Some(Status::Delivered);
        }
        if values::starts_with_word(&field.value, "blocked") {
            return Some(Status::Blocked);
        }
        let shown = first_line(&field.value);
        let hint = if values::normalize(shown).starts_with("synthesized") {
            " (a synthesized report keeps its banner and exact form)"
        } else {
            ""
        };
        diagnostics.push(
            Diagnostic::new(
                Code::plastic_report_status_invalid,
                format!(
                    "Status is {}; it must be `delivered` or `blocked`{hint}",
                    text::code(shown)
                ),
            )
            .with_line(Some(field.line)),
        );
        None
    });

    // A delivered report with a blocker contradicts itself; a reviewer whose
    // verdict is `blockers found` lists the blockers it found in the code.
    let reviewer_found_blockers = role == Some(Role::Reviewer)
        && fields
            .of(Target::Part(payload::REVIEWER_VERDICT))
            .next()
            .is_some_and(|f| payload::verdict_is_blockers_found(&f.value));
    if status == Some(Status::Delivered) && !reviewer_found_blockers {
        for field in envelope.all(Slot::Blockers) {
            if envelope::names_a_blocker(&labels::words(&field.label), &field.value) {
                diagnostics.push(
                    Diagnostic::new(
                        Code::plastic_report_delivered_with_blockers,
                        format!(
                            "Status is `delivered` but {} names a blocker: {}; a report whose work is blocked is `blocked` (if it is unrelated to this change, say so)",
                            text::code(&field.label),
                            text::code(first_line(&field.value))
                        ),
                    )
                    .with_line(Some(field.line)),
                );
                break;
            }
        }
    }

    // Payload and the executor's insight marker.
    if let Some(role) = role {
        if status == Some(Status::Delivered) {
            diagnostics.extend(check_payload(role, &fields, &envelope));
        }
        if role == Role::Executor {
            diagnostics.extend(unmarked_insights(&envelope));
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

fn first_line(value: &str) -> &str {
    value
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
}

/// Executor insights each carry the `(autonomous)` marker.
fn unmarked_insights(envelope: &Envelope<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for field in envelope.all(Slot::Insights) {
        if field.value.is_empty()
            || values::is_not_applicable(&field.value)
            || envelope::is_reference(&field.value)
        {
            continue;
        }
        for item in fields::items(&field.value) {
            if values::is_not_applicable(&item) {
                continue;
            }
            if !item.to_lowercase().contains("(autonomous)") {
                out.push(
                    Diagnostic::new(
                        Code::plastic_report_insight_unmarked,
                        format!(
                            "executor insight {} lacks the `(autonomous)` marker",
                            text::code(&item)
                        ),
                    )
                    .with_line(Some(field.line)),
                );
            }
        }
    }
    out
}

/// The payload of a delivered report of `role`.
fn check_payload(role: Role, fields: &Fields<Target>, envelope: &Envelope<'_>) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for (index, part) in payload::parts(role).iter().enumerate() {
        let (missing_code, invalid_code) = match part.authority {
            Authority::Contract => (
                Code::plastic_report_payload_missing,
                Code::plastic_report_payload_invalid,
            ),
            Authority::RolePrompt => (
                Code::plastic_report_prompt_part_missing,
                Code::plastic_report_prompt_part_invalid,
            ),
        };
        let fallback = match part.fallback {
            Fallback::None => None,
            Fallback::Verification => envelope.value(Slot::Verification),
            Fallback::Checklist => envelope.value(Slot::Checklist),
        }
        .filter(|f| !values::is_not_applicable(&f.value));
        let found: Vec<&Field<Target>> = fields.of(Target::Part(index)).collect();
        // A part named twice (`Summary` and `Code changed`): the first that
        // satisfies the part counts.
        let satisfies = |f: &&&Field<Target>| {
            !f.value.is_empty()
                && !values::is_not_applicable(&f.value)
                && part.rule.is_none_or(|rule| rule(&f.value).is_none())
        };
        let chosen = found.iter().find(satisfies).or(found.first()).copied();
        let Some(field) = chosen else {
            match (fallback, part.rule) {
                (Some(carrier), Some(rule)) => {
                    if let Some(problem) = rule(&carrier.value) {
                        diagnostics.push(
                            Diagnostic::new(
                                invalid_code,
                                format!(
                                    "{role} payload `{}` (carried by `{}`): {problem}",
                                    part.name, carrier.label
                                ),
                            )
                            .with_line(Some(carrier.line)),
                        );
                    }
                }
                (Some(_), None) => {}
                (None, _) => diagnostics.push(Diagnostic::new(
                    missing_code,
                    format!(
                        "{role} report lacks its payload part `{}`{}",
                        part.name,
                        match part.authority {
                            Authority::Contract => "",
                            Authority::RolePrompt => " (asked for by the plastic role prompt)",
                        }
                    ),
                )),
            }
            continue;
        };
        let value = field.value.as_str();
        if value.is_empty() {
            diagnostics.push(
                Diagnostic::new(
                    Code::plastic_report_field_empty,
                    format!(
                        "payload part `{}` has no value; write it, or `none` where it does not apply",
                        part.name
                    ),
                )
                .with_line(Some(field.line)),
            );
            continue;
        }
        if values::is_not_applicable(value) {
            if !part.none_allowed {
                diagnostics.push(
                    Diagnostic::new(
                        missing_code,
                        format!(
                            "{role} payload `{}` is {}; a delivered {role} report carries it",
                            part.name,
                            text::code(first_line(value))
                        ),
                    )
                    .with_line(Some(field.line)),
                );
            }
            continue;
        }
        let Some(rule) = part.rule else { continue };
        // The value, the label's aside (`Actions implemented (2/4)`), or
        // the envelope field that may carry it.
        if let Some(problem) = rule(value) {
            // The contract's own label sentence may run on past its colon
            // (`Verdict: \`pass\` or \`blockers found\`: pass`): the value is
            // what follows the last colon of the first line.
            let after_template = first_line(value)
                .rsplit_once(": ")
                .map(|(_, tail)| tail)
                .filter(|tail| !tail.trim().is_empty());
            // A heading label's template (`## Verdict: \`pass\` or ...`) puts
            // the value on a line of its own.
            let some_line = || {
                value.lines().count() > 1
                    && value
                        .lines()
                        .any(|l| !l.trim().is_empty() && rule(l).is_none())
            };
            if rule(&format!("{} {value}", field.label)).is_none()
                || after_template.is_some_and(|tail| rule(tail).is_none())
                || some_line()
                || fallback.is_some_and(|carrier| rule(&carrier.value).is_none())
            {
                continue;
            }
            diagnostics.push(
                Diagnostic::new(
                    invalid_code,
                    format!("{role} payload `{}`: {problem}", part.name),
                )
                .with_line(Some(field.line)),
            );
        }
    }
    diagnostics
}

/// The envelope fields found, one per slot, after reporting missing,
/// duplicated and empty ones.
struct Envelope<'a> {
    /// The first field of each slot.
    slots: Vec<(Slot, &'a Field<Target>)>,
    /// Every field of each slot (merged slots keep all).
    every: Vec<(Slot, &'a Field<Target>)>,
}

impl<'a> Envelope<'a> {
    fn collect(fields: &'a Fields<Target>, diagnostics: &mut Vec<Diagnostic>) -> Envelope<'a> {
        let mut slots: Vec<(Slot, &Field<Target>)> = Vec::new();
        let mut every: Vec<(Slot, &Field<Target>)> = Vec::new();
        for field in &fields.fields {
            let Target::Slot(target) = field.target else {
                continue;
            };
            // "Reported in the `insights:` field" points at the field; it
            // is not the field.
            if target == Slot::Insights && envelope::is_reference(&field.value) {
                continue;
            }
            let clash = target
                .fills()
                .iter()
                .find_map(|slot| slots.iter().find(|(s, _)| s == slot))
                .map(|(_, other)| other.line);
            // A weak label (`Checklist`, `Tests`) that names a field already
            // given is more likely prose of the payload than a second field.
            if clash.is_some() && !field.found.is_strong() {
                continue;
            }
            if let Some(first) = clash
                && !target.merges()
            {
                diagnostics.push(
                    Diagnostic::new(
                        Code::plastic_report_field_duplicated,
                        format!(
                            "field `{}` ({}) appears again (first on line {first})",
                            field.label,
                            target.name()
                        ),
                    )
                    .with_line(Some(field.line)),
                );
                continue;
            }
            let empty = field.value.is_empty();
            if empty && clash.is_none() {
                let heading = matches!(field.form, Form::Heading(_));
                diagnostics.push(
                    Diagnostic::new(
                        Code::plastic_report_field_empty,
                        format!(
                            "field `{}` has no value{}; write `n/a` or `none` if it does not apply",
                            field.label,
                            if heading { " under its heading" } else { "" }
                        ),
                    )
                    .with_line(Some(field.line)),
                );
            }
            for &slot in target.fills() {
                every.push((slot, field));
                if !slots.iter().any(|(s, _)| *s == slot) {
                    slots.push((slot, field));
                }
            }
        }
        // `Intent: 418 (Exec)` names the stage too, and `Stage: Exec
        // (intent 418)` the intent: one half given inside the other counts.
        let given = |slots: &[(Slot, &'a Field<Target>)], slot: Slot| {
            slots.iter().find(|(s, _)| *s == slot).map(|(_, f)| *f)
        };
        if let (Some(intent), None) = (given(&slots, Slot::IntentId), given(&slots, Slot::Stage))
            && envelope::stage_named_in(&intent.value).is_some()
        {
            slots.push((Slot::Stage, intent));
        }
        if let (None, Some(stage)) = (given(&slots, Slot::IntentId), given(&slots, Slot::Stage))
            && !values::numbers(&stage.value).is_empty()
            && envelope::intent_id_in(&stage.value)
                .is_some_and(|id| id.chars().any(|c| c.is_ascii_digit()))
        {
            slots.push((Slot::IntentId, stage));
        }
        for slot in Slot::REQUIRED {
            if !slots.iter().any(|(s, _)| *s == slot) {
                let message = match slot {
                    Slot::IntentId | Slot::Stage => format!(
                        "the {} of the envelope field `Intent id and stage` is missing; write `Intent id and stage: <id> / <stage>` or separate `Intent` and `Stage` fields",
                        if slot == Slot::IntentId {
                            "intent id"
                        } else {
                            "stage"
                        }
                    ),
                    _ => format!(
                        "the envelope field `{}` is missing; write `n/a` or `none` when it does not apply",
                        slot.name()
                    ),
                };
                diagnostics.push(Diagnostic::new(Code::plastic_report_field_missing, message));
            }
        }
        Envelope { slots, every }
    }

    /// The field for `slot` when it has a value.
    fn value(&self, slot: Slot) -> Option<&'a Field<Target>> {
        self.slots
            .iter()
            .chain(self.every.iter())
            .find(|(s, f)| *s == slot && !f.value.is_empty())
            .map(|(_, f)| *f)
    }

    /// Every field given for `slot`.
    fn all(&self, slot: Slot) -> impl Iterator<Item = &'a Field<Target>> + '_ {
        self.every
            .iter()
            .filter(move |(s, _)| *s == slot)
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
                "- **Status**: partially delivered\n",
                Code::plastic_report_status_invalid,
            ),
            (
                "- **Blockers / handoff notes**: none\n",
                "- **Blockers / handoff notes**: Blocker: the staging DB is down\n",
                Code::plastic_report_delivered_with_blockers,
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
    /// part it is missing (an error for a part the contract states, a
    /// warning for a Tier line only the role prompts ask for); `n/a` counts
    /// as missing unless the part allows it; a value its rule rejects is
    /// invalid, with the same split.
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
                        Some("XL"),
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
                let part = &payload::parts(Role::parse(role).unwrap())[index];
                let (missing, invalid) = match part.authority {
                    Authority::Contract => (
                        Code::plastic_report_payload_missing,
                        Code::plastic_report_payload_invalid,
                    ),
                    Authority::RolePrompt => (
                        Code::plastic_report_prompt_part_missing,
                        Code::plastic_report_prompt_part_invalid,
                    ),
                };
                let without: Vec<_> = full
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != index)
                    .map(|(_, p)| *p)
                    .collect();
                let (_, d) = check(delivered(role, stage, &without).as_bytes(), None);
                assert_eq!(
                    d.iter().map(|d| d.code).collect::<Vec<_>>(),
                    vec![missing],
                    "{role} without {label}"
                );
                assert_eq!(
                    d[0].is_error(),
                    part.authority == Authority::Contract,
                    "{role} {label}"
                );
                let mut na = full.clone();
                na[index].1 = "n/a";
                let expected = if part.none_allowed {
                    vec![]
                } else {
                    vec![missing]
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
                        vec![invalid],
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
    fn one_normalisation_and_no_absorbed_blocks() {
        // Case, emphasis and a final period do not matter.
        for status in ["Delivered", "**delivered**", "delivered.", "`DELIVERED`"] {
            let text = PLANNER.replace(
                "- **Status**: delivered",
                &format!("- **Status**: {status}"),
            );
            assert!(codes(&text, None).is_empty(), "{status}");
        }
        // `Insights: none` followed by a bold payload heading is not two
        // unmarked insights.
        let executor = "Role: executor\nIntent id and stage: 74 / Exec\nStatus: delivered\nArtifacts written: src/a.rb\nVerification / tests run: rake test: 12 runs, 0 failures\nChecklist deltas: items 1 and 2 checked off\nDeviations from spec: none\nBlockers / handoff notes: none\nInsights: none\n**Actions implemented (checked / total)**\n2/5: the lease check\n**Code changed**\nsrc/a.rb gains the lease check\n";
        assert_eq!(codes(executor, None), vec![]);
        // Progress in words, checked / total labelled.
        let worded = executor.replace("2/5: the lease check", "two of five: the lease check");
        assert_eq!(codes(&worded, None), vec![]);
        let labelled = executor.replace("2/5: the lease check", "checked: 2, total: 5");
        assert_eq!(codes(&labelled, None), vec![]);
    }
}
