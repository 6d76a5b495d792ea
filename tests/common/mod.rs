//! Test support: temporary git repositories driven by the real `git` binary,
//! the built `mastermind-hooks` binary, and task fixtures.
#![allow(dead_code)]

pub mod keys;
pub mod landing;
pub mod platforms;
pub mod tasks;
pub mod tools;
pub mod worktree_ops;

// Not every binary has a test that needs an external tool.
#[allow(unused_imports)]
pub use tools::{require_tool, tool_missing};

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_mastermind-hooks");

/// The global git configuration every test starts from. git 2.47 and later
/// run `git maintenance run --auto --detach` after each commit, fetch and
/// push: a background process that can still be writing into a repository
/// while its test removes it (the removal then fails and leaves the
/// directory in the system's temporary directory), and one the tests never
/// need.
pub const TEST_GITCONFIG: &str = "[maintenance]\n\tauto = false\n";

/// A configuration that lets anyone plan (new tasks, control files): for
/// tests that judge a task's work, not who planned it (the defaults refuse
/// a plan no planner made in CI and pre-receive, and warn locally).
pub const ANYONE_PLANS: &str = "planning:\n  default: allow\n";

/// A temporary git repository with an isolated configuration.
pub struct TestRepo {
    pub dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

/// Environment that isolates git from the machine's configuration.
fn isolate(cmd: &mut Command, home: &Path) {
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_CEILING_DIRECTORIES",
        "GITHUB_ACTIONS",
        "GITLAB_CI",
        "GITHUB_EVENT_PATH",
        "GITHUB_BASE_REF",
        "MASTERMIND_HOOKS_SKIP",
        // Who the platform says acts or pushes: only a test's own values.
        "GITHUB_ACTOR",
        "GITHUB_TRIGGERING_ACTOR",
        "GITHUB_HEAD_REF",
        "GITHUB_USER_LOGIN",
        "GITHUB_PULL_REQUEST_AUTHOR_LOGIN",
        "GITLAB_USER_LOGIN",
        "GL_USERNAME",
        "GL_ID",
        "GITEA_PUSHER_NAME",
        "REMOTE_USER",
        "MASTERMIND_HOOKS_REQUIRE_TASK",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("NO_COLOR", "1");
}

impl TestRepo {
    /// `git init` with `main` as the initial branch.
    pub fn new() -> TestRepo {
        TestRepo::init_with(&[])
    }

    /// [`TestRepo::new`], with `git init` also given `formats`
    /// (`--object-format=...`, `--ref-format=...`).
    pub fn init_with(formats: &[&str]) -> TestRepo {
        let repo = TestRepo {
            dir: tempfile::tempdir().expect("tempdir"),
            home: tempfile::tempdir().expect("home"),
        };
        std::fs::write(repo.home.path().join(".gitconfig"), TEST_GITCONFIG).expect("gitconfig");
        let mut args = vec!["init", "-q", "-b", "main"];
        args.extend_from_slice(formats);
        repo.git(&args);
        repo
    }

    /// `git clone [args] <source> <new dir>`.
    pub fn clone_of(source: &TestRepo, args: &[&str]) -> TestRepo {
        TestRepo::clone_url(&format!("file://{}", source.path().display()), args)
    }

    /// `git clone [args] <url> <new dir>`.
    pub fn clone_url(url: &str, args: &[&str]) -> TestRepo {
        let repo = TestRepo {
            dir: tempfile::tempdir().expect("tempdir"),
            home: tempfile::tempdir().expect("home"),
        };
        std::fs::write(repo.home.path().join(".gitconfig"), TEST_GITCONFIG).expect("gitconfig");
        let target = repo.path().display().to_string();
        let mut all = vec!["clone", "-q"];
        all.extend_from_slice(args);
        all.push(url);
        all.push(&target);
        repo.git(&all);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.path());
        isolate(&mut cmd, self.home.path());
        cmd
    }

