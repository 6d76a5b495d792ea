//! `signers`: commits whose SSH signature git verifies against the
//! allowed-signers file on the protected branch (`identity.allowed_signers`),
//! made with real keys from `ssh-keygen` (Debian's openssh-client). An
//! unsigned commit, one signed by a key the file does not list, and a
//! signed commit whose content was changed afterwards name nobody, whatever
//! their author says; a key the change adds to the file counts only once it
//! is on the protected branch.

use crate::common::keys::{Keys, allowed_line, commit_signed};
use crate::common::{BIN, TestRepo, codes, json, status, text};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Two SSH keys: alice's (listed on main) and eve's (not).
struct Pair {
    _keys: Keys,
    alice: PathBuf,
    eve: PathBuf,
}

fn keys() -> Option<Pair> {
    let keys = Keys::new()?;
    let (alice, eve) = (keys.key("alice"), keys.key("eve"));
    Some(Pair {
        _keys: keys,
        alice,
        eve,
    })
}

const CONFIG: &str = "identity:\n  allowed_signers: .mastermind/allowed_signers\nuntasked:\n  rules:\n    - action: allow\n      signers: [alice@example.com]\nplanning:\n  rules:\n    - action: allow\n      signers: [alice@example.com]\n";

/// main with the configuration and alice in the allowed signers, and a
/// branch `feature` to work on.
fn repo(keys: &Pair) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/lib.py", "x = 1\n");
    repo.write(".mastermind/hooks.yaml", CONFIG);
    repo.write(
        ".mastermind/allowed_signers",
        &allowed_line("alice@example.com", &keys.alice),
    );
    repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo
}

/// Commit everything, signed with `key` (none: unsigned), as the author
/// alice claims to be.
fn commit(repo: &TestRepo, key: Option<&Path>, message: &str) -> String {
    commit_signed(repo, key, "Alice <alice@example.com>", message)
}

fn ci(repo: &TestRepo, head: &str) -> Output {
    repo.run(
        &[
            "check", "--ci", "--base", "main", "--head", head, "--format", "json",
        ],
        None,
    )
}

fn passes(output: &Output, why: &str) {
    assert_eq!(status(output), 0, "{why}: {}", text(output));
}

fn refused(output: &Output, why: &str) {
    assert_eq!(status(output), 1, "{why}: {}", text(output));
    assert!(
        codes(&json(output)).contains(&"task_required".to_string()),
        "{why}: {}",
        text(output)
    );
}

