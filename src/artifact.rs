//! Artifact kinds: which contract a file is judged by (from `--kind` or its
//! name) and the one dispatch that checks a kind's bytes. It sits above the
//! pure contract families and the gate's own configuration, which is a
//! contract too, so neither of those imports the other.

use crate::codes::Code;
use crate::config;
use crate::contract::mastermind::{audit_tail, executor_report, receipt, spec, tree_receipt};
use crate::contract::{plastic, subagent};
use crate::diagnostic::Diagnostic;
use receipt::CheckState;

/// The artifact kinds `validate` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    ExecutorReport,
    AuditTail,
    Spec,
    Receipt,
    TreeReceipt,
    PlasticReport,
    PlasticIntent,
    PlasticSavepoints,
    PlasticInsight,
    SubagentReturn,
    FindingBlocks,
    FindingsLedger,
    HooksConfig,
}

impl Kind {
    pub const ALL: &'static [Kind] = &[
        Kind::ExecutorReport,
        Kind::AuditTail,
        Kind::Spec,
        Kind::Receipt,
        Kind::TreeReceipt,
        Kind::PlasticReport,
        Kind::PlasticIntent,
        Kind::PlasticSavepoints,
        Kind::PlasticInsight,
        Kind::SubagentReturn,
        Kind::FindingBlocks,
        Kind::FindingsLedger,
        Kind::HooksConfig,
    ];

    /// The name used by `--kind` and in output.
    pub fn name(self) -> &'static str {
        match self {
            Kind::ExecutorReport => "executor-report",
            Kind::AuditTail => "audit-tail",
            Kind::Spec => "spec",
            Kind::Receipt => "receipt",
            Kind::TreeReceipt => "tree-receipt",
            Kind::PlasticReport => "plastic-report",
            Kind::PlasticIntent => "plastic-intent",
            Kind::PlasticSavepoints => "plastic-savepoints",
            Kind::PlasticInsight => "plastic-insight",
            Kind::SubagentReturn => "subagent-return",
            Kind::FindingBlocks => "finding-blocks",
            Kind::FindingsLedger => "findings-ledger",
            Kind::HooksConfig => "hooks-config",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Infer the kind from a path: `executor-report.md`, `spec.md`,
    /// `audit-tail.md`, `verification/<id>.json`, `savepoint.md`,
    /// `adversarial-findings.md`, `<id>.tree.json`, and a plastic intent file
    /// `<id>--<slug>.md` directly inside an `<x>--<y>` intent directory.
    pub fn infer(path: &str) -> Option<Kind> {
        let normalized = path.replace('\\', "/");
        let mut parts = normalized.rsplit('/');
        let file = parts.next()?;
        let parent = parts.next();
        match file {
            "executor-report.md" => Some(Kind::ExecutorReport),
            "spec.md" => Some(Kind::Spec),
            "audit-tail.md" => Some(Kind::AuditTail),
            _ if file.ends_with(".tree.json") && file.len() > ".tree.json".len() => {
                Some(Kind::TreeReceipt)
            }
            "savepoint.md" => Some(Kind::PlasticSavepoints),
            "adversarial-findings.md" => Some(Kind::FindingsLedger),
            "hooks.yaml" if parent == Some(".mastermind") => Some(Kind::HooksConfig),
            _ if file.ends_with(".md")
                && file.contains("--")
                && parent.is_some_and(|dir| dir.contains("--")) =>
            {
                Some(Kind::PlasticIntent)
            }
            _ if parent == Some("verification")
                && file.ends_with(".json")
                && !file.ends_with(".tree.json") =>
            {
                Some(Kind::Receipt)
            }
            _ => None,
        }
    }

    /// The kind a configured agent-file glob gives a repository path, first
    /// match wins: findings ledgers, savepoint ledgers, intents, reports,
    /// returns (the gate's reading of the configuration).
    pub fn configured(config: &config::Config, path: &str) -> Option<Kind> {
        let table: [(&config::Globs, Kind); 5] = [
            (&config.findings_ledgers, Kind::FindingsLedger),
            (&config.plastic_savepoints, Kind::PlasticSavepoints),
            (&config.plastic_intents, Kind::PlasticIntent),
            (&config.plastic_reports, Kind::PlasticReport),
            (&config.subagent_returns, Kind::SubagentReturn),
        ];
        table
            .into_iter()
            .find(|(globs, _)| globs.is_match(path))
            .map(|(_, kind)| kind)
    }

    /// The kind of a file found by walking a directory, as the gate would
    /// judge it: the configured agent-file globs first (when a
    /// configuration is known), then the file's name, where a Mastermind
    /// task artifact's name (`spec.md`, `executor-report.md`,
    /// `audit-tail.md`, `verification/<id>.json`, `<id>.tree.json`) counts
    /// only inside a task folder `.mastermind/tasks/<dir>/` when `path` is
    /// repository-relative (`in_repository`): a `docs/spec.md` is no task's
    /// spec.
    pub fn infer_found(
        config: Option<&config::Config>,
        path: &str,
        in_repository: bool,
    ) -> Option<Kind> {
        if let Some(kind) = config.and_then(|c| Kind::configured(c, path)) {
            return Some(kind);
        }
        let kind = Kind::infer(path)?;
        let task_artifact = matches!(
            kind,
            Kind::ExecutorReport | Kind::AuditTail | Kind::Spec | Kind::Receipt | Kind::TreeReceipt
        );
        if task_artifact && in_repository && crate::bookkeeping::task_dir_of(path).is_none() {
            return None;
        }
        Some(kind)
    }

    /// Bytes read before a file is judged too large (the parser sees one
    /// byte more than the limit and reports it).
    pub fn max_bytes(self) -> usize {
        match self {
            Kind::ExecutorReport => executor_report::MAX_REPORT_BYTES,
            Kind::AuditTail => audit_tail::MAX_TAIL_BYTES,
            Kind::Spec => spec::MAX_SPEC_BYTES,
            Kind::Receipt => receipt::MAX_RECEIPT_BYTES,
            Kind::TreeReceipt => tree_receipt::MAX_TREE_RECEIPT_BYTES,
            Kind::PlasticReport => plastic::report::MAX_REPORT_BYTES,
            Kind::PlasticIntent => plastic::intent::MAX_INTENT_BYTES,
            Kind::PlasticSavepoints => plastic::savepoints::MAX_SAVEPOINT_BYTES,
            Kind::PlasticInsight => plastic::insight::MAX_INSIGHT_BYTES,
            Kind::SubagentReturn => subagent::returns::MAX_RETURN_BYTES,
            Kind::FindingBlocks => subagent::finding_blocks::MAX_FINDING_BLOCKS_BYTES,
            Kind::FindingsLedger => subagent::ledger::MAX_LEDGER_BYTES,
            Kind::HooksConfig => config::MAX_CONFIG_BYTES,
        }
    }
}

