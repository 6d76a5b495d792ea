//! `install --agent`, `uninstall --agent` and `status --agent`: the agent
//! hook entries in a harness's project settings (Claude Code's
//! `.claude/settings.json`, Codex's `.codex/hooks.json`, both under the
//! working tree root).
//!
//! The settings file is read without following a symlink and never blocks
//! on a FIFO; it is edited as text ([`crate::agent::settings`] decides the
//! edit purely, [`crate::agent::splice`] makes it) so every other byte stays
//! as it was, and written back through a temporary file in the same
//! directory renamed over it. A file that cannot be parsed or has an
//! unexpected shape is refused and left untouched. The entries name no path
//! on this machine, so installing on any clone, twice or by a teammate,
//! changes nothing; uninstall removes exactly our entries and gives back the
//! bytes the file had before (and removes the file when nothing else is
//! left in it).
//!
//! `status --agent codex` also reads the inline `[hooks]` tables of
//! `.codex/config.toml`, the other form Codex accepts ([`codex_toml`]).

use crate::agent::Harness;
use crate::agent::json::Json;
use crate::agent::settings::{self, Change, Entry, EntryState};
use crate::codes::Code;
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::install::codex_toml;
use crate::safe_fs::{self, Dir};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Bytes a settings file may have.
const MAX_SETTINGS_BYTES: usize = 1024 * 1024;

fn unusable(path: &Path, message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(
        Code::agent_settings_unusable,
        format!("{}: {message}", path.display()),
    )
    .with_path(path.display().to_string())
}

/// The settings file of `harness` under the working tree `root`.
pub fn settings_path(harness: Harness, root: &Path) -> PathBuf {
    root.join(harness.settings_path())
}

/// Read the settings: `None` when the file does not exist.
fn read(path: &Path) -> Result<Option<Json>, Diagnostic> {
    Ok(read_text(path)?.map(|(_, doc)| doc))
}

/// Read the settings as text and document: `None` when the file does not
/// exist.
fn read_text(path: &Path) -> Result<Option<(String, Json)>, Diagnostic> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unusable(path, e)),
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(unusable(
                path,
                "is a symlink; mastermind-hooks does not edit files through links (edit the target, or replace the link by a file)",
            ));
        }
        Ok(_) => {}
    }
    let bytes = crate::input::read_bounded_no_follow(path, MAX_SETTINGS_BYTES)
        .map_err(|d| unusable(path, d.message))?;
    if bytes.len() > MAX_SETTINGS_BYTES {
        return Err(unusable(
            path,
            format!("is larger than {MAX_SETTINGS_BYTES} bytes"),
        ));
    }
    let doc = Json::parse(&bytes).map_err(|e| unusable(path, format!("is not valid JSON: {e}")))?;
    settings::validate(&doc).map_err(|e| unusable(path, e))?;
    let text = String::from_utf8(bytes).map_err(|_| unusable(path, "is not UTF-8"))?;
    Ok(Some((text, doc)))
}

/// The settings' directory (`.claude/`, `.codex/`), made when missing and
/// entered without following a link there.
fn settings_dir(dir: &Path) -> Result<Dir, safe_fs::Error> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Dir::open(dir);
    };
    let parent = Dir::open(if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    })?;
    parent.create_dir(name, 0o777)?;
    parent.child_dir(name, false)
}

