//! GitLab CI's event data (GitLab, "Predefined CI/CD variables"):
//! `CI_PIPELINE_SOURCE`, `CI_MERGE_REQUEST_EVENT_TYPE` (`detached`,
//! `merged_result`, `merge_train`), `CI_MERGE_REQUEST_DIFF_BASE_SHA`,
//! `CI_MERGE_REQUEST_TARGET_BRANCH_NAME`,
//! `CI_MERGE_REQUEST_TARGET_BRANCH_SHA` and
//! `CI_MERGE_REQUEST_SOURCE_BRANCH_SHA` (merged results), `CI_COMMIT_SHA`,
//! `CI_COMMIT_BEFORE_SHA` (all zeros for new branches and merge request
//! pipelines), `CI_COMMIT_BRANCH`, `CI_DEFAULT_BRANCH`.
//!
//! A detached merge request pipeline (GitLab's default kind) names the
//! merge base (`CI_MERGE_REQUEST_DIFF_BASE_SHA`) but not the target's tip;
//! what lands is the merge into the target branch as it is now, so its
//! base is `origin/<target branch>`, which the gate fetches when the clone
//! lacks it ([`target_to_fetch`]).

use super::event::{CiEnv, Commits, Detected, EventError};

/// The target branch a detached merge request pipeline must fetch to know
/// the target's tip, if this is one.
pub(super) fn target_to_fetch(env: &CiEnv) -> Option<&str> {
    let merge_request = env.var("CI_PIPELINE_SOURCE") == Some("merge_request_event");
    let detached = !matches!(
        env.var("CI_MERGE_REQUEST_EVENT_TYPE"),
        Some("merged_result" | "merge_train")
    );
    (merge_request && detached && env.sha("CI_MERGE_REQUEST_TARGET_BRANCH_SHA").is_none())
        .then(|| env.var("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"))
        .flatten()
}

/// Base and head of a GitLab CI pipeline.
pub(super) fn detect(env: &CiEnv, git: &dyn Commits) -> Detected {
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
                    .ok_or_else(|| EventError::NoBase("CI_COMMIT_SHA is not set".to_string())),
                head: source_head.or(commit),
                expects_change: true,
            },
            "merged_result" => Detected {
                event,
                base: env
                    .sha("CI_MERGE_REQUEST_TARGET_BRANCH_SHA")
                    .map(str::to_string)
                    .or_else(|| commit.as_ref().map(|c| format!("{c}^1")))
                    .ok_or_else(|| {
                        EventError::NoBase(
                            "CI_MERGE_REQUEST_TARGET_BRANCH_SHA is not set".to_string(),
                        )
                    }),
                head: source_head.or(commit),
                expects_change: true,
            },
            // Detached: the target branch's tip as it is now, never the
            // merge base (which only a GitLab that names no target gives).
            _ => Detected {
                event,
                base: env
                    .sha("CI_MERGE_REQUEST_TARGET_BRANCH_SHA")
                    .map(str::to_string)
                    .or_else(|| {
                        env.var("CI_MERGE_REQUEST_TARGET_BRANCH_NAME")
                            .map(|name| format!("origin/{name}"))
                    })
                    .or_else(|| {
                        env.sha("CI_MERGE_REQUEST_DIFF_BASE_SHA")
                            .map(str::to_string)
                    })
                    .ok_or_else(|| {
                        EventError::NoBase(
                            "CI_MERGE_REQUEST_TARGET_BRANCH_NAME is not set".to_string(),
                        )
                    }),
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
                .ok_or_else(|| EventError::NoBase("CI_COMMIT_SHA is not set".to_string())),
            false,
        ),
        _ => match &default {
            Some(d) => (Ok(format!("origin/{d}")), false),
            None => (
                Err(EventError::NoBase(
                    "CI_DEFAULT_BRANCH is not set".to_string(),
                )),
                false,
            ),
        },
    };
    Detected {
        event,
        base,
        head: commit,
        expects_change,
    }
}
