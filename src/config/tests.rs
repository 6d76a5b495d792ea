//! Unit tests of the configuration: parsing, validation and the effective policy.

use super::*;

fn codes(text: &str) -> Vec<Code> {
    Config::parse(text.as_bytes(), "t")
        .err()
        .unwrap_or_default()
        .into_iter()
        .map(|d| d.code)
        .collect()
}

#[test]
fn defaults_and_a_full_file() {
    let config = Config::parse(b"", "t").unwrap();
    assert!(!config.require_task);
    assert!(
        config
            .findings_ledgers
            .is_match("tests/e2e/docs/adversarial-findings.md")
    );
    let text = "version: 1\nrequire_task: true\nseverity:\n  missing_expected_file: error\n  unexpected_file: warning\nreceipts:\n  freshness: head\n  accept_unverifiable_v1: true\nexclude: ['docs/generated/**', '*.lock']\n";
    let config = Config::parse(text.as_bytes(), "t").unwrap();
    assert!(config.require_task);
    assert_eq!(config.freshness, Freshness::Head);
    assert_eq!(config.severity[&Code::unexpected_file], Severity::Warning);
    assert!(config.exclude.is_match("docs/generated/a/b.md"));
    assert!(config.exclude.is_match("Cargo.lock"));
    assert!(
        !config.exclude.is_match("sub/Cargo.lock"),
        "* does not cross /"
    );
}

#[test]
fn rerun_section() {
    let config = Config::parse(b"", "t").unwrap();
    assert_eq!(config.rerun, Rerun::default());
    assert_eq!(config.rerun.setup_timeout_secs, 900);
    let text = "rerun:\n  setup:\n    - [npm, ci]\n    - [python3, -m, venv, .venv]\n  setup_timeout_secs: 120\n";
    let rerun = Config::parse(text.as_bytes(), "t").unwrap().rerun;
    assert_eq!(
        rerun.setup,
        vec![
            vec!["npm".to_string(), "ci".to_string()],
            vec![
                "python3".to_string(),
                "-m".to_string(),
                "venv".to_string(),
                ".venv".to_string()
            ]
        ]
    );
    assert_eq!(rerun.setup_timeout_secs, 120);
    for bad in [
        "rerun:\n  setup: npm ci\n",
        "rerun:\n  setup:\n    - npm ci\n",
        "rerun:\n  setup:\n    - []\n",
        "rerun:\n  setup:\n    - ['', x]\n",
        "rerun:\n  setup_timeout_secs: 0\n",
        "rerun:\n  jobs: 2\n",
    ] {
        assert_eq!(codes(bad), vec![Code::config_invalid], "{bad}");
    }
}

#[test]
fn agent_hooks_section() {
    let config = Config::parse(b"", "t").unwrap();
    assert_eq!(config.agent_hooks, AgentHooks::default());
    assert_eq!(config.agent_hooks.max_consecutive_blocks, 3);
    let text = "agent_hooks:\n  max_consecutive_blocks: 5\n  subagent:\n    unknown: warn\n    prefixes:\n      'probe-': warn\n      'probe-j-pay': block\n";
    let hooks = Config::parse(text.as_bytes(), "t").unwrap().agent_hooks;
    assert_eq!(hooks.max_consecutive_blocks, 5);
    assert_eq!(hooks.subagent_unknown, SubagentAction::Warn);
    assert_eq!(
        hooks.subagent_action("probe-j-cart: x"),
        SubagentAction::Warn
    );
    assert_eq!(
        hooks.subagent_action("probe-j-pay: x"),
        SubagentAction::Block
    );
    assert_eq!(hooks.subagent_action("composer-j-x"), SubagentAction::Block);
    for bad in [
        "agent_hooks:\n  max_consecutive_blocks: -1\n",
        "agent_hooks:\n  loop: 2\n",
        "agent_hooks:\n  subagent:\n    default: allow\n",
        "agent_hooks:\n  subagent:\n    prefixes:\n      'probe-': ignore\n",
    ] {
        assert_eq!(codes(bad), [Code::config_invalid], "{bad:?}");
    }
}

