//! `init --planner PRINCIPAL`: who plans, as the rules of the `planning:`
//! section `init` writes. Pure: the principal's text in, a value or a
//! refusal out, and the YAML of its rules.
//!
//! A principal is a platform login or a signer, each turned into rules
//! keyed on what that platform or key vouches for:
//!
//! * `github:LOGIN`: the CI actors of GitHub Actions (`actors`: who ran the
//!   job, who triggered it, the pull request's author) and the pusher
//!   GitHub Enterprise Server names in pre-receive (`pushers`);
//! * `gitlab:LOGIN`: the user who started a GitLab pipeline (`actors`) and
//!   the pusher a GitLab server names in pre-receive (`pushers`);
//! * `actor:NAME`, `pusher:NAME`: one of the two alone (another CI, a
//!   Gitea or Forgejo server, `git http-backend`);
//! * `signer:PRINCIPAL`: commits signed with a key the allowed-signers file
//!   on the protected branch lists for that principal (`signers`; `init`
//!   then names `.mastermind/allowed_signers` in `identity.allowed_signers`).
//!
//! A name is a literal: glob characters, quotes, blanks and control
//! characters are refused, so `--planner github:*` can never allow anyone.

use std::fmt;

/// Where the planner's identity is vouched for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    Github,
    Gitlab,
    Actor,
    Pusher,
    Signer,
}

/// One planner `init` was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planner {
    pub platform: Platform,
    pub name: String,
}

/// Why a `--planner` value was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannerError(String);

impl fmt::Display for PlannerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlannerError {}

const FORMS: &str = "github:LOGIN, gitlab:LOGIN, actor:NAME, pusher:NAME or signer:PRINCIPAL (for example github:alice or signer:alice@example.com)";

impl Planner {
    /// Parse `github:alice`, `signer:alice@example.com`, ...
    pub fn parse(text: &str) -> Result<Planner, PlannerError> {
        let Some((kind, name)) = text.split_once(':') else {
            return Err(PlannerError(format!(
                "--planner `{}` names no platform: give {FORMS}",
                text.escape_debug()
            )));
        };
        let platform = match kind {
            "github" => Platform::Github,
            "gitlab" => Platform::Gitlab,
            "actor" => Platform::Actor,
            "pusher" => Platform::Pusher,
            "signer" => Platform::Signer,
            other => {
                return Err(PlannerError(format!(
                    "--planner `{}`: `{}` is no platform this tool knows; give {FORMS}",
                    text.escape_debug(),
                    other.escape_debug()
                )));
            }
        };
        let literal = !name.is_empty()
            && name
                .chars()
                .all(|c| !c.is_whitespace() && !c.is_control() && !"*?[]{}!\"'\\,#".contains(c));
        if !literal {
            return Err(PlannerError(format!(
                "--planner `{}`: the name must be one literal login or principal (no blanks, quotes, commas or glob characters such as `*`), so that the rule allows exactly that planner",
                text.escape_debug()
            )));
        }
        Ok(Planner {
            platform,
            name: name.to_string(),
        })
    }

    /// The planner as given (`github:alice`).
    pub fn label(&self) -> String {
        let kind = match self.platform {
            Platform::Github => "github",
            Platform::Gitlab => "gitlab",
            Platform::Actor => "actor",
            Platform::Pusher => "pusher",
            Platform::Signer => "signer",
        };
        format!("{kind}:{}", self.name)
    }

    /// Its rules: `(key, comment)` per rule, each `{action: allow, key:
    /// [name]}`.
    fn rules(&self) -> Vec<(&'static str, &'static str)> {
        match self.platform {
            Platform::Github => vec![
                (
                    "actors",
                    "GitHub Actions: who ran the job and opened the pull request",
                ),
                ("pushers", "GitHub Enterprise Server's pre-receive"),
            ],
            Platform::Gitlab => vec![
                ("actors", "GitLab CI: who started the pipeline"),
                ("pushers", "a GitLab server's pre-receive"),
            ],
            Platform::Actor => vec![("actors", "CI: the platform's actor")],
            Platform::Pusher => vec![("pushers", "pre-receive: who the server authenticated")],
            Platform::Signer => vec![(
                "signers",
                "commits signed with a key identity.allowed_signers lists",
            )],
        }
    }
}

/// The rule lines of `planning.rules` for `planners`, indented as the
/// template writes them (two spaces under `rules:`).
pub fn rules_yaml(planners: &[Planner]) -> String {
    let mut out = String::new();
    for planner in planners {
        let name = serde_json::Value::String(planner.name.clone()).to_string();
        for (key, comment) in planner.rules() {
            out.push_str(&format!(
                "    - action: allow               # {}: {comment}\n      {key}: [{name}]\n",
                planner.label()
            ));
        }
    }
    out
}

/// True when a planner is a signer (the configuration then names the
/// allowed-signers file).
pub fn needs_signers(planners: &[Planner]) -> bool {
    planners.iter().any(|p| p.platform == Platform::Signer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principals_parse_and_anything_looser_is_refused() {
        let alice = Planner::parse("github:alice").unwrap();
        assert_eq!(alice.platform, Platform::Github);
        assert_eq!(alice.label(), "github:alice");
        assert_eq!(
            Planner::parse("signer:alice@example.com").unwrap().platform,
            Platform::Signer
        );
        for bad in [
            "alice",
            "bitbucket:alice",
            "github:",
            "github:*",
            "github:al ice",
            "github:a,b",
            "signer:\"x\"",
            "github:a\nb",
        ] {
            assert!(Planner::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn each_platform_gets_the_rules_it_vouches_for() {
        let planners = [
            Planner::parse("github:alice").unwrap(),
            Planner::parse("signer:alice@example.com").unwrap(),
        ];
        let yaml = rules_yaml(&planners);
        assert!(yaml.contains("      actors: [\"alice\"]\n"), "{yaml}");
        assert!(yaml.contains("      pushers: [\"alice\"]\n"), "{yaml}");
        assert!(
            yaml.contains("      signers: [\"alice@example.com\"]\n"),
            "{yaml}"
        );
        assert!(needs_signers(&planners));
        assert!(!needs_signers(&planners[..1]));
    }
}
