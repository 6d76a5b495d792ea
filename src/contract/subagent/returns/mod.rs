//! A subagent return: one YAML or JSON document, routed to its role, then
//! judged in two layers.
//!
//! * Parsing: the whole text is one document, as the reference guard reads
//!   it. Prose around it and ```` ``` ```` fences are not extracted; they
//!   make the text unparseable or a plain string. Plain scalars resolve as
//!   the YAML 1.2 core schema resolves them (the reference guard's parser:
//!   `02` is 2), and a number with no fraction is an integer. Strict YAML
//!   rules apply (duplicate keys, tags, non-string keys, non-finite numbers,
//!   depth), but nulls are kept: the schemas decide where `null` is allowed.
//! * Routing: `--role` (`handover` judges the envelope alone), else
//!   `handover.role` (see [`super::routing`]); by dispatch description, see
//!   [`super::dispatch`].
//! * Schema layer: the role's JSON Schema
//!   (`subagent_return_schema_violation`), with the reference's conditional
//!   semantics: a missing `handover` makes every status condition hold, an
//!   off-enum status makes none hold.
//! * Contract layer: the prose rules, each with its own code
//!   ([`super::rules`]).
//!
//! Unlike the reference hook, nothing exits early as a pass: an empty,
//! `null`, `{}` or `[]` return is an error, and a role with no known contract
//! cannot be checked (exit 2).

use super::routing::{self, ReturnRole, Route};
use super::rules;
use crate::codes::Code;
use crate::contract::text;
use crate::contract::yaml;
use crate::diagnostic::Diagnostic;
use crate::schema::{self, SchemaId};
use regex::Regex;
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// Bytes a subagent return may have.
pub const MAX_RETURN_BYTES: usize = 1024 * 1024;

/// A parsed return and where it was routed.
#[derive(Clone, Debug, PartialEq)]
pub struct SubagentReturn {
    pub route: Route,
    pub document: Value,
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a plain string (prose is not a return)",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn role_names() -> String {
    ReturnRole::ALL
        .iter()
        .map(|r| r.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Check one return; `role_option` is `--role`: a schema role, a dispatch
/// description, or `handover` (the envelope alone).
pub fn check(bytes: &[u8], role_option: Option<&str>) -> (Option<SubagentReturn>, Vec<Diagnostic>) {
    match role_option.map(str::trim) {
        None => check_routed(bytes, None),
        Some(HANDOVER) => check_envelope_alone(bytes),
        Some(option) => match routing::route(option) {
            Route::Unknown => (
                None,
                vec![Diagnostic::new(
                    Code::role_option_unknown,
                    format!(
                        "--role `{option}` routes to no subagent return contract; use a schema role ({}), `handover` for the envelope alone, or a routed description prefix",
                        role_names()
                    ),
                )],
            ),
            route => check_routed(bytes, Some(route)),
        },
    }
}

/// `--role handover`: the envelope judged alone.
const HANDOVER: &str = "handover";

/// The text decoded and parsed as one document (YAML 1.2 core scalars,
/// integral numbers as integers), or the diagnostics that stop there.
fn parse(bytes: &[u8]) -> Result<(yaml::YamlNode, Value), Vec<Diagnostic>> {
    let text = text::decode(bytes, MAX_RETURN_BYTES, "subagent return").map_err(|d| vec![d])?;
    if text.trim().is_empty() {
        return Err(vec![empty()]);
    }
    let (node, mut document) = yaml::parse_core_keeping_nulls(text).map_err(|errors| {
        errors
            .iter()
            .map(|e| {
                let d = e.to_diagnostic(0);
                if d.code == Code::yaml_syntax {
                    syntax_hint(d, text, e.hint.is_some())
                } else {
                    d
                }
            })
            .collect::<Vec<_>>()
    })?;
    integral_numbers(&mut document);
    Ok((node, document))
}

fn empty() -> Diagnostic {
    Diagnostic::new(
        Code::subagent_return_empty,
        "subagent return is empty; an empty, `null`, `{}` or `[]` return never passes",
    )
}

static MARKDOWN_BULLET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^( *)- \*\*([^*\s]+)\*\*").unwrap());

/// A YAML syntax error, with what usually causes it in a return: a
/// Markdown finding bullet (YAML alias syntax), prose or a fence, unless the
/// YAML layer already named the cause (`specific`: an unquoted `: `, a
/// second document).
fn syntax_hint(d: Diagnostic, text: &str, specific: bool) -> Diagnostic {
    if let Some(bullet) = MARKDOWN_BULLET.captures(text) {
        let line = text[..bullet.get(0).map_or(0, |m| m.start())]
            .matches('\n')
            .count();
        let id = bullet.get(2).map_or("", |m| m.as_str());
        return Diagnostic::new(
            Code::yaml_syntax,
            format!(
                "the Markdown finding bullet `- **{id}**` is YAML alias syntax, so the return does not parse ({})",
                d.message
            ),
        )
        .with_line(Some(text::line_number(line)))
        .with_hint("A subagent return is one JSON or YAML document: give each finding as an object (`{\"id\": ..., \"title\": ...}`) or quote the bullet text; JSON is preferred.");
    }
    if specific {
        return d;
    }
    d.with_hint(
        "A subagent return is one JSON or YAML document: drop any prose and ``` fences around it (nothing is extracted); `- **ID**` bullets are YAML aliases, so quote them or use JSON.",
    )
}

/// Numbers with no fraction become integers, as a JavaScript reader sees
/// them (`2.0`, and `02` read as a float by the YAML layer, are the integer
/// 2 to Ajv's `integer`).
fn integral_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() <= 9_007_199_254_740_992.0
            {
                // Exact: |f| <= 2^53 and no fraction.
                *value = Value::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_numbers),
        Value::Object(map) => map.values_mut().for_each(integral_numbers),
        _ => {}
    }
}

