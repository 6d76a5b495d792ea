//! One verdict everywhere: over random histories (tasks across several
//! commits and pushes, human commits, merges of the base, amends), the
//! verdict pre-commit gives a task on its last commit is the verdict that
//! pre-push and CI give the same task.

use crate::common::tasks::*;
use crate::common::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

const FILES: [&str; 3] = ["src/one.py", "src/two.py", "src/three.py"];

#[derive(Clone, Debug)]
enum Action {
    /// Work on task `task` (0..3): edit a file it owns, maybe forget to
    /// re-run its check, maybe touch a file it does not declare.
    Task {
        task: usize,
        forget_check: bool,
        stray: bool,
    },
    /// A human commit that touches no task.
    Human { file: usize },
    /// The base moves on and is merged into the branch.
    MergeBase,
    /// Push the branch.
    Push,
    /// Amend the last commit with a report touch-up of its task.
    AmendLast,
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        5 => (0usize..3, proptest::bool::weighted(0.2), proptest::bool::weighted(0.15))
            .prop_map(|(task, forget_check, stray)| Action::Task { task, forget_check, stray }),
        2 => (0usize..3).prop_map(|file| Action::Human { file }),
        1 => Just(Action::MergeBase),
        2 => Just(Action::Push),
        1 => Just(Action::AmendLast),
    ]
}

fn name(task: usize) -> String {
    format!("00{task}-task")
}

fn owned(task: usize) -> &'static str {
    FILES[task]
}

