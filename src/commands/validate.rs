//! `mastermind-hooks validate`: check files on disk against their contracts.

use crate::codes::Code;
use crate::commands::output::{self, OutputArgs};
use crate::contract::{self, Kind};
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::input;
use crate::report::{FileResult, Report};
use std::path::Path;

/// Check one file: infer or take its kind, read it bounded, run its contract.
/// `role` is `--role` (plastic reports and subagent returns only).
pub fn check_file(path: &str, kind: Option<Kind>, role: Option<&str>) -> FileResult {
    let Some(kind) = kind.or_else(|| Kind::infer(path)) else {
        return FileResult::new(
            path.to_string(),
            None,
            None,
            vec![Diagnostic::new(
                Code::kind_unknown,
                format!(
                    "cannot tell the kind of {path} from its name; pass --kind ({})",
                    Kind::ALL
                        .iter()
                        .map(|k| k.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )],
        );
    };
    match input::read_bounded(Path::new(path), kind.max_bytes()) {
        Ok(bytes) => {
            let checked = contract::check_with_role(kind, &bytes, role);
            FileResult::new(
                path.to_string(),
                Some(kind.name()),
                checked.state,
                checked.diagnostics,
            )
        }
        Err(diagnostic) => {
            FileResult::new(path.to_string(), Some(kind.name()), None, vec![diagnostic])
        }
    }
}

pub fn run(
    files: &[String],
    kind: Option<Kind>,
    role: Option<&str>,
    out: &OutputArgs,
) -> ExitStatus {
    let results = files
        .iter()
        .map(|path| check_file(path, kind, role))
        .collect();
    output::finish(&Report::new(results), out)
}
