//! The pure contract core: bytes in, typed values and diagnostics out. No git,
//! no disk, no clock. One module per artifact, plus the shared strict YAML and
//! sentinel layers.

pub mod acceptance;
pub mod argv_display;
pub mod audit_tail;
pub mod declarations;
pub mod declared_paths;
pub mod executor_report;
pub mod receipt;
pub mod sentinel;
pub mod spec;
pub mod tree_receipt;
pub mod yaml;

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
}

impl Kind {
    pub const ALL: &'static [Kind] = &[
        Kind::ExecutorReport,
        Kind::AuditTail,
        Kind::Spec,
        Kind::Receipt,
        Kind::TreeReceipt,
    ];

    /// The name used by `--kind` and in output.
    pub fn name(self) -> &'static str {
        match self {
            Kind::ExecutorReport => "executor-report",
            Kind::AuditTail => "audit-tail",
            Kind::Spec => "spec",
            Kind::Receipt => "receipt",
            Kind::TreeReceipt => "tree-receipt",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Infer the kind from a path: `executor-report.md`, `spec.md`,
    /// `audit-tail.md`, `verification/<id>.json` and `*.tree.json`.
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
            _ if parent == Some("verification")
                && file.ends_with(".json")
                && !file.ends_with(".tree.json") =>
            {
                Some(Kind::Receipt)
            }
            _ => None,
        }
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
        for &kind in Kind::ALL {
            assert_eq!(Kind::from_name(kind.name()), Some(kind));
        }
    }
}
