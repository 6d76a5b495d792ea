//! The Mastermind snapshot v1 digest of a fixture repository, checked
//! against bytes assembled by hand from the algorithm in contracts
//! `mastermind.md` section 4.3 (not by calling the implementation).

use crate::common::*;
use mastermind_hooks::digest::snapshot_v1;
use mastermind_hooks::repo::Repo;
use sha2::{Digest, Sha256};
use std::os::unix::fs::MetadataExt;

#[test]
fn snapshot_v1_matches_a_hand_assembled_digest() {
    let repo = TestRepo::new();
    repo.write(".gitignore", "ignored.txt\n");
    repo.write("a.txt", "alpha\n");
    repo.write("old.txt", "old\n");
    repo.write("run.sh", "#!/bin/sh\n");
    make_executable(&repo.path().join("run.sh"));
    repo.write(".mastermind/tasks/001-x/spec.md", "# spec\n");
    let baseline = repo.commit_all("base");
    repo.write("b.txt", "beta\n");
    repo.commit_all("after the baseline");
    // Working-tree state: an unstaged edit, a staged deletion, an untracked
    // file, an ignored file and bookkeeping under .mastermind/.
    repo.write("a.txt", "alpha, edited\n");
    repo.git(&["rm", "-q", "old.txt"]);
    repo.write("new.txt", "new\n");
    repo.write("ignored.txt", "ignored\n");
    repo.write(".mastermind/tasks/001-x/state.json", "{}\n");

    let head = format!("{}\n", repo.head());
    let oid = |path: &str| {
        repo.git(&["rev-parse", &format!(":{path}")])
            .trim()
            .to_string()
    };
    let mut bytes: Vec<u8> = Vec::new();
    bytes.extend_from_slice(b"mastermind-verification-worktree-v1\0");
    bytes.extend_from_slice(baseline.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(head.as_bytes());
    for (mode, path) in [
        ("100644", ".gitignore"),
        ("100644", "a.txt"),
        ("100644", "b.txt"),
        ("100755", "run.sh"),
    ] {
        bytes.extend_from_slice(format!("{mode} {} 0\t{path}", oid(path)).as_bytes());
        bytes.push(0);
    }
    for path in [
        ".gitignore",
        "a.txt",
        "b.txt",
        "new.txt",
        "old.txt",
        "run.sh",
    ] {
        bytes.extend_from_slice(path.as_bytes());
        bytes.push(0);
        let full = repo.path().join(path);
        match std::fs::symlink_metadata(&full) {
            Ok(meta) => {
                let content = std::fs::read(&full).unwrap();
                bytes.extend_from_slice(b"file\0");
                bytes.extend_from_slice(&(content.len() as u64).to_le_bytes());
                bytes.extend_from_slice(&u64::from(meta.mode()).to_le_bytes());
                bytes.extend_from_slice(&content);
            }
            Err(_) => bytes.extend_from_slice(b"missing\0"),
        }
        bytes.push(0);
    }
    let expected = hex::encode(Sha256::digest(&bytes));

    let opened = Repo::discover(repo.path()).unwrap();
    assert_eq!(snapshot_v1::compute(&opened, &baseline).unwrap(), expected);

    // The snapshot moves with a mode change, and refuses a symlink.
    make_executable(&repo.path().join("a.txt"));
    assert_ne!(snapshot_v1::compute(&opened, &baseline).unwrap(), expected);
    std::os::unix::fs::symlink("a.txt", repo.path().join("link")).unwrap();
    let error = snapshot_v1::compute(&opened, &baseline).unwrap_err();
    assert_eq!(error.code.as_str(), "snapshot_unavailable");
    // An abbreviated baseline is not the full commit id git answers.
    std::fs::remove_file(repo.path().join("link")).unwrap();
    assert!(snapshot_v1::compute(&opened, &baseline[..12]).is_err());
}

/// A v1 receipt as the reference runner would write it, for the fixture's
/// task, bound to its state.json and the current snapshot.
#[test]
fn v1_receipts_get_the_reference_table_in_the_working_tree() {
    use mastermind_hooks::runner::executable;
    use serde_json::json;
    let repo = TestRepo::new();
    repo.write("src/lib.py", "x = 1\n");
    let baseline = repo.commit_all("base");
    let task = ".mastermind/tasks/001-x";
    let spec = "---\ntouches:\n  - file: src/lib.py\nverify:\n  - cmd: 'true'\n    run:\n      id: unit\n      argv: [\"true\"]\n      cwd: .\n      timeout_secs: 5\n---\n# t\n".to_string();
    repo.write(&format!("{task}/spec.md"), &spec);
    repo.write(
        &format!("{task}/executor-report.md"),
        &format!("<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: {task}/spec.md\nstatus: complete\nphases: []\nfiles_modified: [src/lib.py]\nclaims: []\ndefects: []\nverifications:\n  - cmd: 'true'\n    result: pass\n```\n<!-- mastermind:report-end -->\n"),
    );
    repo.write(
        &format!("{task}/state.json"),
        &serde_json::to_string_pretty(&json!({"status": "approved", "next_step": "run_executor",
            "spec_path": format!("{task}/spec.md"), "baseline_ref": baseline, "started_at": 1700000000u64,
            "iteration": 1, "repository_identity": "repo-1"})).unwrap(),
    );
    repo.write(&format!("{task}/verification/run.lock"), "");
    repo.write("src/lib.py", "x = 2\n");
    let opened = Repo::discover(repo.path()).unwrap();
    let snapshot = snapshot_v1::compute(&opened, &baseline).unwrap();
    let path_env = std::env::var_os("PATH");
    let exe = executable::resolve("true", repo.path(), path_env.as_deref()).unwrap();
    let declaration = r#"["true",{"id":"unit","argv":["true"],"cwd":".","timeout_secs":5}]"#;
    let digest = "0".repeat(64);
    let receipt = json!({
        "schema_version": 1, "run_id": "0123456789abcdef0123456789abcdef", "check_id": "unit",
        "attempt": 1, "status": "passed", "reason": null,
        "binding": {"repository_identity": "repo-1", "spec_path": format!("{task}/spec.md"),
            "spec_sha256": hex::encode(Sha256::digest(spec.as_bytes())), "baseline_oid": baseline,
            "iteration": 1, "preflight_started_at": 1700000000u64},
        "declaration_sha256": hex::encode(Sha256::digest(declaration.as_bytes())),
        "command": "true", "declaration": {"id": "unit", "argv": ["true"], "cwd": ".", "timeout_secs": 5},
        "executable": {"invocation_path": exe.invocation_path, "resolved_path": exe.resolved_path, "sha256": exe.sha256},
        "snapshot_version": 1, "snapshot_before": snapshot, "snapshot_after": snapshot,
        "started_at": 1700000001u64, "duration_ms": 3, "exit_code": 0, "signal": null,
        "stdout": {"bytes": 0, "sha256": digest}, "stderr": {"bytes": 0, "sha256": digest},
        "runner_version": "0.40.0", "platform": std::env::consts::OS, "provenance": "local_runner_unsigned"
    });
    repo.write(
        &format!("{task}/verification/unit.json"),
        &serde_json::to_string_pretty(&receipt).unwrap(),
    );
    let check = || {
        let out = repo.run(&["check", "--worktree", "--format", "json"], None);
        let report = json(&out);
        (
            status(&out),
            codes(&report)
                .into_iter()
                .filter(|c| c.starts_with("receipt"))
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        check(),
        (0, vec![]),
        "a bound, current v1 receipt passes --worktree"
    );
    // The snapshot covers HEAD and the index too: staging makes it stale.
    repo.git(&["add", "src/lib.py"]);
    assert_eq!(check().1, ["receipt_snapshot_changed"]);
    repo.git(&["reset", "-q"]);
    assert_eq!(check().0, 0);
    // A new pre-flight (iteration) is a binding mismatch.
    let state_path = format!("{task}/state.json");
    let state = std::fs::read_to_string(repo.path().join(&state_path)).unwrap();
    repo.write(
        &state_path,
        &state.replace("\"iteration\": 1", "\"iteration\": 2"),
    );
    assert_eq!(check().1, ["receipt_binding_mismatch"]);
    repo.write(&state_path, &state);
    // Without run.lock the reference accepts no receipt.
    std::fs::remove_file(repo.path().join(format!("{task}/verification/run.lock"))).unwrap();
    assert_eq!(check().1, ["receipt_lock_missing"]);
}
