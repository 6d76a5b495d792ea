//! Observed verification declarations (`verify[].run`, contracts
//! `mastermind.md` section 6.1): count, ids, ambiguity, argv and timeout
//! limits, canonical cwd and the `cmd` display rule.

use super::model::{Frontmatter, VerifyEntry};
use crate::codes::Code;
use crate::contract::mastermind::argv_display::{RunDeclaration, display_command};
use crate::diagnostic::Diagnostic;
use std::collections::{BTreeMap, BTreeSet};

pub const MAX_OBSERVED: usize = 32;
pub const MAX_ARGV_ITEMS: usize = 64;
pub const MAX_ARG_BYTES: usize = 8192;
pub const MAX_ARGV_BYTES: usize = 32768;
pub const MAX_TIMEOUT_SECS: u64 = 3600;

/// True for a 1..64 byte identifier of `[A-Za-z0-9_-]`.
pub fn is_identifier(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `.` or a repository-relative path already in canonical form.
pub fn is_canonical_cwd(cwd: &str) -> bool {
    cwd == "."
        || (!cwd.is_empty()
            && !cwd.contains('\0')
            && cwd
                .split('/')
                .all(|segment| !segment.is_empty() && segment != "." && segment != ".."))
}

/// The shell's list and pipeline operators. As an item of argv, where no
/// shell runs, each is a mistake: the program gets it as an argument and
/// the command after it never runs.
pub const SHELL_OPERATORS: &[&str] = &["&&", "||", ";", "|"];

/// `find`'s actions whose command ends at a `;` item of its own.
const FIND_ACTIONS: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];

/// The first bare shell operator of `argv`, with its index. A `;` that ends
/// a `find ... -exec CMD ;` action is find's own argument, not an operator.
pub fn shell_operator(argv: &[String]) -> Option<(usize, &'static str)> {
    let mut in_find_action = false;
    for (index, item) in argv.iter().enumerate() {
        if FIND_ACTIONS.contains(&item.as_str()) {
            in_find_action = true;
            continue;
        }
        if in_find_action && (item == ";" || item == "+") {
            in_find_action = false;
            continue;
        }
        if let Some(operator) = SHELL_OPERATORS.iter().find(|op| **op == item) {
            return Some((index, operator));
        }
    }
    None
}

/// The shell command line `argv` was meant as: each command between the
/// operators in its display form, joined by the operators
/// (`npm run build && npm run lint`).
pub fn shell_script(argv: &[String]) -> String {
    let mut out = String::new();
    let mut command: Vec<String> = Vec::new();
    let flush = |out: &mut String, command: &mut Vec<String>| {
        if !command.is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&display_command(command));
            command.clear();
        }
    };
    for item in argv {
        if SHELL_OPERATORS.contains(&item.as_str()) {
            flush(&mut out, &mut command);
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(item);
        } else {
            command.push(item.clone());
        }
    }
    flush(&mut out, &mut command);
    out
}

/// The declaration that runs `argv`'s commands as their shell line means:
/// `sh -c '<script>'`, as argv and as its `cmd`.
pub fn declared_shell(argv: &[String]) -> (Vec<String>, String) {
    let shell = vec!["sh".to_string(), "-c".to_string(), shell_script(argv)];
    let cmd = display_command(&shell);
    (shell, cmd)
}

/// `[sh, -c, '<script>']`: the declared shell's argv as a YAML flow
/// sequence, the script single-quoted (a `'` in it doubled).
fn yaml_shell_argv(script: &str) -> String {
    format!("[sh, -c, '{}']", script.replace('\'', "''"))
}

/// The finding for a bare shell operator in a declaration's argv, with the
/// declared-shell fix; `None` when argv holds none.
pub fn shell_operator_finding(run: &RunDeclaration) -> Option<Diagnostic> {
    let (index, operator) = shell_operator(&run.argv)?;
    let (shell, cmd) = declared_shell(&run.argv);
    let script = shell.last().cloned().unwrap_or_default();
    let after: Vec<String> = run.argv[index + 1..]
        .iter()
        .take_while(|item| !SHELL_OPERATORS.contains(&item.as_str()))
        .cloned()
        .collect();
    let lost = if after.is_empty() {
        String::new()
    } else {
        format!(", and `{}` never runs", display_command(&after))
    };
    Some(
        Diagnostic::new(
            Code::verification_argv_shell_operator,
            format!(
                "observed verification `{}` has the shell operator `{operator}` as argv[{index}], but argv runs without a shell: `{}` gets `{operator}` as an argument{lost}",
                run.id, run.argv[0],
            ),
        )
        .with_hint(format!(
            "Declare the shell and give it the whole line: `argv: {}` with `cmd: {}` (then a failing command after `{operator}` fails the check). Or declare each command as a check of its own.",
            yaml_shell_argv(&script),
            cmd
        )),
    )
}

