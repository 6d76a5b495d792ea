//! The configuration `init` writes and the CI snippet it prints.

use super::planners::{self, Planner};

/// `.mastermind/hooks.yaml` as `init` writes it: every key at its default,
/// each explained, so the file is a reference as well as a starting point.
/// Without planners it is a solo repository's: anyone's plan is allowed
/// (one line, `default: allow`, says so); with planners
/// (`init --planner`), the rules allow exactly them, and the default
/// refuses everyone else's plans in CI and pre-receive.
pub fn config_template(planners: &[Planner]) -> String {
    let mut out = String::from(HEAD);
    out.push_str(UNTASKED);
    out.push_str(PLANNING_INTRO);
    if planners.is_empty() {
        out.push_str(SOLO_PLANNING);
    } else {
        out.push_str(
            "planning:\n  # Only these planners plan; everyone else's plan (an agent's own task\n  # among them) is refused in CI and pre-receive and warned about locally.\n#  default: deny                   # unset: deny in CI and pre-receive, warn locally\n  rules:\n",
        );
        out.push_str(&planners::rules_yaml(planners));
    }
    out.push_str(PLANNING_KEYS);
    if planners::needs_signers(planners) {
        out.push_str(IDENTITY_SIGNERS);
    } else {
        out.push_str(IDENTITY);
    }
    out.push_str(TAIL);
    out
}

/// The solo repository's template ([`config_template`] without planners).
pub fn solo_template() -> String {
    config_template(&[])
}

const HEAD: &str = r#"# mastermind-hooks configuration. Every key is optional and shows its default;
# unknown keys are errors. Schema: `mastermind-hooks schema hooks-config-v1`.
#
# The gate reads this file from the base of each change (HEAD before a commit,
# the remote's branch before a push, the target branch in CI), so a change to it
# takes effect once it has landed: a branch cannot relax its own gate.
version: 1

# true: every change must belong to a task folder (.mastermind/tasks/<name>/,
# made by `mastermind-hooks task new NAME`) in every mode, the local hooks
# too: shorthand for `untasked: {default: deny}`. false: the defaults below.
require_task: false

# Per-code severity (error | warning | note) for rule findings; codes that mean
# "could not check" cannot be downgraded. `mastermind-hooks codes` lists them.
severity: {}
#  missing_expected_file: error

receipts:
  # What a receipt must match: scope (what lands equals what its check ran on
  # on every path its task declares or changed, except the protected branch's
  # own newer content on a path the task did not change; whichever way the
  # work lands: merge, squash, rebase), merge (the whole of what lands: the
  # merge in CI) or head (the tip).
  freshness: scope
  # Accept Mastermind v1 receipts, which only `check --worktree` can verify, as
  # a warning instead of an error in the hooks and CI.
  accept_unverifiable_v1: false

# Paths the scope and files_modified checks ignore (`*` stays inside a
# directory, `**` crosses directories).
exclude: []
#  - "docs/generated/**"

# Agent files validated with their contract wherever a change touches them.
findings_ledgers: ["**/adversarial-findings.md"]
plastic_reports: []
plastic_intents: []
plastic_savepoints: []
subagent_returns: []

"#;

const UNTASKED: &str = r#"# Changes no task covers (commits that touch no task folder): rules in
# order, first match wins, else the default. By default CI and pre-receive
# refuse them (deny) and the local hooks warn: what lands on a protected
# branch comes through a task or an explicit allow.
#
# Authors, committers, trailers, branch names and the `agents` recognisers
# are written by whoever makes the commit: an agent can forge them. Allow
# rules that must hold against an agent key on what the platform or a key
# vouches for: `actors` (CI: who ran the job, the pull request's author),
# `pushers` (pre-receive: who the git server authenticated) or `signers`
# (commits signed with a key listed in identity.allowed_signers).
untasked:
#  default: deny                   # unset: deny in CI and pre-receive, warn locally
  rules: []                        # to use a rule below, uncomment it and drop the []
