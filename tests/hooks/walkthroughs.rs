//! The documents' shell walk-throughs run exactly as written. README.md's
//! quick start, from an empty directory with the built binary on PATH,
//! reaches a committed, pushed and CI-checked task; examples/README.md's
//! steps make the bundled example pass its own gate. The shell blocks are
//! read from the documents at test time, so an edit that breaks a step
//! fails here.

use crate::common::{TEST_GITCONFIG, require_tool};
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_mastermind-hooks");

/// The `sh` blocks between `<!-- NAME:begin -->` and `<!-- NAME:end -->`,
/// joined. A block opens with three or more backticks and `sh`, and closes
/// with exactly as many backticks (so a block may contain a ``` line).
pub fn shell_blocks(doc: &str, name: &str) -> String {
    let begin = format!("<!-- {name}:begin -->");
    let end = format!("<!-- {name}:end -->");
    let start = doc.find(&begin).unwrap_or_else(|| panic!("no {begin}"));
    let stop = doc.find(&end).unwrap_or_else(|| panic!("no {end}"));
    let mut script = String::new();
    let mut fence: Option<&str> = None;
    for line in doc[start..stop].lines() {
        match fence {
            None => {
                let ticks = line.len() - line.trim_start_matches('`').len();
                if ticks >= 3 && line[ticks..].trim() == "sh" {
                    fence = Some(&line[..ticks]);
                }
            }
            Some(ticks) if line == ticks => {
                fence = None;
                script.push('\n');
            }
            Some(_) => {
                script.push_str(line);
                script.push('\n');
            }
        }
    }
    assert!(fence.is_none(), "an sh block in {name} is not closed");
    assert!(!script.trim().is_empty(), "no sh block in {name}");
    script
}

/// Run `script` with `sh -eu` in `dir`, the binary first on PATH, and git
/// isolated from this machine's configuration.
pub fn run_script(script: &str, dir: &Path, home: &Path) -> Output {
    let bin_dir = Path::new(BIN).parent().expect("the binary's directory");
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    std::fs::write(home.join(".gitconfig"), TEST_GITCONFIG).expect("gitconfig");
    let mut cmd = Command::new("sh");
    cmd.arg("-eux").arg("-c").arg(script).current_dir(dir);
    for (var, _) in std::env::vars_os() {
        let name = var.to_string_lossy();
        if name.starts_with("GIT_")
            || name.starts_with("GITHUB_")
            || name.starts_with("GITLAB_")
            || name.starts_with("CI_")
            || name.starts_with("MASTERMIND_HOOKS")
        {
            cmd.env_remove(&var);
        }
    }
    cmd.env("PATH", path)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Newcomer")
        .env("GIT_AUTHOR_EMAIL", "newcomer@example.invalid")
        .env("GIT_COMMITTER_NAME", "Newcomer")
        .env("GIT_COMMITTER_EMAIL", "newcomer@example.invalid")
        .env("NO_COLOR", "1")
        .env_remove("CI");
    cmd.output().expect("run sh")
}

pub fn transcript(output: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn git(dir: &Path, home: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("git");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        transcript(&output)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[test]
fn the_readme_quick_start_reaches_a_committed_pushed_and_ci_checked_task() {
    // The sample project's check runs python3.
    if require_tool("python3").is_none() {
        return;
    }
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    let script = shell_blocks(&readme, "quickstart");
    let dir = tempfile::tempdir().expect("tempdir");
    let home = tempfile::tempdir().expect("home");
    let output = run_script(&script, dir.path(), home.path());
    let log = transcript(&output);
    assert!(output.status.success(), "the quick start failed:\n{log}");

    // Committed: the task and its receipt are in the branch's last commit.
    let demo = dir.path().join("demo");
    let files = git(
        &demo,
        home.path(),
        &["show", "--name-only", "--format=", "HEAD"],
    );
    for expected in [
        "lib.py",
        ".mastermind/tasks/change-value/spec.md",
        ".mastermind/tasks/change-value/executor-report.md",
        ".mastermind/tasks/change-value/verification/python3-unittest.tree.json",
    ] {
        assert!(
            files.lines().any(|f| f == expected),
            "{expected} not committed: {files}\n{log}"
        );
    }
    // Through the hooks: the gate judged the task at commit and at push.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ok: task .mastermind/tasks/change-value (")
            && stderr
                .contains("ok: task .mastermind/tasks/change-value in refs/heads/change-value"),
        "the hooks did not pass the task:\n{log}"
    );
    // Pushed: the remote's branch is the local one.
    let remote = dir.path().join("demo-origin.git");
    assert_eq!(
        git(
            &remote,
            home.path(),
            &["rev-parse", "refs/heads/change-value"]
        ),
        git(&demo, home.path(), &["rev-parse", "HEAD"])
    );
    // CI-checked: the last command's verdict on the task.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("ok: task .mastermind/tasks/change-value (")
            && stdout.contains("1 task checked: 1 passed, 0 failed"),
        "CI did not pass the task:\n{log}"
    );
}

