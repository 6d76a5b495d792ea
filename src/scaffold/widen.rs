//! `task widen`: declare more paths in a task's spec. Pure: the spec's text
//! and the paths in, the new text (or a refusal) out.
//!
//! Only the front matter's `touches:` or `creates:` list changes: a new
//! item is inserted after the list's last item with that item's own
//! indentation (`  - file: PATH` for touches, `  - PATH` for creates), or
//! the key is added at the end of the front matter when it is missing
//! (`touches: []` becomes a block list). Every other byte, the body
//! included, stays as it was. A path already declared (in `touches`,
//! `creates` or `expected_docs`) is left alone, so widening twice changes
//! nothing. The result must pass the spec contract, or nothing is written.

use crate::contract::mastermind::spec::{self, declared_paths};
use std::fmt;

/// Which list a path goes into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    /// `touches[].file`: files the task changes.
    Touches,
    /// `creates[]`: files the task adds.
    Creates,
}

impl List {
    fn key(self) -> &'static str {
        match self {
            List::Touches => "touches",
            List::Creates => "creates",
        }
    }

    fn item(self, path: &str) -> String {
        let scalar = serde_json::Value::String(path.to_string()).to_string();
        let plain = path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./-".contains(&b))
            && path
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
        let value = if plain { path.to_string() } else { scalar };
        match self {
            List::Touches => format!("- file: {value}"),
            List::Creates => format!("- {value}"),
        }
    }
}

/// Why a spec could not be widened.
#[derive(Debug, PartialEq, Eq)]
pub enum WidenError {
    /// A path no spec can declare: outside the repository, absolute, with
    /// `..`, or the rule's other refusals (its code).
    Path { path: String, code: &'static str },
    /// A path inside `.mastermind/` (bookkeeping, never declared).
    Bookkeeping { path: String },
    /// The spec has no front matter, or it does not parse.
    NoFrontMatter,
    /// The list is written in a form this edit cannot extend safely.
    Layout { key: &'static str },
    /// The widened spec breaks its contract (the first finding).
    Contract { code: &'static str, message: String },
}

impl fmt::Display for WidenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WidenError::Path { path, code } => write!(
                f,
                "`{path}` cannot be declared ({code}): give a path relative to the repository's top, inside it"
            ),
            WidenError::Bookkeeping { path } => write!(
                f,
                "`{path}` is inside .mastermind/, which holds the tasks' own files; declare the files the task changes"
            ),
            WidenError::NoFrontMatter => f.write_str(
                "the spec has no valid front matter (a `---` block at the top); fix it first (`mastermind-hooks validate` names the problem)",
            ),
            WidenError::Layout { key } => write!(
                f,
                "`{key}:` is written as a flow list this command does not rewrite; add the path to it by hand"
            ),
            WidenError::Contract { code, message } => write!(
                f,
                "the widened spec would break its contract ({code}: {message})"
            ),
        }
    }
}

impl std::error::Error for WidenError {}

/// The outcome: the new text and the paths it added (empty: nothing to do).
#[derive(Debug, PartialEq, Eq)]
pub struct Widened {
    pub text: String,
    pub added: Vec<String>,
}

/// The byte range of the front matter's body (between the `---` lines).
fn front_matter(text: &str) -> Option<(usize, usize)> {
    let start = if text.starts_with("---\n") {
        4
    } else if text.starts_with("---\r\n") {
        5
    } else {
        return None;
    };
    let mut at = start;
    for line in text[start..].split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((start, at));
        }
        at += line.len();
    }
    None
}

/// Add `path` to `list` in the front matter `fm` (its text).
fn insert(fm: &str, list: List, path: &str) -> Result<String, WidenError> {
    let key = list.key();
    let lines: Vec<&str> = fm.split_inclusive('\n').collect();
    let newline = if fm.contains("\r\n") { "\r\n" } else { "\n" };
    let Some(at) = lines.iter().position(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    }) else {
        let mut out = fm.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        out.push_str(&format!("{key}:{newline}  {}{newline}", list.item(path)));
        return Ok(out);
    };
    let after_colon = lines[at][key.len()..].trim_start()[1..].trim();
    let after_colon = after_colon.split(" #").next().unwrap_or_default().trim();
    if after_colon == "[]" {
        let mut out: String = lines[..at].concat();
        out.push_str(&format!("{key}:{newline}  {}{newline}", list.item(path)));
        out.push_str(&lines[at + 1..].concat());
        return Ok(out);
    }
    if !after_colon.is_empty() {
        return Err(WidenError::Layout { key });
    }
    // The block list: the lines after the key that are indented (or
    // `- ` at column 0, which YAML allows for a mapping's list).
    let mut last_item = None;
    let mut end = at + 1;
    while end < lines.len() {
        let line = lines[end];
        let trimmed = line.trim_start();
        if trimmed.trim().is_empty() || trimmed.starts_with('#') {
            end += 1;
            continue;
        }
        let indent = line.len() - trimmed.len();
        if indent == 0 && !trimmed.starts_with("- ") && trimmed.trim() != "-" {
            break;
        }
        if trimmed.starts_with("- ") || trimmed.trim() == "-" {
            last_item = Some(end);
        }
        end += 1;
    }
    let Some(first_of_last) = last_item else {
        return Err(WidenError::Layout { key });
    };
    // The last item ends before the next non-blank line at its indentation
    // or less, or at the list's end; insert there, before trailing blanks.
    let item_indent = lines[first_of_last].len() - lines[first_of_last].trim_start().len();
    let mut insert_at = first_of_last + 1;
    while insert_at < end {
        let line = lines[insert_at];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if !trimmed.trim().is_empty() && indent <= item_indent {
            break;
        }
        insert_at += 1;
    }
    while insert_at > first_of_last + 1 && lines[insert_at - 1].trim().is_empty() {
        insert_at -= 1;
    }
    let mut out: String = lines[..insert_at].concat();
    if !out.ends_with('\n') {
        out.push_str(newline);
    }
    out.push_str(&" ".repeat(item_indent));
    out.push_str(&list.item(path));
    out.push_str(newline);
    out.push_str(&lines[insert_at..].concat());
    Ok(out)
}

