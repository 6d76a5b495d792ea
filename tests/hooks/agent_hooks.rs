//! Agent-harness hooks (`agent-hook stop|subagent`, `install --agent`) on
//! real temporary repositories, fed payloads shaped exactly as Claude Code
//! and Codex document them (`tests/data/agent/`).

use crate::common;

use crate::common::{TestRepo, status, text};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Output;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/agent");

fn fixture(path: &str) -> Value {
    let text = std::fs::read_to_string(format!("{DATA}/{path}")).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

fn stop_payload(harness: &str, active: bool) -> String {
    let mut payload = fixture(&format!("{harness}/stop.json"));
    payload["stop_hook_active"] = json!(active);
    payload.to_string()
}

/// The decision JSON on stdout (`None` for an allow, which is `{}`: the
/// command always answers, so the settings' command can tell an answer
/// from none); the command always exits 0 with its answer.
fn decision(output: &Output) -> Option<Value> {
    assert_eq!(status(output), 0, "agent-hook exits 0: {}", text(output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.ends_with('\n') && stdout.lines().count() == 1,
        "one line: {stdout:?}"
    );
    let value: Value = serde_json::from_str(&stdout).expect("decision JSON");
    (value != json!({})).then_some(value)
}

fn stop(repo: &TestRepo, harness: &str, active: bool) -> Option<Value> {
    decision(&repo.run(
        &["agent-hook", "stop", "--harness", harness],
        Some(&stop_payload(harness, active)),
    ))
}

/// A repository with a committed base and an uncommitted task that changes
/// `src/a.rs` as declared.
fn task_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/a.rs", "fn a() {}\n");
    repo.commit_all("base");
    repo.write_task("001-change-a", &["src/a.rs"], &["src/a.rs"]);
    repo.write("src/a.rs", "fn a() { /* changed */ }\n");
    repo
}

#[test]
fn a_failing_task_blocks_the_stop_with_a_reason_the_agent_can_act_on() {
    for harness in ["claude-code", "codex"] {
        let repo = task_repo();
        repo.write("src/extra.rs", "// not declared\n");
        let answer = stop(&repo, harness, false).expect("a block");
        assert_eq!(answer["decision"], "block", "{harness}");
        let reason = answer["reason"].as_str().unwrap();
        assert!(
            reason.contains("task .mastermind/tasks/001-change-a:"),
            "{reason}"
        );
        assert!(
            reason.contains("- [unexpected_file] src/extra.rs:"),
            "names the rule and the file: {reason}"
        );
        assert!(
            reason.contains(
                "fix: Declare the path in the spec's front matter: `mastermind-hooks task widen 001-change-a --creates src/extra.rs`"
            ),
            "the fix names task widen: {reason}"
        );
        assert!(
            reason.contains("[executor_report_missing_changed_file]"),
            "{reason}"
        );
        assert!(answer.get("systemMessage").is_none());
    }
}

#[test]
fn a_passing_task_or_no_change_stays_silent_and_untasked_work_gets_cis_verdict() {
    for harness in ["claude-code", "codex"] {
        let repo = task_repo();
        assert_eq!(stop(&repo, harness, false), None, "{harness}: passing task");
        let clean = TestRepo::new();
        clean.write("README.md", "x\n");
        clean.commit_all("base");
        assert_eq!(stop(&clean, harness, false), None, "{harness}: no change");
        // Work no task covers would be refused by CI and pre-receive when it
        // lands on the protected branch: the stop says so now, with the fix.
        clean.write("notes.txt", "scratch\n");
        let answer = stop(&clean, harness, false).expect("a block");
        let reason = answer["reason"].as_str().unwrap();
        assert!(
            reason.contains("- [task_required] notes.txt:"),
            "{harness}: {reason}"
        );
        assert!(
            reason.contains("fix: make the change part of a task"),
            "{reason}"
        );
    }
}

/// HEAD on a branch that is itself symbolic (`HEAD -> alias -> main`): the
/// stop hook and its gate (which takes the hook's reads of the references
/// over) judge the work against the commit at the end of the chain, not the
/// empty tree: a passing task stays silent, and untasked work names only
/// itself.
#[test]
fn a_head_on_a_symbolic_branch_is_judged_against_its_commit() {
    let repo = task_repo();
    repo.head_on_symbolic_branch();
    assert_eq!(stop(&repo, "claude-code", false), None, "passing task");
    let clean = TestRepo::new();
    clean.write("README.md", "x\n");
    clean.commit_all("base");
    clean.head_on_symbolic_branch();
    assert_eq!(stop(&clean, "claude-code", false), None, "no change");
    clean.write("notes.txt", "scratch\n");
    let answer = stop(&clean, "claude-code", false).expect("a block");
    let reason = answer["reason"].as_str().unwrap();
    assert!(reason.contains("- [task_required] notes.txt:"), "{reason}");
    assert!(
        !reason.contains("README.md"),
        "judged against HEAD: {reason}"
    );
}

#[test]
fn the_loop_guard_lets_the_stop_through_after_three_blocks_with_a_note() {
    let repo = task_repo();
    repo.write("src/extra.rs", "// not declared\n");
    let before = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    for active in [false, true, true] {
        assert_eq!(
            stop(&repo, "claude-code", active).unwrap()["decision"],
            "block"
        );
    }
    let released = stop(&repo, "claude-code", true).expect("a note");
    assert!(released.get("decision").is_none(), "{released}");
    let note = released["systemMessage"].as_str().unwrap();
    assert!(note.contains("[agent_hook_loop_guard_released]"), "{note}");
    assert!(note.contains("after 3 blocked stops in a row"), "{note}");
    assert!(note.contains("unexpected_file"), "{note}");
    // A new turn (stop_hook_active false) starts a new chain.
    assert_eq!(
        stop(&repo, "claude-code", false).unwrap()["decision"],
        "block"
    );
    // The guard's state lives under the git directory, never in the tree.
    assert_eq!(
        repo.git(&["status", "--porcelain", "--untracked-files=all"]),
        before
    );
    let state = repo.path().join(".git/mastermind-hooks/agent-hooks");
    let files: Vec<_> = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    // A damaged state file cannot trap the agent either: the harness's flag
    // bounds the chain, and the file heals.
    std::fs::write(&files[0], "garbage").unwrap();
    let released = stop(&repo, "claude-code", true).unwrap();
    assert!(
        released["systemMessage"]
            .as_str()
            .unwrap()
            .contains("loop-guard state unusable"),
        "{released}"
    );
    assert_eq!(
        stop(&repo, "claude-code", false).unwrap()["decision"],
        "block"
    );
    assert_eq!(
        stop(&repo, "claude-code", true).unwrap()["decision"],
        "block"
    );
    // Sessions are counted apart.
    let mut other = fixture("claude-code/stop.json");
    other["session_id"] = json!("another-session");
    other["stop_hook_active"] = json!(true);
    let answer = decision(&repo.run(&["agent-hook", "stop"], Some(&other.to_string()))).unwrap();
    assert_eq!(answer["decision"], "block");
}

#[test]
fn max_consecutive_blocks_comes_from_head_not_the_working_tree() {
    let repo = TestRepo::new();
    repo.write("src/a.rs", "fn a() {}\n");
    repo.write(
        ".mastermind/hooks.yaml",
        "agent_hooks:\n  max_consecutive_blocks: 1\n",
    );
    repo.commit_all("base");
    repo.write_task("001-change-a", &["src/a.rs"], &["src/a.rs"]);
    repo.write("src/a.rs", "changed\n");
    repo.write("src/extra.rs", "x\n");
    // The agent tries to loosen its guard in the working tree: ignored.
    repo.write(
        ".mastermind/hooks.yaml",
        "agent_hooks:\n  max_consecutive_blocks: 50\n",
    );
    assert_eq!(stop(&repo, "codex", false).unwrap()["decision"], "block");
    let released = stop(&repo, "codex", true).unwrap();
    assert!(
        released["systemMessage"]
            .as_str()
            .unwrap()
            .contains("after 1 blocked stop in a row"),
        "{released}"
    );
}

#[test]
fn a_gate_that_cannot_check_blocks_under_the_same_guard() {
    let repo = TestRepo::new();
    repo.write("src/a.rs", "fn a() {}\n");
    // An invalid configuration on the base (HEAD, where check --worktree
    // reads it): nothing but a repair of it can be checked.
    repo.write(".mastermind/hooks.yaml", "surprise: 1\n");
    repo.commit_all("base with a broken configuration");
    repo.write_task("001-change-a", &["src/a.rs"], &["src/a.rs"]);
    repo.write("src/a.rs", "fn a() { /* changed */ }\n");
    let answer = stop(&repo, "claude-code", false).unwrap();
    let reason = answer["reason"].as_str().unwrap();
    assert!(reason.contains("could not check"), "{reason}");
    assert!(reason.contains("[config_invalid]"), "{reason}");
    for active in [true, true] {
        assert_eq!(
            stop(&repo, "claude-code", active).unwrap()["decision"],
            "block"
        );
    }
    assert!(
        stop(&repo, "claude-code", true).unwrap()["systemMessage"]
            .as_str()
            .unwrap()
            .contains("could not be checked")
    );
}

#[cfg(debug_assertions)]
#[test]
fn a_crash_or_a_hang_of_the_gate_is_could_not_check() {
    let repo = task_repo();
    // The panic case gets a deadline it cannot hit even on a loaded
    // machine; the hang case a short one.
    for (fault, code, timeout) in [
        ("panic", "internal_error", "60"),
        ("panic-worker", "internal_error", "60"),
        ("hang", "agent_hook_deadline_exceeded", "1"),
    ] {
        let mut cmd = repo.command(common::BIN);
        cmd.args(["agent-hook", "stop", "--timeout", timeout])
            .env("MASTERMIND_HOOKS_DEBUG_AGENT_HOOK", fault);
        let output = common::run_with_stdin(cmd, Some(&stop_payload("claude-code", false)));
        let answer = decision(&output).unwrap();
        assert_eq!(answer["decision"], "block", "{fault}");
        assert!(
            answer["reason"]
                .as_str()
                .unwrap()
                .contains(&format!("[{code}]")),
            "{fault}: {answer}"
        );
    }
}

#[test]
fn an_unrecognised_payload_is_never_a_silent_pass() {
    let repo = task_repo();
    // A Claude Code payload handed to --harness codex (no turn_id), a
    // payload for another event, garbage, nothing.
    for (harness, input) in [
        ("codex", stop_payload("claude-code", false)),
        (
            "claude-code",
            r#"{"hook_event_name": "PreToolUse", "session_id": "s"}"#.to_string(),
        ),
        ("claude-code", "not json".to_string()),
        ("claude-code", String::new()),
    ] {
        let answer =
            decision(&repo.run(&["agent-hook", "stop", "--harness", harness], Some(&input)))
                .expect("not silent");
        let reason = answer["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("[agent_hook_payload_unrecognised]"),
            "{harness} {input:?}: {answer}"
        );
    }
    // Without a loop flag in the payload the guard still ends the chain:
    // within max + 1 stops one goes through with a note.
    let answers: Vec<Value> = (0..4)
        .filter_map(|_| decision(&repo.run(&["agent-hook", "stop"], Some("{}"))))
        .collect();
    assert!(
        answers
            .iter()
            .any(|a| a["systemMessage"].is_string() && a.get("decision").is_none()),
        "{answers:?}"
    );
}

fn with_return(path: &str, text: &str) -> Value {
    let mut payload = fixture(path);
    if payload["hook_event_name"] == "PostToolUse" {
        payload["tool_response"]["content"][0]["text"] = json!(text);
    } else {
        payload["last_assistant_message"] = json!(text);
    }
    payload
}

fn subagent(repo: &TestRepo, harness: &str, payload: &Value) -> Option<Value> {
    decision(&repo.run(
        &["agent-hook", "subagent", "--harness", harness],
        Some(&payload.to_string()),
    ))
}

const VALID_PROBE: &str = r#"{"handover": {"role": "probe-j-cart", "cycle": 1, "status": "findings-emitted", "next-action": "orchestrator appends the findings to the ledger"}, "journey": "j-cart", "findings-emitted": 1, "finding-ids": ["j-cart-4-01"]}"#;
const BROKEN_PROBE: &str = r#"{"handover": {"role": "probe-j-cart", "cycle": 1, "status": "findings-emitted", "next-action": "append"}, "journey": "j-cart", "findings-emitted": 2}"#;

#[test]
fn a_malformed_subagent_return_is_blocked_with_the_rule_named() {
    let repo = task_repo();
    let answer = subagent(
        &repo,
        "claude-code",
        &with_return("claude-code/post-tool-use-agent.json", BROKEN_PROBE),
    )
    .expect("a block");
    assert_eq!(answer["decision"], "block");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains("`probe-j-cart: adversarial pass`"),
        "{reason}"
    );
    assert!(reason.contains("the probe return schema"), "{reason}");
    assert!(
        reason.contains("[subagent_return_schema_violation]"),
        "{reason}"
    );
    assert!(
        reason.contains("`finding-ids`"),
        "quotes the broken rule: {reason}"
    );
    assert!(reason.contains("re-dispatch"), "{reason}");
    // Prose instead of the JSON object.
    let prose = subagent(
        &repo,
        "claude-code",
        &with_return(
            "claude-code/post-tool-use-agent.json",
            "All done, I probed the cart.",
        ),
    )
    .unwrap();
    assert!(
        prose["reason"]
            .as_str()
            .unwrap()
            .contains("[subagent_return_not_mapping]")
    );
}