#    - action: allow               # maintainers' untasked work
#      actors: ["your-login"]      # CI
#    - action: allow
#      pushers: ["your-login"]     # pre-receive
#    - action: allow               # signed commits of listed signers
#      signers: ["you@example.com"]
#    - action: allow               # paths anyone may change without a task
#      paths: ["docs/**"]

"#;

const PLANNING_INTRO: &str = r#"# Planning: who decides what a task may do. A new task's spec (alone or with
# its work), a task folder copied or renamed, a wider spec of a task whose
# spec is on the protected branch, new work on a task reported complete
# there, and any change of a control file (below, this file among them) are
# planning, graded by these rules (same conditions as untasked above) over
# the commits that made them: allow makes it a note, warn a warning, deny
# an error. CI and pre-receive enforce them; the local hooks only warn.
"#;

const SOLO_PLANNING: &str = r#"planning:
  # A solo repository: you plan your own tasks. Where agents or a team work,
  # name the planners instead (`mastermind-hooks init --planner github:LOGIN`
  # writes the rules below), and remove this line: an agent's own plan is
  # then refused in CI and pre-receive.
  default: allow                   # unset: deny in CI and pre-receive, warn locally
  rules: []                        # to use a rule below, uncomment it and drop the []
#    - action: allow               # your planners
#      actors: ["your-login"]
"#;

const PLANNING_KEYS: &str = r#"  # planner: a new task's spec needs a planner; anyone: a new task is judged
  # by the spec it brings (copies, wider specs and control files still do).
  new_tasks: planner
  # Paths whose change is planning, never a task's work (this file and the
  # allowed-signers file always are). A list here replaces these defaults.
  control_files:
    - ".github/workflows/**"       # CI definitions
    - ".github/actions/**"         # local and vendored actions
    - ".gitlab-ci.yml"
    - ".gitlab/**/*.yml"           # included pipeline files
    - ".gitlab/**/*.yaml"
    - "CODEOWNERS"
    - ".github/CODEOWNERS"
    - ".gitlab/CODEOWNERS"
    - "docs/CODEOWNERS"
    - "custom_hooks/**"            # server hooks (GitLab)
    - "**/pre-receive"
    - "**/pre-receive.d/**"

"#;

const IDENTITY: &str = r#"# Where the vouched conditions come from.
identity: {}                       # to set the path below, uncomment it and drop the {}
#  allowed_signers: .mastermind/allowed_signers   # read from the protected branch;
#                                   # git's gpg.ssh.allowedSignersFile format

"#;

const IDENTITY_SIGNERS: &str = r#"# Where the vouched conditions come from.
identity:
  allowed_signers: .mastermind/allowed_signers   # read from the protected branch;
                                   # git's gpg.ssh.allowedSignersFile format

"#;

const TAIL: &str = r#"specs:
  # planning: a spec already on the base changes only in a change that touches
  # nothing outside .mastermind/; any: also together with the work.
  changes: planning
  # true: a task's spec must be on the base before its work can land.
  require_on_base: false

# Where work lands. The default branch is always protected; these globs over
# branch names (`*` matches any characters, `/` too; case-insensitive) add
# others. A commit on a protected branch, a push or pre-receive of it, and CI
# of a push to it or of a pull or merge request into it are judged strictly;
# every other branch is work in progress (below). Git-flow, or a team with
# release branches: [main, develop, "release/*"].
protected_branches: []

# Unfinished tasks (a report not `complete` or missing, a check without a
# passing, current receipt) and changes no task covers, on a branch that is
# not protected: allow commits and pushes them with warnings
# (work_in_progress); deny refuses them everywhere. What lands on a protected
# branch is judged strictly either way.
work_in_progress: allow

# The agent-harness hooks (`mastermind-hooks install --agent`), read from the
# default branch so an agent cannot relax them on its branch.
agent_hooks:
  # Blocked stops in a row, per session, before the stop goes through with a
  # note to the user (1 to 100).
  max_consecutive_blocks: 3
  subagent:
    # A routed subagent return that breaks its contract: block or warn.
    default: block
    # A return whose dispatch description routes nowhere: block, warn or allow.
    unknown: allow
    # Per description prefix (`{probe-: warn}`): block or warn; the longest
    # matching prefix wins.
    prefixes: {}

