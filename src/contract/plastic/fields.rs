//! Tolerant reading of a Markdown report into labelled fields.
//!
//! Plastic fixes the field set of a completion report, not its markup. A
//! field starts at a line whose label names a known part (by meaning, see
//! [`super::labels`]), written as `- **Label**: value`, `**Label:** value`,
//! `Label: value` or `Label — value` (any list marker), a heading `## Label`
//! (value below, or `## Label: value`), or a key-value table row
//! `| Label | value |`.
//!
//! Where a value ends:
//!
//! * at the next field;
//! * at a heading, a standalone bold line (`**Payload**`), a rule (`---`)
//!   or a fence that follows a one-line value: a field never absorbs a
//!   following heading or bold block;
//! * a heading deeper than a heading field's own, and a fenced block under
//!   a field whose value starts below its label, stay inside it.
//!
//! Inside a value written as a block (a list or table under `**Label:**`),
//! a label line starts a new field only when it names, unambiguously, a
//! part not yet given; otherwise it is an item of the block (`- **Testing**:
//! the fixture flakes (autonomous)` under Insights). Labels are read at
//! column 0, or at any indentation where no field is open (a payload nested
//! under a `- **Payload**:` bullet). A fence around the whole report, or
//! between fields, is transparent. Lines before the first field are the
//! preamble.

use super::labels::{Match, is_structural};

/// How a field's label was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `## Label`, with its level.
    Heading(usize),
    /// `**Label**: value`.
    Bold,
    /// `Label: value`.
    Plain,
    /// `| Label | value |`.
    Table,
}

/// One field as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field<T> {
    /// What the label names.
    pub target: T,
    /// The label as written, markup dropped.
    pub label: String,
    /// 1-based line of the label.
    pub line: u32,
    /// The inline value and the continuation lines, trimmed.
    pub value: String,
    pub form: Form,
    /// How the label matched what it names.
    pub found: Match,
}

/// A report read into fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fields<T> {
    pub fields: Vec<Field<T>>,
    /// The first non-blank, non-heading line before the first field.
    pub preamble: Option<(u32, String)>,
}

impl<T: PartialEq + Copy> Fields<T> {
    /// Fields naming `target`, in document order.
    pub fn of(&self, target: T) -> impl Iterator<Item = &Field<T>> {
        self.fields.iter().filter(move |f| f.target == target)
    }
}

