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
    output::finish(&Report::new(check_files(files, kind, role)), out)
}

/// Below this many files one thread is faster than starting more.
const PARALLEL_THRESHOLD: usize = 32;

/// Check every file, in parallel across the available cores when there are
/// many; results keep the order of `files`.
pub fn check_files(files: &[String], kind: Option<Kind>, role: Option<&str>) -> Vec<FileResult> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || files.len() < PARALLEL_THRESHOLD {
        return files
            .iter()
            .map(|path| check_file(path, kind, role))
            .collect();
    }
    let chunk = files.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|path| check_file(path, kind, role))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .zip(files.chunks(chunk))
            .flat_map(|(worker, part)| {
                // A panicking worker must not lose its files: judge them as
                // internal errors, never as passes.
                worker.join().unwrap_or_else(|_| {
                    part.iter()
                        .map(|path| {
                            FileResult::new(
                                path.clone(),
                                None,
                                None,
                                vec![Diagnostic::new(
                                    Code::internal_error,
                                    format!("checking {path} panicked"),
                                )],
                            )
                        })
                        .collect()
                })
            })
            .collect()
    })
}
