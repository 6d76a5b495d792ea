//! Who runs a CI gate and where the change goes, from the platform's
//! predefined variables and event data, never from the commits:
//!
//! * GitHub Actions (GitHub docs, "Variables reference", default
//!   environment variables; the webhook payloads): `GITHUB_ACTOR` (the
//!   person or app that initiated the workflow), `GITHUB_TRIGGERING_ACTOR`
//!   (who initiated this run; differs on a re-run), and the event's
//!   `pull_request.user.login` (the pull request's author). A workflow
//!   cannot overwrite the default `GITHUB_*` variables. The target branch
//!   is the pull request's base (`pull_request.base.ref`, `GITHUB_BASE_REF`)
//!   or the merge queue's (`merge_group.base_ref`), else the branch pushed;
//!   the source branch is the pull request's head (`pull_request.head.ref`,
//!   `GITHUB_HEAD_REF`).
//! * GitLab CI (GitLab docs, "Predefined CI/CD variables reference"):
//!   `GITLAB_USER_LOGIN`, the user who started the pipeline (or a manual
//!   job). GitLab predefines no variable for a merge request's author, so
//!   on GitLab the actor is whoever started the pipeline. The target branch
//!   is `CI_MERGE_REQUEST_TARGET_BRANCH_NAME`, else `CI_COMMIT_BRANCH`; the
//!   source is `CI_MERGE_REQUEST_SOURCE_BRANCH_NAME`. GitLab lets users
//!   with the role its "minimum role to use pipeline variables" setting
//!   names override predefined variables when they run a pipeline: keep
//!   that setting at "no one" or maintainers (docs/src/configuration.md).
//!
//! Outside either platform (`check --ci --base … --head …` by hand) no
//! actor is known, and rules that need `actors` do not apply.

use super::facts::{Facts, Principal, dedup};
use crate::gate::landing::destination::Destination;
use gix::ObjectId;
use serde_json::Value;

/// Every variable read here (for the snapshot of the process environment).
pub const VARS: &[&str] = &[
    "GITHUB_ACTOR",
    "GITHUB_TRIGGERING_ACTOR",
    "GITHUB_HEAD_REF",
    "GITHUB_REF_NAME",
    "GITLAB_USER_LOGIN",
    "CI_MERGE_REQUEST_TARGET_BRANCH_NAME",
    "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
];

/// The variables and event payload of a CI run, as the CI landing read
/// them: `var` returns a non-empty value or `None`.
pub struct CiData<'a> {
    pub var: &'a dyn Fn(&str) -> Option<String>,
    pub event: Option<&'a Value>,
}

impl CiData<'_> {
    fn text(&self, pointer: &str) -> Option<String> {
        self.event
            .and_then(|e| e.pointer(pointer))
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    }

    fn github(&self) -> bool {
        (self.var)("GITHUB_ACTIONS").is_some()
    }

    fn gitlab(&self) -> bool {
        !self.github() && (self.var)("GITLAB_CI").is_some()
    }
}

fn branch_name(reference: String) -> String {
    reference
        .strip_prefix("refs/heads/")
        .map(str::to_string)
        .unwrap_or(reference)
}

/// The run's actors; `None` outside GitHub Actions and GitLab CI, or where
/// the platform names nobody.
pub fn actors(data: &CiData<'_>) -> Option<Vec<Principal>> {
    let var = data.var;
    let mut out = Vec::new();
    if data.github() {
        if let Some(actor) = var("GITHUB_ACTOR") {
            out.push(Principal::new("the actor", vec![actor], "GITHUB_ACTOR"));
        }
        if let Some(actor) = var("GITHUB_TRIGGERING_ACTOR") {
            out.push(Principal::new(
                "the triggering actor",
                vec![actor],
                "GITHUB_TRIGGERING_ACTOR",
            ));
        }
        if let Some(author) = data.text("/pull_request/user/login") {
            out.push(Principal::new(
                "the pull request's author",
                vec![author],
                "pull_request.user.login",
            ));
        }
    } else if data.gitlab()
        && let Some(user) = var("GITLAB_USER_LOGIN")
    {
        out.push(Principal::new(
            "who started the pipeline",
            vec![user],
            "GITLAB_USER_LOGIN",
        ));
    }
    let out = dedup(out);
    (!out.is_empty()).then_some(out)
}

