//! A policy's rules (the untasked policy, the planning policy) matched
//! against one step of a change: first match wins, else the default.
//!
//! A rule holds when every condition it gives holds. A list of globs holds
//! when any entry matches. A condition the step cannot answer does not
//! hold: a trailer before the message exists (pre-commit), a pusher where
//! no server names one, an actor outside CI, a signer of an unsigned
//! commit. Where several principals take part (the actor who ran the job
//! and the pull request's author), a rule that lets the change pass
//! (`allow`, `warn`) needs every one of them to match, and a rule that
//! refuses it (`deny`) needs one: a maintainer's re-run does not make an
//! agent's pull request theirs.

use super::Signer;
use super::facts::Principal;
use super::marks::recognises;
use crate::config::{Globs, Policy, Rule, UntaskedAction};
use crate::gate::change::Identity;

/// What a rule's conditions are matched against for one step.
pub struct Subject<'a> {
    /// Author, committer and message: whatever the commit says.
    pub identity: &'a Identity,
    /// The branch being changed.
    pub target_branch: Option<&'a str>,
    /// The branch the change comes from.
    pub source_branch: Option<&'a str>,
    pub pushers: Option<&'a [Principal]>,
    pub actors: Option<&'a [Principal]>,
    pub signer: Signer,
}

/// A text condition over present values.
fn holds(globs: &Globs, values: &[&str]) -> bool {
    globs.patterns().is_empty() || values.iter().any(|v| globs.is_match(v))
}

/// A condition over the principals the platform names.
fn principals_hold(globs: &Globs, known: Option<&[Principal]>, action: UntaskedAction) -> bool {
    if globs.patterns().is_empty() {
        return true;
    }
    let Some(principals) = known.filter(|p| !p.is_empty()) else {
        return false;
    };
    let matches = |p: &Principal| p.names.iter().any(|n| globs.is_match(n));
    match action {
        UntaskedAction::Deny => principals.iter().any(matches),
        UntaskedAction::Allow | UntaskedAction::Warn => principals.iter().all(matches),
    }
}

fn signer_holds(globs: &Globs, signer: &Signer) -> bool {
    globs.patterns().is_empty()
        || matches!(signer, Signer::Verified(principal) if globs.is_match(principal))
}

/// True when every condition of `rule` holds for the subject and `path`.
pub fn applies(rule: &Rule, subject: &Subject<'_>, path: &str) -> bool {
    let identity = subject.identity;
    let author: Vec<&str> = identity.author.as_deref().into_iter().collect();
    let committer: Vec<&str> = identity.committer.as_deref().into_iter().collect();
    let target: Vec<&str> = subject.target_branch.into_iter().collect();
    let source: Vec<&str> = subject.source_branch.into_iter().collect();
    (rule.agents.is_empty()
        || rule
            .agents
            .iter()
            .any(|agent| recognises(*agent, identity, subject.source_branch)))
        && holds(&rule.authors, &author)
        && holds(&rule.committers, &committer)
        && holds(&rule.trailers, &identity.trailers())
        && holds(&rule.branches, &target)
        && holds(&rule.source_branches, &source)
        && principals_hold(&rule.pushers, subject.pushers, rule.action)
        && principals_hold(&rule.actors, subject.actors, rule.action)
        && signer_holds(&rule.signers, &subject.signer)
        && holds(&rule.paths, &[path])
}

/// The action for `path` of a step, and the rule that chose it (`None`:
/// the default, for this mode as `enforcing` says).
pub fn decide(
    policy: &Policy,
    subject: &Subject<'_>,
    path: &str,
    enforcing: bool,
) -> (UntaskedAction, Option<usize>) {
    policy
        .rules
        .iter()
        .position(|rule| applies(rule, subject, path))
        .map(|index| (policy.rules[index].action, Some(index)))
        .unwrap_or((policy.default_action(enforcing), None))
}

