//! Task specs (`.mastermind/tasks/<task>/spec.md`, contracts `mastermind.md`
//! section 3): front matter recognition and typed decoding, plus the legacy
//! body heuristics (backticked paths and `VERIFY:` lines in prose).
//!
//! The declaration, acceptance and path rules that run on a parsed spec live
//! in `declarations`, `acceptance` and `declared_paths`; [`check`] runs them
//! all and is what `validate --kind spec` and the gate call.

pub mod acceptance;
pub mod declarations;
pub mod declared_paths;
mod model;

pub use model::*;

use crate::codes::Code;
use crate::contract::yaml;
use crate::diagnostic::Diagnostic;
use crate::schema::{self, SchemaId};

/// Specs larger than this are rejected (the reference's bundle input limit).
pub const MAX_SPEC_BYTES: usize = 16 * 1024 * 1024;

/// Where the front matter block is, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block<'a> {
    /// No block at byte 0; `misplaced` when a `---` line appears after a BOM
    /// or blank lines, which the reference does not recognize.
    Absent {
        misplaced: bool,
    },
    Unterminated,
    Present {
        yaml: &'a str,
        body: &'a str,
    },
}

fn locate(text: &str) -> Block<'_> {
    let Some(after_open) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        let stripped = text.trim_start_matches('\u{feff}').trim_start();
        let misplaced = stripped.len() != text.len()
            && (stripped.starts_with("---\n") || stripped.starts_with("---\r\n"));
        return Block::Absent { misplaced };
    };
    let mut offset = 0;
    for line in after_open.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            let yaml = &after_open[..offset];
            let body = &after_open[offset + line.len()..];
            return Block::Present { yaml, body };
        }
        offset += line.len();
    }
    Block::Unterminated
}

/// Parse a spec and run every rule on it: front matter, declarations,
/// acceptance and declared-path admission.
pub fn check(bytes: &[u8]) -> (ParsedSpec, Vec<Diagnostic>) {
    if bytes.len() > MAX_SPEC_BYTES {
        return (
            ParsedSpec::default(),
            vec![Diagnostic::new(
                Code::input_too_large,
                format!("spec exceeds the {MAX_SPEC_BYTES}-byte limit"),
            )],
        );
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return (
            ParsedSpec::default(),
            vec![Diagnostic::new(Code::input_not_utf8, "spec is not UTF-8")],
        );
    };
    let (spec, node, mut diagnostics) = parse_with_node(text);
    let mut rules = Vec::new();
    if let Some(fm) = &spec.frontmatter {
        rules.extend(declarations::validate(fm));
        if let Some(criteria) = &fm.acceptance {
            rules.extend(acceptance::validate(fm, criteria));
        }
    }
    if spec.frontmatter_error.is_none() {
        rules.extend(declared_paths::admit(&spec).diagnostics);
    }
    // Rule findings carry pointers into the front matter; give them lines.
    for d in &mut rules {
        if d.line.is_none() {
            d.line = node
                .as_ref()
                .zip(d.json_pointer.as_deref())
                .and_then(|(node, pointer)| node.line_of_pointer(pointer))
                .map(|l| l + FRONTMATTER_LINES_BEFORE);
        }
    }
    diagnostics.extend(rules);
    (spec, diagnostics)
}

/// Parse the front matter and body; only front matter problems are reported.
pub fn parse_text(text: &str) -> (ParsedSpec, Vec<Diagnostic>) {
    let (spec, _, diagnostics) = parse_with_node(text);
    (spec, diagnostics)
}