    /// Run git and return stdout; panics with stderr on failure.
    pub fn git(&self, args: &[&str]) -> String {
        let output = self.command("git").args(args).output().expect("run git");
        assert!(
            output.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Run git and return the whole output, success or not.
    pub fn git_output(&self, args: &[&str]) -> Output {
        self.command("git").args(args).output().expect("run git")
    }

    pub fn write(&self, path: &str, content: &str) {
        let full = self.path().join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(full, content).expect("write");
    }

    pub fn remove(&self, path: &str) {
        std::fs::remove_file(self.path().join(path)).expect("remove");
    }

    pub fn commit_all(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--no-verify", "-m", message]);
        self.head()
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    /// Put HEAD on `refs/heads/alias`, a symbolic reference to the branch
    /// HEAD was on (`HEAD -> alias -> main`).
    pub fn head_on_symbolic_branch(&self) {
        let branch = self.git(&["symbolic-ref", "HEAD"]);
        self.git(&["symbolic-ref", "refs/heads/alias", branch.trim()]);
        self.git(&["symbolic-ref", "HEAD", "refs/heads/alias"]);
    }

    /// The repository's object format as git names it (`sha1`, `sha256`):
    /// the one `GIT_DEFAULT_HASH` chose when the test made it.
    pub fn object_format(&self) -> String {
        self.git(&["rev-parse", "--show-object-format"])
            .trim()
            .to_string()
    }

    /// The all-zero object id git's hooks name a missing side with, in
    /// this repository's format.
    pub fn zero_id(&self) -> String {
        "0".repeat(self.id_len())
    }

    /// The digest cache's format for this repository's object ids.
    pub fn cache_format(&self) -> mastermind_hooks::digest::cache::Format {
        use mastermind_hooks::digest::cache::Format;
        if self.object_format() == "sha256" {
            Format::Sha256
        } else {
            Format::Sha1
        }
    }

    /// The length of this repository's object ids in hex.
    pub fn id_len(&self) -> usize {
        if self.object_format() == "sha256" {
            64
        } else {
            40
        }
    }

    /// Run the built binary in this repository.
    pub fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut cmd = self.command(BIN);
        cmd.args(args);
        run_with_stdin(cmd, stdin)
    }

    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = self.command(BIN);
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        run_with_stdin(cmd, None)
    }

    /// Write a task folder with a spec declaring `touches` and a complete
    /// report listing `files_modified`.
    pub fn write_task(&self, name: &str, touches: &[&str], files_modified: &[&str]) {
        for (path, content) in task_files(name, touches, files_modified) {
            self.write(&path, &content);
        }
    }

    /// Install a raw hook that runs the built binary (no `install` command).
    pub fn raw_hook(&self, name: &str, args: &str) {
        let hooks = self.path().join(".git/hooks");
        std::fs::create_dir_all(&hooks).expect("hooks dir");
        let path = hooks.join(name);
        std::fs::write(&path, format!("#!/bin/sh\nexec \"{BIN}\" {args}\n")).expect("hook");
        make_executable(&path);
    }
}

pub fn run_with_stdin(mut cmd: Command, stdin: Option<&str>) -> Output {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    if let Some(input) = stdin {
        use std::io::Write;
        let mut pipe = child.stdin.take().expect("stdin");
        // A child may exit without reading its input (a hook whose binary is
        // missing refuses at once): its status and output are the answer.
        match pipe.write_all(input.as_bytes()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("write stdin: {e}"),
            _ => {}
        }
    }
    child.wait_with_output().expect("wait")
}

#[cfg(unix)]
pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut perms = std::fs::metadata(path).expect("meta").permissions();
    perms.set_mode(0o755);
    std::fs::set_permissions(path, perms).expect("chmod");
}

/// The files of a task: spec.md and executor-report.md.
pub fn task_files(name: &str, touches: &[&str], files_modified: &[&str]) -> Vec<(String, String)> {
    let dir = format!(".mastermind/tasks/{name}");
    let touches_yaml: String = touches.iter().map(|t| format!("  - file: {t}\n")).collect();
    let spec = format!(
        "---\nmode: verified\ntouches:\n{touches_yaml}verify:\n  - cmd: make test\n---\n# Task {name}\n\n## Goals\nChange the declared files.\n"
    );
    let files: String = if files_modified.is_empty() {
        "files_modified: []\n".into()
    } else {
        format!(
            "files_modified:\n{}",
            files_modified
                .iter()
                .map(|f| format!("  - {f}\n"))
                .collect::<String>()
        )
    };
    let report = format!(
        "# Report\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: {dir}/spec.md\nstatus: complete\nphases:\n  - id: plan-1\n    status: done\n{files}claims: []\ndefects: []\nverifications:\n  - cmd: make test\n    result: pass\n    observed:\n      exit_code: 0\n```\n<!-- mastermind:report-end -->\n"
    );
    vec![
        (format!("{dir}/spec.md"), spec),
        (format!("{dir}/executor-report.md"), report),
    ]
}

/// Parse the binary's JSON output.
pub fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): stdout={} stderr={}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Every diagnostic code in a JSON report.
pub fn codes(report: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut push = |d: &serde_json::Value| {
        if let Some(code) = d["code"].as_str() {
            out.push(code.to_string());
        }
    };
    for task in report["tasks"].as_array().into_iter().flatten() {
        for check in task["checks"].as_array().into_iter().flatten() {
            for d in check["diagnostics"].as_array().into_iter().flatten() {
                push(d);
            }
        }
    }
    for d in report["diagnostics"].as_array().into_iter().flatten() {
        push(d);
    }
    for file in report["files"].as_array().into_iter().flatten() {
        for d in file["diagnostics"].as_array().into_iter().flatten() {
            push(d);
        }
    }
    out
}

pub fn status(output: &Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

pub fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Everything a check must leave untouched: refs, index bytes, status and
/// the object store's file list.
pub fn fingerprint(repo: &TestRepo) -> (String, Vec<u8>, String, Vec<PathBuf>) {
    let refs = repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
    let index = std::fs::read(repo.path().join(".git/index")).unwrap_or_default();
    // --no-optional-locks: `git status` must not refresh the index itself.
    let status = repo.git(&[
        "--no-optional-locks",
        "status",
        "--porcelain=v2",
        "-uall",
        "--ignored",
    ]);
    let mut objects = Vec::new();
    let mut stack = vec![repo.path().join(".git/objects")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                objects.push(path);
            }
        }
    }
    objects.sort();
    (refs, index, status, objects)
}
