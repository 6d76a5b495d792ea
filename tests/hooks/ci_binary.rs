//! How CI gets the gate binary, and why the change under judgement cannot
//! replace it: both templates keep it out of the checkout and check its
//! sha256 before every run, a release is downloaded and verified in seconds
//! (served here from 127.0.0.1 by a small HTTP server in the test), and a
//! committed fake binary or a poisoned cache is never run. The action runs
//! through the composite-runner emulation of `templates`, GitLab's job from
//! its YAML.

use super::templates::{
    FakeCargo, Runner, copy_tree, gate, gate_repo, github_event, github_events, make_executable,
    path, refs, run_gitlab_job, text,
};
use crate::common::{self, require_tool};
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

const VERSION: &str = concat!("v", env!("CARGO_PKG_VERSION"));

pub(super) fn sha256_file(file: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(file).unwrap()))
}

/// The Rust target the scripts pick for this machine.
pub(super) fn target() -> &'static str {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "x86_64-unknown-linux-musl",
        ("linux", "aarch64") => "aarch64-unknown-linux-musl",
        ("macos", "aarch64") => "aarch64-apple-darwin",
        _ => "x86_64-apple-darwin",
    }
}

pub(super) fn tarball_name() -> String {
    format!("mastermind-hooks-{}.tar.gz", target())
}

/// A fake gate: it "passes" everything, and leaves a mark when it runs.
pub(super) fn fake_gate(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let fake = dir.join("mastermind-hooks");
    let mark = dir.join("FAKE-RAN");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\ntouch '{}'\necho 'mastermind-hooks {}'\nexit 0\n",
            mark.display(),
            env!("CARGO_PKG_VERSION")
        ),
    )
    .unwrap();
    make_executable(&fake);
    fake
}

pub(super) fn fake_ran(dir: &Path) -> bool {
    dir.join("FAKE-RAN").exists()
}

/// `tar -czf` of one file named `mastermind-hooks`, as the release workflow packs it.
pub(super) fn pack(binary: &Path, into: &Path) {
    let staging = tempfile::tempdir().unwrap();
    std::fs::copy(binary, staging.path().join("mastermind-hooks")).unwrap();
    std::fs::create_dir_all(into.parent().unwrap()).unwrap();
    let status = Command::new("tar")
        .args(["-czf", into.to_str().unwrap(), "-C"])
        .arg(staging.path())
        .arg("mastermind-hooks")
        .status()
        .unwrap();
    assert!(status.success());
}

/// A release directory as the release workflow publishes it: the tarball of
/// `binary`, its `.sha256` written by `sha256sum` (the workflow's `shasum -a
/// 256` writes the same `<sha256>  <file>` line) and SHA256SUMS, those lines
/// concatenated. Returns the tarball's sha256.
fn publish(dir: &Path, binary: &Path) -> String {
    let name = tarball_name();
    pack(binary, &dir.join(&name));
    let line = Command::new("sha256sum")
        .arg(&name)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(line.status.success());
    std::fs::write(dir.join(format!("{name}.sha256")), &line.stdout).unwrap();
    let other = format!("{}  mastermind-hooks-other-target.tar.gz\n", "1".repeat(64));
    std::fs::write(
        dir.join("SHA256SUMS"),
        [other.as_bytes(), &line.stdout].concat(),
    )
    .unwrap();
    let sum = sha256_file(&dir.join(&name));
    assert_eq!(text(&line.stdout), format!("{sum}  {name}\n"));
    sum
}

/// A tiny HTTP/1.1 server on 127.0.0.1 serving the files under a directory,
/// one connection at a time, for as long as the test process lives. It
/// records the paths asked for.
struct Server {
    url: String,
    root: PathBuf,
    requests: Arc<Mutex<Vec<String>>>,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start() -> Server {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (served, seen) = (root.clone(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                if reader.read_line(&mut request).is_err() {
                    continue;
                }
                // The rest of the head, up to the blank line.
                loop {
                    let mut line = String::new();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(_) if line == "\r\n" || line == "\n" => break,
                        Ok(_) => {}
                    }
                }
                let wanted = request.split_whitespace().nth(1).unwrap_or("/").to_string();
                seen.lock().unwrap().push(wanted.clone());
                let file = served.join(wanted.trim_start_matches('/'));
                let body = (!wanted.contains(".."))
                    .then(|| std::fs::read(&file).ok())
                    .flatten();
                let _ = match body {
                    Some(body) => stream
                        .write_all(
                            format!(
                                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                                body.len()
                            )
                            .as_bytes(),
                        )
                        .and_then(|()| stream.write_all(&body)),
                    None => stream.write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    ),
                };
            }
        });
        Server {
            url,
            root,
            requests,
            _dir: dir,
        }
    }

    fn downloads(&self) -> usize {
        let tarball = tarball_name();
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.ends_with(&tarball))
            .count()
    }
}

/// curl (or wget) and sha256sum, which the scripts use.
fn tools() -> bool {
    require_tool("curl").is_some() && require_tool("sha256sum").is_some()
}

pub(super) fn all(run: &super::templates::ActionRun) -> String {
    text(&run.output.stdout) + &text(&run.output.stderr)
}

/// A GitLab job's whole log.
pub(super) fn log(output: &std::process::Output) -> String {
    text(&output.stdout) + &text(&output.stderr)
}

