#!/bin/sh
# mastermind-hooks gate for GitHub Actions (called by action.yml; runs locally too).
#
#   run.sh prepare   where a source build is cached: outputs cache-dir and cache-key
#   run.sh install   find or make the binary: outputs bin (or error); never fails the step,
#                    so the gate step always runs and always sets exit-code
#   run.sh           the gate: `mastermind-hooks check --ci --format github` prints
#                    annotations and appends a job summary to $GITHUB_STEP_SUMMARY,
#                    optionally writes a SARIF log, and exits with the gate's status: 0 pass,
#                    1 violations, 2 could not check (any other outcome of the binary is
#                    reported as 2, never as a pass). exit-code is written to $GITHUB_OUTPUT
#                    however the script ends.
#
# The binary, first found: MASTERMIND_HOOKS_BIN (input binary-path); `mastermind-hooks` on
# PATH; the cached build of this source; the release binary of the tag the action is used at
# ($GITHUB_SERVER_URL/$GITHUB_ACTION_REPOSITORY/releases/download/$GITHUB_ACTION_REF/
# mastermind-hooks-<target>.tar.gz, verified against the .sha256 published with it; a
# mismatch is exit 2, never a fallback); else `cargo install --locked --path` of the source
# two directories up from this script, into the cache directory.
#
# Environment of the gate (the action maps its inputs to these):
#   MASTERMIND_HOOKS_BASE / _HEAD  --base / --head (default: from the event; in CI an override
#                                  that disagrees with the event is refused by check --ci)
#   MASTERMIND_HOOKS_FORMAT        log format: github (default), human or json
#   MASTERMIND_HOOKS_FAIL_ON       error (default) or warning
#   MASTERMIND_HOOKS_REQUIRE_TASK  true: every change outside .mastermind/ must belong to a
#                                  checked task (read by check)
#   MASTERMIND_HOOKS_SARIF_FILE    also write a SARIF log to this file (not when exit 2)
#   MASTERMIND_HOOKS_MAX_ANNOTATIONS  annotations of each kind (default 10, GitHub's per-step cap)
#   MASTERMIND_HOOKS_RERUN         true: `--rerun --rerun-timeout MASTERMIND_HOOKS_RERUN_TIMEOUT`
#   MASTERMIND_HOOKS_CMD           the gate subcommand and its arguments, split on blanks, for
#                                  tests and debugging outside CI only (refused when
#                                  GITHUB_ACTIONS or GITLAB_CI is set)
set -u # and safe under `set -e`

mode=${1:-gate}
log=

# Escape a workflow command message: `%`, CR and LF.
escape_data() {
    printf '%s' "$1" | awk 'BEGIN { ORS = "" } { gsub(/%/, "%25"); gsub(/\r/, "%0D"); if (NR > 1) print "%0A"; print }'
}

# A problem of the script itself, as an error annotation.
say_error() {
    printf '::error title=mastermind-hooks::%s\n' "$(escape_data "$1")"
}

output() {
    [ -z "${GITHUB_OUTPUT:-}" ] || printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
}

# The gate's exit status, written however the gate step ends.
on_exit() {
    rc=$?
    [ "$mode" != gate ] || output exit-code "$rc"
    [ -z "$log" ] || rm -f "$log"
}
trap on_exit EXIT

fail() {
    say_error "$1"
    if [ "$mode" = gate ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
        printf '## ⛔ mastermind-hooks could not check\n\n%s\n\n' "$(printf '%s' "$1" | tr '\r\n' '  ')" >>"$GITHUB_STEP_SUMMARY" || true
    fi
    exit 2
}

# The install step never fails: it reports what went wrong to the gate step.
install_failed() {
    say_error "$1"
    output error "$(printf '%s' "$1" | tr '\r\n' '  ')"
    exit 0
}

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$@" | awk '{ print $1 }'
    else
        shasum -a 256 "$@" | awk '{ print $1 }'
    fi
}

# This action's source: two directories above this script, found at run time (in a
# `container:` job GitHub's expressions name the host's path, this names the container's).
source_dir() {
    (cd "$(dirname "$0")/../.." 2>/dev/null && pwd)
}

# The Rust target of this runner, as the release workflow names its binaries.
target() {
    case "$(uname -s) $(uname -m)" in
        "Linux x86_64" | "Linux amd64") printf 'x86_64-unknown-linux-musl' ;;
        "Linux aarch64" | "Linux arm64") printf 'aarch64-unknown-linux-musl' ;;
        "Darwin arm64" | "Darwin aarch64") printf 'aarch64-apple-darwin' ;;
        "Darwin x86_64") printf 'x86_64-apple-darwin' ;;
        *) return 1 ;;
    esac
}

