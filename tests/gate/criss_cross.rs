//! Merges as git makes them: with several merge bases (a criss-cross of two
//! merged pull requests) git merges from all of them (a virtual merge
//! base), and a merge owns exactly what differs from that result. A merge
//! resolution that reverts a fix is the merge's own change; git's own clean
//! merge owns nothing.

use crate::common::landing::*;
use crate::common::text;
use mastermind_hooks::repo::Repo;

const MAINTAINER: &str = "Maintainer <maintainer@example.invalid>";
const AGENT: &str = "Agent <agent@example.invalid>";

/// Untasked changes are denied, except a maintainer's, on every branch
/// (`work_in_progress: deny`: the pull request's branch is judged as
/// strictly as what lands on main).
const POLICY: &str = "untasked:\n  default: deny\n  rules:\n    - action: allow\n      authors: [\"Maintainer <maintainer@example.invalid>\"]\nwork_in_progress: deny\n";

fn forge(a_py: &str) -> Forge {
    Forge::new(&[
        ("src/a.py", a_py),
        ("src/b.py", "b = 0\n"),
        (".mastermind/hooks.yaml", POLICY),
    ])
}

/// `git merge OTHER` (no commit), resolving every conflict with `resolve`,
/// committed as `author` at `date`.
fn merge_resolved(
    repo: &crate::common::TestRepo,
    other: &str,
    resolve: &[(&str, &str)],
    author: &str,
    date: &str,
) -> String {
    let out = repo.git_output(&[
        "merge",
        "-q",
        "--no-ff",
        "--no-commit",
        "--no-verify",
        other,
    ]);
    // A conflict is exit 1 and expected here; anything else is a failure.
    assert!(out.status.code().unwrap_or(2) <= 1, "{}", text(&out));
    for (path, content) in resolve {
        repo.write(path, content);
    }
    commit_as(repo, &format!("merge {other}"), author, date)
}

/// Every mode on `branch` landing on main.
fn every_mode(forge: &Forge, branch: &str) -> Vec<(&'static str, Verdict)> {
    vec![
        ("check --ci", forge.ci("main", branch)),
        (
            "pre-push",
            forge.pre_push(branch, &format!("heads/{branch}")),
        ),
        ("pre-receive", forge.receive(&[branch])),
    ]
}

/// main: p1 changes a line, the pull request q1 fixes the same line; main
/// merges the pull request keeping the fix, the pull request's branch
/// merges main's p1 keeping main's line. The two merges cross: merging
/// main into the branch again has two merge bases (p1 and q1), and git's
/// merge of the line conflicts.
fn crossed(forge: &Forge) {
    let repo = &forge.work;
    repo.git(&["checkout", "-q", "-b", "q"]);
    repo.write("src/a.py", "fixed\n");
    commit_as(repo, "fix a", MAINTAINER, "2024-01-01T11:00:00");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/a.py", "main's line\n");
    let p1 = commit_as(repo, "main changes a", MAINTAINER, "2024-01-01T10:00:00");
    merge_resolved(
        repo,
        "q",
        &[("src/a.py", "fixed\n")],
        MAINTAINER,
        "2024-01-01T12:00:00",
    );
    forge
        .receive(&["main", "q"])
        .expect(0, "the maintainers' history");
    repo.git(&["checkout", "-q", "q"]);
    merge_resolved(
        repo,
        &p1,
        &[("src/a.py", "main's line\n")],
        MAINTAINER,
        "2024-01-01T12:00:00",
    );
}

#[test]
fn a_merge_that_reverts_a_fix_across_crossed_merge_bases_owns_the_revert() {
    let forge = forge("original\n");
    crossed(&forge);
    // The agent merges main and "resolves" the line to the one before the fix.
    merge_resolved(
        &forge.work,
        "main",
        &[("src/a.py", "main's line\n")],
        AGENT,
        "2024-01-01T13:00:00",
    );
    let landed = forge.work.git(&["show", "HEAD:src/a.py"]);
    assert_eq!(landed, "main's line\n", "the fix is reverted");
    for (mode, verdict) in every_mode(&forge, "q") {
        verdict.expect(1, mode);
        assert!(verdict.has("task_required"), "{mode}: {verdict:?}");
        assert!(
            verdict.text.contains("src/a.py"),
            "{mode}: {}",
            verdict.text
        );
    }
}

