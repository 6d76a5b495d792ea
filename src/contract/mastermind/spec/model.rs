//! The typed front matter of a task spec and the parsed spec value: what the
//! spec module decodes and what its rule modules (`declarations`,
//! `acceptance`, `declared_paths`) and the gate read.

use crate::contract::mastermind::argv_display::RunDeclaration;
use serde::{Deserialize, Deserializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    Low,
    Medium,
    High,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Verified,
    Strict,
    Lite,
    Standard,
}

/// A symbol: a bare name or a detailed object.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Symbol {
    Name(String),
    Detailed(DetailedSymbol),
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetailedSymbol {
    pub name: String,
    #[serde(default)]
    pub signature: Option<String>,
    #[serde(default)]
    pub callers: Option<u32>,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Touch {
    pub file: String,
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub symbols: Vec<Symbol>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandEntry {
    pub cmd: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObservedEntry {
    pub cmd: String,
    pub run: RunDeclaration,
}

/// One `verify[]` entry: each shape is closed.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum VerifyEntry {
    /// Informational label.
    Label(String),
    /// Observed check, run by the verification runner.
    Observed(ObservedEntry),
    /// Report-only obligation.
    Command(CommandEntry),
}

impl VerifyEntry {
    /// The `cmd` text, for the two command-bearing shapes.
    pub fn command(&self) -> Option<&str> {
        match self {
            VerifyEntry::Label(_) => None,
            VerifyEntry::Observed(o) => Some(&o.cmd),
            VerifyEntry::Command(c) => Some(&c.cmd),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Criterion {
    pub id: String,
    pub statement: String,
    pub checks: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakingChanges {
    #[serde(default)]
    pub removed_symbols: Vec<Symbol>,
}

/// The decoded front matter.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Frontmatter {
    #[serde(default, deserialize_with = "integer_or_string_id")]
    pub id: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub risk: Option<Risk>,
    #[serde(default)]
    pub mode: Option<Mode>,
    #[serde(default)]
    pub touches: Vec<Touch>,
    #[serde(default)]
    pub creates: Vec<String>,
    #[serde(default)]
    pub verify: Vec<VerifyEntry>,
    /// `None` when the key is absent (legacy: no acceptance gate).
    #[serde(default)]
    pub acceptance: Option<Vec<Criterion>>,
    #[serde(default)]
    pub expected_docs: Vec<String>,
    #[serde(default)]
    pub breaking_changes: BreakingChanges,
}

fn integer_or_string_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Id {
        Text(String),
        Signed(i64),
        Unsigned(u64),
    }
    Ok(Some(match Id::deserialize(d)? {
        Id::Text(s) => s,
        Id::Signed(i) => i.to_string(),
        Id::Unsigned(u) => u.to_string(),
    }))
}

impl Frontmatter {
    /// True when the front matter declares any file scope.
    pub fn has_file_scope(&self) -> bool {
        !self.touches.is_empty() || !self.creates.is_empty() || !self.expected_docs.is_empty()
    }

    /// Observed checks (`cmd` + `run`), in declaration order, `cmd` trimmed.
    pub fn observed(&self) -> impl Iterator<Item = (&str, &RunDeclaration)> {
        self.verify.iter().filter_map(|entry| match entry {
            VerifyEntry::Observed(o) => Some((o.cmd.trim(), &o.run)),
            _ => None,
        })
    }
}

/// Why the front matter could not be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontmatterError {
    Unterminated,
    Invalid,
}

/// A parsed spec: front matter (when valid) and the body heuristics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedSpec {
    pub frontmatter: Option<Frontmatter>,
    pub frontmatter_error: Option<FrontmatterError>,
    /// Backticked path-like tokens in prose lines (deduplicated, in order).
    pub mentioned_files: Vec<String>,
    /// `VERIFY:` commands in prose lines.
    pub verify_commands: Vec<String>,
}

impl ParsedSpec {
    /// Declared commands: every front matter `cmd` and body `VERIFY:` command,
    /// trimmed, de-duplicated, without empty ones and those starting with `#`.
    pub fn declared_commands(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        self.frontmatter
            .iter()
            .flat_map(|fm| fm.verify.iter())
            .filter_map(VerifyEntry::command)
            .chain(self.verify_commands.iter().map(String::as_str))
            .map(str::trim)
            .filter(|cmd| !cmd.is_empty() && !cmd.starts_with('#') && seen.insert(*cmd))
            .collect()
    }
}
