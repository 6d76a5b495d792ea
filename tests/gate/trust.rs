//! Attacks by a hostile agent that can write any file and make any commit:
//! each one reproduced on a real repository, each ending non-zero with a
//! named code. Nothing a change brings may loosen how it is judged.

use crate::common::tasks::*;
use crate::common::*;

fn check(repo: &TestRepo, args: &[&str]) -> (i32, Vec<String>, String) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend(["--format", "json"]);
    let out = repo.run(&all, None);
    let report = json(&out);
    (status(&out), codes(&report), text(&out))
}

fn has(codes: &[String], code: &str) -> bool {
    codes.iter().any(|c| c == code)
}

/// A repository with one commit and a bare remote that has it.
fn base_repo() -> (TestRepo, tempfile::TempDir) {
    let repo = TestRepo::new();
    repo.write("src/a.py", "a = 0\n");
    repo.write("src/evil.py", "safe = True\n");
    repo.write("README.md", "# demo\n");
    repo.commit_all("initial");
    let remote = tempfile::tempdir().expect("remote");
    let bare = remote.path().join("origin.git");
    repo.git(&["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    repo.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    repo.git(&["push", "-q", "origin", "main"]);
    (repo, remote)
}

/// Commit `require_task: true` on main (on every branch:
/// `work_in_progress: deny`); with `push`, also push it. The new HEAD.
fn make_strict(repo: &TestRepo, push: bool) -> String {
    repo.write(
        ".mastermind/hooks.yaml",
        "require_task: true\nwork_in_progress: deny\n",
    );
    repo.commit_all("strict");
    if push {
        repo.git(&["push", "-q", "origin", "main"]);
    }
    repo.head()
}

fn push_lines(repo: &TestRepo, local: &str, remote_ref: &str, old: &str) -> (i32, Vec<String>) {
    let tip = repo.git(&["rev-parse", local]).trim().to_string();
    let input = format!("refs/heads/x {tip} {remote_ref} {old}\n");
    let origin = repo
        .git(&["remote", "get-url", "origin"])
        .trim()
        .to_string();
    let out = repo.run(
        &["check", "--push", "origin", &origin, "--format", "json"],
        Some(&input),
    );
    (status(&out), codes(&json(&out)))
}

#[test]
fn a_baseline_outside_the_base_is_refused_in_every_mode() {
    let (repo, _remote) = base_repo();
    let main = repo.head();
    // A commit nobody has seen, whose tree already holds the undeclared
    // change: as the task's baseline it would hide that change.
    repo.write("src/evil.py", "safe = False\n");
    repo.git(&["add", "-A"]);
    let tree = repo.git(&["write-tree"]).trim().to_string();
    let forged = repo
        .git(&["commit-tree", &tree, "-p", &main, "-m", "forged baseline"])
        .trim()
        .to_string();
    do_task(&repo, "001-a", "src/a.py", "alpha");
    repo.write(
        ".mastermind/tasks/001-a/state.json",
        &format!("{{\"baseline_ref\": \"{forged}\"}}\n"),
    );
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 1, "{out}");
    assert!(has(&codes, "task_baseline_invalid"), "{codes:?}");
    // The undeclared change is still the task's.
    assert!(has(&codes, "unexpected_file"), "{codes:?}");
    repo.git(&["commit", "-q", "--no-verify", "-m", "task"]);
    let (code, codes) = push_lines(&repo, "HEAD", "refs/heads/main", &main);
    assert_eq!(code, 1);
    assert!(has(&codes, "task_baseline_invalid"), "{codes:?}");
    let (code, codes, _) = check(&repo, &["--ci", "--base", &main, "--head", "HEAD"]);
    assert_eq!(code, 1);
    assert!(has(&codes, "task_baseline_invalid"), "{codes:?}");
}

#[test]
fn the_pull_requests_own_first_commit_is_no_baseline() {
    let (repo, _remote) = base_repo();
    let main = repo.head();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/evil.py", "safe = False\n");
    let first = repo.commit_all("undeclared change first");
    do_task(&repo, "001-a", "src/a.py", "alpha");
    repo.write(
        ".mastermind/tasks/001-a/state.json",
        &format!("{{\"baseline_ref\": \"{first}\"}}\n"),
    );
    repo.commit_all("task");
    let (code, codes, _) = check(&repo, &["--ci", "--base", &main, "--head", "feature"]);
    assert_eq!(code, 1);
    assert!(has(&codes, "task_baseline_invalid"), "{codes:?}");
}

/// A task whose spec is on the base (the plan landed first).
fn planned(repo: &TestRepo) {
    write_spec(repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.write(
        ".mastermind/tasks/001-a/spec.md",
        &std::fs::read_to_string(repo.path().join(".mastermind/tasks/001-a/spec.md"))
            .unwrap()
            .replace(
                "---\n# Task",
                "acceptance:\n  - id: alpha-present\n    statement: a.py says alpha.\n    checks: [unit]\n---\n# Task",
            ),
    );
    repo.commit_all("plan task a");
}

#[test]
fn a_change_cannot_widen_its_own_spec_while_doing_the_work() {
    let (repo, _remote) = base_repo();
    planned(&repo);
    // The work, plus a wider spec in the same commit.
    let spec = ".mastermind/tasks/001-a/spec.md";
    let text = std::fs::read_to_string(repo.path().join(spec)).unwrap();
    repo.write(
        spec,
        &text.replace(
            "  - file: src/a.py\n",
            "  - file: src/a.py\n  - file: src/evil.py\n",
        ),
    );
    repo.write("src/a.py", "alpha\n");
    repo.write("src/evil.py", "safe = False\n");
    verify(&repo, "001-a");
    write_report(
        &repo,
        "001-a",
        &["src/a.py", "src/evil.py"],
        "src/a.py",
        "alpha",
    );
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 1, "{out}");
    assert!(has(&codes, "spec_changed_with_work"), "{codes:?}");
    assert!(
        !has(&codes, "unexpected_file"),
        "the widened spec declares it: {codes:?}"
    );
}

#[test]
fn a_change_cannot_drop_observed_checks_or_acceptance() {
    let (repo, _remote) = base_repo();
    planned(&repo);
    let spec = ".mastermind/tasks/001-a/spec.md";
    // A planning change (nothing outside .mastermind/) that drops the
    // observed check and the acceptance criterion.
    repo.write(
        spec,
        "---\nmode: verified\ntouches:\n  - file: src/a.py\nverify:\n  - cmd: grep -q alpha src/a.py\n---\n# Task 001-a\n",
    );
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 1, "{out}");
    assert!(has(&codes, "spec_loosened"), "{codes:?}");
    assert!(out.contains("observed check: unit"), "{out}");
    assert!(out.contains("acceptance criterion: alpha-present"), "{out}");
}

