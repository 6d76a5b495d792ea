//! `mastermind-hooks check`: the gate in one of its modes. The mode's
//! landing is built and judged in [`crate::gate::landing`]; this module
//! renders the one report (human output to stderr for git hooks).

use crate::commands::output::{self, HumanTo, OutputArgs};
use crate::diagnostic::ExitStatus;
pub use crate::gate::landing::ci::Rerun;
pub use crate::gate::landing::mode::Mode;

pub fn run(mode: &Mode, out: &OutputArgs) -> ExitStatus {
    let report = crate::gate::landing::mode::report(mode);
    let human = if mode.human_to_stderr() {
        HumanTo::Stderr
    } else {
        HumanTo::Stdout
    };
    output::finish_to(&report, out, human)
}
