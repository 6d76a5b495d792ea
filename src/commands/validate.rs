//! `mastermind-hooks validate`: check files on disk against their contracts.
//!
//! Inputs are files, directories (walked with [`crate::safe_fs::walk`]: no
//! link is followed, nothing but regular files is read, `.git` is not
//! entered) and globs the shell did not expand (`'returns/*.json'`). A file
//! named on the command line takes its kind from `--kind` or its name; a
//! file found in a directory or by a glob is classified as the gate
//! classifies the files it judges ([`Kind::infer_found`]: the configured
//! agent-file globs of the repository's `.mastermind/hooks.yaml`, then its
//! name, task artifacts only inside task folders; the repository is the
//! nearest directory around the current one holding `.mastermind/` or
//! `.git`). A file of no kind is
//! listed as skipped (`file_skipped`, a note) unless `--strict`, or unless
//! nothing at all was checked: then it is `kind_unknown` (exit 2), since a
//! run never passes without having checked.
//!
//! Subagent returns are judged by `--dispatch` (the dispatch description's
//! prefix routes them, seed 004 section 4.4), by `--role`, by a first line
//! `# dispatch: <description>` (read as the gate reads it), or by their own
//! `handover.role`.

use crate::artifact::{self, Kind};
use crate::codes::Code;
use crate::commands::output::{self, OutputArgs};
use crate::config::{CONFIG_PATH, Config, MAX_CONFIG_BYTES};
use crate::contract::subagent::dispatch::{self, DispatchRoute};
use crate::diagnostic::{Diagnostic, ExitStatus};
use crate::input;
use crate::report::{FileResult, Report};
use crate::safe_fs::{self, Walked};
use std::path::{Component, Path, PathBuf};

/// How the files are to be judged: `--kind`, `--role`, `--dispatch`,
/// `--strict`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Judge<'a> {
    pub kind: Option<Kind>,
    /// Plastic reports and subagent returns only.
    pub role: Option<&'a str>,
    /// Subagent returns only: the dispatch description.
    pub dispatch: Option<&'a str>,
    /// A file of no inferable kind counts (`kind_unknown`, exit 2) instead
    /// of being skipped.
    pub strict: bool,
}

impl Judge<'_> {
    fn run(&self, kind: Kind, bytes: &[u8]) -> artifact::Checked {
        let dispatched = |description: &str| artifact::Checked {
            diagnostics: dispatch::check_dispatched(bytes, description).diagnostics,
            state: None,
        };
        if kind == Kind::SubagentReturn {
            if let Some(description) = self.dispatch {
                return dispatched(description);
            }
            // The description a return records on its first line routes it,
            // as in the gate; one that routes nowhere leaves the return to
            // its own `handover.role`.
            if self.role.is_none()
                && let Some(description) = dispatch::recorded(bytes)
                && dispatch::route(description) != DispatchRoute::Unknown
            {
                return dispatched(description);
            }
        }
        artifact::check_with_role(kind, bytes, self.role)
    }
}

/// One file to judge.
#[derive(Clone, Debug)]
struct Target {
    /// As shown in output.
    shown: String,
    /// As opened.
    path: PathBuf,
    /// Named on the command line (its name decides its kind, links are
    /// followed), or found in a directory or by a glob.
    named: bool,
}

/// What the inputs expand to: files, entries that are not regular files,
/// and inputs that name nothing.
#[derive(Debug, Default)]
struct Expanded {
    targets: Vec<Target>,
    /// Found entries that are no regular files: shown path and what they are.
    irregular: Vec<(String, String)>,
    /// Results for inputs that could not be expanded (a glob that matches
    /// nothing, a directory that cannot be read).
    failed: Vec<FileResult>,
}

fn shown(path: &Path) -> String {
    let text = path.to_string_lossy();
    text.strip_prefix("./").unwrap_or(&text).to_string()
}

const GLOB_CHARACTERS: &[char] = &['*', '?', '[', '{'];

