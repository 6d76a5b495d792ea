//! The pre-tool guard: does a shell command an agent is about to run skip
//! or disable the git hooks or the gate? Pure: the command text and the
//! repository's git aliases in, a [`Refusal`] or nothing out.
//!
//! It reads the command as a shell would split it ([`super::shell`]): every
//! simple command of a list, pipeline or subshell, the scripts of `$(...)`,
//! backquotes, `sh -c '...'`, `eval`, here-documents fed to a shell, and
//! the programs behind `env`, `command`, `exec`, `nohup`, `time`, `nice`,
//! `timeout`, `xargs` and `sudo`, with the `NAME=value` assignments before
//! any of them. git's own aliases are expanded (`git ci -n` when `ci` is
//! `commit`, `!` aliases as shell), as are `-c alias.X=...` on the command
//! line. What it refuses:
//!
//! * `git commit` with `--no-verify` or `-n` (also in a cluster: `-nm`),
//!   and `--no-verify` on `push`, `merge`, `pull`, `am`, `rebase`,
//!   `cherry-pick` and `revert`; `git commit-tree`, which makes a commit no
//!   hook sees;
//! * another hooks directory for one command: `git -c core.hooksPath=...`,
//!   `--config-env=core.hooksPath=...`, `GIT_CONFIG_KEY_n=core.hooksPath`,
//!   `GIT_CONFIG_PARAMETERS`;
//! * changing it for good: `git config [...] core.hooksPath ...` (reading it
//!   with `--get`, `--list` or `get` is fine);
//! * the skip switches: `MASTERMIND_HOOKS_SKIP`, husky's `HUSKY=0`,
//!   lefthook's `LEFTHOOK=0` and `LEFTHOOK_EXCLUDE`, hk's `HK=0` and
//!   `HK_SKIP_*`, and pre-commit's and prek's `SKIP` naming a mastermind-hooks
//!   hook, as an assignment, through `env` or `export`;
//! * deleting or rewriting a hook: `rm`, `mv`, `unlink`, `chmod`, `cp`,
//!   `ln`, `truncate`, `tee`, `sed -i`, `perl -i`, `install` or a
//!   redirection whose target is under `.git/hooks`;
//! * `mastermind-hooks uninstall`.
//!
//! What it cannot see is written in the book (docs/src/agent-hooks.md):
//! commands a script file or a program runs, names built at run time
//! (`$cmd`), and edits made with the harness's file tools.

use super::shell::{self, Simple};

/// Why a command is refused, and what to do instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What in the command skips the hooks, as the agent wrote it.
    pub what: String,
    /// The rule, in a few words.
    pub rule: &'static str,
    /// What to do instead.
    pub instead: &'static str,
}

impl Refusal {
    /// The reason the harness shows the agent.
    pub fn reason(&self) -> String {
        format!(
            "mastermind-hooks refused this command: `{}` {}. {} If you believe the gate is wrong about your work, stop and tell the user; do not work around the hooks.",
            self.what, self.rule, self.instead
        )
    }
}

/// A git alias: its name and its value (`commit -v`, or `!sh text`).
pub type Aliases = [(String, String)];

const COMMIT_INSTEAD: &str = "Commit with the hooks: run the same git command without the option; when the gate refuses, fix what it reports (`mastermind-hooks check --staged` lists it before you commit).";
const HOOKS_INSTEAD: &str = "Leave the hooks where they are; run git commands as they are, and fix what the gate reports (`mastermind-hooks check --staged`, `mastermind-hooks check --worktree`).";
const SKIP_INSTEAD: &str = "Do not set skip switches; when the gate refuses, fix what it reports (`mastermind-hooks check --staged` lists it).";

/// How deep aliases and nested scripts are followed.
const MAX_DEPTH: usize = 8;

/// Judge a shell command line.
pub fn judge(command: &str, aliases: &Aliases) -> Option<Refusal> {
    script(command, aliases, 0)
}

