//! The synthesized fallback report of `scripts/agent-report`: a fixed
//! ten-line block derived from the intent directory when an agent returned
//! nothing usable.
//!
//! A synthesized report is recognised as such, and is **not** a delivered
//! report: its Status is the fixed `synthesized (...)` text, never
//! `delivered` or `blocked`, and it carries no agent-authored account. A
//! well-formed one is `plastic_report_synthesized`, a warning by default
//! because the seed makes the contract "never a hard block" (decision D3);
//! `contracts.synthesized_reports: error` makes it an error for teams that
//! require agent-authored reports. A block that starts with the banner but
//! deviates from the exact form is `plastic_synthesized_malformed`, always
//! an error: the script is a pure function, so any deviation is a hand
//! edit.

use crate::codes::Code;
use crate::diagnostic::Diagnostic;

pub const BANNER: &str = "=== Plastic agent report (synthesized) ===";
pub const END: &str = "=== end report ===";
pub const STATUS: &str = "synthesized (filesystem-derived; no agent-authored report)";

/// The eight labelled lines between the banners, in order.
const LABELS: [&str; 8] = [
    "Intent",
    "Stage",
    "Role",
    "Status",
    "Artifacts present",
    "Checklist",
    "Outcome",
    "Insights",
];

/// Lifecycle artifacts after the intent file, in the order the script lists them.
const ARTIFACTS: [&str; 5] = [
    "spec.md",
    "plan.md",
    "checklist.md",
    "outcome.md",
    "actions/",
];

/// A well-formed synthesized report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Synthesized {
    pub intent_id: String,
    pub stage: String,
    pub role: String,
    pub checklist: Option<(u64, u64)>,
}

/// True when the text contains the synthesized banner line anywhere.
pub fn is_synthesized(text: &str) -> bool {
    text.lines().any(|line| line.trim_end() == BANNER)
}

fn malformed(line: u32, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Code::plastic_synthesized_malformed, message).with_line(Some(line))
}

fn check_artifacts(value: &str) -> Option<String> {
    if value == "(none)" {
        return None;
    }
    let items: Vec<&str> = value.split(", ").collect();
    let mut next = 0;
    for (index, item) in items.iter().enumerate() {
        if let Some(position) = ARTIFACTS.iter().position(|a| a == item) {
            if position < next {
                return Some(format!(
                    "`{item}` is out of order; the script lists the intent file, then {}",
                    ARTIFACTS.join(", ")
                ));
            }
            next = position + 1;
        } else if !(index == 0 && item.ends_with(".md") && item.contains("--")) {
            return Some(format!(
                "`{item}` is not an artifact the script lists (the intent file first, then {})",
                ARTIFACTS.join(", ")
            ));
        }
    }
    None
}

/// Why a `Checklist:` value is not one the script writes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ChecklistError {
    /// `0/0`: a checklist without items is `n/a`.
    NoItems,
    /// More checked items than items.
    Overchecked { checked: u64, total: u64 },
    /// Neither `<checked>/<total>` nor `n/a`.
    Malformed(String),
}

impl std::fmt::Display for ChecklistError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChecklistError::NoItems => {
                f.write_str("`Checklist: 0/0` is never written; a checklist without items is `n/a`")
            }
            ChecklistError::Overchecked { checked, total } => write!(
                f,
                "checklist {checked}/{total} has more checked items than items"
            ),
            ChecklistError::Malformed(value) => write!(
                f,
                "`Checklist` is `<checked>/<total>` or `n/a`, not `{value}`"
            ),
        }
    }
}

impl std::error::Error for ChecklistError {}

fn check_checklist(value: &str) -> Result<Option<(u64, u64)>, ChecklistError> {
    if value == "n/a" {
        return Ok(None);
    }
    let parsed = value.split_once('/').and_then(|(c, t)| {
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        (all_digits(c) && all_digits(t)).then(|| (c.parse::<u64>().ok(), t.parse::<u64>().ok()))
    });
    match parsed {
        Some((Some(0), Some(0))) => Err(ChecklistError::NoItems),
        Some((Some(checked), Some(total))) if checked <= total => Ok(Some((checked, total))),
        Some((Some(checked), Some(total))) => Err(ChecklistError::Overchecked { checked, total }),
        _ => Err(ChecklistError::Malformed(value.to_string())),
    }
}

