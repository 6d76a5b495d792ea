//! Corners of what lands: SHA-256 repositories (more in the hooks binary's
//! `formats`), tags of trees and blobs,
//! partial clones.

use crate::common::landing::*;
use crate::common::{TestRepo, codes, json, status, text};

#[test]
fn a_sha256_repository_is_checked() {
    let repo = TestRepo::init_with(&["--object-format=sha256"]);
    repo.write("src/a.py", "a = 0\n");
    repo.git(&["add", "-A"]);
    let out = repo.run(&["check", "--staged", "--format", "json"], None);
    assert_eq!(status(&out), 0, "{}", text(&out));
    repo.git(&["commit", "-q", "-m", "start"]);
    // A task that strays is refused with a verdict, not "could not check".
    repo.write_task("001-t", &["src/a.py"], &["src/a.py"]);
    repo.write("src/a.py", "a = 1\n");
    repo.write("src/b.py", "b = 1\n");
    repo.git(&["add", "-A"]);
    let out = repo.run(&["check", "--staged", "--format", "json"], None);
    assert_eq!(status(&out), 1, "{}", text(&out));
    assert!(codes(&json(&out)).contains(&"unexpected_file".to_string()));
}

#[test]
fn a_pushed_tag_of_a_blob_or_tree_is_skipped_with_a_note() {
    let forge = Forge::new(&[("src/a.py", "a = 0\n")]);
    let repo = &forge.work;
    let blob = repo.git(&["rev-parse", "HEAD:src/a.py"]).trim().to_string();
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]).trim().to_string();
    repo.git(&["tag", "blob-tag", &blob]);
    repo.git(&["tag", "-a", "-m", "a tree", "tree-tag", &tree]);
    for tag in ["blob-tag", "tree-tag"] {
        let verdict = forge.pre_push(tag, &format!("tags/{tag}"));
        verdict.expect(0, &format!("pre-push {tag}"));
        assert!(verdict.has("ref_not_a_commit"), "{verdict:?}");
    }
    let verdict = forge.receive(&["blob-tag", "tree-tag"]);
    verdict.expect(0, "pre-receive");
    assert!(verdict.has("ref_not_a_commit"), "{verdict:?}");
}

#[test]
fn a_partial_ci_clone_says_how_to_fetch_what_the_gate_reads() {
    let forge = Forge::new(&[("src/a.py", "a = 0\n"), ("README.md", "# demo\n")]);
    let repo = &forge.work;
    forge.server.git(&[
        "-C",
        forge.bare().to_str().unwrap(),
        "config",
        "uploadpack.allowFilter",
        "true",
    ]);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("README.md", "# demo, again\n");
    commit_as(
        repo,
        "readme",
        "Human <human@example.invalid>",
        "2024-01-01T10:00:00",
    );
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/a.py", "a = 1\n");
    commit_as(
        repo,
        "main moves",
        "Human <human@example.invalid>",
        "2024-01-01T11:00:00",
    );
    forge.receive(&["main", "feature"]).expect(0, "history");
    let ci = forge.clone(&["--filter=tree:0", "--branch", "feature"]);
    let out = ci.run(
        &[
            "check",
            "--ci",
            "--base",
            "origin/main",
            "--head",
            "HEAD",
            "--format",
            "json",
        ],
        None,
    );
    if status(&out) == 2 {
        let found = codes(&json(&out));
        assert!(
            found.iter().any(|c| c == "git_partial_clone"),
            "{found:?}\n{}",
            text(&out)
        );
        assert!(
            text(&out).contains("git fetch --refetch --no-filter origin"),
            "{}",
            text(&out)
        );
        ci.git(&["fetch", "-q", "--refetch", "--no-filter", "origin"]);
        let out = ci.run(
            &[
                "check",
                "--ci",
                "--base",
                "origin/main",
                "--head",
                "HEAD",
                "--format",
                "json",
            ],
            None,
        );
        assert_eq!(status(&out), 0, "{}", text(&out));
    } else {
        assert_eq!(status(&out), 0, "{}", text(&out));
    }
}
