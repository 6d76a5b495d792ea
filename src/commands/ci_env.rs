//! Where `check --ci` takes its base and head from: the CI platform's event
//! data first (GitHub's `GITHUB_EVENT_PATH` payload, GitLab's predefined
//! variables), for every event either platform runs a gate on, and what it
//! refuses: in CI, a `--base`/`--head` the change could set (the templates'
//! `MASTERMIND_HOOKS_BASE`/`HEAD`) must agree with the event, and no base may
//! be the head or a descendant of it where the event promises a change.
//!
//! Sources (platform documentation):
//! * GitHub, "Events that trigger workflows" and the webhook payloads:
//!   `pull_request`/`pull_request_target` carry `pull_request.base.sha` and
//!   `pull_request.head.sha`; `merge_group` carries `merge_group.base_sha`
//!   and `merge_group.head_sha`; `push` carries `before`, `after`, `created`,
//!   `forced`, `ref` and `repository.default_branch` (a new branch has an
//!   all-zero `before`); `workflow_dispatch` and `schedule` carry no base.
//! * GitLab, "Predefined CI/CD variables": `CI_PIPELINE_SOURCE`,
//!   `CI_MERGE_REQUEST_EVENT_TYPE` (`detached`, `merged_result`,
//!   `merge_train`), `CI_MERGE_REQUEST_DIFF_BASE_SHA`,
//!   `CI_MERGE_REQUEST_TARGET_BRANCH_SHA` and
//!   `CI_MERGE_REQUEST_SOURCE_BRANCH_SHA` (merged results), `CI_COMMIT_SHA`,
//!   `CI_COMMIT_BEFORE_SHA` (all zeros for new branches and merge request
//!   pipelines), `CI_COMMIT_BRANCH`, `CI_DEFAULT_BRANCH`.

use crate::codes::Code;
use crate::commands::check::is_zero;
use crate::diagnostic::Diagnostic;
use crate::repo::Repo;
use gix::ObjectId;
use std::collections::HashMap;

/// The largest event payload read (GitHub's webhook payloads are capped at
/// 25 MB).
const MAX_EVENT_BYTES: usize = 32 * 1024 * 1024;

/// The variables this module reads, snapshotted once.
const VARS: &[&str] = &[
    "GITHUB_ACTIONS",
    "GITHUB_EVENT_NAME",
    "GITHUB_EVENT_PATH",
    "GITHUB_BASE_REF",
    "GITHUB_REF",
    "GITHUB_SHA",
    "GITLAB_CI",
    "CI_PIPELINE_SOURCE",
    "CI_MERGE_REQUEST_EVENT_TYPE",
    "CI_MERGE_REQUEST_DIFF_BASE_SHA",
    "CI_MERGE_REQUEST_TARGET_BRANCH_SHA",
    "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA",
    "CI_COMMIT_SHA",
    "CI_COMMIT_BEFORE_SHA",
    "CI_COMMIT_BRANCH",
    "CI_COMMIT_TAG",
    "CI_DEFAULT_BRANCH",
];

/// The CI environment: variables (empty values count as unset) and, on
/// GitHub, the event payload.
#[derive(Clone, Debug, Default)]
pub struct CiEnv {
    vars: HashMap<String, String>,
    /// The parsed `GITHUB_EVENT_PATH` file: `Err` when it is named but
    /// cannot be read or parsed.
    event: Option<Result<serde_json::Value, String>>,
}

