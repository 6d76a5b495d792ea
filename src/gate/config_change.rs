//! Changes of `.mastermind/hooks.yaml` (DESIGN.md section 6). The change is
//! never judged by the configuration it brings (the base's is in force), but
//! the new file is validated (`config_change_invalid`) and whatever it
//! loosens is spelled out (`config_loosened`), so a reviewer sees that the
//! next change will be judged more leniently. The change itself is
//! untasked: the untasked policy decides whether it may land.

use super::Gate;
use crate::codes::Code;
use crate::config::{
    CONFIG_PATH, Config, Freshness, MAX_CONFIG_BYTES, Policy, SpecChanges, UntaskedAction,
};
use crate::diagnostic::{Diagnostic, Severity};
use crate::repo::Result;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::Content;
use gix::bstr::ByteSlice;

/// The configuration a snapshot holds: `Ok(None)` for none (defaults),
/// `Err` with the reasons it is unusable.
pub fn config_at(
    gate: &Gate<'_>,
    at: Snapshot<'_>,
    label: &str,
) -> Result<std::result::Result<Config, Vec<Diagnostic>>> {
    let source = format!("{CONFIG_PATH} in {label}");
    Ok(match at.read(gate.repo, CONFIG_PATH, MAX_CONFIG_BYTES)? {
        None => Ok(Config::strict_defaults()),
        Some(Content::Bytes(bytes)) => Config::parse(&bytes, &source),
        Some(Content::NotRegular(_)) => Err(vec![
            Diagnostic::new(
                Code::config_invalid,
                format!("{source} is not a regular file"),
            )
            .with_path(CONFIG_PATH),
        ]),
        Some(Content::TooLarge { size }) => Err(vec![
            Diagnostic::new(
                Code::config_invalid,
                format!("{source} is {size} bytes; the limit is {MAX_CONFIG_BYTES}"),
            )
            .with_path(CONFIG_PATH),
        ]),
    })
}

fn action_rank(action: UntaskedAction) -> u8 {
    match action {
        UntaskedAction::Deny => 2,
        UntaskedAction::Warn => 1,
        UntaskedAction::Allow => 0,
    }
}

fn severity_rank(severity: Severity) -> u8 {
    match severity {
        Severity::Error => 2,
        Severity::Warning => 1,
        Severity::Note => 0,
    }
}

/// How a policy's default reads in a message.
fn default_text(policy: &Policy) -> String {
    match policy.default {
        Some(action) => format!("{action:?}").to_lowercase(),
        None => "unset (deny in CI and pre-receive, warn locally)".to_string(),
    }
}

/// What a policy (`untasked`, `planning`) judges more leniently.
fn policy_loosenings(name: &str, old: &Policy, new: &Policy) -> Vec<String> {
    let mut out = Vec::new();
    let looser = [true, false].into_iter().any(|enforcing| {
        action_rank(new.default_action(enforcing)) < action_rank(old.default_action(enforcing))
    });
    if looser {
        out.push(format!(
            "{name}: default {} -> {}",
            default_text(old),
            default_text(new)
        ));
    }
    if new.rules.len() != old.rules.len()
        || new.rules.iter().zip(&old.rules).any(|(a, b)| !a.same_as(b))
    {
        out.push(format!(
            "{name} rules changed (review which changes they now allow)"
        ));
    }
    out
}

/// What `new` judges more leniently than `old`, one line each.
pub fn loosenings(old: &Config, new: &Config) -> Vec<String> {
    let mut out = Vec::new();
    for (name, before, after) in [
        ("untasked", &old.untasked, &new.untasked),
        ("planning", &old.planning, &new.planning),
    ] {
        out.extend(policy_loosenings(name, before, after));
    }
    if new.allowed_signers != old.allowed_signers {
        out.push(format!(
            "identity.allowed_signers: {} -> {} (review whose signatures `signers` rules now trust)",
            old.allowed_signers.as_deref().unwrap_or("(none)"),
            new.allowed_signers.as_deref().unwrap_or("(none)")
        ));
    }
    let dropped: Vec<&str> = old
        .protected_branches
        .patterns()
        .iter()
        .filter(|p| !new.protected_branches.patterns().contains(p))
        .map(String::as_str)
        .collect();
    if !dropped.is_empty() {
        out.push(format!(
            "protected_branches: {} no longer protected (unfinished and untasked work pushed there is only a warning)",
            dropped.join(", ")
        ));
    }
    if old.work_in_progress == crate::config::WorkInProgress::Deny
        && new.work_in_progress == crate::config::WorkInProgress::Allow
    {
        out.push(
            "work_in_progress: deny -> allow (unfinished tasks pass with warnings on branches that do not land on the protected branch)"
                .to_string(),
        );
    }
    for code in Code::ALL {
        let before = old
            .severity
            .get(code)
            .copied()
            .unwrap_or(code.default_severity());
        let after = new
            .severity
            .get(code)
            .copied()
            .unwrap_or(code.default_severity());
        if severity_rank(after) < severity_rank(before) {
            out.push(format!(
                "severity of {}: {} -> {}",
                code.as_str(),
                before.as_str(),
                after.as_str()
            ));
        }
    }
    let added = |old: &crate::config::Globs, new: &crate::config::Globs| -> Vec<String> {
        new.patterns()
            .iter()
            .filter(|p| !old.patterns().contains(p))
            .cloned()
            .collect()
    };
    let removed = |old: &crate::config::Globs, new: &crate::config::Globs| -> Vec<String> {
        old.patterns()
            .iter()
            .filter(|p| !new.patterns().contains(p))
            .cloned()
            .collect()
    };
    let excluded = added(&old.exclude, &new.exclude);
    if !excluded.is_empty() {
        out.push(format!("exclude adds {}", excluded.join(", ")));
    }
    for (name, before, after) in [
        (
            "plastic_reports",
            &old.plastic_reports,
            &new.plastic_reports,
        ),
        (
            "plastic_intents",
            &old.plastic_intents,
            &new.plastic_intents,
        ),
        (
            "plastic_savepoints",
            &old.plastic_savepoints,
            &new.plastic_savepoints,
        ),
        (
            "subagent_returns",
            &old.subagent_returns,
            &new.subagent_returns,
        ),
        (
            "findings_ledgers",
            &old.findings_ledgers,
            &new.findings_ledgers,
        ),
    ] {
        let gone = removed(before, after);
        if !gone.is_empty() {
            out.push(format!("{name} no longer validates {}", gone.join(", ")));
        }
    }
    // `merge` is the strictest; `scope` and `head` each prove what the
    // other does not.
    if new.freshness != old.freshness && new.freshness != Freshness::Merge {
        out.push(format!(
            "receipts.freshness: {:?} -> {:?}",
            old.freshness, new.freshness
        ));
    }
    if new.accept_unverifiable_v1 && !old.accept_unverifiable_v1 {
        out.push("receipts.accept_unverifiable_v1: false -> true".to_string());
    }
    if new.spec_changes == SpecChanges::Any && old.spec_changes == SpecChanges::Planning {
        out.push("specs.changes: planning -> any".to_string());
    }
    if old.specs_on_base && !new.specs_on_base {
        out.push("specs.require_on_base: true -> false".to_string());
    }
    if old.require_task && !new.require_task {
        out.push("require_task: true -> false".to_string());
    }
    if new.allow_unrelated_histories && !old.allow_unrelated_histories {
        out.push("refs.allow_unrelated_histories: false -> true".to_string());
    }
    // What prepares a re-run can make its checks pass (a stub in
    // node_modules/.bin): any change of it is for a reviewer to read.
    if new.rerun.setup != old.rerun.setup {
        out.push(
            "rerun.setup changed (it runs before every re-run's checks; review what it installs)"
                .to_string(),
        );
    }
    out
}

