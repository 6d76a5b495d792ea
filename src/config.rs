//! `.mastermind/hooks.yaml`: the gate's configuration. Optional; by
//! default CI and pre-receive refuse what belongs to no task unless a rule
//! allows it, and the local hooks warn. Parsed with the strict YAML layer and validated
//! against `schemas/hooks-config-v1.schema.json`; unknown keys, unknown codes
//! and invalid values are errors that stop the gate (exit 2).

use crate::codes::{Code, Outcome};
use crate::contract::yaml;
use crate::diagnostic::{Diagnostic, Severity};
use crate::schema::{self, SchemaId};
use globset::{GlobSet, GlobSetBuilder};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Where the configuration lives in every view.
pub const CONFIG_PATH: &str = ".mastermind/hooks.yaml";
pub const MAX_CONFIG_BYTES: usize = 256 * 1024;

/// Which content a receipt must match to be current.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Freshness {
    /// By scope: the tree of the step that committed the receipt (the
    /// staged tree in pre-commit) equals what lands on every path of the
    /// task's territory (declared scope and changed paths), except where
    /// what lands is the protected target's own content.
    #[default]
    Scope,
    /// What lands, whole: the merge of head into base in CI, the tip
    /// elsewhere.
    Merge,
    /// The tip of the change, whole (the head commit in CI, the pushed
    /// commit).
    Head,
}

/// `receipts.freshness` as written: `task` is the name `scope` had before
/// it covered every later step, and is read as `scope`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum FreshnessFile {
    #[default]
    Scope,
    Task,
    Merge,
    Head,
}

/// What a policy does with a change: the untasked policy with a change no
/// task covers, the planning policy with a planning change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UntaskedAction {
    /// Pass; listed as a note where a range also carries a task.
    #[default]
    Allow,
    /// Pass with a warning.
    Warn,
    /// Refuse (`task_required`).
    Deny,
}

/// Built-in recognisers for commits made by coding agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentName {
    ClaudeCode,
    Codex,
    Copilot,
    Cursor,
    Devin,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct UntaskedRuleFile {
    action: UntaskedAction,
    #[serde(default)]
    agents: Vec<AgentName>,
    #[serde(default)]
    authors: Vec<String>,
    #[serde(default)]
    committers: Vec<String>,
    #[serde(default)]
    trailers: Vec<String>,
    #[serde(default)]
    branches: Vec<String>,
    #[serde(default)]
    source_branches: Vec<String>,
    #[serde(default)]
    pushers: Vec<String>,
    #[serde(default)]
    actors: Vec<String>,
    #[serde(default)]
    signers: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    #[serde(default)]
    default: Option<UntaskedAction>,
    #[serde(default)]
    rules: Vec<UntaskedRuleFile>,
}

/// `planning.new_tasks`: whether a new task's plan is a planner's to make.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewTasks {
    /// A new task's spec (alone or with its work) is planning, graded by
    /// the planning policy like a wider spec: the worker does not decide
    /// what it may do.
    #[default]
    Planner,
    /// A new task is judged by the spec it brings (`task_created` is a
    /// note); copied or renamed task folders, wider specs, reopened tasks
    /// and control files are still planning.
    Anyone,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanningFile {
    #[serde(default)]
    default: Option<UntaskedAction>,
    #[serde(default)]
    rules: Vec<UntaskedRuleFile>,
    #[serde(default)]
    new_tasks: NewTasks,
    #[serde(default)]
    control_files: Option<Vec<String>>,
}

/// The control files when `planning.control_files` is unset: CI
/// definitions (GitHub workflows and local or vendored actions, GitLab's
/// pipeline file and what it conventionally includes), CODEOWNERS in every
/// place GitHub and GitLab read it, and server hook scripts a repository
/// keeps (GitLab's `custom_hooks/`, `pre-receive` scripts and directories).
/// The gate's configuration and the allowed-signers file it names are
/// control files whatever the list says.
pub const DEFAULT_CONTROL_FILES: &[&str] = &[
    ".github/workflows/**",
    ".github/actions/**",
    ".gitlab-ci.yml",
    ".gitlab/**/*.yml",
    ".gitlab/**/*.yaml",
    "CODEOWNERS",
    ".github/CODEOWNERS",
    ".gitlab/CODEOWNERS",
    "docs/CODEOWNERS",
    "custom_hooks/**",
    "**/pre-receive",
    "**/pre-receive.d/**",
];

