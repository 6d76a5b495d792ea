//! The CI templates: both YAML files parse, name only scripts, subcommands and
//! flags that exist, and their scripts behave: a stub binary records the exact
//! command lines they run, and the real binary runs them in real git
//! repositories (made with the `git` binary) with the platforms' environment
//! variables: `check --ci` on pull-request-shaped repositories with tasks, and
//! `validate` through the scripts' `MASTERMIND_HOOKS_CMD` override for the
//! format plumbing (annotations, job summary, SARIF, Code Quality, JUnit).
//!
//! The action runs through an emulation of GitHub's composite runner: every
//! step of action.yml in order, `${{ }}` expressions of inputs and step
//! outputs substituted, `$GITHUB_OUTPUT` read back after each step, and
//! actions/cache restore/save kept in a directory standing for GitHub's
//! cache. Events come from the payloads GitHub documents for them
//! (`GITHUB_EVENT_PATH`), GitLab pipelines from its predefined variables.
//! A fake `cargo` stands for the source build (it records its arguments and
//! installs the test binary), so the build-once-then-cache path is exercised
//! without compiling for minutes.

use crate::common;

use clap::Parser;
use mastermind_hooks::cli::Cli;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(super) const BIN: &str = env!("CARGO_BIN_EXE_mastermind-hooks");

/// The gate as the templates receive it: a two-line script that runs
/// [`BIN`]. The scripts hash the binary before every run and the release
/// route packs it; the debug build is some 200 MB, the script a few bytes,
/// and it judges exactly as the binary does. It outlives every test of this
/// process, so it lives in cargo's scratch directory for integration tests
/// (under the target directory), not in the system's temporary directory.
pub(super) fn gate() -> &'static str {
    static GATE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    GATE.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("gate-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap()
            .keep();
        let script = dir.join("mastermind-hooks");
        std::fs::write(&script, format!("#!/bin/sh\nexec '{BIN}' \"$@\"\n")).unwrap();
        make_executable(&script);
        script.display().to_string()
    })
}
const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cmd/validate.in");

pub(super) fn path(relative: &str) -> PathBuf {
    Path::new(ROOT).join(relative)
}

