//! The built-in recognisers of coding agents' commits (`agents:` in a
//! rule): marks the agents themselves write into commits and branch names
//! (docs/src/configuration.md lists the sources). They are cooperative
//! marks, not identity: every one is ordinary text that whoever makes the
//! commit can leave out or forge, so a match is evidence an agent was
//! involved and a missing match proves nothing. Policy that must hold
//! against an agent keys on what the platform or a key vouches for
//! ([`super::rules`]).

use crate::config::AgentName;
use crate::gate::change::Identity;

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

/// True when the step carries one of the agent's marks; `branch` is the
/// branch the change comes from (the source branch).
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
}