#[test]
fn the_bundled_example_passes_its_own_gate_when_committed_as_a_task() {
    // The sample project's check runs python3.
    if require_tool("python3").is_none() {
        return;
    }
    let doc = std::fs::read_to_string("examples/README.md").expect("examples/README.md");
    let script = shell_blocks(&doc, "walkthrough");
    let dir = tempfile::tempdir().expect("tempdir");
    let home = tempfile::tempdir().expect("home");
    copy_dir(Path::new("examples"), &dir.path().join("examples"));
    let output = run_script(&script, dir.path(), home.path());
    let log = transcript(&output);
    assert!(output.status.success(), "the walk-through failed:\n{log}");
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("ok: task .mastermind/tasks/001-change-value ("),
        "the pre-commit gate did not pass the example:\n{log}"
    );
    // And CI, on the commit against the one before it.
    let ci = run_script(
        "cd demo && mastermind-hooks check --ci --base HEAD~1 --head HEAD",
        dir.path(),
        home.path(),
    );
    assert!(ci.status.success(), "{}", transcript(&ci));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn shell_blocks_keep_inner_fences_of_longer_blocks() {
    let doc = "x\n<!-- t:begin -->\n```sh\na\n```\n```yaml\nno\n```\n````sh\nb <<E\n```yaml\nE\n````\n<!-- t:end -->\n```sh\nafter\n```\n";
    assert_eq!(shell_blocks(doc, "t"), "a\n\nb <<E\n```yaml\nE\n\n");
}

/// The partial report an agent commits mid-task: valid, `partial`, with
/// the defect that says what is left.
const PARTIAL_REPORT: &str = r#"cat > .mastermind/tasks/more-values/executor-report.md <<'EOF'
# Executor report: more-values

<!-- mastermind:report-begin -->
```yaml
schema_version: 1
spec: .mastermind/tasks/more-values/spec.md
status: partial
phases:
  - id: implement
    status: stopped_here
files_modified:
  - extra.py
claims: []
defects:
  - kind: unfinished
    phase: implement
    details: double() is written, its check has not run yet
    remediation_hint: run the check and finish the report
verifications: []
```
<!-- mastermind:report-end -->
EOF
"#;

/// The complete report of a task that changed `files`.
fn complete_report(task: &str, files: &[&str]) -> String {
    let listed: String = files.iter().map(|f| format!("  - {f}\n")).collect();
    format!(
        "cat > .mastermind/tasks/{task}/executor-report.md <<'EOF'\n# Executor report: {task}\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: .mastermind/tasks/{task}/spec.md\nstatus: complete\nphases:\n  - id: implement\n    status: done\nfiles_modified:\n{listed}claims: []\ndefects: []\nverifications:\n  - cmd: python3 -m unittest -v\n    result: pass\n    observed:\n      exit_code: 0\n```\n<!-- mastermind:report-end -->\nEOF\n"
    )
}

