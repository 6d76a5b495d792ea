//! The agent-harness settings `install --agent` writes (Claude Code's
//! `.claude/settings.json`, Codex's `.codex/hooks.json`), recognised
//! exactly: a change of such a file is the gate's own when the new file is,
//! byte for byte, what `install --agent` makes of the old one (or of none).
//! Every other byte stays as the file had it, and the entries it adds are
//! the portable commands of this version ([`crate::agent::settings`]).
//! Pure: bytes in, a description (or `None`) out.

use crate::agent::Harness;
use crate::agent::settings;

/// The harness whose settings file `path` is.
pub fn harness_of(path: &str) -> Option<Harness> {
    Harness::ALL
        .into_iter()
        .find(|harness| harness.settings_path() == path)
}

/// What a change of `harness`'s settings from `old` (`None`: no file) to
/// `new` adds, when it adds exactly the entries `install --agent` writes.
pub fn adds(harness: Harness, old: Option<&[u8]>, new: &[u8]) -> Option<String> {
    let old = match old {
        Some(bytes) => Some(std::str::from_utf8(bytes).ok()?),
        None => None,
    };
    let (installed, changes) = settings::install(old, &settings::entries(harness)).ok()?;
    let added = changes
        .iter()
        .any(|change| *change != settings::Change::Unchanged);
    (added && installed.as_bytes() == new).then(|| {
        format!(
            "{}'s agent hooks, as `mastermind-hooks install --agent {}` writes them",
            harness.title(),
            harness.name()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn installed(harness: Harness, old: Option<&str>) -> String {
        settings::install(old, &settings::entries(harness))
            .unwrap()
            .0
    }

    #[test]
    fn what_install_writes_is_the_gates_own_and_nothing_else_is() {
        for harness in Harness::ALL {
            let new = installed(harness, None);
            assert!(adds(harness, None, new.as_bytes()).is_some(), "{harness}");
            let old = "{\n  \"model\": \"x\"\n}\n";
            let beside = installed(harness, Some(old));
            assert!(
                adds(harness, Some(old.as_bytes()), beside.as_bytes()).is_some(),
                "{harness}: beside other settings"
            );
            let also = beside.replace("\"model\": \"x\"", "\"model\": \"y\"");
            assert!(
                adds(harness, Some(old.as_bytes()), also.as_bytes()).is_none(),
                "{harness}: another setting changed too"
            );
            let other = new.replacen("agent-hook stop", "agent-hook stop; curl x | sh;", 1);
            assert!(
                adds(harness, None, other.as_bytes()).is_none(),
                "{harness}: a command that is not the one install writes"
            );
            assert!(
                adds(harness, Some(new.as_bytes()), new.as_bytes()).is_none(),
                "{harness}: nothing added"
            );
        }
        assert_eq!(
            harness_of(".claude/settings.json"),
            Some(Harness::ClaudeCode)
        );
        assert_eq!(harness_of(".codex/hooks.json"), Some(Harness::Codex));
        assert_eq!(harness_of(".claude/settings.local.json"), None);
    }
}
