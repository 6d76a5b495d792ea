//! The command line and its output formats. Command-line snapshots
//! (trycmd): every case in `tests/cmd/` runs the built binary and compares
//! its exit status and output. Regenerate with
//! `TRYCMD=overwrite cargo test --test cli`. `formats` checks every CI
//! format against what its consumer expects.
//!
//! One test binary: `cargo test --test cli [filter]`.

#[path = "../common/mod.rs"]
mod common;

mod colour;
mod fingerprints;
mod formats;

#[test]
fn cli_snapshots() {
    let cases = trycmd::TestCases::new();
    // Agent hook answers name the binary that gave them.
    cases
        .insert_var("[BIN]", common::BIN)
        .expect("a redaction for the binary's path");
    cases
        .env("NO_COLOR", "1")
        // Empty means unset: a snapshot run inside GitHub Actions must not
        // append to the real job summary.
        .env("GITHUB_STEP_SUMMARY", "")
        .case("tests/cmd/*.md")
        .case("tests/cmd/*.toml");
}
