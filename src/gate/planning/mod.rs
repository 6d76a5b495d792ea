//! Planning is an authorized act (DESIGN.md section 5): whoever does the
//! work must not also decide what it may do.
//!
//! The acts, each a finding graded by the planning policy:
//!
//! * per task ([`task`]): a new task's spec, alone or with its work
//!   (`task_created`, graded where `planning.new_tasks: planner`, the
//!   default); a new task folder whose spec is a task's spec on the
//!   protected branch, copied or renamed (`task_copied`); a spec of a task
//!   on the protected branch made to declare more paths (`spec_widened`);
//!   new work for a task whose report there is `complete`
//!   (`task_reopened`);
//! * per control file ([`control`]): a change of the configuration, the
//!   allowed-signers file or a path `planning.control_files` lists
//!   (`control_file_changed`), which is never task work.
//!
//! The planning policy (`planning:` in the configuration,
//! [`super::identity::rules`]) decides each act over every step that made
//! it (the steps that changed the task's spec, or the control file), the
//! strictest step deciding: `allow` (a listed planner) makes the finding a
//! note, `warn` a warning, `deny` an error; unset, the default denies in
//! CI and pre-receive. The local hooks know no pusher or actor (and
//! pre-commit no signature): there an act no rule allows is a warning that
//! says what CI and pre-receive decide. On a branch that is not protected
//! a refusal is a warning too ([`super::work_in_progress`]): a plan pushed
//! there is not landing yet, and what lands on a protected branch is
//! judged strictly.
//!
//! The protected branch is [`Gate::protected`]: the landing's own target
//! where it lands on a protected branch other than the default, else the
//! one the mode names ([`super::identity::Facts::protected`]), else the
//! local clone's default branch, else the target.

pub mod control;
pub mod task;

use super::Gate;
use super::change::Step;
use super::identity::rules::{allow_hint, decide};
use super::identity::{Known, Signer};
use super::landing::ViewKind;
use super::untasked::subject;
use crate::codes::Code;
use crate::config::{Policy, UntaskedAction};
use crate::diagnostic::{Diagnostic, Severity};
use crate::repo::Result;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::short;

/// The codes of planning acts (made warnings where a landing is work in
/// progress).
pub const ACTS: &[Code] = &[
    Code::task_created,
    Code::task_copied,
    Code::spec_widened,
    Code::task_reopened,
    Code::control_file_changed,
];

fn rank(action: UntaskedAction) -> u8 {
    match action {
        UntaskedAction::Deny => 2,
        UntaskedAction::Warn => 1,
        UntaskedAction::Allow => 0,
    }
}

fn verb(action: UntaskedAction) -> &'static str {
    match action {
        UntaskedAction::Deny => "denies",
        UntaskedAction::Warn => "warns about",
        UntaskedAction::Allow => "allows",
    }
}

/// The protected branch's content and its name in messages: what the mode
/// vouches for, else the local view of it, else the target.
pub fn protected(gate: &Gate<'_>) -> Result<(Snapshot<'static>, String)> {
    Ok(match gate.protected() {
        Some(commit) => (
            Snapshot::Tree(gate.repo.commit_tree(commit)?),
            format!("the protected branch (commit {})", short(commit)),
        ),
        None => (gate.target(), gate.landing.target.label.clone()),
    })
}

/// Who made a step, as far as the platform or a key vouches for it.
pub fn who(known: &Known<'_>, step: &Step) -> String {
    let mut vouched: Vec<String> = Vec::new();
    if let Signer::Verified(principal) = known.signer(step) {
        vouched.push(format!(
            "{principal} (the signer, verified against identity.allowed_signers)"
        ));
    }
    for principal in known.facts.actors.iter().flatten() {
        vouched.push(principal.describe());
    }
    for principal in known.facts.pushers.iter().flatten() {
        vouched.push(principal.describe());
    }
    if vouched.is_empty() {
        let claimed = step.identity.author.as_deref().unwrap_or("nobody");
        format!("nobody the platform or a key vouches for (the commit says {claimed})")
    } else {
        vouched.join(", ")
    }
}

/// The planning policy's verdict over the steps that made one act.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub action: UntaskedAction,
    /// `planning.rules[0]`, `planning.default`, or the unset default.
    pub why: String,
    /// The deciding step.
    pub step: String,
    /// Who made it ([`who`]).
    pub by: String,
    /// The rule to add that would allow it.
    pub allow: String,
    /// True where the gate is a control (CI, pre-receive).
    pub enforcing: bool,
}

/// Whether planning is enforced in this landing: in CI and pre-receive,
/// which name who plans. The local hooks and the agent's stop hook know no
/// pusher or actor; there a refusal is a warning that says what CI and
/// pre-receive decide (the agent cannot make its own plan a planner's, so
/// its stop is never held on one).
pub fn enforced_here(gate: &Gate<'_>, known: &Known<'_>) -> bool {
    known.enforcing && matches!(gate.landing.kind, ViewKind::Ci | ViewKind::Receive)
}

