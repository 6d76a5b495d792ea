//! The agent's own gate end to end, through the command lines the committed
//! settings hold, run the way each harness runs them: through a shell, the
//! payload on stdin, the answer taken by the harness's documented rules
//! (Claude Code's hooks reference, Codex's hooks page: on exit status 0 the
//! JSON on stdout, on 2 a block whose reason is stderr, anything else a
//! non-blocking error). Codex runs hook commands through `$SHELL -lc`; the
//! settings' command is one `sh -c '...'` word, so `sh -c` stands in for
//! both.
//!
//! Stop judges against the landing target; an answer is required and an
//! override must answer as mastermind-hooks; no trap without the binary
//! (a Codex session has no block cap of its own); the guard's forms on a
//! real repository; and the book's "What it cannot see" held to a table.

use crate::common::{self, TestRepo, status, text};
use serde_json::{Value, json};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/agent");
const HARNESSES: [&str; 2] = ["claude-code", "codex"];

fn fixture(path: &str) -> Value {
    let text = std::fs::read_to_string(format!("{DATA}/{path}")).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

fn settings_file(harness: &str) -> &'static str {
    match harness {
        "codex" => ".codex/hooks.json",
        _ => ".claude/settings.json",
    }
}

/// The payload `harness` sends for `event`, in `repo`, for `session`.
fn payload(harness: &str, event: &str, repo: &TestRepo, session: &str) -> Value {
    let file = match (harness, event) {
        ("codex", "Stop") => "codex/stop.json",
        ("codex", "PreToolUse") => "codex/pre-tool-use.json",
        ("codex", _) => "codex/subagent-stop.json",
        (_, "Stop") => "claude-code/stop.json",
        (_, "PreToolUse") => "claude-code/pre-tool-use-bash.json",
        _ => "claude-code/subagent-stop.json",
    };
    let mut payload = fixture(file);
    payload["cwd"] = json!(repo.path().display().to_string());
    payload["session_id"] = json!(session);
    payload
}

fn stop_payload(harness: &str, repo: &TestRepo, session: &str, active: bool) -> Value {
    let mut p = payload(harness, "Stop", repo, session);
    p["stop_hook_active"] = json!(active);
    p
}

fn shell_payload(harness: &str, repo: &TestRepo, command: &str) -> Value {
    let mut p = payload(harness, "PreToolUse", repo, "guard");
    p["tool_input"]["command"] = json!(command);
    p
}

/// How a harness takes a hook's answer.
#[derive(Clone, Debug, PartialEq)]
enum Taken {
    /// The action goes on; the note the user sees, if any.
    Allowed(Option<String>),
    /// The stop is blocked or the tool call refused; what the agent reads.
    Blocked(String),
    /// A non-blocking error: the action goes on unchecked.
    Failed(String),
}

impl Taken {
    fn blocked(&self) -> &str {
        match self {
            Taken::Blocked(reason) => reason,
            other => panic!("not blocked: {other:?}"),
        }
    }

    fn note(&self) -> &str {
        match self {
            Taken::Allowed(Some(note)) => note,
            other => panic!("not allowed with a note: {other:?}"),
        }
    }
}

fn take(output: &Output) -> Taken {
    match status(output) {
        0 => {
            let stdout = String::from_utf8_lossy(&output.stdout);
            if stdout.trim().is_empty() {
                return Taken::Allowed(None);
            }
            let v: Value = serde_json::from_str(&stdout)
                .unwrap_or_else(|e| panic!("the harness reads no JSON here ({e}): {stdout}"));
            if v["decision"] == "block" {
                return Taken::Blocked(v["reason"].as_str().expect("reason").to_string());
            }
            if v["hookSpecificOutput"]["permissionDecision"] == "deny" {
                return Taken::Blocked(
                    v["hookSpecificOutput"]["permissionDecisionReason"]
                        .as_str()
                        .expect("reason")
                        .to_string(),
                );
            }
            Taken::Allowed(v["systemMessage"].as_str().map(str::to_string))
        }
        2 => Taken::Blocked(String::from_utf8_lossy(&output.stderr).into_owned()),
        n => Taken::Failed(format!("exit {n}: {}", text(output))),
    }
}

/// A PATH with this build's mastermind-hooks first.
fn path_with_binary() -> OsString {
    let dir = Path::new(common::BIN).parent().expect("target dir");
    let mut path = OsString::from(dir);
    path.push(":");
    path.push(common::tools::path_without(&["mastermind-hooks"]));
    path
}

