//! Verification receipts end to end: the runner on real repositories, the
//! receipt's freshness through staging, commit, push and CI, every way it
//! goes stale, process supervision, the lock, the cache's tamper case and
//! acceptance status.

use crate::common::*;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TASK: &str = ".mastermind/tasks/001-change-value";
const SPEC: &str = ".mastermind/tasks/001-change-value/spec.md";
const RECEIPT: &str = ".mastermind/tasks/001-change-value/verification/unit.tree.json";

fn display(argv: &[&str]) -> String {
    argv.iter()
        .map(|a| {
            if !a.is_empty()
                && a.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_./:+-=@%".contains(&b))
            {
                a.to_string()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The spec and a complete report for one observed check `unit`.
fn write_task(repo: &TestRepo, argv: &[&str], timeout: u32, extra_touches: &[&str]) {
    let cmd = display(argv);
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let argv_json = serde_json::to_string(argv).unwrap();
    let touches: String = ["src/lib.py"]
        .iter()
        .chain(extra_touches)
        .map(|t| format!("  - file: {t}\n"))
        .collect();
    repo.write(
        SPEC,
        &format!(
            "---\nmode: verified\ntouches:\n{touches}verify:\n  - cmd: {}\n    run:\n      id: unit\n      argv: {argv_json}\n      cwd: .\n      timeout_secs: {timeout}\nacceptance:\n  - id: value-is-two\n    statement: value() returns 2.\n    checks: [unit]\n---\n# Change value\n",
            q(&cmd)
        ),
    );
    let files: String = ["src/lib.py"]
        .iter()
        .chain(extra_touches)
        .map(|f| format!("  - {f}\n"))
        .collect();
    repo.write(
        &format!("{TASK}/executor-report.md"),
        &format!(
            "# Report\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: {SPEC}\nstatus: complete\nphases: []\nfiles_modified:\n{files}claims: []\ndefects: []\nverifications:\n  - cmd: {}\n    result: pass\n```\n<!-- mastermind:report-end -->\n",
            q(&cmd)
        ),
    );
}

/// A repository with a base commit and a task that changes src/lib.py,
/// its check declared as `argv`.
fn task_repo(argv: &[&str]) -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
    repo.write("src/lib.py", "def value():\n    return 1\n");
    repo.write("README.md", "# demo\n");
    repo.commit_all("base");
    write_task(&repo, argv, 60, &[]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo
}

const PASSING: &[&str] = &["grep", "-q", "return 2", "src/lib.py"];

fn verify(repo: &TestRepo) -> (i32, Value) {
    let out = repo.run(
        &["verification", "run", SPEC, "--id", "unit", "--json"],
        None,
    );
    let code = status(&out);
    (
        code,
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
    )
}

fn check(repo: &TestRepo, mode: &[&str], stdin: Option<&str>) -> (i32, Vec<String>, String) {
    let mut args = vec!["check"];
    args.extend_from_slice(mode);
    args.extend(["--format", "json"]);
    let out = repo.run(&args, stdin);
    let report = json(&out);
    (status(&out), codes(&report), text(&out))
}

fn receipt(repo: &TestRepo) -> Value {
    serde_json::from_slice(&std::fs::read(repo.path().join(RECEIPT)).unwrap()).unwrap()
}

/// Only the receipt and acceptance findings.
fn receipt_codes(codes: &[String]) -> Vec<String> {
    codes
        .iter()
        .filter(|c| c.starts_with("receipt_") || c.starts_with("acceptance_"))
        .cloned()
        .collect()
}

fn has(codes: &[String], code: &str) -> bool {
    codes.iter().any(|c| c == code)
}

#[test]
fn a_receipt_stays_current_through_stage_commit_push_and_ci() {
    let repo = task_repo(PASSING);
    let base = repo.head();
    let (code, written) = verify(&repo);
    assert_eq!(code, 0, "{written}");
    assert_eq!(written["status"], "passed");
    assert_eq!(written["attempt"], 1);
    assert_eq!(written["tree_before"], written["tree_after"]);
    assert_eq!(written["platform"], std::env::consts::OS);

    let (code, codes, out) = check(&repo, &["--worktree"], None);
    assert_eq!(code, 0, "{out}");
    assert!(codes.is_empty(), "{codes:?}");
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"], None);
    assert_eq!(code, 0, "{codes:?} {out}");
    // Through a real pre-commit hook.
    repo.raw_hook("pre-commit", "check --staged");
    repo.git(&["commit", "-q", "-m", "change value"]);
    let head = repo.head();
    let line = format!("refs/heads/main {head} refs/heads/main {base}\n");
    let (code, codes, out) = check(&repo, &["--push", "origin", "url"], Some(&line));
    assert_eq!(code, 0, "{codes:?} {out}");
    let (code, codes, out) = check(&repo, &["--ci", "--base", &base, "--head", &head], None);
    assert_eq!(code, 0, "{codes:?} {out}");
    assert_eq!(
        std::fs::metadata(repo.path().join(RECEIPT))
            .map(|m| {
                use std::os::unix::fs::PermissionsExt;
                m.permissions().mode() & 0o777
            })
            .unwrap(),
        0o600
    );
    // The acceptance status agrees.
    let out = repo.run(&["acceptance", "status", SPEC, "--json"], None);
    assert_eq!(status(&out), 0, "{}", text(&out));
    let object = json(&out);
    assert_eq!(object["status"], "requirements_satisfied");
    assert_eq!(object["criteria"][0]["checks"][0]["status"], "current");
    let revision = hex::encode(Sha256::digest(
        std::fs::read(repo.path().join(RECEIPT)).unwrap(),
    ));
    assert_eq!(
        object["criteria"][0]["checks"][0]["receipt_revision"],
        revision
    );
    assert_eq!(object["precision_notes"].as_array().unwrap().len(), 4);
    // A second run is the next attempt.
    let (code, again) = verify(&repo);
    assert_eq!((code, again["attempt"].clone()), (0, json!(2)));
}

#[test]
fn content_mode_and_new_files_make_it_stale_in_every_view() {
    let repo = task_repo(PASSING);
    let base = repo.head();
    assert_eq!(verify(&repo).0, 0);
    repo.git(&["add", "-A"]);

    // One byte.
    repo.write("README.md", "# demo!\n");
    let (code, codes, _) = check(&repo, &["--worktree"], None);
    assert!(
        code == 1 && has(&codes, "receipt_snapshot_changed"),
        "{codes:?}"
    );
    assert_eq!(
        check(&repo, &["--staged"], None).0,
        0,
        "the index is unchanged"
    );
    repo.git(&["add", "README.md"]);
    let (_, codes, _) = check(&repo, &["--staged"], None);
    assert!(has(&codes, "receipt_snapshot_changed"), "{codes:?}");
    repo.write("README.md", "# demo\n");
    repo.git(&["add", "README.md"]);
    assert_eq!(
        check(&repo, &["--staged"], None).0,
        0,
        "restored content is current again"
    );

    // A mode.
    make_executable(&repo.path().join("README.md"));
    let (_, codes, _) = check(&repo, &["--worktree"], None);
    assert!(has(&codes, "receipt_snapshot_changed"), "{codes:?}");
    repo.git(&["add", "README.md"]);
    let (_, codes, _) = check(&repo, &["--staged"], None);
    assert!(has(&codes, "receipt_snapshot_changed"), "{codes:?}");
    repo.git(&["update-index", "--chmod=-x", "README.md"]);
    std::fs::set_permissions(repo.path().join("README.md"), {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(0o644)
    })
    .unwrap();
    assert_eq!(check(&repo, &["--staged"], None).0, 0);

    // An untracked file, then committed.
    repo.write("notes.txt", "new\n");
    let (_, codes, _) = check(&repo, &["--worktree"], None);
    assert!(has(&codes, "receipt_snapshot_changed"), "{codes:?}");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "with notes"]);
    let head = repo.head();
    let (_, codes, _) = check(&repo, &["--ci", "--base", &base, "--head", &head], None);
    assert!(has(&codes, "receipt_snapshot_changed"), "{codes:?}");
    assert!(has(&codes, "acceptance_criterion_unmet"), "{codes:?}");
    let line = format!("refs/heads/main {head} refs/heads/main {base}\n");
    let (_, codes, _) = check(&repo, &["--push"], Some(&line));
    assert!(has(&codes, "receipt_snapshot_changed"), "{codes:?}");
    // Acceptance status says which check blocks.
    let out = repo.run(&["acceptance", "status", SPEC, "--json"], None);
    assert_eq!(status(&out), 1);
    let object = json(&out);
    assert_eq!(object["status"], "blocked");
    assert_eq!(object["criteria"][0]["checks"][0]["status"], "stale");
    assert_eq!(
        object["criteria"][0]["checks"][0]["reason"],
        "receipt_snapshot_changed"
    );
}

#[test]
fn spec_declaration_and_executable_changes_have_their_own_codes() {
    let tools = tempfile::tempdir().unwrap();
    let tool = tools.path().join("check-value");
    std::fs::write(&tool, "#!/bin/sh\ngrep -q 'return 2' src/lib.py\n").unwrap();
    make_executable(&tool);
    let argv = [tool.to_str().unwrap()];
    let repo = task_repo(&argv);
    let base = repo.head();
    assert_eq!(verify(&repo).0, 0);
    repo.git(&["add", "-A"]);
    assert_eq!(check(&repo, &["--staged"], None).0, 0);

    // The executable's bytes change: stale locally; CI cannot resolve a
    // machine's executable and does not compare it.
    std::fs::write(&tool, "#!/bin/sh\nexit 0\n").unwrap();
    make_executable(&tool);
    let (_, codes, _) = check(&repo, &["--staged"], None);
    assert_eq!(
        codes,
        ["receipt_executable_changed", "acceptance_criterion_unmet"]
    );
    let (_, codes, _) = check(&repo, &["--worktree"], None);
    assert!(has(&codes, "receipt_executable_changed"), "{codes:?}");
    repo.git(&["commit", "-q", "--no-verify", "-m", "c"]);
    let head = repo.head();
    assert_eq!(
        check(&repo, &["--ci", "--base", &base, "--head", &head], None).0,
        0
    );

    // Re-run, then edit the spec's prose: spec changed.
    assert_eq!(verify(&repo).0, 0);
    let spec = std::fs::read_to_string(repo.path().join(SPEC)).unwrap();
    repo.write(SPEC, &format!("{spec}\nMore prose.\n"));
    repo.git(&["add", "-A"]);
    let (_, codes, _) = check(&repo, &["--staged"], None);
    assert_eq!(
        receipt_codes(&codes),
        ["receipt_spec_changed", "acceptance_criterion_unmet"]
    );

    // Change the declaration (timeout): binding mismatch.
    repo.write(SPEC, &spec.replace("timeout_secs: 60", "timeout_secs: 61"));
    repo.git(&["add", "-A"]);
    let (_, codes, _) = check(&repo, &["--staged"], None);
    assert_eq!(
        receipt_codes(&codes),
        ["receipt_binding_mismatch", "acceptance_criterion_unmet"]
    );
}

/// A large executable's sha256 is remembered by the identity of its file
/// (`.git/mastermind-hooks/executables-*`), and a change of its bytes is
/// still seen when its size and mtime are put back: the change time moves.
#[test]
fn a_large_executable_is_remembered_and_its_change_still_seen() {
    let tools = tempfile::tempdir().unwrap();
    let tool = tools.path().join("check-value");
    let padding = "# padding\n".repeat(40_000);
    let body = |check: &str| format!("#!/bin/sh\n{check}\n{padding}");
    std::fs::write(&tool, body("grep -q 'return 2' src/lib.py")).unwrap();
    make_executable(&tool);
    // Files changed in the last three seconds are never remembered.
    std::thread::sleep(Duration::from_millis(3_200));
    let argv = [tool.to_str().unwrap()];
    let repo = task_repo(&argv);
    assert_eq!(verify(&repo).0, 0);
    repo.git(&["add", "-A"]);
    assert_eq!(check(&repo, &["--staged"], None).0, 0);
    let format = repo.object_format();
    let table = repo
        .path()
        .join(format!(".git/mastermind-hooks/executables-{format}"));
    let len = std::fs::metadata(&table).map(|m| m.len()).unwrap_or(0);
    // The 32-byte header, then rows of an id as wide as the repository's
    // object ids, a sha256 and a tag.
    let row = repo.cache_format().id_len() as u64 + 32 + 16;
    assert!(
        len >= 32 + row && (len - 32).is_multiple_of(row),
        "table of {len} bytes"
    );
    assert_eq!(check(&repo, &["--staged"], None).0, 0);

    // Same size, same mtime, other bytes: stale all the same.
    let mtime = std::fs::metadata(&tool).unwrap().modified().unwrap();
    std::fs::write(&tool, body("grep -q 'return 2' src/lib.p?")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&tool)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(std::fs::metadata(&tool).unwrap().modified().unwrap(), mtime);
    // Settled again, so only the change time tells the versions apart.
    std::thread::sleep(Duration::from_millis(3_200));
    let (_, codes, _) = check(&repo, &["--staged"], None);
    assert_eq!(
        codes,
        ["receipt_executable_changed", "acceptance_criterion_unmet"]
    );
}

#[test]
fn missing_failed_and_pending_receipts_never_count() {
    let repo = task_repo(PASSING);
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"], None);
    assert_eq!(
        (code, codes),
        (
            1,
            vec![
                "receipt_missing".to_string(),
                "acceptance_criterion_unmet".to_string()
            ]
        )
    );

    write_task(&repo, &["sh", "-c", "exit 3"], 60, &[]);
    let (code, written) = verify(&repo);
    assert_eq!(
        (
            code,
            written["status"].clone(),
            written["exit_code"].clone()
        ),
        (1, json!("failed"), json!(3))
    );
    repo.git(&["add", "-A"]);
    let (_, codes, _) = check(&repo, &["--staged"], None);
    assert!(has(&codes, "receipt_failed"), "{codes:?}");

    // A runner killed with SIGKILL leaves `pending`, which never counts.
    let marker = tempfile::tempdir().unwrap();
    let pgid_file = marker.path().join("pgid");
    let script = format!("echo $$ > {}; exec sleep 30", pgid_file.display());
    write_task(&repo, &["sh", "-c", &script], 60, &[]);
    let mut runner = repo.command(BIN);
    runner
        .args(["verification", "run", SPEC, "--id", "unit"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = runner.spawn().unwrap();
    wait_for(|| {
        pgid_file.exists()
            && std::fs::read_to_string(&pgid_file).is_ok_and(|s| !s.trim().is_empty())
    });
    let _ = Command::new("kill")
        .args(["-KILL", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let pgid: i32 = std::fs::read_to_string(&pgid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SAFETY: signalling our own test's orphaned process group.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    let pending = receipt(&repo);
    assert_eq!(pending["status"], "pending");
    assert!(pending["tree_before"].is_string());
    repo.git(&["add", "-A"]);
    let (_, codes, _) = check(&repo, &["--staged"], None);
    assert!(has(&codes, "receipt_pending"), "{codes:?}");
    let out = repo.run(&["validate", RECEIPT], None);
    assert_eq!(status(&out), 1, "{}", text(&out));
}

fn wait_for(mut condition: impl FnMut() -> bool) {
    let start = Instant::now();
    while !condition() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// No live (non-zombie) process is left in the group. Killed members may
/// linger as zombies until their new parent reaps them; they run nothing.
fn group_is_gone(pgid: i32) -> bool {
    let start = Instant::now();
    loop {
        let alive = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
            .filter(|stat| {
                // pid (comm) state ppid pgrp ...
                let rest = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
                let fields: Vec<&str> = rest.split_whitespace().collect();
                fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z"
            })
            .count();
        if alive == 0 {
            return true;
        }
        if start.elapsed() > Duration::from_secs(2) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_timeout_kills_the_whole_group() {
    let marker = tempfile::tempdir().unwrap();
    let pgid_file = marker.path().join("pgid");
    let script = format!("echo $$ > {}; sleep 30 & sleep 30", pgid_file.display());
    let repo = task_repo(&["sh", "-c", &script]);
    let spec = std::fs::read_to_string(repo.path().join(SPEC)).unwrap();
    repo.write(SPEC, &spec.replace("timeout_secs: 60", "timeout_secs: 1"));
    let started = Instant::now();
    let (code, written) = verify(&repo);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert_eq!((code, written["status"].clone()), (1, json!("timeout")));
    assert_eq!(written["signal"], 9);
    let pgid: i32 = std::fs::read_to_string(&pgid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(group_is_gone(pgid), "process group {pgid} survived");
    let (_, codes, _) = check(&repo, &["--worktree"], None);
    assert!(has(&codes, "receipt_timeout"), "{codes:?}");
}

#[test]
fn output_over_one_mebibyte_is_output_limit() {
    let repo = task_repo(&["sh", "-c", "head -c 1048577 /dev/zero; sleep 30"]);
    let started = Instant::now();
    let (code, written) = verify(&repo);
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_eq!(
        (code, written["status"].clone()),
        (1, json!("output_limit"))
    );
    // Exactly the cap is fine.
    write_task(&repo, &["sh", "-c", "head -c 1048576 /dev/zero"], 60, &[]);
    let (code, written) = verify(&repo);
    assert_eq!(
        (code, written["stdout"]["bytes"].clone()),
        (0, json!(1_048_576))
    );
    let zeros = vec![0u8; 1_048_576];
    assert_eq!(
        written["stdout"]["sha256"],
        hex::encode(Sha256::digest(&zeros))
    );
}

#[test]
fn a_second_runner_is_refused_and_sigterm_interrupts() {
    let marker = tempfile::tempdir().unwrap();
    let pgid_file = marker.path().join("pgid");
    let script = format!("echo $$ > {}; sleep 30 & sleep 30", pgid_file.display());
    let repo = task_repo(&["sh", "-c", &script]);
    let mut first = repo.command(BIN);
    first
        .args(["verification", "run", SPEC, "--id", "unit"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut first = first.spawn().unwrap();
    wait_for(|| std::fs::read_to_string(&pgid_file).is_ok_and(|s| !s.trim().is_empty()));
    let second = repo.run(&["verification", "run", SPEC, "--id", "unit"], None);
    assert_eq!(status(&second), 2);
    assert!(
        text(&second).contains("verification_busy"),
        "{}",
        text(&second)
    );
    // SIGTERM: the runner kills the group and records `interrupted`.
    let _ = Command::new("kill")
        .args(["-TERM", &first.id().to_string()])
        .status();
    let exit = first.wait().unwrap();
    assert_eq!(exit.code(), Some(1));
    assert_eq!(receipt(&repo)["status"], "interrupted");
    let pgid: i32 = std::fs::read_to_string(&pgid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(group_is_gone(pgid));
}

#[test]
fn the_child_never_sees_the_hooks_git_variables_and_refusals_write_nothing() {
    let repo = task_repo(&[
        "sh",
        "-c",
        "test -z \"$GIT_INDEX_FILE$GIT_DIR$GIT_WORK_TREE\"",
    ]);
    let out = repo.run_env(
        &["verification", "run", SPEC, "--id", "unit"],
        &[("GIT_INDEX_FILE", ".git/index"), ("GIT_DIR", ".git")],
    );
    assert_eq!(status(&out), 0, "{}", text(&out));
    let out = repo.run(&["verification", "run", SPEC, "--id", "nope"], None);
    assert_eq!(status(&out), 2);
    assert!(text(&out).contains("observed_verification_not_declared"));
    assert!(
        !repo
            .path()
            .join(format!("{TASK}/verification/nope.tree.json"))
            .exists()
    );
    let out = repo.run(
        &["verification", "run", "/etc/hostname", "--id", "unit"],
        None,
    );
    assert_eq!(status(&out), 2);
}

#[test]
fn ci_freshness_task_merge_and_head() {
    let repo = task_repo(PASSING);
    assert_eq!(verify(&repo).0, 0);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let head = repo.commit_all("change value");
    // The base branch moves on with an unrelated file.
    repo.git(&["checkout", "-q", "main"]);
    repo.write("other.txt", "x\n");
    let moved = repo.commit_all("unrelated");
    // By default a receipt is judged where the check ran: the task's commit.
    let (code, codes, out) = check(&repo, &["--ci", "--base", &moved, "--head", &head], None);
    assert_eq!(code, 0, "{codes:?} {out}");
    // A team that re-verifies what lands asks for the merge tree.
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("{}{}", "receipts:\n  freshness: merge\n", ANYONE_PLANS),
    );
    let moved = repo.commit_all("receipts must match the merge");
    let (_, codes, _) = check(&repo, &["--ci", "--base", &moved, "--head", &head], None);
    assert!(
        has(&codes, "receipt_snapshot_changed"),
        "the merge is not what was checked: {codes:?}"
    );
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("{}{}", "receipts:\n  freshness: head\n", ANYONE_PLANS),
    );
    let moved = repo.commit_all("receipts must match the head");
    let (code, codes, out) = check(&repo, &["--ci", "--base", &moved, "--head", &head], None);
    assert_eq!(code, 0, "{codes:?} {out}");
}

#[test]
fn v1_receipts_are_unverifiable_in_tree_views() {
    let repo = task_repo(PASSING);
    let v1 = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mastermind-v1/verification/unit.json"),
    )
    .unwrap();
    let mut v1: Value = serde_json::from_str(&v1).unwrap();
    // Bind it to this task's declaration so only its kind is in question.
    v1["check_id"] = json!("unit");
    let argv: Vec<&str> = PASSING.to_vec();
    let command = display(&argv);
    let declaration = json!({"id": "unit", "argv": argv, "cwd": ".", "timeout_secs": 60});
    // Key order id, argv, cwd, timeout_secs, as the reference hashes it.
    let bytes = format!(
        "[{},{{\"id\":\"unit\",\"argv\":{},\"cwd\":\".\",\"timeout_secs\":60}}]",
        serde_json::to_string(&command).unwrap(),
        serde_json::to_string(&argv).unwrap()
    );
    v1["command"] = json!(command);
    v1["declaration"] = declaration;
    v1["declaration_sha256"] = json!(hex::encode(Sha256::digest(&bytes)));
    repo.write(
        &format!("{TASK}/verification/unit.json"),
        &serde_json::to_string_pretty(&v1).unwrap(),
    );
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"], None);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        codes,
        ["receipt_unverifiable", "acceptance_criterion_unmet"]
    );
    repo.write(
        ".mastermind/hooks.yaml",
        &format!(
            "{}{}",
            "receipts:\n  accept_unverifiable_v1: true\n", ANYONE_PLANS
        ),
    );
    repo.git(&["add", ".mastermind/hooks.yaml"]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-m",
        "accept v1",
        "--",
        ".mastermind/hooks.yaml",
    ]);
    let (code, codes, out) = check(&repo, &["--staged"], None);
    assert_eq!(code, 0, "{codes:?} {out}");
    assert_eq!(codes, ["receipt_unverifiable"]);
    // In the working tree there is no state.json to bind to: stale.
    let (_, codes, _) = check(&repo, &["--worktree"], None);
    assert!(has(&codes, "receipt_binding_mismatch"), "{codes:?}");
}

#[test]
fn a_tampered_cache_cannot_make_a_stale_receipt_current() {
    use mastermind_hooks::digest::cache::{SHA256_STEM, decode, encode};
    let repo = task_repo(PASSING);
    let format = repo.cache_format();
    let base = repo.head();
    assert_eq!(verify(&repo).0, 0);
    repo.git(&["add", "-A"]);
    assert_eq!(check(&repo, &["--staged"], None).0, 0);
    let cache_path = repo.path().join(format!(
        ".git/mastermind-hooks/sha256-cache-{}",
        repo.object_format()
    ));
    let key_path = repo.home().join(".local/state/mastermind-hooks/cache-key");
    let key: [u8; 32] = std::fs::read(&key_path).unwrap().try_into().unwrap();
    assert!(
        decode(
            std::fs::read(&cache_path).unwrap(),
            format,
            SHA256_STEM,
            &key
        )
        .is_ok()
    );

    // New, untested content, staged.
    let old_sha: [u8; 32] = Sha256::digest(b"def value():\n    return 2\n").into();
    repo.write("src/lib.py", "def value():\n    return 3\n");
    repo.git(&["add", "src/lib.py"]);
    let new_id = hex::decode(repo.git(&["rev-parse", ":src/lib.py"]).trim()).unwrap();
    // Forge: the new blob's id mapped to the old content's sha256.
    let mut forged = std::collections::BTreeMap::new();
    forged.insert(new_id, old_sha);
    std::fs::write(&cache_path, encode(format, SHA256_STEM, &[1; 32], &forged)).unwrap();
    let (_, codes, _) = check(&repo, &["--staged"], None);
    assert!(
        has(&codes, "receipt_snapshot_changed"),
        "a forged entry without the key is ignored: {codes:?}"
    );

    // Even with the user's key (a same-user process can forge the receipt
    // itself), CI never reads the cache.
    std::fs::write(&cache_path, encode(format, SHA256_STEM, &key, &forged)).unwrap();
    repo.git(&["commit", "-q", "--no-verify", "-m", "untested"]);
    let head = repo.head();
    let (_, codes, _) = check(&repo, &["--ci", "--base", &base, "--head", &head], None);
    assert!(has(&codes, "receipt_snapshot_changed"), "{codes:?}");
    // Truncated and foreign files are ignored too.
    std::fs::write(&cache_path, b"mmh-sha256-cache").unwrap();
    let line = format!("refs/heads/main {head} refs/heads/main {base}\n");
    let (_, codes, _) = check(&repo, &["--push"], Some(&line));
    assert!(has(&codes, "receipt_snapshot_changed"), "{codes:?}");
}

#[test]
fn the_worktree_digest_equals_the_index_and_commit_digests() {
    use mastermind_hooks::digest::view::{of_objects, of_view};
    use mastermind_hooks::repo::Repo;
    use mastermind_hooks::repo::tree::View;
    let repo = task_repo(PASSING);
    std::os::unix::fs::symlink("src/lib.py", repo.path().join("link")).unwrap();
    repo.write("bin/run", "#!/bin/sh\n");
    make_executable(&repo.path().join("bin/run"));
    repo.write(".gitignore", "ignored.txt\n");
    repo.write("ignored.txt", "not covered\n");
    let opened = Repo::discover(repo.path()).unwrap();
    let worktree = of_view(&opened, &View::from_worktree(&opened).unwrap(), None).unwrap();
    repo.git(&["add", "-A"]);
    let opened = Repo::discover(repo.path()).unwrap();
    let index = of_objects(&opened, &View::from_index(&opened).unwrap(), None).unwrap();
    assert_eq!(worktree.digest, index.digest);
    let head = repo.commit_all("all");
    let opened = Repo::discover(repo.path()).unwrap();
    let id = opened.resolve_commit(&head).unwrap();
    let commit = of_objects(&opened, &View::from_commit(&opened, id).unwrap(), None).unwrap();
    assert_eq!(commit.digest, index.digest);
    // README.md, .gitignore, bin/run, link, src/lib.py: .mastermind/ and
    // the ignored file are not covered.
    assert_eq!(commit.files, 5);
}

#[test]
fn a_full_disk_while_writing_a_receipt_fails_closed_and_leaves_no_partial_file() {
    let repo = task_repo(PASSING);
    let (code, _) = verify(&repo);
    assert_eq!(code, 0);
    let before = std::fs::read(repo.path().join(RECEIPT)).unwrap();
    assert!(
        before.len() > 1024,
        "a receipt is larger than the size limit below"
    );
    // `ulimit -f 1`: no file may grow past 512 bytes, like a full disk.
    let mut cmd = repo.command("sh");
    cmd.args([
        "-c",
        &format!("ulimit -f 1 && exec \"{BIN}\" verification run {SPEC} --id unit"),
    ]);
    let out = run_with_stdin(cmd, None);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(text(&out).contains("error["), "{}", text(&out));
    let dir = repo.path().join(TASK).join("verification");
    let leftovers: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp."))
        .collect();
    assert!(leftovers.is_empty(), "partial files left: {leftovers:?}");
    assert_eq!(
        std::fs::read(repo.path().join(RECEIPT)).unwrap(),
        before,
        "the old receipt is intact"
    );
}

#[test]
fn an_unreadable_receipt_blob_cannot_be_checked() {
    let repo = task_repo(PASSING);
    assert_eq!(verify(&repo).0, 0);
    repo.git(&["add", "-A"]);
    let id = repo.git(&["rev-parse", &format!(":{RECEIPT}")]);
    let id = id.trim();
    std::fs::remove_file(
        repo.path()
            .join(format!(".git/objects/{}/{}", &id[..2], &id[2..])),
    )
    .unwrap();
    let (code, codes, out) = check(&repo, &["--staged"], None);
    assert_eq!(code, 2, "{out}");
    assert!(has(&codes, "git_object_unavailable"), "{codes:?}");
}

/// The working-tree view reuses the index's stat data where it vouches for
/// a file; reading every file must give the same digest, on every kind of
/// entry.
#[test]
fn the_worktree_view_digest_is_the_digest_of_every_file_read() {
    use mastermind_hooks::digest::view::of_view;
    use mastermind_hooks::repo::Repo;
    use mastermind_hooks::repo::tree::View;
    let repo = TestRepo::new();
    repo.write("src/a.txt", "a\n");
    repo.write("src/gone.txt", "soon deleted\n");
    repo.write("tool.sh", "#!/bin/sh\n");
    make_executable(&repo.path().join("tool.sh"));
    repo.write(".mastermind/tasks/x/spec.md", "not covered\n");
    std::os::unix::fs::symlink("src/a.txt", repo.path().join("link")).unwrap();
    repo.commit_all("base");
    let head = repo.head();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{head},vendor/sub"),
    ]);
    repo.write("src/a.txt", "a, edited\n");
    repo.remove("src/gone.txt");
    repo.write("untracked.txt", "new\n");
    let opened = Repo::discover(repo.path()).unwrap();
    let view = View::from_worktree(&opened).unwrap();
    let from_view = of_view(&opened, &view, None).unwrap();
    let read_all = View::from_worktree_reading_all(&opened).unwrap();
    let alone = of_view(&opened, &read_all, None).unwrap();
    assert_eq!(from_view.digest, alone.digest);
    assert_eq!(from_view.files, alone.files);
    // Covered: a.txt, link, tool.sh, untracked.txt, vendor/sub.
    assert_eq!(from_view.files, 5);
}

#[test]
fn a_receipt_records_what_its_check_ran_on_over_the_tasks_territory() {
    let repo = task_repo(PASSING);
    // An untracked scratch file the task did not declare, and a declared
    // file that does not exist yet.
    write_task(&repo, PASSING, 60, &["docs/new.md"]);
    repo.write("notes.txt", "scratch\n");
    let (code, written) = verify(&repo);
    assert_eq!(code, 0, "{written}");
    assert_eq!(written["schema_version"], 2);
    let sha = |text: &str| hex::encode(Sha256::digest(text.as_bytes()));
    let changed: Vec<&str> = written["territory"]["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let lib = format!("100644 {} src/lib.py", sha("def value():\n    return 2\n"));
    let notes = format!("100644 {} notes.txt", sha("scratch\n"));
    // What differs from HEAD is recorded as the task's change (a superset of
    // what it will commit); the receipt itself and the task's other
    // artifacts are bookkeeping, never recorded.
    assert_eq!(changed, [notes.as_str(), lib.as_str()], "{written}");
    assert_eq!(
        written["territory"]["unchanged"],
        json!(["absent docs/new.md"]),
        "a declared file the task has not written is recorded as absent"
    );
    // The record is bound to the run: the gate refuses it edited.
    repo.git(&["add", "-A"]);
    let mut edited = receipt(&repo);
    edited["territory"]["changed"][1] = json!(format!("100644 {} src/lib.py", "0".repeat(64)));
    std::fs::write(
        repo.path().join(RECEIPT),
        serde_json::to_vec_pretty(&edited).unwrap(),
    )
    .unwrap();
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"], None);
    assert_eq!(code, 1, "{out}");
    assert!(has(&codes, "receipt_binding_mismatch"), "{codes:?}");
    assert!(out.contains("territory.sha256 does not bind"), "{out}");
}

#[test]
fn a_territory_too_large_for_a_receipt_is_refused_before_anything_runs() {
    let repo = task_repo(PASSING);
    // 900 declared files with long names: their record would not fit in
    // 128 KiB.
    let long: Vec<String> = (0..900)
        .map(|i| format!("src/{}/file-{i:04}.py", "deep".repeat(30)))
        .collect();
    let extra: Vec<&str> = long.iter().map(String::as_str).collect();
    write_task(&repo, PASSING, 60, &extra);
    let before = std::fs::read(repo.path().join(RECEIPT)).ok();
    let out = repo.run(&["verification", "run", SPEC, "--id", "unit"], None);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(
        text(&out).contains("error[verification_territory_too_large]")
            && text(&out).contains("901 paths"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read(repo.path().join(RECEIPT)).ok(),
        before,
        "no receipt was written or touched"
    );
}

#[test]
fn a_schema_1_receipt_is_still_judged_by_the_commit_that_carries_it() {
    let repo = task_repo(PASSING);
    let base = repo.head();
    let (code, _) = verify(&repo);
    assert_eq!(code, 0);
    // What an older runner wrote: no territory record.
    let mut old = receipt(&repo);
    old["schema_version"] = json!(1);
    old.as_object_mut().unwrap().remove("territory");
    std::fs::write(
        repo.path().join(RECEIPT),
        serde_json::to_vec_pretty(&old).unwrap(),
    )
    .unwrap();
    repo.commit_all("task with an old receipt");
    let head = repo.head();
    let (code, codes, out) = check(&repo, &["--ci", "--base", &base, "--head", &head], None);
    assert_eq!(code, 0, "{codes:?} {out}");
    // Main moves by an unrelated file and the task's commit is replayed on
    // it: the commit carrying the receipt no longer has the tree its check
    // ran on.
    repo.git(&["checkout", "-q", "-b", "replayed", &base]);
    repo.write("docs/news.md", "news\n");
    repo.commit_all("main moves");
    let moved = repo.head();
    repo.git(&["cherry-pick", &head]);
    let picked = repo.head();
    let (code, codes, out) = check(&repo, &["--ci", "--base", &moved, "--head", &picked], None);
    assert_eq!(code, 1, "{out}");
    assert!(has(&codes, "receipt_snapshot_changed"), "{codes:?}");
    assert!(out.contains("(schema version 1) records no paths"), "{out}");
    assert!(!out.contains("look for edits"), "{out}");
}
