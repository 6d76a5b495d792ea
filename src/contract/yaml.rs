//! Strict YAML: text in, a positioned YAML tree or a JSON value out.
//!
//! Everyday documents (no anchors, aliases, tags or directives) are built
//! straight from the parser's events ([`fast`]); every other document, and
//! every error, comes from serde-saphyr. Both read YAML as serde-saphyr is
//! configured here, to the YAML 1.2 core schema the
//! reference decoder uses: `true/True/TRUE` are booleans while `yes`, `no`,
//! `on`, `off`, `y` and `n` stay strings; `null/Null/NULL/~` and empty values are
//! null; `042`, `1_000` and `0X1F` stay strings; merge keys (`<<`) are ordinary
//! keys; duplicate keys are errors. Two layers:
//!
//! * [`parse`] is lenient like a generic YAML value: it keeps nulls, tags,
//!   non-string keys and non-finite numbers (the reference's whole-text probe
//!   needs exactly that), and fails only on syntax, duplicate keys, budget and
//!   hard depth limits.
//! * [`to_strict_json`] applies the contract's value rules (no nulls, no tags,
//!   string keys, finite numbers, depth <= 64) and yields JSON for schema
//!   validation and typed decoding.
//!   [`parse_strict_keeping_nulls`] applies the same rules but keeps nulls,
//!   for contracts whose JSON Schemas decide where `null` is allowed.
//!
//! Line numbers are 1-based and relative to the text given; callers shift
//! them to file lines.

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::{Spanned, Tagged};
use std::fmt;

mod fast;

pub use fast::FastParse;

/// Deepest nesting the contract permits: the root is depth 0 and any value
/// deeper than this is rejected (`executor report nesting limit exceeded`).
pub const MAX_DEPTH: usize = 64;

/// Hard structural limit handed to the parser (nested collections); beyond
/// it nothing is built. Two more than [`MAX_DEPTH`] so that a value just over
/// the contract's limit is still reported with its place, and small enough
/// that recursion stays far from any thread's stack limit.
const PARSER_MAX_DEPTH: usize = MAX_DEPTH + 2;

const STACK_RED_ZONE: usize = 256 * 1024;
const STACK_GROWTH: usize = 4 * 1024 * 1024;

/// Nesting levels below this are read without asking how much stack is
/// left (the first question costs a read of `/proc/self/maps` on the main
/// thread); specs and reports stay within it. Debug builds, whose levels
/// cost tens of KiB each, ask from the third level on.
const UNCHECKED_DEPTH: usize = if cfg!(debug_assertions) { 2 } else { 16 };

thread_local! {
    /// How deep the node being read is nested, on this thread.
    static READ_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One level deeper in [`READ_DEPTH`] for as long as it lives.
struct Nested(usize);

impl Nested {
    fn enter() -> Nested {
        Nested(READ_DEPTH.with(|d| d.replace(d.get() + 1)))
    }
}

impl Drop for Nested {
    fn drop(&mut self) {
        READ_DEPTH.with(|d| d.set(self.0));
    }
}

/// Upper bound on YAML nodes (after alias expansion) in one document.
const MAX_NODES: usize = 100_000;

/// A YAML node with its position in the parsed text.
#[derive(Clone, Debug, PartialEq)]
pub struct YamlNode {
    pub value: YamlValue,
    /// The explicit tag, if any, as resolved by the parser (`!custom`,
    /// `tag:yaml.org,2002:str`).
    pub tag: Option<String>,
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// Byte range of the node in the source, when known.
    span: Option<(usize, usize)>,
}

/// The value of a YAML node, before any contract rule is applied.
#[derive(Clone, Debug, PartialEq)]
pub enum YamlValue {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<YamlNode>),
    Map(Vec<(YamlNode, YamlNode)>),
}

impl YamlNode {
    /// True when the node is a mapping with a plain string key `key`.
    pub fn has_key(&self, key: &str) -> bool {
        matches!(&self.value, YamlValue::Map(entries)
            if entries.iter().any(|(k, _)| matches!(&k.value, YamlValue::Str(s) if s == key)))
    }

    pub fn as_map(&self) -> Option<&[(YamlNode, YamlNode)]> {
        match &self.value {
            YamlValue::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The line of what `pointer` (RFC 6901) names, falling back to the
    /// deepest node on the way that exists. A mapping entry is located by
    /// its key's line: for a block value (`key:` then indented lines) the
    /// value starts a line lower, but the key is what a person edits.
    pub fn line_of_pointer(&self, pointer: &str) -> Option<u32> {
        let mut node = self;
        let mut line = self.line;
        for token in pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            let next = match &node.value {
                YamlValue::Map(entries) => entries
                    .iter()
                    .find(|(k, _)| matches!(&k.value, YamlValue::Str(s) if *s == token))
                    .map(|(k, v)| (v, if k.line > 0 { k.line } else { v.line })),
                YamlValue::Seq(items) => token
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i))
                    .map(|item| (item, item.line)),
                _ => None,
            };
            match next {
                Some((next, next_line)) => {
                    node = next;
                    line = next_line;
                }
                None => break,
            }
        }
        (line > 0).then_some(line)
    }
}