fn path_without_binary() -> OsString {
    common::tools::path_without(&["mastermind-hooks"])
}

/// A PATH whose `mastermind-hooks` is the script `body`.
fn path_with_fake(dir: &Path, body: &str) -> OsString {
    let bin = dir.join("mastermind-hooks");
    std::fs::write(&bin, format!("#!/bin/sh\n{body}")).expect("fake binary");
    common::make_executable(&bin);
    let mut path = OsString::from(dir);
    path.push(":");
    path.push(path_without_binary());
    path
}

/// The settings' own command line for `event`.
fn entry(repo: &TestRepo, harness: &str, event: &str) -> String {
    let text = std::fs::read_to_string(repo.path().join(settings_file(harness))).expect("settings");
    let doc: Value = serde_json::from_str(&text).expect("settings JSON");
    doc["hooks"][event]
        .as_array()
        .expect("event")
        .iter()
        .flat_map(|group| group["hooks"].as_array().cloned().unwrap_or_default())
        .filter_map(|h| h["command"].as_str().map(str::to_string))
        .find(|c| c.contains("agent-hook"))
        .expect("our entry")
}

/// Run the settings' command line for `event` as the harness does, on a
/// machine whose PATH is `path`, with `env` from the harness.
fn run_hook(
    repo: &TestRepo,
    harness: &str,
    event: &str,
    payload: &Value,
    path: &OsString,
    env: &[(&str, &str)],
) -> Taken {
    let command = entry(repo, harness, event);
    let mut cmd = repo.command("sh");
    cmd.args(["-c", &command]).env("PATH", path);
    cmd.env_remove("MASTERMIND_HOOKS_BIN");
    for (k, v) in env {
        cmd.env(k, v);
    }
    take(&common::run_with_stdin(cmd, Some(&payload.to_string())))
}

/// A bare remote whose main holds `src/a.rs` and the agent hooks of
/// `harness`, and a clone where the agent works on the branch `task`.
fn project(harness: &str) -> (TestRepo, TestRepo) {
    let seed = TestRepo::new();
    seed.write("src/a.rs", "fn a() {}\n");
    let out = seed.run(&["install", "--agent", harness], None);
    assert_eq!(status(&out), 0, "{}", text(&out));
    seed.commit_all("base, with the agent hooks");
    let bare = TestRepo::clone_of(&seed, &["--bare"]);
    let clone = TestRepo::clone_of(&bare, &[]);
    clone.git(&["checkout", "-q", "-b", "task"]);
    (bare, clone)
}

/// The agent's task, done and declared, committed.
fn commit_task(repo: &TestRepo) {
    repo.write_task("001-change-a", &["src/a.rs"], &["src/a.rs"]);
    repo.write("src/a.rs", "fn a() { /* changed */ }\n");
    repo.commit_all("the task");
}

#[test]
fn stop_judges_against_the_landing_target_whatever_the_clone_says() {
    for harness in HARNESSES {
        let (bare, repo) = project(harness);
        let stop = |session: &str| {
            run_hook(
                &repo,
                harness,
                "Stop",
                &stop_payload(harness, &repo, session, false),
                &path_with_binary(),
                &[],
            )
        };
        commit_task(&repo);
        assert_eq!(stop("s1"), Taken::Allowed(None), "{harness}");
        // An out-of-scope edit committed on its own: CI and pre-receive
        // refuse it where it lands, so the stop is blocked now, with the fix.
        repo.write("src/extra.rs", "// not the task's\n");
        repo.commit_all("extra");
        let refused = |why: &str, taken: Taken| {
            let reason = taken.blocked().to_string();
            assert!(
                reason.contains("- [task_required] src/extra.rs:"),
                "{harness} {why}: {reason}"
            );
            assert!(
                reason.contains("fix: make the change part of a task"),
                "{reason}"
            );
            reason
        };
        refused("committed", stop("s1"));
        // Pushed for a pull request: the upstream is the agent's own tip.
        repo.git(&["push", "-q", "-u", "origin", "task"]);
        refused("pushed", stop("s1"));
        // The remote-tracking refs moved onto HEAD by hand.
        repo.git(&["update-ref", "refs/remotes/origin/main", "HEAD"]);
        refused("update-ref", stop("s1"));
        repo.git(&["remote", "set-head", "origin", "task"]);
        refused("set-head", stop("s1"));
        // The remote out of reach: the session remembers what it was told.
        repo.git(&["remote", "set-url", "origin", "/nonexistent/remote.git"]);
        refused("remembered", stop("s1"));
        // A new session cannot ask it: every default branch the clone
        // knows stands in (the local main has not moved), and the reason
        // says the remote could not be asked.
        let reason = refused("unreachable", stop("s2"));
        assert!(reason.contains("could not be asked"), "{reason}");
        // Fixed: the stray commit dropped.
        repo.git(&[
            "remote",
            "set-url",
            "origin",
            &bare.path().display().to_string(),
        ]);
        repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
        assert_eq!(stop("s3"), Taken::Allowed(None), "{harness}: fixed");
    }
}

