//! Which files switch the hooks off when they are written, and how a word
//! of a command names one: resolved against the session's working
//! directory (and the `cd`s before it), `~` and `$HOME`, then normalized
//! lexically (`.git//hooks`, `.git/./hooks`, `a/../.git/hooks`). A word
//! with a glob or a brace expansion (`.git/*`, `.husk?`, `.git/{hooks,x}`)
//! is a pattern, protected when the shell could expand it to a protected
//! file or a directory holding one (matched as the shell matches: `*` never
//! crosses a `/` nor takes a leading `.`). A word the guard cannot resolve
//! (another variable, a command substitution) is judged by its text.
//!
//! The protected files:
//!
//! * the repository's hooks directory (`git rev-parse --git-path hooks`,
//!   which follows `core.hooksPath`) and the default `.git/hooks`;
//! * the gate's own state under the git directory (`mastermind-hooks/`:
//!   the agent hooks' memory of the landing target and their block counts,
//!   the runner's records), which decide what the stop hook judges;
//! * the git directory itself and git's configuration files (the
//!   repository's `config`, `~/.gitconfig`, `~/.config/git/config`,
//!   `/etc/gitconfig`), which decide where hooks run;
//! * the harnesses' settings: Claude Code's `.claude/settings.json`,
//!   `.claude/settings.local.json` and `managed-settings.json` (hooks,
//!   `env`, `disableAllHooks`), Codex's `.codex/config.toml` (hooks,
//!   `[features] hooks = false`), `.codex/hooks.json` and
//!   `requirements.toml`, in the project or the home directory;
//! * the hook managers' scripts and configurations: husky's `.husky/`,
//!   `.pre-commit-config.yaml` (pre-commit, prek), lefthook's
//!   `lefthook.yml` family with its `-local` files, hk's `hk.pkl` family;
//! * shell profiles and env files (`.bashrc`, `.profile`, `.zshenv`,
//!   `.envrc`, `.env`, `$CLAUDE_ENV_FILE`, ...), only when what is written
//!   sets `MASTERMIND_HOOKS_*` (the per-user override of the agent hooks'
//!   binary, or the skip switch).

use std::path::{Component, Path, PathBuf};

/// What a protected file does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protected {
    /// A git hook, or the hooks directory.
    Hook,
    /// The git directory or a git configuration file.
    GitConfig,
    /// A harness's hook settings.
    HarnessSettings,
    /// A hook manager's script or configuration.
    HookManager,
    /// A shell profile or env file, written with `MASTERMIND_HOOKS_*`.
    Profile,
    /// The gate's own state under the git directory.
    GateState,
}

/// The gate's state directory below the git directory (as
/// `crate::agent::loop_guard` and the runner keep it).
pub const STATE_DIR: &str = "mastermind-hooks";

/// The hook managers' configuration files (as `crate::install` reads them).
pub const MANAGER_FILES: &[&str] = &[
    ".pre-commit-config.yaml",
    ".pre-commit-config.yml",
    "lefthook.yml",
    "lefthook.yaml",
    "lefthook.json",
    "lefthook.toml",
    ".lefthook.yml",
    ".lefthook.yaml",
    ".lefthook.json",
    ".lefthook.toml",
    "lefthook-local.yml",
    "lefthook-local.yaml",
    "lefthook-local.json",
    "lefthook-local.toml",
    ".lefthook-local.yml",
    ".lefthook-local.yaml",
    ".lefthook-local.json",
    ".lefthook-local.toml",
    "hk.pkl",
    "hk.local.pkl",
    ".hk.pkl",
];

/// Shell profiles and env files a harness or a login shell reads.
const PROFILES: &[&str] = &[
    ".profile",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
    "config.fish",
    ".envrc",
    "environment",
];

/// Variables that name a file a shell or a harness reads its environment
/// from.
const ENV_FILE_VARS: &[&str] = &["CLAUDE_ENV_FILE", "BASH_ENV", "$ENV", "${ENV}"];

/// Where the guard stands: the facts a path is resolved against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Places {
    /// The user's home directory.
    pub home: Option<PathBuf>,
    /// The repository's git directory (absolute).
    pub git_dir: Option<PathBuf>,
    /// The directory git runs hooks from (absolute; `core.hooksPath`
    /// followed).
    pub hooks_dir: Option<PathBuf>,
}

/// A word of a command as a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    /// Resolved to an absolute, normalized path.
    Path(PathBuf),
    /// A glob or brace pattern, made absolute and normalized: every path
    /// the shell may expand it to.
    Pattern(PathBuf),
    /// Not resolvable here: its text, normalized.
    Text(String),
}