/// Every argv and timeout limit a declaration breaks: the JSON pointer
/// below `/run` of what breaks it, and what is wrong, in declaration order.
pub fn argv_problems(run: &RunDeclaration) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if run.argv.is_empty() {
        out.push((
            "/argv".to_string(),
            "argv is empty; it holds 1 to 64 items, the program first".to_string(),
        ));
    } else if run.argv.len() > MAX_ARGV_ITEMS {
        out.push((
            "/argv".to_string(),
            format!(
                "argv has {} items; at most {MAX_ARGV_ITEMS}",
                run.argv.len()
            ),
        ));
    }
    if run.argv.first().is_some_and(String::is_empty) {
        out.push((
            "/argv/0".to_string(),
            "argv[0], the program, is empty".to_string(),
        ));
    }
    for (index, arg) in run.argv.iter().enumerate() {
        if arg.len() > MAX_ARG_BYTES {
            out.push((
                format!("/argv/{index}"),
                format!(
                    "argv[{index}] is {} bytes; at most {MAX_ARG_BYTES} per item",
                    arg.len()
                ),
            ));
        }
        if arg.contains('\0') {
            out.push((
                format!("/argv/{index}"),
                format!("argv[{index}] holds a NUL byte"),
            ));
        }
    }
    let total: usize = run.argv.iter().map(String::len).sum();
    if total > MAX_ARGV_BYTES {
        out.push((
            "/argv".to_string(),
            format!("argv is {total} bytes in all; at most {MAX_ARGV_BYTES}"),
        ));
    }
    if !(1..=MAX_TIMEOUT_SECS).contains(&run.timeout_secs) {
        out.push((
            "/timeout_secs".to_string(),
            format!(
                "timeout_secs is {}; it is 1 to {MAX_TIMEOUT_SECS} seconds",
                run.timeout_secs
            ),
        ));
    }
    out
}

/// A character diff of `actual` against `expected`: `[-removed-]{+added+}`.
pub fn inline_diff(actual: &str, expected: &str) -> String {
    crate::diff::inline(actual, expected)
}

