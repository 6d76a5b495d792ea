//! Turning a file's bytes into text for the line-oriented contracts: the
//! byte limit, UTF-8, and 1-based line numbers.

use crate::codes::Code;
use crate::diagnostic::Diagnostic;

/// The text of `bytes`, or the diagnostic that stops the check: more than
/// `limit` bytes (`input_too_large`) or not UTF-8 (`input_not_utf8`). `what`
/// names the artifact in messages ("savepoint ledger").
pub fn decode<'a>(bytes: &'a [u8], limit: usize, what: &str) -> Result<&'a str, Diagnostic> {
    if bytes.len() > limit {
        return Err(Diagnostic::new(
            Code::input_too_large,
            format!("{what} exceeds the {limit}-byte limit"),
        ));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let line = line_number(
            bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count(),
        );
        Diagnostic::new(
            Code::input_not_utf8,
            format!(
                "{what} is not UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ),
        )
        .with_line(Some(line))
    })
}

/// `text` as an inline code span for a message: its own backticks are
/// dropped, so a quoted value never nests backticks (`` `a` `` shows as
/// `` `a` ``, not ``` ``a`` ```).
pub fn code(text: &str) -> String {
    format!("`{}`", text.replace('`', ""))
}

/// The 1-based line number of the line with 0-based index `index`.
pub fn line_number(index: usize) -> u32 {
    u32::try_from(index).map_or(u32::MAX, |i| i.saturating_add(1))
}

/// Lines with their 1-based numbers; a trailing `\r` is dropped from each.
pub fn numbered_lines(text: &str) -> impl Iterator<Item = (u32, &str)> {
    text.lines()
        .enumerate()
        .map(|(index, line)| (line_number(index), line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_encoding() {
        assert_eq!(decode(b"abc", 3, "x").unwrap(), "abc");
        assert_eq!(
            decode(b"abcd", 3, "x").unwrap_err().code,
            Code::input_too_large
        );
        let d = decode(b"a\nb\xff", 10, "x").unwrap_err();
        assert_eq!(d.code, Code::input_not_utf8);
        assert_eq!(d.line, Some(2));
    }

    #[test]
    fn lines_are_numbered_from_one_without_carriage_returns() {
        let lines: Vec<_> = numbered_lines("a\r\nb\n").collect();
        assert_eq!(lines, vec![(1, "a"), (2, "b")]);
    }
}