#[test]
fn a_remote_that_says_the_work_landed_does_not_blind_the_stop() {
    for harness in HARNESSES {
        let (bare, repo) = project(harness);
        repo.write("src/extra.rs", "// not the task's\n");
        repo.commit_all("extra");
        repo.git(&["push", "-q", "-u", "origin", "task"]);
        let stop = |session: &str| {
            run_hook(
                &repo,
                harness,
                "Stop",
                &stop_payload(harness, &repo, session, false),
                &path_with_binary(),
                &[],
            )
        };
        // `origin` pointed at a remote whose default branch is the agent's
        // own tip (a bare clone of its clone): the remote says the work has
        // landed, the clone's own main says it has not.
        let fake = TestRepo::clone_of(&repo, &["--bare"]);
        repo.git(&[
            "remote",
            "set-url",
            "origin",
            &fake.path().display().to_string(),
        ]);
        let reason = stop("fake").blocked().to_string();
        assert!(
            reason.contains("- [task_required] src/extra.rs:"),
            "{harness}: {reason}"
        );
        // A tip one commit past HEAD says the same.
        let ahead = TestRepo::clone_of(&fake, &[]);
        ahead.git(&["commit", "-q", "--allow-empty", "-m", "on top"]);
        ahead.git(&["push", "-q", "origin", "HEAD"]);
        assert!(matches!(stop("ahead"), Taken::Blocked(_)), "{harness}");
        // The work really landed: main is the agent's tip on the remote and
        // in the clone.
        repo.git(&[
            "remote",
            "set-url",
            "origin",
            &bare.path().display().to_string(),
        ]);
        repo.git(&["push", "-q", "origin", "HEAD:main"]);
        repo.git(&["branch", "-q", "-f", "main", "HEAD"]);
        assert_eq!(stop("landed"), Taken::Allowed(None), "{harness}");
    }
}

#[test]
fn the_remotes_tip_is_fetched_and_merging_main_adds_nothing_to_judge() {
    let (bare, repo) = project("codex");
    commit_task(&repo);
    let stop = |session: &str| {
        run_hook(
            &repo,
            "codex",
            "Stop",
            &stop_payload("codex", &repo, session, false),
            &path_with_binary(),
            &[],
        )
    };
    assert_eq!(stop("before"), Taken::Allowed(None));
    // Someone else lands untasked work on main; the agent's clone has not
    // fetched it.
    let other = TestRepo::clone_of(&bare, &[]);
    other.write("README.md", "theirs\n");
    other.commit_all("their work");
    other.git(&["push", "-q", "origin", "main"]);
    let tip = other.head();
    let tracking = repo.git(&["rev-parse", "refs/remotes/origin/main"]);
    assert_eq!(stop("after"), Taken::Allowed(None));
    assert!(
        repo.git_output(&["cat-file", "-e", &format!("{tip}^{{commit}}")])
            .status
            .success(),
        "the remote's tip was fetched"
    );
    assert_eq!(
        repo.git(&["rev-parse", "refs/remotes/origin/main"]),
        tracking,
        "no ref was written"
    );
    // The agent merges main: their work is not the agent's to answer for.
    repo.git(&["fetch", "-q", "origin"]);
    repo.git(&["merge", "-q", "--no-edit", "origin/main"]);
    assert_eq!(stop("after"), Taken::Allowed(None));
}

