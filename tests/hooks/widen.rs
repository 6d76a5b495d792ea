//! `task widen`: more declared paths in a task's spec, every other byte
//! kept, the stale checks named, refusals that write nothing.

use crate::common::{TestRepo, text};

#[test]
fn widen_declares_keeps_the_rest_names_stale_checks_and_is_idempotent() {
    let repo = TestRepo::new();
    repo.write("lib.py", "x = 1\n");
    repo.commit_all("start");
    let new = repo.run(
        &[
            "task",
            "new",
            "fix",
            "--touches",
            "lib.py",
            "--check",
            "sh -c 'exit 0'",
        ],
        None,
    );
    assert_eq!(new.status.code(), Some(0), "{}", text(&new));
    let spec_path = ".mastermind/tasks/fix/spec.md";
    let spec = repo.path().join(spec_path);
    // A hand edit in the body stays as it is.
    let mut original = std::fs::read_to_string(&spec).unwrap();
    original.push_str("\nNotes  with  odd   spacing\n");
    std::fs::write(&spec, &original).unwrap();
    let run = repo.run(
        &["verification", "run", spec_path, "--id", "sh", "--quiet"],
        None,
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));

    let absolute = repo.path().join("docs/new.md").display().to_string();
    let widened = repo.run(
        &[
            "task",
            "widen",
            "fix",
            "--touches",
            "test_lib.py",
            "--creates",
            &absolute,
        ],
        None,
    );
    assert_eq!(widened.status.code(), Some(0), "{}", text(&widened));
    let out = text(&widened);
    assert!(out.contains("declared test_lib.py"), "{out}");
    assert!(out.contains("declared docs/new.md"), "{out}");
    assert!(
        out.contains("stale now (a receipt binds the spec it ran under): sh"),
        "{out}"
    );
    assert!(
        out.contains("mastermind-hooks verification run .mastermind/tasks/fix/spec.md --id sh"),
        "{out}"
    );
    assert!(
        out.contains("a spec that has not landed on the default branch is the task's own"),
        "{out}"
    );
    let after = std::fs::read_to_string(&spec).unwrap();
    assert_eq!(
        after,
        original
            .replacen(
                "  - file: lib.py\n",
                "  - file: lib.py\n  - file: test_lib.py\n",
                1
            )
            .replacen(
                "      timeout_secs: 600\n---\n",
                "      timeout_secs: 600\ncreates:\n  - docs/new.md\n---\n",
                1
            )
    );
    let validated = repo.run(&["validate", spec_path], None);
    assert_eq!(validated.status.code(), Some(0), "{}", text(&validated));

    // The gate names the same command for the receipt the new spec made
    // stale.
    let checked = repo.run(&["check", "--worktree", "--format", "json"], None);
    let report = crate::common::json(&checked);
    let hint = report["tasks"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "receipt_spec_changed")
        .map(|d| d["hint"].as_str().unwrap_or_default().to_string())
        .unwrap_or_else(|| panic!("no receipt_spec_changed: {report}"));
    assert!(
        hint.contains("`mastermind-hooks verification run .mastermind/tasks/fix/spec.md --id sh`"),
        "{hint}"
    );

    // Again: nothing to do, not a byte changed.
    let again = repo.run(
        &["task", "widen", "fix", "--touches", "./test_lib.py"],
        None,
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(text(&again).contains("nothing to do"), "{}", text(&again));
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), after);

    // Refused, nothing written: paths outside the repository, bookkeeping,
    // a task that does not exist, no path at all.
    for args in [
        &["task", "widen", "fix", "--touches", "../outside.py"][..],
        &["task", "widen", "fix", "--touches", "/etc/passwd"],
        &[
            "task",
            "widen",
            "fix",
            "--creates",
            ".mastermind/hooks.yaml",
        ],
        &["task", "widen", "nope", "--touches", "a.py"],
        &["task", "widen", "fix"],
    ] {
        let refused = repo.run(args, None);
        assert_eq!(
            refused.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&refused)
        );
        assert_eq!(std::fs::read_to_string(&spec).unwrap(), after, "{args:?}");
    }
}
