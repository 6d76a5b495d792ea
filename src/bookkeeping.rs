//! Which repository paths are the agents' bookkeeping and which are ordinary
//! content (the trust model: nothing under `.mastermind/` is a blind spot).
//!
//! Only the known artifacts of a task folder are bookkeeping: the spec, the
//! executor report, `state.json`, the audit tail, the receipts under
//! `verification/` (and the runner's lock), plus files inside a task folder
//! that the configuration names as agent files (plastic reports, intents,
//! savepoints, subagent returns, findings ledgers). By name, every
//! `verification/*.json` looks like a receipt (that is what the tree
//! digests leave out); the gate narrows it to exactly the receipts the
//! runners write for the check ids the task's spec declares, in the format
//! they write ([`receipt_names`]): `<id>.tree.json`, the reference's
//! `<id>.json` only where no `<id>.tree.json` lands (the gate then judges
//! it as the check's receipt), and `run.lock` only as the empty file a
//! runner leaves. Anything else kept there is content. The Mastermind
//! controller's runtime files are bookkeeping wherever scope is computed.
//! `.mastermind/hooks.yaml` is the gate's own policy and, with the other
//! control files the configuration lists ([`PathClass::Control`]), never
//! task work: ordinary for digests, but a planning act whose change no
//! task's scope covers. Every other path, including any other file under
//! `.mastermind/`, is ordinary: scope, the untasked policy and the tree
//! digest all see it.
//!
//! Pure: a function of the path bytes, the agent-file globs and, for
//! receipts, what the spec declares and what lands.

use crate::config::{CONFIG_PATH, Globs};
use std::collections::BTreeSet;

/// Where task folders live.
pub const TASKS_DIR: &str = ".mastermind/tasks/";
/// The agents' directory.
pub const MASTERMIND_DIR: &str = ".mastermind/";

/// Runtime artifacts the reference controller keeps under `.mastermind/` and
/// always leaves out of changed-file sets.
pub const RUNTIME_ARTIFACTS: &[&str] = &[
    ".mastermind/mmcg.db",
    ".mastermind/mmcg.db-shm",
    ".mastermind/mmcg.db-wal",
    ".mastermind/audit-narrative.json",
];

/// The fixed artifact names directly inside a task folder.
pub const TASK_ARTIFACTS: &[&str] = &[
    "spec.md",
    "executor-report.md",
    "state.json",
    "audit-tail.md",
];

/// What a path is, for attribution, scope and digests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathClass<'a> {
    /// Content: judged by scope and covered by digests.
    Ordinary,
    /// A known artifact of the task folder `task` (`.mastermind/tasks/<dir>`).
    TaskArtifact { task: &'a str },
    /// The controller's runtime files.
    Runtime,
    /// `.mastermind/hooks.yaml`.
    Config,
    /// Another control file (`planning.control_files`, the allowed-signers
    /// file): a planning act, never task work.
    Control,
}

/// The task folder (`.mastermind/tasks/<dir>`) a path lies inside, if any.
/// Files directly under `tasks/` belong to no task.
pub fn task_dir_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix(TASKS_DIR)?;
    let (dir, inside) = rest.split_once('/')?;
    if dir.is_empty() || inside.is_empty() {
        return None;
    }
    Some(&path[..TASKS_DIR.len() + dir.len()])
}

/// True for a receipt file name inside `verification/` (`<id>.json`,
/// `<id>.tree.json`) or the runner's lock.
fn is_verification_artifact(name: &str) -> bool {
    name == "run.lock"
        || (!name.contains('/') && name.len() > ".json".len() && name.ends_with(".json"))
}

/// For a file directly under a task's `verification/` that is
/// bookkeeping by name (`<id>.json`, `<id>.tree.json`, `run.lock`): the
/// task folder and the file name.
pub fn verification_file(path: &str) -> Option<(&str, &str)> {
    let task = task_dir_of(path)?;
    let name = path[task.len() + 1..].strip_prefix("verification/")?;
    is_verification_artifact(name).then_some((task, name))
}

/// What lands at a bookkeeping-named path of a task's `verification/`, as
/// far as [`receipt_names`] needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landed {
    /// Nothing there.
    Absent,
    /// An empty regular file.
    Empty,
    /// Anything else: a file with content, a link, a submodule.
    Other,
}

/// The names under a task's `verification/` that are bookkeeping, given
/// the observed check ids its spec declares and what lands there: exactly
/// what the runners write. Per id, `<id>.tree.json` (this project's tree
/// receipt) and, only where no `<id>.tree.json` lands, `<id>.json` (the
/// reference's receipt, which the gate then judges as the check's receipt;
/// beside a tree receipt it is judged by nobody, so it is content); and
/// `run.lock` where it lands as the empty file a runner's lock is (or not
/// at all).
pub fn receipt_names<'a>(
    ids: impl IntoIterator<Item = &'a str>,
    landed: impl Fn(&str) -> Landed,
) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for id in ids {
        let tree = format!("{id}.tree.json");
        if landed(&tree) == Landed::Absent {
            names.insert(format!("{id}.json"));
        }
        names.insert(tree);
    }
    if landed("run.lock") != Landed::Other {
        names.insert("run.lock".to_string());
    }
    names
}

