//! `pushers`: the user the git server authenticated, as each server names
//! it to its pre-receive hook (GitHub Enterprise `GITHUB_USER_LOGIN`, GitLab
//! `GL_USERNAME`/`GL_ID`, Gitea and Forgejo `GITEA_PUSHER_NAME`, a plain
//! HTTP server's `REMOTE_USER`). Real pushes to a bare repository whose
//! pre-receive hook runs the gate; `git push` over a local path runs
//! receive-pack with the pushing process's environment, which stands in for
//! the server's here. Whatever the commit says (author, committer,
//! trailers, branch name) makes nobody a pusher.

use crate::common::{BIN, TestRepo, status, text};
use std::path::PathBuf;
use std::process::Output;

/// A bare repository with the gate as its pre-receive hook, and a clone
/// whose first push (into the empty repository) lands `config` on main.
struct Server {
    _bare: TestRepo,
    path: PathBuf,
    work: TestRepo,
}

const ALLOW_MAINTAINER: &str =
    "untasked:\n  rules:\n    - action: allow\n      pushers: [maintainer]\n";

fn server(config: &str) -> Server {
    let bare = TestRepo::new();
    let path = bare.path().join("server.git");
    bare.git(&["init", "-q", "--bare", "-b", "main", path.to_str().unwrap()]);
    let mut install = bare.command(BIN);
    install.current_dir(&path).args(["install", "--server"]);
    let installed = install.output().unwrap();
    assert_eq!(status(&installed), 0, "{}", text(&installed));
    let work = TestRepo::new();
    work.write("src/lib.py", "x = 1\n");
    // Every branch protected: the agents' branches below are judged as a
    // push to main is (on a branch that is not protected a refusal is only
    // a warning, tests/gate/where_work_lands.rs).
    work.write(
        ".mastermind/hooks.yaml",
        &format!("{config}protected_branches: ['*']\n"),
    );
    work.commit_all("base");
    work.git(&["remote", "add", "origin", path.to_str().unwrap()]);
    let first = push_as(&work, &[], &["origin", "main"]);
    assert_eq!(status(&first), 0, "{}", text(&first));
    Server {
        _bare: bare,
        path,
        work,
    }
}