impl Verdict {
    /// The policy over `steps` for `path` (the task's spec, the control
    /// file): the strictest step decides. `what` names the act in the
    /// hint's `paths` option.
    pub fn over(
        gate: &Gate<'_>,
        known: &Known<'_>,
        steps: &[&Step],
        path: &str,
        what: &str,
    ) -> Verdict {
        let policy = &gate.config.planning;
        let enforcing = enforced_here(gate, known);
        let mut worst: Option<(UntaskedAction, Option<usize>, &Step)> = None;
        for step in steps {
            let (action, rule) = decide(policy, &subject(known, step), path, enforcing);
            if worst.is_none_or(|(a, _, _)| rank(action) > rank(a)) {
                worst = Some((action, rule, step));
            }
        }
        let Some((action, rule, step)) = worst else {
            return Verdict {
                action: UntaskedAction::Allow,
                why: String::new(),
                step: String::new(),
                by: String::new(),
                allow: String::new(),
                enforcing,
            };
        };
        let why = match rule {
            Some(index) => format!("planning.rules[{index}]"),
            None if policy.default.is_some() => "planning.default".to_string(),
            None => "the default (planning.default unset: deny in CI and pre-receive, warn in the local hooks)".to_string(),
        };
        Verdict {
            action,
            why,
            step: step.label.clone(),
            by: who(known, step),
            allow: allow_hint("planning.rules", &subject(known, step), path, what),
            enforcing,
        }
    }

    /// `allow`, `warn` or `deny`, with the rule that decided.
    pub fn decision(&self) -> String {
        let action = match self.action {
            UntaskedAction::Allow => "allow",
            UntaskedAction::Warn => "warn",
            UntaskedAction::Deny => "deny",
        };
        format!("{action} ({})", self.why)
    }

    /// The finding for an act: `what` says what was planned; `fix` is the
    /// honest route, before the rule that would allow it. In the local
    /// hooks an act no rule allows is a warning that says what CI and
    /// pre-receive decide.
    pub fn finding(&self, code: Code, what: String, fix: &str, policy: &Policy) -> Diagnostic {
        let decided = format!(
            "{what}: planned in {} by {}, which {} {}",
            self.step,
            self.by,
            self.why,
            verb(self.action)
        );
        let (severity, message) = match self.action {
            UntaskedAction::Allow => (Severity::Note, decided),
            UntaskedAction::Warn | UntaskedAction::Deny if !self.enforcing => (
                Severity::Warning,
                format!("{decided} here; {}", enforced(policy)),
            ),
            UntaskedAction::Warn => (Severity::Warning, decided),
            UntaskedAction::Deny => (Severity::Error, decided),
        };
        let mut diagnostic = Diagnostic::new(code, message).with_severity(severity);
        diagnostic.hint =
            (self.action != UntaskedAction::Allow).then(|| format!("{fix}; or {}", self.allow));
        diagnostic
    }
}

/// What CI and pre-receive decide about a planning act that no rule the
/// local hooks can apply allows (the local hooks' warnings say it).
pub fn enforced(policy: &Policy) -> String {
    if policy.default_action(true) == UntaskedAction::Allow {
        return "CI and pre-receive allow it (planning.default: allow)".to_string();
    }
    let mut planners: Vec<String> = Vec::new();
    for rule in policy
        .rules
        .iter()
        .filter(|r| r.action != UntaskedAction::Deny)
    {
        for (key, globs) in [
            ("actors", &rule.actors),
            ("pushers", &rule.pushers),
            ("signers", &rule.signers),
        ] {
            if !globs.patterns().is_empty() {
                planners.push(format!("{key} {}", globs.patterns().join(", ")));
            }
        }
    }
    if planners.is_empty() {
        "CI and pre-receive refuse it: no planning rule allows a planner by what the platform or a key vouches for (actors, pushers, signers)".to_string()
    } else {
        format!(
            "CI and pre-receive refuse it unless who plans it is one of the planners planning.rules names ({})",
            planners.join("; ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn policy(text: &str) -> Policy {
        Config::parse(text.as_bytes(), "t").unwrap().planning
    }

    #[test]
    fn the_local_warning_names_what_ci_decides() {
        assert!(enforced(&policy("planning:\n  default: allow\n")).contains("allow it"));
        let named = enforced(&policy(
            "planning:\n  rules:\n    - action: allow\n      actors: [alice]\n    - action: deny\n      signers: [eve]\n    - action: allow\n      signers: ['alice@example.com']\n",
        ));
        assert!(
            named.contains("actors alice; signers alice@example.com") && !named.contains("eve"),
            "{named}"
        );
        assert!(enforced(&policy("")).contains("no planning rule allows a planner"));
    }
}