// ---- GitHub: the release route ----------------------------------------------------

#[test]
fn the_release_route_downloads_verifies_and_runs_without_cargo() {
    if !tools() {
        return;
    }
    let server = Server::start();
    let sum = publish(&server.root.join(VERSION), Path::new(gate()));
    let download = format!("{}/{VERSION}", server.url);
    let repo = gate_repo(false);
    let events = tempfile::tempdir().unwrap();
    let (_, env) = github_events(&repo, events.path()).remove(0); // pull_request
    let scratch = tempfile::tempdir().unwrap();
    // No cargo on PATH: a build is impossible, so passing proves the download ran.
    let runner = Runner::checked_out(scratch.path(), None);

    // The version input and a download location (a mirror).
    let run = runner.run(
        repo.path(),
        &[("version", VERSION), ("download-url", &download)],
        &refs(&env),
    );
    let log = all(&run);
    assert_eq!(run.output.status.code(), Some(0), "{log}");
    assert!(log.contains("using the release binary"), "{log}");
    assert!(
        log.contains("/SHA256SUMS)"),
        "checked against the checksums: {log}"
    );
    let bin = run.out("install", "bin").unwrap();
    assert!(bin.starts_with(runner.temp.to_str().unwrap()), "{bin}");
    assert_eq!(
        run.out("install", "sha256"),
        Some(sha256_file(Path::new(gate())).as_str())
    );
    assert_eq!(
        run.out("prepare", "cache-key"),
        None,
        "no source build to cache"
    );
    assert_eq!(server.downloads(), 1);

    // Used at the release's tag: github.action_ref reaches the script through env
    // (GitHub leaves GITHUB_ACTION_REF empty in composite run steps), and the
    // release comes from the action's repository on GITHUB_SERVER_URL.
    let tagged = server
        .root
        .join("acme/mastermind-hooks/releases/download")
        .join(VERSION);
    publish(&tagged, Path::new(gate()));
    let mut at_tag = env.clone();
    at_tag.push(("GITHUB_SERVER_URL", server.url.clone()));
    at_tag.push(("GITHUB_ACTION_REF", String::new()));
    for github in [
        &[
            ("action_ref", VERSION),
            ("action_repository", "acme/mastermind-hooks"),
        ][..],
        // Without github.action_repository, the repository is where the
        // runner checked the action out (_actions/acme/mastermind-hooks/v0).
        &[("action_ref", VERSION)][..],
    ] {
        let scratch2 = tempfile::tempdir().unwrap();
        let run = Runner::checked_out(scratch2.path(), None).run_with(
            repo.path(),
            &[],
            &refs(&at_tag),
            github,
        );
        assert_eq!(run.output.status.code(), Some(0), "{}", all(&run));
        assert!(
            all(&run).contains("/acme/mastermind-hooks/releases/download/"),
            "{}",
            all(&run)
        );
    }

    // The download location from the variable, and a pinned sha256.
    let mut variable = env.clone();
    variable.push(("MASTERMIND_HOOKS_DOWNLOAD_URL", download.clone()));
    let scratch3 = tempfile::tempdir().unwrap();
    let run = Runner::checked_out(scratch3.path(), None).run(
        repo.path(),
        &[("version", VERSION), ("sha256", &sum)],
        &refs(&variable),
    );
    assert_eq!(run.output.status.code(), Some(0), "{}", all(&run));
    assert!(all(&run).contains("checked against the pinned sha256"));

    // A pin that does not match: refused, nothing installed, no fallback.
    let scratch4 = tempfile::tempdir().unwrap();
    let wrong = "0".repeat(64);
    let run = Runner::checked_out(scratch4.path(), None).run(
        repo.path(),
        &[
            ("version", VERSION),
            ("download-url", &download),
            ("sha256", &wrong),
        ],
        &refs(&env),
    );
    assert_eq!(run.output.status.code(), Some(2), "{}", all(&run));
    assert_eq!(run.out("gate", "exit-code"), Some("2"));
    assert!(
        all(&run).contains("does not match the pinned sha256"),
        "{}",
        all(&run)
    );
    assert!(run.out("install", "bin").is_none(), "nothing installed");
}