/// The document as one non-empty mapping, or the diagnostic that stops.
fn as_mapping(document: &Value) -> Result<&Map<String, Value>, Diagnostic> {
    match document {
        Value::Null => Err(empty()),
        Value::Object(map) if map.is_empty() => Err(empty()),
        Value::Array(items) if items.is_empty() => Err(empty()),
        Value::Object(map) => Ok(map),
        other => Err(Diagnostic::new(
            Code::subagent_return_not_mapping,
            format!("the return is {}, not one mapping", describe(other)),
        )
        .with_line(Some(1))),
    }
}

/// A warning per plain YAML value that an unquoted ` #` cut short
/// ([`yaml::values_cut_by_comment`]), with the quoted value as the fix.
fn cut_by_comment(node: &yaml::YamlNode, bytes: &[u8]) -> Vec<Diagnostic> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
    yaml::values_cut_by_comment(node, text)
        .into_iter()
        .map(|cut| {
            let key = cut
                .pointer
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .replace("~1", "/")
                .replace("~0", "~");
            let whole = format!("{} {}", cut.value, cut.comment);
            Diagnostic::new(
                Code::subagent_return_value_cut_by_comment,
                format!(
                    "`{key}` reads `{}`: YAML took the unquoted ` {}` after it for a comment, so the rest of the line is not part of the value",
                    cut.value, cut.comment
                ),
            )
            .with_pointer(cut.pointer.clone())
            .with_line(Some(cut.line))
            .with_hint(format!(
                "If it belongs to the value, quote it: `{key}: {}` (or write the return as JSON); if it is a comment, put it on a line of its own.",
                serde_json::to_string(&whole).unwrap_or_default()
            ))
        })
        .collect()
}

/// Check one return routed to `expected` (`None`: by its `handover.role`).
pub fn check_routed(
    bytes: &[u8],
    expected: Option<Route>,
) -> (Option<SubagentReturn>, Vec<Diagnostic>) {
    let (node, document) = match parse(bytes) {
        Ok(parsed) => parsed,
        Err(diagnostics) => return (None, diagnostics),
    };
    let cut = cut_by_comment(&node, bytes);
    let (checked, mut diagnostics) = check_parsed(&node, document, expected);
    diagnostics.extend(cut);
    (checked, diagnostics)
}

