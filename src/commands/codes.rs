//! `mastermind-hooks codes`: list every reason code, or explain one.

use crate::codes::{Code, Outcome};
use crate::commands::emit;
use crate::diagnostic::ExitStatus;
use std::fmt::Write;

/// The Markdown table of every code (also embedded in docs/src/codes.md).
pub fn markdown_table() -> String {
    let mut out = String::from("| code | severity | exit | meaning |\n|---|---|---|---|\n");
    for &code in Code::ALL {
        let exit = match code.outcome() {
            Outcome::Violation => "1",
            Outcome::CannotCheck => "2",
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {exit} | {} |",
            code.as_str(),
            code.default_severity().as_str(),
            code.summary().replace('|', "\\|")
        );
    }
    out
}

pub fn run(name: Option<&str>) -> ExitStatus {
    let text = match name {
        None => markdown_table(),
        Some(name) => match Code::from_name(name) {
            Some(code) => format!(
                "{}\n  severity: {}\n  meaning:  {}\n  fix:      {}\n",
                code.as_str(),
                code.default_severity().as_str(),
                code.summary(),
                code.help()
            ),
            None => {
                eprintln!(
                    "error: unknown reason code `{name}`; run `mastermind-hooks codes` for the list"
                );
                return ExitStatus::CannotCheck;
            }
        },
    };
    match emit(&text) {
        Ok(()) => ExitStatus::Pass,
        Err(_) => ExitStatus::CannotCheck,
    }
}
