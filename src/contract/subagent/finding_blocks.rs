//! Finding blocks in a return's text (contract B.6):
//!
//! ```text
//! - **<ID>** [<bracket>] — <title>
//!   - <key>: <value>
//! ```
//!
//! The id picks the scheme and the scheme fixes the rest: Stage A and
//! agents-vs-agents blocks start at column 0 with a severity and exactly
//! `scope`, `expected`, `observed`, `coverage`; phase-validator blocks are
//! indented two spaces, `[must-fix]`, with `criterion`, `issue`, `fix`;
//! reviewer blocks are indented two spaces, `[must-fix]`, with the
//! sub-bullets of the list they sit under (`missing-scenarios`,
//! `craft-issues`, `verification-misses`). No other sub-bullets, no
//! reused ids.

use super::finding::{self, IdError, Scheme};
use crate::codes::Code;
use crate::contract::text;
use crate::diagnostic::Diagnostic;
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

/// Bytes a finding-blocks file may have.
pub const MAX_FINDING_BLOCKS_BYTES: usize = 1024 * 1024;

/// One well-formed head of a finding block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FindingBlock {
    pub line: u32,
    pub id: String,
    pub scheme: Scheme,
    pub bracket: String,
    pub title: String,
    pub fields: Vec<(String, String)>,
}

/// The reviewer lists and the sub-bullets of each.
const REVIEWER_LISTS: &[(&str, &[&str])] = &[
    ("missing-scenarios", &["why", "category", "suggested-test"]),
    ("craft-issues", &["file", "issue", "fix"]),
    (
        "verification-misses",
        &[
            "file",
            "test-name",
            "asserted",
            "live-observed",
            "suggested-fix",
        ],
    ),
];
const STAGE_A_FIELDS: &[&str] = &["scope", "expected", "observed", "coverage"];
const PHASE_VALIDATOR_FIELDS: &[&str] = &["criterion", "issue", "fix"];
const CATEGORIES: &[&str] = &[
    "mobile",
    "error-state",
    "edge-case",
    "adversarial",
    "accessibility",
    "i18n",
    "lifecycle",
    "concurrency",
];

static CANDIDATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A( *)- \*\*([^*\s]+)\*\*(.*)\z").unwrap());
static HEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\A( *)- \*\*([^*\s]+)\*\* \[([^\]]*)\] \x{2014} (.*)\z").unwrap()
});
/// A head written in another form: a `*`/`+` bullet, a numbered item, or
/// a heading (`### <ID> [<bracket>] — <title>`, the id bold or not).
static OTHER_BULLET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A( *)([*+]|[0-9]+[.)]) \*\*([^*\s]+)\*\*(.*)\z").unwrap());
static HEADING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A(#{1,6}) +(?:\*\*([^*\s]+)\*\*|([^*\s\[]+))(.*)\z").unwrap());
static SUB_BULLET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A( *)- ([a-z][a-z-]*):(?: (.*))?\z").unwrap());
/// A sub-bullet under a head written in another form: any list marker.
static LOOSE_SUB_BULLET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A( *)[-*+] ([a-z][a-z-]*):(?: (.*))?\z").unwrap());
static LIST_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A([A-Za-z][A-Za-z0-9_-]*):").unwrap());

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// How a finding head is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HeadForm {
    /// `- **<ID>**`, the contract's form.
    Bullet,
    /// `* **<ID>**` or `+ **<ID>**`.
    OtherBullet,
    /// `1. **<ID>**`.
    Numbered,
    /// `### <ID> [...]`.
    Heading,
}

impl HeadForm {
    fn describe(self) -> &'static str {
        match self {
            HeadForm::Bullet => "a `-` bullet",
            HeadForm::OtherBullet => "a `*` or `+` bullet",
            HeadForm::Numbered => "a numbered item",
            HeadForm::Heading => "a heading",
        }
    }
}

/// A line that heads a finding block, in any form: its id token and what
/// follows it.
struct WrittenHead<'a> {
    form: HeadForm,
    token: &'a str,
    rest: &'a str,
}

