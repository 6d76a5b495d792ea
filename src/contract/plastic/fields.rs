//! Tolerant reading of a Markdown report into labelled fields.
//!
//! Plastic fixes the field set of a completion report, not its markup, so a
//! field starts at any column-0 line whose label is known, written as
//! `- **Label**: value`, `**Label:** value`, `Label: value` (any list marker
//! `-`, `*`, `+` or `1.`), or a heading `## Label` (with the value on the
//! following lines). Labels compare case-insensitively with emphasis,
//! backticks and spacing around `/` ignored. An unknown heading or an
//! unknown bold label made of words (`- **Notes**: ...`) ends the current
//! field; every other line continues it (indented lists, tables, wrapped
//! prose, `- **n1**: ...` items). Lines before the first field are the
//! preamble.

/// One field as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The normalized label (`verification / tests run`).
    pub label: String,
    /// 1-based line of the label.
    pub line: u32,
    /// The inline value and the continuation lines, trimmed.
    pub value: String,
}

/// A report read into fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub fields: Vec<Field>,
    /// The first non-blank, non-heading line before the first field.
    pub preamble: Option<(u32, String)>,
}

impl Fields {
    /// Fields whose label is one of `labels`, in document order.
    pub fn with_label<'a>(&'a self, labels: &'a [&'a str]) -> impl Iterator<Item = &'a Field> {
        self.fields
            .iter()
            .filter(move |f| labels.contains(&f.label.as_str()))
    }
}

/// Normalize a label as written: lower-case, emphasis and backticks dropped,
/// a trailing colon dropped, whitespace collapsed, ` / ` spacing unified.
pub fn normalize_label(raw: &str) -> String {
    let cleaned: String = raw
        .chars()
        .filter(|c| !matches!(c, '*' | '`'))
        .collect::<String>()
        .trim()
        .trim_end_matches(':')
        .trim()
        .trim_matches('_')
        .to_lowercase();
    let spaced = cleaned.replace('/', " / ");
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Strip a leading list marker (`- `, `* `, `+ `, `12. `, `3) `).
fn strip_list_marker(line: &str) -> &str {
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return rest.trim_start();
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = line[digits..]
            .strip_prefix(". ")
            .or_else(|| line[digits..].strip_prefix(") "))
    {
        return rest.trim_start();
    }
    line
}

/// What a line starts, if anything.
enum LineKind<'a> {
    /// A known label with its inline value.
    Label(String, &'a str),
    /// A heading or bold `**Label**:` line whose label is not known: it
    /// ends the current field.
    OtherHeading,
    Text,
}

fn classify<'a>(line: &'a str, is_known: &dyn Fn(&str) -> bool) -> LineKind<'a> {
    if line.starts_with(char::is_whitespace) {
        return LineKind::Text;
    }
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
        let heading = line[hashes..].trim().trim_end_matches('#').trim();
        if let Some((label, value)) = heading.split_once(':') {
            let label = normalize_label(label);
            if is_known(&label) {
                return LineKind::Label(label, value.trim());
            }
        }
        let label = normalize_label(heading);
        return if is_known(&label) {
            LineKind::Label(label, "")
        } else {
            LineKind::OtherHeading
        };
    }
    let body = strip_list_marker(line);
    for bold in ["**", "__"] {
        if let Some(inner) = body.strip_prefix(bold)
            && let Some(end) = inner.find(bold)
        {
            let label = normalize_label(&inner[..end]);
            let rest = inner[end + bold.len()..].trim_start();
            if is_known(&label) {
                let rest = rest
                    .strip_prefix(':')
                    .or_else(|| rest.strip_prefix('\u{2014}'))
                    .unwrap_or(rest);
                return LineKind::Label(label, rest.trim());
            }
            // `**Notes**:` is some other field; `**n1**: ...` is a list item.
            let wordy = !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_alphabetic() || c == ' ' || c == '/');
            if wordy && (rest.starts_with(':') || inner[..end].trim_end().ends_with(':')) {
                return LineKind::OtherHeading;
            }
        }
    }
    if let Some((label, value)) = body.split_once(':') {
        let label = normalize_label(label);
        if is_known(&label) {
            return LineKind::Label(label, value.trim());
        }
    }
    LineKind::Text
}

/// Read `text` into fields; `is_known` decides which normalized labels
/// start a field.
pub fn read(text: &str, is_known: &dyn Fn(&str) -> bool) -> Fields {
    let mut out = Fields::default();
    let mut current: Option<(String, u32, Vec<&str>)> = None;
    let flush = |current: &mut Option<(String, u32, Vec<&str>)>, out: &mut Fields| {
        if let Some((label, line, parts)) = current.take() {
            out.fields.push(Field {
                label,
                line,
                value: parts.join("\n").trim().to_string(),
            });
        }
    };
    for (number, line) in crate::contract::text::numbered_lines(text) {
        match classify(line, is_known) {
            LineKind::Label(label, value) => {
                flush(&mut current, &mut out);
                current = Some((label, number, vec![value]));
            }
            LineKind::OtherHeading => flush(&mut current, &mut out),
            LineKind::Text => match current.as_mut() {
                Some((_, _, parts)) => parts.push(line),
                None => {
                    if out.fields.is_empty() && out.preamble.is_none() && !line.trim().is_empty() {
                        out.preamble = Some((number, line.trim().to_string()));
                    }
                }
            },
        }
    }
    flush(&mut current, &mut out);
    out
}