/// Walk `root`, adding what it holds to `out`.
fn walk_into(
    root: &Path,
    out: &mut Expanded,
    keep: &dyn Fn(&str) -> bool,
) -> Result<(), safe_fs::Error> {
    let found = safe_fs::walk(root, &|name| name == ".git")?;
    for entry in found {
        match entry {
            Walked::File(path) => {
                let text = shown(&path);
                if keep(&text) {
                    out.targets.push(Target {
                        shown: text,
                        path,
                        named: false,
                    });
                }
            }
            Walked::Skipped(path, what) => {
                let text = shown(&path);
                if keep(&text) {
                    out.irregular.push((text, what));
                }
            }
        }
    }
    Ok(())
}

/// The directory a glob's matches lie under: its components before the
/// first one with a glob character (`.` when the first has one).
fn glob_base(pattern: &str) -> PathBuf {
    let mut base = PathBuf::new();
    for component in Path::new(pattern).components() {
        if component
            .as_os_str()
            .to_string_lossy()
            .contains(GLOB_CHARACTERS)
        {
            break;
        }
        base.push(component);
    }
    if base.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        base
    }
}

/// Expand the inputs: files as named, directories walked, globs the shell
/// left unexpanded matched (`*` stays within a directory, `**` crosses).
fn expand(inputs: &[String]) -> Expanded {
    let mut out = Expanded::default();
    for input in inputs {
        let path = Path::new(input);
        let metadata = std::fs::metadata(path);
        if metadata.as_ref().is_ok_and(|m| m.is_dir()) {
            let before = out.targets.len() + out.irregular.len();
            let problem = match walk_into(path, &mut out, &|_| true) {
                Err(e) => Some(format!("cannot walk the directory {input}: {e}")),
                // An empty directory names nothing to check: never a pass.
                Ok(()) if out.targets.len() + out.irregular.len() == before => Some(format!(
                    "{input} is a directory that holds no file to check"
                )),
                Ok(()) => None,
            };
            if let Some(message) = problem {
                out.failed.push(FileResult::new(
                    input.clone(),
                    None,
                    None,
                    vec![Diagnostic::new(Code::input_unreadable, message)],
                ));
            }
            continue;
        }
        if metadata.is_err() && input.contains(GLOB_CHARACTERS) {
            let glob = globset::GlobBuilder::new(input.strip_prefix("./").unwrap_or(input))
                .literal_separator(true)
                .build();
            let matcher = match glob {
                Ok(glob) => glob.compile_matcher(),
                Err(e) => {
                    out.failed.push(FileResult::new(
                        input.clone(),
                        None,
                        None,
                        vec![Diagnostic::new(
                            Code::input_unreadable,
                            format!("{input} is neither a file nor a valid glob: {e}"),
                        )],
                    ));
                    continue;
                }
            };
            let before = out.targets.len() + out.irregular.len();
            let base = glob_base(input);
            let walked = if base.is_dir() {
                walk_into(&base, &mut out, &|text| matcher.is_match(text))
            } else {
                Ok(())
            };
            if walked.is_err() || out.targets.len() + out.irregular.len() == before {
                out.failed.push(FileResult::new(
                    input.clone(),
                    None,
                    None,
                    vec![Diagnostic::new(
                        Code::input_unreadable,
                        format!(
                            "no file matches the glob {input}{}",
                            walked.err().map(|e| format!(" ({e})")).unwrap_or_default()
                        ),
                    )],
                ));
            }
            continue;
        }
        out.targets.push(Target {
            shown: input.clone(),
            path: path.to_path_buf(),
            named: true,
        });
    }
    out
}

