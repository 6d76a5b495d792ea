//! The positioned tree built straight from the YAML parser's events, for the
//! documents agents write every day: one document of mappings, sequences and
//! untagged scalars, without anchors, aliases, tags or directives.
//!
//! serde-saphyr reads the same events (it is built on granit-parser) and
//! then walks every node through serde as a map of maps to attach its
//! position; on a task spec that walk is three quarters of the parse. Here
//! the events become nodes directly, and each plain scalar is resolved by
//! the rules [`super::options_with`] configures serde-saphyr with (YAML 1.2
//! core booleans and nulls, integers of 64 bits, decimal floats,
//! `leading_zero_numbers_as_strings`, `underscored_numbers_as_strings`,
//! no legacy octal, non-finite floats passed through).
//!
//! The builder answers only when it is sure to give what serde-saphyr gives:
//! any parser error, a second document, a directive, an anchor, an alias, a
//! tag, a key that is not plainly a string (a number, a boolean, a null, a
//! collection), two equal keys in one mapping, nesting deeper than
//! [`MAX_FAST_DEPTH`] or more than [`MAX_FAST_NODES`] nodes make it step
//! aside (`None`), and the caller parses with serde-saphyr, whose errors
//! and limits are the ones reported. `tests/contracts/yaml_fast_path.rs`
//! compares both on every document of the test corpora and on generated
//! ones, node by node, with lines and spans.

use super::{YamlNode, YamlValue};
use serde_saphyr::granit_parser::{Event, Options, Parser, ScalarStyle, Span};

/// Deeper documents are left to serde-saphyr, whose depth budget decides.
pub(super) const MAX_FAST_DEPTH: usize = 48;

/// Larger documents are left to serde-saphyr, whose node budget decides.
pub(super) const MAX_FAST_NODES: usize = 50_000;

/// Texts above this size are left to serde-saphyr (its scalar budget).
const MAX_FAST_BYTES: usize = 4 * 1024 * 1024;

/// A collection being read.
enum Open {
    Seq {
        start: Span,
        items: Vec<YamlNode>,
    },
    Map {
        start: Span,
        entries: Vec<(YamlNode, YamlNode)>,
        key: Option<YamlNode>,
    },
}

/// What the fast path made of a text.
#[derive(Debug)]
pub enum FastParse {
    /// The tree, exactly as serde-saphyr builds it.
    Tree(YamlNode),
    /// The YAML parser rejects the text: serde-saphyr, reading the same
    /// events, fails on it too (with the message to report).
    Malformed,
    /// serde-saphyr must decide (see the module's doc).
    Declined,
}

/// The tree of `text` (see [`FastParse`]). `leading_zero_as_strings` as in
/// [`super::options_with`].
pub(super) fn build(text: &str, leading_zero_as_strings: bool) -> FastParse {
    if text.len() > MAX_FAST_BYTES || text.starts_with('\u{feff}') {
        return FastParse::Declined;
    }
    let mut malformed = false;
    match tree(text, leading_zero_as_strings, &mut malformed) {
        Some(node) => FastParse::Tree(node),
        None if malformed => FastParse::Malformed,
        None => FastParse::Declined,
    }
}

