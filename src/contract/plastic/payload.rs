//! The per-role payload of a plastic completion report: which parts each of
//! the five roles must carry, the labels each part may be written under, and
//! the value rules that can be checked without guessing at prose.

use super::fields::{self, Fields};
use super::role::Role;
use crate::codes::Code;
use crate::diagnostic::Diagnostic;

/// One payload part of one role.
#[derive(Debug)]
pub struct Part {
    /// The part's name in messages.
    pub name: &'static str,
    /// Normalized labels the part may be written under.
    pub labels: &'static [&'static str],
    /// Whether `none` / `n/a` is an acceptable value.
    pub none_allowed: bool,
    /// A value rule, returning what is wrong.
    pub rule: Option<fn(&str) -> Option<String>>,
}

const fn part(
    name: &'static str,
    labels: &'static [&'static str],
    none_allowed: bool,
    rule: Option<fn(&str) -> Option<String>>,
) -> Part {
    Part {
        name,
        labels,
        none_allowed,
        rule,
    }
}

const BRAINSTORMING: &[Part] = &[
    part(
        "Decisions",
        &["decisions", "decisions recorded"],
        false,
        None,
    ),
    part(
        "Context enriched",
        &["context", "context enriched"],
        false,
        None,
    ),
    part(
        "Open questions",
        &["open questions", "open questions resolved", "questions"],
        true,
        None,
    ),
    part(
        "Tier recommendation",
        &["tier", "tier recommendation"],
        false,
        Some(tier_with_rationale),
    ),
];

const SPEC: &[Part] = &[
    part(
        "Spec sections produced",
        &[
            "spec sections",
            "spec sections produced",
            "sections",
            "sections produced",
        ],
        false,
        Some(names_spec_sections),
    ),
    part(
        "How decisions resolved into the approach",
        &[
            "approach",
            "decisions resolved",
            "decision resolution",
            "how decisions resolved",
        ],
        false,
        None,
    ),
    part(
        "Acceptance-criteria count",
        &[
            "acceptance criteria",
            "acceptance-criteria count",
            "acceptance criteria count",
            "criteria count",
        ],
        false,
        Some(positive_count),
    ),
    part("Tier", &["tier"], false, Some(tier_letter)),
];

const PLANNER: &[Part] = &[
    part(
        "Ordered actions",
        &["ordered actions", "actions", "plan"],
        false,
        None,
    ),
    part(
        "Decomposition rationale",
        &["decomposition rationale", "decomposition", "rationale"],
        false,
        None,
    ),
    part(
        "Checklist coverage",
        &["checklist coverage", "coverage"],
        false,
        Some(positive_count),
    ),
    part(
        "Tier shape",
        &["tier shape", "shape", "tier"],
        false,
        Some(tier_shape),
    ),
];

const EXECUTOR: &[Part] = &[
    part(
        "Actions implemented (checked / total)",
        &["actions implemented", "actions", "checklist progress"],
        false,
        Some(checked_of_total),
    ),
    part(
        "Code changed",
        &[
            "code changed",
            "summary of code changed",
            "changes",
            "code summary",
            "summary",
        ],
        false,
        None,
    ),
    part(
        "Test result",
        &["test result", "test results", "tests", "full suite"],
        false,
        Some(has_counts),
    ),
];

const REVIEWER: &[Part] = &[
    part("Verdict", &["verdict"], false, Some(verdict)),
    part(
        "Acceptance criteria with evidence",
        &[
            "acceptance criteria",
            "acceptance criteria checked",
            "criteria",
        ],
        false,
        None,
    ),
    part(
        "Gaps and risks",
        &[
            "gaps",
            "risks",
            "gaps / risks",
            "gaps and risks",
            "gaps or risks",
            "gaps and risks found",
            "gaps or risks found",
        ],
        true,
        None,
    ),
];

/// The payload parts of `role`.
pub fn parts(role: Role) -> &'static [Part] {
    match role {
        Role::Brainstorming => BRAINSTORMING,
        Role::Spec => SPEC,
        Role::Planner => PLANNER,
        Role::Executor => EXECUTOR,
        Role::Reviewer => REVIEWER,
    }
}

/// True when `label` names a payload part of `role`.
pub fn is_label(role: Role, label: &str) -> bool {
    parts(role).iter().any(|p| p.labels.contains(&label))
}

