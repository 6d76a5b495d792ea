//! The pre-tool guard: does a command an agent is about to run, or an edit
//! it is about to make with the harness's file tools, skip or switch off the
//! git hooks, the gate or the agent hooks? Pure: the command (or the edit)
//! and what is known about where it runs ([`Context`]) in, a [`Refusal`] or
//! nothing out.
//!
//! It reads a command as a shell would split it ([`super::shell`]): every
//! simple command of a list, pipeline or subshell, with the `cd`s before it
//! followed; the scripts of `$(...)`, backquotes, `sh -c` (also `-c --`,
//! `-o opt -c`), `eval`, `script -c`, `su -c`, `flock -c`, `find -exec`,
//! and of a shell that reads its script from a here-document, a here-string
//! or a pipe (`echo '...' | bash`); the programs behind `env` (also
//! `env -S`), `command`, `exec`, `nohup`, `time`, `nice`, `timeout`,
//! `xargs`, `sudo` and friends, with the `NAME=value` assignments before
//! any of them. git's aliases are expanded as git expands them (the
//! repository's, `-c alias.X=...` in any case, `git config alias.X ...`
//! earlier in the same command; `!` aliases as shell). What it refuses:
//!
//! * skipping the git hooks: `git commit --no-verify` or `-n` (also in a
//!   cluster), `--no-verify` on `push`, `merge`, `pull`, `am`, `rebase`,
//!   `cherry-pick` and `revert`; making commits or moving branches no hook
//!   sees: `commit-tree`, `fast-import`, `stash create`/`store`,
//!   `update-ref`, `filter-branch`;
//! * another hooks directory or configuration: `-c core.hooksPath=...`,
//!   `-c include.path=...` (and `includeIf`), `--config-env` for them or
//!   for an alias, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_PARAMETERS`,
//!   `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG`, and `HOME` or
//!   `XDG_CONFIG_HOME` before a git command; `git config` writing
//!   `core.hooksPath`, an include, the `core` section, or an alias that
//!   skips the hooks, and `git config --edit`;
//! * the skip switches (`MASTERMIND_HOOKS_SKIP`, husky's `HUSKY=0`,
//!   lefthook's `LEFTHOOK=0` and `LEFTHOOK_EXCLUDE`, hk's `HK=0` and
//!   `HK_SKIP_*`, pre-commit's and prek's `SKIP` naming the gate) before a
//!   command that runs git, or exported (also `NAME=value; export NAME`,
//!   and any assignment after `set -a`);
//! * writing, moving or removing a protected file ([`paths`]), also by a
//!   glob or brace pattern that may expand to one: the hooks, git's
//!   configuration, the gate's own state, the harnesses' settings, the hook managers'
//!   scripts and configurations, and shell profiles or env files written
//!   with `MASTERMIND_HOOKS_*`; by redirection, `rm`, `mv`, `cp`, `ln`,
//!   `install`, `tee`, `truncate`, `chmod`, `dd of=`, `sed -i`, `perl -i`,
//!   `find -delete`, `curl -o`, `tar -x -C`, `unzip -d`, `patch`,
//!   `awk -i inplace`, `ex`/`vim`, `git rm`, `git mv`, `git checkout`,
//!   `git restore`, or a file tool;
//! * taking the gate or a hook manager out: `mastermind-hooks uninstall`,
//!   `pre-commit uninstall`, `lefthook uninstall`, ...
//!
//! What it cannot see is written in the book (docs/src/agent-hooks.md,
//! "What it cannot see") and held to the tests: commands a script file or a
//! program runs, names built at run time (`$cmd`), and files written by a
//! program from content the guard cannot read.

mod git;
pub mod paths;
#[cfg(test)]
mod tests;

use super::shell::{self, Simple};
use paths::{Named, Places, Protected};
use std::path::{Path, PathBuf};

/// Why a command is refused, and what to do instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What in the command skips the hooks, as the agent wrote it.
    pub what: String,
    /// The rule, in a few words.
    pub rule: String,
    /// What to do instead.
    pub instead: &'static str,
}

