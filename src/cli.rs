//! Command-line definitions (clap) and dispatch to the commands.

use crate::agent::Harness;
use crate::artifact::Kind;
use crate::commands;
use crate::commands::check::Mode;
use crate::commands::output::OutputArgs;
use crate::diagnostic::ExitStatus;
use crate::install::Hook;
use crate::install::flow::StatusFormat;
use clap::builder::PossibleValue;
use clap::{Parser, Subcommand, ValueEnum};

// `check`'s options that belong to one mode conflict with the other modes.
// (`requires` alone does not refuse them: clap waives a requirement on a
// member of the mode group once another member is given, so `check
// --worktree --base X` would parse, and the option be ignored.)
const NOT_CI: [&str; 4] = ["staged", "push", "worktree", "receive"];
const NOT_WORKTREE: [&str; 4] = ["staged", "push", "ci", "receive"];
const NOT_PUSH: [&str; 4] = ["staged", "ci", "worktree", "receive"];

/// A fast, fail-closed git gate for coding-agent work.
#[derive(Debug, Parser)]
#[command(name = "mastermind-hooks", version, about, long_about = None)]
#[command(after_help = "Exit status: 0 pass, 1 violations found, 2 could not check.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
// Each subcommand's flags are built only when it runs: a hook's `check
// --staged` no longer builds every other command's (0.1 ms of a 4 ms run).
#[command(defer = true)]
pub enum Command {
    /// Validate files against their contracts (kind from --kind or the file name).
    Validate {
        /// Artifact kind; inferred from the file name when absent
        /// (executor-report.md, spec.md, audit-tail.md, verification/<id>.json,
        /// savepoint.md, adversarial-findings.md, <x>--<y>/<id>--<slug>.md, <id>.tree.json),
        /// and for files found in a directory or by a glob also from the
        /// repository's configured agent-file globs, as the gate infers it.
        #[arg(long, value_name = "KIND")]
        kind: Option<Kind>,
        /// Count files whose kind cannot be told (kind_unknown, exit 2)
        /// instead of listing them as skipped.
        #[arg(long)]
        strict: bool,
        /// Role to judge plastic reports and subagent returns as: a plastic role
        /// (brainstorming, spec, planner, executor, reviewer; plastic-<role> too)
        /// or a subagent role or dispatch description (composer, reviewer-inloop,
        /// probe-j-cart, ...). Default: the report's Role / the return's
        /// handover.role. Other kinds ignore it.
        #[arg(long, value_name = "ROLE")]
        role: Option<String>,
        /// Subagent returns: the dispatch description the return answers to;
        /// its prefix routes it (composer-*, reviewer-*, probe-*, ...: the
        /// role's schema; cleanup-*, phase1-*, ...: the envelope only; j-*,
        /// sj-*: free-form). A file of no inferable kind is
        /// then a subagent return; other kinds ignore it.
        #[arg(long, value_name = "DESCRIPTION", conflicts_with = "role")]
        dispatch: Option<String>,
        #[command(flatten)]
        output: OutputArgs,
        /// Files, directories (walked; links are never followed) or quoted
        /// globs (`'returns/*.json'`, `**` crosses directories) to validate.
        #[arg(required = true, value_name = "PATH")]
        files: Vec<String>,
    },
    /// The gate: check the tasks touched in the tree that would land.
    #[command(group(clap::ArgGroup::new("mode").required(true).args(["staged", "push", "ci", "worktree", "receive"])))]
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
        /// pre-receive (server side, bare repository): every `<old> <new> <ref>` line on
        /// stdin, reading git's quarantined objects; findings go to the pusher.
        #[arg(long)]
        receive: bool,
        /// --ci: the branch the change merges into.
        #[arg(long, value_name = "REV", requires = "ci", conflicts_with_all = NOT_CI)]
        base: Option<String>,
        /// --ci: the change's commit (default HEAD).
        #[arg(long, value_name = "REV", requires = "ci", conflicts_with_all = NOT_CI)]
        head: Option<String>,
        /// --ci: also re-execute every observed check of every task the gate
        /// judged, on the tree that lands, where the project runs: the CI
        /// workspace when it is a clean checkout of exactly that tree (after
        /// the job installed the dependencies), else a git worktree of it
        /// prepared by `rerun.setup`; fails unless each passes there.
        #[arg(long, requires = "ci", conflicts_with_all = NOT_CI)]
        rerun: bool,
        /// --rerun: the time all re-runs together may take (each check also
        /// keeps its declared timeout).
        #[arg(long, value_name = "SECONDS", requires = "rerun", conflicts_with_all = NOT_CI, value_parser = clap::value_parser!(u64).range(1..))]
        rerun_timeout: Option<u64>,
        /// --rerun: how many checks may run at once (checks of different
        /// tasks; default: the available parallelism).
        #[arg(long, value_name = "N", requires = "rerun", conflicts_with_all = NOT_CI, value_parser = clap::value_parser!(u64).range(1..=256))]
        rerun_jobs: Option<u64>,
        /// --rerun: where the checks run: auto (the workspace when it holds
        /// exactly the landing, else a worktree), workspace (only there), or
        /// worktree (always a fresh worktree prepared by `rerun.setup`).
        #[arg(long, value_enum, value_name = "WHERE", requires = "rerun", conflicts_with_all = NOT_CI, default_value_t = RerunIn::Auto)]
        rerun_in: RerunIn,
        /// --rerun: write an in-toto Statement (v1) of the re-run to FILE: the
        /// head commit and the landing tree as subjects, every re-run check
        /// and the verdict in the predicate.
        #[arg(long, value_name = "FILE", requires = "rerun", conflicts_with_all = NOT_CI)]
        attestation: Option<std::path::PathBuf>,
        /// --worktree: compare with this commit instead of HEAD.
        #[arg(long, value_name = "REV", requires = "worktree", conflicts_with_all = NOT_WORKTREE)]
        since: Option<String>,
        #[command(flatten)]
        output: OutputArgs,
        /// --push: the remote's name and URL, as git passes them to the hook.
        #[arg(value_name = "REMOTE", requires = "push", conflicts_with_all = NOT_PUSH)]
        remote: Option<String>,
        #[arg(value_name = "URL", requires = "push", conflicts_with_all = NOT_PUSH)]
        url: Option<String>,
    },
    /// Observed verification checks.
    Verification {
        #[command(subcommand)]
        command: VerificationCommand,
    },
    /// In-toto statements of `check --ci --rerun`.
    Attestation {
        #[command(subcommand)]
        command: AttestationCommand,
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
        /// The schema to print.
        #[arg(value_name = "NAME", long_help = schema_names_help())]
        name: Option<String>,
    },
    /// Set this repository up: a commented .mastermind/hooks.yaml, the git hooks, and the CI step to add.
    #[command(
        after_help = "Without --planner the configuration is a solo repository's: anyone's plan is allowed (`planning: {default: allow}`). With --planner, only those planners' plans are: an agent's own new task, wider spec or control-file change is refused in CI and pre-receive.\n\nExit status: 0 set up (or already set up), 2 something was refused or failed (the message says what to do)."
    )]
    Init {
        /// Who plans (repeatable): github:LOGIN, gitlab:LOGIN, actor:NAME, pusher:NAME or
        /// signer:PRINCIPAL. The configuration then allows exactly their plans.
        #[arg(long = "planner", value_name = "PRINCIPAL")]
        planners: Vec<String>,
    },
    /// Start a task (`task new`) or widen one (`task widen`): a task's spec and report skeleton.
    Task {
        #[command(subcommand)]
        command: TaskCommand,
    },
    /// Install the gate's git hooks (pre-commit, pre-push and pre-merge-commit shims) where git runs hooks.
    #[command(
        after_help = "Exit status: 0 installed (or already current), 2 nothing changed because something was refused or failed."
    )]
    Install {
        /// A hook to install (repeatable); default: pre-commit, pre-push and pre-merge-commit.
        #[arg(long = "hook", value_enum, value_name = "HOOK")]
        hooks: Vec<Hook>,
        /// Write to a core.hooksPath from global or system config, and replace a newer shim.
        #[arg(long)]
        force: bool,
        /// Instead of git hooks, add the agent hooks to a harness's project settings
        /// (.claude/settings.json or .codex/hooks.json).
        #[arg(long, value_enum, value_name = "HARNESS", conflicts_with_all = ["hooks", "force"])]
        agent: Option<Harness>,
        /// In a bare repository: the pre-receive hook (`check --receive`) instead.
        #[arg(long, conflicts_with_all = ["hooks", "force"])]
        server: bool,
    },
    /// Remove the shims and put back the hooks they replaced.
    #[command(after_help = "Exit status: 0 done (or nothing installed), 2 refused or failed.")]
    Uninstall {
        /// A hook to uninstall (repeatable); default: pre-commit, pre-push and pre-merge-commit.
        #[arg(long = "hook", value_enum, value_name = "HOOK")]
        hooks: Vec<Hook>,
        /// Also remove shims from a core.hooksPath set in global or system config.
        #[arg(long)]
        force: bool,
        /// Instead of git hooks, remove the agent hooks from a harness's project settings.
        #[arg(long, value_enum, value_name = "HARNESS", conflicts_with_all = ["hooks", "force"])]
        agent: Option<Harness>,
    },
    /// Show what git runs for each hook, from where, and whether the gate works.
    #[command(
        after_help = "Exit status: 0 git runs the current gate, 1 a problem was found, 2 could not check."
    )]
    Status {
        /// A hook to report on (repeatable); default: pre-commit, pre-push and pre-merge-commit
        /// (and then the agent hooks too).
        #[arg(long = "hook", value_enum, value_name = "HOOK")]
        hooks: Vec<Hook>,
        #[arg(long, value_enum, default_value_t = StatusFormat::Human)]
        format: StatusFormat,
        /// Instead of git hooks, show the agent hook entries of a harness's project settings.
        #[arg(long, value_enum, value_name = "HARNESS", conflicts_with = "hooks")]
        agent: Option<Harness>,
    },
    /// Agent-harness hooks: read the harness's hook payload on stdin, answer
    /// with its decision JSON on stdout.
    #[command(
        name = "agent-hook",
        after_help = "Exit status: 0 the decision (if any) is on stdout; 2 the answer could not be written."
    )]
    AgentHook {
        #[command(subcommand)]
        command: AgentHookCommand,
    },
}

