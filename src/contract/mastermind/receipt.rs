//! Mastermind verification receipt v1 (`<task>/verification/<id>.json`,
//! contracts `mastermind.md` section 4): decoding and the intrinsic part of
//! the inspection state table, the part that needs no live task.
//!
//! Intrinsic inspection follows the reference's order, first match wins:
//! size, schema, versions and attempt, provenance, run_id, the receipt's own
//! binding (its declaration hash recomputed from its command and
//! declaration), status, outcome. What remains (the task binding, the
//! repository snapshot and the executable) needs the repository and is
//! compared by the gate.

use crate::codes::Code;
use crate::contract::mastermind::argv_display::{
    RunDeclaration, declaration_sha256, display_command,
};
use crate::contract::mastermind::spec::declarations::{is_canonical_cwd, is_identifier};
use crate::diagnostic::Diagnostic;
use crate::schema::{self, SchemaId};
use serde::{Deserialize, Serialize};

/// Receipts larger than this make the whole inspection fail closed.
pub const MAX_RECEIPT_BYTES: usize = 128 * 1024;
/// Largest stream a passing receipt may record.
pub const MAX_STREAM_BYTES: u64 = 1024 * 1024;
pub const PROVENANCE: &str = "local_runner_unsigned";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pending,
    Passed,
    Failed,
    Timeout,
    Interrupted,
    OutputLimit,
    InputChanged,
    SpawnFailed,
    IoFailed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intake_revision: Option<String>,
    pub repository_identity: String,
    pub spec_path: String,
    pub spec_sha256: String,
    pub baseline_oid: String,
    pub iteration: u32,
    pub preflight_started_at: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Executable {
    pub invocation_path: String,
    pub resolved_path: String,
    pub sha256: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamDigest {
    pub bytes: u64,
    pub sha256: String,
}

/// A decoded receipt. Missing nullable fields decode as `None`, as in the
/// reference decoder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    pub schema_version: u32,
    pub run_id: String,
    pub check_id: String,
    pub attempt: u64,
    pub status: Status,
    pub reason: Option<String>,
    pub binding: Binding,
    pub declaration_sha256: String,
    pub command: String,
    pub declaration: RunDeclaration,
    pub executable: Option<Executable>,
    pub snapshot_version: u32,
    pub snapshot_before: Option<String>,
    pub snapshot_after: Option<String>,
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

impl Receipt {
    /// The reference's `passed()`: a clean exit with complete evidence.
    pub fn passed(&self) -> bool {
        self.status == Status::Passed
            && self.exit_code == Some(0)
            && self.signal.is_none()
            && self.reason.is_none()
            && self.snapshot_before.is_some()
            && self.snapshot_before == self.snapshot_after
            && self.executable.is_some()
            && self.stdout.is_some()
            && self.stderr.is_some()
    }
}

pub(crate) fn status_name(status: Status) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The inspection state of one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckState {
    Current,
    Missing,
    Pending,
    Failed,
    Stale,
    Unavailable,
}

impl CheckState {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckState::Current => "current",
            CheckState::Missing => "missing",
            CheckState::Pending => "pending",
            CheckState::Failed => "failed",
            CheckState::Stale => "stale",
            CheckState::Unavailable => "unavailable",
        }
    }
}

/// Result of an intrinsic inspection.
#[derive(Clone, Debug, PartialEq)]
pub struct Inspection {
    pub state: CheckState,
    /// The reason code, `None` when intrinsically current.
    pub reason: Option<Code>,
    /// The decoded receipt, when it decoded.
    pub receipt: Option<Receipt>,
    pub diagnostics: Vec<Diagnostic>,
}

