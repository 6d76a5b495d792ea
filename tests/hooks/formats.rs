//! Every repository git makes (issue 51): the reftable ref store (git 2.45
//! and later; git 3.0's default, GitLab Gitaly's), SHA-256 object ids, and
//! both, beside today's files-and-SHA-1 repository, each made explicitly
//! whatever git's defaults are. In each: `init`, `task new`, an honest task
//! that `verification run` proves, committed through the installed
//! pre-commit hook, pushed through pre-push to a bare server of the same
//! format whose pre-receive is the gate, merged through pre-merge-commit,
//! and passing CI with `--rerun`; and a bad task refused with a verdict
//! (exit 1, never 2) by every one of them and by the agent's stop hook.
//!
//! `.ci/run` also runs a part of every test binary with git's defaults
//! switched to these formats (`GIT_DEFAULT_HASH`, `GIT_DEFAULT_REF_FORMAT`).

use crate::common::landing::{ALLOW_UNTASKED, Forge, Verdict, verdict};
use crate::common::tasks::{do_task, spec_path};
use crate::common::{BIN, TestRepo, status, text};
use std::path::Path;

/// (ref store, object format) of every kind of repository git makes.
const FORMATS: [(&str, &str); 4] = [
    ("files", "sha1"),
    ("reftable", "sha1"),
    ("files", "sha256"),
    ("reftable", "sha256"),
];

/// `git init` arguments for a repository of these formats.
fn init_args<'a>(refs: &'a str, objects: &'a str) -> [String; 2] {
    [
        format!("--ref-format={refs}"),
        format!("--object-format={objects}"),
    ]
}

/// What git says the repository at `dir` is: (ref store, object format).
fn formats_of(repo: &TestRepo, dir: &Path) -> (String, String) {
    let dir = dir.to_str().unwrap();
    let ask = |what: &str| repo.git(&["-C", dir, "rev-parse", what]).trim().to_string();
    (ask("--show-ref-format"), ask("--show-object-format"))
}

/// A project in these formats: its server (a bare repository of the same
/// formats with `install --server`) holding `main` with `src/a.py`, and a
/// clone-like working repository with `init`'s configuration and hooks.
fn project(refs: &str, objects: &str) -> Forge {
    let server = TestRepo::new();
    let bare = server.path().join("origin.git");
    let formats = init_args(refs, objects);
    let formats: Vec<&str> = formats.iter().map(String::as_str).collect();
    let mut args = vec!["init", "-q", "--bare", "-b", "main"];
    args.extend_from_slice(&formats);
    args.push(bare.to_str().unwrap());
    server.git(&args);
    let mut install = server.command(BIN);
    install.current_dir(&bare).args(["install", "--server"]);
    let output = install.output().expect("install --server");
    assert_eq!(status(&output), 0, "install --server: {}", text(&output));

    let work = TestRepo::init_with(&formats);
    for dir in [work.path(), bare.as_path()] {
        assert_eq!(
            formats_of(&work, dir),
            (refs.to_string(), objects.to_string()),
            "{}",
            dir.display()
        );
    }
    let init = work.run(&["init"], None);
    assert_eq!(status(&init), 0, "{refs}/{objects}: init: {}", text(&init));
    assert!(
        work.path().join(".git/hooks/pre-commit").is_file(),
        "{refs}/{objects}: init installs the hooks: {}",
        text(&init)
    );
    // Humans' untasked commits pass (the default refuses them on the
    // server), so the first push lands.
    assert!(
        work.path().join(".mastermind/hooks.yaml").is_file(),
        "{refs}/{objects}"
    );
    work.write(".mastermind/hooks.yaml", ALLOW_UNTASKED);
    work.write("src/a.py", "a = 0\n");
    work.write("src/b.py", "b = 0\n");
    work.git(&["add", "-A"]);
    let first = work.git_output(&["commit", "-q", "-m", "start"]);
    assert!(first.status.success(), "{refs}/{objects}: {}", text(&first));
    work.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    let forge = Forge { work, server };
    let pushed = forge.work.git_output(&["push", "-q", "origin", "main"]);
    assert!(
        pushed.status.success(),
        "{refs}/{objects}: the first push: {}",
        text(&pushed)
    );
    forge
}

