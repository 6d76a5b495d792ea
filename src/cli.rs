//! Command-line definitions (clap) and dispatch to the commands.

use crate::commands;
use crate::commands::check::Mode;
use crate::commands::hooks::StatusFormat;
use crate::commands::output::OutputArgs;
use crate::contract::Kind;
use crate::diagnostic::ExitStatus;
use crate::install::Hook;
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
        /// (executor-report.md, spec.md, audit-tail.md, verification/<id>.json,
        /// savepoint.md, adversarial-findings.md, <x>--<y>/<id>--<slug>.md, <id>.tree.json).
        #[arg(long, value_name = "KIND")]
        kind: Option<Kind>,
        /// Role to judge plastic reports and subagent returns as: a plastic role
        /// (brainstorming, spec, planner, executor, reviewer; plastic-<role> too)
        /// or a subagent role or dispatch description (composer, reviewer-inloop,
        /// probe-j-cart, ...). Default: the report's Role / the return's
        /// handover.role. Other kinds ignore it.
        #[arg(long, value_name = "ROLE")]
        role: Option<String>,
        #[command(flatten)]
        output: OutputArgs,
        /// Files to validate.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
    },
    /// The gate: check the tasks touched in the tree that would land.
    #[command(group(clap::ArgGroup::new("mode").required(true).args(["staged", "push", "ci", "worktree"])))]
    Check {
        /// pre-commit: the index git is about to commit (GIT_INDEX_FILE honoured) against HEAD.
        #[arg(long)]
        staged: bool,
        /// pre-push: every ref line git passes on stdin, each pushed commit against the remote.
        #[arg(long)]
        push: bool,
        /// CI: the merge of --head into --base (GitHub and GitLab variables when absent).
        #[arg(long)]
        ci: bool,
        /// The working tree against HEAD (or --since), like the reference's audit.
        #[arg(long)]
        worktree: bool,
        /// --ci: the branch the change merges into.
        #[arg(long, value_name = "REV", requires = "ci")]
        base: Option<String>,
        /// --ci: the change's commit (default HEAD).
        #[arg(long, value_name = "REV", requires = "ci")]
        head: Option<String>,
        /// --worktree: compare with this commit instead of HEAD.
        #[arg(long, value_name = "REV", requires = "worktree")]
        since: Option<String>,
        #[command(flatten)]
        output: OutputArgs,
        /// --push: the remote's name and URL, as git passes them to the hook.
        #[arg(value_name = "REMOTE", requires = "push")]
        remote: Option<String>,
        #[arg(value_name = "URL", requires = "push")]
        url: Option<String>,
    },
    /// Observed verification checks.
    Verification {
        #[command(subcommand)]
        command: VerificationCommand,
    },
    /// Acceptance criteria mapped to observed checks.
    Acceptance {
        #[command(subcommand)]
        command: AcceptanceCommand,
    },
    /// Print the tree digest of a view: what a tree receipt must match there.
    #[command(group(clap::ArgGroup::new("view").args(["staged", "worktree", "rev"])))]
    Digest {
        /// The index git would commit.
        #[arg(long)]
        staged: bool,
        /// Tracked and non-ignored untracked files on disk (the default).
        #[arg(long)]
        worktree: bool,
        /// A commit's tree.
        #[arg(long, value_name = "REV")]
        rev: Option<String>,
        /// Hash every blob instead of using the sha256 cache (as CI does).
        #[arg(long)]
        no_cache: bool,
        /// Print a JSON object instead of a line.
        #[arg(long)]
        json: bool,
        /// Which digest: 2 (tree-v2, what the runner records) or 1 (tree-v1,
        /// for receipts that recorded it).
        #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=2))]
        digest_version: u32,
    },
    /// List every reason code (Markdown table), or explain one.
    Codes {
        /// A reason code such as `unexpected_file`.
        code: Option<String>,
    },
    /// Print an embedded JSON Schema (no NAME: list them).
    Schema {
        /// executor-report-v1, audit-tail-v1, spec-frontmatter-v1, receipt-v1,
        /// hooks-config-v1 or tree-receipt-v1.
        name: Option<String>,
    },
    /// Install the gate's git hooks (pre-commit and pre-push shims) where git runs hooks.
    #[command(
        after_help = "Exit status: 0 installed (or already current), 2 nothing changed because something was refused or failed."
    )]
    Install {
        /// A hook to install (repeatable); default: pre-commit and pre-push.
        #[arg(long = "hook", value_enum, value_name = "HOOK")]
        hooks: Vec<Hook>,
        /// Write to a core.hooksPath from global or system config, and replace a newer shim.
        #[arg(long)]
        force: bool,
    },
    /// Remove the shims and put back the hooks they replaced.
    #[command(after_help = "Exit status: 0 done (or nothing installed), 2 refused or failed.")]
    Uninstall {
        /// A hook to uninstall (repeatable); default: pre-commit and pre-push.
        #[arg(long = "hook", value_enum, value_name = "HOOK")]
        hooks: Vec<Hook>,
        /// Also remove shims from a core.hooksPath set in global or system config.
        #[arg(long)]
        force: bool,
    },
    /// Show what git runs for each hook, from where, and whether the gate works.
    #[command(
        after_help = "Exit status: 0 git runs the current gate, 1 a problem was found, 2 could not check."
    )]
    Status {
        /// A hook to report on (repeatable); default: pre-commit and pre-push.
        #[arg(long = "hook", value_enum, value_name = "HOOK")]
        hooks: Vec<Hook>,
        #[arg(long, value_enum, default_value_t = StatusFormat::Human)]
        format: StatusFormat,
    },
}

