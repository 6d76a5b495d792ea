#!/bin/sh
# mastermind-hooks gate for GitLab CI. mastermind-hooks.yml embeds this script verbatim (a
# test keeps the two identical); it runs locally too.
#
# Runs `mastermind-hooks check --ci` three times over the same trees: human output for the
# job log, a Code Quality report and a JUnit report. check --ci takes base and head from
# GitLab's predefined variables: detached merge request pipelines, merged results, merge
# trains, branch pipelines (against the default branch, fetched when missing) and the
# default branch itself (its report is the base Code Quality compares merge requests with).
# Exits with the gate's status: 0 pass, 1 violations, 2 could not check (any other outcome
# of the binary is reported as 2, never as a pass). Both reports are written whatever
# happens, also when no binary could be had.
#
# The binary, first found:
#   MASTERMIND_HOOKS_BIN            path of a binary (an image that has one)
#   `mastermind-hooks` on PATH      (the image route: the repository's Dockerfile)
#   MASTERMIND_HOOKS_RELEASE_URL    a release's download directory, with
#   + MASTERMIND_HOOKS_RELEASE_SHA256   the sha256 of mastermind-hooks-<target>.tar.gz (pinned:
#                                   a download that does not match is refused)
#   MASTERMIND_HOOKS_SOURCE_URL     a git URL of mastermind-hooks, with
#   + MASTERMIND_HOOKS_SOURCE_REV   the full commit id to build (pinned: a branch or tag name
#                                   is refused); built with cargo once into
#                                   .mastermind-hooks/<rev>/, which the job caches
#   MASTERMIND_HOOKS_SOURCE         a local source tree to build the same way
#
# Other variables:
#   MASTERMIND_HOOKS_BASE / _HEAD   --base / --head (default: from GitLab's variables; an
#                                   override that disagrees with them is refused)
#   MASTERMIND_HOOKS_FAIL_ON        error (default) or warning
#   MASTERMIND_HOOKS_REQUIRE_TASK   true: every change outside .mastermind/ must belong to a
#                                   checked task (read by check)
#   MASTERMIND_HOOKS_RERUN          true: `--rerun --rerun-timeout MASTERMIND_HOOKS_RERUN_TIMEOUT`
#   MASTERMIND_HOOKS_CODEQUALITY    Code Quality report file (default gl-code-quality-report.json)
#   MASTERMIND_HOOKS_JUNIT          JUnit report file (default mastermind-hooks-junit.xml)
#   MASTERMIND_HOOKS_CMD            the gate subcommand and its arguments, split on blanks, for
#                                   tests and debugging outside CI only (refused in CI)
set -u # and safe under `set -e`, which GitLab uses for job scripts

codequality=${MASTERMIND_HOOKS_CODEQUALITY:-gl-code-quality-report.json}
junit=${MASTERMIND_HOOKS_JUNIT:-mastermind-hooks-junit.xml}

# Both reports say "could not check", so the merge request shows why; then exit 2.
fail() {
    printf 'error: mastermind-hooks: %s\n' "$1" >&2
    # One line of plain text: control characters out, then JSON and XML escaping.
    plain=$(printf '%s' "$1" | tr '\r\n\t' '   ' | tr -d '\000-\037\177')
    text=$(printf '%s' "$plain" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
    xml=$(printf '%s' "$plain" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g')
    printf '[{"description": "mastermind-hooks could not check: %s", "check_name": "internal_error", "fingerprint": "mastermind-hooks-setup", "severity": "blocker", "location": {"path": ".", "lines": {"begin": 1}}}]\n' "$text" >"$codequality" || true
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mastermind-hooks" tests="1" failures="0" errors="1">\n    <testsuite name="mastermind-hooks" tests="1" failures="0" errors="1">\n        <testcase name="setup" classname="mastermind-hooks">\n            <error message="%s" type="internal_error">%s</error>\n        </testcase>\n    </testsuite>\n</testsuites>\n' "$xml" "$xml" >"$junit" || true
    exit 2
}

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$@" | awk '{ print $1 }'
    else
        shasum -a 256 "$@" | awk '{ print $1 }'
    fi
}

target() {
    case "$(uname -s) $(uname -m)" in
        "Linux x86_64" | "Linux amd64") printf 'x86_64-unknown-linux-musl' ;;
        "Linux aarch64" | "Linux arm64") printf 'aarch64-unknown-linux-musl' ;;
        "Darwin arm64" | "Darwin aarch64") printf 'aarch64-apple-darwin' ;;
        "Darwin x86_64") printf 'x86_64-apple-darwin' ;;
        *) return 1 ;;
    esac
}

