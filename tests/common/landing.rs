//! A working clone and its "server": a bare repository whose pre-receive
//! hook is the gate (`install --server`), for tests that ask every mode the
//! same question about the same landing: CI (`check --ci`), pre-push
//! (`check --push` fed git's lines), pre-receive (a real `git push`) and,
//! where git makes the commit, the installed pre-commit and pre-merge-commit
//! hooks.

use super::{BIN, TestRepo, codes, json, status, text};
use std::path::PathBuf;

/// A verdict: the exit code, the reason codes and everything printed.
#[derive(Debug)]
pub struct Verdict {
    pub code: i32,
    pub codes: Vec<String>,
    pub text: String,
    /// The JSON report, for `--format json` runs.
    pub report: Option<serde_json::Value>,
}

impl Verdict {
    pub fn has(&self, code: &str) -> bool {
        self.codes.iter().any(|c| c == code)
    }

    /// Panics unless the verdict is `code` (0 pass, 1 refused).
    #[track_caller]
    pub fn expect(&self, code: i32, what: &str) {
        assert_eq!(
            self.code, code,
            "{what}: expected exit {code}, got {}: {:?}\n{}",
            self.code, self.codes, self.text
        );
    }
}

const POLICY_FILE: &str = ".mastermind/hooks.yaml";

/// The policy of a forge made with [`Forge::new`]: untasked changes and
/// planning (new tasks, control files) allowed for anyone, which the
/// defaults deny in CI and pre-receive; tests that write their own
/// configuration keep it by appending it, tests of those policies write
/// their own.
pub const ALLOW_UNTASKED: &str = "untasked:\n  default: allow\nplanning:\n  default: allow\n";

/// A clone with a bare `origin` that runs the gate in pre-receive.
pub struct Forge {
    pub work: TestRepo,
    /// Holds the bare repository.
    pub server: TestRepo,
}

impl Forge {
    /// `files` committed on `main` and pushed to a bare `origin` whose
    /// pre-receive hook is installed by `install --server`.
    pub fn new(files: &[(&str, &str)]) -> Forge {
        let (server, bare) = gated_server();
        let work = TestRepo::new();
        // Humans' untasked commits and anyone's plans pass unless a test
        // says otherwise (the defaults deny them in CI and pre-receive).
        if !files.iter().any(|(path, _)| *path == POLICY_FILE) {
            work.write(POLICY_FILE, ALLOW_UNTASKED);
        }
        for (path, content) in files {
            work.write(path, content);
        }
        work.commit_all("initial");
        work.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
        let forge = Forge { work, server };
        forge.receive(&["main"]).expect(0, "the first push of main");
        forge
    }

    pub fn bare(&self) -> PathBuf {
        self.server.path().join("origin.git")
    }

    /// `check --ci --base BASE --head HEAD --format json`.
    pub fn ci(&self, base: &str, head: &str) -> Verdict {
        self.ci_env(base, head, &[])
    }

    /// `check --ci` with extra environment (a CI platform's variables).
    pub fn ci_env(&self, base: &str, head: &str, env: &[(&str, &str)]) -> Verdict {
        let mut args = vec!["check", "--ci"];
        if !base.is_empty() {
            args.extend(["--base", base]);
        }
        if !head.is_empty() {
            args.extend(["--head", head]);
        }
        args.extend(["--format", "json"]);
        verdict(&self.work.run_env(&args, env))
    }

    /// What the bare repository has at `reference`, or all zeros.
    pub fn remote_id(&self, reference: &str) -> String {
        let out = self
            .work
            .git_output(&["ls-remote", "origin", &format!("refs/{reference}")]);
        let listed = String::from_utf8_lossy(&out.stdout);
        listed
            .split_whitespace()
            .next()
            .map(str::to_string)
            .unwrap_or_else(|| self.work.zero_id())
    }