# How the plastic and subagent-return contracts grade the rules their
# authors left soft.
contracts:
  # A well-formed synthesized fallback plastic report: warning or error.
  synthesized_reports: warning
  # Rules only the plastic role prompts state (the Tier lines): warning or error.
  role_prompt_rules: warning
  # A return whose dispatch matches no routing prefix: allow, warn or block.
  unknown_dispatch: warn
"#;

/// Where a repository's CI runs, as far as `init` can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    Github,
    Gitlab,
    Unknown,
}

impl Platform {
    /// Detect from what the repository shows: its `origin` URL first, then
    /// the CI files it already has.
    pub fn detect(origin_url: Option<&str>, has_github_dir: bool, has_gitlab_ci: bool) -> Platform {
        let url = origin_url.unwrap_or("").to_ascii_lowercase();
        if url.contains("github") {
            Platform::Github
        } else if url.contains("gitlab") {
            Platform::Gitlab
        } else if has_github_dir {
            Platform::Github
        } else if has_gitlab_ci {
            Platform::Gitlab
        } else {
            Platform::Unknown
        }
    }
}

/// Whether the release of this version, the tag `v<Cargo.toml version>`,
/// is published: true only in the commit that is tagged
/// (docs/src/development.md, "Cutting a release"). While it is false, `init`
/// prints the CI route that works without a release (the templates build
/// their pinned source) and the CI chapter says the release is not published
/// yet; tests/hooks/release.rs checks that the two agree.
pub const RELEASE_PUBLISHED: bool = false;

/// The version `init` and the docs name: this crate's, as Cargo.toml says.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The Rust toolchain the source route builds with: Cargo.toml's
/// `rust-version`.
pub const TOOLCHAIN: &str = env!("CARGO_PKG_RUST_VERSION");

/// The CI step for `platform`: the templates of `ci-templates/`, pinned to
/// a commit of wherever mastermind-hooks is hosted, running the release of
/// this version (downloaded and checked by sha256), or, while that release
/// is not published, building the pinned source. See the CI chapter of the
/// book.
pub fn ci_snippet(platform: Platform) -> String {
    let (github, gitlab) = if RELEASE_PUBLISHED {
        (
            format!(
                r#"# .github/workflows/mastermind-hooks.yml
# (replace OWNER and <commit id> with where you host mastermind-hooks and the commit of
# v{VERSION} you reviewed: the action downloads the release v{VERSION} in seconds and checks it)
{GITHUB_HEAD}      - uses: OWNER/mastermind-hooks/ci-templates/github@<commit id> # v{VERSION}
        with:
          version: v{VERSION}
"#
            ),
            format!(
                r#"# .gitlab-ci.yml
# (replace OWNER, <commit id> and <sha256> with where you host mastermind-hooks, the commit of
# v{VERSION} you reviewed and the release's SHA256SUMS line for
# mastermind-hooks-x86_64-unknown-linux-musl.tar.gz)
include:
  - remote: "https://raw.githubusercontent.com/OWNER/mastermind-hooks/<commit id>/ci-templates/gitlab/mastermind-hooks.yml"
mastermind-hooks:
  image: buildpack-deps:bookworm-scm
  variables:
    MASTERMIND_HOOKS_RELEASE_URL: "https://github.com/OWNER/mastermind-hooks/releases/download/v{VERSION}"
    MASTERMIND_HOOKS_RELEASE_SHA256: "<sha256>"
"#
            ),
        )
    } else {
        (
            format!(
                r#"# .github/workflows/mastermind-hooks.yml
# (replace OWNER and <commit id> with where you host mastermind-hooks and the commit you
# reviewed.) v{VERSION} is not published yet, so the action builds its source at that commit
# with Rust {TOOLCHAIN}: about 3 minutes on the first run; pin the sha256 its log prints as
# `binary-sha256` to reuse the build. Once the release v{VERSION} is published, drop the
# rustup step and give the action `with: {{ version: v{VERSION} }}`: seconds.
{GITHUB_HEAD}      - run: rustup toolchain install {TOOLCHAIN} --profile minimal && rustup default {TOOLCHAIN}
      - uses: OWNER/mastermind-hooks/ci-templates/github@<commit id>
"#
            ),
            format!(
                r#"# .gitlab-ci.yml
# (replace OWNER and <commit id> with where you host mastermind-hooks and the commit you
# reviewed.) v{VERSION} is not published yet, so the job builds its source at that commit on
# its default image (Rust {TOOLCHAIN}): about 3 minutes; set MASTERMIND_HOOKS_BIN_SHA256 to
# the sha256 its log prints to reuse the build. Once the release v{VERSION} is published, set
# MASTERMIND_HOOKS_RELEASE_URL and MASTERMIND_HOOKS_RELEASE_SHA256 instead: seconds.
include:
  - remote: "https://raw.githubusercontent.com/OWNER/mastermind-hooks/<commit id>/ci-templates/gitlab/mastermind-hooks.yml"
mastermind-hooks:
  variables:
    MASTERMIND_HOOKS_SOURCE_URL: "https://github.com/OWNER/mastermind-hooks.git"
    MASTERMIND_HOOKS_SOURCE_REV: "<commit id>"
"#
            ),
        )
    };
    match platform {
        Platform::Github => github,
        Platform::Gitlab => gitlab,
        Platform::Unknown => format!(
            "# Any CI: run the gate on the merge of the change into its base, with full history.\nmastermind-hooks check --ci --base <target branch> --head <change>\n\n{github}\n{gitlab}"
        ),
    }
}