#[test]
fn a_byte_order_mark_cannot_turn_a_spec_into_a_legacy_spec() {
    let (repo, _remote) = base_repo();
    planned(&repo);
    let spec = ".mastermind/tasks/001-a/spec.md";
    let text = std::fs::read_to_string(repo.path().join(spec)).unwrap();
    repo.write(spec, &format!("\u{feff}{text}"));
    repo.write("src/a.py", "alpha\n");
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(has(&codes, "spec_bom"), "{codes:?}");
    assert!(has(&codes, "spec_frontmatter_removed"), "{codes:?}");
    // A new spec with a BOM is refused too.
    let (repo, _remote) = base_repo();
    write_spec(&repo, "002-b", &["src/a.py"], "src/a.py", "alpha");
    let text = std::fs::read_to_string(repo.path().join(spec_path("002-b"))).unwrap();
    repo.write(&spec_path("002-b"), &format!("\u{feff}{text}"));
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(has(&codes, "spec_bom"), "{codes:?}");
}

#[test]
fn specs_on_the_base_policy_refuses_a_plan_that_arrives_with_the_work() {
    let (repo, _remote) = base_repo();
    repo.write(
        ".mastermind/hooks.yaml",
        "specs:\n  require_on_base: true\n",
    );
    repo.commit_all("plans land first");
    do_task(&repo, "001-a", "src/a.py", "alpha");
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(has(&codes, "spec_not_on_base"), "{codes:?}");
}

