//! The re-run as an in-toto statement (`check --ci --rerun --attestation
//! FILE`), and its verification (`attestation verify FILE --commit REV`).
//!
//! The statement is an in-toto Statement v1 (`_type`
//! `https://in-toto.io/Statement/v1`) whose subjects are the change's head
//! commit (`{"gitCommit": ...}`) and the tree that lands (`{"gitTree":
//! ...}`), digests of the in-toto digest-set registry, and whose predicate
//! ([`PREDICATE_TYPE`]) lists, per task, each re-executed check (id, argv,
//! cwd, result, exit code, signal, duration, the sha256 and size of each
//! output stream, the executable the re-run resolved), the place and setup
//! commands, the gate's verdict and its version. A platform signs it (GitHub's
//! `actions/attest` with this predicate, a GitLab job with cosign); the
//! statement itself proves nothing until signed by a job the change could
//! not steer (docs/src/threat-model.md).
//!
//! Verifying reads a bare statement, a DSSE envelope around one, or a
//! Sigstore bundle carrying such an envelope (signatures are the platform
//! tool's to check: `gh attestation verify`, `cosign verify-blob-attestation`),
//! and says whether it attests that a commit passed: the commit is the head
//! subject, or its tree is the landing subject (the commit a pull request's
//! merge created); the predicate has this project's shape; the verdict is
//! `pass` and every check passed.

use super::rerun::{CheckRun, Record, RerunResult};
use crate::codes::Code;
use crate::contract::mastermind::receipt::{StreamDigest, status_name};
use crate::diagnostic::{Diagnostic, ExitStatus};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The statement type this project writes.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// The predicate type of a re-run.
pub const PREDICATE_TYPE: &str = "https://mastermind-hooks.dev/attestation/rerun/v1";
/// The DSSE payload type of an in-toto statement.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";
/// The largest statement (or envelope, or bundle) read.
pub const MAX_STATEMENT_BYTES: usize = 16 * 1024 * 1024;

/// A statement's subject (an in-toto ResourceDescriptor with a digest).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub digest: BTreeMap<String, String>,
}

/// An in-toto Statement v1 (unknown fields are ignored, as its parsing
/// rules ask).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    #[serde(rename = "_type")]
    pub statement_type: String,
    pub subject: Vec<Subject>,
    #[serde(rename = "predicateType")]
    pub predicate_type: String,
    #[serde(default)]
    pub predicate: serde_json::Value,
}

/// The gate that wrote the statement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gate {
    pub name: String,
    pub version: String,
}

/// What landed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LandingRecord {
    /// The change's head commit.
    pub head: String,
    /// The tree that lands.
    pub tree: String,
    /// `the merge of <head> into <base>`.
    pub label: String,
    /// The repository's object format when it is not SHA-1 (`sha256`), as
    /// in a tree receipt: absent means SHA-1, so statements about SHA-1
    /// repositories keep the shape earlier releases write and verify.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_format: Option<String>,
}

/// The object format whose ids are `hex_len` hex digits long.
fn format_of_width(hex_len: usize) -> Option<&'static str> {
    match hex_len {
        40 => Some("sha1"),
        64 => Some("sha256"),
        _ => None,
    }
}

/// A setup command the re-run ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupRecord {
    pub argv: Vec<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub duration_ms: u64,
}

/// The executable a check ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutableRecord {
    /// Relative to the place's root when inside it, else absolute.
    pub path: String,
    pub sha256: String,
}

/// One re-executed check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRecord {
    pub id: String,
    pub command: String,
    pub argv: Vec<String>,
    pub cwd: String,
    /// `passed`, `failed` or `unavailable`.
    pub result: String,
    /// The runner's status for a failure (`failed`, `timeout`, ...).
    pub status: Option<String>,
    pub reason: Option<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub duration_ms: u64,
    pub stdout: Option<StreamDigest>,
    pub stderr: Option<StreamDigest>,
    pub executable: Option<ExecutableRecord>,
}

/// The spec a task's checks were declared by.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecRecord {
    pub path: String,
    pub sha256: String,
}

/// One task's re-run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskRecord {
    pub task: String,
    pub spec: SpecRecord,
    pub checks: Vec<CheckRecord>,
}