fn parse_with_node(text: &str) -> (ParsedSpec, Option<yaml::YamlNode>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut spec = ParsedSpec::default();
    let mut node = None;
    let body = match locate(text) {
        Block::Absent { misplaced } => {
            diagnostics.push(if misplaced {
                Diagnostic::new(
                    Code::spec_frontmatter_not_at_start,
                    "a `---` block follows a BOM or blank lines, so it is not front matter; the spec is read as a legacy heuristic spec",
                )
                .with_line(Some(1))
            } else {
                Diagnostic::new(
                    Code::spec_frontmatter_absent,
                    "no front matter: declared scope and checks come from the body heuristics",
                )
            });
            text
        }
        Block::Unterminated => {
            spec.frontmatter_error = Some(FrontmatterError::Unterminated);
            diagnostics.push(
                Diagnostic::new(
                    Code::frontmatter_unterminated,
                    "frontmatter_unterminated: no line `---` closes the front matter opened on line 1",
                )
                .with_line(Some(1)),
            );
            // Unterminated front matter has no trustworthy Markdown body.
            ""
        }
        Block::Present { yaml, body } => {
            match decode(yaml) {
                Ok((fm, parsed)) => {
                    spec.frontmatter = Some(fm);
                    node = Some(parsed);
                }
                Err(errors) => {
                    spec.frontmatter_error = Some(FrontmatterError::Invalid);
                    diagnostics.extend(errors);
                }
            }
            body
        }
    };
    let (files, commands) = scan_body(body);
    spec.mentioned_files = files;
    spec.verify_commands = commands;
    (spec, node, diagnostics)
}

/// Front matter YAML starts on file line 2.
const FRONTMATTER_LINES_BEFORE: u32 = 1;

fn invalid(detail: String, line: Option<u32>, pointer: Option<String>) -> Diagnostic {
    let mut d = Diagnostic::new(
        Code::frontmatter_invalid,
        format!("frontmatter_invalid: {detail}"),
    )
    .with_line(line);
    if let Some(pointer) = pointer {
        d = d.with_pointer(pointer);
    }
    d
}

fn decode(yaml_text: &str) -> Result<(Frontmatter, yaml::YamlNode), Vec<Diagnostic>> {
    let (node, value) = yaml::parse_strict(yaml_text).map_err(|errors| {
        errors
            .iter()
            .map(|e| {
                invalid(
                    format!("{} ({})", e.message, e.code.as_str()),
                    e.line.map(|l| l + FRONTMATTER_LINES_BEFORE),
                    e.pointer.clone(),
                )
            })
            .collect::<Vec<_>>()
    })?;
    let line_of = |pointer: &str| {
        node.line_of_pointer(pointer)
            .map(|l| l + FRONTMATTER_LINES_BEFORE)
    };
    let errors = schema::validate(SchemaId::SpecFrontmatterV1, &value)
        .map_err(|e| vec![e.to_diagnostic()])?;
    if !errors.is_empty() {
        return Err(errors
            .iter()
            .map(|e| {
                let focus = e.focus_pointer();
                let shown = if focus.is_empty() { "/" } else { &focus };
                invalid(
                    format!("{shown}: {}", e.message),
                    line_of(&focus),
                    Some(focus.clone()),
                )
            })
            .collect());
    }
    let fm = serde_json::from_value::<Frontmatter>(value)
        .map_err(|e| vec![invalid(e.to_string(), None, None)])?;
    Ok((fm, node))
}

// ---- body heuristics -------------------------------------------------------

#[derive(Clone, Copy)]
struct Fence {
    marker: u8,
    width: usize,
}

fn fence_opener(line: &str) -> Option<Fence> {
    let trimmed = line.trim_start();
    let marker = *trimmed.as_bytes().first()?;
    if marker != b'`' && marker != b'~' {
        return None;
    }
    let width = trimmed.bytes().take_while(|&b| b == marker).count();
    (width >= 3).then_some(Fence { marker, width })
}

fn closes(line: &str, fence: Fence) -> bool {
    let trimmed = line.trim_start();
    let width = trimmed.bytes().take_while(|&b| b == fence.marker).count();
    width >= fence.width && trimmed[width..].trim().is_empty()
}

