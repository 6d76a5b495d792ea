//! Attribution: which task each step of a change belongs to.
//!
//! A step that changes a path inside a task folder is one of that task's
//! steps; its content changes are the task's. A step that touches several
//! task folders is judged against the union of their scopes: each content
//! path goes to the tasks that declare it, or to all of them when none does
//! (so it is out of scope for each). A step that touches no task folder is
//! *untasked*: its content changes go to the untasked policy, unless it is
//! a *follow-up*: a step that touches no task folder but changes only paths
//! inside the territory (declared files and changed paths) of tasks the
//! landing carries and the protected branch has not landed (a reviewer's
//! one-line fix of a declared file, a merge's own resolution of a conflict
//! in one). It belongs to those tasks, each path to the tasks whose
//! territory holds it, and is judged with them: what it changed must be
//! covered by a current receipt (or a passing re-run). A step with any path
//! outside every such territory stays untasked, whole. A change of a
//! control file (`.mastermind/hooks.yaml` among them), whichever step makes
//! it, is planning and goes to the planning policy
//! ([`crate::gate::planning::control`]), never to the untasked policy.

use super::change::{Bookkeeping, Step};
use crate::bookkeeping::PathClass;
use crate::repo::changes::ChangeKind;
use gix::bstr::ByteSlice;
use std::collections::{BTreeMap, BTreeSet};

/// A follow-up's content paths per task that owns them.
pub type FollowUp = BTreeMap<String, Vec<(String, ChangeKind)>>;

/// The tasks and untasked steps of a change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attribution {
    /// Task folder -> indices of the steps that belong to it (that touched
    /// it, and its follow-ups), in step order.
    pub tasks: BTreeMap<String, Vec<usize>>,
    /// Indices of the steps that belong to no task.
    pub untasked_steps: Vec<usize>,
    /// Steps that touched no task folder and belong to tasks by their paths:
    /// step index -> task -> the paths it owns there.
    pub follow_ups: BTreeMap<usize, FollowUp>,
}

impl Attribution {
    /// The changes of step `index` that go to the untasked policy (see
    /// [`untasked_changes`]): for a follow-up, none (its content is its
    /// tasks', and control files are planning).
    pub fn untasked_changes(
        &self,
        index: usize,
        step: &Step,
        bookkeeping: &Bookkeeping<'_>,
    ) -> Vec<(String, ChangeKind)> {
        if self.follow_ups.contains_key(&index) {
            return Vec::new();
        }
        untasked_changes(step, bookkeeping)
    }

    /// Make follow-ups of the untasked steps whose content paths all lie in
    /// `territories` (task folder -> its declared files and changed paths):
    /// each path goes to every task whose territory holds it. Steps without
    /// content stay as they are.
    pub fn assign_follow_ups(
        &mut self,
        steps: &[Step],
        bookkeeping: &Bookkeeping<'_>,
        territories: &BTreeMap<String, BTreeSet<String>>,
    ) {
        if territories.is_empty() {
            return;
        }
        let mut still_untasked = Vec::new();
        for &index in &self.untasked_steps {
            let content: Vec<(String, ChangeKind)> = steps[index]
                .content_changes(bookkeeping)
                .map(|(p, k)| (p.to_string(), k))
                .collect();
            let mut owned = FollowUp::new();
            let inside = !content.is_empty()
                && content.iter().all(|(path, kind)| {
                    let mut any = false;
                    for (task, territory) in territories {
                        if territory.contains(path) {
                            any = true;
                            owned
                                .entry(task.clone())
                                .or_default()
                                .push((path.clone(), *kind));
                        }
                    }
                    any
                });
            if !inside {
                still_untasked.push(index);
                continue;
            }
            for task in owned.keys() {
                let belongs = self.tasks.entry(task.clone()).or_default();
                belongs.push(index);
                belongs.sort_unstable();
            }
            self.follow_ups.insert(index, owned);
        }
        self.untasked_steps = still_untasked;
    }
}

/// Attribute every step of a change.
pub fn attribute(steps: &[Step]) -> Attribution {
    let mut attribution = Attribution::default();
    for (index, step) in steps.iter().enumerate() {
        let touched = step.touched_tasks();
        if touched.is_empty() {
            attribution.untasked_steps.push(index);
        }
        for task in touched {
            attribution
                .tasks
                .entry(task.to_string())
                .or_default()
                .push(index);
        }
    }
    attribution
}

/// The owners of a content path that a step touching `tasks` changed: the
/// tasks whose scope declares it, else every one of them.
pub fn owners<'t>(tasks: &[&'t str], declares: impl Fn(&str) -> bool) -> Vec<&'t str> {
    let declaring: Vec<&str> = tasks.iter().copied().filter(|t| declares(t)).collect();
    if declaring.is_empty() {
        tasks.to_vec()
    } else {
        declaring
    }
}

