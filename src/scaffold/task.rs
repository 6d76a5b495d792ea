//! A new task's files: `spec.md` with front matter the gate accepts, and an
//! `executor-report.md` skeleton that validates once its placeholders are
//! filled in. Pure: names, paths and commands in, text or a refusal out.

use super::ScaffoldError;
use crate::bookkeeping::TASKS_DIR;
use crate::contract::mastermind::argv_display::display_command;
use crate::contract::mastermind::spec::{declarations, declared_paths};
use crate::gate::verifications::is_test_runner;
use std::collections::BTreeSet;
use std::fmt::Write;

/// The longest task folder name `task new` accepts.
pub const MAX_NAME: usize = 64;
/// The timeout written into each observed check.
pub const TIMEOUT_SECS: u64 = 600;
/// What the report skeleton says wherever the agent must decide.
pub use crate::contract::mastermind::executor_report::{STATUS_PLACEHOLDER, TESTS_RUN_PLACEHOLDER};

/// One observed check: the id the runner knows it by and its argv.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub id: String,
    pub argv: Vec<String>,
}

impl Check {
    /// The spec's `cmd`: the display form of the argv, so they always agree.
    pub fn cmd(&self) -> String {
        display_command(&self.argv)
    }
}

/// A task to scaffold, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskDraft {
    pub name: String,
    pub touches: Vec<String>,
    pub checks: Vec<Check>,
}

impl TaskDraft {
    /// Validate the command line's pieces. `checks` are command lines in
    /// POSIX shell word syntax (quotes group words; nothing is expanded).
    pub fn new(
        name: &str,
        touches: &[String],
        checks: &[String],
    ) -> Result<TaskDraft, ScaffoldError> {
        validate_name(name)?;
        let mut seen = BTreeSet::new();
        let mut paths = Vec::new();
        for path in touches {
            let normalized =
                declared_paths::normalize(path).map_err(|code| ScaffoldError::Touches {
                    path: path.clone(),
                    code,
                })?;
            if normalized.starts_with(crate::bookkeeping::MASTERMIND_DIR) {
                return Err(ScaffoldError::TouchesBookkeeping { path: path.clone() });
            }
            if seen.insert(normalized.clone()) {
                paths.push(normalized);
            }
        }
        let mut ids = BTreeSet::new();
        let mut commands = BTreeSet::new();
        let mut parsed = Vec::new();
        for line in checks {
            let argv = shlex::split(line)
                .ok_or_else(|| ScaffoldError::CheckQuotes { line: line.clone() })?;
            if argv.first().is_none_or(|first| first.is_empty()) {
                return Err(ScaffoldError::CheckEmpty { line: line.clone() });
            }
            if let Some((_, operator)) = declarations::shell_operator(&argv) {
                return Err(ScaffoldError::CheckShellOperator {
                    line: line.clone(),
                    operator,
                    shell: declarations::declared_shell(&argv).1,
                });
            }
            let mut id = check_id(&argv);
            let mut n = 2;
            while ids.contains(&id) {
                id = format!("{}-{n}", check_id(&argv));
                n += 1;
            }
            let check = Check { id, argv };
            if !commands.insert(check.cmd()) {
                return Err(ScaffoldError::CheckTwice { line: line.clone() });
            }
            ids.insert(check.id.clone());
            parsed.push(check);
        }
        Ok(TaskDraft {
            name: name.to_string(),
            touches: paths,
            checks: parsed,
        })
    }

    /// `.mastermind/tasks/<name>`.
    pub fn dir(&self) -> String {
        format!("{TASKS_DIR}{}", self.name)
    }

    pub fn spec_path(&self) -> String {
        format!("{}/spec.md", self.dir())
    }

