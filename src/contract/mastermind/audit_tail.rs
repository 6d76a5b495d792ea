//! The auditor's advisory tail (`mastermind:audit-begin` / `-end`,
//! contracts `mastermind.md` section 2): extraction, fields and verdict.
//!
//! Extraction accepts what the reference evaluator accepts (whitespace inside
//! the HTML comment, a ```` ```yaml ```` or ```` ```yml ```` fence, prose
//! around it) but demands exactly one tail, and decodes the YAML with the
//! strict rules every other contract uses.

use crate::codes::Code;
use crate::contract::yaml;
use crate::diagnostic::Diagnostic;
use crate::schema::{self, SchemaId};
use serde_json::Value;

pub const MAX_TAIL_BYTES: usize = 1024 * 1024;

const BEGIN: &str = "mastermind:audit-begin";
const END: &str = "mastermind:audit-end";

/// The auditor's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Held,
    Drift,
    Broken,
}

impl Verdict {
    fn parse(text: &str) -> Option<Verdict> {
        match text.to_ascii_lowercase().as_str() {
            "held" => Some(Verdict::Held),
            "drift" => Some(Verdict::Drift),
            "broken" => Some(Verdict::Broken),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Held => "held",
            Verdict::Drift => "drift",
            Verdict::Broken => "broken",
        }
    }
}

/// A validated audit tail.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditTail {
    pub spec: String,
    pub verdict: Verdict,
    pub scope_match: bool,
    pub discrepancies: Vec<Value>,
}

/// Byte ranges of every `<!--\s*NAME\s*-->` comment in `text`.
fn comments(text: &str, name: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = text[from..].find("<!--") {
        let start = from + offset;
        let rest = &text[start + 4..];
        let after_ws = rest.trim_start();
        if let Some(after_name) = after_ws.strip_prefix(name) {
            let after_name = after_name.trim_start();
            if let Some(after_close) = after_name.strip_prefix("-->") {
                let end = text.len() - after_close.len();
                found.push((start, end));
                from = end;
                continue;
            }
        }
        from = start + 4;
    }
    found
}

fn line_at(text: &str, byte: usize) -> u32 {
    let before = text.get(..byte).unwrap_or(text);
    u32::try_from(before.bytes().filter(|&b| b == b'\n').count() + 1).unwrap_or(u32::MAX)
}

/// Find the YAML of the one tail: returns the YAML text and the number of
/// file lines before its first line.
fn extract(text: &str) -> Result<(&str, u32), Diagnostic> {
    let begins = comments(text, BEGIN);
    let ends = comments(text, END);
    if begins.is_empty() {
        return Err(Diagnostic::new(
            Code::audit_tail_missing,
            format!("no `<!-- {BEGIN} -->` marker: the audit tail is missing"),
        ));
    }
    if begins.len() != 1 || ends.len() != 1 || ends[0].0 < begins[0].1 {
        let line = begins.get(1).or(ends.first()).map(|r| line_at(text, r.0));
        return Err(Diagnostic::new(
            Code::audit_tail_sentinel_pair,
            format!(
                "the audit tail needs one begin marker before one end marker (found {} begin, {} end)",
                begins.len(),
                ends.len()
            ),
        )
        .with_line(line.or(Some(line_at(text, begins[0].0)))));
    }
    let inner = &text[begins[0].1..ends[0].0];
    let fence = ["```yaml", "```yml"]
        .iter()
        .filter_map(|f| inner.find(f).map(|at| (at, f.len())))
        .min();
    let missing_fence = || {
        Diagnostic::new(
            Code::audit_tail_missing,
            "the audit tail has no complete ```yaml fence between its markers",
        )
        .with_line(Some(line_at(text, begins[0].0)))
    };
    let (at, len) = fence.ok_or_else(missing_fence)?;
    let body_start = at + len;
    let body_len = inner[body_start..].find("```").ok_or_else(missing_fence)?;
    let yaml = &inner[body_start..body_start + body_len];
    let absolute = begins[0].1 + body_start;
    Ok((yaml, line_at(text, absolute) - 1))
}

/// The item `pointer` names when it is one discrepancy that is not a
/// mapping (`/discrepancies/0` holding a string, as auditors often write).
fn misshapen_discrepancy<'v>(pointer: &str, value: &'v Value) -> Option<&'v Value> {
    let index = pointer.strip_prefix("/discrepancies/")?;
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value.pointer(pointer).filter(|item| !item.is_object())
}

/// What a discrepancy looks like, for a finding about one that is not a
/// mapping.
fn discrepancy_shape(pointer: &str, value: &Value) -> Option<String> {
    misshapen_discrepancy(pointer, value)?;
    Some(
        "a discrepancy is a mapping with a `kind` (and optionally `file`, `symbol`, `spec_says`, `index_says`, `evidence`, `severity`), not a sentence"
            .to_string(),
    )
}