/// Write `text` to `path` atomically, keeping the file's mode.
fn write(path: &Path, text: &str) -> Result<(), Diagnostic> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let made = settings_dir(dir);
    match made {
        Ok(_) => {}
        Err(safe_fs::Error::Symlink | safe_fs::Error::NotDirectory(_)) => {
            return Err(unusable(
                dir,
                "is not a directory (symlinks are not followed)",
            ));
        }
        Err(e) => return Err(unusable(dir, std::io::Error::from(e))),
    }
    let mode = std::fs::metadata(path).ok().map(|m| m.permissions());
    let fail = |e: std::io::Error| unusable(path, format!("cannot write: {e}"));
    let mut temp = tempfile::Builder::new()
        .prefix(".mastermind-hooks-")
        .tempfile_in(dir)
        .map_err(fail)?;
    temp.write_all(text.as_bytes()).map_err(fail)?;
    temp.as_file().sync_all().map_err(fail)?;
    let permissions = match mode {
        Some(p) => p,
        None => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::Permissions::from_mode(0o644)
            }
            #[cfg(not(unix))]
            {
                temp.as_file().metadata().map_err(fail)?.permissions()
            }
        }
    };
    std::fs::set_permissions(temp.path(), permissions).map_err(fail)?;
    temp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

fn describe_entry(entry: &Entry) -> String {
    match entry.matcher {
        Some(m) => format!("{} (matcher {m})", entry.event.name()),
        None => entry.event.name().to_string(),
    }
}

/// Notes about the harness that matter after an install.
fn harness_notes(harness: Harness, root: &Path, out: &mut String) {
    match harness {
        Harness::ClaudeCode => {
            let _ = writeln!(
                out,
                "note: Claude Code picks up project hooks from {}; `/hooks` in a session lists them",
                harness.settings_path()
            );
        }
        Harness::Codex => {
            let _ = writeln!(
                out,
                "note: Codex runs project hooks only when the project's .codex/ layer is trusted, and only after you review and trust them (`/hooks` in the Codex CLI)"
            );
            let config = root.join(".codex/config.toml");
            if let Ok(bytes) = crate::input::read_bounded_no_follow(&config, MAX_SETTINGS_BYTES) {
                let text = String::from_utf8_lossy(&bytes);
                if text.lines().any(|l| {
                    l.trim_start().starts_with("[hooks") || l.trim_start().starts_with("[[hooks")
                }) {
                    let _ = writeln!(
                        out,
                        "note: .codex/config.toml also has inline [hooks]; Codex merges both and warns at startup (prefer one representation per layer)"
                    );
                }
            }
        }
    }
}

/// The outcome of an install or uninstall: text for stdout, or refusals.
pub type Outcome = Result<String, Vec<Diagnostic>>;

/// The lines `install --agent claude-code` adds to git's `info/exclude`:
/// Claude Code's per-user settings (where a per-user `MASTERMIND_HOOKS_BIN`
/// goes) stay out of git, so the gate never counts them as a task's work.
const EXCLUDE_MARK: &str = "# mastermind-hooks: Claude Code's per-user settings stay out of git";
const EXCLUDE_LINE: &str = "/.claude/settings.local.json";

/// The per-user files of `harness` that must stay out of git.
fn local_settings(harness: Harness) -> bool {
    harness == Harness::ClaudeCode
}

/// `info/exclude` under the git directory `common_dir`, as text (empty
/// when there is none).
fn read_exclude(path: &Path) -> Result<String, Diagnostic> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(unusable(path, e)),
        Ok(_) => {}
    }
    let bytes = crate::input::read_bounded_no_follow(path, MAX_SETTINGS_BYTES)
        .map_err(|d| unusable(path, d.message))?;
    String::from_utf8(bytes).map_err(|_| unusable(path, "is not UTF-8"))
}

/// Add the exclusion of the per-user settings to `info/exclude`; `true`
/// when it was added (it may be there already).
fn exclude_local(common_dir: &Path) -> Result<bool, Diagnostic> {
    let path = common_dir.join("info/exclude");
    let text = read_exclude(&path)?;
    if text.lines().any(|l| l.trim() == EXCLUDE_LINE) {
        return Ok(false);
    }
    let mut new = text;
    if !new.is_empty() && !new.ends_with('\n') {
        new.push('\n');
    }
    new.push_str(&format!("{EXCLUDE_MARK}\n{EXCLUDE_LINE}\n"));
    write(&path, &new)?;
    Ok(true)
}