/// The label as written: emphasis, backticks and a trailing colon dropped,
/// whitespace collapsed.
pub fn clean_label(raw: &str) -> String {
    let cleaned: String = raw
        .chars()
        .filter(|c| !matches!(c, '*' | '`'))
        .collect::<String>()
        .trim()
        .trim_end_matches(':')
        .trim()
        .trim_matches('_')
        .to_string();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Strip a leading list marker (`- `, `* `, `+ `, `12. `, `3) `, `- [x] `).
pub fn strip_list_marker(line: &str) -> &str {
    let trimmed = line.trim_start();
    for marker in ["- ", "* ", "+ ", "\u{2022} "] {
        if let Some(rest) = trimmed.strip_prefix(marker) {
            let rest = rest.trim_start();
            for task in ["[ ] ", "[x] ", "[X] "] {
                if let Some(after) = rest.strip_prefix(task) {
                    return after.trim_start();
                }
            }
            return rest;
        }
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = trimmed[digits..]
            .strip_prefix(". ")
            .or_else(|| trimmed[digits..].strip_prefix(") "))
    {
        return rest.trim_start();
    }
    trimmed
}

/// True when the line starts with a list marker.
pub fn is_list_item(line: &str) -> bool {
    strip_list_marker(line).len() != line.trim_start().len()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_rule(trimmed: &str) -> bool {
    let bytes = trimmed.as_bytes();
    (bytes.len() >= 3
        && (bytes.iter().all(|&b| b == b'-')
            || bytes.iter().all(|&b| b == b'*')
            || bytes.iter().all(|&b| b == b'_')))
        || (trimmed.starts_with("===") && trimmed.ends_with("==="))
}

fn is_fence(trimmed: &str) -> bool {
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// Split a value from a plain label line at `:` or a spaced dash.
fn split_plain(body: &str) -> Option<(&str, &str)> {
    let colon = body.find(':');
    let dash = [" \u{2014} ", " \u{2013} ", " -- "]
        .iter()
        .filter_map(|d| body.find(d).map(|at| (at, d.len())))
        .min();
    match (colon, dash) {
        (Some(c), Some((d, len))) if d < c => Some((&body[..d], &body[d + len..])),
        (Some(c), _) => {
            // `https://...` is no label.
            if body[c..].starts_with("://") {
                return None;
            }
            Some((&body[..c], &body[c + 1..]))
        }
        (None, Some((d, len))) => Some((&body[..d], &body[d + len..])),
        (None, None) => None,
    }
}

/// Strip a separator between a bold label and its value. A dash alone is
/// the value (`**Blockers** —` says "none"), not a separator.
fn strip_separator(rest: &str) -> &str {
    let rest = rest.trim_start();
    if matches!(rest.trim(), "\u{2014}" | "\u{2013}" | "-") {
        return rest.trim();
    }
    rest.strip_prefix(':')
        .or_else(|| rest.strip_prefix('\u{2014}'))
        .or_else(|| rest.strip_prefix('\u{2013}'))
        .or_else(|| rest.strip_prefix("- "))
        .or_else(|| rest.strip_prefix('='))
        .unwrap_or(rest)
        .trim()
}

/// A bold-led line: the bold text and what follows it.
fn bold_parts(body: &str) -> Option<(&str, &str)> {
    for bold in ["**", "__"] {
        if let Some(inner) = body.strip_prefix(bold)
            && let Some(end) = inner.find(bold)
        {
            return Some((&inner[..end], &inner[end + bold.len()..]));
        }
    }
    None
}

/// The cells of a table row.
fn cells(row: &str) -> Vec<&str> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(str::trim).collect()
}

/// The first header cell of a key-value table.
fn is_key_value_header(cell: &str) -> bool {
    let cell = cell
        .trim_matches(|c: char| matches!(c, '*' | '`' | '_') || c.is_whitespace())
        .to_lowercase();
    matches!(
        cell.as_str(),
        "field"
            | "fields"
            | "key"
            | "part"
            | "label"
            | "name"
            | "item"
            | "envelope field"
            | "payload part"
            | "attribute"
            | "property"
            | "section"
    )
}

fn is_table_separator(row: &str) -> bool {
    row.trim().starts_with('|')
        && row
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

/// What one line is.
enum Line<'a, T> {
    /// A label with its inline value.
    Label {
        target: T,
        found: Match,
        label: String,
        value: &'a str,
        form: Form,
    },
    /// A heading or standalone bold line that names nothing known;
    /// `structural` when it names a section of the report (`Payload`).
    Boundary {
        heading: Option<usize>,
        structural: bool,
    },
    /// An unknown bold `**Label**:` line: a field of its own that is not
    /// ours; it ends a one-line value.
    OtherLabel,
    Text,
}

/// How labels are looked up: the target a label names and how, given the
/// most unexplained words allowed.
pub type Labeler<'a, T> = dyn Fn(&str, usize) -> Option<(T, Match)> + 'a;

/// Unexplained words allowed in a plain label, and in a marked one (bold,
/// heading, table), which is less likely to be prose.
const PLAIN_SLACK: usize = 2;
const MARKED_SLACK: usize = 4;

fn classify<'a, T>(line: &'a str, labeler: &Labeler<'_, T>) -> Line<'a, T> {
    let trimmed = line.trim();
    let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
    if indent(line) == 0 && (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
        let heading = trimmed[hashes..].trim().trim_end_matches('#').trim();
        // A level-1 heading is the report's title, never a field.
        if hashes == 1 {
            return Line::Boundary {
                heading: Some(1),
                structural: true,
            };
        }
        if let Some((label, value)) = heading.split_once(':')
            && let Some((target, found)) = labeler(label, MARKED_SLACK)
        {
            return Line::Label {
                target,
                found,
                label: clean_label(label),
                value: value.trim(),
                form: Form::Heading(hashes),
            };
        }
        return match labeler(heading, MARKED_SLACK) {
            Some((target, found)) => Line::Label {
                target,
                found,
                label: clean_label(heading),
                value: "",
                form: Form::Heading(hashes),
            },
            None => Line::Boundary {
                heading: Some(hashes),
                structural: is_structural(heading),
            },
        };
    }
    if trimmed.starts_with('|') {
        if is_table_separator(trimmed) {
            return Line::Text;
        }
        let row = cells(trimmed);
        // `| Field | Value |` heads a key-value table: a section of its own.
        if row.len() == 2 && is_key_value_header(row[0]) {
            return Line::Boundary {
                heading: None,
                structural: true,
            };
        }
        if row.len() >= 2 {
            let label = row[0].trim_matches(|c| matches!(c, '*' | '`' | '_'));
            if let Some((target, found)) = labeler(label, MARKED_SLACK) {
                let value_start = trimmed
                    .find('|')
                    .and_then(|first| {
                        let after = &trimmed[first + 1..];
                        after.find('|').map(|second| first + 1 + second + 1)
                    })
                    .unwrap_or(trimmed.len());
                let value = trimmed[value_start..].trim().trim_end_matches('|').trim();
                return Line::Label {
                    target,
                    found,
                    label: clean_label(label),
                    value,
                    form: Form::Table,
                };
            }
        }
        return Line::Text;
    }
    let body = strip_list_marker(line);
    if let Some((inner, rest)) = bold_parts(body) {
        let inner_label = inner.trim().trim_end_matches(':');
        // `**Label: value**` puts the value inside the emphasis.
        let (label, value) = match inner_label.split_once(':') {
            Some((label, value)) if rest.trim().is_empty() && !value.trim().is_empty() => {
                (label, value.trim())
            }
            _ => (inner_label, strip_separator(rest)),
        };
        if let Some((target, found)) = labeler(label, MARKED_SLACK) {
            return Line::Label {
                target,
                found,
                label: clean_label(label),
                value,
                form: Form::Bold,
            };
        }
        let standalone = rest.trim().is_empty() || rest.trim() == ":";
        if standalone && (body.len() == line.trim_start().len() || is_structural(inner_label)) {
            // A bold line of its own (not a list item): a heading.
            return Line::Boundary {
                heading: None,
                structural: is_structural(inner_label),
            };
        }
        let wordy = !inner_label.is_empty()
            && inner_label
                .chars()
                .all(|c| c.is_alphabetic() || matches!(c, ' ' | '/' | '-' | '&'));
        if wordy && (rest.trim_start().starts_with(':') || inner.trim_end().ends_with(':')) {
            return Line::OtherLabel;
        }
        return Line::Text;
    }
    if let Some((label, value)) = split_plain(body)
        && !label.trim().is_empty()
        && let Some((target, found)) = labeler(label, PLAIN_SLACK)
    {
        return Line::Label {
            target,
            found,
            label: clean_label(label),
            value: value.trim(),
            form: Form::Plain,
        };
    }
    Line::Text
}

/// The field being read.
struct Open<'a, T> {
    target: T,
    found: Match,
    label: String,
    line: u32,
    form: Form,
    parts: Vec<&'a str>,
    /// The value starts below the label (a block: list, table, paragraphs).
    block: bool,
    /// The label line's indentation.
    indent: usize,
}

impl<T> Open<'_, T> {
    fn has_value(&self) -> bool {
        self.parts.iter().any(|p| !p.trim().is_empty())
    }
}

/// A list item or a table row.
fn fields_list_line(line: &str) -> bool {
    is_list_item(line) || line.trim_start().starts_with('|')
}

/// A line without its blockquote marker (`> `, `>`).
fn unquote(line: &str) -> &str {
    match line.strip_prefix('>') {
        Some(rest) => rest.strip_prefix(' ').unwrap_or(rest),
        None => line,
    }
}

/// A field's value: the inline part, then the continuation lines with
/// their common indentation removed (so nested lists keep their depth).
fn block_value(parts: &[&str]) -> String {
    let (inline, rest) = parts.split_first().map_or(("", &[][..]), |(i, r)| (*i, r));
    let common = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let mut lines: Vec<&str> = vec![inline.trim()];
    lines.extend(rest.iter().map(|l| {
        if l.trim().is_empty() {
            ""
        } else {
            l.get(common..).unwrap_or(l.trim_start()).trim_end()
        }
    }));
    lines.join("\n").trim_matches('\n').trim_end().to_string()
}

/// Separators between several fields written on one line (`Role: executor
/// · Intent: 341 · Status: delivered`).
const FIELD_SEPARATORS: [&str; 3] = [" \u{b7} ", " | ", " \u{2022} "];

/// The fields of a line that holds several (`Role: executor · Intent: 341 ·
/// Stage: Exec`): every part between separators must be a `Label: value`
/// of its own (plain or bold) with a value, else the line is one line.
fn several_fields<'a, T>(line: &'a str, labeler: &Labeler<'_, T>) -> Option<Vec<Line<'a, T>>> {
    let trimmed = line.trim_start();
    if trimmed.starts_with('|') || trimmed.starts_with('#') {
        return None;
    }
    FIELD_SEPARATORS.iter().find_map(|separator| {
        if !line.contains(separator) {
            return None;
        }
        let parts: Vec<Line<'a, T>> = line
            .split(separator)
            .map(|part| classify(part, labeler))
            .collect();
        let all_fields = parts.len() >= 2
            && parts.iter().all(|part| {
                matches!(part, Line::Label { form: Form::Plain | Form::Bold, value, .. } if !value.is_empty())
            });
        all_fields.then_some(parts)
    })
}

/// Read `text` into fields.
pub fn read<T: Copy + PartialEq>(text: &str, labeler: &Labeler<'_, T>) -> Fields<T> {
    let mut out = Fields {
        fields: Vec::new(),
        preamble: None,
    };
    let mut open: Option<Open<'_, T>> = None;
    // Some(true): a transparent fence; Some(false): a fenced block of the open field.
    let mut fence: Option<bool> = None;
    // The first row of a table before any field: markup (a header, its
    // separator) when the table's rows are fields, else the preamble.
    let mut table_before: Option<(u32, String)> = None;
    let flush = |open: &mut Option<Open<'_, T>>, out: &mut Fields<T>| {
        if let Some(field) = open.take() {
            out.fields.push(Field {
                target: field.target,
                label: field.label,
                line: field.line,
                value: block_value(&field.parts),
                form: field.form,
                found: field.found,
            });
        }
    };
    for (number, line) in crate::contract::text::numbered_lines(text) {
        // A report quoted whole (`> `) reads as written.
        let line = unquote(line);
        let trimmed = line.trim();
        if let Some(transparent) = fence {
            if is_fence(trimmed) {
                fence = None;
                if !transparent && let Some(field) = open.as_mut() {
                    field.parts.push(line);
                }
                continue;
            }
            if !transparent {
                if let Some(field) = open.as_mut() {
                    field.parts.push(line);
                }
                continue;
            }
        } else if is_fence(trimmed) {
            match open.as_mut() {
                Some(field) if field.block => {
                    field.parts.push(line);
                    fence = Some(false);
                }
                _ => {
                    flush(&mut open, &mut out);
                    fence = Some(true);
                }
            }
            continue;
        }
        if trimmed.is_empty() {
            if let Some(field) = open.as_mut() {
                field.parts.push("");
            }
            continue;
        }
        if indent(line) == 0 && is_rule(trimmed) {
            flush(&mut open, &mut out);
            continue;
        }
        // Lines indented deeper than the open field's label belong to it.
        if let Some(field) = open.as_mut()
            && indent(line) > field.indent
        {
            field.parts.push(line);
            continue;
        }
        let kinds = several_fields(line, labeler).unwrap_or_else(|| vec![classify(line, labeler)]);
        // A table that opened before any field: its rows are fields (the
        // header and separator were markup), or it was prose.
        let table_row = trimmed.starts_with('|');
        match kinds.first() {
            Some(Line::Label {
                form: Form::Table, ..
            }) if table_row => table_before = None,
            Some(Line::Text) if table_row && open.is_none() && out.fields.is_empty() => {
                table_before.get_or_insert_with(|| (number, trimmed.to_string()));
                continue;
            }
            _ if table_row => {}
            _ => {
                if let Some(row) = table_before.take()
                    && out.fields.is_empty()
                    && out.preamble.is_none()
                {
                    out.preamble = Some(row);
                }
            }
        }
        for kind in kinds {
            match kind {
                Line::Label {
                    target,
                    found,
                    label,
                    value,
                    form,
                } => {
                    let given = out.fields.iter().any(|f| f.target == target)
                        || open.as_ref().is_some_and(|o| o.target == target);
                    // Inside a block, a label for a part already given is an
                    // item, and so is a weak label (`**Testing**:`) in a list or
                    // table of the value; only an unambiguous label for a new
                    // part, or a weak one after prose, starts a field.
                    let listing = match open.as_ref() {
                        // A list or table that opens the value.
                        Some(o) if !o.has_value() => fields_list_line(line),
                        Some(o) => o
                            .parts
                            .iter()
                            .rev()
                            .find(|p| !p.trim().is_empty())
                            .is_some_and(|p| fields_list_line(p)),
                        None => false,
                    };
                    let item = given || (!found.is_strong() && listing);
                    let inside = match (&open, form) {
                        // A deeper heading is a sub-section of a heading field.
                        (Some(field), Form::Heading(level)) => {
                            item && matches!(field.form, Form::Heading(own) if level > own)
                        }
                        (Some(field), _) => item && field.block,
                        (None, _) => false,
                    };
                    if inside {
                        if let Some(field) = open.as_mut() {
                            field.parts.push(line);
                        }
                        continue;
                    }
                    flush(&mut open, &mut out);
                    let block = value.is_empty();
                    open = Some(Open {
                        target,
                        found,
                        label,
                        line: number,
                        form,
                        parts: vec![value],
                        block,
                        indent: indent(line),
                    });
                }
                Line::Boundary {
                    heading,
                    structural,
                } => {
                    let inside = !structural
                        && match (&open, heading) {
                            (Some(field), Some(level)) => {
                                matches!(field.form, Form::Heading(own) if level > own)
                            }
                            (Some(field), None) => {
                                matches!(field.form, Form::Heading(_)) || !field.has_value()
                            }
                            (None, _) => false,
                        };
                    if inside {
                        if let Some(field) = open.as_mut() {
                            field.parts.push(line);
                        }
                    } else {
                        flush(&mut open, &mut out);
                    }
                }
                Line::OtherLabel => match open.as_mut() {
                    Some(field) if field.block => field.parts.push(line),
                    _ => flush(&mut open, &mut out),
                },
                Line::Text => match open.as_mut() {
                    Some(field) => field.parts.push(line),
                    None => {
                        if out.fields.is_empty() && out.preamble.is_none() {
                            out.preamble = Some((number, trimmed.to_string()));
                        }
                    }
                },
            }
        }
    }
    flush(&mut open, &mut out);
    if let Some(row) = table_before
        && out.fields.is_empty()
        && out.preamble.is_none()
    {
        out.preamble = Some(row);
    }
    out
}

