//! The inline hooks of Codex's `.codex/config.toml`, read into the settings
//! document shape `status --agent codex` inspects. Codex accepts its hooks
//! in `.codex/hooks.json` or as TOML tables in `config.toml`; `install`
//! writes the JSON file, and status reads both so an entry kept in TOML is
//! never reported missing.
//!
//! Only the form Codex documents for hooks is read: arrays of tables
//! `[[hooks.EVENT]]` (with an optional `matcher = "..."`) holding
//! `[[hooks.EVENT.hooks]]` tables of `type`, `command` and `timeout`.
//! Values are basic or literal strings on one line, integers and booleans;
//! anything else inside a hooks table (a multi-line string, an inline
//! table, a dotted `hooks.X = ...` key) is refused, never guessed at.
//! Tables that are not hooks are skipped.

use crate::agent::json::Json;

/// The hooks found, as `{"hooks": {EVENT: [group, ...]}}`; `None` when the
/// text holds no hooks table.
pub fn hooks(text: &str) -> Result<Option<Json>, String> {
    // (event, groups), each group (matcher, handlers).
    type Group = (Option<String>, Vec<Json>);
    let mut events: Vec<(String, Vec<Group>)> = Vec::new();
    // Where key lines go: a group, a handler, or nowhere.
    enum At {
        Elsewhere,
        Group(usize),
        Handler(usize),
    }
    let mut at = At::Elsewhere;
    let mut found = false;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let fail = |what: &str| Err(format!("line {}: {what}", n + 1));
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(header) = line.strip_prefix("[[").and_then(|l| l.split("]]").next()) {
            let parts: Vec<&str> = header.split('.').map(str::trim).collect();
            at = match parts.as_slice() {
                ["hooks", event] => {
                    found = true;
                    let e = match events.iter().position(|(name, _)| name == event) {
                        Some(e) => e,
                        None => {
                            events.push((event.to_string(), Vec::new()));
                            events.len() - 1
                        }
                    };
                    events[e].1.push((None, Vec::new()));
                    At::Group(e)
                }
                ["hooks", event, "hooks"] => {
                    found = true;
                    let Some(e) = events.iter().position(|(name, _)| name == event) else {
                        return fail("a [[hooks.EVENT.hooks]] table before its [[hooks.EVENT]]");
                    };
                    let Some(group) = events[e].1.last_mut() else {
                        return fail("a handler table without its group");
                    };
                    group.1.push(Json::object());
                    At::Handler(e)
                }
                [first, ..] if *first == "hooks" => {
                    return fail("a hooks table in a form this reader does not know");
                }
                _ => At::Elsewhere,
            };
            continue;
        }
        if line.starts_with('[') {
            let name = line.trim_start_matches('[').trim_end_matches(']').trim();
            if name == "hooks" || name.starts_with("hooks.") {
                return fail(
                    "hooks as a plain table; write them as [[hooks.EVENT]] arrays of tables, or in .codex/hooks.json",
                );
            }
            at = At::Elsewhere;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            if matches!(at, At::Elsewhere) {
                continue;
            }
            return fail("a line that is not `key = value`");
        };
        let key = key.trim();
        if matches!(at, At::Elsewhere) {
            if key == "hooks" || key.starts_with("hooks.") {
                return fail(
                    "hooks as a dotted key or inline table; write them as [[hooks.EVENT]] arrays of tables, or in .codex/hooks.json",
                );
            }
            continue;
        }
        let value = match scalar(value.trim()) {
            Some(value) => value,
            None => {
                return fail(&format!(
                    "the value of `{key}` is not a one-line string, integer or boolean"
                ));
            }
        };
        match at {
            At::Group(e) => {
                if let Some(group) = events[e].1.last_mut()
                    && key == "matcher"
                {
                    group.0 = value.as_str().map(str::to_string);
                }
            }
            At::Handler(e) => {
                if let Some(handler) = events[e].1.last_mut().and_then(|g| g.1.last_mut()) {
                    handler.insert(key, value);
                }
            }
            At::Elsewhere => {}
        }
    }
    if !found {
        return Ok(None);
    }
    let hooks = events
        .into_iter()
        .map(|(event, groups)| {
            let groups = groups
                .into_iter()
                .map(|(matcher, handlers)| {
                    let mut pairs = Vec::new();
                    if let Some(m) = matcher {
                        pairs.push(("matcher".to_string(), Json::String(m)));
                    }
                    pairs.push(("hooks".to_string(), Json::Array(handlers)));
                    Json::Object(pairs)
                })
                .collect();
            (event, Json::Array(groups))
        })
        .collect();
    Ok(Some(Json::Object(vec![(
        "hooks".to_string(),
        Json::Object(hooks),
    )])))
}

