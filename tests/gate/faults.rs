//! Faults and hostile inputs in real repositories: every one ends in a
//! non-zero exit with a diagnostic, never a pass, and leaves nothing behind.

use crate::common::*;

fn repo_with_task() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/lib.py", "x = 1\n");
    repo.commit_all("base");
    repo.write_task("001-t", &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "x = 2\n");
    repo.git(&["add", "-A"]);
    repo
}

fn staged(repo: &TestRepo) -> (i32, serde_json::Value) {
    let output = repo.run(&["check", "--staged", "--format", "json"], None);
    (status(&output), json(&output))
}

#[test]
fn a_corrupt_index_cannot_be_checked() {
    let repo = repo_with_task();
    let index = repo.path().join(".git/index");
    let mut bytes = std::fs::read(&index).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&index, &bytes).unwrap();
    let (code, report) = staged(&repo);
    assert_eq!(code, 2, "{report}");
    assert_eq!(codes(&report), ["git_index_unavailable"]);
    assert_eq!(
        std::fs::read(&index).unwrap(),
        bytes,
        "the index is left as it was"
    );
}

#[test]
fn a_missing_object_cannot_be_checked() {
    let repo = repo_with_task();
    // Remove the loose object of the staged report blob.
    let id = repo.git(&["rev-parse", ":.mastermind/tasks/001-t/executor-report.md"]);
    let id = id.trim();
    std::fs::remove_file(
        repo.path()
            .join(format!(".git/objects/{}/{}", &id[..2], &id[2..])),
    )
    .unwrap();
    let (code, report) = staged(&repo);
    assert_eq!(code, 2, "{report}");
    assert_eq!(codes(&report), ["git_object_unavailable"]);
}

#[test]
fn a_missing_head_tree_cannot_be_checked() {
    let repo = repo_with_task();
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
    let tree = tree.trim();
    std::fs::remove_file(
        repo.path()
            .join(format!(".git/objects/{}/{}", &tree[..2], &tree[2..])),
    )
    .unwrap();
    let (code, report) = staged(&repo);
    assert_eq!(code, 2, "{report}");
    assert_eq!(codes(&report), ["git_object_unavailable"]);
}

#[test]
fn a_non_utf8_path_is_a_finding() {
    let repo = repo_with_task();
    let name = std::ffi::OsStr::from_bytes(b"src/caf\xe9.py");
    std::fs::write(repo.path().join(name), "y = 1\n").unwrap();
    repo.git(&["add", "-A"]);
    let (code, report) = staged(&repo);
    assert_eq!(code, 1, "{report}");
    assert!(
        codes(&report).contains(&"path_not_utf8".to_string()),
        "{report}"
    );
}

use std::os::unix::ffi::OsStrExt;

#[test]
fn escaping_paths_in_specs_and_reports_are_findings() {
    let repo = repo_with_task();
    let spec = ".mastermind/tasks/001-t/spec.md";
    let text = std::fs::read_to_string(repo.path().join(spec)).unwrap();
    for bad in ["../outside.py", "/etc/passwd", "C:/x.py", "src/../lib.py"] {
        repo.write(
            spec,
            &text.replace(
                "  - file: src/lib.py\n",
                &format!("  - file: src/lib.py\n  - file: '{bad}'\n"),
            ),
        );
        repo.git(&["add", "-A"]);
        let (code, report) = staged(&repo);
        assert_eq!(code, 1, "{bad}: {report}");
        assert!(
            codes(&report).contains(&"target_path_invalid".to_string()),
            "{bad}: {report}"
        );
    }
    repo.write(spec, &text);
    // A report listing a path outside the repository claims a change that
    // did not happen.
    let path = ".mastermind/tasks/001-t/executor-report.md";
    let report_text = std::fs::read_to_string(repo.path().join(path)).unwrap();
    repo.write(
        path,
        &report_text.replace("  - src/lib.py\n", "  - src/lib.py\n  - /etc/passwd\n"),
    );
    repo.git(&["add", "-A"]);
    let (code, report) = staged(&repo);
    assert_eq!(code, 1, "{report}");
    assert!(
        codes(&report).contains(&"executor_report_unchanged_file".to_string()),
        "{report}"
    );
}

