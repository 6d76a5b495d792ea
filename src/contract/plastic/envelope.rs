//! The common envelope of a plastic completion report (seed 002, "Common
//! envelope"): its nine fields, what their labels mean, and how their
//! values read. Every role carries it, whatever the stage.

use super::labels::Concept;
use super::values;

/// What an envelope label names. `Intent id and stage` fills two slots;
/// `Intent` and `Stage` may also come apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    Role,
    IntentAndStage,
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
    /// Every label target, in the order a report lists them.
    pub const LABELS: [Slot; 11] = [
        Slot::Role,
        Slot::IntentAndStage,
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

    /// The slots a report must fill (the combined label fills two).
    pub const REQUIRED: [Slot; 10] = [
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

    /// The slots a label of this target fills.
    pub fn fills(self) -> &'static [Slot] {
        match self {
            Slot::IntentAndStage => &[Slot::IntentId, Slot::Stage],
            Slot::Role => &[Slot::Role],
            Slot::IntentId => &[Slot::IntentId],
            Slot::Stage => &[Slot::Stage],
            Slot::Status => &[Slot::Status],
            Slot::Artifacts => &[Slot::Artifacts],
            Slot::Verification => &[Slot::Verification],
            Slot::Checklist => &[Slot::Checklist],
            Slot::Deviations => &[Slot::Deviations],
            Slot::Blockers => &[Slot::Blockers],
            Slot::Insights => &[Slot::Insights],
        }
    }

    /// Whether a second label for the slot merges with the first instead
    /// of being a duplicate: the conjoined labels (`Verification` + `Tests
    /// run`, `Blockers` + `Handoff notes`) and Insights, which every role
    /// payload repeats ("reported in the `insights:` field").
    pub fn merges(self) -> bool {
        matches!(self, Slot::Verification | Slot::Blockers | Slot::Insights)
    }

    /// The field's name in the contract.
    pub fn name(self) -> &'static str {
        match self {
            Slot::Role => "Role",
            Slot::IntentAndStage => "Intent id and stage",
            Slot::IntentId => "Intent id",
            Slot::Stage => "Stage",
            Slot::Status => "Status",
            Slot::Artifacts => "Artifacts written",
            Slot::Verification => "Verification / tests run",
            Slot::Checklist => "Checklist deltas",
            Slot::Deviations => "Deviations from spec",
            Slot::Blockers => "Blockers / handoff notes",
            Slot::Insights => "Insights",
        }
    }

    /// What the label means.
    pub fn concept(self) -> &'static Concept {
        match self {
            Slot::Role => &ROLE,
            Slot::IntentAndStage => &INTENT_AND_STAGE,
            Slot::IntentId => &INTENT,
            Slot::Stage => &STAGE,
            Slot::Status => &STATUS,
            Slot::Artifacts => &ARTIFACTS,
            Slot::Verification => &VERIFICATION,
            Slot::Checklist => &CHECKLIST,
            Slot::Deviations => &DEVIATIONS,
            Slot::Blockers => &BLOCKERS,
            Slot::Insights => &INSIGHTS,
        }
    }
}

