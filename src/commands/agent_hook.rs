//! `mastermind-hooks agent-hook stop|subagent --harness H`: the agent
//! harness hooks. Each reads the harness's hook payload on stdin, decides,
//! and prints the harness's own decision JSON on stdout with exit status 0
//! (nothing at all for a silent allow). Exit status 2 is left for a failure
//! to write the answer, which the harness shows as a hook error.
//!
//! * `stop` runs the gate on the agent's work ([`Mode::AgentWork`]: the
//!   working tree and every commit since the merge base with the upstream
//!   or the default branch, under the default branch's configuration) on
//!   a worker thread with a deadline below the harness's hook timeout. A failing task, or a gate that cannot check
//!   (including a crash or the deadline), blocks the stop with a reason the
//!   agent can act on, under the loop guard ([`crate::agent::loop_guard`]):
//!   after `max_consecutive_blocks` blocked stops in a row the stop goes
//!   through with a note for the user.
//! * `subagent` judges a subagent's final message by the seed-004 routing
//!   of its dispatch description ([`check_dispatched`]), and blocks or warns
//!   per `agent_hooks.subagent`. At `SubagentStop` a block sends the
//!   subagent itself back to rewrite its return (under the same loop
//!   guard); at Claude Code's `PostToolUse` it goes to the orchestrator.
//!
//! The `agent_hooks` configuration is read from the default branch's tip
//! where the clone knows it, else from HEAD's `.mastermind/hooks.yaml`, so
//! an agent cannot relax its own guard by editing the working tree or by
//! committing on its branch.

use crate::agent::decision::{self, Audience, GateVerdict};
use crate::agent::loop_guard::{self, Step, Store};
use crate::agent::{
    self, AgentError, Decision, Dispatch, Event, Harness, MAX_PAYLOAD_BYTES, SubagentPayload,
    transcript,
};
use crate::codes::Code;
use crate::commands::emit;
use crate::config::{AgentHooks, CONFIG_PATH, Config, MAX_CONFIG_BYTES};
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::gate::landing::mode::{self, Mode};
use crate::repo::Repo;
use crate::report::Report;
use std::io::Read;
use std::sync::mpsc;
use std::time::Duration;

/// Read the payload: at most one byte past the limit.
fn read_stdin() -> Result<Vec<u8>, Diagnostic> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_PAYLOAD_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            Diagnostic::new(
                Code::agent_hook_payload_unrecognised,
                format!("cannot read the hook payload from stdin: {e}"),
            )
        })?;
    Ok(bytes)
}

fn answer(harness: Harness, event: Event, decision: &Decision) -> ExitStatus {
    match agent::encode(harness, event, decision) {
        None => ExitStatus::Pass,
        Some(json) => match emit(&format!("{json}\n")) {
            Ok(()) => ExitStatus::Pass,
            Err(e) => {
                eprintln!(
                    "error[internal_error]: mastermind-hooks could not write its hook answer: {e}"
                );
                ExitStatus::CannotCheck
            }
        },
    }
}

fn open_repo() -> Result<Repo, Diagnostic> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    Repo::discover(&cwd).map_err(|e| e.to_diagnostic())
}

/// The `agent_hooks` section of the protected configuration (the default
/// branch's tip, else HEAD; defaults without a commit or a file).
fn agent_config(repo: &Repo) -> Result<AgentHooks, Vec<Diagnostic>> {
    let fail = |e: String| {
        vec![
            Diagnostic::new(Code::config_invalid, format!("{CONFIG_PATH} in HEAD: {e}"))
                .with_path(CONFIG_PATH),
        ]
    };
    // The default branch's tip where known, else HEAD: a relaxed
    // `hooks.yaml` the agent committed on its branch relaxes nothing.
    let Ok(Some(id)) = crate::gate::landing::worktree::protected_commit(repo) else {
        return Ok(AgentHooks::default());
    };
    let Ok(commit) = repo.gix().find_commit(id) else {
        return Ok(AgentHooks::default());
    };
    let tree = commit.tree().map_err(|e| fail(e.to_string()))?;
    let Some(entry) = tree
        .lookup_entry_by_path(CONFIG_PATH)
        .map_err(|e| fail(e.to_string()))?
    else {
        return Ok(AgentHooks::default());
    };
    if !entry.mode().is_blob() {
        return Err(fail("not a regular file".into()));
    }
    let object = entry.object().map_err(|e| fail(e.to_string()))?;
    if object.data.len() > MAX_CONFIG_BYTES {
        return Err(fail(format!("larger than {MAX_CONFIG_BYTES} bytes")));
    }
    Config::parse(&object.data, &format!("{CONFIG_PATH} in HEAD")).map(|c| c.agent_hooks)
}

