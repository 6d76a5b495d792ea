//! The `## Insights` section of a plastic intent file (`<id>--<slug>.md`).
//!
//! The heading is a line equal to `## Insights` after trimming; the section
//! runs to the next line that starts with `## ` (so `###` subsections stay
//! inside it) or to the end of the file. Every non-blank line in it is an
//! insight entry, a `###`-or-deeper subsection heading, or one of the two
//! placeholders plastic's template and records carry. Entries are
//! append-only, newest last: timestamps never go backwards.

use super::insight::{self, Insight};
use super::timestamp::UtcSecond;
use crate::codes::Code;
use crate::contract::text;
use crate::diagnostic::Diagnostic;

/// Bytes an intent file may have.
pub const MAX_INTENT_BYTES: usize = 4 * 1024 * 1024;

pub const HEADING: &str = "## Insights";

/// The template's placeholder, kept as the first line under the heading.
pub const TEMPLATE_PLACEHOLDER: &str =
    "(observations captured throughout \u{2014} raw material for future intents)";
/// The empty-section marker seen in stored records.
pub const NONE_PLACEHOLDER: &str = "(none)";

/// The entries of an intent file's insights section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InsightsSection {
    /// 1-based line of the heading, when the section exists.
    pub heading_line: Option<u32>,
    /// Well-formed entries with their lines, in file order.
    pub entries: Vec<(u32, Insight)>,
}

fn is_subsection_heading(line: &str) -> bool {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    hashes >= 3 && line[hashes..].starts_with(' ')
}

/// Check an intent file's insights section.
pub fn check(bytes: &[u8]) -> (InsightsSection, Vec<Diagnostic>) {
    let text = match text::decode(bytes, MAX_INTENT_BYTES, "intent file") {
        Ok(text) => text,
        Err(d) => return (InsightsSection::default(), vec![d]),
    };
    check_text(text)
}

fn check_text(text: &str) -> (InsightsSection, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut section = InsightsSection::default();
    let mut inside = false;
    let mut last: Option<(u32, UtcSecond)> = None;
    for (number, line) in text::numbered_lines(text) {
        if line.trim() == HEADING {
            if section.heading_line.is_some() {
                diagnostics.push(
                    Diagnostic::new(
                        Code::plastic_intent_insights_duplicated,
                        format!(
                            "second `## Insights` heading; plastic appends to the first one (line {})",
                            section.heading_line.unwrap_or(0)
                        ),
                    )
                    .with_line(Some(number)),
                );
                inside = false;
            } else {
                section.heading_line = Some(number);
                inside = true;
            }
            continue;
        }
        if line.starts_with("## ") {
            inside = false;
            continue;
        }
        if !inside {
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty()
            || is_subsection_heading(line)
            || trimmed == TEMPLATE_PLACEHOLDER
            || trimmed == NONE_PLACEHOLDER
        {
            continue;
        }
        match insight::parse_line(line.trim_end()) {
            Ok(entry) => {
                if let Some((previous_line, previous)) = last
                    && entry.timestamp < previous
                {
                    diagnostics.push(
                        Diagnostic::new(
                            Code::plastic_insight_out_of_order,
                            format!(
                                "insight at {} is older than the entry on line {previous_line} ({previous}); entries are append-only, newest last",
                                entry.timestamp
                            ),
                        )
                        .with_line(Some(number)),
                    );
                }
                last = Some((number, entry.timestamp));
                section.entries.push((number, entry));
            }
            Err(e) => diagnostics.push(e.to_diagnostic(Some(number))),
        }
    }
    if section.heading_line.is_none() {
        diagnostics.push(Diagnostic::new(
            Code::plastic_intent_insights_missing,
            "intent file has no `## Insights` section",
        ));
    }
    (section, diagnostics)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<(Code, Option<u32>)> {
        check(text.as_bytes())
            .1
            .into_iter()
            .map(|d| (d.code, d.line))
            .collect()
    }

    const E1: &str = "2026-09-10T07:06:10Z · Exec · plastic-executor (autonomous) — first.";
    const E2: &str = "2026-09-10T07:06:11Z · Exec · lead:337 — second.";

    #[test]
    fn accepts_placeholders_subsections_and_ordered_entries() {
        let text = format!(
            "---\nid: \"337\"\n---\n\n## Intent\nx\n\n## Insights\n{TEMPLATE_PLACEHOLDER}\n{E1}\n\n### Findings\n{E2}\n\n## Links\n- not an insight\n"
        );
        let (section, diagnostics) = check(text.as_bytes());
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(section.heading_line, Some(8));
        assert_eq!(section.entries.len(), 2);
        assert!(codes("## Insights\n(none)\n").is_empty());
        assert!(codes("## Insights\n").is_empty());
    }

    #[test]
    fn the_section_ends_only_at_a_level_two_heading() {
        // `### x` keeps the section open; the bad line below it is checked.
        assert_eq!(
            codes("## Insights\n### x\nnot an insight\n"),
            vec![(Code::plastic_insight_malformed, Some(3))]
        );
        // `## Next` closes it; nothing after is checked.
        assert!(codes("## Insights\n## Next\nnot an insight\n").is_empty());
        // A `#` line inside the section is no subsection.
        assert_eq!(
            codes("## Insights\n# x\n"),
            vec![(Code::plastic_insight_malformed, Some(2))]
        );
    }

    #[test]
    fn newest_last() {
        assert_eq!(
            codes(&format!("## Insights\n{E2}\n{E1}\n")),
            vec![(Code::plastic_insight_out_of_order, Some(3))]
        );
        assert!(codes(&format!("## Insights\n{E1}\n{E1}\n")).is_empty());
    }

    #[test]
    fn missing_and_duplicated_sections() {
        assert_eq!(
            codes("## Intent\nx\n"),
            vec![(Code::plastic_intent_insights_missing, None)]
        );
        assert_eq!(
            codes(&format!("## Insights\n{E1}\n## Insights\nbad\n")),
            vec![(Code::plastic_intent_insights_duplicated, Some(3))]
        );
    }

    #[test]
    fn indented_or_list_entries_are_not_entries() {
        assert_eq!(
            codes(&format!("## Insights\n- {E1}\n")),
            vec![(Code::plastic_insight_malformed, Some(2))]
        );
    }
}