/// The prose lines of a Markdown body: outside fenced code, HTML comments,
/// blockquotes and indented code. Inline comments are blanked out.
pub fn prose_lines(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<Fence> = None;
    let mut in_comment = false;
    let mut previous_blank = true;
    let mut in_indented_code = false;
    for line in body.lines() {
        if let Some(open) = fence {
            if closes(line, open) {
                fence = None;
            }
            previous_blank = false;
            continue;
        }
        // Strip HTML comments, which may span lines.
        let mut visible = String::new();
        let mut rest = line;
        loop {
            if in_comment {
                match rest.find("-->") {
                    Some(end) => {
                        in_comment = false;
                        rest = &rest[end + 3..];
                    }
                    None => break,
                }
            } else {
                match rest.find("<!--") {
                    Some(start) => {
                        visible.push_str(&rest[..start]);
                        in_comment = true;
                        rest = &rest[start + 4..];
                    }
                    None => {
                        visible.push_str(rest);
                        break;
                    }
                }
            }
        }
        let blank = visible.trim().is_empty();
        let indented = visible.starts_with("    ") || visible.starts_with('\t');
        if indented && !blank && (previous_blank || in_indented_code) {
            in_indented_code = true;
            previous_blank = false;
            continue;
        }
        if !blank {
            in_indented_code = false;
        }
        previous_blank = blank;
        if let Some(open) = fence_opener(&visible) {
            fence = Some(open);
            continue;
        }
        let leading = visible.len() - visible.trim_start().len();
        if leading < 4 && visible.trim_start().starts_with('>') {
            continue;
        }
        if !blank {
            out.push(visible);
        }
    }
    out
}

fn looks_like_path(token: &str) -> bool {
    const EXTENSIONS: &[&str] = &[
        ".rs", ".py", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".cs", ".go", ".java", ".php",
        ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".md", ".toml", ".json", ".yml", ".yaml",
        ".sql", ".sh", ".html", ".css", ".scss",
    ];
    token.contains('/') || EXTENSIONS.iter().any(|ext| token.ends_with(ext))
}

fn verify_command(line: &str) -> Option<String> {
    let trimmed = line.trim();
    let after = trimmed
        .strip_prefix("**VERIFY**:")
        .or_else(|| trimmed.strip_prefix("**VERIFY:**"))
        .or_else(|| trimmed.strip_prefix("VERIFY:"))?
        .trim();
    let ticks = after.bytes().take_while(|&b| b == b'`').count();
    let command = if ticks == 0 {
        after
    } else {
        let fence = &after[..ticks];
        let content = &after[ticks..];
        content
            .match_indices(fence)
            .find(|(end, _)| {
                (*end == 0 || content.as_bytes()[end - 1] != b'`')
                    && content.as_bytes().get(end + ticks) != Some(&b'`')
            })
            .map(|(end, _)| &content[..end])
            .unwrap_or(after)
    };
    let command = command.trim();
    (!command.is_empty()).then(|| command.to_string())
}