# The C library a source build links against (a glibc build fails in an Alpine container).
libc() {
    if ldd --version 2>&1 | grep -qi musl; then printf musl; else printf gnu; fi
}

# A key for the build of this source on this platform: the bytes of everything cargo reads.
source_key() {
    src=$1
    sum=$(cd "$src" && find Cargo.toml Cargo.lock src schemas hooks -type f 2>/dev/null |
        LC_ALL=C sort | while IFS= read -r f; do printf '%s  %s\n' "$(sha256_of "$f")" "$f"; done |
        sha256_of)
    printf 'mastermind-hooks-%s-%s-%s-%s' "$(uname -s)" "$(uname -m)" "$(libc)" "$sum"
}

prepare() {
    if [ -n "${MASTERMIND_HOOKS_BIN:-}" ] || command -v mastermind-hooks >/dev/null 2>&1; then
        exit 0
    fi
    src=$(source_dir) || exit 0
    [ -f "$src/Cargo.toml" ] || exit 0
    key=$(source_key "$src")
    output cache-dir "${HOME:-/tmp}/.cache/mastermind-hooks/$key"
    output cache-key "$key"
    exit 0
}

# Download $1 to $2 (curl or wget); false when it is not there.
download() {
    if command -v curl >/dev/null 2>&1; then
        curl --fail --silent --show-error --location --retry 2 --output "$2" "$1" 2>/dev/null
    elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$1"
    else
        return 1
    fi
}

# The release binary of the tag this action is used at, verified; sets $bin.
install_release() {
    case "${GITHUB_ACTION_REF:-}" in v[0-9]*) ;; *) return 1 ;; esac
    [ -n "${GITHUB_ACTION_REPOSITORY:-}" ] || return 1
    t=$(target) || return 1
    name=mastermind-hooks-$t.tar.gz
    url=${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_ACTION_REPOSITORY/releases/download/$GITHUB_ACTION_REF/$name
    dir=${MASTERMIND_HOOKS_CACHE_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mastermind-hooks-release}
    work=$(mktemp -d) || return 1
    if ! download "$url" "$work/$name" || ! download "$url.sha256" "$work/$name.sha256"; then
        rm -rf "$work"
        printf 'mastermind-hooks: no release binary at %s; building this action'"'"'s source\n' "$url" >&2
        return 1
    fi
    expected=$(awk 'NR == 1 { print $1 }' "$work/$name.sha256")
    actual=$(sha256_of "$work/$name")
    if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
        rm -rf "$work"
        install_failed "the release binary $url does not match its published sha256 ($actual, expected '$expected'); nothing was installed"
    fi
    mkdir -p "$dir/bin" && tar -xzf "$work/$name" -C "$work" && mv "$work/mastermind-hooks" "$dir/bin/mastermind-hooks" ||
        { rm -rf "$work"; install_failed "cannot unpack $name"; }
    rm -rf "$work"
    bin=$dir/bin/mastermind-hooks
    printf 'mastermind-hooks: using the release binary %s (sha256 %s)\n' "$url" "$actual" >&2
}

install() {
    if [ -n "${MASTERMIND_HOOKS_BIN:-}" ]; then
        if [ ! -f "$MASTERMIND_HOOKS_BIN" ] || [ ! -x "$MASTERMIND_HOOKS_BIN" ]; then
            install_failed "binary-path '$MASTERMIND_HOOKS_BIN' is not an executable file"
        fi
        output bin "$MASTERMIND_HOOKS_BIN"
        exit 0
    fi
    if command -v mastermind-hooks >/dev/null 2>&1; then
        output bin "$(command -v mastermind-hooks)"
        exit 0
    fi
    dir=${MASTERMIND_HOOKS_CACHE_DIR:-}
    if [ -n "$dir" ] && [ -x "$dir/bin/mastermind-hooks" ] && "$dir/bin/mastermind-hooks" --version >/dev/null 2>&1; then
        printf 'mastermind-hooks: using the cached build %s\n' "$dir/bin/mastermind-hooks" >&2
        output bin "$dir/bin/mastermind-hooks"
        exit 0
    fi
    if install_release; then
        output bin "$bin"
        exit 0
    fi
    src=$(source_dir) || src=
    if [ -z "$src" ] || [ ! -f "$src/Cargo.toml" ]; then
        install_failed "no mastermind-hooks binary: pass binary-path, put mastermind-hooks on PATH, or use the action from its repository"
    fi
    command -v cargo >/dev/null 2>&1 ||
        install_failed "building mastermind-hooks from source needs cargo: set up Rust first (for example dtolnay/rust-toolchain), use the action at a release tag, or pass binary-path"
    dir=${dir:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mastermind-hooks-source}
    printf '::group::Building mastermind-hooks from %s (once per source and platform; cached)\n' "$src"
    if ! cargo install --locked --root "$dir" --path "$src" >&2; then
        printf '::endgroup::\n'
        install_failed "cargo install --path '$src' failed (the build log is above)"
    fi
    printf '::endgroup::\n'
    output bin "$dir/bin/mastermind-hooks"
    output built true
    exit 0
}