impl Refusal {
    fn new(what: impl Into<String>, rule: impl Into<String>, instead: &'static str) -> Refusal {
        Refusal {
            what: what.into(),
            rule: rule.into(),
            instead,
        }
    }

    /// The reason the harness shows the agent.
    pub fn reason(&self) -> String {
        format!(
            "mastermind-hooks refused this command: `{}` {}. {} If you believe the gate is wrong about your work, stop and tell the user; do not work around the hooks.",
            self.what, self.rule, self.instead
        )
    }
}

/// What the guard knows about where a command runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// The session's working directory (absolute), where relative paths
    /// start.
    pub cwd: Option<PathBuf>,
    /// Home, git directory and hooks directory.
    pub places: Places,
    /// git's aliases (names in lower case, as git compares them) and their
    /// values (`commit -v`, or `!sh text`).
    pub aliases: Vec<(String, String)>,
}

/// An edit a harness's file tool is about to make (Claude Code's `Write`,
/// `Edit`, `MultiEdit`, `NotebookEdit`; Codex's `apply_patch`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileEdit {
    /// The tool's name, for the reason.
    pub tool: String,
    /// Every path it writes, moves or deletes, as the tool names it.
    pub paths: Vec<String>,
    /// The text it writes.
    pub text: String,
}

const COMMIT_INSTEAD: &str = "Commit with the hooks: run the same git command without the option; when the gate refuses, fix what it reports (`mastermind-hooks check --staged` lists it before you commit).";
const HOOKS_INSTEAD: &str = "Leave the hooks and git's configuration as they are; run git commands as they are, and fix what the gate reports (`mastermind-hooks check --staged`, `mastermind-hooks check --worktree`).";
const SKIP_INSTEAD: &str = "Do not set skip switches; when the gate refuses, fix what it reports (`mastermind-hooks check --staged` lists it).";
const SETTINGS_INSTEAD: &str = "The harness settings are the user's: leave them as they are, and ask the user if a setting must change.";
const MANAGER_INSTEAD: &str = "The hook manager's scripts and configuration are the team's: leave them as they are, and ask the user if they must change.";
const OVERRIDE_INSTEAD: &str = "The agent hooks find mastermind-hooks themselves; MASTERMIND_HOOKS_* is for the user to set, not the agent.";
const STATE_INSTEAD: &str = "mastermind-hooks keeps that state itself: leave the git directory's mastermind-hooks/ as it is, and ask the user if it must go.";
const DEPTH_INSTEAD: &str = "Run the commands directly, without so many nested shells or aliases.";

/// How deep aliases and nested scripts are followed; deeper is refused.
const MAX_DEPTH: usize = 8;

/// Judge a shell command line.
pub fn judge(command: &str, ctx: &Context) -> Option<Refusal> {
    let mut walk = Walk {
        ctx,
        sets_override: mentions_override(command),
        aliases: ctx.aliases.clone(),
        vars: Vec::new(),
        allexport: false,
    };
    walk.script(command, ctx.cwd.clone(), 0)
}

/// Judge an edit made with a harness's file tool.
pub fn judge_edit(edit: &FileEdit, ctx: &Context) -> Option<Refusal> {
    let sets = mentions_override(&edit.text);
    edit.paths.iter().find_map(|path| {
        let named = paths::resolve(path, ctx.cwd.as_deref(), &ctx.places);
        paths::protected(&named, &ctx.places, sets)
            .map(|what| refuse_path(what, format!("{} {path}", edit.tool)))
    })
}

fn mentions_override(text: &str) -> bool {
    text.contains("MASTERMIND_HOOKS_")
}

