//! Text from the report is data: a file name or a message may hold CR, LF,
//! ANSI escape sequences or text that a CI platform reads as a command
//! (GitHub's `::error::`, `::stop-commands::` and `##[group]`, GitLab's
//! `section_start` markers, which need an ESC byte). These helpers make such
//! text inert before a log-bound format prints it.

/// Every control character (C0, DEL, C1) as a visible escape: `\n`, `\r`,
/// `\t`, `\u{1b}`. Text without control characters is unchanged.
pub fn control(text: &str) -> String {
    if !has_control(text.as_bytes()) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    out
}

/// Whether UTF-8 `bytes` hold a control character: a C0 byte, DEL, or a
/// C1 character (U+0080 to U+009F, encoded `C2 80` to `C2 9F`). A scan of
/// the bytes, where the escaping walks characters: a report of thousands
/// of findings is rendered at the cost of copying it.
fn has_control(bytes: &[u8]) -> bool {
    bytes.iter().enumerate().any(|(i, b)| {
        *b < 0x20
            || *b == 0x7f
            || (*b == 0xc2
                && bytes
                    .get(i + 1)
                    .is_some_and(|next| (0x80..=0x9f).contains(next)))
    })
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// True when a log line, as the GitHub runner reads it (leading blanks
/// trimmed), would be taken for a workflow command.
pub fn reads_as_command(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with("::") || trimmed.starts_with("##[")
}

/// One line of a multi-line message: control characters escaped, and a line
/// that would read as a workflow command gets its first character escaped
/// (`\:`, `\#`), so it prints as text.
pub fn line(text: &str) -> String {
    let escaped = control(text);
    if !reads_as_command(&escaped) {
        return escaped;
    }
    let indent = escaped.len() - escaped.trim_start().len();
    format!("{}\\{}", &escaped[..indent], &escaped[indent..])
}

/// A message that may span lines: each line made safe by [`line`], the line
/// breaks kept (CR escaped, LF kept as the separator).
pub fn lines(text: &str) -> Vec<String> {
    text.split('\n').map(line).collect()
}

/// `bytes` without its SGR sequences (`ESC [ 31 m`, `ESC [ 1 ; 38 ; 5 ; 208 m`,
/// `ESC [ m`): the colour and weight a program's output asks a terminal
/// for, which a log or a message shows as noise. Every other escape
/// sequence stays, for the caller to escape as it escapes any control
/// character.
pub fn strip_sgr(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !bytes.contains(&0x1b) {
        return std::borrow::Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == 0x1b && bytes.get(at + 1) == Some(&b'[') {
            let params = bytes[at + 2..]
                .iter()
                .take_while(|b| b.is_ascii_digit() || matches!(b, b';' | b':'))
                .count();
            if bytes.get(at + 2 + params) == Some(&b'm') {
                at += 3 + params;
                continue;
            }
        }
        out.push(bytes[at]);
        at += 1;
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_sequences_go_and_other_escapes_stay() {
        assert_eq!(
            &*strip_sgr(b"\x1b[31mred\x1b[39m \x1b[1;38;5;208mbold\x1b[m plain"),
            b"red bold plain"
        );
        assert_eq!(&*strip_sgr(b"\x1b[2Jclear"), b"\x1b[2Jclear");
        assert_eq!(&*strip_sgr(b"\x1b]8;;x\x07link"), b"\x1b]8;;x\x07link");
        assert_eq!(&*strip_sgr(b"cut \x1b[31"), b"cut \x1b[31");
        assert!(matches!(strip_sgr(b"plain"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn control_characters_become_visible() {
        assert_eq!(
            control("a\nb\rc\td\u{1b}[31me\u{7f}"),
            "a\\nb\\rc\\td\\u{1b}[31me\\u{7f}"
        );
        assert_eq!(control("plain/path é.md"), "plain/path é.md");
        // C1 controls (two bytes in UTF-8) too; other two-byte characters
        // starting with the same byte are text.
        assert_eq!(control("a\u{85}b\u{9f}"), "a\\u{85}b\\u{9f}");
        assert_eq!(control("\u{a0}\u{bf}"), "\u{a0}\u{bf}");
    }

    proptest::proptest! {
        /// The scan for control characters agrees with `char::is_control`.
        #[test]
        fn the_byte_scan_finds_what_the_characters_hold(text in "\\PC*|[\\x00-\\x7f\\u{80}-\\u{a0}]{0,12}") {
            proptest::prop_assert_eq!(
                has_control(text.as_bytes()),
                text.chars().any(char::is_control)
            );
        }
    }

    #[test]
    fn command_lines_are_defused() {
        assert_eq!(line("::error::x"), "\\::error::x");
        assert_eq!(line("   ::stop-commands::t"), "   \\::stop-commands::t");
        assert_eq!(line("##[group]x"), "\\##[group]x");
        assert_eq!(line("a ::error::x"), "a ::error::x");
        assert!(!reads_as_command(&line("\t::warning::x")));
        assert_eq!(
            lines("first\n::error::second\r"),
            ["first", "\\::error::second\\r"]
        );
    }
}