/// The paths whose change is a planning act, never task work
/// (`planning.control_files`, DESIGN.md section 5, "Planning is an
/// authorized act"): the gate's configuration, the allowed-signers file
/// `identity.allowed_signers` names, and the list's globs.
#[derive(Clone, Debug, Default)]
pub struct ControlFiles {
    /// `planning.control_files`: `None` when unset ([`DEFAULT_CONTROL_FILES`]).
    listed: Option<Globs>,
    /// `identity.allowed_signers` (normalized).
    pub allowed_signers: Option<String>,
}

impl ControlFiles {
    /// True when a change of `path` is a planning act.
    pub fn covers(&self, path: &str) -> bool {
        path == CONFIG_PATH
            || self.allowed_signers.as_deref() == Some(path)
            || match &self.listed {
                Some(globs) => globs.is_match(path),
                None => is_default_control_file(path),
            }
    }

    /// The globs in force: `planning.control_files`, or the defaults.
    pub fn patterns(&self) -> Vec<&str> {
        match &self.listed {
            Some(globs) => globs.patterns().iter().map(String::as_str).collect(),
            None => DEFAULT_CONTROL_FILES.to_vec(),
        }
    }
}

/// Whether [`DEFAULT_CONTROL_FILES`] match `path`, as a [`GlobSet`] of them
/// answers (`**` crosses directories, `*` does not, case counts), without
/// building one: compiling their regular expressions was a tenth of a
/// staged check's instructions, paid by every hook run of a repository
/// that keeps the defaults (issue 53). Held to globset by a differential
/// test over generated paths (`default_control_files_match_as_globset`).
fn is_default_control_file(path: &str) -> bool {
    const EXACT: [&str; 5] = [
        ".gitlab-ci.yml",
        "CODEOWNERS",
        ".github/CODEOWNERS",
        ".gitlab/CODEOWNERS",
        "docs/CODEOWNERS",
    ];
    // `dir/**`: everything under `dir/`.
    const UNDER: [&str; 3] = [".github/workflows/", ".github/actions/", "custom_hooks/"];
    EXACT.contains(&path)
        || UNDER.iter().any(|dir| path.starts_with(dir))
        // `.gitlab/**/*.yml`, `.gitlab/**/*.yaml`: under `.gitlab/`, at any
        // depth, a name ending so (the suffix has no `/`, so it ends the name).
        || (path.starts_with(".gitlab/") && (path.ends_with(".yml") || path.ends_with(".yaml")))
        // `**/pre-receive`: that name in any directory.
        || path == "pre-receive"
        || path.ends_with("/pre-receive")
        // `**/pre-receive.d/**`: anything under such a directory, at any depth.
        || path.starts_with("pre-receive.d/")
        || path.contains("/pre-receive.d/")
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct IdentityFile {
    #[serde(default)]
    allowed_signers: Option<String>,
}

/// One rule of a policy (the untasked policy, the planning policy): every
/// condition given must hold (any entry of a list may match); `paths`
/// narrows the rule to those paths.
///
/// Two kinds of condition: what whoever makes the commit or names the
/// branch writes (`agents`, `authors`, `committers`, `trailers`,
/// `branches`, `source_branches`), cooperative marks an agent can forge;
/// and what the platform or a key vouches for (`pushers`, `actors`,
/// `signers`), which only hold in the modes that can know them.
#[derive(Clone, Debug)]
pub struct Rule {
    pub action: UntaskedAction,
    pub agents: Vec<AgentName>,
    /// Globs over `Name <email>`, case-insensitive.
    pub authors: Globs,
    pub committers: Globs,
    /// Globs over trailer lines (`Co-authored-by: Name <email>`).
    pub trailers: Globs,
    /// Globs over the target branch: the branch being committed to, pushed
    /// to or received, the pull request's target in CI (`main`).
    pub branches: Globs,
    /// Globs over the branch the change comes from, as its pusher named it
    /// (`copilot/*`): the pull request's source branch in CI.
    pub source_branches: Globs,
    /// Globs over the authenticated pusher the git server names
    /// (pre-receive).
    pub pushers: Globs,
    /// Globs over the CI run's actors (the triggering actor, the pull
    /// request's author).
    pub actors: Globs,
    /// Globs over the principal whose signature git verified on the commit.
    pub signers: Globs,
    pub paths: Globs,
}

impl Rule {
    /// The conditions the rule gives that only a vouched fact can satisfy.
    pub fn vouched_keys(&self) -> Vec<&'static str> {
        [
            ("pushers", &self.pushers),
            ("actors", &self.actors),
            ("signers", &self.signers),
        ]
        .into_iter()
        .filter(|(_, globs)| !globs.patterns().is_empty())
        .map(|(key, _)| key)
        .collect()
    }

    /// Same conditions and action (for listing what a configuration change
    /// alters).
    pub fn same_as(&self, other: &Rule) -> bool {
        self.action == other.action
            && self.agents == other.agents
            && [
                (&self.authors, &other.authors),
                (&self.committers, &other.committers),
                (&self.trailers, &other.trailers),
                (&self.branches, &other.branches),
                (&self.source_branches, &other.source_branches),
                (&self.pushers, &other.pushers),
                (&self.actors, &other.actors),
                (&self.signers, &other.signers),
                (&self.paths, &other.paths),
            ]
            .iter()
            .all(|(a, b)| a.patterns() == b.patterns())
    }
}