fn refuse_path(what: Protected, shown: String) -> Refusal {
    let (rule, instead) = match what {
        Protected::Hook => ("deletes or rewrites a git hook", HOOKS_INSTEAD),
        Protected::GitConfig => (
            "rewrites git's configuration or its directory, which decide where git runs hooks",
            HOOKS_INSTEAD,
        ),
        Protected::HarnessSettings => (
            "rewrites the agent harness's settings, which decide whether the agent hooks run (their hooks, env and disableAllHooks; Codex's [features] hooks)",
            SETTINGS_INSTEAD,
        ),
        Protected::HookManager => (
            "changes a hook manager's scripts or configuration, which decide whether the gate runs in the git hooks",
            MANAGER_INSTEAD,
        ),
        Protected::GateState => (
            "rewrites the gate's own state under the git directory (the agent hooks' memory of where the work lands and their count of blocks), which decides what the stop hook judges",
            STATE_INSTEAD,
        ),
        Protected::Profile => (
            "sets MASTERMIND_HOOKS_* in a shell profile or env file, from where it reaches the hooks",
            OVERRIDE_INSTEAD,
        ),
    };
    Refusal::new(shown, rule, instead)
}

fn too_deep(what: &str) -> Refusal {
    Refusal::new(
        what,
        "nests shells or aliases deeper than the guard follows",
        DEPTH_INSTEAD,
    )
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_shell(word: &str) -> bool {
    matches!(
        basename(word),
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "posh"
    )
}

fn split_assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let ok = !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.as_bytes()[0].is_ascii_digit();
    ok.then_some((name, value))
}

/// Where an environment assignment applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// `export NAME=value` (or `declare -x`, ...): every later command.
    Export,
    /// `NAME=value cmd` or `env NAME=value cmd`: that command, which runs
    /// git (itself or through a shell) or not.
    Prefix { runs_git: bool },
}

fn gate_named(value: &str) -> bool {
    value.to_ascii_lowercase().contains("mastermind")
}

/// An environment assignment that switches hooks off.
fn env_rule(name: &str, value: &str, scope: Scope) -> Option<Refusal> {
    let off = |v: &str| matches!(v.trim(), "0" | "false" | "no" | "off");
    let effective = matches!(scope, Scope::Export | Scope::Prefix { runs_git: true });
    let what = format!("{name}={value}");
    let skip = |rule: &str| effective.then(|| Refusal::new(what.clone(), rule, SKIP_INSTEAD));
    let config = |rule: &str| effective.then(|| Refusal::new(what.clone(), rule, HOOKS_INSTEAD));
    let lower = value.to_ascii_lowercase();
    let config_key = |key: &str| {
        let key = key.trim().to_ascii_lowercase();
        key == "core.hookspath"
            || key.starts_with("include.")
            || key.starts_with("includeif.")
            || key.starts_with("alias.")
    };
    match name {
        "MASTERMIND_HOOKS_SKIP" if !value.trim().is_empty() => {
            skip("skips the mastermind-hooks gate in the git hooks")
        }
        "HUSKY" if off(value) => skip("turns off every husky hook"),
        "LEFTHOOK" if off(value) => skip("turns off every lefthook hook"),
        "HK" if off(value) => skip("turns off every hk hook"),
        "SKIP" | "PREK_SKIP" | "LEFTHOOK_EXCLUDE" | "HK_SKIP_STEPS" | "HK_SKIP_STEP"
            if gate_named(value) =>
        {
            skip("skips the mastermind-hooks hook of the hook manager")
        }
        "HK_SKIP_HOOK" | "HK_SKIP_HOOKS" if !value.trim().is_empty() => skip("skips hk's hooks"),
        "GIT_CONFIG_PARAMETERS"
            if ["core.hookspath", "include", "alias."]
                .iter()
                .any(|k| lower.contains(k)) =>
        {
            config("gives git another hooks directory, a configuration include or an alias")
        }
        _ if name.starts_with("GIT_CONFIG_KEY_") && config_key(value) => {
            config("gives git another hooks directory, a configuration include or an alias")
        }
        "GIT_CONFIG_GLOBAL" | "GIT_CONFIG_SYSTEM" | "GIT_CONFIG" => config(
            "points git at another configuration file, which can set another hooks directory",
        ),
        "HOME" | "XDG_CONFIG_HOME" if matches!(scope, Scope::Prefix { runs_git: true }) => config(
            "points git at another global configuration, which can set another hooks directory",
        ),
        "MASTERMIND_HOOKS_BIN" if scope == Scope::Export => Some(Refusal::new(
            what,
            "swaps the binary the agent hooks run for every later command",
            OVERRIDE_INSTEAD,
        )),
        _ => None,
    }
}