/// Widen the spec `text`: each of `paths` into its list.
pub fn widen(text: &str, paths: &[(List, String)]) -> Result<Widened, WidenError> {
    let (parsed, _) = spec::parse_text(text);
    let Some(fm) = parsed.frontmatter else {
        return Err(WidenError::NoFrontMatter);
    };
    let Some((start, end)) = front_matter(text) else {
        return Err(WidenError::NoFrontMatter);
    };
    let mut declared: Vec<String> = fm
        .touches
        .iter()
        .map(|t| t.file.clone())
        .chain(fm.creates.iter().cloned())
        .chain(fm.expected_docs.iter().cloned())
        .filter_map(|p| declared_paths::normalize(&p).ok())
        .collect();
    let mut block = text[start..end].to_string();
    let mut added = Vec::new();
    for (list, path) in paths {
        let normalized = declared_paths::normalize(path).map_err(|code| WidenError::Path {
            path: path.clone(),
            code: code.as_str(),
        })?;
        if normalized.starts_with(crate::bookkeeping::MASTERMIND_DIR) {
            return Err(WidenError::Bookkeeping { path: path.clone() });
        }
        if declared.contains(&normalized) {
            continue;
        }
        block = insert(&block, *list, &normalized)?;
        declared.push(normalized.clone());
        added.push(normalized);
    }
    if added.is_empty() {
        return Ok(Widened {
            text: text.to_string(),
            added,
        });
    }
    let widened = format!("{}{block}{}", &text[..start], &text[end..]);
    let checked = crate::artifact::check(crate::artifact::Kind::Spec, widened.as_bytes());
    if let Some(first) = checked.diagnostics.iter().find(|d| d.is_error()) {
        return Err(WidenError::Contract {
            code: first.code.as_str(),
            message: first.message.clone(),
        });
    }
    Ok(Widened {
        text: widened,
        added,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "---\nmode: verified\nrisk: low\ntouches:\n  - file: lib.py\n    language: python\nverify:\n  - cmd: python3 -m unittest -v\n    run:\n      id: python3-unittest\n      argv: [python3, -m, unittest, -v]\n      cwd: .\n      timeout_secs: 600\n---\n# change-value\n\nBody with `lib.py` and trailing spaces  \n";

    fn touches(paths: &[&str]) -> Vec<(List, String)> {
        paths
            .iter()
            .map(|p| (List::Touches, p.to_string()))
            .collect()
    }

    #[test]
    fn adds_after_the_last_item_and_keeps_every_other_byte() {
        let out = widen(SPEC, &touches(&["test_lib.py"])).unwrap();
        assert_eq!(out.added, ["test_lib.py"]);
        assert_eq!(
            out.text,
            SPEC.replace(
                "    language: python\n",
                "    language: python\n  - file: test_lib.py\n"
            )
        );
        // Again: nothing to do, same bytes.
        let again = widen(&out.text, &touches(&["./test_lib.py", "lib.py"])).unwrap();
        assert!(again.added.is_empty());
        assert_eq!(again.text, out.text);
    }

    #[test]
    fn a_missing_or_empty_list_is_made() {
        let out = widen(SPEC, &[(List::Creates, "new file.py".into())]).unwrap();
        assert!(
            out.text
                .contains("      timeout_secs: 600\ncreates:\n  - \"new file.py\"\n---\n"),
            "{}",
            out.text
        );
        let bare = "---\nmode: verified\ntouches: []\n---\n# x\n";
        let out = widen(bare, &touches(&["a.rs"])).unwrap();
        assert_eq!(
            out.text,
            "---\nmode: verified\ntouches:\n  - file: a.rs\n---\n# x\n"
        );
    }

    #[test]
    fn refuses_what_it_cannot_declare() {
        for path in ["../x", "/etc/passwd", ".mastermind/tasks/x/spec.md"] {
            assert!(widen(SPEC, &touches(&[path])).is_err(), "{path}");
        }
        assert_eq!(
            widen("# no front matter\n", &touches(&["a"])),
            Err(WidenError::NoFrontMatter)
        );
        let flow = "---\nmode: verified\ncreates: [a.rs]\n---\n";
        assert!(matches!(
            widen(flow, &[(List::Creates, "b.rs".into())]),
            Err(WidenError::Layout { .. })
        ));
        // A path both touched and created breaks the contract.
        let both = "---\nmode: verified\ncreates:\n  - b.rs\n---\n";
        assert!(widen(both, &touches(&["b.rs"])).unwrap().added.is_empty());
    }
}