/// [`check_routed`] of a parsed return.
fn check_parsed(
    node: &yaml::YamlNode,
    document: Value,
    expected: Option<Route>,
) -> (Option<SubagentReturn>, Vec<Diagnostic>) {
    let map = match as_mapping(&document) {
        Ok(map) => map,
        Err(d) => return (None, vec![d]),
    };
    let route = match expected {
        Some(route) => route,
        None => match map.get("handover") {
            None => {
                return (
                    None,
                    vec![Diagnostic::new(
                        Code::subagent_return_handover_missing,
                        "the return has no `handover` envelope, so it names no role; add the envelope (or pass --role or --dispatch to see every other finding)",
                    )],
                );
            }
            Some(handover) if !handover.is_object() => {
                return (
                    None,
                    vec![
                        Diagnostic::new(
                            Code::subagent_return_handover_missing,
                            format!(
                                "`handover` is {}, not the envelope mapping",
                                describe(handover)
                            ),
                        )
                        .with_pointer("/handover")
                        .with_line(node.line_of_pointer("/handover")),
                    ],
                );
            }
            Some(handover) => match handover.get("role").and_then(Value::as_str) {
                Some(role) => routing::route(role),
                None => {
                    return (
                        None,
                        vec![
                            Diagnostic::new(
                                Code::subagent_return_role_unknown,
                                "handover.role is missing or not a string, so no contract can be chosen; pass --role or --dispatch",
                            )
                            .with_pointer("/handover")
                            .with_line(node.line_of_pointer("/handover")),
                        ],
                    );
                }
            },
        },
    };
    let diagnostics = match route {
        Route::Unknown => {
            let role = map
                .get("handover")
                .and_then(|h| h.get("role"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            vec![
                Diagnostic::new(
                    Code::subagent_return_role_unknown,
                    format!(
                        "handover.role `{role}` routes to no return contract (schemas: {}); pass --dispatch with the dispatch description",
                        role_names()
                    ),
                )
                .with_pointer("/handover/role")
                .with_line(node.line_of_pointer("/handover/role")),
            ]
        }
        Route::EnvelopeOnly => rules::envelope_sanity(node, map),
        Route::Schema(role) => {
            let expected_role = match expected {
                Some(Route::Schema(r)) => Some(r),
                _ => None,
            };
            let mut diagnostics = schema_layer(role, node, &document);
            diagnostics.extend(rules::check(role, node, map, expected_role));
            diagnostics
        }
    };
    (Some(SubagentReturn { route, document }), diagnostics)
}

/// `--role handover`: the envelope alone against the handover schema and
/// the envelope's contract rules. The document is the envelope itself, or
/// a return whose `handover` is judged (its payload is not).
fn check_envelope_alone(bytes: &[u8]) -> (Option<SubagentReturn>, Vec<Diagnostic>) {
    let (node, document) = match parse(bytes) {
        Ok(parsed) => parsed,
        Err(diagnostics) => return (None, diagnostics),
    };
    let cut = cut_by_comment(&node, bytes);
    let (checked, mut diagnostics) = envelope_of(&node, document);
    diagnostics.extend(cut);
    (checked, diagnostics)
}

/// [`check_envelope_alone`] of a parsed return.
fn envelope_of(
    node: &yaml::YamlNode,
    document: Value,
) -> (Option<SubagentReturn>, Vec<Diagnostic>) {
    let map = match as_mapping(&document) {
        Ok(map) => map,
        Err(d) => return (None, vec![d]),
    };
    let (envelope, base) = match map.get("handover") {
        Some(Value::Object(_)) if !map.contains_key("status") => (&map["handover"], "/handover"),
        Some(other) if !map.contains_key("status") => {
            return (
                None,
                vec![
                    Diagnostic::new(
                        Code::subagent_return_handover_missing,
                        format!(
                            "`handover` is {}, not the envelope mapping",
                            describe(other)
                        ),
                    )
                    .with_pointer("/handover")
                    .with_line(node.line_of_pointer("/handover")),
                ],
            );
        }
        _ => (&document, ""),
    };
    let mut diagnostics: Vec<Diagnostic> =
        match schema::validate(SchemaId::SubagentHandover, envelope) {
            Err(unavailable) => vec![unavailable.to_diagnostic()],
            Ok(errors) => errors
                .into_iter()
                .map(|error| {
                    let pointer = format!("{base}{}", error.focus_pointer());
                    Diagnostic::new(
                        Code::subagent_return_schema_violation,
                        format!("handover schema: {}", backtick_tokens(&error.message)),
                    )
                    .with_line(node.line_of_pointer(&pointer))
                    .with_pointer(pointer)
                })
                .collect(),
        };
    if let Some(envelope) = envelope.as_object() {
        diagnostics.extend(rules::envelope_alone(node, envelope, base));
    }
    (
        Some(SubagentReturn {
            route: Route::EnvelopeOnly,
            document,
        }),
        diagnostics,
    )
}

static QUOTED_TOKEN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#""([^"\s\\]*)""#).unwrap());

/// `"blocked-reason" is a required property` reads better, and stays free of
/// escapes in JSON output, as `` `blocked-reason` is a required property``.
fn backtick_tokens(message: &str) -> String {
    QUOTED_TOKEN.replace_all(message, "`$1`").into_owned()
}

static REVIEWER_FINDING_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\A/(?:missing-scenarios|craft-issues|verification-misses)/[0-9]+/id\z").unwrap()
});

/// A reviewer finding's id breaks a rule with a name: say which, not just
/// the pattern (a Stage A id in a reviewer return is the usual slip).
fn reviewer_id_rule(pointer: &str, document: &Value) -> Option<String> {
    if !REVIEWER_FINDING_ID.is_match(pointer) {
        return None;
    }
    let id = document.pointer(pointer)?.as_str()?;
    let what = match super::finding::classify(id) {
        Ok(super::finding::Scheme::StageA) => "is a Stage A id, not",
        Ok(super::finding::Scheme::PhaseValidator) => "is a phase-validator id, not",
        Ok(super::finding::Scheme::AgentsVsAgents) => "is an agents-vs-agents id, not",
        _ => "is not",
    };
    Some(format!(
        "reviewer finding id `{id}` {what} the Stage B `-R-` subformat `j-<journey>-<pass>-<cycle>-R-<nn>`"
    ))
}

/// The schema layer: every violation of the role's schema.
fn schema_layer(role: ReturnRole, node: &yaml::YamlNode, document: &Value) -> Vec<Diagnostic> {
    match schema::validate(role.schema(), document) {
        Err(unavailable) => vec![unavailable.to_diagnostic()],
        Ok(errors) => errors
            .into_iter()
            .map(|error| {
                let pointer = error.focus_pointer();
                let line = node.line_of_pointer(&pointer);
                let message = reviewer_id_rule(&pointer, document)
                    .unwrap_or_else(|| backtick_tokens(&error.message));
                Diagnostic::new(
                    Code::subagent_return_schema_violation,
                    format!("{} schema: {message}", role.name()),
                )
                .with_pointer(pointer)
                .with_line(line)
                .with_hint(format!(
                    "Fix the value at the JSON pointer shown; see `mastermind-hooks schema {}`.",
                    role.schema().name()
                ))
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests;