    /// The spec: front matter (scope, observed checks) and a body to fill.
    pub fn spec(&self) -> String {
        let mut out = String::from("---\nmode: verified\nrisk: low\n");
        if !self.touches.is_empty() {
            out.push_str("touches:\n");
            for path in &self.touches {
                let _ = writeln!(out, "  - file: {}", scalar(path));
            }
        }
        if !self.checks.is_empty() {
            out.push_str("verify:\n");
            for check in &self.checks {
                let _ = writeln!(out, "  - cmd: {}", scalar(&check.cmd()));
                let _ = writeln!(out, "    run:");
                let _ = writeln!(out, "      id: {}", scalar(&check.id));
                let _ = writeln!(
                    out,
                    "      argv: [{}]",
                    check
                        .argv
                        .iter()
                        .map(|a| scalar(a))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let _ = writeln!(out, "      cwd: .");
                let _ = writeln!(out, "      timeout_secs: {TIMEOUT_SECS}");
            }
        }
        out.push_str("---\n");
        // No backticks in the body: a spec whose front matter declares no
        // paths is scoped by the body's backticked paths (the legacy rule),
        // so the body must not name anything that looks like one.
        let _ = write!(
            out,
            "# {name}\n\n## Goals\n\nWhat this task changes, and why.\n\n## Scope\n\n{scope}\n\n## Verification\n\n{verification}\n",
            name = self.name,
            scope = if self.touches.is_empty() {
                "No files are declared yet: list them under touches (or creates, for new files) in the front matter."
            } else {
                "Only the files listed under touches in the front matter may change."
            },
            verification = if self.checks.is_empty() {
                "No observed check is declared yet: add one under verify in the front matter."
                    .to_string()
            } else {
                let mut text = String::from(
                    "Each observed check under verify runs through the verification runner, which\nrecords a receipt the gate checks:\n\n",
                );
                for c in &self.checks {
                    let _ = writeln!(
                        text,
                        "    mastermind-hooks verification run {} --id {}",
                        self.spec_path(),
                        c.id
                    );
                }
                text.trim_end().to_string()
            }
        );
        out
    }

    /// The executor report skeleton: prose to replace and the YAML tail the
    /// gate reads, with a placeholder wherever only the agent can know.
    pub fn report(&self) -> String {
        let mut tail = String::new();
        let _ = writeln!(tail, "schema_version: 1");
        let _ = writeln!(tail, "spec: {}", scalar(&self.spec_path()));
        let _ = writeln!(tail, "status: {}", scalar(STATUS_PLACEHOLDER));
        let _ = writeln!(tail, "phases:\n  - id: implement\n    status: done");
        if self.touches.is_empty() {
            let _ = writeln!(tail, "files_modified: []");
        } else {
            let _ = writeln!(tail, "files_modified:");
            for path in &self.touches {
                let _ = writeln!(tail, "  - {}", scalar(path));
            }
        }
        let _ = writeln!(tail, "claims: []\ndefects: []");
        if self.checks.is_empty() {
            let _ = writeln!(tail, "verifications: []");
        } else {
            let _ = writeln!(tail, "verifications:");
            for check in &self.checks {
                let cmd = check.cmd();
                let _ = writeln!(tail, "  - cmd: {}", scalar(&cmd));
                let _ = writeln!(tail, "    result: pass");
                let _ = writeln!(tail, "    observed:\n      exit_code: 0");
                if is_test_runner(&cmd) {
                    let _ = writeln!(tail, "      tests_run: {}", scalar(TESTS_RUN_PLACEHOLDER));
                }
            }
        }
        format!(
            "# Executor report: {name}\n\n\
             What was done, in a few sentences (replace this paragraph).\n\n\
             The block below is what the gate reads. Fill in every `<...>`, keep\n\
             `files_modified` equal to the files the task really changed, and check\n\
             it with `mastermind-hooks validate {dir}/executor-report.md`.\n\n\
             <!-- mastermind:report-begin -->\n```yaml\n{tail}```\n<!-- mastermind:report-end -->\n",
            name = self.name,
            dir = self.dir(),
        )
    }
}

/// Task folder names: one path component, `[A-Za-z0-9._-]`, not starting
/// with `.` or `-`, at most [`MAX_NAME`] bytes.
pub fn validate_name(name: &str) -> Result<(), ScaffoldError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with(['.', '-'])
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(ScaffoldError::Name {
            name: name.to_string(),
        })
    }
}

