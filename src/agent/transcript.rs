//! Recovering a Claude Code subagent's dispatch description at
//! `SubagentStop`, whose payload names the subagent's transcript and the
//! session's but not the description.
//!
//! Claude Code writes transcripts as JSON lines (one entry per line). The
//! subagent's own transcript opens with the user entry that carries its
//! prompt; the session transcript holds the orchestrator's tool call, an
//! assistant entry whose `message.content` has a `tool_use` block named
//! `Agent` (or `Task`) with `input.description` and `input.prompt`. The
//! description is the one of the latest such call whose prompt is exactly
//! the subagent's. The hooks reference documents the two paths
//! (`transcript_path`, `agent_transcript_path`) but not the line format, so
//! this is best effort: when nothing matches, the caller reports that the
//! dispatch could not be recovered, never a silent pass.

use super::AgentError;
use super::claude_code::SUBAGENT_TOOLS;
use crate::safe_fs::{self, Follow};
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Bytes read from the end of the session transcript (the dispatch is
/// recent), and from the start of the subagent's (the prompt comes first).
const SESSION_TAIL_BYTES: u64 = 64 * 1024 * 1024;
const AGENT_HEAD_BYTES: u64 = 16 * 1024 * 1024;

/// The text of a message `content`: a string, or its text blocks joined.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// The prompt a subagent was given: the first user entry of its transcript.
pub fn agent_prompt(transcript: &[u8]) -> Option<String> {
    transcript
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .find(|entry| entry.get("type").and_then(Value::as_str) == Some("user"))
        .and_then(|entry| entry.get("message")?.get("content").and_then(content_text))
}

/// The description of the latest subagent tool call in the session
/// transcript that dispatched exactly `prompt`.
pub fn description_for(session: &[u8], prompt: &str) -> Option<String> {
    let mut found = None;
    for line in session.split(|b| *b == b'\n') {
        // Cheap filter: only tool calls can match.
        if !line.windows(8).any(|w| w == b"tool_use") {
            continue;
        }
        let Ok(entry) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if entry.get("type").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let Some(Value::Array(blocks)) = entry.get("message").and_then(|m| m.get("content")) else {
            continue;
        };
        for block in blocks {
            let is_call = block.get("type").and_then(Value::as_str) == Some("tool_use")
                && block
                    .get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| SUBAGENT_TOOLS.contains(&n));
            if !is_call {
                continue;
            }
            let input = block.get("input");
            if input.and_then(|i| i.get("prompt")).and_then(Value::as_str) == Some(prompt)
                && let Some(d) = input
                    .and_then(|i| i.get("description"))
                    .and_then(Value::as_str)
            {
                found = Some(d.to_string());
            }
        }
    }
    found
}

/// `~/x` as the documentation's examples write it.
fn expand(path: &Path) -> PathBuf {
    match (path.strip_prefix("~"), std::env::var_os("HOME")) {
        (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => path.to_path_buf(),
    }
}

/// Read at most `limit` bytes of a regular file, from its start or from its
/// end (then from the first whole line). FIFOs and devices are refused
/// without blocking ([`crate::safe_fs`]).
fn read_part(path: &Path, limit: u64, from_end: bool) -> Result<Vec<u8>, AgentError> {
    let path = expand(path);
    let mut file = match safe_fs::open_read(&path, Follow::Links) {
        Ok(file) => file,
        Err(safe_fs::Error::NotRegular(_)) => {
            return Err(AgentError::TranscriptNotRegular { path });
        }
        Err(e) => {
            return Err(AgentError::TranscriptRead {
                path,
                source: e.into(),
            });
        }
    };
    let fail = |source: std::io::Error| AgentError::TranscriptRead {
        path: path.clone(),
        source,
    };
    let size = file.metadata().map_err(fail)?.len();
    let mut bytes = Vec::new();
    if from_end && size > limit {
        file.seek(SeekFrom::Start(size - limit)).map_err(fail)?;
        file.take(limit).read_to_end(&mut bytes).map_err(fail)?;
        let start = bytes.iter().position(|b| *b == b'\n').map_or(0, |i| i + 1);
        bytes.drain(..start);
    } else {
        file.take(limit).read_to_end(&mut bytes).map_err(fail)?;
    }
    Ok(bytes)
}

/// The dispatch description of the subagent whose transcript is `agent`,
/// from the session transcript `session`; `Err` says why it is unknown.
pub fn recover(session: Option<&Path>, agent: Option<&Path>) -> Result<String, AgentError> {
    let (Some(session), Some(agent)) = (session, agent) else {
        return Err(AgentError::NoTranscript);
    };
    let prompt = agent_prompt(&read_part(agent, AGENT_HEAD_BYTES, false)?).ok_or_else(|| {
        AgentError::NoPrompt {
            agent: agent.to_path_buf(),
        }
    })?;
    description_for(&read_part(session, SESSION_TAIL_BYTES, true)?, &prompt).ok_or_else(|| {
        AgentError::NoDispatch {
            session: session.to_path_buf(),
            agent: agent.to_path_buf(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = concat!(
        r#"{"type":"user","message":{"role":"user","content":"probe the cart"}}"#,
        "\n",
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"dispatching"},{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"probe-j-cart: adversarial pass","prompt":"Probe the cart journey.","subagent_type":"general-purpose"}}]}}"#,
        "\n",
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Agent","input":{"description":"reviewer-j-cart: review","prompt":"Review the cart tests."}}]}}"#,
        "\n"
    );

    #[test]
    fn finds_the_description_by_the_subagents_prompt() {
        let agent = concat!(
            r#"{"type":"user","isSidechain":true,"message":{"role":"user","content":[{"type":"text","text":"Review the cart tests."}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"{}"}]}}"#,
            "\n"
        );
        let prompt = agent_prompt(agent.as_bytes()).unwrap();
        assert_eq!(prompt, "Review the cart tests.");
        assert_eq!(
            description_for(SESSION.as_bytes(), &prompt).as_deref(),
            Some("reviewer-j-cart: review")
        );
        assert_eq!(
            description_for(SESSION.as_bytes(), "Probe the cart journey.").as_deref(),
            Some("probe-j-cart: adversarial pass")
        );
        assert_eq!(description_for(SESSION.as_bytes(), "other"), None);
        assert_eq!(agent_prompt(b"not json\n"), None);
    }

    #[test]
    fn recovers_from_files_and_says_why_not() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        let agent = dir.path().join("a.jsonl");
        std::fs::write(&session, SESSION).unwrap();
        std::fs::write(
            &agent,
            r#"{"type":"user","message":{"content":"Probe the cart journey."}}"#,
        )
        .unwrap();
        assert_eq!(
            recover(Some(&session), Some(&agent)).unwrap(),
            "probe-j-cart: adversarial pass"
        );
        assert!(recover(None, Some(&agent)).is_err());
        assert!(recover(Some(&session), Some(&dir.path().join("missing"))).is_err());
        std::fs::write(&agent, r#"{"type":"user","message":{"content":"unknown"}}"#).unwrap();
        assert!(
            recover(Some(&session), Some(&agent))
                .unwrap_err()
                .to_string()
                .contains("no Agent or Task call")
        );
    }

    #[test]
    fn reads_the_tail_from_a_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        std::fs::write(&path, "aaaa\nbbbb\ncccc\n").unwrap();
        assert_eq!(read_part(&path, 7, true).unwrap(), b"cccc\n");
        assert_eq!(read_part(&path, 7, false).unwrap(), b"aaaa\nbb");
    }
}
