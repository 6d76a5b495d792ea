//! The contract layer of a subagent return: the prose rules the JSON Schemas
//! do not enforce (contract B.5). Each rule has its own code, so a
//! diagnostic says whether the schema or the contract was broken.

use super::banned::{self, TokenSet};
use super::routing::ReturnRole;
use crate::codes::Code;
use crate::contract::yaml::{YamlNode, YamlValue};
use crate::diagnostic::Diagnostic;
use serde_json::{Map, Value};

/// The envelope's fields, plus the two optional ones the schema declares
/// (`dispatch-mode` is required of some first-cycle returns, so it cannot be
/// banned from the envelope).
const ENVELOPE_FIELDS: &[&str] = &["role", "cycle", "status", "next-action"];
const ENVELOPE_EXTENSIONS: &[&str] = &["dispatch-mode", "parallel-wave-size"];

/// A located finding of the contract layer.
struct Finder<'a> {
    node: &'a YamlNode,
    out: Vec<Diagnostic>,
}

impl Finder<'_> {
    fn push(&mut self, code: Code, pointer: &str, message: String) {
        self.out.push(
            Diagnostic::new(code, message)
                .with_pointer(pointer)
                .with_line(self.node.line_of_pointer(pointer)),
        );
    }
}

fn as_integer(value: &Value) -> Option<i128> {
    if let Some(i) = value.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = value.as_u64() {
        return Some(i128::from(u));
    }
    value
        .as_f64()
        .filter(|f| f.fract() == 0.0 && f.abs() < 1e18)
        .map(|f| f as i128)
}

/// A value for a message: strings say they are strings.
fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => format!("the string `{s}`"),
        other => format!("`{other}`"),
    }
}

fn non_blank_string(value: Option<&Value>) -> bool {
    value
        .and_then(Value::as_str)
        .is_some_and(|s| !s.trim().is_empty())
}

/// The first key of the document as written.
fn first_key(node: &YamlNode) -> Option<&str> {
    node.as_map()?.first().and_then(|(k, _)| match &k.value {
        YamlValue::Str(s) => Some(s.as_str()),
        _ => None,
    })
}

/// Envelope sanity, the whole check for the no-schema prefixes: a
/// `handover` mapping whose `cycle`, when present, is a non-negative integer
/// (the reference's `^[0-9]+$`, so `0` passes).
pub fn envelope_sanity(node: &YamlNode, document: &Map<String, Value>) -> Vec<Diagnostic> {
    let mut f = Finder {
        node,
        out: Vec::new(),
    };
    match document.get("handover") {
        Some(Value::Object(handover)) => {
            if let Some(cycle) = handover.get("cycle") {
                let digits = match cycle {
                    Value::String(s) => !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()),
                    other => as_integer(other).is_some_and(|n| n >= 0),
                };
                if !digits {
                    f.push(
                        Code::subagent_return_cycle_invalid,
                        "/handover/cycle",
                        format!(
                            "handover.cycle must be a whole number, not {}",
                            shown(cycle)
                        ),
                    );
                }
            }
        }
        _ => f.push(
            Code::subagent_return_handover_missing,
            "",
            "the return has no `handover` mapping".to_string(),
        ),
    }
    f.out
}

/// Every contract-layer rule for a schema-routed return. `expected` is the
/// role given by `--role`, if any.
pub fn check(
    role: ReturnRole,
    node: &YamlNode,
    document: &Map<String, Value>,
    expected: Option<ReturnRole>,
) -> Vec<Diagnostic> {
    let mut f = Finder {
        node,
        out: Vec::new(),
    };
    let handover = document.get("handover").and_then(Value::as_object);
    // A missing or non-object envelope is the schema layer's finding.
    if let Some(handover) = handover {
        envelope(&mut f, node, handover, expected);
    }
    let status = handover
        .and_then(|h| h.get("status"))
        .and_then(Value::as_str)
        .filter(|s| role.statuses().contains(s));
    match role {
        ReturnRole::PhaseValidator => phase_validator(&mut f, document, status),
        ReturnRole::ReviewerInloop => reviewer(&mut f, document, status),
        _ => {}
    }
    let set = match role {
        ReturnRole::PhaseValidator | ReturnRole::ReviewerInloop => TokenSet::ReviewerFamily,
        _ => TokenSet::Common,
    };
    for hit in banned::scan(&Value::Object(document.clone()), set) {
        f.push(
            Code::subagent_return_banned_token,
            &hit.pointer,
            format!(
                "banned token `{}` (a leftover of an earlier schema revision)",
                hit.token
            ),
        );
    }
    f.out
}