/// A YAML problem: which rule, where, and a message for people.
#[derive(Clone, Debug, PartialEq)]
pub struct YamlError {
    pub code: Code,
    /// What is wrong and how to fix it, for people.
    pub message: String,
    /// The parser's own reason alone (`mapping values are not allowed in
    /// this context`), for callers that only probe whether a text is YAML.
    pub reason: String,
    pub line: Option<u32>,
    pub pointer: Option<String>,
    /// The fix, when it is more specific than the code's help.
    pub hint: Option<String>,
}

impl YamlError {
    fn new(code: Code, message: impl Into<String>, line: Option<u32>) -> Self {
        let message = message.into();
        YamlError {
            code,
            reason: message.clone(),
            message,
            line,
            pointer: None,
            hint: None,
        }
    }

    /// The diagnostic for this error, with lines shifted by `lines_before`.
    pub fn to_diagnostic(&self, lines_before: u32) -> Diagnostic {
        let mut d = Diagnostic::new(self.code, self.message.clone())
            .with_line(self.line)
            .offset_lines(lines_before);
        if let Some(pointer) = &self.pointer {
            d = d.with_pointer(pointer.clone());
        }
        if let Some(hint) = &self.hint {
            d = d.with_hint(hint.clone());
        }
        d
    }
}

/// The parser options; `leading_zero_as_strings` keeps `042` a string (the
/// Mastermind decoder) or reads it as the integer 42 (the YAML 1.2 core
/// schema's int pattern `[-+]?[0-9]+`).
fn options_with(leading_zero_as_strings: bool) -> serde_saphyr::Options {
    serde_saphyr::options! {
        strict_booleans: true,
        leading_zero_numbers_as_strings: leading_zero_as_strings,
        underscored_numbers_as_strings: true,
        legacy_octal_numbers: false,
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
        merge_keys: serde_saphyr::MergeKeyPolicy::AsOrdinary,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        with_snippet: false,
        budget: serde_saphyr::budget! {
            max_depth: PARSER_MAX_DEPTH,
            max_nodes: MAX_NODES,
        },
    }
}

/// Parse one YAML document into a positioned tree (lenient layer).
pub fn parse(text: &str) -> Result<YamlNode, YamlError> {
    parse_as(text, true)
}

/// The fast path where it answers, else serde-saphyr; `leading_zero_as_strings`
/// as in [`options_with`].
fn parse_as(text: &str, leading_zero_as_strings: bool) -> Result<YamlNode, YamlError> {
    match fast::build(text, leading_zero_as_strings) {
        FastParse::Tree(node) => Ok(node),
        FastParse::Malformed | FastParse::Declined => {
            parse_with_serde(text, leading_zero_as_strings)
        }
    }
}

/// [`parse`] for callers that probe whether a text is YAML and may never
/// show why it is not: `Err(None)` where the YAML parser rejects the text
/// (then [`parse`] gives the error, computed again only if it is needed).
pub fn parse_unless_malformed(text: &str) -> Result<YamlNode, Option<YamlError>> {
    match fast::build(text, true) {
        FastParse::Tree(node) => Ok(node),
        FastParse::Malformed => Err(None),
        FastParse::Declined => parse_with_serde(text, true).map_err(Some),
    }
}

/// [`parse`] by serde-saphyr alone: every document the fast path leaves,
/// and the reference the fast path is tested against.
pub fn parse_with_serde(text: &str, leading_zero_as_strings: bool) -> Result<YamlNode, YamlError> {
    serde_saphyr::from_str_with_options::<YamlNode>(text, options_with(leading_zero_as_strings))
        .map_err(|e| classify(e, text))
}

/// [`parse`] by the fast path alone, for the tests that compare it with
/// [`parse_with_serde`].
pub fn parse_fast(text: &str, leading_zero_as_strings: bool) -> FastParse {
    fast::build(text, leading_zero_as_strings)
}

/// Parse one YAML document and apply every strict value rule.
pub fn parse_strict(text: &str) -> Result<(YamlNode, Value), Vec<YamlError>> {
    let node = parse(text).map_err(|e| vec![e])?;
    let value = to_strict_json(&node, text)?;
    Ok((node, value))
}

/// Parse one YAML (or JSON) document and apply every strict value rule except
/// the ban on nulls, which become JSON `null`. For contracts whose JSON
/// Schemas admit `null` (subagent returns): there the schema, not the YAML
/// layer, decides where a null is allowed.
pub fn parse_strict_keeping_nulls(text: &str) -> Result<(YamlNode, Value), Vec<YamlError>> {
    let node = parse(text).map_err(|e| vec![e])?;
    let value = to_json(&node, text, Nulls::Keep)?;
    Ok((node, value))
}

