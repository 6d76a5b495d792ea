//! `install`, `uninstall`, `status` and the shims end to end: real
//! repositories built with the `git` binary, commits and pushes going through
//! the installed hooks, and the built binary run against them.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

const TASK: &str = "001-change-value";
const REPORT: &str = ".mastermind/tasks/001-change-value/executor-report.md";

/// A repository with one commit: src/lib.py, src/other.py, README.md.
fn base_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/lib.py", "def value():\n    return 1\n");
    repo.write("src/other.py", "x = 1\n");
    repo.write("README.md", "# demo\n");
    repo.commit_all("base");
    repo
}

/// Run the binary with `args` from `dir` in the repository's isolated
/// environment.
fn run_in(repo: &TestRepo, dir: &Path, args: &[&str]) -> Output {
    let mut cmd = repo.command(BIN);
    cmd.current_dir(dir).args(args);
    run_with_stdin(cmd, None)
}

fn install(repo: &TestRepo) -> Output {
    let output = repo.run(&["install"], None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    output
}

/// `git commit` through the hooks (no --no-verify).
fn commit(repo: &TestRepo, args: &[&str]) -> Output {
    let mut all = vec!["commit", "-q", "-m", "through the hook"];
    all.extend_from_slice(args);
    repo.git_output(&all)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Where git says it runs hooks from `dir`.
fn git_hooks_dir(repo: &TestRepo, dir: &Path) -> PathBuf {
    let output = repo
        .command("git")
        .current_dir(dir)
        .args(["rev-parse", "--path-format=absolute", "--git-path", "hooks"])
        .output()
        .expect("git");
    assert!(output.status.success());
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(path)
        .expect("meta")
        .permissions()
        .mode()
        & 0o7777
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Every entry of a directory: name, bytes (files), mode and mtime.
fn dir_state(dir: &Path) -> Vec<(String, Vec<u8>, u32, SystemTime)> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|entry| {
            let entry = entry.expect("entry");
            let meta = entry.metadata().expect("meta");
            let bytes = if meta.is_file() {
                std::fs::read(entry.path()).expect("read")
            } else {
                Vec::new()
            };
            (
                entry.file_name().to_string_lossy().into_owned(),
                bytes,
                mode(&entry.path()),
                meta.modified().expect("mtime"),
            )
        })
        .collect();
    entries.sort();
    entries
}

/// Stage a task whose report is valid and in scope (src/lib.py).
fn stage_good_task(repo: &TestRepo) {
    repo.write_task(TASK, &["src/lib.py"], &["src/lib.py"]);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.git(&["add", "-A"]);
}

/// Break the staged report: a null value.
fn stage_broken_report(repo: &TestRepo) {
    let good = std::fs::read_to_string(repo.path().join(REPORT)).expect("report");
    repo.write(REPORT, &good.replace("status: complete", "status: ~"));
    repo.git(&["add", REPORT]);
}

#[test]
fn a_commit_is_blocked_then_allowed_through_the_installed_hook() {
    let repo = base_repo();
    install(&repo);
    let before = repo.head();

    // An invalid executor report blocks the commit.
    stage_good_task(&repo);
    stage_broken_report(&repo);
    let blocked = commit(&repo, &[]);
    assert!(!blocked.status.success());
    assert!(
        stderr(&blocked).contains("yaml_null_value"),
        "{}",
        stderr(&blocked)
    );
    assert_eq!(repo.head(), before, "nothing was committed");

    // So does a file outside the declared scope.
    stage_good_task(&repo);
    repo.write("src/other.py", "x = 2\n");
    repo.git(&["add", "-A"]);
    let blocked = commit(&repo, &[]);
    assert!(!blocked.status.success());
    assert!(
        stderr(&blocked).contains("unexpected_file"),
        "{}",
        stderr(&blocked)
    );
    assert!(stderr(&blocked).contains("src/other.py"));
    assert_eq!(repo.head(), before);

    // Fixed: the out-of-scope change is unstaged, the report is valid.
    repo.git(&["restore", "--staged", "src/other.py"]);
    let allowed = commit(&repo, &[]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(stderr(&allowed).contains("ok: task .mastermind/tasks/001-change-value"));
    assert_ne!(repo.head(), before);
}

#[test]
fn git_s_environment_reaches_the_gate_in_every_commit_form() {
    let repo = base_repo();
    install(&repo);
    // The task is committed; later commits edit files and the task's
    // bookkeeping (state.json), so they belong to the task.
    stage_good_task(&repo);
    assert!(commit(&repo, &[]).status.success());

    // `git commit -a`: a temporary index (GIT_INDEX_FILE) holds the
    // unstaged out-of-scope edit; the gate must judge it, not .git/index.
    repo.write("src/lib.py", "def value():\n    return 3\n");
    repo.write(
        ".mastermind/tasks/001-change-value/state.json",
        "{\"iteration\": 2}\n",
    );
    repo.git(&["add", ".mastermind"]);
    repo.write("src/other.py", "x = 5\n");
    let blocked = commit(&repo, &["-a"]);
    assert!(!blocked.status.success(), "commit -a includes src/other.py");
    assert!(
        stderr(&blocked).contains("unexpected_file"),
        "{}",
        stderr(&blocked)
    );

    // `git commit <paths>`: only those paths (another temporary index).
    let allowed = commit(
        &repo,
        &[
            "--",
            "src/lib.py",
            ".mastermind/tasks/001-change-value/state.json",
        ],
    );
    assert!(allowed.status.success(), "{}", stderr(&allowed));

    // From a subdirectory (GIT_PREFIX set, hook run from the top).
    repo.write(
        ".mastermind/tasks/001-change-value/state.json",
        "{\"iteration\": 3}\n",
    );
    let output = repo
        .command("git")
        .current_dir(repo.path().join("src"))
        .args(["commit", "-q", "-a", "-m", "from src"])
        .output()
        .expect("git");
    assert!(
        !output.status.success(),
        "src/other.py is still out of scope"
    );
    assert!(stderr(&output).contains("unexpected_file"));

    // GIT_DIR and GIT_WORK_TREE given explicitly, from outside the repository.
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let git_dir = format!("--git-dir={}", repo.path().join(".git").display());
    let work_tree = format!("--work-tree={}", repo.path().display());
    let outside = |extra: &[&str]| {
        let mut args = vec![
            git_dir.as_str(),
            work_tree.as_str(),
            "commit",
            "-q",
            "-m",
            "outside",
        ];
        args.extend_from_slice(extra);
        repo.command("git")
            .current_dir(elsewhere.path())
            .args(&args)
            .output()
            .expect("git")
    };
    let blocked = outside(&["-a"]);
    assert!(!blocked.status.success());
    assert!(
        stderr(&blocked).contains("unexpected_file"),
        "{}",
        stderr(&blocked)
    );
    repo.write("src/lib.py", "def value():\n    return 4\n");
    let lib = repo.path().join("src/lib.py").display().to_string();
    let notes = repo
        .path()
        .join(".mastermind/tasks/001-change-value/state.json")
        .display()
        .to_string();
    let allowed = outside(&["--", &lib, &notes]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
}

#[test]
fn an_existing_hook_survives_install_runs_first_can_block_and_is_restored() {
    let repo = base_repo();
    let hooks = repo.path().join(".git/hooks");
    let user_hook = hooks.join("pre-commit");
    let script = "#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/user-hook.log\"\n[ ! -e block ] || { echo 'user hook: blocked' >&2; exit 3; }\n";
    std::fs::write(&user_hook, script).expect("hook");
    set_mode(&user_hook, 0o750);
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(&user_hook)
        .and_then(|f| f.set_modified(old))
        .expect("mtime");
    let original = dir_state(&hooks);

    let output = install(&repo);
    assert!(
        text(&output).contains("kept as pre-commit.legacy"),
        "{}",
        text(&output)
    );
    let legacy = hooks.join("pre-commit.legacy");
    assert_eq!(std::fs::read_to_string(&legacy).unwrap(), script);
    assert_eq!(mode(&legacy), 0o750);
    assert_eq!(std::fs::metadata(&legacy).unwrap().modified().unwrap(), old);

    // The user's hook still runs (first) and the commit goes through.
    stage_good_task(&repo);
    let allowed = commit(&repo, &[]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    let log = repo.path().join(".git/user-hook.log");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "ran\n");

    // The user's hook can still block, with its own exit status.
    repo.write("block", "");
    repo.write("README.md", "# blocked\n");
    repo.git(&["add", "README.md"]);
    let blocked = commit(&repo, &[]);
    assert!(!blocked.status.success());
    assert!(stderr(&blocked).contains("user hook: blocked"));
    assert!(
        !stderr(&blocked).contains("tasks checked"),
        "the gate did not run after the user hook failed"
    );
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "ran\nran\n");

    // Uninstall puts it back byte for byte, mode and mtime included.
    let output = repo.run(&["uninstall"], None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(text(&output).contains("put the hook kept as pre-commit.legacy back"));
    assert_eq!(dir_state(&hooks), original);
    let output = repo.run(&["uninstall"], None);
    assert_eq!(status(&output), 0);
    assert!(text(&output).contains("nothing to do"), "{}", text(&output));
    assert_eq!(dir_state(&hooks), original);
}

#[test]
fn a_second_install_changes_nothing() {
    let repo = base_repo();
    install(&repo);
    let hooks = repo.path().join(".git/hooks");
    // Age every file so that any rewrite would show in its mtime.
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for name in ["pre-commit", "pre-push", "pre-merge-commit"] {
        std::fs::File::options()
            .write(true)
            .open(hooks.join(name))
            .and_then(|f| f.set_modified(old))
            .expect("mtime");
    }
    let before = dir_state(&hooks);
    let output = repo.run(&["install"], None);
    assert_eq!(status(&output), 0);
    let out = text(&output);
    assert!(
        out.contains("pre-commit: already installed (shim v2), nothing changed"),
        "{out}"
    );
    assert!(
        out.contains("pre-push: already installed (shim v2), nothing changed"),
        "{out}"
    );
    assert!(
        out.contains("pre-merge-commit: already installed (shim v2), nothing changed"),
        "{out}"
    );
    assert!(
        out.contains("nothing to do: the hooks are installed and current"),
        "{out}"
    );
    assert_eq!(dir_state(&hooks), before);
    // No temporary files are left behind either.
    assert_eq!(
        dir_state(&hooks)
            .iter()
            .filter(|e| !e.0.ends_with(".sample"))
            .count(),
        3
    );
}

#[test]
fn install_writes_where_git_runs_hooks_with_a_repository_core_hooks_path() {
    let repo = base_repo();
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    // From a subdirectory: the relative path is relative to the top.
    let output = run_in(&repo, &repo.path().join("src"), &["install"]);
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("core.hooksPath = .githooks (local config"),
        "{}",
        text(&output)
    );
    let dir = repo.path().join(".githooks");
    assert_eq!(git_hooks_dir(&repo, &repo.path().join("src")), dir);
    assert!(dir.join("pre-commit").is_file() && dir.join("pre-push").is_file());
    assert!(!repo.path().join(".git/hooks/pre-commit").exists());

    stage_good_task(&repo);
    stage_broken_report(&repo);
    let blocked = commit(&repo, &[]);
    assert!(!blocked.status.success());
    assert!(stderr(&blocked).contains("yaml_null_value"));
}

#[test]
fn a_core_hooks_path_from_global_config_needs_force() {
    let repo = base_repo();
    let shared = tempfile::tempdir().expect("shared hooks");
    std::fs::write(
        repo.home().join(".gitconfig"),
        format!("[core]\n\thooksPath = {}\n", shared.path().display()),
    )
    .expect("global config");
    let output = repo.run(&["install"], None);
    assert_eq!(status(&output), 2, "{}", text(&output));
    assert!(
        text(&output).contains("error[hook_path_not_local]"),
        "{}",
        text(&output)
    );
    assert!(text(&output).contains("--force"));
    assert_eq!(
        std::fs::read_dir(shared.path()).unwrap().count(),
        0,
        "nothing written"
    );

    let output = repo.run(&["install", "--force"], None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(shared.path().join("pre-commit").is_file());
    assert_eq!(git_hooks_dir(&repo, repo.path()), shared.path());

    // `git -c core.hooksPath=...` lasts one command: refused even with --force.
    let mut cmd = repo.command(BIN);
    cmd.args(["install", "--force"])
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "core.hooksPath")
        .env("GIT_CONFIG_VALUE_0", "/tmp/elsewhere");
    let output = run_with_stdin(cmd, None);
    assert_eq!(status(&output), 2);
    assert!(
        text(&output).contains("lasts for one git command"),
        "{}",
        text(&output)
    );
}

#[test]
fn install_from_a_linked_worktree_uses_the_shared_hooks_and_gates_its_commits() {
    let repo = base_repo();
    let parent = tempfile::tempdir().expect("tempdir");
    let worktree = parent.path().join("wt");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "feature",
        worktree.to_str().unwrap(),
    ]);
    let output = run_in(&repo, &worktree, &["install"]);
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("linked worktree"),
        "{}",
        text(&output)
    );
    let hooks = repo.path().join(".git/hooks");
    assert_eq!(git_hooks_dir(&repo, &worktree), hooks);
    assert!(hooks.join("pre-commit").is_file());

    // The worktree's own index is judged, not the main one.
    let in_worktree = |args: &[&str]| {
        repo.command("git")
            .current_dir(&worktree)
            .args(args)
            .output()
            .expect("git")
    };
    let dir = format!("{}/.mastermind/tasks/{TASK}", worktree.display());
    for (path, content) in task_files(TASK, &["src/lib.py"], &["src/lib.py"]) {
        let full = worktree.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
    std::fs::write(worktree.join("src/lib.py"), "def value():\n    return 2\n").unwrap();
    std::fs::write(worktree.join("src/other.py"), "x = 9\n").unwrap();
    assert!(in_worktree(&["add", "-A"]).status.success());
    let blocked = in_worktree(&["commit", "-q", "-m", "wt"]);
    assert!(!blocked.status.success());
    assert!(
        stderr(&blocked).contains("unexpected_file"),
        "{}",
        stderr(&blocked)
    );
    assert!(
        in_worktree(&["restore", "--staged", "src/other.py"])
            .status
            .success()
    );
    let allowed = in_worktree(&["commit", "-q", "-m", "wt"]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(stderr(&allowed).contains(&"ok: task .mastermind/tasks/001-change-value".to_string()));
    assert!(Path::new(&dir).is_dir());

    // status from the worktree says why the hooks live where they do.
    let output = run_in(&repo, &worktree, &["status"]);
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(text(&output).contains("the common git directory, shared by every worktree"));
}

#[test]
fn install_in_a_submodule_uses_its_own_git_dir() {
    let library = base_repo();
    let repo = base_repo();
    let url = format!("file://{}", library.path().display());
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        &url,
        "lib",
    ]);
    let submodule = repo.path().join("lib");
    let output = run_in(&repo, &submodule, &["install"]);
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("the submodule's own git directory"),
        "{}",
        text(&output)
    );
    let hooks = git_hooks_dir(&repo, &submodule);
    assert!(
        hooks.starts_with(repo.path().join(".git/modules")),
        "{}",
        hooks.display()
    );
    assert!(hooks.join("pre-commit").is_file());
    assert!(!repo.path().join(".git/hooks/pre-commit").exists());
}