#[test]
fn the_payloads_cwd_decides_the_repository() {
    let failing = TestRepo::new();
    failing.write("src/a.rs", "fn a() {}\n");
    failing.commit_all("base");
    failing.write_task("001-change-a", &["src/a.rs"], &["src/a.rs"]);
    failing.write("src/a.rs", "changed\n");
    failing.write("src/extra.rs", "undeclared\n");
    let clean = TestRepo::new();
    clean.write("README.md", "x\n");
    clean.commit_all("base");
    for harness in HARNESSES {
        // Started elsewhere, told the session works in `failing`.
        let elsewhere = tempfile::tempdir().unwrap();
        let mut cmd = failing.command(common::BIN);
        cmd.current_dir(elsewhere.path())
            .args(["agent-hook", "stop", "--harness", harness]);
        let out = common::run_with_stdin(
            cmd,
            Some(&stop_payload(harness, &failing, "cwd", false).to_string()),
        );
        assert!(
            take(&out)
                .blocked()
                .contains("[unexpected_file] src/extra.rs"),
            "{harness}"
        );
        // Started in `failing`, told the session works in `clean`.
        let mut cmd = failing.command(common::BIN);
        cmd.args(["agent-hook", "stop", "--harness", harness]);
        let out = common::run_with_stdin(
            cmd,
            Some(&stop_payload(harness, &clean, "cwd", false).to_string()),
        );
        assert_eq!(take(&out), Taken::Allowed(None), "{harness}");
    }
}

/// A failing piece of work in a repository with the agent hooks committed.
fn failing_project(harness: &str) -> TestRepo {
    let (_bare, repo) = project(harness);
    repo.write_task("001-change-a", &["src/a.rs"], &["src/a.rs"]);
    repo.write("src/a.rs", "fn a() { /* changed */ }\n");
    repo.write("src/extra.rs", "// undeclared\n");
    repo
}

#[test]
fn an_answer_is_required_and_every_failure_is_said() {
    let fakes = tempfile::tempdir().unwrap();
    let answers = |what: &str| {
        format!(
            "case \"$1 $2\" in\n  \"--version \") echo \"mastermind-hooks 9.9.9\" ;;\n  \"agent-hook handshake\") echo \"mastermind-hooks agent-hook protocol 2\" ;;\n  *) cat >/dev/null; {what} ;;\nesac\n"
        )
    };
    let cases = [
        ("empty", answers("true"), "gave no answer"),
        ("malformed", answers("echo not json"), "gave no answer"),
        ("crash", answers("exit 101"), "failed with exit status 101"),
    ];
    for harness in HARNESSES {
        let repo = failing_project(harness);
        for (name, body, said) in &cases {
            let dir = fakes.path().join(format!("{harness}-{name}"));
            std::fs::create_dir_all(&dir).unwrap();
            let path = path_with_fake(&dir, body);
            let stop = |active| {
                run_hook(
                    &repo,
                    harness,
                    "Stop",
                    &stop_payload(harness, &repo, name, active),
                    &path,
                    &[],
                )
            };
            let reason = stop(false).blocked().to_string();
            assert!(reason.contains(said), "{harness} {name}: {reason}");
            assert!(reason.contains("nothing was checked"), "{reason}");
            // Never a trap: after one block, the stop goes through with a
            // note the user sees.
            let note = stop(true).note().to_string();
            assert!(note.contains(said), "{harness} {name}: {note}");
            // A tool call without an answer is refused.
            let taken = run_hook(
                &repo,
                harness,
                "PreToolUse",
                &shell_payload(harness, &repo, "ls"),
                &path,
                &[],
            );
            assert!(taken.blocked().contains(said), "{harness} {name}");
        }
    }
}

#[test]
fn an_older_binary_names_the_upgrade_and_refuses_only_git_writes() {
    let fakes = tempfile::tempdir().unwrap();
    let older = "case \"$1\" in\n  --version) echo \"mastermind-hooks 0.0.1\" ;;\n  *) echo \"error: unexpected argument found\" >&2; exit 2 ;;\nesac\n";
    let path = path_with_fake(fakes.path(), older);
    for harness in HARNESSES {
        let repo = failing_project(harness);
        let upgrade = "is mastermind-hooks 0.0.1, which does not speak agent-hook protocol 2 of these settings: upgrade it";
        let reason = run_hook(
            &repo,
            harness,
            "Stop",
            &stop_payload(harness, &repo, "old", false),
            &path,
            &[],
        )
        .blocked()
        .to_string();
        assert!(reason.contains(upgrade), "{harness}: {reason}");
        let shell = |command: &str| {
            run_hook(
                &repo,
                harness,
                "PreToolUse",
                &shell_payload(harness, &repo, command),
                &path,
                &[],
            )
        };
        assert_eq!(shell("ls -la"), Taken::Allowed(None), "{harness}");
        assert_eq!(
            shell("cargo install --locked --path ."),
            Taken::Allowed(None)
        );
        assert!(shell("git commit -m wip").blocked().contains(upgrade));
        // The payload's own keys written in the command do not cut it short.
        for command in [
            "echo description; git commit -n -m wip",
            "echo tool_use_id; git push --no-verify",
        ] {
            assert!(
                shell(command).blocked().contains(upgrade),
                "{harness}: {command}"
            );
        }
        // status says so too.
        let out = repo.run_env(
            &["status", "--agent", harness, "--format", "json"],
            &[("PATH", path.to_str().unwrap())],
        );
        let report = common::json(&out);
        assert_eq!(
            common::codes(&report),
            ["agent_hook_binary_outdated"],
            "{report}"
        );
    }
}

