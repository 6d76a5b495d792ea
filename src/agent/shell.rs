//! A POSIX shell command line read far enough to see which programs it
//! runs with which words: quotes and escapes, the operators that separate
//! commands (`&&`, `||`, `;`, `|`, `&`, newlines, `(`, `)`), which command
//! reads the output of the one before it (a pipeline), redirections (what a
//! command writes apart from what it reads), here-documents and bash's
//! here-strings (`<<<`), and the scripts nested in `$(...)`, backquotes,
//! process substitutions (`>(...)`, `<(...)`) and `( ... )`. Nothing is
//! expanded or run; a word that holds an expansion keeps its text (`$VAR`
//! stays `$VAR`). Pure: text in, commands out.
//!
//! `shlex` splits words the same way (and the word splitting here is
//! checked against it in the tests); what `shlex` leaves out is everything
//! between the words, which is what a guard must not miss.

/// One simple command: its leading `NAME=value` assignments, its words,
/// the files its redirections write (`>`, `>>`, `>|`, `&>`, `<>`) and read
/// (`<`), its here-document bodies and here-strings, and whether it reads
/// the output of the command before it (`a | b`: `b` is piped).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Simple {
    pub assignments: Vec<(String, String)>,
    pub words: Vec<String>,
    pub redirects: Vec<String>,
    pub reads: Vec<String>,
    pub heredocs: Vec<String>,
    pub herestrings: Vec<String>,
    pub piped: bool,
}

/// What a command line holds: its simple commands in order, and the
/// scripts nested in command substitutions (read separately).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    pub commands: Vec<Simple>,
    pub nested: Vec<String>,
}

enum Token {
    Word(String),
    /// A command separator; `true` for a pipe (`|`, `|&`), whose next
    /// command reads this one's output.
    Sep(bool),
    /// A redirection that writes: the next word is its target.
    Redirect,
    /// `<`: the next word is a file the command reads.
    Read,
    /// `<<<`: the next word is the command's input.
    HereString,
    /// `<<` or `<<-`: the next word is a here-document's delimiter.
    Heredoc,
}

