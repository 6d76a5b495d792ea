//! `git ARGS` as the guard reads it: the global options (`-c`,
//! `--config-env`, `-C`), git's own commands before aliases (as git looks
//! them up: an alias never hides a command, and alias names compare without
//! case), then the rules of each command.

use super::{COMMIT_INSTEAD, HOOKS_INSTEAD, MAX_DEPTH, Refusal, Walk, paths};
use std::path::{Path, PathBuf};

/// git's commands (`git help -a`): a name here is never an alias.
const COMMANDS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "describe",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "gc",
    "grep",
    "hash-object",
    "help",
    "hook",
    "index-pack",
    "init",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-tree",
    "mktag",
    "mktree",
    "mv",
    "notes",
    "pack-objects",
    "pack-refs",
    "prune",
    "pull",
    "push",
    "range-diff",
    "read-tree",
    "rebase",
    "reflog",
    "remote",
    "repack",
    "replace",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "shortlog",
    "show",
    "show-branch",
    "show-ref",
    "sparse-checkout",
    "stash",
    "status",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-objects",
    "update-index",
    "update-ref",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
];

/// Commands whose `--no-verify` skips a hook.
const VERIFYING: &[&str] = &[
    "push",
    "merge",
    "pull",
    "am",
    "rebase",
    "cherry-pick",
    "revert",
];

fn no_verify(arg: &str) -> bool {
    arg.len() >= 6 && "--no-verify".starts_with(arg)
}

/// A configuration key whose value switches hooks off or brings in
/// configuration the guard cannot see.
fn hooks_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key == "core.hookspath" || key.starts_with("include.") || key.starts_with("includeif.")
}

fn refuse_commit(sub: &str, option: &str) -> Refusal {
    Refusal::new(
        format!("git {sub} {option}"),
        "skips the git hooks, and with them the mastermind-hooks gate",
        COMMIT_INSTEAD,
    )
}

