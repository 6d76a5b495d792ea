//! The agent hook entries in a harness's hook settings, and the pure edits
//! `install --agent` and `uninstall --agent` make to them.
//!
//! Both harnesses use one shape (Claude Code's `.claude/settings.json`,
//! Codex's `.codex/hooks.json`): `hooks` maps an event name to a list of
//! matcher groups, each `{"matcher"?: ..., "hooks": [handler, ...]}`, and a
//! command handler is `{"type": "command", "command": ..., "timeout": ...}`
//! (timeout in seconds). An entry is ours when its command runs a binary
//! named `mastermind-hooks` with `agent-hook stop` or `agent-hook
//! subagent`; everything else in the file is left exactly as it was,
//! including the order of keys.

use super::json::Json;
use super::{AgentError, Event, Harness, claude_code};

/// The harness timeout written for each entry, in seconds. The command's
/// own deadline (`agent-hook --timeout`, default [`DEFAULT_DEADLINE_SECS`])
/// stays below it, so the gate reports "could not check" itself instead of
/// being killed by the harness.
pub const HARNESS_TIMEOUT_SECS: u32 = 60;
pub const DEFAULT_DEADLINE_SECS: u32 = 45;

/// The two agent-hook subcommands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subcommand {
    Stop,
    Subagent,
}

impl Subcommand {
    pub fn name(self) -> &'static str {
        match self {
            Subcommand::Stop => "stop",
            Subcommand::Subagent => "subagent",
        }
    }
}

/// One hook entry `install --agent` writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub event: Event,
    pub matcher: Option<&'static str>,
    pub subcommand: Subcommand,
    pub command: String,
}

/// Quote a path for the shell the harness runs the command with.
pub fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%".contains(&b));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The entries for `harness`, running the binary at `binary`.
pub fn entries(harness: Harness, binary: &str) -> Vec<Entry> {
    let command = |sub: Subcommand| {
        format!(
            "{} agent-hook {} --harness {}",
            shell_quote(binary),
            sub.name(),
            harness.name()
        )
    };
    let mut list = vec![
        Entry {
            event: Event::Stop,
            matcher: None,
            subcommand: Subcommand::Stop,
            command: command(Subcommand::Stop),
        },
        Entry {
            event: Event::SubagentStop,
            matcher: None,
            subcommand: Subcommand::Subagent,
            command: command(Subcommand::Subagent),
        },
    ];
    if harness == Harness::ClaudeCode {
        list.push(Entry {
            event: Event::PostToolUse,
            matcher: Some(claude_code::SUBAGENT_MATCHER),
            subcommand: Subcommand::Subagent,
            command: command(Subcommand::Subagent),
        });
    }
    list
}

/// The first word of a shell command, unquoted, and the rest.
fn split_program(command: &str) -> Option<(String, &str)> {
    let command = command.trim_start();
    if let Some(rest) = command.strip_prefix('\'') {
        // '...' with '\'' escapes
        let mut program = String::new();
        let mut tail = rest;
        loop {
            let end = tail.find('\'')?;
            program.push_str(&tail[..end]);
            tail = &tail[end + 1..];
            if let Some(after) = tail.strip_prefix("\\''") {
                program.push('\'');
                tail = after;
            } else {
                return Some((program, tail));
            }
        }
    }
    if let Some(rest) = command.strip_prefix('"') {
        let end = rest.find('"')?;
        return Some((rest[..end].to_string(), &rest[end + 1..]));
    }
    let end = command.find(char::is_whitespace).unwrap_or(command.len());
    Some((command[..end].to_string(), &command[end..]))
}

/// Whether a handler command is one of ours, and which.
pub fn ours(command: &str) -> Option<Subcommand> {
    let (program, rest) = split_program(command)?;
    let name = program.rsplit('/').next().unwrap_or(&program);
    if name != "mastermind-hooks" {
        return None;
    }
    let mut words = rest.split_whitespace();
    if words.next() != Some("agent-hook") {
        return None;
    }
    match words.next() {
        Some("stop") => Some(Subcommand::Stop),
        Some("subagent") => Some(Subcommand::Subagent),
        _ => None,
    }
}

fn handler(entry: &Entry) -> Json {
    Json::Object(vec![
        ("type".into(), Json::str("command")),
        ("command".into(), Json::str(&entry.command)),
        ("timeout".into(), Json::Number(HARNESS_TIMEOUT_SECS.into())),
    ])
}

fn group(entry: &Entry) -> Json {
    let mut pairs = Vec::new();
    if let Some(matcher) = entry.matcher {
        pairs.push(("matcher".into(), Json::str(matcher)));
    }
    pairs.push(("hooks".into(), Json::Array(vec![handler(entry)])));
    Json::Object(pairs)
}

