//! Living with other hook managers, with the real tools: the gate added to
//! pre-commit and prek through this repository's `.pre-commit-hooks.yaml`,
//! and to lefthook and husky by the recipes the book gives, refuses a bad
//! commit and a bad push and lets a good one through; `install` recognises
//! each manager's scripts and refuses to wrap them. A tool that is not on
//! PATH fails the test under CI and is skipped with a printed reason
//! elsewhere (`crate::common::require_tool`; `.ci/run` installs them:
//! pre-commit and prek from PyPI, lefthook and husky from npm). hk is not
//! served by this project's registries, so its recipe is not exercised here.

use crate::common::{TEST_GITCONFIG, require_tool};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_mastermind-hooks");

struct Sandbox {
    dir: tempfile::TempDir,
    path: std::ffi::OsString,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("home")).expect("home");
        std::fs::write(dir.path().join("home/.gitconfig"), TEST_GITCONFIG).expect("gitconfig");
        let bin_dir = Path::new(BIN).parent().expect("bin dir").to_path_buf();
        let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )))
        .expect("PATH");
        Sandbox { dir, path }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn cmd(&self, cwd: &Path, program: &str, args: &[&str]) -> Output {
        let home = self.root().join("home");
        let mut cmd = Command::new(program);
        cmd.args(args).current_dir(cwd);
        for (var, _) in std::env::vars_os() {
            let name = var.to_string_lossy();
            if name.starts_with("GIT_") || name.starts_with("PRE_COMMIT") || name == "CI" {
                cmd.env_remove(&var);
            }
        }
        cmd.env("PATH", &self.path)
            .env("HOME", &home)
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("PRE_COMMIT_HOME", home.join(".cache/pre-commit"))
            .env("PREK_HOME", home.join(".cache/prek"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
            .env("NO_COLOR", "1");
        cmd.output().unwrap_or_else(|e| panic!("{program}: {e}"))
    }

    fn ok(&self, cwd: &Path, program: &str, args: &[&str]) -> String {
        let output = self.cmd(cwd, program, args);
        assert!(
            output.status.success(),
            "{program} {args:?}: {}",
            log(&output)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }

    /// A project with a bare `origin` and one commit pushed.
    fn project(&self) -> PathBuf {
        let origin = self.root().join("origin.git");
        let project = self.root().join("project");
        self.ok(self.root(), "git", &["init", "-q", "--bare", "origin.git"]);
        self.ok(self.root(), "git", &["init", "-q", "-b", "main", "project"]);
        std::fs::write(project.join("a.txt"), "a\n").expect("write");
        self.ok(&project, "git", &["add", "-A"]);
        self.ok(&project, "git", &["commit", "-qm", "start"]);
        let origin = origin.display().to_string();
        self.ok(&project, "git", &["remote", "add", "origin", &origin]);
        self.ok(&project, "git", &["push", "-q", "origin", "main"]);
        project
    }
}

fn log(output: &Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A task whose report is missing: the gate must refuse it.
fn write_bad_task(project: &Path) {
    let task = project.join(".mastermind/tasks/bad");
    std::fs::create_dir_all(&task).expect("mkdir");
    std::fs::write(
        task.join("spec.md"),
        "---\nmode: verified\nrisk: low\ntouches:\n  - file: a.txt\n---\n# bad\n",
    )
    .expect("spec");
    std::fs::write(project.join("a.txt"), "changed\n").expect("write");
}

/// The gate, through the manager's hooks: a commit that touches no task
/// passes, a bad task is refused at commit, and a bad task committed with
/// --no-verify is refused at push. `install` refuses to wrap the manager.
fn exercise(sandbox: &Sandbox, project: &Path, manager: &str) {
    std::fs::write(project.join("b.txt"), "b\n").expect("write");
    sandbox.ok(project, "git", &["add", "-A"]);
    let good = sandbox.cmd(project, "git", &["commit", "-qm", "no task"]);
    assert!(good.status.success(), "{manager}: {}", log(&good));

    write_bad_task(project);
    sandbox.ok(project, "git", &["add", "-A"]);
    let bad = sandbox.cmd(project, "git", &["commit", "-qm", "bad task"]);
    assert!(
        !bad.status.success(),
        "{manager} let a bad commit through: {}",
        log(&bad)
    );
    assert!(
        log(&bad).contains("executor_report_missing"),
        "{manager}: {}",
        log(&bad)
    );

    sandbox.ok(
        project,
        "git",
        &["commit", "-qm", "bad task", "--no-verify"],
    );
    let push = sandbox.cmd(project, "git", &["push", "origin", "main"]);
    assert!(
        !push.status.success(),
        "{manager} let a bad push through: {}",
        log(&push)
    );
    assert!(
        log(&push).contains("executor_report_missing"),
        "{manager}: {}",
        log(&push)
    );

    // status reads the manager's configuration: git runs the gate.
    let status = sandbox.cmd(project, BIN, &["status", "--format", "json"]);
    assert_eq!(status.status.code(), Some(0), "{manager}: {}", log(&status));
    let report: serde_json::Value = serde_json::from_slice(&status.stdout).expect("status JSON");
    for hook in report["hooks"].as_array().expect("hooks") {
        assert_eq!(hook["manager"]["state"], "runs_gate", "{manager}: {hook}");
        assert_eq!(
            hook["diagnostics"],
            serde_json::json!([]),
            "{manager}: {hook}"
        );
    }
    let human = sandbox.cmd(project, BIN, &["status"]);
    assert!(
        String::from_utf8_lossy(&human.stdout).contains("which runs `mastermind-hooks check"),
        "{manager}: {}",
        log(&human)
    );

    let install = sandbox.cmd(project, BIN, &["install"]);
    assert_eq!(
        install.status.code(),
        Some(2),
        "{manager}: {}",
        log(&install)
    );
    assert!(
        log(&install).contains("hook_manager_present"),
        "{manager}: {}",
        log(&install)
    );
}

/// pre-commit and prek, through this repository's `.pre-commit-hooks.yaml`
/// served from a local git repository exactly as users reference it.
fn pre_commit_like(tool: &str) {
    let Some(program) = require_tool(tool) else {
        return;
    };
    let program = program.display().to_string();
    let sandbox = Sandbox::new();
    let hooks_repo = sandbox.root().join("mastermind-hooks");
    sandbox.ok(
        sandbox.root(),
        "git",
        &["init", "-q", "-b", "main", "mastermind-hooks"],
    );
    std::fs::copy(
        ".pre-commit-hooks.yaml",
        hooks_repo.join(".pre-commit-hooks.yaml"),
    )
    .expect("copy .pre-commit-hooks.yaml");
    sandbox.ok(&hooks_repo, "git", &["add", "-A"]);
    sandbox.ok(&hooks_repo, "git", &["commit", "-qm", "hooks"]);
    let rev = sandbox.ok(&hooks_repo, "git", &["rev-parse", "HEAD"]);

    let project = sandbox.project();
    std::fs::write(
        project.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks: [{{ id: mastermind-hooks }}, {{ id: mastermind-hooks-push }}]\n",
            hooks_repo.display()
        ),
    )
    .expect("config");
    sandbox.ok(
        &project,
        &program,
        &[
            "install",
            "-t",
            "pre-commit",
            "-t",
            "pre-push",
            "-t",
            "pre-merge-commit",
        ],
    );
    exercise(&sandbox, &project, tool);
}

#[test]
fn pre_commit_runs_the_gate_from_the_repository_hooks_file() {
    pre_commit_like("pre-commit");
}

#[test]
fn prek_runs_the_gate_from_the_repository_hooks_file() {
    pre_commit_like("prek");
}

#[test]
fn lefthook_runs_the_gate_by_the_books_recipe() {
    let Some(program) = require_tool("lefthook") else {
        return;
    };
    let sandbox = Sandbox::new();
    let project = sandbox.project();
    std::fs::write(
        project.join("lefthook.yml"),
        mastermind_hooks::install::managers::RECIPE_LEFTHOOK,
    )
    .expect("lefthook.yml");
    sandbox.ok(&project, &program.display().to_string(), &["install"]);
    exercise(&sandbox, &project, "lefthook");
}

#[test]
fn husky_runs_the_gate_by_the_books_recipe() {
    let Some(program) = require_tool("husky") else {
        return;
    };
    let sandbox = Sandbox::new();
    let project = sandbox.project();
    sandbox.ok(&project, &program.display().to_string(), &[]);
    std::fs::write(
        project.join(".husky/pre-commit"),
        "mastermind-hooks check --staged\n",
    )
    .expect("pre-commit");
    std::fs::write(
        project.join(".husky/pre-merge-commit"),
        "mastermind-hooks check --staged\n",
    )
    .expect("pre-merge-commit");
    std::fs::write(
        project.join(".husky/pre-push"),
        "mastermind-hooks check --push \"$@\"\n",
    )
    .expect("pre-push");
    exercise(&sandbox, &project, "husky");
}

/// A manager whose configuration does not run the gate is reported as
/// such, with the recipe, and hk's configuration is read from `hk.pkl`
/// (hk itself is not served by the package registries this project's CI
/// reaches, and its `hk.pkl` amends a package fetched from the network, so
/// the hook script hk writes stands in for it).
#[test]
fn status_reads_hk_pkl_and_names_a_manager_that_does_not_run_the_gate() {
    let sandbox = Sandbox::new();
    let project = sandbox.project();
    let hooks = project.join(".git/hooks");
    std::fs::create_dir_all(&hooks).expect("hooks");
    for hook in ["pre-commit", "pre-push"] {
        let path = hooks.join(hook);
        std::fs::write(
            &path,
            format!("#!/bin/sh\ntest \"${{HK:-1}}\" = \"0\" || exec hk run {hook} \"$@\"\n"),
        )
        .expect("hook");
        crate::common::make_executable(&path);
    }
    std::fs::write(
        project.join("hk.pkl"),
        format!(
            "amends \"package://github.com/jdx/hk/releases/download/v1.0.0/hk@1.0.0#/Config.pkl\"\n{}",
            mastermind_hooks::install::managers::RECIPE_HK
        ),
    )
    .expect("hk.pkl");
    let status = sandbox.cmd(
        &project,
        BIN,
        &[
            "status",
            "--hook",
            "pre-commit",
            "--hook",
            "pre-push",
            "--format",
            "json",
        ],
    );
    assert_eq!(status.status.code(), Some(1), "{}", log(&status));
    let report: serde_json::Value = serde_json::from_slice(&status.stdout).expect("JSON");
    assert_eq!(report["hooks"][0]["manager"]["name"], "hk");
    assert_eq!(report["hooks"][0]["manager"]["state"], "runs_gate");
    assert_eq!(report["hooks"][0]["manager"]["config"], "hk.pkl");
    // The recipe leaves pre-push to mastermind-hooks' shim: hk's pre-push
    // here runs no gate, and status says so, with the recipe.
    assert_eq!(report["hooks"][1]["manager"]["state"], "does_not_run");
    let d = &report["hooks"][1]["diagnostics"][0];
    assert_eq!(d["code"], "hook_not_installed");
    assert!(
        d["hint"].as_str().unwrap().contains("docs/src/hooks.md#hk"),
        "{d}"
    );
}

/// No recipe pins a release tag (none exists) or installs a crate that is
/// not published; the recipes `install` prints are the book's.
#[test]
fn recipes_pin_no_missing_tag_and_install_from_the_source() {
    use mastermind_hooks::install::managers::Manager;
    let hooks_md = std::fs::read_to_string("docs/src/hooks.md").expect("hooks.md");
    let manifest = std::fs::read_to_string(".pre-commit-hooks.yaml").expect("manifest");
    let mut texts = vec![hooks_md.clone(), manifest];
    texts.extend(Manager::ALL.iter().map(|m| m.recipe().to_string()));
    for text in &texts {
        assert!(
            !text.lines().any(|l| l.trim_start().starts_with("rev: v")),
            "a release tag is pinned, and none exists:\n{text}"
        );
        assert!(
            !text.contains("cargo install --locked mastermind-hooks"),
            "{text}"
        );
    }
    for manager in [Manager::Lefthook, Manager::Hk] {
        let recipe = manager.recipe();
        for line in recipe
            .lines()
            .filter(|l| l.contains("mastermind-hooks check"))
        {
            assert!(
                hooks_md.contains(line.trim()) || hooks_md.contains(line),
                "{manager:?}: the book lacks `{line}`"
            );
        }
    }
}

#[test]
fn the_husky_recipe_in_the_registry_is_what_this_test_writes() {
    let recipe = mastermind_hooks::install::managers::RECIPE_HUSKY;
    assert!(recipe.contains("mastermind-hooks check --staged"));
    assert!(recipe.contains("mastermind-hooks check --push \"$@\""));
}

/// Every tool a test may ask for is one `.ci/run` installs, at the version
/// the test's install hint names, so under CI no test can miss one.
#[test]
fn ci_installs_every_tool_a_test_asks_for_at_the_pinned_version() {
    let script = std::fs::read_to_string(".ci/run").expect(".ci/run");
    for (tool, install) in crate::common::tools::INSTALL {
        let commands: Vec<&str> = install.split('`').skip(1).step_by(2).collect();
        assert!(
            !commands.is_empty(),
            "{tool}: no install command in {install}"
        );
        let done_by_ci = commands.iter().any(|command| {
            if let Some(spec) = command.strip_prefix("pip install ") {
                script.contains(spec)
            } else if let Some(spec) = command.strip_prefix("npm install ") {
                script.contains(spec)
            } else if let Some(package) = command.strip_prefix("apt-get install ") {
                script.contains(&format!("need {tool} {package}"))
            } else {
                false
            }
        });
        assert!(
            done_by_ci,
            "{tool}: .ci/run runs none of {commands:?}; install it there (tests/common/tools.rs)"
        );
    }
}