/// True for `len` ASCII hex digits (the reference accepts either case).
pub fn is_hex(value: &str, len: usize) -> bool {
    value.len() == len && value.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The diagnostic of a non-current receipt state.
pub(crate) fn state_diagnostic(state: CheckState, code: Code, detail: &str) -> Diagnostic {
    Diagnostic::new(
        code,
        format!(
            "receipt is {} ({}): {detail}",
            state.as_str(),
            code.as_str()
        ),
    )
}

fn finding(state: CheckState, code: Code, detail: &str, receipt: Option<Receipt>) -> Inspection {
    Inspection {
        state,
        reason: Some(code),
        receipt,
        diagnostics: vec![state_diagnostic(state, code, detail)],
    }
}

/// The state and code a non-passing status maps to (`None` for passed).
pub(crate) fn status_state(status: Status) -> Option<(CheckState, Code)> {
    match status {
        Status::Passed => None,
        Status::Pending => Some((CheckState::Pending, Code::receipt_pending)),
        Status::InputChanged => Some((CheckState::Stale, Code::receipt_inputs_changed)),
        Status::Failed => Some((CheckState::Failed, Code::receipt_failed)),
        Status::Timeout => Some((CheckState::Failed, Code::receipt_timeout)),
        Status::Interrupted => Some((CheckState::Failed, Code::receipt_interrupted)),
        Status::OutputLimit => Some((CheckState::Failed, Code::receipt_output_limit)),
        Status::SpawnFailed => Some((CheckState::Failed, Code::receipt_spawn_failed)),
        Status::IoFailed => Some((CheckState::Failed, Code::receipt_io_failed)),
    }
}

/// True when both streams are recorded, within the cap, with a hex digest.
pub(crate) fn streams_are_valid(
    stdout: &Option<StreamDigest>,
    stderr: &Option<StreamDigest>,
) -> bool {
    [stdout, stderr].iter().all(|stream| {
        stream
            .as_ref()
            .is_some_and(|s| s.bytes <= MAX_STREAM_BYTES && is_hex(&s.sha256, 64))
    })
}

/// Why a receipt's recorded spec path can name no task's spec: the runner
/// records the normalized repository-relative path, so one that escapes the
/// repository, is absolute or is not normalized is never a task's.
pub(crate) fn spec_path_problem(field: &str, path: &str) -> Option<String> {
    (crate::contract::mastermind::spec::declared_paths::normalize(path).as_deref() != Ok(path)).then(|| {
        format!(
            "{field} `{}` is not a normalized path inside the repository, so no task's spec is there",
            path.escape_debug()
        )
    })
}

/// Why a receipt's own declaration record can never match a valid spec.
pub(crate) fn declaration_problem(
    check_id: &str,
    command: &str,
    run: &RunDeclaration,
    declaration_sha: &str,
) -> Option<String> {
    if check_id != run.id {
        return Some(format!(
            "check_id `{check_id}` differs from declaration.id `{}`",
            run.id
        ));
    }
    if !is_identifier(&run.id)
        || run.argv.is_empty()
        || run.argv.len() > 64
        || run.argv[0].is_empty()
        || run.argv.iter().any(|a| a.len() > 8192 || a.contains('\0'))
        || run.argv.iter().map(String::len).sum::<usize>() > 32768
        || !(1..=3600).contains(&run.timeout_secs)
        || !is_canonical_cwd(&run.cwd)
    {
        return Some(
            "the declaration breaks the declaration limits, so no valid spec declares it".into(),
        );
    }
    let display = display_command(&run.argv);
    if command != display {
        return Some(format!(
            "command `{command}` is not the display form `{display}` of declaration.argv"
        ));
    }
    let expected = declaration_sha256(command, run);
    if declaration_sha != expected {
        return Some(format!(
            "declaration_sha256 is {declaration_sha} but [command, declaration] hashes to {expected}"
        ));
    }
    None
}

/// Decode a receipt file, shared by both receipt kinds: the size cap, JSON,
/// the schema (for pointed messages), then a typed decode from the bytes so
/// repeated keys are rejected. A failure is the reason code and its findings;
/// the receipt's state is then `unavailable`.
pub(crate) fn decode_json<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    limit: usize,
    schema_id: SchemaId,
    noun: &str,
) -> Result<T, (Code, Vec<Diagnostic>)> {
    decode_json_by(bytes, limit, |_| schema_id, noun)
}