/// The predicate of [`PREDICATE_TYPE`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Predicate {
    /// `pass`, `fail` or `cannot_check`: the gate's verdict on the whole
    /// run (its exit status 0, 1, 2).
    pub verdict: String,
    pub gate: Gate,
    pub landing: LandingRecord,
    /// `workspace`, `worktree`, or null when no place could be prepared.
    pub place: Option<String>,
    pub setup: Vec<SetupRecord>,
    pub tasks: Vec<TaskRecord>,
    pub started_at: String,
    pub finished_at: String,
}

/// The word of a verdict.
pub fn verdict_word(verdict: ExitStatus) -> &'static str {
    match verdict {
        ExitStatus::Pass => "pass",
        ExitStatus::Violations => "fail",
        ExitStatus::CannotCheck => "cannot_check",
    }
}

fn check_record(check: &CheckRun) -> CheckRecord {
    let (status, reason) = match &check.result {
        RerunResult::Passed => (None, None),
        RerunResult::Failed { status, reason } => {
            (Some(status_name(*status).to_string()), reason.clone())
        }
        RerunResult::Unavailable { reason } => (None, Some(reason.clone())),
    };
    CheckRecord {
        id: check.id.clone(),
        command: check.command.clone(),
        argv: check.declaration.argv.clone(),
        cwd: check.declaration.cwd.clone(),
        result: check.result.word().to_string(),
        status,
        reason,
        exit_code: check.exit_code,
        signal: check.signal,
        duration_ms: check.duration_ms,
        stdout: check.stdout.clone(),
        stderr: check.stderr.clone(),
        executable: check.executable.as_ref().map(|e| ExecutableRecord {
            path: e.path.clone(),
            sha256: e.sha256.clone(),
        }),
    }
}

/// The statement about `record` with the run's `verdict`.
pub fn statement(record: &Record, verdict: ExitStatus) -> Statement {
    let head = record.landing.head.to_string();
    let tree = record.landing.tree.to_string();
    let predicate = Predicate {
        verdict: verdict_word(verdict).to_string(),
        gate: Gate {
            name: env!("CARGO_PKG_NAME").to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        },
        landing: LandingRecord {
            head: head.clone(),
            tree: tree.clone(),
            label: record.landing.label.clone(),
            object_format: (record.landing.head.kind() != gix::hash::Kind::Sha1)
                .then(|| record.landing.head.kind().to_string()),
        },
        place: record.place.map(|k| k.as_str().to_string()),
        setup: record
            .setup
            .iter()
            .map(|s| SetupRecord {
                argv: s.argv.clone(),
                exit_code: s.exit_code,
                signal: s.signal,
                duration_ms: s.duration_ms,
            })
            .collect(),
        tasks: record
            .tasks
            .iter()
            .map(|t| TaskRecord {
                task: t.dir.clone(),
                spec: SpecRecord {
                    path: t.spec_path.clone(),
                    sha256: t.spec_sha256.clone(),
                },
                checks: t.checks.iter().map(check_record).collect(),
            })
            .collect(),
        started_at: record.started_at.clone(),
        finished_at: record.finished_at.clone(),
    };
    Statement {
        statement_type: STATEMENT_TYPE.to_string(),
        subject: vec![
            Subject {
                name: "head".to_string(),
                digest: BTreeMap::from([("gitCommit".to_string(), head)]),
            },
            Subject {
                name: "landing".to_string(),
                digest: BTreeMap::from([("gitTree".to_string(), tree)]),
            },
        ],
        predicate_type: PREDICATE_TYPE.to_string(),
        predicate: serde_json::to_value(&predicate).unwrap_or_default(),
    }
}

/// Write the statement to `path` atomically (a temporary file beside it,
/// then a rename, which replaces a link rather than following it).
pub fn write(path: &Path, record: &Record, verdict: ExitStatus) -> Result<(), Diagnostic> {
    let failed = |why: String| {
        Diagnostic::new(
            Code::attestation_unwritable,
            format!(
                "cannot write the attestation {}: {why}",
                super::echo::escape(path.as_os_str().as_encoded_bytes())
            ),
        )
    };
    let mut bytes = serde_json::to_vec_pretty(&statement(record, verdict))
        .map_err(|e| failed(e.to_string()))?;
    bytes.push(b'\n');
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".attestation-")
        .tempfile_in(&dir)
        .map_err(|e| failed(format!("cannot create a file in {}: {e}", dir.display())))?;
    file.write_all(&bytes)
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| failed(e.to_string()))?;
    file.persist(path)
        .map_err(|e| failed(e.error.to_string()))?;
    Ok(())
}