struct Lexer<'a> {
    chars: Vec<char>,
    at: usize,
    nested: &'a mut Vec<String>,
    /// Delimiters of here-documents whose bodies start at the next line.
    pending: Vec<String>,
    bodies: Vec<String>,
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// The text of a `$(...)` starting after `$(`, up to its closing `)`.
    fn balanced(&mut self) -> String {
        let mut depth = 1;
        let mut out = String::new();
        while let Some(c) = self.peek(0) {
            self.at += 1;
            match c {
                '\'' => {
                    out.push(c);
                    while let Some(q) = self.peek(0) {
                        self.at += 1;
                        out.push(q);
                        if q == '\'' {
                            break;
                        }
                    }
                    continue;
                }
                '\\' => {
                    out.push(c);
                    if let Some(n) = self.peek(0) {
                        self.at += 1;
                        out.push(n);
                    }
                    continue;
                }
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return out;
                    }
                }
                _ => {}
            }
            out.push(c);
        }
        out
    }

    /// The text between backquotes, starting after the opening one.
    fn backquoted(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek(0) {
            self.at += 1;
            match c {
                '`' => break,
                '\\' => {
                    if let Some(n) = self.peek(0) {
                        self.at += 1;
                        out.push(n);
                    }
                }
                c => out.push(c),
            }
        }
        out
    }

    /// After a newline: read the bodies of pending here-documents.
    fn heredoc_bodies(&mut self) {
        for delimiter in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            loop {
                let mut line = String::new();
                let mut ended = true;
                while let Some(c) = self.peek(0) {
                    self.at += 1;
                    if c == '\n' {
                        ended = false;
                        break;
                    }
                    line.push(c);
                }
                if line.trim_start_matches('\t') == delimiter {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
                if ended {
                    break;
                }
            }
            self.bodies.push(body);
        }
    }

    /// A word starting here (the caller skipped blanks).
    fn word(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => break,
                '\'' => {
                    self.at += 1;
                    while let Some(q) = self.peek(0) {
                        self.at += 1;
                        if q == '\'' {
                            break;
                        }
                        out.push(q);
                    }
                }
                '"' => {
                    self.at += 1;
                    while let Some(q) = self.peek(0) {
                        self.at += 1;
                        match q {
                            '"' => break,
                            '\\' => match self.peek(0) {
                                Some(n @ ('"' | '\\' | '$' | '`')) => {
                                    self.at += 1;
                                    out.push(n);
                                }
                                Some('\n') => self.at += 1,
                                _ => out.push('\\'),
                            },
                            '$' if self.peek(0) == Some('(') => {
                                self.at += 1;
                                let inner = self.balanced();
                                out.push_str(&format!("$({inner})"));
                                self.nested.push(inner);
                            }
                            '`' => {
                                let inner = self.backquoted();
                                out.push_str(&format!("`{inner}`"));
                                self.nested.push(inner);
                            }
                            q => out.push(q),
                        }
                    }
                }
                '\\' => {
                    self.at += 1;
                    match self.peek(0) {
                        Some('\n') => self.at += 1,
                        Some(n) => {
                            self.at += 1;
                            out.push(n);
                        }
                        None => {}
                    }
                }
                '$' if self.peek(1) == Some('(') => {
                    self.at += 2;
                    let inner = self.balanced();
                    out.push_str(&format!("$({inner})"));
                    self.nested.push(inner);
                }
                '`' => {
                    self.at += 1;
                    let inner = self.backquoted();
                    out.push_str(&format!("`{inner}`"));
                    self.nested.push(inner);
                }
                c => {
                    self.at += 1;
                    out.push(c);
                }
            }
        }
        out
    }

    fn tokens(&mut self) -> Vec<Token> {
        let mut tokens = Vec::new();
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' => self.at += 1,
                '\n' => {
                    self.at += 1;
                    tokens.push(Token::Sep(false));
                    self.heredoc_bodies();
                }
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.at += 1;
                    }
                }
                ';' | '&' | '|' | '(' | ')' => {
                    self.at += 1;
                    // `&>` and `&>>` redirect; `>&` is handled below.
                    if c == '&' && self.peek(0) == Some('>') {
                        while self.peek(0) == Some('>') {
                            self.at += 1;
                        }
                        tokens.push(Token::Redirect);
                        continue;
                    }
                    let mut pipe = c == '|';
                    if matches!(c, ';' | '&' | '|') && self.peek(0) == Some(c) {
                        self.at += 1;
                        pipe = false; // `||`
                    }
                    if c == '|' && self.peek(0) == Some('&') {
                        self.at += 1;
                    }
                    tokens.push(Token::Sep(pipe));
                }
                '<' | '>' if self.peek(1) == Some('(') => {
                    // Process substitution `>(...)`, `<(...)`: a word (a
                    // file name) whose script runs too.
                    self.at += 2;
                    let inner = self.balanced();
                    tokens.push(Token::Word(format!("{c}({inner})")));
                    self.nested.push(inner);
                }
                '<' | '>' => {
                    self.at += 1;
                    if c == '<' && self.peek(0) == Some('<') {
                        self.at += 1;
                        if self.peek(0) == Some('<') {
                            self.at += 1; // here-string: the next word is data
                            tokens.push(Token::HereString);
                            continue;
                        }
                        if self.peek(0) == Some('-') {
                            self.at += 1;
                        }
                        tokens.push(Token::Heredoc);
                        while matches!(self.peek(0), Some(' ' | '\t')) {
                            self.at += 1;
                        }
                        let delimiter = self.word();
                        self.pending.push(delimiter.clone());
                        tokens.push(Token::Word(delimiter));
                        continue;
                    }
                    // `<` reads, unless it is `<>` (read and write) or `<&`
                    // (a descriptor); `>`, `>>`, `>|`, `>&` write.
                    let reads = c == '<' && !matches!(self.peek(0), Some('>' | '&'));
                    while matches!(self.peek(0), Some('>' | '|' | '&')) {
                        self.at += 1;
                    }
                    tokens.push(if reads { Token::Read } else { Token::Redirect });
                }
                _ => {
                    let word = self.word();
                    // `2>file`: a file descriptor number before a redirection.
                    if !word.is_empty()
                        && word.bytes().all(|b| b.is_ascii_digit())
                        && matches!(self.peek(0), Some('<' | '>'))
                    {
                        continue;
                    }
                    tokens.push(Token::Word(word));
                }
            }
        }
        tokens
    }
}

/// Words that start a compound command or negate one: not a program.
const RESERVED: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for",
    "case", "esac", "in", "function",
];