case "$mode" in
    prepare) prepare ;;
    install) install ;;
    gate) ;;
    *) mode=gate; fail "unknown mode '$1': prepare, install or nothing (the gate)" ;;
esac

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

in_ci() {
    [ -n "${GITHUB_ACTIONS:-}" ] || [ -n "${GITLAB_CI:-}" ]
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
max_annotations=${MASTERMIND_HOOKS_MAX_ANNOTATIONS:-10}
case "$max_annotations" in
    '' | *[!0-9]*) fail "max-annotations must be a number, not '$max_annotations'" ;;
esac
rerun=${MASTERMIND_HOOKS_RERUN:-false}
case "$rerun" in
    true | false | '') ;;
    *) fail "rerun must be true or false, not '$rerun'" ;;
esac
rerun_timeout=${MASTERMIND_HOOKS_RERUN_TIMEOUT:-}
case "$rerun_timeout" in
    *[!0-9]*) fail "rerun-timeout must be a number of seconds, not '$rerun_timeout'" ;;
esac

[ -z "${MASTERMIND_HOOKS_INSTALL_ERROR:-}" ] || fail "$MASTERMIND_HOOKS_INSTALL_ERROR"
bin=${MASTERMIND_HOOKS_BIN:-}
if [ -z "$bin" ]; then
    bin=$(command -v mastermind-hooks 2>/dev/null) ||
        fail "no mastermind-hooks binary: pass binary-path, or put mastermind-hooks on PATH"
fi
if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
    fail "binary-path '$bin' is not an executable file"
fi

# The gate command, `check --ci`. MASTERMIND_HOOKS_CMD replaces it outside CI only: in CI
# the change could set it, and nothing in the change may decide how it is judged.
if [ -n "${MASTERMIND_HOOKS_CMD:-}" ]; then
    in_ci && fail "error[ci_override_refused]: MASTERMIND_HOOKS_CMD is for tests and debugging and is refused in CI; remove it from the workflow"
    set -f # split on blanks on purpose, but never expand globs
    # shellcheck disable=SC2086
    set -- $MASTERMIND_HOOKS_CMD
    set +f
else
    set -- check --ci
    [ -z "${MASTERMIND_HOOKS_BASE:-}" ] || set -- "$@" --base "$MASTERMIND_HOOKS_BASE"
    [ -z "${MASTERMIND_HOOKS_HEAD:-}" ] || set -- "$@" --head "$MASTERMIND_HOOKS_HEAD"
    if [ "$rerun" = true ]; then
        set -- "$@" --rerun
        [ -z "$rerun_timeout" ] || set -- "$@" --rerun-timeout "$rerun_timeout"
    fi
fi

log=$(mktemp) || fail "cannot create a temporary file"

# Annotations and the job summary (--format github appends it to $GITHUB_STEP_SUMMARY).
rc=0
if [ "$format" = github ]; then
    "$bin" "$@" --format github --max-annotations "$max_annotations" >"$log" || rc=$?
else
    "$bin" "$@" --format "$format" >"$log" || rc=$?
fi
status=$(normalize "$rc")
cat "$log"

if [ -n "${MASTERMIND_HOOKS_SARIF_FILE:-}" ]; then
    sarif=$MASTERMIND_HOOKS_SARIF_FILE
    mkdir -p "$(dirname "$sarif")" || fail "cannot create the directory of sarif-file '$sarif'"
    # GITHUB_STEP_SUMMARY is left out so the summary is written once.
    rc=0
    GITHUB_STEP_SUMMARY='' "$bin" "$@" --format sarif >"$sarif" || rc=$?
    status=$(worst "$status" "$(normalize "$rc")")
    if [ "$(normalize "$rc")" = 2 ]; then
        # An analysis of a run that could not check lists no results, and uploading it
        # would close every open alert: no file, so the upload step (hashFiles) skips.
        rm -f "$sarif"
        printf '::notice title=mastermind-hooks::%s\n' "no SARIF written: the gate could not check, and an empty analysis would close open alerts"
    fi
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
exit "$status"