/// `git push ARGS` with the server's variables `env`.
fn push_as(work: &TestRepo, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = work.command("git");
    command.arg("push").args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

/// A new untasked commit on a new branch `name`, from main.
fn untasked_branch(work: &TestRepo, name: &str) {
    work.git(&["checkout", "-q", "-B", name, "main"]);
    work.write("src/lib.py", &format!("x = '{name}'\n"));
    work.commit_all(&format!("untasked work on {name}"));
}

fn accepted(output: &Output, why: &str) {
    assert_eq!(status(output), 0, "{why}: {}", text(output));
}

fn refused(output: &Output, why: &str) {
    assert_ne!(status(output), 0, "{why}: {}", text(output));
    assert!(
        text(output).contains("task_required"),
        "{why}: {}",
        text(output)
    );
}

#[test]
fn each_servers_pusher_is_who_the_rules_see() {
    let s = server(ALLOW_MAINTAINER);
    // (server, the maintainer's push, the agent's push), each as the
    // server's variables.
    type Vars = &'static [(&'static str, &'static str)];
    let servers: [(&str, Vars, Vars); 4] = [
        (
            "GitHub Enterprise",
            &[("GITHUB_USER_LOGIN", "maintainer")],
            &[("GITHUB_USER_LOGIN", "agent")],
        ),
        (
            "GitLab",
            &[("GL_USERNAME", "maintainer"), ("GL_ID", "user-7")],
            &[("GL_USERNAME", "agent"), ("GL_ID", "user-8")],
        ),
        (
            "Gitea and Forgejo",
            &[("GITEA_PUSHER_NAME", "maintainer")],
            &[("GITEA_PUSHER_NAME", "agent")],
        ),
        (
            "git http-backend",
            &[("REMOTE_USER", "maintainer")],
            &[("REMOTE_USER", "agent")],
        ),
    ];
    for (index, (server, maintainer, agent)) in servers.iter().enumerate() {
        let branch = format!("agent-{index}");
        untasked_branch(&s.work, &branch);
        let output = push_as(&s.work, agent, &["origin", &branch]);
        refused(&output, server);
        // The refusal names the rule that would allow it, with the name the
        // server gave.
        assert!(
            text(&output).contains("pushers: [\"agent\"]"),
            "{server}: {}",
            text(&output)
        );
        let branch = format!("maintainer-{index}");
        untasked_branch(&s.work, &branch);
        accepted(&push_as(&s.work, maintainer, &["origin", &branch]), server);
    }
    // A server that names nobody (plain SSH, git daemon): the rule cannot
    // apply, and the default refuses.
    untasked_branch(&s.work, "nobody");
    refused(
        &push_as(&s.work, &[], &["origin", "nobody"]),
        "no server variable",
    );
}

#[test]
fn gitlab_names_a_pusher_by_username_or_id_and_only_its_own_variables_count() {
    let s = server("untasked:\n  rules:\n    - action: allow\n      pushers: [user-7]\n");
    untasked_branch(&s.work, "by-id");
    accepted(
        &push_as(
            &s.work,
            &[("GL_USERNAME", "maintainer"), ("GL_ID", "user-7")],
            &["origin", "by-id"],
        ),
        "GL_ID names the same user",
    );
    // GitHub Enterprise's variable decides on its server: another server's
    // variable beside it counts for nothing.
    untasked_branch(&s.work, "mixed");
    refused(
        &push_as(
            &s.work,
            &[("GITHUB_USER_LOGIN", "agent"), ("GL_ID", "user-7")],
            &["origin", "mixed"],
        ),
        "only the first server's variables are read",
    );
}

#[test]
fn a_merged_pull_request_needs_its_author_to_be_allowed_too() {
    let s = server(ALLOW_MAINTAINER);
    untasked_branch(&s.work, "merged");
    let output = push_as(
        &s.work,
        &[
            ("GITHUB_USER_LOGIN", "maintainer"),
            ("GITHUB_PULL_REQUEST_AUTHOR_LOGIN", "agent"),
        ],
        &["origin", "merged"],
    );
    refused(
        &output,
        "a maintainer merging an agent's pull request does not make it the maintainer's",
    );
}

#[test]
fn forged_authors_committers_trailers_and_branch_names_make_nobody_a_pusher() {
    let s = server(ALLOW_MAINTAINER);
    let work = &s.work;
    work.git(&["checkout", "-q", "-b", "maintainer/hotfix", "main"]);
    work.write("src/lib.py", "x = 'forged'\n");
    work.git(&["add", "-A"]);
    let mut commit = work.command("git");
    commit
        .args([
            "commit",
            "-q",
            "--author",
            "Maintainer <maintainer@example.com>",
            "-m",
            "Looks like the maintainer's\n\nSigned-off-by: Maintainer <maintainer@example.com>\nReviewed-by: maintainer",
        ])
        .env("GIT_COMMITTER_NAME", "maintainer")
        .env("GIT_COMMITTER_EMAIL", "maintainer@example.com");
    assert!(commit.output().unwrap().status.success());
    let output = push_as(
        work,
        &[("GITHUB_USER_LOGIN", "agent")],
        &["origin", "maintainer/hotfix"],
    );
    refused(
        &output,
        "the commit claims the maintainer; the server says agent",
    );
}

#[test]
fn only_a_vouched_maintainer_changes_the_configuration() {
    // The recipe: deny by default; the maintainer plans, and a change of
    // the policy is planning.
    let s = server(
        "untasked:\n  default: deny\nplanning:\n  rules:\n    - action: allow\n      pushers: [maintainer]\n",
    );
    let loosen = |work: &TestRepo| {
        work.write(".mastermind/hooks.yaml", "exclude: ['**']\n");
        work.git(&["add", "-A"]);
        let mut commit = work.command("git");
        commit.args([
            "commit",
            "-q",
            "--author",
            "Maintainer <maintainer@example.com>",
            "-m",
            "relax",
        ]);
        assert!(commit.output().unwrap().status.success());
    };
    loosen(&s.work);
    // An agent writing the maintainer's name into the commit.
    let output = push_as(
        &s.work,
        &[("GITHUB_USER_LOGIN", "agent")],
        &["origin", "main"],
    );
    assert_ne!(status(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("control_file_changed"),
        "a forged author does not relax the policy: {}",
        text(&output)
    );
    let landed = s
        .work
        .command("git")
        .args([
            "--git-dir",
            s.path.to_str().unwrap(),
            "show",
            "main:.mastermind/hooks.yaml",
        ])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&landed.stdout).contains("exclude"),
        "main kept its policy"
    );
    // The maintainer the server authenticated may, and is told what loosens.
    let output = push_as(
        &s.work,
        &[("GITHUB_USER_LOGIN", "maintainer")],
        &["origin", "main"],
    );
    accepted(&output, "the maintainer's push");
    assert!(
        text(&output).contains("config_loosened"),
        "{}",
        text(&output)
    );
}
