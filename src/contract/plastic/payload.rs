//! The per-role payload of a plastic completion report: which parts each of
//! the five roles carries, what each part's label means (matched by
//! meaning, [`super::labels`]), and the value rules that can be checked
//! without guessing at prose.
//!
//! Each part has an authority. The contract document (seed 002, "Per-role
//! payload") states most parts: missing or malformed, they are errors. The
//! Tier lines (brainstorming's tier recommendation, the spec's stamped
//! tier, the planner's tier shape) are asked for only by plastic's role
//! prompts, a lower source: they are warnings
//! (`plastic_report_prompt_part_missing`, `plastic_report_prompt_part_invalid`)
//! unless `contracts.role_prompt_rules: error`.

use super::labels::Concept;
use super::role::Role;
use super::values;

/// Which source states a part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Authority {
    /// The contract document (seed 002): an error when broken.
    Contract,
    /// Only the plastic role prompts: a warning when broken.
    RolePrompt,
}

/// Where a value rule may also find its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    None,
    /// The envelope's Verification / tests run (the executor's test result).
    Verification,
    /// The envelope's Checklist deltas (the executor's checked / total).
    Checklist,
}

/// One payload part of one role.
#[derive(Debug)]
pub struct Part {
    /// The part's name in messages, in the contract's words.
    pub name: &'static str,
    pub concept: Concept,
    /// Whether `none` / `n/a` is an acceptable value.
    pub none_allowed: bool,
    /// A value rule, returning what is wrong.
    pub rule: Option<fn(&str) -> Option<String>>,
    pub authority: Authority,
    /// An envelope field that may carry the value instead.
    pub fallback: Fallback,
}

const fn part(
    name: &'static str,
    concept: Concept,
    none_allowed: bool,
    rule: Option<fn(&str) -> Option<String>>,
) -> Part {
    Part {
        name,
        concept,
        none_allowed,
        rule,
        authority: Authority::Contract,
        fallback: Fallback::None,
    }
}

const fn prompt_part(
    name: &'static str,
    concept: Concept,
    rule: fn(&str) -> Option<String>,
) -> Part {
    Part {
        name,
        concept,
        none_allowed: false,
        rule: Some(rule),
        authority: Authority::RolePrompt,
        fallback: Fallback::None,
    }
}

const fn with_fallback(mut part: Part, fallback: Fallback) -> Part {
    part.fallback = fallback;
    part
}

const BRAINSTORMING: &[Part] = &[
    part(
        "Decisions recorded (with their rationale)",
        Concept {
            signatures: &[(3, &[&["decision"]])],
            vocabulary: &["recorded", "rationale", "key", "made", "taken"],
        },
        false,
        None,
    ),
    part(
        "Context enriched (what was researched, key findings)",
        Concept {
            signatures: &[
                (3, &[&["context"]]),
                (2, &[&["research"]]),
                (2, &[&["finding"]]),
                (1, &[&["enrich"]]),
            ],
            vocabulary: &[
                "enrich",
                "research",
                "key",
                "finding",
                "background",
                "gathered",
            ],
        },
        false,
        None,
    ),
    part(
        "Open questions (resolved, or left for the spec)",
        Concept {
            signatures: &[(3, &[&["question"]])],
            vocabulary: &[
                "open",
                "resolved",
                "left",
                "deliberately",
                "spec",
                "remaining",
                "unresolved",
                "parked",
                "deferred",
            ],
        },
        true,
        None,
    ),
    prompt_part(
        "Tier recommendation",
        Concept {
            signatures: &[(3, &[&["tier"]]), (2, &[&["sizing"]])],
            vocabulary: &["recommend", "rationale", "size", "proposed", "suggested"],
        },
        tier_with_rationale,
    ),
];

const SPEC: &[Part] = &[
    part(
        "Spec sections produced",
        Concept {
            signatures: &[(3, &[&["section"]])],
            vocabulary: &["spec", "produced", "written", "drafted", "created"],
        },
        false,
        Some(names_spec_sections),
    ),
    part(
        "How the recorded decisions resolved into the approach",
        Concept {
            signatures: &[
                (3, &[&["approach"]]),
                (3, &[&["decision"], &["resolv", "approach", "map"]]),
                (2, &[&["decision"]]),
                (2, &[&["resolution", "resolv"]]),
            ],
            vocabulary: &["recorded", "chosen", "resolved", "into", "became", "how"],
        },
        false,
        None,
    ),
    part(
        "Acceptance-criteria count",
        Concept {
            signatures: &[(3, &[&["acceptance", "criteri", "ac$", "acs$"]])],
            vocabulary: &[
                "count", "number", "surface", "cover", "planner", "knows", "total",
            ],
        },
        false,
        Some(positive_count),
    ),
    prompt_part(
        "Tier (the value stamped on spec.md)",
        Concept {
            signatures: &[(3, &[&["tier"]])],
            vocabulary: &["stamped", "value", "top", "spec"],
        },
        tier_letter,
    ),
];