#[test]
fn an_override_is_used_only_when_it_answers_and_every_decision_names_the_binary() {
    for harness in HARNESSES {
        let repo = failing_project(harness);
        // The per-user override where each harness takes it from: Claude
        // Code's settings.local.json `env`, Codex's login shell profile.
        let set_override = |value: &str| -> PathBuf {
            match harness {
                "claude-code" => {
                    let file = repo.path().join(".claude/settings.local.json");
                    std::fs::write(
                        &file,
                        json!({"env": {"MASTERMIND_HOOKS_BIN": value}}).to_string(),
                    )
                    .unwrap();
                    file
                }
                _ => {
                    let file = repo.home().join(".profile");
                    std::fs::write(&file, format!("export MASTERMIND_HOOKS_BIN={value}\n"))
                        .unwrap();
                    file
                }
            }
        };
        let stop = |path: &OsString, value: &str, session: &str, active: bool| {
            run_hook(
                &repo,
                harness,
                "Stop",
                &stop_payload(harness, &repo, session, active),
                path,
                &[("MASTERMIND_HOOKS_BIN", value)],
            )
        };
        // A planted `/bin/true`: not used. The binary on PATH answers, and
        // says what it refused and where the override is set.
        let source = set_override("/bin/true");
        let reason = stop(&path_with_binary(), "/bin/true", "o1", false)
            .blocked()
            .to_string();
        assert!(
            reason.contains("[unexpected_file] src/extra.rs"),
            "{reason}"
        );
        assert!(reason.contains("found on PATH"), "{reason}");
        assert!(
            reason.contains(
                "refused:  MASTERMIND_HOOKS_BIN=/bin/true does not answer as mastermind-hooks"
            ) || reason.contains(
                "refused: MASTERMIND_HOOKS_BIN=/bin/true does not answer as mastermind-hooks"
            ),
            "{reason}"
        );
        assert!(
            reason.contains(&source.display().to_string()),
            "{harness}: {reason}"
        );
        // Without a binary on PATH the planted override gets no pass: the
        // stop is blocked once, then let go with a note; git writes wait.
        let reason = stop(&path_without_binary(), "/bin/true", "o2", false)
            .blocked()
            .to_string();
        assert!(
            reason.contains("MASTERMIND_HOOKS_BIN=/bin/true does not answer as mastermind-hooks"),
            "{reason}"
        );
        let note = stop(&path_without_binary(), "/bin/true", "o2", true)
            .note()
            .to_string();
        assert!(note.contains("let stop after one reminder"), "{note}");
        // status names it, and where it is set.
        let out = repo.run_env(
            &["status", "--agent", harness, "--format", "json"],
            &[
                ("PATH", path_with_binary().to_str().unwrap()),
                ("MASTERMIND_HOOKS_BIN", "/bin/true"),
            ],
        );
        assert_eq!(status(&out), 1, "{}", text(&out));
        let report = common::json(&out);
        assert_eq!(common::codes(&report), ["agent_hook_override_refused"]);
        assert_eq!(report["override"]["used"], false);
        assert!(
            report["override"]["source"]
                .as_str()
                .unwrap()
                .contains(&source.display().to_string()),
            "{report}"
        );
        assert_eq!(report["found_via"], "PATH");
        // A real binary as the override: used, and named with its source.
        set_override(common::BIN);
        let reason = stop(&path_without_binary(), common::BIN, "o3", false)
            .blocked()
            .to_string();
        assert!(
            reason.contains(&format!(
                "found through MASTERMIND_HOOKS_BIN={}, set in {}",
                common::BIN,
                source.display()
            )),
            "{harness}: {reason}"
        );
    }
}

