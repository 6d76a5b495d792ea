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

/// A `git` that says it is 2.30 and points git's exec-path at itself, and
/// otherwise runs the real git: the server's git, as `install --server`
/// finds it, too old for the gate.
fn old_git(dir: &Path) {
    let real = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("git"))
        .find(|g| g.is_file())
        .expect("git on PATH");
    executable(
        &dir.join("git"),
        &format!(
            "#!/bin/sh\ncase \"$1\" in\n  --exec-path) echo '{}' ;;\n  --version) echo 'git version 2.30.1' ;;\n  *) exec '{}' \"$@\" ;;\nesac\n",
            dir.display(),
            real.display()
        ),
    );
}

#[test]
fn install_server_names_the_git_its_hook_runs_and_refuses_one_too_old() {
    let bare = TestRepo::new();
    let path = bare.path().join("server.git");
    bare.git(&["init", "-q", "--bare", "-b", "main", path.to_str().unwrap()]);
    let output = bare
        .command(BIN)
        .current_dir(&path)
        .args(["install", "--server"])
        .output()
        .unwrap();
    assert_eq!(status(&output), 0, "{}", text(&output));
    // git puts its exec-path first on a hook's PATH: that is the git named.
    let exec_path = bare.git(&["--exec-path"]).trim().to_string();
    assert!(
        text(&output).contains(&format!("the hook runs {exec_path}/git (git version ")),
        "{}",
        text(&output)
    );

    let old = TestRepo::new();
    let path = old.path().join("server.git");
    old.git(&["init", "-q", "--bare", "-b", "main", path.to_str().unwrap()]);
    let fake = tempfile::tempdir().unwrap();
    old_git(fake.path());
    let output = old
        .command(BIN)
        .current_dir(&path)
        .args(["install", "--server"])
        .env(
            "PATH",
            format!(
                "{}:{}",
                fake.path().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .output()
        .unwrap();
    assert_eq!(status(&output), 2, "{}", text(&output));
    assert!(
        text(&output).contains("git version 2.30.1")
            && text(&output).contains("needs git 2.38 or newer")
            && text(&output).contains("git_version_unsupported"),
        "{}",
        text(&output)
    );
    assert!(
        !path.join("hooks/pre-receive").exists(),
        "nothing is installed"
    );
}

#[test]
fn a_hook_environment_without_git_is_exit_2_naming_git_and_path() {
    // The server's repository holds a merge that only git can compute; the
    // gate runs where no git is (a chroot or container with the binary
    // alone), fed the ref line git would give its pre-receive hook.
    let bare = TestRepo::new();
    let server = bare.path().join("server.git");
    bare.git(&[
        "init",
        "-q",
        "--bare",
        "-b",
        "main",
        server.to_str().unwrap(),
    ]);
    let work = TestRepo::new();
    work.write("a.txt", "a\n");
    work.write("b.txt", "b\n");
    work.commit_all("base");
    work.git(&["remote", "add", "origin", server.to_str().unwrap()]);
    work.git(&["push", "-q", "origin", "main"]);
    let old = work.head();
    work.git(&["checkout", "-q", "-b", "feature"]);
    work.write("a.txt", "a2\n");
    work.commit_all("feature");
    work.git(&["checkout", "-q", "main"]);
    work.write("b.txt", "b2\n");
    work.commit_all("main moves");
    work.git(&["merge", "-q", "--no-ff", "--no-edit", "feature"]);
    let new = work.head();
    work.git(&["push", "-q", "origin", "main:refs/heads/incoming"]);
    let empty = tempfile::tempdir().unwrap();
    let mut check = work.command(BIN);
    check
        .current_dir(&server)
        .args(["check", "--receive"])
        .env("PATH", empty.path());
    let output =
        crate::common::run_with_stdin(check, Some(&format!("{old} {new} refs/heads/main\n")));
    assert_eq!(status(&output), 2, "{}", text(&output));
    let said = text(&output);
    assert!(said.contains("git_not_found"), "{said}");
    assert!(
        said.contains(&format!("PATH={}", empty.path().display())),
        "{said}"
    );
    assert!(said.contains("no `git` program"), "{said}");
    assert!(
        !said.contains("git fsck"),
        "not a damaged repository: {said}"
    );
}