/// The finding head on `line`, if it is one: a bold token with a digit, or
/// one followed by ` [`; under a heading, a token followed by ` [` or one
/// that is a finding id of any scheme (banned ones included).
fn head_of(line: &str) -> Option<WrittenHead<'_>> {
    let looks_like_head = |token: &str, rest: &str| {
        token.bytes().any(|b| b.is_ascii_digit()) || rest.starts_with(" [")
    };
    if let Some(c) = CANDIDATE.captures(line) {
        let (token, rest) = (c.get(2)?.as_str(), c.get(3)?.as_str());
        return looks_like_head(token, rest).then_some(WrittenHead {
            form: HeadForm::Bullet,
            token,
            rest,
        });
    }
    if let Some(c) = OTHER_BULLET.captures(line) {
        let marker = c.get(2)?.as_str();
        let (token, rest) = (c.get(3)?.as_str(), c.get(4)?.as_str());
        let form = if marker.starts_with(|ch: char| ch.is_ascii_digit()) {
            HeadForm::Numbered
        } else {
            HeadForm::OtherBullet
        };
        return looks_like_head(token, rest).then_some(WrittenHead { form, token, rest });
    }
    let c = HEADING.captures(line)?;
    let token = c.get(2).or_else(|| c.get(3))?.as_str();
    let rest = c.get(4)?.as_str();
    let an_id = matches!(finding::classify(token), Ok(_) | Err(IdError::Banned(_)));
    let worded_id = an_id && token.contains('-') && token.bytes().any(|b| b.is_ascii_alphabetic());
    (rest.starts_with(" [") || worded_id).then_some(WrittenHead {
        form: HeadForm::Heading,
        token,
        rest,
    })
}

/// A list item line (any marker).
fn is_list_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    ["- ", "* ", "+ "].iter().any(|m| trimmed.starts_with(m))
        || trimmed.split_once(['.', ')']).is_some_and(|(n, after)| {
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && after.starts_with(' ')
        })
}

/// Check a document for finding blocks.
pub fn check(bytes: &[u8]) -> (Vec<FindingBlock>, Vec<Diagnostic>) {
    match text::decode(bytes, MAX_FINDING_BLOCKS_BYTES, "finding blocks") {
        Ok(text) => check_text(text),
        Err(d) => (Vec::new(), vec![d]),
    }
}

