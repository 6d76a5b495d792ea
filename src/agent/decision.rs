//! What an agent hook answers, and the words in it. Pure: a gate report or a
//! subagent-return outcome in, a [`Decision`] out. The harness modules turn
//! a decision into their own JSON.
//!
//! Reasons are written for the agent that must act on them: what is wrong,
//! which file, and the edit or command that fixes it, one finding per
//! bullet. Notes are written for the user watching the session.

use crate::config::{AgentHooks, SubagentAction};
use crate::contract::subagent::dispatch::{self, DispatchOutcome, DispatchRoute};
use crate::contract::subagent::{returns, routing};
use crate::diagnostic::{Diagnostic, Severity};
use crate::report::Report;
use std::fmt::Write;

/// An agent hook's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Let it proceed; print nothing.
    Allow,
    /// Let it proceed and tell the user (the harness's `systemMessage`).
    Note(String),
    /// Let it proceed, tell the user, and give the agent the same text as
    /// context where the event allows it.
    Warn(String),
    /// Send the agent back with `reason`; `note` is also shown to the user.
    Block {
        reason: String,
        note: Option<String>,
    },
}

impl Decision {
    /// The top-level fields Claude Code and Codex both read (`None`: print
    /// nothing): `systemMessage` for what the user is told, and
    /// `decision: "block"` with `reason` for what sends the agent back.
    pub fn common_fields(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        use serde_json::json;
        let mut out = serde_json::Map::new();
        match self {
            Decision::Allow => return None,
            Decision::Note(message) | Decision::Warn(message) => {
                out.insert("systemMessage".into(), json!(message));
            }
            Decision::Block { reason, note } => {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
                if let Some(note) = note {
                    out.insert("systemMessage".into(), json!(note));
                }
            }
        }
        Some(out)
    }
}

/// Findings listed in one reason; the rest are counted. Claude Code keeps at
/// most 10,000 characters of hook output in context.
const MAX_FINDINGS: usize = 20;
const MAX_REASON_CHARS: usize = 8000;

/// How the gate judged the working tree, for the stop hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateVerdict {
    /// Nothing failed (or no task changed).
    Pass,
    /// At least one rule is broken.
    Fail(Vec<Diagnostic>),
    /// Something could not be checked.
    CannotCheck(Vec<Diagnostic>),
}

impl GateVerdict {
    /// Judge a `check --worktree` report: its errors, in report order.
    pub fn of(report: &Report) -> GateVerdict {
        let errors: Vec<Diagnostic> = report
            .all_diagnostics()
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect();
        if errors.is_empty() {
            GateVerdict::Pass
        } else if errors.iter().any(Diagnostic::cannot_check) {
            GateVerdict::CannotCheck(errors)
        } else {
            GateVerdict::Fail(errors)
        }
    }

    pub fn passes(&self) -> bool {
        matches!(self, GateVerdict::Pass)
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            GateVerdict::Pass => &[],
            GateVerdict::Fail(d) | GateVerdict::CannotCheck(d) => d,
        }
    }
}

/// One finding as a bullet: rule, place, message, fix.
fn bullet(out: &mut String, d: &Diagnostic) {
    let mut place = d.path.clone().unwrap_or_default();
    match (d.line, place.is_empty()) {
        (Some(line), false) => {
            let _ = write!(place, ":{line}");
        }
        (Some(line), true) => place = format!("line {line}"),
        (None, _) => {}
    }
    if let Some(pointer) = d.json_pointer.as_ref().filter(|p| !p.is_empty()) {
        if place.is_empty() {
            place = pointer.clone();
        } else {
            let _ = write!(place, " ({pointer})");
        }
    }
    let mut lines = d.message.lines();
    let first = lines.next().unwrap_or_default();
    if place.is_empty() {
        let _ = writeln!(out, "- [{}] {first}", d.code.as_str());
    } else {
        let _ = writeln!(out, "- [{}] {place}: {first}", d.code.as_str());
    }
    for line in lines {
        let _ = writeln!(out, "  {line}");
    }
    if let Some(hint) = &d.hint {
        let _ = writeln!(out, "  fix: {hint}");
    }
}