#[test]
fn a_configuration_change_is_validated_listed_and_planning() {
    let (repo, _remote) = base_repo();
    make_strict(&repo, false);
    // Relaxing the gate is planning: the local hook warns (it cannot know
    // who plans) and says what it loosens...
    repo.write(".mastermind/hooks.yaml", "exclude: ['**']\n");
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 0, "{out}");
    assert!(has(&codes, "control_file_changed"), "{codes:?}");
    assert!(!has(&codes, "task_required"), "never untasked: {codes:?}");
    assert!(has(&codes, "config_loosened"), "{codes:?}");
    assert!(out.contains("exclude adds **"), "{out}");
    assert!(
        out.contains("CI and pre-receive refuse it: no planning rule allows a planner"),
        "{out}"
    );
    // ...and CI refuses it: no planning rule names a planner.
    repo.git(&["commit", "-q", "--no-verify", "-m", "relax"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", "HEAD~1", "--head", "HEAD"]);
    assert_eq!(code, 1, "{out}");
    assert!(has(&codes, "control_file_changed"), "{codes:?}");
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    // An invalid configuration is refused before it can land.
    repo.write(".mastermind/hooks.yaml", "require_task: maybe\n");
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(has(&codes, "config_change_invalid"), "{codes:?}");
    // validate knows the file.
    let out = repo.run(&["validate", ".mastermind/hooks.yaml"], None);
    assert_eq!(status(&out), 1, "{}", text(&out));
    assert!(text(&out).contains("hooks_config_invalid"));
}

#[test]
fn an_invalid_configuration_on_the_base_never_locks_the_repository() {
    let (repo, _remote) = base_repo();
    repo.write(".mastermind/hooks.yaml", "require_task: maybe\n");
    let main = repo.commit_all("broken config landed somehow");
    // Any other change cannot be checked...
    repo.write("src/a.py", "a = 1\n");
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 2);
    assert!(has(&codes, "config_invalid"), "{codes:?}");
    repo.git(&["reset", "-q"]);
    repo.git(&["checkout", "-q", "--", "src/a.py"]);
    // ...but a change that only repairs it lands, in every mode.
    repo.write(".mastermind/hooks.yaml", "require_task: true\n");
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(codes, ["config_repaired"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "repair"]);
    let (code, codes) = push_lines(&repo, "HEAD", "refs/heads/main", &main);
    assert_eq!((code, codes), (0, vec!["config_repaired".to_string()]));
    let (code, _, _) = check(&repo, &["--ci", "--base", &main, "--head", "HEAD"]);
    assert_eq!(code, 0);
}