#[test]
fn valid_silent_unknown_and_background_returns_pass() {
    let repo = task_repo();
    let post = "claude-code/post-tool-use-agent.json";
    assert_eq!(
        subagent(&repo, "claude-code", &with_return(post, VALID_PROBE)),
        None
    );
    for description in ["j-cart: explore freely", "sj-login"] {
        let mut payload = with_return(post, "free prose, no schema");
        payload["tool_input"]["description"] = json!(description);
        assert_eq!(
            subagent(&repo, "claude-code", &payload),
            None,
            "{description}"
        );
    }
    let mut explore = with_return(post, "Found 12 endpoints.");
    explore["tool_input"]["description"] = json!("Find the API endpoints");
    assert_eq!(
        subagent(&repo, "claude-code", &explore),
        None,
        "unknown: allow by default"
    );
    let background = fixture("claude-code/post-tool-use-agent-background.json");
    assert_eq!(subagent(&repo, "claude-code", &background), None);
    let mut bash = fixture(post);
    bash["tool_name"] = json!("Bash");
    assert_eq!(subagent(&repo, "claude-code", &bash), None);
}

#[test]
fn warn_or_block_per_prefix_and_unknown_from_configuration() {
    let repo = TestRepo::new();
    repo.write(
        ".mastermind/hooks.yaml",
        "agent_hooks:\n  subagent:\n    unknown: block\n    prefixes:\n      'probe-': warn\n",
    );
    repo.commit_all("base");
    let post = "claude-code/post-tool-use-agent.json";
    let warned = subagent(&repo, "claude-code", &with_return(post, BROKEN_PROBE)).unwrap();
    assert!(warned.get("decision").is_none(), "{warned}");
    assert!(
        warned["systemMessage"]
            .as_str()
            .unwrap()
            .contains("finding-ids")
    );
    assert_eq!(
        warned["hookSpecificOutput"]["hookEventName"], "PostToolUse",
        "{warned}"
    );
    assert!(warned["hookSpecificOutput"]["additionalContext"].is_string());
    let mut explore = with_return(post, "Found 12 endpoints.");
    explore["tool_input"]["description"] = json!("Find the API endpoints");
    let blocked = subagent(&repo, "claude-code", &explore).unwrap();
    assert_eq!(blocked["decision"], "block");
    assert!(
        blocked["reason"]
            .as_str()
            .unwrap()
            .contains("[subagent_dispatch_unrouted]")
    );
}