    /// pre-push for pushing `rev` to `refs/<remote_ref>` (`heads/main`,
    /// `tags/v1`): `check --push origin URL` fed the line git would give.
    pub fn pre_push(&self, rev: &str, remote_ref: &str) -> Verdict {
        let tip = self.work.git(&["rev-parse", rev]).trim().to_string();
        let old = self.remote_id(remote_ref);
        let input = format!("refs/{remote_ref} {tip} refs/{remote_ref} {old}\n");
        let url = self.bare().display().to_string();
        verdict(&self.work.run(
            &["check", "--push", "origin", &url, "--format", "json"],
            Some(&input),
        ))
    }

    /// A real `git push --no-verify origin REFSPEC...` (pre-receive judges
    /// it). The codes are read from the `remote:` lines.
    pub fn receive(&self, refspecs: &[&str]) -> Verdict {
        self.receive_as(&[], refspecs)
    }

    /// [`Forge::receive`] with the server's variables `env` (who the server
    /// says pushes: `GL_USERNAME`, `GITHUB_USER_LOGIN`, ...), which git
    /// hands on to the hook.
    pub fn receive_as(&self, env: &[(&str, &str)], refspecs: &[&str]) -> Verdict {
        let mut args = vec!["push", "--no-verify", "origin"];
        args.extend_from_slice(refspecs);
        let mut command = self.work.command("git");
        command.args(&args);
        for (name, value) in env {
            command.env(name, value);
        }
        pushed(&command.output().expect("git push"))
    }
}

impl Forge {
    /// `check --ci` as GitHub Actions runs it on a pull request from the
    /// branch `head` into `base`, opened (and pushed to) by `author`: the
    /// `pull_request` event payload GitHub writes to `GITHUB_EVENT_PATH`
    /// and the default variables a workflow cannot overwrite.
    pub fn github_pull_request(&self, base: &str, head: &str, author: &str) -> Verdict {
        github_pull_request(&self.work, base, head, author)
    }

    /// `check --ci` as a GitLab merge request pipeline (detached) of the
    /// branch `source` into `target`, started by `user`: GitLab's
    /// predefined variables.
    pub fn gitlab_merge_request(&self, target: &str, source: &str, user: &str) -> Verdict {
        let repo = &self.work;
        let sha = |rev: &str| repo.git(&["rev-parse", rev]).trim().to_string();
        let (base, head) = (sha(&format!("origin/{target}")), sha(source));
        verdict(&repo.run_env(
            &["check", "--ci", "--format", "json"],
            &[
                ("GITLAB_CI", "true"),
                ("CI_PIPELINE_SOURCE", "merge_request_event"),
                ("CI_MERGE_REQUEST_EVENT_TYPE", "detached"),
                ("CI_MERGE_REQUEST_DIFF_BASE_SHA", &base),
                ("CI_COMMIT_SHA", &head),
                ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", target),
                ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", source),
                ("CI_DEFAULT_BRANCH", "main"),
                ("GITLAB_USER_LOGIN", user),
            ],
        ))
    }

    /// `git push --no-verify origin REFSPEC...` with the server's hook set
    /// aside: history that landed "somehow" (before the gate, or by an
    /// administrator).
    pub fn push_unjudged(&self, refspecs: &[&str]) {
        let hook = self.bare().join("hooks/pre-receive");
        let aside = self.bare().join("hooks/pre-receive.aside");
        std::fs::rename(&hook, &aside).expect("set the hook aside");
        let mut args = vec!["push", "-q", "--no-verify", "--force", "origin"];
        args.extend_from_slice(refspecs);
        let out = self.work.git_output(&args);
        std::fs::rename(&aside, &hook).expect("put the hook back");
        assert!(out.status.success(), "{}", text(&out));
    }

    /// A clone of the server, as a CI runner makes it.
    pub fn clone(&self, args: &[&str]) -> TestRepo {
        TestRepo::clone_url(&format!("file://{}", self.bare().display()), args)
    }
}

