//! One verdict everywhere: the same landing gets the same verdict in
//! pre-merge-commit, pre-push, pre-receive and CI. Over random histories
//! (tasks across several commits, one task's steps on two branches, human
//! follow-ups that edit what a check covers, merges of main, branches
//! joined by merges, criss-cross merges, rebases, amends), a feature branch
//! lands on main four ways: CI judges the merge of the branch into main, a
//! maintainer's `git merge --no-ff` goes through the pre-merge-commit hook,
//! and the merge commit is pushed through pre-push and pre-receive. Each
//! task gets the same verdict from all four, and so does the landing.

use crate::common::landing::*;
use crate::common::tasks::*;
use crate::common::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Each task owns one file; its first line is the task's, its last line a
/// human's (far enough apart for git to merge edits of both).
const FILES: [&str; 3] = ["src/one.py", "src/two.py", "src/three.py"];
const BRANCHES: [&str; 2] = ["f1", "f2"];
const MAINTAINER: &str = "Maintainer <maintainer@example.invalid>";

#[derive(Clone, Debug)]
enum Action {
    /// A step of task `task` on its home branch (task 1 lives on f2, the
    /// others on f1): edit its file, maybe forget to re-run its check,
    /// maybe touch a file it does not declare.
    Task {
        task: usize,
        forget_check: bool,
        stray: bool,
    },
    /// The task's bookkeeping on the other branch: a parallel step.
    Note { task: usize },
    /// A human commit on a branch that edits the last line of a file.
    Human { branch: usize, file: usize },
    /// Main moves on (a maintainer's commit, already landed), touching the
    /// last line of a file when `file` is given.
    MainMoves { file: Option<usize> },
    /// A branch merges main.
    MergeMain { branch: usize },
    /// One branch merges the other.
    Join { into: usize },
    /// A branch is rebased onto main.
    Rebase { branch: usize },
    /// The last commit of a branch is amended with one more file.
    Amend { branch: usize },
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        6 => (0usize..3, proptest::bool::weighted(0.2), proptest::bool::weighted(0.15))
            .prop_map(|(task, forget_check, stray)| Action::Task { task, forget_check, stray }),
        2 => (0usize..3).prop_map(|task| Action::Note { task }),
        2 => (0usize..2, 0usize..3).prop_map(|(branch, file)| Action::Human { branch, file }),
        2 => proptest::option::of(0usize..3).prop_map(|file| Action::MainMoves { file }),
        2 => (0usize..2).prop_map(|branch| Action::MergeMain { branch }),
        2 => (0usize..2).prop_map(|into| Action::Join { into }),
        1 => (0usize..2).prop_map(|branch| Action::Rebase { branch }),
        1 => (0usize..2).prop_map(|branch| Action::Amend { branch }),
    ]
}

fn name(task: usize) -> String {
    format!("00{task}-task")
}

fn home(task: usize) -> &'static str {
    if task == 1 { "f2" } else { "f1" }
}

fn other(branch: &str) -> &'static str {
    if branch == "f1" { "f2" } else { "f1" }
}

fn lines(first: &str, last: &str) -> String {
    format!("{first}\nk\nk\nk\n{last}\n")
}

/// Replace the first (task) or last (human) line of a file.
fn set_line(repo: &TestRepo, file: &str, first: bool, value: &str) {
    let text = std::fs::read_to_string(repo.path().join(file)).unwrap();
    let mut all: Vec<&str> = text.lines().collect();
    let at = if first { 0 } else { all.len() - 1 };
    all[at] = value;
    repo.write(file, &format!("{}\n", all.join("\n")));
}

/// A task's verdict per mode: `Some(true)` passed.
type Verdicts = BTreeMap<String, bool>;