fn first_word(value: &str) -> String {
    fields::strip_markup(value)
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '.' | ':'))
        .find(|w| !w.is_empty())
        .map(|w| fields::strip_markup(w).to_string())
        .unwrap_or_default()
}

fn is_tier(word: &str) -> bool {
    matches!(word, "S" | "M" | "L")
}

fn tier_letter(value: &str) -> Option<String> {
    let word = first_word(value);
    (!is_tier(&word)).then(|| format!("tier must start with `S`, `M` or `L`, not `{word}`"))
}

fn tier_with_rationale(value: &str) -> Option<String> {
    if let Some(problem) = tier_letter(value) {
        return Some(problem);
    }
    let rest = fields::strip_markup(value)
        .trim_start_matches(['S', 'M', 'L', '*', '`'])
        .trim_start_matches(|c: char| c.is_whitespace() || "-—–:,;(".contains(c));
    rest.trim()
        .is_empty()
        .then(|| "the tier recommendation needs a one-line rationale after the tier".to_string())
}

fn tier_shape(value: &str) -> Option<String> {
    let lower = value.to_lowercase();
    let words: Vec<&str> = value
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '/')
        .collect();
    let names_tier = words
        .iter()
        .any(|w| is_tier(w) || matches!(*w, "S/M" | "M/L"));
    (!(names_tier || lower.contains("inline") || lower.contains("actions/"))).then(|| {
        "tier shape must say inline plan-as-checklist (S/M) or full `actions/` (L)".to_string()
    })
}

const SPEC_SECTIONS: &[&str] = &[
    "Problem",
    "Goals",
    "Non-Goals",
    "Approach",
    "Decisions",
    "Acceptance Criteria",
];