/// The rules of the untasked policy.
pub type UntaskedRule = Rule;

/// A policy: rules in order, first match wins, else the default.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// `None`: the mode decides ([`Policy::default_action`]).
    pub default: Option<UntaskedAction>,
    pub rules: Vec<Rule>,
    /// Rules and default no longer decide content paths: every one that
    /// belongs to no task is denied (`MASTERMIND_HOOKS_REQUIRE_TASK=true`).
    /// The configuration file itself still follows the rules, so that its
    /// maintainers can change it.
    pub forced: bool,
}

impl Policy {
    /// The action for what no rule matches. Unset, it is `deny` where the
    /// gate is a control (CI and pre-receive, `enforcing`) and `warn` in
    /// the local hooks, which run on the author's machine and can only
    /// advise.
    pub fn default_action(&self, enforcing: bool) -> UntaskedAction {
        self.default.unwrap_or(if enforcing {
            UntaskedAction::Deny
        } else {
            UntaskedAction::Warn
        })
    }

    /// True when a rule needs verified commit signatures.
    pub fn needs_signers(&self) -> bool {
        self.rules.iter().any(|r| !r.signers.patterns().is_empty())
    }
}

/// The untasked policy (changes no task covers).
pub type UntaskedPolicy = Policy;

/// How a spec that is already on the base may change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpecChanges {
    /// Only in a change that touches nothing outside `.mastermind/`.
    #[default]
    Planning,
    /// With the work too (losing checks or criteria is still an error).
    Any,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecsFile {
    #[serde(default)]
    changes: SpecChanges,
    #[serde(default)]
    require_on_base: bool,
}

/// `work_in_progress`: whether an unfinished task (or a change no task
/// covers) may be committed and pushed on a branch that is not protected
/// (its incomplete-work findings and `task_required` are warnings there;
/// DESIGN.md section 7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkInProgress {
    /// Warnings on such branches; what lands on the protected branch must
    /// be complete.
    #[default]
    Allow,
    /// Every mode refuses unfinished work.
    Deny,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct RefsFile {
    #[serde(default)]
    allow_unrelated_histories: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReceiptsFile {
    #[serde(default)]
    freshness: FreshnessFile,
    #[serde(default)]
    accept_unverifiable_v1: bool,
}

/// `error` or `warning`: how a contract knob grades its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    Error,
    Warning,
}

impl Grade {
    fn severity(self) -> Severity {
        match self {
            Grade::Error => Severity::Error,
            Grade::Warning => Severity::Warning,
        }
    }
}

/// What a subagent return whose dispatch description routes nowhere gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownDispatch {
    /// No finding at all (the reference guard's silent pass).
    Allow,
    /// A warning (`subagent_dispatch_unknown`).
    #[default]
    Warn,
    /// An error: the return cannot be checked (exit 2).
    Block,
}

