//! Tree receipts (`<task>/verification/<id>.tree.json`, this project's
//! extension): decoding and inspection against an expected binding,
//! without the repository. Schema version 1
//! (`schemas/tree-receipt-v1.schema.json`) and version 2
//! (`schemas/tree-receipt-v2.schema.json`: version 1 plus the `territory`
//! record, [`super::territory`]) are read; the runner writes version 2.
//!
//! A tree receipt is content-addressed: it binds the declaration (the
//! reference's `declaration_sha256`), the spec's path and sha256, the
//! executable's sha256, the runner's version and platform, the outcome,
//! the tree digest (version 1 or 2) of the working tree before and after the
//! run and, from schema version 2, what the check ran on over its task's
//! territory (each path's mode and SHA-256, bound to the run).
//! Inspection order (first match wins), mirroring the reference's table:
//! size and schema; versions and attempt; provenance; run_id; the
//! receipt's own consistency (declaration hash recomputed, limits, trusted
//! runner version, the territory record bound to the run); the expected
//! binding when given (declaration, spec path, platform, then spec bytes);
//! status; the outcome a pass requires. The tree digest, the territory and
//! the executable are compared by the gate.

use crate::codes::Code;
use crate::contract::mastermind::argv_display::RunDeclaration;
use crate::contract::mastermind::receipt::{
    self, CheckState, Executable, PROVENANCE, Status, StreamDigest, declaration_problem,
    decode_json_by, is_hex, state_diagnostic, status_name, status_state, streams_are_valid,
};
use crate::contract::mastermind::territory::Territory;
use crate::diagnostic::Diagnostic;
use crate::schema::SchemaId;
use serde::{Deserialize, Serialize};

/// The tree digest versions a receipt may record: 1 (tree-v1, everything
/// outside `.mastermind/`) and 2 (tree-v2, everything but the agents'
/// bookkeeping). The gate recomputes the version the receipt names.
pub const TREE_DIGEST_VERSIONS: [u32; 2] = [1, 2];

/// The schema version the runner writes: 2, with the territory record.
/// Version 1 receipts (no record) are still read, and judged by the commit
/// that carries them.
pub const TREE_RECEIPT_SCHEMA_VERSION: u32 = 2;

/// Tree receipts larger than this are refused (as v1 receipts).
pub const MAX_TREE_RECEIPT_BYTES: usize = 128 * 1024;
/// The oldest runner whose receipts this gate trusts. Raised when a runner
/// bug must invalidate the receipts it wrote.
pub const MIN_TRUSTED_RUNNER_VERSION: (u64, u64, u64) = (0, 1, 0);

/// The spec a receipt was run for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecBinding {
    /// Repository-relative path of the spec.
    pub path: String,
    /// SHA-256 of the spec file's bytes.
    pub sha256: String,
}

/// A decoded tree receipt (field order is the order written).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeReceipt {
    pub schema_version: u32,
    pub run_id: String,
    pub check_id: String,
    pub attempt: u64,
    pub status: Status,
    pub reason: Option<String>,
    pub spec: SpecBinding,
    pub declaration_sha256: String,
    pub command: String,
    pub declaration: RunDeclaration,
    pub executable: Option<Executable>,
    pub tree_digest_version: u32,
    /// The repository's object format when it is not SHA-1 (`sha256`):
    /// absent means SHA-1, as in every receipt written before SHA-256
    /// repositories were read, so those receipts stay byte for byte what
    /// earlier releases write and read. A receipt is current only in a
    /// repository of its own format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_format: Option<String>,
    pub tree_before: Option<String>,
    pub tree_after: Option<String>,
    /// What the check ran on over its task's territory (schema version 2;
    /// absent in version 1 and in a `pending` receipt written before the
    /// working tree was read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub territory: Option<Territory>,
    pub started_at: u64,
    pub duration_ms: u64,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: Option<StreamDigest>,
    pub stderr: Option<StreamDigest>,
    pub runner_version: String,
    pub platform: String,
    pub provenance: String,
}