#[test]
fn a_commit_signed_by_an_allowed_signer_lands_in_ci_and_pre_receive() {
    let Some(keys) = keys() else { return };
    let repo = repo(&keys);
    repo.write("src/lib.py", "x = 2\n");
    let signed = commit(&repo, Some(&keys.alice), "alice's signed work");
    passes(&ci(&repo, &signed), "alice signed it");
    // A signer the planning rules name can change the configuration too
    // (planning).
    repo.write(
        ".mastermind/hooks.yaml",
        &format!("{CONFIG}exclude: [docs/**]\n"),
    );
    let config = commit(&repo, Some(&keys.alice), "alice relaxes the policy");
    let output = ci(&repo, &config);
    passes(&output, "a signed configuration change");
    assert!(
        codes(&json(&output)).contains(&"config_loosened".to_string()),
        "{}",
        text(&output)
    );

    // The same commits through a server's pre-receive hook.
    let server = tempfile::tempdir().unwrap();
    let bare = server.path().join("server.git");
    repo.git(&["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    repo.git(&["push", "-q", bare.to_str().unwrap(), "main"]);
    let mut install = repo.command(BIN);
    install.current_dir(&bare).args(["install", "--server"]);
    assert!(install.output().unwrap().status.success());
    let pushed = repo.git_output(&["push", bare.to_str().unwrap(), "feature"]);
    assert!(pushed.status.success(), "{}", text(&pushed));
}

#[test]
fn unsigned_and_wrongly_signed_commits_name_no_signer() {
    let Some(keys) = keys() else { return };
    let repo = repo(&keys);
    repo.write("src/lib.py", "x = 'unsigned'\n");
    let unsigned = commit(&repo, None, "unsigned, author alice");
    let output = ci(&repo, &unsigned);
    refused(&output, "an unsigned commit with alice as its author");
    let hint = text(&output);
    assert!(
        hint.contains("signers:") && hint.contains("this commit has no signature"),
        "the refusal names the rule: {hint}"
    );

    repo.git(&["reset", "-q", "--hard", "main"]);
    repo.write("src/lib.py", "x = 'eve'\n");
    let by_eve = commit(&repo, Some(&keys.eve), "signed by eve, author alice");
    let output = ci(&repo, &by_eve);
    refused(&output, "a key the allowed signers do not list");
    assert!(
        text(&output).contains("a good signature by a key no allowed signer holds (git: U)"),
        "the refusal says what git found: {}",
        text(&output)
    );

    // Eve lists her own key under alice's name in the change: the file is
    // read from main, so it counts for nothing yet.
    repo.write(
        ".mastermind/allowed_signers",
        &format!(
            "{}{}",
            allowed_line("alice@example.com", &keys.alice),
            allowed_line("alice@example.com", &keys.eve)
        ),
    );
    let self_listed = commit(&repo, Some(&keys.eve), "eve lists herself as alice");
    refused(&ci(&repo, &self_listed), "the change's own allowed signers");

    // Alice's signed commit with other content under the same signature.
    repo.git(&["reset", "-q", "--hard", "main"]);
    repo.write("src/lib.py", "x = 'alice'\n");
    let genuine = commit(&repo, Some(&keys.alice), "alice's work");
    passes(&ci(&repo, &genuine), "the genuine commit");
    repo.write("src/lib.py", "x = 'tampered'\n");
    repo.git(&["add", "-A"]);
    let tree = repo.git(&["write-tree"]).trim().to_string();
    let object = repo.git(&["cat-file", "commit", &genuine]);
    let old_tree = object.lines().next().unwrap().to_string();
    let forged = object.replacen(&old_tree, &format!("tree {tree}"), 1);
    let mut hash = repo.command("git");
    hash.args(["hash-object", "-t", "commit", "-w", "--stdin"]);
    let written = crate::common::run_with_stdin(hash, Some(&forged));
    assert!(written.status.success(), "{}", text(&written));
    let tampered = String::from_utf8_lossy(&written.stdout).trim().to_string();
    assert!(
        repo.git(&["cat-file", "commit", &tampered])
            .contains("gpgsig"),
        "the forged commit keeps alice's signature"
    );
    let output = ci(&repo, &tampered);
    refused(&output, "a signature that does not match the commit");
    assert!(text(&output).contains("(git: B)"), "{}", text(&output));
}

#[test]
fn signers_are_unknown_before_the_commit_exists_and_without_the_file() {
    let Some(keys) = keys() else { return };
    let repo = repo(&keys);
    // pre-commit: the commit, and so its signature, does not exist yet; the
    // rule cannot apply and the local default warns.
    repo.write("src/lib.py", "x = 'staged'\n");
    repo.git(&["add", "-A"]);
    let staged = repo.run(&["check", "--staged", "--format", "json"], None);
    assert_eq!(status(&staged), 0, "{}", text(&staged));
    assert_eq!(codes(&json(&staged)), ["untasked_change"]);

    // main names an allowed-signers file it does not have.
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["rm", "-q", ".mastermind/allowed_signers"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "lose the file"]);
    repo.git(&["checkout", "-q", "-B", "feature", "main"]);
    repo.write("src/lib.py", "x = 'signed'\n");
    let signed = commit(&repo, Some(&keys.alice), "signed, but main lists nobody");
    let output = ci(&repo, &signed);
    refused(&output, "no allowed signers on main");
    assert!(
        codes(&json(&output)).contains(&"allowed_signers_unavailable".to_string()),
        "{}",
        text(&output)
    );
}

#[test]
fn a_signed_planner_may_widen_a_landed_spec() {
    let Some(keys) = keys() else { return };
    let repo = TestRepo::new();
    repo.write("src/a.py", "a = 0\n");
    repo.write(
        ".mastermind/hooks.yaml",
        "identity:\n  allowed_signers: .mastermind/allowed_signers\nplanning:\n  rules:\n    - action: allow\n      signers: [alice@example.com]\n",
    );
    repo.write(
        ".mastermind/allowed_signers",
        &allowed_line("alice@example.com", &keys.alice),
    );
    repo.commit_all("base");
    repo.write_task("001-a", &["src/a.py"], &["src/a.py"]);
    repo.write("src/a.py", "a = 1\n");
    repo.commit_all("task 001-a, landed");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let spec = ".mastermind/tasks/001-a/spec.md";
    let planned = std::fs::read_to_string(repo.path().join(spec)).unwrap();
    repo.write(
        spec,
        &planned.replace(
            "  - file: src/a.py\n",
            "  - file: src/a.py\n  - file: src/b.py\n",
        ),
    );
    let unsigned = commit(&repo, None, "widen, unsigned");
    let output = ci(&repo, &unsigned);
    assert_eq!(status(&output), 1, "{}", text(&output));
    assert!(text(&output).contains("spec_widened"), "{}", text(&output));
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    let signed = commit(&repo, Some(&keys.alice), "widen, signed by the planner");
    let output = ci(&repo, &signed);
    assert_eq!(status(&output), 0, "{}", text(&output));
}
