//! Every CI format is checked against what its consumer expects: SARIF
//! against the published SARIF 2.1.0 JSON Schema, JUnit XML through an XML
//! parser (structure and counts), GitLab Code Quality fields, GitHub workflow
//! commands and the job summary file. Reports come from the real binary on
//! the `tests/cmd/validate.in` fixtures and, for gate-shaped reports (tasks
//! and run-level findings) that no command prints yet, from the library.

use crate::common::platforms::{
    Xsd, assert_valid_junit, assert_valid_sarif, code_quality_validator, sarif_validator,
};
use crate::common::tool_missing;
use mastermind_hooks::codes::Code;
use mastermind_hooks::diagnostic::Diagnostic;
use mastermind_hooks::render::{self, Format, RenderOptions};
use mastermind_hooks::report::{CheckOutcome, Report, TaskResult};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_mastermind-hooks");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cmd/validate.in");

/// Files with every kind of outcome: valid, invalid, a note, unreadable.
const MIXED: &[&str] = &[
    "good/spec.md",
    "bad/spec.md",
    "bad/executor-report.md",
    "good/verification/unit.json",
    "bad/verification/unit.json",
];

fn validate(format: &str, files: &[&str], cwd: &Path) -> Output {
    Command::new(BIN)
        .current_dir(cwd)
        .args(["validate", "--format", format])
        .args(files)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("NO_COLOR", "1")
        .output()
        .expect("run mastermind-hooks")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

/// A spec under a directory whose name needs escaping everywhere.
const AWKWARD: &str = "odd dir,a:100%/spec.md";

/// A directory with awkward file names next to copies of the fixtures.
fn awkward_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let spec = std::fs::read(Path::new(FIXTURES).join("bad/spec.md")).unwrap();
    std::fs::create_dir_all(dir.path().join("odd dir,a:100%")).unwrap();
    std::fs::write(dir.path().join(AWKWARD), spec).unwrap();
    dir
}

fn gate_report() -> Report {
    let task = |name: &str, checks: Vec<CheckOutcome>| TaskResult::new(name, checks);
    Report::assemble(
        vec![],
        vec![
            task(
                ".mastermind/tasks/001-ok",
                vec![
                    CheckOutcome::new("spec", vec![]),
                    CheckOutcome::new(
                        "report",
                        vec![Diagnostic::new(Code::executor_report_incomplete, "partial")],
                    ),
                ],
            ),
            task(
                ".mastermind/tasks/002-bad",
                vec![
                    CheckOutcome::new("spec", vec![]),
                    CheckOutcome::new(
                        "scope",
                        vec![
                            Diagnostic::new(
                                Code::verification_cmd_mismatch,
                                "src/x.rs <changed> & \"undeclared\"\nexpected: a\nactual: b",
                            )
                            .with_path("src/x.rs")
                            .with_line(Some(3)),
                        ],
                    ),
                    CheckOutcome::new(
                        "receipts",
                        vec![Diagnostic::new(Code::input_unreadable, "blob unreadable")],
                    ),
                ],
            ),
        ],
        vec![Diagnostic::new(
            Code::internal_error,
            "run-level: config, git",
        )],
    )
}

// ---- SARIF ---------------------------------------------------------------

/// Checks beyond the schema: every code is a rule, and every result points
/// at its own rule.
fn assert_rules_and_indices(log: &Value) {
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), Code::ALL.len());
    for (rule, code) in rules.iter().zip(Code::ALL) {
        assert_eq!(rule["id"], code.as_str());
        assert_eq!(rule["shortDescription"]["text"], code.summary());
        assert_eq!(rule["help"]["text"], code.help());
        assert_eq!(
            rule["defaultConfiguration"]["level"],
            code.default_severity().as_str()
        );
    }
    assert_eq!(run["tool"]["driver"]["name"], "mastermind-hooks");
    assert_eq!(run["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        run["tool"]["driver"].get("informationUri").is_none(),
        "no link to an unpublished page"
    );
    for result in run["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert!(
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].is_string(),
            "GitHub code scanning rejects results without a uri"
        );
    }
}