const PLANNER: &[Part] = &[
    part(
        "Ordered actions (one line each, with how each is verified)",
        Concept {
            signatures: &[
                (
                    3,
                    &[
                        &["action", "step", "task"],
                        &["order", "list", "plan", "sequence"],
                    ],
                ),
                (2, &[&["action"]]),
                (1, &[&["plan"]]),
                (1, &[&["step"]]),
            ],
            vocabulary: &["ordered", "verif", "does", "each", "how"],
        },
        false,
        None,
    ),
    part(
        "Decomposition rationale",
        Concept {
            signatures: &[
                (3, &[&["decompos"]]),
                (2, &[&["rationale"]]),
                (
                    2,
                    &[
                        &["sequenc", "ordering", "order"],
                        &["why", "rationale", "reason"],
                    ],
                ),
            ],
            vocabulary: &["why", "order", "independ", "action", "reason"],
        },
        false,
        None,
    ),
    part(
        "Checklist coverage (item count)",
        Concept {
            signatures: &[
                (3, &[&["checklist"], &["coverage", "cover"]]),
                (2, &[&["coverage"]]),
            ],
            vocabulary: &["item", "count", "action", "suite", "green", "covered"],
        },
        false,
        Some(positive_count),
    ),
    prompt_part(
        "Tier shape (inline plan-as-checklist or full actions/)",
        Concept {
            signatures: &[(3, &[&["tier"]]), (2, &[&["shape"]])],
            vocabulary: &["produced", "plan", "inline", "full"],
        },
        tier_shape,
    ),
];

const EXECUTOR: &[Part] = &[
    with_fallback(
        part(
            "Actions implemented, mapped to checklist items (checked / total)",
            Concept {
                signatures: &[
                    (
                        3,
                        &[
                            &["action", "task", "step"],
                            &[
                                "implement",
                                "done",
                                "complet",
                                "taken",
                                "perform",
                                "deliver",
                                "execut",
                                "finish",
                            ],
                        ],
                    ),
                    (3, &[&["checklist"], &["progress"]]),
                    (2, &[&["implement"]]),
                    (2, &[&["progress"]]),
                    (1, &[&["action"]]),
                ],
                vocabulary: &["mapped", "checklist", "item", "checked", "off", "total"],
            },
            false,
            Some(checked_of_total),
        ),
        Fallback::Checklist,
    ),
    part(
        "Summary of the code changed (files and the shape of the change)",
        Concept {
            signatures: &[
                (
                    3,
                    &[
                        &["code"],
                        &["chang", "summar", "touch", "modif", "edit", "diff"],
                    ],
                ),
                (2, &[&["code"]]),
                (2, &[&["change"]]),
                (1, &[&["summary"]]),
                (1, &[&["diff"]]),
            ],
            vocabulary: &["summary", "file", "shape", "made", "changed"],
        },
        false,
        None,
    ),
    with_fallback(
        part(
            "Test result (full-suite command and its pass / fail counts)",
            Concept {
                signatures: &[
                    (
                        3,
                        &[
                            &["test"],
                            &["result", "count", "outcome", "pass", "fail", "summar"],
                        ],
                    ),
                    (3, &[&["suite"]]),
                    (2, &[&["result"]]),
                ],
                vocabulary: &["full", "command", "count", "pass", "fail", "run"],
            },
            false,
            Some(has_counts),
        ),
        Fallback::Verification,
    ),
];