/// [`parse_strict_keeping_nulls`] with plain scalars resolved as the YAML
/// 1.2 core schema resolves them (<https://yaml.org/spec/1.2.2/#1032-tag-resolution>):
/// `02` is the integer 2. For documents a YAML 1.2 core parser reads
/// elsewhere (subagent returns, read by the reference guard with the
/// `yaml` package's default core schema).
///
/// A document written as JSON (it opens with `{` or `[`) that holds a `//`
/// or `/* */` comment is `json_comment`: JSON has no comments, and the YAML
/// reader would take the comment for part of a key.
pub fn parse_core_keeping_nulls(text: &str) -> Result<(YamlNode, Value), Vec<YamlError>> {
    if let Some((line, comment)) = json_comment(text) {
        let mut error = YamlError::new(
            Code::json_comment,
            format!(
                "the JSON document holds a comment ({}); JSON has no comments, and a YAML reader takes it for part of the next key: delete it",
                crate::contract::text::code(comment)
            ),
            Some(line),
        );
        error.reason = "a comment in a JSON document".to_string();
        return Err(vec![error]);
    }
    let node = parse_as(text, false).map_err(|e| vec![e])?;
    let value = to_json(&node, text, Nulls::Keep)?;
    Ok((node, value))
}

/// The first `//` or `/* */` comment of a document written as JSON (it
/// opens with `{` or `[`): its line and the comment's first line. Only a
/// comment where JSON has a token boundary counts (after `{`, `[`, `,`, a
/// closing bracket, a string or a number), so `http://x` in a string or a
/// flow-style plain scalar is no comment.
pub fn json_comment(text: &str) -> Option<(u32, &str)> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if !(body.starts_with('{') || body.starts_with('[')) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    let mut previous: Option<u8> = None;
    let mut line = 1u32;
    for (at, &byte) in bytes.iter().enumerate() {
        if byte == b'\n' {
            line = line.saturating_add(1);
        }
        if let Some(open) = quote {
            if escaped {
                escaped = false;
            } else if byte == b'\\' && open == b'"' {
                escaped = true;
            } else if byte == open || byte == b'\n' {
                quote = None;
                previous = Some(byte);
            }
            continue;
        }
        match byte {
            b'"' | b'\'' => quote = Some(byte),
            b'/' if matches!(bytes.get(at + 1), Some(b'/' | b'*'))
                && previous.is_none_or(|p| {
                    matches!(p, b'{' | b'[' | b',' | b'}' | b']' | b'"' | b'\'')
                        || p.is_ascii_digit()
                }) =>
            {
                let rest = &text[at..];
                let comment = rest.lines().next().unwrap_or(rest).trim_end();
                return Some((line, comment));
            }
            b if b.is_ascii_whitespace() => {}
            b => previous = Some(b),
        }
    }
    None
}