/// A SubagentStop payload pointing at the transcripts in `dir`.
fn subagent_stop(dir: &Path, text: &str) -> Value {
    let session = dir.join("session.jsonl");
    let agent = dir.join("agent.jsonl");
    std::fs::copy(
        format!("{DATA}/claude-code/session-transcript.jsonl"),
        &session,
    )
    .unwrap();
    std::fs::copy(
        format!("{DATA}/claude-code/agent-transcript-probe.jsonl"),
        &agent,
    )
    .unwrap();
    let mut payload = with_return("claude-code/subagent-stop.json", text);
    payload["transcript_path"] = json!(session.display().to_string());
    payload["agent_transcript_path"] = json!(agent.display().to_string());
    payload
}

#[test]
fn claude_code_subagent_stop_recovers_the_description_from_the_transcripts() {
    let repo = task_repo();
    let dir = tempfile::tempdir().unwrap();
    let broken = subagent(
        &repo,
        "claude-code",
        &subagent_stop(dir.path(), BROKEN_PROBE),
    )
    .unwrap();
    assert_eq!(broken["decision"], "block");
    let reason = broken["reason"].as_str().unwrap();
    assert!(
        reason.contains("`probe-j-cart: adversarial pass`"),
        "{reason}"
    );
    assert!(
        reason.contains("Rewrite your final message"),
        "to the subagent: {reason}"
    );
    assert_eq!(
        subagent(
            &repo,
            "claude-code",
            &subagent_stop(dir.path(), VALID_PROBE)
        ),
        None
    );
    // Same loop guard: the subagent is sent back at most three times.
    let mut payload = subagent_stop(dir.path(), BROKEN_PROBE);
    payload["stop_hook_active"] = json!(true);
    for _ in 0..3 {
        assert_eq!(
            subagent(&repo, "claude-code", &payload).unwrap()["decision"],
            "block"
        );
    }
    let released = subagent(&repo, "claude-code", &payload).unwrap();
    assert!(
        released["systemMessage"]
            .as_str()
            .unwrap()
            .contains("[agent_hook_loop_guard_released]")
    );
    // The dispatch cannot be recovered: the return's own handover.role
    // still names its contract.
    let missing = json!(dir.path().join("missing.jsonl").display().to_string());
    let mut lost = subagent_stop(dir.path(), BROKEN_PROBE);
    lost["agent_transcript_path"] = missing.clone();
    lost["agent_id"] = json!("another-agent");
    let judged = subagent(&repo, "claude-code", &lost).expect("a block");
    assert_eq!(judged["decision"], "block", "{judged}");
    // A free-form return that names no role: quiet where no subagent
    // contract is configured, a note for the user where one is.
    let mut prose = subagent_stop(dir.path(), "All done.");
    prose["agent_transcript_path"] = missing.clone();
    assert_eq!(subagent(&repo, "claude-code", &prose), None);
    let configured = TestRepo::new();
    configured.write(
        ".mastermind/hooks.yaml",
        "agent_hooks:\n  subagent:\n    unknown: warn\n",
    );
    configured.commit_all("base");
    let note = subagent(&configured, "claude-code", &prose).expect("a note");
    assert!(note.get("decision").is_none());
    assert!(
        note["systemMessage"]
            .as_str()
            .unwrap()
            .contains("[subagent_dispatch_unrouted]")
    );
}