impl TreeReceipt {
    /// A clean exit with complete evidence and an unchanged tree.
    pub fn passed(&self) -> bool {
        self.status == Status::Passed
            && self.exit_code == Some(0)
            && self.signal.is_none()
            && self.reason.is_none()
            && self.tree_before.as_deref().is_some_and(|d| is_hex(d, 64))
            && self.tree_before == self.tree_after
            && (self.schema_version < 2 || self.territory.is_some())
            && self
                .executable
                .as_ref()
                .is_some_and(|e| is_hex(&e.sha256, 64))
            && streams_are_valid(&self.stdout, &self.stderr)
    }
}

/// What the live task expects a receipt to be bound to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected<'a> {
    pub declaration_sha256: &'a str,
    pub spec_path: &'a str,
    pub spec_sha256: &'a str,
    pub platform: &'a str,
    /// The repository's object format (`sha1`, `sha256`).
    pub object_format: &'a str,
}

/// The object format a receipt records (absent: SHA-1).
pub fn object_format_of(receipt: &TreeReceipt) -> &str {
    receipt.object_format.as_deref().unwrap_or(SHA1)
}

/// The object format a receipt without `object_format` was written in.
pub const SHA1: &str = "sha1";

/// How an object format is spelled in a sentence (`SHA-256`).
fn format_name(format: &str) -> String {
    format.to_ascii_uppercase().replace("SHA", "SHA-")
}

/// Result of an inspection.
#[derive(Clone, Debug, PartialEq)]
pub struct Inspection {
    pub state: CheckState,
    /// The reason code, `None` when current (so far as bytes can tell).
    pub reason: Option<Code>,
    pub receipt: Option<TreeReceipt>,
    pub diagnostics: Vec<Diagnostic>,
}

fn finding(
    state: CheckState,
    code: Code,
    detail: &str,
    receipt: Option<TreeReceipt>,
) -> Inspection {
    Inspection {
        state,
        reason: Some(code),
        receipt,
        diagnostics: vec![state_diagnostic(state, code, detail)],
    }
}

/// `x.y.z` (an optional `-pre` or `+build` suffix is ignored).
pub fn parse_version(text: &str) -> Option<(u64, u64, u64)> {
    let core = text.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| {
        (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse::<u64>().ok())
            .flatten()
    });
    let version = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(version)
}

/// The schema of a tree receipt: version 2's for `schema_version: 2`,
/// else version 1's (an unknown version is refused after the schema).
fn schema_of(value: &serde_json::Value) -> SchemaId {
    match value
        .get("schema_version")
        .and_then(serde_json::Value::as_u64)
    {
        Some(2) => SchemaId::TreeReceiptV2,
        _ => SchemaId::TreeReceiptV1,
    }
}

fn decode(bytes: &[u8]) -> Result<TreeReceipt, Inspection> {
    decode_json_by(bytes, MAX_TREE_RECEIPT_BYTES, schema_of, "tree receipt").map_err(
        |(code, diagnostics)| Inspection {
            state: CheckState::Unavailable,
            reason: Some(code),
            receipt: None,
            diagnostics,
        },
    )
}

fn own_problem(receipt: &TreeReceipt) -> Option<String> {
    if let Some(problem) = declaration_problem(
        &receipt.check_id,
        &receipt.command,
        &receipt.declaration,
        &receipt.declaration_sha256,
    ) {
        return Some(problem);
    }
    if let Some(problem) = receipt::spec_path_problem("spec.path", &receipt.spec.path) {
        return Some(problem);
    }
    if !is_hex(&receipt.spec.sha256, 64) {
        return Some("spec binding is malformed (sha256 not 64 hex)".into());
    }
    if let Some(territory) = &receipt.territory
        && let Err(problem) = territory.leaves(&receipt.run_id)
    {
        return Some(problem);
    }
    match parse_version(&receipt.runner_version) {
        Some(version) if version >= MIN_TRUSTED_RUNNER_VERSION => None,
        Some(_) => Some(format!(
            "runner_version {} is older than the oldest trusted runner {}.{}.{}",
            receipt.runner_version,
            MIN_TRUSTED_RUNNER_VERSION.0,
            MIN_TRUSTED_RUNNER_VERSION.1,
            MIN_TRUSTED_RUNNER_VERSION.2
        )),
        None => Some(format!(
            "runner_version `{}` is not a version",
            receipt.runner_version
        )),
    }
}