#[test]
fn sarif_of_validate_matches_the_published_schema() {
    let output = validate("sarif", MIXED, Path::new(FIXTURES));
    assert_eq!(output.status.code(), Some(1));
    let log: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_valid_sarif(&log);
    assert_rules_and_indices(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    // bad/spec.md, bad/executor-report.md, the note on the good receipt, the pending receipt.
    assert_eq!(results.len(), 4);
    let levels: Vec<&str> = results
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["error", "error", "note", "error"]);
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        7
    );
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
}

#[test]
fn sarif_encodes_awkward_paths_as_valid_uri_references() {
    let dir = awkward_dir();
    let output = validate("sarif", &[AWKWARD], dir.path());
    assert_eq!(output.status.code(), Some(1));
    let log: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_valid_sarif(&log);
    assert_eq!(
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "odd%20dir%2Ca%3A100%25/spec.md"
    );
}

#[test]
fn sarif_of_a_gate_report_matches_the_published_schema() {
    let log = render::sarif::log(&gate_report());
    assert_valid_sarif(&log);
    assert_rules_and_indices(&log);
    let run = &log["runs"][0];
    assert_eq!(run["results"].as_array().unwrap().len(), 3);
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(invocation["exitCode"], 2);
    assert_eq!(
        invocation["toolExecutionNotifications"][0]["associatedRule"]["id"],
        "internal_error"
    );
    // And an empty gate run is valid too.
    assert_valid_sarif(&render::sarif::log(&Report::assemble(
        vec![],
        vec![],
        vec![],
    )));
}

#[test]
fn the_sarif_schema_check_is_not_vacuous() {
    let mut log = render::sarif::log(&gate_report());
    log["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!sarif_validator().is_valid(&log));
    let mut log = render::sarif::log(&gate_report());
    log["runs"][0]["tool"]["driver"]["informationUri"] = Value::from("not a uri");
    assert!(!sarif_validator().is_valid(&log), "formats are validated");
    let mut log = render::sarif::log(&gate_report());
    log["version"] = Value::from("2.0.0");
    assert!(!sarif_validator().is_valid(&log));
}

// ---- JUnit ---------------------------------------------------------------

/// Parse JUnit XML and check that every count attribute agrees with the
/// elements it counts. Returns the document text for further checks.
fn assert_consistent_junit(xml: &str) -> roxmltree::Document<'_> {
    let doc = roxmltree::Document::parse(xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let attr = |n: roxmltree::Node, a: &str| -> usize {
        n.attribute(a)
            .unwrap_or_else(|| panic!("{} has no {a}", n.tag_name().name()))
            .parse()
            .unwrap()
    };
    let count =
        |n: roxmltree::Node, tag: &str| n.descendants().filter(|d| d.has_tag_name(tag)).count();
    assert_eq!(attr(root, "tests"), count(root, "testcase"));
    assert_eq!(attr(root, "failures"), count(root, "failure"));
    assert_eq!(attr(root, "errors"), count(root, "error"));
    for suite in root.children().filter(|n| n.is_element()) {
        assert_eq!(suite.tag_name().name(), "testsuite");
        assert!(suite.attribute("name").is_some());
        assert_eq!(attr(suite, "tests"), count(suite, "testcase"));
        assert_eq!(attr(suite, "failures"), count(suite, "failure"));
        assert_eq!(attr(suite, "errors"), count(suite, "error"));
        for case in suite.children().filter(|n| n.is_element()) {
            assert_eq!(case.tag_name().name(), "testcase");
            assert!(case.attribute("name").is_some() && case.attribute("classname").is_some());
            let outcomes = count(case, "failure") + count(case, "error");
            assert!(outcomes <= 1, "one outcome per testcase");
        }
    }
    doc
}

#[test]
fn junit_of_validate_has_one_case_per_file() {
    let output = validate("junit", MIXED, Path::new(FIXTURES));
    assert_eq!(output.status.code(), Some(1));
    let xml = stdout(&output);
    let doc = assert_consistent_junit(&xml);
    let cases: Vec<(&str, &str, bool)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| {
            (
                n.attribute("name").unwrap(),
                n.attribute("classname").unwrap(),
                n.children().any(|c| c.has_tag_name("failure")),
            )
        })
        .collect();
    assert_eq!(
        cases,
        [
            ("good/spec.md", "spec", false),
            ("bad/spec.md", "spec", true),
            ("bad/executor-report.md", "executor-report", true),
            ("good/verification/unit.json", "receipt", false),
            ("bad/verification/unit.json", "receipt", true),
        ]
    );
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert_eq!(failure.attribute("type"), Some("verification_cmd_mismatch"));
    assert!(
        failure
            .text()
            .unwrap()
            .contains("--> bad/spec.md:7 (/verify/0/cmd)")
    );
}