#[test]
fn codex_subagent_stop_routes_by_agent_type() {
    let repo = task_repo();
    let broken = subagent(
        &repo,
        "codex",
        &with_return("codex/subagent-stop.json", BROKEN_PROBE),
    )
    .unwrap();
    assert_eq!(broken["decision"], "block");
    assert!(
        broken["reason"]
            .as_str()
            .unwrap()
            .contains("`probe-j-cart`")
    );
    assert_eq!(
        subagent(
            &repo,
            "codex",
            &with_return("codex/subagent-stop.json", VALID_PROBE)
        ),
        None
    );
    let mut default = with_return("codex/subagent-stop.json", "anything");
    default["agent_type"] = json!("default");
    assert_eq!(subagent(&repo, "codex", &default), None);
    // An exact schema name routes (a custom agent named after its role).
    let mut composer = with_return("codex/subagent-stop.json", "Done! All good.");
    composer["agent_type"] = json!("composer");
    let blocked = subagent(&repo, "codex", &composer).expect("a block");
    assert_eq!(blocked["decision"], "block");
    assert!(
        blocked["reason"]
            .as_str()
            .unwrap()
            .contains("composer return schema"),
        "{blocked}"
    );
    // A built-in type names no contract: the return's own handover.role does.
    for builtin in ["default", "worker", "explorer"] {
        let mut payload = with_return("codex/subagent-stop.json", BROKEN_PROBE);
        payload["agent_type"] = json!(builtin);
        let answer = subagent(&repo, "codex", &payload).expect("a block");
        assert_eq!(answer["decision"], "block", "{builtin}");
        let mut payload = with_return("codex/subagent-stop.json", VALID_PROBE);
        payload["agent_type"] = json!(builtin);
        assert_eq!(subagent(&repo, "codex", &payload), None, "{builtin}");
    }
    // Codex documents the final message as null when not available:
    // nothing to judge, quiet without configured subagent contracts.
    let mut none = with_return("codex/subagent-stop.json", "x");
    none["last_assistant_message"] = Value::Null;
    assert_eq!(subagent(&repo, "codex", &none), None);
    // Codex has no subagent PostToolUse: a Claude Code tool payload is refused.
    let refused = subagent(
        &repo,
        "codex",
        &with_return("claude-code/post-tool-use-agent.json", VALID_PROBE),
    )
    .unwrap();
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .contains("[agent_hook_payload_unrecognised]")
    );
}

