//! `check --ci`: the merge of head into base lands on the base. Base and
//! head come from the CI platform's event data first ([`event`]: GitHub's
//! `GITHUB_EVENT_PATH` payload, [`github`]; GitLab's predefined variables,
//! [`gitlab`]), for every event either platform runs a gate on, and this
//! module says what it refuses: in CI, a `--base`/`--head` the change could
//! set (the templates' `MASTERMIND_HOOKS_BASE`/`HEAD`) must agree with the
//! event, and no base may be the head or a descendant of it where the event
//! promises a change. Tasks are compared from the merge base (or their
//! baseline) to head; the configuration is the base's. With `--rerun`, the
//! observed checks run again on the merge.

pub mod event;
pub mod github;
pub mod gitlab;
#[cfg(test)]
mod tests;

use super::judge::{Collected, judge};
use super::{At, Landing, Target, ViewKind, steps};
use crate::codes::Code;
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::gate::identity;
use crate::repo::tree::{View, short};
use crate::repo::{Repo, RepoError};
use event::{CiEnv, Commits, Detected, Platform};
use gix::ObjectId;

/// `check --ci --rerun [--rerun-timeout SECONDS] [--rerun-jobs N]
/// [--rerun-in WHERE] [--attestation FILE]`.
pub use crate::runner::rerun::Options as Rerun;

