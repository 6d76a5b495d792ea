//! Changes of `.mastermind/hooks.yaml` and of the allowed-signers file it
//! names (DESIGN.md section 6). The change is never judged by the
//! configuration it brings (the base's is in force), but the new file is
//! validated (`config_change_invalid`) and whatever it loosens is spelled
//! out (`config_loosened`), so a reviewer sees that the next change will be
//! judged more leniently: a looser key, a rule that names a principal it
//! did not, a key or principal the allowed-signers file did not list. Both
//! files are control files: the planning policy decides whether the change
//! may land ([`super::planning::control`]).

use super::Gate;
use crate::codes::Code;
use crate::config::{
    CONFIG_PATH, Config, Freshness, MAX_CONFIG_BYTES, NewTasks, Policy, SpecChanges, UntaskedAction,
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
    for key in ["actors", "pushers", "signers"] {
        let before = allowed_principals(old, key);
        let added: Vec<&str> = allowed_principals(new, key)
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect();
        if !added.is_empty() {
            out.push(format!(
                "{name} rules allow {key} they did not: {}",
                added.join(", ")
            ));
        }
    }
    out
}

/// The principal patterns of `key` (`actors`, `pushers`, `signers`) that
/// a policy's allow and warn rules name.
fn allowed_principals<'p>(policy: &'p Policy, key: &str) -> Vec<&'p str> {
    let mut out: Vec<&str> = Vec::new();
    for rule in policy
        .rules
        .iter()
        .filter(|r| r.action != UntaskedAction::Deny)
    {
        let globs = match key {
            "actors" => &rule.actors,
            "pushers" => &rule.pushers,
            _ => &rule.signers,
        };
        for pattern in globs.patterns() {
            if !out.contains(&pattern.as_str()) {
                out.push(pattern);
            }
        }
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
    if old.new_tasks == NewTasks::Planner && new.new_tasks == NewTasks::Anyone {
        out.push(
            "planning.new_tasks: planner -> anyone (a new task's spec no longer needs a planner)"
                .to_string(),
        );
    }
    let uncontrolled: Vec<&str> = old
        .control_files
        .patterns()
        .into_iter()
        .filter(|p| !new.control_files.patterns().contains(p))
        .collect();
    if !uncontrolled.is_empty() {
        out.push(format!(
            "planning.control_files: {} no longer a control file (a task may carry changes there)",
            uncontrolled.join(", ")
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

/// One principal of an allowed-signers line and its key.
#[derive(Clone, Debug, PartialEq, Eq)]
struct SignerEntry {
    principal: String,
    /// The key type (`ssh-ed25519`).
    kind: String,
    /// The key's base64 blob.
    blob: String,
}

impl SignerEntry {
    /// The key for messages: its type and the end of its blob.
    fn key(&self) -> String {
        let start = self.blob.len().saturating_sub(8);
        let tail = self.blob.get(start..).unwrap_or(&self.blob);
        format!("{} …{tail}", self.kind)
    }
}

/// The entries of an allowed-signers file as git's
/// `gpg.ssh.allowedSignersFile` reads it (ssh-keygen(1), "ALLOWED
/// SIGNERS"): comma-separated principals, optional options, the key type
/// and its base64 blob. Comments and blank lines are none.
fn signer_entries(bytes: &[u8]) -> Vec<SignerEntry> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let Some(principals) = fields.first() else {
            continue;
        };
        // The key type is the first field after the principals that names
        // one (options come between); the blob follows it.
        let Some(at) = fields
            .iter()
            .skip(1)
            .position(|f| f.starts_with("ssh-") || f.starts_with("ecdsa-") || f.starts_with("sk-"))
        else {
            continue;
        };
        let kind = fields[at + 1];
        let blob = fields.get(at + 2).copied().unwrap_or("");
        for principal in principals.split(',').filter(|p| !p.is_empty()) {
            out.push(SignerEntry {
                principal: principal.to_string(),
                kind: kind.to_string(),
                blob: blob.to_string(),
            });
        }
    }
    out
}

/// What a change of the allowed-signers file adds: each principal and key
/// it did not list, one line each.
pub fn signers_added(old: Option<&[u8]>, new: &[u8]) -> Vec<String> {
    let before = old.map(signer_entries).unwrap_or_default();
    let mut out = Vec::new();
    for entry in signer_entries(new) {
        if before.contains(&entry) {
            continue;
        }
        let what = if before.iter().any(|e| e.principal == entry.principal) {
            format!("a new key for {} ({})", entry.principal, entry.key())
        } else {
            format!("the principal {} ({})", entry.principal, entry.key())
        };
        if !out.contains(&what) {
            out.push(what);
        }
    }
    out
}

/// Validate a change of the configuration, say what it loosens, and what
/// a change of the allowed-signers file adds.
pub fn check(gate: &Gate<'_>) -> Result<Vec<Diagnostic>> {
    let mut out = signers_check(gate)?;
    let changed = gate.landing.steps.iter().any(|s| {
        s.changes
            .iter()
            .any(|c| c.path.to_str().is_ok_and(|p| p == CONFIG_PATH))
    });
    if !changed {
        return Ok(out);
    }
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

/// A change of the allowed-signers file the target's configuration names:
/// what it adds is a loosening (`config_loosened`).
fn signers_check(gate: &Gate<'_>) -> Result<Vec<Diagnostic>> {
    let Some(path) = gate.config.allowed_signers.as_deref() else {
        return Ok(Vec::new());
    };
    let changed = gate.landing.steps.iter().any(|s| {
        s.changes
            .iter()
            .any(|c| c.path.to_str().is_ok_and(|p| p == path))
    });
    if !changed {
        return Ok(Vec::new());
    }
    const LIMIT: usize = 1024 * 1024;
    let read = |at: Snapshot<'_>| -> Result<Option<Vec<u8>>> {
        Ok(match at.read(gate.repo, path, LIMIT)? {
            Some(Content::Bytes(bytes)) => Some(bytes),
            _ => None,
        })
    };
    let Some(new) = read(gate.lands())? else {
        return Ok(Vec::new());
    };
    let added = signers_added(read(gate.target())?.as_deref(), &new);
    if added.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![
        Diagnostic::new(
            Code::config_loosened,
            format!(
                "{path} in {} lists signers {} does not: once it lands, commits signed with these keys match `signers` rules:\n  - {}",
                gate.landing.lands_label,
                gate.landing.target.label,
                added.join("\n  - ")
            ),
        )
        .with_path(path.to_string()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_principal_or_key_among_the_allowed_signers_is_listed() {
        let alice = b"alice@example.com namespaces=\"git\" ssh-ed25519 AAAAC3NzaAlice1\n";
        assert!(signers_added(Some(alice), alice).is_empty());
        let both = b"# team\nalice@example.com namespaces=\"git\" ssh-ed25519 AAAAC3NzaAlice1\neve@example.com,bob@example.com ssh-ed25519 AAAAC3NzaEve22\n";
        assert_eq!(
            signers_added(Some(alice), both),
            [
                "the principal eve@example.com (ssh-ed25519 …NzaEve22)",
                "the principal bob@example.com (ssh-ed25519 …NzaEve22)"
            ]
        );
        let second = b"alice@example.com namespaces=\"git\" ssh-ed25519 AAAAC3NzaAlice1\nalice@example.com ssh-ed25519 AAAAC3NzaEve22\n";
        assert_eq!(
            signers_added(Some(alice), second),
            ["a new key for alice@example.com (ssh-ed25519 …NzaEve22)"]
        );
        assert_eq!(signers_added(None, alice).len(), 1);
    }

    #[test]
    fn new_planners_new_tasks_and_fewer_control_files_are_loosenings() {
        let base = config("planning:\n  rules:\n    - action: allow\n      actors: [alice]\n");
        let lines = loosenings(
            &base,
            &config(
                "planning:\n  rules:\n    - action: allow\n      actors: [alice, agent-bot]\n    - action: deny\n      signers: [eve]\n",
            ),
        );
        assert!(
            lines.contains(&"planning rules allow actors they did not: agent-bot".to_string()),
            "{lines:?}"
        );
        assert!(
            !lines.iter().any(|l| l.contains("eve")),
            "a deny rule allows nobody"
        );
        let lines = loosenings(&config(""), &config("planning:\n  new_tasks: anyone\n"));
        assert_eq!(
            lines,
            ["planning.new_tasks: planner -> anyone (a new task's spec no longer needs a planner)"]
        );
        let lines = loosenings(
            &config(""),
            &config("planning:\n  control_files: ['.github/workflows/**', 'deploy/**']\n"),
        );
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("planning.control_files: .github/actions/**, .gitlab-ci.yml"),
            "{lines:?}"
        );
    }

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
            [
                "untasked rules changed (review which changes they now allow)",
                "untasked rules allow actors they did not: *"
            ]
        );
        let lines = loosenings(
            &unset,
            &config("planning:\n  rules:\n    - action: allow\n      pushers: [bob]\n"),
        );
        assert_eq!(
            lines,
            [
                "planning rules changed (review which changes they now allow)",
                "planning rules allow pushers they did not: bob"
            ]
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
