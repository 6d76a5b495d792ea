//! `mastermind-hooks agent-hook stop|subagent|pre-tool|handshake --harness
//! H`: the agent harness hooks. Each reads the harness's hook payload on
//! stdin, decides, and prints the harness's own decision JSON on stdout
//! with exit status 0: `{}` to allow, so the settings' command can tell an
//! answer from none. Exit status 2 is left for a failure to write the
//! answer, or a protocol the binary does not speak, which the settings'
//! command reports. The repository is the one around the payload's `cwd`.
//!
//! * `stop` runs the gate on the agent's work ([`Mode::AgentWork`]: the
//!   working tree and every commit since the merge base with the default
//!   branch as the remote reports it, asked once per session
//!   ([`landing_target`]), and with the upstream, whichever is older, under
//!   the default branch's configuration, judged as it would land on the
//!   protected branch) on a worker thread with a deadline below the
//!   harness's hook timeout. A failing task, untasked work, or a gate that
//!   cannot check (including a crash or the deadline), blocks the stop with
//!   a reason the agent can act on, under the loop guard
//!   ([`crate::agent::loop_guard`]): after `max_consecutive_blocks` blocked
//!   stops in a row the stop goes through with a note for the user.
//! * `subagent` judges a subagent's final message by the seed-004 routing
//!   of its dispatch description, and blocks or warns per
//!   `agent_hooks.subagent`. At `SubagentStop` a block sends the subagent
//!   itself back to rewrite its return (under the same loop guard); at
//!   Claude Code's `PostToolUse` it goes to the orchestrator.
//! * `pre-tool` asks git about the working directory (git directory, hooks
//!   directory, aliases) and judges the command or file edit with the guard
//!   ([`crate::agent::guard`]), within its own deadline: a guard that cannot
//!   answer in time refuses.
//! * `handshake` names the protocol this binary speaks.
//!
//! Every decision ends with the binary that answered and how the settings'
//! command found it ([`Provenance`]). The `agent_hooks` configuration is
//! read from the default branch's tip where it is known, else from HEAD's
//! `.mastermind/hooks.yaml`, so an agent cannot relax its own guard by
//! editing the working tree or by committing on its branch.

use crate::agent::decision::{self, Audience, GateVerdict};
use crate::agent::landing_target;
use crate::agent::loop_guard::{self, Step, Store};
use crate::agent::provenance::Provenance;
use crate::agent::settings::{self, DEFAULT_DEADLINE_SECS, PRE_TOOL_DEADLINE_SECS, PROTOCOL};
use crate::agent::{
    self, AgentError, Decision, Dispatch, Event, Harness, MAX_PAYLOAD_BYTES, SubagentPayload,
    ToolCall, facts, guard, transcript,
};
use crate::codes::Code;
use crate::commands::emit;
use crate::config::{AgentHooks, CONFIG_PATH, Config, MAX_CONFIG_BYTES};
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::gate::landing::mode::{self, Mode};
use crate::gate::landing::worktree::AgentTarget;
use crate::repo::{Repo, SharedRepo};
use crate::report::Report;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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

/// Print `json` (one line) as the answer.
fn emit_answer(json: &str) -> ExitStatus {
    match emit(&format!("{json}\n")) {
        Ok(()) => ExitStatus::Pass,
        Err(e) => {
            eprintln!(
                "error[internal_error]: mastermind-hooks could not write its hook answer: {e}"
            );
            ExitStatus::CannotCheck
        }
    }
}

/// `decision` with the provenance line at the end of each text in it.
fn signed(decision: &Decision, provenance: &Provenance) -> Decision {
    let line = provenance.line();
    let sign = |text: &str| format!("{text}\n{line}");
    match decision {
        Decision::Allow => Decision::Allow,
        Decision::Note(text) => Decision::Note(sign(text)),
        Decision::Warn(text) => Decision::Warn(sign(text)),
        Decision::Block { reason, note } => Decision::Block {
            reason: sign(reason),
            note: note.as_deref().map(sign),
        },
    }
}

/// Answer `decision` for `event`: the harness's JSON, `{}` to allow.
fn answer(
    harness: Harness,
    event: Event,
    decision: &Decision,
    provenance: &Provenance,
) -> ExitStatus {
    match agent::encode(harness, event, &signed(decision, provenance)) {
        None => emit_answer("{}"),
        Some(json) => emit_answer(&json),
    }
}

/// Refuse the tool call with `reason` (and the provenance line).
fn deny(reason: &str, provenance: &Provenance) -> ExitStatus {
    emit_answer(&agent::encode_deny(&format!(
        "{reason}\n{}",
        provenance.line()
    )))
}

