//! One `## Insights` entry: `{timestamp} · {stage} · {author} — {text}`.
//!
//! The separators are U+00B7 MIDDLE DOT and U+2014 EM DASH, each with exactly
//! one space either side; the timestamp is whole-second UTC with `Z`. Stage
//! and author may hold anything but `·` (spaces, colons and parentheses are
//! fine: `plastic-executor (autonomous)`, `lead:337`). Plastic's own check is
//! a prefix match; this grammar also requires the em dash and a non-empty
//! text, which is what `scripts/insight-append` always writes.

use super::timestamp::{self, TimestampError, UtcSecond};
use crate::codes::Code;
use crate::diagnostic::Diagnostic;

/// Bytes an insight file (`--kind plastic-insight`) may have.
pub const MAX_INSIGHT_BYTES: usize = 64 * 1024;

const DOT: &str = " \u{b7} ";
const DASH: &str = " \u{2014} ";

/// A well-formed insight entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insight {
    pub timestamp: UtcSecond,
    pub stage: String,
    pub author: String,
    pub text: String,
}

/// Why a line is not an insight entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InsightError {
    /// The grammar is broken; the text says how.
    Malformed(String),
    /// The timestamp has the right shape but names no real time.
    Timestamp(String),
}

impl InsightError {
    /// The diagnostic for this error on `line`.
    pub fn to_diagnostic(&self, line: Option<u32>) -> Diagnostic {
        match self {
            InsightError::Malformed(message) => {
                Diagnostic::new(Code::plastic_insight_malformed, message.clone())
            }
            InsightError::Timestamp(message) => {
                Diagnostic::new(Code::plastic_insight_timestamp_invalid, message.clone())
            }
        }
        .with_line(line)
    }
}

fn malformed(message: impl Into<String>) -> InsightError {
    InsightError::Malformed(message.into())
}

/// A prefix field (stage or author): non-empty, no `·`, no whitespace at
/// either end (the separators carry exactly one space).
fn check_field(name: &str, value: &str) -> Result<(), InsightError> {
    if value.trim().is_empty() {
        return Err(malformed(format!("insight {name} is empty")));
    }
    if value.contains('\u{b7}') {
        return Err(malformed(format!(
            "insight {name} `{value}` contains `·`; stage and author are separated by ` · ` exactly once"
        )));
    }
    if value.trim() != value {
        return Err(malformed(format!(
            "insight {name} `{value}` has extra whitespace; separators take exactly one space each side"
        )));
    }
    Ok(())
}

/// Parse one entry line (without its line break).
pub fn parse_line(line: &str) -> Result<Insight, InsightError> {
    let stamp = timestamp::parse_prefix(line).map_err(|e| match e {
        TimestampError::Shape(why) => malformed(format!(
            "insight must start with a `YYYY-MM-DDTHH:MM:SSZ` timestamp; this one {why}"
        )),
        TimestampError::Range => InsightError::Timestamp(format!(
            "insight timestamp `{}` is not a real UTC date and time",
            line.get(..timestamp::LEN).unwrap_or(line)
        )),
    })?;
    let rest = &line[timestamp::LEN..];
    let Some(rest) = rest.strip_prefix(DOT) else {
        return Err(malformed(if rest.trim_start().starts_with('\u{b7}') {
            "the ` · ` separator after the timestamp needs exactly one space each side"
        } else {
            "the timestamp must be followed by ` · ` (U+00B7 MIDDLE DOT with one space each side)"
        }));
    };
    let Some((stage, rest)) = rest.split_once(DOT) else {
        return Err(malformed(
            "the stage must be followed by ` · ` (U+00B7) and the author",
        ));
    };
    check_field("stage", stage)?;
    let Some((author, text)) = rest.split_once(DASH) else {
        let hint = if rest.contains(" - ") || rest.contains(" -- ") {
            "; a hyphen is not the em dash"
        } else {
            ""
        };
        return Err(malformed(format!(
            "the author must be followed by ` — ` (U+2014 EM DASH with one space each side) and the text{hint}"
        )));
    };
    check_field("author", author)?;
    if text.trim().is_empty() {
        return Err(malformed("insight text after ` — ` is empty"));
    }
    Ok(Insight {
        timestamp: stamp,
        stage: stage.to_string(),
        author: author.to_string(),
        text: text.to_string(),
    })
}