#[test]
fn a_symlink_in_the_tree_is_a_change_not_a_door() {
    let repo = repo_with_task();
    // A symlink pointing outside the repository, undeclared: an unexpected
    // change; its target is never read.
    std::os::unix::fs::symlink("/etc/passwd", repo.path().join("src/link.py")).unwrap();
    repo.git(&["add", "-A"]);
    let (code, report) = staged(&repo);
    assert_eq!(code, 1, "{report}");
    assert!(codes(&report).contains(&"unexpected_file".to_string()));
    // The spec itself as a symlink is refused.
    let spec = repo.path().join(".mastermind/tasks/001-t/spec.md");
    std::fs::remove_file(&spec).unwrap();
    std::os::unix::fs::symlink("../../../src/lib.py", &spec).unwrap();
    repo.git(&["add", "-A"]);
    let (code, report) = staged(&repo);
    assert_eq!(code, 1, "{report}");
    assert!(
        codes(&report).contains(&"artifact_not_regular_file".to_string()),
        "{report}"
    );
}

#[test]
fn a_panic_exits_2_never_0() {
    let repo = repo_with_task();
    let output = repo.run_env(
        &["check", "--staged"],
        &[("MASTERMIND_HOOKS_DEBUG_PANIC", "1")],
    );
    assert_eq!(status(&output), 2);
    assert!(text(&output).contains("internal_error"));
}

// ---- files the tool opens: FIFOs, links, signals (issue 18) -------------

const SPEC: &str = ".mastermind/tasks/001-t/spec.md";
const VERIFICATION: &str = ".mastermind/tasks/001-t/verification";

/// A task whose observed check `unit` runs `argv`.
fn task_with_check(argv: &[&str]) -> TestRepo {
    let repo = repo_with_task();
    let spec = repo.path().join(SPEC);
    let text = std::fs::read_to_string(&spec).unwrap();
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let cmd = mastermind_hooks::contract::mastermind::argv_display::display_command(&argv);
    let text = text.replace(
        "verify:\n  - cmd: make test\n",
        &format!(
            "verify:\n  - cmd: make test\n  - cmd: {}\n    run:\n      id: unit\n      argv: {}\n      cwd: .\n      timeout_secs: 60\n",
            serde_json::to_string(&cmd).unwrap(),
            serde_json::to_string(&argv).unwrap()
        ),
    );
    std::fs::write(&spec, text).unwrap();
    repo
}