/// Validate a change of the configuration and say what it loosens.
pub fn check(gate: &Gate<'_>) -> Result<Vec<Diagnostic>> {
    let changed = gate.landing.steps.iter().any(|s| {
        s.changes
            .iter()
            .any(|c| c.path.to_str().is_ok_and(|p| p == CONFIG_PATH))
    });
    if !changed {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    match config_at(gate, gate.lands(), &gate.landing.lands_label)? {
        Err(problems) => {
            for problem in problems {
                out.push(Diagnostic {
                    code: Code::config_change_invalid,
                    severity: Code::config_change_invalid.default_severity(),
                    hint: Some(Code::config_change_invalid.help().to_string()),
                    ..problem
                });
            }
        }
        Ok(new) => {
            let lines = loosenings(gate.config, &new);
            if !lines.is_empty() {
                out.push(
                    Diagnostic::new(
                        Code::config_loosened,
                        format!(
                            "{CONFIG_PATH} in {} judges later changes more leniently than {}:\n  - {}",
                            gate.landing.lands_label,
                            gate.landing.target.label,
                            lines.join("\n  - ")
                        ),
                    )
                    .with_path(CONFIG_PATH),
                );
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        Config::parse(text.as_bytes(), "t").unwrap()
    }

    #[test]
    fn vouched_rules_planning_and_the_allowed_signers_are_loosenings() {
        let unset = config("");
        let lines = loosenings(&unset, &config("untasked:\n  default: allow\n"));
        assert!(
            lines[0].starts_with("untasked: default unset (deny in CI and pre-receive"),
            "{lines:?}"
        );
        assert!(loosenings(&unset, &config("untasked:\n  default: deny\n")).is_empty());
        let lines = loosenings(
            &config("untasked:\n  rules:\n    - action: allow\n      actors: [alice]\n"),
            &config("untasked:\n  rules:\n    - action: allow\n      actors: ['*']\n"),
        );
        assert_eq!(
            lines,
            ["untasked rules changed (review which changes they now allow)"]
        );
        let lines = loosenings(
            &unset,
            &config("planning:\n  rules:\n    - action: allow\n      pushers: [bob]\n"),
        );
        assert_eq!(
            lines,
            ["planning rules changed (review which changes they now allow)"]
        );
        let lines = loosenings(
            &config("identity:\n  allowed_signers: a\n"),
            &config("identity:\n  allowed_signers: b\n"),
        );
        assert!(
            lines[0].starts_with("identity.allowed_signers: a -> b"),
            "{lines:?}"
        );
    }

    #[test]
    fn a_branch_no_longer_protected_is_a_loosening() {
        let flow = config("protected_branches: [main, 'release/*']\n");
        assert!(loosenings(&config(""), &flow).is_empty());
        assert!(
            loosenings(
                &flow,
                &config("protected_branches: [main, 'release/*', hotfix]\n")
            )
            .is_empty()
        );
        let lines = loosenings(&flow, &config("protected_branches: [main]\n"));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("protected_branches: release/* no longer protected"),
            "{lines:?}"
        );
    }

    #[test]
    fn allowing_work_in_progress_again_is_a_loosening() {
        let deny = config("work_in_progress: deny\n");
        let lines = loosenings(&deny, &config(""));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("work_in_progress: deny -> allow"));
        assert!(loosenings(&config(""), &deny).is_empty());
        assert!(
            loosenings(&deny, &config("work_in_progress: allow\n"))[0].contains("deny -> allow")
        );
    }
}
