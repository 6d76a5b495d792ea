//! Which binary answered an agent hook, how the settings' command found it,
//! and where a per-user override (`MASTERMIND_HOOKS_BIN`) comes from: every
//! decision names them, so an override that answers for the gate is never
//! silent, and `status --agent` shows the same facts before the harness
//! runs.
//!
//! The override is looked for where each harness takes environment from:
//! Claude Code's settings files (`env` in `.claude/settings.local.json`,
//! `.claude/settings.json`, `~/.claude/settings.json`, the managed
//! settings), and for both harnesses the shell profiles a login shell reads
//! (Codex runs hooks through `$SHELL -lc`). Files are read bounded, without
//! following a link and without blocking on a FIFO.

use super::Harness;
use super::settings::{BIN_VAR, REFUSED_VAR, VIA_VAR};
use std::path::{Path, PathBuf};

/// Bytes of a settings file or profile read to find the override.
const MAX_READ: usize = 1024 * 1024;

/// Shell profiles a login shell (or an interactive one) reads, under home.
const PROFILES: &[&str] = &[
    ".profile",
    ".bash_profile",
    ".bash_login",
    ".bashrc",
    ".zshenv",
    ".zprofile",
    ".zshrc",
    ".zlogin",
    ".config/fish/config.fish",
];

/// The binary that answers, and how it was found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    /// This binary's version.
    pub version: String,
    /// This binary's path.
    pub binary: Option<PathBuf>,
    /// How the settings' command found it (`PATH`, `MASTERMIND_HOOKS_BIN`);
    /// `None` when it was run directly.
    pub via: Option<String>,
    /// The override the harness passed, when it did.
    pub override_value: Option<String>,
    /// Where that override is set.
    pub override_source: Option<String>,
    /// What the settings' command refused before this binary.
    pub refused: Option<String>,
}

impl Provenance {
    /// This process's provenance: the environment the settings' command
    /// passed, and where the override is set for `harness` around the
    /// project `root`.
    pub fn of_process(harness: Harness, root: Option<&Path>) -> Provenance {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let override_value = var(BIN_VAR);
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let override_source = override_value
            .as_deref()
            .map(|value| override_source(harness, value, root, home.as_deref()));
        Provenance {
            version: env!("CARGO_PKG_VERSION").to_string(),
            binary: std::env::current_exe().ok(),
            via: var(VIA_VAR),
            override_value,
            override_source,
            refused: var(REFUSED_VAR),
        }
    }

    /// The line a decision ends with.
    pub fn line(&self) -> String {
        let binary = self
            .binary
            .as_ref()
            .map_or_else(|| "(path unknown)".to_string(), |p| p.display().to_string());
        let found = match (self.via.as_deref(), &self.override_value) {
            (Some(via), Some(value)) if via == BIN_VAR => format!(
                "found through {BIN_VAR}={value}, {}",
                self.override_source
                    .as_deref()
                    .unwrap_or("set in the harness's environment")
            ),
            (Some("PATH"), _) => "found on PATH".to_string(),
            (Some(other), _) => format!("found through {other}"),
            (None, _) => "run directly, not through the settings' command".to_string(),
        };
        let mut line = format!(
            "(answered by mastermind-hooks {} at {binary}, {found}",
            self.version
        );
        if let (Some(refused), Some(source)) = (&self.refused, &self.override_source) {
            line.push_str(&format!("; refused: {refused} ({BIN_VAR} is {source})"));
        } else if let Some(refused) = &self.refused {
            line.push_str(&format!("; refused: {refused}"));
        }
        line.push(')');
        line
    }
}

fn read_text(path: &Path) -> Option<String> {
    crate::input::read_bounded_no_follow(path, MAX_READ)
        .ok()
        .filter(|bytes| bytes.len() <= MAX_READ)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// Where `MASTERMIND_HOOKS_BIN=value` comes from, for `harness`: the
/// settings file or profiles that set it, else the environment the harness
/// was started with.
pub fn override_source(
    harness: Harness,
    value: &str,
    root: Option<&Path>,
    home: Option<&Path>,
) -> String {
    let mut found: Vec<String> = Vec::new();
    if harness == Harness::ClaudeCode {
        let mut files: Vec<PathBuf> = Vec::new();
        if let Some(root) = root {
            files.push(root.join(".claude/settings.local.json"));
            files.push(root.join(".claude/settings.json"));
        }
        if let Some(home) = home {
            files.push(home.join(".claude/settings.json"));
        }
        files.push(PathBuf::from("/etc/claude-code/managed-settings.json"));
        for file in files {
            if settings_env(&file).as_deref() == Some(value) {
                found.push(file.display().to_string());
            }
        }
    }
    if let Some(home) = home {
        for profile in PROFILES {
            let path = home.join(profile);
            if read_text(&path).is_some_and(|text| text.contains(BIN_VAR)) {
                found.push(path.display().to_string());
            }
        }
    }
    if found.is_empty() {
        format!(
            "set in the environment {} was started with",
            harness.title()
        )
    } else {
        format!("set in {}", found.join(" and "))
    }
}

/// The `env.MASTERMIND_HOOKS_BIN` a Claude Code settings file sets.
pub fn settings_env(path: &Path) -> Option<String> {
    let text = read_text(path)?;
    let doc: serde_json::Value = serde_json::from_str(&text).ok()?;
    doc.get("env")?.get(BIN_VAR)?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_where_the_override_is_set() {
        let root = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join(".claude")).unwrap();
        std::fs::write(
            root.path().join(".claude/settings.local.json"),
            r#"{"env": {"MASTERMIND_HOOKS_BIN": "/bin/true"}}"#,
        )
        .unwrap();
        let source = override_source(
            Harness::ClaudeCode,
            "/bin/true",
            Some(root.path()),
            Some(home.path()),
        );
        assert!(source.contains("settings.local.json"), "{source}");
        std::fs::write(
            home.path().join(".profile"),
            "export MASTERMIND_HOOKS_BIN=/opt/mh\n",
        )
        .unwrap();
        let source = override_source(Harness::Codex, "/opt/mh", None, Some(home.path()));
        assert!(source.ends_with(".profile"), "{source}");
        let nowhere = override_source(Harness::Codex, "/x", None, None);
        assert_eq!(nowhere, "set in the environment Codex was started with");
    }

    #[test]
    fn the_line_names_binary_route_and_refusals() {
        let p = Provenance {
            version: "9.9.9".into(),
            binary: Some(PathBuf::from("/opt/mh")),
            via: Some(BIN_VAR.into()),
            override_value: Some("/opt/mh".into()),
            override_source: Some("set in /r/.claude/settings.local.json".into()),
            refused: None,
        };
        assert_eq!(
            p.line(),
            "(answered by mastermind-hooks 9.9.9 at /opt/mh, found through MASTERMIND_HOOKS_BIN=/opt/mh, set in /r/.claude/settings.local.json)"
        );
        let refused = Provenance {
            via: Some("PATH".into()),
            override_value: Some("/bin/true".into()),
            refused: Some("MASTERMIND_HOOKS_BIN=/bin/true does not answer as mastermind-hooks, so it is not used.".into()),
            ..p
        };
        let line = refused.line();
        assert!(line.contains("found on PATH"), "{line}");
        assert!(
            line.contains("refused: MASTERMIND_HOOKS_BIN=/bin/true does not answer"),
            "{line}"
        );
        assert!(line.contains("settings.local.json"), "{line}");
    }
}