#[test]
fn junit_of_an_unreadable_file_is_an_error_not_a_failure() {
    let output = validate(
        "junit",
        &["--kind", "spec", "missing.md"],
        Path::new(FIXTURES),
    );
    assert_eq!(output.status.code(), Some(2));
    let xml = stdout(&output);
    let doc = assert_consistent_junit(&xml);
    let error = doc.descendants().find(|n| n.has_tag_name("error")).unwrap();
    assert_eq!(error.attribute("type"), Some("input_unreadable"));
}

#[test]
fn junit_of_a_gate_report_has_a_suite_per_task_and_a_run_case() {
    let xml = render::render(&gate_report(), Format::Junit, &RenderOptions::default());
    let doc = assert_consistent_junit(&xml);
    let suites: Vec<(&str, &str)> = doc
        .root_element()
        .children()
        .filter(|n| n.is_element())
        .map(|n| (n.attribute("name").unwrap(), n.attribute("tests").unwrap()))
        .collect();
    assert_eq!(
        suites,
        [
            (".mastermind/tasks/001-ok", "2"),
            (".mastermind/tasks/002-bad", "3"),
            ("mastermind-hooks", "1"),
        ]
    );
    let root = doc.root_element();
    assert_eq!(root.attribute("failures"), Some("1"));
    assert_eq!(
        root.attribute("errors"),
        Some("2"),
        "unreadable check and run"
    );
    // Markup in messages is escaped, not interpreted.
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert!(
        failure
            .text()
            .unwrap()
            .contains("src/x.rs <changed> & \"undeclared\"")
    );
    assert!(failure.text().unwrap().contains("expected: a\nactual: b"));
}

// ---- GitLab Code Quality -------------------------------------------------