#[test]
fn a_tampered_release_and_a_poisoned_tool_cache_are_refused() {
    if !tools() {
        return;
    }
    let server = Server::start();
    let download = format!("{}/{VERSION}", server.url);
    let repo = gate_repo(false);
    let events = tempfile::tempdir().unwrap();
    let (_, env) = github_events(&repo, events.path()).remove(0);

    // The server's tarball is not the one its SHA256SUMS lists.
    let dir = server.root.join(VERSION);
    publish(&dir, Path::new(gate()));
    let fakes = tempfile::tempdir().unwrap();
    pack(&fake_gate(fakes.path()), &dir.join(tarball_name()));
    let scratch = tempfile::tempdir().unwrap();
    let run = Runner::checked_out(scratch.path(), None).run(
        repo.path(),
        &[("version", VERSION), ("download-url", &download)],
        &refs(&env),
    );
    assert_eq!(run.output.status.code(), Some(2), "{}", all(&run));
    assert!(all(&run).contains("does not match"), "{}", all(&run));
    assert!(!fake_ran(fakes.path()));

    // An honest release; a runner that outlives its jobs keeps the download in
    // its tool cache, and a later job finds it replaced by a fake.
    publish(&dir, Path::new(gate()));
    let scratch = tempfile::tempdir().unwrap();
    let runner = Runner::checked_out(scratch.path(), None);
    let inputs = [("version", VERSION), ("download-url", download.as_str())];
    let first = runner.run(repo.path(), &inputs, &refs(&env));
    assert_eq!(first.output.status.code(), Some(0), "{}", all(&first));
    let cached: Vec<PathBuf> = walk(&runner.tool_cache)
        .into_iter()
        .filter(|p| p.ends_with(tarball_name()))
        .collect();
    assert_eq!(cached.len(), 1, "the download is kept in the tool cache");
    let before = server.downloads();
    let second = runner.run(repo.path(), &inputs, &refs(&env));
    assert_eq!(second.output.status.code(), Some(0));
    assert_eq!(
        server.downloads(),
        before,
        "a verified cache hit is not downloaded again"
    );
    pack(&fake_gate(fakes.path()), &cached[0]);
    let third = runner.run(repo.path(), &inputs, &refs(&env));
    assert_eq!(third.output.status.code(), Some(0), "{}", all(&third));
    assert!(all(&third).contains("does not match"), "{}", all(&third));
    assert_eq!(server.downloads(), before + 1, "downloaded again");
    assert!(
        !fake_ran(fakes.path()),
        "the poisoned cache entry never ran"
    );

    // A release that holds another version than the one asked for.
    let scratch = tempfile::tempdir().unwrap();
    let run = Runner::checked_out(scratch.path(), None).run(
        repo.path(),
        &[("version", "v9.9.9"), ("download-url", &download)],
        &refs(&env),
    );
    assert_eq!(run.output.status.code(), Some(2), "{}", all(&run));
    assert!(
        all(&run).contains("not mastermind-hooks 9.9.9"),
        "{}",
        all(&run)
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

// ---- GitHub: binaries the job did not download or build -----------------------------

#[test]
fn a_binary_the_change_could_have_committed_is_refused() {
    let repo = gate_repo(false);
    let events = tempfile::tempdir().unwrap();
    let (_, env) = github_events(&repo, events.path()).remove(0);
    // A fake committed into the checkout, named by binary-path.
    let fake = fake_gate(&repo.path().join("tools"));
    repo.commit_all("a gate of my own");
    let scratch = tempfile::tempdir().unwrap();
    let run = Runner::here(scratch.path()).run(
        repo.path(),
        &[("binary-path", fake.to_str().unwrap())],
        &refs(&env),
    );
    assert_eq!(run.output.status.code(), Some(2), "{}", all(&run));
    assert!(
        all(&run).contains("lies inside the workspace"),
        "{}",
        all(&run)
    );
    assert!(!fake_ran(&repo.path().join("tools")));
    // The same on PATH.
    let mut path_env = env.clone();
    path_env.push((
        "PATH",
        format!(
            "{}:{}",
            fake.parent().unwrap().display(),
            super::templates::host_path()
        ),
    ));
    let run = Runner::here(scratch.path()).run(repo.path(), &[], &refs(&path_env));
    assert_eq!(run.output.status.code(), Some(2), "{}", all(&run));
    assert!(
        all(&run).contains("a mastermind-hooks is on PATH")
            && all(&run).contains("nothing pins it")
            && all(&run).contains(&format!("binary-sha256: {}", sha256_file(&fake))),
        "refused with the pin that would accept it: {}",
        all(&run)
    );
    assert!(!fake_ran(&repo.path().join("tools")));
    // A pin makes a binary in the workspace acceptable, if it is that binary.
    let real = repo.path().join("tools/real/mastermind-hooks");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::copy(gate(), &real).unwrap();
    let pin = sha256_file(Path::new(gate()));
    let run = Runner::here(scratch.path()).run(
        repo.path(),
        &[
            ("binary-path", real.to_str().unwrap()),
            ("binary-sha256", &pin),
        ],
        &refs(&env),
    );
    assert_eq!(run.output.status.code(), Some(0), "{}", all(&run));
    let run = Runner::here(scratch.path()).run(
        repo.path(),
        &[
            ("binary-path", fake.to_str().unwrap()),
            ("binary-sha256", &pin),
        ],
        &refs(&env),
    );
    assert_eq!(run.output.status.code(), Some(2));
    assert!(
        all(&run).contains("not the pinned binary-sha256"),
        "{}",
        all(&run)
    );
    assert!(!fake_ran(&repo.path().join("tools")));
}

#[test]
fn the_gate_step_refuses_a_binary_changed_since_install() {
    let scratch = tempfile::tempdir().unwrap();
    let fake = fake_gate(scratch.path());
    let output = Command::new("sh")
        .arg(path("ci-templates/github/run.sh"))
        .current_dir(scratch.path())
        .env_clear()
        .env("PATH", super::templates::host_path())
        .env("MASTERMIND_HOOKS_BIN", &fake)
        .env("MASTERMIND_HOOKS_VERIFIED_SHA256", "0".repeat(64))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stdout).contains("not the 0000"),
        "{}",
        text(&output.stdout)
    );
    assert!(!fake_ran(scratch.path()), "never run");
}

// ---- GitHub: the source route ---------------------------------------------------------