/// The `cwd` a payload names, when it is a directory.
fn payload_cwd(bytes: &[u8]) -> Option<PathBuf> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let cwd = PathBuf::from(value.get("cwd")?.as_str()?);
    (cwd.is_absolute() && cwd.is_dir()).then_some(cwd)
}

/// The directory the hook works in: the payload's `cwd` (the session's
/// working directory, which decides the repository), else this process's.
/// The process moves there, so the gate finds the same repository.
fn working_dir(bytes: &[u8]) -> PathBuf {
    let dir = payload_cwd(bytes)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let _ = std::env::set_current_dir(&dir);
    dir
}

/// Refuse a protocol this binary does not speak (exit status 2 with the
/// reason: the settings' command reports it).
fn speaks(protocol: Option<u32>) -> Result<(), ExitStatus> {
    match protocol {
        None => Ok(()),
        Some(p) if p == PROTOCOL => Ok(()),
        Some(p) => {
            let d = Diagnostic::new(
                Code::agent_hook_protocol_unknown,
                format!(
                    "these agent hook settings speak agent-hook protocol {p}; mastermind-hooks {} speaks protocol {PROTOCOL}",
                    env!("CARGO_PKG_VERSION")
                ),
            );
            eprintln!(
                "error[{}]: {}; fix: {}",
                d.code.as_str(),
                d.message,
                d.hint.unwrap_or_default()
            );
            Err(ExitStatus::CannotCheck)
        }
    }
}

/// `agent-hook handshake`: the protocol this binary speaks.
pub fn handshake() -> ExitStatus {
    emit_answer(&settings::handshake_line())
}