/// Read a command line.
pub fn parse(text: &str) -> Script {
    let mut nested = Vec::new();
    let mut lexer = Lexer {
        chars: text.chars().collect(),
        at: 0,
        nested: &mut nested,
        pending: Vec::new(),
        bodies: Vec::new(),
    };
    let tokens = lexer.tokens();
    let mut bodies = std::mem::take(&mut lexer.bodies).into_iter();
    let mut commands = Vec::new();
    let mut current = Simple::default();
    let mut tokens = tokens.into_iter().peekable();
    let mut piped = false;
    while let Some(token) = tokens.next() {
        match token {
            Token::Sep(pipe) => {
                if current != Simple::default() {
                    current.piped = piped;
                    commands.push(std::mem::take(&mut current));
                    piped = pipe;
                } else {
                    // `a | (b; c)`: the subshell's first command reads it.
                    piped = piped || pipe;
                }
            }
            Token::Redirect | Token::Read | Token::HereString => {
                if let Some(Token::Word(target)) = tokens.peek() {
                    let list = match token {
                        Token::Redirect => &mut current.redirects,
                        Token::Read => &mut current.reads,
                        _ => &mut current.herestrings,
                    };
                    list.push(target.clone());
                    tokens.next();
                }
            }
            Token::Heredoc => {
                if let Some(Token::Word(_)) = tokens.peek() {
                    tokens.next();
                }
                if let Some(body) = bodies.next() {
                    current.heredocs.push(body);
                }
            }
            Token::Word(word) => {
                if current.words.is_empty() {
                    if RESERVED.contains(&word.as_str()) {
                        continue;
                    }
                    if let Some((name, value)) = word.split_once('=')
                        && is_name(name)
                    {
                        current
                            .assignments
                            .push((name.to_string(), value.to_string()));
                        continue;
                    }
                }
                current.words.push(word);
            }
        }
    }
    if current != Simple::default() {
        current.piped = piped;
        commands.push(current);
    }
    Script { commands, nested }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Vec<String>> {
        parse(text).commands.into_iter().map(|c| c.words).collect()
    }

    #[test]
    fn splits_commands_at_every_operator() {
        assert_eq!(
            words("a 1&&b 2||c;d|e & f\n(g; h) |& i"),
            [
                vec!["a", "1"],
                vec!["b", "2"],
                vec!["c"],
                vec!["d"],
                vec!["e"],
                vec!["f"],
                vec!["g"],
                vec!["h"],
                vec!["i"]
            ]
        );
    }

    #[test]
    fn words_agree_with_shlex() {
        for line in [
            r#"git commit -m "it's \"done\"" --author='A B <a@b>'"#,
            r#"echo a\ b 'c"d' "e'f" x\\y"#,
        ] {
            assert_eq!(words(line)[0], shlex::split(line).unwrap(), "{line}");
        }
    }

    #[test]
    fn assignments_redirects_heredocs_and_substitutions() {
        let script = parse(
            "FOO=1 BAR='x y' git commit 2>/dev/null >out.txt\ncat <<EOF | sh\ngit commit -n\nEOF\necho $(git commit --no-verify) `rm x`",
        );
        let first = &script.commands[0];
        assert_eq!(
            first.assignments,
            [("FOO".into(), "1".into()), ("BAR".into(), "x y".into())]
        );
        assert_eq!(first.words, ["git", "commit"]);
        assert_eq!(first.redirects, ["/dev/null", "out.txt"]);
        assert_eq!(script.commands[1].heredocs, ["git commit -n\n"]);
        assert_eq!(script.nested, ["git commit --no-verify", "rm x"]);
        // A word after the program that looks like an assignment is a word.
        assert_eq!(words("env A=1 git")[0], ["env", "A=1", "git"]);
        assert_eq!(words("# all comment\n")[0..], [] as [Vec<String>; 0]);
        assert_eq!(words("if true; then git commit; fi")[1], ["git", "commit"]);
    }

    #[test]
    fn reads_writes_herestrings_and_pipes_apart() {
        let script = parse("cat < in.txt <> both >> out | bash <<< 'git commit -n' || sh");
        let cat = &script.commands[0];
        assert_eq!(cat.reads, ["in.txt"]);
        assert_eq!(cat.redirects, ["both", "out"]);
        assert!(!cat.piped);
        let bash = &script.commands[1];
        assert!(bash.piped);
        assert_eq!(bash.herestrings, ["git commit -n"]);
        assert!(bash.redirects.is_empty());
        // `||` is no pipe; a subshell's first command reads the pipe.
        assert!(!script.commands[2].piped);
        let sub = parse("echo x | (sh; true)");
        assert!(sub.commands[1].piped);
        assert!(!sub.commands[2].piped);
        assert!(parse("a 2>&1 | b").commands[1].piped);
    }
}
