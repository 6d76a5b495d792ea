//! Where `check --ci` takes its base and head from when `--base`/`--head`
//! are absent: the CI platform's documented variables and event payloads
//! (GitHub Actions, GitLab CI).

use crate::codes::Code;
use crate::commands::check::is_zero;
use crate::diagnostic::Diagnostic;

/// The largest event payload read (GitHub's webhook payloads are capped at
/// 25 MB).
const MAX_EVENT_BYTES: usize = 32 * 1024 * 1024;

/// Base and head from the CI platform's environment when not given.
pub fn ci_revisions(
    base: Option<&str>,
    head: Option<&str>,
) -> Result<(String, String), Diagnostic> {
    let var = |name: &str| {
        std::env::var(name)
            .ok()
            .filter(|v| !v.is_empty() && !is_zero(v))
    };
    let mut base = base.map(str::to_string);
    let mut head = head.map(str::to_string);
    if var("GITHUB_ACTIONS").is_some() {
        if let Some(event) = var("GITHUB_EVENT_PATH")
            .and_then(|p| {
                // Regular files only: a FIFO there never blocks the gate.
                crate::safe_fs::read_bounded(
                    std::path::Path::new(&p),
                    MAX_EVENT_BYTES,
                    crate::safe_fs::Follow::Links,
                )
                .ok()
                .filter(|b| b.len() <= MAX_EVENT_BYTES)
            })
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        {
            let sha = |a: &str, b: &str| {
                event
                    .get(a)?
                    .get(b)?
                    .get("sha")?
                    .as_str()
                    .map(str::to_string)
            };
            base = base.or_else(|| sha("pull_request", "base"));
            head = head.or_else(|| sha("pull_request", "head"));
            base = base.or_else(|| {
                event
                    .get("before")?
                    .as_str()
                    .filter(|s| !is_zero(s))
                    .map(str::to_string)
            });
        }
        base = base.or_else(|| var("GITHUB_BASE_REF").map(|b| format!("origin/{b}")));
        head = head.or_else(|| var("GITHUB_SHA"));
    }
    if var("GITLAB_CI").is_some() {
        base = base
            .or_else(|| var("CI_MERGE_REQUEST_TARGET_BRANCH_SHA"))
            .or_else(|| var("CI_MERGE_REQUEST_DIFF_BASE_SHA"))
            .or_else(|| var("CI_COMMIT_BEFORE_SHA"));
        head = head
            .or_else(|| var("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"))
            .or_else(|| var("CI_COMMIT_SHA"));
    }
    let head = head.unwrap_or_else(|| "HEAD".to_string());
    match base {
        Some(base) => Ok((base, head)),
        None => Err(Diagnostic::new(
            Code::usage_invalid,
            "check --ci needs a base: pass --base REV, or run in a GitHub pull_request or GitLab merge request pipeline",
        )),
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