fn envelope(
    f: &mut Finder<'_>,
    node: &YamlNode,
    handover: &Map<String, Value>,
    expected: Option<ReturnRole>,
) {
    if let Some(first) = first_key(node).filter(|k| *k != "handover") {
        f.push(
            Code::subagent_return_handover_not_first,
            "/handover",
            format!("`handover` must be the first key of the return; `{first}` comes first"),
        );
    }
    envelope_fields(f, handover, "/handover");
    if let (Some(expected), Some(written)) =
        (expected, handover.get("role").and_then(Value::as_str))
        && let super::routing::Route::Schema(routed) = super::routing::route(written)
        && routed != expected
    {
        f.push(
            Code::subagent_return_role_mismatch,
            "/handover/role",
            format!(
                "handover.role `{written}` routes to `{}` but the return was validated as `{}` (--role or --dispatch)",
                routed.name(),
                expected.name()
            ),
        );
    }
}

/// The envelope's own rules (seed 004 section 2.0): only its four fields
/// (and the schema's two optional ones), and a `cycle` that is an integer of
/// at least 1. A numeric string (`"2"`) is that integer: the handover schema
/// admits strings, and the seed asks for the number, not its JSON type.
fn envelope_fields(f: &mut Finder<'_>, handover: &Map<String, Value>, base: &str) {
    for key in handover.keys() {
        if !ENVELOPE_FIELDS.contains(&key.as_str()) && !ENVELOPE_EXTENSIONS.contains(&key.as_str())
        {
            let pointer = format!("{base}/{}", key.replace('~', "~0").replace('/', "~1"));
            f.push(
                Code::subagent_return_handover_extra_field,
                &pointer,
                format!(
                    "`{key}` does not belong in the handover envelope (role, cycle, status, next-action); put it at the top level"
                ),
            );
        }
    }
    // Seed 004 section 2.0's rule column; the reference schema does not
    // enforce these two, so they are warnings.
    if let Some(role) = handover.get("role").and_then(Value::as_str)
        && !role.is_empty()
        && !is_kebab_case(role)
    {
        f.push(
            Code::subagent_return_role_not_kebab_case,
            &format!("{base}/role"),
            format!(
                "handover.role `{role}` is not a kebab-case slug (lower-case letters and digits joined by single hyphens); write `{}`",
                kebab_case(role)
            ),
        );
    }
    if let Some(next) = handover.get("next-action").and_then(Value::as_str) {
        let lines = next.trim().lines().filter(|l| !l.trim().is_empty()).count();
        if lines > 1 {
            f.push(
                Code::subagent_return_next_action_multiline,
                &format!("{base}/next-action"),
                format!(
                    "handover.next-action spans {lines} lines; it is a one-line directive for the orchestrator"
                ),
            );
        }
    }
    match handover.get("cycle") {
        None => f.push(
            Code::subagent_return_cycle_invalid,
            if base.is_empty() { "" } else { base },
            "handover.cycle is required (an integer >= 1)".to_string(),
        ),
        Some(cycle) if cycle_number(cycle).is_none_or(|n| n < 1) => f.push(
            Code::subagent_return_cycle_invalid,
            &format!("{base}/cycle"),
            format!(
                "handover.cycle must be an integer >= 1, not {}",
                shown(cycle)
            ),
        ),
        Some(_) => {}
    }
}

/// `composer-j-login-flow`: lower-case ASCII letters and digits in words
/// joined by single hyphens.
fn is_kebab_case(text: &str) -> bool {
    text.split('-').all(|word| {
        !word.is_empty()
            && word
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    })
}