pub(super) fn read(relative: &str) -> String {
    std::fs::read_to_string(path(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

pub(super) fn yaml(relative: &str) -> Value {
    serde_saphyr::from_str(&read(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The inputs the action must offer.
const ACTION_INPUTS: &[&str] = &[
    "version",
    "download-url",
    "sha256",
    "binary-path",
    "binary-sha256",
    "base",
    "head",
    "format",
    "fail-on",
    "require-task",
    "sarif-file",
    "max-annotations",
    "rerun",
    "rerun-timeout",
    "rerun-jobs",
    "rerun-in",
    "attestation",
];

/// A recorded command line names a subcommand and flags that exist: clap
/// parses it exactly as the binary would.
fn assert_known_command(argv: &[String]) {
    let full = std::iter::once("mastermind-hooks".to_string()).chain(argv.iter().cloned());
    if let Err(error) = Cli::try_parse_from(full) {
        panic!("the CLI rejects {argv:?}: {error}");
    }
    assert_eq!(argv[..2], ["check", "--ci"], "the CI gate is `check --ci`");
}

// ---- the YAML files --------------------------------------------------------

#[test]
fn action_yml_is_a_composite_action_wiring_every_input_into_run_sh() {
    let action = yaml("ci-templates/github/action.yml");
    assert_eq!(action["runs"]["using"], "composite");
    let inputs: BTreeSet<&str> = action["inputs"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(inputs, ACTION_INPUTS.iter().copied().collect());
    for (name, input) in action["inputs"].as_object().unwrap() {
        assert!(input["description"].is_string(), "{name} is documented");
        assert!(input["default"].is_string(), "{name} has a string default");
    }
    let text = read("ci-templates/github/action.yml");
    assert!(
        !text.contains("github.action_path"),
        "the host's path is wrong in container jobs: run.sh finds its own directory"
    );
    let run_sh = read("ci-templates/github/run.sh");
    let mut used = BTreeSet::new();
    let steps = action["runs"]["steps"].as_array().unwrap();
    let ids: Vec<&str> = steps.iter().filter_map(|s| s["id"].as_str()).collect();
    assert_eq!(ids, ["prepare", "install", "gate"]);
    for step in steps {
        if let Some(uses) = step["uses"].as_str() {
            let (name, pin) = uses.split_once('@').unwrap();
            assert!(
                ["actions/cache/restore", "actions/cache/save"].contains(&name),
                "{uses}"
            );
            assert!(
                pin.len() == 40 && pin.bytes().all(|b| b.is_ascii_hexdigit()),
                "{uses} is pinned to a commit"
            );
            continue;
        }
        assert_eq!(step["shell"], "sh");
        let run = step["run"].as_str().unwrap();
        assert!(
            run.starts_with("sh \"$GITHUB_ACTION_PATH/run.sh\""),
            "{run}"
        );
        assert!(!run.contains("${{"), "no input is spliced into a command");
        for (var, value) in step["env"].as_object().unwrap() {
            assert!(run_sh.contains(var.as_str()), "run.sh reads {var}");
            let value = value.as_str().unwrap();
            if let Some(input) = value
                .strip_prefix("${{ inputs.")
                .and_then(|v| v.strip_suffix(" }}"))
            {
                assert!(
                    inputs.contains(input),
                    "{var} names an unknown input {input}"
                );
                used.insert(input);
            }
        }
    }
    assert_eq!(used, inputs, "every input reaches the script");
    // GitHub leaves GITHUB_ACTION_REF empty in composite run steps (actions/runner
    // issue 2473): the steps that pick the release get it through env.
    for id in ["prepare", "install"] {
        let step = steps.iter().find(|s| s["id"] == id).unwrap();
        assert_eq!(
            step["env"]["MASTERMIND_HOOKS_ACTION_REF"], "${{ github.action_ref }}",
            "{id}"
        );
        assert_eq!(
            step["env"]["MASTERMIND_HOOKS_ACTION_REPOSITORY"], "${{ github.action_repository }}",
            "{id}"
        );
    }
    let gate = steps.iter().find(|s| s["id"] == "gate").unwrap();
    assert_eq!(
        gate["env"]["MASTERMIND_HOOKS_VERIFIED_SHA256"], "${{ steps.install.outputs.sha256 }}",
        "the gate step checks the binary against the digest the install step recorded"
    );
    assert_eq!(
        action["outputs"]["exit-code"]["value"],
        "${{ steps.gate.outputs.exit-code }}"
    );
}

/// The script block of the GitLab job, and where it sits in the file.
fn gitlab_script_lines(text: &str) -> (usize, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| *l == "    - |")
        .expect("a `- |` script block")
        + 1;
    let end = lines[start..]
        .iter()
        .position(|l| !l.is_empty() && !l.starts_with("      "))
        .map_or(lines.len(), |i| start + i);
    (start, end)
}

#[test]
fn gitlab_template_embeds_run_sh_verbatim() {
    let file = "ci-templates/gitlab/mastermind-hooks.yml";
    let text = read(file);
    let run_sh = read("ci-templates/gitlab/run.sh");
    let job = yaml(file);
    let script = job["mastermind-hooks"]["script"][0].as_str().unwrap();
    if script != run_sh {
        if std::env::var_os("UPDATE_TEMPLATES").is_some() {
            let lines: Vec<&str> = text.lines().collect();
            let (start, end) = gitlab_script_lines(&text);
            let mut updated: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
            updated.extend(run_sh.lines().map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("      {l}")
                }
            }));
            updated.extend(lines[end..].iter().map(|l| l.to_string()));
            std::fs::write(path(file), updated.join("\n") + "\n").unwrap();
        } else {
            panic!(
                "{file} does not embed ci-templates/gitlab/run.sh: run UPDATE_TEMPLATES=1 cargo test --test hooks templates::"
            );
        }
    }
}

#[test]
fn gitlab_template_is_a_merge_request_job_with_reports() {
    let file = yaml("ci-templates/gitlab/mastermind-hooks.yml");
    let job = &file["mastermind-hooks"];
    assert_eq!(
        job["variables"]["GIT_DEPTH"], "0",
        "the merge base must be in the clone"
    );
    let rules = job["rules"].as_array().unwrap();
    let conditions: Vec<&str> = rules.iter().map(|r| r["if"].as_str().unwrap()).collect();
    assert_eq!(
        conditions,
        [
            "$CI_PIPELINE_SOURCE == \"merge_request_event\"",
            "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH",
            "$CI_COMMIT_BRANCH && $CI_OPEN_MERGE_REQUESTS",
            "$CI_COMMIT_BRANCH",
        ]
    );
    assert_eq!(
        rules[1]["allow_failure"], true,
        "the default branch's run makes Code Quality's base report without failing the pipeline"
    );
    assert_eq!(
        rules[2]["when"], "never",
        "no duplicate of a merge request pipeline"
    );
    assert_eq!(job["cache"]["paths"][0], ".mastermind-hooks/");
    assert_eq!(
        job["artifacts"]["when"], "always",
        "reports of a failing gate are uploaded"
    );
    let run_sh = read("ci-templates/gitlab/run.sh");
    let codequality = job["artifacts"]["reports"]["codequality"].as_str().unwrap();
    let junit = job["artifacts"]["reports"]["junit"].as_str().unwrap();
    assert!(run_sh.contains(&format!(
        "codequality=${{MASTERMIND_HOOKS_CODEQUALITY:-{codequality}}}"
    )));
    assert!(run_sh.contains(&format!("junit=${{MASTERMIND_HOOKS_JUNIT:-{junit}}}")));
    for (var, _) in job["variables"].as_object().unwrap() {
        assert!(
            var == "GIT_DEPTH" || run_sh.contains(var.as_str()),
            "run.sh reads {var}"
        );
    }
}

// ---- a stub binary records what the scripts run ---------------------------

struct Stub {
    dir: tempfile::TempDir,
}

impl Stub {
    /// A fake `mastermind-hooks` that appends its argv (one argument a line,
    /// then `--end--`) and its MASTERMIND_HOOKS_REQUIRE_TASK to a log, writes
    /// `stub FORMAT` to the file of every `--output FORMAT=FILE`, prints
    /// STUB_OUTPUT and exits STUB_STATUS. Asked for `--version` (the scripts
    /// log which binary runs), it says `mastermind-hooks stub` and records
    /// nothing.
    fn new() -> Stub {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("mastermind-hooks");
        std::fs::write(
            &bin,
            "#!/bin/sh\n\
             [ \"$*\" != --version ] || { echo 'mastermind-hooks stub'; exit 0; }\n\
             log=\"$(dirname \"$0\")/argv.log\"\n\
             prev=\n\
             for a in \"$@\"; do\n\
                 printf '%s\\n' \"$a\" >>\"$log\"\n\
                 [ \"$prev\" != --output ] || printf 'stub %s\\n' \"${a%%=*}\" >\"${a#*=}\"\n\
                 prev=$a\n\
             done\n\
             printf 'require-task=%s\\n--end--\\n' \"${MASTERMIND_HOOKS_REQUIRE_TASK:-unset}\" >>\"$log\"\n\
             printf '%s\\n' \"${STUB_OUTPUT:-mastermind-hooks: passed: 0 tasks checked, 0 failed (0 errors, 0 warnings, 0 notes)}\"\n\
             exit \"${STUB_STATUS:-0}\"\n",
        )
        .unwrap();
        make_executable(&bin);
        Stub { dir }
    }

    fn bin(&self) -> PathBuf {
        self.dir.path().join("mastermind-hooks")
    }

    /// Every recorded invocation: (argv, require-task value).
    fn calls(&self) -> Vec<(Vec<String>, String)> {
        let log = std::fs::read_to_string(self.dir.path().join("argv.log")).unwrap_or_default();
        log.split("--end--\n")
            .filter(|c| !c.is_empty())
            .map(|call| {
                let mut lines: Vec<String> = call.lines().map(str::to_string).collect();
                let require = lines.pop().unwrap();
                (
                    lines,
                    require.trim_start_matches("require-task=").to_string(),
                )
            })
            .collect()
    }
}

pub(super) fn make_executable(file: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut permissions = std::fs::metadata(file).unwrap().permissions();
    permissions.set_mode(0o755);
    std::fs::set_permissions(file, permissions).unwrap();
}

/// The host's PATH without an installed `mastermind-hooks`: what a template
/// runs is the binary a test names, never one the machine happens to have.
/// The host's PATH without any installed `mastermind-hooks`.
pub(super) fn host_path() -> String {
    crate::common::tools::path_without(&["mastermind-hooks"])
        .into_string()
        .expect("a UTF-8 PATH")
}

/// Run a script with a clean environment (only PATH and HOME from the host,
/// so a host that is itself a CI runner does not leak in) plus `env`.
fn run_script(script: &str, cwd: &Path, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new("sh");
    command
        .arg(path(script))
        .current_dir(cwd)
        .env_clear()
        .env("PATH", host_path())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default());
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn github_script_runs_check_ci_with_base_head_and_sarif() {
    let stub = Stub::new();
    let work = tempfile::tempdir().unwrap();
    let sarif = work.path().join("out/results.sarif");
    let output = run_script(
        "ci-templates/github/run.sh",
        work.path(),
        &[
            ("MASTERMIND_HOOKS_BIN", stub.bin().to_str().unwrap()),
            ("MASTERMIND_HOOKS_BASE", "origin/main"),
            ("MASTERMIND_HOOKS_HEAD", "HEAD"),
            ("MASTERMIND_HOOKS_SARIF_FILE", sarif.to_str().unwrap()),
            ("MASTERMIND_HOOKS_REQUIRE_TASK", "true"),
            ("MASTERMIND_HOOKS_MAX_ANNOTATIONS", "10"),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let calls = stub.calls();
    let argvs: Vec<Vec<String>> = calls.iter().map(|(a, _)| a.clone()).collect();
    assert_eq!(
        argvs,
        [vec![
            "check".to_string(),
            "--ci".into(),
            "--base".into(),
            "origin/main".into(),
            "--head".into(),
            "HEAD".into(),
            "--format".into(),
            "github".into(),
            "--max-annotations".into(),
            "10".into(),
            "--output".into(),
            format!("sarif={}", sarif.display()),
        ],],
        "one run renders the annotations, the job summary and the SARIF log"
    );
    assert!(calls.iter().all(|(_, require)| require == "true"));
    for argv in &argvs {
        assert_known_command(argv);
    }
    assert!(
        sarif.is_file(),
        "the SARIF file is written, its directory created"
    );
}

#[test]
fn github_script_without_revisions_lets_check_detect_them() {
    let stub = Stub::new();
    let work = tempfile::tempdir().unwrap();
    let output = run_script(
        "ci-templates/github/run.sh",
        work.path(),
        &[
            ("MASTERMIND_HOOKS_BIN", stub.bin().to_str().unwrap()),
            ("GITHUB_BASE_REF", "main"),
            ("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567"),
        ],
    );
    assert_eq!(output.status.code(), Some(0));
    let calls = stub.calls();
    assert_eq!(calls.len(), 1, "no SARIF unless asked");
    assert_eq!(
        calls[0].0,
        [
            "check",
            "--ci",
            "--format",
            "github",
            "--max-annotations",
            "10"
        ]
    );
    assert_eq!(calls[0].1, "unset", "require-task is off by default");
    assert_known_command(&calls[0].0);
}

#[test]
fn gitlab_script_leaves_the_base_to_check_ci_unless_overridden() {
    let stub = Stub::new();
    let work = tempfile::tempdir().unwrap();
    let output = run_script(
        "ci-templates/gitlab/run.sh",
        work.path(),
        &[
            ("MASTERMIND_HOOKS_BIN", stub.bin().to_str().unwrap()),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", "abc123"),
            ("NO_COLOR", "1"),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // check --ci reads the GitLab variables itself (target branch tip first).
    let argvs: Vec<Vec<String>> = stub.calls().into_iter().map(|(a, _)| a).collect();
    assert!(
        argvs.iter().all(|a| !a.contains(&"--base".to_string())),
        "{argvs:?}"
    );
    let stub = Stub::new();
    let output = run_script(
        "ci-templates/gitlab/run.sh",
        work.path(),
        &[
            ("MASTERMIND_HOOKS_BIN", stub.bin().to_str().unwrap()),
            ("MASTERMIND_HOOKS_BASE", "abc123"),
            ("NO_COLOR", "1"),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let argvs: Vec<Vec<String>> = stub.calls().into_iter().map(|(a, _)| a).collect();
    let expected: Vec<Vec<String>> = [&[
        "check",
        "--ci",
        "--base",
        "abc123",
        "--format",
        "human",
        "--color",
        "never",
        "--output",
        "gitlab=gl-code-quality-report.json",
        "--output",
        "junit=mastermind-hooks-junit.xml",
    ][..]]
    .iter()
    .map(|v| v.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(argvs, expected, "one run writes the log and both reports");
    for argv in &argvs {
        assert_known_command(argv);
    }
    assert!(work.path().join("gl-code-quality-report.json").is_file());
    assert!(work.path().join("mastermind-hooks-junit.xml").is_file());
}

#[test]
fn scripts_never_turn_an_odd_exit_into_a_pass() {
    for script in ["ci-templates/github/run.sh", "ci-templates/gitlab/run.sh"] {
        for (stub_status, expected) in [("0", 0), ("1", 1), ("2", 2), ("3", 2), ("139", 2)] {
            let stub = Stub::new();
            let work = tempfile::tempdir().unwrap();
            let output = run_script(
                script,
                work.path(),
                &[
                    ("MASTERMIND_HOOKS_BIN", stub.bin().to_str().unwrap()),
                    ("STUB_STATUS", stub_status),
                ],
            );
            assert_eq!(
                output.status.code(),
                Some(expected),
                "{script} with {stub_status}"
            );
        }
    }
}

#[test]
fn fail_on_warning_fails_a_passing_gate_with_warnings() {
    let warned =
        "mastermind-hooks: passed: 1 task checked, 0 failed (0 errors, 2 warnings, 0 notes)";
    for (fail_on, expected) in [("error", 0), ("warning", 1)] {
        let stub = Stub::new();
        let work = tempfile::tempdir().unwrap();
        let output = run_script(
            "ci-templates/github/run.sh",
            work.path(),
            &[
                ("MASTERMIND_HOOKS_BIN", stub.bin().to_str().unwrap()),
                ("MASTERMIND_HOOKS_FAIL_ON", fail_on),
                ("STUB_OUTPUT", warned),
            ],
        );
        assert_eq!(output.status.code(), Some(expected), "fail-on {fail_on}");
    }
    // A summary with no warnings passes fail-on warning.
    let stub = Stub::new();
    let work = tempfile::tempdir().unwrap();
    let output = run_script(
        "ci-templates/github/run.sh",
        work.path(),
        &[
            ("MASTERMIND_HOOKS_BIN", stub.bin().to_str().unwrap()),
            ("MASTERMIND_HOOKS_FAIL_ON", "warning"),
        ],
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn bad_inputs_and_missing_binaries_are_exit_2_before_anything_runs() {
    let stub = Stub::new();
    let work = tempfile::tempdir().unwrap();
    let bin = stub.bin();
    // (script, environment, expected message)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
    let cases: &[Case] = &[
        (
            "ci-templates/github/run.sh",
            &[("MASTERMIND_HOOKS_FAIL_ON", "sometimes")],
            "fail-on must be error or warning",
        ),
        (
            "ci-templates/github/run.sh",
            &[("MASTERMIND_HOOKS_FORMAT", "sarif")],
            "format must be github, human or json",
        ),
        (
            "ci-templates/github/run.sh",
            &[("MASTERMIND_HOOKS_REQUIRE_TASK", "yes")],
            "require-task must be true or false",
        ),
        (
            "ci-templates/github/run.sh",
            &[("MASTERMIND_HOOKS_MAX_ANNOTATIONS", "ten")],
            "max-annotations must be a number",
        ),
        (
            "ci-templates/gitlab/run.sh",
            &[("MASTERMIND_HOOKS_FAIL_ON", "sometimes")],
            "MASTERMIND_HOOKS_FAIL_ON must be error or warning",
        ),
    ];
    for (script, env, message) in cases {
        let mut env = env.to_vec();
        env.push(("MASTERMIND_HOOKS_BIN", bin.to_str().unwrap()));
        let output = run_script(script, work.path(), &env);
        assert_eq!(output.status.code(), Some(2), "{script} {env:?}");
        let all = text(&output.stdout) + &text(&output.stderr);
        assert!(all.contains(message), "{all}");
    }
    assert!(stub.calls().is_empty(), "nothing ran");

    for script in ["ci-templates/github/run.sh", "ci-templates/gitlab/run.sh"] {
        let missing = work.path().join("no-such-binary");
        let output = run_script(
            script,
            work.path(),
            &[("MASTERMIND_HOOKS_BIN", missing.to_str().unwrap())],
        );
        assert_eq!(output.status.code(), Some(2));
        // Nothing configured and nothing on PATH.
        let mut command = Command::new("sh");
        let output = command
            .arg(path(script))
            .current_dir(work.path())
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2));
        let all = text(&output.stdout) + &text(&output.stderr);
        assert!(all.contains("no mastermind-hooks binary"), "{all}");
    }
}

// ---- the real binary in real git repositories ------------------------------

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        text(&output.stderr)
    );
    text(&output.stdout).trim().to_string()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A repository whose `main` has the good fixtures and whose `feature`
/// branch adds the bad ones: the shape of a pull request.
struct Repo {
    dir: tempfile::TempDir,
    base: String,
    head: String,
}

fn pull_request_repo() -> Repo {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    copy_dir(&Path::new(FIXTURES).join("good"), &root.join("good"));
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    let base = git(root, &["rev-parse", "HEAD"]);
    git(root, &["checkout", "-q", "-b", "feature"]);
    copy_dir(&Path::new(FIXTURES).join("bad"), &root.join("bad"));
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "feature"]);
    let head = git(root, &["rev-parse", "HEAD"]);
    Repo { dir, base, head }
}

/// What one emulated composite run leaves behind.
pub(super) struct ActionRun {
    /// Every step's stdout and stderr in order; the status of the gate step.
    pub(super) output: Output,
    /// The outputs each step wrote to `$GITHUB_OUTPUT`, by step id.
    outputs: std::collections::HashMap<String, std::collections::HashMap<String, String>>,
}

impl ActionRun {
    pub(super) fn out(&self, step: &str, key: &str) -> Option<&str> {
        self.outputs.get(step)?.get(key).map(String::as_str)
    }
}

/// Substitute `${{ inputs.x }}`, `${{ steps.s.outputs.k }}` and `${{ github.x }}`
/// (empty unless the run gives it).
fn expression(
    value: &str,
    inputs: &dyn Fn(&str) -> String,
    outputs: &std::collections::HashMap<String, std::collections::HashMap<String, String>>,
    github: &[(&str, &str)],
) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("closed expression") + start;
        let inner = rest[start + 3..end].trim();
        let value = if let Some(name) = inner.strip_prefix("inputs.") {
            inputs(name)
        } else if let Some(name) = inner.strip_prefix("github.") {
            github
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
                .unwrap_or_default()
        } else if let Some(path) = inner.strip_prefix("steps.") {
            let (step, key) = path.split_once(".outputs.").expect("steps.X.outputs.Y");
            outputs
                .get(step)
                .and_then(|o| o.get(key))
                .cloned()
                .unwrap_or_default()
        } else {
            panic!("unsupported expression {inner}")
        };
        out.push_str(&value);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// An `if:` of the forms the action uses: `X != ''` and `X == 'true'`.
fn condition(
    text: &str,
    outputs: &std::collections::HashMap<String, std::collections::HashMap<String, String>>,
) -> bool {
    let (left, op, right) = if let Some((l, r)) = text.split_once(" != ") {
        (l, false, r)
    } else if let Some((l, r)) = text.split_once(" == ") {
        (l, true, r)
    } else {
        panic!("unsupported condition {text}")
    };
    let value = expression(
        &format!("${{{{ {left} }}}}"),
        &|_| String::new(),
        outputs,
        &[],
    );
    (value == right.trim_matches('\'')) == op
}

pub(super) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The runner around an emulated composite run: the action's directory,
/// HOME, `$RUNNER_TEMP`, the tool cache, GitHub's cache, and PATH (a fake
/// `cargo` first when given). The workspace is the directory the run is in.
pub(super) struct Runner {
    pub(super) action_dir: PathBuf,
    pub(super) home: PathBuf,
    pub(super) temp: PathBuf,
    pub(super) tool_cache: PathBuf,
    pub(super) cache: PathBuf,
    pub(super) path: String,
}

impl Runner {
    /// The action where this repository has it, PATH as the host's.
    pub(super) fn here(scratch: &Path) -> Runner {
        Runner {
            action_dir: path("ci-templates/github"),
            home: scratch.join("home"),
            temp: scratch.join("runner-temp"),
            tool_cache: scratch.join("tool-cache"),
            cache: scratch.join("github-cache"),
            path: host_path(),
        }
    }

    /// The action checked out somewhere else (as a runner or a container
    /// sees it: `_actions/<owner>/<repo>/<ref>/`), with the source the
    /// build needs; PATH has a fake cargo (when `cargo`) and no real one.
    pub(super) fn checked_out(scratch: &Path, cargo: Option<&FakeCargo>) -> Runner {
        let root = scratch.join("_actions/acme/mastermind-hooks/v0");
        for dir in ["ci-templates/github", "src", "schemas", "hooks"] {
            copy_tree(&path(dir), &root.join(dir));
        }
        for file in ["Cargo.toml", "Cargo.lock"] {
            std::fs::copy(path(file), root.join(file)).unwrap();
        }
        let mut dirs: Vec<String> = cargo.iter().map(|c| c.dir.display().to_string()).collect();
        dirs.push(
            crate::common::tools::path_without(&["mastermind-hooks", "cargo"])
                .into_string()
                .expect("a UTF-8 PATH"),
        );
        Runner {
            action_dir: root.join("ci-templates/github"),
            home: scratch.join("github/home"),
            temp: scratch.join("github/runner-temp"),
            tool_cache: scratch.join("github/tool-cache"),
            cache: scratch.join("github-cache"),
            path: dirs.join(":"),
        }
    }

    /// Run every step of action.yml in `cwd`.
    pub(super) fn run(
        &self,
        cwd: &Path,
        inputs: &[(&str, &str)],
        extra: &[(&str, &str)],
    ) -> ActionRun {
        self.run_with(cwd, inputs, extra, &[])
    }

    /// [`Runner::run`] with the `github` context the expressions of action.yml
    /// read (`action_ref`, `event.repository.default_branch`, ...).
    pub(super) fn run_with(
        &self,
        cwd: &Path,
        inputs: &[(&str, &str)],
        extra: &[(&str, &str)],
        github: &[(&str, &str)],
    ) -> ActionRun {
        let action: Value = serde_saphyr::from_str(
            &std::fs::read_to_string(self.action_dir.join("action.yml")).unwrap(),
        )
        .unwrap();
        let input = |name: &str| {
            inputs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
                .unwrap_or_else(|| {
                    action["inputs"][name]["default"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
        };
        std::fs::create_dir_all(&self.home).unwrap();
        std::fs::create_dir_all(&self.temp).unwrap();
        let mut outputs = std::collections::HashMap::new();
        let (mut stdout, mut stderr, mut status) = (Vec::new(), Vec::new(), None);
        for (i, step) in action["runs"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            if let Some(test) = step["if"].as_str()
                && !condition(test, &outputs)
            {
                continue;
            }
            if let Some(uses) = step["uses"].as_str() {
                let with = |k: &str| {
                    expression(step["with"][k].as_str().unwrap(), &input, &outputs, github)
                };
                let (dir, key) = (PathBuf::from(with("path")), with("key"));
                let stored = self.cache.join(&key);
                if uses.starts_with("actions/cache/restore@") {
                    if stored.is_dir() {
                        copy_tree(&stored, &dir);
                        make_executable(&dir.join("bin/mastermind-hooks"));
                    }
                } else if uses.starts_with("actions/cache/save@") && !stored.exists() {
                    copy_tree(&dir, &stored);
                }
                continue;
            }
            let id = step["id"]
                .as_str()
                .map_or_else(|| format!("step{i}"), str::to_string);
            let github_output = self.home.join(format!("output-{id}"));
            std::fs::write(&github_output, "").unwrap();
            let mut command = Command::new("sh");
            command
                .args(["-e", "-c", step["run"].as_str().unwrap()])
                .current_dir(cwd)
                .env_clear()
                .env("PATH", &self.path)
                .env("HOME", &self.home)
                .env("RUNNER_TEMP", &self.temp)
                .env("RUNNER_TOOL_CACHE", &self.tool_cache)
                .env("GITHUB_WORKSPACE", cwd)
                .env("GITHUB_ACTION_PATH", &self.action_dir)
                .env("GITHUB_OUTPUT", &github_output);
            for (var, value) in step["env"].as_object().into_iter().flatten() {
                command.env(
                    var,
                    expression(value.as_str().unwrap(), &input, &outputs, github),
                );
            }
            for (k, v) in extra {
                command.env(k, v);
            }
            let output = command.output().unwrap();
            stdout.extend_from_slice(&output.stdout);
            stderr.extend_from_slice(&output.stderr);
            let written: std::collections::HashMap<String, String> =
                std::fs::read_to_string(&github_output)
                    .unwrap()
                    .lines()
                    .filter_map(|l| l.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
            outputs.insert(id.clone(), written);
            if !output.status.success() || id == "gate" {
                status = Some(output.status);
                if !output.status.success() {
                    break;
                }
            }
        }
        ActionRun {
            output: Output {
                status: status.expect("the gate step ran"),
                stdout,
                stderr,
            },
            outputs,
        }
    }
}

/// A fake `cargo` that records its arguments and "builds" by copying the
/// test binary to `--root DIR/bin/`, after checking `--path` is a crate.
pub(super) struct FakeCargo {
    pub(super) dir: PathBuf,
}

impl FakeCargo {
    pub(super) fn new(scratch: &Path) -> FakeCargo {
        let dir = scratch.join("fake-cargo");
        std::fs::create_dir_all(&dir).unwrap();
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{log}'\npwd -P >> '{dirs}'\nroot=; src=\nwhile [ $# -gt 0 ]; do case $1 in --root) root=$2; shift ;; --path) src=$2; shift ;; esac; shift; done\n[ -f \"$src/Cargo.toml\" ] || {{ echo \"error: no Cargo.toml in $src\" >&2; exit 101; }}\necho \"   Compiling mastermind-hooks v0.1.0 ($src)\" >&2\nmkdir -p \"$root/bin\" && cp '{bin}' \"$root/bin/mastermind-hooks\"\n",
            log = dir.join("calls.log").display(),
            dirs = dir.join("dirs.log").display(),
            bin = gate()
        );
        std::fs::write(dir.join("cargo"), script).unwrap();
        make_executable(&dir.join("cargo"));
        FakeCargo { dir }
    }

    /// The directory each call ran in.
    pub(super) fn dirs(&self) -> Vec<PathBuf> {
        std::fs::read_to_string(self.dir.join("dirs.log"))
            .unwrap_or_default()
            .lines()
            .map(PathBuf::from)
            .collect()
    }

    pub(super) fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("calls.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// Run the action as it sits in this repository.
fn run_action(cwd: &Path, inputs: &[(&str, &str)], extra: &[(&str, &str)]) -> Output {
    let scratch = tempfile::tempdir().unwrap();
    Runner::here(scratch.path()).run(cwd, inputs, extra).output
}

// The format plumbing through `validate` (MASTERMIND_HOOKS_CMD): files with
// known findings, whatever the gate's rules are.

#[test]
fn github_action_annotates_summarizes_writes_sarif_and_fails() {
    let repo = pull_request_repo();
    let root = repo.dir.path();
    let out = tempfile::tempdir().unwrap();
    let summary = out.path().join("step_summary.md");
    std::fs::write(&summary, "").unwrap();
    let sarif = out.path().join("results.sarif");
    let scratch = tempfile::tempdir().unwrap();
    let run = Runner::here(scratch.path()).run(
        root,
        &[
            ("binary-path", gate()),
            ("sarif-file", sarif.to_str().unwrap()),
            ("base", &repo.base),
            ("head", &repo.head),
        ],
        &[
            (
                "MASTERMIND_HOOKS_CMD",
                "validate good/spec.md bad/spec.md bad/executor-report.md",
            ),
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_BASE_REF", "main"),
            ("GITHUB_HEAD_REF", "feature"),
            ("GITHUB_SHA", &repo.head),
            ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
        ],
    );
    let output = &run.output;
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}{}",
        text(&output.stderr)
    );
    let annotations: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(annotations.len(), 2, "{stdout}");
    assert!(
        annotations[0]
            .starts_with("::error file=bad/spec.md,line=7,title=verification_cmd_mismatch::")
    );
    assert!(stdout.ends_with("mastermind-hooks: failed: 3 files checked, 2 invalid, 0 unreadable (2 errors, 0 warnings, 0 notes)\n"));

    let summary = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(
        summary.matches("## ❌ mastermind-hooks failed").count(),
        1,
        "written once: {summary}"
    );
    assert!(
        summary.contains("| `bad/executor-report.md` | executor-report | ❌ invalid | 1 | 0 |")
    );

    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 2);

    assert_eq!(run.out("gate", "exit-code"), Some("1"));
}

#[test]
fn github_action_passes_a_clean_change() {
    let repo = pull_request_repo();
    let out = tempfile::tempdir().unwrap();
    let summary = out.path().join("summary.md");
    let output = run_action(
        repo.dir.path(),
        &[("binary-path", gate())],
        &[
            (
                "MASTERMIND_HOOKS_CMD",
                "validate good/spec.md good/executor-report.md",
            ),
            ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    assert!(!text(&output.stdout).contains("::error"));
    assert!(
        std::fs::read_to_string(&summary)
            .unwrap()
            .starts_with("## ✅ mastermind-hooks passed")
    );
}

#[test]
fn a_shallow_clone_that_cannot_check_gets_the_fetch_depth_fix() {
    let repo = pull_request_repo();
    let parent = tempfile::tempdir().unwrap();
    let url = format!("file://{}", repo.dir.path().display());
    git(
        parent.path(),
        &[
            "clone", "-q", "--depth", "1", "--branch", "feature", &url, "shallow",
        ],
    );
    let shallow = parent.path().join("shallow");
    assert_eq!(
        git(&shallow, &["rev-parse", "--is-shallow-repository"]),
        "true"
    );
    // `validate` of a file that is not there stands in for a gate that cannot see the base.
    let github = run_action(
        &shallow,
        &[("binary-path", gate())],
        &[(
            "MASTERMIND_HOOKS_CMD",
            "validate --kind spec base-only/spec.md",
        )],
    );
    assert_eq!(github.status.code(), Some(2));
    assert!(text(&github.stdout).contains("set 'fetch-depth: 0' on actions/checkout"));
    let gitlab = run_script(
        "ci-templates/gitlab/run.sh",
        &shallow,
        &[
            ("MASTERMIND_HOOKS_BIN", gate()),
            (
                "MASTERMIND_HOOKS_CMD",
                "validate --kind spec base-only/spec.md",
            ),
        ],
    );
    assert_eq!(gitlab.status.code(), Some(2));
    assert!(text(&gitlab.stderr).contains("GIT_DEPTH: \"0\""));
}

/// Run the GitLab job's script as GitLab does: from the YAML, under `sh -e`.
pub(super) fn run_gitlab_job(cwd: &Path, extra: &[(&str, &str)]) -> Output {
    let job = yaml("ci-templates/gitlab/mastermind-hooks.yml");
    let script = job["mastermind-hooks"]["script"][0]
        .as_str()
        .unwrap()
        .to_string();
    let mut command = Command::new("sh");
    command
        .args(["-e", "-c", &script])
        .current_dir(cwd)
        .env_clear()
        .env("PATH", host_path())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default());
    for (var, value) in job["mastermind-hooks"]["variables"].as_object().unwrap() {
        command.env(var, value.as_str().unwrap());
    }
    for (k, v) in extra {
        command.env(k, v);
    }
    command.output().unwrap()
}

#[test]
fn gitlab_job_writes_code_quality_and_junit_reports_and_fails() {
    let repo = pull_request_repo();
    let root = repo.dir.path();
    let output = run_gitlab_job(
        root,
        &[
            ("MASTERMIND_HOOKS_BIN", gate()),
            (
                "MASTERMIND_HOOKS_CMD",
                "validate good/spec.md bad/spec.md bad/verification/unit.json",
            ),
            ("CI_PIPELINE_SOURCE", "merge_request_event"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", &repo.base),
            ("CI_COMMIT_SHA", &repo.head),
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("error"),
        "the log has the human output"
    );

    let issues: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("gl-code-quality-report.json")).unwrap(),
    )
    .unwrap();
    let checks: Vec<&str> = issues
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["check_name"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["verification_cmd_mismatch", "receipt_pending"]);

    let xml = std::fs::read_to_string(root.join("mastermind-hooks-junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let root_element = doc.root_element();
    assert_eq!(root_element.attribute("tests"), Some("3"));
    assert_eq!(root_element.attribute("failures"), Some("2"));
}

#[test]
fn gitlab_job_passes_a_clean_change() {
    let repo = pull_request_repo();
    let output = run_gitlab_job(
        repo.dir.path(),
        &[
            ("MASTERMIND_HOOKS_BIN", gate()),
            ("MASTERMIND_HOOKS_CMD", "validate good/spec.md"),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let issues =
        std::fs::read_to_string(repo.dir.path().join("gl-code-quality-report.json")).unwrap();
    assert_eq!(issues, "[]\n");
}

// ---- the gate itself: `check --ci` with the platforms' variables ------------

const TASK: &str = ".mastermind/tasks/001-change-value";

/// main has src/lib.py, src/other.py and a configuration that lets anyone
/// plan; branch `feature` adds a task that changes src/lib.py and, when
/// `stray`, also src/other.py, outside its declared scope. `origin/main`
/// is there, as actions/checkout leaves it.
pub(super) fn gate_repo(stray: bool) -> common::TestRepo {
    let repo = common::TestRepo::new();
    repo.write(".mastermind/hooks.yaml", common::ANYONE_PLANS);
    repo.write("src/lib.py", "def value():\n    return 1\n");
    repo.write("src/other.py", "x = 1\n");
    repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let mut modified = vec!["src/lib.py"];
    if stray {
        repo.write("src/other.py", "x = 2\n");
        modified.push("src/other.py");
    }
    repo.write_task("001-change-value", &["src/lib.py"], &modified);
    repo.write("src/lib.py", "def value():\n    return 2\n");
    repo.commit_all("feature");
    repo.git(&["update-ref", "refs/remotes/origin/main", "main"]);
    repo
}

/// What GitHub sets for a pull request from `feature` into `main`.
fn github_pull_request_env(repo: &common::TestRepo) -> Vec<(&'static str, String)> {
    vec![
        ("GITHUB_ACTIONS", "true".into()),
        ("GITHUB_EVENT_NAME", "pull_request".into()),
        ("GITHUB_BASE_REF", "main".into()),
        ("GITHUB_HEAD_REF", "feature".into()),
        ("GITHUB_SHA", repo.head()),
    ]
}

pub(super) fn refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[test]
fn github_action_fails_a_pull_request_whose_task_strays_from_its_scope() {
    let repo = gate_repo(true);
    let out = tempfile::tempdir().unwrap();
    let summary = out.path().join("summary.md");
    std::fs::write(&summary, "").unwrap();
    let sarif = out.path().join("results.sarif");
    let mut env = github_pull_request_env(&repo);
    env.push(("GITHUB_STEP_SUMMARY", summary.display().to_string()));
    let output = run_action(
        repo.path(),
        &[
            ("binary-path", gate()),
            ("sarif-file", sarif.to_str().unwrap()),
        ],
        &refs(&env),
    );
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}{}",
        text(&output.stderr)
    );
    assert!(
        stdout.contains(&format!(
            "::error file=src/other.py,title=unexpected_file [{TASK}]::"
        )),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(
            "mastermind-hooks: failed: 1 task checked, 1 failed (1 error, 0 warnings, 2 notes)\n"
        ),
        "the refusal, the scope diff and who planned the task: {stdout}"
    );

    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(
        summary.contains(&format!("| `{TASK}` | ❌ fail | failed: scope |")),
        "{summary}"
    );
    assert!(
        summary.contains("| error | `unexpected_file` (scope) | `src/other.py` |"),
        "{summary}"
    );

    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let stray = results
        .iter()
        .find(|r| r["ruleId"] == "unexpected_file")
        .unwrap();
    assert_eq!(
        stray["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "src/other.py"
    );
    assert_eq!(stray["properties"]["task"], TASK);
}

#[test]
fn github_action_passes_a_pull_request_whose_task_holds() {
    let repo = gate_repo(false);
    let out = tempfile::tempdir().unwrap();
    let summary = out.path().join("summary.md");
    let mut env = github_pull_request_env(&repo);
    env.push(("GITHUB_STEP_SUMMARY", summary.display().to_string()));
    let output = run_action(repo.path(), &[("binary-path", gate())], &refs(&env));
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        text(&output.stderr)
    );
    assert!(!stdout.contains("::error"), "{stdout}");
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(
        summary.starts_with("## ✅ mastermind-hooks passed"),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("| `{TASK}` | ✅ pass |")),
        "{summary}"
    );
}

#[test]
fn the_require_task_input_makes_a_task_mandatory() {
    let repo = common::TestRepo::new();
    repo.write("src/lib.py", "x = 1\n");
    // The base allows untasked changes by anyone who writes an author (a
    // forgeable rule): require-task overrides it.
    repo.write(
        ".mastermind/hooks.yaml",
        "untasked:\n  rules:\n    - action: allow\n      authors: ['*']\n",
    );
    repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/lib.py", "x = 2\n");
    repo.commit_all("a change outside any task");
    repo.git(&["update-ref", "refs/remotes/origin/main", "main"]);
    let env = github_pull_request_env(&repo);

    let relaxed = run_action(repo.path(), &[("binary-path", gate())], &refs(&env));
    assert_eq!(relaxed.status.code(), Some(0), "{}", text(&relaxed.stdout));
    assert!(text(&relaxed.stdout).contains("title=no_task_changed"));

    let required = run_action(
        repo.path(),
        &[("binary-path", gate()), ("require-task", "true")],
        &refs(&env),
    );
    assert_eq!(
        required.status.code(),
        Some(1),
        "{}",
        text(&required.stdout)
    );
    assert!(
        text(&required.stdout).contains("::error file=src/lib.py,title=task_required::"),
        "{}",
        text(&required.stdout)
    );

    let base = repo.git(&["rev-parse", "main"]);
    let gitlab = run_gitlab_job(
        repo.path(),
        &[
            ("MASTERMIND_HOOKS_BIN", gate()),
            ("MASTERMIND_HOOKS_REQUIRE_TASK", "true"),
            ("GITLAB_CI", "true"),
            ("CI_PIPELINE_SOURCE", "merge_request_event"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", base.trim()),
            ("CI_COMMIT_SHA", &repo.head()),
        ],
    );
    assert_eq!(gitlab.status.code(), Some(1), "{}", text(&gitlab.stderr));
}

#[test]
fn a_shallow_checkout_cannot_be_gated_and_the_action_says_how_to_fix_it() {
    let origin = gate_repo(false);
    origin.git(&["checkout", "-q", "main"]);
    origin.write("src/other.py", "x = 11\n");
    origin.commit_all("main moves on");
    let clone = common::TestRepo::clone_of(&origin, &["--depth", "1", "--branch", "feature"]);
    clone.git(&[
        "fetch",
        "-q",
        "--depth",
        "1",
        "origin",
        "main:refs/remotes/origin/main",
    ]);
    let env = github_pull_request_env(&clone);
    let output = run_action(clone.path(), &[("binary-path", gate())], &refs(&env));
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("title=git_shallow_history::"), "{stdout}");
    assert!(
        stdout.contains("set 'fetch-depth: 0' on actions/checkout"),
        "{stdout}"
    );
}

#[test]
fn a_shallow_clone_of_an_ordinary_push_is_diagnosed_as_shallow() {
    // actions/checkout's default: depth 1. The push's old tip is cut off, so
    // it is not in the clone; that is no forced push and no new branch.
    let origin = gate_repo(false);
    let before = origin.git(&["rev-parse", "feature~1"]).trim().to_string();
    let after = origin.head();
    let clone = common::TestRepo::clone_of(&origin, &["--depth", "1", "--branch", "feature"]);
    let events = tempfile::tempdir().unwrap();
    for (branch, default) in [("feature", "main"), ("main", "main")] {
        let env = github_event(
            events.path(),
            "push",
            serde_json::json!({"ref": format!("refs/heads/{branch}"), "before": before, "after": after,
                "created": false, "forced": false,
                "repository": {"default_branch": default, "full_name": "acme/app"}}),
            &after,
        );
        let output = run_action(clone.path(), &[("binary-path", gate())], &refs(&env));
        let stdout = text(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{branch}: {stdout}");
        assert!(
            stdout.contains("title=git_shallow_history::"),
            "{branch}: {stdout}"
        );
        assert!(
            stdout.contains("not in this shallow clone"),
            "{branch}: {stdout}"
        );
        assert!(!stdout.contains("forced push"), "{branch}: {stdout}");
    }
}

#[test]
fn gitlab_job_gates_a_merge_request_with_check_ci() {
    let repo = gate_repo(true);
    let base = repo.git(&["rev-parse", "main"]).trim().to_string();
    let output = run_gitlab_job(
        repo.path(),
        &[
            ("MASTERMIND_HOOKS_BIN", gate()),
            ("CI", "true"),
            ("GITLAB_CI", "true"),
            ("CI_PIPELINE_SOURCE", "merge_request_event"),
            ("NO_COLOR", "1"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", &base),
            ("CI_COMMIT_SHA", &repo.head()),
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let log = text(&output.stdout);
    assert!(log.contains(&format!("FAILED: task {TASK}")), "{log}");

    let issues: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path().join("gl-code-quality-report.json")).unwrap(),
    )
    .unwrap();
    let stray = issues
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["check_name"] == "unexpected_file")
        .unwrap();
    assert_eq!(stray["location"]["path"], "src/other.py");
    assert_eq!(stray["severity"], "major");

    let xml = std::fs::read_to_string(repo.path().join("mastermind-hooks-junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some(TASK))
        .expect("a testsuite for the task");
    let failed: Vec<&str> = suite
        .children()
        .filter(|c| c.has_tag_name("testcase") && c.children().any(|f| f.has_tag_name("failure")))
        .map(|c| c.attribute("name").unwrap())
        .collect();
    assert_eq!(failed, ["scope"]);
}

// ---- every event, emulated from the platforms' documented data --------------

/// Write a GitHub event payload and return the variables GitHub sets for it.
pub(super) fn github_event(
    dir: &Path,
    name: &str,
    payload: Value,
    sha: &str,
) -> Vec<(&'static str, String)> {
    let file = dir.join(format!("event-{name}.json"));
    std::fs::write(&file, serde_json::to_vec(&payload).unwrap()).unwrap();
    vec![
        ("GITHUB_ACTIONS", "true".into()),
        ("CI", "true".into()),
        ("GITHUB_EVENT_NAME", name.into()),
        ("GITHUB_EVENT_PATH", file.display().to_string()),
        ("GITHUB_SHA", sha.into()),
        ("GITHUB_REPOSITORY", "acme/app".into()),
    ]
}

/// The events of a workflow that gates `feature` (head) against `main`.
pub(super) fn github_events(
    repo: &common::TestRepo,
    dir: &Path,
) -> Vec<(String, Vec<(&'static str, String)>)> {
    let base = repo.git(&["rev-parse", "main"]).trim().to_string();
    let head = repo.head();
    let zero = repo.zero_id();
    let repository = serde_json::json!({"default_branch": "main", "full_name": "acme/app"});
    vec![
        (
            "pull_request".into(),
            github_event(
                dir,
                "pull_request",
                serde_json::json!({"action": "synchronize", "number": 7,
                    "pull_request": {"base": {"ref": "main", "sha": base}, "head": {"ref": "feature", "sha": head}},
                    "repository": repository}),
                &head,
            ),
        ),
        (
            "pull_request_target".into(),
            github_event(
                dir,
                "pull_request_target",
                serde_json::json!({"action": "opened", "number": 7,
                    "pull_request": {"base": {"ref": "main", "sha": base}, "head": {"ref": "feature", "sha": head}},
                    "repository": repository}),
                &base,
            ),
        ),
        (
            "merge_group".into(),
            github_event(
                dir,
                "merge_group",
                serde_json::json!({"action": "checks_requested",
                    "merge_group": {"base_sha": base, "head_sha": head,
                        "base_ref": "refs/heads/main", "head_ref": "refs/heads/gh-readonly-queue/main/pr-7-x"},
                    "repository": repository}),
                &head,
            ),
        ),
        (
            "push of a new branch".into(),
            github_event(
                dir,
                "push",
                serde_json::json!({"ref": "refs/heads/feature", "before": zero, "after": head,
                    "created": true, "forced": false, "repository": repository}),
                &head,
            ),
        ),
        (
            "push".into(),
            github_event(
                dir,
                "push",
                serde_json::json!({"ref": "refs/heads/feature", "before": base, "after": head,
                    "created": false, "forced": false, "repository": repository}),
                &head,
            ),
        ),
        (
            "forced push whose old tip is gone".into(),
            github_event(
                dir,
                "push",
                serde_json::json!({"ref": "refs/heads/feature", "before": "1".repeat(repo.id_len()), "after": head,
                    "created": false, "forced": true, "repository": repository}),
                &head,
            ),
        ),
        (
            "workflow_dispatch".into(),
            github_event(
                dir,
                "workflow_dispatch",
                serde_json::json!({"ref": "refs/heads/feature", "inputs": {}, "repository": repository}),
                &head,
            ),
        ),
    ]
}

#[test]
fn every_github_event_gates_the_change_through_the_action() {
    for (stray, expected) in [(false, 0), (true, 1)] {
        let repo = gate_repo(stray);
        let events = tempfile::tempdir().unwrap();
        for (event, env) in github_events(&repo, events.path()) {
            let scratch = tempfile::tempdir().unwrap();
            let summary = scratch.path().join("summary.md");
            let mut env = env;
            env.push(("GITHUB_STEP_SUMMARY", summary.display().to_string()));
            let run = Runner::here(scratch.path()).run(
                repo.path(),
                &[("binary-path", gate())],
                &refs(&env),
            );
            let all = text(&run.output.stdout) + &text(&run.output.stderr);
            assert_eq!(
                run.output.status.code(),
                Some(expected),
                "{event}, stray {stray}: {all}"
            );
            assert_eq!(
                run.out("gate", "exit-code"),
                Some(expected.to_string().as_str()),
                "{event}"
            );
            if stray {
                assert!(all.contains("title=unexpected_file"), "{event}: {all}");
            } else {
                assert!(all.contains("1 task checked, 0 failed"), "{event}: {all}");
            }
        }
    }
}

#[test]
fn a_base_the_change_could_set_is_refused_in_ci() {
    let repo = gate_repo(true);
    let events = tempfile::tempdir().unwrap();
    let (_, env) = github_events(&repo, events.path()).remove(0);
    let head = repo.head();
    // The base set to the head: nothing would be judged.
    let output = run_action(
        repo.path(),
        &[("binary-path", gate()), ("base", &head)],
        &refs(&env),
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
    assert!(
        text(&output.stdout).contains("title=ci_override_refused::"),
        "{}",
        text(&output.stdout)
    );
    // The test-only command override.
    let mut env = env;
    env.push(("MASTERMIND_HOOKS_CMD", "validate good/spec.md".into()));
    let output = run_action(repo.path(), &[("binary-path", gate())], &refs(&env));
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stdout).contains("ci_override_refused"));
}

#[test]
fn hostile_file_names_never_become_workflow_commands() {
    let repo = common::TestRepo::new();
    repo.write("src/lib.py", "x = 1\n");
    repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let hostile = "src/x\n::error::pwned\r\u{1b}[31m::stop-commands::t\n## ✅ passed.py";
    repo.write_task(
        "001-change-value",
        &["src/lib.py"],
        &["src/lib.py", hostile],
    );
    repo.write("src/lib.py", "x = 2\n");
    repo.write(hostile, "evil\n");
    repo.commit_all("feature");
    repo.git(&["update-ref", "refs/remotes/origin/main", "main"]);
    let events = tempfile::tempdir().unwrap();
    let (_, env) = github_events(&repo, events.path()).remove(0);
    for format in ["github", "human", "json"] {
        let scratch = tempfile::tempdir().unwrap();
        let summary = scratch.path().join("summary.md");
        let mut env = env.clone();
        env.push(("GITHUB_STEP_SUMMARY", summary.display().to_string()));
        let run = Runner::here(scratch.path()).run(
            repo.path(),
            &[("binary-path", gate()), ("format", format)],
            &refs(&env),
        );
        assert_eq!(
            run.output.status.code(),
            Some(1),
            "{format}: {}",
            text(&run.output.stdout)
        );
        let log = text(&run.output.stdout);
        for line in log.lines() {
            let trimmed = line.trim_start();
            assert!(
                !trimmed.starts_with("::error::")
                    && !trimmed.starts_with("::stop-commands")
                    && !trimmed.starts_with("##[")
                    && !line.contains('\u{1b}')
                    && !line.contains('\r'),
                "{format}: {line:?}"
            );
        }
        if format == "github" {
            let md = std::fs::read_to_string(&summary).unwrap();
            assert_eq!(
                md.lines().filter(|l| l.starts_with("## ")).count(),
                1,
                "{md}"
            );
        }
    }
    let base = repo.git(&["rev-parse", "main"]).trim().to_string();
    let gitlab = run_gitlab_job(
        repo.path(),
        &[
            ("MASTERMIND_HOOKS_BIN", gate()),
            ("GITLAB_CI", "true"),
            ("CI_PIPELINE_SOURCE", "merge_request_event"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", &base),
            ("CI_COMMIT_SHA", &repo.head()),
        ],
    );
    assert_eq!(gitlab.status.code(), Some(1));
    let log = text(&gitlab.stdout);
    for line in log.lines() {
        // Only the tool's own colours; no escape byte from the file name, no
        // section marker, no line that reads as a command.
        assert!(
            !line.contains("section_start") && !line.trim_start().starts_with("::"),
            "{line:?}"
        );
        assert!(!line.contains("\u{1b}[31m::"), "{line:?}");
    }
}

// ---- GitLab pipelines ---------------------------------------------------------

/// `feature` merged into `main` the way GitLab makes a merged-results or
/// merge-train commit: a merge commit off the target, not on any branch.
fn merge_commit(repo: &common::TestRepo) -> String {
    repo.git(&["checkout", "-q", "--detach", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "feature"]);
    let merge = repo.head();
    repo.git(&["checkout", "-q", "feature"]);
    merge
}

/// A pipeline kind, its variables, and whether it judges the feature branch.
type Pipeline = (&'static str, Vec<(&'static str, String)>, bool);

fn gitlab_pipelines(repo: &common::TestRepo) -> Vec<Pipeline> {
    let base = repo.git(&["rev-parse", "main"]).trim().to_string();
    let head = repo.head();
    let merge = merge_commit(repo);
    let zero = repo.zero_id();
    let common = |extra: Vec<(&'static str, String)>| {
        let mut all: Vec<(&'static str, String)> = vec![
            ("CI", "true".into()),
            ("GITLAB_CI", "true".into()),
            ("CI_DEFAULT_BRANCH", "main".into()),
            ("CI_PROJECT_DIR", repo.path().display().to_string()),
            ("NO_COLOR", "1".into()),
        ];
        all.extend(extra);
        all
    };
    let mr = |kind: &str, commit: &str| {
        common(vec![
            ("CI_PIPELINE_SOURCE", "merge_request_event".into()),
            ("CI_MERGE_REQUEST_EVENT_TYPE", kind.to_string()),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", base.clone()),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", base.clone()),
            ("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", head.clone()),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main".into()),
            ("CI_COMMIT_SHA", commit.to_string()),
            ("CI_COMMIT_BEFORE_SHA", zero.clone()),
        ])
    };
    vec![
        ("detached", mr("detached", &head), true),
        ("merged_result", mr("merged_result", &merge), true),
        ("merge_train", mr("merge_train", &merge), true),
        (
            "branch pipeline",
            common(vec![
                ("CI_PIPELINE_SOURCE", "push".into()),
                ("CI_COMMIT_BRANCH", "feature".into()),
                ("CI_COMMIT_SHA", head.clone()),
                ("CI_COMMIT_BEFORE_SHA", zero.clone()),
            ]),
            true,
        ),
        (
            "default branch",
            common(vec![
                ("CI_PIPELINE_SOURCE", "push".into()),
                ("CI_COMMIT_BRANCH", "main".into()),
                ("CI_COMMIT_SHA", base.clone()),
                ("CI_COMMIT_BEFORE_SHA", zero.clone()),
            ]),
            false,
        ),
    ]
}

#[test]
fn the_gitlab_job_reports_in_every_pipeline_kind() {
    for stray in [false, true] {
        let repo = gate_repo(stray);
        for (kind, env, judges_feature) in gitlab_pipelines(&repo) {
            let _ = std::fs::remove_file(repo.path().join("gl-code-quality-report.json"));
            let _ = std::fs::remove_file(repo.path().join("mastermind-hooks-junit.xml"));
            let mut env = env;
            env.push(("MASTERMIND_HOOKS_BIN", BIN.into()));
            let output = run_gitlab_job(repo.path(), &refs(&env));
            let expected = if stray && judges_feature { 1 } else { 0 };
            assert_eq!(
                output.status.code(),
                Some(expected),
                "{kind}, stray {stray}: {}{}",
                text(&output.stdout),
                text(&output.stderr)
            );
            let issues: Value = serde_json::from_str(
                &std::fs::read_to_string(repo.path().join("gl-code-quality-report.json")).unwrap(),
            )
            .unwrap();
            let unexpected = issues
                .as_array()
                .unwrap()
                .iter()
                .any(|i| i["check_name"] == "unexpected_file");
            assert_eq!(unexpected, expected == 1, "{kind}");
            let xml =
                std::fs::read_to_string(repo.path().join("mastermind-hooks-junit.xml")).unwrap();
            roxmltree::Document::parse(&xml).unwrap();
        }
    }
}

/// A git repository holding a copy of the crate's manifest (what the
/// fake cargo checks), as a pinned source would be.
fn source_repo(scratch: &Path) -> (String, String) {
    let dir = scratch.join("mastermind-hooks-source");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(path("Cargo.toml"), dir.join("Cargo.toml")).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "source"]);
    (
        format!("file://{}", dir.display()),
        git(&dir, &["rev-parse", "HEAD"]),
    )
}

#[test]
fn the_gitlab_job_builds_a_pinned_source_once_and_refuses_an_unpinned_one() {
    let repo = gate_repo(false);
    let scratch = tempfile::tempdir().unwrap();
    let cargo = FakeCargo::new(scratch.path());
    let (url, rev) = source_repo(scratch.path());
    let (_, env, _) = gitlab_pipelines(&repo).remove(0);
    let path_var = format!("{}:{}", cargo.dir.display(), host_path());
    let mut env = env;
    env.push(("PATH", path_var));
    env.push(("MASTERMIND_HOOKS_SOURCE_URL", url));
    let mut pinned = env.clone();
    pinned.push(("MASTERMIND_HOOKS_SOURCE_REV", rev.clone()));
    // Merge request pipelines share the job's cache, so an unpinned build
    // is made again; with the binary's sha256 pinned, it is reused.
    for _ in 0..2 {
        let output = run_gitlab_job(repo.path(), &refs(&pinned));
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    }
    assert_eq!(cargo.calls().len(), 2);
    pinned.push((
        "MASTERMIND_HOOKS_BIN_SHA256",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(
            std::fs::read(gate()).unwrap(),
        )),
    ));
    let output = run_gitlab_job(repo.path(), &refs(&pinned));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        cargo.calls().len(),
        2,
        "pinned, the build in .mastermind-hooks/ (the job's cache) is reused"
    );
    assert!(
        repo.path()
            .join(format!(".mastermind-hooks/{rev}/bin/mastermind-hooks"))
            .is_file()
    );

    let mut unpinned = env.clone();
    unpinned.push(("MASTERMIND_HOOKS_SOURCE_REV", "main".into()));
    let output = run_gitlab_job(repo.path(), &refs(&unpinned));
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("must be the full commit id"),
        "{}",
        text(&output.stderr)
    );
    let issues = std::fs::read_to_string(repo.path().join("gl-code-quality-report.json")).unwrap();
    assert!(issues.contains("\"severity\": \"blocker\""), "{issues}");
}

#[test]
fn the_gitlab_job_without_a_binary_still_writes_both_reports() {
    let repo = gate_repo(false);
    let (_, env, _) = gitlab_pipelines(&repo).remove(1);
    let output = run_gitlab_job(repo.path(), &refs(&env));
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("no mastermind-hooks binary"),
        "{}",
        text(&output.stderr)
    );
    let issues: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path().join("gl-code-quality-report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(issues[0]["severity"], "blocker");
    let xml = std::fs::read_to_string(repo.path().join("mastermind-hooks-junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    assert_eq!(doc.root_element().attribute("errors"), Some("1"));
}

#[test]
fn rerun_is_passed_exactly_when_asked() {
    for script in ["ci-templates/github/run.sh", "ci-templates/gitlab/run.sh"] {
        for (rerun, timeout, extra, tail) in [
            ("false", "600", vec![], vec![]),
            (
                "true",
                "600",
                vec![],
                vec!["--rerun", "--rerun-timeout", "600"],
            ),
            ("true", "", vec![], vec!["--rerun"]),
            (
                "true",
                "",
                vec![
                    ("MASTERMIND_HOOKS_RERUN_JOBS", "3"),
                    ("MASTERMIND_HOOKS_RERUN_IN", "worktree"),
                    ("MASTERMIND_HOOKS_ATTESTATION", "rerun.intoto.json"),
                ],
                vec![
                    "--rerun",
                    "--rerun-jobs",
                    "3",
                    "--rerun-in",
                    "worktree",
                    "--attestation",
                    "rerun.intoto.json",
                ],
            ),
        ] {
            let stub = Stub::new();
            let work = tempfile::tempdir().unwrap();
            let output = run_script(
                script,
                work.path(),
                &[
                    ("MASTERMIND_HOOKS_BIN", stub.bin().to_str().unwrap()),
                    ("MASTERMIND_HOOKS_BASE", "origin/main"),
                    ("MASTERMIND_HOOKS_RERUN", rerun),
                    ("MASTERMIND_HOOKS_RERUN_TIMEOUT", timeout),
                    ("NO_COLOR", "1"),
                ]
                .into_iter()
                .chain(extra.iter().copied())
                .collect::<Vec<_>>(),
            );
            assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
            for (argv, _) in stub.calls() {
                let mut expected = vec!["check", "--ci", "--base", "origin/main"];
                expected.extend(&tail);
                assert_eq!(argv[..expected.len()], expected[..], "{script} {rerun}");
                assert_known_command(&argv);
            }
        }
        // A bad value is refused before anything runs, and so is an
        // attestation without the re-run it would describe.
        for (rerun, name, value) in [
            ("true", "MASTERMIND_HOOKS_RERUN_JOBS", "0"),
            ("true", "MASTERMIND_HOOKS_RERUN_JOBS", "many"),
            ("true", "MASTERMIND_HOOKS_RERUN_IN", "elsewhere"),
            ("false", "MASTERMIND_HOOKS_ATTESTATION", "rerun.intoto.json"),
        ] {
            let stub = Stub::new();
            let work = tempfile::tempdir().unwrap();
            let output = run_script(
                script,
                work.path(),
                &[
                    ("MASTERMIND_HOOKS_BIN", stub.bin().to_str().unwrap()),
                    ("MASTERMIND_HOOKS_RERUN", rerun),
                    (name, value),
                    ("NO_COLOR", "1"),
                ],
            );
            assert_eq!(output.status.code(), Some(2), "{script} {name}={value}");
            assert!(stub.calls().is_empty(), "{script} {name}={value}");
            if name == "MASTERMIND_HOOKS_ATTESTATION" {
                let said = format!("{}{}", text(&output.stdout), text(&output.stderr));
                assert!(
                    said.to_ascii_lowercase().contains("rerun"),
                    "the fix is named: {said}"
                );
            }
        }
    }
}
