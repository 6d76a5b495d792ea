//! Property tests of the contract parsers: arbitrary bytes never panic, valid
//! documents built at random are accepted, and every rule-breaking mutation
//! of a valid document is rejected with the rule's code.

use mastermind_hooks::codes::Code;
use mastermind_hooks::contract::mastermind::argv_display::display_command;
use mastermind_hooks::{
    artifact::{self, Kind},
    contract::mastermind::{executor_report, spec},
};
use proptest::prelude::*;

fn codes_of(kind: Kind, bytes: &[u8]) -> Vec<Code> {
    artifact::check(kind, bytes)
        .diagnostics
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect()
}

/// A plain identifier-ish word that YAML keeps as a string.
fn word() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_-]{0,11}".prop_filter("not a YAML keyword", |w| {
        !matches!(
            w.as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
    })
}

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 1..4).prop_map(|parts| parts.join("/") + ".rs")
}

/// A random valid complete report, as YAML text.
fn valid_report() -> impl Strategy<Value = String> {
    (
        prop::collection::btree_set(word(), 0..5),
        prop::collection::vec(path(), 0..5),
        prop::collection::vec((word(), any::<bool>()), 0..4),
        0u32..1000,
    )
        .prop_map(|(phases, files, commands, tests)| {
            let mut text = String::from(
                "schema_version: 1\nspec: .mastermind/tasks/001/spec.md\nstatus: complete\n",
            );
            if phases.is_empty() {
                text.push_str("phases: []\n");
            } else {
                text.push_str("phases:\n");
                for id in &phases {
                    text.push_str(&format!("  - id: \"{id}\"\n    status: done\n"));
                }
            }
            if files.is_empty() {
                text.push_str("files_modified: []\n");
            } else {
                text.push_str("files_modified:\n");
                for f in &files {
                    text.push_str(&format!("  - \"{f}\"\n"));
                }
            }
            text.push_str("claims: []\ndefects: []\n");
            if commands.is_empty() {
                text.push_str("verifications: []\n");
            } else {
                text.push_str("verifications:\n");
                for (cmd, observed) in &commands {
                    text.push_str(&format!("  - cmd: \"make {cmd}\"\n    result: pass\n"));
                    if *observed {
                        text.push_str(&format!(
                            "    observed:\n      exit_code: 0\n      tests_run: {tests}\n"
                        ));
                    }
                }
            }
            text
        })
}

fn wrap(yaml: &str) -> String {
    format!(
        "# Report\n\n<!-- mastermind:report-begin -->\n```yaml\n{yaml}```\n<!-- mastermind:report-end -->\n"
    )
}