#[test]
fn files_under_mastermind_are_content_and_links_there_are_refused() {
    let (repo, _remote) = base_repo();
    // A helper script inside the task folder is code, not bookkeeping.
    do_task(&repo, "001-a", "src/a.py", "alpha");
    repo.write(".mastermind/tasks/001-a/helper.sh", "#!/bin/sh\nrm -rf /\n");
    repo.write(".mastermind/tools/lint.sh", "#!/bin/sh\nexit 0\n");
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 1, "{out}");
    assert!(has(&codes, "unexpected_file"), "{codes:?}");
    assert!(out.contains(".mastermind/tasks/001-a/helper.sh"), "{out}");
    assert!(out.contains(".mastermind/tools/lint.sh"), "{out}");
    // Untasked code under .mastermind/ meets the untasked policy.
    repo.git(&["reset", "-q"]);
    std::fs::remove_dir_all(repo.path().join(".mastermind/tasks")).unwrap();
    make_strict(&repo, false);
    repo.write(".mastermind/tools/lint.sh", "#!/bin/sh\nexit 1\n");
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!((code, codes), (1, vec!["task_required".to_string()]));
    // A symlink under .mastermind/ is refused.
    repo.git(&["reset", "-q", "--hard"]);
    std::os::unix::fs::symlink("../src/a.py", repo.path().join(".mastermind/link.py")).unwrap();
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(has(&codes, "mastermind_symlink"), "{codes:?}");
    // So is `.mastermind` itself as a link.
    let (fresh, _remote) = base_repo();
    std::fs::create_dir(fresh.path().join("elsewhere")).unwrap();
    fresh.write("elsewhere/hooks.yaml", "exclude: ['**']\n");
    std::os::unix::fs::symlink("elsewhere", fresh.path().join(".mastermind")).unwrap();
    fresh.git(&["add", "-A"]);
    let (code, codes, _) = check(&fresh, &["--staged"]);
    assert_eq!(code, 1, "{codes:?}");
    assert!(has(&codes, "mastermind_symlink"), "{codes:?}");
}

#[test]
fn a_ci_definition_change_is_a_finding() {
    let (repo, _remote) = base_repo();
    repo.write(".github/workflows/gate.yml", "on: push\n");
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 0);
    assert!(has(&codes, "ci_definition_changed"), "{codes:?}");
}

#[test]
fn replace_refs_cannot_show_the_gate_another_commit() {
    let (repo, _remote) = base_repo();
    let main = repo.head();
    // The pushed commit changes src/evil.py with no task (denied); a
    // local replace ref swaps in a harmless commit for the gate's eyes.
    let strict = make_strict(&repo, true);
    repo.write("src/evil.py", "safe = False\n");
    let evil = repo.commit_all("evil");
    repo.git(&["checkout", "-q", "--detach", &strict]);
    repo.write("README.md", "# harmless\n");
    repo.write(".mastermind/tasks/x/spec.md", "legacy spec\n");
    let decoy = repo.commit_all("decoy");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["replace", &evil, &decoy]);
    let (code, codes) = push_lines(&repo, &evil, "refs/heads/main", &strict);
    assert_eq!(code, 1, "{codes:?}");
    assert!(has(&codes, "task_required"), "{codes:?}");
    let _ = main;
}

#[test]
fn a_new_branch_base_comes_from_the_remote_not_from_tracking_refs() {
    let (repo, _remote) = base_repo();
    make_strict(&repo, true);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/evil.py", "safe = False\n");
    let evil = repo.commit_all("evil");
    // A forged remote-tracking ref claims the remote already has it.
    repo.git(&["update-ref", "refs/remotes/origin/feature", &evil]);
    let zero = repo.zero_id();
    let (code, codes) = push_lines(&repo, "feature", "refs/heads/feature", &zero);
    assert_eq!(code, 1, "{codes:?}");
    assert!(has(&codes, "task_required"), "{codes:?}");
}

