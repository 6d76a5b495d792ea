//! Whether another hook manager's configuration runs the gate, so `status`
//! can say "git runs lefthook, which runs `mastermind-hooks check
//! --staged`" instead of a false `hook_not_installed`. Pure: the files'
//! texts in, a verdict per hook out; [`super::flow`] reads the files.
//!
//! What each manager runs for a hook, read from its own configuration:
//!
//! * pre-commit and prek: `.pre-commit-config.yaml` (or `.yml`): a hook
//!   `id: mastermind-hooks` (stages pre-commit and pre-merge-commit, as this
//!   repository's `.pre-commit-hooks.yaml` declares) or
//!   `mastermind-hooks-push` (stage pre-push), or a local hook whose `entry`
//!   runs the gate; a hook's `stages` (or the file's `default_stages`)
//!   narrow it, with the old stage names (`commit`, `push`, `merge-commit`)
//!   understood;
//! * lefthook: `lefthook.yml`, `lefthook.yaml`, `.lefthook.yml`,
//!   `.lefthook.yaml` and their `-local` files: a `commands` entry or `jobs`
//!   item under the hook whose `run` runs the gate (not `skip: true`);
//! * husky: the hook's file `.husky/<hook>`, a line that runs the gate;
//! * hk: `hk.pkl` (or `.config/hk.pkl`, `hk.local.pkl`): the block after
//!   `["<hook>"]` runs the gate.
//!
//! "Runs the gate" means the command names `mastermind-hooks` with the mode
//! that hook needs: `check --staged` before a commit or a merge commit,
//! `check --push` (or `check --ci`) before a push.

use super::Hook;
use super::managers::Manager;
use serde_json::Value;

/// A configuration file of a manager: its path (for messages) and text.
pub struct ConfigFile {
    pub path: String,
    pub text: String,
}

/// What a manager's configuration says about one hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It runs the gate: the command that does.
    RunsGate { config: String, command: String },
    /// The configuration was read and does not run the gate for this hook.
    DoesNotRun { config: String },
    /// No configuration file of the manager was found.
    NoConfig,
    /// A configuration file could not be read as the manager reads it.
    Unreadable { config: String, why: String },
}

/// pre-commit's and prek's configuration files.
pub const PRE_COMMIT_FILES: [&str; 2] = [".pre-commit-config.yaml", ".pre-commit-config.yml"];

/// lefthook's configuration files.
pub const LEFTHOOK_FILES: [&str; 8] = [
    "lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yml",
    ".lefthook.yaml",
    "lefthook-local.yml",
    "lefthook-local.yaml",
    ".lefthook-local.yml",
    ".lefthook-local.yaml",
];

/// The files each manager reads, relative to the working tree's top; for
/// husky, the hook's own file.
pub fn candidates(manager: Manager, hook: Hook) -> Vec<String> {
    match manager {
        Manager::PreCommit | Manager::Prek => PRE_COMMIT_FILES.map(String::from).to_vec(),
        Manager::Lefthook => LEFTHOOK_FILES.map(String::from).to_vec(),
        Manager::Husky => vec![format!(".husky/{}", hook.name())],
        Manager::Hk => vec![
            "hk.pkl".into(),
            ".config/hk.pkl".into(),
            "hk.local.pkl".into(),
        ],
    }
}

