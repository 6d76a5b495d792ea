//! One verdict everywhere: the same landing gets the same verdict in every
//! mode, whichever way it lands. Over random histories (tasks across
//! several commits, one task's steps on two branches, human follow-ups
//! that edit what a check covers, merges of main and their resolutions of
//! a conflict in a declared file, branches joined by merges, criss-cross
//! merges, rebased branches, amends), a feature branch lands on main one of
//! four ways, each made by git's own commands: a merge commit
//! (`git merge --no-ff`, through the pre-merge-commit hook), a squash
//! (`git merge --squash` and a commit, through the pre-commit hook), a
//! rebase-merge (the branch rebased onto main and main fast-forwarded, as a
//! platform's "Rebase and merge" does) and a cherry-pick of its commits.
//! What lands on main is then pushed through pre-push and pre-receive and
//! judged by CI of main's push. Each task gets the same verdict from all of
//! them, and so does the landing; CI of the pull request agrees with them
//! too, except that a squash folds untasked content into the tasks it
//! lands with (a squash that carries an undeclared file is refused), so
//! for a squash whose branch carries untasked content it is not compared,
//! and a squash of several tasks gives a path none of them declares to
//! each of them, so there only the landing's verdict is compared.

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
    /// A branch merges main and resolves a conflict (a human line both
    /// sides changed) by hand; with `rerun`, the branch's tasks then run
    /// their checks again and commit the receipts.
    ResolveMain { branch: usize, rerun: bool },
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
        2 => (0usize..2, proptest::bool::ANY)
            .prop_map(|(branch, rerun)| Action::ResolveMain { branch, rerun }),
        2 => (0usize..2).prop_map(|into| Action::Join { into }),
        1 => (0usize..2).prop_map(|branch| Action::Rebase { branch }),
        1 => (0usize..2).prop_map(|branch| Action::Amend { branch }),
    ]
}

/// How a branch lands on main.
#[derive(Clone, Copy, Debug)]
enum Way {
    /// `git merge --no-ff`, through the pre-merge-commit hook.
    Merge,
    /// `git merge --squash` and `git commit`, through the pre-commit hook.
    Squash,
    /// The branch rebased onto main, main fast-forwarded to it.
    RebaseMerge,
    /// The branch's commits (merges left out) cherry-picked onto main.
    CherryPick,
}