/// Findings grouped by task (run-level findings first), bounded.
fn findings(out: &mut String, diagnostics: &[Diagnostic]) {
    let mut groups: Vec<(Option<&str>, Vec<&Diagnostic>)> = Vec::new();
    for d in diagnostics.iter().take(MAX_FINDINGS) {
        let task = d.task.as_deref();
        match groups.iter_mut().find(|(t, _)| *t == task) {
            Some((_, list)) => list.push(d),
            None => groups.push((task, vec![d])),
        }
    }
    groups.sort_by_key(|(task, _)| task.is_some());
    for (task, list) in groups {
        if let Some(task) = task {
            let _ = writeln!(out, "\ntask {task}:");
        } else {
            out.push('\n');
        }
        for d in list {
            bullet(out, d);
        }
    }
    if diagnostics.len() > MAX_FINDINGS {
        let _ = writeln!(
            out,
            "\n... and {} more; `mastermind-hooks check --worktree` lists them all.",
            diagnostics.len() - MAX_FINDINGS
        );
    }
}

fn bounded(mut text: String) -> String {
    if text.chars().count() > MAX_REASON_CHARS {
        text = text.chars().take(MAX_REASON_CHARS).collect();
        text.push_str(
            "\n... (cut here; `mastermind-hooks check --worktree` prints the whole list)\n",
        );
    }
    text.trim_end().to_string()
}

/// The block reason for a stop whose work fails or cannot be checked.
pub fn stop_reason(verdict: &GateVerdict) -> String {
    let mut out = String::new();
    match verdict {
        GateVerdict::Pass => {}
        GateVerdict::Fail(_) => {
            out.push_str(
                "mastermind-hooks: the task you changed does not pass its gate yet, so do not stop. \
                 Fix every finding below (each names the file and the fix), then finish your turn again; \
                 `mastermind-hooks check --worktree` shows the same findings.\n",
            );
        }
        GateVerdict::CannotCheck(_) => {
            out.push_str(
                "mastermind-hooks: the gate could not check the work in this working tree, so it cannot let you stop yet. \
                 Fix what is named below (or tell the user why you cannot), then finish your turn again; \
                 `mastermind-hooks check --worktree` shows the same message.\n",
            );
        }
    }
    findings(&mut out, verdict.diagnostics());
    bounded(out)
}

/// A "could not check" text: what could not be done, then the findings.
pub fn cannot_check(what: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = format!("mastermind-hooks could not {what}; nothing was judged.\n");
    findings(&mut out, diagnostics);
    bounded(out)
}

/// A one-line summary of a failing verdict for the user.
fn summary(verdict: &GateVerdict) -> String {
    let diagnostics = verdict.diagnostics();
    let codes: Vec<&str> = {
        let mut codes: Vec<&str> = diagnostics.iter().map(|d| d.code.as_str()).collect();
        codes.dedup();
        codes.into_iter().take(5).collect()
    };
    let what = match verdict {
        GateVerdict::CannotCheck(_) => "could not be checked",
        _ => "still fails its gate",
    };
    format!(
        "the work {what} ({} finding{}: {})",
        diagnostics.len(),
        if diagnostics.len() == 1 { "" } else { "s" },
        codes.join(", ")
    )
}

/// The note when the loop guard lets a failing stop through.
pub fn release_note(verdict: &GateVerdict, blocks: u32) -> String {
    format!(
        "[agent_hook_loop_guard_released] mastermind-hooks let the agent stop after {blocks} blocked stop{} in a row, but {}. \
         Run `mastermind-hooks check --worktree` and fix the findings before you commit; \
         `git commit` runs the same gate.",
        if blocks == 1 { "" } else { "s" },
        summary(verdict)
    )
}