fn assert_code_quality(text: &str) -> Vec<Value> {
    let issues: Value = serde_json::from_str(text).expect("JSON");
    let issues = issues.as_array().expect("a JSON array").clone();
    let mut fingerprints = std::collections::HashSet::new();
    for issue in &issues {
        let object = issue.as_object().unwrap();
        for key in [
            "description",
            "check_name",
            "fingerprint",
            "severity",
            "location",
        ] {
            assert!(object.contains_key(key), "issue lacks {key}: {issue}");
        }
        assert!(!issue["description"].as_str().unwrap().is_empty());
        assert!(Code::from_name(issue["check_name"].as_str().unwrap()).is_some());
        let fp = issue["fingerprint"].as_str().unwrap();
        assert!(fp.len() == 64 && fp.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(
            fingerprints.insert(fp.to_string()),
            "fingerprints are unique"
        );
        assert!(
            ["info", "minor", "major", "critical", "blocker"]
                .contains(&issue["severity"].as_str().unwrap())
        );
        assert!(!issue["location"]["path"].as_str().unwrap().is_empty());
        assert!(issue["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
    }
    issues
}

#[test]
fn code_quality_of_validate_has_every_field_and_stable_fingerprints() {
    let first = validate("gitlab", MIXED, Path::new(FIXTURES));
    assert_eq!(first.status.code(), Some(1));
    let issues = assert_code_quality(&stdout(&first));
    assert_eq!(issues.len(), 4);
    assert_eq!(issues[0]["location"]["path"], "bad/spec.md");
    assert_eq!(issues[0]["location"]["lines"]["begin"], 7);
    let severities: Vec<&str> = issues
        .iter()
        .map(|i| i["severity"].as_str().unwrap())
        .collect();
    assert_eq!(severities, ["major", "major", "info", "major"]);
    let second = validate("gitlab", MIXED, Path::new(FIXTURES));
    assert_eq!(stdout(&first), stdout(&second), "same input, same report");
}

#[test]
fn code_quality_of_a_gate_report_anchors_every_issue() {
    let text = render::render(&gate_report(), Format::Gitlab, &RenderOptions::default());
    let issues = assert_code_quality(&text);
    let paths: Vec<&str> = issues
        .iter()
        .map(|i| i["location"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            ".mastermind/tasks/001-ok/spec.md",
            "src/x.rs",
            ".mastermind/tasks/002-bad/spec.md",
            "."
        ]
    );
    let severities: Vec<&str> = issues
        .iter()
        .map(|i| i["severity"].as_str().unwrap())
        .collect();
    assert_eq!(severities, ["minor", "major", "blocker", "blocker"]);
}

// ---- GitHub --------------------------------------------------------------

/// Every line is a workflow command with escaped properties, or the summary.
fn assert_workflow_commands(text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    let (last, commands) = lines.split_last().unwrap();
    assert!(last.starts_with("mastermind-hooks: "), "{last}");
    for line in commands {
        let rest = ["::error ", "::warning ", "::notice "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
            .unwrap_or_else(|| panic!("not a workflow command: {line}"));
        let (properties, message) = rest.split_once("::").expect("properties::message");
        for property in properties.split(',') {
            let (key, value) = property.split_once('=').expect("key=value");
            assert!(["file", "line", "title"].contains(&key), "{key}");
            assert!(!value.contains(':') && !value.contains('\n'));
        }
        assert!(!message.contains('\r') && !message.contains('\n'));
    }
}

#[test]
fn github_annotations_escape_awkward_paths() {
    let dir = awkward_dir();
    let output = validate("github", &[AWKWARD], dir.path());
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert_workflow_commands(&text);
    assert!(
        text.starts_with(
            "::error file=odd dir%2Ca%3A100%25/spec.md,line=7,title=verification_cmd_mismatch::"
        ),
        "{text}"
    );
}

#[test]
fn github_step_summary_is_appended_only_for_the_github_format() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "# earlier step\n").unwrap();
    let run = |format: &str| {
        Command::new(BIN)
            .current_dir(FIXTURES)
            .args(["validate", "--format", format])
            .args(MIXED)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .output()
            .unwrap()
    };
    let output = run("github");
    assert_eq!(output.status.code(), Some(1));
    assert_workflow_commands(&stdout(&output));
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with("# earlier step\n## ❌ mastermind-hooks failed\n"),
        "{text}"
    );
    assert!(
        text.contains("| `bad/spec.md` | spec | ❌ invalid | 1 | 0 |"),
        "{text}"
    );
    assert!(text.contains("| error | `verification_cmd_mismatch` | `bad/spec.md:7` |"));
    for format in ["human", "json", "sarif", "junit", "gitlab"] {
        run(format);
    }
    assert_eq!(
        std::fs::read_to_string(&summary).unwrap(),
        text,
        "other formats leave it alone"
    );
}

#[test]
fn an_unwritable_step_summary_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(BIN)
        .current_dir(FIXTURES)
        .args(["validate", "--format", "github", "good/spec.md"])
        .env("GITHUB_STEP_SUMMARY", dir.path()) // a directory cannot be appended to
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot append the job summary to GITHUB_STEP_SUMMARY"),
        "{stderr}"
    );
}