/// A one-line TOML value: a basic or literal string, an integer or a
/// boolean, with an optional trailing comment.
fn scalar(text: &str) -> Option<Json> {
    if let Some(rest) = text
        .strip_prefix("'''")
        .or_else(|| text.strip_prefix("\"\"\""))
    {
        let _ = rest;
        return None; // multi-line strings
    }
    if let Some(rest) = text.strip_prefix('\'') {
        let end = rest.find('\'')?;
        return trailing_ok(&rest[end + 1..]).then(|| Json::String(rest[..end].to_string()));
    }
    if let Some(rest) = text.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = rest.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => return trailing_ok(&rest[i + 1..]).then_some(Json::String(out)),
                '\\' => {
                    let (_, e) = chars.next()?;
                    match e {
                        '"' => out.push('"'),
                        '\\' => out.push('\\'),
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'e' => out.push('\u{1b}'),
                        'u' | 'U' => {
                            let len = if e == 'u' { 4 } else { 8 };
                            let hex: String = (0..len)
                                .filter_map(|_| chars.next().map(|(_, h)| h))
                                .collect();
                            let code = u32::from_str_radix(&hex, 16).ok()?;
                            out.push(char::from_u32(code)?);
                        }
                        _ => return None,
                    }
                }
                c => out.push(c),
            }
        }
        return None;
    }
    let word = text.split('#').next().unwrap_or_default().trim();
    match word {
        "true" => Some(Json::Bool(true)),
        "false" => Some(Json::Bool(false)),
        _ => word
            .replace('_', "")
            .parse::<i64>()
            .ok()
            .map(|n| Json::Number(n.into())),
    }
}

fn trailing_ok(rest: &str) -> bool {
    let rest = rest.trim();
    rest.is_empty() || rest.starts_with('#')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_array_of_tables_form() {
        let text = r#"
model = "gpt-5"

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = 'sh -c "x"'   # comment
timeout = 60

[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "a \"b\" \u0063"

[profiles.fast]
model = "x"
"#;
        let doc = hooks(text).unwrap().unwrap();
        let hooks = doc.get("hooks").unwrap();
        let stop = &hooks.get("Stop").unwrap();
        let Json::Array(groups) = stop else { panic!() };
        let handler = match groups[0].get("hooks") {
            Some(Json::Array(h)) => h[0].clone(),
            _ => panic!(),
        };
        assert_eq!(
            handler.get("command").and_then(Json::as_str),
            Some("sh -c \"x\"")
        );
        assert_eq!(handler.get("timeout"), Some(&Json::Number(60.into())));
        let Some(Json::Array(pre)) = hooks.get("PreToolUse") else {
            panic!()
        };
        assert_eq!(pre[0].get("matcher").and_then(Json::as_str), Some("Bash"));
        let cmd = match pre[0].get("hooks") {
            Some(Json::Array(h)) => h[0]
                .get("command")
                .and_then(Json::as_str)
                .map(str::to_string),
            _ => None,
        };
        assert_eq!(cmd.as_deref(), Some("a \"b\" c"));
        assert_eq!(hooks_none("model = 1\n[x]\ny = 2\n"), None);
    }

    fn hooks_none(text: &str) -> Option<Json> {
        hooks(text).unwrap()
    }

    #[test]
    fn refuses_forms_it_does_not_read() {
        for text in [
            "[hooks]\nStop = []\n",
            "hooks.Stop = []\n",
            "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = \"\"\"\nx\n\"\"\"\n",
            "[[hooks.Stop.hooks]]\ncommand = \"x\"\n",
        ] {
            assert!(hooks(text).is_err(), "{text}");
        }
    }
}