/// Per-task verdicts of a JSON report.
fn from_json(report: &serde_json::Value) -> Verdicts {
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

/// Per-task verdicts of human output (`ok: task X`, `FAILED: task X`).
fn from_human(printed: &str) -> Verdicts {
    let mut out = Verdicts::new();
    for line in printed.lines() {
        for (mark, ok) in [("ok: task ", true), ("FAILED: task ", false)] {
            if let Some(rest) = line.split(mark).nth(1)
                && let Some(task) = rest.split_whitespace().next()
            {
                out.insert(task.to_string(), ok);
            }
        }
    }
    out
}

struct World {
    forge: Forge,
    counter: usize,
    /// Tasks that have a spec so far.
    started: [bool; 3],
    /// Per task: files its report lists.
    listed: BTreeMap<usize, Vec<&'static str>>,
}

impl World {
    fn new() -> World {
        let files: Vec<(&str, String)> = FILES
            .iter()
            .map(|f| (*f, lines("start", "end")))
            .chain([("README.md", "# w\n".to_string())])
            .collect();
        let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
        let forge = Forge::new(&borrowed);
        for branch in BRANCHES {
            forge.work.git(&["branch", branch, "main"]);
        }
        World {
            forge,
            counter: 0,
            started: [false; 3],
            listed: BTreeMap::new(),
        }
    }

    fn repo(&self) -> &TestRepo {
        &self.forge.work
    }

    fn on(&self, branch: &str) {
        self.repo().git(&["checkout", "-q", branch]);
    }

    fn commit(&self, message: &str) {
        let date = format!(
            "2024-01-01T{:02}:{:02}:00",
            self.counter / 60,
            self.counter % 60
        );
        commit_as(self.repo(), message, "Agent <agent@example.invalid>", &date);
    }

    /// `git ARGS`; on failure (a conflict) abort with `abort` and say so.
    fn try_git(&self, args: &[&str], abort: &[&str]) -> bool {
        let out = self.repo().git_output(args);
        if out.status.success() {
            return true;
        }
        let _ = self.repo().git_output(abort);
        let _ = self.repo().git_output(&["reset", "-q", "--hard"]);
        false
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
                let file = FILES[task];
                self.on(home(task));
                if !self.started[task] {
                    write_spec(self.repo(), &name(task), &[file], file, "v");
                    self.started[task] = true;
                }
                set_line(self.repo(), file, true, &format!("v{n}"));
                let listed = self.listed.entry(task).or_default();
                if !listed.contains(&file) {
                    listed.push(file);
                }
                let mut report_files = listed.clone();
                if *stray {
                    self.repo().write("README.md", &format!("# stray {n}\n"));
                    report_files.push("README.md");
                }
                if !forget_check {
                    verify(self.repo(), &name(task));
                }
                write_report(self.repo(), &name(task), &report_files, file, "v");
                self.commit(&format!("task {task} step {n}"));
            }
            Action::Note { task } => {
                self.on(other(home(*task)));
                self.repo().write(
                    &format!(".mastermind/tasks/{}/state.json", name(*task)),
                    &format!("{{\"note\": {n}}}\n"),
                );
                self.commit(&format!("task {task} note {n}"));
            }
            Action::Human { branch, file } => {
                self.on(BRANCHES[*branch]);
                set_line(self.repo(), FILES[*file], false, &format!("human {n}"));
                self.commit(&format!("human {n}"));
            }
            Action::MainMoves { file } => {
                self.on("main");
                match file {
                    Some(file) => set_line(self.repo(), FILES[*file], false, &format!("main {n}")),
                    None => self
                        .repo()
                        .write(&format!("docs/main-{n}.md"), "moved on\n"),
                }
                let date = format!("2024-01-01T{:02}:{:02}:00", n / 60, n % 60);
                commit_as(self.repo(), &format!("main {n}"), MAINTAINER, &date);
                self.forge.push_unjudged(&["main"]);
            }
            Action::MergeMain { branch } => {
                self.on(BRANCHES[*branch]);
                self.try_git(
                    &["merge", "-q", "--no-edit", "--no-verify", "main"],
                    &["merge", "--abort"],
                );
            }
            Action::Join { into } => {
                let into = BRANCHES[*into];
                self.on(into);
                self.try_git(
                    &["merge", "-q", "--no-edit", "--no-verify", other(into)],
                    &["merge", "--abort"],
                );
            }
            Action::Rebase { branch } => {
                self.on(BRANCHES[*branch]);
                self.try_git(&["rebase", "-q", "main"], &["rebase", "--abort"]);
            }
            Action::Amend { branch } => {
                self.on(BRANCHES[*branch]);
                // Only a branch's own commit: amending a commit main has
                // would start an unrelated history.
                let landed = self
                    .repo()
                    .git_output(&["merge-base", "--is-ancestor", "HEAD", "main"])
                    .status
                    .success();
                if landed {
                    return;
                }
                self.repo()
                    .write(".mastermind/amended.md", &format!("amend {n}\n"));
                self.repo().git(&["add", "-A"]);
                let _ = self.repo().git_output(&[
                    "commit",
                    "-q",
                    "--no-verify",
                    "--amend",
                    "--no-edit",
                ]);
            }
        }
    }

    /// Land `branch` on main four ways and return each mode's verdicts and
    /// whether the landing passed; `None` when git cannot merge it.
    fn land(&self, branch: &str) -> Option<Vec<(&'static str, bool, Verdicts)>> {
        let repo = self.repo();
        self.on("main");
        let main = repo.head();
        let landed = repo
            .git_output(&["merge-base", "--is-ancestor", branch, "main"])
            .status
            .success();
        if landed {
            return None; // nothing to land
        }
        let ci = self.forge.ci("main", branch);
        if ci.code == 2 && ci.has("git_merge_conflict") {
            return None;
        }
        assert!(ci.code < 2, "CI could not check: {}", ci.text);
        let ci_verdicts = from_json(ci.report.as_ref().unwrap());
        // The maintainer's merge through the pre-merge-commit hook.
        let verdict_file = repo.path().join(".git/pre-merge-commit.json");
        let hook = repo.path().join(".git/hooks/pre-merge-commit");
        std::fs::write(
            &hook,
            format!(
                "#!/bin/sh\n\"{BIN}\" check --staged --format json > \"{}\"\n",
                verdict_file.display()
            ),
        )
        .unwrap();
        make_executable(&hook);
        let _ = std::fs::remove_file(&verdict_file);
        let merged = repo.git_output(&["merge", "-q", "--no-ff", "--no-edit", branch]);
        let hook_ran = verdict_file.exists();
        std::fs::remove_file(&hook).unwrap();
        if !hook_ran {
            // git could not merge (a conflict CI's merge-tree also sees).
            let _ = repo.git_output(&["merge", "--abort"]);
            panic!(
                "git merge did not run the hook, yet CI merged: {}",
                text(&merged)
            );
        }
        let hook_report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&verdict_file).unwrap()).unwrap();
        let hook_ok = merged.status.success();
        if !hook_ok {
            let _ = repo.git_output(&["merge", "--abort"]);
            repo.git(&["merge", "-q", "--no-ff", "--no-edit", "--no-verify", branch]);
        }
        let push = self.forge.pre_push("main", "heads/main");
        assert!(push.code < 2, "pre-push could not check: {}", push.text);
        let receive = self.forge.receive(&["main"]);
        // Leave main where it was for the next landing.
        repo.git(&["reset", "-q", "--hard", &main]);
        if receive.code == 0 {
            self.forge
                .push_unjudged(&[&format!("{main}:refs/heads/main")]);
        }
        Some(vec![
            ("check --ci", ci.code == 0, ci_verdicts),
            ("pre-merge-commit", hook_ok, from_json(&hook_report)),
            (
                "pre-push",
                push.code == 0,
                from_json(push.report.as_ref().unwrap()),
            ),
            ("pre-receive", receive.code == 0, from_human(&receive.text)),
        ])
    }
}

fn agree(verdicts: &[(&str, bool, Verdicts)], actions: &[Action]) {
    let (first, first_ok, first_tasks) = &verdicts[0];
    for (mode, ok, tasks) in &verdicts[1..] {
        assert_eq!(
            (ok, tasks),
            (first_ok, first_tasks),
            "{mode} and {first} disagree on the same landing after {actions:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, .. ProptestConfig::default() })]

    #[test]
    fn every_mode_gives_the_same_landing_the_same_verdict(
        actions in proptest::collection::vec(action(), 3..10),
        land_first in proptest::bool::ANY,
    ) {
        let mut world = World::new();
        for action in &actions {
            world.apply(action);
        }
        let first = if land_first { "f1" } else { "f2" };
        for branch in [first, other(first)] {
            if let Some(verdicts) = world.land(branch) {
                agree(&verdicts, &actions);
            }
        }
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
    let repo = world.repo();
    repo.git(&["checkout", "-q", "f1"]);
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
    let verdict = world.forge.ci("main", "HEAD");
    verdict.expect(1, "check --ci");
    assert!(verdict.has("receipt_snapshot_changed"), "{verdict:?}");
}
