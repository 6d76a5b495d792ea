//! The configuration a landing is judged by: `.mastermind/hooks.yaml` as
//! the protected target has it now (absent: the strict defaults), tightened
//! only by the environment (`MASTERMIND_HOOKS_REQUIRE_TASK=true`). An
//! invalid target configuration never locks the repository: a change that
//! only repairs it passes (`config_repaired`), judged against the newest
//! valid configuration in the target's first-parent history: it may fix
//! it, never loosen it (`config_repair_loosened`; a deletion repairs only
//! where there was none).

use super::Landing;
use crate::codes::Code;
use crate::config::{CONFIG_PATH, Config, MAX_CONFIG_BYTES, UntaskedAction};
use crate::diagnostic::Diagnostic;
use crate::gate::change::Step;
use crate::repo::Repo;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{Content, View};
use gix::bstr::ByteSlice;

/// The variable the CI templates set for their `require-task` input.
pub const REQUIRE_TASK_VAR: &str = "MASTERMIND_HOOKS_REQUIRE_TASK";

/// Apply `MASTERMIND_HOOKS_REQUIRE_TASK` to a configuration. `true` demands
/// a task for every change outside `.mastermind/`, whatever the untasked
/// rules allow (only the configuration file still follows them); `false`
/// or unset leaves the configuration as it is, so the variable can only make the gate stricter, never relax what the
/// base's configuration asks for. Anything else is a usage error.
pub fn require_task_from_env(
    mut config: Config,
    value: Option<&std::ffi::OsStr>,
) -> Result<Config, Vec<Diagnostic>> {
    match value.map(|v| v.to_str()) {
        None => Ok(config),
        Some(Some("" | "false")) => Ok(config),
        Some(Some("true")) => {
            config.require_task = true;
            config.untasked.default = Some(UntaskedAction::Deny);
            config.untasked.forced = true;
            Ok(config)
        }
        Some(other) => Err(vec![Diagnostic::new(
            Code::usage_invalid,
            format!(
                "{REQUIRE_TASK_VAR} must be `true` or `false`, not `{}`",
                other.unwrap_or("(not UTF-8)")
            ),
        )]),
    }
}

/// Read the configuration from a view; absent means strict defaults. The
/// environment can only tighten it (`MASTERMIND_HOOKS_REQUIRE_TASK=true`).
pub fn config_from(repo: &Repo, view: &View) -> Result<Config, Vec<Diagnostic>> {
    let config = config_in(repo, Snapshot::View(view), &view.label)?;
    require_task_from_env(config, std::env::var_os(REQUIRE_TASK_VAR).as_deref())
}

fn config_in(repo: &Repo, at: Snapshot<'_>, label: &str) -> Result<Config, Vec<Diagnostic>> {
    let source = format!("{CONFIG_PATH} in {label}");
    match at.read(repo, CONFIG_PATH, MAX_CONFIG_BYTES) {
        Ok(None) => Ok(Config::strict_defaults()),
        Ok(Some(Content::Bytes(bytes))) => Config::parse(&bytes, &source),
        Ok(Some(Content::NotRegular(_))) => Err(vec![
            Diagnostic::new(
                Code::config_invalid,
                format!("{source} is not a regular file"),
            )
            .with_path(CONFIG_PATH),
        ]),
        Ok(Some(Content::TooLarge { size })) => Err(vec![
            Diagnostic::new(
                Code::config_invalid,
                format!("{source} is {size} bytes; the limit is {MAX_CONFIG_BYTES}"),
            )
            .with_path(CONFIG_PATH),
        ]),
        Err(e) => Err(vec![e.to_diagnostic()]),
    }
}

/// True when a change has steps and every one of them changes nothing but
/// the configuration file: such a change may repair an invalid one.
fn only_config(steps: &[Step]) -> bool {
    !steps.is_empty()
        && steps.iter().all(|s| {
            s.changes
                .iter()
                .all(|c| c.path.to_str().is_ok_and(|p| p == CONFIG_PATH))
        })
}

/// How far back the target's first-parent history is searched for its
/// newest valid configuration.
const MAX_REPAIR_WALK: usize = 10_000;

