//! The one diagnostic model: every check produces `Diagnostic`s and every
//! renderer reads only them.

pub use crate::codes::Severity;
use crate::codes::{Code, Outcome};
use serde::{Serialize, Serializer};

/// One finding about one input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    #[serde(serialize_with = "serialize_code")]
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    /// Repository-relative or user-given path of the file the finding is about.
    pub path: Option<String>,
    /// 1-based line in that file.
    pub line: Option<u32>,
    /// RFC 6901 pointer into the document's data, when the finding is about a value.
    pub json_pointer: Option<String>,
    /// The task directory the finding belongs to (gate only).
    pub task: Option<String>,
    /// What to do about it; defaults to the code's help text.
    pub hint: Option<String>,
}

fn serialize_code<S: Serializer>(code: &Code, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(code.as_str())
}

impl Diagnostic {
    /// A finding with the code's default severity and help.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.default_severity(),
            message: message.into(),
            path: None,
            line: None,
            json_pointer: None,
            task: None,
            hint: Some(code.help().to_string()),
        }
    }

    pub fn with_line(mut self, line: Option<u32>) -> Self {
        self.line = line;
        self
    }

    pub fn with_pointer(mut self, pointer: impl Into<String>) -> Self {
        self.json_pointer = Some(pointer.into());
        self
    }

    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    pub fn with_task(mut self, task: impl Into<String>) -> Self {
        self.task = Some(task.into());
        self
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Shift the line by the number of file lines that precede the parsed
    /// fragment, so line numbers always refer to the file.
    pub fn offset_lines(mut self, lines_before: u32) -> Self {
        self.line = self.line.map(|line| line.saturating_add(lines_before));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// True when this finding means the check could not be carried out.
    pub fn cannot_check(&self) -> bool {
        self.code.outcome() == Outcome::CannotCheck
    }
}

/// Process exit status shared by every command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// Everything checked and nothing is wrong.
    Pass = 0,
    /// At least one rule is broken.
    Violations = 1,
    /// Something could not be checked (usage, input, git or internal error).
    CannotCheck = 2,
}

impl ExitStatus {
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The exit status a set of diagnostics calls for.
    pub fn of<'a>(diagnostics: impl IntoIterator<Item = &'a Diagnostic>) -> ExitStatus {
        diagnostics
            .into_iter()
            .filter(|d| d.is_error())
            .map(|d| {
                if d.cannot_check() {
                    ExitStatus::CannotCheck
                } else {
                    ExitStatus::Violations
                }
            })
            .max()
            .unwrap_or(ExitStatus::Pass)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_status_prefers_cannot_check_over_violations() {
        let violation = Diagnostic::new(Code::yaml_tag, "t");
        let unreadable = Diagnostic::new(Code::input_unreadable, "u");
        let note = Diagnostic::new(Code::spec_frontmatter_absent, "n");
        assert_eq!(ExitStatus::of([&note]), ExitStatus::Pass);
        assert_eq!(ExitStatus::of([&note, &violation]), ExitStatus::Violations);
        assert_eq!(
            ExitStatus::of([&violation, &unreadable]),
            ExitStatus::CannotCheck
        );
    }

    #[test]
    fn serializes_with_every_field_present() {
        let d = Diagnostic::new(Code::yaml_tag, "m").with_line(Some(3));
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["code"], "yaml_tag");
        assert_eq!(v["severity"], "error");
        assert_eq!(v["line"], 3);
        assert!(v["path"].is_null() && v["json_pointer"].is_null() && v["task"].is_null());
    }
}