/// Check a text known to contain the banner: the exact form, then the
/// verdict that a synthesized report is no delivered report.
pub fn check(text: &str) -> (Option<Synthesized>, Vec<Diagnostic>) {
    // Line endings and trailing blank lines are the carrier's, not the
    // script's: `\r\n` and a final blank line are read as the script wrote.
    let body = text.trim_end_matches(['\n', '\r', ' ', '\t']);
    let lines: Vec<&str> = body
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut diagnostics = Vec::new();
    if lines.first() != Some(&BANNER) {
        let at = lines
            .iter()
            .position(|l| l.trim_end() == BANNER)
            .unwrap_or(0);
        return (
            None,
            vec![malformed(
                crate::contract::text::line_number(at),
                format!("a synthesized report starts with `{BANNER}` on line 1, exactly"),
            )],
        );
    }
    if lines.len() != LABELS.len() + 2 || lines.last() != Some(&END) {
        let at = lines
            .iter()
            .position(|l| *l == END)
            .unwrap_or(lines.len().saturating_sub(1));
        return (
            None,
            vec![malformed(
                crate::contract::text::line_number(at),
                format!(
                    "a synthesized report is exactly ten lines: the banner, {}, then `{END}` and nothing after",
                    LABELS.join(", ")
                ),
            )],
        );
    }
    let mut values = [""; 8];
    for (index, label) in LABELS.iter().enumerate() {
        let number = crate::contract::text::line_number(index + 1);
        let line = lines[index + 1];
        match line.strip_prefix(label).and_then(|r| r.strip_prefix(": ")) {
            Some(value) if !value.trim().is_empty() => values[index] = value,
            _ => diagnostics.push(malformed(
                number,
                format!("line {number} must be `{label}: <value>`, found `{line}`"),
            )),
        }
    }
    if !diagnostics.is_empty() {
        return (None, diagnostics);
    }
    let [
        intent,
        stage,
        role,
        status,
        artifacts,
        checklist,
        _outcome,
        _insights,
    ] = values;
    let intent_id = match intent.split_once(" - ") {
        Some((id, name)) if !id.trim().is_empty() && !name.trim().is_empty() => id.to_string(),
        _ => {
            diagnostics.push(malformed(
                2,
                format!(
                    "`Intent` reads `<id> - <intent>` (`(unknown)` when missing), not `{intent}`"
                ),
            ));
            String::new()
        }
    };
    if status != STATUS {
        diagnostics.push(malformed(
            5,
            format!("a synthesized Status is exactly `{STATUS}`, not `{status}`"),
        ));
    }
    if let Some(problem) = check_artifacts(artifacts) {
        diagnostics.push(malformed(6, problem));
    }
    let checklist = match check_checklist(checklist) {
        Ok(counts) => counts,
        Err(problem) => {
            diagnostics.push(malformed(7, problem.to_string()));
            None
        }
    };
    if !diagnostics.is_empty() {
        return (None, diagnostics);
    }
    diagnostics.push(
        Diagnostic::new(
            Code::plastic_report_synthesized,
            format!(
                "synthesized fallback report for intent {intent_id} (stage `{stage}`): it records what the filesystem shows, not an agent-authored delivered report"
            ),
        )
        .with_line(Some(1)),
    );
    (
        Some(Synthesized {
            intent_id,
            stage: stage.to_string(),
            role: role.to_string(),
            checklist,
        }),
        diagnostics,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "=== Plastic agent report (synthesized) ===\n\
Intent: 340 - Runner core in the harness session\n\
Stage: 2026-09-11T04:20:04Z  Done  delivered\n\
Role: plastic-executor\n\
Status: synthesized (filesystem-derived; no agent-authored report)\n\
Artifacts present: 340--runner-core-in-session.md, spec.md, plan.md, checklist.md, outcome.md, actions/\n\
Checklist: 12/12\n\
Outcome: The runner core ships.\n\
Insights: (none)\n\
=== end report ===\n";

    fn codes(text: &str) -> Vec<(Code, Option<u32>)> {
        check(text)
            .1
            .into_iter()
            .map(|d| (d.code, d.line))
            .collect()
    }

    #[test]
    fn a_well_formed_report_is_recognized_and_not_delivered() {
        let (report, d) = check(GOOD);
        let report = report.unwrap();
        assert_eq!(report.intent_id, "340");
        assert_eq!(report.stage, "2026-09-11T04:20:04Z  Done  delivered");
        assert_eq!(report.checklist, Some((12, 12)));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, Code::plastic_report_synthesized);
        // Without the final newline, with CRLF or a trailing blank line, and
        // the minimal what-stage report.
        for carried in [
            GOOD.trim_end().to_string(),
            GOOD.replace('\n', "\r\n"),
            format!("{GOOD}\n"),
        ] {
            assert_eq!(
                codes(&carried),
                vec![(Code::plastic_report_synthesized, Some(1))]
            );
        }
        let minimal = "=== Plastic agent report (synthesized) ===\nIntent: (unknown) - (unknown)\nStage: What\nRole: What\nStatus: synthesized (filesystem-derived; no agent-authored report)\nArtifacts present: (none)\nChecklist: n/a\nOutcome: (no outcome yet)\nInsights: (none)\n=== end report ===\n";
        assert_eq!(
            codes(minimal),
            vec![(Code::plastic_report_synthesized, Some(1))]
        );
    }

    #[test]
    fn every_deviation_is_malformed() {
        let m = Code::plastic_synthesized_malformed;
        for (from, to, line) in [
            ("Checklist: 12/12", "Checklist: 0/0", 7),
            ("Checklist: 12/12", "Checklist: 13/12", 7),
            ("Checklist: 12/12", "Checklist: 12 of 12", 7),
            (
                "Status: synthesized (filesystem-derived; no agent-authored report)",
                "Status: delivered",
                5,
            ),
            ("spec.md, plan.md", "plan.md, spec.md", 6),
            ("checklist.md, outcome.md", "checklist.md, notes.md", 6),
            ("Intent: 340 - Runner", "Intent: 340 Runner", 2),
            ("Stage: ", "Phase: ", 3),
            ("Role: plastic-executor", "Role: ", 4),
        ] {
            let text = GOOD.replace(from, to);
            assert_eq!(codes(&text), vec![(m, Some(line))], "{to}");
        }
        // Line order, extra lines, banner placement.
        let swapped = GOOD.replace(
            "Stage: 2026-09-11T04:20:04Z  Done  delivered\nRole: plastic-executor",
            "Role: plastic-executor\nStage: 2026-09-11T04:20:04Z  Done  delivered",
        );
        assert_eq!(codes(&swapped)[0].0, m);
        assert_eq!(codes(&format!("{GOOD}trailing\n"))[0].0, m);
        assert_eq!(codes(&format!("\n{GOOD}")), vec![(m, Some(2))]);
        assert_eq!(codes(&GOOD.replace("=== end report ===\n", ""))[0].0, m);
    }
}
