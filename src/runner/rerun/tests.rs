//! Unit tests of the re-run: planning, judging and the diagnostics.

use super::*;
use crate::codes::Code;
use crate::contract::mastermind::receipt::{Executable, PROVENANCE};
use crate::contract::mastermind::tree_receipt::SpecBinding;
use crate::diagnostic::Severity;

fn passing_receipt(tree: &str) -> TreeReceipt {
    let hex = "a".repeat(64);
    let stream = || {
        Some(StreamDigest {
            bytes: 0,
            sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".into(),
        })
    };
    TreeReceipt {
        schema_version: 1,
        run_id: "0".repeat(32),
        check_id: "unit".into(),
        attempt: 1,
        status: Status::Passed,
        reason: None,
        spec: SpecBinding {
            path: "t/spec.md".into(),
            sha256: hex.clone(),
        },
        declaration_sha256: hex.clone(),
        command: "true".into(),
        declaration: unit_declaration(),
        executable: Some(Executable {
            invocation_path: "/bin/true".into(),
            resolved_path: "/bin/true".into(),
            sha256: hex.clone(),
        }),
        tree_digest_version: 2,
        object_format: None,
        tree_before: Some(tree.to_string()),
        tree_after: Some(tree.to_string()),
        territory: None,
        started_at: 1,
        duration_ms: 1,
        exit_code: Some(0),
        signal: None,
        stdout: stream(),
        stderr: stream(),
        runner_version: "0.1.0".into(),
        platform: "linux".into(),
        provenance: PROVENANCE.into(),
    }
}

/// The declared check `unit`: `true`, in the task's directory.
fn unit_declaration() -> RunDeclaration {
    RunDeclaration {
        id: "unit".into(),
        argv: vec!["true".into()],
        cwd: ".".into(),
        timeout_secs: 5,
    }
}

fn task(result: RerunResult, exit_code: Option<i32>) -> TaskRun {
    TaskRun {
        dir: "t".into(),
        spec_path: "t/spec.md".into(),
        spec_sha256: "b".repeat(64),
        checks: vec![CheckRun {
            id: "unit".into(),
            command: "true".into(),
            declaration: unit_declaration(),
            result,
            exit_code,
            signal: None,
            duration_ms: 3,
            stdout: None,
            stderr: None,
            executable: None,
            tail: vec!["| FAIL src/x.test.ts".into()],
        }],
    }
}

#[test]
fn outcomes_receipts_and_digests_make_the_findings() {
    let landing = "c".repeat(64);
    let failed = RerunResult::Failed {
        status: Status::Failed,
        reason: None,
    };
    // (result, the receipt's tree (None: no receipt), expected code)
    let cases = [
        (
            RerunResult::Passed,
            Some(landing.as_str()),
            Code::rerun_passed,
        ),
        (RerunResult::Passed, None, Code::rerun_passed),
        (
            failed.clone(),
            Some(landing.as_str()),
            Code::rerun_contradicts_receipt,
        ),
        (
            failed.clone(),
            Some("d".repeat(64).leak()),
            Code::rerun_failed,
        ),
        (failed, None, Code::rerun_failed),
        (
            unavailable("budget"),
            Some(landing.as_str()),
            Code::rerun_unavailable,
        ),
    ];
    for (result, tree, code) in cases {
        let found = diagnostics(
            &task(result.clone(), Some(1)),
            |_| tree.map(passing_receipt),
            |version| (version == 2).then(|| landing.clone()),
            "the merge",
            Some(Kind::Workspace),
            None,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, code, "{result:?} {tree:?}");
        assert_eq!(
            found[0].path.as_deref(),
            Some("t/verification/unit.tree.json")
        );
        assert_eq!(found[0].task.as_deref(), Some("t"));
        assert_eq!(
            found[0].severity == Severity::Note,
            code == Code::rerun_passed
        );
        if code == Code::rerun_failed || code == Code::rerun_contradicts_receipt {
            assert!(
                found[0].message.contains("FAIL src/x.test.ts"),
                "{}",
                found[0].message
            );
        }
    }
}

#[test]
fn only_a_failure_in_the_same_kind_of_place_blames_the_receipt() {
    let landing = "c".repeat(64);
    let failed = RerunResult::Failed {
        status: Status::Failed,
        reason: None,
    };
    let found = |place, why| {
        diagnostics(
            &task(failed.clone(), Some(1)),
            |_| Some(passing_receipt(&landing)),
            |version| (version == 2).then(|| landing.clone()),
            "the merge",
            Some(place),
            why,
        )
        .remove(0)
    };
    let workspace = found(Kind::Workspace, None);
    assert_eq!(workspace.code, Code::rerun_contradicts_receipt);
    assert!(
        workspace.message.contains("in the job's workspace"),
        "{}",
        workspace.message
    );
    let worktree = found(
        Kind::Worktree,
        Some("the working tree is not clean (1 untracked: x)"),
    );
    assert_eq!(worktree.code, Code::rerun_failed);
    for said in [
        "in a git worktree of it prepared by `rerun.setup`",
        "not the job's workspace: the working tree is not clean (1 untracked: x)",
        "records a pass on exactly this tree",
        "not taken as a false receipt",
        "FAIL src/x.test.ts",
    ] {
        assert!(
            worktree.message.contains(said),
            "{said}: {}",
            worktree.message
        );
    }
    assert!(
        worktree
            .hint
            .as_deref()
            .unwrap_or_default()
            .contains("rerun.setup"),
        "{:?}",
        worktree.hint
    );
}

fn supervised(exit_code: Option<i32>) -> supervise::Supervised {
    let stream = supervise::Stream {
        bytes: 0,
        sha256: String::new(),
        complete: true,
        tail: Vec::new(),
    };
    supervise::Supervised {
        exit_code,
        signal: None,
        timed_out: false,
        output_limit: false,
        interrupted: false,
        stdout: stream.clone(),
        stderr: stream,
        duration: Duration::from_millis(5),
    }
}

#[test]
fn a_missing_tool_is_unavailable_and_named_never_a_failure() {
    let run = RunDeclaration {
        id: "unit".into(),
        argv: vec!["npm".into(), "test".into()],
        cwd: ".".into(),
        timeout_secs: 5,
    };
    let none = super::super::snapshot::Changes::default();
    let tail = vec!["! sh: 1: vitest: not found".to_string()];
    match judge(&supervised(Some(127)), false, &run, &none, &tail) {
        RerunResult::Unavailable { reason } => {
            assert!(reason.starts_with("exit 127"), "{reason}");
            assert!(reason.contains("`sh: 1: vitest: not found`"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        judge(&supervised(Some(126)), false, &run, &none, &[]),
        RerunResult::Unavailable { .. }
    ));
    assert!(matches!(
        judge(&supervised(Some(1)), false, &run, &none, &tail),
        RerunResult::Failed { .. }
    ));
    assert_eq!(
        judge(&supervised(Some(0)), false, &run, &none, &[]),
        RerunResult::Passed
    );
}

#[test]
fn times_are_rfc3339_in_utc() {
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
    assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
}

#[test]
fn labels_name_the_task_folder_and_the_check() {
    assert_eq!(label(".mastermind/tasks/001-x", "unit"), "[001-x/unit]");
    assert_eq!(label("t", "lint"), "[t/lint]");
}