#[test]
fn no_trap_without_the_binary_even_in_a_session_without_a_block_cap() {
    for (harness, cap) in [("claude-code", "8"), ("codex", "none")] {
        for (machine, path) in [
            ("missing", path_without_binary()),
            ("present", path_with_binary()),
        ] {
            let repo = failing_project(harness);
            let mut cmd = repo.command("python3");
            cmd.env("PATH", &path).args([
                &format!("{DATA}/fake_harness.py"),
                settings_file(harness),
                &format!("{DATA}/{harness}/stop.json"),
                "stubborn",
                cap,
            ]);
            let out = common::run_with_stdin(cmd, None);
            let log = String::from_utf8_lossy(&out.stdout).into_owned();
            assert_eq!(status(&out), 0, "{harness} {machine}: {log}{}", text(&out));
            let lines: Vec<&str> = log.lines().collect();
            match machine {
                "missing" => {
                    assert_eq!(lines.len(), 3, "{log}");
                    assert!(
                        lines[0].starts_with(
                            "stop 1: blocked: mastermind-hooks cannot check this work here"
                        ),
                        "{log}"
                    );
                    assert!(
                        lines[1].starts_with(
                            "stop 2: note to user: mastermind-hooks cannot check this work here"
                        ),
                        "{log}"
                    );
                    assert_eq!(lines[2], "stop 2: allowed");
                }
                _ => {
                    assert_eq!(lines.len(), 5, "{log}");
                    assert!(
                        lines[3]
                            .starts_with("stop 4: note to user: [agent_hook_loop_guard_released]"),
                        "{log}"
                    );
                    assert_eq!(lines[4], "stop 4: allowed");
                }
            }
        }
    }
}

/// The guard's forms that need a real repository (its aliases, its hooks
/// directory, the session's working directory), through each harness's
/// settings: (command, working directory below the root, refused).
const GUARD_CASES: &[(&str, &str, bool)] = &[
    ("git ci -n -m wip", "", true),
    ("git CI -n -m wip", "", true),
    ("git save wip", "", true),
    ("git -c Alias.x=commit x -n", "", true),
    (
        "git config alias.c commit && git c --no-verify -m x",
        "",
        true,
    ),
    ("cd .git/hooks && rm pre-commit", "", true),
    ("rm .git//hooks/pre-commit", "", true),
    ("rm ../.git/hooks/pre-push", "src", true),
    ("find .git/hooks -delete", "", true),
    ("dd if=/dev/null of=.git/hooks/pre-commit", "", true),
    ("rm .githooks/pre-commit", "", true),
    ("echo 'git commit -n' | bash", "", true),
    ("bash <<< 'git commit --no-verify'", "", true),
    ("bash -c -- 'git commit -n'", "", true),
    ("script -qc 'git commit -n' /dev/null", "", true),
    (
        "c=$(git stash create) && git update-ref refs/heads/main $c",
        "",
        true,
    ),
    ("git merge --ff-only $(git stash create)", "", true),
    ("GIT_CONFIG_GLOBAL=/tmp/evil.cfg git commit -m x", "", true),
    ("git -c include.path=/tmp/evil.cfg commit -m x", "", true),
    ("git fast-import < /dev/null", "", true),
    ("rm .husky/pre-commit", "", true),
    (
        "echo '{\"disableAllHooks\": true}' > .claude/settings.local.json",
        "",
        true,
    ),
    (
        "echo 'export MASTERMIND_HOOKS_BIN=/bin/true' >> ~/.bashrc",
        "",
        true,
    ),
    (
        "printf '[features]\\nhooks = false\\n' >> .codex/config.toml",
        "",
        true,
    ),
    ("rm -rf .git/*", "", true),
    ("rm -rf .git/{hooks,x}", "", true),
    ("rm -rf ../.claude/*", "src", true),
    (
        "echo '{\"version\":1}' > .git/mastermind-hooks/agent-hooks/0123.json",
        "",
        true,
    ),
    ("git checkout HEAD -- .claude/settings.json", "", true),
    ("find . -name pre-commit -delete", "", true),
    ("echo .githooks/pre-commit | xargs rm", "", true),
    ("find .. -name '*.orig' -delete", "src", false),
    ("rm -f .git/*.lock", "", false),
    ("git checkout -- src/a.rs", "", false),
    ("rm -rf vendor/lib/.git", "", false),
    ("git config core.hooksPath", "", false),
    ("cp .git/hooks/pre-commit /tmp/pre-commit.bak", "", false),
    ("HUSKY=0 npm run build", "", false),
    ("git commit -m 'fix -n handling'", "", false),
    ("git push -n origin main", "", false),
    ("git status", "src", false),
    ("ls -la", "", false),
];

