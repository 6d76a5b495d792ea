//! Codex's hook protocol (<https://developers.openai.com/codex/hooks>; wire
//! schemas `stop.command.input.schema.json` and friends under
//! `codex-rs/hooks/schema/generated/` in <https://github.com/openai/codex>).
//!
//! Input, one JSON object on stdin: `session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`, `model`, `permission_mode` and the Codex-specific
//! `turn_id`, plus:
//!
//! * `Stop`: `stop_hook_active` (this turn was already continued by a Stop
//!   hook) and `last_assistant_message`.
//! * `SubagentStop`: `agent_id`, `agent_type` (the subagent type or
//!   profile), `agent_transcript_path`, `stop_hook_active` and
//!   `last_assistant_message`.
//!
//! Codex documents no dispatch description for a subagent, and its
//! `PostToolUse` covers only Bash, `apply_patch` and MCP tools, not the
//! subagent tool; so subagent returns are judged at `SubagentStop`, routed
//! by `agent_type`: a routed prefix, or exactly a return schema's name (a
//! custom agent named `composer`), else the return's own `handover.role`
//! (Codex's built-in types `default`, `worker` and `explorer` name no
//! contract). The transcript format is documented as unstable and is
//! not read.
//!
//! Output, on exit status 0: nothing to allow; `{"decision": "block",
//! "reason": ...}` continues the turn (or the subagent) with `reason` as the
//! next prompt; `systemMessage` is surfaced as a warning. Plain text is
//! invalid for these events, so this tool prints JSON or nothing.

use super::payload;
use super::{Decision, Dispatch, Event, Harness, StopPayload, SubagentPayload};
use crate::diagnostic::Diagnostic;
use serde_json::Value;

const HARNESS: Harness = Harness::Codex;

pub fn decode_stop(bytes: &[u8]) -> Result<StopPayload, Diagnostic> {
    let payload = payload::parse(HARNESS, bytes, &["Stop"])?;
    payload.string("turn_id")?;
    Ok(StopPayload {
        session_id: payload.string("session_id")?,
        stop_hook_active: payload.boolean("stop_hook_active")?,
    })
}

pub fn decode_subagent(bytes: &[u8]) -> Result<SubagentPayload, Diagnostic> {
    let payload = payload::parse(HARNESS, bytes, &["SubagentStop"])?;
    payload.string("turn_id")?;
    Ok(SubagentPayload::Finished {
        session_id: payload.string("session_id")?,
        agent_id: payload.string("agent_id")?,
        stop_hook_active: payload.boolean("stop_hook_active")?,
        message: payload.nullable_string("last_assistant_message", true)?,
        dispatch: Dispatch::AgentType(payload.string("agent_type")?),
    })
}

/// The JSON Codex reads for `decision` (Stop and SubagentStop share it).
pub fn encode(_event: Event, decision: &Decision) -> Option<String> {
    decision
        .common_fields()
        .map(|out| Value::Object(out).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;
    use serde_json::json;

    #[test]
    fn decodes_the_schema_shaped_payloads() {
        let stop = decode_stop(
            br#"{"cwd": "/p", "hook_event_name": "Stop", "last_assistant_message": null, "model": "gpt-5",
                "permission_mode": "default", "session_id": "s1", "stop_hook_active": false,
                "transcript_path": null, "turn_id": "t1"}"#,
        )
        .unwrap();
        assert_eq!(stop.session_id, "s1");
        // A Claude Code payload has no turn_id: --harness codex refuses it.
        let claude = decode_stop(
            br#"{"hook_event_name": "Stop", "session_id": "s", "stop_hook_active": false}"#,
        )
        .unwrap_err();
        assert_eq!(claude.code, Code::agent_hook_payload_unrecognised);
        let sub = decode_subagent(
            br#"{"agent_id": "a1", "agent_transcript_path": null, "agent_type": "probe-j-cart", "cwd": "/p",
                "hook_event_name": "SubagentStop", "last_assistant_message": "{}", "model": "m",
                "permission_mode": "default", "session_id": "s1", "stop_hook_active": false,
                "transcript_path": null, "turn_id": "t1"}"#,
        )
        .unwrap();
        match sub {
            SubagentPayload::Finished {
                dispatch, message, ..
            } => {
                assert_eq!(dispatch, Dispatch::AgentType("probe-j-cart".into()));
                assert_eq!(message.as_deref(), Some("{}"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn encodes_blocks_and_warnings() {
        let block: Value = serde_json::from_str(
            &encode(
                Event::Stop,
                &Decision::Block {
                    reason: "r".into(),
                    note: Some("n".into()),
                },
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(
            block,
            json!({"decision": "block", "reason": "r", "systemMessage": "n"})
        );
        let warn: Value = serde_json::from_str(
            &encode(Event::SubagentStop, &Decision::Warn("w".into())).unwrap(),
        )
        .unwrap();
        assert_eq!(warn, json!({"systemMessage": "w"}));
    }
}