/// `contracts:`: how the plastic and subagent-return contracts grade the
/// rules their authors left soft (docs/src/parity.md, order of authority).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contracts {
    /// A well-formed synthesized fallback report (`plastic_report_synthesized`):
    /// `warning` (default; plastic never blocks on it) or `error` (teams
    /// that require agent-authored reports).
    #[serde(default = "warning")]
    pub synthesized_reports: Grade,
    /// Rules only the plastic role prompts state (the Tier lines):
    /// `warning` (default) or `error`.
    #[serde(default = "warning")]
    pub role_prompt_rules: Grade,
    /// A return whose dispatch description matches no prefix of the routing
    /// table: `allow`, `warn` (default) or `block`.
    #[serde(default)]
    pub unknown_dispatch: UnknownDispatch,
}

fn warning() -> Grade {
    Grade::Warning
}

impl Default for Contracts {
    fn default() -> Self {
        Contracts {
            synthesized_reports: Grade::Warning,
            role_prompt_rules: Grade::Warning,
            unknown_dispatch: UnknownDispatch::Warn,
        }
    }
}

impl Contracts {
    /// The severity a knob gives `code`, when a knob governs it; `None`
    /// inside means "drop the finding" (`unknown_dispatch: allow`).
    fn severity_of(&self, code: Code) -> Option<Option<Severity>> {
        match code {
            Code::plastic_report_synthesized => Some(Some(self.synthesized_reports.severity())),
            Code::plastic_report_prompt_part_missing | Code::plastic_report_prompt_part_invalid => {
                Some(Some(self.role_prompt_rules.severity()))
            }
            Code::subagent_dispatch_unknown => Some(match self.unknown_dispatch {
                UnknownDispatch::Allow => None,
                UnknownDispatch::Warn => Some(Severity::Warning),
                UnknownDispatch::Block => Some(Severity::Error),
            }),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    #[allow(dead_code)]
    version: Option<u32>,
    #[serde(default)]
    require_task: bool,
    #[serde(default)]
    severity: BTreeMap<String, String>,
    #[serde(default)]
    receipts: ReceiptsFile,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    plastic_reports: Vec<String>,
    #[serde(default)]
    plastic_intents: Vec<String>,
    #[serde(default)]
    plastic_savepoints: Vec<String>,
    #[serde(default)]
    subagent_returns: Vec<String>,
    #[serde(default)]
    findings_ledgers: Option<Vec<String>>,
    #[serde(default)]
    untasked: Option<PolicyFile>,
    #[serde(default)]
    planning: Option<PlanningFile>,
    #[serde(default)]
    identity: IdentityFile,
    #[serde(default)]
    specs: SpecsFile,
    #[serde(default)]
    refs: RefsFile,
    #[serde(default)]
    protected_branches: Vec<String>,
    #[serde(default)]
    work_in_progress: WorkInProgress,
    #[serde(default)]
    agent_hooks: AgentHooksFile,
    #[serde(default)]
    contracts: Contracts,
    #[serde(default)]
    rerun: RerunFile,
}

/// A set of path globs (`**` crosses directories, `*` does not).
#[derive(Clone, Debug, Default)]
pub struct Globs {
    patterns: Vec<String>,
    set: GlobSet,
}

impl Globs {
    fn new(patterns: &[String], key: &str) -> Result<Globs, Diagnostic> {
        Globs::build(patterns, key, true, false)
    }

    /// Globs over text that is not a path (identities, trailers): `*`
    /// matches anything, case is ignored.
    fn text(patterns: &[String], key: &str) -> Result<Globs, Diagnostic> {
        Globs::build(patterns, key, false, true)
    }

    fn build(
        patterns: &[String],
        key: &str,
        paths: bool,
        case_insensitive: bool,
    ) -> Result<Globs, Diagnostic> {
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            let glob = globset::GlobBuilder::new(pattern)
                .literal_separator(paths)
                .case_insensitive(case_insensitive)
                .build()
                .map_err(|e| config_error(format!("{key}: invalid glob `{pattern}`: {e}"), None))?;
            builder.add(glob);
        }
        let set = builder
            .build()
            .map_err(|e| config_error(format!("{key}: {e}"), None))?;
        Ok(Globs {
            patterns: patterns.to_vec(),
            set,
        })
    }

    pub fn is_match(&self, path: &str) -> bool {
        !self.patterns.is_empty() && self.set.is_match(path)
    }

    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }
}

