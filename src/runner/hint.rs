//! The commands that fix what the runner, `acceptance status` and the gate
//! report, with their real arguments, quoted for a POSIX shell exactly as
//! the contract's display form quotes argv (so they can be pasted), with
//! control characters escaped so a hostile path cannot break the line.

use crate::contract::mastermind::argv_display::display_command;

/// `mastermind-hooks verification run SPEC --id ID`, or `--all` without an
/// id.
pub fn run_command(spec_path: &str, id: Option<&str>) -> String {
    let mut argv = vec!["mastermind-hooks", "verification", "run", spec_path];
    match id {
        Some(id) => argv.extend(["--id", id]),
        None => argv.push("--all"),
    }
    shown(&argv)
}

fn shown(argv: &[&str]) -> String {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    super::echo::escape(display_command(&argv).as_bytes())
}

/// `mastermind-hooks validate SPEC`.
pub fn validate_command(path: &str) -> String {
    shown(&["mastermind-hooks", "validate", path])
}

/// `mastermind-hooks acceptance status SPEC`.
pub fn acceptance_command(spec_path: &str) -> String {
    shown(&["mastermind-hooks", "acceptance", "status", spec_path])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_carry_their_real_arguments_quoted() {
        assert_eq!(
            run_command(".mastermind/tasks/001-x/spec.md", Some("unit")),
            "mastermind-hooks verification run .mastermind/tasks/001-x/spec.md --id unit"
        );
        assert_eq!(
            run_command("tasks/my task/spec.md", None),
            "mastermind-hooks verification run 'tasks/my task/spec.md' --all"
        );
        assert_eq!(
            validate_command("it's.md"),
            "mastermind-hooks validate 'it'\\''s.md'"
        );
        assert_eq!(
            run_command("evil\n::error::x/spec.md", Some("unit")),
            "mastermind-hooks verification run 'evil\\n::error::x/spec.md' --id unit"
        );
        assert_eq!(
            acceptance_command("a/spec.md"),
            "mastermind-hooks acceptance status a/spec.md"
        );
    }
}
