//! `mastermind-hooks validate`: check files on disk against their contracts.
//! Subagent returns are judged by `--role`, by `--dispatch` (the dispatch
//! description's prefix routes them, seed 004 section 4.4), or by their own
//! `handover.role`.

use crate::artifact::{self, Kind};
use crate::codes::Code;
use crate::commands::output::{self, OutputArgs};
use crate::contract::subagent::dispatch;
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::input;
use crate::report::{FileResult, Report};
use std::path::Path;

/// How the files are to be judged: `--kind`, `--role`, `--dispatch`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Judge<'a> {
    pub kind: Option<Kind>,
    /// Plastic reports and subagent returns only.
    pub role: Option<&'a str>,
    /// Subagent returns only: the dispatch description.
    pub dispatch: Option<&'a str>,
}

impl Judge<'_> {
    fn run(&self, kind: Kind, bytes: &[u8]) -> artifact::Checked {
        match (kind, self.dispatch) {
            (Kind::SubagentReturn, Some(description)) => artifact::Checked {
                diagnostics: dispatch::check_dispatched(bytes, description).diagnostics,
                state: None,
            },
            _ => artifact::check_with_role(kind, bytes, self.role),
        }
    }
}

/// Check one file: infer or take its kind, read it bounded, run its contract.
pub fn check_file(path: &str, judge: &Judge<'_>) -> FileResult {
    // `--dispatch` names a subagent return's description: it implies the kind.
    let dispatched = judge.dispatch.map(|_| Kind::SubagentReturn);
    let Some(kind) = judge.kind.or_else(|| Kind::infer(path)).or(dispatched) else {
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
            let checked = judge.run(kind, &bytes);
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

pub fn run(files: &[String], judge: &Judge<'_>, out: &OutputArgs) -> ExitStatus {
    output::finish(&Report::new(check_files(files, judge)), out)
}

/// Below this many files one thread is faster than starting more.
const PARALLEL_THRESHOLD: usize = 32;

/// Check every file, in parallel across the available cores when there are
/// many; results keep the order of `files`.
pub fn check_files(files: &[String], judge: &Judge<'_>) -> Vec<FileResult> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || files.len() < PARALLEL_THRESHOLD {
        return files.iter().map(|path| check_file(path, judge)).collect();
    }
    let chunk = files.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|path| check_file(path, judge))
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