/// The tree of `text`, or `None` (`malformed` set when the parser
/// rejected the text).
fn tree(text: &str, leading_zero_as_strings: bool, malformed: &mut bool) -> Option<YamlNode> {
    let mut options = Options::default();
    options.emit_comments = false;
    let parser = Parser::new_from_str_with_options(text, options);
    let mut open: Vec<Open> = Vec::new();
    let mut root: Option<YamlNode> = None;
    let mut documents = 0usize;
    let mut nodes = 0usize;
    for event in parser {
        let Ok((event, span)) = event else {
            *malformed = true;
            return None;
        };
        let (node, plain_string) = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => continue,
            Event::DocumentStart(_, version) => {
                documents += 1;
                if version.is_some() || documents > 1 {
                    return None;
                }
                continue;
            }
            Event::Scalar(value, style, anchor, tag) => {
                nodes += 1;
                if anchor != 0 || tag.is_some() || nodes > MAX_FAST_NODES {
                    return None;
                }
                let (value, is_string_key) = match style {
                    ScalarStyle::Plain => {
                        let resolved = resolve_plain(&value, leading_zero_as_strings);
                        let key = matches!(resolved, YamlValue::Str(_))
                            && !value.starts_with(|c: char| {
                                c.is_ascii_digit() || matches!(c, '+' | '-' | '.')
                            });
                        (resolved, key)
                    }
                    _ => (YamlValue::Str(value.into_owned()), true),
                };
                (node_at(value, &span), is_string_key)
            }
            Event::SequenceStart(_, anchor, ref tag) | Event::MappingStart(_, anchor, ref tag) => {
                if anchor != 0 || tag.is_some() || open.len() >= MAX_FAST_DEPTH {
                    return None;
                }
                nodes += 1;
                if nodes > MAX_FAST_NODES {
                    return None;
                }
                open.push(if matches!(event, Event::SequenceStart(..)) {
                    Open::Seq {
                        start: span,
                        items: Vec::new(),
                    }
                } else {
                    Open::Map {
                        start: span,
                        entries: Vec::new(),
                        key: None,
                    }
                });
                continue;
            }
            Event::SequenceEnd => match open.pop()? {
                Open::Seq { start, items } => (node_at(YamlValue::Seq(items), &start), false),
                Open::Map { .. } => return None,
            },
            Event::MappingEnd => match open.pop()? {
                Open::Map {
                    start,
                    entries,
                    key: None,
                } if !has_equal_keys(&entries) => (node_at(YamlValue::Map(entries), &start), false),
                Open::Map { .. } | Open::Seq { .. } => return None,
            },
            _ => return None,
        };
        match open.last_mut() {
            None if root.is_none() => root = Some(node),
            None => return None,
            Some(Open::Seq { items, .. }) => items.push(node),
            Some(Open::Map { entries, key, .. }) => match key.take() {
                Some(k) => entries.push((k, node)),
                None if plain_string => *key = Some(node),
                None => return None,
            },
        }
    }
    if open.is_empty() { root } else { None }
}

/// A node of `value` at the start of `span`, positioned as serde-saphyr
/// positions it (line of the span's start; bytes from its start to its end).
fn node_at(value: YamlValue, span: &Span) -> YamlNode {
    let bytes = span
        .start
        .byte_offset()
        .zip(span.end.byte_offset())
        .map(|(start, end)| (start, end.saturating_sub(start)));
    YamlNode {
        value,
        tag: None,
        line: u32::try_from(span.start.line()).unwrap_or(u32::MAX),
        span: bytes,
    }
}

/// True when two keys of a mapping are the same string (serde-saphyr's
/// `duplicate_keys: Error` then reports them).
fn has_equal_keys(entries: &[(YamlNode, YamlNode)]) -> bool {
    let mut keys: Vec<&str> = entries
        .iter()
        .map(|(key, _)| match &key.value {
            YamlValue::Str(s) => s.as_str(),
            _ => "",
        })
        .collect();
    keys.sort_unstable();
    keys.windows(2).any(|pair| pair[0] == pair[1])
}

/// The padding serde-saphyr trims before it reads a scalar as a number.
fn trim(s: &str) -> &str {
    s.trim_matches([' ', '\t', '\r', '\n'])
}

