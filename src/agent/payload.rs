//! Reading a hook payload strictly: one JSON object, the event the command
//! was installed for, and every field the protocol needs with its
//! documented type. Extra fields are fine (harnesses add them release by
//! release); a missing or mistyped one makes the payload unrecognised, which
//! is never a silent pass.

use super::{Harness, MAX_PAYLOAD_BYTES};
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use serde_json::{Map, Value};

/// The `hook_event_name` values a command accepts, for messages.
pub type Accepted<'a> = &'a [&'a str];

fn unrecognised(harness: Harness, message: String) -> Diagnostic {
    Diagnostic::new(
        Code::agent_hook_payload_unrecognised,
        format!("{} hook payload: {message}", harness.title()),
    )
}

/// A decoded payload object and the harness it claims to come from.
pub struct Payload {
    pub harness: Harness,
    pub event: String,
    map: Map<String, Value>,
}

/// Parse `bytes` as one JSON object whose `hook_event_name` is one of
/// `accepted`.
pub fn parse(
    harness: Harness,
    bytes: &[u8],
    accepted: Accepted<'_>,
) -> Result<Payload, Diagnostic> {
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(unrecognised(
            harness,
            format!("more than {MAX_PAYLOAD_BYTES} bytes on stdin"),
        ));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(unrecognised(
            harness,
            "nothing on stdin; the harness writes the event as JSON there".into(),
        ));
    }
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| unrecognised(harness, format!("stdin is not one JSON value: {e}")))?;
    let Value::Object(map) = value else {
        return Err(unrecognised(
            harness,
            "stdin is JSON but not an object".into(),
        ));
    };
    let event = match map.get("hook_event_name") {
        Some(Value::String(name)) => name.clone(),
        _ => {
            return Err(unrecognised(
                harness,
                "`hook_event_name` is missing or not a string".into(),
            )
            .with_pointer("/hook_event_name"));
        }
    };
    if !accepted.contains(&event.as_str()) {
        return Err(unrecognised(
            harness,
            format!(
                "this command handles {} events, not `{event}`; point the harness's {} entry at the right command (`mastermind-hooks install --agent {}` writes them)",
                accepted.join(" and "),
                event,
                harness.name()
            ),
        )
        .with_pointer("/hook_event_name"));
    }
    Ok(Payload {
        harness,
        event,
        map,
    })
}

impl Payload {
    fn missing(&self, key: &str, what: &str) -> Diagnostic {
        unrecognised(
            self.harness,
            format!(
                "the {} event's `{key}` is missing or not {what}",
                self.event
            ),
        )
        .with_pointer(format!("/{key}"))
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key)
    }

    /// A required string field.
    pub fn string(&self, key: &str) -> Result<String, Diagnostic> {
        match self.map.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(self.missing(key, "a string")),
        }
    }

    /// A required boolean field.
    pub fn boolean(&self, key: &str) -> Result<bool, Diagnostic> {
        match self.map.get(key) {
            Some(Value::Bool(b)) => Ok(*b),
            _ => Err(self.missing(key, "a boolean")),
        }
    }

    /// A field that is a string or null; `required` says whether it may be
    /// absent.
    pub fn nullable_string(&self, key: &str, required: bool) -> Result<Option<String>, Diagnostic> {
        match self.map.get(key) {
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Null) => Ok(None),
            None if !required => Ok(None),
            _ => Err(self.missing(key, "a string or null")),
        }
    }

    /// A required field of any JSON type.
    pub fn value(&self, key: &str) -> Result<&Value, Diagnostic> {
        self.map
            .get(key)
            .ok_or_else(|| self.missing(key, "present"))
    }

    /// An unrecognised-payload finding about `pointer`.
    pub fn reject(&self, pointer: &str, message: impl Into<String>) -> Diagnostic {
        unrecognised(
            self.harness,
            format!("the {} event's {}", self.event, message.into()),
        )
        .with_pointer(pointer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_payload() {
        for bytes in [
            &b""[..],
            b"  \n",
            b"not json",
            b"[1]",
            b"{}",
            b"{\"hook_event_name\": 3}",
            b"{\"hook_event_name\": \"PreToolUse\"}",
        ] {
            let error = parse(Harness::ClaudeCode, bytes, &["Stop"])
                .err()
                .expect("refused");
            assert_eq!(error.code, Code::agent_hook_payload_unrecognised);
        }
        let payload = parse(
            Harness::Codex,
            b"{\"hook_event_name\": \"Stop\", \"x\": null, \"b\": true}",
            &["Stop"],
        )
        .unwrap();
        assert_eq!(payload.nullable_string("x", true).unwrap(), None);
        assert!(payload.nullable_string("y", true).is_err());
        assert_eq!(payload.nullable_string("y", false).unwrap(), None);
        assert!(payload.boolean("b").unwrap());
        assert!(payload.string("b").is_err());
    }
}
