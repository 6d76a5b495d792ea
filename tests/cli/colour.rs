//! Colour of human output, from the command line: `--color always` and
//! `never` decide alone; `auto` (the default) colours when `CLICOLOR_FORCE`
//! is set (not empty, not `0`) and `NO_COLOR` is not (not empty), and
//! otherwise only on a terminal (output captured here is never one; the
//! terminal case is `hook_output_is_coloured_by_whether_stderr_is_a_terminal`
//! in the gate tests). Machine formats are never coloured.

use crate::common::BIN;
use std::process::Command;

const BAD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/cmd/validate.in/bad/audit-tail.md"
);

/// The output of `validate` on a bad file with `args` and the environment
/// variables `vars` (the others of NO_COLOR, CLICOLOR_FORCE removed).
fn output(args: &[&str], vars: &[(&str, &str)]) -> String {
    let mut command = Command::new(BIN);
    command
        .arg("validate")
        .args(args)
        .arg(BAD)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env("TERM", "xterm");
    for (name, value) in vars {
        command.env(name, value);
    }
    let out = command.output().expect("the binary runs");
    assert_eq!(out.status.code(), Some(1), "a bad file fails");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn coloured(text: &str) -> bool {
    text.contains("\u{1b}[")
}

#[test]
fn colour_follows_the_flag_then_the_environment() {
    let red_error = "\u{1b}[31merror\u{1b}[39m";
    let always = output(&["--color", "always"], &[("NO_COLOR", "1")]);
    assert!(always.contains(red_error), "{always:?}");
    assert!(!coloured(&output(
        &["--color", "never"],
        &[("CLICOLOR_FORCE", "1")]
    )));
    // auto, not a terminal: plain unless forced.
    assert!(!coloured(&output(&[], &[])));
    assert!(output(&[], &[("CLICOLOR_FORCE", "1")]).contains(red_error));
    assert!(!coloured(&output(&[], &[("CLICOLOR_FORCE", "0")])));
    // A non-empty NO_COLOR wins over CLICOLOR_FORCE; an empty one is unset.
    assert!(!coloured(&output(
        &[],
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]
    )));
    assert!(coloured(&output(
        &[],
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "")]
    )));
    // Machine formats stay plain even when colour is forced.
    for format in ["json", "sarif", "junit", "gitlab", "github"] {
        let text = output(&["--format", format, "--color", "always"], &[]);
        assert!(!coloured(&text), "{format}: {text:?}");
    }
}