#[test]
fn bare_repositories_and_non_repositories_are_refused() {
    let repo = TestRepo::new();
    let bare = tempfile::tempdir().expect("bare");
    repo.git(&["init", "-q", "--bare", bare.path().to_str().unwrap()]);
    for command in ["install", "uninstall", "status"] {
        let output = run_in(&repo, bare.path(), &[command]);
        assert_eq!(status(&output), 2, "{command}: {}", text(&output));
        assert!(
            text(&output).contains("hook_bare_repository"),
            "{}",
            text(&output)
        );
    }
    assert!(!bare.path().join("hooks/pre-commit").exists());

    let inside_git_dir = run_in(&repo, &repo.path().join(".git"), &["install"]);
    assert_eq!(status(&inside_git_dir), 2);
    assert!(text(&inside_git_dir).contains("hook_outside_worktree"));

    let nowhere = tempfile::tempdir().expect("tempdir");
    let mut cmd = repo.command(BIN);
    cmd.current_dir(nowhere.path())
        .env("GIT_CEILING_DIRECTORIES", nowhere.path().parent().unwrap())
        .arg("status");
    let output = run_with_stdin(cmd, None);
    assert_eq!(status(&output), 2, "{}", text(&output));
    assert!(text(&output).contains("git_repository_unavailable"));
}

