//! Claude Code's hook protocol (<https://code.claude.com/docs/en/hooks>).
//!
//! Input, one JSON object on stdin, with the common fields `session_id`,
//! `transcript_path`, `cwd`, `permission_mode` and `hook_event_name`:
//!
//! * `Stop`: also `stop_hook_active` (true when Claude is already continuing
//!   because a stop hook blocked) and `last_assistant_message`.
//! * `SubagentStop`: also `stop_hook_active`, `agent_id`, `agent_type`,
//!   `agent_transcript_path` and `last_assistant_message` (the subagent's
//!   final text; optional in the harness's schema, so its absence is no
//!   error: the return is then judged at `PostToolUse`).
//! * `PreToolUse` of `Bash`: `tool_name`, `tool_input.command` and
//!   `tool_use_id` ([`super::decode_pre_tool`]); the answer that refuses is
//!   `hookSpecificOutput.permissionDecision: "deny"` with
//!   `permissionDecisionReason`, shown to Claude. It carries no dispatch description: that is recovered
//!   from the transcripts ([`super::transcript`]).
//! * `PostToolUse` of the subagent tool (`Agent`, formerly `Task`):
//!   `tool_input.description` is the dispatch description, and
//!   `tool_response.content` holds the subagent's final text blocks
//!   (`[{"type": "text", "text": ...}]`) when `status` is `completed`; a
//!   `run_in_background` call returns `status: "async_launched"` and a
//!   teammate `teammate_spawned`, with no text yet (judged at
//!   `SubagentStop`), and a remote session `remote_launched`, whose return
//!   never reaches a local hook.
//!
//! Output, on exit status 0: nothing to allow; `{"decision": "block",
//! "reason": ...}` to send Claude back to work (Stop, SubagentStop) or to
//! prompt it with the reason (PostToolUse); `systemMessage` is a warning
//! shown to the user; PostToolUse's `hookSpecificOutput.additionalContext`
//! is added to Claude's context. Exit status 2 would feed stderr to Claude
//! and any other status is a non-blocking error; this tool always answers
//! with JSON on status 0 so the reason arrives intact.

use super::payload::{self, Payload};
use super::{Decision, Dispatch, Event, Harness, StopPayload, SubagentPayload};
use crate::diagnostic::Diagnostic;
use serde_json::{Value, json};
use std::path::PathBuf;

const HARNESS: Harness = Harness::ClaudeCode;

/// The tool names of Claude Code's subagent tool (`Agent`; `Task` before
/// its rename).
pub const SUBAGENT_TOOLS: &[&str] = &["Agent", "Task"];

/// The matcher `install --agent claude-code` writes for `PostToolUse`.
pub const SUBAGENT_MATCHER: &str = "Agent|Task";

pub fn decode_stop(bytes: &[u8]) -> Result<StopPayload, Diagnostic> {
    let payload = payload::parse(HARNESS, bytes, &["Stop"])?;
    Ok(StopPayload {
        session_id: payload.string("session_id")?,
        stop_hook_active: payload.boolean("stop_hook_active")?,
    })
}

pub fn decode_subagent(bytes: &[u8]) -> Result<SubagentPayload, Diagnostic> {
    let payload = payload::parse(HARNESS, bytes, &["PostToolUse", "SubagentStop"])?;
    if payload.event == "SubagentStop" {
        return Ok(SubagentPayload::Finished {
            session_id: payload.string("session_id")?,
            agent_id: payload.string("agent_id")?,
            stop_hook_active: payload.boolean("stop_hook_active")?,
            // Optional in the harness's own schema: absent when the
            // subagent ended without a final text message.
            message: payload.nullable_string("last_assistant_message", false)?,
            dispatch: Dispatch::Transcripts {
                session: payload
                    .nullable_string("transcript_path", false)?
                    .map(PathBuf::from),
                agent: payload
                    .nullable_string("agent_transcript_path", false)?
                    .map(PathBuf::from),
            },
        });
    }
    let tool_name = payload.string("tool_name")?;
    if !SUBAGENT_TOOLS.contains(&tool_name.as_str()) {
        return Ok(SubagentPayload::OtherTool { tool_name });
    }
    let description = match payload.value("tool_input")? {
        Value::Object(input) => match input.get("description") {
            Some(Value::String(d)) => d.clone(),
            _ => {
                return Err(payload.reject(
                    "/tool_input/description",
                    "`tool_input.description` (the dispatch description) is missing or not a string",
                ));
            }
        },
        _ => return Err(payload.reject("/tool_input", "`tool_input` is not an object")),
    };
    tool_return(&payload, description)
}