/// How to write a value so YAML reads it as one string: double quotes,
/// else single quotes, else double quotes with escapes.
fn quoted(value: &str) -> String {
    if !value.contains('"') && !value.contains('\\') {
        format!("\"{value}\"")
    } else if !value.contains('\'') {
        format!("'{value}'")
    } else {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// A `key: value` entry on a line (list markers allowed before it): the key
/// and the value as written.
fn entry_of(line: &str) -> Option<(&str, &str)> {
    let mut rest = line.trim_start();
    while let Some(after) = rest.strip_prefix("- ") {
        rest = after.trim_start();
    }
    let (key, value) = match rest.chars().next()? {
        quote @ ('"' | '\'') => {
            let end = rest[1..].find(quote)? + 1;
            let after = rest[end + 1..].strip_prefix(':')?;
            (&rest[1..end], after)
        }
        _ => {
            let colon = rest
                .find(": ")
                .or_else(|| rest.strip_suffix(':').map(str::len))?;
            (&rest[..colon], rest.get(colon + 1..).unwrap_or_default())
        }
    };
    Some((key.trim(), value.trim()))
}

const QUOTE_HINT: &str = "Quote a value that holds `: ` or ends with `:` (`key: \"a: b\"`): unquoted, YAML reads the colon as the start of another mapping. JSON has no such pitfall.";

/// The parser's "mapping values are not allowed" at `line`, said as what
/// usually causes it: an unquoted value holding `: ` or ending with `:`.
fn explain_colon(reason: &str, source: &str, line: Option<u32>) -> (String, Option<String>) {
    let text = line
        .and_then(|l| usize::try_from(l).ok())
        .and_then(|l| source.lines().nth(l.checked_sub(1)?));
    let unquoted = text.and_then(entry_of).filter(|(_, value)| {
        !value.is_empty()
            && !value.starts_with(['"', '\'', '{', '[', '|', '>', '&', '*', '!'])
            && (value.contains(": ") || value.ends_with(':'))
    });
    let message = match unquoted {
        Some((key, value)) => format!(
            "the value of `{key}` holds an unquoted `: ` or ends with `:`, which YAML reads as the start of another mapping ({reason}); quote the value: `{key}: {}`",
            quoted(value)
        ),
        None => format!(
            "{reason}: an unquoted `: ` (or a `:` at the end of a value) on this line starts another mapping; quote the value that holds it"
        ),
    };
    (message, Some(QUOTE_HINT.to_string()))
}

/// The line of the `---` (or `...`) that ends the first document.
fn second_document(source: &str) -> Option<u32> {
    let mut content = false;
    for (index, line) in source.lines().enumerate() {
        let marker = ["---", "..."].iter().any(|m| {
            line.strip_prefix(m)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
        });
        if marker && content {
            return u32::try_from(index + 1).ok();
        }
        let trimmed = line.trim();
        if !trimmed.is_empty() && !trimmed.starts_with('#') && !marker {
            content = true;
        }
    }
    None
}

fn classify(error: serde_saphyr::Error, source: &str) -> YamlError {
    let line = error
        .location()
        .map(|l| l.line())
        .filter(|&l| l > 0)
        .and_then(|l| u32::try_from(l).ok());
    // Unwrap snippet and alias-replay wrappers down to the original error.
    let mut inner = error.without_snippet();
    while let serde_saphyr::Error::AliasError { error, .. } = inner {
        inner = error.without_snippet();
    }
    let (code, message) = match inner {
        serde_saphyr::Error::DuplicateMappingKey { key, .. } => (
            Code::yaml_duplicate_key,
            match key {
                Some(key) => format!("duplicate entry with key \"{key}\""),
                None => "duplicate mapping key".to_string(),
            },
        ),
        serde_saphyr::Error::Budget { breach, .. } => match breach {
            BudgetBreach::Depth { .. } => (
                Code::yaml_nesting_limit,
                format!("nesting limit exceeded: deeper than {MAX_DEPTH} levels"),
            ),
            other => (Code::yaml_budget_exceeded, budget_message(other)),
        },
        serde_saphyr::Error::AliasReplayLimitExceeded { .. }
        | serde_saphyr::Error::AliasExpansionLimitExceeded { .. }
        | serde_saphyr::Error::AliasReplayStackDepthExceeded { .. }
        | serde_saphyr::Error::AliasReplayCounterOverflow { .. } => (
            Code::yaml_budget_exceeded,
            format!(
                "YAML alias expansion budget exceeded: {}",
                clean(&inner.to_string())
            ),
        ),
        other => {
            let text = clean(&other.to_string());
            if text.contains("recursion limit") {
                (
                    Code::yaml_nesting_limit,
                    format!("nesting limit exceeded: {text}"),
                )
            } else if text.contains("mapping values are not allowed") {
                let (message, hint) = explain_colon(&text, source, line);
                let mut error = YamlError::new(Code::yaml_syntax, message, line);
                error.reason = text;
                error.hint = hint;
                return error;
            } else if text.contains("multiple YAML documents") {
                let at = second_document(source).or(line);
                let mut error = YamlError::new(
                    Code::yaml_syntax,
                    "more than one YAML document: this `---` (or `...`) line ends the first and starts another; the contract reads exactly one document: delete the line, and what follows it if it repeats the document, or merge both into one mapping",
                    at,
                );
                error.reason = "more than one YAML document".to_string();
                error.hint = Some(
                    "Keep one document: no `---` or `...` line between two documents.".to_string(),
                );
                return error;
            } else {
                (Code::yaml_syntax, text)
            }
        }
    };
    YamlError::new(code, message, line)
}

/// A resource limit of the YAML parser, in words: which limit, the number
/// it stopped at, and what makes a document reach it.
fn budget_message(breach: &BudgetBreach) -> String {
    let what = match breach {
        BudgetBreach::Nodes { nodes } => format!(
            "the document holds more than {MAX_NODES} nodes once its aliases are expanded (the parser stopped at {nodes}); aliases of aliases (`*a` of collections holding `*b`) multiply"
        ),
        BudgetBreach::AliasAnchorRatio { aliases, anchors } => format!(
            "{aliases} aliases for {anchors} anchors: so many uses of few anchors expand exponentially"
        ),
        BudgetBreach::Aliases { aliases } => {
            format!("the document uses {aliases} aliases (`*name`), more than the parser allows")
        }
        BudgetBreach::Anchors { anchors } => {
            format!("the document defines {anchors} anchors (`&name`), more than the parser allows")
        }
        BudgetBreach::Events { events } => {
            format!("the document is {events} parser events long, more than the parser allows")
        }
        BudgetBreach::Documents { documents } => format!(
            "the text holds {documents} YAML documents, more than the parser allows; the contract reads one"
        ),
        BudgetBreach::ScalarBytes { total_scalar_bytes } => format!(
            "its values add up to {total_scalar_bytes} bytes of text, more than the parser allows"
        ),
        BudgetBreach::MergeKeys { merge_keys } => {
            format!("the document has {merge_keys} merge keys (`<<`), more than the parser allows")
        }
        BudgetBreach::InputBytes { input_bytes } => {
            format!("the input is over {input_bytes} bytes, more than the parser reads")
        }
        BudgetBreach::SequenceUnbalanced => {
            "the document's collections do not close as they open".to_string()
        }
        _ => "the document is too large or too repetitive for the parser's limits".to_string(),
    };
    format!("YAML resource limit exceeded: {what}")
}

/// Drop the parser's location suffix and developer hints from a message.
fn clean(message: &str) -> String {
    let message = message.split(" at line ").next().unwrap_or(message);
    let message = message
        .split(", set DuplicateKeyPolicy")
        .next()
        .unwrap_or(message);
    message.trim().to_string()
}

/// Tags the reference decoder resolves itself; any other tag is rejected.
fn is_core_tag(tag: &str) -> bool {
    matches!(
        tag.strip_prefix("tag:yaml.org,2002:"),
        Some("str" | "int" | "float" | "bool" | "null" | "seq" | "map")
    )
}

fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A plain (unquoted) string value that a ` #` on its line cut short: YAML
/// reads the rest of the line as a comment (`next-action: fix issue #12` is
/// `fix issue`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CutByComment {
    /// RFC 6901 pointer of the value.
    pub pointer: String,
    pub line: u32,
    /// The value as YAML read it.
    pub value: String,
    /// The text from `#` to the end of the line, which YAML dropped.
    pub comment: String,
}

/// Every plain string value of `node` followed on its line by one space and
/// a `#`: the way a value that holds ` #` reads when it is not quoted. A
/// comment written after two or more spaces, or on a line of its own, is
/// taken for the comment it looks like.
pub fn values_cut_by_comment(node: &YamlNode, source: &str) -> Vec<CutByComment> {
    let mut found = Vec::new();
    let mut pointer = String::new();
    cut_values(node, source, &mut pointer, &mut found);
    found
}

fn cut_values(node: &YamlNode, source: &str, pointer: &mut String, found: &mut Vec<CutByComment>) {
    match &node.value {
        YamlValue::Str(value) => {
            let Some((start, len)) = node.span else {
                return;
            };
            let Some(text) = source.get(start..start.saturating_add(len)) else {
                return;
            };
            if text.starts_with(['"', '\'', '|', '>']) {
                return;
            }
            let rest = source.get(start + len..).unwrap_or_default();
            let rest = rest.split(['\n', '\r']).next().unwrap_or_default();
            if let Some(comment) = rest.strip_prefix(" #")
                && !comment.is_empty()
            {
                found.push(CutByComment {
                    pointer: pointer.clone(),
                    line: node.line,
                    value: value.clone(),
                    comment: format!("#{comment}"),
                });
            }
        }
        YamlValue::Seq(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push_str(&format!("/{index}"));
                cut_values(item, source, pointer, found);
                pointer.truncate(len);
            }
        }
        YamlValue::Map(entries) => {
            for (key, value) in entries {
                let YamlValue::Str(key) = &key.value else {
                    continue;
                };
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape_pointer_token(key));
                cut_values(value, source, pointer, found);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Apply the contract's value rules and convert to JSON. Every violation is
/// reported, in document order.
pub fn to_strict_json(node: &YamlNode, source: &str) -> Result<Value, Vec<YamlError>> {
    to_json(node, source, Nulls::Reject)
}

/// Whether a null value is a violation or becomes JSON `null`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Nulls {
    Reject,
    Keep,
}

fn to_json(node: &YamlNode, source: &str, nulls: Nulls) -> Result<Value, Vec<YamlError>> {
    let mut errors = Vec::new();
    let mut pointer = String::new();
    let value = convert(node, source, 0, nulls, &mut pointer, &mut errors);
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(errors)
    }
}

fn violation(
    errors: &mut Vec<YamlError>,
    code: Code,
    message: &str,
    node: &YamlNode,
    pointer: &str,
) {
    errors.push(YamlError {
        code,
        message: message.to_string(),
        reason: message.to_string(),
        line: (node.line > 0).then_some(node.line),
        pointer: Some(pointer.to_string()),
        hint: None,
    });
}

fn convert(
    node: &YamlNode,
    source: &str,
    depth: usize,
    nulls: Nulls,
    pointer: &mut String,
    errors: &mut Vec<YamlError>,
) -> Value {
    if depth > MAX_DEPTH {
        violation(
            errors,
            Code::yaml_nesting_limit,
            "nesting limit exceeded: values may nest at most 64 levels deep",
            node,
            pointer,
        );
        return Value::Null;
    }
    if let Some(tag) = node.tag.as_ref().filter(|tag| !is_core_tag(tag)) {
        violation(
            errors,
            Code::yaml_tag,
            &format!("YAML tags are not permitted (found `{tag}`)"),
            node,
            pointer,
        );
        return Value::Null;
    }
    match &node.value {
        YamlValue::Null if nulls == Nulls::Keep => Value::Null,
        YamlValue::Null => {
            violation(
                errors,
                Code::yaml_null_value,
                "null values are not permitted",
                node,
                pointer,
            );
            Value::Null
        }
        YamlValue::Bool(b) => Value::Bool(*b),
        YamlValue::Int(i) => Value::Number(Number::from(*i)),
        YamlValue::UInt(u) => Value::Number(Number::from(*u)),
        YamlValue::Float(f) => match Number::from_f64(*f) {
            Some(n) => Value::Number(n),
            None => match overflowing_literal(node, source) {
                // `1e400` is no float to the reference decoder: it stays text.
                Some(text) => Value::String(text.to_string()),
                None => {
                    violation(
                        errors,
                        Code::yaml_non_finite_number,
                        "numbers must be finite",
                        node,
                        pointer,
                    );
                    Value::Null
                }
            },
        },
        YamlValue::Str(s) => Value::String(s.clone()),
        YamlValue::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&index.to_string());
                out.push(convert(item, source, depth + 1, nulls, pointer, errors));
                pointer.truncate(len);
            }
            Value::Array(out)
        }
        YamlValue::Map(entries) => {
            let mut out = Map::new();
            for (key, value) in entries {
                let key_text = match (&key.value, &key.tag) {
                    (YamlValue::Str(s), None) => Some(s.clone()),
                    (YamlValue::Str(s), Some(tag)) if is_core_tag(tag) => Some(s.clone()),
                    _ => None,
                };
                let Some(key_text) = key_text else {
                    violation(
                        errors,
                        Code::yaml_non_string_key,
                        "mapping keys must be strings",
                        key,
                        pointer,
                    );
                    continue;
                };
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape_pointer_token(&key_text));
                let converted = convert(value, source, depth + 1, nulls, pointer, errors);
                pointer.truncate(len);
                out.insert(key_text, converted);
            }
            Value::Object(out)
        }
    }
}