/// The effective configuration.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub require_task: bool,
    pub severity: BTreeMap<Code, Severity>,
    pub freshness: Freshness,
    pub accept_unverifiable_v1: bool,
    pub exclude: Globs,
    pub plastic_reports: Globs,
    pub plastic_intents: Globs,
    pub plastic_savepoints: Globs,
    pub subagent_returns: Globs,
    pub findings_ledgers: Globs,
    pub untasked: UntaskedPolicy,
    /// Who may plan: make a new task (`task_created`, with
    /// `new_tasks: planner`), copy or rename one (`task_copied`), widen a
    /// landed task's scope (`spec_widened`), reopen a complete one
    /// (`task_reopened`) and change a control file
    /// (`control_file_changed`).
    pub planning: Policy,
    /// `planning.new_tasks`.
    pub new_tasks: NewTasks,
    /// `planning.control_files`, with the configuration and the
    /// allowed-signers file.
    pub control_files: ControlFiles,
    /// `identity.allowed_signers`: the repository path of the allowed-signers
    /// file read from the protected branch (normalized).
    pub allowed_signers: Option<String>,
    pub spec_changes: SpecChanges,
    pub specs_on_base: bool,
    /// `refs.allow_unrelated_histories`: a pushed ref may share no history
    /// with the default branch.
    pub allow_unrelated_histories: bool,
    /// `protected_branches`: where work lands besides the default branch,
    /// globs over branch names as a rule's `branches` (`*` crosses `/`,
    /// case-insensitive): a landing on one is judged strictly, on any other
    /// branch it is work in progress (`crate::gate::landing::destination`).
    pub protected_branches: Globs,
    /// `work_in_progress`: unfinished tasks and untasked changes on branches
    /// that are not protected (`crate::gate::work_in_progress`).
    pub work_in_progress: WorkInProgress,
    /// `agent_hooks`: the agent-harness hooks (`agent-hook stop|subagent`).
    pub agent_hooks: AgentHooks,
    /// The contract knobs (`contracts:`).
    pub contracts: Contracts,
    /// `rerun:`: how a re-run's worktree is prepared.
    pub rerun: Rerun,
    /// Where the configuration came from, for messages.
    pub source: Option<String>,
    /// Findings about the file itself that do not stop the gate (a
    /// deprecated setting read as its replacement).
    pub notes: Vec<Diagnostic>,
}

fn config_error(message: String, line: Option<u32>) -> Diagnostic {
    Diagnostic::new(Code::config_invalid, message)
        .with_path(CONFIG_PATH)
        .with_line(line)
}

impl Config {
    /// The defaults (no configuration file).
    pub fn strict_defaults() -> Config {
        Config {
            findings_ledgers: Globs::new(
                &["**/adversarial-findings.md".to_string()],
                "findings_ledgers",
            )
            .unwrap_or_default(),
            ..Config::default()
        }
    }

    /// True when a change of `path` is a planning act
    /// ([`ControlFiles::covers`]).
    pub fn is_control_file(&self, path: &str) -> bool {
        self.control_files.covers(path)
    }