/// The words after the wrappers that run another program (`env A=1`,
/// `command`, `nohup`, ...), and the assignments `env` makes.
struct Unwrapped {
    words: Vec<String>,
    env: Vec<(String, String)>,
    /// `xargs` was among the wrappers: the program also gets the words of
    /// its input.
    xargs: bool,
}

fn unwrap(words: &[String]) -> Unwrapped {
    let mut rest: Vec<String> = words.to_vec();
    let mut env = Vec::new();
    let mut xargs = false;
    for _ in 0..MAX_DEPTH {
        let Some(first) = rest.first().cloned() else {
            break;
        };
        match basename(&first) {
            "env" => {
                let mut i = 1;
                let mut split = None;
                while let Some(w) = rest.get(i) {
                    if let Some((n, v)) = split_assignment(w) {
                        env.push((n.to_string(), v.to_string()));
                        i += 1;
                    } else if matches!(w.as_str(), "-u" | "--unset" | "-C" | "--chdir") {
                        i += 2;
                    } else if matches!(w.as_str(), "-S" | "--split-string") {
                        // `env -S 'a b'`: the string is the command.
                        let mut words: Vec<String> = rest
                            .get(i + 1)
                            .and_then(|s| shlex::split(s))
                            .unwrap_or_default();
                        words.extend(rest.iter().skip(i + 2).cloned());
                        split = Some(words);
                        break;
                    } else if w.starts_with('-') {
                        i += 1;
                    } else {
                        break;
                    }
                }
                rest = match split {
                    Some(words) => words,
                    None => rest[i.min(rest.len())..].to_vec(),
                };
            }
            "command" | "builtin" | "exec" | "nohup" | "time" | "stdbuf" | "setsid" | "sudo"
            | "doas" | "xargs" | "nice" | "ionice" | "chronic" | "unbuffer" => {
                xargs |= basename(&first) == "xargs";
                let mut i = 1;
                while rest.get(i).is_some_and(|w| w.starts_with('-')) {
                    // Options with a value in the next word.
                    let takes = matches!(
                        (basename(&first), rest[i].as_str()),
                        ("nice", "-n")
                            | ("sudo", "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-U")
                            | (
                                "xargs",
                                "-I" | "-n" | "-P" | "-L" | "-s" | "-d" | "-E" | "-a"
                            )
                            | ("exec", "-a")
                            | ("ionice", "-c" | "-n")
                    );
                    i += if takes { 2 } else { 1 };
                }
                rest = rest[i.min(rest.len())..].to_vec();
            }
            "timeout" => {
                let mut i = 1;
                while rest.get(i).is_some_and(|w| w.starts_with('-')) {
                    i += if matches!(rest[i].as_str(), "-s" | "-k" | "--signal" | "--kill-after") {
                        2
                    } else {
                        1
                    };
                }
                rest = rest[(i + 1).min(rest.len())..].to_vec(); // the duration
            }
            _ => break,
        }
    }
    Unwrapped {
        words: rest,
        env,
        xargs,
    }
}

/// The value of an option `-X VALUE`, `-XVALUE` (also at the end of a
/// cluster: `-qc VALUE`), `--long VALUE` or `--long=VALUE`.
fn option_value(args: &[String], short: char, long: &str) -> Option<String> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return None;
        }
        if let Some(rest) = arg.strip_prefix("--") {
            if rest == long {
                return args.get(i + 1).cloned();
            }
            if let Some(value) = rest.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                return Some(value.to_string());
            }
        } else if let Some(cluster) = arg.strip_prefix('-')
            && let Some(at) = cluster.find(short)
        {
            let after = &cluster[at + short.len_utf8()..];
            return if after.is_empty() {
                args.get(i + 1).cloned()
            } else {
                Some(after.to_string())
            };
        }
        i += 1;
    }
    None
}

