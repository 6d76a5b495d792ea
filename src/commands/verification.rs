//! `mastermind-hooks verification run SPEC (--id ID | --all) [--isolated
//! [--rev REV]] [--quiet] [--json]`: run observed checks and write their
//! tree receipts. The checks' output streams to stderr while it is hashed;
//! stdout carries one result line per check (or, with `--json`, the receipt
//! object, an array of them for `--all`). Exit 0 only when every check
//! passed; 1 when a check ran and did not pass; 2 for a refusal or a run
//! that could not be carried out (spawn or I/O failure), and for the worst
//! of several.

use crate::commands::emit;
use crate::contract::mastermind::receipt::status_name;
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::render::human;
use crate::runner::{self, Finished, Request, Select, Source};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The command line of `verification run`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Args {
    pub spec: String,
    /// `None` means `--all`.
    pub id: Option<String>,
    pub isolated: bool,
    pub rev: Option<String>,
    pub quiet: bool,
    pub json: bool,
}

fn print_diagnostic(diagnostic: &Diagnostic) {
    let mut text = String::new();
    human::diagnostic(&mut text, diagnostic);
    eprint!("{text}");
}

fn summary(finished: &Finished) -> String {
    let receipt = &finished.receipt;
    let outcome = match (receipt.exit_code, receipt.signal) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => "no exit status".to_string(),
    };
    let reason = receipt
        .reason
        .as_deref()
        .map(|r| format!(", {r}"))
        .unwrap_or_default();
    format!(
        "verification `{}`: {} ({outcome}, {} ms{reason}); receipt {} (attempt {}). A local record of an observed run, not an independent attestation.\n",
        receipt.check_id,
        status_name(receipt.status),
        receipt.duration_ms,
        runner::echo::escape(finished.path.as_bytes()),
        receipt.attempt
    )
}

/// Tell the user, on stderr, what a finished run needs next.
fn explain(finished: &Finished) {
    for note in &finished.notes {
        print_diagnostic(note);
    }
    if let Some(hint) = runner::outcome_hint(finished) {
        eprintln!("help: {hint}");
    }
}

pub fn run(args: &Args) -> ExitStatus {
    let interrupt: Arc<AtomicBool> = match runner::signals::install() {
        Ok(flag) => flag,
        Err(e) => {
            eprintln!("error[verification_io_failed]: cannot handle SIGINT/SIGTERM: {e}");
            return ExitStatus::CannotCheck;
        }
    };
    // A file-size limit (or a full quota) must surface as a write error that
    // is cleaned up and reported, not kill the runner mid-write.
    let size_limit_hit = Arc::new(AtomicBool::new(false));
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, size_limit_hit) {
        eprintln!("error[verification_io_failed]: cannot handle SIGXFSZ: {e}");
        return ExitStatus::CannotCheck;
    }
    let request = Request {
        spec: Path::new(&args.spec),
        select: match &args.id {
            Some(id) => Select::One(id.clone()),
            None => Select::All,
        },
        source: if args.isolated {
            Source::Isolated {
                rev: args.rev.clone(),
            }
        } else {
            Source::Worktree
        },
        stream: !args.quiet,
        changed_paths: &|repo, config, view, dir| {
            crate::gate::territory::changed_at_run(repo, config, view, dir)
                .map_err(|e| e.to_diagnostic())
        },
    };
    let mut write_failed = false;
    let outcome = runner::run(&request, &interrupt, |finished| {
        if !args.json {
            explain(finished);
            write_failed |= emit(&summary(finished)).is_err();
        }
    });
    let finished = match outcome {
        Ok(finished) => finished,
        Err(diagnostic) => {
            print_diagnostic(&diagnostic);
            return ExitStatus::CannotCheck;
        }
    };
    if args.json {
        let text = if args.id.is_some() && finished.len() == 1 {
            serde_json::to_string_pretty(&finished[0].receipt)
        } else {
            let receipts: Vec<_> = finished.iter().map(|f| &f.receipt).collect();
            serde_json::to_string_pretty(&receipts)
        };
        match text {
            Ok(text) => write_failed |= emit(&(text + "\n")).is_err(),
            Err(_) => return ExitStatus::CannotCheck,
        }
        for done in &finished {
            explain(done);
        }
    } else if finished.len() > 1 {
        let passed = finished
            .iter()
            .filter(|f| runner::exit_status(&f.receipt) == ExitStatus::Pass)
            .count();
        write_failed |= emit(&format!("{passed} of {} checks passed.\n", finished.len())).is_err();
    }
    if write_failed {
        return ExitStatus::CannotCheck;
    }
    let worst = finished
        .iter()
        .map(|f| runner::exit_status(&f.receipt))
        .max()
        .unwrap_or(ExitStatus::CannotCheck);
    // Interrupted before every selected check ran: never a pass.
    if interrupt.load(std::sync::atomic::Ordering::SeqCst) {
        return worst.max(ExitStatus::Violations);
    }
    worst
}