#[test]
fn gits_own_clean_merge_across_crossed_merge_bases_owns_nothing() {
    let forge = forge("one\nk\nk\nk\ntwo\n");
    let repo = &forge.work;
    // The pull request changes the first line, main the last; each side
    // merges the other's commit (cleanly), so the merges cross.
    repo.git(&["checkout", "-q", "-b", "q"]);
    repo.write("src/a.py", "ONE\nk\nk\nk\ntwo\n");
    commit_as(repo, "q: line one", MAINTAINER, "2024-01-01T11:00:00");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/a.py", "one\nk\nk\nk\nTWO\n");
    let p1 = commit_as(repo, "main: last line", MAINTAINER, "2024-01-01T10:00:00");
    merge_resolved(repo, "q", &[], MAINTAINER, "2024-01-01T12:00:00");
    forge
        .receive(&["main", "q"])
        .expect(0, "the maintainers' history");
    repo.git(&["checkout", "-q", "q"]);
    merge_resolved(repo, &p1, &[], MAINTAINER, "2024-01-01T12:00:00");
    // The branch changes the last line again; then the agent merges main
    // with git's own merge, which is clean.
    repo.write("src/a.py", "ONE\nk\nk\nk\nTWO, again\n");
    commit_as(
        repo,
        "q: last line again",
        MAINTAINER,
        "2024-01-01T13:00:00",
    );
    let out = repo
        .command("git")
        .args(["merge", "-q", "--no-edit", "--no-verify", "main"])
        .env("GIT_AUTHOR_NAME", "Agent")
        .env("GIT_AUTHOR_EMAIL", "agent@example.invalid")
        .output()
        .unwrap();
    assert!(out.status.success(), "git's merge is clean: {}", text(&out));
    for (mode, verdict) in every_mode(&forge, "q") {
        verdict.expect(0, mode);
        assert!(!verdict.has("task_required"), "{mode}: {verdict:?}");
    }
}

/// The gate's merge of two commits is git's: the same tree as
/// `git merge-tree --write-tree` and the same conflicted paths, on
/// criss-cross histories, renames, one side an ancestor of the other, and
/// unrelated histories.
#[test]
fn the_gates_merge_is_gits_merge() {
    let forge = forge("original\n");
    crossed(&forge);
    let repo = &forge.work;
    // A rename on one side, an edit of the renamed file on the other.
    repo.git(&["checkout", "-q", "-b", "renamer", "main"]);
    repo.git(&["mv", "src/b.py", "src/renamed.py"]);
    commit_as(repo, "rename b", MAINTAINER, "2024-01-02T10:00:00");
    repo.git(&["checkout", "-q", "-b", "editor", "main"]);
    repo.write("src/b.py", "b = 1\n");
    commit_as(repo, "edit b", MAINTAINER, "2024-01-02T10:00:00");
    repo.git(&["checkout", "-q", "--orphan", "unrelated"]);
    repo.git(&["rm", "-q", "-r", "--cached", "."]);
    repo.write("other.txt", "x\n");
    repo.git(&["add", "other.txt"]);
    commit_as(repo, "unrelated", MAINTAINER, "2024-01-02T10:00:00");
    let gate = Repo::discover(repo.path()).unwrap();
    let id = |rev: &str| {
        gix::ObjectId::from_hex(repo.git(&["rev-parse", rev]).trim().as_bytes()).unwrap()
    };
    let pairs = [
        ("q", "main"),
        ("main", "q"),
        ("q^1", "q^2"),
        ("renamer", "editor"),
        ("editor", "renamer"),
        ("main", "main~1"),
        ("main~1", "main"),
        ("main", "unrelated"),
    ];
    for (ours, theirs) in pairs {
        // By id: a conflicted file's markers name the commits as given.
        let (ours_hex, theirs_hex) = (id(ours).to_string(), id(theirs).to_string());
        let git = repo.git_output(&[
            "merge-tree",
            "--write-tree",
            "-z",
            "--name-only",
            "--no-messages",
            &ours_hex,
            &theirs_hex,
        ]);
        let ours_id = id(ours);
        let theirs_id = id(theirs);
        let merged = gate.merge_commits(ours_id, theirs_id).unwrap();
        if !git.status.success() && git.status.code() != Some(1) {
            assert!(
                merged.is_none(),
                "{ours} {theirs}: git refuses, the gate must too"
            );
            continue;
        }
        let merged = merged.unwrap_or_else(|| panic!("{ours} {theirs}: no merge"));
        let stdout = String::from_utf8_lossy(&git.stdout).into_owned();
        let mut fields = stdout.split('\0').filter(|f| !f.is_empty());
        let tree = fields.next().unwrap();
        let mut conflicts: Vec<String> = fields.map(str::to_string).collect();
        conflicts.sort();
        conflicts.dedup();
        assert_eq!(merged.tree.to_string(), tree, "{ours} {theirs}");
        let mut ours_conflicts: Vec<String> =
            merged.conflicts.iter().map(|p| p.to_string()).collect();
        ours_conflicts.sort();
        ours_conflicts.dedup();
        assert_eq!(ours_conflicts, conflicts, "{ours} {theirs}");
    }
}