/// Backticked path-like tokens and `VERIFY:` commands of the prose lines.
fn scan_body(body: &str) -> (Vec<String>, Vec<String>) {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut commands = Vec::new();
    for line in prose_lines(body) {
        if let Some(command) = verify_command(&line) {
            commands.push(command);
        }
        let mut rest = line.as_str();
        while let Some(open) = rest.find('`') {
            let after = &rest[open + 1..];
            let Some(close) = after.find('`') else { break };
            let token = &after[..close];
            if !token.is_empty()
                && token.len() <= 200
                && looks_like_path(token)
                && seen.insert(token.to_string())
            {
                files.push(token.to_string());
            }
            rest = &after[close + 1..];
        }
    }
    (files, commands)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const VALID_SPEC: &str = "---
mode: verified
touches:
  - file: src/lib.py
verify:
  - cmd: python -m pytest tests/test_lib.py
    run:
      id: unit
      argv: [python, -m, pytest, tests/test_lib.py]
      cwd: .
      timeout_secs: 300
acceptance:
  - id: value-is-two
    statement: value() returns 2.
    checks: [unit]
---
# Change value

## Goals
Make `value()` return 2.

## Scope
Only `src/lib.py`.

## Acceptance Criteria
value-is-two.

## Tests Plan
Run the unit tests.

## Final Verification
The observed check passes.
";

    pub(crate) fn codes(text: &str) -> Vec<Code> {
        check(text.as_bytes())
            .1
            .into_iter()
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn the_minimal_valid_spec_passes_clean() {
        let (spec, diagnostics) = check(VALID_SPEC.as_bytes());
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let fm = spec.frontmatter.unwrap();
        assert_eq!(fm.mode, Some(Mode::Verified));
        assert_eq!(fm.observed().count(), 1);
        assert_eq!(fm.acceptance.unwrap()[0].checks, ["unit"]);
        assert_eq!(spec.mentioned_files, ["src/lib.py"]);
    }

    #[test]
    fn recognition_at_byte_zero_only() {
        assert_eq!(codes("# legacy\n"), [Code::spec_frontmatter_absent]);
        let bom = format!("\u{feff}{VALID_SPEC}");
        assert_eq!(codes(&bom), [Code::spec_frontmatter_not_at_start]);
        let blank = format!("\n{VALID_SPEC}");
        assert_eq!(codes(&blank), [Code::spec_frontmatter_not_at_start]);
        assert!(
            codes(&VALID_SPEC.replace('\n', "\r\n")).is_empty(),
            "CRLF works"
        );
    }

    #[test]
    fn unterminated_and_trailing_space_closer() {
        assert_eq!(
            codes("---\nmode: verified\n"),
            [Code::frontmatter_unterminated]
        );
        assert_eq!(
            codes("---\nmode: verified\n--- \nbody\n"),
            [Code::frontmatter_unterminated]
        );
        assert!(
            codes("---\nmode: verified\n---").is_empty(),
            "closer at EOF counts"
        );
    }

    #[test]
    fn invalid_front_matter_cases() {
        for (yaml, line) in [
            ("", None),
            ("mode: fast\n", Some(2)),
            ("risk: critical\n", Some(2)),
            ("owner: me\n", Some(2)),
            ("touches:\n  - file: a.rs\n    why: x\n", Some(4)),
            ("verify:\n  - cmd: make\n    result: pass\n", Some(4)),
            (
                "verify:\n  - cmd: make\n    run: {id: a, argv: [make], cwd: ., timeout_secs: 1, shell: sh}\n",
                Some(4),
            ),
            ("acceptance: null\n", Some(2)),
            ("id: true\n", Some(2)),
            ("id: 1.5\n", None),
            ("title: !x t\n", Some(2)),
            ("mode: verified\nmode: strict\n", Some(3)),
            (
                "touches:\n  - file: a.rs\n    symbols:\n      - {name: f, callers: -1}\n",
                Some(5),
            ),
        ] {
            let text = format!("---\n{yaml}---\nbody\n");
            let (spec, diagnostics) = check(text.as_bytes());
            assert_eq!(diagnostics[0].code, Code::frontmatter_invalid, "{yaml:?}");
            if line.is_some() {
                assert_eq!(diagnostics[0].line, line, "{yaml:?}: {diagnostics:?}");
            }
            assert_eq!(spec.frontmatter_error, Some(FrontmatterError::Invalid));
            assert!(spec.frontmatter.is_none());
        }
    }

    #[test]
    fn ids_and_symbol_shapes() {
        let text = "---\nid: 42\ntouches:\n  - file: a.rs\n    symbols: [plain, {name: f, signature: 'fn f()', callers: 3}]\nbreaking_changes:\n  removed_symbols: [old]\n---\n";
        let (spec, diagnostics) = check(text.as_bytes());
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let fm = spec.frontmatter.unwrap();
        assert_eq!(fm.id.as_deref(), Some("42"));
        assert_eq!(fm.touches[0].symbols.len(), 2);
        let leading_zero = "---\nid: 042\n---\n";
        let fm = check(leading_zero.as_bytes()).0.frontmatter.unwrap();
        assert_eq!(fm.id.as_deref(), Some("042"));
    }

    #[test]
    fn body_heuristics_skip_non_prose() {
        let body = "## Plan\nEdit `src/a.rs` and `notes.md`, not `word`.\n\n```\n`src/in_fence.rs`\nVERIFY: fenced\n```\n<!-- `src/commented.rs` -->\n> `src/quoted.rs`\n\n    `src/indented.rs`\n\n**VERIFY**: `cargo test --locked`\nVERIFY: # comment\n";
        let (spec, _) = parse_text(body);
        assert_eq!(spec.mentioned_files, ["src/a.rs", "notes.md"]);
        assert_eq!(spec.verify_commands, ["cargo test --locked", "# comment"]);
        assert_eq!(spec.declared_commands(), ["cargo test --locked"]);
    }
}