/// Judge a subagent's final message by what dispatched it, in this order:
///
/// 1. the dispatch description's prefix (seed 004 section 4.4);
/// 2. a dispatch that is exactly a return schema's name (`composer`,
///    `reviewer-inloop`, `probe`, ...): Codex names a custom agent's type
///    after it, and an orchestrator may dispatch by the bare role;
/// 3. the return's own `handover.role` (which names its schema), for
///    dispatches that say nothing about the contract (Codex's built-in
///    agent types `default`, `worker`, `explorer`; a free-text description).
///
/// When none of them names a contract the outcome is the dispatch table's
/// "unknown", which `agent_hooks.subagent.unknown` turns into nothing, a
/// warning or a block.
pub fn route_return(bytes: &[u8], description: &str) -> DispatchOutcome {
    let by_prefix = dispatch::check_dispatched(bytes, description);
    if by_prefix.route != DispatchRoute::Unknown {
        return by_prefix;
    }
    if let routing::Route::Schema(role) = routing::route(description) {
        return DispatchOutcome {
            route: DispatchRoute::Schema(role),
            diagnostics: returns::check_routed(bytes, Some(routing::Route::Schema(role))).1,
        };
    }
    let (parsed, diagnostics) = returns::check(bytes, None);
    match parsed.map(|r| r.route) {
        Some(routing::Route::Schema(role)) => DispatchOutcome {
            route: DispatchRoute::Schema(role),
            diagnostics,
        },
        Some(routing::Route::EnvelopeOnly) => DispatchOutcome {
            route: DispatchRoute::EnvelopeOnly,
            diagnostics,
        },
        _ => by_prefix,
    }
}

/// Who reads a subagent verdict: the orchestrator (after the tool returned)
/// or the subagent itself (before it finishes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    Orchestrator,
    Subagent,
}

fn route_name(route: &DispatchRoute) -> String {
    match route {
        DispatchRoute::Schema(role) => {
            format!("the {} return schema and its contract rules", role.name())
        }
        DispatchRoute::EnvelopeOnly => "the handover envelope check".into(),
        DispatchRoute::SilentAllow => "no contract (free-form)".into(),
        DispatchRoute::Unknown => "no known contract".into(),
    }
}

/// The decision for a subagent's return: the route decides whether there is
/// anything to judge, the policy whether a broken return blocks or warns.
pub fn subagent(
    outcome: &DispatchOutcome,
    description: &str,
    policy: &AgentHooks,
    audience: Audience,
) -> Decision {
    let errors: Vec<Diagnostic> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    match &outcome.route {
        DispatchRoute::SilentAllow => Decision::Allow,
        DispatchRoute::Unknown => unrouted(
            policy.subagent_unknown,
            &format!(
                "the dispatch description `{}` routes to no subagent return contract (seed 004 section 4.4)",
                description.trim()
            ),
            audience,
        ),
        _ if errors.is_empty() => Decision::Allow,
        route => {
            let mut text = String::new();
            let _ = write!(
                text,
                "mastermind-hooks: the return of the subagent dispatched as `{}` breaks {} ({} violation{}).",
                description.trim(),
                route_name(route),
                errors.len(),
                if errors.len() == 1 { "" } else { "s" }
            );
            text.push_str(match audience {
                Audience::Orchestrator => {
                    " Do not act on it: re-dispatch the subagent with a brief that quotes each broken rule below, \
                     or tell the user if re-dispatch is not possible.\n"
                }
                Audience::Subagent => {
                    " Rewrite your final message so it satisfies every rule below: one JSON object, `handover` first, \
                     no prose or ``` fences around it.\n"
                }
            });
            findings(&mut text, &errors);
            let text = bounded(text);
            match policy.subagent_action(description) {
                SubagentAction::Block => Decision::Block {
                    reason: text,
                    note: None,
                },
                SubagentAction::Warn | SubagentAction::Allow => Decision::Warn(text),
            }
        }
    }
}