/// The changes of a step that go to the untasked policy: all its content
/// changes when it touched no task, else none. Control files (the
/// configuration among them) are planning, never untasked
/// ([`crate::gate::planning::control`]). Non-UTF-8 paths are returned
/// lossily; the caller reports them.
pub fn untasked_changes(step: &Step, bookkeeping: &Bookkeeping<'_>) -> Vec<(String, ChangeKind)> {
    let tasked = !step.touched_tasks().is_empty();
    step.changes
        .iter()
        .filter_map(|c| {
            let path = c.path.to_str_lossy();
            let class = bookkeeping.class(c, &path);
            let keep = match class {
                PathClass::Ordinary => !tasked,
                PathClass::Config
                | PathClass::Control
                | PathClass::TaskArtifact { .. }
                | PathClass::Runtime => false,
            };
            keep.then(|| (path.into_owned(), c.kind))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Globs;

    fn step(paths: &[&str]) -> Step {
        Step::modifying("s", paths)
    }

    #[test]
    fn steps_go_to_the_tasks_they_touch() {
        let steps = [
            step(&[".mastermind/tasks/a/spec.md", "src/a.rs"]),
            step(&["src/human.rs"]),
            step(&[
                ".mastermind/tasks/b/executor-report.md",
                ".mastermind/tasks/a/state.json",
                "src/both.rs",
            ]),
            step(&[".mastermind/tasks/b/verification/x.tree.json"]),
        ];
        let attribution = attribute(&steps);
        assert_eq!(attribution.tasks[".mastermind/tasks/a"], [0, 2]);
        assert_eq!(attribution.tasks[".mastermind/tasks/b"], [2, 3]);
        assert_eq!(attribution.untasked_steps, [1]);
    }

    #[test]
    fn a_shared_step_goes_to_the_declaring_tasks_or_all() {
        let tasks = ["a", "b"];
        assert_eq!(owners(&tasks, |t| t == "b"), ["b"]);
        assert_eq!(owners(&tasks, |_| false), ["a", "b"]);
        assert_eq!(owners(&tasks, |_| true), ["a", "b"]);
    }

    #[test]
    fn a_step_inside_the_territories_follows_up_their_tasks() {
        let none = Bookkeeping::by_name(Vec::<&Globs>::new());
        let steps = [
            step(&[".mastermind/tasks/a/spec.md", "src/a.rs"]),
            step(&["src/a.rs"]),
            step(&["src/a.rs", "src/shared.rs"]),
            step(&["src/a.rs", "README.md"]),
            step(&[".mastermind/hooks.yaml", "src/a.rs"]),
            step(&[".mastermind/hooks.yaml"]),
        ];
        let mut attribution = attribute(&steps);
        let territory = |paths: &[&str]| paths.iter().map(|p| p.to_string()).collect();
        let territories = BTreeMap::from([
            (
                ".mastermind/tasks/a".to_string(),
                territory(&["src/a.rs", "src/shared.rs"]),
            ),
            (
                ".mastermind/tasks/b".to_string(),
                territory(&["src/shared.rs"]),
            ),
        ]);
        attribution.assign_follow_ups(&steps, &none, &territories);
        assert_eq!(attribution.tasks[".mastermind/tasks/a"], [0, 1, 2, 4]);
        assert_eq!(attribution.tasks[".mastermind/tasks/b"], [2]);
        assert_eq!(
            attribution.follow_ups[&2][".mastermind/tasks/b"],
            [("src/shared.rs".to_string(), ChangeKind::Modified)]
        );
        // A path outside every territory keeps the whole step untasked; a
        // step without content is left alone.
        assert_eq!(attribution.untasked_steps, [3, 5]);
        // The configuration is planning, never untasked, whatever else a
        // step does.
        assert!(attribution.untasked_changes(4, &steps[4], &none).is_empty());
        assert_eq!(
            attribution.untasked_changes(3, &steps[3], &none).len(),
            2,
            "an untasked step keeps all it changed"
        );
    }

    #[test]
    fn configuration_changes_are_never_untasked() {
        let none = Bookkeeping::by_name(Vec::<&Globs>::new());
        let tasked = step(&[
            ".mastermind/tasks/a/spec.md",
            ".mastermind/hooks.yaml",
            "src/a.rs",
        ]);
        assert!(untasked_changes(&tasked, &none).is_empty());
        let config = step(&[".mastermind/hooks.yaml"]);
        assert!(untasked_changes(&config, &none).is_empty());
        let human = step(&["src/a.rs", ".mastermind/tools/x.sh", ".mastermind/mmcg.db"]);
        let paths: Vec<String> = untasked_changes(&human, &none)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert_eq!(paths, ["src/a.rs", ".mastermind/tools/x.sh"]);
    }
}