#[derive(Debug, Subcommand)]
pub enum VerificationCommand {
    /// Run one observed check (`verify[].run`) and write its tree receipt
    /// `<task>/verification/<id>.tree.json`. Exit 0 only for a pass.
    Run {
        /// The task's spec.md.
        spec: String,
        /// The check's `run.id`.
        #[arg(long, value_name = "ID")]
        id: String,
        /// Print the receipt as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum AcceptanceCommand {
    /// The acceptance mapping of a spec in the working tree, computed from
    /// its receipts. Exit 0 only for requirements_satisfied.
    Status {
        /// The task's spec.md.
        spec: String,
        /// Print the reference's JSON object.
        #[arg(long)]
        json: bool,
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
            role,
            output,
            files,
        } => {
            output.color.apply();
            commands::validate::run(&files, kind, role.as_deref(), &output)
        }
        Command::Check {
            staged,
            push,
            ci,
            worktree,
            base,
            head,
            since,
            output,
            remote,
            url: _,
        } => {
            let mode = if staged {
                Mode::Staged
            } else if push {
                Mode::Push { remote }
            } else if ci {
                Mode::Ci { base, head }
            } else {
                debug_assert!(worktree);
                Mode::Worktree { since }
            };
            output.color.apply_to(
                if mode.human_to_stderr() && output.format == crate::render::Format::Human {
                    crate::render::Stream::Stderr
                } else {
                    crate::render::Stream::Stdout
                },
            );
            commands::check::run(&mode, &output)
        }
        Command::Verification {
            command: VerificationCommand::Run { spec, id, json },
        } => commands::verification::run(&spec, &id, json),
        Command::Acceptance {
            command: AcceptanceCommand::Status { spec, json },
        } => commands::acceptance::run(&spec, json),
        Command::Digest {
            staged,
            worktree: _,
            rev,
            no_cache,
            json,
            digest_version,
        } => {
            let target = match (staged, rev) {
                (true, _) => commands::digest::Target::Staged,
                (false, Some(rev)) => commands::digest::Target::Rev(rev),
                (false, None) => commands::digest::Target::Worktree,
            };
            commands::digest::run(&target, !no_cache, json, digest_version)
        }
        Command::Codes { code } => commands::codes::run(code.as_deref()),
        Command::Schema { name } => commands::schema::run(name.as_deref()),
        Command::Install { hooks, force } => commands::hooks::install(&hooks, force),
        Command::Uninstall { hooks, force } => commands::hooks::uninstall(&hooks, force),
        Command::Status { hooks, format } => commands::hooks::status(&hooks, format),
    }
}