fn read(repo: &TestRepo, path: &str) -> String {
    std::fs::read_to_string(repo.path().join(path)).unwrap_or_default()
}

#[test]
fn install_merges_is_idempotent_and_uninstall_restores() {
    let repo = TestRepo::new();
    let original = "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(cargo test)\"\n    ]\n  },\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"notify-send done\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    repo.write(".claude/settings.json", original);
    let output = repo.run(&["install", "--agent", "claude-code"], None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    let installed = read(&repo, ".claude/settings.json");
    let doc: Value = serde_json::from_str(&installed).unwrap();
    assert_eq!(doc["permissions"]["allow"][0], "Bash(cargo test)");
    let stop = doc["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(
        stop[0]["hooks"][0]["command"], "notify-send done",
        "others kept first"
    );
    let ours = stop[1]["hooks"][0]["command"].as_str().unwrap();
    assert!(
        ours.contains("\"$mh\" agent-hook stop --harness claude-code"),
        "{ours}"
    );
    assert!(
        !installed.contains(common::BIN) && !ours.contains("/target/"),
        "no path of this machine in a committed file: {ours}"
    );
    assert_eq!(
        doc["hooks"]["PreToolUse"][0]["matcher"],
        "Bash|Write|Edit|MultiEdit|NotebookEdit"
    );
    // Claude Code's own fail-closed switch on every entry of ours.
    assert_eq!(stop[1]["hooks"][0]["onFailure"], "block");
    assert_eq!(stop[1]["hooks"][0]["timeout"], 60);
    assert_eq!(doc["hooks"]["PostToolUse"][0]["matcher"], "Agent|Task");
    assert!(
        doc["hooks"]["SubagentStop"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("agent-hook subagent --harness claude-code")
    );
    let again = repo.run(&["install", "--agent", "claude-code"], None);
    assert!(text(&again).contains("nothing to do"), "{}", text(&again));
    assert_eq!(
        read(&repo, ".claude/settings.json"),
        installed,
        "idempotent"
    );
    let shown = repo.run_env(
        &["status", "--agent", "claude-code"],
        &[("MASTERMIND_HOOKS_BIN", common::BIN)],
    );
    assert_eq!(status(&shown), 0, "{}", text(&shown));
    assert!(text(&shown).contains("ok: the agent hooks are installed and current"));
    let out = repo.run(&["uninstall", "--agent", "claude-code"], None);
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert_eq!(
        read(&repo, ".claude/settings.json"),
        original,
        "restored byte for byte"
    );
    let missing = repo.run(
        &["status", "--agent", "claude-code", "--format", "json"],
        None,
    );
    assert_eq!(status(&missing), 1);
    let report = common::json(&missing);
    assert_eq!(report["entries"][0]["state"], "missing");
    assert_eq!(common::codes(&report)[0], "agent_hook_not_installed");
}

#[test]
fn codex_install_creates_and_uninstall_removes_the_file() {
    let repo = TestRepo::new();
    let output = repo.run(&["install", "--agent", "codex"], None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("review and trust"),
        "{}",
        text(&output)
    );
    let doc: Value = serde_json::from_str(&read(&repo, ".codex/hooks.json")).unwrap();
    assert_eq!(
        doc.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["hooks"]
    );
    assert!(doc["hooks"].get("PostToolUse").is_none());
    assert!(
        doc["hooks"]["SubagentStop"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("agent-hook subagent --harness codex")
    );
    let out = repo.run(&["uninstall", "--agent", "codex"], None);
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert!(!repo.path().join(".codex").exists(), "nothing left behind");
}

#[test]
fn install_refuses_settings_it_cannot_edit_and_changes_nothing() {
    let repo = TestRepo::new();
    for bad in [
        "{ not json",
        "[]",
        "{\"hooks\": []}",
        "{\"a\": 1, \"a\": 2}",
    ] {
        repo.write(".claude/settings.json", bad);
        let output = repo.run(&["install", "--agent", "claude-code"], None);
        assert_eq!(status(&output), 2, "{bad}");
        assert!(
            text(&output).contains("agent_settings_unusable"),
            "{}",
            text(&output)
        );
        assert_eq!(read(&repo, ".claude/settings.json"), bad);
    }
    #[cfg(unix)]
    {
        repo.write("elsewhere.json", "{}");
        std::fs::remove_file(repo.path().join(".claude/settings.json")).unwrap();
        std::os::unix::fs::symlink(
            "../elsewhere.json",
            repo.path().join(".claude/settings.json"),
        )
        .unwrap();
        let output = repo.run(&["install", "--agent", "claude-code"], None);
        assert_eq!(status(&output), 2);
        assert!(text(&output).contains("symlink"), "{}", text(&output));
        assert_eq!(read(&repo, "elsewhere.json"), "{}");
    }
}

fn python() -> &'static str {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "the end-to-end test drives a fake harness written in Python: install python3"
    );
    "python3"
}

/// Install the hooks, commit them, then let a fake harness play a session
/// in which the agent leaves an undeclared file behind.
fn session(harness: &str, mode: &str) -> String {
    let repo = TestRepo::new();
    repo.write("src/a.rs", "fn a() {}\n");
    let output = repo.run(&["install", "--agent", harness], None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    repo.commit_all("base, with the agent hooks");
    repo.write_task("001-change-a", &["src/a.rs"], &["src/a.rs"]);
    repo.write("src/a.rs", "fn a() { /* changed */ }\n");
    repo.write("src/extra.rs", "// left behind\n");
    let settings = match harness {
        "codex" => ".codex/hooks.json",
        _ => ".claude/settings.json",
    };
    let mut cmd = repo.command(python());
    // A teammate's machine: the binary from the per-user override (Claude
    // Code) or from PATH (Codex).
    match harness {
        "codex" => {
            let bin_dir = Path::new(common::BIN).parent().unwrap();
            let path = format!(
                "{}:{}",
                bin_dir.display(),
                common::tools::path_without(&["mastermind-hooks"]).to_string_lossy()
            );
            cmd.env("PATH", path);
        }
        _ => {
            cmd.env("MASTERMIND_HOOKS_BIN", common::BIN);
        }
    }
    cmd.args([
        &format!("{DATA}/fake_harness.py"),
        settings,
        &format!("{DATA}/{harness}/stop.json"),
        mode,
    ]);
    let output = common::run_with_stdin(cmd, None);
    assert_eq!(status(&output), 0, "{}", text(&output));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn end_to_end_the_agent_fixes_what_the_reason_names_and_stops() {
    for harness in ["claude-code", "codex"] {
        let log = session(harness, "fixer");
        assert_eq!(
            log,
            "stop 1: blocked: unexpected_file src/extra.rs, executor_report_missing_changed_file .mastermind/tasks/001-change-a/executor-report.md\n\
             agent: reverted src/extra.rs\n\
             stop 2: allowed\n",
            "{harness}"
        );
    }
}

#[test]
fn end_to_end_a_stubborn_agent_is_let_go_after_three_blocks() {
    let log = session("claude-code", "stubborn");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 5, "{log}");
    assert!(
        lines[..3]
            .iter()
            .all(|l| l.contains("blocked: unexpected_file src/extra.rs")),
        "{log}"
    );
    assert!(
        lines[3].starts_with("stop 4: note to user: [agent_hook_loop_guard_released]"),
        "{log}"
    );
    assert_eq!(lines[4], "stop 4: allowed");
}

/// Run a harness's hook command the way the harness does (through a shell,
/// the payload on stdin) with `env` on top of a PATH that has no
/// mastermind-hooks.
fn run_entry(repo: &TestRepo, command: &str, payload: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = repo.command("sh");
    cmd.args(["-c", command])
        .env("PATH", common::tools::path_without(&["mastermind-hooks"]));
    cmd.env_remove("MASTERMIND_HOOKS_BIN");
    for (k, v) in env {
        cmd.env(k, v);
    }
    common::run_with_stdin(cmd, Some(payload))
}

fn entry_command(settings: &str, event: &str) -> String {
    let doc: Value = serde_json::from_str(settings).unwrap();
    doc["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_teammates_install_changes_nothing_and_a_missing_binary_blocks() {
    for harness in ["claude-code", "codex"] {
        let settings = match harness {
            "codex" => ".codex/hooks.json",
            _ => ".claude/settings.json",
        };
        let origin = TestRepo::new();
        origin.write("README", "x\n");
        let out = origin.run(&["install", "--agent", harness], None);
        assert_eq!(status(&out), 0, "{}", text(&out));
        origin.commit_all("the agent hooks");
        let committed = read(&origin, settings);
        // A teammate clones and installs on another machine.
        let clone = TestRepo::clone_of(&origin, &[]);
        let out = clone.run(&["install", "--agent", harness], None);
        assert_eq!(status(&out), 0, "{}", text(&out));
        assert!(text(&out).contains("nothing to do"), "{}", text(&out));
        assert_eq!(read(&clone, settings), committed, "{harness}");
        assert_eq!(clone.git(&["status", "--porcelain"]), "");
        // On a machine without the binary the stop blocks (exit 2, the
        // status both harnesses treat as blocking) and a git write is
        // refused, each saying how to install; anything else runs, so the
        // teammate can install it.
        for (event, payload) in [
            ("Stop", stop_payload(harness, false)),
            (
                "PreToolUse",
                pre_tool_payload(harness, "git commit -m wip").to_string(),
            ),
        ] {
            let command = entry_command(&committed, event);
            let output = run_entry(&clone, &command, &payload, &[]);
            assert_eq!(status(&output), 2, "{harness} {event}: {}", text(&output));
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains("mastermind-hooks is not on PATH")
                    && stderr.contains("cargo install --locked"),
                "{stderr}"
            );
            assert!(stderr.contains("MASTERMIND_HOOKS_BIN"), "{stderr}");
        }
        let command = entry_command(&committed, "PreToolUse");
        let output = run_entry(
            &clone,
            &command,
            &pre_tool_payload(harness, "git status").to_string(),
            &[],
        );
        assert_eq!(status(&output), 0, "{harness}: {}", text(&output));
        // The per-user override reaches the binary without PATH.
        let command = entry_command(&committed, "Stop");
        let output = run_entry(
            &clone,
            &command,
            &stop_payload(harness, false),
            &[("MASTERMIND_HOOKS_BIN", common::BIN)],
        );
        assert_eq!(status(&output), 0, "{}", text(&output));
        // status says the binary is missing, not that the hooks are.
        let shown = clone.run_env(
            &["status", "--agent", harness, "--format", "json"],
            &[(
                "PATH",
                &common::tools::path_without(&["mastermind-hooks"]).to_string_lossy(),
            )],
        );
        let report = common::json(&shown);
        assert_eq!(
            common::codes(&report),
            ["agent_hook_binary_missing"],
            "{report}"
        );
    }
}

#[test]
fn uninstall_gives_back_a_hand_formatted_file_byte_for_byte() {
    let repo = TestRepo::new();
    for original in [
        "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./guard.sh\"}]}\n        ]\n    },\n    \"env\": {\"A\": \"1\"}\n}",
        "{\"hooks\": {\"Notification\": []}}\n",
        "{}",
        "{\n\t\"permissions\": {\n\t\t\"deny\": []\n\t}\n}\n",
    ] {
        repo.write(".claude/settings.json", original);
        let out = repo.run(&["install", "--agent", "claude-code"], None);
        assert_eq!(status(&out), 0, "{}", text(&out));
        let installed = read(&repo, ".claude/settings.json");
        assert_ne!(installed, original);
        serde_json::from_str::<Value>(&installed).expect("still JSON");
        let out = repo.run(&["uninstall", "--agent", "claude-code"], None);
        assert_eq!(status(&out), 0, "{}", text(&out));
        let after = read(&repo, ".claude/settings.json");
        if original == "{}" {
            assert!(
                !repo.path().join(".claude/settings.json").exists() || after == original,
                "{after:?}"
            );
            continue;
        }
        assert_eq!(after, original, "installed was:\n{installed}");
    }
}

fn pre_tool_payload(harness: &str, command: &str) -> Value {
    let file = match harness {
        "codex" => "codex/pre-tool-use.json",
        _ => "claude-code/pre-tool-use-bash.json",
    };
    let mut payload = fixture(file);
    payload["tool_input"]["command"] = json!(command);
    payload
}

fn pre_tool(repo: &TestRepo, harness: &str, command: &str) -> Option<Value> {
    let mut payload = pre_tool_payload(harness, command);
    payload["cwd"] = json!(repo.path().display().to_string());
    decision(&repo.run(
        &["agent-hook", "pre-tool", "--harness", harness],
        Some(&payload.to_string()),
    ))
}

#[test]
fn the_pre_tool_guard_denies_skipping_the_hooks_on_both_harnesses() {
    let repo = TestRepo::new();
    repo.git(&["config", "alias.ci", "commit"]);
    repo.git(&[
        "config",
        "alias.save",
        "!git add -A && git commit --no-verify -m",
    ]);
    for harness in ["claude-code", "codex"] {
        for command in [
            "git add -A && git commit --no-verify -m 'wip'",
            "git commit -nm wip",
            "git -c core.hooksPath=/dev/null commit -m x",
            "MASTERMIND_HOOKS_SKIP=hurry git commit -m x",
            "env MASTERMIND_HOOKS_SKIP=1 git push origin HEAD",
            "rm -f .git/hooks/pre-commit",
            "git config core.hooksPath .none",
            "git ci -n -m wip",
            "git save wip",
            "HUSKY=0 git commit -m x",
            "mastermind-hooks uninstall",
            "bash -c \"cd sub && git commit -n\"",
        ] {
            let answer = pre_tool(&repo, harness, command)
                .unwrap_or_else(|| panic!("{harness}: `{command}` was let through"));
            let out = &answer["hookSpecificOutput"];
            assert_eq!(out["hookEventName"], "PreToolUse");
            assert_eq!(out["permissionDecision"], "deny", "{command}");
            let reason = out["permissionDecisionReason"].as_str().unwrap();
            assert!(
                reason.starts_with("mastermind-hooks refused this command"),
                "{reason}"
            );
            assert!(
                reason.contains("mastermind-hooks check"),
                "says what to do: {reason}"
            );
        }
        for command in [
            "git commit -m 'fix -n handling'",
            "git push -n origin main",
            "cargo test --locked",
            "git config --get core.hooksPath",
        ] {
            assert_eq!(
                pre_tool(&repo, harness, command),
                None,
                "{harness}: {command}"
            );
        }
    }
    // Another tool (a wider matcher) passes; a payload it cannot read is
    // denied, never let through.
    let mut other = pre_tool_payload("claude-code", "x");
    other["tool_name"] = json!("Edit");
    other["tool_input"] = json!({"file_path": "/p/a.rs"});
    let out = repo.run(
        &["agent-hook", "pre-tool", "--harness", "claude-code"],
        Some(&other.to_string()),
    );
    assert_eq!(decision(&out), None);
    let mut broken = pre_tool_payload("codex", "x");
    broken["tool_input"] = json!({});
    let out = repo.run(
        &["agent-hook", "pre-tool", "--harness", "codex"],
        Some(&broken.to_string()),
    );
    let answer = decision(&out).expect("denied");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("agent_hook_payload_unrecognised")
    );
}

#[test]
fn optional_payload_fields_and_every_agent_result_are_understood() {
    let repo = task_repo();
    // Claude Code's SubagentStop without last_assistant_message (optional
    // in its schema): never a block or "unrecognised"; quiet without
    // configured subagent contracts, a note for the user with them.
    let mut payload = fixture("claude-code/subagent-stop.json");
    payload
        .as_object_mut()
        .unwrap()
        .remove("last_assistant_message");
    payload["transcript_path"] = json!(format!("{DATA}/claude-code/session-transcript.jsonl"));
    payload["agent_transcript_path"] =
        json!(format!("{DATA}/claude-code/agent-transcript-probe.jsonl"));
    assert_eq!(subagent(&repo, "claude-code", &payload), None);
    let configured = TestRepo::new();
    configured.write(
        ".mastermind/hooks.yaml",
        "subagent_returns: ['returns/**']\n",
    );
    configured.commit_all("base");
    let answer = subagent(&configured, "claude-code", &payload).expect("a note");
    assert!(answer.get("decision").is_none(), "{answer}");
    let note = answer["systemMessage"].as_str().unwrap();
    assert!(!note.contains("agent_hook_payload_unrecognised"), "{note}");
    assert!(note.contains("no final message"), "{note}");
    // The Agent tool's results: a background or teammate launch has
    // returned nothing yet; a remote one is said to go unjudged here.
    for (status, expected_note) in [
        ("async_launched", false),
        ("teammate_spawned", false),
        ("remote_launched", true),
    ] {
        let mut payload = fixture("claude-code/post-tool-use-agent-background.json");
        payload["tool_response"]["status"] = json!(status);
        let answer = subagent(&repo, "claude-code", &payload);
        match expected_note {
            false => assert_eq!(answer, None, "{status}"),
            true => {
                let answer = answer.expect("a note");
                assert!(answer.get("decision").is_none());
                assert!(
                    answer["systemMessage"].as_str().unwrap().contains("remote"),
                    "{answer}"
                );
            }
        }
    }
    // A dispatch described by the bare schema name routes to that schema.
    let mut exact = with_return("claude-code/post-tool-use-agent.json", "prose");
    exact["tool_input"]["description"] = json!("probe");
    let answer = subagent(&repo, "claude-code", &exact).expect("a block");
    assert_eq!(answer["decision"], "block");
}

#[test]
fn an_agent_that_commits_without_the_hooks_is_still_judged_when_it_stops() {
    let origin = TestRepo::new();
    origin.write("src/a.rs", "fn a() {}\n");
    origin.commit_all("base");
    for branch in ["task", "main"] {
        let repo = TestRepo::clone_of(&origin, &[]);
        if branch != "main" {
            repo.git(&["checkout", "-q", "-b", branch]);
        }
        // The work is committed past the hooks, and the working tree is
        // clean: still judged, on a task branch and on the default branch.
        repo.write_task("001-change-a", &["src/a.rs"], &["src/a.rs"]);
        repo.write("src/a.rs", "fn a() { /* changed */ }\n");
        repo.write("src/extra.rs", "// not declared\n");
        repo.commit_all("work, committed with --no-verify");
        let answer = stop(&repo, "claude-code", false).expect("a block");
        assert_eq!(answer["decision"], "block", "{branch}");
        let reason = answer["reason"].as_str().unwrap();
        assert!(
            reason.contains("- [unexpected_file] src/extra.rs:"),
            "{branch}: {reason}"
        );
        // A relaxed configuration committed on the branch relaxes nothing:
        // the default branch's configuration judges.
        repo.write(
            ".mastermind/hooks.yaml",
            "severity:\n  unexpected_file: note\nagent_hooks:\n  max_consecutive_blocks: 50\n",
        );
        repo.commit_all("relax the gate, with --no-verify");
        let answer = stop(&repo, "claude-code", false).expect("still a block");
        assert_eq!(answer["decision"], "block", "{branch}");
        let reason = answer["reason"].as_str().unwrap();
        assert!(reason.contains("[unexpected_file]"), "{branch}: {reason}");
        // Fixed (the stray commits folded back into the task's own commit,
        // as CI will judge it): the stop goes through silently.
        repo.git(&["reset", "-q", "--soft", "origin/main"]);
        repo.git(&[
            "rm",
            "-q",
            "--cached",
            ".mastermind/hooks.yaml",
            "src/extra.rs",
        ]);
        repo.remove(".mastermind/hooks.yaml");
        repo.remove("src/extra.rs");
        repo.commit_all("the task, whole");
        assert_eq!(stop(&repo, "claude-code", false), None, "{branch}");
    }
}