#[test]
fn a_merge_in_progress_is_judged_by_what_the_merge_itself_changes() {
    let (repo, _remote) = base_repo();
    make_strict(&repo, false);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    do_task(&repo, "001-a", "src/a.py", "alpha");
    repo.commit_all("task a");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("README.md", "# main moved\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "main moves"]);
    // `git merge feature --no-commit`: the index holds the merge; its
    // own change is nothing beyond what the parents bring.
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "feature"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    // An evil merge resolution is the merge's own change.
    repo.write("src/evil.py", "safe = False\n");
    repo.git(&["add", "-A"]);
    let (code, codes, _) = check(&repo, &["--staged"]);
    assert_eq!(code, 1);
    assert!(has(&codes, "task_required"), "{codes:?}");
}

#[test]
fn a_crafted_index_cannot_show_the_gate_other_files_than_git_commits() {
    crafted_index_is_refused("src/evil.py");
    // Deeper than the cached tree that git would write whole: the check
    // descends into every subtree that differs from the commit's.
    crafted_index_is_refused("src/deep/er/evil.py");
}

fn crafted_index_is_refused(target: &str) {
    let (repo, _remote) = base_repo();
    if target != "src/evil.py" {
        repo.write(target, "safe = True\n");
        repo.commit_all("a nested module");
    }
    make_strict(&repo, false);
    // A tree holding the undeclared change, then an index that reads that
    // tree (with valid cached trees) but lists the harmless blob instead.
    repo.write(target, "safe = False\n");
    repo.git(&["add", "-A"]);
    let evil_tree = repo.git(&["write-tree"]).trim().to_string();
    let harmless = repo
        .git(&["rev-parse", &format!("HEAD:{target}")])
        .trim()
        .to_string();
    repo.git(&["read-tree", &evil_tree]);
    let index_path = repo.path().join(".git/index");
    let mut index = std::fs::read(&index_path).unwrap();
    let needle = format!("{target}\0");
    let needle = needle.as_bytes();
    let at = index
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("entry");
    // The entry's object id sits before its flags (2 bytes) and name, as
    // wide as the repository's ids; the index ends in a hash as wide.
    let oid = gix::ObjectId::from_hex(harmless.as_bytes()).unwrap();
    let width = oid.as_bytes().len();
    index[at - 2 - width..at - 2].copy_from_slice(oid.as_bytes());
    let body = index.len() - width;
    let mut hasher = gix::hash::hasher(oid.kind());
    hasher.update(&index[..body]);
    let checksum = hasher.try_finalize().unwrap();
    index[body..].copy_from_slice(checksum.as_bytes());
    std::fs::write(&index_path, &index).unwrap();
    // A visible, harmless change: staging it invalidates only the root's
    // cached tree, so `src/` keeps the crafted one.
    repo.write("README.md", "# demo, tidied\n");
    repo.git(&["add", "README.md"]);
    // git lists the harmless blob...
    let listed = repo.git(&["ls-files", "-s", target]);
    assert!(listed.contains(&harmless), "{listed}");
    // ...and the gate refuses to judge an index git would not commit as listed.
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 2, "{out}");
    assert!(has(&codes, "git_index_cache_tree_mismatch"), "{codes:?}");
    // What git would really commit is the cached tree.
    repo.git(&["commit", "-q", "--no-verify", "-m", "crafted"]);
    let committed = repo.git(&["show", &format!("HEAD:{target}")]);
    assert_eq!(committed, "safe = False\n", "the attack is real");
}

#[test]
fn a_merge_cannot_bring_back_old_content_from_an_old_parent() {
    let (repo, _remote) = base_repo();
    let lax = repo.head();
    let strict = make_strict(&repo, true);
    // A merge whose second parent is the old, lax commit, resolved to the
    // lax tree's src/evil.py change plus the old configuration: the paths
    // equal one parent, but git's own merge of the two would keep main's.
    repo.write("src/evil.py", "safe = False\n");
    repo.git(&["rm", "-q", ".mastermind/hooks.yaml"]);
    repo.git(&["add", "-A"]);
    let tree = repo.git(&["write-tree"]).trim().to_string();
    repo.git(&["checkout", "-q", "--", "."]);
    let merge = repo
        .git(&[
            "commit-tree",
            &tree,
            "-p",
            &strict,
            "-p",
            &lax,
            "-m",
            "merge old work",
        ])
        .trim()
        .to_string();
    let (code, codes) = push_lines(&repo, &merge, "refs/heads/main", &strict);
    assert_eq!(code, 1, "{codes:?}");
    assert!(has(&codes, "task_required"), "{codes:?}");
    let (code, codes, out) = check(&repo, &["--ci", "--base", &strict, "--head", &merge]);
    assert_eq!(code, 1, "{codes:?}\n{out}");
    assert!(has(&codes, "task_required"), "{codes:?}");
}

