//! Editing a JSON settings file as text: insert a member or an element
//! where it belongs and remove it again, leaving every other byte as it was
//! (indentation, key order, blank lines, a missing final newline). Removing
//! what an insertion added gives back the original bytes, which is what
//! lets `uninstall --agent` restore a teammate's file exactly.
//!
//! Pure: text in, text out. The scanner expects a document that already
//! parsed as JSON ([`super::json::Json::parse`]); it only locates values.
//! Insertions follow the container's own layout: after the last element
//! with `,` and the indentation of that element's line (or `, ` in a
//! container written on one line); into an empty container as an indented
//! block. An empty container that held only whitespace comes back as
//! `{}`/`[]`, the form JSON writers produce.

use serde::Serialize;

/// Where a value sits in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Byte range of the whole value.
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Scalar,
    Array(Vec<Node>),
    /// Members: the key's decoded text, where the member starts (its key's
    /// opening quote) and its value.
    Object(Vec<(String, usize, Node)>),
}

/// Why a text could not be scanned (it is not the JSON it should be).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanError(pub usize);

struct Scanner<'a> {
    text: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.at < self.text.len()
            && matches!(self.text[self.at], b' ' | b'\t' | b'\n' | b'\r')
        {
            self.at += 1;
        }
    }

    fn fail<T>(&self) -> Result<T, ScanError> {
        Err(ScanError(self.at))
    }

    fn string(&mut self) -> Result<(usize, usize), ScanError> {
        let start = self.at;
        if self.text.get(self.at) != Some(&b'"') {
            return self.fail();
        }
        self.at += 1;
        loop {
            match self.text.get(self.at) {
                None => return self.fail(),
                Some(b'\\') => self.at += 2,
                Some(b'"') => {
                    self.at += 1;
                    return Ok((start, self.at));
                }
                Some(_) => self.at += 1,
            }
        }
    }

    fn value(&mut self) -> Result<Node, ScanError> {
        self.ws();
        let start = self.at;
        match self.text.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut members = Vec::new();
                self.ws();
                if self.text.get(self.at) == Some(&b'}') {
                    self.at += 1;
                } else {
                    loop {
                        self.ws();
                        let (ks, ke) = self.string()?;
                        let key: String = std::str::from_utf8(&self.text[ks..ke])
                            .ok()
                            .and_then(|k| serde_json::from_str(k).ok())
                            .ok_or(ScanError(ks))?;
                        self.ws();
                        if self.text.get(self.at) != Some(&b':') {
                            return self.fail();
                        }
                        self.at += 1;
                        let value = self.value()?;
                        members.push((key, ks, value));
                        self.ws();
                        match self.text.get(self.at) {
                            Some(b',') => self.at += 1,
                            Some(b'}') => {
                                self.at += 1;
                                break;
                            }
                            _ => return self.fail(),
                        }
                    }
                }
                Ok(Node {
                    start,
                    end: self.at,
                    kind: Kind::Object(members),
                })
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.ws();
                if self.text.get(self.at) == Some(&b']') {
                    self.at += 1;
                } else {
                    loop {
                        items.push(self.value()?);
                        self.ws();
                        match self.text.get(self.at) {
                            Some(b',') => self.at += 1,
                            Some(b']') => {
                                self.at += 1;
                                break;
                            }
                            _ => return self.fail(),
                        }
                    }
                }
                Ok(Node {
                    start,
                    end: self.at,
                    kind: Kind::Array(items),
                })
            }
            Some(b'"') => {
                self.string()?;
                Ok(Node {
                    start,
                    end: self.at,
                    kind: Kind::Scalar,
                })
            }
            Some(_) => {
                while self.at < self.text.len()
                    && !matches!(
                        self.text[self.at],
                        b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.at += 1;
                }
                if self.at == start {
                    return self.fail();
                }
                Ok(Node {
                    start,
                    end: self.at,
                    kind: Kind::Scalar,
                })
            }
            None => self.fail(),
        }
    }
}

/// Locate every value of a JSON document.
pub fn scan(text: &str) -> Result<Node, ScanError> {
    let mut scanner = Scanner {
        text: text.as_bytes(),
        at: 0,
    };
    let node = scanner.value()?;
    Ok(node)
}

impl Node {
    /// A member's value and where the member starts.
    pub fn member(&self, key: &str) -> Option<(usize, &Node)> {
        match &self.kind {
            Kind::Object(members) => members
                .iter()
                .find(|(k, _, _)| k == key)
                .map(|(_, at, node)| (*at, node)),
            _ => None,
        }
    }

    pub fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(items) => items,
            _ => &[],
        }
    }

    /// Start offsets of the children (members or elements), with ends.
    fn children(&self) -> Vec<(usize, usize)> {
        match &self.kind {
            Kind::Array(items) => items.iter().map(|n| (n.start, n.end)).collect(),
            Kind::Object(members) => members.iter().map(|(_, at, n)| (*at, n.end)).collect(),
            Kind::Scalar => Vec::new(),
        }
    }
}

/// The whitespace that starts the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    let end = line
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(line.len());
    &line[..end]
}