/// An untagged plain scalar, resolved in serde-saphyr's order: null, YAML
/// 1.2 boolean, the spellings kept as strings, integer, float, string.
pub(super) fn resolve_plain(s: &str, leading_zero_as_strings: bool) -> YamlValue {
    if matches!(s, "" | "~" | "null" | "Null" | "NULL") {
        return YamlValue::Null;
    }
    let t = trim(s);
    match t {
        "true" | "True" | "TRUE" => return YamlValue::Bool(true),
        "false" | "False" | "FALSE" => return YamlValue::Bool(false),
        _ => {}
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    let uppercase_radix = matches!(unsigned.as_bytes(), [b'0', b'X' | b'O' | b'B', ..]);
    if uppercase_radix
        || is_signed_nan(t)
        || (leading_zero_as_strings && leading_zero_decimal(t))
        || t.contains('_')
    {
        return YamlValue::Str(s.to_owned());
    }
    if t.starts_with('-') {
        if !leading_zero_decimal(t)
            && let Some(v) = signed_integer(t)
        {
            return YamlValue::Int(v);
        }
    } else if let Some(v) = unsigned_integer(t) {
        return YamlValue::UInt(v);
    }
    match float(t) {
        Some(f) => YamlValue::Float(f),
        None => YamlValue::Str(s.to_owned()),
    }
}

/// `+.nan` or `-.nan` (any case form): a string to YAML's core schema.
fn is_signed_nan(t: &str) -> bool {
    t.strip_prefix(['+', '-'])
        .is_some_and(|unsigned| matches!(unsigned, ".nan" | ".NaN" | ".NAN"))
}

/// A decimal integer with a redundant leading zero (`042`, `-042`).
fn leading_zero_decimal(t: &str) -> bool {
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The radix of `rest` (`0x`, `0o`, `0b` in either case; else ten) and
/// its digits.
fn radix_and_digits(rest: &str) -> (u32, &str) {
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = rest.strip_prefix(prefix) {
            return (radix, digits);
        }
    }
    (10, rest)
}

/// The magnitude of `digits` in `radix`, at least one digit, no
/// underscores (they made the scalar a string already).
fn magnitude(digits: &str, radix: u32) -> Option<u128> {
    if digits.is_empty() {
        return None;
    }
    let mut value: u128 = 0;
    for c in digits.chars() {
        let digit = c.to_digit(radix)?;
        value = value
            .checked_mul(u128::from(radix))?
            .checked_add(u128::from(digit))?;
    }
    Some(value)
}

/// A decimal spelling must not have a redundant leading zero to be an
/// integer.
fn decimal_digits(digits: &str) -> Option<&str> {
    (!(digits.starts_with('0') && digits != "0")).then_some(digits)
}

/// A scalar starting with `-` (or `+`) as an `i64`.
fn signed_integer(t: &str) -> Option<i64> {
    let (negative, rest) = match t.strip_prefix('+') {
        Some(rest) => (false, rest),
        None => match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t),
        },
    };
    let (radix, digits) = radix_and_digits(rest);
    let digits = if radix == 10 {
        decimal_digits(digits)?
    } else {
        digits
    };
    let magnitude = i128::try_from(magnitude(digits, radix)?).ok();
    let value = match (negative, magnitude) {
        (false, Some(m)) => m,
        (true, Some(m)) => m.checked_neg()?,
        // Only i128::MIN's magnitude does not fit i128, and no i64 is that.
        (_, None) => return None,
    };
    i64::try_from(value).ok()
}

/// A scalar not starting with `-` as a `u64`.
fn unsigned_integer(t: &str) -> Option<u64> {
    let rest = t.strip_prefix('+').unwrap_or(t);
    let (radix, digits) = radix_and_digits(rest);
    let digits = if radix == 10 {
        decimal_digits(digits)?
    } else {
        digits
    };
    u64::try_from(magnitude(digits, radix)?).ok()
}

/// A float: `.inf`, `.nan` and their cased and signed forms, any finite
/// number Rust reads, and a numeral that overflows to infinity (`1e400`).
/// Alphabetic spellings Rust also reads (`inf`, `nan`) stay strings.
fn float(t: &str) -> Option<f64> {
    let (negative, unsigned) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    match unsigned {
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        ".inf" | ".Inf" | ".INF" if negative => return Some(f64::NEG_INFINITY),
        ".inf" | ".Inf" | ".INF" => return Some(f64::INFINITY),
        _ => {}
    }
    let parsed = t.parse::<f64>().ok()?;
    if parsed.is_finite() {
        return Some(parsed);
    }
    let numeral = t
        .strip_prefix(['+', '-'])
        .unwrap_or(t)
        .as_bytes()
        .first()
        .is_some_and(u8::is_ascii_digit);
    (numeral && parsed.is_infinite()).then_some(parsed)
}