fn script(text: &str, aliases: &Aliases, depth: usize) -> Option<Refusal> {
    if depth > MAX_DEPTH {
        return None;
    }
    let parsed = shell::parse(text);
    for nested in &parsed.nested {
        if let Some(r) = script(nested, aliases, depth + 1) {
            return Some(r);
        }
    }
    let feeds_a_shell = parsed
        .commands
        .iter()
        .any(|c| c.words.first().is_some_and(|w| is_shell(w)));
    for command in &parsed.commands {
        if let Some(r) = simple(command, aliases, depth) {
            return Some(r);
        }
        if feeds_a_shell {
            for body in &command.heredocs {
                if let Some(r) = script(body, aliases, depth + 1) {
                    return Some(r);
                }
            }
        }
    }
    None
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_shell(word: &str) -> bool {
    matches!(
        basename(word),
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "busybox"
    )
}

fn mentions_gate(value: &str) -> bool {
    value.to_ascii_lowercase().contains("mastermind")
}

/// An environment assignment that switches hooks off.
fn assignment(name: &str, value: &str) -> Option<Refusal> {
    let off = |v: &str| matches!(v.trim(), "0" | "false" | "no" | "off");
    let refuse = |rule| {
        Some(Refusal {
            what: format!("{name}={value}"),
            rule,
            instead: SKIP_INSTEAD,
        })
    };
    match name {
        "MASTERMIND_HOOKS_SKIP" if !value.trim().is_empty() => {
            refuse("skips the mastermind-hooks gate in the git hooks")
        }
        "HUSKY" if off(value) => refuse("turns off every husky hook"),
        "LEFTHOOK" if off(value) => refuse("turns off every lefthook hook"),
        "HK" if off(value) => refuse("turns off every hk hook"),
        "SKIP" | "PREK_SKIP" | "LEFTHOOK_EXCLUDE" | "HK_SKIP_STEPS" | "HK_SKIP_STEP"
            if mentions_gate(value) =>
        {
            refuse("skips the mastermind-hooks hook of the hook manager")
        }
        "HK_SKIP_HOOK" | "HK_SKIP_HOOKS" if !value.trim().is_empty() => refuse("skips hk's hooks"),
        "GIT_CONFIG_PARAMETERS" if value.to_ascii_lowercase().contains("core.hookspath") => {
            refuse("points git at another hooks directory")
        }
        _ if name.starts_with("GIT_CONFIG_KEY_")
            && value.eq_ignore_ascii_case("core.hooksPath") =>
        {
            refuse("points git at another hooks directory")
        }
        _ => None,
    }
}

fn assignments<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<Refusal> {
    pairs.into_iter().find_map(|(n, v)| assignment(n, v))
}

fn split_assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let ok = !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.as_bytes()[0].is_ascii_digit();
    ok.then_some((name, value))
}

/// The words after the wrappers that run another program (`env A=1`,
/// `command`, `nohup`, ...), checking the assignments they make.
fn unwrap(words: &[String]) -> Result<&[String], Refusal> {
    let mut rest = words;
    loop {
        let Some(first) = rest.first() else {
            return Ok(rest);
        };
        match basename(first) {
            "env" => {
                let mut i = 1;
                while let Some(w) = rest.get(i) {
                    if let Some((n, v)) = split_assignment(w) {
                        if let Some(r) = assignment(n, v) {
                            return Err(r);
                        }
                        i += 1;
                    } else if matches!(w.as_str(), "-u" | "--unset" | "-C" | "--chdir") {
                        i += 2;
                    } else if matches!(w.as_str(), "-S" | "--split-string") {
                        // `env -S 'a b'`: the string is the command.
                        let mut split: Vec<String> = rest
                            .get(i + 1)
                            .and_then(|s| shlex::split(s))
                            .unwrap_or_default();
                        split.extend(rest.iter().skip(i + 2).cloned());
                        return match unwrap(&split) {
                            Ok(inner) => match program(inner, &[], 0) {
                                Some(r) => Err(r),
                                None => Ok(&[]),
                            },
                            Err(r) => Err(r),
                        };
                    } else if w.starts_with('-') {
                        i += 1;
                    } else {
                        break;
                    }
                }
                rest = &rest[i.min(rest.len())..];
            }
            "command" | "builtin" | "exec" | "nohup" | "time" | "stdbuf" | "setsid" | "sudo"
            | "doas" | "xargs" | "nice" | "ionice" | "chronic" => {
                let mut i = 1;
                while rest.get(i).is_some_and(|w| w.starts_with('-')) {
                    // Options with a value in the next word.
                    let takes = matches!(
                        (basename(first), rest[i].as_str()),
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
                rest = &rest[i.min(rest.len())..];
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
                rest = &rest[(i + 1).min(rest.len())..]; // the duration
            }
            _ => return Ok(rest),
        }
    }
}

fn simple(command: &Simple, aliases: &Aliases, depth: usize) -> Option<Refusal> {
    if let Some(r) = assignments(
        command
            .assignments
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str())),
    ) {
        return Some(r);
    }
    for target in &command.redirects {
        if in_hooks_dir(target) {
            return Some(Refusal {
                what: format!("> {target}"),
                rule: "rewrites a git hook",
                instead: HOOKS_INSTEAD,
            });
        }
    }
    let words = match unwrap(&command.words) {
        Ok(words) => words,
        Err(r) => return Some(r),
    };
    let mut found = program(words, aliases, depth);
    if found.is_none() && words.first().is_some_and(|w| is_shell(w)) {
        for body in &command.heredocs {
            found = found.or_else(|| script(body, aliases, depth + 1));
        }
    }
    found
}

