//! The ways teams land a task, with git's own commands, through the hooks
//! `init` installs and a bare server with `install --server`: README's
//! quick-start task, after main moved by one unrelated file, lands by a
//! squash, a rebase-merge, a cherry-pick, a rebased branch and a merge
//! commit; a reviewer's follow-up and a merge of main that resolves a
//! conflict in the task's declared file belong to the task. What must stay
//! refused does: an edit after the check without a re-run, and a squash
//! that carries an undeclared file.

use super::walkthroughs::{run_script, shell_blocks, transcript};
use crate::common::require_tool;
use std::path::Path;
use std::process::Output;

/// The quick start, then main moves (`main_moves`, run in `demo` on main
/// before the server gates pushes), then the server's pre-receive hook.
struct Landing {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

const NEWS: &str = "mkdir -p docs && printf 'news\\n' > docs/news.md && git add docs && git commit -qm 'docs: news'";

impl Landing {
    fn new(main_moves: &str) -> Option<Landing> {
        // The sample project's check runs python3.
        require_tool("python3")?;
        let readme = std::fs::read_to_string("README.md").expect("README.md");
        let landing = Landing {
            dir: tempfile::tempdir().expect("tempdir"),
            home: tempfile::tempdir().expect("home"),
        };
        landing
            .step("the quick start", &shell_blocks(&readme, "quickstart"))
            .ok();
        landing
            .step(
                "main moves on",
                &format!(
                    "cd demo && git switch -q main && {main_moves} && git push -q origin main"
                ),
            )
            .ok();
        landing
            .step(
                "install --server",
                "cd demo-origin.git && mastermind-hooks install --server",
            )
            .ok();
        Some(landing)
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn step(&self, what: &str, script: &str) -> Step {
        let output = run_script(script, self.path(), self.home.path());
        eprintln!("== {what}\n{}", transcript(&output));
        Step {
            what: what.to_string(),
            output,
        }
    }

    /// CI of main's push from `old` to main's tip, in a fresh clone.
    fn ci_of_main(&self, old: &str) -> Step {
        self.step(
            "CI of main's push",
            &format!(
                "rm -rf ci-main && git clone -q demo-origin.git ci-main && cd ci-main && mastermind-hooks check --ci --base {old} --head origin/main"
            ),
        )
    }

    /// CI of the pull request of `change-value` into main, in a fresh clone.
    fn ci_of_pull_request(&self, extra: &str) -> Step {
        self.step(
            "CI of the pull request",
            &format!(
                "rm -rf ci-pr && git clone -q demo-origin.git ci-pr && cd ci-pr && mastermind-hooks check --ci --base origin/main --head origin/change-value {extra}"
            ),
        )
    }

    /// `script` pushes main: it passes, the server's pre-receive passes the
    /// task, and CI of main's push (from main's tip before it) passes.
    /// Returns CI's step, for what it must say.
    fn lands_on_main(&self, what: &str, script: &str) -> Step {
        let old = self.main_on_server();
        self.step(what, script)
            .ok()
            .says("remote: ok: task .mastermind/tasks/change-value in refs/heads/main");
        let ci = self.ci_of_main(&old);
        ci.ok();
        ci
    }

    /// The branch `change-value` merged into main with `git merge --no-ff`
    /// through pre-merge-commit and pushed: it passes and says none of
    /// `never`, and CI of main's push passes.
    fn merge_lands(&self, never: &[&str]) {
        let old = self.main_on_server();
        let merged = self.step(
            "git merge --no-ff through pre-merge-commit, then push",
            "cd demo && git switch -q main && git merge -q --no-ff -m 'Merge change-value' change-value && git push -q origin main",
        );
        merged.ok();
        for text in never {
            merged.never_says(text);
        }
        self.ci_of_main(&old).ok();
    }

    /// Main's tip as the server has it.
    fn main_on_server(&self) -> String {
        let out = run_script(
            "git -C demo-origin.git rev-parse main",
            self.path(),
            self.home.path(),
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

struct Step {
    what: String,
    output: Output,
}

impl Step {
    fn printed(&self) -> String {
        format!(
            "{}{}",
            String::from_utf8_lossy(&self.output.stdout),
            String::from_utf8_lossy(&self.output.stderr)
        )
    }

    /// Passed, with no error anywhere in what it printed.
    #[track_caller]
    fn ok(&self) -> &Self {
        assert!(
            self.output.status.success() && !self.printed().contains("error["),
            "{} should pass:\n{}",
            self.what,
            transcript(&self.output)
        );
        self
    }

    /// Refused, naming `code`.
    #[track_caller]
    fn refused(&self, code: &str) -> &Self {
        assert!(
            !self.output.status.success() && self.printed().contains(&format!("error[{code}]")),
            "{} should be refused with {code}:\n{}",
            self.what,
            transcript(&self.output)
        );
        self
    }

    #[track_caller]
    fn says(&self, text: &str) -> &Self {
        assert!(
            self.printed().contains(text),
            "{} should say {text:?}:\n{}",
            self.what,
            transcript(&self.output)
        );
        self
    }

    #[track_caller]
    fn never_says(&self, text: &str) -> &Self {
        assert!(
            !self.printed().contains(text),
            "{} should not say {text:?}:\n{}",
            self.what,
            transcript(&self.output)
        );
        self
    }
}

#[test]
fn the_quick_start_task_squash_merged_after_main_moved_passes_everywhere() {
    let Some(land) = Landing::new(NEWS) else {
        return;
    };
    land.step(
        "git merge --squash and commit, through pre-commit",
        "cd demo && git merge --squash -q change-value && git commit -qm 'value() returns 2 (#1)'",
    )
    .ok()
    .says("ok: task .mastermind/tasks/change-value (");
    land.lands_on_main(
        "git push of main, through pre-push and pre-receive",
        "cd demo && git push -q origin main",
    )
    .says("ok: task .mastermind/tasks/change-value (");
}

#[test]
fn a_rebase_merge_a_cherry_pick_and_a_rebased_branch_pass_everywhere() {
    // A platform's "Rebase and merge": the branch's commits replayed onto
    // main, main fast-forwarded.
    let Some(land) = Landing::new(NEWS) else {
        return;
    };
    land.lands_on_main(
        "rebase-merge",
        "cd demo && git switch -q -c replay change-value && git rebase -q main && git switch -q main && git merge -q --ff-only replay && git push -q origin main",
    );

    // A cherry-pick of the task's commit onto main.
    let Some(land) = Landing::new(NEWS) else {
        return;
    };
    land.lands_on_main(
        "cherry-pick",
        "cd demo && git cherry-pick change-value && git push -q origin main",
    );

    // The pull request's branch rebased onto the moved main, then merged.
    let Some(land) = Landing::new(NEWS) else {
        return;
    };
    land.step(
        "rebase the branch and force-push it",
        "cd demo && git switch -q change-value && git rebase -q main && git push -q -f origin change-value",
    )
    .ok()
    .never_says("receipt_snapshot_changed");
    land.ci_of_pull_request("").ok();
    land.merge_lands(&[]);
}

#[test]
fn a_reviewers_follow_up_belongs_to_the_task_and_a_passing_rerun_clears_it() {
    let Some(land) = Landing::new(NEWS) else {
        return;
    };
    // A maintainer's one-line fix in the declared file, on the agent's
    // branch: work in progress there, with the stale receipt named.
    land.step(
        "a reviewer's follow-up, pushed",
        "cd demo && git switch -q change-value && printf 'def value():\\n    # the answer\\n    return 2\\n' > lib.py && GIT_AUTHOR_NAME=Reviewer GIT_AUTHOR_EMAIL=reviewer@example.invalid git commit -qam 'human: comment' && git push -q origin change-value",
    )
    .ok()
    .says("warning[receipt_snapshot_changed]")
    .never_says("task_required");
    // CI without a re-run: the check never ran on that content.
    land.ci_of_pull_request("")
        .refused("receipt_snapshot_changed")
        .says("lib.py (by commit")
        .says("author Reviewer <reviewer@example.invalid>")
        .never_says("task_required")
        .never_says("look for edits");
    // CI's re-run on exactly what lands passes: the staleness is a note.
    land.ci_of_pull_request("--rerun")
        .ok()
        .says("note[receipt_snapshot_changed]")
        .says("note[rerun_passed]")
        .says("1 task checked: 1 passed, 0 failed");
    // Or the agent re-runs the check and commits the receipt: then every
    // mode passes, the merge to main included.
    land.step(
        "re-run and commit the receipt",
        "cd demo && mastermind-hooks verification run .mastermind/tasks/change-value/spec.md --id python3-unittest && git add -A && git commit -qm 'change-value: re-run after review' && git push -q origin change-value",
    )
    .ok();
    land.ci_of_pull_request("").ok();
    land.merge_lands(&["untasked_change"]);
}

#[test]
fn a_merge_of_main_that_resolves_a_conflict_in_a_declared_file_belongs_to_the_task() {
    // Main changes the task's declared file meanwhile (and an unrelated
    // one).
    let Some(land) = Landing::new(&format!(
        "{NEWS} && printf 'def value():\\n    return 1  # main\\n' > lib.py && git commit -qam 'main: note on value'"
    )) else {
        return;
    };
    land.step(
        "merge main, resolve the conflict, re-run, push",
        "cd demo && git switch -q change-value && (git merge -q main || true) && printf 'def value():\\n    return 2  # main\\n' > lib.py && git add lib.py && git commit -q --no-edit && mastermind-hooks verification run .mastermind/tasks/change-value/spec.md --id python3-unittest && git add -A && git commit -qm 'change-value: re-run after merging main' && git push -q origin change-value",
    )
    .ok()
    .never_says("task_required");
    land.ci_of_pull_request("").ok();
    land.merge_lands(&[]);
}

#[test]
fn an_edit_after_the_check_and_a_squash_carrying_an_undeclared_file_stay_refused() {
    // The agent edits the declared file after its check and does not run
    // it again.
    let Some(land) = Landing::new(NEWS) else {
        return;
    };
    land.step(
        "an edit after the check, pushed",
        "cd demo && git switch -q change-value && printf 'def value():\\n    return 1 + 1\\n' > lib.py && git commit -qam 'tidy' && git push -q origin change-value",
    )
    .ok();
    land.ci_of_pull_request("")
        .refused("receipt_snapshot_changed");
    land.step(
        "its squash, through pre-commit",
        "cd demo && git switch -q main && git merge --squash -q change-value && git commit -qm squash",
    )
    .refused("receipt_snapshot_changed");
    land.step(
        "its squash, pushed past the local hooks",
        "cd demo && git commit -q --no-verify -m squash && git push -q --no-verify origin main",
    )
    .refused("receipt_snapshot_changed");

    // A file no task declares, folded into the task by a squash.
    let Some(land) = Landing::new(NEWS) else {
        return;
    };
    land.step(
        "an undeclared file on the branch",
        "cd demo && git switch -q change-value && printf 'x = 1\\n' > extra.py && git add extra.py && git commit -qm 'extra' && git switch -q main && git merge --squash -q change-value && git commit -qm squash",
    )
    .refused("unexpected_file")
    .says("extra.py (not recorded by the receipt");
    land.step(
        "the squash pushed past the local hooks",
        "cd demo && git commit -q --no-verify -m squash && git push -q --no-verify origin main",
    )
    .refused("unexpected_file");
}