impl CiEnv {
    /// Snapshot the process environment.
    pub fn from_process() -> CiEnv {
        let mut vars = HashMap::new();
        for name in VARS {
            if let Some(value) = std::env::var(name).ok().filter(|v| !v.is_empty()) {
                vars.insert(name.to_string(), value);
            }
        }
        let event = vars.get("GITHUB_EVENT_PATH").map(|path| {
            // Regular files only, bounded: a FIFO there never blocks the gate.
            let bytes = crate::safe_fs::read_bounded(
                std::path::Path::new(path),
                MAX_EVENT_BYTES,
                crate::safe_fs::Follow::Links,
            )
            .map_err(|e| format!("cannot read {path}: {e}"))?;
            if bytes.len() > MAX_EVENT_BYTES {
                return Err(format!("{path} is larger than {MAX_EVENT_BYTES} bytes"));
            }
            serde_json::from_slice(&bytes).map_err(|e| format!("{path} is not JSON: {e}"))
        });
        CiEnv { vars, event }
    }

    /// An environment from explicit variables and payload (tests).
    pub fn new(vars: &[(&str, &str)], event: Option<serde_json::Value>) -> CiEnv {
        CiEnv {
            vars: vars
                .iter()
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            event: event.map(Ok),
        }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// A commit id variable: unset, empty and all-zero ids are absent.
    fn sha(&self, name: &str) -> Option<&str> {
        self.var(name).filter(|v| !is_zero(v))
    }

    fn platform(&self) -> Option<Platform> {
        if self.var("GITHUB_ACTIONS").is_some() {
            Some(Platform::Github)
        } else if self.var("GITLAB_CI").is_some() {
            Some(Platform::Gitlab)
        } else {
            None
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Platform {
    Github,
    Gitlab,
}

/// What `check --ci` needs to know about commits; the repository answers,
/// tests answer with a table.
pub trait Commits {
    /// The commit a revision names, if it is there.
    fn resolve(&self, rev: &str) -> Option<ObjectId>;
    /// True when `ancestor` is `descendant` or one of its ancestors.
    fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> bool;
}

impl Commits for Repo {
    fn resolve(&self, rev: &str) -> Option<ObjectId> {
        self.resolve_commit(rev).ok()
    }

    fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> bool {
        ancestor == descendant
            || self.merge_base(ancestor, descendant).ok().flatten() == Some(ancestor)
    }
}

/// No repository: nothing resolves (`check --ci` then reports why itself).
struct NoRepo;

impl Commits for NoRepo {
    fn resolve(&self, _: &str) -> Option<ObjectId> {
        None
    }
    fn is_ancestor(&self, _: ObjectId, _: ObjectId) -> bool {
        false
    }
}

/// Base and head as the platform's event data give them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detected {
    /// The event, for messages (`GitHub pull_request`, `GitLab merged_result pipeline`).
    pub event: String,
    /// The base, or why there is none.
    pub base: Result<String, String>,
    pub head: Option<String>,
    /// The event promises a change: a base equal to the head, or a
    /// descendant of it, is refused. False where comparing a branch with
    /// itself is an honest "nothing to land" (a dispatch on the default
    /// branch, a new branch at the default branch's tip).
    pub expects_change: bool,
}

fn github_default_branch(env: &CiEnv, event: Option<&serde_json::Value>) -> Option<String> {
    event
        .and_then(|e| e.pointer("/repository/default_branch"))
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .or_else(|| env.var("GITHUB_BASE_REF").map(str::to_string))
}

fn detect_github(env: &CiEnv, git: &dyn Commits) -> Result<Detected, Diagnostic> {
    let event = match &env.event {
        Some(Ok(value)) => Some(value),
        Some(Err(error)) => {
            return Err(Diagnostic::new(
                Code::ci_base_unknown,
                format!("the GitHub event payload (GITHUB_EVENT_PATH) is unusable: {error}"),
            ));
        }
        None => None,
    };
    // GitHub always names the event; without the name, the payload says.
    let name = env
        .var("GITHUB_EVENT_NAME")
        .map(str::to_string)
        .unwrap_or_else(|| {
            let has = |key: &str| event.is_some_and(|e| e.get(key).is_some());
            if has("pull_request") {
                "pull_request"
            } else if has("merge_group") {
                "merge_group"
            } else {
                "push"
            }
            .to_string()
        });
    let text = |pointer: &str| {
        event
            .and_then(|e| e.pointer(pointer))
            .and_then(|v| v.as_str())
            .filter(|s| !s.is_empty() && !is_zero(s))
            .map(str::to_string)
    };
    let label = format!("GitHub {name}");
    let github_sha = env.sha("GITHUB_SHA").map(str::to_string);
    let detected = match name.as_str() {
        "pull_request"
        | "pull_request_target"
        | "pull_request_review"
        | "pull_request_review_comment" => {
            let base = text("/pull_request/base/sha")
                .or_else(|| env.var("GITHUB_BASE_REF").map(|b| format!("origin/{b}")));
            // pull_request_target runs on the base branch: GITHUB_SHA is not the change.
            let head = text("/pull_request/head/sha").or_else(|| {
                (name != "pull_request_target")
                    .then(|| github_sha.clone())
                    .flatten()
            });
            Detected {
                event: label,
                base: base.ok_or_else(|| "the event has no pull_request.base.sha".to_string()),
                head,
                expects_change: true,
            }
        }
        "merge_group" => Detected {
            event: label,
            base: text("/merge_group/base_sha")
                .ok_or_else(|| "the event has no merge_group.base_sha".to_string()),
            head: text("/merge_group/head_sha").or(github_sha),
            expects_change: true,
        },
        "push" => {
            let head = text("/after").or(github_sha);
            let git_ref = text("/ref").or_else(|| env.var("GITHUB_REF").map(str::to_string));
            let default = github_default_branch(env, event);
            let on_default = match (&git_ref, &default) {
                (Some(r), Some(d)) => *r == format!("refs/heads/{d}"),
                _ => false,
            };
            let before = text("/before");
            let base = match &before {
                Some(before) if git.resolve(before).is_some() => Ok(before.clone()),
                _ if !on_default && default.is_some() => {
                    Ok(format!("origin/{}", default.clone().unwrap_or_default()))
                }
                Some(before) => Err(format!(
                    "the push replaced {before}, which is not in this clone (a forced push); fetch it with `git fetch origin {before}` before the gate, or pass the base"
                )),
                None if on_default => Err(
                    "this push created the default branch, so there is nothing on the remote to compare with".to_string(),
                ),
                None => Err(
                    "the push event names neither `before` nor the repository's default branch".to_string(),
                ),
            };
            // A forced push may move a branch back: then nothing lands, honestly.
            let forced = event
                .and_then(|e| e.get("forced"))
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            let expects_change =
                !forced && matches!(&before, Some(b) if base.as_deref() == Ok(b.as_str()));
            Detected {
                event: label,
                base,
                head,
                expects_change,
            }
        }
        _ => {
            // workflow_dispatch, schedule, repository_dispatch, ...: the
            // checked-out commit against the default branch.
            let default = github_default_branch(env, event);
            Detected {
                event: label,
                base: default.map(|d| format!("origin/{d}")).ok_or_else(|| {
                    "the event names no default branch (repository.default_branch)".to_string()
                }),
                head: github_sha,
                expects_change: false,
            }
        }
    };
    Ok(detected)
}

fn detect_gitlab(env: &CiEnv, git: &dyn Commits) -> Detected {
    let commit = env.sha("CI_COMMIT_SHA").map(str::to_string);
    // GitLab always names the source; without it, merge request variables say.
    let merge_request_vars = env.sha("CI_MERGE_REQUEST_DIFF_BASE_SHA").is_some()
        || env.sha("CI_MERGE_REQUEST_TARGET_BRANCH_SHA").is_some();
    let source = env
        .var("CI_PIPELINE_SOURCE")
        .unwrap_or(if merge_request_vars {
            "merge_request_event"
        } else {
            "push"
        });
    if source == "merge_request_event" {
        let inferred = if env.sha("CI_MERGE_REQUEST_TARGET_BRANCH_SHA").is_some() {
            "merged_result"
        } else {
            "detached"
        };
        let kind = env.var("CI_MERGE_REQUEST_EVENT_TYPE").unwrap_or(inferred);
        let event = format!("GitLab {kind} merge request pipeline");
        let source_head = env
            .sha("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA")
            .map(str::to_string);
        return match kind {
            // The pipeline's commit is the merge GitLab made: its first
            // parent is the target (or the merge train ahead), the source
            // branch is what the merge request adds.
            "merge_train" => Detected {
                event,
                base: commit
                    .as_ref()
                    .map(|c| format!("{c}^1"))
                    .ok_or_else(|| "CI_COMMIT_SHA is not set".to_string()),
                head: source_head.or(commit),
                expects_change: true,
            },
            "merged_result" => Detected {
                event,
                base: env
                    .sha("CI_MERGE_REQUEST_TARGET_BRANCH_SHA")
                    .map(str::to_string)
                    .or_else(|| commit.as_ref().map(|c| format!("{c}^1")))
                    .ok_or_else(|| "CI_MERGE_REQUEST_TARGET_BRANCH_SHA is not set".to_string()),
                head: source_head.or(commit),
                expects_change: true,
            },
            _ => Detected {
                event,
                base: env
                    .sha("CI_MERGE_REQUEST_DIFF_BASE_SHA")
                    .map(str::to_string)
                    .ok_or_else(|| "CI_MERGE_REQUEST_DIFF_BASE_SHA is not set".to_string()),
                head: commit,
                expects_change: true,
            },
        };
    }
    // Branch and tag pipelines (push, web, schedule, api, trigger, ...).
    let default = env.var("CI_DEFAULT_BRANCH").map(str::to_string);
    let on_default = match (env.var("CI_COMMIT_BRANCH"), &default) {
        (Some(branch), Some(d)) => branch == d,
        _ => false,
    };
    let before = env.sha("CI_COMMIT_BEFORE_SHA").map(str::to_string);
    let event = if on_default {
        format!("GitLab {source} pipeline on the default branch")
    } else {
        format!("GitLab {source} pipeline")
    };
    let (base, expects_change) = match &before {
        Some(b) if git.resolve(b).is_some() => (Ok(b.clone()), true),
        // The default branch with nothing before it (a new branch, a
        // scheduled or manual run): judged against itself, so the run
        // passes with nothing to land and still writes its reports.
        _ if on_default => (
            commit
                .clone()
                .ok_or_else(|| "CI_COMMIT_SHA is not set".to_string()),
            false,
        ),
        _ => match &default {
            Some(d) => (Ok(format!("origin/{d}")), false),
            None => (Err("CI_DEFAULT_BRANCH is not set".to_string()), false),
        },
    };
    Detected {
        event,
        base,
        head: commit,
        expects_change,
    }
}

/// The platform's base and head, `None` outside CI.
pub fn detect(env: &CiEnv, git: &dyn Commits) -> Result<Option<Detected>, Diagnostic> {
    match env.platform() {
        Some(Platform::Github) => detect_github(env, git).map(Some),
        Some(Platform::Gitlab) => Ok(Some(detect_gitlab(env, git))),
        None => Ok(None),
    }
}

fn refused(message: String) -> Diagnostic {
    Diagnostic::new(Code::ci_override_refused, message)
}

/// Base and head for `check --ci`: the flags outside CI; in CI the event's,
/// with flags accepted only where they agree with it.
pub fn revisions(
    env: &CiEnv,
    git: &dyn Commits,
    base_flag: Option<&str>,
    head_flag: Option<&str>,
) -> Result<(String, String), Diagnostic> {
    let Some(detected) = detect(env, git)? else {
        let base = base_flag.ok_or_else(|| {
            Diagnostic::new(
                Code::ci_base_unknown,
                "check --ci needs a base: pass --base REV, or run in GitHub Actions or GitLab CI",
            )
        })?;
        return Ok((base.to_string(), head_flag.unwrap_or("HEAD").to_string()));
    };
    let event = &detected.event;
    let same = |given: &str, expected: &str| match (git.resolve(given), git.resolve(expected)) {
        (Some(a), Some(b)) => a == b,
        _ => given == expected,
    };
    let head = match (head_flag, &detected.head) {
        (Some(given), Some(expected)) if !same(given, expected) => {
            return Err(refused(format!(
                "the head `{given}` disagrees with the {event}, whose head is {expected}; in CI the head comes from the event"
            )));
        }
        (Some(given), _) => given.to_string(),
        (None, Some(expected)) => expected.clone(),
        (None, None) => "HEAD".to_string(),
    };
    let base = match (base_flag, &detected.base) {
        (Some(given), Ok(expected)) if !same(given, expected) => {
            return Err(refused(format!(
                "the base `{given}` disagrees with the {event}, whose base is {expected}; in CI the base comes from the event"
            )));
        }
        (Some(given), _) => given.to_string(),
        (None, Ok(expected)) => expected.clone(),
        (None, Err(why)) => {
            return Err(Diagnostic::new(
                Code::ci_base_unknown,
                format!("check --ci cannot tell the base of this {event}: {why}"),
            ));
        }
    };
    // A base at or after the head makes the change empty: only honest
    // where the event promises nothing (and never for an override).
    if (detected.expects_change || base_flag.is_some())
        && let (Some(b), Some(h)) = (git.resolve(&base), git.resolve(&head))
        && git.is_ancestor(h, b)
    {
        let what = if b == h {
            "is the head"
        } else {
            "is a descendant of the head"
        };
        let source = if base_flag.is_some() {
            "the base given"
        } else {
            "the base from the event data"
        };
        return Err(refused(format!(
            "{source}, `{base}`, {what} ({}), so nothing would be judged in this {event}",
            h.to_hex_with_len(12)
        )));
    }
    Ok((base, head))
}

/// Base and head from the process environment when not given, checked
/// against the repository in the current directory.
pub fn ci_revisions(
    base: Option<&str>,
    head: Option<&str>,
) -> Result<(String, String), Diagnostic> {
    let env = CiEnv::from_process();
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    match Repo::discover(&cwd) {
        Ok(repo) => revisions(&env, &repo, base, head),
        Err(_) => revisions(&env, &NoRepo, base, head),
    }
}

/// The branch the change comes from, for the untasked policy's `branches`:
/// the pull request's head branch, else the branch being built.
pub fn head_branch() -> Option<String> {
    [
        "GITHUB_HEAD_REF",
        "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
        "CI_COMMIT_BRANCH",
        "GITHUB_REF_NAME",
    ]
    .iter()
    .find_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A history: `a` <- `b` <- `c` (main), `c` <- `d` (feature). Names
    /// resolve to fixed ids; `origin/main` is `c`.
    struct Table;

    fn id(name: char) -> ObjectId {
        ObjectId::from_hex(name.to_string().repeat(40).as_bytes()).unwrap()
    }

    impl Commits for Table {
        fn resolve(&self, rev: &str) -> Option<ObjectId> {
            match rev {
                "origin/main" => Some(id('c')),
                r if r.len() == 40
                    && "abcd".contains(&r[..1])
                    && r.bytes().all(|b| b == r.as_bytes()[0]) =>
                {
                    Some(id(r.as_bytes()[0] as char))
                }
                r if r.len() == 42 && r.ends_with("^1") && r.starts_with('d') => Some(id('b')),
                _ => None,
            }
        }
        fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> bool {
            let order = |o: ObjectId| ['a', 'b', 'c', 'd'].iter().position(|&c| id(c) == o);
            matches!((order(ancestor), order(descendant)), (Some(x), Some(y)) if x <= y)
        }
    }

    fn sha(c: char) -> String {
        c.to_string().repeat(40)
    }

    fn github(event_name: &str, payload: serde_json::Value) -> CiEnv {
        CiEnv::new(
            &[
                ("GITHUB_ACTIONS", "true"),
                ("GITHUB_EVENT_NAME", event_name),
                ("GITHUB_SHA", &sha('d')),
            ],
            Some(payload),
        )
    }

    fn run(env: &CiEnv, base: Option<&str>, head: Option<&str>) -> Result<(String, String), Code> {
        revisions(env, &Table, base, head).map_err(|d| d.code)
    }

    #[test]
    fn github_pull_request_and_merge_group_come_from_the_payload() {
        let pr = json!({"pull_request": {"base": {"sha": sha('c')}, "head": {"sha": sha('d')}}});
        assert_eq!(
            run(&github("pull_request", pr.clone()), None, None),
            Ok((sha('c'), sha('d')))
        );
        assert_eq!(
            run(&github("pull_request_target", pr), None, None),
            Ok((sha('c'), sha('d')))
        );
        let group = json!({"merge_group": {"base_sha": sha('b'), "head_sha": sha('d')}});
        assert_eq!(
            run(&github("merge_group", group), None, None),
            Ok((sha('b'), sha('d')))
        );
    }

    #[test]
    fn github_pushes_new_branches_forced_pushes_and_dispatches() {
        let repo = json!({"default_branch": "main"});
        let push = |before: String, r: &str| json!({"before": before, "after": sha('d'), "ref": r, "repository": repo});
        // An ordinary push: the old tip.
        assert_eq!(
            run(
                &github("push", push(sha('c'), "refs/heads/feature")),
                None,
                None
            ),
            Ok((sha('c'), sha('d')))
        );
        // A new branch: against the default branch.
        assert_eq!(
            run(
                &github("push", push(sha('0'), "refs/heads/feature")),
                None,
                None
            ),
            Ok(("origin/main".into(), sha('d')))
        );
        // A forced push whose old tip is gone from the clone: the default branch.
        assert_eq!(
            run(
                &github("push", push(sha('e'), "refs/heads/feature")),
                None,
                None
            ),
            Ok(("origin/main".into(), sha('d')))
        );
        // A forced push back to an older commit lands nothing: no refusal.
        let back = json!({"before": sha('d'), "after": sha('c'), "ref": "refs/heads/feature",
            "forced": true, "repository": repo});
        let mut env = github("push", back);
        env.vars.insert("GITHUB_SHA".into(), sha('c'));
        assert_eq!(run(&env, None, None), Ok((sha('d'), sha('c'))));
        // ... but on the default branch itself there is nothing to fall back to.
        assert_eq!(
            run(
                &github("push", push(sha('e'), "refs/heads/main")),
                None,
                None
            ),
            Err(Code::ci_base_unknown)
        );
        assert_eq!(
            run(
                &github("push", push(sha('0'), "refs/heads/main")),
                None,
                None
            ),
            Err(Code::ci_base_unknown)
        );
        let dispatch = json!({"ref": "refs/heads/feature", "repository": repo});
        assert_eq!(
            run(&github("workflow_dispatch", dispatch), None, None),
            Ok(("origin/main".into(), sha('d')))
        );
    }

    #[test]
    fn an_unreadable_payload_is_no_pass() {
        let mut env = github("pull_request", json!({}));
        env.event = Some(Err("gone".into()));
        assert_eq!(run(&env, None, None), Err(Code::ci_base_unknown));
    }

    #[test]
    fn overrides_must_agree_with_the_event() {
        let pr = github(
            "pull_request",
            json!({"pull_request": {"base": {"sha": sha('c')}, "head": {"sha": sha('d')}}}),
        );
        // Agreeing overrides (by another name for the same commit) pass.
        assert_eq!(
            run(&pr, Some("origin/main"), None),
            Ok(("origin/main".into(), sha('d')))
        );
        // A base that moves the comparison, the head itself, a descendant: refused.
        assert_eq!(
            run(&pr, Some(&sha('a')), None),
            Err(Code::ci_override_refused)
        );
        assert_eq!(
            run(&pr, Some(&sha('d')), None),
            Err(Code::ci_override_refused)
        );
        assert_eq!(
            run(&pr, None, Some(&sha('c'))),
            Err(Code::ci_override_refused)
        );
        // Where the event has no base, an override still may not be the head.
        let dispatch = github("workflow_dispatch", json!({}));
        assert_eq!(
            run(&dispatch, Some(&sha('d')), None),
            Err(Code::ci_override_refused)
        );
        assert_eq!(
            run(&dispatch, Some(&sha('b')), None),
            Ok((sha('b'), sha('d')))
        );
    }

    #[test]
    fn event_data_that_makes_the_change_empty_is_refused() {
        let pr = github(
            "pull_request",
            json!({"pull_request": {"base": {"sha": sha('d')}, "head": {"sha": sha('c')}}}),
        );
        assert_eq!(run(&pr, None, None), Err(Code::ci_override_refused));
    }

    fn gitlab(vars: &[(&str, &str)]) -> CiEnv {
        let mut all = vec![("GITLAB_CI", "true"), ("CI_DEFAULT_BRANCH", "main")];
        all.extend_from_slice(vars);
        CiEnv::new(&all, None)
    }

    #[test]
    fn gitlab_merge_request_pipelines_of_every_kind() {
        let (a, b, c, d) = (sha('a'), sha('b'), sha('c'), sha('d'));
        let mr = |kind: &'static str| {
            vec![
                ("CI_PIPELINE_SOURCE", "merge_request_event"),
                ("CI_MERGE_REQUEST_EVENT_TYPE", kind),
                ("CI_MERGE_REQUEST_DIFF_BASE_SHA", a.as_str()),
                ("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", b.as_str()),
                ("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", c.as_str()),
                ("CI_COMMIT_SHA", d.as_str()),
                (
                    "CI_COMMIT_BEFORE_SHA",
                    "0000000000000000000000000000000000000000",
                ),
            ]
        };
        assert_eq!(
            run(&gitlab(&mr("detached")), None, None),
            Ok((a.clone(), d.clone()))
        );
        assert_eq!(
            run(&gitlab(&mr("merged_result")), None, None),
            Ok((b.clone(), c.clone()))
        );
        assert_eq!(
            run(&gitlab(&mr("merge_train")), None, None),
            Ok((format!("{d}^1"), c.clone()))
        );
    }

    #[test]
    fn gitlab_branch_pipelines_and_the_default_branch() {
        let (b, d) = (sha('b'), sha('d'));
        let push = |branch: &str, before: &str| {
            gitlab(&[
                ("CI_PIPELINE_SOURCE", "push"),
                ("CI_COMMIT_BRANCH", branch),
                ("CI_COMMIT_SHA", d.as_str()),
                ("CI_COMMIT_BEFORE_SHA", before),
            ])
        };
        assert_eq!(
            run(&push("feature", &b), None, None),
            Ok((b.clone(), d.clone()))
        );
        let zero = "0".repeat(40);
        assert_eq!(
            run(&push("feature", &zero), None, None),
            Ok(("origin/main".into(), d.clone()))
        );
        // The default branch with nothing before it: judged against itself.
        assert_eq!(
            run(&push("main", &zero), None, None),
            Ok((d.clone(), d.clone()))
        );
        assert_eq!(run(&push("main", &b), None, None), Ok((b, d)));
    }

    #[test]
    fn outside_ci_the_flags_decide() {
        let env = CiEnv::new(&[], None);
        assert_eq!(run(&env, Some("x"), None), Ok(("x".into(), "HEAD".into())));
        assert_eq!(run(&env, None, None), Err(Code::ci_base_unknown));
    }
}
