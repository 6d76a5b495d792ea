//! The untasked policy (DESIGN.md section 6): what happens to changes no
//! task covers — steps that touched no task folder, changes of
//! `.mastermind/hooks.yaml`, and what a step that archives a task changed
//! besides it.
//!
//! Each untasked path of a step is decided by the configuration's rules in
//! order (first match wins, else the default): `allow` passes (a note where
//! the change also carries a task, so a reviewer sees what no task covers),
//! `warn` passes with a warning (`untasked_change`), `deny` fails
//! (`task_required`). Paths the configuration excludes are exempt. A rule's
//! conditions read the step's identity: author, committer, trailers, the
//! built-in recognisers of coding agents' commits ([`recognises`]) and the
//! branch being changed. A condition the step cannot answer (a trailer
//! before the message exists, in pre-commit) does not match.

use super::Gate;
use super::attribution::{Attribution, untasked_changes};
use super::change::{Identity, Step};
use crate::codes::Code;
use crate::config::{AgentName, Globs, UntaskedAction, UntaskedPolicy, UntaskedRule};
use crate::diagnostic::{Diagnostic, Severity};
use crate::repo::changes::ChangeKind;

/// Content a step changed besides the task it archived.
pub struct ArchiveLeftover {
    pub step: usize,
    pub paths: Vec<(String, ChangeKind)>,
}

/// How many paths a finding names before it counts the rest.
const SHOWN: usize = 10;

/// Marks the documented or observed commits of a coding agent leave
/// (docs/src/untasked.md lists the sources). Each is a glob over one field;
/// all are case-insensitive. They are self-declared: a match is evidence an
/// agent was involved, a missing match proves nothing.
struct Marks {
    identities: &'static [&'static str],
    trailers: &'static [&'static str],
    message: &'static [&'static str],
    branches: &'static [&'static str],
}

fn marks(agent: AgentName) -> Marks {
    match agent {
        AgentName::ClaudeCode => Marks {
            identities: &["*<*+claude[bot]@users.noreply.github.com>"],
            trailers: &[
                "co-authored-by: claude*<noreply@anthropic.com>",
                "claude-session: *",
            ],
            message: &["*generated with*claude code*"],
            branches: &["claude/*"],
        },
        AgentName::Codex => Marks {
            identities: &[],
            trailers: &["co-authored-by: codex*<noreply@openai.com>"],
            message: &[],
            branches: &["codex/*"],
        },
        AgentName::Copilot => Marks {
            identities: &[
                "*<198982749+copilot@users.noreply.github.com>",
                "copilot-swe-agent*",
            ],
            trailers: &[
                "co-authored-by: *<198982749+copilot@users.noreply.github.com>",
                "agent-logs-url: *",
            ],
            message: &[],
            branches: &["copilot/*"],
        },
        AgentName::Cursor => Marks {
            identities: &["*<cursoragent@cursor.com>"],
            trailers: &[
                "co-authored-by: *<cursoragent@cursor.com>",
                "made-with: cursor",
            ],
            message: &[],
            branches: &["cursor/*"],
        },
        AgentName::Devin => Marks {
            identities: &["*<158243242+devin-ai-integration[bot]@users.noreply.github.com>"],
            trailers: &[
                "co-authored-by: *<158243242+devin-ai-integration[bot]@users.noreply.github.com>",
            ],
            message: &["*generated with*devin*"],
            branches: &["devin/*"],
        },
    }
}

fn glob_match(pattern: &str, text: &str) -> bool {
    globset::GlobBuilder::new(pattern)
        .case_insensitive(true)
        .literal_separator(false)
        .backslash_escape(false)
        .build()
        .is_ok_and(|glob| glob.compile_matcher().is_match(text))
}

/// True when the step carries one of the agent's marks.
pub fn recognises(agent: AgentName, identity: &Identity, branch: Option<&str>) -> bool {
    let marks = marks(agent);
    let people = [identity.author.as_deref(), identity.committer.as_deref()];
    let trailers = identity.trailers();
    let message = identity.message.as_deref().unwrap_or("");
    marks
        .identities
        .iter()
        .any(|p| people.iter().flatten().any(|who| glob_match(p, who)))
        || marks
            .trailers
            .iter()
            .any(|p| trailers.iter().any(|t| glob_match(p, t)))
        || marks
            .message
            .iter()
            .any(|p| message.lines().any(|line| glob_match(p, line)))
        || branch.is_some_and(|b| marks.branches.iter().any(|p| glob_match(p, b)))
}