    /// Parse a configuration file's bytes. `source` names where it was read.
    pub fn parse(bytes: &[u8], source: &str) -> Result<Config, Vec<Diagnostic>> {
        if bytes.len() > MAX_CONFIG_BYTES {
            return Err(vec![config_error(
                format!("{source}: the configuration exceeds {MAX_CONFIG_BYTES} bytes"),
                None,
            )]);
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| vec![config_error(format!("{source}: not UTF-8"), None)])?;
        if text.trim().is_empty() {
            let mut config = Config::strict_defaults();
            config.source = Some(source.to_string());
            return Ok(config);
        }
        let (node, value) = yaml::parse_strict(text).map_err(|errors| {
            errors
                .iter()
                .map(|e| {
                    config_error(
                        format!("{source}: {} ({})", e.message, e.code.as_str()),
                        e.line,
                    )
                })
                .collect::<Vec<_>>()
        })?;
        let errors = schema::validate(SchemaId::HooksConfigV1, &value)
            .map_err(|e| vec![config_error(e.to_string(), None)])?;
        if !errors.is_empty() {
            return Err(errors
                .iter()
                .map(|e| {
                    let focus = e.focus_pointer();
                    config_error(
                        format!(
                            "{source}: {}: {}",
                            if focus.is_empty() { "/" } else { &focus },
                            e.message
                        ),
                        node.line_of_pointer(&focus),
                    )
                    .with_pointer(focus)
                })
                .collect());
        }
        let file: ConfigFile = serde_json::from_value(value)
            .map_err(|e| vec![config_error(format!("{source}: {e}"), None)])?;
        let mut problems = Vec::new();
        let mut severity = BTreeMap::new();
        for (name, level) in &file.severity {
            let pointer = format!("/severity/{name}");
            let line = node.line_of_pointer(&pointer);
            let Some(code) = Code::from_name(name) else {
                problems.push(config_error(
                    format!(
                        "{source}: severity: unknown reason code `{name}`{} (see `mastermind-hooks codes`)",
                        crate::suggest::did_you_mean(name, Code::ALL.iter().map(|c| c.as_str()))
                    ),
                    line,
                ));
                continue;
            };
            if code.outcome() == Outcome::CannotCheck {
                problems.push(config_error(
                    format!("{source}: severity: `{name}` means the check could not run and cannot be downgraded"),
                    line,
                ));
                continue;
            }
            let level = match level.as_str() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => Severity::Note,
            };
            severity.insert(code, level);
        }
        let untasked = untasked_policy(&file, &node, source, &mut problems);
        let planning = file
            .planning
            .as_ref()
            .map(|section| Policy {
                default: section.default,
                rules: rules_of(&section.rules, "planning", &mut problems),
                forced: false,
            })
            .unwrap_or_default();
        let new_tasks = file
            .planning
            .as_ref()
            .map(|section| section.new_tasks)
            .unwrap_or_default();
        let listed_control_files = file
            .planning
            .as_ref()
            .and_then(|section| section.control_files.as_ref())
            .map(|patterns| {
                Globs::new(patterns, "planning.control_files").unwrap_or_else(|d| {
                    problems.push(d);
                    Globs::default()
                })
            });
        let allowed_signers = match &file.identity.allowed_signers {
            None => None,
            Some(path) => {
                match crate::contract::mastermind::spec::declared_paths::normalize(path) {
                    Ok(path) => Some(path),
                    Err(_) => {
                        problems.push(config_error(
                        format!(
                            "{source}: identity.allowed_signers: `{path}` is not a repository-relative path (no leading `/`, no `..`)"
                        ),
                        node.line_of_pointer("/identity/allowed_signers"),
                    ));
                        None
                    }
                }
            }
        };
        let mut branches: Vec<String> = Vec::new();
        for pattern in &file.protected_branches {
            if !branches.contains(pattern) {
                branches.push(pattern.clone());
            }
        }
        let protected_branches = Globs::text(&branches, "protected_branches").unwrap_or_else(|d| {
            problems.push(d);
            Globs::default()
        });
        let mut globs = |patterns: &[String], key: &str| match Globs::new(patterns, key) {
            Ok(g) => g,
            Err(d) => {
                problems.push(d);
                Globs::default()
            }
        };
        let mut notes = Vec::new();
        let freshness = match file.receipts.freshness {
            FreshnessFile::Scope => Freshness::Scope,
            FreshnessFile::Merge => Freshness::Merge,
            FreshnessFile::Head => Freshness::Head,
            FreshnessFile::Task => {
                notes.push(
                    Diagnostic::new(
                        Code::config_deprecated,
                        format!(
                            "{source}: receipts.freshness `task` is read as `scope`: a receipt must match what lands on every path its task covers, whichever later step changed it"
                        ),
                    )
                    .with_path(CONFIG_PATH)
                    .with_line(node.line_of_pointer("/receipts/freshness"))
                    .with_pointer("/receipts/freshness")
                    .with_hint("write `freshness: scope` (or `merge` for the whole tree)"),
                );
                Freshness::Scope
            }
        };
        let control_files = ControlFiles {
            listed: listed_control_files,
            allowed_signers: allowed_signers.clone(),
        };
        let config = Config {
            untasked,
            planning,
            new_tasks,
            control_files,
            allowed_signers,
            spec_changes: file.specs.changes,
            specs_on_base: file.specs.require_on_base,
            allow_unrelated_histories: file.refs.allow_unrelated_histories,
            protected_branches,
            work_in_progress: file.work_in_progress,
            require_task: file.require_task,
            freshness,
            accept_unverifiable_v1: file.receipts.accept_unverifiable_v1,
            exclude: globs(&file.exclude, "exclude"),
            plastic_reports: globs(&file.plastic_reports, "plastic_reports"),
            plastic_intents: globs(&file.plastic_intents, "plastic_intents"),
            plastic_savepoints: globs(&file.plastic_savepoints, "plastic_savepoints"),
            subagent_returns: globs(&file.subagent_returns, "subagent_returns"),
            findings_ledgers: globs(
                file.findings_ledgers
                    .as_deref()
                    .unwrap_or(&["**/adversarial-findings.md".to_string()]),
                "findings_ledgers",
            ),
            severity,
            agent_hooks: AgentHooks::from_file(file.agent_hooks),
            contracts: file.contracts,
            rerun: Rerun::from_file(file.rerun),
            source: Some(source.to_string()),
            notes,
        };
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(problems)
        }
    }

    /// The globs of agent files (plastic reports, intents, savepoints,
    /// subagent returns, findings ledgers): inside a task folder such a file
    /// is bookkeeping (see `crate::bookkeeping`).
    pub fn agent_files(&self) -> [&Globs; 5] {
        [
            &self.plastic_reports,
            &self.plastic_intents,
            &self.plastic_savepoints,
            &self.subagent_returns,
            &self.findings_ledgers,
        ]
    }

    /// Apply the contract knobs, then the severity overrides, to a finding.
    /// A finding the knobs drop (`unknown_dispatch: allow`) becomes a note;
    /// [`Config::apply_all`] leaves it out instead.
    pub fn apply(&self, mut diagnostic: Diagnostic) -> Diagnostic {
        if let Some(graded) = self.contracts.severity_of(diagnostic.code) {
            diagnostic.severity = graded.unwrap_or(Severity::Note);
        }
        if let Some(severity) = self.severity.get(&diagnostic.code) {
            diagnostic.severity = *severity;
        }
        diagnostic
    }

    /// [`Config::apply`] to every finding, leaving out those the contract
    /// knobs drop.
    pub fn apply_all(&self, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diagnostics
            .into_iter()
            .filter(|d| self.contracts.severity_of(d.code) != Some(None))
            .map(|d| self.apply(d))
            .collect()
    }
}