/// An id for a check from its words: the program and its first operand
/// that is not an option (`python3 -m unittest` is `python3-unittest`,
/// `cargo test --locked` is `cargo-test`), in `[A-Za-z0-9_-]`.
pub fn check_id(argv: &[String]) -> String {
    let words: Vec<String> = argv
        .iter()
        .filter(|w| {
            !w.starts_with('-')
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_./@-".contains(&b))
        })
        .take(2)
        .map(|w| {
            let base = w.trim_end_matches('/').rsplit('/').next().unwrap_or(w);
            base.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect::<String>()
                .trim_matches('-')
                .to_string()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let mut id = words.join("-");
    id.truncate(48);
    if id.is_empty() { "check".into() } else { id }
}

/// A YAML scalar for `text`: plain when the strict YAML layer reads it back
/// as the same string, else double-quoted (JSON string syntax is valid YAML).
fn scalar(text: &str) -> String {
    let bytes = text.as_bytes();
    let plain = !text.is_empty()
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"_./- ".contains(&b))
        && (bytes[0].is_ascii_alphabetic()
            // A flag (`-c`, `--fix`), never a number (`-0`, `-1.5`, `-.5`).
            || (bytes[0] == b'-'
                && bytes.len() > 1
                && (bytes[1].is_ascii_alphabetic() || bytes[1] == b'-')))
        && !text.ends_with(' ')
        && !matches!(
            text,
            "true" | "True" | "TRUE" | "false" | "False" | "FALSE" | "null" | "Null" | "NULL"
        );
    if plain {
        text.to_string()
    } else {
        serde_json::Value::String(text.to_string()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::{Kind, check};
    use crate::codes::Code;
    use proptest::prelude::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn draft(touches: &[&str], checks: &[&str]) -> TaskDraft {
        TaskDraft::new("change-value", &strings(touches), &strings(checks)).unwrap()
    }

    #[test]
    fn the_spec_passes_its_contract_and_cmd_agrees_with_argv() {
        let task = draft(
            &["lib.py", "docs/it's here.md"],
            &[
                "python3 -m unittest -v",
                "sh -c 'test -f lib.py'",
                "cargo test --locked",
            ],
        );
        let spec = task.spec();
        let checked = check(Kind::Spec, spec.as_bytes());
        assert!(
            checked.diagnostics.is_empty(),
            "{spec}\n{:?}",
            checked.diagnostics
        );
        assert!(
            spec.contains("  - cmd: \"sh -c 'test -f lib.py'\"\n"),
            "{spec}"
        );
        assert!(
            spec.contains("      argv: [sh, -c, test -f lib.py]\n"),
            "{spec}"
        );
        assert!(spec.contains("  - cmd: python3 -m unittest -v\n"), "{spec}");
        let ids: Vec<&str> = task.checks.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["python3-unittest", "sh", "cargo-test"]);
    }

    #[test]
    fn a_bare_task_is_a_valid_spec_too() {
        let spec = draft(&[], &[]).spec();
        assert!(
            check(Kind::Spec, spec.as_bytes()).diagnostics.is_empty(),
            "{spec}"
        );
    }

    #[test]
    fn the_report_skeleton_fails_until_filled_then_passes() {
        let task = draft(&["lib.py"], &["python3 -m pytest", "make lint"]);
        let skeleton = task.report();
        let codes: Vec<Code> = check(Kind::ExecutorReport, skeleton.as_bytes())
            .diagnostics
            .iter()
            .map(|d| d.code)
            .collect();
        assert!(
            codes.contains(&Code::executor_report_schema_violation),
            "{skeleton}\n{codes:?}"
        );
        // The gate tells the untouched skeleton from a broken report.
        let errors = crate::contract::mastermind::executor_report::parse(skeleton.as_bytes())
            .err()
            .unwrap_or_default();
        assert!(
            crate::contract::mastermind::executor_report::is_unfilled_skeleton(
                skeleton.as_bytes(),
                &errors
            ),
            "{errors:?}"
        );
        let broken = skeleton.replace("files_modified:", "files_modifed:");
        let errors = crate::contract::mastermind::executor_report::parse(broken.as_bytes())
            .err()
            .unwrap_or_default();
        assert!(
            !crate::contract::mastermind::executor_report::is_unfilled_skeleton(
                broken.as_bytes(),
                &errors
            ),
            "a skeleton broken otherwise is broken: {errors:?}"
        );
        let filled = skeleton
            .replace(&scalar(STATUS_PLACEHOLDER), "complete")
            .replace(&scalar(TESTS_RUN_PLACEHOLDER), "12");
        let checked = check(Kind::ExecutorReport, filled.as_bytes());
        assert!(
            checked.diagnostics.is_empty(),
            "{filled}\n{:?}",
            checked.diagnostics
        );
        assert_eq!(
            filled.matches("tests_run").count(),
            1,
            "only the test runner"
        );
    }

    #[test]
    fn bad_names_paths_and_commands_are_refused() {
        for name in ["", ".hidden", "-x", "a/b", "a b", &"x".repeat(65)] {
            assert!(TaskDraft::new(name, &[], &[]).is_err(), "{name:?}");
        }
        let touch = |p: &str| TaskDraft::new("t", &strings(&[p]), &[]);
        for path in [
            "../x",
            "/etc/passwd",
            "a/./b",
            ".mastermind/tasks/t/spec.md",
        ] {
            assert!(touch(path).is_err(), "{path:?}");
        }
        let run = |c: &[&str]| TaskDraft::new("t", &[], &strings(c));
        assert!(run(&["echo 'open"]).is_err());
        assert!(run(&[""]).is_err());
        assert!(run(&["make", "make"]).is_err());
        assert_eq!(
            run(&["make", "make lint", "make  lint --x"])
                .map(|t| t.checks.len())
                .ok(),
            Some(3)
        );
    }

    #[test]
    fn a_check_line_with_a_shell_operator_gets_the_declared_shell() {
        match TaskDraft::new("t", &[], &["npm run build && npm run lint".to_string()]) {
            Err(ScaffoldError::CheckShellOperator {
                operator, shell, ..
            }) => {
                assert_eq!(operator, "&&");
                assert_eq!(shell, "sh -c 'npm run build && npm run lint'");
            }
            other => panic!("{other:?}"),
        }
        // The declared shell, as the refusal words it, is taken.
        let draft = TaskDraft::new(
            "t",
            &[],
            &["sh -c 'npm run build && npm run lint'".to_string()],
        )
        .unwrap();
        assert_eq!(
            draft.checks[0].argv,
            ["sh", "-c", "npm run build && npm run lint"]
        );
    }

    #[test]
    fn a_negative_number_in_argv_stays_a_string() {
        // `-0` written plain reads back as the number 0 (found by the
        // round-trip property below).
        for (arg, written) in [
            ("-0", "\"-0\""),
            ("-1.5", "\"-1.5\""),
            ("-.5", "\"-.5\""),
            ("-c", "-c"),
            ("--fix", "--fix"),
        ] {
            assert_eq!(scalar(arg), written, "{arg}");
        }
        let task = TaskDraft::new("t", &[], &strings(&["seq -0 1"])).unwrap();
        assert_eq!(task.checks[0].argv, strings(&["seq", "-0", "1"]));
        let spec = task.spec();
        assert!(
            spec.contains("argv: [seq, \"-0\", 1]") || spec.contains("argv: [seq, \"-0\", \"1\"]"),
            "{spec}"
        );
    }

    #[test]
    fn check_ids_are_short_and_legal() {
        let id = |words: &[&str]| check_id(&strings(words));
        assert_eq!(id(&["python3", "-m", "pytest", "tests/"]), "python3-pytest");
        assert_eq!(id(&["./scripts/check.sh"]), "check-sh");
        assert_eq!(id(&["--"]), "check");
        assert_eq!(id(&["npx", "@scope/tool"]), "npx-tool");
    }

    proptest! {
        #[test]
        fn any_command_line_round_trips_through_the_spec(
            argv in proptest::collection::vec("[ -~]{1,12}", 1..5)
        ) {
            prop_assume!(!argv[0].trim().is_empty() && !argv[0].starts_with('-'));
            // A bare shell operator is refused (its own test above).
            prop_assume!(declarations::shell_operator(&argv).is_none());
            let line = shlex::try_join(argv.iter().map(String::as_str)).unwrap();
            let task = TaskDraft::new("t", &[], &[line]).unwrap();
            prop_assert_eq!(&task.checks[0].argv, &argv);
            let spec = task.spec();
            let checked = check(Kind::Spec, spec.as_bytes());
            prop_assert!(checked.diagnostics.is_empty(), "{}\n{:?}", spec, checked.diagnostics);
        }
    }
}