const ROLE: Concept = Concept {
    signatures: &[(2, &[&["role"]]), (2, &[&["specialist"]])],
    vocabulary: &["agent", "dispatched", "produced", "subagent"],
};
const INTENT_AND_STAGE: Concept = Concept {
    signatures: &[(4, &[&["intent"], &["stage", "phase"]])],
    vocabulary: &[
        "id",
        "cycle",
        "active",
        "completed",
        "just",
        "current",
        "number",
    ],
};
const INTENT: Concept = Concept {
    signatures: &[(2, &[&["intent"]])],
    vocabulary: &["id", "active", "number", "name", "slug"],
};
const STAGE: Concept = Concept {
    signatures: &[(2, &[&["stage"]]), (1, &[&["cycle"], &["step"]])],
    vocabulary: &["cycle", "completed", "just", "current"],
};
const STATUS: Concept = Concept {
    signatures: &[(2, &[&["status"]])],
    vocabulary: &["delivery", "final", "agent", "turn"],
};
const ARTIFACTS: Concept = Concept {
    signatures: &[
        (3, &[&["artifact", "artefact"]]),
        (
            3,
            &[
                &["file", "output", "deliverable"],
                &[
                    "written", "wrote", "produc", "creat", "chang", "touch", "modif", "edit",
                    "updat",
                ],
            ],
        ),
        (1, &[&["output"]]),
        (1, &[&["deliverable"]]),
    ],
    vocabulary: &[
        "written", "produced", "changed", "created", "store", "path", "project", "file",
        "modified", "touched",
    ],
};
const VERIFICATION: Concept = Concept {
    signatures: &[
        (3, &[&["verif"]]),
        (
            2,
            &[
                &["test", "check", "command"],
                &["run", "ran", "execut", "perform"],
            ],
        ),
        (1, &[&["test"]]),
        (1, &[&["validation"]]),
    ],
    vocabulary: &["run", "test", "result", "command", "check", "suite"],
};
const CHECKLIST: Concept = Concept {
    signatures: &[
        (
            2,
            &[
                &["checklist"],
                &["delta", "change", "checked", "tick", "update", "item"],
            ],
        ),
        (1, &[&["checklist"]]),
    ],
    vocabulary: &["item", "checked", "off", "delta"],
};
const DEVIATIONS: Concept = Concept {
    signatures: &[
        (3, &[&["deviat"]]),
        (
            2,
            &[
                &["spec", "plan"],
                &["change", "differ", "diverg", "departure"],
            ],
        ),
    ],
    vocabulary: &["spec", "plan", "from", "why"],
};
const BLOCKERS: Concept = Concept {
    signatures: &[
        (3, &[&["block"]]),
        (3, &[&["handoff"]]),
        (3, &[&["next"], &["stage", "step", "agent"]]),
        (2, &[&["hand"], &["over"]]),
    ],
    vocabulary: &["note", "watch", "for", "next"],
};
const INSIGHTS: Concept = Concept {
    signatures: &[
        (3, &[&["insight"]]),
        (2, &[&["nugget"]]),
        (2, &[&["learning", "lesson"]]),
        (2, &[&["discover"]]),
    ],
    vocabulary: &["durable", "learned", "new", "key"],
};

/// The cycle stages a stage value may name, with the spellings of each.
const STAGES: &[(&str, &[&str])] = &[
    ("What", &["what"]),
    ("Why", &["why", "brainstorming", "exploration"]),
    ("How", &["how", "planning", "plan", "spec", "specification"]),
    (
        "Exec",
        &["exec", "execution", "executing", "implementation", "build"],
    ),
    ("Done", &["done", "delivered", "final", "review", "gate"]),
];

/// The stage a value names, as written (`How`, `exec`, `Why -> How`).
pub fn stage_in(value: &str) -> Option<String> {
    let normalized = values::normalize(value);
    values::tokens(&normalized)
        .into_iter()
        .find(|w| STAGES.iter().any(|(_, spellings)| spellings.contains(w)))
        .map(|w| {
            // Return the original spelling's case from the value.
            let lower = value.to_lowercase();
            match lower.find(w) {
                Some(at) => value.get(at..at + w.len()).unwrap_or(w).to_string(),
                None => w.to_string(),
            }
        })
}

/// A stage named inside another field's value: a capitalised stage name
/// (`418 (Exec)`) or a stage word beside the word `stage` (`stage how`).
pub fn stage_named_in(value: &str) -> Option<String> {
    let words: Vec<&str> = value
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let is_stage = |w: &str| {
        STAGES
            .iter()
            .any(|(_, spellings)| spellings.contains(&w.to_lowercase().as_str()))
    };
    words.iter().enumerate().find_map(|(i, w)| {
        let named = matches!(*w, "What" | "Why" | "How" | "Exec" | "Execution" | "Done");
        let beside_stage = is_stage(w)
            && [i.checked_sub(1), Some(i + 1)]
                .into_iter()
                .flatten()
                .filter_map(|j| words.get(j))
                .any(|n| n.eq_ignore_ascii_case("stage"));
        (named || beside_stage).then(|| w.to_string())
    })
}

const FILLER: &[&str] = &[
    "intent", "id", "stage", "and", "cycle", "the", "of", "no", "#",
];

/// The intent id a value names: the first word with a digit (`337`,
/// `4a1c1`, `#74`), else the first word that is no filler and no stage.
pub fn intent_id_in(value: &str) -> Option<String> {
    if values::is_not_applicable(value) {
        return None;
    }
    let normalized = values::normalize(value);
    let words: Vec<&str> = normalized
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .map(|w| w.trim_matches(|c| matches!(c, '.' | '-' | '_')))
        .filter(|w| !w.is_empty())
        .collect();
    let is_stage = |w: &str| STAGES.iter().any(|(_, spellings)| spellings.contains(&w));
    words
        .iter()
        .find(|w| w.chars().any(|c| c.is_ascii_digit()))
        .or_else(|| words.iter().find(|w| !FILLER.contains(w) && !is_stage(w)))
        .map(|w| w.to_string())
}