#[test]
fn a_cached_source_build_is_used_only_where_the_change_cannot_have_written_it() {
    let repo = gate_repo(false);
    let events = tempfile::tempdir().unwrap();
    let (_, merge_group) = github_events(&repo, events.path()).remove(2);
    let scratch = tempfile::tempdir().unwrap();
    let cargo = FakeCargo::new(scratch.path());
    let runner = Runner::checked_out(scratch.path(), Some(&cargo));
    let first = runner.run(repo.path(), &[], &refs(&merge_group));
    let log = all(&first);
    assert_eq!(first.output.status.code(), Some(0), "{log}");
    let calls = cargo.calls();
    assert_eq!(calls.len(), 1, "{calls:?}");
    let source = runner.action_dir.parent().unwrap().parent().unwrap();
    assert!(
        calls[0].starts_with("install --locked --root "),
        "{calls:?}"
    );
    assert!(
        calls[0].ends_with(&format!(
            "--path {}",
            source.canonicalize().unwrap().display()
        )),
        "the action's own source: {calls:?}"
    );
    assert_eq!(
        cargo.dirs(),
        [source.canonicalize().unwrap()],
        "cargo runs in the source, never in the workspace"
    );
    assert!(log.contains("::group::Building mastermind-hooks"), "{log}");
    let key = first.out("prepare", "cache-key").unwrap().to_string();
    assert!(
        key.starts_with("mastermind-hooks-Linux-") || key.starts_with("mastermind-hooks-Darwin-"),
        "{key}"
    );
    let dir = first.out("prepare", "cache-dir").unwrap();
    assert!(dir.starts_with(runner.temp.to_str().unwrap()), "{dir}");
    let stored = runner.cache.join(&key).join("bin/mastermind-hooks");
    assert!(stored.is_file(), "saved right after the build");

    // A merge queue run's cache scope can be written by the change's other jobs:
    // the cached build is not used there.
    std::fs::remove_dir_all(&runner.temp).unwrap();
    let second = runner.run(repo.path(), &[], &refs(&merge_group));
    assert_eq!(second.output.status.code(), Some(0));
    assert_eq!(cargo.calls().len(), 2, "built again");
    assert!(all(&second).contains("the cached build is not used"));

    // Pinned by binary-sha256, it is used anywhere, if it is that build.
    let pin = sha256_file(Path::new(gate()));
    std::fs::remove_dir_all(&runner.temp).unwrap();
    let third = runner.run(repo.path(), &[("binary-sha256", &pin)], &refs(&merge_group));
    assert_eq!(third.output.status.code(), Some(0), "{}", all(&third));
    assert_eq!(cargo.calls().len(), 2, "the pinned cached build is reused");
    assert!(all(&third).contains("using the cached build"));

    // A poisoned cache entry: discarded, built again, never run.
    let fakes = tempfile::tempdir().unwrap();
    std::fs::copy(fake_gate(fakes.path()), &stored).unwrap();
    std::fs::remove_dir_all(&runner.temp).unwrap();
    let fourth = runner.run(repo.path(), &[("binary-sha256", &pin)], &refs(&merge_group));
    assert_eq!(fourth.output.status.code(), Some(0), "{}", all(&fourth));
    assert!(
        all(&fourth).contains("not the pinned binary-sha256"),
        "{}",
        all(&fourth)
    );
    assert_eq!(cargo.calls().len(), 3);
    assert!(!fake_ran(fakes.path()));

    // Unpinned, a cached build is not used on the default branch either: a
    // pull request's jobs can write caches its restore reaches, so only a pin
    // says the build is the one made here.
    std::fs::copy(gate(), &stored).unwrap();
    let head = repo.head();
    let base = repo.git(&["rev-parse", "main"]).trim().to_string();
    let mut push = github_event(
        events.path(),
        "push",
        serde_json::json!({"ref": "refs/heads/main", "before": base, "after": head,
            "created": false, "forced": false,
            "repository": {"default_branch": "main", "full_name": "acme/app"}}),
        &head,
    );
    push.push(("GITHUB_REF", "refs/heads/main".into()));
    std::fs::remove_dir_all(&runner.temp).unwrap();
    let fifth = runner.run_with(
        repo.path(),
        &[],
        &refs(&push),
        &[("event.repository.default_branch", "main")],
    );
    assert_eq!(fifth.output.status.code(), Some(0), "{}", all(&fifth));
    assert_eq!(cargo.calls().len(), 4, "built again: {}", all(&fifth));
    assert!(all(&fifth).contains("the cached build is not used"));
    assert!(
        all(&fifth).contains(&format!("with sha256 {pin}; pin it as binary-sha256")),
        "the log prints the pin: {}",
        all(&fifth)
    );

    // Another source is another key.
    std::fs::write(source.join("src/lib.rs"), b"// changed\n").unwrap();
    let sixth = runner.run(repo.path(), &[], &refs(&merge_group));
    assert_ne!(sixth.out("prepare", "cache-key"), Some(key.as_str()));
    assert_eq!(cargo.calls().len(), 5);
}