/// The text a piped command hands the next one, where the command line
/// shows it: `echo TEXT`, `printf TEXT`, `cat <<EOF`, `cat <<< TEXT`.
fn piped_text(source: &Simple) -> Option<String> {
    let words = unwrap(&source.words).words;
    let first = words.first()?;
    let args: Vec<&String> = words[1..]
        .iter()
        .skip_while(|a| a.starts_with('-') && a.len() > 1)
        .collect();
    let joined = || {
        args.iter()
            .map(|a| a.as_str())
            .collect::<Vec<_>>()
            .join(" ")
            .replace("\\n", "\n")
    };
    match basename(first) {
        "echo" | "printf" => Some(joined()),
        "cat" if args.is_empty() => {
            let mut text: Vec<String> = source.heredocs.clone();
            text.extend(source.herestrings.iter().cloned());
            (!text.is_empty()).then(|| text.join("\n"))
        }
        _ => None,
    }
}

/// One command line being judged.
struct Walk<'a> {
    ctx: &'a Context,
    /// The command line mentions `MASTERMIND_HOOKS_`, so what it writes to
    /// a profile may set it.
    sets_override: bool,
    /// The context's aliases, and those the command defines as it goes.
    aliases: Vec<(String, String)>,
    /// Shell variables the command line sets (`NAME=value` alone), which a
    /// later `export NAME` exports.
    vars: Vec<(String, String)>,
    /// `set -a` (`set -o allexport`) came before: every assignment after
    /// it is exported.
    allexport: bool,
}