/// The items of a multi-item value: its top-level list items (with their
/// continuation lines) when it has a list, else its table's data rows, else
/// its non-blank lines.
pub fn items(value: &str) -> Vec<String> {
    // A table cell breaks its lines with `<br>`.
    let value = ["<br />", "<br/>", "<br>"]
        .iter()
        .fold(value.to_string(), |v, br| v.replace(br, "\n"));
    let lines: Vec<&str> = value.lines().filter(|l| !l.trim().is_empty()).collect();
    let list_indent = lines
        .iter()
        .filter(|l| is_list_item(l))
        .map(|l| indent(l))
        .min();
    if let Some(top) = list_indent {
        let mut out: Vec<String> = Vec::new();
        for line in &lines {
            if is_list_item(line) && indent(line) == top {
                out.push(strip_list_marker(line).to_string());
            } else if let Some(last) = out.last_mut() {
                last.push(' ');
                last.push_str(line.trim());
            }
        }
        return out;
    }
    let rows: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| l.starts_with('|'))
        .collect();
    if rows.len() >= 2 && is_table_separator(rows[1]) {
        return rows[2..]
            .iter()
            .filter(|r| !is_table_separator(r))
            .map(|r| r.to_string())
            .collect();
    }
    lines.into_iter().map(|l| l.trim().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::plastic::labels::{self, Concept};

    const ROLE: Concept = Concept {
        signatures: &[(2, &[&["role"]])],
        vocabulary: &[],
    };
    const STATUS: Concept = Concept {
        signatures: &[(2, &[&["status"]])],
        vocabulary: &[],
    };
    const VERIFICATION: Concept = Concept {
        signatures: &[
            (3, &[&["verif"]]),
            (2, &[&["test"], &["run"]]),
            (1, &[&["test"]]),
        ],
        vocabulary: &["run"],
    };
    const INSIGHTS: Concept = Concept {
        signatures: &[(3, &[&["insight"]])],
        vocabulary: &[],
    };

    fn labeler(label: &str, slack: usize) -> Option<(&'static str, Match)> {
        labels::best(
            label,
            [
                ("role", &ROLE),
                ("status", &STATUS),
                ("verification", &VERIFICATION),
                ("insights", &INSIGHTS),
            ],
            slack,
        )
    }

    fn read_known(text: &str) -> Fields<&'static str> {
        read(text, &labeler)
    }

    fn pairs(text: &str) -> Vec<(&'static str, String)> {
        read_known(text)
            .fields
            .into_iter()
            .map(|f| (f.target, f.value))
            .collect()
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
            "Role — executor",
            "## Role\nexecutor",
            "## Role: executor",
            "- __Role__: executor",
            "- `Role`: executor",
            "**Role: executor**",
            "| Role | executor |",
            "Agent role: executor",
        ] {
            let fields = read_known(text);
            assert_eq!(fields.fields.len(), 1, "{text}");
            assert_eq!(fields.fields[0].target, "role", "{text}");
            assert_eq!(fields.fields[0].value, "executor", "{text}");
            assert_eq!(fields.fields[0].line, 1, "{text}");
        }
    }

    #[test]
    fn a_value_never_absorbs_a_following_heading_or_bold_block() {
        assert_eq!(
            pairs("Insights: none\n**Payload (executor)**\nloose\n"),
            [("insights", "none".to_string())]
        );
        assert_eq!(
            pairs("- **Insights**: none\n\n## Payload\n\nloose\n"),
            [("insights", "none".to_string())]
        );
        assert_eq!(
            pairs("Insights: none\n---\nStatus: delivered\n"),
            [
                ("insights", "none".to_string()),
                ("status", "delivered".to_string())
            ]
        );
        // A deeper heading stays inside a heading field.
        assert_eq!(
            pairs("## Insights\n### Leases\nfirst (autonomous)\n## Status\ndelivered\n"),
            [
                ("insights", "### Leases\nfirst (autonomous)".to_string()),
                ("status", "delivered".to_string())
            ]
        );
    }

    #[test]
    fn block_values_keep_their_items() {
        // An item that reads like a weak label stays an item.
        let text = "**Insights:**\n- **Testing**: the fixture flakes (autonomous)\n- second (autonomous)\n- **Status**: delivered\n";
        assert_eq!(
            pairs(text),
            [
                (
                    "insights",
                    "- **Testing**: the fixture flakes (autonomous)\n- second (autonomous)"
                        .to_string()
                ),
                ("status", "delivered".to_string())
            ]
        );
        // Unknown bold labels inside a block are items; after a one-line
        // value they end it.
        assert_eq!(
            pairs("## Insights\n- **Leases**: first (autonomous)\n"),
            [("insights", "- **Leases**: first (autonomous)".to_string())]
        );
        assert_eq!(
            pairs("Role: executor\n- **Notes**: x\nInsights: none\n"),
            [
                ("role", "executor".to_string()),
                ("insights", "none".to_string())
            ]
        );
    }

    #[test]
    fn nested_payloads_fences_and_tables() {
        assert_eq!(
            pairs("- **Payload**:\n  - **Role**: executor\n  - **Status**: delivered\n"),
            [
                ("role", "executor".to_string()),
                ("status", "delivered".to_string())
            ]
        );
        assert_eq!(
            pairs("```\nRole: executor\nStatus: delivered\n```\n"),
            [
                ("role", "executor".to_string()),
                ("status", "delivered".to_string())
            ]
        );
        assert_eq!(
            pairs("## Verification\n```\nStatus: 3 passed\n```\n## Status\ndelivered\n"),
            [
                ("verification", "```\nStatus: 3 passed\n```".to_string()),
                ("status", "delivered".to_string())
            ]
        );
        assert_eq!(
            pairs("| Field | Value |\n|---|---|\n| Role | executor |\n| Status | `delivered` |\n"),
            [
                ("role", "executor".to_string()),
                ("status", "`delivered`".to_string())
            ]
        );
    }

    #[test]
    fn preamble_is_the_first_text_before_any_field() {
        let fields = read_known("# Completion report\n\nHere is what I did.\nRole: executor\n");
        assert_eq!(
            fields.preamble,
            Some((3, "Here is what I did.".to_string()))
        );
        assert!(read_known("# Report\nRole: x\n").preamble.is_none());
        assert!(read_known("```yaml\nrole: x\n```\n").preamble.is_none());
    }

    #[test]
    fn several_fields_on_one_line_are_fields_of_that_line() {
        for text in [
            "Role: executor \u{b7} Status: delivered",
            "- **Role**: executor | **Status**: delivered",
            "Role: executor \u{2022} Status: delivered",
        ] {
            let fields = read_known(text);
            assert_eq!(
                fields
                    .fields
                    .iter()
                    .map(|f| (f.target, f.value.as_str(), f.line))
                    .collect::<Vec<_>>(),
                [("role", "executor", 1), ("status", "delivered", 1)],
                "{text}"
            );
            assert!(fields.preamble.is_none(), "{text}");
        }
        // A part that is no field keeps the line whole.
        assert_eq!(
            pairs("Role: executor \u{b7} the lease sweeper\n"),
            [("role", "executor \u{b7} the lease sweeper".to_string())]
        );
        assert_eq!(
            pairs(
                "Insights:\n- 2026-01-01T00:00:00Z \u{b7} Exec \u{b7} x \u{2014} leases (autonomous)\n"
            ),
            [(
                "insights",
                "- 2026-01-01T00:00:00Z \u{b7} Exec \u{b7} x \u{2014} leases (autonomous)"
                    .to_string()
            )]
        );
    }

    #[test]
    fn a_key_value_table_header_is_markup_not_preamble() {
        for header in [
            "| Field | Value |\n|---|---|\n",
            "| Envelope | |\n|---|---|\n",
            "| Key | Value |\n| --- | --- |\n",
            "| | |\n|:--|:--|\n",
        ] {
            let fields = read_known(&format!(
                "{header}| Role | executor |\n| Status | delivered |\n"
            ));
            assert!(fields.preamble.is_none(), "{header}");
            assert_eq!(fields.fields.len(), 2, "{header}");
        }
        // A table that holds no field is prose before the first field.
        let fields = read_known("| a | b |\n|---|---|\n| c | d |\n\nRole: executor\n");
        assert_eq!(fields.preamble, Some((1, "| a | b |".to_string())));
    }

    #[test]
    fn a_quoted_report_reads_as_written() {
        assert_eq!(
            pairs("> **Role**: executor\n>\n> **Status**: delivered\n"),
            [
                ("role", "executor".to_string()),
                ("status", "delivered".to_string())
            ]
        );
    }

    #[test]
    fn items_of_a_value() {
        assert_eq!(items("- a\n- b\n"), vec!["a", "b"]);
        assert_eq!(
            items("- a long insight that\n  wraps (autonomous)\n  - a detail\n- b"),
            vec!["a long insight that wraps (autonomous) - a detail", "b"]
        );
        assert_eq!(
            items("| h |\n|---|\n| r1 |\n| r2 |"),
            vec!["| r1 |", "| r2 |"]
        );
        assert_eq!(items("one line"), vec!["one line"]);
        assert_eq!(items("a (autonomous)<br>b"), vec!["a (autonomous)", "b"]);
    }
}
