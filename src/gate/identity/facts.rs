//! The identity facts a landing carries (filled by the landing modules,
//! read by [`super::rules`] and [`super::gather`]): the principals a
//! platform names, the source branch, the protected branch.

use gix::ObjectId;

/// One person or app a platform names, by every name it gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    /// What it is to the change, for messages (`the pusher`).
    pub role: &'static str,
    /// Its names (a login; GitLab's `user-42` too). A pattern that matches
    /// any of them matches the principal.
    pub names: Vec<String>,
    /// Where the names come from, for messages (`GL_USERNAME`).
    pub source: &'static str,
}

impl Principal {
    pub fn new(role: &'static str, names: Vec<String>, source: &'static str) -> Principal {
        Principal {
            role,
            names,
            source,
        }
    }

    /// `alice (the pusher, GL_USERNAME)`.
    pub fn describe(&self) -> String {
        format!(
            "{} ({}, {})",
            self.names.join(" / "),
            self.role,
            self.source
        )
    }
}

/// Principals with the same names are one.
pub(crate) fn dedup(principals: Vec<Principal>) -> Vec<Principal> {
    let mut out: Vec<Principal> = Vec::new();
    for principal in principals {
        if principal.names.is_empty() || out.iter().any(|p| p.names == principal.names) {
            continue;
        }
        out.push(principal);
    }
    out
}

/// What a landing's mode knows about who makes the change and where it goes,
/// beyond the commits themselves. Filled by the landing modules; `None`
/// where the mode cannot know.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// The authenticated pusher(s) (pre-receive, from the server).
    pub pushers: Option<Vec<Principal>>,
    /// The CI run's actors: the triggering actor, the pull request's author.
    pub actors: Option<Vec<Principal>>,
    /// The branch the change comes from, as whoever pushed it named it (the
    /// pull request's source branch in CI, the local branch in pre-push);
    /// `None`: the landing's target branch (pre-commit, pre-receive).
    pub source_branch: Option<String>,
    /// The protected branch's commit a task's landed spec and report are
    /// read from for the planning findings (the default branch, or the pull
    /// request's target); `None`: the mode cannot tell, and the planning
    /// findings fall back to the local view of it, else the target
    /// (`crate::gate::planning::protected`).
    pub protected: Option<ObjectId>,
}