impl Walk<'_> {
    fn script(&mut self, text: &str, mut cwd: Option<PathBuf>, depth: usize) -> Option<Refusal> {
        if depth > MAX_DEPTH {
            return Some(too_deep(text.lines().next().unwrap_or_default()));
        }
        let parsed = shell::parse(text);
        for nested in &parsed.nested {
            if let Some(r) = self.script(nested, cwd.clone(), depth + 1) {
                return Some(r);
            }
        }
        for (i, command) in parsed.commands.iter().enumerate() {
            let stdin = (command.piped && i > 0)
                .then(|| piped_text(&parsed.commands[i - 1]))
                .flatten();
            if let Some(r) = self.simple(command, stdin, cwd.as_deref(), depth) {
                return Some(r);
            }
            cwd = self.after_cd(command, cwd);
        }
        None
    }

    /// The working directory after `command` when it is a `cd`.
    fn after_cd(&self, command: &Simple, cwd: Option<PathBuf>) -> Option<PathBuf> {
        let first = command.words.first().map(String::as_str);
        match first {
            Some("cd" | "pushd") => {
                let target = command.words[1..]
                    .iter()
                    .find(|w| !(w.starts_with('-') && w.len() > 1));
                match target.map(String::as_str) {
                    None => self.ctx.places.home.clone(),
                    Some("-") => None,
                    Some(word) => match paths::resolve(word, cwd.as_deref(), &self.ctx.places) {
                        Named::Path(path) => Some(path),
                        Named::Pattern(_) | Named::Text(_) => None,
                    },
                }
            }
            Some("popd") => None,
            _ => cwd,
        }
    }

    /// Refuse when writing `word` switches hooks off.
    fn write(&self, program: &str, word: &str, cwd: Option<&Path>) -> Option<Refusal> {
        let named = paths::resolve(word, cwd, &self.ctx.places);
        paths::protected(&named, &self.ctx.places, self.sets_override)
            .map(|what| refuse_path(what, format!("{program} {word}")))
    }

    fn writes(&self, program: &str, words: &[&String], cwd: Option<&Path>) -> Option<Refusal> {
        words.iter().find_map(|w| self.write(program, w, cwd))
    }

    /// Whether `words` run git, themselves or through a shell or wrapper
    /// whose script mentions it.
    fn runs_git(words: &[String]) -> bool {
        let words = unwrap(words).words;
        let Some(first) = words.first() else {
            return false;
        };
        let name = basename(first);
        if name == "git" {
            return true;
        }
        let wraps = is_shell(name)
            || matches!(
                name,
                "eval" | "script" | "su" | "runuser" | "flock" | "find" | "busybox" | "watch"
            );
        wraps && words[1..].iter().any(|w| w.contains("git"))
    }

    fn simple(
        &mut self,
        command: &Simple,
        stdin: Option<String>,
        cwd: Option<&Path>,
        depth: usize,
    ) -> Option<Refusal> {
        let runs_git = Self::runs_git(&command.words);
        for (name, value) in &command.assignments {
            if let Some(r) = env_rule(name, value, Scope::Prefix { runs_git }) {
                return Some(r);
            }
        }
        // `NAME=value` alone sets a shell variable: exported under `set -a`,
        // else remembered for a later `export NAME`.
        if command.words.is_empty() {
            for (name, value) in &command.assignments {
                if self.allexport
                    && let Some(r) = env_rule(name, value, Scope::Export)
                {
                    return Some(r);
                }
                self.vars.retain(|(n, _)| n != name);
                self.vars.push((name.clone(), value.clone()));
            }
        }
        for target in &command.redirects {
            if let Some(r) = self.write(">", target, cwd) {
                return Some(r);
            }
        }
        let unwrapped = unwrap(&command.words);
        let runs_git = Self::runs_git(&unwrapped.words);
        for (name, value) in &unwrapped.env {
            if let Some(r) = env_rule(name, value, Scope::Prefix { runs_git }) {
                return Some(r);
            }
        }
        // `echo .git/hooks/pre-commit | xargs rm`: the piped words are
        // arguments (whitespace-separated, as xargs reads them by default).
        let mut words = unwrapped.words;
        if unwrapped.xargs {
            let input = stdin
                .iter()
                .chain(&command.herestrings)
                .chain(&command.heredocs);
            words.extend(input.flat_map(|t| t.split_whitespace().map(str::to_string)));
        }
        self.program(&words, command, stdin, cwd, depth)
    }

    /// Judge one program with its arguments (after the wrappers).
    fn program(
        &mut self,
        words: &[String],
        command: &Simple,
        stdin: Option<String>,
        cwd: Option<&Path>,
        depth: usize,
    ) -> Option<Refusal> {
        let first = words.first()?;
        let args = &words[1..];
        let name = basename(first);
        let operands: Vec<&String> = args
            .iter()
            .filter(|a| !(a.starts_with('-') && a.len() > 1))
            .collect();
        match name {
            "git" => self.git(args, cwd, depth),
            "mastermind-hooks" if args.first().map(String::as_str) == Some("uninstall") => {
                Some(Refusal::new(
                    words.join(" "),
                    "takes the gate out of the git hooks or the agent hooks",
                    HOOKS_INSTEAD,
                ))
            }
            "pre-commit" | "prek" | "lefthook" | "hk" | "husky"
                if args.first().map(String::as_str) == Some("uninstall") =>
            {
                Some(Refusal::new(
                    words.join(" "),
                    "takes the hook manager, and the gate with it, out of the git hooks",
                    MANAGER_INSTEAD,
                ))
            }
            "export" | "declare" | "typeset" | "local" | "readonly" | "setenv" => {
                args.iter().find_map(|w| match split_assignment(w) {
                    Some((n, v)) => env_rule(n, v, Scope::Export),
                    // `export NAME`: the variable set before.
                    None => self
                        .vars
                        .iter()
                        .find(|(n, _)| n == w)
                        .and_then(|(n, v)| env_rule(n, v, Scope::Export)),
                })
            }
            "set"
                if args.iter().any(|a| {
                    (a.starts_with('-') && !a.starts_with("--") && a.contains('a'))
                        || a == "allexport"
                }) =>
            {
                self.allexport = true;
                None
            }
            "eval" => self.script(&args.join(" "), cwd.map(Path::to_path_buf), depth + 1),
            "busybox" => self.program(args, command, stdin, cwd, depth + 1),
            shell if is_shell(shell) => self.shell(args, command, stdin, cwd, depth),
            "script" | "su" | "runuser" | "sg" => option_value(args, 'c', "command")
                .and_then(|text| self.script(&text, cwd.map(Path::to_path_buf), depth + 1)),
            "flock" => self.flock(args, command, cwd, depth),
            "find" => self.find(args, command, cwd, depth),
            "rm" | "unlink" | "shred" | "rmdir" | "truncate" | "chmod" | "chown" | "chgrp"
            | "chattr" | "mv" | "tee" | "sponge" => self.writes(name, &operands, cwd),
            "cp" | "install" | "ln" | "rsync" => {
                let target = option_value(args, 't', "target-directory");
                let dest = match &target {
                    Some(dir) => Some(dir),
                    None if operands.len() >= 2 => operands.last().copied(),
                    None => None,
                };
                dest.and_then(|d| self.write(name, d, cwd))
            }
            "sed" | "perl" | "ruby"
                if args.iter().any(|a| {
                    a.starts_with("--in-place")
                        || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
                }) =>
            {
                self.writes(&format!("{name} -i"), &operands, cwd)
            }
            // Programs that write where an option or operand says: an
            // archive extracted into a directory, a patched file, an
            // in-place awk, a scripted editor.
            "tar" | "bsdtar"
                if args
                    .first()
                    .is_some_and(|a| !a.starts_with('-') && a.contains('x'))
                    || args.iter().any(|a| {
                        a == "--extract"
                            || a == "--get"
                            || (a.starts_with('-') && !a.starts_with("--") && a.contains('x'))
                    }) =>
            {
                option_value(args, 'C', "directory").and_then(|d| self.write(name, &d, cwd))
            }
            "unzip" => option_value(args, 'd', "d").and_then(|d| self.write(name, &d, cwd)),
            "patch" => {
                let target = option_value(args, 'o', "output")
                    .or_else(|| option_value(args, 'd', "directory"));
                target
                    .iter()
                    .chain(operands.first().copied())
                    .find_map(|t| self.write(name, t, cwd))
            }
            "awk" | "gawk"
                if args.windows(2).any(|w| w[0] == "-i" && w[1] == "inplace")
                    || args
                        .iter()
                        .any(|a| a == "-iinplace" || a == "--include=inplace") =>
            {
                self.writes(&format!("{name} -i inplace"), &operands, cwd)
            }
            "ex" | "ed" | "vi" | "vim" | "nvim" | "nano" | "emacs" => {
                self.writes(name, &operands, cwd)
            }
            "dd" => args
                .iter()
                .filter_map(|a| a.strip_prefix("of="))
                .find_map(|target| self.write("dd of=", target, cwd)),
            "curl" => {
                option_value(args, 'o', "output").and_then(|t| self.write("curl -o", &t, cwd))
            }
            "wget" => option_value(args, 'O', "output-document")
                .and_then(|t| self.write("wget -O", &t, cwd)),
            _ => None,
        }
    }

    /// `sh ARGS`: the script of `-c`, or the one it reads on its input
    /// (a here-document, a here-string, a pipe) when it has no script file.
    fn shell(
        &mut self,
        args: &[String],
        command: &Simple,
        stdin: Option<String>,
        cwd: Option<&Path>,
        depth: usize,
    ) -> Option<Refusal> {
        let mut i = 0;
        let (mut inline, mut from_stdin) = (false, false);
        while let Some(arg) = args.get(i) {
            match arg.as_str() {
                "--" => {
                    i += 1;
                    break;
                }
                "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file" => i += 2,
                a if a.starts_with("--") => i += 1,
                a if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 => {
                    inline |= a[1..].contains('c');
                    from_stdin |= a[1..].contains('s');
                    i += 1;
                }
                _ => break,
            }
        }
        let operands = &args[i.min(args.len())..];
        let cwd = cwd.map(Path::to_path_buf);
        if inline {
            return operands
                .first()
                .and_then(|text| self.script(text, cwd, depth + 1));
        }
        if operands.is_empty() || from_stdin {
            let inputs = command
                .heredocs
                .iter()
                .chain(&command.herestrings)
                .cloned()
                .chain(stdin);
            for text in inputs.collect::<Vec<_>>() {
                if let Some(r) = self.script(&text, cwd.clone(), depth + 1) {
                    return Some(r);
                }
            }
        }
        None // a script file: what it holds is not on the command line
    }

    /// `flock [options] FILE -c COMMAND` or `flock [options] FILE PROGRAM ARGS`.
    fn flock(
        &mut self,
        args: &[String],
        command: &Simple,
        cwd: Option<&Path>,
        depth: usize,
    ) -> Option<Refusal> {
        if let Some(text) = option_value(args, 'c', "command") {
            return self.script(&text, cwd.map(Path::to_path_buf), depth + 1);
        }
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            match arg.as_str() {
                "-w" | "--timeout" | "-E" | "--conflict-exit-code" => i += 2,
                a if a.starts_with('-') => i += 1,
                _ => break,
            }
        }
        let rest = args.get(i + 1..).unwrap_or_default();
        self.program(rest, command, None, cwd, depth + 1)
    }

    /// `find PATHS EXPRESSION`: `-delete` on a protected path, and each
    /// `-exec` command with `{}` standing for the paths.
    fn find(
        &mut self,
        args: &[String],
        command: &Simple,
        cwd: Option<&Path>,
        depth: usize,
    ) -> Option<Refusal> {
        let start = args
            .iter()
            .position(|a| a.starts_with('-') || a == "(" || a == "!")
            .unwrap_or(args.len());
        let roots: Vec<String> = match &args[..start] {
            [] => vec![".".to_string()],
            roots => roots.to_vec(),
        };
        let expression = &args[start..];
        // The paths the walk reaches: each root, and the protected files
        // below a root that its name and path tests may select (`find .
        // -name pre-commit -delete`; `find . -name '*.orig' -delete` selects
        // none of them).
        let mut reached: Vec<String> = Vec::new();
        for root in &roots {
            let Named::Path(dir) = paths::resolve(root, cwd, &self.ctx.places) else {
                reached.push(root.clone());
                continue;
            };
            if find_selects(expression, root, &dir, &dir) {
                reached.push(root.clone());
            }
            {
                reached.extend(
                    paths::below(&dir, &self.ctx.places)
                        .into_iter()
                        .filter(|file| find_selects(expression, root, &dir, file))
                        .map(|file| file.display().to_string()),
                );
            }
        }
        if expression.iter().any(|a| a == "-delete") {
            for path in &reached {
                if let Some(r) = self.write("find -delete", path, cwd) {
                    return Some(r);
                }
            }
        }
        let mut i = 0;
        while i < expression.len() {
            if matches!(
                expression[i].as_str(),
                "-exec" | "-execdir" | "-ok" | "-okdir"
            ) {
                let end = expression[i + 1..]
                    .iter()
                    .position(|a| a == ";" || a == "+")
                    .map_or(expression.len(), |p| i + 1 + p);
                let exec = &expression[i + 1..end];
                for root in &reached {
                    let words: Vec<String> = exec.iter().map(|w| w.replace("{}", root)).collect();
                    if let Some(r) = self.program(&words, command, None, cwd, depth + 1) {
                        return Some(r);
                    }
                }
                i = end;
            }
            i += 1;
        }
        None
    }
}