/// What a settings document holds for one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryState {
    /// No handler of ours for this event.
    Missing,
    /// Exactly what install writes.
    Current,
    /// A handler of ours that differs (another binary, timeout or matcher);
    /// its command is shown.
    Outdated(String),
}

fn problem(at: &str, what: &'static str) -> AgentError {
    AgentError::Shape {
        at: at.to_string(),
        what,
    }
}

/// The matcher groups of `event`, validated.
fn groups(doc: &Json, event: Event) -> Result<&[Json], AgentError> {
    let Some(hooks) = doc.get("hooks") else {
        return Ok(&[]);
    };
    if !matches!(hooks, Json::Object(_)) {
        return Err(problem("hooks", "not an object"));
    }
    match hooks.get(event.name()) {
        None => Ok(&[]),
        Some(Json::Array(groups)) => Ok(groups),
        Some(_) => Err(problem(&format!("hooks.{}", event.name()), "not a list")),
    }
}

/// Our handlers among a group's handlers: (matcher, handler).
fn our_handlers(groups: &[Json], sub: Subcommand) -> Vec<(Option<&str>, &Json)> {
    let mut found = Vec::new();
    for g in groups {
        let matcher = g.get("matcher").and_then(Json::as_str);
        if let Some(Json::Array(handlers)) = g.get("hooks") {
            for h in handlers {
                if h.get("command").and_then(Json::as_str).and_then(ours) == Some(sub) {
                    found.push((matcher, h));
                }
            }
        }
    }
    found
}

/// Check the document is an object whose `hooks` is an object.
pub fn validate(doc: &Json) -> Result<(), AgentError> {
    if !matches!(doc, Json::Object(_)) {
        return Err(AgentError::NotAnObject);
    }
    match doc.get("hooks") {
        None | Some(Json::Object(_)) => Ok(()),
        Some(_) => Err(problem("hooks", "not an object")),
    }
}

/// The state of `entry` in `doc`.
pub fn inspect(doc: &Json, entry: &Entry) -> Result<EntryState, AgentError> {
    validate(doc)?;
    let groups = groups(doc, entry.event)?;
    let found = our_handlers(groups, entry.subcommand);
    let want = handler(entry);
    match found.as_slice() {
        [] => Ok(EntryState::Missing),
        [(matcher, h)] if *matcher == entry.matcher && **h == want => Ok(EntryState::Current),
        [(_, h), ..] => Ok(EntryState::Outdated(
            h.get("command")
                .and_then(Json::as_str)
                .unwrap_or_default()
                .to_string(),
        )),
    }
}

/// Remove every handler of ours running `sub` (any when `None`) from
/// `event`; groups left empty and an event left without groups go too.
/// Returns how many handlers were removed.
fn remove(doc: &mut Json, event: Event, sub: Option<Subcommand>) -> usize {
    let Some(hooks) = doc.get_mut("hooks") else {
        return 0;
    };
    let Some(Json::Array(groups)) = hooks.get_mut(event.name()) else {
        return 0;
    };
    let mut removed = 0;
    for g in groups.iter_mut() {
        if let Some(Json::Array(handlers)) = g.get_mut("hooks") {
            let before = handlers.len();
            handlers.retain(|h| {
                let mine = h.get("command").and_then(Json::as_str).and_then(ours);
                !(mine.is_some() && (sub.is_none() || mine == sub))
            });
            if handlers.len() != before {
                removed += before - handlers.len();
            }
        }
    }
    if removed > 0 {
        groups.retain(|g| !matches!(g.get("hooks"), Some(Json::Array(h)) if h.is_empty()));
        if groups.is_empty() {
            hooks.remove(event.name());
        }
    }
    removed
}

/// What install did for one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Unchanged,
    Added,
    Updated(String),
}

/// Add or update `entries` in `doc`. Nothing else changes; an entry that is
/// already current stays where it is.
pub fn install(doc: &mut Json, entries: &[Entry]) -> Result<Vec<Change>, AgentError> {
    validate(doc)?;
    for entry in entries {
        groups(doc, entry.event)?;
    }
    let mut changes = Vec::new();
    for entry in entries {
        let change = match inspect(doc, entry)? {
            EntryState::Current => Change::Unchanged,
            state => {
                remove(doc, entry.event, Some(entry.subcommand));
                if doc.get("hooks").is_none() {
                    doc.insert("hooks", Json::object());
                }
                if let Some(hooks) = doc.get_mut("hooks") {
                    match hooks.get_mut(entry.event.name()) {
                        Some(Json::Array(list)) => list.push(group(entry)),
                        _ => hooks.insert(entry.event.name(), Json::Array(vec![group(entry)])),
                    }
                }
                match state {
                    EntryState::Outdated(old) => Change::Updated(old),
                    _ => Change::Added,
                }
            }
        };
        changes.push(change);
    }
    Ok(changes)
}