const NEGATIONS: &[&str] = &[
    "no", "not", "nothing", "none", "never", "without", "zero", "nor", "isn't", "aren't", "wasn't",
    "n't", "longer", "un",
];
const STUCK: &[&str] = &[
    "cannot proceed",
    "can't proceed",
    "unable to proceed",
    "could not proceed",
    "cannot continue",
    "can't continue",
    "unable to continue",
];

/// Phrases that say a mention is about something else than this change
/// ("the deploy pipeline is blocked by an expired token; not related to
/// this change"): a blocked mention in the same item is no blocker of the
/// report.
const UNRELATED: &[&str] = &[
    "unrelated",
    "not related",
    "isn't related",
    "is not related",
    "nothing to do with",
    "not caused by",
    "independent of",
    "independently of",
    "does not affect",
    "doesn't affect",
    "do not affect",
    "don't affect",
    "not affected",
    "does not depend",
    "doesn't depend",
    "nothing here depends",
    "nothing here waits",
    "outside this change",
    "outside of this change",
    "outside this intent",
    "outside this task",
    "outside the scope",
    "out of scope",
    "pre-existing",
    "preexisting",
    "not part of this",
    "not this change",
    "not this intent",
    "not this task",
];

/// Whether an item of the field says that what it mentions is unrelated
/// to this change.
pub fn says_unrelated(item: &str) -> bool {
    let normalized = values::normalize(item);
    UNRELATED.iter().any(|phrase| normalized.contains(phrase))
}

/// What the Blockers / handoff notes field says about blockers: a field
/// labelled only `Blockers` that is not `none`, or a sentence that says
/// something is blocked (`Blocker: ...`, `the migration is blocked by
/// ...`, `cannot proceed`) without negating it (`no blockers`, `nothing
/// is blocking`, `not blocked`). An item (a list item, else a line) that
/// says its subject is unrelated to this change (`unrelated`, `does not
/// affect this change`, `pre-existing`, ...) names no blocker of the
/// report.
pub fn names_a_blocker(label_words: &[String], value: &str) -> bool {
    if values::is_not_applicable(value) {
        return false;
    }
    let items: Vec<String> = super::fields::items(value)
        .into_iter()
        .filter(|item| !says_unrelated(item))
        .collect();
    if items.is_empty() {
        return false;
    }
    let only_blockers = label_words.iter().any(|w| w.starts_with("block"))
        && !label_words
            .iter()
            .any(|w| w.starts_with("handoff") || w.starts_with("note") || w.starts_with("next"));
    if only_blockers {
        return true;
    }
    items
        .iter()
        .flat_map(|item| item.split([';', '.']))
        .map(|part| values::normalize(super::fields::strip_list_marker(part.trim())))
        .any(|part| {
            if STUCK.iter().any(|phrase| part.contains(phrase)) {
                return true;
            }
            let words = values::tokens(&part);
            words.iter().enumerate().any(|(index, word)| {
                let blocking = matches!(*word, "blocker" | "blockers" | "blocked" | "blocking");
                if !blocking {
                    return false;
                }
                let negated = words[index.saturating_sub(3)..index]
                    .iter()
                    .any(|w| NEGATIONS.contains(w) || w.ends_with("n't"));
                let rest = &words[index + 1..];
                // `Blockers: none` / `blocked: n/a`.
                let says_none = rest
                    .first()
                    .is_some_and(|w| matches!(*w, "none" | "n/a" | "nothing" | "no"));
                // A sentence that opens with the word, or `blocked by` /
                // `blocked on` (a dependency of a later action, `blocked
                // until ACTION_3 lands`, is a handoff note).
                let states = index == 0
                    || (*word == "blocked"
                        && rest.first().is_some_and(|w| matches!(*w, "by" | "on")));
                states && !negated && !says_none && !rest.is_empty()
            })
        })
}