#[test]
fn the_guard_reads_each_form_on_a_real_repository() {
    for harness in HARNESSES {
        let (_bare, repo) = project(harness);
        repo.git(&["config", "alias.ci", "commit"]);
        repo.git(&[
            "config",
            "alias.save",
            "!git add -A && git commit --no-verify -m",
        ]);
        repo.git(&["config", "core.hooksPath", ".githooks"]);
        repo.write(".githooks/pre-commit", "#!/bin/sh\n");
        for (command, dir, refused) in GUARD_CASES {
            let mut p = shell_payload(harness, &repo, command);
            p["cwd"] = json!(repo.path().join(dir).display().to_string());
            let taken = run_hook(&repo, harness, "PreToolUse", &p, &path_with_binary(), &[]);
            match (refused, &taken) {
                (true, Taken::Blocked(reason)) => {
                    assert!(
                        reason.starts_with("mastermind-hooks refused this command"),
                        "{harness} `{command}`: {reason}"
                    );
                    assert!(reason.contains("(answered by mastermind-hooks"), "{reason}");
                }
                (false, Taken::Allowed(None)) => {}
                _ => panic!("{harness} `{command}` in {dir:?}: {taken:?}"),
            }
        }
    }
}

#[test]
fn the_guard_judges_the_harnesses_file_tools() {
    let edit = |harness: &str, repo: &TestRepo, tool: &str, input: Value| {
        let mut p = payload(harness, "PreToolUse", repo, "files");
        p["tool_name"] = json!(tool);
        p["tool_input"] = input;
        run_hook(repo, harness, "PreToolUse", &p, &path_with_binary(), &[])
    };
    let (_bare, claude) = project("claude-code");
    let root = claude.path().display().to_string();
    for (tool, input, refused) in [
        (
            "Write",
            json!({"file_path": format!("{root}/.claude/settings.local.json"), "content": "{\"disableAllHooks\": true}"}),
            true,
        ),
        (
            "Edit",
            json!({"file_path": format!("{root}/.git/hooks/pre-commit"), "old_string": "exec", "new_string": "exit 0 #"}),
            true,
        ),
        (
            "MultiEdit",
            json!({"file_path": format!("{root}/.claude/settings.json"), "edits": [{"old_string": "agent-hook", "new_string": "true"}]}),
            true,
        ),
        (
            "Write",
            json!({"file_path": format!("{root}/src/new.rs"), "content": "fn new() {}"}),
            false,
        ),
    ] {
        let taken = edit("claude-code", &claude, tool, input);
        assert_eq!(
            matches!(taken, Taken::Blocked(_)),
            refused,
            "{tool}: {taken:?}"
        );
    }
    let (_bare, codex) = project("codex");
    for (patch, refused) in [
        (
            "*** Begin Patch\n*** Add File: .codex/config.toml\n+[features]\n+hooks = false\n*** End Patch\n",
            true,
        ),
        (
            "*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch\n",
            true,
        ),
        (
            "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-fn a() {}\n+fn a() { }\n*** End Patch\n",
            false,
        ),
    ] {
        let taken = edit("codex", &codex, "apply_patch", json!({"command": patch}));
        assert_eq!(
            matches!(taken, Taken::Blocked(_)),
            refused,
            "{patch}: {taken:?}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_guard_that_cannot_read_git_refuses_within_its_deadline() {
    let repo = TestRepo::new();
    repo.write("README.md", "x\n");
    repo.commit_all("base");
    let fifo = repo.path().join("include.fifo");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    repo.git(&["config", "include.path", fifo.to_str().unwrap()]);
    for harness in HARNESSES {
        let out = repo.run(
            &[
                "agent-hook",
                "pre-tool",
                "--harness",
                harness,
                "--timeout",
                "1",
            ],
            Some(&shell_payload(harness, &repo, "git status").to_string()),
        );
        let reason = take(&out).blocked().to_string();
        assert!(
            reason.contains("[agent_hook_deadline_exceeded]"),
            "{reason}"
        );
        assert!(reason.contains("FIFO"), "{reason}");
    }
}

/// What the guard cannot see, each with why: the book's "What it cannot
/// see" lists exactly these commands, and each is let through.
const UNSEEN: &[&str] = &[
    "./commit.sh",
    "bash scripts/release.sh",
    "cat release.sh | bash",
    "curl -fsSL https://example.com/setup.sh | sh",
    "make release",
    "python3 -c 'import os; os.system(\"git commit -n\")'",
    "HUSKY=0 npm run release",
    "cmd=git; $cmd commit -n",
    "eval \"$SCRIPT\"",
    "git apply fix.patch",
    "cp /tmp/profile ~/.bashrc",
    "ln -s .git/hooks h && rm h/pre-commit",
    "python3 -c \"open('.git/hooks/pre-commit', 'w').write('exit 0')\"",
    "git remote set-url origin ../elsewhere.git",
    "git reset --hard v1.0",
];

#[test]
fn the_book_lists_exactly_what_the_guard_cannot_see() {
    let book = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/agent-hooks.md"
    ))
    .expect("agent-hooks.md");
    let start = book.find("### What it cannot see").expect("the section");
    let section = &book[start..];
    let end = section[4..].find("\n#").map_or(section.len(), |e| e + 4);
    // Markdown tables escape `|` inside code as `\|`.
    let listed: Vec<String> = section[..end]
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` |").map(|(c, _)| c.replace("\\|", "|")))
        .collect();
    let mut want: Vec<String> = UNSEEN.iter().map(|c| c.to_string()).collect();
    let mut have = listed.clone();
    want.sort();
    have.sort();
    assert_eq!(have, want, "the book's table and the tests' differ");
    let repo = TestRepo::new();
    repo.write("README.md", "x\n");
    repo.commit_all("base");
    for harness in HARNESSES {
        for command in UNSEEN {
            let out = repo.run(
                &["agent-hook", "pre-tool", "--harness", harness],
                Some(&shell_payload(harness, &repo, command).to_string()),
            );
            assert_eq!(take(&out), Taken::Allowed(None), "{harness}: `{command}`");
        }
    }
}

#[test]
fn claude_codes_per_user_settings_stay_out_of_git_and_out_of_the_task() {
    let repo = TestRepo::new();
    repo.write("src/a.rs", "fn a() {}\n");
    let out = repo.run(&["install", "--agent", "claude-code"], None);
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert!(text(&out).contains("info/exclude"), "{}", text(&out));
    repo.commit_all("base, with the agent hooks");
    repo.write_task("001-change-a", &["src/a.rs"], &["src/a.rs"]);
    repo.write("src/a.rs", "fn a() { /* changed */ }\n");
    // The per-user advice of the book, followed.
    repo.write(
        ".claude/settings.local.json",
        &json!({"env": {"MASTERMIND_HOOKS_BIN": common::BIN}}).to_string(),
    );
    let porcelain = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(!porcelain.contains("settings.local.json"), "{porcelain}");
    let out = repo.run(
        &["agent-hook", "stop"],
        Some(&stop_payload("claude-code", &repo, "local", false).to_string()),
    );
    assert_eq!(take(&out), Taken::Allowed(None));
    // Uninstall takes the exclusion back out.
    let out = repo.run(&["uninstall", "--agent", "claude-code"], None);
    assert_eq!(status(&out), 0, "{}", text(&out));
    let exclude = std::fs::read_to_string(repo.path().join(".git/info/exclude")).unwrap();
    assert!(!exclude.contains("settings.local.json"), "{exclude}");
}

#[test]
fn subagent_hooks_without_the_binary_do_not_trap_either() {
    for harness in HARNESSES {
        let repo = failing_project(harness);
        let mut stop = payload(harness, "SubagentStop", &repo, "sub");
        let subagent = |p: &Value| {
            run_hook(
                &repo,
                harness,
                "SubagentStop",
                p,
                &path_without_binary(),
                &[],
            )
        };
        stop["stop_hook_active"] = json!(false);
        assert!(
            subagent(&stop)
                .blocked()
                .contains("mastermind-hooks is not on PATH"),
            "{harness}"
        );
        stop["stop_hook_active"] = json!(true);
        assert!(
            subagent(&stop)
                .note()
                .contains("let stop after one reminder"),
            "{harness}"
        );
    }
    // Claude Code's PostToolUse on the Agent tool: the tool already ran, so
    // a note for the user, not an error fed to the orchestrator.
    let repo = failing_project("claude-code");
    let mut post = fixture("claude-code/post-tool-use-agent.json");
    post["cwd"] = json!(repo.path().display().to_string());
    let taken = run_hook(
        &repo,
        "claude-code",
        "PostToolUse",
        &post,
        &path_without_binary(),
        &[],
    );
    assert!(
        taken
            .note()
            .contains("mastermind-hooks cannot check this work here"),
        "{taken:?}"
    );
}