/// The platform's base and head, `None` outside CI.
pub fn detect(env: &CiEnv, git: &dyn Commits) -> Result<Option<Detected>, Diagnostic> {
    match env.platform() {
        Some(Platform::Github) => github::detect(env, git).map(Some),
        Some(Platform::Gitlab) => Ok(Some(gitlab::detect(env, git))),
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
        (None, Err(why)) if git.is_shallow() => {
            return Err(Diagnostic::new(
                Code::git_shallow_history,
                format!(
                    "check --ci cannot tell the base of this {event}: {why}; this is a shallow clone: fetch the full history (actions/checkout `fetch-depth: 0`, GitLab `GIT_DEPTH: 0`, or `git fetch --unshallow`)"
                ),
            ));
        }
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

fn resolve_for_ci(repo: &Repo, rev: &str, role: &str) -> Result<ObjectId, RepoError> {
    repo.resolve_commit(rev).map_err(|e| {
        if repo.is_shallow() {
            RepoError::new(
                Code::git_shallow_history,
                format!(
                    "the {role} `{rev}` is not in this shallow clone; fetch the full history (actions/checkout `fetch-depth: 0`, GitLab `GIT_DEPTH: 0`, or `git fetch --unshallow`)"
                ),
            )
        } else {
            RepoError::new(
                e.code,
                format!("{}; fetch the {role} branch (for example `git fetch origin`)", e.message),
            )
        }
    })
}

/// The merge of `head` into `base` (the target branch's tip) as a landing:
/// git's own merge, judged under the target's configuration.
pub fn landing(repo: &Repo, base: ObjectId, head: ObjectId) -> Result<Landing, RepoError> {
    let (merged, _) = View::merge_tree(repo, base, head)?;
    let steps = steps::commits(repo, &[head], &[base])?;
    // Policy from the protected side: the base branch's tip.
    let label = format!("the base {}", short(base));
    let target = Target::at(repo, Some(base), label.clone())?;
    let tip = At::Tree(repo.commit_tree(head)?);
    Ok(Landing {
        kind: ViewKind::Ci,
        target,
        base: Some(base),
        base_label: label,
        steps,
        heads: vec![base, head],
        unrelated_to: None,
        pending: None,
        lands: At::Tree(merged),
        lands_label: format!("the merge of {} into {}", short(head), short(base)),
        tip,
        tip_label: format!("the head {}", short(head)),
        // The target branch and the identity facts come from the event
        // data (`fill_identity`).
        branch: None,
        label: None,
        identity: Default::default(),
        destination: None,
        landed_locally: None,
    })
}

/// The target branch and what the platform vouches for (the actors), from
/// the event data (`crate::gate::identity::ci`).
fn fill_identity(landing: &mut Landing, env: &CiEnv, repo: &Repo, base: ObjectId) {
    let var = |name: &str| env.var(name).map(str::to_string);
    let event = match &env.event {
        Some(Ok(value)) => Some(value),
        _ => None,
    };
    let data = identity::ci::CiData { var: &var, event };
    landing.branch = identity::ci::branches(&data).0;
    landing.destination = identity::ci::destination(&data);
    landing.identity = identity::ci::facts(&data, base, &|rev| repo.resolve_commit(rev).ok());
}

/// Judge the change CI builds: base and head from the flags and the event
/// data, checked against `repo`.
pub fn check(
    repo: &Repo,
    base: Option<&str>,
    head: Option<&str>,
    rerun: Option<&Rerun>,
    out: &mut Collected,
) -> Result<(), RepoError> {
    let env = CiEnv::from_process();
    // A detached merge request pipeline lands on the target branch as it
    // is now: its clone may lack it.
    if base.is_none()
        && let Some(branch) = gitlab::target_to_fetch(&env)
    {
        crate::repo::remote::fetch_branch(repo, "origin", branch)?;
    }
    let (base_rev, head_rev) = match revisions(&env, repo, base, head) {
        Ok(revs) => revs,
        Err(d) => {
            out.note(d);
            return Ok(());
        }
    };
    let base = resolve_for_ci(repo, &base_rev, "base")?;
    let head = resolve_for_ci(repo, &head_rev, "head")?;
    let mut landing = landing(repo, base, head)?;
    fill_identity(&mut landing, &env, repo, base);
    let Some(config) = judge(repo, &landing, out) else {
        return Ok(());
    };
    if let (Some(rerun), At::Tree(merged)) = (rerun, landing.lands) {
        let lands = crate::runner::rerun::Landing {
            tree: merged,
            head,
            label: landing.lands_label.clone(),
        };
        rerun_after_gate(repo, &lands, &config, rerun, out);
    }
    Ok(())
}

/// `--rerun`, after the gate has run: re-execute every observed check of
/// every task the gate judged, as it judged it (`crate::runner::rerun` does
/// the work, where the project runs), add each task's findings as its
/// `rerun` check, and write the statement `--attestation` asks for with the
/// run's verdict.
fn rerun_after_gate(
    repo: &Repo,
    lands: &crate::runner::rerun::Landing,
    config: &Config,
    rerun: &Rerun,
    out: &mut Collected,
) {
    let judged: Vec<(String, crate::report::Judged)> = out
        .tasks
        .iter()
        .filter_map(|t| Some((t.task.clone(), t.judged.clone()?)))
        .collect();
    let tasks: Vec<crate::runner::rerun::Task<'_>> = judged
        .iter()
        .map(|(dir, judged)| crate::runner::rerun::Task { dir, judged })
        .collect();
    let done = crate::runner::rerun::after_gate(repo, lands, &tasks, config, rerun);
    for (task, diagnostics) in done.per_task {
        let Some(result) = out.tasks.iter_mut().find(|t| t.task == task) else {
            continue;
        };
        let diagnostics = diagnostics.into_iter().map(|d| config.apply(d)).collect();
        result
            .checks
            .push(crate::report::CheckOutcome::new("rerun", diagnostics));
        result.ok = result.checks.iter().all(|c| c.ok);
        // A check that passed again on exactly what lands answers its
        // receipt's staleness.
        let passed = done.record.passed(&task);
        if let Some(judged) = result.judged.clone() {
            crate::gate::receipts::cleared::clear(result, &judged.spec, &passed);
        }
    }
    for note in done.notes {
        out.note(config.apply(note));
    }
    if let Some(path) = &rerun.attestation {
        let verdict = crate::diagnostic::ExitStatus::of(
            out.files
                .iter()
                .flat_map(|f| f.diagnostics.iter())
                .chain(
                    out.tasks
                        .iter()
                        .flat_map(|t| t.checks.iter().flat_map(|c| c.diagnostics.iter())),
                )
                .chain(out.diagnostics.iter()),
        );
        if let Err(d) = crate::runner::attestation::write(path, &done.record, verdict) {
            out.note(d);
        }
    }
}