/// `text` as a kebab-case slug: camelCase and every run of other
/// characters split into lower-case words joined by hyphens.
fn kebab_case(text: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && previous_lower && !out.ends_with('-') {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.is_empty() && !out.ends_with('-') {
                out.push('-');
            }
            previous_lower = false;
        }
    }
    out.trim_end_matches('-').to_string()
}

/// A cycle as a number: an integer, or a string of decimal digits.
fn cycle_number(value: &Value) -> Option<i128> {
    match value {
        Value::String(s) => {
            let digits = s.trim();
            (!digits.is_empty() && digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse().ok())
                .flatten()
        }
        other => as_integer(other),
    }
}

/// `--role handover`: the envelope's contract rules alone; `base` is where
/// the envelope sits in the document (`/handover` or the root).
pub fn envelope_alone(
    node: &YamlNode,
    handover: &Map<String, Value>,
    base: &str,
) -> Vec<Diagnostic> {
    let mut f = Finder {
        node,
        out: Vec::new(),
    };
    envelope_fields(&mut f, handover, base);
    f.out
}

fn phase_validator(f: &mut Finder<'_>, document: &Map<String, Value>, status: Option<&str>) {
    let Some(status) = status else { return };
    if !non_blank_string(document.get("summary")) {
        f.push(
            Code::subagent_return_summary_missing,
            if document.contains_key("summary") {
                "/summary"
            } else {
                ""
            },
            format!("a phase-validator `{status}` return needs a non-blank `summary`"),
        );
    }
    match document.get("phase") {
        None => f.push(
            Code::subagent_return_phase_invalid,
            "",
            "a phase-validator return needs `phase` (an integer 1 to 7)".to_string(),
        ),
        Some(phase) => {
            if let Some(n) = as_integer(phase)
                && !(1..=7).contains(&n)
            {
                f.push(
                    Code::subagent_return_phase_invalid,
                    "/phase",
                    format!("phase {n} is outside 1 to 7"),
                );
            }
        }
    }
    if let Some(Value::Array(rows)) = document.get("exit-criteria-checked")
        && rows.is_empty()
    {
        f.push(
            Code::subagent_return_exit_criteria_empty,
            "/exit-criteria-checked",
            "`exit-criteria-checked` is empty; list at least one criterion".to_string(),
        );
    }
    // Section 2.5 (its required fields and its own worked example) and the
    // schema leave `findings` off a greenlight; the section 4.4 table's
    // literal `findings: []` is therefore not required. Findings on a
    // greenlight still contradict it.
    if status == "greenlight" {
        match document.get("findings") {
            None => {}
            Some(Value::Array(items)) if items.is_empty() => {}
            Some(_) => f.push(
                Code::subagent_return_greenlight_findings,
                "/findings",
                "a greenlight has no findings (write `findings: []` or leave it out); findings mean `improvements-needed`"
                    .to_string(),
            ),
        }
    }
}

const REVIEWER_LISTS: &[&str] = &["missing-scenarios", "craft-issues", "verification-misses"];

fn reviewer(f: &mut Finder<'_>, document: &Map<String, Value>, status: Option<&str>) {
    match status {
        Some("greenlight") if !non_blank_string(document.get("summary")) => f.push(
            Code::subagent_return_summary_missing,
            if document.contains_key("summary") {
                "/summary"
            } else {
                ""
            },
            "a reviewer greenlight needs a non-blank `summary`".to_string(),
        ),
        Some("improvements-needed") => {
            if document.contains_key("summary") {
                f.push(
                    Code::subagent_return_summary_forbidden,
                    "/summary",
                    "a reviewer improvements-needed return has no `summary`".to_string(),
                );
            }
            let findings: usize = REVIEWER_LISTS
                .iter()
                .filter_map(|list| document.get(*list).and_then(Value::as_array))
                .map(Vec::len)
                .sum();
            if findings == 0 {
                f.push(
                    Code::subagent_return_must_fix_missing,
                    "",
                    "improvements-needed lists no must-fix finding under missing-scenarios, craft-issues or verification-misses".to_string(),
                );
            }
        }
        _ => {}
    }
}

/// The rules' helpers, for the return tests beside this module.
#[cfg(test)]
pub(super) mod tests_support {
    pub fn kebab(text: &str) -> bool {
        super::is_kebab_case(text)
    }
}
