//! Renderers: each turns a [`Report`] into text and reads nothing else (the
//! report and the code registry). [`render`] is the one dispatch every
//! checking command shares.

pub mod escape;
pub mod findings;
pub mod github;
pub mod gitlab;
pub mod human;
pub mod json;
pub mod junit;
pub mod sarif;
pub mod style;

use crate::report::Report;
use std::io::IsTerminal;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Readable text, coloured on a terminal.
    Human,
    /// `{"version":1,"ok":..,"files":[..],"tasks":[..],"diagnostics":[..],"summary":{..}}`.
    Json,
    /// GitHub Actions workflow commands (`::error file=..,line=..::..`); also appends a
    /// Markdown job summary to the file named by `GITHUB_STEP_SUMMARY`.
    Github,
    /// GitLab Code Quality report (JSON array of issues).
    Gitlab,
    /// SARIF 2.1.0 log, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// JUnit XML (one testsuite per task, one testcase per check or file).
    Junit,
}

/// Rendering knobs that are not part of the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// `github`: at most this many findings become annotations.
    pub max_annotations: usize,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            max_annotations: github::DEFAULT_MAX_ANNOTATIONS,
        }
    }
}

/// Render a report in one format. The single place that maps a [`Format`] to
/// its renderer, shared by `validate` and `check`.
pub fn render(report: &Report, format: Format, options: &RenderOptions) -> String {
    match format {
        Format::Human => human::render(report),
        Format::Json => json::render(report),
        Format::Github => github::render(report, options.max_annotations),
        Format::Gitlab => gitlab::render(report),
        Format::Sarif => sarif::render(report),
        Format::Junit => junit::render(report),
    }
}

/// Where human output goes, for deciding colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// When to colour human output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when the stream is a terminal and NO_COLOR is unset.
    Auto,
    Always,
    Never,
}

/// `--color auto`, decided here rather than by the colour library (which
/// treats an empty `NO_COLOR` as set): a non-empty `NO_COLOR` turns colour
/// off (no-color.org: "when present and not an empty string"), a
/// `CLICOLOR_FORCE` other than empty or `0` turns it on, and otherwise a
/// terminal that is not `TERM=dumb` gets colour.
pub fn auto_color(
    no_color: Option<&std::ffi::OsStr>,
    clicolor_force: Option<&std::ffi::OsStr>,
    term: Option<&std::ffi::OsStr>,
    is_terminal: bool,
) -> bool {
    if no_color.is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if clicolor_force.is_some_and(|v| !v.is_empty() && v != "0") {
        return true;
    }
    is_terminal && term.is_none_or(|t| t != "dumb")
}

impl ColorChoice {
    /// Apply the choice process-wide. `auto` defers to the stream and to the
    /// NO_COLOR / CLICOLOR_FORCE conventions.
    pub fn apply(self) {
        self.apply_to(Stream::Stdout);
    }

    /// [`ColorChoice::apply`] for human output written to `stream`. The
    /// renderers ask about stdout, so for stderr (what git shows from a
    /// hook) `auto` is decided here from stderr.
    pub fn apply_to(self, stream: Stream) {
        match self {
            ColorChoice::Always => style::set(true),
            ColorChoice::Never => style::set(false),
            ColorChoice::Auto => style::set(auto_color(
                std::env::var_os("NO_COLOR").as_deref(),
                std::env::var_os("CLICOLOR_FORCE").as_deref(),
                std::env::var_os("TERM").as_deref(),
                match stream {
                    Stream::Stdout => std::io::stdout().is_terminal(),
                    Stream::Stderr => std::io::stderr().is_terminal(),
                },
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::auto_color;
    use std::ffi::OsStr;

    #[test]
    fn only_a_non_empty_no_color_turns_colour_off() {
        let on = |no_color: Option<&str>, force: Option<&str>, term: Option<&str>, tty: bool| {
            auto_color(
                no_color.map(OsStr::new),
                force.map(OsStr::new),
                term.map(OsStr::new),
                tty,
            )
        };
        assert!(on(None, None, Some("xterm"), true));
        assert!(
            on(Some(""), None, Some("xterm"), true),
            "empty NO_COLOR is unset"
        );
        assert!(!on(Some("1"), None, Some("xterm"), true));
        assert!(
            !on(Some("0"), None, Some("xterm"), true),
            "any non-empty value"
        );
        assert!(!on(Some("1"), Some("1"), None, true), "NO_COLOR wins");
        assert!(on(None, Some("1"), None, false));
        assert!(!on(None, Some("0"), None, false));
        assert!(!on(None, Some(""), None, false));
        assert!(!on(None, None, Some("dumb"), true));
        assert!(!on(None, None, None, false));
        assert!(on(None, None, None, true));
    }
}
