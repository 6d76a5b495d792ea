//! GitHub Actions' event data (GitHub, "Events that trigger workflows" and
//! the webhook payloads): `pull_request`/`pull_request_target` carry
//! `pull_request.base.sha` and `pull_request.head.sha`; `merge_group`
//! carries `merge_group.base_sha` and `merge_group.head_sha`; `push`
//! carries `before`, `after`, `created`, `forced`, `ref` and
//! `repository.default_branch` (a new branch has an all-zero `before`);
//! `workflow_dispatch` and `schedule` carry no base.

use super::event::{CiEnv, Commits, Detected, EventError};
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::gate::landing::is_zero;

fn github_default_branch(env: &CiEnv, event: Option<&serde_json::Value>) -> Option<String> {
    event
        .and_then(|e| e.pointer("/repository/default_branch"))
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .or_else(|| env.var("GITHUB_BASE_REF").map(str::to_string))
}

/// Base and head of a GitHub Actions run.
pub(super) fn detect(env: &CiEnv, git: &dyn Commits) -> Result<Detected, Diagnostic> {
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
                base: base.ok_or_else(|| {
                    EventError::NoBase("the event has no pull_request.base.sha".to_string())
                }),
                head,
                expects_change: true,
            }
        }
        "merge_group" => Detected {
            event: label,
            base: text("/merge_group/base_sha").ok_or_else(|| {
                EventError::NoBase("the event has no merge_group.base_sha".to_string())
            }),
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
            let forced = event
                .and_then(|e| e.get("forced"))
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            let base = match &before {
                Some(before) if git.resolve(before).is_some() => Ok(before.clone()),
                // An ordinary push whose old tip a shallow clone cut off: say
                // so, rather than take it for a forced push or a new branch.
                Some(before) if !forced && git.is_shallow() => Err(EventError::NoBase(format!(
                    "the push's old tip {before} is not in this shallow clone"
                ))),
                _ if !on_default && default.is_some() => {
                    Ok(format!("origin/{}", default.clone().unwrap_or_default()))
                }
                Some(before) => Err(EventError::NoBase(format!(
                    "the push replaced {before}, which is not in this clone (a forced push); fetch it with `git fetch origin {before}` before the gate, or pass the base"
                ))),
                None if on_default => Err(EventError::NoBase(
                    "this push created the default branch, so there is nothing on the remote to compare with".to_string(),
                )),
                None => Err(EventError::NoBase(
                    "the push event names neither `before` nor the repository's default branch".to_string(),
                )),
            };
            // A forced push may move a branch back: then nothing lands, honestly.
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
                    EventError::NoBase(
                        "the event names no default branch (repository.default_branch)".to_string(),
                    )
                }),
                head: github_sha,
                expects_change: false,
            }
        }
    };
    Ok(detected)
}