/// What both hooks start from: the loop guard's store (none outside a
/// repository), the agent-hook configuration from HEAD, and what made that
/// configuration unusable (then the defaults stand in).
fn setup() -> (Option<Store>, AgentHooks, Option<Vec<Diagnostic>>) {
    let repo = open_repo().ok();
    let store = repo.as_ref().map(|r| Store::in_git_dir(r.git_dir()));
    let (config, problem) = match repo.as_ref().map(agent_config) {
        Some(Ok(c)) => (c, None),
        Some(Err(ds)) => (AgentHooks::default(), Some(ds)),
        None => (AgentHooks::default(), None),
    };
    (store, config, problem)
}

/// Apply the loop guard to a failing (or passing) stop. When the count
/// cannot be read or written, the harness's own flag bounds the chain at
/// one block, and the state is rewritten so a damaged file heals.
fn guarded(
    store: Option<&Store>,
    key: &str,
    stop_hook_active: bool,
    failing: bool,
    max: u32,
) -> (Step, Option<AgentError>) {
    let loaded = match store {
        Some(s) => s.load(key),
        None => Err(AgentError::NoStore),
    };
    let stateless = || match (failing, stop_hook_active) {
        (false, _) => Step::Pass,
        (true, true) => Step::Release(1),
        (true, false) => Step::Block(1),
    };
    let (step, problem) = match loaded {
        Ok(previous) => (
            loop_guard::step(previous, stop_hook_active, failing, max),
            None,
        ),
        Err(e) => (stateless(), Some(e)),
    };
    match store.map(|s| s.save(key, step.stored())) {
        Some(Err(e)) if matches!(step, Step::Block(_)) => (stateless(), Some(e)),
        _ => (step, problem),
    }
}

#[cfg(debug_assertions)]
fn debug_fault() {
    // Debug builds only: lets the tests prove that a crash or a hang of the
    // gate is reported as "could not check".
    match std::env::var("MASTERMIND_HOOKS_DEBUG_AGENT_HOOK").as_deref() {
        Ok("panic") => panic!("panic requested by MASTERMIND_HOOKS_DEBUG_AGENT_HOOK"),
        // A worker thread of the gate's (as the parallel readers are).
        Ok("panic-worker") => std::thread::scope(|scope| {
            scope.spawn(|| panic!("worker panic requested by MASTERMIND_HOOKS_DEBUG_AGENT_HOOK"));
        }),
        Ok("hang") => std::thread::sleep(Duration::from_secs(3600)),
        _ => {}
    }
}

#[cfg(not(debug_assertions))]
fn debug_fault() {}

