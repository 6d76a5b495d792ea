//! Server hooks as the forges run them: `install --server` in a Gitea or
//! Forgejo repository, whose own `pre-receive` runs every file of
//! `pre-receive.d/`, puts the gate there; under GitLab's Gitaly (GL_ID and
//! GL_REPOSITORY set) a refusal ends with the `GL-HOOK-ERR:` lines its web
//! interface shows. Real `git push`es to real bare repositories.

use crate::common::{BIN, TestRepo, status, text};
use std::path::Path;
use std::process::Output;

/// The hook a Gitea repository has: it runs every file of `pre-receive.d/`
/// (as Gitea's generated hook does, looping over `${hookname}.d/*`), next to
/// Gitea's own hook there.
const DISPATCHER: &str = "#!/bin/sh\nhookname=$(basename \"$0\")\nstdin=$(cat)\nstatus=0\nfor hook in \"$(dirname \"$0\")/${hookname}.d/\"*; do\n  [ -f \"$hook\" ] && [ -x \"$hook\" ] || continue\n  printf '%s\\n' \"$stdin\" | \"$hook\" || status=$?\ndone\nexit $status\n";

fn executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A bare repository at `<tmp>/server.git` and a clone with main pushed.
fn server(prepare: impl Fn(&Path)) -> (TestRepo, std::path::PathBuf, TestRepo) {
    let bare = TestRepo::new();
    let path = bare.path().join("server.git");
    bare.git(&["init", "-q", "--bare", "-b", "main", path.to_str().unwrap()]);
    prepare(&path);
    let mut install = bare.command(BIN);
    install.current_dir(&path).args(["install", "--server"]);
    let output = install.output().unwrap();
    assert_eq!(status(&output), 0, "{}", text(&output));
    let work = TestRepo::new();
    work.write("src/lib.py", "def value():\n    return 1\n");
    work.write("src/other.py", "x = 1\n");
    work.commit_all("base");
    work.git(&["remote", "add", "origin", path.to_str().unwrap()]);
    let first = work.git_output(&["push", "origin", "main"]);
    assert_eq!(status(&first), 0, "{}", text(&first));
    (bare, path, work)
}

/// A task on `feature` that strays outside its scope.
fn stray(work: &TestRepo) {
    work.git(&["checkout", "-q", "-b", "feature"]);
    work.write("src/other.py", "x = 2\n");
    work.write_task(
        "001-change-value",
        &["src/lib.py"],
        &["src/lib.py", "src/other.py"],
    );
    work.write("src/lib.py", "def value():\n    return 2\n");
    work.commit_all("feature");
}

fn push(work: &TestRepo, env: &[(&str, &str)]) -> Output {
    let mut cmd = work.command("git");
    cmd.args(["push", "origin", "feature"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn install_server_in_a_gitea_repository_uses_pre_receive_d() {
    let (_bare, path, work) = server(|path| {
        executable(&path.join("hooks/pre-receive"), DISPATCHER);
        // Gitea's own hook, which lets everything through here.
        executable(
            &path.join("hooks/pre-receive.d/gitea"),
            "#!/bin/sh\ncat >/dev/null\nexit 0\n",
        );
    });
    assert_eq!(
        std::fs::read_to_string(path.join("hooks/pre-receive")).unwrap(),
        DISPATCHER,
        "the forge's hook is kept"
    );
    let shim = std::fs::read_to_string(path.join("hooks/pre-receive.d/mastermind-hooks")).unwrap();
    assert!(shim.contains("check --receive"), "{shim}");
    stray(&work);
    let output = push(&work, &[]);
    assert_ne!(status(&output), 0, "{}", text(&output));
    assert!(
        text(&output).contains("unexpected_file"),
        "{}",
        text(&output)
    );
    assert!(
        !text(&output).contains("GL-HOOK-ERR"),
        "only GitLab reads that prefix: {}",
        text(&output)
    );
}

#[test]
fn a_refusal_under_gitlab_ends_with_lines_for_its_web_interface() {
    let (_bare, _path, work) = server(|_| {});
    stray(&work);
    // Gitaly sets these for the hooks it runs.
    let output = push(
        &work,
        &[
            ("GL_ID", "user-1"),
            ("GL_REPOSITORY", "project-1"),
            ("GL_PROTOCOL", "web"),
        ],
    );
    assert_ne!(status(&output), 0);
    let log = text(&output);
    let lines: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("remote: "))
        .filter(|l| l.starts_with("GL-HOOK-ERR: "))
        .collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(lines[0].contains("refused this push"), "{log}");
    assert!(
        lines[1].starts_with("GL-HOOK-ERR: task .mastermind/tasks/001-change-value")
            && lines[1].contains("unexpected_file: src/other.py was modified"),
        "{log}"
    );
    // A push that passes prints none.
    work.git(&["checkout", "-q", "main"]);
    work.git(&["checkout", "-q", "-b", "good"]);
    work.write_task("002-good", &["src/lib.py"], &["src/lib.py"]);
    work.write("src/lib.py", "def value():\n    return 3\n");
    work.commit_all("good");
    let mut cmd = work.command("git");
    cmd.args(["push", "origin", "good"])
        .env("GL_ID", "user-1")
        .env("GL_REPOSITORY", "project-1");
    let output = cmd.output().unwrap();
    assert_eq!(status(&output), 0, "{}", text(&output));
    assert!(!text(&output).contains("GL-HOOK-ERR"));
}