fn in_hooks_dir(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    path.contains(".git/hooks") || path == ".git" || path.ends_with("/.git")
}

/// Judge one program with its arguments (after the wrappers).
fn program(words: &[String], aliases: &Aliases, depth: usize) -> Option<Refusal> {
    let first = words.first()?;
    let args = &words[1..];
    match basename(first) {
        "git" => git(args, aliases, depth),
        "mastermind-hooks" if args.first().map(String::as_str) == Some("uninstall") => {
            Some(Refusal {
                what: words.join(" "),
                rule: "takes the gate out of the git hooks or the agent hooks",
                instead: HOOKS_INSTEAD,
            })
        }
        "export" | "declare" | "typeset" | "local" | "readonly" | "setenv" => {
            assignments(args.iter().filter_map(|w| split_assignment(w)))
        }
        "eval" => script(&args.join(" "), aliases, depth + 1),
        name if is_shell(name) => {
            // `sh -c SCRIPT`, also in a cluster (`-ec`, `-lc`).
            let at = args
                .iter()
                .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))?;
            let text = args.get(at + 1)?;
            script(text, aliases, depth + 1)
        }
        "rm" | "mv" | "unlink" | "chmod" | "cp" | "ln" | "truncate" | "tee" | "install"
        | "shred" | "rmdir" => args.iter().find(|a| in_hooks_dir(a)).map(|a| Refusal {
            what: format!("{} {a}", basename(first)),
            rule: "deletes or rewrites a git hook",
            instead: HOOKS_INSTEAD,
        }),
        "sed" | "perl" if args.iter().any(|a| a.starts_with("-i")) => {
            args.iter().find(|a| in_hooks_dir(a)).map(|a| Refusal {
                what: format!("{} -i {a}", basename(first)),
                rule: "rewrites a git hook",
                instead: HOOKS_INSTEAD,
            })
        }
        _ => None,
    }
}

fn hooks_path_key(key: &str) -> bool {
    key.eq_ignore_ascii_case("core.hooksPath")
}

