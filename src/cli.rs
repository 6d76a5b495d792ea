//! Command-line definitions (clap) and dispatch to the commands.

use crate::commands;
use crate::commands::output::OutputArgs;
use crate::contract::Kind;
use crate::diagnostic::ExitStatus;
use clap::builder::PossibleValue;
use clap::{Parser, Subcommand, ValueEnum};

/// A fast, fail-closed git gate for coding-agent work.
#[derive(Debug, Parser)]
#[command(name = "mastermind-hooks", version, about, long_about = None)]
#[command(after_help = "Exit status: 0 pass, 1 violations found, 2 could not check.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate files against their contracts (kind from --kind or the file name).
    Validate {
        /// Artifact kind; inferred from the file name when absent
        /// (executor-report.md, spec.md, audit-tail.md, verification/<id>.json).
        #[arg(long, value_name = "KIND")]
        kind: Option<Kind>,
        #[command(flatten)]
        output: OutputArgs,
        /// Files to validate.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
    },
    /// List every reason code (Markdown table), or explain one.
    Codes {
        /// A reason code such as `unexpected_file`.
        code: Option<String>,
    },
    /// Print an embedded JSON Schema (no NAME: list them).
    Schema {
        /// executor-report-v1, audit-tail-v1, spec-frontmatter-v1 or receipt-v1.
        name: Option<String>,
    },
}

impl ValueEnum for Kind {
    fn value_variants<'a>() -> &'a [Self] {
        Kind::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}

/// Run the parsed command line.
pub fn run(cli: Cli) -> ExitStatus {
    match cli.command {
        Command::Validate {
            kind,
            output,
            files,
        } => {
            output.color.apply();
            commands::validate::run(&files, kind, &output)
        }
        Command::Codes { code } => commands::codes::run(code.as_deref()),
        Command::Schema { name } => commands::schema::run(name.as_deref()),
    }
}