#[test]
fn a_new_branch_from_a_stale_clone_asks_for_a_fetch() {
    let (repo, remote) = base_repo();
    // Someone else moves the remote's main.
    let other = TestRepo::new();
    let bare = remote.path().join("origin.git");
    other.git(&["fetch", "-q", bare.to_str().unwrap(), "main"]);
    other.git(&["reset", "-q", "--hard", "FETCH_HEAD"]);
    other.write("README.md", "# moved\n");
    other.commit_all("moved");
    other.git(&["push", "-q", bare.to_str().unwrap(), "main"]);
    // This clone has not fetched: the new branch's base is unknown.
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/a.py", "a = 1\n");
    repo.commit_all("work");
    let tip = repo.head();
    let zero = repo.zero_id();
    let (code, codes) = push_lines(&repo, &tip, "refs/heads/feature", &zero);
    assert_eq!(code, 2, "{codes:?}");
    assert!(has(&codes, "push_base_unknown"), "{codes:?}");
    repo.git(&["fetch", "-q", "origin"]);
    let (code, codes) = push_lines(&repo, &tip, "refs/heads/feature", &zero);
    assert_eq!(code, 0, "{codes:?}");
}

#[test]
fn an_old_baseline_cannot_hide_a_task_undoing_landed_work() {
    let (repo, _remote) = base_repo();
    let old = repo.head();
    repo.write("audit.py", "AUDIT = True\n");
    repo.commit_all("a maintainer adds the audit");
    repo.git(&["push", "-q", "origin", "main"]);
    let main = repo.head();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    // The task names the commit before the audit as its baseline and
    // deletes the audit: at the baseline the file did not exist either.
    std::fs::remove_file(repo.path().join("audit.py")).unwrap();
    repo.write(
        ".mastermind/tasks/001-a/state.json",
        &format!("{{\"baseline_ref\": \"{old}\"}}\n"),
    );
    do_task(&repo, "001-a", "src/a.py", "alpha");
    repo.commit_all("task a");
    let (code, codes, out) = check(&repo, &["--ci", "--base", &main, "--head", "HEAD"]);
    assert_eq!(code, 1, "{codes:?}\n{out}");
    assert!(has(&codes, "unexpected_file"), "{codes:?}");
    assert!(out.contains("audit.py"), "{out}");
}

#[test]
fn a_spec_tightened_on_the_base_binds_a_branch_started_before() {
    let (repo, remote) = base_repo();
    // The plan lands with a wide scope; a maintainer narrows it later.
    write_spec(
        &repo,
        "001-a",
        &["src/a.py", "src/evil.py"],
        "src/a.py",
        "alpha",
    );
    repo.commit_all("plan task a");
    repo.git(&["push", "-q", "origin", "main"]);
    let planned = repo.head();
    write_spec(&repo, "001-a", &["src/a.py"], "src/a.py", "alpha");
    repo.commit_all("narrow task a");
    repo.git(&["push", "-q", "origin", "main"]);
    let narrowed = repo.head();
    // The branch started at the wide plan and changes both files.
    repo.git(&["checkout", "-q", "-b", "feature", &planned]);
    repo.write("src/evil.py", "safe = False\n");
    repo.write("src/a.py", "alpha\n");
    verify(&repo, "001-a");
    write_report(
        &repo,
        "001-a",
        &["src/a.py", "src/evil.py"],
        "src/a.py",
        "alpha",
    );
    repo.commit_all("task a");
    // CI judges the merge into main, whose spec is the narrow one.
    let (code, codes, out) = check(&repo, &["--ci", "--base", &narrowed, "--head", "HEAD"]);
    assert_eq!(code, 1, "{codes:?}\n{out}");
    assert!(has(&codes, "unexpected_file"), "{codes:?}");
    // After merging main in, pushing the branch gives the same verdict.
    repo.git(&["merge", "-q", "--no-edit", "main"]);
    let tip = repo.head();
    let zero = repo.zero_id();
    let (code, codes) = push_lines(&repo, &tip, "refs/heads/feature", &zero);
    assert_eq!(code, 1, "{codes:?}");
    assert!(has(&codes, "unexpected_file"), "{codes:?}");
    drop(remote);
}