// The agent-hook events. (A plain comment, as for `OutputArgs`: clap would
// take a doc comment here for `agent-hook`'s own description.)
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum AgentHookCommand {
    /// The agent is about to stop: run the gate on the working tree as
    /// `check --worktree` does and block the stop while a changed task fails.
    Stop {
        #[command(flatten)]
        args: AgentHookArgs,
    },
    /// A subagent returned (Claude Code `PostToolUse` on Agent/Task, or
    /// `SubagentStop`): judge its final message by its dispatch description.
    Subagent {
        #[command(flatten)]
        args: AgentHookArgs,
    },
    /// The agent is about to run a shell command or edit a file
    /// (`PreToolUse` on Bash and the file tools): refuse one that skips or
    /// switches off the git hooks, the gate or the agent hooks
    /// (`--no-verify`, `core.hooksPath`, `MASTERMIND_HOOKS_SKIP`, deleting a
    /// hook, rewriting the harness settings).
    #[command(name = "pre-tool")]
    PreTool {
        #[command(flatten)]
        args: AgentHookArgs,
    },
    /// Print the agent-hook protocol this binary speaks (the settings'
    /// command asks before it uses a binary).
    Handshake,
}

#[derive(Debug, clap::Args)]
pub struct AgentHookArgs {
    /// The harness whose payload and decision formats to speak.
    #[arg(long, value_enum, value_name = "HARNESS", default_value_t = Harness::ClaudeCode)]
    pub harness: Harness,
    /// Seconds the hook may take before it answers "could not check"
    /// (keep it below the harness's hook timeout; install writes 60).
    /// Default: 45 for `stop`, 10 for `pre-tool`.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u32>,
    /// The agent-hook protocol the settings' command speaks (it passes
    /// it); a binary refuses one it does not speak.
    #[arg(long, value_name = "N")]
    pub protocol: Option<u32>,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum TaskCommand {
    /// Declare more paths in a task's spec (front matter only; every other
    /// byte kept), and say which checks must run again.
    #[command(
        after_help = "Example: mastermind-hooks task widen fix-login --touches src/session.py\nThe route: widen, commit the spec on its own, make the change, re-run the checks it names, commit.\nExit status: 0 widened (or already declared), 2 refused (nothing written)."
    )]
    Widen {
        /// The task folder's name.
        name: String,
        /// A file the task may now change (repeatable); relative to the repository's top.
        #[arg(long = "touches", value_name = "PATH")]
        touches: Vec<String>,
        /// A file the task may now add (repeatable); relative to the repository's top.
        #[arg(long = "creates", value_name = "PATH")]
        creates: Vec<String>,
    },
    /// Write a new task's spec (scope and observed checks) and report skeleton.
    #[command(
        after_help = "Example: mastermind-hooks task new fix-login --touches src/login.py --check 'python3 -m pytest tests/test_login.py'\nExit status: 0 written, 2 refused (nothing written)."
    )]
    New {
        /// The task folder's name: letters, digits, `.`, `_`, `-`.
        name: String,
        /// A file the task may change (repeatable); relative to the repository's top.
        #[arg(long = "touches", value_name = "PATH")]
        touches: Vec<String>,
        /// A command that must pass, run by `verification run` (repeatable). Shell word
        /// syntax: quotes group words; nothing is expanded and no shell runs it.
        #[arg(long = "check", value_name = "CMD")]
        checks: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum VerificationCommand {
    /// Run observed checks (`verify[].run`) and write their tree receipts
    /// `<task>/verification/<id>.tree.json`. The check's output streams to
    /// stderr. Exit 0 only when every check passed.
    #[command(group(clap::ArgGroup::new("which").required(true).args(["id", "all"])))]
    Run {
        /// The task's spec.md.
        spec: String,
        /// The check's `run.id`.
        #[arg(long, value_name = "ID")]
        id: Option<String>,
        /// Run every observed check of the spec, in declaration order.
        #[arg(long)]
        all: bool,
        /// Run in a temporary checkout of exactly the index (or --rev), so
        /// ignored, untracked and local-only files cannot take part.
        #[arg(long)]
        isolated: bool,
        /// --isolated: check out this commit instead of the index.
        #[arg(long, value_name = "REV", requires = "isolated")]
        rev: Option<String>,
        /// Do not show the check's output (it is hashed all the same).
        #[arg(long, short)]
        quiet: bool,
        /// Print the receipt as JSON (an array with --all).
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum AttestationCommand {
    /// Check that a statement written by `check --ci --rerun --attestation`
    /// (bare, in a DSSE envelope, or in a Sigstore bundle) attests that a
    /// commit passed: the commit is its head subject or the commit's tree is
    /// its landing subject, the predicate has the re-run's shape, and the
    /// verdict is pass. Signatures are checked by the platform's tool
    /// (`gh attestation verify`, cosign), not here.
    #[command(
        after_help = "Exit status: 0 the statement attests that the commit passed, 1 it does not, 2 the statement or the commit cannot be read."
    )]
    Verify {
        /// The statement.
        file: std::path::PathBuf,
        /// The commit to verify against (any revision of this repository,
        /// or a full commit id outside one).
        #[arg(long, value_name = "REV")]
        commit: String,
    },
}

/// `--rerun-in`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RerunIn {
    Auto,
    Workspace,
    Worktree,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
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

/// `schema --help`: every embedded schema, from the one list the command uses.
fn schema_names_help() -> String {
    let names: Vec<&str> = crate::schema::SchemaId::ALL
        .iter()
        .map(|id| id.name())
        .collect();
    format!(
        "The schema to print, one of:\n{}",
        names
            .iter()
            .map(|name| format!("  {name}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

impl Cli {
    /// The command line of the process: clap's parse, except for the one
    /// line the commit hooks run, `check --staged`, which is taken as is.
    /// Building clap's parser for it cost 0.5 million instructions, a tenth
    /// of a millisecond of a hook whose budget is measured against `git
    /// diff --cached` (development chapter). The test below holds the two
    /// answers equal.
    pub fn from_process() -> Result<Cli, clap::Error> {
        let mut args = std::env::args_os().skip(1);
        if let (Some(command), Some(flag), None) = (args.next(), args.next(), args.next())
            && command == "check"
            && flag == "--staged"
        {
            return Ok(Cli::staged_check());
        }
        Cli::try_parse()
    }

    /// `check --staged` with every other option at its default.
    fn staged_check() -> Cli {
        Cli {
            command: Command::Check {
                staged: true,
                push: false,
                ci: false,
                worktree: false,
                receive: false,
                base: None,
                head: None,
                rerun: false,
                rerun_timeout: None,
                rerun_jobs: None,
                rerun_in: RerunIn::Auto,
                attestation: None,
                since: None,
                output: OutputArgs::default(),
                remote: None,
                url: None,
            },
        }
    }
}

/// Run the parsed command line.
pub fn run(cli: Cli) -> ExitStatus {
    match cli.command {
        Command::Validate {
            kind,
            strict,
            role,
            dispatch,
            output,
            files,
        } => {
            output.color.apply();
            let judge = commands::validate::Judge {
                kind,
                role: role.as_deref(),
                dispatch: dispatch.as_deref(),
                strict,
            };
            commands::validate::run(&files, &judge, &output)
        }
        Command::Check {
            staged,
            push,
            ci,
            worktree,
            receive,
            base,
            head,
            since,
            rerun,
            rerun_timeout,
            rerun_jobs,
            rerun_in,
            attestation,
            output,
            remote,
            url,
        } => {
            if receive {
                output.color.apply_to(crate::render::Stream::Stderr);
                return commands::check::run(&Mode::Receive, &output);
            }
            let mode = if staged {
                Mode::Staged
            } else if push {
                Mode::Push { remote, url }
            } else if ci {
                Mode::Ci {
                    base,
                    head,
                    rerun: rerun.then(|| commands::check::Rerun {
                        timeout: rerun_timeout.map(std::time::Duration::from_secs),
                        jobs: rerun_jobs.and_then(|n| usize::try_from(n).ok()),
                        place: match rerun_in {
                            RerunIn::Auto => commands::check::RerunPlace::Auto,
                            RerunIn::Workspace => commands::check::RerunPlace::Workspace,
                            RerunIn::Worktree => commands::check::RerunPlace::Worktree,
                        },
                        attestation,
                    }),
                }
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
            command:
                VerificationCommand::Run {
                    spec,
                    id,
                    all: _,
                    isolated,
                    rev,
                    quiet,
                    json,
                },
        } => commands::verification::run(&commands::verification::Args {
            spec,
            id,
            isolated,
            rev,
            quiet,
            json,
        }),
        Command::Attestation {
            command: AttestationCommand::Verify { file, commit },
        } => commands::attestation::verify(&file, &commit),
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
        Command::Init { planners } => commands::init::run(&planners),
        Command::Task {
            command:
                TaskCommand::New {
                    name,
                    touches,
                    checks,
                },
        } => commands::task::new(&name, &touches, &checks),
        Command::Task {
            command:
                TaskCommand::Widen {
                    name,
                    touches,
                    creates,
                },
        } => commands::task::widen(&name, &touches, &creates),
        Command::Install {
            agent: Some(harness),
            ..
        } => commands::hooks::install_agent(harness),
        Command::Uninstall {
            agent: Some(harness),
            ..
        } => commands::hooks::uninstall_agent(harness),
        Command::Status {
            agent: Some(harness),
            format,
            ..
        } => commands::hooks::agent_status(harness, format),
        Command::Install { server: true, .. } => commands::hooks::install_server(),
        Command::Install { hooks, force, .. } => commands::hooks::install(&hooks, force),
        Command::Uninstall { hooks, force, .. } => commands::hooks::uninstall(&hooks, force),
        Command::Status { hooks, format, .. } => commands::hooks::status(&hooks, format),
        Command::AgentHook {
            command: AgentHookCommand::Stop { args },
        } => commands::agent_hook::stop(args.harness, args.timeout, args.protocol),
        Command::AgentHook {
            command: AgentHookCommand::Subagent { args },
        } => commands::agent_hook::subagent(args.harness, args.protocol),
        Command::AgentHook {
            command: AgentHookCommand::PreTool { args },
        } => commands::agent_hook::pre_tool(args.harness, args.timeout, args.protocol),
        Command::AgentHook {
            command: AgentHookCommand::Handshake,
        } => commands::agent_hook::handshake(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_command_line_parses_as_clap_parses_it() {
        let parsed = Cli::try_parse_from(["mastermind-hooks", "check", "--staged"])
            .expect("the hooks' command line parses");
        assert_eq!(
            format!("{:?}", Cli::staged_check()),
            format!("{parsed:?}"),
            "the fast path must answer what clap answers"
        );
    }
}