/// `git ARGS`: global options, aliases, then the subcommand.
fn git(args: &[String], aliases: &Aliases, depth: usize) -> Option<Refusal> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut local: Vec<(String, String)> = aliases.to_vec();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let config = match arg.as_str() {
            "-c" => {
                i += 1;
                args.get(i).map(String::as_str)
            }
            a if a.starts_with("--config-env=") => a.strip_prefix("--config-env="),
            _ => None,
        };
        if let Some(pair) = config {
            let key = pair.split('=').next().unwrap_or(pair);
            if hooks_path_key(key) {
                return Some(Refusal {
                    what: format!("git -c {pair}"),
                    rule: "runs git with another hooks directory, so no hook of this repository runs",
                    instead: HOOKS_INSTEAD,
                });
            }
            if let Some((name, value)) = pair.split_once('=')
                && let Some(alias) = name
                    .strip_prefix("alias.")
                    .or_else(|| name.strip_prefix("Alias."))
            {
                local.insert(0, (alias.to_string(), value.to_string()));
            }
            i += 1;
            continue;
        }
        match arg.as_str() {
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let sub = args.get(i)?;
    let rest = &args[i + 1..];
    if let Some((_, value)) = local.iter().find(|(name, _)| name == sub) {
        if let Some(shell_text) = value.strip_prefix('!') {
            let mut text = shell_text.to_string();
            for arg in rest {
                text.push(' ');
                text.push_str(&shlex::try_quote(arg).unwrap_or_default());
            }
            return script(&text, &local, depth + 1);
        }
        let mut expanded = shlex::split(value).unwrap_or_default();
        expanded.extend(rest.iter().cloned());
        return git(&expanded, &local, depth + 1);
    }
    let no_verify = |a: &str| a.len() >= 6 && "--no-verify".starts_with(a);
    let options = || rest.iter().take_while(|a| a.as_str() != "--");
    match sub.as_str() {
        "commit" => {
            let mut words = options();
            while let Some(a) = words.next() {
                if no_verify(a) {
                    return Some(refuse_commit(sub, a));
                }
                if a.starts_with('-') && !a.starts_with("--") {
                    for c in a[1..].chars() {
                        if c == 'n' {
                            return Some(refuse_commit(sub, a));
                        }
                        // Options whose value follows: the rest of the
                        // cluster, or the next word.
                        if matches!(c, 'm' | 'F' | 'C' | 'c' | 't') {
                            if a.ends_with(c) {
                                words.next();
                            }
                            break;
                        }
                        if matches!(c, 'S' | 'u') {
                            break;
                        }
                    }
                } else if matches!(
                    a.as_str(),
                    "--message"
                        | "--file"
                        | "--reuse-message"
                        | "--reedit-message"
                        | "--template"
                        | "--author"
                        | "--date"
                        | "--fixup"
                        | "--squash"
                        | "--trailer"
                        | "--pathspec-from-file"
                ) {
                    words.next();
                }
            }
            None
        }
        "push" | "merge" | "pull" | "am" | "rebase" | "cherry-pick" | "revert" => options()
            .find(|a| no_verify(a))
            .map(|a| refuse_commit(sub, a)),
        "commit-tree" => Some(Refusal {
            what: format!("git {sub}"),
            rule: "makes a commit that no git hook sees",
            instead: COMMIT_INSTEAD,
        }),
        "config" => {
            let reading = rest.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "--get"
                        | "--get-all"
                        | "--get-regexp"
                        | "-l"
                        | "--list"
                        | "get"
                        | "list"
                        | "--show-origin"
                        | "--show-scope"
                ) && !rest.iter().any(|b| {
                    matches!(
                        b.as_str(),
                        "--add" | "--replace-all" | "--unset" | "--unset-all" | "set" | "unset"
                    )
                })
            });
            rest.iter()
                .find(|a| {
                    hooks_path_key(a) || a.to_ascii_lowercase().starts_with("core.hookspath=")
                })
                .filter(|_| !reading)
                .map(|a| Refusal {
                    what: format!("git config {a}"),
                    rule: "changes the directory git runs hooks from",
                    instead: HOOKS_INSTEAD,
                })
        }
        _ => None,
    }
}

