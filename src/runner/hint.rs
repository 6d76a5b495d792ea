//! The commands that fix what the runner, `acceptance status` and the gate
//! report, with their real arguments, quoted for a POSIX shell exactly as
//! the contract's display form quotes argv (so they can be pasted).

use crate::contract::argv_display::display_command;

/// `mastermind-hooks verification run SPEC --id ID`, or `--all` without an
/// id.
pub fn run_command(spec_path: &str, id: Option<&str>) -> String {
    let mut argv = vec!["mastermind-hooks", "verification", "run", spec_path];
    match id {
        Some(id) => argv.extend(["--id", id]),
        None => argv.push("--all"),
    }
    display_command(&argv.into_iter().map(str::to_string).collect::<Vec<_>>())
}

/// `mastermind-hooks validate SPEC`.
pub fn validate_command(path: &str) -> String {
    display_command(&["mastermind-hooks", "validate", path].map(str::to_string))
}

/// `mastermind-hooks acceptance status SPEC`.
pub fn acceptance_command(spec_path: &str) -> String {
    display_command(&["mastermind-hooks", "acceptance", "status", spec_path].map(str::to_string))
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
            acceptance_command("a/spec.md"),
            "mastermind-hooks acceptance status a/spec.md"
        );
    }
}
