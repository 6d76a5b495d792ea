//! Attribution: which task each step of a change belongs to.
//!
//! A step that changes a path inside a task folder is one of that task's
//! steps; its content changes are the task's. A step that touches several
//! task folders is judged against the union of their scopes: each content
//! path goes to the tasks that declare it, or to all of them when none does
//! (so it is out of scope for each). A step that touches no task folder is
//! *untasked*: its content changes go to the untasked policy. A change of a
//! control file (`.mastermind/hooks.yaml` among them), whichever step makes
//! it, is planning and goes to the planning policy.

use super::change::{Bookkeeping, Step};
use crate::bookkeeping::PathClass;
use crate::repo::changes::ChangeKind;
use gix::bstr::ByteSlice;
use std::collections::BTreeMap;

/// The tasks and untasked steps of a change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attribution {
    /// Task folder -> indices of the steps that touched it, in step order.
    pub tasks: BTreeMap<String, Vec<usize>>,
    /// Indices of the steps that touched no task folder.
    pub untasked_steps: Vec<usize>,
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