download() {
    if command -v curl >/dev/null 2>&1; then
        curl --fail --silent --show-error --location --retry 2 --output "$2" "$1"
    elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$1"
    else
        return 1
    fi
}

# The project-local directory the job caches (GitLab caches only paths inside the project).
cache_root=${CI_PROJECT_DIR:-.}/.mastermind-hooks

# `cargo install` of the source at $1 into $2, with its progress in the job log.
build() {
    command -v cargo >/dev/null 2>&1 ||
        fail "building mastermind-hooks needs cargo: use a Rust image (the job's default), or set MASTERMIND_HOOKS_BIN"
    printf 'mastermind-hooks: building %s (once; cached in %s)\n' "$1" "$2" >&2
    cargo install --locked --root "$2" --path "$1" >&2 || fail "cargo install --path '$1' failed (the build log is above)"
}

# Sets $bin.
resolve_bin() {
    if [ -n "${MASTERMIND_HOOKS_BIN:-}" ]; then
        if [ ! -f "$MASTERMIND_HOOKS_BIN" ] || [ ! -x "$MASTERMIND_HOOKS_BIN" ]; then
            fail "MASTERMIND_HOOKS_BIN '$MASTERMIND_HOOKS_BIN' is not an executable file"
        fi
        bin=$MASTERMIND_HOOKS_BIN
        return
    fi
    if command -v mastermind-hooks >/dev/null 2>&1; then
        bin=$(command -v mastermind-hooks)
        return
    fi
    if [ -n "${MASTERMIND_HOOKS_RELEASE_URL:-}" ]; then
        expected=${MASTERMIND_HOOKS_RELEASE_SHA256:-}
        case "$expected" in
            '' | *[!0-9a-f]*) fail "MASTERMIND_HOOKS_RELEASE_URL needs MASTERMIND_HOOKS_RELEASE_SHA256, the 64-digit lowercase sha256 of the tarball: nothing unverified is installed" ;;
        esac
        [ "${#expected}" = 64 ] || fail "MASTERMIND_HOOKS_RELEASE_SHA256 must have 64 hex digits"
        dir=$cache_root/release-$expected
        if [ ! -x "$dir/bin/mastermind-hooks" ]; then
            t=$(target) || fail "no release binary for $(uname -sm)"
            work=$(mktemp -d) || fail "cannot create a temporary directory"
            url=${MASTERMIND_HOOKS_RELEASE_URL%/}/mastermind-hooks-$t.tar.gz
            download "$url" "$work/release.tar.gz" || fail "cannot download $url"
            actual=$(sha256_of "$work/release.tar.gz")
            [ "$actual" = "$expected" ] || fail "$url has sha256 $actual, not the pinned $expected: refused"
            mkdir -p "$dir/bin" && tar -xzf "$work/release.tar.gz" -C "$work" &&
                mv "$work/mastermind-hooks" "$dir/bin/mastermind-hooks" || fail "cannot unpack $url"
            rm -rf "$work"
        fi
        bin=$dir/bin/mastermind-hooks
        return
    fi
    if [ -n "${MASTERMIND_HOOKS_SOURCE_URL:-}" ]; then
        rev=${MASTERMIND_HOOKS_SOURCE_REV:-}
        case "$rev" in
            '' | *[!0-9a-f]*) fail "MASTERMIND_HOOKS_SOURCE_REV must be the full commit id to build (40 or 64 lowercase hex digits), not '$rev': a branch or tag can move" ;;
        esac
        [ "${#rev}" = 40 ] || [ "${#rev}" = 64 ] || fail "MASTERMIND_HOOKS_SOURCE_REV must be a full commit id, not '$rev'"
        dir=$cache_root/$rev
        if [ ! -x "$dir/bin/mastermind-hooks" ]; then
            work=$(mktemp -d) || fail "cannot create a temporary directory"
            git init -q "$work/src" &&
                git -C "$work/src" fetch -q --depth 1 "$MASTERMIND_HOOKS_SOURCE_URL" "$rev" 2>/dev/null ||
                git -C "$work/src" fetch -q "$MASTERMIND_HOOKS_SOURCE_URL" '+refs/heads/*:refs/remotes/source/*' '+refs/tags/*:refs/tags/*' ||
                fail "cannot fetch $MASTERMIND_HOOKS_SOURCE_URL"
            git -C "$work/src" -c advice.detachedHead=false checkout -q "$rev" ||
                fail "$MASTERMIND_HOOKS_SOURCE_URL has no commit $rev"
            build "$work/src" "$dir"
            rm -rf "$work"
        fi
        bin=$dir/bin/mastermind-hooks
        return
    fi
    if [ -n "${MASTERMIND_HOOKS_SOURCE:-}" ] && [ -f "$MASTERMIND_HOOKS_SOURCE/Cargo.toml" ]; then
        dir=$cache_root/source
        [ -x "$dir/bin/mastermind-hooks" ] || build "$MASTERMIND_HOOKS_SOURCE" "$dir"
        bin=$dir/bin/mastermind-hooks
        return
    fi
    fail "no mastermind-hooks binary: set MASTERMIND_HOOKS_SOURCE_URL and MASTERMIND_HOOKS_SOURCE_REV (a pinned source to build), MASTERMIND_HOOKS_RELEASE_URL and MASTERMIND_HOOKS_RELEASE_SHA256, or MASTERMIND_HOOKS_BIN, or use an image with mastermind-hooks on PATH"
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
rerun=${MASTERMIND_HOOKS_RERUN:-false}
case "$rerun" in
    true | false | '') ;;
    *) fail "MASTERMIND_HOOKS_RERUN must be true or false, not '$rerun'" ;;