/// Per-task verdicts from a JSON report.
fn verdicts(out: &std::process::Output) -> BTreeMap<String, bool> {
    let report = json(out);
    report["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["task"].as_str().unwrap_or("").to_string(),
                t["ok"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

struct World {
    repo: TestRepo,
    _remote: tempfile::TempDir,
    origin: String,
    /// Per task: files it changed so far (for its report) and whether it exists.
    touched: BTreeMap<usize, Vec<&'static str>>,
    /// The task each commit touched last (commit id -> tasks).
    last_commit_of: BTreeMap<String, String>,
    /// Pre-commit verdict of each task on its last commit.
    pre_commit: BTreeMap<String, bool>,
    counter: usize,
    last_task: Option<usize>,
}

impl World {
    fn new() -> World {
        let repo = TestRepo::new();
        for file in FILES {
            repo.write(file, "start\n");
        }
        repo.write("README.md", "# w\n");
        repo.commit_all("initial");
        let remote = tempfile::tempdir().expect("remote");
        let bare = remote.path().join("o.git");
        repo.git(&["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
        repo.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
        repo.git(&["push", "-q", "origin", "main"]);
        repo.git(&["checkout", "-q", "-b", "feature"]);
        World {
            origin: bare.display().to_string(),
            repo,
            _remote: remote,
            touched: BTreeMap::new(),
            last_commit_of: BTreeMap::new(),
            pre_commit: BTreeMap::new(),
            counter: 0,
            last_task: None,
        }
    }

    fn staged_verdicts(&self) -> BTreeMap<String, bool> {
        let out = self
            .repo
            .run(&["check", "--staged", "--format", "json"], None);
        assert!(status(&out) < 2, "{}", text(&out));
        verdicts(&out)
    }

    fn commit(&mut self, message: &str, amend: bool) {
        self.repo.git(&["add", "-A"]);
        let staged = self.staged_verdicts();
        let mut args = vec!["commit", "-q", "--no-verify", "-m", message];
        if amend {
            args.push("--amend");
        }
        self.repo.git(&args);
        let head = self.repo.head();
        for (task, ok) in staged {
            self.pre_commit.insert(task.clone(), ok);
            self.last_commit_of.insert(task, head.clone());
        }
    }

    fn apply(&mut self, action: &Action) {
        self.counter += 1;
        let n = self.counter;
        match action {
            Action::Task {
                task,
                forget_check,
                stray,
            } => {
                let task = *task;
                let file = owned(task);
                let needle = format!("v{n}");
                if !self.touched.contains_key(&task) {
                    write_spec(&self.repo, &name(task), &[file], file, "v");
                }
                self.repo.write(file, &format!("{needle}\n"));
                let files = self.touched.entry(task).or_default();
                if !files.contains(&file) {
                    files.push(file);
                }
                let mut listed = files.clone();
                if *stray {
                    self.repo.write("README.md", &format!("# stray {n}\n"));
                    listed.push("README.md");
                }
                if !forget_check {
                    verify(&self.repo, &name(task));
                }
                write_report(&self.repo, &name(task), &listed, file, "v");
                // An agent's report says what each step did, so every task
                // step touches the task's folder. (A step that changes only
                // code is untasked; amending it into a task commit is the
                // one case pre-commit cannot see: see below.)
                let report = format!(".mastermind/tasks/{}/executor-report.md", name(task));
                let text = std::fs::read_to_string(self.repo.path().join(&report)).unwrap();
                self.repo.write(
                    &report,
                    &text.replacen("# Report\n", &format!("# Report\n\nStep {n}.\n"), 1),
                );
                self.last_task = Some(task);
                self.commit(&format!("task {task} step {n}"), false);
            }
            Action::Human { file } => {
                self.repo.write(FILES[*file], &format!("human {n}\n"));
                self.last_task = None;
                self.commit(&format!("human {n}"), false);
            }
            Action::MergeBase => {
                self.repo.git(&["checkout", "-q", "main"]);
                self.repo.write(&format!("docs/base-{n}.md"), "moved on\n");
                self.repo.commit_all(&format!("base {n}"));
                self.repo.git(&["push", "-q", "origin", "main"]);
                self.repo.git(&["checkout", "-q", "feature"]);
                self.repo
                    .git(&["merge", "-q", "--no-edit", "--no-verify", "main"]);
                self.last_task = None;
            }
            Action::Push => {
                self.push_and_compare();
            }
            Action::AmendLast => {
                if let Some(task) = self.last_task {
                    let state = format!(".mastermind/tasks/{}/state.json", name(task));
                    self.repo
                        .write(&state, &format!("{{\"iteration\": {n}}}\n"));
                    self.commit(&format!("task {task} amended {n}"), true);
                }
            }
        }
    }

    /// Push the branch through the gate (as pre-push would) and compare
    /// every task whose last commit the push carries.
    fn push_and_compare(&mut self) {
        let tip = self.repo.head();
        let old =
            self.repo
                .git_output(&["rev-parse", "--verify", "-q", "refs/remotes/origin/feature"]);
        let old = if old.status.success() {
            String::from_utf8_lossy(&old.stdout).trim().to_string()
        } else {
            "0".repeat(40)
        };
        let input = format!("refs/heads/feature {tip} refs/heads/feature {old}\n");
        let out = self.repo.run(
            &[
                "check",
                "--push",
                "origin",
                &self.origin,
                "--format",
                "json",
            ],
            Some(&input),
        );
        assert!(status(&out) < 2, "{}", text(&out));
        let pushed = verdicts(&out);
        for (task, ok) in &pushed {
            if self
                .last_commit_of
                .get(task)
                .is_some_and(|c| self.carries(c, &old))
            {
                assert_eq!(
                    Some(ok),
                    self.pre_commit.get(task),
                    "push and pre-commit disagree on {task}: {}",
                    text(&out)
                );
            }
        }
        self.repo
            .git(&["push", "-q", "--force", "--no-verify", "origin", "feature"]);
    }

    /// True when `commit` is new relative to `old` (the remote's tip).
    fn carries(&self, commit: &str, old: &str) -> bool {
        if old.bytes().all(|b| b == b'0') {
            return true;
        }
        !self
            .repo
            .git_output(&["merge-base", "--is-ancestor", commit, old])
            .status
            .success()
    }

    fn ci_compare(&self) {
        let out = self.repo.run(
            &[
                "check", "--ci", "--base", "main", "--head", "feature", "--format", "json",
            ],
            None,
        );
        assert!(status(&out) < 2, "{}", text(&out));
        for (task, ok) in verdicts(&out) {
            assert_eq!(
                Some(&ok),
                self.pre_commit.get(&task),
                "CI and pre-commit disagree on {task}: {}",
                text(&out)
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    #[test]
    #[ignore = "superseded by the one-verdict property over landings (issue 23), rewritten next"]
    fn pre_commit_push_and_ci_agree_on_every_task(actions in proptest::collection::vec(action(), 3..9)) {
        let mut world = World::new();
        for action in &actions {
            world.apply(action);
        }
        world.push_and_compare();
        world.ci_compare();
    }
}

/// Git does not tell a pre-commit hook that the commit is an amend, so
/// pre-commit judges the index on top of HEAD. Amending a commit that
/// changed only code (untasked) into a task commit folds that code into
/// the task: pre-commit cannot see it, and pre-push and CI, which judge
/// the commit git wrote, refuse the stale receipt (fail closed).
#[test]
fn amending_untasked_code_into_a_task_commit_is_caught_at_push() {
    let world = World::new();
    let repo = &world.repo;
    do_task(repo, "002-task", "src/three.py", "alpha");
    repo.commit_all("task 2");
    // Code only: the receipt is not re-run, the task folder not touched.
    repo.write("src/three.py", "alpha, changed\n");
    repo.commit_all("code only");
    repo.write(
        ".mastermind/tasks/002-task/state.json",
        "{\"iteration\": 2}\n",
    );
    repo.git(&["add", "-A"]);
    let staged = repo.run(&["check", "--staged", "--format", "json"], None);
    assert_eq!(status(&staged), 0, "{}", text(&staged));
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "--amend",
        "-m",
        "task 2, amended",
    ]);
    let out = repo.run(
        &[
            "check", "--ci", "--base", "main", "--head", "HEAD", "--format", "json",
        ],
        None,
    );
    assert_eq!(status(&out), 1, "{}", text(&out));
    assert!(
        text(&out).contains("receipt_snapshot_changed"),
        "{}",
        text(&out)
    );
}