/// Remove what [`exclude_local`] added; `true` when it was there.
fn unexclude_local(common_dir: &Path) -> Result<bool, Diagnostic> {
    let path = common_dir.join("info/exclude");
    let text = read_exclude(&path)?;
    let block = format!("{EXCLUDE_MARK}\n{EXCLUDE_LINE}\n");
    if !text.contains(&block) {
        return Ok(false);
    }
    write(&path, &text.replacen(&block, "", 1))?;
    Ok(true)
}

/// Merge our entries into the settings of `harness` under `root`, and keep
/// the harness's per-user settings out of git (`info/exclude` under
/// `common_dir`, git's common directory).
pub fn install(harness: Harness, root: &Path, common_dir: Option<&Path>) -> Outcome {
    let out = install_settings(harness, root)?;
    exclude_step(
        out,
        harness,
        common_dir,
        exclude_local,
        "added to",
        " (per-user settings, such as a MASTERMIND_HOOKS_BIN of yours, stay out of git)",
    )
}

/// After the settings step that wrote `out`: when `harness` has per-user
/// settings and git's common directory is known, run `step` (add or
/// remove the exclusion) on its `info/exclude`, and say `{done} <path>{why}`
/// when it changed the file. Install and uninstall share this, so the two
/// stay each other's inverse.
fn exclude_step(
    mut out: String,
    harness: Harness,
    common_dir: Option<&Path>,
    step: fn(&Path) -> Result<bool, Diagnostic>,
    done: &str,
    why: &str,
) -> Outcome {
    if local_settings(harness)
        && let Some(dir) = common_dir
        && step(dir).map_err(|d| vec![d])?
    {
        let _ = writeln!(
            out,
            "{EXCLUDE_LINE}: {done} {}{why}",
            dir.join("info/exclude").display()
        );
    }
    Ok(out)
}

fn install_settings(harness: Harness, root: &Path) -> Outcome {
    let path = settings_path(harness, root);
    let existed = read_text(&path).map_err(|d| vec![d])?;
    let entries = settings::entries(harness);
    let (text, changes) = settings::install(existed.as_ref().map(|(t, _)| t.as_str()), &entries)
        .map_err(|e| vec![unusable(&path, e)])?;
    let mut out = format!("agent hooks: {} ({})\n", path.display(), harness.title());
    for (entry, change) in entries.iter().zip(&changes) {
        let what = match change {
            Change::Unchanged => "installed and current".to_string(),
            Change::Added => format!("added `agent-hook {}`", entry.subcommand.name()),
            Change::Updated(old) => format!(
                "replaced `{old}` by the portable `agent-hook {}` entry",
                entry.subcommand.name()
            ),
        };
        let _ = writeln!(out, "{}: {what}", describe_entry(entry));
    }
    if changes.iter().all(|c| *c == Change::Unchanged) {
        let _ = writeln!(
            out,
            "nothing to do: the agent hooks are installed and current"
        );
        return Ok(out);
    }
    write(&path, &text).map_err(|d| vec![d])?;
    harness_notes(harness, root, &mut out);
    let _ = writeln!(
        out,
        "done: {} runs `agent-hook stop` before the agent ends its turn, `agent-hook subagent` on subagent returns and `agent-hook pre-tool` before each shell command and file edit, each with mastermind-hooks from PATH (or ${} when it answers as mastermind-hooks); commit {}; `mastermind-hooks uninstall --agent {}` undoes this",
        harness.title(),
        settings::BIN_VAR,
        harness.settings_path(),
        harness.name()
    );
    Ok(out)
}

/// Remove our entries from the settings of `harness` under `root`, and
/// the exclusion `install` added to `info/exclude`.
pub fn uninstall(harness: Harness, root: &Path, common_dir: Option<&Path>) -> Outcome {
    let out = uninstall_settings(harness, root)?;
    exclude_step(
        out,
        harness,
        common_dir,
        unexclude_local,
        "removed from",
        "",
    )
}

