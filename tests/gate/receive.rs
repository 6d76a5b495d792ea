//! The server-side gate: `install --server` puts `check --receive` in a bare
//! repository's pre-receive hook, and real `git push`es to it are accepted
//! or rejected. The pushed objects are only in git's quarantine while the
//! hook runs, so a rejection of a bad task proves they were read; a rejected
//! push leaves the bare repository byte for byte as it was.

use crate::common;

use crate::common::{BIN, TestRepo, status, text};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A bare repository with the pre-receive hook installed by the binary,
/// and a clone to push from. main has src/lib.py and src/other.py.
struct Server {
    bare: TestRepo,
    work: TestRepo,
}

fn bare_path(repo: &TestRepo) -> PathBuf {
    repo.path().join("server.git")
}

fn server() -> Server {
    server_with(None)
}

/// [`server`], with `config` as main's `.mastermind/hooks.yaml` from the
/// first push on.
fn server_with(config: Option<&str>) -> Server {
    let bare = TestRepo::new();
    let path = bare_path(&bare);
    bare.git(&["init", "-q", "--bare", "-b", "main", path.to_str().unwrap()]);
    let mut install = bare.command(BIN);
    install.current_dir(&path).args(["install", "--server"]);
    let output = install.output().unwrap();
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("installed pre-receive"),
        "{}",
        text(&output)
    );

    let work = TestRepo::new();
    work.write("src/lib.py", "def value():\n    return 1\n");
    work.write("src/other.py", "x = 1\n");
    if let Some(config) = config {
        work.write(".mastermind/hooks.yaml", config);
    }
    work.commit_all("base");
    work.git(&["remote", "add", "origin", path.to_str().unwrap()]);
    let first = push(&work, &["origin", "main"]);
    assert_eq!(
        status(&first),
        0,
        "the first push of main: {}",
        text(&first)
    );
    Server { bare, work }
}

fn push(work: &TestRepo, args: &[&str]) -> Output {
    let mut all = vec!["push"];
    all.extend_from_slice(args);
    work.git_output(&all)
}

/// Every file of the bare repository with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    out
}

fn feature(work: &TestRepo, stray: bool) {
    work.git(&["checkout", "-q", "-b", "feature"]);
    let mut modified = vec!["src/lib.py"];
    if stray {
        work.write("src/other.py", "x = 2\n");
        modified.push("src/other.py");
    }
    work.write_task("001-change-value", &["src/lib.py"], &modified);
    work.write("src/lib.py", "def value():\n    return 2\n");
    work.commit_all("feature");
}

#[test]
fn install_server_needs_a_bare_repository_and_is_idempotent() {
    let s = server();
    let path = bare_path(&s.bare);
    let hook = path.join("hooks/pre-receive");
    let shim = std::fs::read_to_string(&hook).unwrap();
    assert!(shim.contains("check --receive"), "{shim}");
    let mut again = s.bare.command(BIN);
    again.current_dir(&path).args(["install", "--server"]);
    let output = again.output().unwrap();
    assert_eq!(status(&output), 0);
    assert!(text(&output).contains("already current"));
    // A clone with a working tree is not where pushes are received.
    let output = s.work.run(&["install", "--server"], None);
    assert_eq!(status(&output), 2, "{}", text(&output));
    assert!(text(&output).contains("needs a bare repository"));
}

#[test]
fn a_good_push_is_accepted() {
    let s = server();
    feature(&s.work, false);
    let output = push(&s.work, &["origin", "feature"]);
    assert_eq!(status(&output), 0, "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "remote: ok: task .mastermind/tasks/001-change-value in refs/heads/feature ("
        ),
        "{stderr}"
    );
    let head = s.work.head();
    let bare = bare_path(&s.bare);
    let landed = s
        .bare
        .command("git")
        .current_dir(&bare)
        .args(["rev-parse", "refs/heads/feature"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&landed.stdout).trim(), head);
    // The tool kept nothing of its own in the repository.
    assert!(
        snapshot(&bare)
            .keys()
            .all(|p| !p.to_string_lossy().contains("mastermind-hooks-")),
        "no cache or scratch files in the bare repository"
    );
}

#[test]
fn a_bad_push_is_rejected_with_remote_lines_and_changes_nothing() {
    let s = server();
    let bare = bare_path(&s.bare);
    let before = snapshot(&bare);
    feature(&s.work, true);
    // The skip switch of the local hooks means nothing on the server.
    let mut command = s.work.command("git");
    command
        .args(["push", "origin", "feature"])
        .env("MASTERMIND_HOOKS_SKIP", "in a hurry");
    let output = command.output().unwrap();
    assert_ne!(status(&output), 0, "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("remote: FAILED: task .mastermind/tasks/001-change-value"),
        "{stderr}"
    );
    assert!(
        stderr.contains("remote:   error[unexpected_file] (scope): "),
        "{stderr}"
    );
    assert!(stderr.contains("pre-receive hook declined"), "{stderr}");
    assert_eq!(snapshot(&bare), before, "a rejected push writes nothing");
}