/// Remove every handler of ours; an emptied `hooks` goes too. Returns how
/// many handlers were removed.
pub fn uninstall(doc: &mut Json) -> Result<usize, AgentError> {
    validate(doc)?;
    let events: Vec<String> = match doc.get("hooks") {
        Some(Json::Object(pairs)) => pairs.iter().map(|(k, _)| k.clone()).collect(),
        _ => Vec::new(),
    };
    let mut removed = 0;
    for name in events {
        for event in [Event::Stop, Event::SubagentStop, Event::PostToolUse] {
            if event.name() == name {
                removed += remove(doc, event, None);
            }
        }
    }
    if matches!(doc.get("hooks"), Some(Json::Object(p)) if p.is_empty()) && removed > 0 {
        doc.remove("hooks");
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIN: &str = "/opt/bin/mastermind-hooks";

    fn doc(text: &str) -> Json {
        Json::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn recognises_our_commands_only() {
        assert_eq!(
            ours("/x/mastermind-hooks agent-hook stop --harness codex"),
            Some(Subcommand::Stop)
        );
        assert_eq!(
            ours("'/a b/mastermind-hooks' agent-hook subagent"),
            Some(Subcommand::Subagent)
        );
        assert_eq!(
            ours("'/it'\\''s/mastermind-hooks' agent-hook stop"),
            Some(Subcommand::Stop)
        );
        assert_eq!(
            ours("\"/q/mastermind-hooks\" agent-hook stop"),
            Some(Subcommand::Stop)
        );
        assert_eq!(ours("mastermind-hooks check --worktree"), None);
        assert_eq!(ours("/x/other agent-hook stop"), None);
        assert_eq!(ours("echo mastermind-hooks agent-hook stop"), None);
        assert_eq!(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
        assert_eq!(shell_quote(BIN), BIN);
        let (program, _) = split_program(&shell_quote("/a b/it's")).unwrap();
        assert_eq!(program, "/a b/it's");
    }

    #[test]
    fn install_merges_keeps_others_and_is_idempotent() {
        let mut settings = doc(
            r#"{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}], "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}, "model": "x"}"#,
        );
        let entries = entries(Harness::ClaudeCode, BIN);
        let changes = install(&mut settings, &entries).unwrap();
        assert_eq!(changes, [Change::Added, Change::Added, Change::Added]);
        let text = settings.to_pretty();
        assert!(text.find("permissions").unwrap() < text.find("\"model\"").unwrap());
        assert!(text.contains("notify-send done") && text.contains("guard.sh"));
        assert!(text.contains(r#""matcher": "Agent|Task""#), "{text}");
        for entry in &entries {
            assert_eq!(inspect(&settings, entry).unwrap(), EntryState::Current);
        }
        let again = settings.clone();
        assert_eq!(
            install(&mut settings, &entries).unwrap(),
            [Change::Unchanged, Change::Unchanged, Change::Unchanged]
        );
        assert_eq!(settings, again);
        // Another binary: updated in place of the old entry.
        let moved = super::entries(Harness::ClaudeCode, "/new/mastermind-hooks");
        assert_eq!(
            inspect(&settings, &moved[0]).unwrap(),
            EntryState::Outdated(entries[0].command.clone())
        );
        let changes = install(&mut settings, &moved).unwrap();
        assert!(matches!(changes[0], Change::Updated(_)));
        assert_eq!(
            our_handlers(groups(&settings, Event::Stop).unwrap(), Subcommand::Stop).len(),
            1
        );
        // Uninstall restores the original document.
        assert_eq!(uninstall(&mut settings).unwrap(), 3);
        assert_eq!(
            settings,
            doc(
                r#"{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}], "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}, "model": "x"}"#
            )
        );
        assert_eq!(uninstall(&mut settings).unwrap(), 0);
    }

    #[test]
    fn install_into_nothing_and_back() {
        let mut settings = Json::object();
        install(&mut settings, &entries(Harness::Codex, BIN)).unwrap();
        assert!(settings.get("hooks").unwrap().get("PostToolUse").is_none());
        assert_eq!(uninstall(&mut settings).unwrap(), 2);
        assert_eq!(settings, Json::object());
    }

    #[test]
    fn refuses_shapes_it_cannot_edit() {
        for bad in [r#"[]"#, r#"{"hooks": []}"#, r#"{"hooks": {"Stop": {}}}"#] {
            let mut settings = doc(bad);
            assert!(
                install(&mut settings, &entries(Harness::ClaudeCode, BIN)).is_err(),
                "{bad}"
            );
            assert_eq!(settings, doc(bad), "nothing changed");
        }
    }
}