fn uninstall_settings(harness: Harness, root: &Path) -> Outcome {
    let path = settings_path(harness, root);
    let mut out = format!("agent hooks: {} ({})\n", path.display(), harness.title());
    let Some((text, _)) = read_text(&path).map_err(|d| vec![d])? else {
        let _ = writeln!(out, "nothing to do: the file does not exist");
        return Ok(out);
    };
    let (text, removed) = settings::uninstall(&text).map_err(|e| vec![unusable(&path, e)])?;
    if removed == 0 {
        let _ = writeln!(
            out,
            "nothing to do: no mastermind-hooks agent hook was installed"
        );
        return Ok(out);
    }
    let plural = if removed == 1 { "y" } else { "ies" };
    if Json::parse(text.as_bytes()).ok() == Some(Json::object()) {
        std::fs::remove_file(&path)
            .map_err(|e| vec![unusable(&path, format!("cannot remove: {e}"))])?;
        if let Some(dir) = path.parent() {
            let _ = std::fs::remove_dir(dir); // only when empty
        }
        let _ = writeln!(
            out,
            "removed {removed} entr{plural} and the file, which held nothing else"
        );
    } else {
        write(&path, &text).map_err(|d| vec![d])?;
        let _ = writeln!(
            out,
            "removed {removed} entr{plural}; the rest of the file is as it was, byte for byte"
        );
    }
    let _ = writeln!(
        out,
        "done: {} no longer runs the gate's agent hooks",
        harness.title()
    );
    Ok(out)
}

/// One entry in `status --agent`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EntryStatus {
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    /// `current`, `missing` or `outdated`.
    pub state: &'static str,
    /// The command the settings hold (when an entry of ours exists).
    pub command: Option<String>,
}

/// `status --agent`: what the harness will run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AgentStatus {
    pub version: u32,
    pub ok: bool,
    pub harness: &'static str,
    pub settings: String,
    /// Other files the entries were read from (`.codex/config.toml`).
    pub also_read: Vec<String>,
    pub entries: Vec<EntryStatus>,
    /// The binary the entries would run here (`$MASTERMIND_HOOKS_BIN` when
    /// it answers as mastermind-hooks, else `mastermind-hooks` on PATH),
    /// when one speaks their protocol.
    pub binary: Option<String>,
    /// How it is found: `MASTERMIND_HOOKS_BIN` or `PATH`.
    pub found_via: Option<&'static str>,
    /// What its `--version` says.
    pub binary_version: Option<String>,
    /// The per-user override the harness would pass, where it is set, and
    /// whether the entries use it.
    #[serde(rename = "override")]
    pub override_bin: Option<OverrideStatus>,
    pub diagnostics: Vec<Diagnostic>,
}

/// `MASTERMIND_HOOKS_BIN` as the harness would pass it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OverrideStatus {
    pub value: String,
    /// Where it is set (a settings file, a profile, the environment).
    pub source: String,
    /// The entries use it: it answers as mastermind-hooks speaking their
    /// protocol.
    pub used: bool,
    /// Why not, when it is not used.
    pub refused: Option<String>,
}

impl AgentStatus {
    pub fn exit_status(&self) -> ExitStatus {
        ExitStatus::of(&self.diagnostics)
    }

    /// Whether anything of ours is configured at all.
    pub fn any_installed(&self) -> bool {
        self.entries.iter().any(|e| e.state != "missing")
    }
}

/// The binary the portable entries run on this machine: what
/// `MASTERMIND_HOOKS_BIN` names (a path, or a name looked up in PATH), else
/// `mastermind-hooks` from PATH.
pub fn entry_binary(
    bin_var: Option<&std::ffi::OsStr>,
    path_var: Option<&std::ffi::OsStr>,
) -> Option<PathBuf> {
    let wanted = bin_var
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("mastermind-hooks"));
    if wanted.components().count() > 1 {
        return crate::install::binary::is_executable_file(&wanted).then_some(wanted);
    }
    crate::install::binary::find_on_path(&wanted, path_var?)
}