/// [`decode_json`] with the schema chosen from the document itself (a
/// versioned format whose `schema_version` names its schema).
pub(crate) fn decode_json_by<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    limit: usize,
    schema_of: impl Fn(&serde_json::Value) -> SchemaId,
    noun: &str,
) -> Result<T, (Code, Vec<Diagnostic>)> {
    let state = CheckState::Unavailable;
    if bytes.len() > limit {
        let code = Code::receipt_too_large;
        let detail = format!("the file is larger than {limit} bytes");
        return Err((code, vec![state_diagnostic(state, code, &detail)]));
    }
    let invalid = |detail: String| {
        let code = Code::receipt_invalid;
        (code, vec![state_diagnostic(state, code, &detail)])
    };
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| invalid(format!("not JSON: {e}")))?;
    let errors = schema::validate(schema_of(&value), &value).map_err(|e| invalid(e.to_string()))?;
    if !errors.is_empty() {
        let diagnostics = errors
            .iter()
            .map(|e| {
                let focus = e.focus_pointer();
                Diagnostic::new(
                    Code::receipt_invalid,
                    format!(
                        "{noun} state `unavailable`: {}: {}",
                        if focus.is_empty() { "/" } else { &focus },
                        e.message
                    ),
                )
                .with_pointer(focus)
            })
            .collect();
        return Err((Code::receipt_invalid, diagnostics));
    }
    serde_json::from_slice::<T>(bytes).map_err(|e| invalid(e.to_string()))
}

fn decode(bytes: &[u8]) -> Result<Receipt, Inspection> {
    decode_json(bytes, MAX_RECEIPT_BYTES, SchemaId::ReceiptV1, "receipt").map_err(
        |(code, diagnostics)| Inspection {
            state: CheckState::Unavailable,
            reason: Some(code),
            receipt: None,
            diagnostics,
        },
    )
}

/// Why a receipt's own binding can never match a valid task, if it cannot.
fn binding_problem(receipt: &Receipt) -> Option<String> {
    let b = &receipt.binding;
    if let Some(problem) = declaration_problem(
        &receipt.check_id,
        &receipt.command,
        &receipt.declaration,
        &receipt.declaration_sha256,
    ) {
        return Some(problem);
    }
    if let Some(problem) = spec_path_problem("binding.spec_path", &b.spec_path) {
        return Some(problem);
    }
    if !is_hex(&b.spec_sha256, 64)
        || !(is_hex(&b.baseline_oid, 40) || is_hex(&b.baseline_oid, 64))
        || b.iteration == 0
        || b.intake_revision.as_deref().is_some_and(|r| !is_hex(r, 64))
    {
        return Some(
            "binding is malformed (spec_sha256, baseline_oid, iteration or intake_revision)".into(),
        );
    }
    None
}

fn outcome_is_valid(receipt: &Receipt) -> bool {
    receipt.passed() && streams_are_valid(&receipt.stdout, &receipt.stderr)
}

/// The operating system this build runs on, as receipts name it
/// (`std::env::consts::OS`: `linux`, `macos`, ...).
pub const HOST_PLATFORM: &str = std::env::consts::OS;

