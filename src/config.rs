//! `.mastermind/hooks.yaml`: the gate's configuration. Optional; the
//! defaults are strict. Parsed with the strict YAML layer and validated
//! against `schemas/hooks-config-v1.schema.json`; unknown keys, unknown codes
//! and invalid values are errors that stop the gate (exit 2).

use crate::codes::{Code, Outcome};
use crate::contract::yaml;
use crate::diagnostic::{Diagnostic, Severity};
use crate::schema::{self, SchemaId};
use globset::{GlobSet, GlobSetBuilder};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Where the configuration lives in every view.
pub const CONFIG_PATH: &str = ".mastermind/hooks.yaml";
pub const MAX_CONFIG_BYTES: usize = 256 * 1024;

/// Which tree receipts must match in `check --ci`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Freshness {
    /// The merge of head into base: what lands.
    #[default]
    Merge,
    /// The head commit's own tree.
    Head,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReceiptsFile {
    #[serde(default)]
    freshness: Freshness,
    #[serde(default)]
    accept_unverifiable_v1: bool,
}

/// `error` or `warning`: how a contract knob grades its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    Error,
    Warning,
}

impl Grade {
    fn severity(self) -> Severity {
        match self {
            Grade::Error => Severity::Error,
            Grade::Warning => Severity::Warning,
        }
    }
}

/// What a subagent return whose dispatch description routes nowhere gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownDispatch {
    /// No finding at all (the reference guard's silent pass).
    Allow,
    /// A warning (`subagent_dispatch_unknown`).
    #[default]
    Warn,
    /// An error: the return cannot be checked (exit 2).
    Block,
}

/// `contracts:`: how the plastic and subagent-return contracts grade the
/// rules their authors left soft (docs/src/parity.md, order of authority).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contracts {
    /// A well-formed synthesized fallback report (`plastic_report_synthesized`):
    /// `warning` (default; plastic never blocks on it) or `error` (teams
    /// that require agent-authored reports).
    #[serde(default = "warning")]
    pub synthesized_reports: Grade,
    /// Rules only the plastic role prompts state (the Tier lines):
    /// `warning` (default) or `error`.
    #[serde(default = "warning")]
    pub role_prompt_rules: Grade,
    /// A return whose dispatch description matches no prefix of the routing
    /// table: `allow`, `warn` (default) or `block`.
    #[serde(default)]
    pub unknown_dispatch: UnknownDispatch,
}

fn warning() -> Grade {
    Grade::Warning
}

impl Default for Contracts {
    fn default() -> Self {
        Contracts {
            synthesized_reports: Grade::Warning,
            role_prompt_rules: Grade::Warning,
            unknown_dispatch: UnknownDispatch::Warn,
        }
    }
}

impl Contracts {
    /// The severity a knob gives `code`, when a knob governs it; `None`
    /// inside means "drop the finding" (`unknown_dispatch: allow`).
    fn severity_of(&self, code: Code) -> Option<Option<Severity>> {
        match code {
            Code::plastic_report_synthesized => Some(Some(self.synthesized_reports.severity())),
            Code::plastic_report_prompt_part_missing | Code::plastic_report_prompt_part_invalid => {
                Some(Some(self.role_prompt_rules.severity()))
            }
            Code::subagent_dispatch_unknown => Some(match self.unknown_dispatch {
                UnknownDispatch::Allow => None,
                UnknownDispatch::Warn => Some(Severity::Warning),
                UnknownDispatch::Block => Some(Severity::Error),
            }),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    #[allow(dead_code)]
    version: Option<u32>,
    #[serde(default)]
    require_task: bool,
    #[serde(default)]
    severity: BTreeMap<String, String>,
    #[serde(default)]
    receipts: ReceiptsFile,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    plastic_reports: Vec<String>,
    #[serde(default)]
    plastic_intents: Vec<String>,
    #[serde(default)]
    plastic_savepoints: Vec<String>,
    #[serde(default)]
    subagent_returns: Vec<String>,
    #[serde(default)]
    findings_ledgers: Option<Vec<String>>,
    #[serde(default)]
    contracts: Contracts,
}

/// A set of path globs (`**` crosses directories, `*` does not).
#[derive(Clone, Debug, Default)]
pub struct Globs {
    patterns: Vec<String>,
    set: GlobSet,
}

impl Globs {
    fn new(patterns: &[String], key: &str) -> Result<Globs, Diagnostic> {
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            let glob = globset::GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| config_error(format!("{key}: invalid glob `{pattern}`: {e}"), None))?;
            builder.add(glob);
        }
        let set = builder
            .build()
            .map_err(|e| config_error(format!("{key}: {e}"), None))?;
        Ok(Globs {
            patterns: patterns.to_vec(),
            set,
        })
    }

    pub fn is_match(&self, path: &str) -> bool {
        !self.patterns.is_empty() && self.set.is_match(path)
    }

    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }
}