fn names_spec_sections(value: &str) -> Option<String> {
    let lower = value.to_lowercase();
    // "Goals" must appear outside "Non-Goals" too.
    let without_non_goals = lower.replace("non-goals", "").replace("non goals", "");
    let missing: Vec<&str> = SPEC_SECTIONS
        .iter()
        .copied()
        .filter(|section| {
            let needle = section.to_lowercase();
            match *section {
                "Goals" => !without_non_goals.contains("goals"),
                "Non-Goals" => !(lower.contains("non-goals") || lower.contains("non goals")),
                _ => !lower.contains(&needle),
            }
        })
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "spec sections produced does not name {}",
            missing
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

fn numbers(value: &str) -> Vec<u64> {
    value
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .filter_map(|w| w.parse().ok())
        .collect()
}

fn positive_count(value: &str) -> Option<String> {
    match numbers(value).first() {
        Some(n) if *n >= 1 => None,
        Some(_) => Some("the count must be at least 1".to_string()),
        None => Some("the value must state a count (a number)".to_string()),
    }
}

fn has_counts(value: &str) -> Option<String> {
    numbers(value).is_empty().then(|| {
        "the test result must give the full-suite command and its pass / fail counts".to_string()
    })
}

/// `N/M`, `N / M` or `N of M`, with `N <= M` and `M >= 1`.
fn checked_of_total(value: &str) -> Option<String> {
    let flat = value.replace(" of ", "/").replace(' ', "");
    let pair = flat
        .split('/')
        .collect::<Vec<_>>()
        .windows(2)
        .find_map(|w| {
            let checked: String = w[0]
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect();
            let total: String = w[1].chars().take_while(char::is_ascii_digit).collect();
            let checked: String = checked.chars().rev().collect();
            Some((checked.parse::<u64>().ok()?, total.parse::<u64>().ok()?))
        });
    match pair {
        Some((checked, total)) if total >= 1 && checked <= total => None,
        Some((checked, total)) => Some(format!(
            "checklist progress {checked}/{total} is impossible (checked must be 0..=total, total >= 1)"
        )),
        None => {
            Some("actions implemented must map to checklist items as `checked/total`".to_string())
        }
    }
}

fn verdict(value: &str) -> Option<String> {
    let v = fields::strip_markup(value)
        .trim_end_matches('.')
        .to_lowercase();
    (!matches!(v.as_str(), "pass" | "blockers found")).then(|| {
        format!(
            "verdict must be `pass` or `blockers found`, not `{}`",
            value.trim()
        )
    })
}

/// Check the payload of a delivered report of `role`. The executor's test
/// result may be carried by the envelope's verification field instead.
pub fn check(role: Role, fields: &Fields, verification: Option<&str>) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for part in parts(role) {
        let found: Vec<_> = fields.with_label(part.labels).collect();
        let Some(field) = found.first() else {
            let fallback = (role == Role::Executor && part.name == "Test result")
                .then_some(verification)
                .flatten()
                .filter(|v| !fields::is_not_applicable(v) && !v.trim().is_empty());
            match (fallback, part.rule) {
                (Some(v), Some(rule)) => {
                    if let Some(problem) = rule(v) {
                        diagnostics.push(Diagnostic::new(
                            Code::plastic_report_payload_invalid,
                            format!(
                                "{role} payload `{}` (from Verification / tests run): {problem}",
                                part.name
                            ),
                        ));
                    }
                }
                (Some(_), None) => {}
                (None, _) => diagnostics.push(Diagnostic::new(
                    Code::plastic_report_payload_missing,
                    format!(
                        "{role} report lacks its payload part `{}` (labels: {})",
                        part.name,
                        part.labels.join(", ")
                    ),
                )),
            }
            continue;
        };
        for extra in found.iter().skip(1) {
            diagnostics.push(
                Diagnostic::new(
                    Code::plastic_report_field_duplicated,
                    format!(
                        "payload part `{}` appears again (first on line {})",
                        part.name, field.line
                    ),
                )
                .with_line(Some(extra.line)),
            );
        }
        let value = field.value.as_str();
        if value.is_empty() {
            diagnostics.push(
                Diagnostic::new(
                    Code::plastic_report_field_empty,
                    format!("payload part `{}` has no value", part.name),
                )
                .with_line(Some(field.line)),
            );
            continue;
        }
        if fields::is_not_applicable(value) {
            if !part.none_allowed {
                diagnostics.push(
                    Diagnostic::new(
                        Code::plastic_report_payload_missing,
                        format!(
                            "{role} payload `{}` is `{}`; a delivered {role} report must carry it",
                            part.name,
                            value.trim()
                        ),
                    )
                    .with_line(Some(field.line)),
                );
            }
            continue;
        }
        if let Some(problem) = part.rule.and_then(|rule| rule(value)) {
            diagnostics.push(
                Diagnostic::new(
                    Code::plastic_report_payload_invalid,
                    format!("{role} payload `{}`: {problem}", part.name),
                )
                .with_line(Some(field.line)),
            );
        }
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_rules() {
        assert_eq!(tier_letter("M"), None);
        assert_eq!(tier_letter("**L** — big"), None);
        assert!(tier_letter("medium").is_some());
        assert_eq!(tier_with_rationale("M — two modules, one seam"), None);
        assert!(tier_with_rationale("M").is_some());
        assert_eq!(tier_shape("inline plan-as-checklist (S/M)"), None);
        assert_eq!(tier_shape("full actions/ (L)"), None);
        assert!(tier_shape("a good one").is_some());
        assert_eq!(
            names_spec_sections(
                "Problem, Goals, Non-Goals, Approach, Decisions, Acceptance Criteria"
            ),
            None
        );
        let missing =
            names_spec_sections("Problem, Non-Goals, Approach, Decisions, Acceptance Criteria")
                .unwrap();
        assert!(missing.contains("`Goals`"), "{missing}");
        assert_eq!(positive_count("7 criteria"), None);
        assert!(positive_count("0").is_some());
        assert!(positive_count("several").is_some());
        assert_eq!(has_counts("`cargo test`: 212 passed, 0 failed"), None);
        assert!(has_counts("all green").is_some());
        assert_eq!(checked_of_total("n1, n2 -> 5/12 checked"), None);
        assert_eq!(checked_of_total("5 of 12"), None);
        assert_eq!(checked_of_total("5 / 12"), None);
        assert!(checked_of_total("13/12").is_some());
        assert!(checked_of_total("0/0").is_some());
        assert!(checked_of_total("most of them").is_some());
        assert_eq!(verdict("pass"), None);
        assert_eq!(verdict("**Blockers found**"), None);
        assert!(verdict("pass with notes").is_some());
    }

    #[test]
    fn every_role_has_parts_with_distinct_labels() {
        for &role in Role::ALL {
            let mut labels: Vec<&str> = parts(role)
                .iter()
                .flat_map(|p| p.labels.iter().copied())
                .collect();
            let before = labels.len();
            labels.sort_unstable();
            labels.dedup();
            assert_eq!(labels.len(), before, "{role}");
        }
    }
}