/// Lexically normalize `path`: `.` and empty components go, `..` takes
/// the component before it (never above the root).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !out.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn dynamic(word: &str) -> bool {
    word.contains(['$', '`'])
}

/// Whether the shell expands `word` as a glob or a brace list.
fn is_pattern(word: &str) -> bool {
    word.contains(['*', '?', '['])
        || word.split_once('{').is_some_and(|(_, after)| {
            after
                .split_once('}')
                .is_some_and(|(list, _)| list.contains(','))
        })
}

/// Resolve `word` against `cwd` (the virtual working directory; `None`
/// when a `cd` the guard could not follow came before).
pub fn resolve(word: &str, cwd: Option<&Path>, places: &Places) -> Named {
    let home_rest = word
        .strip_prefix("~/")
        .or_else(|| word.strip_prefix("$HOME/"))
        .or_else(|| word.strip_prefix("${HOME}/"))
        .or_else(|| (word == "~" || word == "$HOME").then_some(""));
    let (base, rest): (Option<&Path>, &str) = match home_rest {
        Some(rest) => (places.home.as_deref(), rest),
        None if word.starts_with('/') => (Some(Path::new("/")), word),
        None => (cwd, word),
    };
    match base {
        Some(base) if !dynamic(rest) && is_pattern(rest) => {
            Named::Pattern(normalize(&base.join(rest)))
        }
        Some(base) if !dynamic(rest) => Named::Path(normalize(&base.join(rest))),
        _ => Named::Text(normalize(Path::new(word)).to_string_lossy().into_owned()),
    }
}

/// Whether the glob component `pattern` matches the file name `name` as
/// the shell matches it: a leading `.` only by a leading `.`.
fn component_matches(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    if !is_pattern(pattern) {
        return pattern == name;
    }
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|glob| glob.compile_matcher().is_match(name))
        .unwrap_or(false)
}

fn components(path: &Path) -> Vec<String> {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect()
}

/// Whether `pattern` may expand to `anchor` itself or, with `subtree`, to
/// anything at or below it.
fn pattern_reaches(pattern: &[String], anchor: &Path, subtree: bool) -> bool {
    let anchor = components(anchor);
    let fits = if subtree {
        pattern.len() >= anchor.len()
    } else {
        pattern.len() == anchor.len()
    };
    fits && anchor
        .iter()
        .zip(pattern)
        .all(|(name, pat)| component_matches(pat, name))
}

/// The names a pattern's component is tried against for the protections
/// by name: inside a harness's directory (`.claude/*`), else only where the
/// component starts with text of its own (`.c*`, `lefthook*`, not
/// `*.json`), so a pattern over ordinary files is never taken for a hook
/// manager's configuration.
fn named_candidates(component: &str, parent: &str) -> Vec<&'static str> {
    let literal_start =
        !component.starts_with(['*', '?', '[', '{']) || matches!(parent, ".claude" | ".codex");
    if !is_pattern(component) || !literal_start {
        return Vec::new();
    }
    const NAMES: &[&str] = &[
        ".claude",
        ".codex",
        ".husky",
        "settings.json",
        "settings.local.json",
        "managed-settings.json",
        "config.toml",
        "hooks.json",
        "requirements.toml",
        ".env",
    ];
    NAMES
        .iter()
        .chain(MANAGER_FILES)
        .chain(PROFILES)
        .copied()
        .filter(|name| component_matches(component, name))
        .collect()
}

/// What a pattern may expand to that is protected.
fn pattern_protected(pattern: &Path, places: &Places, sets_override: bool) -> Option<Protected> {
    let parts = components(pattern);
    if let Some(git_dir) = &places.git_dir {
        let subtrees = [
            (places.hooks_dir.clone(), Protected::Hook),
            (Some(git_dir.join("hooks")), Protected::Hook),
            (Some(git_dir.join(STATE_DIR)), Protected::GateState),
        ];
        for (dir, what) in subtrees {
            if dir.is_some_and(|d| pattern_reaches(&parts, &d, true)) {
                return Some(what);
            }
        }
        if pattern_reaches(&parts, git_dir, false)
            || pattern_reaches(&parts, &git_dir.join("config"), false)
        {
            return Some(Protected::GitConfig);
        }
    } else {
        let text = pattern.to_string_lossy().into_owned();
        if let Some(what) = protected(&Named::Text(text), places, sets_override) {
            return Some(what);
        }
    }
    if let Some(home) = &places.home {
        for config in [home.join(".gitconfig"), home.join(".config/git/config")] {
            if pattern_reaches(&parts, &config, false) {
                return Some(Protected::GitConfig);
            }
        }
    }
    // The protections by name: each of the last two components in turn
    // replaced by the protected names it matches (`.claude/*`, `.husk?`,
    // `.claud?/settings.json`); a protected directory anywhere above
    // (`.husky/*`) is seen by name as it is.
    let mut tried: Vec<PathBuf> = vec![pattern.to_path_buf()];
    for back in 1..=2.min(parts.len()) {
        let at = parts.len() - back;
        let mut more = Vec::new();
        for path in &tried {
            let mut path_parts = components(path);
            let parent = at
                .checked_sub(1)
                .map(|i| path_parts[i].clone())
                .unwrap_or_default();
            for name in named_candidates(&parts[at], &parent) {
                path_parts[at] = name.to_string();
                more.push(path_parts.iter().collect::<PathBuf>());
            }
        }
        tried.extend(more);
    }
    tried.iter().find_map(|path| by_name(path, sets_override))
}

