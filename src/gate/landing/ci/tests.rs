//! `check --ci`'s base and head from each platform's event data, against
//! a table of commits.

use super::event::{CiEnv, Commits};
use super::revisions;
use crate::codes::Code;
use gix::ObjectId;
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
    env.event = Some(Err(super::event::EventError::Payload {
        path: "event.json".into(),
        reason: "gone".into(),
    }));
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
    // Detached: the target's tip, from GitLab's variable when it gives
    // one, else the target branch (fetched), never the merge base.
    assert_eq!(
        run(&gitlab(&mr("detached")), None, None),
        Ok((b.clone(), d.clone()))
    );
    let detached: Vec<(&str, &str)> = mr("detached")
        .into_iter()
        .filter(|(k, _)| *k != "CI_MERGE_REQUEST_TARGET_BRANCH_SHA")
        .chain([("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main")])
        .collect();
    assert_eq!(
        run(&gitlab(&detached), None, None),
        Ok(("origin/main".into(), d.clone()))
    );
    assert_eq!(
        super::gitlab::target_to_fetch(&gitlab(&detached)),
        Some("main")
    );
    assert_eq!(
        super::gitlab::target_to_fetch(&gitlab(&mr("detached"))),
        None
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