impl Walk<'_> {
    /// `git ARGS`: global options, commands, aliases.
    pub(super) fn git(
        &mut self,
        args: &[String],
        cwd: Option<&Path>,
        depth: usize,
    ) -> Option<Refusal> {
        if depth > MAX_DEPTH {
            return Some(super::too_deep("git"));
        }
        let mut cwd: Option<PathBuf> = cwd.map(Path::to_path_buf);
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            let (config, from_env) = match arg.as_str() {
                "-c" => {
                    i += 1;
                    (args.get(i).cloned(), false)
                }
                "--config-env" => {
                    i += 1;
                    (args.get(i).cloned(), true)
                }
                a if a.starts_with("--config-env=") => {
                    (a.strip_prefix("--config-env=").map(str::to_string), true)
                }
                _ => (None, false),
            };
            if let Some(pair) = config {
                let (key, value) = pair.split_once('=').unwrap_or((pair.as_str(), ""));
                if hooks_key(key) {
                    return Some(Refusal::new(
                        format!("git -c {pair}"),
                        "runs git with another hooks directory or with configuration the guard cannot see",
                        HOOKS_INSTEAD,
                    ));
                }
                if let Some(alias) = key
                    .get(..6)
                    .filter(|p| p.eq_ignore_ascii_case("alias."))
                    .map(|_| key[6..].to_ascii_lowercase())
                {
                    if from_env {
                        return Some(Refusal::new(
                            format!("git --config-env={pair}"),
                            "defines a git alias from an environment variable the guard cannot read",
                            HOOKS_INSTEAD,
                        ));
                    }
                    self.aliases.insert(0, (alias, value.to_string()));
                }
                i += 1;
                continue;
            }
            match arg.as_str() {
                "-C" => {
                    if let Some(dir) = args.get(i + 1) {
                        cwd = match paths::resolve(dir, cwd.as_deref(), &self.ctx.places) {
                            paths::Named::Path(p) => Some(p),
                            paths::Named::Pattern(_) | paths::Named::Text(_) => None,
                        };
                    }
                    i += 2;
                }
                "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" => i += 2,
                a if a.starts_with('-') => i += 1,
                _ => break,
            }
        }
        let sub = args.get(i)?;
        let rest = &args[i + 1..];
        if !COMMANDS.contains(&sub.as_str()) {
            let wanted = sub.to_ascii_lowercase();
            let (_, value) = self
                .aliases
                .iter()
                .find(|(name, _)| *name == wanted)
                .cloned()?;
            if let Some(shell_text) = value.strip_prefix('!') {
                let mut text = shell_text.to_string();
                for arg in rest {
                    text.push(' ');
                    text.push_str(&shlex::try_quote(arg).unwrap_or_default());
                }
                return self.script(&text, cwd, depth + 1);
            }
            let mut expanded = shlex::split(&value).unwrap_or_default();
            expanded.extend(rest.iter().cloned());
            return self.git(&expanded, cwd.as_deref(), depth + 1);
        }
        let options = || rest.iter().take_while(|a| a.as_str() != "--");
        let plain = |what: &str, rule: &str| {
            Some(Refusal::new(format!("git {what}"), rule, COMMIT_INSTEAD))
        };
        match sub.as_str() {
            "commit" => commit(rest),
            s if VERIFYING.contains(&s) => options()
                .find(|a| no_verify(a))
                .map(|a| refuse_commit(sub, a)),
            "commit-tree" => plain(sub, "makes a commit that no git hook sees"),
            "fast-import" => plain(sub, "makes commits that no git hook sees"),
            "filter-branch" => plain(sub, "rewrites commits where no git hook sees them"),
            "update-ref" => plain(
                sub,
                "moves a ref to any commit, past the hooks that judge commits",
            ),
            "stash" if matches!(rest.first().map(String::as_str), Some("create" | "store")) => {
                plain(
                    &format!("stash {}", rest[0]),
                    "makes a commit that no git hook sees (and that update-ref or merge --ff-only can put on a branch)",
                )
            }
            "config" => self.config(rest, cwd.as_deref(), depth),
            "rm" | "mv" => rest
                .iter()
                .filter(|a| !a.starts_with('-'))
                .find_map(|a| self.write(&format!("git {sub}"), a, cwd.as_deref())),
            "checkout" | "restore" | "checkout-index" => written_paths(sub, rest)
                .into_iter()
                .find_map(|a| self.write(&format!("git {sub}"), a, cwd.as_deref())),
            _ => None,
        }
    }

    /// `git config ...`: writing `core.hooksPath`, an include, the `core`
    /// section, or an alias that skips the hooks; `--edit`.
    fn config(&mut self, rest: &[String], cwd: Option<&Path>, depth: usize) -> Option<Refusal> {
        let refuse = |what: &str, rule: &str| {
            Some(Refusal::new(
                format!("git config {what}"),
                rule,
                HOOKS_INSTEAD,
            ))
        };
        let mut operands: Vec<&String> = Vec::new();
        let (mut writes, mut reads, mut sections) = (false, false, false);
        let mut i = 0;
        while let Some(arg) = rest.get(i) {
            match arg.as_str() {
                "-e" | "--edit" | "edit" if operands.is_empty() => {
                    return refuse(
                        arg,
                        "opens git's configuration in an editor, where anything can be set",
                    );
                }
                "--add" | "--replace-all" | "--unset" | "--unset-all" | "set" | "unset"
                    if operands.is_empty() || arg.starts_with('-') =>
                {
                    writes = true
                }
                "--remove-section" | "--rename-section" | "remove-section" | "rename-section"
                    if operands.is_empty() || arg.starts_with('-') =>
                {
                    sections = true
                }
                "--get" | "--get-all" | "--get-regexp" | "--get-urlmatch" | "-l" | "--list"
                | "get" | "list" | "--get-color" | "--get-colorbool"
                    if operands.is_empty() || arg.starts_with('-') =>
                {
                    reads = true
                }
                "-f" | "--file" | "--blob" | "--type" | "--default" | "--comment" | "--value" => {
                    i += 1
                }
                a if a.starts_with('-') => {}
                _ => operands.push(arg),
            }
            i += 1;
        }
        let key = operands.first().map(|k| k.as_str()).unwrap_or_default();
        if sections {
            let section = key.split('.').next().unwrap_or_default();
            return (section.eq_ignore_ascii_case("core")
                || section.eq_ignore_ascii_case("include")
                || section.eq_ignore_ascii_case("includeif"))
            .then(|| {
                Refusal::new(
                    format!("git config {}", rest.join(" ")),
                    "removes or renames the configuration that says where git runs hooks",
                    HOOKS_INSTEAD,
                )
            });
        }
        // Without an action, one operand reads and two write.
        let writing = writes || (!reads && operands.len() >= 2);
        if !writing {
            return None;
        }
        if hooks_key(key) || key.to_ascii_lowercase().starts_with("core.hookspath=") {
            return refuse(
                key,
                "changes where git runs hooks, or brings in configuration the guard cannot see",
            );
        }
        if key.len() > 6 && key[..6].eq_ignore_ascii_case("alias.") {
            let name = key[6..].to_ascii_lowercase();
            let Some(value) = operands.get(1) else {
                return None; // --unset alias.x
            };
            // An alias that skips the hooks is refused where it is made;
            // any other is known to the rest of the command line.
            let judged = if let Some(shell_text) = value.strip_prefix('!') {
                self.script(shell_text, cwd.map(Path::to_path_buf), depth + 1)
            } else {
                let words = shlex::split(value).unwrap_or_default();
                self.git(&words, cwd, depth + 1)
            };
            if let Some(inner) = judged {
                return Some(Refusal::new(
                    format!("git config {key} {value}"),
                    format!(
                        "defines an alias that runs `{}`, which {}",
                        inner.what, inner.rule
                    ),
                    inner.instead,
                ));
            }
            self.aliases.insert(0, (name, value.to_string()));
        }
        None
    }
}

