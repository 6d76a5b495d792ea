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
//! **The command travels, and an answer is required.** The settings are
//! committed, so the command names no path on the installer's machine: it
//! is a POSIX `sh` script ([`command`]) that
//!
//! 1. reads the payload, then finds a binary that answers as
//!    mastermind-hooks speaking this protocol ([`PROTOCOL`]):
//!    `$MASTERMIND_HOOKS_BIN` (the per-user override) only when its
//!    `--version` says mastermind-hooks and `agent-hook handshake` names the
//!    protocol, else `mastermind-hooks` from PATH when its handshake does;
//!    a refused override is passed on to the binary, which names it in its
//!    decisions;
//! 2. runs `agent-hook SUB --harness H --protocol N` with the payload, and
//!    passes on its answer only when there is one: exit status 0 and a JSON
//!    object (the binary answers `{}` to allow). A missing, empty or
//!    malformed answer, or another exit status, is a failure the script
//!    reports itself;
//! 3. reports a failure, or the lack of a usable binary (missing, an older
//!    version: "upgrade", a foreign override), so that it never traps the
//!    agent: at `Stop` and `SubagentStop` it blocks (exit status 2, the
//!    reason on stderr) unless the harness says the stop already follows a
//!    block (`stop_hook_active`), then lets it go with a `systemMessage`
//!    the user sees; at Claude Code's `PostToolUse` it leaves a
//!    `systemMessage`; at `PreToolUse` a failure of a usable binary refuses
//!    the tool call, while without a usable binary only commands that write
//!    to git are refused, so a teammate can still install it.
//!
//! Exit status 2 is the status both harnesses treat as blocking (Claude
//! Code: "exit code 2: blocking error", stderr fed to the agent; Codex: a
//! `Stop`, `SubagentStop` or `PreToolUse` hook that exits 2 with a reason on
//! stderr blocks); any other failure status would let the agent go on
//! unchecked. Claude Code's entries also carry `"onFailure": "block"`, its
//! own fail-closed switch (Claude Code 2.1.295 and later: a hook that cannot
//! start, times out or exits with an unexpected status blocks instead of
//! letting the action through); Codex has none, and its timeout is a
//! non-blocking failure, so the binary keeps its own deadlines below the
//! timeout written here. The script is wrapped in `sh -c '...'`, holds no
//! single quote, and no backslash but in `\"` and `\n` (literal in single
//! quotes for POSIX shells and fish alike), so whichever shell the harness
//! runs the command with (Claude Code a POSIX shell, Codex the user's
//! `$SHELL -lc`) hands it to `sh` unchanged.

use super::json::Json;
use super::splice::{self, Node};
use super::{AgentError, Event, Harness, claude_code};
/// The harness timeout written for each entry, in seconds. The command's
/// own deadline (`agent-hook --timeout`, default [`DEFAULT_DEADLINE_SECS`])
/// stays below it, so the gate reports "could not check" itself instead of
/// being killed by the harness.
pub const HARNESS_TIMEOUT_SECS: u32 = 60;
pub const DEFAULT_DEADLINE_SECS: u32 = 45;
/// The pre-tool guard's own deadline: it runs before every shell command
/// and file edit, and refuses when it cannot answer in time.
pub const PRE_TOOL_DEADLINE_SECS: u32 = 10;

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
    /// The handler carries the harness's own fail-closed switch (Claude
    /// Code's `"onFailure": "block"`).
    pub fail_closed: bool,
}

/// The environment variable that names the binary for one user (the
/// per-user override of the PATH lookup).
pub const BIN_VAR: &str = "MASTERMIND_HOOKS_BIN";

/// How the command found the binary it runs (`PATH` or
/// `MASTERMIND_HOOKS_BIN`), for the binary to name in its decisions.
pub const VIA_VAR: &str = "MASTERMIND_HOOKS_VIA";