fn refuse_commit(sub: &str, option: &str) -> Refusal {
    Refusal {
        what: format!("git {sub} {option}"),
        rule: "skips the git hooks, and with them the mastermind-hooks gate",
        instead: COMMIT_INSTEAD,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aliases() -> Vec<(String, String)> {
        vec![
            ("ci".into(), "commit".into()),
            ("cin".into(), "commit --no-verify".into()),
            ("yolo".into(), "!git commit -n -m".into()),
            ("st".into(), "status".into()),
        ]
    }

    fn refused(command: &str) -> bool {
        judge(command, &aliases()).is_some()
    }

    #[test]
    fn refuses_every_way_around_the_hooks() {
        for command in [
            "git commit --no-verify -m wip",
            "git commit -n -m wip",
            "git commit -anm wip",
            "git commit --no-verif -m x",
            "git add -A && git commit -qnm 'wip'",
            "cd sub; git commit -n",
            "true || git commit -n",
            "(cd sub && git commit -n)",
            "echo $(git commit -n)",
            "echo \"`git commit -n`\"",
            "git -c core.hooksPath=/dev/null commit -m x",
            "git -c core.hookspath= commit",
            "git --config-env=core.hooksPath=EMPTY commit",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x git commit",
            "git config core.hooksPath /dev/null",
            "git config --local core.hooksPath .nothing",
            "git config --unset core.hooksPath",
            "git config set core.hooksPath x",
            "MASTERMIND_HOOKS_SKIP=wip git commit -m x",
            "env MASTERMIND_HOOKS_SKIP=1 git push",
            "env -i PATH=/bin MASTERMIND_HOOKS_SKIP=1 git push",
            "export MASTERMIND_HOOKS_SKIP=1; git commit",
            "HUSKY=0 git commit -m x",
            "LEFTHOOK=0 git commit -m x",
            "SKIP=mastermind-hooks git commit -m x",
            "SKIP=flake8,mastermind-hooks-push git push",
            "HK=0 git commit",
            "rm .git/hooks/pre-commit",
            "rm -f ./.git/hooks/pre-push && git push",
            "mv .git/hooks/pre-commit /tmp/",
            "chmod -x .git/hooks/pre-commit",
            "echo exit 0 > .git/hooks/pre-commit",
            "printf '' | tee .git/hooks/pre-push",
            "sed -i 's/exec/true/' .git/hooks/pre-commit",
            "mastermind-hooks uninstall",
            "/usr/local/bin/mastermind-hooks uninstall --agent claude-code",
            "git ci -n -m wip",
            "git cin -m wip",
            "git yolo wip",
            "git -c alias.x=commit x -n",
            "git -C sub commit --no-verify",
            "git push --no-verify origin main",
            "git merge --no-verify topic",
            "sh -c 'git commit -n'",
            "bash -lc \"git commit --no-verify\"",
            "eval 'git commit -n'",
            "sudo -u me git commit -n",
            "nohup git commit -n &",
            "timeout 60 git commit -n",
            "command git commit -n",
            "/usr/bin/git commit -n",
            "env -S 'git commit -n'",
            "sh <<EOF\ngit commit -n\nEOF",
            "git commit-tree HEAD^{tree} -m x",
            "if true; then git commit -n; fi",
        ] {
            assert!(refused(command), "not refused: {command}");
        }
    }

    #[test]
    fn lets_ordinary_work_through() {
        for command in [
            "git commit -m 'fix: -n is not an option here'",
            "git commit -m -n",
            "git commit -F notes.txt",
            "git commit --message=--no-verify",
            "git commit -m wip -- -n",
            "git push -n origin main",
            "git merge -n topic",
            "git status && git diff",
            "git st",
            "git config --get core.hooksPath",
            "git config --list --show-origin",
            "git config user.name Me",
            "cat .git/hooks/pre-commit",
            "ls .git/hooks",
            "SKIP=flake8 git commit -m x",
            "HUSKY=1 git commit",
            "echo 'git commit -n' > notes.md",
            "cat <<EOF > notes.md\ngit commit -n\nEOF",
            "grep -rn 'no-verify' docs/",
            "mastermind-hooks check --staged",
            "mastermind-hooks install --agent claude-code",
            "cargo test && git add -A && git commit -m done",
            "MASTERMIND_HOOKS_SKIP= git commit -m x",
        ] {
            assert_eq!(judge(command, &aliases()), None, "refused: {command}");
        }
    }

    #[test]
    fn the_reason_names_the_command_and_what_to_do() {
        let r = judge("git commit -nm wip", &[]).unwrap();
        let reason = r.reason();
        assert!(reason.contains("`git commit -nm`"), "{reason}");
        assert!(
            reason.contains("mastermind-hooks check --staged"),
            "{reason}"
        );
    }
}
