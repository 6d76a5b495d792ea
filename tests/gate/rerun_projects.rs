//! `check --ci --rerun` on projects as teams have them: a Node project
//! whose test runner lives in the ignored `node_modules/` that `npm ci`
//! fills, and a project whose lint walks `git ls-files`. Each passes
//! honestly in both places a re-run can use (the CI workspace holding
//! exactly the landing, and a git worktree of the landing prepared by
//! `rerun.setup`), and fails there once its code is broken behind a forged
//! receipt. The statement `--attestation` writes is an in-toto Statement v1
//! that `attestation verify` accepts for the commit, and for the merge
//! commit whose tree is the landing.

use crate::common::tasks::{forge_territory, write_task_with_checks};
use crate::common::*;
use serde_json::Value;
use std::process::Output;

/// npm without the network or its notices: every dependency is local.
const NPM_ENV: &[(&str, &str)] = &[
    ("npm_config_offline", "true"),
    ("npm_config_audit", "false"),
    ("npm_config_fund", "false"),
    ("npm_config_update_notifier", "false"),
    ("npm_config_loglevel", "error"),
];

/// `check --ci --rerun` of `head` into `base` with `extra` flags, as JSON.
fn rerun(repo: &TestRepo, base: &str, head: &str, extra: &[&str]) -> (i32, Vec<String>, Output) {
    let mut args = vec![
        "check", "--ci", "--base", base, "--head", head, "--rerun", "--format", "json",
    ];
    args.extend_from_slice(extra);
    let out = repo.run_env(&args, NPM_ENV);
    let report = json(&out);
    (status(&out), codes(&report), out)
}

