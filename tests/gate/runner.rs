//! The runner as a user meets it, on real repositories: output streamed
//! while it is hashed, `--all`, a wrong id, named input changes, the
//! commands every hint prints, isolated runs that only see the content
//! that lands (in a git worktree of it, prepared by `rerun.setup`, keeping
//! a failed attempt aside instead of destroying the earlier receipt),
//! submodule checkouts the digest cannot see, and `acceptance status`'s
//! fixes.

use crate::common::*;
use mastermind_hooks::contract::mastermind::argv_display::display_command;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::process::Output;

const TASK: &str = ".mastermind/tasks/001-t";
const SPEC: &str = ".mastermind/tasks/001-t/spec.md";

/// A spec declaring one observed check per `(id, argv)`, with an acceptance
/// criterion over all of them, and a report that lists `files`.
fn write_task(repo: &TestRepo, checks: &[(&str, &[&str])], files: &[&str]) {
    let mut verify = String::new();
    for (id, argv) in checks {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        verify.push_str(&format!(
            "  - cmd: {}\n    run:\n      id: {id}\n      argv: {}\n      cwd: .\n      timeout_secs: 60\n",
            serde_json::to_string(&display_command(&argv)).unwrap(),
            serde_json::to_string(&argv).unwrap()
        ));
    }
    let ids: Vec<&str> = checks.iter().map(|(id, _)| *id).collect();
    let touches: String = files.iter().map(|f| format!("  - file: {f}\n")).collect();
    repo.write(
        SPEC,
        &format!(
            "---\nmode: verified\ntouches:\n{touches}verify:\n{verify}acceptance:\n  - id: works\n    statement: The change works.\n    checks: [{}]\n---\n# Task\n",
            ids.join(", ")
        ),
    );
    let rows: String = checks
        .iter()
        .map(|(_, argv)| {
            let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
            format!(
                "  - cmd: {}\n    result: pass\n",
                serde_json::to_string(&display_command(&argv)).unwrap()
            )
        })
        .collect();
    let listed: String = files.iter().map(|f| format!("  - {f}\n")).collect();
    repo.write(
        &format!("{TASK}/executor-report.md"),
        &format!(
            "# Report\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: {SPEC}\nstatus: complete\nphases: []\nfiles_modified:\n{listed}claims: []\ndefects: []\nverifications:\n{rows}```\n<!-- mastermind:report-end -->\n"
        ),
    );
}

fn base_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/lib.py", "def value():\n    return 1\n");
    repo.write("README.md", "# demo\n");
    repo.write("notes.txt", "notes\n");
    repo.commit_all("base");
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo
}