/// The workflow around the action's step, up to the checkout.
const GITHUB_HEAD: &str = r#"name: mastermind-hooks
on:
  pull_request:
  merge_group:
  push:
    branches: [main]
  workflow_dispatch:
permissions:
  contents: read
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0 # the base must be in the clone
          persist-credentials: false
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, UntaskedAction};

    #[test]
    fn the_template_is_a_valid_configuration_equal_to_the_defaults() {
        let template = solo_template();
        let config = Config::parse(template.as_bytes(), "template").unwrap();
        let defaults = Config::strict_defaults();
        assert_eq!(config.require_task, defaults.require_task);
        assert_eq!(config.freshness, defaults.freshness);
        assert_eq!(
            config.accept_unverifiable_v1,
            defaults.accept_unverifiable_v1
        );
        assert!(config.severity.is_empty() && config.exclude.patterns().is_empty());
        assert_eq!(
            config.findings_ledgers.patterns(),
            defaults.findings_ledgers.patterns()
        );
        assert_eq!(config.untasked.default, None, "the mode decides");
        assert!(config.untasked.rules.is_empty() && config.planning.rules.is_empty());
        // The one line a solo repository keeps: anyone plans.
        assert_eq!(config.planning.default, Some(UntaskedAction::Allow));
        assert_eq!(config.new_tasks, defaults.new_tasks);
        assert_eq!(
            config.control_files.patterns(),
            defaults.control_files.patterns(),
            "the control files it lists are the defaults"
        );
        assert_eq!(config.allowed_signers, None);
        assert_eq!(config.work_in_progress, defaults.work_in_progress);
        assert!(config.protected_branches.patterns().is_empty());
        assert_eq!(config.agent_hooks, defaults.agent_hooks);
        assert_eq!(config.contracts, defaults.contracts);
        for section in [
            "planning:",
            "protected_branches:",
            "work_in_progress:",
            "agent_hooks:",
            "contracts:",
        ] {
            assert!(template.contains(&format!("\n{section}")), "{section}");
        }
    }

    #[test]
    fn planners_get_rules_and_nobody_else_plans() {
        let planners = [
            Planner::parse("github:alice").unwrap(),
            Planner::parse("signer:alice@example.com").unwrap(),
        ];
        let template = config_template(&planners);
        let config = Config::parse(template.as_bytes(), "team").unwrap();
        assert_eq!(config.planning.default, None, "deny in CI and pre-receive");
        let keys: Vec<Vec<&str>> = config
            .planning
            .rules
            .iter()
            .map(|rule| rule.vouched_keys())
            .collect();
        assert_eq!(keys, [vec!["actors"], vec!["pushers"], vec!["signers"]]);
        assert_eq!(
            config.allowed_signers.as_deref(),
            Some(".mastermind/allowed_signers")
        );
        assert!(config.is_control_file(".mastermind/allowed_signers"));
        assert!(config.is_control_file(".github/workflows/ci.yml"));
    }

    #[test]
    fn the_allow_rule_skeleton_is_a_valid_policy_once_uncommented() {
        let uncommented: String = solo_template()
            .lines()
            .map(|line| {
                let line = line
                    .split("  # to ")
                    .next()
                    .unwrap_or(line)
                    .replace("rules: []", "rules:")
                    .replace("identity: {}", "identity:");
                match line.strip_prefix('#') {
                    Some(rest) if rest.starts_with("    - ") || rest.starts_with("      ") => {
                        rest.to_string()
                    }
                    Some(rest) if rest.starts_with("  allowed_signers") => rest.to_string(),
                    _ => line,
                }
            })
            .map(|line| line + "\n")
            .collect();
        let config = Config::parse(uncommented.as_bytes(), "skeleton").unwrap();
        let keys: Vec<Vec<&str>> = config
            .untasked
            .rules
            .iter()
            .map(|rule| rule.vouched_keys())
            .collect();
        assert_eq!(
            keys,
            [vec!["actors"], vec!["pushers"], vec!["signers"], vec![]]
        );
        assert_eq!(config.planning.rules[0].vouched_keys(), ["actors"]);
        assert_eq!(
            config.allowed_signers.as_deref(),
            Some(".mastermind/allowed_signers")
        );
    }

    #[test]
    fn the_platform_comes_from_the_remote_then_the_ci_files() {
        let detect = Platform::detect;
        assert_eq!(
            detect(Some("git@github.com:o/r.git"), false, true),
            Platform::Github
        );
        assert_eq!(
            detect(Some("https://gitlab.example.com/o/r"), true, false),
            Platform::Gitlab
        );
        assert_eq!(detect(Some("../origin.git"), true, false), Platform::Github);
        assert_eq!(detect(None, false, true), Platform::Gitlab);
        assert_eq!(detect(None, false, false), Platform::Unknown);
    }

    #[test]
    fn snippets_use_the_pinned_templates() {
        for platform in [Platform::Github, Platform::Gitlab, Platform::Unknown] {
            let text = ci_snippet(platform);
            assert!(
                text.contains("ci-templates/github@") || text.contains("ci-templates/gitlab/"),
                "{text}"
            );
            // Nothing unpublished is installed.
            assert!(
                !text.contains("cargo install --locked mastermind-hooks@"),
                "{text}"
            );
            assert!(
                text.contains("fetch-depth: 0")
                    || text.contains("MASTERMIND_HOOKS_RELEASE_SHA256")
                    || text.contains("MASTERMIND_HOOKS_SOURCE_REV"),
                "{text}"
            );
            // The release this version is, downloaded once it is published;
            // until then the pinned source, and the snippet says so.
            let version = format!("v{}", env!("CARGO_PKG_VERSION"));
            assert!(text.contains(&version), "{text}");
            if RELEASE_PUBLISHED {
                assert!(
                    text.contains(&format!("version: {version}"))
                        || text.contains(&format!("releases/download/{version}")),
                    "{text}"
                );
                assert!(!text.contains("not published yet"), "{text}");
            } else {
                assert!(
                    text.contains(&format!("{version} is not published yet")),
                    "{text}"
                );
                // Nothing that would download it: no `version:` input, no
                // release URL outside the comments.
                for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
                    assert!(!line.trim_start().starts_with("version:"), "{text}");
                    assert!(!line.contains("releases/download/"), "{text}");
                }
            }
        }
    }
}