fn mkfifo(path: &std::path::Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Run the binary; a hang fails the test instead of blocking the suite.
fn run_bounded(repo: &TestRepo, args: &[&str]) -> std::process::Output {
    let mut cmd = repo.command(BIN);
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{args:?} blocked");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_fifo_as_the_index_is_refused_without_blocking() {
    let repo = task_with_check(&["true"]);
    let index = repo.path().join(".git/index");
    std::fs::remove_file(&index).unwrap();
    mkfifo(&index);
    let out = run_bounded(&repo, &["check", "--staged"]);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(
        text(&out).contains("git_index_unavailable"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("not a regular file"), "{}", text(&out));
}

#[test]
fn a_fifo_as_run_lock_is_refused_without_blocking() {
    let repo = task_with_check(&["true"]);
    mkfifo(&repo.path().join(VERIFICATION).join("run.lock"));
    let out = run_bounded(&repo, &["verification", "run", SPEC, "--id", "unit"]);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(
        text(&out).contains("verification_path_unsafe"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("FIFO"), "{}", text(&out));
    assert!(text(&out).contains("rm --"), "{}", text(&out));
    assert_eq!(entries(&repo.path().join(VERIFICATION)), ["run.lock"]);
}

#[test]
fn a_symlinked_verification_directory_is_refused_and_nothing_is_created_outside() {
    let repo = task_with_check(&["true"]);
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.path().join(VERIFICATION)).unwrap();
    let out = run_bounded(&repo, &["verification", "run", SPEC, "--id", "unit"]);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(
        text(&out).contains("verification_path_unsafe"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("symbolic link"), "{}", text(&out));
    assert!(
        entries(outside.path()).is_empty(),
        "{:?}",
        entries(outside.path())
    );
    // A symlinked task directory on the way is refused the same way.
    std::fs::remove_file(repo.path().join(VERIFICATION)).unwrap();
    let tasks = repo.path().join(".mastermind/tasks");
    std::fs::rename(tasks.join("001-t"), outside.path().join("001-t")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("001-t"), tasks.join("001-t")).unwrap();
    let out = run_bounded(&repo, &["verification", "run", SPEC, "--id", "unit"]);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(!outside.path().join("001-t/verification").exists());
}

#[test]
fn a_symlinked_run_lock_is_refused_and_its_target_never_created() {
    let repo = task_with_check(&["true"]);
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("created-by-the-runner");
    std::fs::create_dir_all(repo.path().join(VERIFICATION)).unwrap();
    std::os::unix::fs::symlink(&target, repo.path().join(VERIFICATION).join("run.lock")).unwrap();
    let out = run_bounded(&repo, &["verification", "run", SPEC, "--id", "unit"]);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(
        text(&out).contains("verification_path_unsafe"),
        "{}",
        text(&out)
    );
    assert!(!target.exists());
    // A symlinked receipt is replaced, never written through.
    std::fs::remove_file(repo.path().join(VERIFICATION).join("run.lock")).unwrap();
    let receipt_target = outside.path().join("receipt");
    std::os::unix::fs::symlink(
        &receipt_target,
        repo.path().join(VERIFICATION).join("unit.tree.json"),
    )
    .unwrap();
    let out = run_bounded(&repo, &["verification", "run", SPEC, "--id", "unit"]);
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert!(!receipt_target.exists());
    let written =
        std::fs::symlink_metadata(repo.path().join(VERIFICATION).join("unit.tree.json")).unwrap();
    assert!(written.is_file());
}

#[test]
fn sigterm_ends_a_run_whose_check_ignores_it() {
    let marker = tempfile::tempdir().unwrap();
    let pid_file = marker.path().join("pid");
    let script = format!(
        "trap '' TERM; echo $$ > {}; sleep 30; sleep 30",
        pid_file.display()
    );
    let repo = task_with_check(&["sh", "-c", &script]);
    let mut runner = repo.command(BIN);
    runner
        .args(["verification", "run", SPEC, "--id", "unit", "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = runner.spawn().unwrap();
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&pid_file).is_ok_and(|s| s.ends_with('\n')) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the check never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: signalling the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let started = std::time::Instant::now();
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("SIGTERM did not end the runner");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(exit.code(), Some(1));
    let receipt: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo.path().join(VERIFICATION).join("unit.tree.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(receipt["status"], "interrupted");
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The check, which ignored SIGTERM, was killed with its group.
    // SAFETY: signal 0 only probes for existence.
    let alive = unsafe { libc::kill(pid, 0) } == 0
        && std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "));
    assert!(!alive, "the check survived the runner");
}

/// A v1 receipt bound to its task, so that `check --worktree` goes on to
/// open `run.lock` (the reference accepts v1 receipts only with a lock).
fn bound_v1_receipt(repo: &TestRepo) {
    use mastermind_hooks::digest::snapshot_v1;
    use mastermind_hooks::repo::Repo;
    use mastermind_hooks::runner::executable;
    use serde_json::json;
    use sha2::{Digest, Sha256};
    let baseline = repo.head();
    let task = ".mastermind/tasks/001-t";
    let spec = "---\ntouches:\n  - file: src/lib.py\nverify:\n  - cmd: 'true'\n    run:\n      id: unit\n      argv: [\"true\"]\n      cwd: .\n      timeout_secs: 5\n---\n# t\n";
    repo.write(&format!("{task}/spec.md"), spec);
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
    repo.git(&["reset", "-q"]);
    let opened = Repo::discover(repo.path()).unwrap();
    let snapshot = snapshot_v1::compute(&opened, &baseline).unwrap();
    let path_env = std::env::var_os("PATH");
    let exe = executable::resolve("true", repo.path(), path_env.as_deref()).unwrap();
    let declaration = r#"["true",{"id":"unit","argv":["true"],"cwd":".","timeout_secs":5}]"#;
    let zero = "0".repeat(64);
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
        "stdout": {"bytes": 0, "sha256": zero}, "stderr": {"bytes": 0, "sha256": zero},
        "runner_version": "0.40.0", "platform": std::env::consts::OS, "provenance": "local_runner_unsigned"
    });
    repo.write(
        &format!("{task}/verification/unit.json"),
        &serde_json::to_string_pretty(&receipt).unwrap(),
    );
}

#[test]
fn fifos_where_check_worktree_reads_are_refused_without_blocking() {
    let repo = repo_with_task();
    bound_v1_receipt(&repo);
    let lock = repo.path().join(VERIFICATION).join("run.lock");
    repo.write(&format!("{VERIFICATION}/run.lock"), "");
    let out = run_bounded(&repo, &["check", "--worktree", "--format", "json"]);
    assert_eq!(
        status(&out),
        0,
        "with a lock file the v1 receipt counts: {}",
        text(&out)
    );
    // The lock replaced by a FIFO: refused, not waited on.
    std::fs::remove_file(&lock).unwrap();
    mkfifo(&lock);
    let out = run_bounded(&repo, &["check", "--worktree", "--format", "json"]);
    assert_eq!(status(&out), 1, "{}", text(&out));
    assert!(codes(&json(&out)).contains(&"receipt_lock_missing".to_string()));
    assert!(text(&out).contains("FIFO"), "{}", text(&out));
    // FIFOs as an untracked file and as a task artifact.
    mkfifo(&repo.path().join("src/pipe"));
    std::fs::remove_file(
        repo.path()
            .join(".mastermind/tasks/001-t/executor-report.md"),
    )
    .unwrap();
    mkfifo(
        &repo
            .path()
            .join(".mastermind/tasks/001-t/executor-report.md"),
    );
    let out = run_bounded(&repo, &["check", "--worktree", "--format", "json"]);
    assert_ne!(status(&out), 0, "{}", text(&out));
    assert!(text(&out).contains("FIFO"), "{}", text(&out));
    // The runner's snapshot passes over a FIFO in the tree without reading it.
    std::fs::remove_file(&lock).unwrap();
    let out = run_bounded(
        &repo,
        &["verification", "run", SPEC, "--id", "unit", "--quiet"],
    );
    assert_eq!(status(&out), 0, "{}", text(&out));
}

#[test]
fn sigterm_ends_a_runner_blocked_reading_the_working_tree() {
    // git's own ignore-file reads block on a FIFO (`git status` hangs on
    // one too); the runner must still end on the first SIGTERM.
    let repo = task_with_check(&["true"]);
    mkfifo(&repo.path().join("src/.gitignore"));
    let mut runner = repo.command(BIN);
    runner
        .args(["verification", "run", SPEC, "--id", "unit", "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = runner.spawn().unwrap();
    let receipt = repo.path().join(VERIFICATION).join("unit.tree.json");
    // The runner reads the working tree (and the task's territory) before
    // it touches a receipt: wait until it opens the FIFO for reading (a
    // non-blocking open for writing succeeds only once a reader is there),
    // then keep the FIFO open so its read blocks.
    let fifo = std::ffi::CString::new(
        repo.path()
            .join("src/.gitignore")
            .into_os_string()
            .into_encoded_bytes(),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let writer = loop {
        // SAFETY: a valid NUL-terminated path; the descriptor is closed below.
        let fd = unsafe { libc::open(fifo.as_ptr(), libc::O_WRONLY | libc::O_NONBLOCK) };
        if fd >= 0 {
            break fd;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the runner never opened the FIFO"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // SAFETY: signalling the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let started = std::time::Instant::now();
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("SIGTERM did not end the runner");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // SAFETY: closing the descriptor opened above.
    unsafe { libc::close(writer) };
    assert_ne!(exit.code(), Some(0));
    // Nothing that counts is left: no receipt, or a pending or interrupted one.
    if let Ok(bytes) = std::fs::read(&receipt) {
        let written: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert!(
            ["pending", "interrupted"].contains(&written["status"].as_str().unwrap()),
            "{written}"
        );
    }
}
