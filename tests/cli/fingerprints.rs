//! Reports that stay put: the fingerprints of SARIF results
//! (`partialFingerprints`) and of GitLab Code Quality issues are made of
//! stable facts only (rule, task, path, and the message without commit ids,
//! subjects and digests), so the same problem keeps its fingerprint across a
//! rebase, a reworded commit and an extra commit. Two real repositories
//! whose histories differ only in those are judged by `check --ci`, and
//! their fingerprints compared.

use crate::common::TestRepo;
use serde_json::Value;
use std::collections::BTreeSet;

const TASK: &str = "001-change-value";

/// `main` with two files; `feature` adds a task that changes one and strays
/// into the other, in the given commits (each a subject and the files it
/// writes), so two histories can land the same content.
fn history(base_subject: &str, commits: &[(&str, &[(&str, &str)])]) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/lib.py", "x = 1\n");
    repo.write("src/other.py", "y = 1\n");
    repo.commit_all(base_subject);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    for (subject, files) in commits {
        for (path, content) in *files {
            repo.write(path, content);
        }
        repo.commit_all(subject);
    }
    repo
}

fn task_files() -> Vec<(String, String)> {
    crate::common::task_files(TASK, &["src/lib.py"], &["src/lib.py"])
}

/// (rule, fingerprint) of every SARIF result and Code Quality issue, and the
/// messages (to show the histories really differ).
fn fingerprints(repo: &TestRepo) -> (BTreeSet<(String, String)>, BTreeSet<String>) {
    let mut out = BTreeSet::new();
    let mut messages = BTreeSet::new();
    let run = |format: &str| {
        let output = repo.run(
            &[
                "check", "--ci", "--base", "main", "--head", "feature", "--format", format,
            ],
            None,
        );
        assert_eq!(
            output.status.code(),
            Some(1),
            "{format}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    let sarif = run("sarif");
    for result in sarif["runs"][0]["results"].as_array().unwrap() {
        out.insert((
            format!("sarif {}", result["ruleId"].as_str().unwrap()),
            result["partialFingerprints"]["mastermindHooks/v1"]
                .as_str()
                .unwrap()
                .to_string(),
        ));
        messages.insert(result["message"]["text"].as_str().unwrap().to_string());
    }
    let gitlab = run("gitlab");
    for issue in gitlab.as_array().unwrap() {
        out.insert((
            format!("gitlab {}", issue["check_name"].as_str().unwrap()),
            issue["fingerprint"].as_str().unwrap().to_string(),
        ));
    }
    (out, messages)
}

#[test]
fn fingerprints_survive_new_commit_ids_subjects_and_extra_commits() {
    let task = task_files();
    let mut all: Vec<(&str, &str)> = task.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    all.push(("src/lib.py", "x = 2\n"));
    all.push(("src/other.py", "y = 2\n"));
    let one = history("base", &[("change the value", &all)]);

    // The same content in other commits: another base subject (so every id
    // differs), reworded subjects, and a second task commit (it brings the
    // report) that touches the stray file again.
    let (first, second): (Vec<_>, Vec<_>) = all
        .iter()
        .partition(|(path, _)| *path != "src/other.py" && !path.ends_with("executor-report.md"));
    let mut first = first;
    first.push(("src/other.py", "y = 3\n"));
    let two = history(
        "initial import",
        &[
            ("wip: start the task (\"draft\")", &first),
            ("follow-up: finish it", &second),
        ],
    );

    let (a, messages_a) = fingerprints(&one);
    let (b, messages_b) = fingerprints(&two);
    assert!(
        a.iter().any(|(rule, _)| rule == "sarif unexpected_file")
            && a.iter().any(|(rule, _)| rule == "gitlab unexpected_file"),
        "the stray file is found: {a:?}"
    );
    assert_ne!(
        messages_a, messages_b,
        "the messages name other commits, so the test is not vacuous"
    );
    assert_eq!(a, b, "the same problems keep their fingerprints");
}
