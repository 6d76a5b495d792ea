//! Hook-manager lines that run the gate, recognised exactly: a change of a
//! manager's configuration is the gate's own when taking the gate's entries
//! out of the file before and after leaves the same thing. Pure: bytes in,
//! a description of what the change adds (or `None`) out.
//!
//! The entries are the ones the recipes `install` prints for each manager
//! (docs/src/hooks.md) and nothing looser, so an entry that runs anything
//! else is never taken for the gate's:
//!
//! * pre-commit and prek (`.pre-commit-config.yaml`, `.yml`): a repository
//!   entry whose URL names a `mastermind-hooks` repository, with only
//!   `repo`, `rev` and `hooks`, each hook only `id` (`mastermind-hooks`,
//!   `mastermind-hooks-push`) and `stages`; or, in a `repo: local` entry, a
//!   hook of `language: system` whose `entry` is the gate's command;
//! * lefthook (`lefthook.yml` and its other names): a job or command of a
//!   git hook whose `run` is the gate's command for that hook, with only
//!   `name` and `use_stdin` besides;
//! * husky (`.husky/pre-commit`, `pre-merge-commit`, `pre-push`): the gate's
//!   command line for that hook; blank and comment lines may come with it
//!   (a first `#!` line is no comment).
//!
//! Files are parsed by the strict YAML layer (duplicate keys, tags and
//! anchors that would make two readers disagree fail, and a file that does
//! not parse is never the gate's). hk's `hk.pkl` is a program, not data: it
//! is judged as usual.

use crate::contract::yaml;
use crate::install::manager_config::{LEFTHOOK_FILES, PRE_COMMIT_FILES};
use serde_json::{Map, Value};

/// The gate's command before a commit or a merge commit.
pub const STAGED: &str = "mastermind-hooks check --staged";
/// The gate's command in lefthook's pre-push job (`{1} {2}`: the remote's
/// name and URL).
pub const LEFTHOOK_PUSH: &str = "mastermind-hooks check --push {1} {2}";
/// The gate's command in husky's pre-push file.
pub const HUSKY_PUSH: &str = "mastermind-hooks check --push \"$@\"";

/// The git hooks a manager runs the gate for.
const HOOKS: [&str; 3] = ["pre-commit", "pre-merge-commit", "pre-push"];

/// The git hook a husky file is for (`.husky/pre-push` is `pre-push`).
pub fn husky_hook(path: &str) -> Option<&'static str> {
    let name = path.strip_prefix(".husky/")?;
    HOOKS.into_iter().find(|hook| *hook == name)
}

/// The gate's command for `hook` in a lefthook job.
fn lefthook_command(hook: &str) -> &'static str {
    if hook == "pre-push" {
        LEFTHOOK_PUSH
    } else {
        STAGED
    }
}

fn parse(bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    yaml::parse_strict_keeping_nulls(text)
        .ok()
        .map(|(_, value)| value)
}

fn only_keys(object: &Map<String, Value>, allowed: &[&str]) -> bool {
    object.keys().all(|key| allowed.contains(&key.as_str()))
}

fn strings(value: Option<&Value>) -> bool {
    value.is_none_or(|v| {
        v.as_array()
            .is_some_and(|items| items.iter().all(Value::is_string))
    })
}

/// A repository URL that names a `mastermind-hooks` repository.
fn names_the_gate(url: &str) -> bool {
    let trimmed = url.trim_end_matches('/');
    let last = trimmed.rsplit(['/', ':']).next().unwrap_or(trimmed);
    last.strip_suffix(".git").unwrap_or(last) == "mastermind-hooks"
}

/// A hook of a `mastermind-hooks` repository entry that is the gate's.
fn gate_id_hook(hook: &Value) -> bool {
    let Some(object) = hook.as_object() else {
        return false;
    };
    only_keys(object, &["id", "stages"])
        && matches!(
            object.get("id").and_then(Value::as_str),
            Some("mastermind-hooks" | "mastermind-hooks-push")
        )
        && strings(object.get("stages"))
}

/// A hook of a `repo: local` entry that runs the gate from PATH.
fn gate_local_hook(hook: &Value) -> bool {
    let Some(object) = hook.as_object() else {
        return false;
    };
    let entry = object.get("entry").and_then(Value::as_str);
    only_keys(
        object,
        &[
            "id",
            "name",
            "entry",
            "language",
            "stages",
            "pass_filenames",
            "always_run",
            "require_serial",
        ],
    ) && object.get("id").is_some_and(Value::is_string)
        && object.get("language").and_then(Value::as_str) == Some("system")
        && matches!(
            entry,
            Some("mastermind-hooks check --staged" | "mastermind-hooks check --push")
        )
        && strings(object.get("stages"))
}

