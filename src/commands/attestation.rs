//! `mastermind-hooks attestation verify FILE --commit REV`: whether a
//! statement `check --ci --rerun --attestation` wrote attests that a commit
//! passed (`crate::runner::attestation::verify`). Exit 0 it does, 1 it does
//! not, 2 the statement or the commit cannot be read.

use crate::codes::Code;
use crate::commands::emit;
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::render::human;
use crate::repo::Repo;
use crate::runner::attestation::{self, Verified};
use std::path::Path;

fn print(diagnostic: &Diagnostic) {
    let mut text = String::new();
    human::diagnostic(&mut text, diagnostic);
    eprint!("{text}");
}

/// The commit `rev` names and its tree: in the repository around the
/// current directory, or a full commit id outside one.
fn resolve(rev: &str) -> Result<(String, Option<String>), Diagnostic> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    match Repo::discover(&cwd) {
        Ok(repo) => {
            let commit = repo.resolve_commit(rev).map_err(|e| {
                Diagnostic::new(
                    Code::attestation_unusable,
                    format!("cannot resolve --commit {rev}: {}", e.message),
                )
            })?;
            let tree = repo.commit_tree(commit).ok().map(|t| t.to_string());
            Ok((commit.to_string(), tree))
        }
        Err(_) if matches!(rev.len(), 40 | 64) && rev.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Ok((rev.to_ascii_lowercase(), None))
        }
        Err(e) => Err(Diagnostic::new(
            Code::attestation_unusable,
            format!(
                "--commit {rev} is not a full commit id and there is no repository here to resolve it: {}",
                e.message
            ),
        )),
    }
}

pub fn verify(file: &Path, rev: &str) -> ExitStatus {
    let bytes = match crate::input::read_bounded_no_follow(file, attestation::MAX_STATEMENT_BYTES) {
        Ok(bytes) => bytes,
        Err(e) => {
            print(
                &Diagnostic::new(
                    Code::attestation_unusable,
                    format!("cannot read the statement: {}", e.message),
                )
                .with_path(file.display().to_string()),
            );
            return ExitStatus::CannotCheck;
        }
    };
    let (commit, tree) = match resolve(rev) {
        Ok(found) => found,
        Err(d) => {
            print(&d);
            return ExitStatus::CannotCheck;
        }
    };
    match attestation::verify(&bytes, &commit, tree.as_deref()) {
        Verified::Pass(what) => {
            if emit(&format!("ok: {what}\n")).is_err() {
                return ExitStatus::CannotCheck;
            }
            ExitStatus::Pass
        }
        Verified::Mismatch(d) => {
            print(&d.with_path(file.display().to_string()));
            ExitStatus::Violations
        }
        Verified::Unusable(d) => {
            print(&d.with_path(file.display().to_string()));
            ExitStatus::CannotCheck
        }
    }
}