/// The hooks of `.codex/config.toml` under `root`, as a settings document
/// (`None` when the file does not exist or holds no `[hooks]` tables).
fn codex_toml_hooks(root: &Path) -> Result<Option<(PathBuf, Json)>, Diagnostic> {
    let path = root.join(".codex/config.toml");
    let bytes = match crate::input::read_bounded_no_follow(&path, MAX_SETTINGS_BYTES) {
        Ok(bytes) => bytes,
        Err(_) if std::fs::symlink_metadata(&path).is_err() => return Ok(None),
        Err(d) => return Err(unusable(&path, d.message)),
    };
    let text = String::from_utf8_lossy(&bytes);
    match codex_toml::hooks(&text) {
        Ok(None) => Ok(None),
        Ok(Some(doc)) => Ok(Some((path, doc))),
        Err(e) => Err(unusable(&path, e)),
    }
}

/// `doc`'s hooks followed by `more`'s, per event.
fn merged(doc: Json, more: &Json) -> Json {
    let mut doc = doc;
    let Some(Json::Object(events)) = more.get("hooks") else {
        return doc;
    };
    if doc.get("hooks").is_none() {
        doc.insert("hooks", Json::object());
    }
    if let Some(hooks) = doc.get_mut("hooks") {
        for (event, groups) in events {
            let Json::Array(groups) = groups else {
                continue;
            };
            match hooks.get_mut(event) {
                Some(Json::Array(list)) => list.extend(groups.iter().cloned()),
                _ => hooks.insert(event, Json::Array(groups.clone())),
            }
        }
    }
    doc
}

/// Inspect the settings of `harness` under `root`.
pub fn status(harness: Harness, root: &Path) -> AgentStatus {
    let path = settings_path(harness, root);
    let mut report = AgentStatus {
        version: 1,
        ok: false,
        harness: harness.name(),
        settings: path.display().to_string(),
        also_read: Vec::new(),
        entries: Vec::new(),
        binary: None,
        found_via: None,
        binary_version: None,
        override_bin: None,
        diagnostics: Vec::new(),
    };
    let mut doc = match read(&path) {
        Ok(doc) => doc.unwrap_or_else(Json::object),
        Err(d) => {
            report.diagnostics.push(d);
            return report;
        }
    };
    if harness == Harness::Codex {
        match codex_toml_hooks(root) {
            Ok(Some((toml, more))) => {
                report.also_read.push(toml.display().to_string());
                doc = merged(doc, &more);
            }
            Ok(None) => {}
            Err(d) => {
                report.diagnostics.push(d);
                return report;
            }
        }
    }
    for entry in settings::entries(harness) {
        let state = match settings::inspect(&doc, &entry) {
            Ok(state) => state,
            Err(e) => {
                report.diagnostics.push(unusable(&path, e));
                continue;
            }
        };
        let (name, command) = match &state {
            EntryState::Current => ("current", Some(entry.command.clone())),
            EntryState::Missing => {
                report.diagnostics.push(
                    Diagnostic::new(
                        Code::agent_hook_not_installed,
                        format!(
                            "{} runs no `mastermind-hooks agent-hook {}` on {}",
                            harness.title(),
                            entry.subcommand.name(),
                            describe_entry(&entry)
                        ),
                    )
                    .with_path(path.display().to_string())
                    .with_hint(format!(
                        "Run `mastermind-hooks install --agent {}` and commit {}.",
                        harness.name(),
                        harness.settings_path()
                    )),
                );
                ("missing", None)
            }
            EntryState::Outdated(old) => {
                report.diagnostics.push(
                    Diagnostic::new(
                        Code::agent_hook_outdated,
                        format!(
                            "{} on {} runs `{old}`, not the portable entry this version writes",
                            harness.title(),
                            describe_entry(&entry),
                        ),
                    )
                    .with_path(path.display().to_string())
                    .with_hint(format!(
                        "Run `mastermind-hooks install --agent {}` to rewrite it, and commit {}.",
                        harness.name(),
                        harness.settings_path()
                    )),
                );
                ("outdated", Some(old.clone()))
            }
        };
        report.entries.push(EntryStatus {
            event: entry.event.name(),
            matcher: entry.matcher,
            state: name,
            command,
        });
    }
    find_binary(harness, root, &mut report);
    report.ok = report.exit_status() == ExitStatus::Pass;
    report
}

