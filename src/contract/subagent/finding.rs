//! What every finding shares, in a return's finding blocks and in the
//! adversarial-findings ledger: the id schemes, the severity enum, the
//! coverage forms and the title rule (contract B.6).
//!
//! Pinned variants: `nn` is exactly two digits (the field rule; the docs'
//! grep regex also takes one digit); a reviewer id's cycle is any number of
//! digits (examples use one, prose says two) and its slug starts with `j-`
//! (the reviewer schema's pattern); a phase-validator id's phase is 1 to 7
//! (the grep regex; one revision says 1 to 8); `app-wide:<pattern-id>`
//! coverage is accepted.

use regex::Regex;
use std::sync::LazyLock;

/// Which source a finding id belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// Stage A (coverage-expansion, bug-discovery): `<journey>-<pass>-<nn>`
    /// or, outside a pass, `<journey>-<nn>`.
    StageA,
    /// agents-vs-agents: `ai-<category>-<nn>`, Stage A's block shape.
    AgentsVsAgents,
    /// Stage B reviewer: `<journey>-<pass>-<cycle>-R-<nn>`, `[must-fix]`.
    Reviewer,
    /// Phase validator: `pv-<phase>-<nn>`, `[must-fix]`.
    PhaseValidator,
}

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Scheme::StageA => "Stage A",
            Scheme::AgentsVsAgents => "agents-vs-agents",
            Scheme::Reviewer => "reviewer",
            Scheme::PhaseValidator => "phase-validator",
        }
    }

    /// True for the schemes whose bracket is a severity.
    pub fn has_severity(self) -> bool {
        matches!(self, Scheme::StageA | Scheme::AgentsVsAgents)
    }
}

/// Why an id is not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdError {
    /// A legacy scheme that is explicitly banned.
    Banned(String),
    /// No scheme matches; the text says what was expected.
    Invalid(String),
}

static STAGE_A: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A[a-z0-9]+(?:-[a-z0-9]+)*-[0-9]{2}\z").unwrap());
static AGENTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\Aai-[a-z0-9]+(?:-[a-z0-9]+)*-[0-9]{2}\z").unwrap());
static REVIEWER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\Aj-[a-z0-9-]+-[0-9]+-[0-9]+-R-[0-9]{2}\z").unwrap());
static PHASE_VALIDATOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\Apv-[1-7]-[0-9]{2,}\z").unwrap());
static BANNED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A(?:(?:AF|P4|REG)-|BUG-[0-9])").unwrap());
static APP_WIDE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\Aapp-wide:[a-z0-9]+(?:-[a-z0-9]+)*\z").unwrap());

/// Classify a finding id.
pub fn classify(id: &str) -> Result<Scheme, IdError> {
    if BANNED.is_match(id) {
        return Err(IdError::Banned(format!(
            "`{id}` uses a banned legacy scheme (AF-XX-NN, P4-XX-BUG-NN, REG-XX-NN, BUG-NNN)"
        )));
    }
    let (scheme, matches, shape) = if id.starts_with("pv-") {
        (
            Scheme::PhaseValidator,
            PHASE_VALIDATOR.is_match(id),
            "pv-<phase 1-7>-<nn>",
        )
    } else if id.contains("-R-") {
        (
            Scheme::Reviewer,
            REVIEWER.is_match(id),
            "j-<journey>-<pass>-<cycle>-R-<nn>",
        )
    } else if id.starts_with("ai-") {
        (
            Scheme::AgentsVsAgents,
            AGENTS.is_match(id),
            "ai-<category-slug>-<nn>",
        )
    } else {
        (
            Scheme::StageA,
            STAGE_A.is_match(id),
            "<journey-slug>-<pass>-<nn> or <journey-slug>-<nn>",
        )
    };
    if matches {
        Ok(scheme)
    } else {
        Err(IdError::Invalid(format!(
            "`{id}` is not a {} id `{shape}` (lower-case, `nn` two digits)",
            scheme.name()
        )))
    }
}

pub const SEVERITIES: &[&str] = &["critical", "high", "medium", "low", "info"];
const BANNED_BRACKETS: &[&str] = &["p0", "blocker", "no-impact"];