/// The discrepancy rewritten in its shape: the text the auditor wrote kept
/// as its `evidence`.
fn discrepancy_fix(pointer: &str, value: &Value) -> Option<String> {
    let item = misshapen_discrepancy(pointer, value)?;
    let evidence = match item {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    Some(format!(
        "Write it as a mapping, for example `- kind: scope_creep` with `evidence: {}` on the next line, indented under it (kind names what drifted: scope_creep, missing_file, symbol_changed, ...); see `mastermind-hooks schema audit-tail-v1`.",
        serde_json::to_string(&evidence).unwrap_or_default()
    ))
}

/// Parse and validate an audit tail from raw bytes.
pub fn parse(bytes: &[u8]) -> Result<AuditTail, Vec<Diagnostic>> {
    if bytes.len() > MAX_TAIL_BYTES {
        return Err(vec![Diagnostic::new(
            Code::input_too_large,
            format!("audit output exceeds {MAX_TAIL_BYTES}-byte limit"),
        )]);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| {
        vec![Diagnostic::new(
            Code::input_not_utf8,
            "audit output is not UTF-8",
        )]
    })?;
    let (yaml_text, lines_before) = extract(text).map_err(|d| vec![d])?;
    let (node, value) = yaml::parse_strict(yaml_text).map_err(|errors| {
        errors
            .iter()
            .map(|e| e.to_diagnostic(lines_before))
            .collect::<Vec<_>>()
    })?;
    let line_of = |pointer: &str| {
        node.line_of_pointer(pointer)
            .map(|l| l.saturating_add(lines_before))
    };
    if !value.is_object() {
        return Err(vec![
            Diagnostic::new(
                Code::audit_tail_not_mapping,
                "the audit tail YAML is not a mapping",
            )
            .with_line(line_of("")),
        ]);
    }
    let errors =
        schema::validate(SchemaId::AuditTailV1, &value).map_err(|e| vec![e.to_diagnostic()])?;
    if !errors.is_empty() {
        return Err(errors
            .iter()
            .map(|e| {
                let focus = e.focus_pointer();
                let d = Diagnostic::new(
                    Code::audit_tail_schema_violation,
                    format!(
                        "{}: {}{}",
                        if focus.is_empty() { "/" } else { &focus },
                        e.message,
                        discrepancy_shape(&focus, &value)
                            .map(|shape| format!("; {shape}"))
                            .unwrap_or_default()
                    ),
                )
                .with_line(line_of(&focus))
                .with_pointer(focus.clone());
                match discrepancy_fix(&focus, &value) {
                    Some(fix) => d.with_hint(fix),
                    None => d,
                }
            })
            .collect());
    }
    let text_of = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default();
    let Some(verdict) = Verdict::parse(text_of("verdict")) else {
        return Err(vec![Diagnostic::new(
            Code::audit_tail_schema_violation,
            "/verdict: must be held, drift or broken",
        )]);
    };
    let tail = AuditTail {
        spec: text_of("spec").to_string(),
        verdict,
        scope_match: value
            .get("scope_match")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        discrepancies: value
            .get("discrepancies")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
    };
    let failed_rerun = value
        .get("verifications_rerun")
        .and_then(Value::as_array)
        .is_some_and(|rows| {
            rows.iter()
                .any(|r| r.get("result") == Some(&Value::from("fail")))
        });
    let problem = match verdict {
        Verdict::Held if !tail.discrepancies.is_empty() => Some(format!(
            "verdict `held` but {} discrepanc{} listed",
            tail.discrepancies.len(),
            if tail.discrepancies.len() == 1 {
                "y is"
            } else {
                "ies are"
            }
        )),
        Verdict::Held if !tail.scope_match => {
            Some("verdict `held` but scope_match is false".to_string())
        }
        Verdict::Held if failed_rerun => {
            Some("verdict `held` but a re-run verification failed".to_string())
        }
        Verdict::Drift | Verdict::Broken if tail.discrepancies.is_empty() => Some(format!(
            "verdict `{}` needs at least one discrepancy",
            verdict.as_str()
        )),
        _ => None,
    };
    if let Some(problem) = problem {
        return Err(vec![
            Diagnostic::new(Code::audit_tail_verdict_inconsistent, problem)
                .with_line(line_of("/verdict"))
                .with_pointer("/verdict"),
        ]);
    }
    Ok(tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELD: &str = "spec: .mastermind/tasks/001-demo/spec.md\nverdict: held\nscope_match: true\ndiscrepancies: []\nverifications_rerun: []\n";

    fn wrap(yaml: &str) -> String {
        format!("Audit prose.\n\n<!-- {BEGIN} -->\n```yaml\n{yaml}```\n<!-- {END} -->\n")
    }

    fn code(text: &str) -> Code {
        parse(text.as_bytes()).unwrap_err()[0].code
    }

    #[test]
    fn a_discrepancy_written_as_a_sentence_gets_its_shape() {
        let tail = "<!-- mastermind:audit-begin -->\n```yaml\nspec: .mastermind/tasks/001-demo/spec.md\nverdict: drift\nscope_match: false\ndiscrepancies:\n  - \"src/x.rs changed outside the declared scope\"\n```\n<!-- mastermind:audit-end -->\n";
        let errors = parse(tail.as_bytes()).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        let d = &errors[0];
        assert_eq!(d.code, Code::audit_tail_schema_violation);
        assert_eq!(d.json_pointer.as_deref(), Some("/discrepancies/0"));
        assert!(
            d.message
                .contains("a discrepancy is a mapping with a `kind`"),
            "{}",
            d.message
        );
        let hint = d.hint.as_deref().unwrap_or_default();
        assert!(
            hint.contains("`- kind: scope_creep`")
                && hint.contains("`evidence: \"src/x.rs changed outside the declared scope\"`"),
            "{hint}"
        );
        // Other findings keep the code's own help.
        let other = tail.replace("verdict: drift", "verdict: 3");
        let errors = parse(other.as_bytes()).unwrap_err();
        assert!(
            errors
                .iter()
                .filter(|d| d.json_pointer.as_deref() == Some("/verdict"))
                .all(|d| d.hint.as_deref() == Some(Code::audit_tail_schema_violation.help())),
            "{errors:?}"
        );
    }

    #[test]
    fn accepts_the_template_tail_and_lenient_markup() {
        assert_eq!(parse(wrap(HELD).as_bytes()).unwrap().verdict, Verdict::Held);
        let lenient =
            format!("x <!--mastermind:audit-begin--> ```yml\n{HELD}``` text <!--  {END}   -->");
        assert!(parse(lenient.as_bytes()).is_ok());
        let upper = wrap(&HELD.replace("held", "HELD"));
        assert_eq!(parse(upper.as_bytes()).unwrap().verdict, Verdict::Held);
    }

    #[test]
    fn rejects_missing_doubled_and_unfenced_tails() {
        assert_eq!(code("no tail here"), Code::audit_tail_missing);
        let doubled = format!("{}{}", wrap(HELD), wrap(HELD));
        assert_eq!(code(&doubled), Code::audit_tail_sentinel_pair);
        let unfenced = format!("<!-- {BEGIN} -->\n{HELD}<!-- {END} -->\n");
        assert_eq!(code(&unfenced), Code::audit_tail_missing);
        let no_end = format!("<!-- {BEGIN} -->\n```yaml\n{HELD}```\n");
        assert_eq!(code(&no_end), Code::audit_tail_sentinel_pair);
    }

    #[test]
    fn field_rules() {
        assert_eq!(code(&wrap("- a\n")), Code::audit_tail_not_mapping);
        assert_eq!(
            code(&wrap(&HELD.replace("held", "fine"))),
            Code::audit_tail_schema_violation
        );
        assert_eq!(
            code(&wrap(
                &HELD.replace("scope_match: true", "scope_match: yes")
            )),
            Code::audit_tail_schema_violation
        );
        assert_eq!(
            code(&wrap(&HELD.replace("spec: ", "spek: "))),
            Code::audit_tail_schema_violation
        );
        assert_eq!(
            code(&wrap(&HELD.replace("verdict: held", "verdict: ~"))),
            Code::yaml_null_value
        );
        let d = &parse(wrap(&HELD.replace("held", "fine")).as_bytes()).unwrap_err()[0];
        assert_eq!(d.line, Some(6), "verdict is on file line 6");
    }

    #[test]
    fn verdict_must_agree_with_the_evidence() {
        let discrepancy = "discrepancies:\n  - kind: scope_creep\n    file: src/x.rs\n";
        let held_with = HELD.replace("discrepancies: []\n", discrepancy);
        assert_eq!(
            code(&wrap(&held_with)),
            Code::audit_tail_verdict_inconsistent
        );
        let drift_with = held_with.replace("held", "drift");
        assert_eq!(
            parse(wrap(&drift_with).as_bytes()).unwrap().verdict,
            Verdict::Drift
        );
        assert_eq!(
            code(&wrap(&HELD.replace("held", "broken"))),
            Code::audit_tail_verdict_inconsistent
        );
        let held_scope = HELD.replace("scope_match: true", "scope_match: false");
        assert_eq!(
            code(&wrap(&held_scope)),
            Code::audit_tail_verdict_inconsistent
        );
        let held_fail = HELD.replace(
            "verifications_rerun: []",
            "verifications_rerun:\n  - cmd: cargo test\n    result: fail",
        );
        assert_eq!(
            code(&wrap(&held_fail)),
            Code::audit_tail_verdict_inconsistent
        );
    }
}