/// Put a wrapper around the server's installed pre-receive hook that says
/// the gate's exit status on the pusher's screen (`pre-receive exit N`).
fn tell_pre_receive_status(bare: &Path) {
    let hook = bare.join("hooks/pre-receive");
    let gate = bare.join("hooks/pre-receive.gate");
    std::fs::rename(&hook, &gate).unwrap();
    std::fs::write(
        &hook,
        "#!/bin/sh\n\"$(dirname \"$0\")/pre-receive.gate\" \"$@\"\nstatus=$?\necho \"pre-receive exit $status\" >&2\nexit $status\n",
    )
    .unwrap();
    crate::common::make_executable(&hook);
}

/// `git push origin REFSPEC` (with the local pre-push hook unless
/// `verify` is false); its output.
fn push(forge: &Forge, verify: bool, refspec: &str) -> (bool, String) {
    let mut args = vec!["push", "origin", refspec];
    if !verify {
        args.insert(1, "--no-verify");
    }
    let out = forge.work.git_output(&args);
    (out.status.success(), text(&out))
}

/// `git commit -m MESSAGE` through the installed pre-commit hook.
fn commit(repo: &TestRepo, message: &str) -> (bool, String) {
    repo.git(&["add", "-A"]);
    let out = repo.git_output(&["commit", "-q", "-m", message]);
    (out.status.success(), text(&out))
}

#[track_caller]
fn refused_with(verdict: &Verdict, code: &str, what: &str) {
    verdict.expect(1, what);
    assert!(
        verdict.has(code),
        "{what}: {:?}\n{}",
        verdict.codes,
        verdict.text
    );
}