/// Decode standard base64 (padding optional, no whitespace inside).
fn base64(text: &str) -> Option<Vec<u8>> {
    let text = text.trim().trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0u32;
    for c in text.bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// What a verification found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verified {
    /// The statement attests that the commit passed; what it says.
    Pass(String),
    /// It does not (`attestation_mismatch`).
    Mismatch(Diagnostic),
    /// It cannot be read (`attestation_unusable`).
    Unusable(Diagnostic),
}

fn mismatch(message: String) -> Verified {
    Verified::Mismatch(Diagnostic::new(Code::attestation_mismatch, message))
}

fn unusable(message: String) -> Verified {
    Verified::Unusable(Diagnostic::new(Code::attestation_unusable, message))
}

/// The statement inside `bytes`: a bare statement, a DSSE envelope, or a
/// Sigstore bundle's `dsseEnvelope`; else the verdict that it is unusable.
fn unwrap_statement(bytes: &[u8]) -> Result<serde_json::Value, Verified> {
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| unusable(format!("the file is not JSON: {e}")))?;
    let envelope = value
        .get("dsseEnvelope")
        .filter(|e| e.is_object())
        .unwrap_or(&value);
    match (envelope.get("payloadType"), envelope.get("payload")) {
        (Some(kind), Some(payload)) => {
            if kind.as_str() != Some(PAYLOAD_TYPE) {
                return Err(unusable(format!(
                    "the file is a DSSE envelope whose payloadType is {kind}, not `{PAYLOAD_TYPE}`"
                )));
            }
            let decoded = payload.as_str().and_then(base64).ok_or_else(|| {
                unusable("the file is a DSSE envelope whose payload is not base64".to_string())
            })?;
            serde_json::from_slice(&decoded).map_err(|e| {
                unusable(format!(
                    "the file is a DSSE envelope whose payload is not JSON: {e}"
                ))
            })
        }
        _ => Ok(value),
    }
}

