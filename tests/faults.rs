//! Faults and hostile inputs in real repositories: every one ends in a
//! non-zero exit with a diagnostic, never a pass, and leaves nothing behind.

mod common;

use common::*;

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