/// Inspect a tree receipt's bytes, against the live task's binding when
/// `expected` is given (the gate), or intrinsically (`validate`).
pub fn inspect(bytes: &[u8], expected: Option<&Expected<'_>>) -> Inspection {
    let receipt = match decode(bytes) {
        Ok(receipt) => receipt,
        Err(inspection) => return inspection,
    };
    let found = |state, code, detail: &str, receipt: &TreeReceipt| {
        finding(state, code, detail, Some(receipt.clone()))
    };
    if !(1..=TREE_RECEIPT_SCHEMA_VERSION).contains(&receipt.schema_version)
        || !TREE_DIGEST_VERSIONS.contains(&receipt.tree_digest_version)
        || receipt.attempt == 0
    {
        return found(
            CheckState::Unavailable,
            Code::receipt_version_or_attempt_invalid,
            &format!(
                "schema_version {}, tree_digest_version {}, attempt {} (need 1 or 2, 1 or 2, >= 1)",
                receipt.schema_version, receipt.tree_digest_version, receipt.attempt
            ),
            &receipt,
        );
    }
    if receipt.provenance != PROVENANCE {
        return found(
            CheckState::Unavailable,
            Code::receipt_source_unknown,
            &format!("provenance is `{}`, not `{PROVENANCE}`", receipt.provenance),
            &receipt,
        );
    }
    if !is_hex(&receipt.run_id, 32) {
        return found(
            CheckState::Unavailable,
            Code::receipt_run_id_invalid,
            "run_id is not 32 hex characters",
            &receipt,
        );
    }
    if let Some(problem) = own_problem(&receipt) {
        return found(
            CheckState::Stale,
            Code::receipt_binding_mismatch,
            &problem,
            &receipt,
        );
    }
    if let Some(expected) = expected {
        let mismatch = if receipt.declaration_sha256 != expected.declaration_sha256 {
            Some((
                Code::receipt_binding_mismatch,
                format!(
                    "the spec now declares check `{}` differently (declaration_sha256 {} is now {})",
                    receipt.check_id, receipt.declaration_sha256, expected.declaration_sha256
                ),
            ))
        } else if receipt.spec.path != expected.spec_path {
            Some((
                Code::receipt_binding_mismatch,
                format!(
                    "the receipt was written for spec `{}`, not `{}`",
                    receipt.spec.path, expected.spec_path
                ),
            ))
        } else if receipt.platform != expected.platform {
            Some((
                Code::receipt_binding_mismatch,
                format!(
                    "the check ran on `{}`, this gate runs on `{}`",
                    receipt.platform, expected.platform
                ),
            ))
        } else if object_format_of(&receipt) != expected.object_format {
            Some((
                Code::receipt_binding_mismatch,
                format!(
                    "the check ran in a repository of {} object ids; this one uses {} object ids",
                    format_name(object_format_of(&receipt)),
                    format_name(expected.object_format)
                ),
            ))
        } else if !receipt
            .spec
            .sha256
            .eq_ignore_ascii_case(expected.spec_sha256)
        {
            Some((
                Code::receipt_spec_changed,
                format!(
                    "the spec's sha256 was {} when the check ran and is now {}",
                    receipt.spec.sha256, expected.spec_sha256
                ),
            ))
        } else {
            None
        };
        if let Some((code, detail)) = mismatch {
            return found(CheckState::Stale, code, &detail, &receipt);
        }
    }
    if let Some((state, code)) = status_state(receipt.status) {
        let detail = match &receipt.reason {
            Some(reason) => format!(
                "status `{}` (reason `{reason}`)",
                status_name(receipt.status)
            ),
            None => format!("status `{}`", status_name(receipt.status)),
        };
        return found(state, code, &detail, &receipt);
    }
    if !receipt.passed() {
        return found(
            CheckState::Unavailable,
            Code::receipt_outcome_invalid,
            "status is passed but exit code, signal, reason, tree digests, territory record, executable or streams do not support it",
            &receipt,
        );
    }
    Inspection {
        state: CheckState::Current,
        reason: None,
        diagnostics: vec![Diagnostic::new(
            Code::receipt_intrinsically_current,
            format!(
                "tree receipt for check `{}` is intrinsically current; the gate still compares what its check ran on and its executable with what lands",
                receipt.check_id
            ),
        )],
        receipt: Some(receipt),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::contract::mastermind::argv_display::{declaration_sha256, display_command};
    use serde_json::{Value, json};

    pub(crate) fn valid() -> Value {
        let run = RunDeclaration {
            id: "unit".into(),
            argv: vec!["sh".into(), "-c".into(), "exit 0".into()],
            cwd: ".".into(),
            timeout_secs: 60,
        };
        let command = display_command(&run.argv);
        let d = "a".repeat(64);
        json!({
            "schema_version": 1,
            "run_id": "0123456789abcdef0123456789abcdef",
            "check_id": "unit",
            "attempt": 2,
            "status": "passed",
            "reason": null,
            "spec": {"path": ".mastermind/tasks/001-demo/spec.md", "sha256": "b".repeat(64)},
            "declaration_sha256": declaration_sha256(&command, &run),
            "command": command,
            "declaration": run,
            "executable": {"invocation_path": "/bin/sh", "resolved_path": "/usr/bin/dash", "sha256": d},
            "tree_digest_version": 1,
            "tree_before": d,
            "tree_after": d,
            "started_at": 1700000000u64,
            "duration_ms": 12,
            "exit_code": 0,
            "signal": null,
            "stdout": {"bytes": 0, "sha256": d},
            "stderr": {"bytes": 0, "sha256": d},
            "runner_version": "0.1.0",
            "platform": "linux",
            "provenance": "local_runner_unsigned"
        })
    }

    fn with(path: &[&str], new: Value) -> Value {
        let mut v = valid();
        let mut slot = &mut v;
        for key in &path[..path.len() - 1] {
            slot = &mut slot[*key];
        }
        slot[path[path.len() - 1]] = new;
        v
    }

    fn run(value: &Value, expected: Option<&Expected<'_>>) -> (CheckState, Option<Code>) {
        let i = inspect(&serde_json::to_vec(value).unwrap(), expected);
        (i.state, i.reason)
    }

    #[test]
    fn a_sound_receipt_is_current_and_round_trips() {
        assert_eq!(run(&valid(), None), (CheckState::Current, None));
        let decoded: TreeReceipt = serde_json::from_value(valid()).unwrap();
        assert_eq!(serde_json::to_value(&decoded).unwrap(), valid());
    }

    #[test]
    fn state_table() {
        use CheckState::*;
        let cases = [
            (
                with(&["surprise"], json!(1)),
                Unavailable,
                Code::receipt_invalid,
            ),
            (
                {
                    let mut v = valid();
                    v.as_object_mut().unwrap().remove("tree_after");
                    v
                },
                Unavailable,
                Code::receipt_invalid,
            ),
            (
                with(&["tree_digest_version"], json!(3)),
                Unavailable,
                Code::receipt_version_or_attempt_invalid,
            ),
            (
                with(&["attempt"], json!(0)),
                Unavailable,
                Code::receipt_version_or_attempt_invalid,
            ),
            (
                with(&["provenance"], json!("signed")),
                Unavailable,
                Code::receipt_source_unknown,
            ),
            (
                with(&["run_id"], json!("abc")),
                Unavailable,
                Code::receipt_run_id_invalid,
            ),
            (
                with(&["declaration_sha256"], json!("c".repeat(64))),
                Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["spec", "path"], json!("../outside/spec.md")),
                Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["spec", "path"], json!("")),
                Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["runner_version"], json!("0.0.9")),
                Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["runner_version"], json!("latest")),
                Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["spec", "sha256"], json!("short")),
                Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["status"], json!("pending")),
                Pending,
                Code::receipt_pending,
            ),
            (
                with(&["status"], json!("timeout")),
                Failed,
                Code::receipt_timeout,
            ),
            (
                with(&["status"], json!("input_changed")),
                Stale,
                Code::receipt_inputs_changed,
            ),
            (
                with(&["exit_code"], json!(1)),
                Unavailable,
                Code::receipt_outcome_invalid,
            ),
            (
                with(&["tree_after"], json!("d".repeat(64))),
                Unavailable,
                Code::receipt_outcome_invalid,
            ),
            (
                with(&["tree_before"], json!(null)),
                Unavailable,
                Code::receipt_outcome_invalid,
            ),
            (
                with(&["executable"], json!(null)),
                Unavailable,
                Code::receipt_outcome_invalid,
            ),
            (
                with(&["stdout"], json!(null)),
                Unavailable,
                Code::receipt_outcome_invalid,
            ),
        ];
        for (value, state, code) in cases {
            assert_eq!(run(&value, None), (state, Some(code)), "{value}");
        }
    }

    #[test]
    fn expected_binding_mismatches_are_specific() {
        let v = valid();
        let decl = v["declaration_sha256"].as_str().unwrap().to_string();
        let spec_sha = "b".repeat(64);
        let good = Expected {
            declaration_sha256: &decl,
            spec_path: ".mastermind/tasks/001-demo/spec.md",
            spec_sha256: &spec_sha,
            platform: "linux",
            object_format: "sha1",
        };
        assert_eq!(run(&v, Some(&good)), (CheckState::Current, None));
        let other = "e".repeat(64);
        for (expected, code) in [
            (
                Expected {
                    declaration_sha256: &other,
                    ..good.clone()
                },
                Code::receipt_binding_mismatch,
            ),
            (
                Expected {
                    spec_path: "x/spec.md",
                    ..good.clone()
                },
                Code::receipt_binding_mismatch,
            ),
            (
                Expected {
                    platform: "macos",
                    ..good.clone()
                },
                Code::receipt_binding_mismatch,
            ),
            (
                Expected {
                    object_format: "sha256",
                    ..good.clone()
                },
                Code::receipt_binding_mismatch,
            ),
            (
                Expected {
                    spec_sha256: &other,
                    ..good.clone()
                },
                Code::receipt_spec_changed,
            ),
        ] {
            assert_eq!(run(&v, Some(&expected)), (CheckState::Stale, Some(code)));
        }
        // Binding comes before status: a stale pending receipt is stale.
        let pending = with(&["status"], json!("pending"));
        let changed = Expected {
            spec_sha256: &other,
            ..good.clone()
        };
        assert_eq!(
            run(&pending, Some(&changed)),
            (CheckState::Stale, Some(Code::receipt_spec_changed))
        );
    }

    /// A valid schema-2 receipt: the same fields and a territory record.
    pub(crate) fn valid_v2() -> Value {
        use crate::contract::mastermind::territory::{Leaf, Territory};
        let mut v = valid();
        v["schema_version"] = json!(2);
        let record = Territory::record(
            v["run_id"].as_str().unwrap(),
            [
                (
                    "src/a.py",
                    Leaf::Present {
                        mode: "100644".into(),
                        sha256: "c".repeat(64),
                    },
                    true,
                ),
                ("docs/a.md", Leaf::Absent, false),
            ],
        );
        v["territory"] = serde_json::to_value(record).unwrap();
        v
    }

    #[test]
    fn a_schema_2_receipt_needs_a_sound_record_bound_to_its_run() {
        assert_eq!(run(&valid_v2(), None), (CheckState::Current, None));
        let decoded: TreeReceipt = serde_json::from_value(valid_v2()).unwrap();
        assert_eq!(serde_json::to_value(&decoded).unwrap(), valid_v2());
        // A passing receipt of schema 2 records what its check ran on.
        let mut bare = valid_v2();
        bare.as_object_mut().unwrap().remove("territory");
        assert_eq!(
            run(&bare, None),
            (CheckState::Unavailable, Some(Code::receipt_outcome_invalid))
        );
        // Schema 1 has no record; the record is refused there by the schema.
        let mut v1 = valid_v2();
        v1["schema_version"] = json!(1);
        assert_eq!(
            run(&v1, None),
            (CheckState::Unavailable, Some(Code::receipt_invalid))
        );
        // A record edited after the run, or copied from another run.
        let mut edited = valid_v2();
        edited["territory"]["changed"][0] = json!(format!("100644 {} src/a.py", "d".repeat(64)));
        assert_eq!(
            run(&edited, None),
            (CheckState::Stale, Some(Code::receipt_binding_mismatch))
        );
        let mut copied = valid_v2();
        copied["run_id"] = json!("f".repeat(32));
        assert_eq!(
            run(&copied, None),
            (CheckState::Stale, Some(Code::receipt_binding_mismatch))
        );
        let mut unknown = valid_v2();
        unknown["territory"]["extra"] = json!(1);
        assert_eq!(
            run(&unknown, None),
            (CheckState::Unavailable, Some(Code::receipt_invalid))
        );
        let mut later = valid_v2();
        later["schema_version"] = json!(3);
        assert_eq!(
            run(&later, None),
            (CheckState::Unavailable, Some(Code::receipt_invalid)),
            "a version this gate does not know is refused"
        );
        // A pending receipt written before the working tree was read has
        // no record yet.
        let mut pending = bare.clone();
        pending["status"] = json!("pending");
        assert_eq!(
            run(&pending, None),
            (CheckState::Pending, Some(Code::receipt_pending))
        );
    }

    #[test]
    fn a_receipt_is_current_only_in_a_repository_of_its_object_format() {
        let sha1 = valid();
        let mut sha256 = valid();
        sha256["object_format"] = json!("sha256");
        let decl = sha1["declaration_sha256"].as_str().unwrap().to_string();
        let spec_sha = "b".repeat(64);
        let expected = |object_format| Expected {
            declaration_sha256: &decl,
            spec_path: ".mastermind/tasks/001-demo/spec.md",
            spec_sha256: &spec_sha,
            platform: "linux",
            object_format,
        };
        let stale = (CheckState::Stale, Some(Code::receipt_binding_mismatch));
        let current = (CheckState::Current, None);
        assert_eq!(run(&sha1, Some(&expected("sha1"))), current);
        assert_eq!(run(&sha1, Some(&expected("sha256"))), stale);
        assert_eq!(run(&sha256, Some(&expected("sha256"))), current);
        assert_eq!(run(&sha256, Some(&expected("sha1"))), stale);
        let message = inspect(
            serde_json::to_string(&sha1).unwrap().as_bytes(),
            Some(&expected("sha256")),
        )
        .diagnostics[0]
            .message
            .clone();
        assert!(
            message.contains("SHA-1 object ids; this one uses SHA-256"),
            "{message}"
        );
        // Written back as read: a SHA-1 receipt has no `object_format`.
        let decoded: TreeReceipt = serde_json::from_value(sha1.clone()).unwrap();
        assert_eq!(serde_json::to_value(&decoded).unwrap(), sha1);
        let decoded: TreeReceipt = serde_json::from_value(sha256.clone()).unwrap();
        assert_eq!(decoded.object_format.as_deref(), Some("sha256"));
        // Only the formats git has are valid.
        let mut other = valid();
        other["object_format"] = json!("md5");
        assert_eq!(
            run(&other, None),
            (CheckState::Unavailable, Some(Code::receipt_invalid))
        );
    }

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version("0.1.0"), Some((0, 1, 0)));
        assert_eq!(parse_version("1.2.3-rc.1"), Some((1, 2, 3)));
        for bad in ["1.2", "1.2.3.4", "a.b.c", "", "1..3"] {
            assert_eq!(parse_version(bad), None, "{bad}");
        }
    }
}
