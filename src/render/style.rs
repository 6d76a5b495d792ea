//! Colour in human output: a handful of ANSI styles, switched on or off for
//! the whole process by [`set`] (which `--color` decides, see
//! [`crate::render::ColorChoice`]). Off until something turns it on.

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

impl Style {
    /// The SGR codes that start and end the style.
    fn codes(self) -> (&'static str, &'static str) {
        match self {
            Style::Red => ("31", "39"),
            Style::Yellow => ("33", "39"),
            Style::Green => ("32", "39"),
            Style::Cyan => ("36", "39"),
            Style::Bold => ("1", "22"),
        }
    }
}

/// `text` in `style` when colour is on, else `text` as it is.
pub fn paint(text: &str, style: Style) -> String {
    if !enabled() {
        return text.to_string();
    }
    let (on, off) = style.codes();
    format!("\u{1b}[{on}m{text}\u{1b}[{off}m")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_wrap_text_only_when_on() {
        // The only test that turns colour on; it turns it off again.
        set(true);
        assert_eq!(paint("x", Style::Red), "\u{1b}[31mx\u{1b}[39m");
        assert_eq!(paint("x", Style::Bold), "\u{1b}[1mx\u{1b}[22m");
        set(false);
        assert_eq!(paint("x", Style::Green), "x");
    }
}
