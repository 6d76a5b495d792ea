//! Bad input through the command line: oversize, FIFO, directory, non-UTF-8,
//! alias bombs and deep nesting get a clear error in bounded time and memory,
//! and nothing on disk changes.

use crate::common;

use crate::common::{BIN, status, text};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Run the binary with a watchdog: a hang is a failure, not a slow pass.
fn run(args: &[&str], dir: &std::path::Path) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn json_codes(output: &Output) -> Vec<String> {
    common::codes(&common::json(output))
}

#[test]
fn a_two_mebibyte_report_is_too_large() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("executor-report.md"),
        vec![b'a'; 2 * 1024 * 1024],
    )
    .unwrap();
    let output = run(
        &["validate", "--format", "json", "executor-report.md"],
        dir.path(),
    );
    assert_eq!(status(&output), 1);
    assert_eq!(json_codes(&output), ["input_too_large"]);
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("spec.md");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let output = run(&["validate", "--format", "json", "spec.md"], dir.path());
    assert_eq!(status(&output), 2);
    assert_eq!(json_codes(&output), ["input_not_regular_file"]);
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("spec.md")).unwrap();
    let output = run(&["validate", "spec.md"], dir.path());
    assert_eq!(status(&output), 2);
    assert!(text(&output).contains("is a directory"));
}

#[test]
fn non_utf8_is_a_violation() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("spec.md"), b"---\nmode: \xff\n---\n").unwrap();
    let output = run(&["validate", "--format", "json", "spec.md"], dir.path());
    assert_eq!(status(&output), 1);
    assert_eq!(json_codes(&output), ["input_not_utf8"]);
}

#[test]
fn a_billion_laughs_report_is_stopped_by_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let mut yaml = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 10].join(",");
        yaml.push_str(&format!("{}: &{} [{}]\n", pair[1], pair[1], refs));
    }
    let report = format!(
        "<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\n{yaml}```\n<!-- mastermind:report-end -->\n"
    );
    std::fs::write(dir.path().join("executor-report.md"), report).unwrap();
    let output = run(
        &["validate", "--format", "json", "executor-report.md"],
        dir.path(),
    );
    assert_eq!(status(&output), 1);
    assert_eq!(json_codes(&output), ["yaml_budget_exceeded"]);
}

#[test]
fn deep_nesting_is_refused_at_any_depth() {
    let dir = tempfile::tempdir().unwrap();
    for depth in [65usize, 1_000, 100_000] {
        let yaml = format!(
            "schema_version: 1\nx: {}1{}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        std::fs::write(dir.path().join("executor-report.md"), &yaml).unwrap();
        let output = run(
            &["validate", "--format", "json", "executor-report.md"],
            dir.path(),
        );
        assert_eq!(status(&output), 1, "depth {depth}");
        assert_eq!(json_codes(&output), ["yaml_nesting_limit"], "depth {depth}");
    }
}

#[test]
fn validating_changes_nothing_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("executor-report.md"), "garbage: [\n").unwrap();
    let before: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let bytes = std::fs::read(dir.path().join("executor-report.md")).unwrap();
    let output = run(&["validate", "executor-report.md"], dir.path());
    assert_eq!(status(&output), 1);
    let after: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after);
    assert_eq!(
        bytes,
        std::fs::read(dir.path().join("executor-report.md")).unwrap()
    );
}

#[test]
fn many_files_in_one_process_keep_their_own_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read("examples/demo-task/executor-report.md").unwrap();
    let mut args = vec![
        "validate".to_string(),
        "--format".into(),
        "json".into(),
        "--kind".into(),
        "executor-report".into(),
    ];
    for i in 0..200 {
        let name = format!("r{i}.md");
        let content = if i % 50 == 7 {
            b"broken".to_vec()
        } else {
            good.clone()
        };
        std::fs::write(dir.path().join(&name), content).unwrap();
        args.push(name);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run(&args, dir.path());
    assert_eq!(status(&output), 1);
    let report = common::json(&output);
    assert_eq!(report["summary"]["files"], 200);
    assert_eq!(report["summary"]["invalid"], 4);
    assert_eq!(report["summary"]["valid"], 196);
}

/// A receipt naming a spec outside the repository (escaping, absolute or
/// not normalized) can match no task: it is stale, never current.
#[test]
fn a_receipt_naming_a_path_outside_the_repository_is_never_current() {
    let dir = tempfile::tempdir().unwrap();
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/mastermind-v1/verification/unit.json"
    );
    let mut receipt: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sample).unwrap()).unwrap();
    let sound = run(&["validate", "--kind", "receipt", sample], dir.path());
    assert_eq!(status(&sound), 0, "{}", text(&sound));
    for bad in [
        "../../etc/passwd",
        "/etc/passwd",
        "a/../../spec.md",
        "./x/spec.md",
    ] {
        receipt["binding"]["spec_path"] = serde_json::json!(bad);
        std::fs::write(
            dir.path().join("unit.json"),
            serde_json::to_vec(&receipt).unwrap(),
        )
        .unwrap();
        let output = run(
            &[
                "validate",
                "--kind",
                "receipt",
                "--format",
                "json",
                "unit.json",
            ],
            dir.path(),
        );
        assert_eq!(status(&output), 1, "{bad}: {}", text(&output));
        assert_eq!(
            json_codes(&output),
            vec!["receipt_binding_mismatch"],
            "{bad}"
        );
    }
}