/// A list condition: empty holds; else any entry matches a present value.
fn holds(globs: &Globs, values: &[&str]) -> bool {
    globs.patterns().is_empty() || values.iter().any(|v| globs.is_match(v))
}

fn rule_applies(
    rule: &UntaskedRule,
    identity: &Identity,
    branch: Option<&str>,
    path: &str,
) -> bool {
    let author: Vec<&str> = identity.author.as_deref().into_iter().collect();
    let committer: Vec<&str> = identity.committer.as_deref().into_iter().collect();
    let branch_list: Vec<&str> = branch.into_iter().collect();
    (rule.agents.is_empty()
        || rule
            .agents
            .iter()
            .any(|agent| recognises(*agent, identity, branch)))
        && holds(&rule.authors, &author)
        && holds(&rule.committers, &committer)
        && holds(&rule.trailers, &identity.trailers())
        && holds(&rule.branches, &branch_list)
        && holds(&rule.paths, &[path])
}

/// The action for one untasked path of a step, and the rule that chose it
/// (`None`: the default).
pub fn decide(
    policy: &UntaskedPolicy,
    identity: &Identity,
    branch: Option<&str>,
    path: &str,
) -> (UntaskedAction, Option<usize>) {
    policy
        .rules
        .iter()
        .position(|rule| rule_applies(rule, identity, branch, path))
        .map(|index| (policy.rules[index].action, Some(index)))
        .unwrap_or((policy.default, None))
}

fn listed(paths: &[(String, ChangeKind)]) -> String {
    let mut text: Vec<String> = paths
        .iter()
        .take(SHOWN)
        .map(|(p, k)| format!("{p} ({})", k.as_str()))
        .collect();
    if paths.len() > SHOWN {
        text.push(format!("and {} more", paths.len() - SHOWN));
    }
    text.join(", ")
}

fn why(rule: Option<usize>) -> String {
    match rule {
        Some(index) => format!("untasked.rules[{index}]"),
        None => "untasked.default".to_string(),
    }
}

/// Findings for one step's untasked paths.
fn judge_step(
    gate: &Gate<'_>,
    step: &Step,
    paths: Vec<(String, ChangeKind)>,
    what: &str,
    carries_task: bool,
) -> Vec<Diagnostic> {
    let branch = gate.landing.branch.as_deref();
    let mut denied: Vec<(String, ChangeKind)> = Vec::new();
    let mut warned: Vec<(String, ChangeKind)> = Vec::new();
    let mut allowed: Vec<(String, ChangeKind)> = Vec::new();
    let mut deny_rule = None;
    let mut warn_rule = None;
    for (path, kind) in paths {
        if gate.config.exclude.is_match(&path) {
            continue;
        }
        match decide(&gate.config.untasked, &step.identity, branch, &path) {
            (UntaskedAction::Deny, rule) => {
                deny_rule.get_or_insert(rule);
                denied.push((path, kind));
            }
            (UntaskedAction::Warn, rule) => {
                warn_rule.get_or_insert(rule);
                warned.push((path, kind));
            }
            (UntaskedAction::Allow, _) => allowed.push((path, kind)),
        }
    }
    let mut out = Vec::new();
    if !denied.is_empty() {
        out.push(
            Diagnostic::new(
                Code::task_required,
                format!(
                    "{} {what} and belongs to no task, which {} denies: {}",
                    step.label,
                    why(deny_rule.flatten()),
                    listed(&denied)
                ),
            )
            .with_path(denied[0].0.clone()),
        );
    }
    if !warned.is_empty() {
        out.push(
            Diagnostic::new(
                Code::untasked_change,
                format!(
                    "{} {what} and belongs to no task ({} warns): {}",
                    step.label,
                    why(warn_rule.flatten()),
                    listed(&warned)
                ),
            )
            .with_path(warned[0].0.clone())
            .with_severity(Severity::Warning),
        );
    }
    if !allowed.is_empty() && carries_task {
        out.push(
            Diagnostic::new(
                Code::untasked_change,
                format!(
                    "{} {what} and belongs to no task: {}",
                    step.label,
                    listed(&allowed)
                ),
            )
            .with_path(allowed[0].0.clone()),
        );
    }
    out
}