/// Whether a command line runs the gate in the mode `hook` needs.
pub fn runs_gate(hook: Hook, command: &str) -> bool {
    let Some(at) = command.find("mastermind-hooks") else {
        return false;
    };
    let rest = &command[at..];
    let has = |flag: &str| {
        rest.split(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            .any(|w| w == flag)
    };
    has("check")
        && match hook {
            Hook::PreCommit | Hook::PreMergeCommit => has("--staged"),
            Hook::PrePush => has("--push") || has("--ci"),
        }
}

/// Judge the configuration files found (in [`candidates`] order).
pub fn judge(manager: Manager, hook: Hook, files: &[ConfigFile]) -> Verdict {
    let mut last = Verdict::NoConfig;
    for file in files {
        let found = match manager {
            Manager::PreCommit | Manager::Prek => pre_commit(hook, &file.text),
            Manager::Lefthook => lefthook(hook, &file.text),
            Manager::Husky => Ok(lines(hook, &file.text)),
            Manager::Hk => Ok(hk(hook, &file.text)),
        };
        match found {
            Ok(Some(command)) => {
                return Verdict::RunsGate {
                    config: file.path.clone(),
                    command,
                };
            }
            Ok(None) => {
                last = Verdict::DoesNotRun {
                    config: file.path.clone(),
                }
            }
            Err(why) => {
                return Verdict::Unreadable {
                    config: file.path.clone(),
                    why: why.to_string(),
                };
            }
        }
    }
    last
}

fn yaml(text: &str) -> Result<Value, serde_saphyr::Error> {
    serde_saphyr::from_str::<Value>(text)
}

/// The stage names pre-commit accepts for a hook (new and old).
fn stage_names(hook: Hook) -> &'static [&'static str] {
    match hook {
        Hook::PreCommit => &["pre-commit", "commit"],
        Hook::PrePush => &["pre-push", "push"],
        Hook::PreMergeCommit => &["pre-merge-commit", "merge-commit"],
    }
}

fn pre_commit(hook: Hook, text: &str) -> Result<Option<String>, serde_saphyr::Error> {
    let doc = yaml(text)?;
    let strings = |v: Option<&Value>| -> Option<Vec<String>> {
        v.and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
    };
    let default_stages = strings(doc.get("default_stages"));
    for repo in doc
        .get("repos")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for h in repo
            .get("hooks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let id = h.get("id").and_then(Value::as_str).unwrap_or_default();
            let entry = h.get("entry").and_then(Value::as_str);
            let (runs, natural): (bool, &[Hook]) = match (id, entry) {
                (_, Some(entry)) => (runs_gate(hook, entry), &Hook::ALL),
                ("mastermind-hooks", None) => (true, &[Hook::PreCommit, Hook::PreMergeCommit]),
                ("mastermind-hooks-push", None) => (true, &[Hook::PrePush]),
                _ => (false, &[]),
            };
            if !runs {
                continue;
            }
            let stages = strings(h.get("stages")).or_else(|| default_stages.clone());
            let at_stage = match stages {
                Some(stages) => stages
                    .iter()
                    .any(|s| stage_names(hook).contains(&s.as_str())),
                None => natural.contains(&hook),
            };
            if at_stage {
                // This repository's hooks file runs exactly the gate.
                return Ok(Some(entry.map_or_else(
                    || format!("mastermind-hooks {}", hook.gate_command()),
                    str::to_string,
                )));
            }
        }
    }
    Ok(None)
}

fn lefthook(hook: Hook, text: &str) -> Result<Option<String>, serde_saphyr::Error> {
    let doc = yaml(text)?;
    let Some(section) = doc.get(hook.name()) else {
        return Ok(None);
    };
    let skipped = |v: &Value| v.get("skip").is_some_and(|s| s == &Value::Bool(true));
    let mut runs: Vec<&Value> = Vec::new();
    if let Some(Value::Object(commands)) = section.get("commands") {
        runs.extend(commands.values());
    }
    if let Some(Value::Array(jobs)) = section.get("jobs") {
        runs.extend(jobs.iter());
    }
    Ok(runs
        .into_iter()
        .filter(|v| !skipped(v))
        .filter_map(|v| v.get("run").and_then(Value::as_str))
        .find(|run| runs_gate(hook, run))
        .map(str::to_string))
}

/// A shell script (husky's hook file): a line that runs the gate.
fn lines(hook: Hook, text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .find(|l| runs_gate(hook, l))
        .map(str::to_string)
}