#[test]
fn the_quick_start_goes_on_widening_working_in_progress_and_landing_from_a_teammates_clone() {
    if require_tool("python3").is_none() {
        return;
    }
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    let dir = tempfile::tempdir().expect("tempdir");
    let home = tempfile::tempdir().expect("home");
    let step = |what: &str, script: &str| -> Output {
        let output = run_script(script, dir.path(), home.path());
        eprintln!("== {what}\n{}", transcript(&output));
        output
    };
    let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let quick = step("the quick start", &shell_blocks(&readme, "quickstart"));
    assert!(quick.status.success(), "{}", transcript(&quick));

    // The server runs the gate from here on.
    let server = step(
        "install --server",
        "cd demo-origin.git && mastermind-hooks install --server",
    );
    assert!(server.status.success(), "{}", transcript(&server));

    // 1. A second commit widens the pushed task: declare, edit, re-run the
    // check `task widen` names, report, commit, push. No refusal.
    let widen = step(
        "widen the task",
        &format!(
            "cd demo\nmastermind-hooks task widen change-value --touches test_lib.py\nprintf '\\n    def test_value_is_an_int(self):\\n        self.assertIsInstance(value(), int)\\n' >> test_lib.py\nmastermind-hooks verification run .mastermind/tasks/change-value/spec.md --id python3-unittest\n{}git add -A && git commit -qm 'change-value: test_lib.py too'\ngit push -q\n",
            complete_report("change-value", &["lib.py", "test_lib.py"])
        ),
    );
    assert!(widen.status.success(), "{}", transcript(&widen));
    let printed = stderr(&widen);
    assert!(
        printed.contains("ok: task .mastermind/tasks/change-value (")
            && printed
                .contains("ok: task .mastermind/tasks/change-value in refs/heads/change-value")
            && !printed.contains("error["),
        "{printed}"
    );

    // 2. Work in progress on a feature branch: committed and pushed with
    // warnings, exit 0, through pre-commit, pre-push and pre-receive.
    let wip = step(
        "a work-in-progress commit and push",
        &format!(
            "cd demo\ngit switch -q -c more-values\nmastermind-hooks task new more-values --touches extra.py --check 'python3 -m unittest -v'\nprintf 'def double():\\n    return 4\\n' > extra.py\n{PARTIAL_REPORT}git add -A && git commit -qm 'wip: double()'\ngit push -q -u origin more-values\n"
        ),
    );
    assert!(wip.status.success(), "{}", transcript(&wip));
    let printed = stderr(&wip);
    assert!(
        printed.matches("warning[work_in_progress]").count() >= 3,
        "pre-commit, pre-push and pre-receive each warn: {printed}"
    );
    assert!(
        printed.contains("remote: ") && !printed.contains("error["),
        "{printed}"
    );
    assert!(
        printed.contains(
            "mastermind-hooks verification run .mastermind/tasks/more-values/spec.md --id python3-unittest"
        ),
        "the warning names the command that finishes the task: {printed}"
    );

    // What is unfinished does not land: CI on the branch's merge, and a
    // push to main past the local hook, which pre-receive refuses.
    let ci = step(
        "CI on the unfinished branch",
        "cd ci && git fetch -q && mastermind-hooks check --ci --base origin/main --head origin/more-values",
    );
    assert_eq!(ci.status.code(), Some(1), "{}", transcript(&ci));
    let refused = step(
        "an unfinished push to main",
        "cd demo && git push -q --no-verify origin more-values:main",
    );
    assert!(!refused.status.success(), "{}", transcript(&refused));
    assert!(
        stderr(&refused).contains("remote: ") && stderr(&refused).contains("error["),
        "{}",
        transcript(&refused)
    );

    // 3. A teammate's clone, hooks installed there, finishes the task and
    // lands it on main.
    let finish = step(
        "a teammate finishes the task",
        &format!(
            "git clone -q demo-origin.git teammate && cd teammate\nmastermind-hooks install\ngit switch -q more-values\nmastermind-hooks verification run .mastermind/tasks/more-values/spec.md --id python3-unittest\n{}git add -A && git commit -qm 'more-values: done'\ngit push -q origin more-values\n",
            complete_report("more-values", &["extra.py"])
        ),
    );
    assert!(finish.status.success(), "{}", transcript(&finish));
    let printed = stderr(&finish);
    assert!(
        printed.contains("ok: task .mastermind/tasks/more-values (")
            && !printed.contains("warning[work_in_progress]")
            && !printed.contains("error["),
        "{printed}"
    );
    let ci = step(
        "CI on the finished branch",
        "cd ci && git fetch -q && mastermind-hooks check --ci --base origin/main --head origin/more-values",
    );
    assert!(ci.status.success(), "{}", transcript(&ci));
    let land = step(
        "land on main",
        "cd teammate && git switch -q main && git merge -q --ff-only more-values && git push -q origin main",
    );
    assert!(land.status.success(), "{}", transcript(&land));
    assert!(!stderr(&land).contains("error["), "{}", transcript(&land));
    assert_eq!(
        git(
            &dir.path().join("demo-origin.git"),
            home.path(),
            &["rev-parse", "main"]
        ),
        git(
            &dir.path().join("demo-origin.git"),
            home.path(),
            &["rev-parse", "more-values"]
        ),
    );
}