/// The paths `git checkout`, `git restore` or `git checkout-index` writes
/// in the working tree (from the index or from a commit): the pathspecs
/// after `--`, else every operand (a branch or commit among them names no
/// protected file). `git restore --staged` alone writes only the index.
fn written_paths<'a>(sub: &str, rest: &'a [String]) -> Vec<&'a String> {
    if let Some(dashes) = rest.iter().position(|a| a == "--") {
        if sub == "restore" && index_only(&rest[..dashes]) {
            return Vec::new();
        }
        return rest[dashes + 1..].iter().collect();
    }
    if sub == "restore" && index_only(rest) {
        return Vec::new();
    }
    // Options whose value is the next word.
    let takes_value = |a: &str| match sub {
        "checkout" => matches!(a, "-b" | "-B" | "--orphan" | "--conflict"),
        "restore" => matches!(a, "-s" | "--source" | "--conflict"),
        _ => matches!(a, "--prefix" | "--stage"),
    };
    let mut paths = Vec::new();
    let mut words = rest.iter();
    while let Some(a) = words.next() {
        if takes_value(a) {
            words.next();
        } else if !(a.starts_with('-') && a.len() > 1) {
            paths.push(a);
        }
    }
    paths
}

fn index_only(options: &[String]) -> bool {
    let has = |names: &[&str]| options.iter().any(|a| names.contains(&a.as_str()));
    has(&["--staged", "-S"]) && !has(&["--worktree", "-W", "-SW", "-WS"])
}

/// `git commit ARGS`: `--no-verify`, or `-n` alone or in a cluster.
fn commit(rest: &[String]) -> Option<Refusal> {
    let mut words = rest.iter().take_while(|a| a.as_str() != "--");
    while let Some(a) = words.next() {
        if no_verify(a) {
            return Some(refuse_commit("commit", a));
        }
        if a.starts_with('-') && !a.starts_with("--") {
            for c in a[1..].chars() {
                if c == 'n' {
                    return Some(refuse_commit("commit", a));
                }
                // Options whose value follows: the rest of the cluster,
                // or the next word.
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