#[test]
fn an_action_inside_the_workspace_does_not_build_its_own_judge() {
    // `uses: ./.github/actions/mastermind-hooks`: the action, and the source it
    // would build, come from the change under judgement.
    let repo = gate_repo(false);
    let events = tempfile::tempdir().unwrap();
    let (_, env) = github_events(&repo, events.path()).remove(0);
    let scratch = tempfile::tempdir().unwrap();
    let cargo = FakeCargo::new(scratch.path());
    let vendored = repo.path().join(".github/actions/mastermind-hooks");
    for dir in ["ci-templates/github", "src", "schemas", "hooks"] {
        copy_tree(&path(dir), &vendored.join(dir));
    }
    for file in ["Cargo.toml", "Cargo.lock"] {
        std::fs::copy(path(file), vendored.join(file)).unwrap();
    }
    let mut runner = Runner::checked_out(scratch.path(), Some(&cargo));
    runner.action_dir = vendored.join("ci-templates/github");
    let run = runner.run(repo.path(), &[], &refs(&env));
    assert_eq!(run.output.status.code(), Some(2), "{}", all(&run));
    assert!(all(&run).contains("inside the workspace"), "{}", all(&run));
    assert!(cargo.calls().is_empty());
}

#[test]
fn the_action_works_in_a_container_job() {
    // In a `container:` job the action sits at the container's path
    // (/__w/_actions/...), and the host's `github.action_path` means nothing:
    // run.sh derives everything itself.
    let repo = gate_repo(true);
    let events = tempfile::tempdir().unwrap();
    let (_, env) = github_events(&repo, events.path()).remove(0);
    let scratch = tempfile::tempdir().unwrap();
    let cargo = FakeCargo::new(scratch.path());
    let runner = Runner::checked_out(scratch.path(), Some(&cargo));
    let run = runner.run(repo.path(), &[], &refs(&env));
    assert_eq!(run.output.status.code(), Some(1), "{}", all(&run));
    assert_eq!(run.out("gate", "exit-code"), Some("1"));
    let dir = run.out("prepare", "cache-dir").unwrap();
    assert!(dir.starts_with(runner.temp.to_str().unwrap()), "{dir}");
}

#[test]
fn exit_code_is_set_when_no_binary_can_be_had() {
    let repo = gate_repo(false);
    let events = tempfile::tempdir().unwrap();
    let (_, env) = github_events(&repo, events.path()).remove(0);
    let scratch = tempfile::tempdir().unwrap();
    let runner = Runner::checked_out(scratch.path(), None); // no cargo at all
    let summary = scratch.path().join("summary.md");
    let mut env = env;
    env.push(("GITHUB_STEP_SUMMARY", summary.display().to_string()));
    let run = runner.run(repo.path(), &[], &refs(&env));
    assert_eq!(run.output.status.code(), Some(2));
    assert_eq!(run.out("gate", "exit-code"), Some("2"));
    let log = text(&run.output.stdout);
    assert!(log.contains("needs cargo"), "{log}");
    assert!(
        log.contains("version input"),
        "the advice names the release route: {log}"
    );
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(
        summary.starts_with("## ⛔ mastermind-hooks could not check"),
        "{summary}"
    );
}

// ---- GitLab --------------------------------------------------------------------------

/// The variables of a detached merge request pipeline of `feature` into `main`.
pub(super) fn merge_request(repo: &common::TestRepo) -> Vec<(&'static str, String)> {
    vec![
        ("GITLAB_CI", "true".into()),
        ("CI_PROJECT_DIR", repo.path().display().to_string()),
        ("CI_PIPELINE_SOURCE", "merge_request_event".into()),
        (
            "CI_MERGE_REQUEST_DIFF_BASE_SHA",
            repo.git(&["rev-parse", "main"]).trim().to_string(),
        ),
        ("CI_COMMIT_SHA", repo.head()),
        ("CI_DEFAULT_BRANCH", "main".into()),
    ]
}

/// PATH without any cargo, so a build cannot happen unnoticed.
pub(super) fn path_without_cargo(first: Option<&Path>) -> String {
    let rest = crate::common::tools::path_without(&["cargo", "mastermind-hooks"])
        .into_string()
        .expect("a UTF-8 PATH");
    match first {
        Some(dir) => format!("{}:{rest}", dir.display()),
        None => rest,
    }
}

#[test]
fn gitlab_release_route_is_pinned_cached_and_checked_on_every_use() {
    if !tools() {
        return;
    }
    let server = Server::start();
    let sum = publish(&server.root.join(VERSION), Path::new(gate()));
    let repo = gate_repo(false);
    let mut env = merge_request(&repo);
    env.push((
        "MASTERMIND_HOOKS_RELEASE_URL",
        format!("{}/{VERSION}", server.url),
    ));
    env.push(("MASTERMIND_HOOKS_RELEASE_SHA256", sum.clone()));
    env.push(("PATH", path_without_cargo(None)));
    let first = run_gitlab_job(repo.path(), &refs(&env));
    assert_eq!(first.status.code(), Some(0), "{}", log(&first));
    assert!(text(&first.stderr).contains("using the release binary"));
    let cached = repo
        .path()
        .join(".mastermind-hooks")
        .join(format!("release-{sum}"))
        .join(tarball_name());
    assert!(cached.is_file(), "the download is kept for the job's cache");
    assert_eq!(server.downloads(), 1);

    let second = run_gitlab_job(repo.path(), &refs(&env));
    assert_eq!(second.status.code(), Some(0));
    assert_eq!(server.downloads(), 1, "a verified cache hit");

    // A poisoned cache entry (a merge request pipeline shares the cache).
    let fakes = tempfile::tempdir().unwrap();
    pack(&fake_gate(fakes.path()), &cached);
    let third = run_gitlab_job(repo.path(), &refs(&env));
    assert_eq!(third.status.code(), Some(0), "{}", log(&third));
    assert!(text(&third.stderr).contains("does not match the pinned sha256"));
    assert_eq!(server.downloads(), 2);
    assert!(!fake_ran(fakes.path()));
    assert_eq!(
        sha256_file(&cached),
        sum,
        "the cache holds the release again"
    );

    // A pin that does not match: refused, and both reports say why.
    let mut wrong = env.clone();
    wrong.retain(|(k, _)| *k != "MASTERMIND_HOOKS_RELEASE_SHA256");
    wrong.push(("MASTERMIND_HOOKS_RELEASE_SHA256", "a".repeat(64)));
    let refused = run_gitlab_job(repo.path(), &refs(&wrong));
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("not the pinned"));
    let report = std::fs::read_to_string(repo.path().join("gl-code-quality-report.json")).unwrap();
    assert!(report.contains("could not check"), "{report}");
}