#[test]
fn runtime_file_names_hide_no_gitlink_or_symlink() {
    let (repo, _remote) = base_repo();
    make_strict(&repo, false);
    // The controller's database as a plain file is its bookkeeping...
    repo.write(".mastermind/mmcg.db", "SQLite format 3\0");
    repo.git(&["add", "-A"]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 0, "{codes:?}\n{out}");
    // ...but a gitlink or a symlink at such a name is content.
    let head = repo.head();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{head},.mastermind/mmcg.db-wal"),
    ]);
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_eq!(code, 1, "{codes:?}\n{out}");
    assert!(has(&codes, "task_required"), "{codes:?}");
    // CI says the same of the commit.
    repo.git(&["commit", "-q", "--no-verify", "-m", "a gitlink"]);
    let (code, codes, out) = check(&repo, &["--ci", "--base", &head, "--head", "HEAD"]);
    assert_eq!(code, 1, "{codes:?}\n{out}");
    assert!(has(&codes, "task_required"), "{codes:?}");
}

#[test]
fn pre_push_refuses_rewriting_the_remote_default_branch_as_pre_receive_does() {
    let (repo, _remote) = base_repo();
    let landed = {
        repo.write("src/a.py", "a = 1 # a landed fix\n");
        repo.commit_all("fix");
        repo.git(&["push", "-q", "origin", "main"]);
        repo.head()
    };
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    repo.write("README.md", "# readme\n");
    let rewritten = repo.commit_all("readme");
    let (code, codes) = push_lines(&repo, &rewritten, "refs/heads/main", &landed);
    assert_eq!(code, 1, "{codes:?}");
    assert!(has(&codes, "default_branch_rewritten"), "{codes:?}");
    // A forced update of another branch is judged as usual.
    repo.git(&[
        "push",
        "-q",
        "origin",
        &format!("{landed}:refs/heads/feature"),
    ]);
    let (code, codes) = push_lines(&repo, &rewritten, "refs/heads/feature", &landed);
    assert_eq!(code, 0, "{codes:?}");
}

/// An index whose trailing checksum does not hold is unavailable in every
/// mode that reads it, although the gate now verifies that checksum beside
/// the judging instead of before it: the verdict waits for it.
#[test]
fn an_index_whose_checksum_does_not_hold_is_never_judged() {
    let (repo, _remote) = base_repo();
    repo.write("src/a.py", "a = 1\n");
    repo.git(&["add", "src/a.py"]);
    let index_path = repo.path().join(".git/index");
    let mut index = std::fs::read(&index_path).unwrap();
    let last = index.len() - 1;
    index[last] ^= 0xff;
    std::fs::write(&index_path, &index).unwrap();
    for mode in [&["--staged"][..], &["--worktree"][..]] {
        let (code, codes, out) = check(&repo, mode);
        assert_eq!(code, 2, "{mode:?}: {out}");
        // Nothing judged from that index stands beside it.
        assert_eq!(codes, ["git_index_unavailable"], "{mode:?}: {out}");
        assert!(out.contains("checksum does not match"), "{mode:?}: {out}");
    }
    // The same index with its checksum restored is judged.
    index[last] ^= 0xff;
    std::fs::write(&index_path, &index).unwrap();
    let (code, codes, out) = check(&repo, &["--staged"]);
    assert_ne!(code, 2, "{out}");
    assert!(!has(&codes, "git_index_unavailable"), "{codes:?}");
}