const REVIEWER: &[Part] = &[
    part(
        "Verdict",
        Concept {
            signatures: &[(3, &[&["verdict"]])],
            vocabulary: &["final", "review", "overall", "gate"],
        },
        false,
        Some(verdict),
    ),
    part(
        "Acceptance criteria checked, with evidence",
        Concept {
            signatures: &[
                (3, &[&["acceptance", "criteri", "ac$", "acs$"]]),
                (2, &[&["evidence"]]),
            ],
            vocabulary: &[
                "checked", "evidence", "confirm", "refute", "met", "verified", "review",
            ],
        },
        false,
        None,
    ),
    part(
        "Gaps or risks found, ranked, with a disposition",
        Concept {
            signatures: &[(3, &[&["gap", "risk"]]), (2, &[&["concern"]])],
            vocabulary: &[
                "found",
                "ranked",
                "recommend",
                "disposition",
                "open",
                "remaining",
            ],
        },
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

/// A tier as written: `S`, `M`, `L`, or `small`, `medium`, `large`.
fn tier_of(value: &str) -> Option<char> {
    let normalized = values::normalize(value);
    let first = values::tokens(&normalized).first().copied()?;
    match first {
        "s" | "small" => Some('S'),
        "m" | "medium" => Some('M'),
        "l" | "large" => Some('L'),
        _ => None,
    }
}

fn tier_letter(value: &str) -> Option<String> {
    tier_of(value).is_none().then(|| {
        format!(
            "the tier is `S`, `M` or `L`, not `{}`",
            value.lines().next().unwrap_or_default().trim()
        )
    })
}

fn tier_with_rationale(value: &str) -> Option<String> {
    if let Some(problem) = tier_letter(value) {
        return Some(problem);
    }
    let normalized = values::normalize(value);
    let words = values::tokens(&normalized);
    (words.len() < 2)
        .then(|| "the tier recommendation needs a one-line rationale after the tier".to_string())
}

fn tier_shape(value: &str) -> Option<String> {
    let normalized = values::normalize(value);
    let names_tier = values::tokens(&normalized).iter().any(|w| {
        matches!(
            *w,
            "s" | "m" | "l" | "s/m" | "m/l" | "small" | "medium" | "large"
        )
    });
    (!(names_tier
        || normalized.contains("inline")
        || normalized.contains("actions/")
        || normalized.contains("action files")
        || normalized.contains("plan-as-checklist")))
    .then(|| {
        "the tier shape says inline plan-as-checklist (S/M) or full `actions/` (L)".to_string()
    })
}

/// The six sections a spec carries, each with the spellings that name it.
const SPEC_SECTIONS: &[(&str, &[&str])] = &[
    ("Problem", &["problem"]),
    ("Goals", &["goals", "goal"]),
    (
        "Non-Goals",
        &[
            "non-goals",
            "non-goal",
            "nongoals",
            "non goals",
            "out of scope",
        ],
    ),
    ("Approach", &["approach"]),
    ("Decisions", &["decisions", "decision"]),
    (
        "Acceptance Criteria",
        &["acceptance", "criteria", "ac", "acs"],
    ),
];

fn names_spec_sections(value: &str) -> Option<String> {
    let normalized = values::normalize(value).replace(['_', '#'], " ");
    if normalized.contains("all six") || normalized.contains("all 6") {
        return None;
    }
    let without_non_goals = ["non-goals", "non-goal", "nongoals", "non goals"]
        .iter()
        .fold(normalized.clone(), |text, spelling| {
            text.replace(spelling, " ")
        });
    let names = |spelling: &str, text: &str| {
        if spelling.contains(' ') || spelling.contains('-') {
            text.contains(spelling)
        } else {
            values::tokens(text).contains(&spelling)
        }
    };
    let missing: Vec<&str> = SPEC_SECTIONS
        .iter()
        .filter(|(section, spellings)| {
            let text = if *section == "Goals" {
                without_non_goals.as_str()
            } else {
                normalized.as_str()
            };
            !spellings.iter().any(|s| names(s, text))
        })
        .map(|(section, _)| *section)
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

/// A count >= 1: the first number written (digits or words), or, with no
/// number, the items listed one per line.
fn positive_count(value: &str) -> Option<String> {
    let listed = value
        .lines()
        .filter(|l| super::fields::is_list_item(l))
        .count();
    match values::numbers(value).first() {
        Some(n) if *n >= 1 => None,
        Some(_) => Some("the count must be at least 1".to_string()),
        None if listed >= 1 => None,
        None => Some("the value must state a count (a number)".to_string()),
    }
}

fn has_counts(value: &str) -> Option<String> {
    values::numbers(value).is_empty().then(|| {
        "the test result gives the full-suite command and its pass / fail counts".to_string()
    })
}

/// Checklist progress `checked / total`, with `checked <= total` and
/// `total >= 1`, however it is written.
fn checked_of_total(value: &str) -> Option<String> {
    match values::progress(value) {
        Some((checked, total)) if total >= 1 && checked <= total => None,
        Some((checked, total)) => Some(format!(
            "checklist progress {checked}/{total} is impossible (checked must be 0..=total, total >= 1)"
        )),
        None => Some(
            "the actions implemented map to checklist items as checked / total (for example `3/9`)"
                .to_string(),
        ),
    }
}

/// The index of the reviewer's Verdict in [`parts`].
pub const REVIEWER_VERDICT: usize = 0;

/// True when a reviewer verdict is `blockers found`.
pub fn verdict_is_blockers_found(value: &str) -> bool {
    let spaced = value.replace(['_', '-'], " ");
    values::is_word_then_aside(&spaced, "blockers found")
        || values::is_word_then_aside(&spaced, "blocker found")
}

fn verdict(value: &str) -> Option<String> {
    let spaced = value.replace(['_', '-'], " ");
    (!(values::is_word_then_aside(&spaced, "pass") || verdict_is_blockers_found(value))).then(
        || {
            format!(
                "the verdict is `pass` or `blockers found`, not `{}`",
                value.lines().next().unwrap_or_default().trim()
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::plastic::labels;

    #[test]
    fn value_rules() {
        assert_eq!(tier_letter("M"), None);
        assert_eq!(tier_letter("**L** — big"), None);
        assert_eq!(tier_letter("medium"), None);
        assert!(tier_letter("XL").is_some());
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
        assert_eq!(
            names_spec_sections("problem / goals / non goals / approach / decisions / ACs"),
            None
        );
        let missing =
            names_spec_sections("Problem, Non-Goals, Approach, Decisions, Acceptance Criteria")
                .unwrap();
        assert!(missing.contains("`Goals`"), "{missing}");
        assert_eq!(positive_count("7 criteria"), None);
        assert_eq!(positive_count("seven criteria"), None);
        assert!(positive_count("0").is_some());
        assert!(positive_count("several").is_some());
        assert_eq!(
            positive_count("- rejects an expired token\n- keeps the account"),
            None
        );
        assert_eq!(has_counts("`cargo test`: 212 passed, 0 failed"), None);
        assert!(has_counts("all green").is_some());
        assert_eq!(checked_of_total("n1, n2 -> 5/12 checked"), None);
        assert_eq!(checked_of_total("5 of 12"), None);
        assert_eq!(checked_of_total("checked: 5, total: 12"), None);
        assert!(checked_of_total("13/12").is_some());
        assert!(checked_of_total("0/0").is_some());
        assert!(checked_of_total("most of them").is_some());
        assert_eq!(verdict("pass"), None);
        assert_eq!(verdict("**Blockers found**"), None);
        assert_eq!(verdict("PASS — all five criteria hold"), None);
        assert_eq!(verdict("blockers_found (2)"), None);
        assert!(verdict("pass with notes").is_some());
        assert!(verdict("fail").is_some());
    }

    #[test]
    fn the_contract_wording_and_its_rephrasings_name_each_part() {
        let pick = |role: Role, label: &str| {
            labels::best(label, parts(role).iter().map(|p| (p.name, &p.concept)), 4)
                .map(|(name, _)| name)
        };
        for (role, label, expected) in [
            (
                Role::Brainstorming,
                "Decisions recorded in ### Decisions, each with its one-line rationale",
                0,
            ),
            (Role::Brainstorming, "Key decisions", 0),
            (Role::Brainstorming, "Context enriched", 1),
            (Role::Brainstorming, "Research and key findings", 1),
            (
                Role::Brainstorming,
                "Open questions resolved, and any deliberately left for the spec",
                2,
            ),
            (Role::Brainstorming, "Questions left open", 2),
            (Role::Brainstorming, "Tier recommendation", 3),
            (Role::Spec, "Spec sections produced", 0),
            (Role::Spec, "Sections written", 0),
            (
                Role::Spec,
                "How the recorded decisions resolved into the chosen approach",
                1,
            ),
            (Role::Spec, "Decisions → approach", 1),
            (
                Role::Spec,
                "Acceptance-criteria count, so the planner knows the surface to cover",
                2,
            ),
            (Role::Spec, "AC count", 2),
            (Role::Spec, "Tier", 3),
            (Role::Planner, "The ordered actions, one line each", 0),
            (Role::Planner, "Actions, in order", 0),
            (Role::Planner, "Decomposition rationale", 1),
            (Role::Planner, "Why this order", 1),
            (Role::Planner, "Checklist coverage", 2),
            (Role::Planner, "Tier shape produced", 3),
            (
                Role::Executor,
                "Actions implemented this turn, mapped to checklist items checked off",
                0,
            ),
            (Role::Executor, "Implemented actions", 0),
            (Role::Executor, "Checklist progress", 0),
            (Role::Executor, "A summary of the code changed", 1),
            (Role::Executor, "Code changes", 1),
            (Role::Executor, "Summary of changes", 1),
            (Role::Executor, "Test result", 2),
            (Role::Executor, "Full-suite result", 2),
            (Role::Executor, "Test results (full suite)", 2),
            (Role::Reviewer, "Verdict", 0),
            (
                Role::Reviewer,
                "Each acceptance criterion checked, with the evidence that confirms or refutes it",
                1,
            ),
            (Role::Reviewer, "Acceptance criteria", 1),
            (
                Role::Reviewer,
                "Gaps or risks found, ranked, with a recommended disposition",
                2,
            ),
            (Role::Reviewer, "Risks", 2),
        ] {
            assert_eq!(
                pick(role, label),
                Some(parts(role)[expected].name),
                "{role}: {label}"
            );
        }
    }
}