/// Check a file holding exactly one insight line (`--kind plastic-insight`).
pub fn check(bytes: &[u8]) -> (Option<Insight>, Vec<Diagnostic>) {
    let text = match super::super::text::decode(bytes, MAX_INSIGHT_BYTES, "insight") {
        Ok(text) => text,
        Err(d) => return (None, vec![d]),
    };
    let body = text.strip_suffix('\n').unwrap_or(text);
    let body = body.strip_suffix('\r').unwrap_or(body);
    if body.trim().is_empty() {
        return (
            None,
            vec![Diagnostic::new(
                Code::plastic_insight_malformed,
                "insight file is empty; it must hold exactly one insight line",
            )],
        );
    }
    if body.contains('\n') {
        return (
            None,
            vec![
                Diagnostic::new(
                    Code::plastic_insight_malformed,
                    "an insight is exactly one line; this file has several (validate the intent file with --kind plastic-intent)",
                )
                .with_line(Some(2)),
            ],
        );
    }
    match parse_line(body) {
        Ok(insight) => (Some(insight), Vec::new()),
        Err(e) => (None, vec![e.to_diagnostic(Some(1))]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "2026-09-10T07:06:10Z · Exec · plastic-executor (autonomous) — IndexProjection.analyze needed an index_path: override.";

    fn malformed_message(line: &str) -> String {
        match parse_line(line) {
            Err(InsightError::Malformed(m)) => m,
            other => panic!("{line:?}: {other:?}"),
        }
    }

    #[test]
    fn parses_real_entries() {
        let i = parse_line(GOOD).unwrap();
        assert_eq!(i.stage, "Exec");
        assert_eq!(i.author, "plastic-executor (autonomous)");
        assert!(i.text.starts_with("IndexProjection"));
        let i = parse_line(
            "2026-09-10T13:37:19Z · Exec · lead:337 — A roadmap entry line — with a dash inside.",
        )
        .unwrap();
        assert_eq!(i.author, "lead:337");
        assert_eq!(i.text, "A roadmap entry line — with a dash inside.");
        assert!(
            parse_line(
                "2026-09-10T06:22:41Z · Why · claude-code — (autonomous) C22 put the parser."
            )
            .is_ok()
        );
    }

    #[test]
    fn rejects_each_grammar_break() {
        for (line, why) in [
            ("2026-06-22 (autonomous) note", "date-only"),
            ("2026-06-22T10:00:00 · Exec · a — t", "`Z`"),
            ("2026-06-22T10:00:00.5Z · Exec · a — t", "fractional"),
            ("2026-06-22T10:00:00Z Exec a — t", "U+00B7"),
            ("2026-06-22T10:00:00Z · Exec — t", "author"),
            ("2026-06-22T10:00:00Z  · Exec · a — t", "exactly one space"),
            ("2026-06-22T10:00:00Z · Exec ·  a — t", "extra whitespace"),
            ("2026-06-22T10:00:00Z ·  · a — t", "stage is empty"),
            ("2026-06-22T10:00:00Z · Exec · a - t", "hyphen"),
            ("2026-06-22T10:00:00Z · Exec · a —", "U+2014"),
            ("2026-06-22T10:00:00Z · Exec · a —  ", "text after"),
            ("2026-06-22T10:00:00Z · Exec · a · b — t", "contains `·`"),
        ] {
            let message = malformed_message(line);
            assert!(message.contains(why), "{line:?}: {message}");
        }
        assert!(matches!(
            parse_line("2026-02-30T10:00:00Z · Exec · a — t"),
            Err(InsightError::Timestamp(_))
        ));
    }

    #[test]
    fn an_insight_file_holds_one_line() {
        assert!(check(format!("{GOOD}\n").as_bytes()).1.is_empty());
        assert!(check(GOOD.as_bytes()).0.is_some());
        let (_, d) = check(format!("{GOOD}\n{GOOD}\n").as_bytes());
        assert_eq!(d[0].code, Code::plastic_insight_malformed);
        let (_, d) = check(b"\n");
        assert_eq!(d[0].code, Code::plastic_insight_malformed);
        let (_, d) = check(b"2026-02-30T10:00:00Z \xc2\xb7 Exec \xc2\xb7 a \xe2\x80\x94 t");
        assert_eq!(d[0].code, Code::plastic_insight_timestamp_invalid);
    }
}