/// Inspect a receipt's bytes without a task: the state it would have if its
/// task binding, snapshot and executable all matched.
pub fn inspect_intrinsic(bytes: &[u8]) -> Inspection {
    let receipt = match decode(bytes) {
        Ok(receipt) => receipt,
        Err(inspection) => return inspection,
    };
    let found = |state, code, detail: &str, receipt: &Receipt| {
        finding(state, code, detail, Some(receipt.clone()))
    };
    if receipt.schema_version != 1 || receipt.snapshot_version != 1 || receipt.attempt == 0 {
        return found(
            CheckState::Unavailable,
            Code::receipt_version_or_attempt_invalid,
            &format!(
                "schema_version {}, snapshot_version {}, attempt {} (need 1, 1, >= 1)",
                receipt.schema_version, receipt.snapshot_version, receipt.attempt
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
    if let Some(problem) = binding_problem(&receipt) {
        return found(
            CheckState::Stale,
            Code::receipt_binding_mismatch,
            &problem,
            &receipt,
        );
    }
    // The platform is part of the binding, as the gate compares it: a check
    // observed on another operating system says nothing about this one.
    if receipt.platform != HOST_PLATFORM {
        return found(
            CheckState::Stale,
            Code::receipt_binding_mismatch,
            &format!(
                "the check ran on `{}`, this host is `{HOST_PLATFORM}`",
                receipt.platform
            ),
            &receipt,
        );
    }
    let by_status = status_state(receipt.status);
    if let Some((state, code)) = by_status {
        let detail = match &receipt.reason {
            Some(reason) => format!(
                "status `{}` (reason `{reason}`)",
                status_name(receipt.status)
            ),
            None => format!("status `{}`", status_name(receipt.status)),
        };
        return found(state, code, &detail, &receipt);
    }
    if !outcome_is_valid(&receipt) {
        return found(
            CheckState::Unavailable,
            Code::receipt_outcome_invalid,
            "status is passed but exit code, signal, reason, snapshots, executable or streams do not support it",
            &receipt,
        );
    }
    Inspection {
        state: CheckState::Current,
        reason: None,
        diagnostics: vec![Diagnostic::new(
            Code::receipt_intrinsically_current,
            format!(
                "receipt for check `{}` is intrinsically current; the gate still compares its binding, snapshot and executable with the task",
                receipt.check_id
            ),
        )],
        receipt: Some(receipt),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::{Value, json};

    pub(crate) fn valid_receipt() -> Value {
        let run = RunDeclaration {
            id: "unit".into(),
            argv: vec!["python".into(), "-m".into(), "pytest".into()],
            cwd: ".".into(),
            timeout_secs: 300,
        };
        let command = display_command(&run.argv);
        let digest = "a".repeat(64);
        json!({
            "schema_version": 1,
            "run_id": "0123456789abcdef0123456789abcdef",
            "check_id": "unit",
            "attempt": 1,
            "status": "passed",
            "reason": null,
            "binding": {
                "repository_identity": "repo",
                "spec_path": ".mastermind/tasks/001-demo/spec.md",
                "spec_sha256": digest,
                "baseline_oid": "b".repeat(40),
                "iteration": 1,
                "preflight_started_at": 1700000000u64
            },
            "declaration_sha256": declaration_sha256(&command, &run),
            "command": command,
            "declaration": run,
            "executable": {"invocation_path": "/usr/bin/python", "resolved_path": "/usr/bin/python3.11", "sha256": digest},
            "snapshot_version": 1,
            "snapshot_before": digest,
            "snapshot_after": digest,
            "started_at": 1700000001u64,
            "duration_ms": 1200,
            "exit_code": 0,
            "signal": null,
            "stdout": {"bytes": 10, "sha256": digest},
            "stderr": {"bytes": 0, "sha256": digest},
            "runner_version": "0.40.0",
            "platform": HOST_PLATFORM,
            "provenance": "local_runner_unsigned"
        })
    }

    fn inspect(value: &Value) -> Inspection {
        inspect_intrinsic(&serde_json::to_vec(value).unwrap())
    }

    fn with(path: &[&str], new: Value) -> Value {
        let mut v = valid_receipt();
        let mut slot = &mut v;
        for key in &path[..path.len() - 1] {
            slot = &mut slot[*key];
        }
        slot[path[path.len() - 1]] = new;
        v
    }

    #[test]
    fn a_sound_receipt_is_intrinsically_current() {
        let i = inspect(&valid_receipt());
        assert_eq!(i.state, CheckState::Current);
        assert_eq!(i.reason, None);
        // Missing nullable fields decode as null, like the reference.
        let mut v = valid_receipt();
        v.as_object_mut().unwrap().remove("signal");
        v.as_object_mut().unwrap().remove("reason");
        assert_eq!(inspect(&v).state, CheckState::Current);
    }

    #[test]
    fn a_receipt_from_another_platform_is_stale_as_in_the_gate() {
        let other = if HOST_PLATFORM == "linux" {
            "macos"
        } else {
            "linux"
        };
        let i = inspect(&with(&["platform"], json!(other)));
        assert_eq!(i.state, CheckState::Stale);
        assert_eq!(i.reason, Some(Code::receipt_binding_mismatch));
        assert!(
            i.diagnostics[0]
                .message
                .contains(&format!("ran on `{other}`")),
            "{:?}",
            i.diagnostics
        );
    }

    #[test]
    fn state_table_rows() {
        let cases: Vec<(Value, CheckState, Code)> = vec![
            (
                json!("nope"),
                CheckState::Unavailable,
                Code::receipt_invalid,
            ),
            (
                with(&["surprise"], json!(1)),
                CheckState::Unavailable,
                Code::receipt_invalid,
            ),
            (
                with(&["status"], json!("done")),
                CheckState::Unavailable,
                Code::receipt_invalid,
            ),
            (
                with(&["attempt"], json!(1.0)),
                CheckState::Unavailable,
                Code::receipt_invalid,
            ),
            (
                with(&["schema_version"], json!(2)),
                CheckState::Unavailable,
                Code::receipt_version_or_attempt_invalid,
            ),
            (
                with(&["snapshot_version"], json!(2)),
                CheckState::Unavailable,
                Code::receipt_version_or_attempt_invalid,
            ),
            (
                with(&["attempt"], json!(0)),
                CheckState::Unavailable,
                Code::receipt_version_or_attempt_invalid,
            ),
            (
                with(&["provenance"], json!("signed")),
                CheckState::Unavailable,
                Code::receipt_source_unknown,
            ),
            (
                with(&["run_id"], json!("xyz")),
                CheckState::Unavailable,
                Code::receipt_run_id_invalid,
            ),
            (
                with(&["declaration_sha256"], json!("c".repeat(64))),
                CheckState::Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["check_id"], json!("other")),
                CheckState::Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["command"], json!("python  -m pytest")),
                CheckState::Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["binding", "iteration"], json!(0)),
                CheckState::Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["binding", "spec_path"], json!("../../etc/passwd")),
                CheckState::Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["binding", "spec_path"], json!("/etc/passwd")),
                CheckState::Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(
                    &["binding", "spec_path"],
                    json!("./.mastermind/tasks/001-demo/spec.md"),
                ),
                CheckState::Stale,
                Code::receipt_binding_mismatch,
            ),
            (
                with(&["status"], json!("pending")),
                CheckState::Pending,
                Code::receipt_pending,
            ),
            (
                with(&["status"], json!("input_changed")),
                CheckState::Stale,
                Code::receipt_inputs_changed,
            ),
            (
                with(&["status"], json!("failed")),
                CheckState::Failed,
                Code::receipt_failed,
            ),
            (
                with(&["status"], json!("timeout")),
                CheckState::Failed,
                Code::receipt_timeout,
            ),
            (
                with(&["status"], json!("interrupted")),
                CheckState::Failed,
                Code::receipt_interrupted,
            ),
            (
                with(&["status"], json!("output_limit")),
                CheckState::Failed,
                Code::receipt_output_limit,
            ),
            (
                with(&["status"], json!("spawn_failed")),
                CheckState::Failed,
                Code::receipt_spawn_failed,
            ),
            (
                with(&["status"], json!("io_failed")),
                CheckState::Failed,
                Code::receipt_io_failed,
            ),
            (
                with(&["exit_code"], json!(1)),
                CheckState::Unavailable,
                Code::receipt_outcome_invalid,
            ),
            (
                with(&["signal"], json!(9)),
                CheckState::Unavailable,
                Code::receipt_outcome_invalid,
            ),
            (
                with(&["reason"], json!("x")),
                CheckState::Unavailable,
                Code::receipt_outcome_invalid,
            ),
            (
                with(&["snapshot_after"], json!("d".repeat(64))),
                CheckState::Unavailable,
                Code::receipt_outcome_invalid,
            ),
            (
                with(&["executable"], json!(null)),
                CheckState::Unavailable,
                Code::receipt_outcome_invalid,
            ),
            (
                with(&["stdout", "bytes"], json!(1_048_577)),
                CheckState::Unavailable,
                Code::receipt_outcome_invalid,
            ),
            (
                with(&["stderr", "sha256"], json!("short")),
                CheckState::Unavailable,
                Code::receipt_outcome_invalid,
            ),
        ];
        for (value, state, code) in cases {
            let i = inspect(&value);
            assert_eq!((i.state, i.reason), (state, Some(code)), "{value}");
            assert_eq!(i.diagnostics[0].code, code);
        }
    }

    #[test]
    fn size_cap_and_repeated_keys() {
        let mut big = serde_json::to_vec(&valid_receipt()).unwrap();
        big.truncate(big.len() - 1);
        big.extend(std::iter::repeat_n(b' ', MAX_RECEIPT_BYTES));
        big.push(b'}');
        assert_eq!(
            inspect_intrinsic(&big).reason,
            Some(Code::receipt_too_large)
        );
        let text = serde_json::to_string(&valid_receipt()).unwrap();
        let repeated = text.replacen("{", "{\"platform\":\"linux\",", 1);
        assert_eq!(
            inspect_intrinsic(repeated.as_bytes()).reason,
            Some(Code::receipt_invalid)
        );
    }
}