/// The override `harness` would pass its hooks: Claude Code's settings'
/// `env` (per-user first), else this environment's.
fn harness_override(harness: Harness, root: &Path, home: Option<&Path>) -> Option<String> {
    let from_settings = match harness {
        Harness::ClaudeCode => [
            Some(root.join(".claude/settings.local.json")),
            Some(root.join(".claude/settings.json")),
            home.map(|h| h.join(".claude/settings.json")),
        ]
        .into_iter()
        .flatten()
        .find_map(|path| crate::agent::provenance::settings_env(&path)),
        Harness::Codex => None,
    };
    from_settings.or_else(|| {
        std::env::var(settings::BIN_VAR)
            .ok()
            .filter(|v| !v.trim().is_empty())
    })
}

/// Which binary the entries would run, as their command chooses it (the
/// override only when it answers as mastermind-hooks speaking their
/// protocol, else `mastermind-hooks` on PATH), with what is wrong about
/// the ones it would refuse.
fn find_binary(harness: Harness, root: &Path, report: &mut AgentStatus) {
    use crate::agent::facts::{Handshake, handshake};
    let installed = report.any_installed();
    let path_var = std::env::var_os("PATH");
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let deadline = || std::time::Instant::now() + std::time::Duration::from_secs(10);
    let settings_path = report.settings.clone();
    let problem = |code: Code, message: String| {
        Diagnostic::new(code, message).with_path(settings_path.clone())
    };
    let mut problems = Vec::new();
    if let Some(value) = harness_override(harness, root, home.as_deref()) {
        let source =
            crate::agent::provenance::override_source(harness, &value, Some(root), home.as_deref());
        let answer = entry_binary(Some(std::ffi::OsStr::new(&value)), path_var.as_deref())
            .map(|bin| (handshake(&bin, deadline()), bin));
        // The refusal of an override that is not mastermind-hooks.
        let not_used = |why: &str| {
            format!(
                "{}={value} ({source}): {why}, so the agent hooks do not use it",
                settings::BIN_VAR
            )
        };
        let refused = match &answer {
            Some((Handshake::Speaks { version }, bin)) => {
                report.binary = Some(bin.display().to_string());
                report.found_via = Some(settings::BIN_VAR);
                report.binary_version = Some(version.clone());
                None
            }
            Some((Handshake::Older { version }, _)) => {
                let why = format!(
                    "it is {version}, which does not speak agent-hook protocol {} of the settings",
                    settings::PROTOCOL
                );
                problems.push(problem(
                    Code::agent_hook_binary_outdated,
                    format!(
                        "{}={value} ({source}): {why}; upgrade it",
                        settings::BIN_VAR
                    ),
                ));
                Some(why)
            }
            Some((Handshake::Foreign { said }, _)) => {
                let why = if said.is_empty() {
                    "it does not answer as mastermind-hooks (its --version says nothing)"
                        .to_string()
                } else {
                    format!("it does not answer as mastermind-hooks (its --version says `{said}`)")
                };
                problems.push(problem(Code::agent_hook_override_refused, not_used(&why)));
                Some(why)
            }
            Some((Handshake::Unrunnable { why }, _)) => {
                problems.push(problem(
                    Code::agent_hook_override_refused,
                    format!(
                        "{}={value} ({source}) cannot be run: {why}",
                        settings::BIN_VAR
                    ),
                ));
                Some(why.clone())
            }
            None => {
                let why = "it is not an executable".to_string();
                problems.push(problem(Code::agent_hook_override_refused, not_used(&why)));
                Some(why)
            }
        };
        report.override_bin = Some(OverrideStatus {
            value,
            source,
            used: refused.is_none(),
            refused,
        });
    }
    if report.binary.is_none() {
        match entry_binary(None, path_var.as_deref()).map(|bin| (handshake(&bin, deadline()), bin)) {
            Some((Handshake::Speaks { version }, bin)) => {
                report.binary = Some(bin.display().to_string());
                report.found_via = Some("PATH");
                report.binary_version = Some(version);
            }
            Some((Handshake::Older { version }, bin)) => problems.push(problem(
                Code::agent_hook_binary_outdated,
                format!(
                    "mastermind-hooks on PATH ({}) is {version}, which does not speak agent-hook protocol {} of the settings: the agent hooks let the agent stop after one reminder and refuse its git writes until it is upgraded",
                    bin.display(),
                    settings::PROTOCOL
                ),
            )),
            _ => problems.push(binary_missing(harness, &settings_path)),
        }
    }
    if installed {
        report.diagnostics.extend(problems);
    }
}