/// The `agent_hooks` section of the protected configuration (`tip`, else
/// the default branch's tip as the clone knows it, else HEAD; defaults
/// without a commit or a file), with whether subagent contracts are
/// configured (`agent_hooks.subagent` or `subagent_returns`).
fn agent_config(repo: &Repo, tip: Option<gix::ObjectId>) -> Result<AgentHooks, Vec<Diagnostic>> {
    let fail = |e: String| {
        vec![
            Diagnostic::new(Code::config_invalid, format!("{CONFIG_PATH} in HEAD: {e}"))
                .with_path(CONFIG_PATH),
        ]
    };
    // The default branch's tip where known, else HEAD: a relaxed
    // `hooks.yaml` the agent committed on its branch relaxes nothing.
    let id = match tip {
        Some(tip) => tip,
        None => match crate::gate::landing::worktree::protected_commit(repo) {
            Ok(Some(id)) => id,
            _ => return Ok(AgentHooks::default()),
        },
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
    Config::parse(&object.data, &format!("{CONFIG_PATH} in HEAD")).map(|c| {
        let mut hooks = c.agent_hooks;
        hooks.subagent_configured |= !c.subagent_returns.patterns().is_empty();
        hooks
    })
}

/// What every hook starts from, in the payload's working directory.
struct Setup {
    /// The repository as discovered, for the gate's thread to take over.
    shared: Option<SharedRepo>,
    repo: Option<Repo>,
    store: Option<Store>,
    provenance: Provenance,
}

fn setup(harness: Harness, bytes: &[u8]) -> Setup {
    let dir = working_dir(bytes);
    let shared = Repo::discover_shared(&dir).ok();
    let repo = shared.clone().map(Repo::from_shared);
    let store = repo.as_ref().map(|r| Store::in_git_dir(r.git_dir()));
    let root = repo
        .as_ref()
        .and_then(|r| r.workdir().map(Path::to_path_buf));
    Setup {
        provenance: Provenance::of_process(harness, root.as_deref()),
        shared,
        repo,
        store,
    }
}

/// The agent-hook configuration (and what made it unusable: then the
/// defaults stand in).
fn config_of(
    repo: Option<&Repo>,
    tip: Option<gix::ObjectId>,
) -> (AgentHooks, Option<Vec<Diagnostic>>) {
    match repo.map(|r| agent_config(r, tip)) {
        Some(Ok(c)) => (c, None),
        Some(Err(ds)) => (AgentHooks::default(), Some(ds)),
        None => (AgentHooks::default(), None),
    }
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
/// `deadline`, on the repository the hook discovered (`shared`; `None`:
/// the gate discovers it, and reports why it cannot).
fn gate_within(deadline: Duration, target: AgentTarget, shared: Option<SharedRepo>) -> Report {
    let spawned = crate::crash::spawn_watched("gate", move || {
        debug_fault();
        mode::report_on(&Mode::AgentWork(target), shared)
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
pub fn stop(harness: Harness, timeout: Option<u32>, protocol: Option<u32>) -> ExitStatus {
    if let Err(status) = speaks(protocol) {
        return status;
    }
    let started = Instant::now();
    let budget = Duration::from_secs(u64::from(timeout.unwrap_or(DEFAULT_DEADLINE_SECS).max(1)));
    let read = read_stdin();
    let bytes: &[u8] = read.as_deref().unwrap_or_default();
    let Setup {
        shared,
        repo,
        store,
        provenance,
    } = setup(harness, bytes);
    let decoded = match &read {
        Ok(bytes) => agent::decode_stop(harness, bytes),
        Err(d) => Err(d.clone()),
    };
    // The session, the harness's loop flag, the verdict and its reason.
    let (session, active, verdict, reason, config) = match decoded {
        Err(d) => {
            let (session, active, _) = salvage(bytes);
            let reason =
                decision::cannot_check("read the harness's Stop payload", std::slice::from_ref(&d));
            let (config, _) = config_of(repo.as_ref(), None);
            (
                session,
                active,
                GateVerdict::CannotCheck(vec![d]),
                reason,
                config,
            )
        }
        Ok(payload) => {
            let target = repo
                .as_ref()
                .map(|r| {
                    landing_target::ask(r, store.as_ref(), &payload.session_id, started + budget)
                })
                .unwrap_or_default();
            let tip = target.default.as_ref().map(|(_, tip)| *tip);
            let (config, config_problem) = config_of(repo.as_ref(), tip);
            let verdict = match config_problem {
                Some(ds) => GateVerdict::CannotCheck(ds),
                None => {
                    let left = budget.saturating_sub(started.elapsed());
                    let target = AgentTarget {
                        remote_default: target.default.clone(),
                        refs: repo.as_ref().map(|r| {
                            // HEAD read here, where the gate reads it first.
                            let _ = r.head_state();
                            r.refs_seen()
                        }),
                    };
                    GateVerdict::of(&gate_within(
                        left.max(Duration::from_secs(1)),
                        target,
                        shared,
                    ))
                }
            };
            let mut reason = decision::stop_reason(&verdict);
            if let (false, Some(note)) = (verdict.passes(), &target.note) {
                reason.push_str(&format!("\n\n(note: {note})"));
            }
            (
                payload.session_id,
                payload.stop_hook_active,
                verdict,
                reason,
                config,
            )
        }
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
        &provenance,
    )
}

/// The decision for a finished subagent, before the loop guard. Where the
/// return cannot be judged (no final message, a dispatch that cannot be
/// recovered and a return that names no role), the user is told only when
/// the team configured subagent contracts; otherwise the stop is quiet.
fn finished_decision(message: Option<&str>, dispatch: &Dispatch, policy: &AgentHooks) -> Decision {
    let unjudged = |text: String| {
        if policy.subagent_configured {
            Decision::Note(text)
        } else {
            Decision::Allow
        }
    };
    let description = match dispatch {
        Dispatch::Description(d) | Dispatch::AgentType(d) => Ok(d.clone()),
        Dispatch::Transcripts { session, agent } => {
            transcript::recover(session.as_deref(), agent.as_deref())
        }
    };
    let Some(message) = message else {
        // Both harnesses may leave the final message out ("when
        // available"): nothing to judge here, so no block.
        return unjudged(format!(
            "[subagent_dispatch_unrouted] mastermind-hooks could not judge the return of the subagent{} at SubagentStop: the harness sent no final message (last_assistant_message). Where the orchestrator receives it (Claude Code's PostToolUse on the Agent tool) it is judged there.",
            description
                .as_ref()
                .map(|d| format!(" dispatched as `{}`", d.trim()))
                .unwrap_or_default()
        ));
    };
    match description {
        Ok(description) => {
            let outcome = decision::route_return(message.as_bytes(), &description);
            decision::subagent(&outcome, &description, policy, Audience::Subagent)
        }
        Err(why) => {
            // The return's own `handover.role` can still name its contract.
            let outcome = decision::route_return(message.as_bytes(), "");
            match outcome.route {
                crate::contract::subagent::dispatch::DispatchRoute::Unknown
                | crate::contract::subagent::dispatch::DispatchRoute::SilentAllow => {
                    unjudged(format!(
                        "[subagent_dispatch_unrouted] mastermind-hooks could not judge a subagent's return at SubagentStop: {why}. \
                         The PostToolUse hook on the Agent tool judges it when the orchestrator receives it."
                    ))
                }
                _ => {
                    decision::subagent(&outcome, "(its handover.role)", policy, Audience::Subagent)
                }
            }
        }
    }
}

/// `agent-hook subagent`.
pub fn subagent(harness: Harness, protocol: Option<u32>) -> ExitStatus {
    if let Err(status) = speaks(protocol) {
        return status;
    }
    let bytes = read_stdin().unwrap_or_default();
    let Setup {
        repo,
        store,
        provenance,
        ..
    } = setup(harness, &bytes);
    let (config, config_problem) = config_of(repo.as_ref(), None);
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
                return answer(harness, event, &block, &provenance);
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
            return answer(harness, event, &decision, &provenance);
        }
    };
    let event = payload.event();
    if let Some(ds) = config_problem {
        let text = decision::cannot_check("read the agent_hooks configuration", &ds);
        return answer(harness, event, &Decision::Warn(text), &provenance);
    }
    let decision = match payload {
        SubagentPayload::OtherTool { .. } | SubagentPayload::BackgroundLaunch { .. } => {
            Decision::Allow
        }
        SubagentPayload::RemoteLaunch { description } => Decision::Note(format!(
            "[subagent_dispatch_unrouted] the subagent dispatched as `{}` runs remotely (status remote_launched); its return never reaches this machine's hooks, so mastermind-hooks does not judge it. Validate the return with `mastermind-hooks validate --dispatch` when it arrives.",
            description.trim()
        )),
        SubagentPayload::ToolReturn { description, text } => {
            let outcome = decision::route_return(text.as_bytes(), &description);
            decision::subagent(&outcome, &description, &config, Audience::Orchestrator)
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
            match (step, decision) {
                (Step::Release(n), Decision::Block { reason, .. }) => Decision::Note(format!(
                    "[agent_hook_loop_guard_released] mastermind-hooks let a subagent finish after {n} blocked attempt{} to fix its return, which still breaks its contract:\n{reason}",
                    if n == 1 { "" } else { "s" }
                )),
                (_, decision) => decision,
            }
        }
    };
    answer(harness, event, &decision, &provenance)
}

/// `agent-hook pre-tool`: refuse a shell command or a file edit that would
/// skip or switch off the git hooks, the gate or the agent hooks, before it
/// runs; within the guard's own deadline, past which it refuses.
pub fn pre_tool(harness: Harness, timeout: Option<u32>, protocol: Option<u32>) -> ExitStatus {
    if let Err(status) = speaks(protocol) {
        return status;
    }
    let started = Instant::now();
    let budget = Duration::from_secs(u64::from(timeout.unwrap_or(PRE_TOOL_DEADLINE_SECS).max(1)));
    let deadline = started + budget;
    let read = read_stdin();
    let bytes = read.as_deref().unwrap_or_default().to_vec();
    let dir = working_dir(&bytes);
    let root = Repo::discover(&dir)
        .ok()
        .and_then(|r| r.workdir().map(Path::to_path_buf));
    let provenance = Provenance::of_process(harness, root.as_deref());
    let payload = match read.and_then(|bytes| agent::decode_pre_tool(harness, &bytes)) {
        Ok(payload) => payload,
        Err(d) => {
            return deny(
                &decision::cannot_check(
                    "read the harness's PreToolUse payload, so it cannot tell whether this tool call skips the git hooks",
                    &[d],
                ),
                &provenance,
            );
        }
    };
    if payload.call == ToolCall::Other {
        return answer(harness, Event::PreToolUse, &Decision::Allow, &provenance);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let context = match facts::gather(&dir, home, deadline) {
        Ok(context) => context,
        Err(e) => {
            let d = Diagnostic::new(Code::agent_hook_deadline_exceeded, e.to_string()).with_hint(
                "Find what git waits for: `git config --list --show-origin` names every file it reads (an include that is a FIFO, or a slow file system); fix it, then run the command again.",
            );
            return deny(
                &decision::cannot_check(
                    "ask git about this repository, so it cannot tell whether this tool call skips the git hooks",
                    &[d],
                ),
                &provenance,
            );
        }
    };
    let call = payload.call;
    let judged = crate::crash::spawn_watched("guard", move || match &call {
        ToolCall::Shell(command) => guard::judge(command, &context),
        ToolCall::Edit(edit) => guard::judge_edit(edit, &context),
        ToolCall::Other => None,
    });
    let left = deadline.saturating_duration_since(Instant::now());
    let verdict = match judged.map(|rx| rx.recv_timeout(left)) {
        Ok(Ok(Ok(verdict))) => Ok(verdict),
        Ok(Err(mpsc::RecvTimeoutError::Timeout)) => Err(Diagnostic::new(
            Code::agent_hook_deadline_exceeded,
            format!(
                "the guard did not finish within {} s, so the tool call is refused",
                budget.as_secs()
            ),
        )),
        _ => Err(Diagnostic::new(
            Code::internal_error,
            "the guard crashed (an internal error in mastermind-hooks)",
        )),
    };
    match verdict {
        Ok(None) => answer(harness, Event::PreToolUse, &Decision::Allow, &provenance),
        Ok(Some(refusal)) => deny(&refusal.reason(), &provenance),
        Err(d) => deny(
            &decision::cannot_check(
                "judge this tool call, so it cannot tell whether it skips the git hooks",
                &[d],
            ),
            &provenance,
        ),
    }
}