/// hk.pkl: the `{ ... }` block after `["<hook>"]`.
fn hk(hook: Hook, text: &str) -> Option<String> {
    let key = format!("[\"{}\"]", hook.name());
    let mut from = 0;
    while let Some(found) = text[from..].find(&key) {
        let start = from + found + key.len();
        from = start;
        let Some(open) = text[start..].find('{').map(|i| start + i) else {
            break;
        };
        let mut depth = 0;
        let mut end = text.len();
        for (i, c) in text[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let block = &text[open..end];
        if let Some(line) = block
            .split(['\n', ';'])
            .map(str::trim)
            .filter(|l| !l.starts_with("//"))
            .find(|l| runs_gate(hook, l))
        {
            return Some(line.to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::managers::{RECIPE_HK, RECIPE_HUSKY, RECIPE_LEFTHOOK, RECIPE_PRE_COMMIT};

    fn file(text: &str) -> Vec<ConfigFile> {
        vec![ConfigFile {
            path: "cfg".into(),
            text: text.into(),
        }]
    }

    fn runs(manager: Manager, hook: Hook, text: &str) -> bool {
        matches!(judge(manager, hook, &file(text)), Verdict::RunsGate { .. })
    }

    #[test]
    fn the_recipes_run_the_gate_at_every_hook_they_name() {
        for hook in Hook::ALL {
            assert!(runs(Manager::PreCommit, hook, RECIPE_PRE_COMMIT), "{hook}");
            assert!(runs(Manager::Lefthook, hook, RECIPE_LEFTHOOK), "{hook}");
        }
        assert!(runs(Manager::Hk, Hook::PreCommit, RECIPE_HK));
        assert!(
            !RECIPE_HK.contains("[\"pre-push\"]"),
            "the shim owns pre-push"
        );
        assert!(runs(
            Manager::Husky,
            Hook::PreCommit,
            "mastermind-hooks check --staged\n"
        ));
        assert!(runs(
            Manager::Husky,
            Hook::PrePush,
            "mastermind-hooks check --push \"$@\"\n"
        ));
        assert!(RECIPE_HUSKY.contains("mastermind-hooks check --staged"));
    }

    #[test]
    fn other_configurations_do_not() {
        let lint_only = "repos:\n  - repo: local\n    hooks:\n      - id: lint\n        entry: make lint\n        language: system\n";
        assert_eq!(
            judge(Manager::PreCommit, Hook::PreCommit, &file(lint_only)),
            Verdict::DoesNotRun {
                config: "cfg".into()
            }
        );
        let push_only =
            "repos:\n  - repo: x\n    rev: v1\n    hooks: [{ id: mastermind-hooks-push }]\n";
        assert!(!runs(Manager::PreCommit, Hook::PreCommit, push_only));
        assert!(runs(Manager::PreCommit, Hook::PrePush, push_only));
        let narrowed = "repos:\n  - repo: x\n    rev: v1\n    hooks: [{ id: mastermind-hooks, stages: [commit] }]\n";
        assert!(runs(Manager::PreCommit, Hook::PreCommit, narrowed));
        assert!(!runs(Manager::PreCommit, Hook::PreMergeCommit, narrowed));
        let skipped = "pre-commit:\n  commands:\n    gate:\n      run: mastermind-hooks check --staged\n      skip: true\n";
        assert!(!runs(Manager::Lefthook, Hook::PreCommit, skipped));
        // The wrong mode for the hook is not the gate.
        assert!(!runs(
            Manager::Husky,
            Hook::PrePush,
            "mastermind-hooks check --staged\n"
        ));
        assert!(!runs(
            Manager::Husky,
            Hook::PreCommit,
            "# mastermind-hooks check --staged\n"
        ));
        assert_eq!(judge(Manager::Hk, Hook::PreCommit, &[]), Verdict::NoConfig);
        assert!(matches!(
            judge(Manager::Lefthook, Hook::PreCommit, &file("pre-commit: [\n")),
            Verdict::Unreadable { .. }
        ));
    }
}