#[test]
fn an_honest_task_lands_and_a_bad_one_is_refused_in_every_format() {
    for (refs, objects) in FORMATS {
        let at = format!("{refs}/{objects}");
        let forge = project(refs, objects);
        tell_pre_receive_status(&forge.bare());
        let work = &forge.work;

        // `task new` scaffolds a spec in every format.
        let scaffolded = work.run(
            &[
                "task",
                "new",
                "001-honest",
                "--touches",
                "src/a.py",
                "--check",
                "grep -q honest src/a.py",
            ],
            None,
        );
        assert_eq!(status(&scaffolded), 0, "{at}: {}", text(&scaffolded));
        assert!(work.path().join(spec_path("001-honest")).is_file(), "{at}");

        // The honest task: its check run by `verification run`, committed
        // through pre-commit on a branch, pushed through pre-push and
        // pre-receive, merged through pre-merge-commit and pushed to main.
        work.git(&["checkout", "-q", "-b", "feature"]);
        do_task(work, "001-honest", "src/a.py", "honest");
        let receipt = std::fs::read_to_string(
            work.path()
                .join(".mastermind/tasks/001-honest/verification/unit.tree.json"),
        )
        .unwrap();
        let recorded: serde_json::Value = serde_json::from_str(&receipt).unwrap();
        let format = (objects == "sha256").then_some("sha256");
        assert_eq!(
            recorded["object_format"].as_str(),
            format,
            "{at}: the receipt records the object format"
        );
        let (ok, said) = commit(work, "the honest task");
        assert!(ok, "{at}: pre-commit refused an honest task: {said}");
        let (ok, said) = push(&forge, true, "feature");
        assert!(ok, "{at}: pushing the honest task: {said}");
        assert!(said.contains("pre-receive exit 0"), "{at}: {said}");
        let ci = forge.ci("main", "feature");
        ci.expect(0, &format!("{at}: CI on the honest task"));
        let rerun = verdict(&work.run(
            &[
                "check", "--ci", "--rerun", "--base", "main", "--head", "feature", "--format",
                "json",
            ],
            None,
        ));
        rerun.expect(0, &format!("{at}: CI --rerun on the honest task"));
        work.git(&["checkout", "-q", "main"]);
        let merged = work.git_output(&[
            "merge",
            "-q",
            "--no-ff",
            "-m",
            "merge the honest task",
            "feature",
        ]);
        assert!(
            merged.status.success(),
            "{at}: pre-merge-commit refused the honest merge: {}",
            text(&merged)
        );
        let (ok, said) = push(&forge, true, "main");
        assert!(ok, "{at}: pushing the merge to main: {said}");
        assert!(said.contains("pre-receive exit 0"), "{at}: {said}");

        // The bad task: it changes a file its spec does not declare.
        work.git(&["checkout", "-q", "-b", "bad"]);
        do_task(work, "002-bad", "src/b.py", "bad");
        work.write("src/a.py", "undeclared = True\n");
        work.git(&["add", "-A"]);
        let staged = verdict(&work.run(&["check", "--staged", "--format", "json"], None));
        refused_with(&staged, "unexpected_file", &format!("{at}: check --staged"));
        let (ok, said) = commit(work, "the bad task");
        assert!(!ok, "{at}: pre-commit let the bad task through: {said}");
        assert!(said.contains("unexpected_file"), "{at}: {said}");
        let committed = work.git_output(&["commit", "-q", "--no-verify", "-m", "the bad task"]);
        assert!(committed.status.success(), "{}", text(&committed));
        let pre_push = forge.pre_push("bad", "heads/main");
        refused_with(&pre_push, "unexpected_file", &format!("{at}: check --push"));
        let (ok, said) = push(&forge, true, "bad:main");
        assert!(!ok, "{at}: pre-push let the bad task through: {said}");
        assert!(said.contains("unexpected_file"), "{at}: {said}");
        let (ok, said) = push(&forge, false, "bad:main");
        assert!(!ok, "{at}: pre-receive let the bad task through: {said}");
        assert!(said.contains("unexpected_file"), "{at}: {said}");
        assert!(
            said.contains("pre-receive exit 1"),
            "{at}: pre-receive refuses with a verdict: {said}"
        );
        let ci = forge.ci("main", "bad");
        refused_with(&ci, "unexpected_file", &format!("{at}: check --ci"));
        let payload = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/agent/claude-code/stop.json"
        ))
        .unwrap();
        let stop = work.run(&["agent-hook", "stop"], Some(&payload));
        assert_eq!(status(&stop), 0, "{at}: {}", text(&stop));
        let stdout = String::from_utf8_lossy(&stop.stdout);
        assert!(
            stdout.contains("\"block\"") && stdout.contains("unexpected_file"),
            "{at}: the agent's stop is blocked: {stdout}"
        );
        // The server still holds the honest history only.
        assert_eq!(
            forge.remote_id("heads/main"),
            work.git(&["rev-parse", "main"]).trim(),
            "{at}"
        );
    }
}

/// A receipt written in a repository of one object format is never
/// current in a repository of the other, although the files it ran on are
/// the same: the check is run again there.
#[test]
fn a_receipt_is_current_only_in_its_own_object_format() {
    let make = |objects: &str| {
        let repo = TestRepo::init_with(&[&format!("--object-format={objects}")]);
        repo.write("src/a.py", "a = 0\n");
        repo.commit_all("start");
        repo
    };
    let sha1 = make("sha1");
    let sha256 = make("sha256");
    do_task(&sha1, "001-t", "src/a.py", "value");
    do_task(&sha256, "001-t", "src/a.py", "value");
    let task = ".mastermind/tasks/001-t";
    let receipt = format!("{task}/verification/unit.tree.json");
    for (repo, other) in [(&sha1, &sha256), (&sha256, &sha1)] {
        repo.git(&["add", "-A"]);
        let own = verdict(&repo.run(&["check", "--staged", "--format", "json"], None));
        own.expect(0, "its own receipt is current");
        // The same files, the receipt of the other format.
        let carried = std::fs::read(other.path().join(&receipt)).unwrap();
        let kept = std::fs::read(repo.path().join(&receipt)).unwrap();
        std::fs::write(repo.path().join(&receipt), &carried).unwrap();
        repo.git(&["add", "-A"]);
        let foreign = verdict(&repo.run(&["check", "--staged", "--format", "json"], None));
        refused_with(
            &foreign,
            "receipt_binding_mismatch",
            "a receipt of the other format",
        );
        assert!(
            foreign.text.contains("object ids; this one uses"),
            "{}",
            foreign.text
        );
        std::fs::write(repo.path().join(&receipt), &kept).unwrap();
        repo.git(&["add", "-A"]);
    }
}