#[test]
fn updates_are_judged_from_the_old_tip_and_deletions_pass() {
    let s = server();
    feature(&s.work, false);
    assert_eq!(status(&push(&s.work, &["origin", "feature"])), 0);
    let old_tip = s.work.head();
    // A second commit that touches the task and strays from its scope:
    // judged from the old tip, so only this commit's change counts.
    let report = ".mastermind/tasks/001-change-value/executor-report.md";
    let text_before = std::fs::read_to_string(s.work.path().join(report)).unwrap();
    s.work.write(
        report,
        &text_before.replacen("# Report\n", "# Report\n\nAmended.\n", 1),
    );
    s.work.write("src/other.py", "x = 3\n");
    s.work.commit_all("stray on top");
    let output = push(&s.work, &["origin", "feature"]);
    assert_ne!(status(&output), 0, "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        stderr.contains(&format!("in refs/heads/feature ({}..", &old_tip[..7])),
        "{stderr}"
    );
    assert!(stderr.contains("src/other.py"), "{stderr}");
    s.work.git(&["reset", "-q", "--hard", &old_tip]);
    // Deleting the branch lands nothing.
    let output = push(&s.work, &["origin", "--delete", "feature"]);
    assert_eq!(status(&output), 0, "{}", text(&output));
}

#[test]
fn the_hook_reads_the_quarantine_git_sets_up() {
    let s = server();
    let bare = bare_path(&s.bare);
    // Wrap the installed shim to record git's quarantine variables.
    let hook = bare.join("hooks/pre-receive");
    let original = bare.join("hooks/gate");
    std::fs::rename(&hook, &original).unwrap();
    let record = bare.parent().unwrap().join("quarantine.txt");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\nprintf '%s\\n%s\\n' \"$GIT_QUARANTINE_PATH\" \"$GIT_OBJECT_DIRECTORY\" > '{}'\nexec '{}'\n",
            record.display(),
            original.display()
        ),
    )
    .unwrap();
    common::make_executable(&hook);
    feature(&s.work, true);
    let output = push(&s.work, &["origin", "feature"]);
    assert_ne!(status(&output), 0, "{}", text(&output));
    let recorded = std::fs::read_to_string(&record).unwrap();
    let lines: Vec<&str> = recorded.lines().collect();
    assert!(
        lines[0].contains("incoming-"),
        "git quarantined the push: {recorded}"
    );
    // The new commit never reached the repository's own object store, yet
    // the hook judged its task: it read the quarantine.
    let head = s.work.head();
    let found = s
        .bare
        .command("git")
        .current_dir(&bare)
        .args(["cat-file", "-e", &head])
        .output()
        .unwrap();
    assert!(!found.status.success(), "the rejected commit is gone");
    assert!(String::from_utf8_lossy(&output.stderr).contains("unexpected_file"));
}

#[test]
fn commits_parked_under_an_unjudged_ref_are_judged_when_they_reach_a_branch() {
    // By default pre-receive refuses a change that belongs to no task.
    let s = server();
    s.work.write("src/other.py", "x = 2\n");
    s.work.commit_all("no task");
    // A ref outside refs/heads/ and refs/tags/ is not judged...
    let parked = push(&s.work, &["origin", "HEAD:refs/wip/x"]);
    assert_eq!(status(&parked), 0, "{}", text(&parked));
    assert!(
        text(&parked).contains("receive_ref_skipped"),
        "{}",
        text(&parked)
    );
    // ...so the same commit is judged in full when it comes to a new
    // branch (work in progress there: a warning) and to main.
    let other = push(&s.work, &["origin", "HEAD:refs/heads/other"]);
    assert_eq!(status(&other), 0, "{}", text(&other));
    assert!(
        text(&other).contains("warning[task_required]"),
        "{}",
        text(&other)
    );
    let output = push(&s.work, &["origin", "HEAD:main"]);
    assert_ne!(status(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("error[task_required]"),
        "{}",
        text(&output)
    );
}

#[test]
fn a_forced_update_of_the_default_branch_is_refused() {
    // Untasked fixes are allowed here: what is refused is the rewrite.
    let s = server_with(Some(
        "untasked:\n  rules:\n    - action: allow\n      paths: [src/other.py, README.md]\n",
    ));
    s.work.write("src/other.py", "x = 2 # a landed fix\n");
    s.work.commit_all("fix");
    assert_eq!(status(&push(&s.work, &["origin", "main"])), 0);
    // Rewind main and push a harmless commit over it with --force.
    s.work.git(&["reset", "-q", "--hard", "HEAD~1"]);
    s.work.write("README.md", "# readme\n");
    s.work.commit_all("readme");
    let output = push(&s.work, &["--force", "origin", "main"]);
    assert_ne!(status(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("default_branch_rewritten"),
        "{}",
        text(&output)
    );
    // A forced update of a feature branch (a rebase) is judged as usual.
    s.work.git(&["checkout", "-q", "-b", "feature"]);
    assert_eq!(status(&push(&s.work, &["origin", "feature"])), 0);
    s.work
        .git(&["commit", "-q", "--amend", "-m", "readme, reworded"]);
    let output = push(&s.work, &["--force", "origin", "feature"]);
    assert_eq!(status(&output), 0, "{}", text(&output));
}