#[test]
fn contract_knobs_grade_their_codes() {
    let d = |code| Diagnostic::new(code, "m");
    let defaults = Config::parse(b"", "t").unwrap();
    assert_eq!(
        defaults.apply(d(Code::plastic_report_synthesized)).severity,
        Severity::Warning
    );
    assert_eq!(
        defaults.apply_all(vec![d(Code::subagent_dispatch_unknown)])[0].severity,
        Severity::Warning
    );
    let text = "contracts:\n  synthesized_reports: error\n  role_prompt_rules: error\n  unknown_dispatch: block\n";
    let strict = Config::parse(text.as_bytes(), "t").unwrap();
    for code in [
        Code::plastic_report_synthesized,
        Code::plastic_report_prompt_part_missing,
        Code::plastic_report_prompt_part_invalid,
        Code::subagent_dispatch_unknown,
    ] {
        assert_eq!(strict.apply(d(code)).severity, Severity::Error, "{code:?}");
    }
    let allow = Config::parse(b"contracts:\n  unknown_dispatch: allow\n", "t").unwrap();
    assert!(
        allow
            .apply_all(vec![d(Code::subagent_dispatch_unknown)])
            .is_empty()
    );
    assert_eq!(allow.apply_all(vec![d(Code::yaml_tag)]).len(), 1);
    // The explicit severity map still has the last word.
    let both = Config::parse(
        b"contracts:\n  synthesized_reports: error\nseverity:\n  plastic_report_synthesized: note\n",
        "t",
    )
    .unwrap();
    assert_eq!(
        both.apply(d(Code::plastic_report_synthesized)).severity,
        Severity::Note
    );
    for bad in [
        "contracts:\n  synthesized_reports: off\n",
        "contracts:\n  unknown_dispatch: warning\n",
        "contracts:\n  surprise: 1\n",
    ] {
        assert_eq!(codes(bad), [Code::config_invalid], "{bad:?}");
    }
}

#[test]
fn identity_conditions_planning_and_the_allowed_signers_path() {
    let text = "identity:\n  allowed_signers: ./.mastermind/allowed_signers\nuntasked:\n  rules:\n    - action: allow\n      pushers: [alice]\n      actors: ['bot-*']\n      signers: [alice@example.com]\n      source_branches: ['hotfix/*']\nplanning:\n  default: warn\n  rules:\n    - action: allow\n      actors: [alice]\n";
    let config = Config::parse(text.as_bytes(), "t").unwrap();
    assert_eq!(
        config.allowed_signers.as_deref(),
        Some(".mastermind/allowed_signers")
    );
    let rule = &config.untasked.rules[0];
    assert_eq!(rule.vouched_keys(), ["pushers", "actors", "signers"]);
    assert!(
        rule.actors.is_match("BOT-7"),
        "logins match case-insensitively"
    );
    assert!(rule.source_branches.is_match("hotfix/a/b"));
    assert!(config.untasked.needs_signers());
    assert!(!config.planning.needs_signers());
    assert_eq!(config.planning.default, Some(UntaskedAction::Warn));
    assert_eq!(config.planning.rules[0].vouched_keys(), ["actors"]);
    // Unset defaults: the mode decides.
    let defaults = Config::parse(b"require_task: false\n", "t").unwrap();
    assert_eq!(defaults.untasked.default, None);
    assert_eq!(defaults.untasked.default_action(true), UntaskedAction::Deny);
    assert_eq!(
        defaults.untasked.default_action(false),
        UntaskedAction::Warn
    );
    let required = Config::parse(b"require_task: true\n", "t").unwrap();
    assert_eq!(
        required.untasked.default_action(false),
        UntaskedAction::Deny
    );
    for bad in [
        "identity:\n  allowed_signers: ../outside\n",
        "identity:\n  allowed_signers: /etc/ssh/allowed\n",
        "identity:\n  keys: x\n",
        "planning:\n  rules:\n    - action: allow\n      actor: [alice]\n",
        "untasked:\n  rules:\n    - action: allow\n      signers: ['a[']\n",
    ] {
        assert_eq!(codes(bad), [Code::config_invalid], "{bad:?}");
    }
    let errors = Config::parse(
        b"untasked:\n  rules:\n    - action: allow\n      pusher: [alice]\n",
        "t",
    )
    .unwrap_err();
    assert!(
        errors[0].message.contains("(did you mean `pushers`?)"),
        "{}",
        errors[0].message
    );
}

