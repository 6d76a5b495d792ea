//! Colour in human output: the styles human output uses, rendered by
//! owo-colors, and one process-wide switch, [`set`], that `--color` decides
//! ([`crate::render::ColorChoice`]: `always`, `never`, or `auto` from
//! NO_COLOR, CLICOLOR_FORCE, TERM and whether the stream is a terminal).
//! owo-colors' own terminal detection is not built: the decision is made
//! once, for the stream the output goes to. Off until something turns it on.

use owo_colors::OwoColorize;
use std::sync::atomic::{AtomicBool, Ordering};

static ON: AtomicBool = AtomicBool::new(false);

/// Turn colour on or off for every later [`paint`].
pub fn set(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Whether [`paint`] colours.
pub fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

/// The styles human output uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Red,
    Yellow,
    Green,
    Cyan,
    Bold,
}

/// `text` in `style` when colour is on, else `text` as it is.
pub fn paint(text: &str, style: Style) -> String {
    if !enabled() {
        return text.to_string();
    }
    match style {
        Style::Red => text.red().to_string(),
        Style::Yellow => text.yellow().to_string(),
        Style::Green => text.green().to_string(),
        Style::Cyan => text.cyan().to_string(),
        Style::Bold => text.bold().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_wrap_text_only_when_on() {
        // The only test that turns colour on; it turns it off again.
        set(true);
        assert_eq!(paint("x", Style::Red), "\u{1b}[31mx\u{1b}[39m");
        assert_eq!(paint("x", Style::Cyan), "\u{1b}[36mx\u{1b}[39m");
        assert!(paint("x", Style::Bold).starts_with("\u{1b}[1mx\u{1b}["));
        set(false);
        assert_eq!(paint("x", Style::Green), "x");
    }
}