/// The decision when no contract can be chosen for a return (`unknown`
/// policy): `why` says what went wrong.
pub fn unrouted(action: SubagentAction, why: &str, audience: Audience) -> Decision {
    let text = format!(
        "[subagent_dispatch_unrouted] mastermind-hooks could not judge this subagent return: {why}. \
         Dispatch with a routed prefix (composer-, reviewer-, probe-, phase-validator-, ...) or a bare j-/sj- slug, \
         or set agent_hooks.subagent.unknown in .mastermind/hooks.yaml."
    );
    match action {
        SubagentAction::Allow => Decision::Allow,
        SubagentAction::Warn => Decision::Warn(text),
        SubagentAction::Block => Decision::Block {
            reason: match audience {
                Audience::Orchestrator => text,
                Audience::Subagent => format!(
                    "{text} Finish with a return the orchestrator's dispatch contract names."
                ),
            },
            note: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;
    use crate::contract::subagent::dispatch::check_dispatched;
    use crate::report::{CheckOutcome, TaskResult};

    fn failing_report() -> Report {
        let d = Diagnostic::new(
            Code::unexpected_file,
            "`src/extra.rs` changed but is not declared",
        )
        .with_path("src/extra.rs")
        .with_task(".mastermind/tasks/001-x");
        let task = TaskResult::new(
            ".mastermind/tasks/001-x",
            vec![CheckOutcome::new("scope", vec![d])],
        );
        Report::assemble(Vec::new(), vec![task], Vec::new())
    }

    #[test]
    fn a_failing_report_gives_a_reason_with_rule_file_and_fix() {
        let verdict = GateVerdict::of(&failing_report());
        assert!(matches!(verdict, GateVerdict::Fail(_)));
        let reason = stop_reason(&verdict);
        assert!(reason.contains("task .mastermind/tasks/001-x:"), "{reason}");
        assert!(reason.contains("- [unexpected_file] src/extra.rs: `src/extra.rs` changed"));
        assert!(reason.contains("fix: Declare the path in the spec's front matter"));
        let note = release_note(&verdict, 3);
        assert!(note.contains("after 3 blocked stops in a row"), "{note}");
        assert!(note.contains("1 finding: unexpected_file"), "{note}");
    }

    #[test]
    fn notes_and_unreadable_pass_or_cannot_check() {
        let note = Diagnostic::new(Code::no_task_changed, "nothing");
        let report = Report::assemble(Vec::new(), Vec::new(), vec![note]);
        assert_eq!(GateVerdict::of(&report), GateVerdict::Pass);
        let git = Diagnostic::new(Code::git_index_unavailable, "broken index");
        let report = Report::assemble(Vec::new(), Vec::new(), vec![git]);
        let verdict = GateVerdict::of(&report);
        assert!(matches!(verdict, GateVerdict::CannotCheck(_)));
        assert!(stop_reason(&verdict).contains("could not check"));
    }

    #[test]
    fn many_findings_are_bounded() {
        let many: Vec<Diagnostic> = (0..50)
            .map(|i| Diagnostic::new(Code::unexpected_file, format!("file {i}")))
            .collect();
        let reason = stop_reason(&GateVerdict::Fail(many));
        assert!(reason.contains("and 30 more"), "{reason}");
        assert_eq!(reason.matches("- [unexpected_file]").count(), 20);
    }

    #[test]
    fn subagent_policy_blocks_warns_and_allows() {
        let policy = AgentHooks::default();
        let broken = check_dispatched(b"Done! All good.", "probe-j-cart: probe");
        match subagent(
            &broken,
            "probe-j-cart: probe",
            &policy,
            Audience::Orchestrator,
        ) {
            Decision::Block { reason, .. } => {
                assert!(reason.contains("[subagent_return_not_mapping]"), "{reason}");
                assert!(reason.contains("re-dispatch"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        let mut warn = policy.clone();
        warn.subagent_prefixes
            .insert("probe-".into(), SubagentAction::Warn);
        assert!(matches!(
            subagent(&broken, "probe-j-cart: probe", &warn, Audience::Subagent),
            Decision::Warn(_)
        ));
        let silent = check_dispatched(b"prose", "j-login: explore");
        assert_eq!(
            subagent(&silent, "j-login: explore", &policy, Audience::Orchestrator),
            Decision::Allow
        );
        let unknown = check_dispatched(b"prose", "Find the endpoints");
        assert_eq!(
            subagent(
                &unknown,
                "Find the endpoints",
                &policy,
                Audience::Orchestrator
            ),
            Decision::Allow
        );
        let mut strict = policy;
        strict.subagent_unknown = SubagentAction::Block;
        assert!(matches!(
            subagent(
                &unknown,
                "Find the endpoints",
                &strict,
                Audience::Orchestrator
            ),
            Decision::Block { .. }
        ));
    }
}