/// Hook names a `find` below a hooks directory is tried with.
const HOOK_NAMES: &[&str] = &[
    "pre-commit",
    "pre-push",
    "pre-merge-commit",
    "commit-msg",
    "prepare-commit-msg",
    "pre-receive",
    "pre-rebase",
    "post-checkout",
];

/// Protected files a walk of the directory `root` (a `find`) may reach:
/// the hooks and the gate's state when the git directory or the hooks
/// directory is below `root`, and the harness settings and hook managers'
/// files at `root` itself.
pub fn below(root: &Path, places: &Places) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(git_dir) = &places.git_dir {
        dirs.push(git_dir.join("hooks"));
        if git_dir.starts_with(root) {
            found.push(git_dir.join("config"));
            found.push(
                git_dir
                    .join(STATE_DIR)
                    .join("agent-hooks")
                    .join("state.json"),
            );
        }
    }
    dirs.extend(places.hooks_dir.clone());
    for dir in dirs.iter().filter(|d| d.starts_with(root)) {
        found.extend(HOOK_NAMES.iter().map(|name| dir.join(name)));
    }
    for file in [
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".codex/config.toml",
        ".codex/hooks.json",
        ".husky/pre-commit",
        ".husky/pre-push",
    ] {
        found.push(root.join(file));
    }
    found.extend(MANAGER_FILES.iter().map(|name| root.join(name)));
    found
}

/// Whether `find`'s `-name`-like test `pattern` matches the file name
/// `name` (fnmatch: a leading `.` is matched by `*`).
pub fn find_name_matches(pattern: &str, name: &str, fold_case: bool) -> bool {
    globset::GlobBuilder::new(pattern)
        .literal_separator(false)
        .case_insensitive(fold_case)
        .backslash_escape(true)
        .build()
        .map(|glob| glob.compile_matcher().is_match(name))
        .unwrap_or(true)
}

