#!/bin/sh
# mastermind-hooks gate for GitLab merge request pipelines. mastermind-hooks.yml embeds this
# script verbatim (a test keeps the two identical); it runs locally too.
#
# Runs `mastermind-hooks check --ci` three times over the
# same trees: human output for the job log, a Code Quality report and a JUnit report for the
# merge request. Exits with the gate's status: 0 pass, 1 violations, 2 could not check (any
# other outcome of the binary is reported as 2, never as a pass).
#
# Environment:
#   MASTERMIND_HOOKS_BIN          path of the binary to run
#   MASTERMIND_HOOKS_VERSION      else: `cargo install --locked` this version from crates.io
#                                 else: `mastermind-hooks` on PATH
#   MASTERMIND_HOOKS_SOURCE       else: `cargo install --locked --path` this source tree
#   MASTERMIND_HOOKS_BASE         --base REV (default: detected by check --ci: the target
#                                 branch tip $CI_MERGE_REQUEST_TARGET_BRANCH_SHA in merged-results
#                                 pipelines, else $CI_MERGE_REQUEST_DIFF_BASE_SHA)
#   MASTERMIND_HOOKS_HEAD         --head REV (default: detected by check --ci, $CI_COMMIT_SHA)
#   MASTERMIND_HOOKS_FAIL_ON      error (default) or warning
#   MASTERMIND_HOOKS_REQUIRE_TASK true: every change outside .mastermind/ must belong to a
#                                 checked task (read by check)
#   MASTERMIND_HOOKS_CODEQUALITY  Code Quality report file (default gl-code-quality-report.json)
#   MASTERMIND_HOOKS_JUNIT        JUnit report file (default mastermind-hooks-junit.xml)
#   MASTERMIND_HOOKS_CMD          the gate subcommand and its arguments, split on blanks;
#                                 default `check --ci` plus --base/--head. For tests and
#                                 debugging only, e.g. MASTERMIND_HOOKS_CMD='validate a/spec.md'.
set -u # and safe under `set -e`, which GitLab uses for job scripts

fail() {
    printf 'error: mastermind-hooks: %s\n' "$1" >&2
    exit 2
}

install_root() {
    printf '%s/mastermind-hooks-%s' "${TMPDIR:-/tmp}" "$1"
}

# Sets $bin to the binary to run, installing it when asked to.
resolve_bin() {
    if [ -n "${MASTERMIND_HOOKS_BIN:-}" ]; then
        if [ ! -f "$MASTERMIND_HOOKS_BIN" ] || [ ! -x "$MASTERMIND_HOOKS_BIN" ]; then
            fail "MASTERMIND_HOOKS_BIN '$MASTERMIND_HOOKS_BIN' is not an executable file"
        fi
        bin=$MASTERMIND_HOOKS_BIN
        return
    fi
    if [ -n "${MASTERMIND_HOOKS_VERSION:-}" ]; then
        root=$(install_root "$MASTERMIND_HOOKS_VERSION")
        if [ ! -x "$root/bin/mastermind-hooks" ]; then
            command -v cargo >/dev/null 2>&1 ||
                fail "MASTERMIND_HOOKS_VERSION needs cargo to install; use a Rust image or set MASTERMIND_HOOKS_BIN"
            cargo install --locked --quiet --root "$root" --version "$MASTERMIND_HOOKS_VERSION" mastermind-hooks >&2 ||
                fail "cargo install mastermind-hooks --version '$MASTERMIND_HOOKS_VERSION' failed"
        fi
        bin=$root/bin/mastermind-hooks
        return
    fi
    if command -v mastermind-hooks >/dev/null 2>&1; then
        bin=$(command -v mastermind-hooks)
        return
    fi
    if [ -n "${MASTERMIND_HOOKS_SOURCE:-}" ] && [ -f "$MASTERMIND_HOOKS_SOURCE/Cargo.toml" ]; then
        root=$(install_root source)
        if [ ! -x "$root/bin/mastermind-hooks" ]; then
            command -v cargo >/dev/null 2>&1 ||
                fail "building mastermind-hooks from source needs cargo; use a Rust image or set MASTERMIND_HOOKS_BIN"
            cargo install --locked --quiet --root "$root" --path "$MASTERMIND_HOOKS_SOURCE" >&2 ||
                fail "cargo install --path '$MASTERMIND_HOOKS_SOURCE' failed"
        fi
        bin=$root/bin/mastermind-hooks
        return
    fi
    fail "no mastermind-hooks binary: set MASTERMIND_HOOKS_BIN or MASTERMIND_HOOKS_VERSION, or put mastermind-hooks on PATH"
}