/// For an infinite float, the source text when it is an overflowing decimal
/// literal (not one of the explicit `.inf`/`.nan` spellings).
fn overflowing_literal<'a>(node: &YamlNode, source: &'a str) -> Option<&'a str> {
    if node.tag.is_some() {
        return None;
    }
    let (start, len) = node.span?;
    let text = source.get(start..start.checked_add(len)?)?.trim();
    let unsigned = text.trim_start_matches(['+', '-']);
    let explicit = matches!(
        unsigned,
        ".inf" | ".Inf" | ".INF" | ".nan" | ".NaN" | ".NAN"
    );
    let numeric = !unsigned.is_empty()
        && unsigned
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    (!explicit && numeric).then_some(text)
}

// ---- serde plumbing: build YamlNode through serde-saphyr -------------------

impl<'de> Deserialize<'de> for YamlNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Each nesting level costs tens of KiB of stack in debug builds; grow
        // the stack on demand so depth limits, not thread stacks, decide.
        let level = Nested::enter();
        let spanned = if level.0 < UNCHECKED_DEPTH {
            Spanned::<Tagged<RawValue>>::deserialize(deserializer)
        } else {
            stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || {
                Spanned::<Tagged<RawValue>>::deserialize(deserializer)
            })
        }?;
        drop(level);
        let location = spanned.referenced;
        let span = location.span();
        let span = match (span.byte_offset(), span.byte_len()) {
            (Some(offset), Some(len)) => {
                usize::try_from(offset).ok().zip(usize::try_from(len).ok())
            }
            _ => None,
        };
        let Tagged(RawValue(value), tag) = spanned.value;
        Ok(YamlNode {
            value,
            tag,
            line: u32::try_from(location.line()).unwrap_or(u32::MAX),
            span,
        })
    }
}