/// The items of a multi-item value: list items or table data rows when
/// there are any, else its non-blank lines.
pub fn items(value: &str) -> Vec<String> {
    let lines: Vec<&str> = value
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let rows: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with('|'))
        .collect();
    let listed: Vec<String> = lines
        .iter()
        .filter(|l| strip_list_marker(l).len() != l.len())
        .map(|l| strip_list_marker(l).to_string())
        .collect();
    if !listed.is_empty() {
        return listed;
    }
    if rows.len() >= 2 && is_table_separator(rows[1]) {
        return rows[2..]
            .iter()
            .filter(|r| !is_table_separator(r))
            .map(|r| r.to_string())
            .collect();
    }
    lines.into_iter().map(str::to_string).collect()
}

fn is_table_separator(row: &str) -> bool {
    row.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// True when `value` is one of the not-applicable tokens `n/a` or `none`
/// (any case, emphasis or backticks and a final period ignored).
pub fn is_not_applicable(value: &str) -> bool {
    let token = strip_markup(value);
    let token = token.trim_end_matches('.').to_lowercase();
    matches!(token.as_str(), "n/a" | "none")
}

/// A value with surrounding emphasis and backticks removed.
pub fn strip_markup(value: &str) -> &str {
    value
        .trim()
        .trim_matches(|c| matches!(c, '*' | '`' | '_'))
        .trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(label: &str) -> bool {
        matches!(
            label,
            "role" | "status" | "verification / tests run" | "tests run" | "insights"
        )
    }

    fn read_known(text: &str) -> Fields {
        read(text, &known)
    }

    #[test]
    fn every_markup_form_reads_the_same_field() {
        for text in [
            "- **Role**: executor",
            "**Role:** executor",
            "* **role**: executor",
            "Role: executor",
            "ROLE: executor",
            "1. **Role** — executor",
            "## Role\nexecutor",
            "## Role: executor",
            "- __Role__: executor",
            "- `Role`: executor",
        ] {
            let fields = read_known(text);
            assert_eq!(fields.fields.len(), 1, "{text}");
            assert_eq!(fields.fields[0].label, "role", "{text}");
            assert_eq!(fields.fields[0].value, "executor", "{text}");
            assert_eq!(fields.fields[0].line, 1, "{text}");
        }
        let f = read_known("**Verification/Tests run**: cargo test");
        assert_eq!(f.fields[0].label, "verification / tests run");
    }

    #[test]
    fn values_continue_on_indented_lines_tables_and_lists() {
        let fields = read_known(
            "- **Role**: executor\n- **Insights**:\n  - one (autonomous)\n  - two (autonomous)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n- **Status**: delivered\n",
        );
        assert_eq!(fields.fields.len(), 3);
        assert_eq!(fields.fields[1].label, "insights");
        assert!(fields.fields[1].value.contains("two (autonomous)"));
        assert!(fields.fields[1].value.contains("| 1 | 2 |"));
        assert_eq!(fields.fields[2].line, 9);
    }

    #[test]
    fn unknown_labels_continue_and_unknown_headings_end_a_field() {
        let fields =
            read_known("Role: executor\n- **n1**: x\nNotes: y\n## Something else\nloose\n");
        assert_eq!(fields.fields.len(), 1);
        assert_eq!(fields.fields[0].value, "executor\n- **n1**: x\nNotes: y");
        let fields = read_known("Role: executor\n- **Notes**: x\nInsights: none\n");
        assert_eq!(fields.fields[0].value, "executor");
        assert_eq!(fields.fields[1].label, "insights");
    }

    #[test]
    fn preamble_is_the_first_text_before_any_field() {
        let fields = read_known("# Completion report\n\nHere is what I did.\nRole: executor\n");
        assert_eq!(
            fields.preamble,
            Some((3, "Here is what I did.".to_string()))
        );
        assert!(read_known("# Report\nRole: x\n").preamble.is_none());
    }

    #[test]
    fn items_and_tokens() {
        assert_eq!(items("- a\n- b\n"), vec!["a", "b"]);
        assert_eq!(
            items("| h |\n|---|\n| r1 |\n| r2 |"),
            vec!["| r1 |", "| r2 |"]
        );
        assert_eq!(items("one line"), vec!["one line"]);
        assert!(is_not_applicable("`n/a`"));
        assert!(is_not_applicable("None."));
        assert!(!is_not_applicable("none yet"));
    }
}