/// The untasked policy of a configuration file (`require_task: true` is
/// shorthand for a default of deny in every mode).
fn untasked_policy(
    file: &ConfigFile,
    node: &yaml::YamlNode,
    source: &str,
    problems: &mut Vec<Diagnostic>,
) -> Policy {
    let implied = file.require_task.then_some(UntaskedAction::Deny);
    let Some(section) = &file.untasked else {
        return Policy {
            default: implied,
            rules: Vec::new(),
            forced: false,
        };
    };
    if file.require_task && section.default.is_some_and(|d| d != UntaskedAction::Deny) {
        problems.push(config_error(
            format!(
                "{source}: require_task: true means `untasked: {{default: deny}}`; remove one of the two"
            ),
            node.line_of_pointer("/require_task"),
        ));
    }
    Policy {
        default: section.default.or(implied),
        rules: rules_of(&section.rules, "untasked", problems),
        forced: false,
    }
}

/// The rules of a policy section (`untasked`, `planning`).
fn rules_of(
    rules: &[UntaskedRuleFile],
    section: &str,
    problems: &mut Vec<Diagnostic>,
) -> Vec<Rule> {
    let mut globs = |patterns: &[String], key: String, text: bool| {
        let built = if text {
            Globs::text(patterns, &key)
        } else {
            Globs::new(patterns, &key)
        };
        built.unwrap_or_else(|d| {
            problems.push(d);
            Globs::default()
        })
    };
    rules
        .iter()
        .enumerate()
        .map(|(index, rule)| {
            let key = |name: &str| format!("{section}.rules[{index}].{name}");
            Rule {
                action: rule.action,
                agents: rule.agents.clone(),
                authors: globs(&rule.authors, key("authors"), true),
                committers: globs(&rule.committers, key("committers"), true),
                trailers: globs(&rule.trailers, key("trailers"), true),
                branches: globs(&rule.branches, key("branches"), true),
                source_branches: globs(&rule.source_branches, key("source_branches"), true),
                pushers: globs(&rule.pushers, key("pushers"), true),
                actors: globs(&rule.actors, key("actors"), true),
                signers: globs(&rule.signers, key("signers"), true),
                paths: globs(&rule.paths, key("paths"), false),
            }
        })
        .collect()
}