/// The effective configuration.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub require_task: bool,
    pub severity: BTreeMap<Code, Severity>,
    pub freshness: Freshness,
    pub accept_unverifiable_v1: bool,
    pub exclude: Globs,
    pub plastic_reports: Globs,
    pub plastic_intents: Globs,
    pub plastic_savepoints: Globs,
    pub subagent_returns: Globs,
    pub findings_ledgers: Globs,
    /// The contract knobs (`contracts:`).
    pub contracts: Contracts,
    /// Where the configuration came from, for messages.
    pub source: Option<String>,
}

fn config_error(message: String, line: Option<u32>) -> Diagnostic {
    Diagnostic::new(Code::config_invalid, message)
        .with_path(CONFIG_PATH)
        .with_line(line)
}

impl Config {
    /// The defaults (no configuration file).
    pub fn strict_defaults() -> Config {
        Config {
            findings_ledgers: Globs::new(
                &["**/adversarial-findings.md".to_string()],
                "findings_ledgers",
            )
            .unwrap_or_default(),
            ..Config::default()
        }
    }

    /// Parse a configuration file's bytes. `source` names where it was read.
    pub fn parse(bytes: &[u8], source: &str) -> Result<Config, Vec<Diagnostic>> {
        if bytes.len() > MAX_CONFIG_BYTES {
            return Err(vec![config_error(
                format!("{source}: the configuration exceeds {MAX_CONFIG_BYTES} bytes"),
                None,
            )]);
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| vec![config_error(format!("{source}: not UTF-8"), None)])?;
        if text.trim().is_empty() {
            let mut config = Config::strict_defaults();
            config.source = Some(source.to_string());
            return Ok(config);
        }
        let (node, value) = yaml::parse_strict(text).map_err(|errors| {
            errors
                .iter()
                .map(|e| {
                    config_error(
                        format!("{source}: {} ({})", e.message, e.code.as_str()),
                        e.line,
                    )
                })
                .collect::<Vec<_>>()
        })?;
        let errors = schema::validate(SchemaId::HooksConfigV1, &value).map_err(|e| {
            vec![config_error(
                format!("embedded schema {} is unusable: {}", e.schema, e.message),
                None,
            )]
        })?;
        if !errors.is_empty() {
            return Err(errors
                .iter()
                .map(|e| {
                    let focus = e.focus_pointer();
                    config_error(
                        format!(
                            "{source}: {}: {}",
                            if focus.is_empty() { "/" } else { &focus },
                            e.message
                        ),
                        node.line_of_pointer(&focus),
                    )
                    .with_pointer(focus)
                })
                .collect());
        }
        let file: ConfigFile = serde_json::from_value(value)
            .map_err(|e| vec![config_error(format!("{source}: {e}"), None)])?;
        let mut problems = Vec::new();
        let mut severity = BTreeMap::new();
        for (name, level) in &file.severity {
            let pointer = format!("/severity/{name}");
            let line = node.line_of_pointer(&pointer);
            let Some(code) = Code::from_name(name) else {
                problems.push(config_error(
                    format!("{source}: severity: unknown reason code `{name}` (see `mastermind-hooks codes`)"),
                    line,
                ));
                continue;
            };
            if code.outcome() == Outcome::CannotCheck {
                problems.push(config_error(
                    format!("{source}: severity: `{name}` means the check could not run and cannot be downgraded"),
                    line,
                ));
                continue;
            }
            let level = match level.as_str() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => Severity::Note,
            };
            severity.insert(code, level);
        }
        let mut globs = |patterns: &[String], key: &str| match Globs::new(patterns, key) {
            Ok(g) => g,
            Err(d) => {
                problems.push(d);
                Globs::default()
            }
        };
        let config = Config {
            require_task: file.require_task,
            freshness: file.receipts.freshness,
            accept_unverifiable_v1: file.receipts.accept_unverifiable_v1,
            exclude: globs(&file.exclude, "exclude"),
            plastic_reports: globs(&file.plastic_reports, "plastic_reports"),
            plastic_intents: globs(&file.plastic_intents, "plastic_intents"),
            plastic_savepoints: globs(&file.plastic_savepoints, "plastic_savepoints"),
            subagent_returns: globs(&file.subagent_returns, "subagent_returns"),
            findings_ledgers: globs(
                file.findings_ledgers
                    .as_deref()
                    .unwrap_or(&["**/adversarial-findings.md".to_string()]),
                "findings_ledgers",
            ),
            severity,
            contracts: file.contracts,
            source: Some(source.to_string()),
        };
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(problems)
        }
    }

    /// The globs of agent files (plastic reports, intents, savepoints,
    /// subagent returns, findings ledgers): inside a task folder such a file
    /// is bookkeeping (see `crate::bookkeeping`).
    pub fn agent_files(&self) -> [&Globs; 5] {
        [
            &self.plastic_reports,
            &self.plastic_intents,
            &self.plastic_savepoints,
            &self.subagent_returns,
            &self.findings_ledgers,
        ]
    }

    /// Apply the contract knobs, then the severity overrides, to a finding.
    /// A finding the knobs drop (`unknown_dispatch: allow`) becomes a note;
    /// [`Config::apply_all`] leaves it out instead.
    pub fn apply(&self, mut diagnostic: Diagnostic) -> Diagnostic {
        if let Some(graded) = self.contracts.severity_of(diagnostic.code) {
            diagnostic.severity = graded.unwrap_or(Severity::Note);
        }
        if let Some(severity) = self.severity.get(&diagnostic.code) {
            diagnostic.severity = *severity;
        }
        diagnostic
    }

    /// [`Config::apply`] to every finding, leaving out those the contract
    /// knobs drop.
    pub fn apply_all(&self, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diagnostics
            .into_iter()
            .filter(|d| self.contracts.severity_of(d.code) != Some(None))
            .map(|d| self.apply(d))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<Code> {
        Config::parse(text.as_bytes(), "t")
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn defaults_and_a_full_file() {
        let config = Config::parse(b"", "t").unwrap();
        assert!(!config.require_task);
        assert!(
            config
                .findings_ledgers
                .is_match("tests/e2e/docs/adversarial-findings.md")
        );
        let text = "version: 1\nrequire_task: true\nseverity:\n  missing_expected_file: error\n  unexpected_file: warning\nreceipts:\n  freshness: head\n  accept_unverifiable_v1: true\nexclude: ['docs/generated/**', '*.lock']\n";
        let config = Config::parse(text.as_bytes(), "t").unwrap();
        assert!(config.require_task);
        assert_eq!(config.freshness, Freshness::Head);
        assert_eq!(config.severity[&Code::unexpected_file], Severity::Warning);
        assert!(config.exclude.is_match("docs/generated/a/b.md"));
        assert!(config.exclude.is_match("Cargo.lock"));
        assert!(
            !config.exclude.is_match("sub/Cargo.lock"),
            "* does not cross /"
        );
    }

    #[test]
    fn contract_knobs_grade_their_codes() {
        let d = |code| Diagnostic::new(code, "m");
        let defaults = Config::parse(b"", "t").unwrap();
        assert_eq!(
            defaults.apply(d(Code::plastic_report_synthesized)).severity,
            Severity::Warning
        );
        assert_eq!(
            defaults.apply_all(vec![d(Code::subagent_dispatch_unknown)])[0].severity,
            Severity::Warning
        );
        let text = "contracts:\n  synthesized_reports: error\n  role_prompt_rules: error\n  unknown_dispatch: block\n";
        let strict = Config::parse(text.as_bytes(), "t").unwrap();
        for code in [
            Code::plastic_report_synthesized,
            Code::plastic_report_prompt_part_missing,
            Code::plastic_report_prompt_part_invalid,
            Code::subagent_dispatch_unknown,
        ] {
            assert_eq!(strict.apply(d(code)).severity, Severity::Error, "{code:?}");
        }
        let allow = Config::parse(b"contracts:\n  unknown_dispatch: allow\n", "t").unwrap();
        assert!(
            allow
                .apply_all(vec![d(Code::subagent_dispatch_unknown)])
                .is_empty()
        );
        assert_eq!(allow.apply_all(vec![d(Code::yaml_tag)]).len(), 1);
        // The explicit severity map still has the last word.
        let both = Config::parse(
            b"contracts:\n  synthesized_reports: error\nseverity:\n  plastic_report_synthesized: note\n",
            "t",
        )
        .unwrap();
        assert_eq!(
            both.apply(d(Code::plastic_report_synthesized)).severity,
            Severity::Note
        );
        for bad in [
            "contracts:\n  synthesized_reports: off\n",
            "contracts:\n  unknown_dispatch: warning\n",
            "contracts:\n  surprise: 1\n",
        ] {
            assert_eq!(codes(bad), [Code::config_invalid], "{bad:?}");
        }
    }

    #[test]
    fn invalid_files_are_config_errors() {
        for text in [
            "unknown: 1\n",
            "require_task: yes\n",
            "severity:\n  not_a_code: error\n",
            "severity:\n  unexpected_file: off\n",
            "severity:\n  git_merge_conflict: note\n",
            "receipts:\n  freshness: eventually\n",
            "exclude: ['a/[']\n",
            "require_task: ~\n",
            "- a\n",
        ] {
            assert_eq!(codes(text), [Code::config_invalid], "{text:?}");
        }
        let errors = Config::parse(b"require_task: false\nsurprise: 1\n", "t").unwrap_err();
        assert_eq!(errors[0].line, Some(2));
    }
}