/// Whether `find ROOT EXPRESSION` (ROOT as written, `dir` resolved) may
/// select `file`: it has no name or path test, or one of them matches.
/// Read generously (`-o`, `!` and `-prune` are not followed), so a walk
/// that may reach a protected file is judged as if it did.
fn find_selects(expression: &[String], root: &str, dir: &Path, file: &Path) -> bool {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let shown = match file.strip_prefix(dir) {
        Ok(rel) if rel.as_os_str().is_empty() => root.to_string(),
        Ok(rel) => format!("{}/{}", root.trim_end_matches('/'), rel.display()),
        Err(_) => file.display().to_string(),
    };
    let mut tested = false;
    let mut i = 0;
    while i < expression.len() {
        let value = expression.get(i + 1).map(String::as_str).unwrap_or("");
        let hit = match expression[i].as_str() {
            "-name" => Some(paths::find_name_matches(value, name, false)),
            "-iname" => Some(paths::find_name_matches(value, name, true)),
            "-path" | "-wholename" => Some(paths::find_name_matches(value, &shown, false)),
            "-ipath" | "-iwholename" => Some(paths::find_name_matches(value, &shown, true)),
            "-regex" | "-iregex" => Some(true),
            _ => None,
        };
        if let Some(hit) = hit {
            if hit {
                return true;
            }
            tested = true;
            i += 2;
        } else {
            i += 1;
        }
    }
    !tested
}
