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
//! * [`guard`] (with [`shell`], and [`facts`] asking git about the
//!   repository within a deadline): the pre-tool guard that refuses shell
//!   commands and file edits skipping or switching off the git hooks, the
//!   gate or the agent hooks;
//! * [`landing_target`]: the default branch as the remote reports it,
//!   asked once per session, which the stop hook judges against;
//! * [`provenance`]: which binary answered and where an override comes
//!   from, named in every decision;
//! * [`transcript`]: recovering a Claude Code subagent's dispatch
//!   description from the session transcripts;
//! * [`json`], [`splice`] and [`settings`]: the harness's hook settings,
//!   edited as text without touching a byte of anyone else's entries
//!   (`install --agent`, and `uninstall --agent` restores them exactly);
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
pub mod facts;
pub mod guard;
pub mod json;
pub mod landing_target;
pub mod loop_guard;
pub mod payload;
pub mod provenance;
pub mod settings;
pub mod shell;
pub mod splice;
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
    PreToolUse,
}

impl Event {
    pub const ALL: [Event; 4] = [
        Event::Stop,
        Event::SubagentStop,
        Event::PostToolUse,
        Event::PreToolUse,
    ];

    /// The event's name in both harnesses' payloads and settings.
    pub fn name(self) -> &'static str {
        match self {
            Event::Stop => "Stop",
            Event::SubagentStop => "SubagentStop",
            Event::PostToolUse => "PostToolUse",
            Event::PreToolUse => "PreToolUse",
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
    /// A background dispatch (`async_launched`) or a teammate
    /// (`teammate_spawned`) was launched; nothing has returned yet (its
    /// return is judged at `SubagentStop`).
    BackgroundLaunch { description: String },
    /// The subagent runs remotely (`remote_launched`): its return never
    /// reaches a hook on this machine.
    RemoteLaunch { description: String },
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

/// What the agent is about to do with a tool (`PreToolUse`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolCall {
    /// A shell command: Claude Code's `Bash` tool, Codex's shell tool
    /// (which its hooks also name `Bash`).
    Shell(String),
    /// A file edit: Claude Code's `Write`, `Edit`, `MultiEdit` and
    /// `NotebookEdit`, Codex's `apply_patch`.
    Edit(guard::FileEdit),
    /// Any other tool (a matcher wider than these): nothing to judge.
    Other,
}

/// A tool call the agent is about to make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreToolPayload {
    pub tool_name: String,
    pub call: ToolCall,
    /// The session's working directory: where relative paths start and
    /// git aliases are read.
    pub cwd: Option<PathBuf>,
}

/// The tools whose calls the guard judges, as `install --agent` matches
/// them: Claude Code's shell and file tools.
pub const CLAUDE_CODE_TOOLS: &str = "Bash|Write|Edit|MultiEdit|NotebookEdit";
/// Codex's: the shell tool and `apply_patch` (its hooks name it so, with
/// `tool_input.command` holding the patch).
pub const CODEX_TOOLS: &str = "Bash|apply_patch";

/// The paths an `apply_patch` patch adds, updates, deletes or moves to
/// (`*** Add File: P`, `*** Update File: P`, `*** Delete File: P`,
/// `*** Move to: P`; Codex's patch format).
pub fn patch_paths(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|line| {
            [
                "*** Add File: ",
                "*** Update File: ",
                "*** Delete File: ",
                "*** Move to: ",
            ]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
        })
        .map(|p| p.trim().to_string())
        .collect()
}

/// Decode a `PreToolUse` payload. Both harnesses document the same fields:
/// Claude Code's `tool_name`, `tool_input` and `tool_use_id` (for `Bash`:
/// `command`, `description`, `timeout`, `run_in_background`; for `Write`:
/// `file_path`, `content`; for `Edit`: `file_path`, `old_string`,
/// `new_string`; for `MultiEdit`: `file_path`, `edits`; for
/// `NotebookEdit`: `notebook_path`, `new_source`); Codex's
/// `pre-tool-use.command.input` schema: `tool_name` (`Bash`, or
/// `apply_patch` with the patch in `tool_input.command`).
pub fn decode_pre_tool(
    harness: Harness,
    bytes: &[u8],
) -> Result<PreToolPayload, crate::diagnostic::Diagnostic> {
    let payload = payload::parse(harness, bytes, &["PreToolUse"])?;
    let tool_name = payload.string("tool_name")?;
    let cwd = payload.nullable_string("cwd", false)?.map(PathBuf::from);
    let known = matches!(
        (harness, tool_name.as_str()),
        (_, "Bash")
            | (
                Harness::ClaudeCode,
                "Write" | "Edit" | "MultiEdit" | "NotebookEdit"
            )
            | (Harness::Codex, "apply_patch")
    );
    if !known {
        return Ok(PreToolPayload {
            tool_name,
            call: ToolCall::Other,
            cwd,
        });
    }
    let serde_json::Value::Object(input) = payload.value("tool_input")? else {
        return Err(payload.reject("/tool_input", "`tool_input` is not an object"));
    };
    let text = |key: &str| -> Result<String, crate::diagnostic::Diagnostic> {
        match input.get(key) {
            Some(serde_json::Value::String(c)) => Ok(c.clone()),
            _ => Err(payload.reject(
                &format!("/tool_input/{key}"),
                format!("`tool_input.{key}` is missing or not a string"),
            )),
        }
    };
    let optional = |key: &str| {
        input
            .get(key)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let edit = |paths: Vec<String>, text: String| {
        ToolCall::Edit(guard::FileEdit {
            tool: tool_name.clone(),
            paths,
            text,
        })
    };
    let call = match tool_name.as_str() {
        "Bash" => ToolCall::Shell(text("command")?),
        "apply_patch" => {
            let patch = text("command")?;
            edit(patch_paths(&patch), patch)
        }
        "NotebookEdit" => edit(vec![text("notebook_path")?], optional("new_source")),
        "MultiEdit" => {
            let news: Vec<String> = input
                .get("edits")
                .and_then(serde_json::Value::as_array)
                .map(|edits| {
                    edits
                        .iter()
                        .filter_map(|e| e.get("new_string").and_then(serde_json::Value::as_str))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            edit(vec![text("file_path")?], news.join("\n"))
        }
        "Write" => edit(vec![text("file_path")?], optional("content")),
        _ => edit(vec![text("file_path")?], optional("new_string")),
    };
    Ok(PreToolPayload {
        tool_name,
        call,
        cwd,
    })
}

/// The `PreToolUse` answer refusing the command with `reason` (both
/// harnesses read `hookSpecificOutput.permissionDecision: "deny"` with
/// `permissionDecisionReason` on exit status 0 and show the reason to the
/// agent).
pub fn encode_deny(reason: &str) -> String {
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    })
    .to_string()
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