fn quoted(values: &[String]) -> String {
    values
        .iter()
        .map(|v| format!("\"{}\"", v.replace('"', "\\\"")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The rule to add to `section` (`untasked.rules`, `planning.rules`) of the
/// protected branch's configuration so that what was refused passes: keyed
/// on what this mode vouches for, with the names it knows, or on the path
/// for anyone.
pub fn allow_hint(section: &str, subject: &Subject<'_>, path: &str, path_is: &str) -> String {
    let mut options: Vec<String> = Vec::new();
    let names = |principals: Option<&[Principal]>| -> Vec<String> {
        principals
            .unwrap_or_default()
            .iter()
            .filter_map(|p| p.names.first().cloned())
            .collect()
    };
    let actors = names(subject.actors);
    if !actors.is_empty() {
        options.push(format!(
            "`{{action: allow, actors: [{}]}}` (this CI run's actors)",
            quoted(&actors)
        ));
    }
    let pushers = names(subject.pushers);
    if !pushers.is_empty() {
        options.push(format!(
            "`{{action: allow, pushers: [{}]}}` (who the server says pushed)",
            quoted(&pushers)
        ));
    }
    match &subject.signer {
        Signer::Verified(principal) => options.push(format!(
            "`{{action: allow, signers: [{}]}}` (who signed the commit)",
            quoted(std::slice::from_ref(principal))
        )),
        Signer::Nobody(why) => options.push(format!(
            "`{{action: allow, signers: [\"<principal>\"]}}` (commits signed with a key that identity.allowed_signers lists for that principal; this commit has {why})"
        )),
        Signer::Unknown => options.push(
            "`{action: allow, signers: [\"<principal>\"]}` (commits signed with a key that identity.allowed_signers lists for that principal)".to_string(),
        ),
    }
    options.push(format!(
        "`{{action: allow, paths: [{}]}}` ({path_is}, for anyone)",
        quoted(&[path.to_string()])
    ));
    format!(
        "add a rule to {section} in .mastermind/hooks.yaml on the protected branch, for example {}",
        options.join(", or ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn identity(author: &str, message: &str) -> Identity {
        Identity {
            author: Some(author.to_string()),
            committer: Some(author.to_string()),
            message: Some(message.to_string()),
        }
    }

    fn subject(identity: &Identity) -> Subject<'_> {
        Subject {
            identity,
            target_branch: None,
            source_branch: None,
            pushers: None,
            actors: None,
            signer: Signer::Unknown,
        }
    }

    fn policy(text: &str) -> Policy {
        Config::parse(text.as_bytes(), "t").unwrap().untasked
    }

    #[test]
    fn first_matching_rule_decides() {
        let policy = policy(
            "untasked:\n  default: allow\n  rules:\n    - action: deny\n      agents: [claude-code]\n      paths: ['src/**']\n    - action: warn\n      authors: ['*@bots.example.com*']\n",
        );
        let claude = identity(
            "Dev <dev@example.com>",
            "Fix\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n",
        );
        let decide = |s: &Subject<'_>, path| decide(&policy, s, path, true);
        assert_eq!(
            decide(&subject(&claude), "src/a.rs"),
            (UntaskedAction::Deny, Some(0))
        );
        assert_eq!(
            decide(&subject(&claude), "docs/a.md"),
            (UntaskedAction::Allow, None)
        );
        let bot = identity("Bot <ci@bots.example.com>", "x\n");
        assert_eq!(
            decide(&subject(&bot), "src/a.rs"),
            (UntaskedAction::Warn, Some(1))
        );
        // Before the message exists (pre-commit), a trailer cannot match.
        let pending = Identity {
            message: None,
            ..claude.clone()
        };
        assert_eq!(
            decide(&subject(&pending), "src/a.rs"),
            (UntaskedAction::Allow, None)
        );
    }

    #[test]
    fn the_default_is_deny_in_ci_and_pre_receive_and_warn_locally() {
        let unset = policy("");
        let human = identity("Dev <dev@example.com>", "x\n");
        assert_eq!(
            decide(&unset, &subject(&human), "a", true),
            (UntaskedAction::Deny, None)
        );
        assert_eq!(
            decide(&unset, &subject(&human), "a", false),
            (UntaskedAction::Warn, None)
        );
        let required = policy("require_task: true\n");
        assert_eq!(
            decide(&required, &subject(&human), "a", false),
            (UntaskedAction::Deny, None),
            "require_task denies in the local hooks too"
        );
    }

    #[test]
    fn vouched_conditions_hold_only_where_they_are_known() {
        let policy = policy(
            "untasked:\n  rules:\n    - action: allow\n      actors: [alice]\n    - action: allow\n      pushers: [alice]\n    - action: allow\n      signers: ['alice@example.com']\n",
        );
        // The commit says alice; nothing vouches for it.
        let forged = identity("alice <alice@example.com>", "x\n");
        assert_eq!(
            decide(&policy, &subject(&forged), "a", true),
            (UntaskedAction::Deny, None)
        );
        let alice = [Principal::new(
            "the actor",
            vec!["alice".into()],
            "GITHUB_ACTOR",
        )];
        let agent = Principal::new(
            "the pull request's author",
            vec!["agent-bot".into()],
            "pull_request.user.login",
        );
        let mut ci = subject(&forged);
        ci.actors = Some(&alice);
        assert_eq!(
            decide(&policy, &ci, "a", true),
            (UntaskedAction::Allow, Some(0))
        );
        // A maintainer's re-run of an agent's pull request: not all match.
        let both = [alice[0].clone(), agent.clone()];
        ci.actors = Some(&both);
        assert_eq!(
            decide(&policy, &ci, "a", true),
            (UntaskedAction::Deny, None)
        );
        let mut receive = subject(&forged);
        receive.pushers = Some(&alice);
        assert_eq!(
            decide(&policy, &receive, "a", true),
            (UntaskedAction::Allow, Some(1))
        );
        let mut signed = subject(&forged);
        signed.signer = Signer::Verified("alice@example.com".into());
        assert_eq!(
            decide(&policy, &signed, "a", true),
            (UntaskedAction::Allow, Some(2))
        );
        signed.signer = Signer::Nobody("a good signature by a key no allowed signer holds".into());
        assert_eq!(
            decide(&policy, &signed, "a", true),
            (UntaskedAction::Deny, None)
        );
        // A deny rule needs one principal to match.
        let deny = self::policy(
            "untasked:\n  default: allow\n  rules:\n    - action: deny\n      actors: [agent-bot]\n",
        );
        ci.actors = Some(&both);
        assert_eq!(
            decide(&deny, &ci, "a", true),
            (UntaskedAction::Deny, Some(0))
        );
    }

    #[test]
    fn branches_is_the_target_and_source_branches_the_source() {
        let policy = policy(
            "untasked:\n  default: allow\n  rules:\n    - action: deny\n      branches: [main]\n    - action: warn\n      source_branches: ['hotfix/*']\n",
        );
        let human = identity("Dev <dev@example.com>", "x\n");
        let mut s = subject(&human);
        s.target_branch = Some("main");
        s.source_branch = Some("hotfix/x");
        assert_eq!(
            decide(&policy, &s, "a", true),
            (UntaskedAction::Deny, Some(0))
        );
        s.target_branch = Some("release");
        assert_eq!(
            decide(&policy, &s, "a", true),
            (UntaskedAction::Warn, Some(1))
        );
    }

    #[test]
    fn the_hint_names_the_rule_to_add_with_the_names_known() {
        let human = identity("Dev <dev@example.com>", "x\n");
        let alice = [Principal::new(
            "the actor",
            vec!["alice".into()],
            "GITHUB_ACTOR",
        )];
        let mut s = subject(&human);
        s.actors = Some(&alice);
        let hint = allow_hint("untasked.rules", &s, "src/a.rs", "this path");
        assert!(hint.contains("actors: [\"alice\"]"), "{hint}");
        assert!(hint.contains("paths: [\"src/a.rs\"]"), "{hint}");
        assert!(hint.contains("signers"), "{hint}");
        assert!(!hint.contains("pushers"), "{hint}");
    }
}
