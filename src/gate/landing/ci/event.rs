//! The CI platform's event data, snapshotted once: the variables GitHub
//! Actions and GitLab CI set (empty values count as unset) and GitHub's
//! event payload (`GITHUB_EVENT_PATH`), plus what the detection asks of the
//! repository ([`Commits`]). What each platform's data mean is read in
//! [`super::github`] and [`super::gitlab`].

use crate::gate::landing::is_zero;
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
    "CI_MERGE_REQUEST_TARGET_BRANCH_NAME",
    "CI_COMMIT_SHA",
    "CI_COMMIT_BEFORE_SHA",
    "CI_COMMIT_BRANCH",
    "CI_COMMIT_TAG",
    "CI_DEFAULT_BRANCH",
];

/// What the event data could not give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventError {
    /// `GITHUB_EVENT_PATH` names a file that cannot be read or parsed.
    Payload { path: String, reason: String },
    /// The event names no base; the text says what is missing.
    NoBase(String),
}

impl std::fmt::Display for EventError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EventError::Payload { path, reason } => write!(f, "{path}: {reason}"),
            EventError::NoBase(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for EventError {}

/// The CI environment: variables (empty values count as unset) and, on
/// GitHub, the event payload.
#[derive(Clone, Debug, Default)]
pub struct CiEnv {
    pub(super) vars: HashMap<String, String>,
    /// The parsed `GITHUB_EVENT_PATH` file: `Err` when it is named but
    /// cannot be read or parsed.
    pub(super) event: Option<Result<serde_json::Value, EventError>>,
}

impl CiEnv {
    /// Snapshot the process environment.
    pub fn from_process() -> CiEnv {
        let mut vars = HashMap::new();
        // The identity facts' variables (actors, branches) too.
        for name in VARS.iter().chain(crate::gate::identity::ci::VARS) {
            if let Some(value) = std::env::var(name).ok().filter(|v| !v.is_empty()) {
                vars.insert(name.to_string(), value);
            }
        }
        let event = vars.get("GITHUB_EVENT_PATH").map(|path| {
            let unusable = |reason: String| EventError::Payload {
                path: path.clone(),
                reason,
            };
            // Regular files only, bounded: a FIFO there never blocks the gate.
            let bytes = crate::safe_fs::read_bounded(
                std::path::Path::new(path),
                MAX_EVENT_BYTES,
                crate::safe_fs::Follow::Links,
            )
            .map_err(|e| unusable(format!("cannot be read: {e}")))?;
            if bytes.len() > MAX_EVENT_BYTES {
                return Err(unusable(format!("larger than {MAX_EVENT_BYTES} bytes")));
            }
            serde_json::from_slice(&bytes).map_err(|e| unusable(format!("not JSON: {e}")))
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

    pub(super) fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// A commit id variable: unset, empty and all-zero ids are absent.
    pub(super) fn sha(&self, name: &str) -> Option<&str> {
        self.var(name).filter(|v| !is_zero(v))
    }

    pub(super) fn platform(&self) -> Option<Platform> {
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
pub(super) enum Platform {
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
    /// True for a shallow clone, where a missing commit may only be cut off.
    fn is_shallow(&self) -> bool {
        false
    }
}

impl Commits for Repo {
    fn is_shallow(&self) -> bool {
        Repo::is_shallow(self)
    }

    fn resolve(&self, rev: &str) -> Option<ObjectId> {
        self.resolve_commit(rev).ok()
    }

    fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> bool {
        ancestor == descendant
            || self.merge_base(ancestor, descendant).ok().flatten() == Some(ancestor)
    }
}

/// Base and head as the platform's event data give them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detected {
    /// The event, for messages (`GitHub pull_request`, `GitLab merged_result pipeline`).
    pub event: String,
    /// The base, or why there is none.
    pub base: Result<String, EventError>,
    pub head: Option<String>,
    /// The event promises a change: a base equal to the head, or a
    /// descendant of it, is refused. False where comparing a branch with
    /// itself is an honest "nothing to land" (a dispatch on the default
    /// branch, a new branch at the default branch's tip).
    pub expects_change: bool,
}
