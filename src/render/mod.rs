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
            ColorChoice::Always => owo_colors::set_override(true),
            ColorChoice::Never => owo_colors::set_override(false),
            ColorChoice::Auto => {
                if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                    owo_colors::set_override(false);
                } else if std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                    owo_colors::set_override(true);
                } else if stream == Stream::Stderr {
                    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
                    owo_colors::set_override(std::io::stderr().is_terminal() && !dumb);
                }
            }
        }
    }
}