#[test]
fn invalid_files_are_config_errors() {
    for text in [
        "unknown: 1\n",
        "require_task: yes\n",
        "severity:\n  not_a_code: error\n",
        "severity:\n  unexpected_file: off\n",
        "severity:\n  git_merge_conflict: note\n",
        "receipts:\n  freshness: eventually\n",
        "exclude: ['a/[']\n",
        "require_task: ~\n",
        "- a\n",
    ] {
        assert_eq!(codes(text), [Code::config_invalid], "{text:?}");
    }
    let errors = Config::parse(b"require_task: false\nsurprise: 1\n", "t").unwrap_err();
    assert_eq!(errors[0].line, Some(2));
    // A block value starts a line lower; the error names the key's line.
    let errors =
        Config::parse(b"require_task: false\nreciepts:\n  freshness: head\n", "t").unwrap_err();
    assert_eq!(errors[0].line, Some(2));
    assert!(
        errors[0].message.contains("(did you mean `receipts`?)"),
        "{}",
        errors[0].message
    );
    let errors = Config::parse(b"severity:\n  unexpected_files: warning\n", "t").unwrap_err();
    assert!(
        errors[0]
            .message
            .contains("(did you mean `unexpected_file`?)"),
        "{}",
        errors[0].message
    );
}

/// The components the differential test below builds paths from: every
/// literal of the default control-file globs, near misses of each, and
/// names with the suffixes they test.
const CONTROL_PATH_PARTS: &[&str] = &[
    ".github",
    "github",
    ".GitHub",
    "workflows",
    "workflow",
    "actions",
    ".gitlab",
    "gitlab",
    ".gitlab-ci.yml",
    ".gitlab-ci.yaml",
    "gitlab-ci.yml",
    "ci.yml",
    "ci.yaml",
    ".yml",
    ".yaml",
    "yml",
    "a.yml.txt",
    "a.YML",
    "CODEOWNERS",
    "codeowners",
    "CODEOWNERS.md",
    "docs",
    "doc",
    "custom_hooks",
    "custom_hooks.d",
    "pre-receive",
    "pre-receive.d",
    "pre-receive.sh",
    "xpre-receive",
    "pre-receive.dx",
    "src",
    "a",
];

fn default_control_globs() -> Globs {
    let patterns: Vec<String> = DEFAULT_CONTROL_FILES
        .iter()
        .map(|p| p.to_string())
        .collect();
    Globs::new(&patterns, "planning.control_files").unwrap()
}

#[test]
fn default_control_files_match_as_globset() {
    // Every path of up to three components, exhaustively, then longer ones
    // by property below.
    let globs = default_control_globs();
    let parts = CONTROL_PATH_PARTS;
    let mut paths: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    for a in parts {
        for b in parts {
            paths.push(format!("{a}/{b}"));
            for c in parts {
                paths.push(format!("{a}/{b}/{c}"));
            }
        }
    }
    let mut matched = 0;
    for path in &paths {
        let expected = globs.is_match(path);
        matched += usize::from(expected);
        assert_eq!(
            is_default_control_file(path),
            expected,
            "{path}: globset says {expected}"
        );
    }
    assert!(
        matched > 1000 && matched < paths.len() / 2,
        "{matched} of {}",
        paths.len()
    );
    let config = Config::parse(b"", "t").unwrap();
    assert_eq!(config.control_files.patterns(), DEFAULT_CONTROL_FILES);
    assert!(config.is_control_file(".gitlab/ci/deploy.yml"));
    assert!(!config.is_control_file("src/.gitlab/deploy.yml"));
}

proptest::proptest! {
    #[test]
    fn default_control_files_match_as_globset_at_any_depth(
        picks in proptest::collection::vec(0..CONTROL_PATH_PARTS.len(), 1..8)
    ) {
        let path = picks
            .iter()
            .map(|i| CONTROL_PATH_PARTS[*i])
            .collect::<Vec<_>>()
            .join("/");
        proptest::prop_assert_eq!(
            is_default_control_file(&path),
            default_control_globs().is_match(&path),
            "{}", path
        );
    }
}