fn name_of(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

fn parent_name(path: &Path) -> &str {
    path.parent().map(name_of).unwrap_or("")
}

fn has_component(path: &Path, name: &str) -> bool {
    path.components().any(|c| c.as_os_str() == name)
}

/// What a file whose path is `path` is, by its name alone (any
/// directory): harness settings, a hook manager's file, a profile.
fn by_name(path: &Path, sets_override: bool) -> Option<Protected> {
    let name = name_of(path);
    let parent = parent_name(path);
    if (parent == ".claude" && name.starts_with("settings") && name.ends_with(".json"))
        || name == "managed-settings.json"
        || (parent == ".codex"
            && matches!(name, "config.toml" | "hooks.json" | "requirements.toml"))
        || matches!(name, ".claude" | ".codex")
    {
        return Some(Protected::HarnessSettings);
    }
    if has_component(path, ".husky") || name == ".husky" || MANAGER_FILES.contains(&name) {
        return Some(Protected::HookManager);
    }
    if sets_override
        && (PROFILES.contains(&name) || name.starts_with(".env") || name.ends_with(".env"))
    {
        return Some(Protected::Profile);
    }
    None
}

/// Whether writing (or removing, or moving) the file `named` switches
/// hooks off. `sets_override`: what is written sets `MASTERMIND_HOOKS_*`.
pub fn protected(named: &Named, places: &Places, sets_override: bool) -> Option<Protected> {
    match named {
        Named::Path(path) => {
            let in_dir = |dir: &Option<PathBuf>| dir.as_ref().is_some_and(|d| path.starts_with(d));
            let default_hooks = places.git_dir.as_ref().map(|g| g.join("hooks"));
            if in_dir(&places.hooks_dir) || in_dir(&default_hooks) {
                return Some(Protected::Hook);
            }
            // Without a repository around, any `.git/hooks` is taken for
            // this one's.
            let text = path.to_string_lossy();
            if places.git_dir.is_none() {
                if text.contains("/.git/hooks/") || text.ends_with("/.git/hooks") {
                    return Some(Protected::Hook);
                }
                if name_of(path) == ".git" || text.ends_with("/.git/config") {
                    return Some(Protected::GitConfig);
                }
                if text.contains(&format!("/.git/{STATE_DIR}")) {
                    return Some(Protected::GateState);
                }
            }
            if let Some(git_dir) = &places.git_dir {
                if path.starts_with(git_dir.join(STATE_DIR)) {
                    return Some(Protected::GateState);
                }
                if path == git_dir || path == &git_dir.join("config") {
                    return Some(Protected::GitConfig);
                }
            }
            if let Some(home) = &places.home
                && (path == &home.join(".gitconfig") || path == &home.join(".config/git/config"))
            {
                return Some(Protected::GitConfig);
            }
            if path == Path::new("/etc/gitconfig") {
                return Some(Protected::GitConfig);
            }
            by_name(path, sets_override)
        }
        Named::Text(text) => {
            let path = Path::new(text);
            let segments: Vec<&str> = text.split('/').collect();
            let hooks = segments.windows(2).any(|w| w == [".git", "hooks"])
                || (text.contains("rev-parse") && text.contains("hooks"))
                || (text.contains("hooksPath") || text.contains("hookspath"));
            if hooks {
                return Some(Protected::Hook);
            }
            if segments.windows(2).any(|w| w == [".git", STATE_DIR]) {
                return Some(Protected::GateState);
            }
            if segments.last() == Some(&".git")
                || segments.ends_with(&[".git", "config"])
                || text.ends_with(".gitconfig")
                || segments.ends_with(&["git", "config"])
            {
                return Some(Protected::GitConfig);
            }
            if sets_override && ENV_FILE_VARS.iter().any(|v| text.contains(v)) {
                return Some(Protected::Profile);
            }
            by_name(path, sets_override)
        }
        Named::Pattern(pattern) => pattern_protected(pattern, places, sets_override),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        Places {
            home: Some(PathBuf::from("/home/me")),
            git_dir: Some(PathBuf::from("/repo/.git")),
            hooks_dir: Some(PathBuf::from("/repo/.git/hooks")),
        }
    }

    fn judge(word: &str, cwd: &str) -> Option<Protected> {
        protected(
            &resolve(word, Some(Path::new(cwd)), &places()),
            &places(),
            true,
        )
    }

    #[test]
    fn resolves_and_normalizes_what_a_command_names() {
        for (word, cwd) in [
            (".git/hooks/pre-commit", "/repo"),
            (".git//hooks/x", "/repo"),
            ("./.git/./hooks/x", "/repo"),
            ("sub/../.git/hooks", "/repo"),
            ("../.git/hooks/pre-push", "/repo/src"),
            ("pre-commit", "/repo/.git/hooks"),
            ("/repo/.git/hooks", "/"),
            (".git/hooks/*", "/repo"),
            ("\"$(git rev-parse --git-path hooks)\"/pre-commit", "/repo"),
        ] {
            assert_eq!(judge(word, cwd), Some(Protected::Hook), "{word} in {cwd}");
        }
        for (word, cwd, what) in [
            (".git", "/repo", Protected::GitConfig),
            (".git/config", "/repo", Protected::GitConfig),
            ("~/.gitconfig", "/repo", Protected::GitConfig),
            ("$HOME/.config/git/config", "/repo", Protected::GitConfig),
            (
                ".claude/settings.local.json",
                "/repo",
                Protected::HarnessSettings,
            ),
            (
                "~/.claude/settings.json",
                "/repo",
                Protected::HarnessSettings,
            ),
            (".codex/config.toml", "/repo", Protected::HarnessSettings),
            (".husky/pre-commit", "/repo", Protected::HookManager),
            ("lefthook-local.yml", "/repo", Protected::HookManager),
            ("~/.bashrc", "/repo", Protected::Profile),
            (".env", "/repo", Protected::Profile),
            ("\"$CLAUDE_ENV_FILE\"", "/repo", Protected::Profile),
        ] {
            assert_eq!(judge(word, cwd), Some(what), "{word}");
        }
        // Another repository's git directory, a copy of a hook, ordinary files.
        for (word, cwd) in [
            ("vendor/lib/.git", "/repo"),
            ("/tmp/pre-commit.bak", "/repo"),
            ("src/main.rs", "/repo"),
            ("notes.md", "/repo/.git"),
        ] {
            assert_eq!(judge(word, cwd), None, "{word} in {cwd}");
        }
        // A profile only matters when what is written sets the override.
        assert_eq!(
            protected(
                &resolve(".bashrc", Some(Path::new("/home/me")), &places()),
                &places(),
                false
            ),
            None
        );
    }
}
