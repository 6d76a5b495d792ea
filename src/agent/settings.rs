//! The agent hook entries in a harness's hook settings, and the pure edits
//! `install --agent` and `uninstall --agent` make to them.
//!
//! Both harnesses use one shape (Claude Code's `.claude/settings.json`,
//! Codex's `.codex/hooks.json`): `hooks` maps an event name to a list of
//! matcher groups, each `{"matcher"?: ..., "hooks": [handler, ...]}`, and a
//! command handler is `{"type": "command", "command": ..., "timeout": ...}`
//! (timeout in seconds). An entry is ours when its command runs
//! `mastermind-hooks agent-hook stop|subagent|pre-tool`; everything else in
//! the file is left exactly as it was, byte for byte ([`super::splice`]).
//!
//! **The command travels.** The settings are committed, so the command
//! names no path on the installer's machine: it is a POSIX `sh` script that
//! runs `$MASTERMIND_HOOKS_BIN` when set (the per-user override), else
//! `mastermind-hooks` from PATH, and **fails closed**: when neither can run,
//! or the binary dies without an answer, it exits 2 with a message saying how
//! to install it. Exit status 2 is the status both harnesses treat as
//! blocking (Claude Code: "exit code 2: blocking error", stderr fed to the
//! agent; Codex: a `Stop`, `SubagentStop` or `PreToolUse` hook that exits 2
//! with a reason on stderr blocks); any other failure status would let the
//! agent go on unchecked. The script is wrapped in `sh -c '...'` and holds
//! no single quote or backslash, so whichever shell the harness uses to run
//! the command (Claude Code a POSIX shell, Codex the user's `$SHELL -lc`)
//! hands it to `sh` unchanged.

use super::json::Json;
use super::splice::{self, Node};
use super::{AgentError, Event, Harness, claude_code};
/// The harness timeout written for each entry, in seconds. The command's
/// own deadline (`agent-hook --timeout`, default [`DEFAULT_DEADLINE_SECS`])
/// stays below it, so the gate reports "could not check" itself instead of
/// being killed by the harness.
pub const HARNESS_TIMEOUT_SECS: u32 = 60;
pub const DEFAULT_DEADLINE_SECS: u32 = 45;

/// The agent-hook subcommands an entry runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subcommand {
    Stop,
    Subagent,
    PreTool,
}

impl Subcommand {
    pub const ALL: [Subcommand; 3] = [Subcommand::Stop, Subcommand::Subagent, Subcommand::PreTool];