/// Why the command refused a binary before the one it runs (an override
/// that does not answer as mastermind-hooks, an older version), for the
/// binary to name in its decisions.
pub const REFUSED_VAR: &str = "MASTERMIND_HOOKS_REFUSED";

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

/// The agent-hook protocol the settings speak: the arguments the command
/// passes (`--protocol`), the answer it requires (a JSON object on exit
/// status 0, `{}` to allow) and the handshake (`agent-hook handshake`).
pub const PROTOCOL: u32 = 2;

/// What `agent-hook handshake` prints: the protocol a binary speaks.
pub fn handshake_line() -> String {
    format!("mastermind-hooks agent-hook protocol {PROTOCOL}")
}

/// The message for the agent and the user when no usable binary answered
/// (`$w` holds why) or when it failed (`$why`).
const INSTALL: &str = "Install mastermind-hooks so that it is on PATH (cargo install --locked --path . in a clone of mastermind-hooks, or a release binary), or set MASTERMIND_HOOKS_BIN to its path.";

/// The script's end for `Stop` and `SubagentStop` (and Claude Code's
/// `PostToolUse`): report `$m` without trapping the agent.
const BOUNDED: &str = "case \"$p\" in *hook_event_name???PostToolUse*|*hook_event_name????PostToolUse*) printf \"{\\\"systemMessage\\\": \\\"%s\\\"}\\n\" \"$m\"; exit 0;; esac; \
case \"$p\" in *stop_hook_active??true*|*stop_hook_active???true*) printf \"{\\\"systemMessage\\\": \\\"%s\\\"}\\n\" \"$m The agent was let stop after one reminder, unchecked.\"; exit 0;; esac; \
echo \"$m\" >&2; exit 2";

/// Commands that write to git, refused at `PreToolUse` while no usable
/// binary is there (read from the payload's text after `tool_input`).
const GIT_WRITES: &str = "*git*commit*|*git*push*|*git*merge*|*git*rebase*|*git*cherry-pick*|*git*revert*|*git*update-ref*|*git*fast-import*|*git*stash*|*git*reset*|*git*filter-branch*|*git*config*|*no-verify*|*hooksPath*|*.git/hooks*";

