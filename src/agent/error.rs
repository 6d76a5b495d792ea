//! [`AgentError`]: what went wrong around an agent hook, as a value: a
//! harness settings document that cannot be edited, the loop guard's state
//! that cannot be read or written, a dispatch that cannot be recovered from
//! the transcripts. Each variant keeps the facts (paths, the underlying
//! error as its [`source`](std::error::Error::source)) and renders the text
//! the user or the agent reads.

use crate::input::InputError;
use std::fmt;
use std::path::PathBuf;

/// Why an agent-hook step could not be carried out.
#[derive(Debug)]
pub enum AgentError {
    /// A settings document is not JSON (or repeats a key).
    Json(serde_json::Error),
    /// The settings document is not a JSON object.
    NotAnObject,
    /// A settings value has the wrong shape: `at` (`hooks`,
    /// `hooks.Stop`) is `what` ("not an object", "not a list").
    Shape { at: String, what: &'static str },
    /// No git directory to keep the loop guard's count in.
    NoStore,
    /// The loop guard's state file could not be looked at.
    StateStat {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The loop guard's state file could not be read.
    StateRead(InputError),
    /// The state file is not a loop-guard state.
    StateInvalid {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// The state file records another session (or another version).
    StateForeign { path: PathBuf },
    /// The state file could not be removed.
    StateRemove {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The state file could not be written.
    StateWrite {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A directory of the state's store is a link or not a directory.
    StateDir { path: PathBuf, dir: PathBuf },
    /// The state could not be encoded.
    StateEncode(serde_json::Error),
    /// A transcript could not be read.
    TranscriptRead {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A transcript is not a regular file.
    TranscriptNotRegular { path: PathBuf },
    /// The `SubagentStop` payload names no transcripts.
    NoTranscript,
    /// The subagent's transcript has no prompt entry.
    NoPrompt { agent: PathBuf },
    /// No subagent tool call in the session dispatched the prompt.
    NoDispatch { session: PathBuf, agent: PathBuf },
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Json(e) | AgentError::StateEncode(e) => write!(f, "{e}"),
            AgentError::NotAnObject => f.write_str("the settings are not a JSON object"),
            AgentError::Shape { at, what } => write!(f, "`{at}` is {what}"),
            AgentError::NoStore => {
                f.write_str("no git directory to keep the loop guard's count in")
            }
            AgentError::StateStat { path, source }
            | AgentError::TranscriptRead { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            AgentError::StateRead(e) => write!(f, "{e}"),
            AgentError::StateInvalid { path, source } => {
                write!(f, "{} is not a loop-guard state: {source}", path.display())
            }
            AgentError::StateForeign { path } => {
                write!(f, "{} belongs to another session", path.display())
            }
            AgentError::StateRemove { path, source } => {
                write!(f, "cannot remove {}: {source}", path.display())
            }
            AgentError::StateWrite { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
            AgentError::StateDir { path, dir } => write!(
                f,
                "cannot write {}: {} is not a directory",
                path.display(),
                dir.display()
            ),
            AgentError::TranscriptNotRegular { path } => {
                write!(f, "{} is not a regular file", path.display())
            }
            AgentError::NoTranscript => f.write_str(
                "the SubagentStop payload names no transcript to find the dispatch description in",
            ),
            AgentError::NoPrompt { agent } => write!(
                f,
                "the subagent transcript {} has no prompt entry",
                agent.display()
            ),
            AgentError::NoDispatch { session, agent } => write!(
                f,
                "no Agent or Task call in {} dispatched the prompt of {}",
                session.display(),
                agent.display()
            ),
        }
    }
}

impl std::error::Error for AgentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AgentError::Json(e)
            | AgentError::StateEncode(e)
            | AgentError::StateInvalid { source: e, .. } => Some(e),
            AgentError::StateStat { source, .. }
            | AgentError::StateRemove { source, .. }
            | AgentError::StateWrite { source, .. }
            | AgentError::TranscriptRead { source, .. } => Some(source),
            AgentError::StateRead(e) => Some(e),
            _ => None,
        }
    }
}