/// Mutations that each break exactly one known rule.
fn break_report(yaml: &str, which: usize, key: &str) -> (String, Code) {
    match which % 10 {
        0 => (
            format!("{yaml}{key}_extra: 1\n"),
            Code::executor_report_schema_violation,
        ),
        1 => (
            yaml.replacen("status: complete", "status: ~", 1),
            Code::yaml_null_value,
        ),
        2 => (yaml.replacen("spec: ", "spec: !tag ", 1), Code::yaml_tag),
        3 => (format!("{yaml}7: x\n"), Code::yaml_non_string_key),
        4 => (
            yaml.replacen(
                "schema_version: 1",
                "schema_version: 1\nschema_version: 1",
                1,
            ),
            Code::yaml_duplicate_key,
        ),
        5 => (
            yaml.replacen("schema_version: 1", "schema_version: 3", 1),
            Code::executor_report_schema_version_unsupported,
        ),
        6 => (
            yaml.replacen("spec: .mastermind/tasks/001/spec.md", "spec: '   '", 1),
            Code::executor_report_spec_empty,
        ),
        7 => (
            yaml.replacen(
                "defects: []",
                &format!(
                    "defects:\n  - {{kind: {key}, phase: p, details: d, remediation_hint: r}}"
                ),
                1,
            ),
            Code::executor_report_complete_with_defects,
        ),
        8 => (
            yaml.replacen("status: complete", "status: failed", 1),
            Code::executor_report_incomplete_without_defect,
        ),
        _ => (
            yaml.replacen(
                "claims: []",
                &format!("claims:\n  - {{kind: function_added, symbol: {key}, file: ''}}"),
                1,
            ),
            Code::executor_report_claim_field_empty,
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        for &kind in Kind::ALL {
            let _ = artifact::check(kind, &bytes);
        }
    }

    #[test]
    fn arbitrary_text_around_markers_never_panics(
        before in ".{0,200}", inner in ".{0,200}", after in ".{0,200}",
    ) {
        let text = format!("{before}\n<!-- mastermind:report-begin -->\n{inner}\n<!-- mastermind:report-end -->\n{after}");
        let _ = artifact::check(Kind::ExecutorReport, text.as_bytes());
        let spec = format!("---\n{inner}\n---\n{after}");
        let _ = artifact::check(Kind::Spec, spec.as_bytes());
    }

    #[test]
    fn random_valid_reports_are_accepted_bare_and_wrapped(yaml in valid_report()) {
        prop_assert_eq!(codes_of(Kind::ExecutorReport, yaml.as_bytes()), Vec::<Code>::new());
        prop_assert_eq!(codes_of(Kind::ExecutorReport, wrap(&yaml).as_bytes()), Vec::<Code>::new());
        let crlf = wrap(&yaml).replace('\n', "\r\n");
        prop_assert!(executor_report::parse(crlf.as_bytes()).is_ok());
    }

    #[test]
    fn every_rule_breaking_mutation_is_rejected(yaml in valid_report(), which in 0usize..10, key in word()) {
        let (broken, code) = break_report(&yaml, which, &key);
        let found = codes_of(Kind::ExecutorReport, wrap(&broken).as_bytes());
        prop_assert!(!found.is_empty(), "accepted a broken report:\n{}", broken);
        prop_assert!(found.contains(&code), "expected {:?}, got {:?} for\n{}", code, found, broken);
    }

    #[test]
    fn the_display_rule_holds_for_any_argv(
        argv in prop::collection::vec("[ -~é]{0,12}", 1..5),
        extra_space in any::<bool>(),
    ) {
        prop_assume!(!argv[0].is_empty());
        // A bare shell operator is its declaration's only finding
        // (`verification_argv_shell_operator`, tested on its own).
        prop_assume!(!argv.iter().any(|a| ["&&", "||", ";", "|"].contains(&a.as_str())));
        let display = display_command(&argv);
        let cmd = if extra_space { format!("{display}  x") } else { display.clone() };
        let yaml_argv: Vec<String> = argv.iter().map(|a| serde_json::to_string(a).unwrap()).collect();
        let text = format!(
            "---\nverify:\n  - cmd: {}\n    run:\n      id: c\n      argv: [{}]\n      cwd: .\n      timeout_secs: 5\n---\n",
            serde_json::to_string(&cmd).unwrap(),
            yaml_argv.join(", ")
        );
        let (_, diagnostics) = spec::check(text.as_bytes());
        let codes: Vec<Code> = diagnostics.iter().map(|d| d.code).collect();
        if extra_space {
            prop_assert!(codes.contains(&Code::verification_cmd_mismatch), "{codes:?}");
        } else if display.trim() == display {
            prop_assert!(!codes.contains(&Code::verification_cmd_mismatch), "{codes:?} for {text}");
        }
    }

    #[test]
    fn arbitrary_json_values_as_reports_never_pass_unless_valid(value in arb_json()) {
        // JSON is YAML: an arbitrary value is almost never a valid report, and
        // if it is accepted it must really have the schema's eight keys.
        let text = serde_json::to_string(&value).unwrap();
        if codes_of(Kind::ExecutorReport, text.as_bytes()).is_empty() {
            let object = value.as_object().expect("accepted reports are mappings");
            prop_assert_eq!(object.len(), 8);
        }
    }
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        "[a-z_]{0,8}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("schema_version".to_string()),
                    Just("spec".to_string()),
                    Just("status".to_string()),
                    "[a-z_]{1,8}"
                ],
                inner,
                0..6
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}