/// Run the gate on the agent's work ([`Mode::AgentWork`]), within
/// `deadline`.
fn gate_within(deadline: Duration) -> Report {
    let spawned = crate::crash::spawn_watched("gate", || {
        debug_fault();
        mode::report(&Mode::AgentWork)
    });
    let fault = |code: Code, message: String| {
        Report::assemble(Vec::new(), Vec::new(), vec![Diagnostic::new(code, message)])
    };
    let rx = match spawned {
        Ok(rx) => rx,
        Err(e) => return fault(Code::internal_error, format!("cannot start the gate: {e}")),
    };
    match rx.recv_timeout(deadline) {
        Ok(Ok(report)) => report,
        Ok(Err(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => fault(
            Code::internal_error,
            "the gate crashed (an internal error in mastermind-hooks); nothing was judged".into(),
        ),
        Err(mpsc::RecvTimeoutError::Timeout) => fault(
            Code::agent_hook_deadline_exceeded,
            format!(
                "the gate did not finish within {} s, so nothing was judged",
                deadline.as_secs()
            ),
        ),
    }
}

/// Best effort on a payload that failed to decode: the session and loop
/// flag, so even an unrecognised payload cannot trap the agent. A missing
/// flag counts as set, so the stored count carries on.
fn salvage(bytes: &[u8]) -> (String, bool, Option<String>) {
    let value: serde_json::Value = serde_json::from_slice(bytes).unwrap_or_default();
    let text = |k: &str| value.get(k).and_then(|v| v.as_str()).map(str::to_string);
    (
        text("session_id").unwrap_or_else(|| "(no session)".into()),
        value
            .get("stop_hook_active")
            .and_then(|v| v.as_bool())
            .unwrap_or(true),
        text("agent_id"),
    )
}

/// The decision for a stop, given the gate's verdict (and the reason to
/// give for it) and the guard.
fn stop_decision(
    verdict: &GateVerdict,
    reason: String,
    step: Step,
    guard_problem: Option<AgentError>,
) -> Decision {
    match step {
        Step::Pass => Decision::Allow,
        Step::Block(_) => Decision::Block { reason, note: None },
        Step::Release(n) => {
            let mut note = decision::release_note(verdict, n);
            if let Some(problem) = guard_problem {
                note.push_str(&format!(" (loop-guard state unusable: {problem})"));
            }
            Decision::Note(note)
        }
    }
}

/// `agent-hook stop`.
pub fn stop(harness: Harness, deadline_secs: u32) -> ExitStatus {
    let deadline = Duration::from_secs(u64::from(deadline_secs.max(1)));
    let (store, config, config_problem) = setup();
    // The session, the harness's loop flag, the verdict and its reason.
    let (session, active, verdict, reason) = match read_stdin() {
        Err(d) => {
            let reason =
                decision::cannot_check("read the harness's Stop payload", std::slice::from_ref(&d));
            (
                "(no session)".to_string(),
                true,
                GateVerdict::CannotCheck(vec![d]),
                reason,
            )
        }
        Ok(bytes) => match agent::decode_stop(harness, &bytes) {
            Err(d) => {
                let (session, active, _) = salvage(&bytes);
                let reason = decision::cannot_check(
                    "read the harness's Stop payload",
                    std::slice::from_ref(&d),
                );
                (session, active, GateVerdict::CannotCheck(vec![d]), reason)
            }
            Ok(payload) => {
                let verdict = match config_problem {
                    Some(ds) => GateVerdict::CannotCheck(ds),
                    None => GateVerdict::of(&gate_within(deadline)),
                };
                let reason = decision::stop_reason(&verdict);
                (
                    payload.session_id,
                    payload.stop_hook_active,
                    verdict,
                    reason,
                )
            }
        },
    };
    let (step, problem) = guarded(
        store.as_ref(),
        &format!("stop:{session}"),
        active,
        !verdict.passes(),
        config.max_consecutive_blocks,
    );
    answer(
        harness,
        Event::Stop,
        &stop_decision(&verdict, reason, step, problem),
    )
}

/// The decision for a finished subagent, before the loop guard.
fn finished_decision(message: Option<&str>, dispatch: &Dispatch, policy: &AgentHooks) -> Decision {
    let description = match dispatch {
        Dispatch::Description(d) | Dispatch::AgentType(d) => d.clone(),
        Dispatch::Transcripts { session, agent } => {
            match transcript::recover(session.as_deref(), agent.as_deref()) {
                Ok(d) => d,
                Err(why) => {
                    return Decision::Note(format!(
                        "[subagent_dispatch_unrouted] mastermind-hooks could not judge a subagent's return at SubagentStop: {why}. \
                         The PostToolUse hook on the Agent tool judges it when the orchestrator receives it."
                    ));
                }
            }
        }
    };
    let Some(message) = message else {
        // Both harnesses may leave the final message out ("when
        // available"): nothing to judge here, so no block.
        return Decision::Note(format!(
            "[subagent_dispatch_unrouted] mastermind-hooks could not judge the return of the subagent dispatched as `{}` at SubagentStop: the harness sent no final message (last_assistant_message). Where the orchestrator receives it (Claude Code's PostToolUse on the Agent tool) it is judged there.",
            description.trim()
        ));
    };
    let outcome = decision::route_return(message.as_bytes(), &description);
    decision::subagent(&outcome, &description, policy, Audience::Subagent)
}

/// `agent-hook subagent`.
pub fn subagent(harness: Harness) -> ExitStatus {
    let (store, config, config_problem) = setup();
    let bytes = read_stdin().unwrap_or_default();
    let payload = match agent::decode_subagent(harness, &bytes) {
        Ok(payload) => payload,
        Err(d) => {
            let (session, active, agent_id) = salvage(&bytes);
            let event = if agent_id.is_some() {
                Event::SubagentStop
            } else {
                Event::PostToolUse
            };
            let reason = decision::cannot_check("read the harness's subagent hook payload", &[d]);
            if event == Event::PostToolUse {
                let block = Decision::Block { reason, note: None };
                return answer(harness, event, &block);
            }
            let key = format!("subagent:{session}:{}", agent_id.unwrap_or_default());
            let (step, _) = guarded(
                store.as_ref(),
                &key,
                active,
                true,
                config.max_consecutive_blocks,
            );
            let decision = match step {
                Step::Release(_) => Decision::Note(format!(
                    "[agent_hook_loop_guard_released] mastermind-hooks let a subagent finish although: {reason}"
                )),
                _ => Decision::Block { reason, note: None },
            };
            return answer(harness, event, &decision);
        }
    };
    let event = payload.event();
    if let Some(ds) = config_problem {
        let text = decision::cannot_check("read the agent_hooks configuration", &ds);
        return answer(harness, event, &Decision::Warn(text));
    }
    match payload {
        SubagentPayload::OtherTool { .. } | SubagentPayload::BackgroundLaunch { .. } => {
            answer(harness, event, &Decision::Allow)
        }
        SubagentPayload::RemoteLaunch { description } => answer(
            harness,
            event,
            &Decision::Note(format!(
                "[subagent_dispatch_unrouted] the subagent dispatched as `{}` runs remotely (status remote_launched); its return never reaches this machine's hooks, so mastermind-hooks does not judge it. Validate the return with `mastermind-hooks validate --dispatch` when it arrives.",
                description.trim()
            )),
        ),
        SubagentPayload::ToolReturn { description, text } => {
            let outcome = decision::route_return(text.as_bytes(), &description);
            let decision =
                decision::subagent(&outcome, &description, &config, Audience::Orchestrator);
            answer(harness, event, &decision)
        }
        SubagentPayload::Finished {
            session_id,
            agent_id,
            stop_hook_active,
            message,
            dispatch,
        } => {
            let decision = finished_decision(message.as_deref(), &dispatch, &config);
            let blocking = matches!(decision, Decision::Block { .. });
            let key = format!("subagent:{session_id}:{agent_id}");
            let (step, _) = guarded(
                store.as_ref(),
                &key,
                stop_hook_active,
                blocking,
                config.max_consecutive_blocks,
            );
            let decision = match (step, decision) {
                (Step::Release(n), Decision::Block { reason, .. }) => Decision::Note(format!(
                    "[agent_hook_loop_guard_released] mastermind-hooks let a subagent finish after {n} blocked attempt{} to fix its return, which still breaks its contract:\n{reason}",
                    if n == 1 { "" } else { "s" }
                )),
                (_, decision) => decision,
            };
            answer(harness, event, &decision)
        }
    }
}

/// The repository's git aliases (`alias.NAME` values) as git reads them in
/// `cwd`; none when git cannot say.
fn git_aliases(cwd: &std::path::Path) -> Vec<(String, String)> {
    let output = std::process::Command::new("git")
        .args(["config", "-z", "--get-regexp", r"^alias\."])
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    let Ok(output) = output else {
        return Vec::new();
    };
    output
        .stdout
        .split(|&b| b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (key, value) = entry.split_once('\n')?;
            let name = key.get("alias.".len()..)?;
            Some((name.to_string(), value.to_string()))
        })
        .collect()
}

/// `agent-hook pre-tool`: refuse a shell command that would skip or
/// disable the git hooks or the gate, before it runs.
pub fn pre_tool(harness: Harness) -> ExitStatus {
    let deny = |reason: String| match emit(&format!("{}\n", agent::encode_deny(&reason))) {
        Ok(()) => ExitStatus::Pass,
        Err(e) => {
            eprintln!(
                "error[internal_error]: mastermind-hooks could not write its hook answer: {e}"
            );
            ExitStatus::CannotCheck
        }
    };
    let payload = match read_stdin().and_then(|bytes| agent::decode_pre_tool(harness, &bytes)) {
        Ok(payload) => payload,
        Err(d) => {
            return deny(decision::cannot_check(
                "read the harness's PreToolUse payload, so it cannot tell whether this command skips the git hooks",
                &[d],
            ));
        }
    };
    let Some(command) = payload.command else {
        return ExitStatus::Pass; // not the shell tool
    };
    let cwd = payload
        .cwd
        .filter(|p| p.is_dir())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| std::path::PathBuf::from("."));
    match crate::agent::guard::judge(&command, &git_aliases(&cwd)) {
        Some(refusal) => deny(refusal.reason()),
        None => ExitStatus::Pass,
    }
}