#[test]
fn gitlab_refuses_a_gate_the_commit_brings() {
    let repo = gate_repo(false);
    let fakes = repo.path().join(".mastermind-hooks/source/bin");
    fake_gate(&fakes);
    repo.commit_all("bring my own gate");
    let source = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let cargo = FakeCargo::new(scratch.path());
    std::fs::copy(path("Cargo.toml"), source.path().join("Cargo.toml")).unwrap();
    let mut env = merge_request(&repo);
    env.push((
        "MASTERMIND_HOOKS_SOURCE",
        source.path().display().to_string(),
    ));
    env.push((
        "MASTERMIND_HOOKS_BIN_SHA256",
        sha256_file(&fakes.join("mastermind-hooks")),
    ));
    env.push(("PATH", path_without_cargo(Some(&cargo.dir))));
    let output = run_gitlab_job(repo.path(), &refs(&env));
    assert_eq!(output.status.code(), Some(2), "{}", log(&output));
    assert!(
        text(&output.stderr).contains("the commit tracks .mastermind-hooks/"),
        "{}",
        text(&output.stderr)
    );
    assert!(!fake_ran(&fakes));
    assert!(cargo.calls().is_empty());

    // A binary in the project directory, named by the variable.
    let repo = gate_repo(false);
    let fake = fake_gate(&repo.path().join("tools"));
    let mut env = merge_request(&repo);
    env.push(("MASTERMIND_HOOKS_BIN", fake.display().to_string()));
    let output = run_gitlab_job(repo.path(), &refs(&env));
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("lies inside the project directory"));
    assert!(!fake_ran(&repo.path().join("tools")));
}

#[test]
fn gitlab_reuses_a_cached_build_only_when_pinned() {
    let repo = gate_repo(false);
    let scratch = tempfile::tempdir().unwrap();
    let cargo = FakeCargo::new(scratch.path());
    let source = scratch.path().join("source");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::copy(path("Cargo.toml"), source.join("Cargo.toml")).unwrap();
    let mut env = merge_request(&repo);
    env.push(("MASTERMIND_HOOKS_SOURCE", source.display().to_string()));
    env.push(("PATH", path_without_cargo(Some(&cargo.dir))));
    let first = run_gitlab_job(repo.path(), &refs(&env));
    assert_eq!(first.status.code(), Some(0), "{}", log(&first));
    assert_eq!(cargo.calls().len(), 1);
    assert_eq!(
        cargo.dirs(),
        [source.canonicalize().unwrap()],
        "cargo runs in the source, outside the project"
    );
    let root = cargo.calls()[0]
        .split_whitespace()
        .nth(3)
        .unwrap()
        .to_string();
    assert!(
        !Path::new(&root).starts_with(repo.path()),
        "built outside the project: {root}"
    );
    let cached = repo
        .path()
        .join(".mastermind-hooks/source/bin/mastermind-hooks");
    assert!(cached.is_file(), "kept for the job's cache");

    // Merge request pipelines share the cache: not used there.
    let second = run_gitlab_job(repo.path(), &refs(&env));
    assert_eq!(second.status.code(), Some(0));
    assert_eq!(cargo.calls().len(), 2, "{}", log(&second));

    // Pinned: used.
    let mut pinned = env.clone();
    pinned.push((
        "MASTERMIND_HOOKS_BIN_SHA256",
        sha256_file(Path::new(gate())),
    ));
    let third = run_gitlab_job(repo.path(), &refs(&pinned));
    assert_eq!(third.status.code(), Some(0), "{}", log(&third));
    assert_eq!(cargo.calls().len(), 2);
    assert!(text(&third.stderr).contains("using the cached build"));

    // Poisoned and pinned: discarded, built again, never run.
    let fakes = tempfile::tempdir().unwrap();
    std::fs::copy(fake_gate(fakes.path()), &cached).unwrap();
    let fourth = run_gitlab_job(repo.path(), &refs(&pinned));
    assert_eq!(fourth.status.code(), Some(0), "{}", log(&fourth));
    assert_eq!(cargo.calls().len(), 3);
    assert!(!fake_ran(fakes.path()));

    // A protected branch's pipeline restores a cache of its own, but the key
    // is the job's and GitLab can be set to share it: unpinned, it is built
    // again there too.
    let head = repo.head();
    let base = repo.git(&["rev-parse", "main"]).trim().to_string();
    let mut protected = vec![
        ("GITLAB_CI", "true".to_string()),
        ("CI_PROJECT_DIR", repo.path().display().to_string()),
        ("CI_PIPELINE_SOURCE", "push".into()),
        ("CI_COMMIT_BRANCH", "main".into()),
        ("CI_DEFAULT_BRANCH", "main".into()),
        ("CI_COMMIT_REF_PROTECTED", "true".into()),
        ("CI_COMMIT_BEFORE_SHA", base),
        ("CI_COMMIT_SHA", head),
    ];
    protected.push(("MASTERMIND_HOOKS_SOURCE", source.display().to_string()));
    protected.push(("PATH", path_without_cargo(Some(&cargo.dir))));
    let fifth = run_gitlab_job(repo.path(), &refs(&protected));
    assert_eq!(cargo.calls().len(), 4, "{}", log(&fifth));
    assert!(text(&fifth.stderr).contains("the cached build is not used"));
}