/// What is wrong with a Stage A severity bracket, if anything.
pub fn severity_problem(bracket: &str) -> Option<String> {
    if SEVERITIES.contains(&bracket) {
        return None;
    }
    Some(
        if BANNED_BRACKETS.contains(&bracket.to_lowercase().as_str()) {
            format!("`[{bracket}]` is a banned severity; use critical, high, medium, low or info")
        } else {
            format!("severity `[{bracket}]` is not critical, high, medium, low or info")
        },
    )
}

/// What is wrong with a coverage value, if anything.
pub fn coverage_problem(value: &str) -> Option<String> {
    if value == "none" || APP_WIDE.is_match(value) {
        return None;
    }
    if let Some((path, test)) = value.split_once(" \u{203a} ")
        && !path.is_empty()
        && !path.contains(char::is_whitespace)
        && !test.trim().is_empty()
    {
        return None;
    }
    Some(format!(
        "coverage `{value}` is not `none`, `<spec path> › <test name>` (U+203A) or `app-wide:<pattern-id>`"
    ))
}

/// What is wrong with a title, if anything.
pub fn title_problem(title: &str) -> Option<String> {
    let title = title.trim();
    if title.is_empty() {
        Some("the finding has no title".to_string())
    } else if title.ends_with('.') {
        Some(format!("title `{title}` ends with a period"))
    } else {
        None
    }
}

/// A real calendar date `YYYY-MM-DD`.
pub fn is_iso_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let number = |range: std::ops::Range<usize>| {
        text.get(range)
            .filter(|s| s.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|s| s.parse::<u32>().ok())
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 0,
    };
    (1..=days).contains(&day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_schemes() {
        for (id, scheme) in [
            ("j-checkout-4-03", Scheme::StageA),
            ("j-checkout-03", Scheme::StageA),
            ("j-acme-4-01", Scheme::StageA),
            ("ai-prompt-leak-02", Scheme::AgentsVsAgents),
            ("j-login-4-1-R-01", Scheme::Reviewer),
            ("j-login-4-01-R-12", Scheme::Reviewer),
            ("pv-2-01", Scheme::PhaseValidator),
            ("pv-7-123", Scheme::PhaseValidator),
        ] {
            assert_eq!(classify(id), Ok(scheme), "{id}");
        }
        for id in [
            "j-checkout-4-3",
            "J-checkout-4-03",
            "pv-8-01",
            "pv-2-1",
            "login-4-1-R-01",
            "j-x-4-1-R-1",
            "ai-x-1",
            "j_x-01",
            "j-x-4-03.",
        ] {
            assert!(matches!(classify(id), Err(IdError::Invalid(_))), "{id}");
        }
        for id in [
            "AF-CH-01",
            "AF-12",
            "P4-CART-BUG-03",
            "REG-AB-01",
            "BUG-001",
        ] {
            assert!(matches!(classify(id), Err(IdError::Banned(_))), "{id}");
        }
    }

    #[test]
    fn severities_coverage_titles_dates() {
        assert!(severity_problem("high").is_none());
        assert!(severity_problem("p0").unwrap().contains("banned"));
        assert!(severity_problem("no-impact").unwrap().contains("banned"));
        assert!(severity_problem("severe").unwrap().contains("not critical"));
        assert!(severity_problem("High").is_some());
        assert!(coverage_problem("none").is_none());
        assert!(coverage_problem("app-wide:missing-csrf-token").is_none());
        assert!(
            coverage_problem("tests/e2e/j-x-regression.spec.ts › rejects a tampered price")
                .is_none()
        );
        assert!(coverage_problem("tests/e2e/j-x.spec.ts > rejects").is_some());
        assert!(coverage_problem("None").is_some());
        assert!(coverage_problem("app-wide:Bad_Id").is_some());
        assert!(title_problem("Price accepted from the client").is_none());
        assert!(title_problem("Price accepted.").is_some());
        assert!(title_problem(" ").is_some());
        assert!(is_iso_date("2026-02-28"));
        assert!(!is_iso_date("2026-02-30"));
        assert!(!is_iso_date("26-02-28"));
        assert!(!is_iso_date("YYYY-MM-DD"));
    }
}