/// PATH without any `mastermind-hooks` (other programs stay reachable).
fn path_without_mastermind_hooks() -> String {
    crate::common::tools::path_without(&["mastermind-hooks"])
        .to_string_lossy()
        .into_owned()
}

/// Copy the built binary with `cp`: a copy written by this (multi-threaded)
/// test process could be executed while another test thread's forked child
/// still holds the write descriptor, failing with "text file busy".
fn copy_binary(to: &Path) {
    let status = Command::new("cp")
        .arg(BIN)
        .arg(to)
        .status()
        .expect("run cp");
    assert!(status.success());
    set_mode(to, 0o755);
}

#[test]
fn a_missing_binary_makes_the_hook_fail_not_pass() {
    let repo = base_repo();
    let place = tempfile::tempdir().expect("bin dir");
    let copy = place.path().join("mastermind-hooks");
    copy_binary(&copy);
    let mut cmd = repo.command(copy.to_str().unwrap());
    cmd.arg("install");
    let output = run_with_stdin(cmd, None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    let shim = std::fs::read_to_string(repo.path().join(".git/hooks/pre-commit")).unwrap();
    assert!(shim.contains(&format!("bin='{}'", copy.display())));

    let path = path_without_mastermind_hooks();
    let commit_with = |path: &str| {
        repo.command("git")
            .args(["commit", "-q", "--allow-empty", "-m", "empty"])
            .env("PATH", path)
            .output()
            .expect("git")
    };
    let before = repo.head();

    // Renamed: the hook fails and says why.
    let renamed = place.path().join("mastermind-hooks.old");
    std::fs::rename(&copy, &renamed).unwrap();
    let failed = commit_with(&path);
    assert!(!failed.status.success());
    assert!(
        stderr(&failed).contains("cannot run the pre-commit gate"),
        "{}",
        stderr(&failed)
    );
    assert!(stderr(&failed).contains(&copy.display().to_string()));
    assert_eq!(repo.head(), before);
    // status names the problem.
    let output = repo.run(&["status", "--hook", "pre-commit"], None);
    assert_eq!(status(&output), 1);
    assert!(
        text(&output).contains("hook_binary_missing"),
        "{}",
        text(&output)
    );

    // Removed and not executable: the same.
    std::fs::rename(&renamed, &copy).unwrap();
    set_mode(&copy, 0o644);
    assert!(!commit_with(&path).status.success());
    std::fs::remove_file(&copy).unwrap();
    let failed = commit_with(&path);
    assert!(!failed.status.success());
    assert_eq!(repo.head(), before);

    // A mastermind-hooks on PATH is the fallback, with a notice.
    let on_path = tempfile::tempdir().expect("path dir");
    copy_binary(&on_path.path().join("mastermind-hooks"));
    let with_fallback = format!("{}:{path}", on_path.path().display());
    let passed = commit_with(&with_fallback);
    assert!(passed.status.success(), "{}", stderr(&passed));
    assert!(
        stderr(&passed).contains("running mastermind-hooks from PATH"),
        "{}",
        stderr(&passed)
    );
}

#[test]
fn skipping_is_loud_needs_a_reason_and_has_no_other_way() {
    let repo = base_repo();
    install(&repo);
    stage_good_task(&repo);
    stage_broken_report(&repo);
    let before = repo.head();

    // An empty (or blank) value does not skip.
    for value in ["", "  "] {
        let output = repo
            .command("git")
            .args(["commit", "-q", "-m", "x"])
            .env("MASTERMIND_HOOKS_SKIP", value)
            .output()
            .unwrap();
        assert!(!output.status.success());
        assert!(
            stderr(&output).contains("MASTERMIND_HOOKS_SKIP is set but empty"),
            "{}",
            stderr(&output)
        );
    }
    assert_eq!(repo.head(), before);

    // The gate itself does not read the variable.
    let output = repo.run_env(
        &["check", "--staged"],
        &[("MASTERMIND_HOOKS_SKIP", "please")],
    );
    assert_eq!(status(&output), 1);

    // A reason skips, loudly.
    let output = repo
        .command("git")
        .args(["commit", "-q", "-m", "x"])
        .env("MASTERMIND_HOOKS_SKIP", "hotfix INC-42")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.contains("SKIPPED the pre-commit gate: MASTERMIND_HOOKS_SKIP=hotfix INC-42"),
        "{err}"
    );
    assert!(err.contains("nothing was checked"), "{err}");
    assert_ne!(repo.head(), before);
}