#[test]
fn the_default_branch_code_quality_report_states_mains_open_findings() {
    // A push to the default branch that lands a stray file (the job may fail
    // there): the log and the JUnit report show the push's findings, while
    // the Code Quality report, the base every merge request is compared
    // with, states main's open findings. Otherwise every later merge request
    // would show this push's findings as fixed.
    let repo = gate_repo(true);
    let base = repo.git(&["rev-parse", "main"]).trim().to_string();
    let env = |report: &str| -> Vec<(&'static str, String)> {
        vec![
            ("GITLAB_CI", "true".into()),
            ("CI_PROJECT_DIR", repo.path().display().to_string()),
            ("CI_PIPELINE_SOURCE", "push".into()),
            ("CI_COMMIT_BRANCH", "main".into()),
            ("CI_DEFAULT_BRANCH", "main".into()),
            ("CI_COMMIT_BEFORE_SHA", base.clone()),
            ("CI_COMMIT_SHA", repo.head()),
            ("MASTERMIND_HOOKS_BIN", gate().into()),
            ("MASTERMIND_HOOKS_DEFAULT_BRANCH_REPORT", report.into()),
        ]
    };
    let read = |name: &str| std::fs::read_to_string(repo.path().join(name)).unwrap();
    let output = run_gitlab_job(repo.path(), &refs(&env("state")));
    assert_eq!(output.status.code(), Some(1), "{}", log(&output));
    assert!(
        log(&output).contains("unexpected_file"),
        "the log has the push's findings"
    );
    assert_eq!(read("gl-code-quality-report.json"), "[]\n");
    assert!(read("mastermind-hooks-junit.xml").contains("type=\"unexpected_file\""));

    let output = run_gitlab_job(repo.path(), &refs(&env("push")));
    assert_eq!(output.status.code(), Some(1));
    let issues: serde_json::Value =
        serde_json::from_str(&read("gl-code-quality-report.json")).unwrap();
    assert!(
        issues
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["check_name"] == "unexpected_file"),
        "{issues}"
    );

    // A merge request pipeline is unaffected.
    let mut mr = merge_request(&repo);
    mr.push(("MASTERMIND_HOOKS_BIN", gate().into()));
    let output = run_gitlab_job(repo.path(), &refs(&mr));
    assert_eq!(output.status.code(), Some(1));
    assert!(read("gl-code-quality-report.json").contains("unexpected_file"));
}

// ---- Only the binary the workflow names runs ------------------------------------------

/// The line both scripts print before the gate runs: which binary, the
/// version it states and its sha256.
fn running_line(bin: &str, binary: &Path) -> String {
    format!(
        "mastermind-hooks: running {bin} (mastermind-hooks {}, sha256 {})",
        env!("CARGO_PKG_VERSION"),
        sha256_file(binary)
    )
}