struct RawValue(YamlValue);

impl<'de> Deserialize<'de> for RawValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RawVisitor).map(RawValue)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = YamlValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<YamlValue, E> {
        Ok(YamlValue::Null)
    }
    fn visit_none<E>(self) -> Result<YamlValue, E> {
        Ok(YamlValue::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<YamlValue, D::Error> {
        d.deserialize_any(RawVisitor)
    }
    fn visit_bool<E>(self, v: bool) -> Result<YamlValue, E> {
        Ok(YamlValue::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<YamlValue, E> {
        Ok(YamlValue::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<YamlValue, E> {
        Ok(YamlValue::UInt(v))
    }
    fn visit_i128<E>(self, v: i128) -> Result<YamlValue, E> {
        Ok(match (i64::try_from(v), u64::try_from(v)) {
            (Ok(i), _) => YamlValue::Int(i),
            (_, Ok(u)) => YamlValue::UInt(u),
            _ => YamlValue::Float(v as f64),
        })
    }
    fn visit_u128<E>(self, v: u128) -> Result<YamlValue, E> {
        Ok(match u64::try_from(v) {
            Ok(u) => YamlValue::UInt(u),
            Err(_) => YamlValue::Float(v as f64),
        })
    }
    fn visit_f64<E>(self, v: f64) -> Result<YamlValue, E> {
        Ok(YamlValue::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<YamlValue, E> {
        Ok(YamlValue::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<YamlValue, E> {
        Ok(YamlValue::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<YamlValue, E> {
        Err(E::custom("binary values are not supported"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<YamlValue, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<YamlNode>()? {
            items.push(item);
        }
        Ok(YamlValue::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<YamlValue, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<YamlNode>()? {
            let value = map.next_value::<YamlNode>()?;
            entries.push((key, value));
        }
        Ok(YamlValue::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict(text: &str) -> Result<Value, Vec<YamlError>> {
        parse_strict(text).map(|(_, v)| v)
    }

    fn first_code(text: &str) -> Code {
        strict(text).unwrap_err()[0].code
    }

    #[test]
    fn a_value_cut_short_by_an_unquoted_hash_is_found() {
        let text = "handover:\n  role: probe\n  next-action: fix issue #12 then rerun\nitems:\n  - first #1\n  - \"quoted #2\"\n  - 'single #3'\nnote: kept  # a comment\nplain: x#y\nblock: |\n  text #4\n";
        for leading_zero in [true, false] {
            // The fast path and serde-saphyr place values alike.
            let node = match parse_fast(text, leading_zero) {
                FastParse::Tree(node) => node,
                _ => parse_with_serde(text, leading_zero).unwrap(),
            };
            let found = values_cut_by_comment(&node, text);
            let found: Vec<(&str, u32, &str, &str)> = found
                .iter()
                .map(|c| {
                    (
                        c.pointer.as_str(),
                        c.line,
                        c.value.as_str(),
                        c.comment.as_str(),
                    )
                })
                .collect();
            assert_eq!(
                found,
                [
                    ("/handover/next-action", 3, "fix issue", "#12 then rerun"),
                    ("/items/0", 5, "first", "#1"),
                ],
            );
            let reference = parse_with_serde(text, leading_zero).unwrap();
            assert_eq!(values_cut_by_comment(&reference, text).len(), 2);
        }
    }

    #[test]
    fn core_schema_scalars_resolve_like_the_reference() {
        let v = strict(
            "a: true\nb: True\nc: TRUE\nd: yes\ne: no\nf: on\ng: off\nh: y\ni: 042\nj: 0x1F\n\
             k: 1_000\nl: 0X1F\nm: 1.5\nn: -7\no: 1e400\np: !!str 5\nq: '~'\nr: -.nan\n",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"a": true, "b": true, "c": true, "d": "yes", "e": "no", "f": "on", "g": "off",
                   "h": "y", "i": "042", "j": 31, "k": "1_000", "l": "0X1F", "m": 1.5, "n": -7,
                   "o": "1e400", "p": "5", "q": "~", "r": "-.nan"})
        );
    }

    #[test]
    fn every_null_spelling_is_rejected_with_its_line() {
        for (text, line) in [
            ("a: ~\n", 1),
            ("a: 1\nb: null\n", 2),
            ("a: 1\nb: Null\n", 2),
            ("a: NULL\n", 1),
            ("a:\nb: 1\n", 1),
            ("- 1\n- \n", 2),
        ] {
            let errors = strict(text).unwrap_err();
            assert_eq!(errors[0].code, Code::yaml_null_value, "{text:?}");
            assert_eq!(errors[0].line, Some(line), "{text:?}");
        }
        assert!(strict("a: 'null'\n").is_ok());
    }

    #[test]
    fn value_rules() {
        assert_eq!(first_code("a: !custom x\n"), Code::yaml_tag);
        assert_eq!(first_code("a: !!binary aGVsbG8=\n"), Code::yaml_tag);
        assert_eq!(first_code("7: x\n"), Code::yaml_non_string_key);
        assert_eq!(first_code("true: x\n"), Code::yaml_non_string_key);
        assert_eq!(first_code("[a]: x\n"), Code::yaml_non_string_key);
        assert_eq!(first_code("a: .nan\n"), Code::yaml_non_finite_number);
        assert_eq!(first_code("a: -.inf\n"), Code::yaml_non_finite_number);
        assert_eq!(first_code("a: .Inf\n"), Code::yaml_non_finite_number);
        assert_eq!(first_code("a: 1\nb: 2\na: 3\n"), Code::yaml_duplicate_key);
        assert_eq!(first_code("a: [1\n"), Code::yaml_syntax);
        assert_eq!(first_code("a: 1\n---\nb: 2\n"), Code::yaml_syntax);
        assert!(strict("'7': x\n").is_ok());
        assert!(
            strict("<<: {a: 1}\n").is_ok(),
            "merge keys are ordinary keys"
        );
    }

    #[test]
    fn an_unquoted_colon_in_a_value_is_named_with_the_quoted_fix() {
        for (text, line, fix) in [
            (
                "a: 1\nnext-action: dispatch reviewer: j-x\n",
                2,
                "`next-action: \"dispatch reviewer: j-x\"`",
            ),
            (
                "verify:\n  - cmd: cargo test cache::\n",
                2,
                "`cmd: \"cargo test cache::\"`",
            ),
            (
                "note: say \"hi\": twice\n",
                1,
                "`note: 'say \"hi\": twice'`",
            ),
        ] {
            let error = &strict(text).unwrap_err()[0];
            assert_eq!(error.code, Code::yaml_syntax, "{text}");
            assert_eq!(error.line, Some(line), "{text}");
            assert!(error.message.contains(fix), "{}", error.message);
            assert!(error.hint.as_deref().is_some_and(|h| h.contains("Quote")));
            assert!(error.reason.starts_with("mapping values are not allowed"));
        }
    }

    #[test]
    fn a_second_document_is_named_in_our_words() {
        let error = &strict("# a report\na: 1\n---\nb: 2\n").unwrap_err()[0];
        assert_eq!(error.code, Code::yaml_syntax);
        assert_eq!(error.line, Some(3));
        assert!(error.message.starts_with("more than one YAML document"));
        assert!(
            !error.message.contains("from_str_multiple"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_comment_in_a_json_document_is_a_comment() {
        for (text, line) in [
            ("{\n  // the envelope\n  \"a\": 1\n}", 2),
            ("{\"a\": 1, // one\n\"b\": 2}", 1),
            ("[1, /* two */ 2]", 1),
            ("{\"a\": 1 // one\n}", 1),
        ] {
            let errors = parse_core_keeping_nulls(text).unwrap_err();
            assert_eq!(errors[0].code, Code::json_comment, "{text}");
            assert_eq!(errors[0].line, Some(line), "{text}");
        }
        for text in [
            "{\"url\": \"http://x\"}",
            "{url: http://x}",
            "{note: see // here}",
            "a: // not json\n",
            "{\"a\": \"it's // fine\"}",
        ] {
            assert_eq!(json_comment(text), None, "{text}");
        }
    }

    #[test]
    fn duplicate_key_reports_its_line() {
        let e = parse("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(e.code, Code::yaml_duplicate_key);
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("\"a\""), "{}", e.message);
    }

    fn nested(levels: usize) -> String {
        format!("a: {}1{}\n", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn nesting_limit_is_exactly_64_below_the_root() {
        // root mapping at depth 0, 63 sequences, scalar at depth 64: accepted.
        assert!(strict(&nested(63)).is_ok());
        assert_eq!(first_code(&nested(64)), Code::yaml_nesting_limit);
        // far beyond: the parser stops before building anything.
        assert_eq!(
            parse(&nested(10_000)).unwrap_err().code,
            Code::yaml_nesting_limit
        );
    }

    #[test]
    fn alias_bomb_is_stopped_by_the_budget() {
        let mut text = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for pair in names.windows(2) {
            let refs = vec![format!("*{}", pair[0]); 9].join(",");
            text.push_str(&format!("{}: &{} [{}]\n", pair[1], pair[1], refs));
        }
        let error = parse(&text).unwrap_err();
        assert_eq!(error.code, Code::yaml_budget_exceeded);
        // Words, not the parser's debug value (`Nodes { nodes: 100001 }`).
        assert!(
            error.message.starts_with(
                "YAML resource limit exceeded: the document holds more than 100000 nodes"
            ),
            "{}",
            error.message
        );
        assert!(!error.message.contains('{'), "{}", error.message);
    }

    #[test]
    fn keeping_nulls_applies_every_other_rule() {
        let (_, v) = parse_strict_keeping_nulls("a: ~\nb: [null, 1]\nc:\n").unwrap();
        assert_eq!(v, json!({"a": null, "b": [null, 1], "c": null}));
        let (_, v) = parse_strict_keeping_nulls("{\"a\": null}").unwrap();
        assert_eq!(v, json!({"a": null}));
        for (text, code) in [
            ("a: !custom x\n", Code::yaml_tag),
            ("7: x\n", Code::yaml_non_string_key),
            ("a: .nan\n", Code::yaml_non_finite_number),
            ("a: 1\na: 2\n", Code::yaml_duplicate_key),
        ] {
            let errors = parse_strict_keeping_nulls(text).unwrap_err();
            assert_eq!(errors[0].code, code, "{text:?}");
        }
    }

    #[test]
    fn pointer_and_line_lookup() {
        let (node, _) = parse_strict("a:\n  b:\n    - x\n    - y\n").unwrap();
        assert_eq!(node.line_of_pointer("/a/b/1"), Some(4));
        // A key whose value is a block is found on the key's own line.
        assert_eq!(node.line_of_pointer("/a/b"), Some(2));
        assert_eq!(node.line_of_pointer("/a"), Some(1));
        assert_eq!(node.line_of_pointer("/a/missing"), Some(1));
        let (node, _) = parse_strict(
            "x: 1
surprise:
  deep: 2
",
        )
        .unwrap();
        assert_eq!(node.line_of_pointer("/surprise"), Some(2));
        let errors = strict("a:\n  b: [1, ~]\n").unwrap_err();
        assert_eq!(errors[0].pointer.as_deref(), Some("/a/b/1"));
    }
}