/// A change request (pull request, merge queue, merge request): its target
/// branch and source branch (the source is `None` for a merge queue).
fn change_request(data: &CiData<'_>) -> Option<(String, Option<String>)> {
    let var = data.var;
    if data.github() {
        let target = data
            .text("/pull_request/base/ref")
            .or_else(|| data.text("/merge_group/base_ref"))
            .or_else(|| var("GITHUB_BASE_REF"))?;
        let source = data
            .text("/pull_request/head/ref")
            .or_else(|| var("GITHUB_HEAD_REF"));
        return Some((branch_name(target), source));
    }
    if data.gitlab() {
        let target = var("CI_MERGE_REQUEST_TARGET_BRANCH_NAME")?;
        return Some((target, var("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME")));
    }
    None
}

/// The branch a push pipeline builds (not a change request).
fn pushed_branch(data: &CiData<'_>) -> Option<String> {
    let var = data.var;
    if data.github() {
        let reference = data.text("/ref").or_else(|| var("GITHUB_REF"))?;
        return reference.strip_prefix("refs/heads/").map(str::to_string);
    }
    if data.gitlab() {
        return var("CI_COMMIT_BRANCH");
    }
    None
}

/// The repository's default branch, as the platform names it.
fn default_branch(data: &CiData<'_>) -> Option<String> {
    if data.github() {
        return data.text("/repository/default_branch");
    }
    if data.gitlab() {
        return (data.var)("CI_DEFAULT_BRANCH");
    }
    None
}

/// The target branch (`branches`) and the source branch
/// (`source_branches`) of the run; `None` where the platform does not say.
pub fn branches(data: &CiData<'_>) -> (Option<String>, Option<String>) {
    match change_request(data) {
        Some((target, source)) => (Some(target), source),
        None => {
            let pushed = pushed_branch(data);
            (pushed.clone(), pushed)
        }
    }
}

/// Where the run lands: a change request (pull request, merge queue,
/// merge request) on its target branch, a push pipeline on the branch it
/// builds, each beside the repository's default branch as the platform
/// names it. `None` where the platform names no branch (a tag, a run by
/// hand): judged strictly.
pub fn destination(data: &CiData<'_>) -> Option<Destination> {
    let default = default_branch(data);
    if let Some((target, _)) = change_request(data) {
        return Some(Destination {
            subject: format!("the target branch {target} of this change request"),
            branch: target,
            default_branch: default,
        });
    }
    let pushed = pushed_branch(data)?;
    Some(Destination {
        subject: format!("the branch {pushed} this CI push pipeline builds"),
        branch: pushed,
        default_branch: default,
    })
}