/// `init` said the installed git cannot read `repo`'s references (exit 2,
/// `git_version_unsupported`, the version that can) and wrote nothing.
fn refused_by_init(repo: &TestRepo, init: &std::process::Output) {
    assert_eq!(status(init), 2, "{}", text(init));
    assert!(
        text(init).contains("git_version_unsupported"),
        "{}",
        text(init)
    );
    assert!(text(init).contains("git 2.45 or newer"), "{}", text(init));
    assert!(!repo.path().join(".mastermind").exists(), "nothing written");
    assert!(!repo.path().join(".git/hooks/pre-commit").exists());
}

/// A repository whose references are in a store the installed git cannot
/// read: `init` says so and writes nothing (a team learns it there, not at
/// its first commit), and the gate cannot check (exit 2, never a pass).
#[test]
fn a_store_git_cannot_read_is_refused_by_init_and_the_gate() {
    let repo = TestRepo::new();
    repo.write("src/a.py", "a = 0\n");
    repo.commit_all("start");
    repo.git(&["config", "core.repositoryFormatVersion", "1"]);
    repo.git(&["config", "extensions.refStorage", "madeup"]);
    let init = repo.run(&["init"], None);
    refused_by_init(&repo, &init);
    let staged = verdict(&repo.run(&["check", "--staged", "--format", "json"], None));
    staged.expect(2, "check --staged");
    assert!(staged.has("git_version_unsupported"), "{:?}", staged.codes);
}

/// A reftable repository where the installed git is older than 2.45 (a
/// shim that fails as git 2.44 fails there): the gate could read the
/// tables itself, but the git its hooks run under cannot, so `init` asks
/// git to read HEAD, says so, and writes nothing.
#[test]
fn init_refuses_a_reftable_repository_its_git_cannot_read() {
    let repo = TestRepo::init_with(&["--ref-format=reftable"]);
    repo.write("src/a.py", "a = 0\n");
    repo.commit_all("start");
    let shim = tempfile::tempdir().unwrap();
    let git = shim.path().join("git");
    std::fs::write(
        &git,
        "#!/bin/sh\necho 'fatal: unknown repository extension found:' >&2\necho '\trefstorage' >&2\nexit 128\n",
    )
    .unwrap();
    let executable = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755);
    std::fs::set_permissions(&git, executable).unwrap();
    let path = format!(
        "{}:{}",
        shim.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let init = repo.run_env(&["init"], &[("PATH", &path)]);
    refused_by_init(&repo, &init);
    // With git that reads it, init goes ahead.
    let init = repo.run(&["init"], None);
    assert_eq!(status(&init), 0, "{}", text(&init));
}

/// The git commands a run of the gate started, from `GIT_TRACE`'s log:
/// each command line once per process.
fn git_commands(trace: &Path) -> Vec<String> {
    std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            line.split_once("trace: built-in: git ")
                .map(|(_, c)| c.to_string())
        })
        .collect()
}