    pub fn name(self) -> &'static str {
        match self {
            Subcommand::Stop => "stop",
            Subcommand::Subagent => "subagent",
            Subcommand::PreTool => "pre-tool",
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

/// The environment variable that names the binary for one user (the
/// per-user override of the PATH lookup).
pub const BIN_VAR: &str = "MASTERMIND_HOOKS_BIN";

/// The matcher of the pre-tool guard: the shell tool of both harnesses.
pub const SHELL_MATCHER: &str = "Bash";

/// Quote a word for a POSIX shell.
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

/// The portable, fail-closed command for `agent-hook SUB --harness H`.
pub fn command(harness: Harness, sub: Subcommand) -> String {
    let args = format!("agent-hook {} --harness {}", sub.name(), harness.name());
    format!(
        "sh -c 'mh=\"${{{BIN_VAR}:-mastermind-hooks}}\"; \
         command -v \"$mh\" >/dev/null 2>&1 || {{ echo \"mastermind-hooks is not installed here, so the agent hooks cannot check this work: $mh was not found on PATH. Install it (cargo install --locked --path . in a clone of mastermind-hooks) or set {BIN_VAR} to its path, then try again.\" >&2; exit 2; }}; \
         \"$mh\" {args}; s=$?; [ \"$s\" = 0 ] || [ \"$s\" = 2 ] || {{ echo \"mastermind-hooks {args} failed with exit status $s; nothing was checked.\" >&2; exit 2; }}; exit \"$s\"'"
    )
}

/// The entries for `harness`.
pub fn entries(harness: Harness) -> Vec<Entry> {
    let entry = |event, matcher, subcommand| Entry {
        event,
        matcher,
        subcommand,
        command: command(harness, subcommand),
    };
    let mut list = vec![
        entry(Event::Stop, None, Subcommand::Stop),
        entry(Event::SubagentStop, None, Subcommand::Subagent),
    ];
    if harness == Harness::ClaudeCode {
        list.push(entry(
            Event::PostToolUse,
            Some(claude_code::SUBAGENT_MATCHER),
            Subcommand::Subagent,
        ));
    }
    list.push(entry(
        Event::PreToolUse,
        Some(SHELL_MATCHER),
        Subcommand::PreTool,
    ));
    list
}

/// The subcommand `agent-hook SUB` named in `words`, if any.
fn agent_hook_in<'a>(words: impl Iterator<Item = &'a str>) -> Option<Subcommand> {
    let words: Vec<&str> = words.collect();
    words.windows(2).find_map(|pair| {
        (pair[0] == "agent-hook")
            .then(|| {
                Subcommand::ALL
                    .into_iter()
                    .find(|sub| sub.name() == pair[1].trim_end_matches(';'))
            })
            .flatten()
    })
}

/// Whether a handler command is one of ours, and which: the portable
/// wrapper this version writes, or an older entry that names the binary by
/// path (`/usr/local/bin/mastermind-hooks agent-hook stop ...`).
pub fn ours(command: &str) -> Option<Subcommand> {
    let words = shlex::split(command)?;
    let program = words.first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    if name == "mastermind-hooks" {
        return agent_hook_in(words[1..].iter().map(String::as_str))
            .filter(|_| words.get(1).map(String::as_str) == Some("agent-hook"));
    }
    if name == "sh" && words.get(1).map(String::as_str) == Some("-c") {
        let script = words.get(2)?;
        if !script.contains(BIN_VAR) && !script.contains("mastermind-hooks") {
            return None;
        }
        return agent_hook_in(script.split_whitespace());
    }
    None
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

/// What install did for one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Unchanged,
    Added,
    Updated(String),
}

fn rescan(text: &str) -> Result<(Json, Node), AgentError> {
    let doc = Json::parse(text.as_bytes())?;
    validate(&doc)?;
    let root =
        splice::scan(text).map_err(|_| problem("(document)", "not JSON this tool can edit"))?;
    Ok((doc, root))
}

/// Remove one handler of ours running `sub` (any when `None`) from
/// `event`, with the group, the event and `hooks` when they are left
/// empty. `None` when there is none.
fn remove_one(
    text: &str,
    event: Event,
    sub: Option<Subcommand>,
) -> Result<Option<String>, AgentError> {
    let (_, root) = rescan(text)?;
    let Some((_, hooks)) = root.member("hooks") else {
        return Ok(None);
    };
    let Some((_, list)) = hooks.member(event.name()) else {
        return Ok(None);
    };
    let source = |n: &Node| Json::parse(&text.as_bytes()[n.start..n.end]).ok();
    for (gi, g) in list.items().iter().enumerate() {
        let Some((_, handlers)) = g.member("hooks") else {
            continue;
        };
        for (hi, h) in handlers.items().iter().enumerate() {
            let mine =
                source(h).and_then(|v| v.get("command").and_then(Json::as_str).and_then(ours));
            if mine.is_none() || (sub.is_some() && mine != sub) {
                continue;
            }
            // The innermost container that does not become empty loses
            // the child; an emptied one goes with its parent.
            let text = if handlers.items().len() > 1 {
                splice::remove(text, handlers, hi)
            } else if list.items().len() > 1 {
                splice::remove(text, list, gi)
            } else {
                let index = member_index(hooks, event.name());
                match (member_count(hooks), member_index(&root, "hooks")) {
                    (1, Some(at)) => splice::remove(text, &root, at),
                    _ => match index {
                        Some(at) => splice::remove(text, hooks, at),
                        None => return Ok(None),
                    },
                }
            };
            return Ok(Some(text));
        }
    }
    Ok(None)
}

fn member_index(node: &Node, key: &str) -> Option<usize> {
    match &node.kind {
        splice::Kind::Object(members) => members.iter().position(|(k, _, _)| k == key),
        _ => None,
    }
}

fn member_count(node: &Node) -> usize {
    match &node.kind {
        splice::Kind::Object(members) => members.len(),
        _ => 0,
    }
}

/// Add `entry` at the end of its event's list (making the list and
/// `hooks` when missing).
fn add(text: &str, entry: &Entry) -> Result<String, AgentError> {
    let (_, root) = rescan(text)?;
    let group = group(entry);
    Ok(match root.member("hooks") {
        None => splice::append(
            text,
            &root,
            Some("hooks"),
            &Json::Object(vec![(entry.event.name().into(), Json::Array(vec![group]))]),
        ),
        Some((_, hooks)) => match hooks.member(entry.event.name()) {
            None => splice::append(
                text,
                hooks,
                Some(entry.event.name()),
                &Json::Array(vec![group]),
            ),
            Some((_, list)) => splice::append(text, list, None, &group),
        },
    })
}

/// Add or update `entries` in the settings `text` (`None`: no file yet).
/// Nothing else changes, byte for byte; an entry that is already current
/// stays where it is.
pub fn install(text: Option<&str>, entries: &[Entry]) -> Result<(String, Vec<Change>), AgentError> {
    let mut text = text.unwrap_or("{}\n").to_string();
    let (doc, _) = rescan(&text)?;
    for entry in entries {
        groups(&doc, entry.event)?;
    }
    let mut changes = Vec::new();
    for entry in entries {
        let (doc, _) = rescan(&text)?;
        let change = match inspect(&doc, entry)? {
            EntryState::Current => Change::Unchanged,
            state => {
                while let Some(removed) = remove_one(&text, entry.event, Some(entry.subcommand))? {
                    text = removed;
                }
                text = add(&text, entry)?;
                match state {
                    EntryState::Outdated(old) => Change::Updated(old),
                    _ => Change::Added,
                }
            }
        };
        changes.push(change);
    }
    Ok((text, changes))
}

/// Remove every handler of ours from the settings `text`. Returns the new
/// text and how many handlers were removed; removing what [`install`] added
/// gives back the bytes it started from.
pub fn uninstall(text: &str) -> Result<(String, usize), AgentError> {
    let (doc, _) = rescan(text)?;
    let mut text = text.to_string();
    let mut removed = 0;
    for event in Event::ALL {
        groups(&doc, event)?;
        while let Some(next) = remove_one(&text, event, None)? {
            text = next;
            removed += 1;
        }
    }
    Ok((text, removed))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "/opt/bin/mastermind-hooks agent-hook stop --harness claude-code";

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
        for harness in Harness::ALL {
            for sub in Subcommand::ALL {
                assert_eq!(ours(&command(harness, sub)), Some(sub));
            }
        }
        assert_eq!(ours("mastermind-hooks check --worktree"), None);
        assert_eq!(ours("/x/other agent-hook stop"), None);
        assert_eq!(ours("echo mastermind-hooks agent-hook stop"), None);
        assert_eq!(ours("sh -c 'other agent-hook stop'"), None);
        assert_eq!(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
    }

    #[test]
    fn the_command_names_no_path_and_is_one_sh_word() {
        let cmd = command(Harness::Codex, Subcommand::Stop);
        let words = shlex::split(&cmd).unwrap();
        assert_eq!(words[..2], ["sh", "-c"]);
        assert_eq!(words.len(), 3, "{cmd}");
        let script = &words[2];
        assert!(!script.contains('\'') && !script.contains('\\'), "{script}");
        assert!(script.contains("exit 2"));
        assert!(!cmd.contains("/usr/") && !cmd.contains("/home/"));
    }

    const THEIRS: &str = "{\n    \"permissions\": {\"allow\": [\"Bash(ls)\"]},\n    \"hooks\": {\n        \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}],\n        \"PreToolUse\": [\n            {\n                \"matcher\": \"Bash\",\n                \"hooks\": [{\"type\": \"command\", \"command\": \"guard.sh\"}]\n            }\n        ]\n    },\n    \"model\": \"x\"\n}";

    #[test]
    fn install_merges_keeps_others_and_uninstall_restores_the_bytes() {
        let entries = entries(Harness::ClaudeCode);
        let (text, changes) = install(Some(THEIRS), &entries).unwrap();
        assert_eq!(
            changes,
            [Change::Added, Change::Added, Change::Added, Change::Added]
        );
        assert!(text.find("permissions").unwrap() < text.find("\"model\"").unwrap());
        assert!(text.contains("notify-send done") && text.contains("guard.sh"));
        assert!(text.contains(r#""matcher": "Agent|Task""#), "{text}");
        let doc = Json::parse(text.as_bytes()).unwrap();
        for entry in &entries {
            assert_eq!(inspect(&doc, entry).unwrap(), EntryState::Current);
        }
        // Again (a teammate's clone): nothing changes.
        let (again, changes) = install(Some(&text), &entries).unwrap();
        assert_eq!(changes, vec![Change::Unchanged; 4]);
        assert_eq!(again, text);
        let (back, removed) = uninstall(&text).unwrap();
        assert_eq!(removed, 4);
        assert_eq!(back, THEIRS);
        assert_eq!(uninstall(&back).unwrap(), (THEIRS.to_string(), 0));
    }

    #[test]
    fn an_old_entry_that_names_a_path_is_replaced_in_place() {
        let old = format!(
            "{{\n  \"hooks\": {{\n    \"Stop\": [\n      {{\n        \"hooks\": [\n          {{\n            \"type\": \"command\",\n            \"command\": \"{OLD}\",\n            \"timeout\": 60\n          }}\n        ]\n      }}\n    ]\n  }}\n}}\n"
        );
        let entries = entries(Harness::ClaudeCode);
        let doc = Json::parse(old.as_bytes()).unwrap();
        assert_eq!(
            inspect(&doc, &entries[0]).unwrap(),
            EntryState::Outdated(OLD.into())
        );
        let (text, changes) = install(Some(&old), &entries).unwrap();
        assert_eq!(changes[0], Change::Updated(OLD.into()));
        let doc = Json::parse(text.as_bytes()).unwrap();
        assert_eq!(
            our_handlers(groups(&doc, Event::Stop).unwrap(), Subcommand::Stop).len(),
            1
        );
        assert!(!text.contains("/opt/bin"), "{text}");
    }

    #[test]
    fn install_into_nothing_and_back() {
        let (text, _) = install(None, &entries(Harness::Codex)).unwrap();
        let doc = Json::parse(text.as_bytes()).unwrap();
        assert!(doc.get("hooks").unwrap().get("PostToolUse").is_none());
        assert!(doc.get("hooks").unwrap().get("PreToolUse").is_some());
        assert_eq!(uninstall(&text).unwrap(), ("{}\n".to_string(), 3));
    }

    #[test]
    fn refuses_shapes_it_cannot_edit() {
        for bad in [r#"[]"#, r#"{"hooks": []}"#, r#"{"hooks": {"Stop": {}}}"#] {
            assert!(
                install(Some(bad), &entries(Harness::ClaudeCode)).is_err(),
                "{bad}"
            );
        }
    }
}