/// The CI facts: actors, the source branch, and the protected branch's
/// commit planning is judged against: the change request's target (`base`,
/// which the event gave), or for a push the default branch (`base` when the
/// push is to it, else `origin/<default>` through `resolve`). Outside the
/// platforms, `base` (given by hand) is the protected side.
pub fn facts(
    data: &CiData<'_>,
    base: ObjectId,
    resolve: &dyn Fn(&str) -> Option<ObjectId>,
) -> Facts {
    let (target, source) = branches(data);
    let protected = if !(data.github() || data.gitlab()) || change_request(data).is_some() {
        Some(base)
    } else {
        match default_branch(data) {
            Some(default) if target.as_deref() == Some(default.as_str()) => Some(base),
            Some(default) => resolve(&format!("refs/remotes/origin/{default}")),
            None => None,
        }
    };
    Facts {
        pushers: None,
        actors: actors(data),
        source_branch: source,
        protected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run<T>(vars: &[(&str, &str)], event: Option<Value>, f: impl Fn(&CiData<'_>) -> T) -> T {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let var = move |name: &str| {
            vars.iter()
                .find(|(k, v)| k == name && !v.is_empty())
                .map(|(_, v)| v.clone())
        };
        let data = CiData {
            var: &var,
            event: event.as_ref(),
        };
        f(&data)
    }

    fn names(actors: Option<Vec<Principal>>) -> Vec<String> {
        actors
            .unwrap_or_default()
            .into_iter()
            .flat_map(|p| p.names)
            .collect()
    }

    #[test]
    fn github_names_the_actors_and_the_pull_request_author() {
        let event = json!({"pull_request": {"user": {"login": "agent-bot"},
            "base": {"ref": "main"}, "head": {"ref": "hotfix/x"}}});
        let vars = [
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_ACTOR", "agent-bot"),
            ("GITHUB_TRIGGERING_ACTOR", "alice"),
        ];
        assert_eq!(
            run(&vars, Some(event.clone()), |d| names(actors(d))),
            ["agent-bot", "alice"],
            "the same login counts once"
        );
        assert_eq!(
            run(&vars, Some(event), branches),
            (Some("main".into()), Some("hotfix/x".into())),
            "branches is the target, source_branches the head"
        );
        let push = json!({"ref": "refs/heads/main", "repository": {"default_branch": "main"}});
        assert_eq!(
            run(&vars, Some(push), branches),
            (Some("main".into()), Some("main".into()))
        );
    }

    #[test]
    fn gitlab_names_who_started_the_pipeline() {
        let vars = [
            ("GITLAB_CI", "true"),
            ("GITLAB_USER_LOGIN", "alice"),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main"),
            ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "feature"),
        ];
        assert_eq!(run(&vars, None, |d| names(actors(d))), ["alice"]);
        assert_eq!(
            run(&vars, None, branches),
            (Some("main".into()), Some("feature".into()))
        );
    }

    #[test]
    fn a_run_lands_on_its_change_requests_target_or_the_branch_it_builds() {
        let github = [("GITHUB_ACTIONS", "true")];
        let lands = |vars: &[(&str, &str)], event: Option<Value>| {
            run(vars, event, |d| {
                destination(d).map(|d| (d.branch, d.default_branch))
            })
        };
        let some =
            |branch: &str, default: &str| Some((branch.to_string(), Some(default.to_string())));
        assert_eq!(
            lands(
                &github,
                Some(
                    json!({"pull_request": {"base": {"ref": "release/1.x"}, "head": {"ref": "feature"}},
                    "repository": {"default_branch": "develop"}})
                )
            ),
            some("release/1.x", "develop"),
            "a pull request by its target"
        );
        assert_eq!(
            lands(
                &github,
                Some(json!({"merge_group": {"base_ref": "refs/heads/main"},
                    "repository": {"default_branch": "main"}}))
            ),
            some("main", "main"),
            "a merge queue by its target"
        );
        assert_eq!(
            lands(
                &github,
                Some(
                    json!({"ref": "refs/heads/feature", "repository": {"default_branch": "main"}})
                )
            ),
            some("feature", "main"),
            "a push by its branch"
        );
        assert_eq!(
            lands(&github, Some(json!({"ref": "refs/tags/v1"}))),
            None,
            "a tag: strict"
        );
        let gitlab = [
            ("GITLAB_CI", "true"),
            ("CI_DEFAULT_BRANCH", "main"),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "stable-2"),
            ("CI_COMMIT_BRANCH", "feature"),
        ];
        assert_eq!(lands(&gitlab, None), some("stable-2", "main"));
        assert_eq!(lands(&gitlab[..2], None), None, "no branch named: strict");
        assert_eq!(lands(&[], None), None, "by hand: strict");
    }

    #[test]
    fn the_protected_branch_is_the_target_or_the_default_branch() {
        let base = ObjectId::from_hex(&[b'1'; 40]).unwrap();
        let default = ObjectId::from_hex(&[b'2'; 40]).unwrap();
        let resolve = |rev: &str| (rev == "refs/remotes/origin/main").then_some(default);
        let push = |branch: &str| json!({"ref": format!("refs/heads/{branch}"), "repository": {"default_branch": "main"}});
        let github = [("GITHUB_ACTIONS", "true")];
        assert_eq!(
            run(&github, Some(push("main")), |d| facts(d, base, &resolve)
                .protected),
            Some(base)
        );
        assert_eq!(
            run(&github, Some(push("feature")), |d| facts(d, base, &resolve)
                .protected),
            Some(default),
            "a push to a feature branch is judged against the default branch"
        );
        assert_eq!(
            run(&[], None, |d| facts(d, base, &resolve)),
            Facts {
                protected: Some(base),
                ..Facts::default()
            },
            "by hand: the base given, and nobody is known"
        );
    }
}