/// A temporary directory holding `origin.git`, an empty bare repository
/// on `main` whose pre-receive hook is the gate (`install --server`), and
/// that repository's path.
pub fn gated_server() -> (TestRepo, PathBuf) {
    let server = TestRepo::new();
    let bare = server.path().join("origin.git");
    server.git(&["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    let mut install = server.command(BIN);
    install.current_dir(&bare).args(["install", "--server"]);
    let output = install.output().expect("install --server");
    assert_eq!(status(&output), 0, "{}", text(&output));
    (server, bare)
}

/// The verdict of a `git push` (pre-receive judged it): refused when the
/// push failed, the codes read from the `remote:` lines.
pub fn pushed(out: &std::process::Output) -> Verdict {
    let printed = text(out);
    Verdict {
        code: if out.status.success() { 0 } else { 1 },
        codes: codes_in_text(&printed),
        text: printed,
        report: None,
    }
}

/// The verdict of a `--format json` run.
pub fn verdict(out: &std::process::Output) -> Verdict {
    let report = json(out);
    Verdict {
        code: status(out),
        codes: codes(&report),
        text: text(out),
        report: Some(report),
    }
}

/// Reason codes named in human output (`error[code]`, `note[code]`).
pub fn codes_in_text(printed: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in printed.split('[').skip(1) {
        if let Some((code, _)) = piece.split_once(']')
            && !code.is_empty()
            && code
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit())
        {
            out.push(code.to_string());
        }
    }
    out
}

/// `git commit` with fixed dates (so walk order is known) and an author.
pub fn commit_as(repo: &TestRepo, message: &str, author: &str, date: &str) -> String {
    repo.git(&["add", "-A"]);
    let (name, email) = author
        .split_once(" <")
        .unwrap_or((author, "x@example.invalid>"));
    let email = email.trim_end_matches('>');
    let out = repo
        .command("git")
        .args([
            "commit",
            "-q",
            "--no-verify",
            "--allow-empty",
            "-m",
            message,
        ])
        .env("GIT_AUTHOR_NAME", name)
        .env("GIT_AUTHOR_EMAIL", email)
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .output()
        .expect("git commit");
    assert!(out.status.success(), "{}", text(&out));
    repo.head()
}

/// `check --ci` in `repo` as GitHub Actions runs it on a pull request from
/// the branch `head` into `base` (both resolvable in `repo`), opened and
/// pushed by `author`: GitHub's `pull_request` webhook payload (number,
/// base and head with `ref` and `sha`, the author as `user.login`, the
/// repository's default branch, the sender) in `GITHUB_EVENT_PATH`, and the
/// default variables (`GITHUB_ACTOR` and `GITHUB_TRIGGERING_ACTOR`: who
/// opened or last pushed, `GITHUB_BASE_REF`, `GITHUB_HEAD_REF`).
pub fn github_pull_request(repo: &TestRepo, base: &str, head: &str, author: &str) -> Verdict {
    let sha = |rev: &str| repo.git(&["rev-parse", rev]).trim().to_string();
    let branch = |name: &str| name.strip_prefix("origin/").unwrap_or(name).to_string();
    let dir = tempfile::tempdir().expect("event dir");
    let event = dir.path().join("event.json");
    let payload = serde_json::json!({
        "action": "synchronize",
        "number": 1,
        "pull_request": {
            "number": 1,
            "state": "open",
            "base": {"ref": branch(base), "sha": sha(base)},
            "head": {"ref": branch(head), "sha": sha(head)},
            "user": {"login": author, "type": "User"},
        },
        "repository": {"default_branch": "main", "full_name": "owner/repo"},
        "sender": {"login": author, "type": "User"},
    });
    std::fs::write(&event, payload.to_string()).expect("event payload");
    verdict(&repo.run_env(
        &["check", "--ci", "--format", "json"],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_EVENT_PATH", event.to_str().expect("utf-8 path")),
            ("GITHUB_ACTOR", author),
            ("GITHUB_TRIGGERING_ACTOR", author),
            ("GITHUB_BASE_REF", &branch(base)),
            ("GITHUB_HEAD_REF", &branch(head)),
            ("GITHUB_REF", "refs/pull/1/merge"),
        ],
    ))
}