#[test]
fn max_annotations_caps_the_commands() {
    let output = Command::new(BIN)
        .current_dir(FIXTURES)
        .args(["validate", "--format", "github", "--max-annotations", "1"])
        .args(MIXED)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let text = stdout(&output);
    assert_workflow_commands(&text);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("::error file=bad/spec.md"));
    assert!(lines[1].starts_with("::notice title=mastermind-hooks::3 more problems"));
}

#[test]
fn every_format_exits_like_human_output() {
    let cases: &[(&[&str], i32)] = &[
        (&["good/spec.md"], 0),
        (&["bad/spec.md"], 1),
        (&["--kind", "spec", "missing.md"], 2),
    ];
    for format in ["human", "json", "github", "gitlab", "sarif", "junit"] {
        for (files, status) in cases {
            let output = validate(format, files, Path::new(FIXTURES));
            assert_eq!(output.status.code(), Some(*status), "{format} {files:?}");
            assert!(!output.stdout.is_empty(), "{format} prints a report");
        }
    }
}

// ---- the platforms' own schemas and validators -------------------------------

/// The real validators, when the machine has one: xmllint (libxml2-utils)
/// or Python's xmlschema. Without either, a failure under CI and a skip
/// with a printed reason elsewhere.
fn external_xsd_check(xml: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.xml");
    std::fs::write(&file, xml).unwrap();
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/junit-10.xsd");
    if let Ok(out) = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(&xsd)
        .arg(&file)
        .output()
    {
        assert!(
            out.status.success(),
            "xmllint: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let script = "import sys, xmlschema; xmlschema.XMLSchema(sys.argv[1]).validate(sys.argv[2])";
    match Command::new("python3")
        .args(["-c", script])
        .arg(&xsd)
        .arg(&file)
        .output()
    {
        Ok(out) if out.status.success() => {}
        Ok(out) if String::from_utf8_lossy(&out.stderr).contains("No module named") => {
            // Neither xmllint nor Python's xmlschema.
            tool_missing("xmlschema");
        }
        Ok(out) => panic!("xmlschema: {}", String::from_utf8_lossy(&out.stderr)),
        // Neither xmllint nor python3.
        Err(_) => tool_missing("xmlschema"),
    }
}

#[test]
fn junit_validates_against_junit_10_xsd() {
    let reports = [
        render::render(&gate_report(), Format::Junit, &RenderOptions::default()),
        render::render(
            &Report::assemble(vec![], vec![], vec![]),
            Format::Junit,
            &RenderOptions::default(),
        ),
        stdout(&validate("junit", MIXED, Path::new(FIXTURES))),
    ];
    for xml in &reports {
        assert_valid_junit(xml);
        external_xsd_check(xml);
    }
}

#[test]
fn the_junit_schema_check_is_not_vacuous() {
    let xml = render::render(&gate_report(), Format::Junit, &RenderOptions::default());
    let bad = xml.replacen("<testsuites ", "<testsuites skipped=\"0\" ", 1);
    let doc = roxmltree::Document::parse(&bad).unwrap();
    let mut errors = Vec::new();
    Xsd::load().check(doc.root_element(), &mut errors);
    assert_eq!(errors, ["<testsuites> may not have `skipped`"]);
}

#[test]
fn code_quality_matches_gitlabs_documented_format() {
    let validator = code_quality_validator();
    for text in [
        render::render(&gate_report(), Format::Gitlab, &RenderOptions::default()),
        stdout(&validate("gitlab", MIXED, Path::new(FIXTURES))),
    ] {
        let value: Value = serde_json::from_str(&text).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
    }
    let mut broken: Value = serde_json::from_str(&render::render(
        &gate_report(),
        Format::Gitlab,
        &RenderOptions::default(),
    ))
    .unwrap();
    broken[0]["severity"] = Value::from("warning");
    assert!(!validator.is_valid(&broken), "the check is not vacuous");
}

/// What GitHub code scanning and the SARIF multitool's GitHub rules ask of
/// a log beyond the schema.
fn assert_github_accepts(log: &Value) {
    let run = &log["runs"][0];
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        for key in ["shortDescription", "fullDescription", "help"] {
            assert!(
                rule[key]["text"].as_str().is_some_and(|t| !t.is_empty()),
                "{} lacks {key}",
                rule["id"]
            );
        }
    }
    assert!(
        run["tool"]["driver"].get("informationUri").is_none(),
        "no link to a page that does not exist"
    );
    let results = run["results"].as_array().unwrap();
    assert!(results.len() <= 25_000);
    for result in results {
        let location = &result["locations"][0]["physicalLocation"];
        assert!(
            location["region"]["startLine"].as_u64().unwrap() >= 1,
            "{result}"
        );
        let uri = location["artifactLocation"]["uri"].as_str().unwrap();
        assert!(
            !uri.starts_with('/') && !uri.contains("://"),
            "relative: {uri}"
        );
        assert!(result["partialFingerprints"]["mastermindHooks/v1"].is_string());
    }
}

/// The SARIF multitool (`npm install @microsoft/sarif-multitool`), when
/// SARIF_MULTITOOL names its binary: `validate` with GitHub's rules must
/// report no error.
fn multitool(log: &Value) {
    let Some(tool) = std::env::var_os("SARIF_MULTITOOL") else {
        eprintln!("skipped the SARIF multitool: set SARIF_MULTITOOL to its binary to run it");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("log.sarif");
    let output = dir.path().join("validation.sarif");
    std::fs::write(&input, serde_json::to_vec_pretty(log).unwrap()).unwrap();
    let run = Command::new(tool)
        .args(["validate", "--rule-kind", "Gh;Sarif", "--output"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let validation: Value =
        serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    let errors: Vec<&Value> = validation["runs"][0]["results"]
        .as_array()
        .map(|r| r.iter().filter(|r| r["level"] == "error").collect())
        .unwrap_or_default();
    assert!(errors.is_empty(), "multitool errors: {errors:?}");
}

#[test]
fn sarif_of_a_failing_gate_is_what_github_accepts() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .current_dir(root)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.py"), "a = 1\n").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "base"]);
    let task = root.join(".mastermind/tasks/001-t");
    std::fs::create_dir_all(&task).unwrap();
    std::fs::write(task.join("spec.md"), "---\nmode: verified\ntouches:\n  - file: src/a.py\nverify:\n  - cmd: make test\n---\n# Task\n\n## Goals\nChange a.\n").unwrap();
    std::fs::write(root.join("src/a.py"), "a = 2\n").unwrap();
    std::fs::write(root.join("src/stray.py"), "b = 1\n").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "work without a report"]);
    let output = Command::new(BIN)
        .current_dir(root)
        .args([
            "check", "--ci", "--base", "main~1", "--head", "main", "--format", "sarif",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITLAB_CI")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let log: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_valid_sarif(&log);
    assert_github_accepts(&log);
    assert!(!log["runs"][0]["results"].as_array().unwrap().is_empty());
    multitool(&log);
}

#[test]
fn sarif_of_validate_and_the_gate_report_is_what_github_accepts() {
    let log: Value =
        serde_json::from_str(&stdout(&validate("sarif", MIXED, Path::new(FIXTURES)))).unwrap();
    assert_github_accepts(&log);
    multitool(&log);
    assert_github_accepts(&render::sarif::log(&gate_report()));
}

// ---- hostile names in every format -------------------------------------------

const HOSTILE: &str = "src/x\n::error::pwned\r\u{1b}[31m::stop-commands::t\n## ✅ passed\u{1b}[0K section_start:1:x.py";

fn hostile_report() -> Report {
    let d = Diagnostic::new(
        Code::unexpected_file,
        format!("{HOSTILE} was modified\n::warning::second line"),
    )
    .with_path(HOSTILE);
    Report::assemble(
        vec![],
        vec![TaskResult::new(
            HOSTILE,
            vec![CheckOutcome::new("scope", vec![d.clone()])],
        )],
        vec![d.with_task(HOSTILE)],
    )
}

#[test]
fn hostile_names_stay_data_in_every_format() {
    let report = hostile_report();
    let options = RenderOptions::default();
    // The formats a log prints line by line: no name or message starts a
    // line of its own (JUnit writes a line break in data as `&#10;`).
    for format in [Format::Human, Format::Github, Format::Junit] {
        let text = render::render(&report, format, &options);
        for line in text.lines() {
            let trimmed = line.trim_start();
            assert!(
                !trimmed.starts_with("::error::")
                    && !trimmed.starts_with("::warning::")
                    && !trimmed.starts_with("::stop-commands")
                    && !trimmed.starts_with("##[")
                    && !line.contains('\u{1b}')
                    && !line.contains('\r'),
                "{format:?}: {line:?}"
            );
        }
    }
    let summary = render::github::step_summary(&report);
    assert_eq!(
        summary.lines().filter(|l| l.starts_with("## ")).count(),
        1,
        "{summary}"
    );
    assert!(!summary.contains('\u{1b}') && !summary.contains('\r'));
    // Machine formats carry the name exactly, escaped by their own syntax.
    let json: Value =
        serde_json::from_str(&render::render(&report, Format::Json, &options)).unwrap();
    assert_eq!(json["diagnostics"][0]["path"], HOSTILE);
    let sarif = render::sarif::log(&report);
    assert_valid_sarif(&sarif);
    let gitlab: Value =
        serde_json::from_str(&render::render(&report, Format::Gitlab, &options)).unwrap();
    assert_eq!(gitlab[0]["location"]["path"], HOSTILE);
    assert!(code_quality_validator().is_valid(&gitlab));
    let junit = render::render(&report, Format::Junit, &options);
    assert_valid_junit(&junit);
}

/// `--output` onto a FIFO or a device: replacing it would take a named pipe
/// (or, run as root, `/dev/null` itself) away from whoever uses it, and
/// writing into it may block; refused before anything runs, left as it is.
#[test]
fn an_output_that_is_no_regular_file_is_refused_and_left_alone() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("report.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    for format in ["json", "sarif"] {
        let output = Command::new(BIN)
            .current_dir(FIXTURES)
            .arg("validate")
            .args(MIXED)
            .arg("--output")
            .arg(format!("{format}={}", fifo.display()))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{format}: {stderr}");
        assert!(
            stderr.contains("error[output_unwritable]") && stderr.contains("not a regular file"),
            "{stderr}"
        );
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{format}: the FIFO was replaced: {kind:?}");
    }
}

/// The job summary is appended through a link (it is the runner's file),
/// so an `--output` that the link points at is the same file: refused
/// before anything runs, and neither file is touched.
#[test]
fn an_output_the_job_summary_links_to_is_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.md");
    std::fs::write(&report, "# earlier step\n").unwrap();
    let link = dir.path().join("summary.md");
    std::os::unix::fs::symlink(&report, &link).unwrap();
    let output = Command::new(BIN)
        .current_dir(FIXTURES)
        .args(["validate", "--format", "github"])
        .args(MIXED)
        .arg("--output")
        .arg(format!("human={}", report.display()))
        .env("GITHUB_STEP_SUMMARY", &link)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("names the same file as the job summary"),
        "{}",
        stdout(&output)
    );
    assert_eq!(
        std::fs::read_to_string(&report).unwrap(),
        "# earlier step\n"
    );
}
