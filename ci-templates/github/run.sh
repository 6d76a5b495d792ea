#!/bin/sh
# mastermind-hooks gate for GitHub Actions (called by action.yml; runs locally too).
#
# Runs `mastermind-hooks check --ci --format github`, which prints annotations and appends a
# job summary to $GITHUB_STEP_SUMMARY, optionally writes a SARIF log for
# github/codeql-action/upload-sarif, and exits with the gate's status: 0 pass, 1 violations,
# 2 could not check (any other outcome of the binary is reported as 2, never as a pass).
#
# Environment (the action maps its inputs to these):
#   MASTERMIND_HOOKS_BIN          path of the binary to run (input binary-path)
#   MASTERMIND_HOOKS_VERSION      else: `cargo install --locked` this version (input version)
#                                 else: `mastermind-hooks` on PATH
#   MASTERMIND_HOOKS_SOURCE       else: `cargo install --locked --path` this source tree
#   MASTERMIND_HOOKS_BASE         --base REV (input base; default: detected by check --ci)
#   MASTERMIND_HOOKS_HEAD         --head REV (input head; default: detected by check --ci)
#   MASTERMIND_HOOKS_FORMAT       log format: github (default), human or json (input format)
#   MASTERMIND_HOOKS_FAIL_ON      error (default) or warning (input fail-on)
#   MASTERMIND_HOOKS_REQUIRE_TASK true: every change outside .mastermind/ must belong to a
#                                 checked task (input require-task; read by check)
#   MASTERMIND_HOOKS_SARIF_FILE   also write a SARIF log to this file (input sarif-file)
#   MASTERMIND_HOOKS_MAX_ANNOTATIONS  cap on annotations (input max-annotations; default 50)
#   MASTERMIND_HOOKS_CMD          the gate subcommand and its arguments, split on blanks;
#                                 default `check --ci` plus --base/--head. For tests and
#                                 debugging only, e.g. MASTERMIND_HOOKS_CMD='validate a/spec.md'.
set -u # and safe under `set -e`

# Escape a workflow command message: `%`, CR and LF.
escape_data() {
    printf '%s' "$1" | awk 'BEGIN { ORS = "" } { gsub(/%/, "%25"); gsub(/\r/, "%0D"); if (NR > 1) print "%0A"; print }'
}

# A problem of the script itself, as an error annotation.
say_error() {
    printf '::error title=mastermind-hooks::%s\n' "$(escape_data "$1")"
}

fail() {
    say_error "$1"
    exit 2
}

install_root() {
    printf '%s/mastermind-hooks-%s' "${RUNNER_TEMP:-${TMPDIR:-/tmp}}" "$1"
}

# Sets $bin to the binary to run, installing it when asked to.
resolve_bin() {
    if [ -n "${MASTERMIND_HOOKS_BIN:-}" ]; then
        if [ ! -f "$MASTERMIND_HOOKS_BIN" ] || [ ! -x "$MASTERMIND_HOOKS_BIN" ]; then
            fail "binary-path '$MASTERMIND_HOOKS_BIN' is not an executable file"
        fi
        bin=$MASTERMIND_HOOKS_BIN
        return
    fi
    if [ -n "${MASTERMIND_HOOKS_VERSION:-}" ]; then
        root=$(install_root "$MASTERMIND_HOOKS_VERSION")
        if [ ! -x "$root/bin/mastermind-hooks" ]; then
            command -v cargo >/dev/null 2>&1 ||
                fail "version '$MASTERMIND_HOOKS_VERSION' needs cargo to install; set up Rust first or pass binary-path"
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
                fail "building mastermind-hooks from source needs cargo; set up Rust first, or pass version or binary-path"
            cargo install --locked --quiet --root "$root" --path "$MASTERMIND_HOOKS_SOURCE" >&2 ||
                fail "cargo install --path '$MASTERMIND_HOOKS_SOURCE' failed"
        fi
        bin=$root/bin/mastermind-hooks
        return
    fi
    fail "no mastermind-hooks binary: pass binary-path or version, or put mastermind-hooks on PATH"
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

format=${MASTERMIND_HOOKS_FORMAT:-github}
case "$format" in
    github | human | json) ;;
    *) fail "format must be github, human or json, not '$format'" ;;
esac
fail_on=${MASTERMIND_HOOKS_FAIL_ON:-error}
case "$fail_on" in
    error | warning) ;;
    *) fail "fail-on must be error or warning, not '$fail_on'" ;;
esac
case "${MASTERMIND_HOOKS_REQUIRE_TASK:-false}" in
    true) export MASTERMIND_HOOKS_REQUIRE_TASK=true ;;
    false | '') unset MASTERMIND_HOOKS_REQUIRE_TASK ;;
    *) fail "require-task must be true or false, not '$MASTERMIND_HOOKS_REQUIRE_TASK'" ;;
esac
max_annotations=${MASTERMIND_HOOKS_MAX_ANNOTATIONS:-}
case "$max_annotations" in
    *[!0-9]*) fail "max-annotations must be a number, not '$max_annotations'" ;;
esac

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
    [ -z "${MASTERMIND_HOOKS_BASE:-}" ] || set -- "$@" --base "$MASTERMIND_HOOKS_BASE"
    [ -z "${MASTERMIND_HOOKS_HEAD:-}" ] || set -- "$@" --head "$MASTERMIND_HOOKS_HEAD"
fi

log=$(mktemp) || fail "cannot create a temporary file"
trap 'rm -f "$log"' EXIT

# Annotations and the job summary (--format github appends it to $GITHUB_STEP_SUMMARY).
rc=0
if [ "$format" = github ] && [ -n "$max_annotations" ]; then
    "$bin" "$@" --format github --max-annotations "$max_annotations" >"$log" || rc=$?
else
    "$bin" "$@" --format "$format" >"$log" || rc=$?
fi
status=$(normalize "$rc")
cat "$log"

if [ -n "${MASTERMIND_HOOKS_SARIF_FILE:-}" ]; then
    sarif_dir=$(dirname "$MASTERMIND_HOOKS_SARIF_FILE")
    mkdir -p "$sarif_dir" || fail "cannot create the directory of sarif-file '$MASTERMIND_HOOKS_SARIF_FILE'"
    # GITHUB_STEP_SUMMARY is left out so the summary is written once.
    rc=0
    GITHUB_STEP_SUMMARY='' "$bin" "$@" --format sarif >"$MASTERMIND_HOOKS_SARIF_FILE" || rc=$?
    status=$(worst "$status" "$(normalize "$rc")")
fi

if [ "$status" = 2 ] && [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    say_error "this is a shallow clone, so the merge base may be missing: set 'fetch-depth: 0' on actions/checkout"
fi

# fail-on warning: the totals are in the last line of github and human output, and in the
# summary object of json output, whatever the annotation cap hid.
if [ "$status" = 0 ] && [ "$fail_on" = warning ]; then
    case "$format" in
        json) warned=$(grep -Ec '"warnings": [1-9]' "$log" || true) ;;
        *) warned=$(tail -n 1 "$log" | grep -Ec '[1-9][0-9]* warnings?[,)]' || true) ;;
    esac
    if [ "$warned" != 0 ]; then
        say_error "warnings found and fail-on is 'warning'"
        status=1
    fi
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'exit-code=%s\n' "$status" >>"$GITHUB_OUTPUT"
fi
exit "$status"