/// A branch with one commit made without hooks.
fn branch_with(repo: &TestRepo, branch: &str, good: bool) {
    repo.git(&["checkout", "-q", "-b", branch, "main"]);
    stage_good_task(repo);
    if !good {
        stage_broken_report(repo);
    }
    repo.git(&["commit", "-q", "--no-verify", "-m", branch]);
}

#[test]
fn a_push_of_two_refs_through_the_installed_hook_is_refused_when_the_second_is_bad() {
    let remote = TestRepo::new();
    let bare = remote.path().join("remote.git");
    remote.git(&["init", "-q", "--bare", bare.to_str().unwrap()]);
    let repo = base_repo();
    repo.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    repo.git(&["push", "-q", "--no-verify", "origin", "main"]);
    repo.git(&["fetch", "-q", "origin"]);
    branch_with(&repo, "a-good", true);
    branch_with(&repo, "b-bad", false);

    // A user pre-push hook that records its arguments and stdin.
    let hooks = repo.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let user_hook = hooks.join("pre-push");
    std::fs::write(
        &user_hook,
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > pre-push.args\ncat > pre-push.stdin\n",
    )
    .unwrap();
    set_mode(&user_hook, 0o755);
    install(&repo);

    let push = repo.git_output(&["push", "origin", "a-good", "b-bad"]);
    assert!(!push.status.success(), "{}", stderr(&push));
    let err = stderr(&push);
    assert!(err.contains("refs/heads/b-bad"), "{err}");
    assert!(err.contains("yaml_null_value"), "{err}");
    // Neither ref reached the remote.
    let refs = remote.git(&[
        "--git-dir",
        bare.to_str().unwrap(),
        "for-each-ref",
        "--format=%(refname)",
    ]);
    assert_eq!(refs.trim(), "refs/heads/main");

    // The user's hook saw git's exact arguments and ref lines.
    let zero = repo.zero_id();
    let lines: String = ["a-good", "b-bad"]
        .iter()
        .map(|b| {
            let id = repo.git(&["rev-parse", b]).trim().to_string();
            format!("refs/heads/{b} {id} refs/heads/{b} {zero}\n")
        })
        .collect();
    let recorded = std::fs::read_to_string(repo.path().join("pre-push.stdin")).unwrap();
    assert_eq!(recorded, lines);
    let args = std::fs::read_to_string(repo.path().join("pre-push.args")).unwrap();
    assert_eq!(args, format!("origin\n{}\n", bare.display()));

    // The good ref alone goes through.
    let push = repo.git_output(&["push", "-q", "origin", "a-good"]);
    assert!(push.status.success(), "{}", stderr(&push));
}