/// A pre-commit configuration without the gate's entries: its hooks taken
/// out, and a repository entry left with no hook taken out with them. `None`:
/// not a configuration this can read.
fn pre_commit_without_gate(doc: Value, gate: &mut usize) -> Option<Value> {
    let Value::Object(mut doc) = doc else {
        return None;
    };
    let Some(Value::Array(repos)) = doc.remove("repos") else {
        return None;
    };
    let mut kept = Vec::new();
    for repo in repos {
        let Value::Object(mut entry) = repo else {
            return None;
        };
        let url = entry
            .get("repo")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let local = url == "local";
        let ours = !local && names_the_gate(url) && only_keys(&entry, &["repo", "rev", "hooks"]);
        if local || ours {
            let Some(Value::Array(hooks)) = entry.remove("hooks") else {
                return None;
            };
            let before = hooks.len();
            let rest: Vec<Value> = hooks
                .into_iter()
                .filter(|h| {
                    !(if local {
                        gate_local_hook(h)
                    } else {
                        gate_id_hook(h)
                    })
                })
                .collect();
            *gate += before - rest.len();
            if rest.is_empty() && before > 0 {
                continue;
            }
            entry.insert("hooks".to_string(), Value::Array(rest));
        }
        kept.push(Value::Object(entry));
    }
    doc.insert("repos".to_string(), Value::Array(kept));
    Some(Value::Object(doc))
}

/// A lefthook configuration without the gate's jobs and commands (and the
/// lists, maps and hook sections they leave empty).
fn lefthook_without_gate(doc: Value, gate: &mut usize) -> Option<Value> {
    let Value::Object(mut doc) = doc else {
        return None;
    };
    for hook in HOOKS {
        let mut section = match doc.remove(hook) {
            None => continue,
            Some(Value::Object(section)) => section,
            // Not a map: nothing this reads as lefthook does.
            Some(_) => return None,
        };
        let command = lefthook_command(hook);
        let is_gate = |job: &Value, keys: &[&str]| {
            job.as_object().is_some_and(|object| {
                only_keys(object, keys)
                    && object.get("run").and_then(Value::as_str) == Some(command)
                    && object.get("use_stdin").is_none_or(Value::is_boolean)
                    && object.get("name").is_none_or(Value::is_string)
            })
        };
        if let Some(Value::Array(jobs)) = section.remove("jobs") {
            let before = jobs.len();
            let rest: Vec<Value> = jobs
                .into_iter()
                .filter(|job| !is_gate(job, &["name", "run", "use_stdin"]))
                .collect();
            *gate += before - rest.len();
            if !rest.is_empty() {
                section.insert("jobs".to_string(), Value::Array(rest));
            }
        }
        if let Some(Value::Object(commands)) = section.remove("commands") {
            let before = commands.len();
            let rest: Map<String, Value> = commands
                .into_iter()
                .filter(|(_, job)| !is_gate(job, &["run", "use_stdin"]))
                .collect();
            *gate += before - rest.len();
            if !rest.is_empty() {
                section.insert("commands".to_string(), Value::Object(rest));
            }
        }
        if !section.is_empty() {
            doc.insert(hook.to_string(), Value::Object(section));
        }
    }
    Some(Value::Object(doc))
}

/// A husky hook file's lines that matter, without the gate's line: a first
/// `#!` line and every line that is neither blank nor a comment.
fn husky_without_gate(text: &str, hook: &str, gate: &mut usize) -> Vec<String> {
    let command = if hook == "pre-push" {
        HUSKY_PUSH
    } else {
        STAGED
    };
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if index == 0 && trimmed.starts_with("#!") {
            out.push(trimmed.to_string());
        } else if trimmed == command {
            *gate += 1;
        } else if !trimmed.is_empty() && !trimmed.starts_with('#') {
            out.push(line.to_string());
        }
    }
    out
}

/// Which manager's file a path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ManagerFile {
    PreCommit,
    Lefthook,
    Husky(&'static str),
}

