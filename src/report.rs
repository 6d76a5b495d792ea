//! The result of a checking command, independent of how it is rendered:
//! one entry per file with its diagnostics, plus the exit status they imply.

use crate::contract::receipt::CheckState;
use crate::diagnostic::{Diagnostic, ExitStatus, Severity};
use serde::Serialize;

/// One checked file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileResult {
    pub path: String,
    /// The artifact kind, when known.
    pub kind: Option<&'static str>,
    pub ok: bool,
    /// Receipt inspection state, for receipts.
    pub state: Option<CheckState>,
    pub diagnostics: Vec<Diagnostic>,
}

impl FileResult {
    pub fn new(
        path: String,
        kind: Option<&'static str>,
        state: Option<CheckState>,
        diagnostics: Vec<Diagnostic>,
    ) -> Self {
        let diagnostics: Vec<Diagnostic> = diagnostics
            .into_iter()
            .map(|d| {
                if d.path.is_none() {
                    d.with_path(path.clone())
                } else {
                    d
                }
            })
            .collect();
        let ok = !diagnostics.iter().any(Diagnostic::is_error);
        FileResult {
            path,
            kind,
            ok,
            state,
            diagnostics,
        }
    }

    pub fn unreadable(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.is_error() && d.cannot_check())
    }
}

/// Totals over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub files: usize,
    pub valid: usize,
    pub invalid: usize,
    pub unreadable: usize,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

/// Everything a renderer needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub version: u32,
    pub ok: bool,
    pub files: Vec<FileResult>,
    pub summary: Summary,
}

impl Report {
    pub fn new(files: Vec<FileResult>) -> Self {
        let mut summary = Summary {
            files: files.len(),
            ..Summary::default()
        };
        for file in &files {
            if file.unreadable() {
                summary.unreadable += 1;
            } else if file.ok {
                summary.valid += 1;
            } else {
                summary.invalid += 1;
            }
            for d in &file.diagnostics {
                match d.severity {
                    Severity::Error => summary.errors += 1,
                    Severity::Warning => summary.warnings += 1,
                    Severity::Note => summary.notes += 1,
                }
            }
        }
        let ok = files.iter().all(|f| f.ok);
        Report {
            version: 1,
            ok,
            files,
            summary,
        }
    }

    pub fn exit_status(&self) -> ExitStatus {
        ExitStatus::of(self.files.iter().flat_map(|f| f.diagnostics.iter()))
    }
}