/// Validate every observed declaration of a front matter. Each run is
/// checked against every rule; the first diagnostic is the one the
/// reference reports.
pub fn validate(fm: &Frontmatter) -> Vec<Diagnostic> {
    let runs: Vec<(usize, &str, &RunDeclaration)> = fm
        .verify
        .iter()
        .enumerate()
        .filter_map(|(index, entry)| match entry {
            VerifyEntry::Observed(o) => Some((index, o.cmd.trim(), &o.run)),
            _ => None,
        })
        .collect();
    if runs.len() > MAX_OBSERVED {
        return vec![
            Diagnostic::new(
                Code::verification_declaration_limit,
                format!(
                    "at most {MAX_OBSERVED} observed verification declarations are supported ({} declared)",
                    runs.len()
                ),
            )
            .with_pointer("/verify"),
        ];
    }
    let mut commands = BTreeMap::<&str, usize>::new();
    for cmd in fm.verify.iter().filter_map(VerifyEntry::command) {
        *commands.entry(cmd.trim()).or_default() += 1;
    }
    let mut ids = BTreeSet::new();
    let mut out = Vec::new();
    for (index, cmd, run) in runs {
        let at = |field: &str| format!("/verify/{index}{field}");
        if !is_identifier(&run.id) || !ids.insert(run.id.as_str()) {
            out.push(
                Diagnostic::new(
                    Code::verification_id_invalid,
                    format!(
                        "observed verification IDs must be unique 1..64 byte ASCII identifiers (`{}`)",
                        run.id
                    ),
                )
                .with_pointer(at("/run/id")),
            );
        }
        if commands.get(cmd) != Some(&1) {
            out.push(
                Diagnostic::new(
                    Code::verification_cmd_ambiguous,
                    format!("observed verification `{}` has an ambiguous cmd", run.id),
                )
                .with_pointer(at("/cmd")),
            );
        }
        let problems = argv_problems(run);
        if !problems.is_empty() {
            // One finding per declaration, naming every limit it breaks; its
            // pointer is what breaks the limit when that is one place.
            let pointer = match problems.as_slice() {
                [(pointer, _)] => at(&format!("/run{pointer}")),
                _ => at("/run"),
            };
            out.push(
                Diagnostic::new(
                    Code::verification_argv_invalid,
                    format!(
                        "observed verification `{}` breaks {}: {}",
                        run.id,
                        if problems.len() == 1 {
                            "a limit"
                        } else {
                            "limits"
                        },
                        problems
                            .iter()
                            .map(|(_, problem)| problem.as_str())
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                )
                .with_pointer(pointer),
            );
        }
        if !is_canonical_cwd(&run.cwd) {
            out.push(
                Diagnostic::new(
                    Code::verification_cwd_not_canonical,
                    format!(
                        "observed verification `{}` needs a canonical repository-relative cwd (got `{}`)",
                        run.id, run.cwd
                    ),
                )
                .with_pointer(at("/run/cwd")),
            );
        }
        // A shell operator is the finding, not the display of the argv that
        // holds it: its fix is a declared shell, never a quoted operator.
        if let Some(finding) = shell_operator_finding(run) {
            let index = shell_operator(&run.argv).map_or(0, |(index, _)| index);
            out.push(finding.with_pointer(at(&format!("/run/argv/{index}"))));
            continue;
        }
        let expected = display_command(&run.argv);
        if cmd != expected {
            out.push(
                Diagnostic::new(
                    Code::verification_cmd_mismatch,
                    format!(
                        "observed verification `{}` cmd must be `{expected}`; diff of cmd against it: {}",
                        run.id,
                        inline_diff(cmd, &expected)
                    ),
                )
                .with_pointer(at("/cmd"))
                .with_hint(format!("set `cmd` to `{expected}`, the display form of run.argv")),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::codes::Code;
    use crate::contract::mastermind::spec::tests::{VALID_SPEC, codes};
    use crate::diagnostic::Diagnostic;

    fn with_verify(verify: &str) -> String {
        format!("---\nverify:\n{verify}---\n")
    }

    fn observed(cmd: &str, id: &str, argv: &str, cwd: &str, timeout: &str) -> String {
        format!(
            "  - cmd: {cmd}\n    run:\n      id: {id}\n      argv: {argv}\n      cwd: {cwd}\n      timeout_secs: {timeout}\n"
        )
    }

    /// The spec checker's findings on a spec whose one verify entry shows
    /// `cmd` and runs `argv` in `.`.
    fn findings(cmd: &str, id: &str, argv: &str, timeout: &str) -> Vec<Diagnostic> {
        let spec = with_verify(&observed(cmd, id, argv, ".", timeout));
        crate::contract::mastermind::spec::check(spec.as_bytes()).1
    }

    #[test]
    fn a_bare_shell_operator_is_refused_with_the_declared_shell_fix() {
        let found = findings(
            "npm run build '&&' npm run lint",
            "build",
            "[npm, run, build, '&&', npm, run, lint]",
            "60",
        );
        assert_eq!(
            found.iter().map(|d| d.code).collect::<Vec<_>>(),
            [Code::verification_argv_shell_operator],
            "the operator is the one finding: {found:?}"
        );
        let d = &found[0];
        assert_eq!(d.json_pointer.as_deref(), Some("/verify/0/run/argv/3"));
        assert!(
            d.message.contains("`npm run lint` never runs"),
            "{}",
            d.message
        );
        let hint = d.hint.as_deref().unwrap_or_default();
        assert!(
            hint.contains("`argv: [sh, -c, 'npm run build && npm run lint']`")
                && hint.contains("`cmd: sh -c 'npm run build && npm run lint'`"),
            "{hint}"
        );
        // No help suggests quoting an operator: the cmd an agent writes
        // (unquoted) gets the same single finding, never the display rule's.
        for cmd in [
            "npm run build && npm run lint",
            "'npm run build && npm run lint'",
        ] {
            let found = findings(
                &format!("\"{cmd}\""),
                "build",
                "[npm, run, build, '&&', npm, run, lint]",
                "60",
            );
            assert_eq!(
                found.iter().map(|d| d.code).collect::<Vec<_>>(),
                [Code::verification_argv_shell_operator],
                "{cmd}"
            );
            for d in &found {
                let said = format!("{} {}", d.message, d.hint.as_deref().unwrap_or_default());
                assert!(!said.contains("'&&'"), "{said}");
            }
        }
        for (argv, operator) in [
            ("[make, a, '||', make, b]", "||"),
            ("[make, a, ';', make, b]", ";"),
            ("[grep, x, f, '|', wc, -l]", "|"),
        ] {
            let display =
                super::display_command(&serde_saphyr::from_str::<Vec<String>>(argv).unwrap());
            let found = findings(
                &format!("'{}'", display.replace('\'', "''")),
                "t",
                argv,
                "1",
            );
            assert_eq!(found.len(), 1, "{argv}: {found:?}");
            assert_eq!(found[0].code, Code::verification_argv_shell_operator);
            assert!(
                found[0].message.contains(&format!("`{operator}`")),
                "{argv}"
            );
        }
    }

    #[test]
    fn operators_inside_an_item_or_ending_a_find_action_are_arguments() {
        let argv = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for fine in [
            argv(&["sh", "-c", "npm run build && npm run lint"]),
            argv(&[
                "find",
                ".",
                "-name",
                "*.py",
                "-exec",
                "python3",
                "-m",
                "py_compile",
                "{}",
                ";",
            ]),
            argv(&["find", ".", "-execdir", "true", "{}", "+"]),
            argv(&["echo", "a&&b", "x|y", "end;"]),
        ] {
            assert_eq!(super::shell_operator(&fine), None, "{fine:?}");
        }
        assert_eq!(
            super::shell_operator(&argv(&["find", ".", "-exec", "true", "{}", ";", ";", "ls"])),
            Some((6, ";"))
        );
        assert_eq!(
            super::shell_script(&argv(&[
                "npm",
                "run",
                "build",
                "&&",
                "echo",
                "two words",
                "|",
                "wc"
            ])),
            "npm run build && echo 'two words' | wc"
        );
        let (shell, cmd) = super::declared_shell(&argv(&["make", "it's", ";", "make", "b"]));
        assert_eq!(shell, argv(&["sh", "-c", r"make 'it'\''s' ; make b"]));
        assert_eq!(
            cmd,
            crate::contract::mastermind::argv_display::display_command(&shell)
        );
    }

    #[test]
    fn nearest_valid_declaration_passes() {
        assert!(codes(VALID_SPEC).is_empty());
        assert!(
            codes(&with_verify(&observed(
                "'make test'",
                "t",
                "[make, test]",
                "sub/dir",
                "3600"
            )))
            .is_empty()
        );
    }

    #[test]
    fn each_rule_rejects() {
        let too_many: String = (0..33)
            .map(|i| {
                observed(
                    &format!("'echo {i}'"),
                    &format!("c{i}"),
                    &format!("[echo, '{i}']"),
                    ".",
                    "1",
                )
            })
            .collect();
        assert_eq!(
            codes(&with_verify(&too_many)),
            [Code::verification_declaration_limit]
        );
        let exactly_32: String = (0..32)
            .map(|i| {
                observed(
                    &format!("'echo {i}'"),
                    &format!("c{i}"),
                    &format!("[echo, '{i}']"),
                    ".",
                    "1",
                )
            })
            .collect();
        assert!(codes(&with_verify(&exactly_32)).is_empty());

        for (entry, code) in [
            (
                observed("'make a'", "'bad id'", "[make, a]", ".", "1"),
                Code::verification_id_invalid,
            ),
            (
                observed("'make a'", &"x".repeat(65), "[make, a]", ".", "1"),
                Code::verification_id_invalid,
            ),
            (
                observed("'make a'", "t", "[make, a]", ".", "0"),
                Code::verification_argv_invalid,
            ),
            (
                observed("'make a'", "t", "[make, a]", ".", "3601"),
                Code::verification_argv_invalid,
            ),
            (
                observed("''", "t", "[]", ".", "1"),
                Code::verification_argv_invalid,
            ),
            (
                observed("\"''\"", "t", "['']", ".", "1"),
                Code::verification_argv_invalid,
            ),
            (
                observed("'make a'", "t", "[make, a]", "./sub", "1"),
                Code::verification_cwd_not_canonical,
            ),
            (
                observed("'make a'", "t", "[make, a]", "sub/", "1"),
                Code::verification_cwd_not_canonical,
            ),
            (
                observed("'make a'", "t", "[make, a]", "../x", "1"),
                Code::verification_cwd_not_canonical,
            ),
            (
                observed("'make a'", "t", "[make, a]", "/abs", "1"),
                Code::verification_cwd_not_canonical,
            ),
            (
                observed("'make  a'", "t", "[make, a]", ".", "1"),
                Code::verification_cmd_mismatch,
            ),
            (
                observed("'sh -c echo hi'", "t", "[sh, -c, 'echo hi']", ".", "1"),
                Code::verification_cmd_mismatch,
            ),
        ] {
            assert_eq!(codes(&with_verify(&entry)), [code], "{entry}");
        }
        let long_arg = format!("[make, '{}']", "a".repeat(8193));
        let cmd = format!("'make {}'", "a".repeat(8193));
        assert!(
            codes(&with_verify(&observed(&cmd, "t", &long_arg, ".", "1")))
                .contains(&Code::verification_argv_invalid)
        );
    }

    #[test]
    fn an_argv_finding_names_the_limit_it_breaks() {
        let finding = |entry: &str| {
            let (_, diagnostics) =
                crate::contract::mastermind::spec::check(with_verify(entry).as_bytes());
            let d = diagnostics
                .into_iter()
                .find(|d| d.code == Code::verification_argv_invalid)
                .unwrap_or_else(|| panic!("{entry}"));
            (d.message, d.json_pointer, d.line)
        };
        for (entry, says, pointer) in [
            (
                observed("'make a'", "t", "[make, a]", ".", "0"),
                "timeout_secs is 0; it is 1 to 3600 seconds",
                "/verify/0/run/timeout_secs",
            ),
            (
                observed("''", "t", "[]", ".", "1"),
                "argv is empty",
                "/verify/0/run/argv",
            ),
            (
                observed("\"''\"", "t", "['']", ".", "1"),
                "argv[0], the program, is empty",
                "/verify/0/run/argv/0",
            ),
            (
                observed(
                    &format!("'make {}'", "a".repeat(8193)),
                    "t",
                    &format!("[make, '{}']", "a".repeat(8193)),
                    ".",
                    "1",
                ),
                "argv[1] is 8193 bytes; at most 8192 per item",
                "/verify/0/run/argv/1",
            ),
            (
                observed("''", "t", "[]", ".", "4000"),
                "argv is empty; it holds 1 to 64 items, the program first; timeout_secs is 4000",
                "/verify/0/run",
            ),
        ] {
            let (message, at, line) = finding(&entry);
            assert!(message.contains(says), "{message}");
            assert_eq!(at.as_deref(), Some(pointer), "{message}");
            assert!(line.is_some(), "{message}");
        }
        let many: Vec<String> = (0..65).map(|i| format!("a{i}")).collect();
        let entry = observed(
            &format!("'make {}'", many.join(" ")),
            "t",
            &format!("[make, {}]", many.join(", ")),
            ".",
            "1",
        );
        assert!(finding(&entry).0.contains("argv has 66 items; at most 64"));
    }

    #[test]
    fn ambiguity_counts_report_only_commands_and_duplicate_ids() {
        let entries = format!(
            "{}  - cmd: make a\n",
            observed("make a", "t", "[make, a]", ".", "1")
        );
        assert_eq!(
            codes(&with_verify(&entries)),
            [Code::verification_cmd_ambiguous]
        );
        let entries = format!(
            "{}{}",
            observed("make a", "t", "[make, a]", ".", "1"),
            observed("make b", "t", "[make, b]", ".", "1")
        );
        assert_eq!(
            codes(&with_verify(&entries)),
            [Code::verification_id_invalid]
        );
        // A label with the same text is not a cmd.
        let entries = format!(
            "{}  - make a\n",
            observed("make a", "t", "[make, a]", ".", "1")
        );
        assert!(codes(&with_verify(&entries)).is_empty());
    }

    #[test]
    fn mismatch_message_shows_expected_and_diff() {
        let text = with_verify(&observed(
            "'cargo test  --locked'",
            "t",
            "[cargo, test, --locked]",
            ".",
            "1",
        ));
        let (_, diagnostics) = crate::contract::mastermind::spec::check(text.as_bytes());
        assert!(
            diagnostics[0]
                .message
                .contains("cmd must be `cargo test --locked`")
        );
        assert!(
            diagnostics[0].message.contains("cargo test [- -]--locked"),
            "{}",
            diagnostics[0].message
        );
    }
}