/// The untasked findings of a change. `extra` holds what archiving steps
/// changed besides their task; `carries_task` is true when the change has
/// a judged task (allowed untasked paths are then listed as notes).
pub fn check(
    gate: &Gate<'_>,
    attribution: &Attribution,
    extra: &[ArchiveLeftover],
    carries_task: bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (index, step) in gate.landing.steps.iter().enumerate() {
        let mut paths = untasked_changes(step, &gate.bookkeeping);
        let archives = extra.iter().any(|e| e.step == index);
        for leftover in extra.iter().filter(|e| e.step == index) {
            paths.extend(leftover.paths.iter().cloned());
        }
        if paths.is_empty() {
            continue;
        }
        let what = if archives {
            "archives a task"
        } else if attribution.untasked_steps.contains(&index) {
            "touches no task"
        } else {
            "changes the configuration"
        };
        out.extend(judge_step(gate, step, paths, what, carries_task));
    }
    if attribution.tasks.is_empty() && out.is_empty() {
        out.push(Diagnostic::new(
            Code::no_task_changed,
            format!(
                "no task folder changed in {}; nothing to check against a task",
                gate.landing.tip_label
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(author: &str, message: &str) -> Identity {
        Identity {
            author: Some(author.to_string()),
            committer: Some(author.to_string()),
            message: Some(message.to_string()),
        }
    }

    #[test]
    fn agents_are_recognised_by_their_marks() {
        let claude = identity(
            "Dev <dev@example.com>",
            "Fix\n\nCo-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>\n",
        );
        assert!(recognises(AgentName::ClaudeCode, &claude, None));
        assert!(!recognises(AgentName::Copilot, &claude, None));
        let copilot = identity(
            "Copilot <198982749+Copilot@users.noreply.github.com>",
            "Initial plan\n",
        );
        assert!(recognises(AgentName::Copilot, &copilot, None));
        let human = identity("Devin Smith <devin@example.com>", "Fix typo\n");
        for agent in [
            AgentName::ClaudeCode,
            AgentName::Codex,
            AgentName::Copilot,
            AgentName::Cursor,
            AgentName::Devin,
        ] {
            assert!(!recognises(agent, &human, Some("main")), "{agent:?}");
        }
        assert!(recognises(AgentName::Codex, &human, Some("codex/fix-1")));
        let cursor = identity("Cursor Agent <cursoragent@cursor.com>", "x\n");
        assert!(recognises(AgentName::Cursor, &cursor, None));
    }

    #[test]
    fn first_matching_rule_decides() {
        let config = crate::config::Config::parse(
            b"untasked:\n  default: allow\n  rules:\n    - action: deny\n      agents: [claude-code]\n      paths: ['src/**']\n    - action: warn\n      authors: ['*@bots.example.com*']\n",
            "t",
        )
        .unwrap();
        let policy = &config.untasked;
        let claude = identity(
            "Dev <dev@example.com>",
            "Fix\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n",
        );
        assert_eq!(
            decide(policy, &claude, None, "src/a.rs"),
            (UntaskedAction::Deny, Some(0))
        );
        assert_eq!(
            decide(policy, &claude, None, "docs/a.md"),
            (UntaskedAction::Allow, None)
        );
        let bot = identity("Bot <ci@bots.example.com>", "x\n");
        assert_eq!(
            decide(policy, &bot, None, "src/a.rs"),
            (UntaskedAction::Warn, Some(1))
        );
        // Before the message exists (pre-commit), a trailer cannot match.
        let pending = Identity {
            message: None,
            ..claude.clone()
        };
        assert_eq!(
            decide(policy, &pending, None, "src/a.rs"),
            (UntaskedAction::Allow, None)
        );
    }
}