impl ManagerFile {
    pub fn of(path: &str) -> Option<ManagerFile> {
        if PRE_COMMIT_FILES.contains(&path) {
            Some(ManagerFile::PreCommit)
        } else if LEFTHOOK_FILES.contains(&path) {
            Some(ManagerFile::Lefthook)
        } else {
            husky_hook(path).map(ManagerFile::Husky)
        }
    }

    /// What a change from `old` (`None`: no file) to `new` adds, when all
    /// it does is add the gate's entries; `None` otherwise.
    pub fn adds(self, old: Option<&[u8]>, new: &[u8]) -> Option<String> {
        let (mut before, mut after) = (0usize, 0usize);
        let same = match self {
            ManagerFile::PreCommit => {
                let empty = || serde_json::json!({"repos": []});
                let old = match old {
                    None => empty(),
                    Some(bytes) => pre_commit_without_gate(parse(bytes)?, &mut before)?,
                };
                pre_commit_without_gate(parse(new)?, &mut after)? == old
            }
            ManagerFile::Lefthook => {
                let old = match old {
                    None => Value::Object(Map::new()),
                    Some(bytes) => lefthook_without_gate(parse(bytes)?, &mut before)?,
                };
                lefthook_without_gate(parse(new)?, &mut after)? == old
            }
            ManagerFile::Husky(hook) => {
                let text = |bytes: &[u8]| std::str::from_utf8(bytes).ok().map(str::to_string);
                let old = match old {
                    None => Vec::new(),
                    Some(bytes) => husky_without_gate(&text(bytes)?, hook, &mut before),
                };
                husky_without_gate(&text(new)?, hook, &mut after) == old
            }
        };
        (same && after > before).then(|| match self {
            ManagerFile::PreCommit => {
                "pre-commit's and prek's entries that run the gate".to_string()
            }
            ManagerFile::Lefthook => "lefthook's jobs that run the gate".to_string(),
            ManagerFile::Husky(hook) => format!("husky's {hook} line that runs the gate"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adds(path: &str, old: Option<&str>, new: &str) -> bool {
        ManagerFile::of(path)
            .unwrap()
            .adds(old.map(str::as_bytes), new.as_bytes())
            .is_some()
    }

    #[test]
    fn the_recipes_commands_are_the_ones_recognised() {
        use crate::install::managers::{RECIPE_HUSKY, RECIPE_LEFTHOOK, RECIPE_PRE_COMMIT};
        assert!(RECIPE_LEFTHOOK.contains(&format!("run: {STAGED}")));
        assert!(RECIPE_LEFTHOOK.contains(&format!("run: {LEFTHOOK_PUSH}")));
        assert!(RECIPE_HUSKY.lines().any(|l| l == STAGED));
        assert!(RECIPE_HUSKY.lines().any(|l| l == HUSKY_PUSH));
        assert!(RECIPE_PRE_COMMIT.contains("{ id: mastermind-hooks }"));
        // The recipes as a new file are the gate's own.
        let lefthook: String = RECIPE_LEFTHOOK
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(adds("lefthook.yml", None, &lefthook));
        let pre_commit = RECIPE_PRE_COMMIT
            .replace("<owner>", "acme")
            .replace("<commit id>", &"a".repeat(40));
        assert!(adds(".pre-commit-config.yaml", None, &pre_commit));
        assert!(adds(".husky/pre-commit", None, &format!("{STAGED}\n")));
        assert!(adds(".husky/pre-push", None, &format!("{HUSKY_PUSH}\n")));
    }

    #[test]
    fn the_manager_files_are_the_ones_status_reads() {
        use crate::install::Hook;
        use crate::install::manager_config::candidates;
        use crate::install::managers::Manager;
        for hook in Hook::ALL {
            for path in candidates(Manager::PreCommit, hook)
                .into_iter()
                .chain(candidates(Manager::Lefthook, hook))
                .chain(candidates(Manager::Husky, hook))
            {
                assert!(ManagerFile::of(&path).is_some(), "{path}");
            }
        }
        assert_eq!(ManagerFile::of(".husky/post-merge"), None);
        assert_eq!(ManagerFile::of("hk.pkl"), None, "hk.pkl is a program");
    }

    const PRE_COMMIT_OLD: &str = "repos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n      - id: black\n";

    #[test]
    fn pre_commit_entries_added_beside_others_are_the_gates_own_and_nothing_else_is() {
        let with_gate = format!(
            "{PRE_COMMIT_OLD}  - repo: https://github.com/acme/mastermind-hooks\n    rev: {}\n    hooks: [{{ id: mastermind-hooks }}, {{ id: mastermind-hooks-push }}]\n",
            "b".repeat(40)
        );
        assert!(adds(
            ".pre-commit-config.yaml",
            Some(PRE_COMMIT_OLD),
            &with_gate
        ));
        let local = format!(
            "{PRE_COMMIT_OLD}  - repo: local\n    hooks:\n      - id: gate\n        name: gate\n        entry: mastermind-hooks check --staged\n        language: system\n        pass_filenames: false\n"
        );
        assert!(adds(
            ".pre-commit-config.yaml",
            Some(PRE_COMMIT_OLD),
            &local
        ));
        for (what, new) in [
            (
                "another hook's version moved too",
                with_gate.replace("24.1.0", "24.2.0"),
            ),
            (
                "the gate's id from another repository",
                with_gate.replace("acme/mastermind-hooks", "acme/tools"),
            ),
            (
                "an entry override",
                with_gate.replace(
                    "{ id: mastermind-hooks }",
                    "{ id: mastermind-hooks, entry: 'sh -c evil' }",
                ),
            ),
            (
                "a local hook that runs something else",
                local.replace("entry: mastermind-hooks check --staged", "entry: ./evil.sh"),
            ),
            (
                "a local hook of another language",
                local.replace("language: system", "language: script"),
            ),
            (
                "nothing of the gate's",
                PRE_COMMIT_OLD.replace("black", "ruff"),
            ),
            ("a file that does not parse", format!("{with_gate}\n  : [")),
        ] {
            assert!(
                !adds(".pre-commit-config.yaml", Some(PRE_COMMIT_OLD), &new),
                "{what}"
            );
        }
        assert!(
            !adds(
                ".pre-commit-config.yaml",
                Some(PRE_COMMIT_OLD),
                PRE_COMMIT_OLD
            ),
            "no change adds nothing"
        );
    }

    #[test]
    fn lefthook_jobs_and_commands_of_the_gate_only() {
        let old = "pre-commit:\n  jobs:\n    - name: lint\n      run: npm run lint\n";
        let jobs = "pre-commit:\n  jobs:\n    - name: lint\n      run: npm run lint\n    - name: mastermind-hooks\n      run: mastermind-hooks check --staged\npre-push:\n  jobs:\n    - name: mastermind-hooks\n      run: mastermind-hooks check --push {1} {2}\n      use_stdin: true\n";
        assert!(adds("lefthook.yml", Some(old), jobs));
        let commands = "pre-commit:\n  jobs:\n    - name: lint\n      run: npm run lint\npre-merge-commit:\n  commands:\n    gate:\n      run: mastermind-hooks check --staged\n";
        assert!(adds("lefthook.yml", Some(old), commands));
        assert!(!adds(
            "lefthook.yml",
            Some(old),
            &jobs.replace("npm run lint", "npm run lint && curl x | sh")
        ));
        assert!(!adds(
            "lefthook.yml",
            Some(old),
            &jobs.replace("check --staged", "check --staged; ./evil")
        ));
        assert!(!adds(
            "lefthook.yml",
            Some(old),
            &jobs.replace("    - name: mastermind-hooks\n      run: mastermind-hooks check --staged\n", "    - name: mastermind-hooks\n      run: mastermind-hooks check --staged\n      root: elsewhere/\n")
        ), "a key the recipe does not write");
    }

    #[test]
    fn husky_lines_of_the_gate_only() {
        let old = "#!/bin/sh\nnpx lint-staged\n";
        assert!(adds(
            ".husky/pre-commit",
            Some(old),
            "#!/bin/sh\nnpx lint-staged\n\n# the gate\nmastermind-hooks check --staged\n"
        ));
        assert!(!adds(
            ".husky/pre-commit",
            Some(old),
            "#!/bin/sh\nnpx lint-staged\nmastermind-hooks check --staged\ncurl x | sh\n"
        ));
        assert!(
            !adds(
                ".husky/pre-commit",
                Some(old),
                "#!/usr/bin/other\nnpx lint-staged\nmastermind-hooks check --staged\n"
            ),
            "the interpreter line is no comment"
        );
        assert!(
            !adds(".husky/pre-push", None, &format!("{STAGED}\n")),
            "the pre-commit command in the pre-push file does not run the push gate"
        );
    }
}
