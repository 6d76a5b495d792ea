//! Renderers: each turns a [`Report`](crate::report::Report) into text and
//! reads nothing else.

pub mod human;
pub mod json;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Readable text, coloured on a terminal.
    Human,
    /// `{"version":1,"ok":..,"files":[..],"summary":{..}}`.
    Json,
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
        match self {
            ColorChoice::Always => owo_colors::set_override(true),
            ColorChoice::Never => owo_colors::set_override(false),
            ColorChoice::Auto => {
                if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                    owo_colors::set_override(false);
                } else if std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                    owo_colors::set_override(true);
                }
            }
        }
    }
}