fn way() -> impl Strategy<Value = Way> {
    prop_oneof![
        Just(Way::Merge),
        Just(Way::Squash),
        Just(Way::RebaseMerge),
        Just(Way::CherryPick),
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
            Action::ResolveMain { branch, rerun } => {
                let branch = BRANCHES[*branch];
                self.on(branch);
                let merged =
                    self.repo()
                        .git_output(&["merge", "-q", "--no-edit", "--no-verify", "main"]);
                if !merged.status.success() {
                    let conflicted = self.repo().git(&["diff", "--name-only", "--diff-filter=U"]);
                    let conflicted: Vec<String> = conflicted.lines().map(str::to_string).collect();
                    if conflicted.is_empty()
                        || !conflicted.iter().all(|f| FILES.contains(&f.as_str()))
                    {
                        let _ = self.repo().git_output(&["merge", "--abort"]);
                        let _ = self.repo().git_output(&["reset", "-q", "--hard"]);
                        return;
                    }
                    // The resolution: the branch's side with a new last line.
                    for file in &conflicted {
                        let _ = self.repo().git_output(&["checkout", "--ours", "--", file]);
                        set_line(self.repo(), file, false, &format!("resolved {n}"));
                    }
                    self.repo().git(&["add", "-A"]);
                    let date = format!("2024-01-01T{:02}:{:02}:00", n / 60, n % 60);
                    let out = self
                        .repo()
                        .command("git")
                        .args(["commit", "-q", "--no-verify", "--no-edit"])
                        .env("GIT_AUTHOR_NAME", "Maintainer")
                        .env("GIT_AUTHOR_EMAIL", "maintainer@example.invalid")
                        .env("GIT_AUTHOR_DATE", &date)
                        .env("GIT_COMMITTER_DATE", &date)
                        .output()
                        .unwrap();
                    assert!(out.status.success(), "{}", text(&out));
                }
                if *rerun {
                    for task in 0..3 {
                        if self.started[task] && home(task) == branch {
                            verify(self.repo(), &name(task));
                        }
                    }
                    self.commit(&format!("re-run after merging main {n}"));
                }
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

    /// A hook that records `check --staged` as JSON in `file` (its exit is
    /// the gate's), installed as `name` for the next git command.
    fn hook(&self, name: &str, file: &std::path::Path) -> std::path::PathBuf {
        let hook = self.repo().path().join(".git/hooks").join(name);
        std::fs::write(
            &hook,
            format!(
                "#!/bin/sh\n\"{BIN}\" check --staged --format json > \"{}\"\n",
                file.display()
            ),
        )
        .unwrap();
        make_executable(&hook);
        let _ = std::fs::remove_file(file);
        hook
    }

    /// Land `branch` on main `way` and return each mode's verdicts and
    /// whether the landing passed, with CI of the pull request first;
    /// `None` when git cannot land it that way (a conflict).
    fn land(&self, branch: &str, way: Way) -> Option<Vec<(&'static str, bool, Verdicts)>> {
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
        let mut verdicts = vec![(
            "CI of the pull request",
            ci.code == 0,
            from_json(ci.report.as_ref().unwrap()),
        )];
        let verdict_file = repo.path().join(".git/hook-verdict.json");
        let give_up = |repo: &TestRepo| {
            let _ = repo.git_output(&["merge", "--abort"]);
            let _ = repo.git_output(&["cherry-pick", "--abort"]);
            let _ = repo.git_output(&["rebase", "--abort"]);
            repo.git(&["checkout", "-q", "-f", "main"]);
            repo.git(&["reset", "-q", "--hard", &main]);
            let _ = repo.git_output(&["branch", "-q", "-D", "landing"]);
        };
        // Whether the squash gave a path to a task that does not declare it
        // (a path the branch's commits gave to another task alone).
        let mut squash_spread = false;
        match way {
            Way::Merge => {
                // The maintainer's merge through the pre-merge-commit hook.
                let hook = self.hook("pre-merge-commit", &verdict_file);
                let merged = repo.git_output(&["merge", "-q", "--no-ff", "--no-edit", branch]);
                let hook_ran = verdict_file.exists();
                std::fs::remove_file(&hook).unwrap();
                if !hook_ran {
                    // git could not merge (a conflict CI's merge-tree also sees).
                    give_up(repo);
                    panic!(
                        "git merge did not run the hook, yet CI merged: {}",
                        text(&merged)
                    );
                }
                let report: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&verdict_file).unwrap()).unwrap();
                let hook_ok = merged.status.success();
                if !hook_ok {
                    let _ = repo.git_output(&["merge", "--abort"]);
                    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "--no-verify", branch]);
                }
                verdicts.push(("pre-merge-commit", hook_ok, from_json(&report)));
            }
            Way::Squash => {
                let squashed = repo.git_output(&["merge", "--squash", "-q", branch]);
                let nothing = repo
                    .git_output(&["diff", "--cached", "--quiet"])
                    .status
                    .success();
                if !squashed.status.success() || nothing {
                    give_up(repo);
                    return None;
                }
                let hook = self.hook("pre-commit", &verdict_file);
                let committed = repo.git_output(&["commit", "-q", "-m", "squashed"]);
                std::fs::remove_file(&hook).unwrap();
                let report: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&verdict_file).unwrap()).unwrap();
                let hook_ok = committed.status.success();
                if !hook_ok {
                    repo.git(&["commit", "-q", "--no-verify", "-m", "squashed"]);
                }
                squash_spread = report.to_string().contains("\"unexpected_file\"");
                verdicts.push(("pre-commit of the squash", hook_ok, from_json(&report)));
            }
            Way::RebaseMerge => {
                repo.git(&["checkout", "-q", "-b", "landing", branch]);
                if !repo.git_output(&["rebase", "-q", "main"]).status.success() {
                    give_up(repo);
                    return None;
                }
                repo.git(&["checkout", "-q", "main"]);
                repo.git(&["merge", "-q", "--ff-only", "landing"]);
                repo.git(&["branch", "-q", "-D", "landing"]);
            }
            Way::CherryPick => {
                let picks = repo.git(&[
                    "rev-list",
                    "--reverse",
                    "--no-merges",
                    &format!("main..{branch}"),
                ]);
                for pick in picks.split_whitespace() {
                    let picked = repo.git_output(&[
                        "cherry-pick",
                        "--allow-empty",
                        "--keep-redundant-commits",
                        pick,
                    ]);
                    if !picked.status.success() {
                        give_up(repo);
                        return None;
                    }
                }
            }
        }
        let landed_at = repo.head();
        let push = self.forge.pre_push("main", "heads/main");
        assert!(push.code < 2, "pre-push could not check: {}", push.text);
        let receive = self.forge.receive(&["main"]);
        let pushed_ci = self.forge.ci(&main, &landed_at);
        assert!(
            pushed_ci.code < 2,
            "CI of the push could not check: {}",
            pushed_ci.text
        );
        // Leave main where it was for the next landing.
        repo.git(&["reset", "-q", "--hard", &main]);
        if receive.code == 0 {
            self.forge
                .push_unjudged(&[&format!("{main}:refs/heads/main")]);
        }
        verdicts.extend([
            (
                "pre-push",
                push.code == 0,
                from_json(push.report.as_ref().unwrap()),
            ),
            ("pre-receive", receive.code == 0, from_human(&receive.text)),
            (
                "CI of main's push",
                pushed_ci.code == 0,
                from_json(pushed_ci.report.as_ref().unwrap()),
            ),
        ]);
        if matches!(way, Way::Squash) {
            // A squash folds the branch's untasked content into its tasks:
            // CI of the pull request judged another landing then. And one
            // squash commit of several tasks gives a path none of them
            // declares to each of them: the landing's verdict is the same,
            // the other tasks' need not be (whether or not CI of the pull
            // request reported the path: it does not for a task folder
            // without a spec, which fails as `task_spec_missing`).
            let (_, pr_ok, _) = verdicts.remove(0);
            if !ci.has("untasked_change") && (ci.has("unexpected_file") || squash_spread) {
                let landed_ok = verdicts[0].1;
                assert_eq!(
                    pr_ok, landed_ok,
                    "CI of the pull request and the squash disagree on the landing"
                );
            } else if !ci.has("untasked_change") {
                verdicts.insert(
                    0,
                    (
                        "CI of the pull request",
                        pr_ok,
                        from_json(ci.report.as_ref().unwrap()),
                    ),
                );
            }
        }
        Some(verdicts)
    }
}

fn agree(verdicts: &[(&str, bool, Verdicts)], way: Way, actions: &[Action]) {
    let (first, first_ok, first_tasks) = &verdicts[0];
    for (mode, ok, tasks) in &verdicts[1..] {
        assert_eq!(
            (ok, tasks),
            (first_ok, first_tasks),
            "{mode} and {first} disagree on the same landing ({way:?}) after {actions:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]

    #[test]
    fn every_mode_gives_the_same_landing_the_same_verdict_whichever_way_it_lands(
        actions in proptest::collection::vec(action(), 3..10),
        land_first in proptest::bool::ANY,
        ways in (way(), way()),
    ) {
        let mut world = World::new();
        for action in &actions {
            world.apply(action);
        }
        let first = if land_first { "f1" } else { "f2" };
        for (branch, way) in [(first, ways.0), (other(first), ways.1)] {
            if let Some(verdicts) = world.land(branch, way) {
                agree(&verdicts, way, &actions);
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