/// What checking one artifact found.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub diagnostics: Vec<Diagnostic>,
    /// The receipt inspection state, for receipts.
    pub state: Option<CheckState>,
}

/// Check one artifact's bytes against its contract.
pub fn check(kind: Kind, bytes: &[u8]) -> Checked {
    check_with_role(kind, bytes, None)
}

/// [`check`] with the role a plastic report or subagent return is judged as
/// (`--role`); other kinds ignore it.
pub fn check_with_role(kind: Kind, bytes: &[u8], role: Option<&str>) -> Checked {
    let (diagnostics, state) = match kind {
        Kind::ExecutorReport => match executor_report::parse(bytes) {
            Ok((_, warnings)) => (warnings, None),
            Err(errors) => (errors, None),
        },
        Kind::AuditTail => (audit_tail::parse(bytes).err().unwrap_or_default(), None),
        Kind::Spec => (spec::check(bytes).1, None),
        Kind::Receipt => {
            let inspection = receipt::inspect_intrinsic(bytes);
            (inspection.diagnostics, Some(inspection.state))
        }
        Kind::TreeReceipt => {
            let inspection = tree_receipt::inspect(bytes, None);
            (inspection.diagnostics, Some(inspection.state))
        }
        Kind::PlasticReport => (plastic::report::check(bytes, role).1, None),
        Kind::PlasticIntent => (plastic::intent::check(bytes).1, None),
        Kind::PlasticSavepoints => (plastic::savepoints::check(bytes).1, None),
        Kind::PlasticInsight => (plastic::insight::check(bytes).1, None),
        Kind::SubagentReturn => (subagent::returns::check(bytes, role).1, None),
        Kind::FindingBlocks => (subagent::finding_blocks::check(bytes).1, None),
        Kind::FindingsLedger => (subagent::ledger::check(bytes).1, None),
        // The gate's own configuration is a contract too: parsing it is a
        // pure function of its bytes.
        Kind::HooksConfig => (
            config::Config::parse(bytes, "the configuration")
                .err()
                .unwrap_or_default()
                .into_iter()
                .map(|d| Diagnostic {
                    code: Code::hooks_config_invalid,
                    severity: Code::hooks_config_invalid.default_severity(),
                    path: None,
                    hint: Some(Code::hooks_config_invalid.help().to_string()),
                    ..d
                })
                .collect(),
            None,
        ),
    };
    Checked { diagnostics, state }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_inferred_from_file_names() {
        assert_eq!(
            Kind::infer("a/b/executor-report.md"),
            Some(Kind::ExecutorReport)
        );
        assert_eq!(
            Kind::infer(".mastermind/tasks/001/spec.md"),
            Some(Kind::Spec)
        );
        assert_eq!(Kind::infer("t/verification/unit.json"), Some(Kind::Receipt));
        assert_eq!(
            Kind::infer("t\\verification\\unit.json"),
            Some(Kind::Receipt)
        );
        assert_eq!(
            Kind::infer("t/verification/unit.tree.json"),
            Some(Kind::TreeReceipt)
        );
        assert_eq!(Kind::infer("unit.tree.json"), Some(Kind::TreeReceipt));
        assert_eq!(Kind::infer(".tree.json"), None);
        assert_eq!(Kind::infer("t/unit.json"), None);
        assert_eq!(Kind::infer("notes.md"), None);
        assert_eq!(
            Kind::infer("store/337--roadmap-graph/savepoint.md"),
            Some(Kind::PlasticSavepoints)
        );
        assert_eq!(
            Kind::infer("tests/e2e/docs/adversarial-findings.md"),
            Some(Kind::FindingsLedger)
        );
        assert_eq!(
            Kind::infer("store/337--roadmap-graph/337--roadmap-graph.md"),
            Some(Kind::PlasticIntent)
        );
        assert_eq!(Kind::infer("337--roadmap-graph.md"), None);
        assert_eq!(Kind::infer("store/resources/review--plan.md"), None);
        assert_eq!(Kind::infer("store/340--x/packets/n1--a1.md"), None);
        assert_eq!(Kind::infer("store/337--x/plan.md"), None);
        assert_eq!(Kind::infer("returns/composer-j-login.json"), None);
        assert_eq!(
            Kind::infer("repo/.mastermind/hooks.yaml"),
            Some(Kind::HooksConfig)
        );
        assert_eq!(Kind::infer("hooks.yaml"), None);
        for &kind in Kind::ALL {
            assert_eq!(Kind::from_name(kind.name()), Some(kind));
        }
    }

    #[test]
    fn found_files_get_the_kinds_the_gate_gives_them() {
        let config = config::Config::parse(
            b"plastic_reports: [\"reports/**/*.md\"]\nsubagent_returns: [\"returns/*.json\"]\n",
            "test",
        )
        .unwrap();
        let found = |path: &str, repo: bool| Kind::infer_found(Some(&config), path, repo);
        assert_eq!(found("reports/a/x.md", true), Some(Kind::PlasticReport));
        assert_eq!(found("returns/r.json", true), Some(Kind::SubagentReturn));
        assert_eq!(found("returns/sub/r.json", true), None);
        assert_eq!(
            found(".mastermind/tasks/001-x/spec.md", true),
            Some(Kind::Spec)
        );
        assert_eq!(
            found(".mastermind/tasks/001-x/verification/unit.json", true),
            Some(Kind::Receipt)
        );
        assert_eq!(found("docs/spec.md", true), None);
        assert_eq!(found("docs/spec.md", false), Some(Kind::Spec));
        assert_eq!(
            found("e2e/adversarial-findings.md", true),
            Some(Kind::FindingsLedger)
        );
        assert_eq!(
            found(".mastermind/hooks.yaml", true),
            Some(Kind::HooksConfig)
        );
        assert_eq!(found("README.md", true), None);
        assert_eq!(Kind::infer_found(None, "reports/a/x.md", true), None);
    }
}
