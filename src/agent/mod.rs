//! Agent-harness hooks: gate a coding agent before it stops, and judge a
//! subagent's return before the orchestrator acts on it.
//!
//! Each harness has its own protocol module, pure functions of bytes:
//! [`claude_code`] and [`codex`] decode the hook payload a harness writes on
//! stdin into the events below and encode a [`Decision`] as the JSON the
//! harness reads on stdout. Around them:
//!
//! * [`decision`]: the decisions, and the text an agent or user reads;
//! * [`loop_guard`]: consecutive blocked stops per session (state under the
//!   git directory, never in the working tree);
//! * [`transcript`]: recovering a Claude Code subagent's dispatch
//!   description from the session transcripts;
//! * [`json`] and [`settings`]: the harness's hook settings, edited without
//!   reordering or touching anyone else's entries (`install --agent`);
//! * [`AgentError`]: what went wrong in any of them, as a value.
//!
//! The protocols are taken from the harnesses' published documentation:
//! Claude Code's hooks reference (<https://code.claude.com/docs/en/hooks>)
//! and Codex's hooks page (<https://developers.openai.com/codex/hooks>, with
//! the generated wire schemas in `codex-rs/hooks/schema/generated/` of
//! <https://github.com/openai/codex>). A payload that matches neither is
//! never a silent pass.

pub mod claude_code;
pub mod codex;
pub mod decision;
mod error;
pub mod json;
pub mod loop_guard;
pub mod payload;
pub mod settings;
pub mod transcript;

pub use decision::Decision;
pub use error::AgentError;

use std::path::PathBuf;

/// A coding-agent harness whose hook protocol this tool speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Harness {
    /// Anthropic's Claude Code (`.claude/settings.json`).
    #[default]
    ClaudeCode,
    /// OpenAI's Codex CLI (`.codex/hooks.json`).
    Codex,
}

impl Harness {
    pub const ALL: [Harness; 2] = [Harness::ClaudeCode, Harness::Codex];

    /// The name on the command line (`claude-code`).
    pub fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
        }
    }

    /// The name people know it by.
    pub fn title(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "Claude Code",
            Harness::Codex => "Codex",
        }
    }

    /// The project hook settings file `install --agent` edits, relative to
    /// the working tree root.
    pub fn settings_path(self) -> &'static str {
        match self {
            Harness::ClaudeCode => ".claude/settings.json",
            Harness::Codex => ".codex/hooks.json",
        }
    }
}

impl std::fmt::Display for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The harness event a payload came from; it decides the output's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Stop,
    SubagentStop,
    PostToolUse,
}

impl Event {
    /// The event's name in both harnesses' payloads and settings.
    pub fn name(self) -> &'static str {
        match self {
            Event::Stop => "Stop",
            Event::SubagentStop => "SubagentStop",
            Event::PostToolUse => "PostToolUse",
        }
    }
}

/// The main agent is about to end its turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopPayload {
    pub session_id: String,
    /// The harness's own loop flag: this stop follows a stop hook's block.
    pub stop_hook_active: bool,
}

/// How the dispatch that produced a subagent's return is identified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// The dispatch description, straight from the payload.
    Description(String),
    /// Codex: no description exists; the subagent type (the role given to
    /// `spawn_agent`, or a custom agent's name) is routed instead.
    AgentType(String),
    /// Claude Code's `SubagentStop`: the description is in the session
    /// transcript, found through the subagent's own transcript.
    Transcripts {
        session: Option<PathBuf>,
        agent: Option<PathBuf>,
    },
}

/// A subagent event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubagentPayload {
    /// `PostToolUse` of the subagent tool: the orchestrator is about to read
    /// the subagent's final text.
    ToolReturn { description: String, text: String },
    /// A background dispatch was launched; nothing has returned yet (its
    /// return is judged at `SubagentStop`).
    BackgroundLaunch { description: String },
    /// `PostToolUse` of some other tool (a matcher wider than the subagent
    /// tool): nothing to judge.
    OtherTool { tool_name: String },
    /// `SubagentStop`: the subagent is about to finish with `message`.
    Finished {
        session_id: String,
        agent_id: String,
        stop_hook_active: bool,
        message: Option<String>,
        dispatch: Dispatch,
    },
}

impl SubagentPayload {
    pub fn event(&self) -> Event {
        match self {
            SubagentPayload::Finished { .. } => Event::SubagentStop,
            _ => Event::PostToolUse,
        }
    }
}

/// Bytes of hook payload read from stdin; a transcript-sized final message
/// fits, a runaway stream does not.
pub const MAX_PAYLOAD_BYTES: usize = 8 * 1024 * 1024;

/// Decode a `Stop` payload for `harness`.
pub fn decode_stop(
    harness: Harness,
    bytes: &[u8],
) -> Result<StopPayload, crate::diagnostic::Diagnostic> {
    match harness {
        Harness::ClaudeCode => claude_code::decode_stop(bytes),
        Harness::Codex => codex::decode_stop(bytes),
    }
}

/// Decode a subagent payload for `harness`.
pub fn decode_subagent(
    harness: Harness,
    bytes: &[u8],
) -> Result<SubagentPayload, crate::diagnostic::Diagnostic> {
    match harness {
        Harness::ClaudeCode => claude_code::decode_subagent(bytes),
        Harness::Codex => codex::decode_subagent(bytes),
    }
}

/// Encode a decision for `harness`: what to print on stdout (nothing for a
/// silent allow). Both harnesses read it on exit status 0.
pub fn encode(harness: Harness, event: Event, decision: &Decision) -> Option<String> {
    match harness {
        Harness::ClaudeCode => claude_code::encode(event, decision),
        Harness::Codex => codex::encode(event, decision),
    }
}