/// Classify a path by name. `agent_files` are the configuration's
/// agent-file globs.
pub fn classify<'a>(path: &'a str, agent_files: &[&Globs]) -> PathClass<'a> {
    if !path.starts_with(MASTERMIND_DIR) {
        return PathClass::Ordinary;
    }
    if path == CONFIG_PATH {
        return PathClass::Config;
    }
    if RUNTIME_ARTIFACTS.contains(&path) {
        return PathClass::Runtime;
    }
    let Some(task) = task_dir_of(path) else {
        return PathClass::Ordinary;
    };
    let inside = &path[task.len() + 1..];
    let known = TASK_ARTIFACTS.contains(&inside)
        || inside
            .strip_prefix("verification/")
            .is_some_and(is_verification_artifact)
        || agent_files.iter().any(|globs| globs.is_match(path));
    if known {
        PathClass::TaskArtifact { task }
    } else {
        PathClass::Ordinary
    }
}

/// True when the tree digest leaves the path out (task artifacts and runtime
/// files); everything else, `.mastermind/hooks.yaml` included, is covered.
pub fn outside_digest(path: &str, agent_files: &[&Globs]) -> bool {
    matches!(
        classify(path, agent_files),
        PathClass::TaskArtifact { .. } | PathClass::Runtime
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_folders_and_their_artifacts() {
        assert_eq!(
            task_dir_of(".mastermind/tasks/001-a/spec.md"),
            Some(".mastermind/tasks/001-a")
        );
        assert_eq!(task_dir_of(".mastermind/tasks/README.md"), None);
        assert_eq!(task_dir_of(".mastermind/tasks//x"), None);
        assert_eq!(task_dir_of("src/.mastermind/tasks/a/b"), None);
        let none: [&Globs; 0] = [];
        for artifact in [
            ".mastermind/tasks/a/spec.md",
            ".mastermind/tasks/a/executor-report.md",
            ".mastermind/tasks/a/state.json",
            ".mastermind/tasks/a/audit-tail.md",
            ".mastermind/tasks/a/verification/unit.json",
            ".mastermind/tasks/a/verification/unit.tree.json",
            ".mastermind/tasks/a/verification/run.lock",
        ] {
            assert_eq!(
                classify(artifact, &none),
                PathClass::TaskArtifact {
                    task: ".mastermind/tasks/a"
                },
                "{artifact}"
            );
        }
        for ordinary in [
            "src/lib.rs",
            ".mastermind/tools/run.sh",
            ".mastermind/tasks/a/helper.py",
            ".mastermind/tasks/a/verification/sub/x.json",
            ".mastermind/tasks/a/verification/.json",
            ".mastermind/tasks/a/nested/spec.md",
            ".mastermind/tasks/notes.md",
        ] {
            assert_eq!(classify(ordinary, &none), PathClass::Ordinary, "{ordinary}");
        }
        assert_eq!(classify(".mastermind/hooks.yaml", &none), PathClass::Config);
        assert_eq!(classify(".mastermind/mmcg.db", &none), PathClass::Runtime);
        assert!(!outside_digest(".mastermind/hooks.yaml", &none));
        assert!(outside_digest(".mastermind/tasks/a/spec.md", &none));
        assert!(!outside_digest(".mastermind/tasks/a/run.sh", &none));
    }

    #[test]
    fn receipts_are_exactly_what_the_runners_write() {
        let names = |landing: &[(&str, Landed)]| {
            let landing = landing.to_vec();
            receipt_names(["unit", "lint"], move |name| {
                landing
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or(Landed::Absent, |(_, l)| *l)
            })
        };
        let set = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        // Nothing lands yet: either runner's receipt may come.
        assert_eq!(
            names(&[]),
            set(&[
                "lint.json",
                "lint.tree.json",
                "run.lock",
                "unit.json",
                "unit.tree.json"
            ])
        );
        // Where the tree receipt lands, `<id>.json` is nobody's receipt.
        assert_eq!(
            names(&[
                ("unit.tree.json", Landed::Other),
                ("run.lock", Landed::Empty)
            ]),
            set(&["lint.json", "lint.tree.json", "run.lock", "unit.tree.json"])
        );
        // A lock with content is no runner's lock.
        assert!(!names(&[("run.lock", Landed::Other)]).contains("run.lock"));
        assert_eq!(
            verification_file(".mastermind/tasks/a/verification/run.lock"),
            Some((".mastermind/tasks/a", "run.lock"))
        );
    }
}