/// The run-level note saying where the checks ran.
fn place_note(out: &Output) -> String {
    json(out)["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["code"] == "rerun_place")
        .filter_map(|d| d["message"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn count(codes: &[String], code: &str) -> usize {
    codes.iter().filter(|c| *c == code).count()
}

/// Rewrite every committed receipt of `task` so its digests claim the
/// head's tree (the forgery a hostile agent can make), and commit.
fn forge_receipts(repo: &TestRepo, task: &str, ids: &[&str]) {
    let digest = repo.run(&["digest", "--rev", "HEAD"], None);
    let digest = String::from_utf8_lossy(&digest.stdout)
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    for id in ids {
        let path = repo.path().join(format!(
            ".mastermind/tasks/{task}/verification/{id}.tree.json"
        ));
        let mut receipt: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        receipt["tree_before"] = Value::String(digest.clone());
        receipt["tree_after"] = Value::String(digest.clone());
        forge_territory(repo, &mut receipt);
        std::fs::write(&path, serde_json::to_vec_pretty(&receipt).unwrap()).unwrap();
    }
    repo.commit_all("forged receipts");
}

fn run_all(repo: &TestRepo, task: &str) {
    let out = repo.run_env(
        &[
            "verification",
            "run",
            &format!(".mastermind/tasks/{task}/spec.md"),
            "--all",
        ],
        NPM_ENV,
    );
    assert_eq!(status(&out), 0, "{}", text(&out));
}

/// A Node project: `npm test` runs `unit`, the bin of a local package,
/// which `npm ci` links into the ignored `node_modules/.bin`.
fn node_project() -> (TestRepo, String) {
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
    repo.write(
        "package.json",
        r#"{"name": "demo", "version": "1.0.0", "private": true, "scripts": {"test": "unit"}, "devDependencies": {"unit": "file:tools/unit"}}
"#,
    );
    repo.write(
        "tools/unit/package.json",
        r#"{"name": "unit", "version": "1.0.0", "bin": {"unit": "unit.sh"}}
"#,
    );
    repo.write(
        "tools/unit/unit.sh",
        "#!/bin/sh\n# The project's test runner: the value must be ok.\nif grep -qx ok src/value.txt; then echo '1 test passed'; else echo \"FAIL src/value.txt: expected ok, got $(cat src/value.txt)\"; exit 1; fi\n",
    );
    make_executable(&repo.path().join("tools/unit/unit.sh"));
    repo.write(".gitignore", "node_modules/\n");
    repo.write("src/value.txt", "todo\n");
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("{}{}", "rerun:\n  setup:\n    - [npm, ci]\n", ANYONE_PLANS),
    );
    let mut install = repo.command("npm");
    install.arg("install").envs(NPM_ENV.iter().copied());
    let out = install.output().expect("npm install");
    assert!(out.status.success(), "npm install: {}", text(&out));
    assert!(repo.path().join("node_modules/.bin/unit").exists());
    let base = repo.commit_all("a node project");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    (repo, base)
}

#[test]
fn a_node_project_passes_in_the_workspace_and_in_a_worktree_and_fails_when_broken() {
    if require_tool("npm").is_none() {
        return;
    }
    let (repo, base) = node_project();
    let local: &[&str] = &["node_modules/.bin/unit"];
    let npm: &[&str] = &["npm", "test", "--silent"];
    write_task_with_checks(
        &repo,
        "001-node",
        &["src/value.txt"],
        &[("unit", local), ("npm-test", npm)],
        120,
    );
    repo.write("src/value.txt", "ok\n");
    run_all(&repo, "001-node");
    let head = repo.commit_all("the task");

    // The receipt of a tool in node_modules/ is not stale in CI: the commit
    // cannot carry it, and the re-run resolves it after setup.
    let plain = repo.run_env(
        &[
            "check", "--ci", "--base", &base, "--head", &head, "--format", "json",
        ],
        NPM_ENV,
    );
    assert_eq!(status(&plain), 0, "{}", text(&plain));

    // The workspace is a clean checkout of exactly the landing, with the
    // dependencies installed by the job's own step.
    let (code, codes, out) = rerun(&repo, &base, &head, &[]);
    assert_eq!(code, 0, "{codes:?} {}", text(&out));
    assert_eq!(count(&codes, "rerun_passed"), 2, "{codes:?}");
    assert!(place_note(&out).contains("the workspace"), "{}", text(&out));

    // A worktree of the landing, prepared by `rerun.setup` (`npm ci`).
    let (code, codes, out) = rerun(&repo, &base, &head, &["--rerun-in", "worktree"]);
    assert_eq!(code, 0, "{codes:?} {}", text(&out));
    assert_eq!(count(&codes, "rerun_passed"), 2, "{codes:?}");
    assert!(
        place_note(&out).contains("worktree"),
        "{}",
        place_note(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("[setup] ! $ npm ci"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A workspace that is not the landing: the worktree, by itself.
    repo.write("scratch.txt", "not ignored, not tracked\n");
    let (code, codes, out) = rerun(&repo, &base, &head, &[]);
    assert_eq!(code, 0, "{codes:?} {}", text(&out));
    assert!(
        place_note(&out).contains("not in the workspace"),
        "{}",
        place_note(&out)
    );
    repo.remove("scratch.txt");

    // `verification run --isolated` uses the same worktree and setup.
    let out = repo.run_env(
        &[
            "verification",
            "run",
            ".mastermind/tasks/001-node/spec.md",
            "--id",
            "unit",
            "--isolated",
            "--quiet",
        ],
        NPM_ENV,
    );
    assert_eq!(status(&out), 0, "{}", text(&out));

    // Broken code behind forged receipts: the gate alone believes them, the
    // re-run does not, in either place.
    repo.write("src/value.txt", "broken\n");
    repo.commit_all("untested change");
    forge_receipts(&repo, "001-node", &["unit", "npm-test"]);
    let head = repo.head();
    let plain = repo.run_env(
        &[
            "check", "--ci", "--base", &base, "--head", &head, "--format", "json",
        ],
        NPM_ENV,
    );
    assert_eq!(status(&plain), 0, "the receipts alone convince the gate");
    // Only a failure in the same kind of place as the receipt's run (a
    // working tree of the project, with its dependencies installed) blames
    // the receipt; in a worktree it is a failure all the same.
    for (place, blamed) in [
        ("auto", "rerun_contradicts_receipt"),
        ("worktree", "rerun_failed"),
    ] {
        let (code, codes, out) = rerun(&repo, &base, &head, &["--rerun-in", place]);
        assert_eq!(code, 1, "{place}: {codes:?} {}", text(&out));
        assert_eq!(count(&codes, blamed), 2, "{place}: {codes:?}");
        let shown = text(&out);
        assert!(
            shown.contains("FAIL src/value.txt: expected ok, got broken"),
            "{place}: the output's tail is in the finding: {shown}"
        );
    }
}

/// A project whose lint checks every shell script git tracks.
fn lint_project() -> (TestRepo, String) {
    let repo = TestRepo::new();
    repo.write(".mastermind/hooks.yaml", ANYONE_PLANS);
    repo.write("scripts/a.sh", "#!/bin/sh\necho a\n");
    let base = repo.commit_all("scripts");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    (repo, base)
}

const LINT: &[&str] = &[
    "sh",
    "-c",
    "git ls-files -z '*.sh' | xargs -0 -r -n1 sh -n && test \"$(git ls-files '*.sh' | wc -l)\" -ge 2",
];
const CLEAN: &[&str] = &["git", "diff", "--exit-code"];

#[test]
fn a_lint_over_git_ls_files_passes_in_both_places_and_fails_when_a_script_is_broken() {
    let (repo, base) = lint_project();
    write_task_with_checks(
        &repo,
        "001-lint",
        &["scripts/b.sh"],
        &[("lint", LINT), ("clean", CLEAN)],
        120,
    );
    repo.write("scripts/b.sh", "#!/bin/sh\necho b\n");
    repo.git(&["add", "-A"]);
    run_all(&repo, "001-lint");
    let head = repo.commit_all("the task");
    for place in ["workspace", "worktree"] {
        let (code, codes, out) = rerun(&repo, &base, &head, &["--rerun-in", place]);
        assert_eq!(code, 0, "{place}: {codes:?} {}", text(&out));
        assert_eq!(count(&codes, "rerun_passed"), 2, "{place}: {codes:?}");
    }
    // Also isolated, where git sees the index.
    let out = repo.run(
        &[
            "verification",
            "run",
            ".mastermind/tasks/001-lint/spec.md",
            "--all",
            "--isolated",
            "--quiet",
        ],
        None,
    );
    assert_eq!(status(&out), 0, "{}", text(&out));

    repo.write("scripts/b.sh", "#!/bin/sh\nif then fi\n");
    repo.commit_all("a broken script");
    forge_receipts(&repo, "001-lint", &["lint", "clean"]);
    let head = repo.head();
    for (place, blamed) in [
        ("workspace", "rerun_contradicts_receipt"),
        ("worktree", "rerun_failed"),
    ] {
        let (code, codes, out) = rerun(&repo, &base, &head, &["--rerun-in", place]);
        assert_eq!(code, 1, "{place}: {codes:?} {}", text(&out));
        assert_eq!(
            count(&codes, blamed),
            1,
            "{place}: the lint fails, `git diff` still passes: {codes:?}"
        );
        if place == "worktree" {
            assert!(
                text(&out).contains("not taken as a false receipt"),
                "the finding says why the receipt is not blamed: {}",
                text(&out)
            );
        }
        assert_eq!(count(&codes, "rerun_passed"), 1, "{place}: {codes:?}");
    }
}

/// The in-toto Statement v1 schema transcribed in tests/data (the
/// framework publishes its rules as text and protobuf bindings only).
fn statement_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string("tests/data/in-toto-statement-v1.schema.json").unwrap();
    jsonschema::validator_for(&serde_json::from_str::<Value>(&text).unwrap()).unwrap()
}

fn verify(repo: &TestRepo, file: &std::path::Path, commit: &str) -> Output {
    repo.run(
        &[
            "attestation",
            "verify",
            file.to_str().unwrap(),
            "--commit",
            commit,
        ],
        None,
    )
}

#[test]
fn the_attestation_is_an_in_toto_statement_that_verifies_against_the_commit() {
    let (repo, base) = lint_project();
    write_task_with_checks(
        &repo,
        "001-lint",
        &["scripts/b.sh"],
        &[("lint", LINT), ("clean", CLEAN)],
        120,
    );
    repo.write("scripts/b.sh", "#!/bin/sh\necho b\n");
    repo.git(&["add", "-A"]);
    run_all(&repo, "001-lint");
    let head = repo.commit_all("the task");
    let out_dir = tempfile::tempdir().unwrap();
    let file = out_dir.path().join("rerun.intoto.json");
    let (code, codes, out) = rerun(
        &repo,
        &base,
        &head,
        &["--attestation", file.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{codes:?} {}", text(&out));
    let statement: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let validator = statement_validator();
    let errors: Vec<String> = validator
        .iter_errors(&statement)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{statement:#}");
    assert_eq!(statement["_type"], "https://in-toto.io/Statement/v1");
    assert_eq!(
        statement["predicateType"],
        "https://mastermind-hooks.dev/attestation/rerun/v1"
    );
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]).trim().to_string();
    assert_eq!(
        statement["subject"][0]["digest"]["gitCommit"],
        head.as_str()
    );
    assert_eq!(statement["subject"][1]["digest"]["gitTree"], tree.as_str());
    let predicate = &statement["predicate"];
    assert_eq!(predicate["verdict"], "pass");
    assert_eq!(predicate["gate"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(predicate["place"], "workspace");
    let checks = predicate["tasks"][0]["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 2);
    assert_eq!(checks[0]["id"], "lint");
    assert_eq!(checks[0]["argv"][0], "sh");
    assert_eq!(checks[0]["exit_code"], 0);
    assert_eq!(checks[0]["result"], "passed");
    assert!(checks[0]["duration_ms"].is_u64());
    assert_eq!(checks[1]["stdout"]["bytes"], 0);
    assert_eq!(
        checks[1]["stdout"]["sha256"],
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    // The schema refuses what is not a statement.
    let mut wrong = statement.clone();
    wrong["subject"][0]["digest"]["gitCommit"] = Value::String("xyz".into());
    assert!(!validator.is_valid(&wrong));

    // Verified against the head, and against the merge commit whose tree
    // is the landing; not against another commit.
    let out = verify(&repo, &file, &head);
    assert_eq!(status(&out), 0, "{}", text(&out));
    assert!(stdout(&out).starts_with("ok: "), "{}", text(&out));
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "feature"]);
    let out = verify(&repo, &file, "main");
    assert_eq!(status(&out), 0, "{}", text(&out));
    let out = verify(&repo, &file, &base);
    assert_eq!(status(&out), 1, "{}", text(&out));
    assert!(
        text(&out).contains("attestation_mismatch"),
        "{}",
        text(&out)
    );
    // Unusable input: not a statement, or a commit that does not resolve.
    let garbage = out_dir.path().join("garbage.json");
    std::fs::write(&garbage, "{\"hello\": 1}").unwrap();
    assert_eq!(status(&verify(&repo, &garbage, &head)), 2);
    assert_eq!(status(&verify(&repo, &file, "no-such-rev")), 2);

    // A failing run's statement says so, and does not verify.
    repo.git(&["checkout", "-q", "feature"]);
    repo.write("scripts/b.sh", "#!/bin/sh\nif then fi\n");
    repo.commit_all("a broken script");
    forge_receipts(&repo, "001-lint", &["lint", "clean"]);
    let head = repo.head();
    let failing = out_dir.path().join("failing.intoto.json");
    let (code, _, _) = rerun(
        &repo,
        &base,
        &head,
        &["--attestation", failing.to_str().unwrap()],
    );
    assert_eq!(code, 1);
    let statement: Value = serde_json::from_slice(&std::fs::read(&failing).unwrap()).unwrap();
    assert!(validator.is_valid(&statement));
    assert_eq!(statement["predicate"]["verdict"], "fail");
    assert_eq!(
        statement["predicate"]["tasks"][0]["checks"][0]["result"],
        "failed"
    );
    let out = verify(&repo, &failing, &head);
    assert_eq!(status(&out), 1, "{}", text(&out));
    assert!(text(&out).contains("`fail`"), "{}", text(&out));
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}