esac
rerun_timeout=${MASTERMIND_HOOKS_RERUN_TIMEOUT:-}
case "$rerun_timeout" in
    *[!0-9]*) fail "MASTERMIND_HOOKS_RERUN_TIMEOUT must be a number of seconds, not '$rerun_timeout'" ;;
esac

resolve_bin

# The gate command, `check --ci`. MASTERMIND_HOOKS_CMD replaces it outside CI only: in CI
# the change could set it, and nothing in the change may decide how it is judged.
if [ -n "${MASTERMIND_HOOKS_CMD:-}" ]; then
    if [ -n "${GITLAB_CI:-}" ] || [ -n "${GITHUB_ACTIONS:-}" ]; then
        fail "error[ci_override_refused]: MASTERMIND_HOOKS_CMD is for tests and debugging and is refused in CI; remove it from the job's variables"
    fi
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
    # A branch pipeline is judged against the default branch, which GitLab's clone of
    # another branch does not fetch.
    if [ "${CI_PIPELINE_SOURCE:-}" != merge_request_event ] && [ -n "${CI_DEFAULT_BRANCH:-}" ] &&
        [ "${CI_COMMIT_BRANCH:-}" != "$CI_DEFAULT_BRANCH" ] &&
        ! git rev-parse -q --verify "refs/remotes/origin/$CI_DEFAULT_BRANCH" >/dev/null 2>&1; then
        git fetch -q origin "+refs/heads/$CI_DEFAULT_BRANCH:refs/remotes/origin/$CI_DEFAULT_BRANCH" >&2 ||
            printf 'warning: mastermind-hooks: cannot fetch the default branch %s\n' "$CI_DEFAULT_BRANCH" >&2
    fi
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