#[test]
fn shims_of_older_versions_are_upgraded_and_newer_ones_kept_without_force() {
    let repo = base_repo();
    let hooks = repo.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let old = "#!/bin/sh\n# mastermind-hooks shim v0\nexec mastermind-hooks check --staged\n";
    std::fs::write(hooks.join("pre-commit"), old).unwrap();
    set_mode(&hooks.join("pre-commit"), 0o755);
    let output = repo.run(&["status", "--hook", "pre-commit"], None);
    assert_eq!(status(&output), 1);
    assert!(
        text(&output).contains("hook_shim_outdated"),
        "{}",
        text(&output)
    );
    let output = repo.run(&["install", "--hook", "pre-commit"], None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("upgraded shim v0 to v2"),
        "{}",
        text(&output)
    );
    assert!(
        !hooks.join("pre-commit.legacy").exists(),
        "an old shim is not kept"
    );
    assert!(!hooks.join("pre-push").exists(), "only the named hook");

    let newer = "#!/bin/sh\n# mastermind-hooks shim v99\nexit 0\n";
    std::fs::write(hooks.join("pre-commit"), newer).unwrap();
    let output = repo.run(&["install"], None);
    assert_eq!(status(&output), 2);
    assert!(
        text(&output).contains("hook_shim_newer"),
        "{}",
        text(&output)
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        newer
    );
    assert!(
        !hooks.join("pre-push").exists(),
        "a refusal changes nothing"
    );
    let output = repo.run(&["install", "--force"], None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(text(&output).contains("replaced the newer shim v99"));
}

#[test]
fn install_never_clobbers_a_legacy_hook_and_uninstall_never_removes_foreign_files() {
    let repo = base_repo();
    let hooks = repo.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(hooks.join("pre-commit.legacy"), "#!/bin/sh\nexit 1\n").unwrap();
    let before = dir_state(&hooks);
    let output = repo.run(&["install"], None);
    assert_eq!(status(&output), 2);
    assert!(
        text(&output).contains("hook_legacy_conflict"),
        "{}",
        text(&output)
    );
    assert_eq!(
        dir_state(&hooks),
        before,
        "a refused install writes nothing"
    );
    let output = repo.run(&["uninstall"], None);
    assert_eq!(status(&output), 0);
    assert!(text(&output).contains("pre-commit: not a mastermind-hooks shim, left alone"));
    assert_eq!(dir_state(&hooks), before);

    // A hook manager that chains `pre-commit.legacy` itself would run itself.
    std::fs::remove_file(hooks.join("pre-commit.legacy")).unwrap();
    std::fs::write(
        hooks.join("pre-commit"),
        "#!/bin/sh\n[ -x \"$(dirname \"$0\")/pre-commit.legacy\" ] && \"$(dirname \"$0\")/pre-commit.legacy\"\nexit 0\n",
    )
    .unwrap();
    let output = repo.run(&["install"], None);
    assert_eq!(status(&output), 2);
    assert!(
        text(&output).contains("would run itself"),
        "{}",
        text(&output)
    );
}

#[test]
fn status_notices_shims_git_no_longer_runs() {
    let repo = base_repo();
    install(&repo);
    repo.git(&["config", "core.hooksPath", ".husky"]);
    let output = repo.run(&["status"], None);
    assert_eq!(status(&output), 1);
    let out = text(&output);
    assert!(out.contains("note[hook_shim_stray]"), "{out}");
    assert!(out.contains("hook_not_installed"), "{out}");
}

#[test]
fn git_local_variables_mirror_git_rev_parse_local_env_vars() {
    let repo = TestRepo::new();
    let listed = repo.git(&["rev-parse", "--local-env-vars"]);
    for name in listed.lines() {
        assert!(
            mastermind_hooks::process_env::is_git_local(std::ffi::OsStr::new(name)),
            "{name} is repository-local for git but not cleared"
        );
    }
}

// ---- status snapshots --------------------------------------------------

fn redactions(repo: &TestRepo, binary: &Path) -> snapbox::Redactions {
    let mut redactions = snapbox::Redactions::new();
    let root = std::fs::canonicalize(repo.path()).expect("canonical root");
    redactions
        .insert("[ROOT]", root.display().to_string())
        .expect("root");
    redactions
        .insert("[BIN]", binary.display().to_string())
        .expect("bin");
    redactions
}

fn assert_status(
    repo: &TestRepo,
    binary: &Path,
    args: &[&str],
    code: i32,
    snapshot: snapbox::Data,
) {
    // A PATH of its own: what this machine has installed is not pinned.
    let output = repo.run_env(args, &[("PATH", &path_without_mastermind_hooks())]);
    assert_eq!(status(&output), code, "{}", text(&output));
    snapbox::Assert::new()
        .action_env("SNAPSHOTS")
        .redact_with(redactions(repo, binary))
        .eq(text(&output), snapshot);
}

#[test]
fn status_output_is_pinned() {
    let repo = base_repo();
    let bin = PathBuf::from(BIN);
    assert_status(
        &repo,
        &bin,
        &["status"],
        1,
        snapbox::file!["snapshots/status-fresh.txt"],
    );

    let hooks = repo.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    set_mode(&hooks.join("pre-commit"), 0o755);
    install(&repo);
    assert_status(
        &repo,
        &bin,
        &["status"],
        0,
        snapbox::file!["snapshots/status-installed.txt"],
    );
    assert_status(
        &repo,
        &bin,
        &["status", "--format", "json"],
        0,
        snapbox::file!["snapshots/status-installed.json"],
    );

    // The shim points at a binary that is gone.
    let shim = hooks.join("pre-push");
    let text_of = std::fs::read_to_string(&shim).unwrap();
    std::fs::write(&shim, text_of.replace(BIN, "/nonexistent/mastermind-hooks")).unwrap();
    assert_status(
        &repo,
        &bin,
        &["status"],
        1,
        snapbox::file!["snapshots/status-binary-missing.txt"],
    );
}

#[test]
fn the_commands_are_in_the_help() {
    let output = Command::new(BIN).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&output.stdout);
    for command in ["install", "uninstall", "status"] {
        assert!(help.contains(command), "{help}");
    }
    let output = Command::new(BIN)
        .args(["install", "--hook", "post-commit"])
        .output()
        .unwrap();
    assert_eq!(status(&output), 2, "unknown hook names are usage errors");
}