fn check_text(text: &str) -> (Vec<FindingBlock>, Vec<Diagnostic>) {
    let lines: Vec<(u32, &str)> = text::numbered_lines(text).collect();
    let mut diagnostics = Vec::new();
    let mut blocks = Vec::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut list: Option<&str> = None;
    let mut heads = 0usize;
    let mut index = 0;
    while index < lines.len() {
        let (number, line) = lines[index];
        index += 1;
        if let Some(captures) = LIST_KEY.captures(line) {
            let key = captures.get(1).map_or("", |m| m.as_str());
            list = REVIEWER_LISTS
                .iter()
                .find(|(name, _)| *name == key)
                .map(|(name, _)| *name);
            continue;
        }
        let Some(written) = head_of(line) else {
            continue;
        };
        let (token, rest) = (written.token, written.rest);
        heads += 1;
        let at =
            |code: Code, message: String| Diagnostic::new(code, message).with_line(Some(number));
        // The block's sub-bullet lines: deeper than the head, up to a blank
        // line (under a heading: the list that follows it).
        let mut head_indent = indent(line);
        if written.form == HeadForm::Heading {
            while index < lines.len() && lines[index].1.trim().is_empty() {
                index += 1;
            }
        }
        let body_start = index;
        while index < lines.len() {
            let next = lines[index].1;
            let below = match written.form {
                HeadForm::Heading => {
                    is_list_line(next) && head_of(next).is_none() && !next.starts_with('#')
                }
                _ => indent(next) > head_indent,
            };
            if next.trim().is_empty() || !below {
                break;
            }
            index += 1;
        }
        let body = &lines[body_start..index];
        // A head in another form is judged as the `- **` head it stands
        // for, after saying so.
        let canonical;
        let line = if written.form == HeadForm::Bullet {
            line
        } else {
            diagnostics.push(at(
                Code::finding_head_form_invalid,
                format!(
                    "finding `{token}` is written as {}; a finding block's head is a `-` bullet with the id in bold: `- **{token}** [<bracket>] — <title>`",
                    written.form.describe()
                ),
            ));
            // A heading has no column: it stands at the one the id's scheme
            // asks for, so the form is reported once.
            if written.form == HeadForm::Heading {
                head_indent = match finding::classify(token) {
                    Ok(scheme) if !scheme.has_severity() => 2,
                    _ => 0,
                };
            }
            canonical = format!("{}- **{token}**{rest}", " ".repeat(head_indent));
            canonical.as_str()
        };
        let sub_indent = match written.form {
            HeadForm::Bullet => head_indent + 2,
            _ => body.first().map_or(head_indent + 2, |(_, l)| indent(l)),
        };

        let Some(head) = HEAD.captures(line) else {
            let why = if !rest.starts_with(" [") || !rest.contains(']') {
                "the bold id must be followed by ` [<bracket>]`"
            } else if rest.contains(" - ") || rest.contains(" -- ") {
                "the title separator is ` — ` (U+2014 EM DASH), not a hyphen"
            } else {
                "expected `- **<ID>** [<bracket>] — <title>` with single spaces"
            };
            diagnostics.push(at(
                Code::finding_head_malformed,
                format!("finding `{token}`: {why}"),
            ));
            continue;
        };
        let id = head.get(2).map_or("", |m| m.as_str()).to_string();
        let bracket = head.get(3).map_or("", |m| m.as_str()).to_string();
        let title = head.get(4).map_or("", |m| m.as_str()).to_string();
        if let Some(first) = seen.get(&id) {
            diagnostics.push(at(
                Code::finding_id_duplicated,
                format!("finding id `{id}` is already used on line {first}; ids are never reused"),
            ));
        } else {
            seen.insert(id.clone(), number);
        }
        let scheme = match finding::classify(&id) {
            Ok(scheme) => scheme,
            Err(IdError::Banned(message)) => {
                diagnostics.push(at(Code::finding_id_banned, message));
                continue;
            }
            Err(IdError::Invalid(message)) => {
                diagnostics.push(at(Code::finding_id_invalid, message));
                continue;
            }
        };
        // A severity-scheme id where the context says reviewer (under a
        // reviewer list, or a `[must-fix]` bracket): the id is what is wrong,
        // not the column.
        if scheme.has_severity() && ((list.is_some() && head_indent > 0) || bracket == "must-fix") {
            let place = match list {
                Some(list) if head_indent > 0 => format!("sits under `{list}:`"),
                _ => "carries `[must-fix]`".to_string(),
            };
            diagnostics.push(at(
                Code::finding_id_invalid,
                format!(
                    "finding `{id}` {place}, so it is a Stage B reviewer finding: its id uses the `-R-` subformat `j-<journey>-<pass>-<cycle>-R-<nn>`, not the {} scheme (a phase-validator finding is `pv-<phase>-<nn>`)",
                    scheme.name()
                ),
            ));
            continue;
        }
        let expected_indent = if scheme.has_severity() { 0 } else { 2 };
        let indented_right = head_indent == expected_indent;
        if !indented_right {
            diagnostics.push(at(
                Code::finding_head_malformed,
                format!(
                    "a {} finding starts at column {} (`{}- **…`), not {}",
                    scheme.name(),
                    expected_indent + 1,
                    " ".repeat(expected_indent),
                    head_indent + 1
                ),
            ));
        }
        if scheme.has_severity() {
            if let Some(problem) = finding::severity_problem(&bracket) {
                diagnostics.push(at(
                    Code::finding_severity_invalid,
                    format!("finding `{id}`: {problem}"),
                ));
            }
        } else if bracket != "must-fix" {
            diagnostics.push(at(
                Code::finding_priority_invalid,
                format!(
                    "{} finding `{id}` carries `[must-fix]`, not `[{bracket}]`",
                    scheme.name()
                ),
            ));
        }
        if let Some(problem) = finding::title_problem(&title) {
            diagnostics.push(at(
                Code::finding_title_invalid,
                format!("finding `{id}`: {problem}"),
            ));
        }
        // A misplaced head makes its sub-bullets unreadable; one finding is enough.
        let fields = if indented_right {
            check_body(
                &Head {
                    id: &id,
                    scheme,
                    list,
                    line: number,
                },
                body,
                Layout {
                    indent: sub_indent,
                    loose: written.form != HeadForm::Bullet,
                },
                &mut diagnostics,
            )
        } else {
            Vec::new()
        };
        blocks.push(FindingBlock {
            line: number,
            id,
            scheme,
            bracket,
            title,
            fields,
        });
    }
    if heads == 0 {
        diagnostics.push(Diagnostic::new(
            Code::finding_blocks_empty,
            "no finding block (`- **<ID>** [<severity>] — <title>`) in the document",
        ));
    }
    (blocks, diagnostics)
}