#[test]
fn a_named_release_is_the_only_binary_the_action_runs() {
    if !tools() {
        return;
    }
    let server = Server::start();
    publish(&server.root.join(VERSION), Path::new(gate()));
    let download = format!("{}/{VERSION}", server.url);
    // A change the gate refuses: a fake that passes everything is caught by
    // the exit status as well as by its mark.
    let repo = gate_repo(true);
    let events = tempfile::tempdir().unwrap();
    let (_, env) = github_events(&repo, events.path()).remove(0);
    let fakes = tempfile::tempdir().unwrap();
    fake_gate(fakes.path());
    let scratch = tempfile::tempdir().unwrap();
    let mut runner = Runner::checked_out(scratch.path(), None);
    runner.path = format!("{}:{}", fakes.path().display(), runner.path);

    // The release named (version, and where it is): the fake an earlier step
    // put on PATH is not used, and the log names what runs.
    let run = runner.run(
        repo.path(),
        &[("version", VERSION), ("download-url", &download)],
        &refs(&env),
    );
    assert_eq!(run.output.status.code(), Some(1), "{}", all(&run));
    assert!(!fake_ran(fakes.path()), "{}", all(&run));
    assert!(
        all(&run).contains("not using the mastermind-hooks on PATH"),
        "{}",
        all(&run)
    );
    let bin = run.out("install", "bin").unwrap().to_string();
    assert!(
        all(&run).contains(&running_line(&bin, Path::new(gate()))),
        "{}",
        all(&run)
    );

    // Nothing named, an unpinned mastermind-hooks on PATH: refused with the
    // pin that would accept it, and never run (it used to pass this change).
    let run = runner.run(repo.path(), &[], &refs(&env));
    assert_eq!(run.output.status.code(), Some(2), "{}", all(&run));
    assert_eq!(run.out("gate", "exit-code"), Some("2"));
    assert!(all(&run).contains("nothing pins it"), "{}", all(&run));
    assert!(!fake_ran(fakes.path()));

    // A mastermind-hooks on PATH pinned by its own sha256 runs (an image
    // that has it).
    let scratch2 = tempfile::tempdir().unwrap();
    let mut path_runner = Runner::checked_out(scratch2.path(), None);
    path_runner.path = format!(
        "{}:{}",
        Path::new(gate()).parent().unwrap().display(),
        path_runner.path
    );
    let pin = sha256_file(Path::new(gate()));
    let run = path_runner.run(repo.path(), &[("binary-sha256", &pin)], &refs(&env));
    assert_eq!(run.output.status.code(), Some(1), "{}", all(&run));
    assert!(
        all(&run).contains(&running_line(gate(), Path::new(gate()))),
        "{}",
        all(&run)
    );

    // A sha256 without a release, and binary-path beside a release: refused.
    let run = runner.run(repo.path(), &[("sha256", &pin)], &refs(&env));
    assert_eq!(run.output.status.code(), Some(2), "{}", all(&run));
    assert!(all(&run).contains("no release is named"), "{}", all(&run));
    let run = runner.run(
        repo.path(),
        &[("binary-path", gate()), ("version", VERSION)],
        &refs(&env),
    );
    assert_eq!(run.output.status.code(), Some(2), "{}", all(&run));
    assert!(
        all(&run).contains("two different binaries"),
        "{}",
        all(&run)
    );
    assert!(!fake_ran(fakes.path()));
}

#[test]
fn the_gitlab_job_runs_only_the_binary_it_names() {
    if !tools() {
        return;
    }
    let server = Server::start();
    let sum = publish(&server.root.join(VERSION), Path::new(gate()));
    let repo = gate_repo(true);
    let fakes = tempfile::tempdir().unwrap();
    fake_gate(fakes.path());
    let mut env = merge_request(&repo);
    env.push(("PATH", path_without_cargo(Some(fakes.path()))));
    let mut release = env.clone();
    release.push((
        "MASTERMIND_HOOKS_RELEASE_URL",
        format!("{}/{VERSION}", server.url),
    ));
    release.push(("MASTERMIND_HOOKS_RELEASE_SHA256", sum.clone()));

    // The release named: it alone runs, the log says which binary it is.
    let output = run_gitlab_job(repo.path(), &refs(&release));
    assert_eq!(output.status.code(), Some(1), "{}", log(&output));
    assert!(!fake_ran(fakes.path()));
    assert!(log(&output).contains("not using the mastermind-hooks on PATH"));
    let said = log(&output);
    let line = said
        .lines()
        .find(|l| l.starts_with("mastermind-hooks: running "))
        .unwrap_or_else(|| panic!("no running line: {said}"));
    assert!(
        line.ends_with(&format!(
            "/release/mastermind-hooks (mastermind-hooks {}, sha256 {})",
            env!("CARGO_PKG_VERSION"),
            sha256_file(Path::new(gate()))
        )),
        "{line}"
    );

    // Nothing named: the unpinned one on PATH is refused with its pin.
    let output = run_gitlab_job(repo.path(), &refs(&env));
    assert_eq!(output.status.code(), Some(2), "{}", log(&output));
    assert!(log(&output).contains("nothing pins it"), "{}", log(&output));
    assert!(!fake_ran(fakes.path()));
    let report = std::fs::read_to_string(repo.path().join("gl-code-quality-report.json")).unwrap();
    assert!(report.contains("could not check"), "{report}");

    // Pinned by its own sha256, the one on PATH runs.
    let mut pinned = merge_request(&repo);
    pinned.push((
        "PATH",
        path_without_cargo(Some(Path::new(gate()).parent().unwrap())),
    ));
    pinned.push((
        "MASTERMIND_HOOKS_BIN_SHA256",
        sha256_file(Path::new(gate())),
    ));
    let output = run_gitlab_job(repo.path(), &refs(&pinned));
    assert_eq!(output.status.code(), Some(1), "{}", log(&output));
    assert!(log(&output).contains(&running_line(gate(), Path::new(gate()))));

    // Two binaries named, or a pin without a release: refused with the fix.
    let mut both = release.clone();
    both.push(("MASTERMIND_HOOKS_BIN", gate().into()));
    let output = run_gitlab_job(repo.path(), &refs(&both));
    assert_eq!(output.status.code(), Some(2));
    assert!(
        log(&output).contains("two different binaries"),
        "{}",
        log(&output)
    );
    let mut pin_only = env.clone();
    pin_only.push(("MASTERMIND_HOOKS_RELEASE_SHA256", sum));
    let output = run_gitlab_job(repo.path(), &refs(&pin_only));
    assert_eq!(output.status.code(), Some(2));
    assert!(
        log(&output).contains("MASTERMIND_HOOKS_RELEASE_URL does not say where it is"),
        "{}",
        log(&output)
    );
    assert!(!fake_ran(fakes.path()));
}