/// The file's indentation step: the leading whitespace of its first
/// indented line (two spaces when there is none).
pub fn indent_unit(text: &str) -> String {
    text.lines()
        .map(|l| {
            let end = l.find(|c: char| c != ' ' && c != '\t').unwrap_or(l.len());
            &l[..end]
        })
        .find(|ws| !ws.is_empty())
        .unwrap_or("  ")
        .to_string()
}

/// `value` as pretty JSON with `unit` per level, every line after the
/// first prefixed with `base`.
fn pretty(value: &impl Serialize, unit: &str, base: &str) -> String {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    if value.serialize(&mut ser).is_err() {
        return "null".into();
    }
    String::from_utf8_lossy(&out).replace('\n', &format!("\n{base}"))
}

/// Whether a container is written over several lines.
fn multiline(text: &str, container: &Node) -> bool {
    text[container.start..container.end].contains('\n')
}

/// Insert a child at the end of `container` (an object member when `key`
/// is given, else an array element). `value` is rendered to match.
pub fn append(text: &str, container: &Node, key: Option<&str>, value: &impl Serialize) -> String {
    let unit = indent_unit(text);
    let own = line_indent(text, container.start).to_string();
    let children = container.children();
    let render = |base: &str, compact: bool| {
        let body = if compact {
            serde_json::to_string(value).unwrap_or_else(|_| "null".into())
        } else {
            pretty(value, &unit, base)
        };
        match key {
            Some(k) => format!(
                "{}: {body}",
                serde_json::to_string(k).unwrap_or_else(|_| "\"\"".into())
            ),
            None => body,
        }
    };
    match children.last() {
        Some(&(_, last_end)) => {
            let first_start = children[0].0;
            let multi = multiline(text, container) && {
                let before = &text[container.start + 1..first_start];
                before.contains('\n')
            };
            let insert = if multi {
                let indent = line_indent(text, children[children.len() - 1].0).to_string();
                format!(",\n{indent}{}", render(&indent, false))
            } else {
                format!(", {}", render("", true))
            };
            format!("{}{insert}{}", &text[..last_end], &text[last_end..])
        }
        None => {
            let indent = format!("{own}{unit}");
            let open = container.start + 1;
            let close = container.end - 1;
            format!(
                "{}\n{indent}{}\n{own}{}",
                &text[..open],
                render(&indent, false),
                &text[close..]
            )
        }
    }
}

/// Remove child `index` of `container` with the separator that belongs to
/// it: the comma and whitespace before it (or, for the first of several,
/// up to the next child); the last one leaves an empty `{}`/`[]`.
pub fn remove(text: &str, container: &Node, index: usize) -> String {
    let children = container.children();
    let Some(&(start, end)) = children.get(index) else {
        return text.to_string();
    };
    let (from, to) = if children.len() == 1 {
        (container.start + 1, container.end - 1)
    } else if index > 0 {
        (children[index - 1].1, end)
    } else {
        (start, children[1].0)
    };
    format!("{}{}", &text[..from], &text[to..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn roundtrip(original: &str, add: impl Fn(&str) -> String, drop: impl Fn(&str) -> String) {
        let added = add(original);
        assert!(
            serde_json::from_str::<serde_json::Value>(&added).is_ok(),
            "{added}"
        );
        assert_eq!(drop(&added), original, "after: {added}");
    }

    #[test]
    fn appending_then_removing_gives_back_the_bytes() {
        for original in [
            "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}\n",
            "{\n    \"a\": 1\n}",
            "{\"a\": 1, \"b\": {\"c\": true}}",
            "{}\n",
            "{\n\t\"a\": 1\n}\n",
            "  {\"a\": [] }  ",
        ] {
            roundtrip(
                original,
                |t| {
                    let root = scan(t).unwrap();
                    append(t, &root, Some("hooks"), &json!({"Stop": [{"hooks": []}]}))
                },
                |t| {
                    let root = scan(t).unwrap();
                    let n = root.children().len();
                    remove(t, &root, n - 1)
                },
            );
        }
    }

    #[test]
    fn layouts_follow_the_container() {
        let t = "{\n    \"x\": [\n        1\n    ]\n}\n";
        let root = scan(t).unwrap();
        let (_, x) = root.member("x").unwrap();
        let added = append(t, x, None, &json!({"k": [1]}));
        assert_eq!(
            added,
            "{\n    \"x\": [\n        1,\n        {\n            \"k\": [\n                1\n            ]\n        }\n    ]\n}\n"
        );
        let one_line = "{\"x\": [1]}";
        let root = scan(one_line).unwrap();
        let (_, x) = root.member("x").unwrap();
        assert_eq!(
            append(one_line, x, None, &json!({"k": 2})),
            "{\"x\": [1, {\"k\":2}]}"
        );
        let empty = "{\"x\": []}";
        let root = scan(empty).unwrap();
        let (_, x) = root.member("x").unwrap();
        assert_eq!(append(empty, x, None, &json!(3)), "{\"x\": [\n  3\n]}");
    }

    #[test]
    fn removing_the_first_of_several_keeps_the_rest() {
        let t = "[\n  1,\n  2\n]";
        let root = scan(t).unwrap();
        assert_eq!(remove(t, &root, 0), "[\n  2\n]");
        assert_eq!(remove(t, &root, 1), "[\n  1\n]");
        assert!(scan("{\"a\" 1}").is_err());
    }
}