/// Whether an Insights value points elsewhere instead of listing nuggets
/// ("reported in the `insights:` field above", "see the envelope").
pub fn is_reference(value: &str) -> bool {
    let first = value
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    if values::is_not_applicable(first) {
        return false;
    }
    let normalized = values::normalize(first);
    let words = values::tokens(&normalized);
    let pointer = words.iter().any(|w| {
        matches!(
            *w,
            "above" | "below" | "envelope" | "earlier" | "field" | "section"
        )
    });
    let verb = words.iter().any(|w| {
        matches!(
            *w,
            "see" | "reported" | "listed" | "carried" | "captured" | "recorded" | "given" | "as"
        )
    });
    let bare = matches!(
        normalized.as_str(),
        "above" | "below" | "see above" | "see below"
    );
    (bare || (pointer && verb)) && !normalized.contains("(autonomous)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::plastic::labels;

    fn pick(label: &str) -> Option<Slot> {
        labels::best(label, Slot::LABELS.iter().map(|s| (*s, s.concept())), 4).map(|(s, _)| s)
    }

    #[test]
    fn envelope_labels_by_meaning() {
        for (label, slot) in [
            ("Role", Slot::Role),
            ("Agent role", Slot::Role),
            ("Intent id and stage", Slot::IntentAndStage),
            ("Intent / stage", Slot::IntentAndStage),
            ("Intent ID & cycle stage", Slot::IntentAndStage),
            ("Intent", Slot::IntentId),
            ("intent_id", Slot::IntentId),
            ("Stage", Slot::Stage),
            ("Stage completed", Slot::Stage),
            ("Status", Slot::Status),
            ("Artifacts written", Slot::Artifacts),
            ("Artefacts", Slot::Artifacts),
            ("Files written", Slot::Artifacts),
            ("Files changed", Slot::Artifacts),
            ("Verification / tests run", Slot::Verification),
            ("Verification", Slot::Verification),
            ("Tests run", Slot::Verification),
            ("Tests", Slot::Verification),
            ("Verification / test results", Slot::Verification),
            ("Checklist deltas", Slot::Checklist),
            ("Checklist", Slot::Checklist),
            ("Checklist items checked off", Slot::Checklist),
            ("Deviations from spec", Slot::Deviations),
            ("Deviations from spec or plan, and why", Slot::Deviations),
            ("Blockers / handoff notes", Slot::Blockers),
            ("Blockers", Slot::Blockers),
            ("Hand-off notes", Slot::Blockers),
            ("Notes for the next stage", Slot::Blockers),
            ("Insights", Slot::Insights),
            ("Durable insights", Slot::Insights),
        ] {
            assert_eq!(pick(label), Some(slot), "{label}");
        }
        for label in [
            "Payload",
            "Completion report",
            "Summary",
            "Notes",
            "Here is what I did",
        ] {
            assert_eq!(pick(label), None, "{label}");
        }
    }

    #[test]
    fn values() {
        assert_eq!(stage_in("337 / How").as_deref(), Some("How"));
        assert_eq!(stage_in("74 (exec)").as_deref(), Some("exec"));
        assert_eq!(stage_in("337"), None);
        assert_eq!(stage_named_in("418 (Exec stage)").as_deref(), Some("Exec"));
        assert_eq!(stage_named_in("418, stage how").as_deref(), Some("how"));
        assert_eq!(stage_named_in("418 — plan the lease sweeps"), None);
        assert_eq!(intent_id_in("337 / How").as_deref(), Some("337"));
        assert_eq!(
            intent_id_in("intent 4a1c1, stage Why").as_deref(),
            Some("4a1c1")
        );
        assert_eq!(intent_id_in("**#74** — Exec").as_deref(), Some("74"));
        assert_eq!(intent_id_in("How"), None);
        assert_eq!(intent_id_in("n/a"), None);
        let words = |l: &str| labels::words(l);
        assert!(names_a_blocker(
            &words("Blockers"),
            "the staging DB is down"
        ));
        assert!(!names_a_blocker(&words("Blockers"), "None."));
        assert!(!names_a_blocker(
            &words("Blockers / handoff notes"),
            "watch the n3 migration"
        ));
        assert!(names_a_blocker(
            &words("Blockers / handoff notes"),
            "Blocker: the fixture server is down"
        ));
        assert!(names_a_blocker(
            &words("Blockers / handoff notes"),
            "- Blocked by the missing API key\n- watch n3"
        ));
        assert!(!names_a_blocker(
            &words("Blockers / handoff notes"),
            "Blockers: none; handoff: watch n3"
        ));
        assert!(!names_a_blocker(
            &words("Blockers / handoff notes"),
            "No blockers. Watch n3."
        ));
        assert!(is_reference("reported in the `insights:` field above"));
        assert!(is_reference("see above"));
        assert!(!is_reference(
            "leases go above sweeps in the queue (autonomous)"
        ));
        assert!(!is_reference("the lease table needs an index"));
    }
}