/// A reftable repository's references are read from its tables in
/// process, and what only git can answer is asked once (issue 53): here,
/// with no upstream configured, neither the staged check nor the stop hook
/// starts a git process to read a reference (the stop hook still asks the
/// remote for its default branch, once). Before, the staged check asked
/// git for HEAD, and the stop hook for HEAD, `refs/heads/main` twice,
/// `refs/heads/master` and the upstream.
#[test]
fn a_reftable_repository_asks_git_each_question_once() {
    let forge = project("reftable", "sha1");
    let work = &forge.work;
    let scaffolded = work.run(
        &[
            "task",
            "new",
            "001-once",
            "--touches",
            "src/a.py",
            "--check",
            "true",
        ],
        None,
    );
    assert_eq!(status(&scaffolded), 0, "{}", text(&scaffolded));
    std::fs::write(work.path().join("src/a.py"), "print('once')\n").unwrap();
    work.git(&["add", "-A"]);
    let trace = work.path().join(".git/trace.log");
    let trace_env = [("GIT_TRACE", trace.to_str().unwrap())];
    // Before this change: `refs/heads/main` asked after HEAD (staged), and
    // twice more by the stop hook.

    let staged = work.run_env(&["check", "--staged"], &trace_env);
    assert!(matches!(status(&staged), 0 | 1), "{}", text(&staged));
    each_question_once(&git_commands(&trace), "check --staged");

    let _ = std::fs::remove_file(&trace);
    let payload = serde_json::json!({
        "session_id": "s",
        "transcript_path": "/dev/null",
        "cwd": work.path(),
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    })
    .to_string();
    let mut stop = work.command(BIN);
    stop.args(["agent-hook", "stop", "--harness", "claude-code"])
        .env("GIT_TRACE", &trace);
    let stopped = crate::common::run_with_stdin(stop, Some(&payload));
    assert_eq!(status(&stopped), 0, "{}", text(&stopped));
    each_question_once(&git_commands(&trace), "agent-hook stop");
}

/// A linked worktree of a reftable repository keeps its HEAD in a stack of
/// its own: the staged check run there judges the index against the
/// worktree's branch, reading both stacks without git. The branch's commit
/// drops `main`'s allowance of untasked changes, so the one staged file is
/// reported as untasked; judged against `main` (HEAD read from the shared
/// stack), the allowance would stand and the committed files would show
/// as staged too.
#[test]
fn a_linked_reftable_worktree_is_judged_against_its_own_head() {
    let forge = project("reftable", "sha1");
    let work = &forge.work;
    let place = tempfile::tempdir().unwrap();
    let linked = place.path().join("linked");
    work.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "feature",
        linked.to_str().unwrap(),
    ]);
    let in_linked = |args: &[&str]| {
        let out = work
            .command("git")
            .current_dir(&linked)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", text(&out));
    };
    std::fs::write(linked.join("src/c.py"), "c = 1\n").unwrap();
    let strict = "planning:\n  default: allow\n";
    std::fs::write(linked.join(".mastermind/hooks.yaml"), strict).unwrap();
    in_linked(&["add", "-A"]);
    in_linked(&["commit", "-q", "-m", "c on the branch"]);
    std::fs::write(linked.join("src/b.py"), "b = 2\n").unwrap();
    in_linked(&["add", "-A"]);
    let trace = place.path().join("trace.log");
    let mut staged = work.command(BIN);
    staged
        .current_dir(&linked)
        .args(["check", "--staged", "--format", "json"])
        .env("GIT_TRACE", &trace);
    let staged = staged.output().unwrap();
    assert_eq!(status(&staged), 0, "{}", text(&staged));
    let report: serde_json::Value = serde_json::from_slice(&staged.stdout).unwrap();
    let untasked: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "untasked_change")
        .filter_map(|d| d["path"].as_str())
        .collect();
    assert_eq!(untasked, ["src/b.py"], "{}", text(&staged));
    each_question_once(&git_commands(&trace), "check --staged in a linked worktree");
}

/// No git command run twice, and no reference read through git (the
/// tables answer).
fn each_question_once(asked: &[String], what: &str) {
    let reads = ["rev-parse", "for-each-ref", "symbolic-ref", "show-ref"];
    assert!(
        !asked.iter().any(|c| reads.iter().any(|r| c.starts_with(r))),
        "{what}: a reference read through git: {asked:#?}"
    );
    let mut distinct = asked.to_vec();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        asked.len(),
        "{what}: a question asked twice: {asked:#?}"
    );
    assert!(
        !asked.iter().any(|c| c.contains("refs/heads/main")),
        "{what}: HEAD's branch asked of git: {asked:#?}"
    );
}