/// The subagent's final text from `tool_response`.
fn tool_return(payload: &Payload, description: String) -> Result<SubagentPayload, Diagnostic> {
    let Value::Object(response) = payload.value("tool_response")? else {
        return Err(payload.reject("/tool_response", "`tool_response` is not an object"));
    };
    // The `Agent` tool's documented results: `completed` (with the final
    // text blocks), `async_launched` (run_in_background), `teammate_spawned`
    // (a teammate session) and `remote_launched` (a remote session).
    match response.get("status").and_then(Value::as_str) {
        Some("async_launched" | "teammate_spawned") => {
            return Ok(SubagentPayload::BackgroundLaunch { description });
        }
        Some("remote_launched") => return Ok(SubagentPayload::RemoteLaunch { description }),
        _ => {}
    }
    let Some(Value::Array(blocks)) = response.get("content") else {
        return Err(payload.reject(
            "/tool_response/content",
            "`tool_response.content` (the subagent's final text blocks) is missing or not a list",
        ));
    };
    let mut texts = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        match block {
            Value::Object(b) if b.get("type").and_then(Value::as_str) == Some("text") => {
                match b.get("text") {
                    Some(Value::String(t)) => texts.push(t.as_str()),
                    _ => {
                        return Err(payload.reject(
                            &format!("/tool_response/content/{i}/text"),
                            "text block has no string `text`",
                        ));
                    }
                }
            }
            Value::Object(_) => {} // images and other block types carry no return text
            _ => {
                return Err(payload.reject(
                    &format!("/tool_response/content/{i}"),
                    "content block is not an object",
                ));
            }
        }
    }
    Ok(SubagentPayload::ToolReturn {
        description,
        text: texts.join("\n"),
    })
}

/// The JSON Claude Code reads for `decision` on `event`.
pub fn encode(event: Event, decision: &Decision) -> Option<String> {
    let mut out = decision.common_fields()?;
    // A warning after a tool call also reaches the agent, as context.
    if let Decision::Warn(message) = decision
        && event == Event::PostToolUse
    {
        out.insert(
            "hookSpecificOutput".into(),
            json!({"hookEventName": event.name(), "additionalContext": message}),
        );
    }
    Some(Value::Object(out).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;

    #[test]
    fn decodes_the_documented_stop_payload() {
        let stop = decode_stop(
            br#"{"session_id": "abc123", "transcript_path": "~/.claude/projects/x.jsonl", "cwd": "/p",
                "permission_mode": "default", "hook_event_name": "Stop", "stop_hook_active": true,
                "last_assistant_message": "done"}"#,
        )
        .unwrap();
        assert_eq!(stop.session_id, "abc123");
        assert!(stop.stop_hook_active);
        let missing =
            decode_stop(br#"{"hook_event_name": "Stop", "session_id": "s"}"#).unwrap_err();
        assert_eq!(missing.code, Code::agent_hook_payload_unrecognised);
        assert_eq!(missing.json_pointer.as_deref(), Some("/stop_hook_active"));
    }

    #[test]
    fn decodes_subagent_tool_returns() {
        let ret = decode_subagent(
            br#"{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Agent",
                "tool_input": {"description": "probe-j-cart: probe", "prompt": "p", "subagent_type": "general-purpose"},
                "tool_response": {"status": "completed", "agentId": "a1",
                  "content": [{"type": "text", "text": "{\"a\": 1}"}, {"type": "text", "text": "more"}]}}"#,
        )
        .unwrap();
        assert_eq!(
            ret,
            SubagentPayload::ToolReturn {
                description: "probe-j-cart: probe".into(),
                text: "{\"a\": 1}\nmore".into()
            }
        );
        let bg = decode_subagent(
            br#"{"hook_event_name": "PostToolUse", "tool_name": "Task", "tool_input": {"description": "d"},
                "tool_response": {"status": "async_launched", "agentId": "a"}}"#,
        )
        .unwrap();
        assert!(matches!(bg, SubagentPayload::BackgroundLaunch { .. }));
        let other = decode_subagent(
            br#"{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {}, "tool_response": {}}"#,
        )
        .unwrap();
        assert!(matches!(other, SubagentPayload::OtherTool { .. }));
        for bad in [
            &br#"{"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_input": {}, "tool_response": {"content": []}}"#[..],
            br#"{"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_input": {"description": "d"}, "tool_response": "text"}"#,
            br#"{"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_input": {"description": "d"}, "tool_response": {"result": "x"}}"#,
        ] {
            assert_eq!(
                decode_subagent(bad).unwrap_err().code,
                Code::agent_hook_payload_unrecognised
            );
        }
    }

    #[test]
    fn encodes_decisions() {
        assert_eq!(encode(Event::Stop, &Decision::Allow), None);
        let block: Value = serde_json::from_str(
            &encode(
                Event::Stop,
                &Decision::Block {
                    reason: "fix it".into(),
                    note: None,
                },
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(block, json!({"decision": "block", "reason": "fix it"}));
        let warn: Value =
            serde_json::from_str(&encode(Event::PostToolUse, &Decision::Warn("w".into())).unwrap())
                .unwrap();
        assert_eq!(
            warn,
            json!({"systemMessage": "w", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "w"}})
        );
    }
}