/// `path` made absolute against `cwd` and cleaned of `.` and `..`
/// components, without touching the disk.
fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in cwd.join(path).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The repository around the current directory (the nearest directory
/// holding `.mastermind/` or `.git`) and its configuration, when it has
/// one.
struct Repository {
    root: PathBuf,
    cwd: PathBuf,
    config: Option<Config>,
}

impl Repository {
    /// Find the repository and read its configuration (a link there is
    /// refused, as for every repository-owned file). An invalid
    /// configuration is a finding of the run: kinds cannot be told as the
    /// gate tells them.
    fn find() -> (Option<Repository>, Vec<Diagnostic>) {
        let Ok(cwd) = std::env::current_dir() else {
            return (None, Vec::new());
        };
        let Some(root) = cwd.ancestors().find(|dir| {
            std::fs::symlink_metadata(dir.join(".mastermind")).is_ok_and(|m| m.is_dir())
                || std::fs::symlink_metadata(dir.join(".git")).is_ok()
        }) else {
            return (None, Vec::new());
        };
        let root = root.to_path_buf();
        let config_path = root.join(CONFIG_PATH);
        let (config, problems) = match std::fs::symlink_metadata(&config_path) {
            Err(_) => (None, Vec::new()),
            Ok(_) => match input::read_bounded_no_follow(&config_path, MAX_CONFIG_BYTES) {
                Err(d) => (None, vec![d.with_path(CONFIG_PATH)]),
                Ok(bytes) => match Config::parse(&bytes, CONFIG_PATH) {
                    Ok(config) => (Some(config), Vec::new()),
                    Err(problems) => (None, problems),
                },
            },
        };
        (Some(Repository { root, cwd, config }), problems)
    }

    /// `path` relative to the repository, `/`-separated, if it lies inside.
    fn relative(&self, path: &Path) -> Option<String> {
        let absolute = absolute(&self.cwd, path);
        let inside = absolute.strip_prefix(&self.root).ok()?;
        let parts: Option<Vec<&str>> = inside
            .components()
            .map(|c| c.as_os_str().to_str())
            .collect();
        Some(parts?.join("/"))
    }
}

/// The kind of a target, if one can be told.
fn kind_of(target: &Target, judge: &Judge<'_>, repository: Option<&Repository>) -> Option<Kind> {
    if let Some(kind) = judge.kind {
        return Some(kind);
    }
    let config = repository.and_then(|r| r.config.as_ref());
    let relative = repository.and_then(|r| r.relative(&target.path));
    let inferred = if target.named {
        Kind::infer(&target.shown).or_else(|| {
            config
                .zip(relative.as_deref())
                .and_then(|(config, path)| Kind::configured(config, path))
        })
    } else {
        match relative.as_deref() {
            Some(path) => Kind::infer_found(config, path, true),
            None => Kind::infer_found(None, &target.shown, false),
        }
    };
    // `--dispatch` names a subagent return's description: it implies the kind.
    inferred.or(judge.dispatch.map(|_| Kind::SubagentReturn))
}

fn unknown_kind(shown: &str, named: bool) -> Diagnostic {
    Diagnostic::new(
        Code::kind_unknown,
        format!(
            "cannot tell the kind of {shown} from {}; pass --kind ({})",
            if named {
                "its name"
            } else {
                "its name or the configured agent-file globs"
            },
            Kind::ALL
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

fn skipped(shown: &str, why: &str) -> Diagnostic {
    Diagnostic::new(
        Code::file_skipped,
        format!("{shown} was skipped: {why}; pass --kind to judge it, or --strict to count it"),
    )
}

/// Check one target of a known kind: read it bounded, run its contract.
fn check_target(target: &Target, kind: Kind, judge: &Judge<'_>) -> FileResult {
    let read = if target.named {
        input::read_bounded(&target.path, kind.max_bytes())
    } else {
        input::read_bounded_no_follow(&target.path, kind.max_bytes())
    };
    match read {
        Ok(bytes) => {
            let checked = judge.run(kind, &bytes);
            FileResult::new(
                target.shown.clone(),
                Some(kind.name()),
                checked.state,
                checked.diagnostics,
            )
        }
        Err(diagnostic) => FileResult::new(
            target.shown.clone(),
            Some(kind.name()),
            None,
            vec![diagnostic],
        ),
    }
}

pub fn run(inputs: &[String], judge: &Judge<'_>, out: &OutputArgs) -> ExitStatus {
    let step_summary = std::env::var_os(output::STEP_SUMMARY_VAR);
    let problems = output::preflight(out, None, step_summary.as_deref());
    if !problems.is_empty() {
        return output::refuse(problems, out, step_summary);
    }
    output::finish(&validate(inputs, judge), out)
}

/// Validate every input: what `validate` reports.
pub fn validate(inputs: &[String], judge: &Judge<'_>) -> Report {
    let expanded = expand(inputs);
    // The repository's configuration matters only where a name does not
    // tell the kind.
    let needs_repository = judge.kind.is_none()
        && expanded
            .targets
            .iter()
            .any(|t| !t.named || Kind::infer(&t.shown).is_none());
    let (repository, run_diagnostics) = if needs_repository {
        Repository::find()
    } else {
        (None, Vec::new())
    };
    let kinds: Vec<Option<Kind>> = expanded
        .targets
        .iter()
        .map(|t| kind_of(t, judge, repository.as_ref()))
        .collect();
    let known: Vec<(&Target, Kind)> = expanded
        .targets
        .iter()
        .zip(&kinds)
        .filter_map(|(t, k)| k.map(|k| (t, k)))
        .collect();
    let mut checked = check_all(&known, judge).into_iter();
    // Nothing judged at all: what could not be classified counts, as with
    // --strict; a run never passes without having checked.
    let strict = judge.strict || known.is_empty();
    let mut results = Vec::new();
    for (target, kind) in expanded.targets.iter().zip(&kinds) {
        if kind.is_some() {
            results.extend(checked.next());
            continue;
        }
        let diagnostic = if strict {
            unknown_kind(&target.shown, target.named)
        } else {
            skipped(
                &target.shown,
                if target.named {
                    "its name does not tell its kind"
                } else {
                    "neither its name nor a configured agent-file glob tells its kind"
                },
            )
        };
        results.push(FileResult::new(
            target.shown.clone(),
            None,
            None,
            vec![diagnostic],
        ));
    }
    for (shown, what) in &expanded.irregular {
        let diagnostic = if strict {
            Diagnostic::new(Code::input_not_regular_file, format!("{shown} is {what}"))
        } else {
            skipped(shown, &format!("it is {what}"))
        };
        results.push(FileResult::new(shown.clone(), None, None, vec![diagnostic]));
    }
    results.extend(expanded.failed);
    Report::assemble(results, Vec::new(), run_diagnostics)
}

/// Below this many files one thread is faster than starting more.
const PARALLEL_THRESHOLD: usize = 32;

/// Check every file, in parallel across the available cores when there are
/// many; results keep the order of `targets`.
fn check_all(targets: &[(&Target, Kind)], judge: &Judge<'_>) -> Vec<FileResult> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let one = |(target, kind): &(&Target, Kind)| check_target(target, *kind, judge);
    if threads < 2 || targets.len() < PARALLEL_THRESHOLD {
        return targets.iter().map(one).collect();
    }
    let chunk = targets.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = targets
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(one).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .zip(targets.chunks(chunk))
            .flat_map(|(worker, part)| {
                // A panicking worker must not lose its files: judge them as
                // internal errors, never as passes.
                worker.join().unwrap_or_else(|_| {
                    part.iter()
                        .map(|(target, _)| {
                            FileResult::new(
                                target.shown.clone(),
                                None,
                                None,
                                vec![Diagnostic::new(
                                    Code::internal_error,
                                    format!("checking {} panicked", target.shown),
                                )],
                            )
                        })
                        .collect()
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_walks_from_its_literal_directory() {
        assert_eq!(glob_base("returns/*.json"), PathBuf::from("returns"));
        assert_eq!(glob_base("a/b/**/x.md"), PathBuf::from("a/b"));
        assert_eq!(glob_base("*.md"), PathBuf::from("."));
        assert_eq!(glob_base("/tmp/r/*.yaml"), PathBuf::from("/tmp/r"));
    }

    #[test]
    fn absolute_paths_are_cleaned_lexically() {
        assert_eq!(
            absolute(Path::new("/r/sub"), Path::new("../a/./b.md")),
            PathBuf::from("/r/a/b.md")
        );
        assert_eq!(
            absolute(Path::new("/r"), Path::new("/x/y")),
            PathBuf::from("/x/y")
        );
    }
}