/// Whether `bytes` attest that `commit` (whose tree is `commit_tree`)
/// passed the re-run.
pub fn verify(bytes: &[u8], commit: &str, commit_tree: Option<&str>) -> Verified {
    let value = match unwrap_statement(bytes) {
        Ok(v) => v,
        Err(unusable) => return unusable,
    };
    if value.get("_type").and_then(serde_json::Value::as_str) != Some(STATEMENT_TYPE) {
        return unusable(format!(
            "the file is not an in-toto Statement v1 (`_type` must be `{STATEMENT_TYPE}`)"
        ));
    }
    let statement: Statement = match serde_json::from_value(value) {
        Ok(s) => s,
        Err(e) => return unusable(format!("the statement is malformed: {e}")),
    };
    if statement.predicate_type != PREDICATE_TYPE {
        return mismatch(format!(
            "the statement's predicateType is `{}`, not a mastermind-hooks re-run (`{PREDICATE_TYPE}`)",
            super::echo::escape(statement.predicate_type.as_bytes())
        ));
    }
    let predicate: Predicate = match serde_json::from_value(statement.predicate.clone()) {
        Ok(p) => p,
        Err(e) => {
            return mismatch(format!(
                "the predicate does not have the re-run's shape: {e}"
            ));
        }
    };
    let digest = |algorithm: &str| -> Vec<String> {
        statement
            .subject
            .iter()
            .filter_map(|s| s.digest.get(algorithm))
            .map(|d| d.to_ascii_lowercase())
            .collect()
    };
    let (commits, trees) = (digest("gitCommit"), digest("gitTree"));
    if commits != [predicate.landing.head.to_ascii_lowercase()]
        || trees != [predicate.landing.tree.to_ascii_lowercase()]
    {
        return mismatch(
            "the subjects are not exactly one gitCommit and one gitTree naming the predicate's head and landing tree"
                .to_string(),
        );
    }
    // The ids are of the format the statement names, and so is the commit
    // asked about: a statement about a SHA-256 repository says nothing
    // about a SHA-1 one, even were an id to match.
    let format = predicate.landing.object_format.as_deref().unwrap_or("sha1");
    if [&predicate.landing.head, &predicate.landing.tree]
        .iter()
        .any(|id| format_of_width(id.len()) != Some(format))
    {
        return mismatch(format!(
            "the predicate's head {} and landing tree {} are not {format} object ids, as its object format says",
            super::echo::escape(predicate.landing.head.as_bytes()),
            super::echo::escape(predicate.landing.tree.as_bytes())
        ));
    }
    if format_of_width(commit.len()) != Some(format) {
        return mismatch(format!(
            "the statement is about a repository of {format} object ids, and commit {commit} is not one"
        ));
    }
    let commit = commit.to_ascii_lowercase();
    let by = if commits[0] == commit {
        format!("its head commit {commit}")
    } else if commit_tree.is_some_and(|t| t.eq_ignore_ascii_case(&trees[0])) {
        format!(
            "commit {commit}, whose tree {} is the landing it re-ran",
            trees[0]
        )
    } else {
        return mismatch(format!(
            "the statement is about head {} and landing tree {}, not commit {commit}{}",
            commits[0],
            trees[0],
            commit_tree
                .map(|t| format!(" (tree {t})"))
                .unwrap_or_default()
        ));
    };
    let checks: Vec<(&str, &CheckRecord)> = predicate
        .tasks
        .iter()
        .flat_map(|t| t.checks.iter().map(move |c| (t.task.as_str(), c)))
        .collect();
    let not_passed: Vec<String> = checks
        .iter()
        .filter(|(_, c)| c.result != "passed")
        .map(|(task, c)| format!("{task}: `{}` {}", c.id, c.result))
        .collect();
    if predicate.verdict != "pass" {
        return mismatch(format!(
            "the re-run's verdict for {by} is `{}`, not pass{}",
            super::echo::escape(predicate.verdict.as_bytes()),
            if not_passed.is_empty() {
                String::new()
            } else {
                format!(" ({})", not_passed.join(", "))
            }
        ));
    }
    if !not_passed.is_empty() {
        return mismatch(format!(
            "the verdict is pass but not every check passed: {}",
            not_passed.join(", ")
        ));
    }
    Verified::Pass(format!(
        "the statement attests that {by} passed `check --ci --rerun`: {} check{} of {} task{} passed again in the {} (mastermind-hooks {}, finished {})",
        checks.len(),
        if checks.len() == 1 { "" } else { "s" },
        predicate.tasks.len(),
        if predicate.tasks.len() == 1 { "" } else { "s" },
        predicate.place.as_deref().unwrap_or("(no place)"),
        predicate.gate.version,
        predicate.finished_at
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::place::Kind;
    use crate::runner::rerun::{Landing, TaskRun};

    fn record(result: RerunResult) -> Record {
        let declaration = crate::contract::mastermind::argv_display::RunDeclaration {
            id: "unit".into(),
            argv: vec!["npm".into(), "test".into()],
            cwd: ".".into(),
            timeout_secs: 60,
        };
        Record {
            landing: Landing {
                tree: gix::ObjectId::from_hex(&[b'b'; 40]).unwrap(),
                head: gix::ObjectId::from_hex(&[b'a'; 40]).unwrap(),
                label: "the merge".into(),
            },
            place: Some(Kind::Worktree),
            setup: Vec::new(),
            tasks: vec![TaskRun {
                dir: "t".into(),
                spec_path: "t/spec.md".into(),
                spec_sha256: "c".repeat(64),
                checks: vec![CheckRun {
                    id: "unit".into(),
                    command: "npm test".into(),
                    declaration,
                    result,
                    exit_code: Some(0),
                    signal: None,
                    duration_ms: 5,
                    stdout: None,
                    stderr: None,
                    executable: None,
                    tail: Vec::new(),
                }],
            }],
            started_at: "2024-01-01T00:00:00Z".into(),
            finished_at: "2024-01-01T00:00:01Z".into(),
        }
    }

    fn bytes(record: &Record, verdict: ExitStatus) -> Vec<u8> {
        serde_json::to_vec(&statement(record, verdict)).unwrap()
    }

    #[test]
    fn a_passing_statement_verifies_for_its_head_or_a_commit_of_its_tree() {
        let good = bytes(&record(RerunResult::Passed), ExitStatus::Pass);
        let head = "a".repeat(40);
        assert!(matches!(verify(&good, &head, None), Verified::Pass(_)));
        assert!(matches!(
            verify(&good, &"d".repeat(40), Some(&"b".repeat(40))),
            Verified::Pass(_)
        ));
        assert!(matches!(
            verify(&good, &"d".repeat(40), Some(&"e".repeat(40))),
            Verified::Mismatch(_)
        ));
    }

    #[test]
    fn verdicts_shapes_and_wrappers() {
        let head = "a".repeat(40);
        let failed = bytes(&record(RerunResult::Passed), ExitStatus::Violations);
        assert!(matches!(
            verify(&failed, &head, None),
            Verified::Mismatch(_)
        ));
        let inconsistent = bytes(
            &record(RerunResult::Unavailable { reason: "x".into() }),
            ExitStatus::Pass,
        );
        assert!(matches!(
            verify(&inconsistent, &head, None),
            Verified::Mismatch(_)
        ));
        let mut shape: serde_json::Value =
            serde_json::from_slice(&bytes(&record(RerunResult::Passed), ExitStatus::Pass)).unwrap();
        shape["predicate"]["extra"] = serde_json::json!(1);
        assert!(matches!(
            verify(&serde_json::to_vec(&shape).unwrap(), &head, None),
            Verified::Mismatch(_)
        ));
        assert!(matches!(
            verify(b"not json", &head, None),
            Verified::Unusable(_)
        ));
        assert!(matches!(
            verify(
                br#"{"_type": "https://in-toto.io/Statement/v0.1"}"#,
                &head,
                None
            ),
            Verified::Unusable(_)
        ));
        // A DSSE envelope and a Sigstore bundle around the statement.
        let good = bytes(&record(RerunResult::Passed), ExitStatus::Pass);
        let encoded = encode(&good);
        let envelope =
            serde_json::json!({"payloadType": PAYLOAD_TYPE, "payload": encoded, "signatures": []});
        assert!(matches!(
            verify(&serde_json::to_vec(&envelope).unwrap(), &head, None),
            Verified::Pass(_)
        ));
        let bundle = serde_json::json!({"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json", "dsseEnvelope": envelope});
        assert!(matches!(
            verify(&serde_json::to_vec(&bundle).unwrap(), &head, None),
            Verified::Pass(_)
        ));
    }

    #[test]
    fn a_statement_names_its_object_format_and_verifies_only_in_it() {
        let sha1 = bytes(&record(RerunResult::Passed), ExitStatus::Pass);
        let value: serde_json::Value = serde_json::from_slice(&sha1).unwrap();
        assert!(
            value["predicate"]["landing"].get("object_format").is_none(),
            "a SHA-1 statement keeps its earlier shape"
        );
        let mut sha256 = record(RerunResult::Passed);
        sha256.landing.head = gix::ObjectId::from_hex(&[b'a'; 64]).unwrap();
        sha256.landing.tree = gix::ObjectId::from_hex(&[b'b'; 64]).unwrap();
        let sha256 = bytes(&sha256, ExitStatus::Pass);
        let value: serde_json::Value = serde_json::from_slice(&sha256).unwrap();
        assert_eq!(value["predicate"]["landing"]["object_format"], "sha256");
        assert!(matches!(
            verify(&sha256, &"a".repeat(64), None),
            Verified::Pass(_)
        ));
        assert!(matches!(
            verify(&sha256, &"d".repeat(64), Some(&"b".repeat(64))),
            Verified::Pass(_)
        ));
        let Verified::Mismatch(other) = verify(&sha256, &"a".repeat(40), None) else {
            panic!("a SHA-1 commit is not what a SHA-256 statement is about");
        };
        assert!(other.message.contains("sha256 object ids"), "{other:?}");
        assert!(matches!(
            verify(&sha1, &"a".repeat(64), None),
            Verified::Mismatch(_)
        ));
        // A statement whose ids are not of the format it names.
        let mut lying = value.clone();
        lying["predicate"]["landing"]["object_format"] = serde_json::json!("sha1");
        assert!(matches!(
            verify(&serde_json::to_vec(&lying).unwrap(), &"a".repeat(64), None),
            Verified::Mismatch(_)
        ));
    }

    fn encode(bytes: &[u8]) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..=chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            }
        }
        while !out.len().is_multiple_of(4) {
            out.push('=');
        }
        out
    }

    #[test]
    fn base64_decodes_what_it_is_given() {
        assert_eq!(base64("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64("aGVsbG8").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64(&encode(b"\x00\xff\x10")).unwrap(), b"\x00\xff\x10");
        assert_eq!(base64("a b"), None);
    }
}