/// The portable, fail-closed command for `agent-hook SUB --harness H`.
pub fn command(harness: Harness, sub: Subcommand) -> String {
    let args = format!(
        "agent-hook {} --harness {} --protocol {PROTOCOL}",
        sub.name(),
        harness.name()
    );
    let handshake = handshake_line();
    let find = format!(
        "p=$(cat); w=; mh=; via=; o=${{{BIN_VAR}:-}}; \
speaks() {{ h=$(\"$1\" agent-hook handshake 2>/dev/null) || h=; [ \"$h\" = \"{handshake}\" ]; }}; \
says() {{ v=$(\"$1\" --version 2>/dev/null) || v=; case \"$v\" in \"mastermind-hooks \"*) w=\"$w $2 is $v, which does not speak agent-hook protocol {PROTOCOL} of these settings: upgrade it.\";; *) w=\"$w $2 does not answer as mastermind-hooks.\";; esac; }}; \
if [ -n \"$o\" ]; then if ! command -v \"$o\" >/dev/null 2>&1; then w=\"$w {BIN_VAR}=$o is not an executable.\"; \
else v=$(\"$o\" --version 2>/dev/null) || v=; case \"$v\" in \"mastermind-hooks \"*) if speaks \"$o\"; then mh=$o; via={BIN_VAR}; else says \"$o\" \"{BIN_VAR}=$o\"; fi;; \
*) w=\"$w {BIN_VAR}=$o does not answer as mastermind-hooks, so it is not used.\";; esac; fi; fi; \
if [ -z \"$mh\" ]; then if ! command -v mastermind-hooks >/dev/null 2>&1; then w=\"$w mastermind-hooks is not on PATH.\"; \
elif speaks mastermind-hooks; then mh=mastermind-hooks; via=PATH; else says mastermind-hooks \"mastermind-hooks on PATH\"; fi; fi; "
    );
    // Without a binary, PreToolUse looks for git writes in the command: the
    // text after `tool_input`, cut at the keys that follow it, matched with
    // their quotes and the comma before them (inside the command's JSON
    // string a quote is escaped, so a command that spells a key cannot cut
    // itself short).
    let (missing, failed) = match sub {
        Subcommand::PreTool => (
            format!(
                "m=\"mastermind-hooks cannot guard this tool call here:$w {INSTALL} Until then, commands that write to git are refused; everything else runs.\"; \
case \"$p\" in *tool_name???Bash*|*tool_name????Bash*) ;; *) exit 0;; esac; \
c=${{p#*tool_input}}; c=${{c%, \\\"tool_use_id\\\"*}}; c=${{c%,\\\"tool_use_id\\\"*}}; c=${{c%, \\\"description\\\"*}}; c=${{c%,\\\"description\\\"*}}; \
case \"$c\" in {GIT_WRITES}) echo \"$m\" >&2; exit 2;; esac; exit 0"
            ),
            "echo \"$m\" >&2; exit 2".to_string(),
        ),
        _ => (
            format!("m=\"mastermind-hooks cannot check this work here:$w {INSTALL}\"; {BOUNDED}"),
            BOUNDED.to_string(),
        ),
    };
    format!(
        "sh -c '{find}\
if [ -z \"$mh\" ]; then {missing}; fi; \
out=$(printf \"%s\" \"$p\" | {VIA_VAR}=$via {REFUSED_VAR}=\"$w\" \"$mh\" {args}); s=$?; \
if [ \"$s\" = 0 ]; then case \"$out\" in \"{{\"*\"}}\") printf \"%s\\n\" \"$out\"; exit 0;; esac; why=\"gave no answer (an empty or malformed reply)\"; \
else why=\"failed with exit status $s\"; fi; \
m=\"mastermind-hooks {args} ($mh, from $via) $why, so nothing was checked.$w\"; {failed}'"
    )
}

/// The entries for `harness`.
pub fn entries(harness: Harness) -> Vec<Entry> {
    let entry = |event, matcher, subcommand| Entry {
        event,
        matcher,
        subcommand,
        command: command(harness, subcommand),
        fail_closed: harness == Harness::ClaudeCode,
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
    let tools = match harness {
        Harness::ClaudeCode => super::CLAUDE_CODE_TOOLS,
        Harness::Codex => super::CODEX_TOOLS,
    };
    list.push(entry(Event::PreToolUse, Some(tools), Subcommand::PreTool));
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
    let mut pairs = vec![
        ("type".into(), Json::str("command")),
        ("command".into(), Json::str(&entry.command)),
        ("timeout".into(), Json::Number(HARNESS_TIMEOUT_SECS.into())),
    ];
    if entry.fail_closed {
        pairs.push(("onFailure".into(), Json::str("block")));
    }
    Json::Object(pairs)
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
        assert!(!script.contains('\''), "{script}");
        // Backslashes only where POSIX shells and fish both keep them in
        // single quotes: `\"` and `\n`.
        for (at, _) in script.match_indices('\\') {
            let next = script[at + 1..].chars().next();
            assert!(matches!(next, Some('"' | 'n')), "{}", &script[at..]);
        }
        assert!(script.contains("exit 2"));
        assert!(!cmd.contains("/usr/") && !cmd.contains("/home/"));
    }

    #[test]
    fn every_command_is_a_valid_sh_script() {
        for harness in Harness::ALL {
            for sub in Subcommand::ALL {
                let words = shlex::split(&command(harness, sub)).unwrap();
                let checked = std::process::Command::new("sh")
                    .args(["-n", "-c", &words[2]])
                    .output()
                    .unwrap();
                assert!(
                    checked.status.success(),
                    "{harness} {}: {}",
                    sub.name(),
                    String::from_utf8_lossy(&checked.stderr)
                );
            }
        }
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
