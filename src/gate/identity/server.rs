//! The authenticated pusher in a pre-receive hook, from the variables each
//! git server sets for its hooks (the server's own environment: a client
//! cannot set them):
//!
//! * GitHub Enterprise Server: `GITHUB_USER_LOGIN`, "username for account
//!   that initiated the push", always available; a pull request merge also
//!   sets `GITHUB_PULL_REQUEST_AUTHOR_LOGIN` (GitHub Enterprise Server docs,
//!   "Creating a pre-receive hook script", Environment variables);
//! * GitLab: `GL_USERNAME`, the GitLab username of the user that initiated
//!   the push, and `GL_ID` (`user-2234`, or `key-…` for a deploy key)
//!   (GitLab docs, "Server hooks", environment variables);
//! * Gitea and Forgejo: `GITEA_PUSHER_NAME` (both set it under this name;
//!   Gitea's and Forgejo's `modules/repository/env.go`, the hook
//!   environment's keys);
//! * a plain HTTP server running `git http-backend`: `REMOTE_USER`, the user
//!   the web server authenticated, which git-http-backend(1) hands on to
//!   receive-pack.
//!
//! The first server whose variables are present names the pusher; only its
//! variables are read. A server that sets none (plain SSH, `git daemon`)
//! names nobody, and rules that need `pushers` do not apply there.

use super::facts::{Principal, dedup};

/// Every variable read here (for the snapshot of the process environment).
pub const VARS: &[&str] = &[
    "GITHUB_USER_LOGIN",
    "GITHUB_PULL_REQUEST_AUTHOR_LOGIN",
    "GL_USERNAME",
    "GL_ID",
    "GITEA_PUSHER_NAME",
    "REMOTE_USER",
];

/// The pushers a git server names, given its variables (`var` returns a
/// non-empty value or `None`). `None`: no known server names the pusher.
pub fn pushers(var: &dyn Fn(&str) -> Option<String>) -> Option<Vec<Principal>> {
    if let Some(login) = var("GITHUB_USER_LOGIN") {
        let mut out = vec![Principal::new(
            "the pusher",
            vec![login],
            "GITHUB_USER_LOGIN",
        )];
        if let Some(author) = var("GITHUB_PULL_REQUEST_AUTHOR_LOGIN") {
            out.push(Principal::new(
                "the merged pull request's author",
                vec![author],
                "GITHUB_PULL_REQUEST_AUTHOR_LOGIN",
            ));
        }
        return Some(dedup(out));
    }
    let gitlab: Vec<String> = [var("GL_USERNAME"), var("GL_ID")]
        .into_iter()
        .flatten()
        .collect();
    if !gitlab.is_empty() {
        return Some(vec![Principal::new(
            "the pusher",
            gitlab,
            "GL_USERNAME, GL_ID",
        )]);
    }
    if let Some(name) = var("GITEA_PUSHER_NAME") {
        return Some(vec![Principal::new(
            "the pusher",
            vec![name],
            "GITEA_PUSHER_NAME",
        )]);
    }
    var("REMOTE_USER").map(|user| vec![Principal::new("the pusher", vec![user], "REMOTE_USER")])
}

/// [`pushers`] from this process's environment (empty values are unset).
pub fn pushers_from_process() -> Option<Vec<Principal>> {
    pushers(&|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> Option<Vec<Principal>> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        pushers(&move |name| {
            vars.iter()
                .find(|(k, v)| k == name && !v.is_empty())
                .map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn each_server_names_its_pusher_and_only_its_own_variables_count() {
        let names = |p: Option<Vec<Principal>>| -> Vec<Vec<String>> {
            p.unwrap_or_default().into_iter().map(|p| p.names).collect()
        };
        assert_eq!(
            names(with(&[
                ("GITHUB_USER_LOGIN", "octocat"),
                ("REMOTE_USER", "mallory")
            ])),
            [["octocat"]]
        );
        assert_eq!(
            names(with(&[
                ("GITHUB_USER_LOGIN", "octocat"),
                ("GITHUB_PULL_REQUEST_AUTHOR_LOGIN", "hubot")
            ])),
            [["octocat"], ["hubot"]]
        );
        assert_eq!(
            names(with(&[("GL_USERNAME", "alice"), ("GL_ID", "user-42")])),
            [["alice", "user-42"]]
        );
        assert_eq!(names(with(&[("GL_ID", "key-7")])), [["key-7"]]);
        assert_eq!(names(with(&[("GITEA_PUSHER_NAME", "bob")])), [["bob"]]);
        assert_eq!(names(with(&[("REMOTE_USER", "carol")])), [["carol"]]);
        assert_eq!(with(&[]), None, "plain SSH names nobody");
        assert_eq!(with(&[("GITHUB_USER_LOGIN", "")]), None);
    }
}