/// What an agent hook does with a subagent return that breaks its contract
/// (or, for `unknown`, with a dispatch that routes nowhere).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubagentAction {
    /// Send the return back: the harness's block decision.
    #[default]
    Block,
    /// Let it through with a message the user and the orchestrator see.
    Warn,
    /// Let it through silently (only meaningful for `unknown`).
    Allow,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct SubagentHooksFile {
    #[serde(default)]
    default: Option<SubagentAction>,
    #[serde(default)]
    unknown: Option<SubagentAction>,
    #[serde(default)]
    prefixes: BTreeMap<String, SubagentAction>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentHooksFile {
    #[serde(default)]
    max_consecutive_blocks: Option<u32>,
    #[serde(default)]
    subagent: SubagentHooksFile,
}

/// The `agent_hooks` section: loop guard and subagent policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentHooks {
    /// Consecutive blocked stops per session before the stop goes through.
    pub max_consecutive_blocks: u32,
    /// The action for a routed dispatch without a more specific prefix.
    pub subagent_default: SubagentAction,
    /// The action for a dispatch description that routes nowhere.
    pub subagent_unknown: SubagentAction,
    /// Per-prefix actions; the longest matching prefix wins.
    pub subagent_prefixes: BTreeMap<String, SubagentAction>,
    /// `agent_hooks.subagent` sets something other than the defaults: the
    /// team asked for subagent contracts, so a return that cannot be
    /// judged is said.
    pub subagent_configured: bool,
}

/// Blocked stops in a row before the loop guard lets the agent stop.
pub const DEFAULT_MAX_CONSECUTIVE_BLOCKS: u32 = 3;

impl Default for AgentHooks {
    fn default() -> Self {
        AgentHooks {
            max_consecutive_blocks: DEFAULT_MAX_CONSECUTIVE_BLOCKS,
            subagent_default: SubagentAction::Block,
            subagent_unknown: SubagentAction::Allow,
            subagent_prefixes: BTreeMap::new(),
            subagent_configured: false,
        }
    }
}

impl AgentHooks {
    fn from_file(file: AgentHooksFile) -> AgentHooks {
        let defaults = AgentHooks::default();
        AgentHooks {
            // Restating the defaults (as `init`'s template does) configures
            // nothing.
            subagent_configured: !file.subagent.prefixes.is_empty()
                || file
                    .subagent
                    .default
                    .is_some_and(|d| d != defaults.subagent_default)
                || file
                    .subagent
                    .unknown
                    .is_some_and(|u| u != defaults.subagent_unknown),
            max_consecutive_blocks: file
                .max_consecutive_blocks
                .unwrap_or(defaults.max_consecutive_blocks),
            subagent_default: file.subagent.default.unwrap_or(defaults.subagent_default),
            subagent_unknown: file.subagent.unknown.unwrap_or(defaults.subagent_unknown),
            subagent_prefixes: file.subagent.prefixes,
        }
    }

    /// The action for a routed dispatch `description`.
    pub fn subagent_action(&self, description: &str) -> SubagentAction {
        let text = description.trim();
        self.subagent_prefixes
            .iter()
            .filter(|(prefix, _)| text.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map_or(self.subagent_default, |(_, action)| *action)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct RerunFile {
    #[serde(default)]
    setup: Vec<Vec<String>>,
    #[serde(default)]
    setup_timeout_secs: Option<u64>,
}

/// The `rerun` section: what prepares a re-run's worktree of the landing
/// (`check --ci --rerun` outside a workspace that already holds it, and
/// `verification run --isolated`). Read from the protected configuration
/// like every other key, so a change never chooses what runs before its own
/// checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rerun {
    /// Commands run in order in the worktree before any check, each an
    /// argv list (`[[npm, ci]]`): no shell unless argv names one.
    pub setup: Vec<Vec<String>>,
    /// How long each setup command may take.
    pub setup_timeout_secs: u64,
}

/// How long a setup command may take unless configured.
pub const DEFAULT_SETUP_TIMEOUT_SECS: u64 = 900;

impl Default for Rerun {
    fn default() -> Self {
        Rerun {
            setup: Vec::new(),
            setup_timeout_secs: DEFAULT_SETUP_TIMEOUT_SECS,
        }
    }
}

impl Rerun {
    fn from_file(file: RerunFile) -> Rerun {
        Rerun {
            setup: file.setup,
            setup_timeout_secs: file
                .setup_timeout_secs
                .unwrap_or(DEFAULT_SETUP_TIMEOUT_SECS),
        }
    }
}

#[cfg(test)]
mod tests;