/// The newest valid configuration in the first-parent history of `start`
/// (`start` itself excluded): the configuration and whether a file held it
/// (`false`: there was none, the defaults). The strict defaults when none
/// is found.
fn newest_valid(repo: &Repo, start: gix::ObjectId) -> Result<(Config, bool), Vec<Diagnostic>> {
    let fail = |e: crate::repo::RepoError| vec![e.to_diagnostic()];
    let mut commit = repo
        .commit_meta(start)
        .map_err(fail)?
        .parents
        .first()
        .copied();
    let mut walked = 0;
    while let Some(id) = commit {
        if walked == MAX_REPAIR_WALK {
            break;
        }
        walked += 1;
        let meta = repo.commit_meta(id).map_err(fail)?;
        let at = Snapshot::Tree(meta.tree);
        let present = at.get(repo, CONFIG_PATH).map_err(fail)?.is_some();
        if let Ok(config) = config_in(repo, at, "history") {
            return Ok((config, present));
        }
        commit = meta.parents.first().copied();
    }
    Ok((Config::strict_defaults(), false))
}

/// The verdict on a change that only repairs the target's invalid
/// configuration, against the newest valid one before it.
fn judge_repair(repo: &Repo, landing: &Landing, repaired: &Config) -> Vec<Diagnostic> {
    let target = &landing.target;
    let Some(start) = target.commit else {
        return Vec::new();
    };
    let (valid, present) = match newest_valid(repo, start) {
        Ok(found) => found,
        Err(problems) => return problems,
    };
    let lands = landing.snapshot(landing.lands);
    let deleted = matches!(lands.get(repo, CONFIG_PATH), Ok(None));
    let mut lines = crate::gate::config_change::loosenings(&valid, repaired);
    if deleted && present {
        lines.insert(
            0,
            "the file is deleted, but the newest valid configuration before it was a file: a deletion repairs only where there was none".to_string(),
        );
    }
    if lines.is_empty() {
        return vec![
            Diagnostic::new(
                Code::config_repaired,
                format!(
                    "{CONFIG_PATH} in {} is invalid and this change only repairs it",
                    target.label
                ),
            )
            .with_path(CONFIG_PATH),
        ];
    }
    vec![
        Diagnostic::new(
            Code::config_repair_loosened,
            format!(
                "{CONFIG_PATH} in {} is invalid, and this repair judges more leniently than the newest valid configuration before it:\n  - {}",
                target.label,
                lines.join("\n  - ")
            ),
        )
        .with_path(CONFIG_PATH),
    ]
}

/// The configuration in force for a landing: its target's. `Err` carries
/// the findings when there is none to judge by: the target's configuration
/// is invalid (with the advice to repair it alone), the change is such a
/// repair (`config_repaired`, or `config_repair_loosened` when it loosens
/// the newest valid configuration; nothing else is judged), or the
/// environment's tightening is malformed.
pub fn in_force(repo: &Repo, landing: &Landing) -> Result<Config, Vec<Diagnostic>> {
    let target = &landing.target;
    let problems = match config_in(repo, target.snapshot(), &target.label) {
        Ok(config) => {
            return require_task_from_env(config, std::env::var_os(REQUIRE_TASK_VAR).as_deref());
        }
        Err(problems) => problems,
    };
    if only_config(&landing.steps)
        && let Ok(repaired) = config_in(repo, landing.snapshot(landing.lands), "the change")
    {
        return Err(judge_repair(repo, landing, &repaired));
    }
    Err(problems
        .into_iter()
        .map(|d| {
            d.with_hint(format!(
                "fix the configuration in a change that touches only {CONFIG_PATH} (any mode lets such a repair land), then retry"
            ))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn require_task_from_the_environment_only_tightens() {
        let strict = |v: Option<&str>| {
            require_task_from_env(Config::strict_defaults(), v.map(OsStr::new))
                .map(|c| c.require_task)
        };
        assert!(!strict(None).unwrap());
        assert!(!strict(Some("")).unwrap());
        assert!(!strict(Some("false")).unwrap());
        assert!(strict(Some("true")).unwrap());
        let errors = strict(Some("yes")).unwrap_err();
        assert_eq!(errors[0].code, Code::usage_invalid);
        let mut required = Config::strict_defaults();
        required.require_task = true;
        let kept = require_task_from_env(required, Some(OsStr::new("false"))).unwrap();
        assert!(kept.require_task, "false never relaxes the configuration");
    }

    fn step(paths: &[&str]) -> Step {
        Step::modifying("the index", paths)
    }

    #[test]
    fn only_a_change_of_the_configuration_alone_can_repair_it() {
        assert!(only_config(&[step(&[CONFIG_PATH])]));
        assert!(only_config(&[step(&[CONFIG_PATH]), step(&[CONFIG_PATH])]));
        assert!(!only_config(&[]), "no change repairs nothing");
        assert!(!only_config(&[step(&[CONFIG_PATH, "src/lib.rs"])]));
        assert!(!only_config(&[step(&[CONFIG_PATH]), step(&["src/lib.rs"])]));
    }
}