/// The sub-bullets expected for a scheme under the current reviewer list.
fn expected_fields(scheme: Scheme, list: Option<&str>, keys: &[&str]) -> &'static [&'static str] {
    match scheme {
        Scheme::StageA | Scheme::AgentsVsAgents => STAGE_A_FIELDS,
        Scheme::PhaseValidator => PHASE_VALIDATOR_FIELDS,
        Scheme::Reviewer => match list.and_then(|l| REVIEWER_LISTS.iter().find(|(n, _)| *n == l)) {
            Some((_, fields)) => fields,
            // Outside a known list, the set the block comes closest to.
            None => REVIEWER_LISTS
                .iter()
                .map(|(_, fields)| *fields)
                .max_by_key(|fields| keys.iter().filter(|k| fields.contains(k)).count())
                .unwrap_or(STAGE_A_FIELDS),
        },
    }
}

/// The head a body belongs to.
struct Head<'a> {
    id: &'a str,
    scheme: Scheme,
    list: Option<&'a str>,
    line: u32,
}

/// Where a body's sub-bullets stand: their column, and whether any list
/// marker is taken (under a head written in another form, which is
/// reported once at the head).
#[derive(Clone, Copy)]
struct Layout {
    indent: usize,
    loose: bool,
}

fn check_body(
    head: &Head<'_>,
    body: &[(u32, &str)],
    layout: Layout,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<(String, String)> {
    let Head {
        id,
        scheme,
        list,
        line: head_line,
    } = *head;
    let sub_bullet: &Regex = if layout.loose {
        &LOOSE_SUB_BULLET
    } else {
        &SUB_BULLET
    };
    let mut fields = Vec::new();
    for &(number, line) in body {
        match sub_bullet.captures(line) {
            Some(c) if indent(line) == layout.indent => {
                let key = c.get(2).map_or("", |m| m.as_str()).to_string();
                let value = c.get(3).map_or("", |m| m.as_str()).trim().to_string();
                if value.is_empty() {
                    diagnostics.push(
                        Diagnostic::new(
                            Code::finding_field_empty,
                            format!("finding `{id}`: `{key}` has no value"),
                        )
                        .with_line(Some(number)),
                    );
                }
                fields.push((key, value, number));
            }
            _ => diagnostics.push(
                Diagnostic::new(
                    Code::finding_fields_mismatch,
                    format!(
                        "finding `{id}`: `{}` is not a `- key: value` sub-bullet indented {} spaces",
                        line.trim(),
                        layout.indent
                    ),
                )
                .with_line(Some(number)),
            ),
        }
    }
    let keys: Vec<&str> = fields.iter().map(|(k, _, _)| k.as_str()).collect();
    let expected = expected_fields(scheme, list, &keys);
    if keys != expected {
        diagnostics.push(
            Diagnostic::new(
                Code::finding_fields_mismatch,
                format!(
                    "finding `{id}` has sub-bullets `{}`; a {} finding{} has exactly `{}`, in this order",
                    keys.join(", "),
                    scheme.name(),
                    list.filter(|_| scheme == Scheme::Reviewer)
                        .map(|l| format!(" under `{l}`"))
                        .unwrap_or_default(),
                    expected.join(", ")
                ),
            )
            .with_line(Some(head_line)),
        );
    }
    for (key, value, number) in &fields {
        if value.is_empty() {
            continue;
        }
        let problem = match key.as_str() {
            "coverage" => {
                finding::coverage_problem(value).map(|p| (Code::finding_coverage_invalid, p))
            }
            "category" => (!CATEGORIES.contains(&value.as_str())).then(|| {
                (
                    Code::finding_category_invalid,
                    format!("category `{value}` is not one of {}", CATEGORIES.join(", ")),
                )
            }),
            _ => None,
        };
        if let Some((code, message)) = problem {
            diagnostics.push(
                Diagnostic::new(code, format!("finding `{id}`: {message}"))
                    .with_line(Some(*number)),
            );
        }
    }
    fields.into_iter().map(|(k, v, _)| (k, v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAGE_A: &str = "- **j-checkout-4-03** [high] — Server accepts a client-side price
  - scope: POST /api/cart/checkout with a tampered total
  - expected: The server recomputes the total and rejects the mismatch
  - observed: The order is placed at the tampered total
  - coverage: none
";

    fn codes(text: &str) -> Vec<(Code, Option<u32>)> {
        check(text.as_bytes())
            .1
            .into_iter()
            .map(|d| (d.code, d.line))
            .collect()
    }

    #[test]
    fn canonical_blocks_pass() {
        let (blocks, d) = check(STAGE_A.as_bytes());
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(blocks[0].scheme, Scheme::StageA);
        assert_eq!(blocks[0].fields.len(), 4);
        let pv = "findings:\n  - **pv-2-01** [must-fix] — journey-map.md has no journeys\n    - criterion: journey-map.md lists at least one journey\n    - issue: the file is empty\n    - fix: rerun journey mapping\n";
        assert!(codes(pv).is_empty(), "{:?}", codes(pv));
        let reviewer = "missing-scenarios:\n  - **j-login-4-1-R-01** [must-fix] — No test for a locked account\n    - why: lockout is a state the app must prevent\n    - category: error-state\n    - suggested-test: log in five times with a wrong password\ncraft-issues:\n  - **j-login-4-1-R-02** [must-fix] — Hard wait in the login spec\n    - file: tests/e2e/j-login.spec.ts\n    - issue: waitForTimeout(3000)\n    - fix: wait for the dashboard heading\n";
        assert!(codes(reviewer).is_empty(), "{:?}", codes(reviewer));
        let ai = "- **ai-prompt-leak-01** [critical] — System prompt disclosed on request\n  - scope: chat widget\n  - expected: refusal\n  - observed: full prompt echoed\n  - coverage: app-wide:prompt-disclosure\n";
        assert!(codes(ai).is_empty());
    }

    #[test]
    fn each_rule_rejects_its_break() {
        for (from, to, code) in [
            ("[high]", "[severe]", Code::finding_severity_invalid),
            ("[high]", "[p0]", Code::finding_severity_invalid),
            ("[high]", "[blocker]", Code::finding_severity_invalid),
            (
                "j-checkout-4-03",
                "j-checkout-4-3",
                Code::finding_id_invalid,
            ),
            ("j-checkout-4-03", "AF-CH-03", Code::finding_id_banned),
            ("j-checkout-4-03", "BUG-003", Code::finding_id_banned),
            (
                "client-side price",
                "client-side price.",
                Code::finding_title_invalid,
            ),
            (
                "  - coverage: none",
                "  - coverage: maybe",
                Code::finding_coverage_invalid,
            ),
            (
                "  - coverage: none",
                "  - coverage:",
                Code::finding_field_empty,
            ),
            (
                "  - scope: POST /api/cart/checkout with a tampered total\n",
                "",
                Code::finding_fields_mismatch,
            ),
            (
                "  - coverage: none\n",
                "  - coverage: none\n  - evidence: screenshot\n",
                Code::finding_fields_mismatch,
            ),
            ("] — Server", "] - Server", Code::finding_head_malformed),
            (
                "- **j-checkout-4-03**",
                "  - **j-checkout-4-03**",
                Code::finding_head_malformed,
            ),
        ] {
            assert!(STAGE_A.contains(from), "{from}");
            let text = STAGE_A.replacen(from, to, 1);
            let found: Vec<Code> = codes(&text).into_iter().map(|(c, _)| c).collect();
            assert_eq!(found, vec![code], "{to:?}");
        }
        let swapped = STAGE_A.replace(
            "  - expected: The server recomputes the total and rejects the mismatch\n  - observed: The order is placed at the tampered total\n",
            "  - observed: The order is placed at the tampered total\n  - expected: The server recomputes the total and rejects the mismatch\n",
        );
        assert_eq!(
            codes(&swapped),
            vec![(Code::finding_fields_mismatch, Some(1))]
        );
        assert_eq!(
            codes(&format!("{STAGE_A}\n{STAGE_A}")),
            vec![(Code::finding_id_duplicated, Some(7))]
        );
        assert_eq!(
            codes("no findings here\n"),
            vec![(Code::finding_blocks_empty, None)]
        );
    }

    /// Next to one `- **` block, heads written with `*`, `1.` or `###` are
    /// found, said to be in the wrong form, and judged as written.
    #[test]
    fn heads_in_other_forms_are_found_and_judged() {
        let other = [
            (
                "* **j-checkout-4-04** [high] — x\n  * scope: a\n  * expected: b\n  * observed: c\n  * coverage: none\n",
                7,
            ),
            (
                "1. **j-checkout-4-04** [high] — x\n   - scope: a\n   - expected: b\n   - observed: c\n   - coverage: none\n",
                7,
            ),
            (
                "### j-checkout-4-04 [high] — x\n\n- scope: a\n- expected: b\n- observed: c\n- coverage: none\n",
                7,
            ),
            (
                "### **j-checkout-4-04** [high] — x\n  - scope: a\n  - expected: b\n  - observed: c\n  - coverage: none\n",
                7,
            ),
        ];
        for (block, line) in other {
            let text = format!("{STAGE_A}\n{block}");
            assert_eq!(
                codes(&text),
                vec![(Code::finding_head_form_invalid, Some(line))],
                "{block}"
            );
            for (from, to, code) in [
                ("j-checkout-4-04", "AF-CH-04", Code::finding_id_banned),
                ("[high]", "[blocker]", Code::finding_severity_invalid),
                ("[high]", "[p0]", Code::finding_severity_invalid),
                ("— x", "— x.", Code::finding_title_invalid),
                (
                    "coverage: none",
                    "coverage: mostly manual",
                    Code::finding_coverage_invalid,
                ),
            ] {
                let broken = format!("{STAGE_A}\n{}", block.replace(from, to));
                let found: Vec<Code> = codes(&broken).into_iter().map(|(c, _)| c).collect();
                assert_eq!(
                    found,
                    vec![Code::finding_head_form_invalid, code],
                    "{to}: {block}"
                );
            }
        }
        // Alone, such a head is no empty document either.
        let alone = "### j-checkout-4-04 [high] — x\n- scope: a\n- expected: b\n- observed: c\n- coverage: none\n";
        assert_eq!(
            codes(alone),
            vec![(Code::finding_head_form_invalid, Some(1))]
        );
        // Headings and bullets that are no finding heads stay prose.
        let prose = format!(
            "### j-checkout\n\n## Summary\n\n### 2026-01-01\n\n* **Note**: see above\n1. **Scope** of the pass\n\n{STAGE_A}"
        );
        assert!(codes(&prose).is_empty(), "{:?}", codes(&prose));
    }

    #[test]
    fn reviewer_and_phase_validator_rules() {
        let wrong_bracket = "craft-issues:\n  - **j-login-4-1-R-02** [high] — Hard wait\n    - file: a.ts\n    - issue: sleep\n    - fix: wait for it\n";
        assert_eq!(
            codes(wrong_bracket),
            vec![(Code::finding_priority_invalid, Some(2))]
        );
        let wrong_list = "craft-issues:\n  - **j-login-4-1-R-02** [must-fix] — Hard wait\n    - why: x\n    - category: mobile\n    - suggested-test: y\n";
        assert_eq!(
            codes(wrong_list),
            vec![(Code::finding_fields_mismatch, Some(2))]
        );
        let category = "missing-scenarios:\n  - **j-login-4-1-R-01** [must-fix] — Locked account\n    - why: x\n    - category: security\n    - suggested-test: y\n";
        assert_eq!(
            codes(category),
            vec![(Code::finding_category_invalid, Some(4))]
        );
        let stage_a_in_reviewer = "missing-scenarios:\n  - **j-login-4-01** [must-fix] — Locked account\n    - why: x\n    - category: mobile\n    - suggested-test: y\n";
        let found = check(stage_a_in_reviewer.as_bytes()).1;
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].code, Code::finding_id_invalid);
        assert!(
            found[0].message.contains("`-R-` subformat"),
            "{}",
            found[0].message
        );
        let must_fix_stage_a = STAGE_A.replace("[high]", "[must-fix]");
        assert_eq!(
            codes(&must_fix_stage_a),
            vec![(Code::finding_id_invalid, Some(1))]
        );
        let pv8 =
            "  - **pv-8-01** [must-fix] — x\n    - criterion: a\n    - issue: b\n    - fix: c\n";
        assert_eq!(codes(pv8), vec![(Code::finding_id_invalid, Some(1))]);
    }
}