fn verify(repo: &TestRepo, extra: &[&str]) -> Output {
    let mut args = vec!["verification", "run", SPEC];
    args.extend_from_slice(extra);
    repo.run(&args, None)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn receipt(repo: &TestRepo, id: &str) -> Value {
    let path = repo
        .path()
        .join(format!("{TASK}/verification/{id}.tree.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// An isolated run's attempt kept aside under the git directory.
fn aside(repo: &TestRepo, id: &str) -> Option<Value> {
    let path = repo.path().join(format!(
        ".git/mastermind-hooks/isolated/{TASK}/{id}.tree.json"
    ));
    std::fs::read(path)
        .ok()
        .map(|bytes| serde_json::from_slice(&bytes).unwrap())
}

fn run_line(id: Option<&str>) -> String {
    match id {
        Some(id) => format!("mastermind-hooks verification run {SPEC} --id {id}"),
        None => format!("mastermind-hooks verification run {SPEC} --all"),
    }
}

#[test]
fn output_streams_to_stderr_while_it_is_hashed_and_quiet_silences_it() {
    let repo = base_repo();
    let script: &[&str] = &["sh", "-c", "echo out-marker; echo err-marker >&2"];
    write_task(&repo, &[("unit", script)], &["src/lib.py"]);
    let out = verify(&repo, &["--id", "unit"]);
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert!(stderr(&out).contains("out-marker"), "{}", stderr(&out));
    assert!(stderr(&out).contains("err-marker"), "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("marker"),
        "stdout is for the result: {}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("verification `unit`: passed"));
    let written = receipt(&repo, "unit");
    assert_eq!(
        written["stdout"]["sha256"],
        hex::encode(Sha256::digest(b"out-marker\n"))
    );
    assert_eq!(written["stderr"]["bytes"], 11);

    let out = verify(&repo, &["--id", "unit", "--quiet"]);
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert!(!text(&out).contains("marker"), "{}", text(&out));
    assert_eq!(receipt(&repo, "unit")["stdout"], written["stdout"]);
    // --json keeps stdout a JSON document while the output streams.
    let out = verify(&repo, &["--id", "unit", "--json"]);
    assert_eq!(json(&out)["status"], "passed");
    assert!(stderr(&out).contains("out-marker"));
}

#[test]
fn all_runs_every_check_in_order_and_exits_with_the_worst() {
    let repo = base_repo();
    let a: &[&str] = &["sh", "-c", "echo first-check"];
    let b: &[&str] = &["sh", "-c", "echo second-check; exit 3"];
    let c: &[&str] = &["sh", "-c", "echo third-check"];
    write_task(&repo, &[("a", a), ("b", b), ("c", c)], &["src/lib.py"]);
    let out = verify(&repo, &["--all"]);
    assert_eq!(status(&out), 1, "{}", text(&out));
    let err = stderr(&out);
    let positions: Vec<usize> = ["first-check", "second-check", "third-check"]
        .iter()
        .map(|m| err.find(m).unwrap_or_else(|| panic!("{m} missing: {err}")))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{err}");
    assert_eq!(receipt(&repo, "a")["status"], "passed");
    assert_eq!(receipt(&repo, "b")["status"], "failed");
    assert_eq!(receipt(&repo, "c")["status"], "passed");
    assert!(
        stdout(&out).contains("2 of 3 checks passed."),
        "{}",
        stdout(&out)
    );
    // The failing one says how to run it again.
    assert!(err.contains(&run_line(Some("b"))), "{err}");
    // --json: an array of the receipts, in order.
    let out = verify(&repo, &["--all", "--json", "--quiet"]);
    let receipts = json(&out);
    let ids: Vec<&str> = receipts
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["check_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(receipts[1]["attempt"], 2);
    // --id and --all are exclusive; one is required.
    assert_eq!(status(&verify(&repo, &[])), 2);
    assert_eq!(status(&verify(&repo, &["--id", "a", "--all"])), 2);
}

#[test]
fn a_wrong_id_lists_the_declared_ones_and_writes_nothing() {
    let repo = base_repo();
    let (lint, unit): (&[&str], &[&str]) = (&["true"], &["sh", "-c", "true"]);
    write_task(&repo, &[("lint", lint), ("unit", unit)], &["src/lib.py"]);
    let out = verify(&repo, &["--id", "uint"]);
    assert_eq!(status(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("observed_verification_not_declared"), "{err}");
    assert!(err.contains("it declares `lint`, `unit`"), "{err}");
    assert!(err.contains(&run_line(Some("lint"))), "{err}");
    assert!(err.contains(&run_line(None)), "{err}");
    assert!(!repo.path().join(format!("{TASK}/verification")).exists());
}

#[test]
fn input_changed_names_the_paths_and_suggests_ignoring_generated_files() {
    let repo = base_repo();
    let script: &[&str] = &[
        "sh",
        "-c",
        "mkdir -p src/__pycache__ && echo x > src/__pycache__/lib.cpython-312.pyc && echo more >> README.md && rm notes.txt",
    ];
    write_task(&repo, &[("unit", script)], &["src/lib.py"]);
    let out = verify(&repo, &["--id", "unit"]);
    assert_eq!(status(&out), 1, "{}", text(&out));
    assert_eq!(receipt(&repo, "unit")["status"], "input_changed");
    let err = stderr(&out);
    assert!(
        err.contains("appeared: src/__pycache__/lib.cpython-312.pyc"),
        "{err}"
    );
    assert!(err.contains("changed: README.md"), "{err}");
    assert!(err.contains("vanished: notes.txt"), "{err}");
    assert!(err.contains(".gitignore"), "{err}");
    assert!(
        err.contains(&format!("{} --isolated", run_line(Some("unit")))),
        "{err}"
    );
}

#[test]
fn a_path_named_in_output_cannot_inject_lines_or_escapes() {
    let repo = base_repo();
    let script: &[&str] = &[
        "sh",
        "-c",
        "printf x > \"$(printf 'evil\\n::error::forged\\033[31m.txt')\"",
    ];
    write_task(&repo, &[("unit", script)], &["src/lib.py"]);
    let out = verify(&repo, &["--id", "unit", "--quiet"]);
    assert_eq!(status(&out), 1, "{}", text(&out));
    let err = stderr(&out);
    assert!(err.contains("evil\\n::error::forged\\x1b[31m.txt"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(
        !err.lines().any(|l| l.starts_with("::")),
        "no line starts a workflow command: {err}"
    );
}

#[test]
fn isolated_runs_see_exactly_the_index_or_a_commit() {
    let repo = base_repo();
    // Passes only when helper.txt exists next to it.
    let check: &[&str] = &[
        "sh",
        "-c",
        "test -f helper.txt && grep -q 'return 2' src/lib.py",
    ];
    write_task(&repo, &[("unit", check)], &["src/lib.py", "helper.txt"]);
    repo.git(&["add", "-A"]);
    repo.write("helper.txt", "local only\n");
    // Untracked: the working tree run passes, the isolated one cannot.
    assert_eq!(status(&verify(&repo, &["--id", "unit", "--quiet"])), 0);
    let before = fingerprint(&repo);
    let out = verify(&repo, &["--id", "unit", "--isolated", "--quiet"]);
    assert_eq!(status(&out), 1, "{}", text(&out));
    // The failed attempt is kept aside; the earlier receipt stays.
    assert_eq!(receipt(&repo, "unit")["status"], "passed");
    assert_eq!(aside(&repo, "unit").unwrap()["status"], "failed");
    assert!(
        stderr(&out).contains("verification_kept_aside"),
        "{}",
        stderr(&out)
    );
    let after = fingerprint(&repo);
    assert_eq!(
        (&before.0, &before.1, &before.3),
        (&after.0, &after.1, &after.3),
        "no refs, index or objects written"
    );
    // Ignored by .git/info/exclude, or by .gitignore: the same.
    std::fs::write(repo.path().join(".git/info/exclude"), "helper.txt\n").unwrap();
    assert_eq!(status(&verify(&repo, &["--id", "unit", "--quiet"])), 0);
    assert_eq!(
        status(&verify(&repo, &["--id", "unit", "--isolated", "--quiet"])),
        1
    );
    // Staged, it is part of what lands: the isolated run passes, and its
    // receipt is current for the index.
    repo.git(&["add", "-f", "helper.txt"]);
    let attempt = receipt(&repo, "unit")["attempt"].as_u64().unwrap();
    let out = verify(&repo, &["--id", "unit", "--isolated", "--quiet", "--json"]);
    assert_eq!(status(&out), 0, "{}", text(&out));
    let written = json(&out);
    // A pass takes the receipt's place; nothing is left aside.
    assert_eq!(receipt(&repo, "unit"), written);
    assert_eq!(written["attempt"].as_u64(), Some(attempt + 1));
    assert!(aside(&repo, "unit").is_none());
    let staged_digest = repo.run(&["digest", "--staged"], None);
    assert!(
        stdout(&staged_digest).contains(written["tree_before"].as_str().unwrap()),
        "{} vs {}",
        stdout(&staged_digest),
        written["tree_before"]
    );
    repo.git(&["add", "-A"]);
    let out = repo.run(&["check", "--staged", "--format", "json"], None);
    assert_eq!(status(&out), 0, "{}", text(&out));
    // An unstaged edit is not what lands; the isolated run does not see it.
    repo.write("src/lib.py", "def value():\n    return 3\n");
    assert_eq!(
        status(&verify(&repo, &["--id", "unit", "--isolated", "--quiet"])),
        0
    );
    assert_eq!(status(&verify(&repo, &["--id", "unit", "--quiet"])), 1);
    // --rev: the base commit has neither the helper nor the spec.
    let out = verify(&repo, &["--id", "unit", "--isolated", "--rev", "HEAD"]);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(
        stderr(&out).contains("is not in commit"),
        "{}",
        stderr(&out)
    );
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "task"]);
    repo.git(&["rm", "-q", "--cached", "helper.txt"]);
    assert_eq!(
        status(&verify(&repo, &["--id", "unit", "--isolated", "--quiet"])),
        1,
        "the index no longer has the helper"
    );
    assert_eq!(
        status(&verify(
            &repo,
            &["--id", "unit", "--isolated", "--rev", "HEAD", "--quiet"]
        )),
        0,
        "the commit does"
    );
}

#[test]
fn an_isolated_checkout_keeps_modes_and_links_and_ignores_new_files() {
    let repo = base_repo();
    repo.write("bin/tool", "#!/bin/sh\necho tool-ran\n");
    make_executable(&repo.path().join("bin/tool"));
    std::os::unix::fs::symlink("src/lib.py", repo.path().join("lib-link")).unwrap();
    let check: &[&str] = &[
        "sh",
        "-c",
        "./bin/tool && test -L lib-link && grep -q 'return 2' lib-link && mkdir -p gen && echo x > gen/out && git ls-files --error-unmatch lib-link bin/tool >/dev/null && git diff --exit-code && test \"$(git rev-parse HEAD^{tree})\" = \"$(git write-tree)\"",
    ];
    write_task(
        &repo,
        &[("unit", check)],
        &["src/lib.py", "bin/tool", "lib-link"],
    );
    repo.git(&["add", "-A"]);
    let out = verify(&repo, &["--id", "unit", "--isolated"]);
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert!(stderr(&out).contains("tool-ran"));
    assert!(
        !repo.path().join("gen").exists(),
        "nothing lands in the tree"
    );
    // A check that edits the files it runs on is input_changed.
    let edits: &[&str] = &["sh", "-c", "echo more >> README.md"];
    write_task(&repo, &[("unit", edits)], &["src/lib.py"]);
    repo.git(&["add", "-A"]);
    let out = verify(&repo, &["--id", "unit", "--isolated", "--quiet"]);
    assert_eq!(status(&out), 1, "{}", text(&out));
    assert_eq!(aside(&repo, "unit").unwrap()["status"], "input_changed");
    assert!(
        stderr(&out).contains("changed: README.md"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join("README.md")).unwrap(),
        "# demo\n"
    );
}

fn submodule_repo() -> (TestRepo, TestRepo) {
    let sub = TestRepo::new();
    sub.write("lib.txt", "v1\n");
    sub.commit_all("sub v1");
    let repo = base_repo();
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        &sub.path().display().to_string(),
        "vendor/sub",
    ]);
    repo.commit_all("with submodule");
    (sub, repo)
}

#[test]
fn a_dirty_or_unrecorded_submodule_checkout_is_refused() {
    let (_sub, repo) = submodule_repo();
    let check: &[&str] = &["sh", "-c", "grep -q v1 vendor/sub/lib.txt"];
    write_task(&repo, &[("unit", check)], &["src/lib.py"]);
    repo.git(&["add", "-A"]);
    assert_eq!(status(&verify(&repo, &["--id", "unit", "--quiet"])), 0);
    let out = verify(&repo, &["--id", "unit", "--isolated", "--quiet"]);
    assert_eq!(
        status(&out),
        0,
        "the submodule is checked out: {}",
        text(&out)
    );
    let previous = receipt(&repo, "unit");

    // Dirty: an untracked file in the submodule.
    repo.write("vendor/sub/extra.txt", "x\n");
    for extra in [&[][..], &["--isolated"][..]] {
        let mut args = vec!["--id", "unit", "--quiet"];
        args.extend_from_slice(extra);
        let out = verify(&repo, &args);
        assert_eq!(status(&out), 2, "{extra:?}: {}", text(&out));
        assert!(
            stderr(&out).contains("verification_submodule_unusable"),
            "{}",
            stderr(&out)
        );
        assert!(stderr(&out).contains("untracked"), "{}", stderr(&out));
    }
    assert_eq!(receipt(&repo, "unit"), previous, "a refusal writes nothing");
    std::fs::remove_file(repo.path().join("vendor/sub/extra.txt")).unwrap();

    // Unrecorded: the submodule moved to a commit the index does not record.
    let inner = repo.path().join("vendor/sub");
    let mut git = repo.command("git");
    git.current_dir(&inner)
        .args(["commit", "-q", "--allow-empty", "-m", "moved"]);
    assert!(git.status().unwrap().success());
    let out = verify(&repo, &["--id", "unit", "--quiet"]);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(stderr(&out).contains("checked out at"), "{}", stderr(&out));
    assert!(stderr(&out).contains("git submodule update"));
}

#[test]
fn acceptance_status_prints_the_command_that_fixes_each_blocked_check() {
    let repo = base_repo();
    let (lint, unit): (&[&str], &[&str]) = (&["true"], &["sh", "-c", "true"]);
    write_task(&repo, &[("lint", lint), ("unit", unit)], &["src/lib.py"]);
    assert_eq!(status(&verify(&repo, &["--id", "lint", "--quiet"])), 0);
    let out = repo.run(&["acceptance", "status", SPEC], None);
    assert_eq!(status(&out), 1, "{}", text(&out));
    let shown = stdout(&out);
    assert!(shown.contains("check unit: missing"), "{shown}");
    assert!(
        shown.contains(&format!("fix: {}", run_line(Some("unit")))),
        "{shown}"
    );
    assert!(
        !shown.contains(&format!("fix: {}", run_line(Some("lint")))),
        "{shown}"
    );
    assert!(shown.contains(&run_line(None)), "{shown}");
}

#[test]
fn a_working_tree_run_is_not_refused_for_an_unmerged_index() {
    let repo = base_repo();
    repo.commit_all("lib two");
    repo.git(&["checkout", "-q", "-b", "other", "HEAD~1"]);
    repo.write("notes.txt", "theirs\n");
    repo.commit_all("other notes");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("notes.txt", "ours\n");
    repo.commit_all("our notes");
    let merge = repo.git_output(&["merge", "-q", "other"]);
    assert!(!merge.status.success(), "the merge conflicts");
    let ok: &[&str] = &["true"];
    write_task(&repo, &[("unit", ok)], &["src/lib.py"]);
    let out = verify(&repo, &["--id", "unit", "--quiet"]);
    assert_eq!(status(&out), 0, "{}", text(&out));
    // An isolated run needs an index it can check out.
    let out = verify(&repo, &["--id", "unit", "--isolated", "--quiet"]);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert!(stderr(&out).contains("unmerged"), "{}", stderr(&out));
}

#[test]
fn a_crafted_tree_cannot_write_outside_or_into_git_metadata() {
    let repo = base_repo();
    let ok: &[&str] = &["true"];
    write_task(&repo, &[("unit", ok)], &["src/lib.py"]);
    repo.commit_all("task");
    let mut hash = repo.command("git");
    hash.args(["hash-object", "-w", "--stdin"]);
    let blob = {
        let out = run_with_stdin(hash, Some("payload\n"));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let inner = {
        let mut mktree = repo.command("git");
        mktree.arg("mktree");
        let out = run_with_stdin(mktree, Some(&format!("100644 blob {blob}\tescape.txt\n")));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let listing = repo.git(&["ls-tree", "HEAD"]);
    for bad in [".GIT", ".."] {
        let mut mktree = repo.command("git");
        mktree.arg("mktree");
        let out = run_with_stdin(
            mktree,
            Some(&format!("{listing}040000 tree {inner}\t{bad}\n")),
        );
        assert!(out.status.success(), "{}", text(&out));
        let tree = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let commit = repo.git(&["commit-tree", &tree, "-p", "HEAD", "-m", "crafted"]);
        let out = verify(
            &repo,
            &[
                "--id",
                "unit",
                "--isolated",
                "--rev",
                commit.trim(),
                "--quiet",
            ],
        );
        assert_eq!(status(&out), 2, "{bad}: {}", text(&out));
        assert!(
            stderr(&out).contains("verification_isolation_failed"),
            "{bad}: {}",
            stderr(&out)
        );
    }
    let parent = repo.path().parent().unwrap();
    assert!(!parent.join("escape.txt").exists());
}

#[test]
fn the_runner_s_lock_is_transient_and_never_left_to_be_committed() {
    let repo = base_repo();
    write_task(&repo, &[("unit", &["true"])], &["src/lib.py"]);
    let out = verify(&repo, &["--id", "unit"]);
    assert_eq!(status(&out), 0, "{}", text(&out));
    let lock = repo.path().join(TASK).join("verification/run.lock");
    assert!(!lock.exists(), "the lock this run created is gone");
    repo.git(&["add", "-A"]);
    let staged = repo.git(&["diff", "--cached", "--name-only"]);
    assert!(!staged.contains("run.lock"), "{staged}");
    // A lock file that was already there (the reference runner keeps one)
    // is left in place.
    std::fs::write(&lock, "").unwrap();
    let out = verify(&repo, &["--id", "unit"]);
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert!(lock.exists());
}

#[test]
fn an_isolated_run_is_prepared_by_the_committed_rerun_setup() {
    let repo = base_repo();
    repo.write(".gitignore", "tools/\n");
    repo.write(
        ".mastermind/hooks.yaml",
        "rerun:\n  setup:\n    - [sh, -c, 'mkdir -p tools && printf \"#!/bin/sh\\necho generated-tool\\n\" > tools/gen && chmod +x tools/gen']\n",
    );
    repo.commit_all("setup");
    // The developer's own copy of the ignored tool.
    repo.write("tools/gen", "#!/bin/sh\necho local-tool\n");
    make_executable(&repo.path().join("tools/gen"));
    let check: &[&str] = &["tools/gen"];
    write_task(&repo, &[("unit", check)], &["src/lib.py"]);
    repo.git(&["add", "-A"]);
    let out = verify(&repo, &["--id", "unit", "--isolated"]);
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert!(stderr(&out).contains("generated-tool"), "{}", stderr(&out));
    // An uncommitted change of the configuration does not choose the setup.
    repo.write(".mastermind/hooks.yaml", "rerun:\n  setup: []\n");
    let out = verify(&repo, &["--id", "unit", "--isolated", "--quiet"]);
    assert_eq!(status(&out), 0, "{}", text(&out));
    // Without a setup that installs it, the tool is missing there.
    repo.write(".mastermind/hooks.yaml", "rerun:\n  setup: []\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "no setup"]);
    let out = verify(&repo, &["--id", "unit", "--isolated", "--quiet"]);
    assert_eq!(status(&out), 2, "{}", text(&out));
    assert_eq!(aside(&repo, "unit").unwrap()["status"], "spawn_failed");
}

/// The spec an agent writes for `npm run build && npm run lint`, argv split
/// at the spaces: refused, with a declared shell as the fix; the fix,
/// applied as the help words it, makes a failing second command fail the
/// check (before, the second command was an argument of the first and the
/// check passed).
#[test]
fn a_shell_operator_in_argv_is_refused_and_its_fix_fails_on_the_second_command() {
    let repo = base_repo();
    repo.write("scripts/build", "#!/bin/sh\necho built \"$@\"\n");
    repo.write(
        "scripts/lint",
        "#!/bin/sh\ngrep -q 'return 2' src/lib.py || { echo 'lint: value() must return 2' >&2; exit 1; }\n",
    );
    make_executable(&repo.path().join("scripts/build"));
    make_executable(&repo.path().join("scripts/lint"));
    repo.write("src/lib.py", "def value():\n    return 3\n");
    let split = |cmd: &str| -> Vec<String> { cmd.split(' ').map(str::to_string).collect() };
    let argv = split("scripts/build && scripts/lint");
    let spec = |cmd: &str, argv: &str| {
        format!(
            "---\nmode: verified\ntouches:\n  - file: src/lib.py\nverify:\n  - cmd: {cmd}\n    run:\n      id: build\n      argv: {argv}\n      cwd: .\n      timeout_secs: 60\n---\n# Task\n"
        )
    };
    repo.write(
        SPEC,
        &spec(
            "\"scripts/build && scripts/lint\"",
            &serde_json::to_string(&argv).unwrap(),
        ),
    );
    let out = repo.run(&["validate", SPEC, "--format", "json"], None);
    assert_eq!(status(&out), 1, "{}", stdout(&out));
    let found = &json(&out)["files"][0]["diagnostics"];
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[0]["code"], "verification_argv_shell_operator");
    let hint = found[0]["hint"].as_str().unwrap();
    assert!(!hint.contains("'&&'"), "never a quoted operator: {hint}");
    // Nothing runs a refused declaration, so no receipt claims a pass.
    let out = verify(&repo, &["--id", "build"]);
    assert_ne!(status(&out), 0, "{}", stderr(&out));
    assert!(
        !repo
            .path()
            .join(format!("{TASK}/verification/build.tree.json"))
            .exists()
    );

    // The fix, exactly as the help gives it.
    let between = |from: &str| {
        let start = hint.find(from).unwrap() + from.len();
        hint[start..start + hint[start..].find('`').unwrap()].to_string()
    };
    let (fixed_argv, fixed_cmd) = (between("`argv: "), between("`cmd: "));
    assert_eq!(fixed_argv, "[sh, -c, 'scripts/build && scripts/lint']");
    repo.write(
        SPEC,
        &spec(&serde_json::to_string(&fixed_cmd).unwrap(), &fixed_argv),
    );
    let out = repo.run(&["validate", SPEC], None);
    assert_eq!(status(&out), 0, "{}", stdout(&out));
    let out = verify(&repo, &["--id", "build"]);
    assert_eq!(
        status(&out),
        1,
        "the second command fails the check: {}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("lint: value() must return 2"),
        "{}",
        stderr(&out)
    );
    assert_eq!(receipt(&repo, "build")["status"], "failed");
    // And passes once the second command does.
    repo.write("src/lib.py", "def value():\n    return 2\n");
    let out = verify(&repo, &["--id", "build"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("built"),
        "the first command ran: {}",
        stderr(&out)
    );
    assert_eq!(receipt(&repo, "build")["status"], "passed");
}