fn binary_missing(harness: Harness, settings_path: &str) -> Diagnostic {
    Diagnostic::new(
        Code::agent_hook_binary_missing,
        format!(
            "{} runs mastermind-hooks from ${} or PATH, and neither leads to a mastermind-hooks here: the agent hooks let the agent stop after one reminder and refuse its git writes until it is installed",
            harness.title(),
            settings::BIN_VAR
        ),
    )
    .with_path(settings_path.to_string())
}

/// The human rendering of `status --agent`.
pub fn render_status(report: &AgentStatus) -> String {
    let mut out = format!("agent hooks: {} ({})\n", report.settings, report.harness);
    for e in &report.entries {
        let event = match e.matcher {
            Some(m) => format!("{} (matcher {m})", e.event),
            None => e.event.to_string(),
        };
        let line = match (e.state, &e.command) {
            ("current", Some(c)) => match settings::ours(c) {
                Some(sub) => format!(
                    "runs `mastermind-hooks agent-hook {}` (from ${} or PATH; an answer is required)",
                    sub.name(),
                    settings::BIN_VAR
                ),
                None => format!("runs `{c}`"),
            },
            ("outdated", Some(c)) => format!(
                "runs `{c}` (outdated: `install --agent {}` rewrites it)",
                report.harness
            ),
            _ => "runs no mastermind-hooks agent hook".to_string(),
        };
        let _ = writeln!(out, "{event}: {line}");
    }
    for also in &report.also_read {
        let _ = writeln!(out, "also read: {also}");
    }
    if let Some(o) = &report.override_bin {
        let used = match &o.refused {
            None => "used".to_string(),
            Some(why) => format!("not used: {why}"),
        };
        let _ = writeln!(
            out,
            "override: {}={} ({}): {used}",
            settings::BIN_VAR,
            o.value,
            o.source
        );
    }
    match (&report.binary, report.found_via, &report.binary_version) {
        (Some(found), via, version) => {
            let _ = writeln!(
                out,
                "binary: {found} ({}, from {})",
                version.as_deref().unwrap_or("version unknown"),
                via.unwrap_or("PATH")
            );
        }
        (None, _, _) => {
            let _ = writeln!(
                out,
                "binary: no mastermind-hooks speaking agent-hook protocol {} (from ${} or PATH)",
                settings::PROTOCOL,
                settings::BIN_VAR
            );
        }
    }
    for d in &report.diagnostics {
        crate::render::human::diagnostic(&mut out, d);
    }
    let _ = writeln!(
        out,
        "{}",
        if report.ok {
            "ok: the agent hooks are installed and current"
        } else {
            "problems found: see above"
        }
    );
    out
}