# 0 and 1 are the gate's answers; anything else (2, a crash, a missing binary) is "could not check".
normalize() {
    case "$1" in
        0 | 1) printf '%s' "$1" ;;
        *) printf '2' ;;
    esac
}

worst() {
    if [ "$1" -gt "$2" ]; then printf '%s' "$1"; else printf '%s' "$2"; fi
}

fail_on=${MASTERMIND_HOOKS_FAIL_ON:-error}
case "$fail_on" in
    error | warning) ;;
    *) fail "MASTERMIND_HOOKS_FAIL_ON must be error or warning, not '$fail_on'" ;;
esac
case "${MASTERMIND_HOOKS_REQUIRE_TASK:-false}" in
    true) export MASTERMIND_HOOKS_REQUIRE_TASK=true ;;
    false | '') unset MASTERMIND_HOOKS_REQUIRE_TASK ;;
    *) fail "MASTERMIND_HOOKS_REQUIRE_TASK must be true or false, not '$MASTERMIND_HOOKS_REQUIRE_TASK'" ;;
esac
codequality=${MASTERMIND_HOOKS_CODEQUALITY:-gl-code-quality-report.json}
junit=${MASTERMIND_HOOKS_JUNIT:-mastermind-hooks-junit.xml}

resolve_bin

# The gate command, `check --ci`; MASTERMIND_HOOKS_CMD replaces it (the tests run `validate`
# through it to exercise the output formats).
if [ -n "${MASTERMIND_HOOKS_CMD:-}" ]; then
    set -f # split on blanks on purpose, but never expand globs
    # shellcheck disable=SC2086
    set -- $MASTERMIND_HOOKS_CMD
    set +f
else
    set -- check --ci
    base=${MASTERMIND_HOOKS_BASE:-}
    [ -z "$base" ] || set -- "$@" --base "$base"
    [ -z "${MASTERMIND_HOOKS_HEAD:-}" ] || set -- "$@" --head "$MASTERMIND_HOOKS_HEAD"
fi

# GitLab renders colours in job logs; NO_COLOR turns them off.
if [ -n "${NO_COLOR:-}" ]; then color=never; else color=always; fi

# GitLab runs job scripts with `set -e`: every status is caught, never fatal.
rc=0
"$bin" "$@" --format human --color "$color" || rc=$?
status=$(normalize "$rc")
rc=0
"$bin" "$@" --format gitlab >"$codequality" || rc=$?
status=$(worst "$status" "$(normalize "$rc")")
rc=0
"$bin" "$@" --format junit >"$junit" || rc=$?
status=$(worst "$status" "$(normalize "$rc")")

if [ "$status" = 2 ] && [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    printf 'error: mastermind-hooks: this is a shallow clone, so the merge base may be missing: set the variable GIT_DEPTH: "0" on this job\n' >&2
fi

# fail-on warning: warnings are the Code Quality issues of severity "minor".
if [ "$status" = 0 ] && [ "$fail_on" = warning ] && grep -q '"severity": "minor"' "$codequality"; then
    printf 'error: mastermind-hooks: warnings found and MASTERMIND_HOOKS_FAIL_ON is warning\n' >&2
    status=1
fi
exit "$status"
