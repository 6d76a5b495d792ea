#!/bin/sh
# mastermind-hooks gate for GitLab CI. mastermind-hooks.yml embeds this script verbatim (a
# test keeps the two identical); it runs locally too.
#
# Runs `mastermind-hooks check --ci` once: human output for the job log, and from the same
# run a Code Quality report and a JUnit report (`--output`), so every check (a re-run's too)
# runs once and the log, the widget and the tests tab state one verdict. check --ci takes
# base and head from
# GitLab's predefined variables: detached merge request pipelines, merged results, merge
# trains, branch pipelines (against the default branch, fetched when missing) and the
# default branch itself. Exits with the gate's status: 0 pass, 1 violations, 2 could not
# check (any other outcome of the binary is reported as 2, never as a pass). Both reports
# are written whatever happens, also when no binary could be had.
#
# The binary is part of the trust base. The project directory is the change's own checkout,
# so nothing in it is run unverified: the job refuses a commit that tracks .mastermind-hooks/
# (the directory the job's cache keeps), unpacks and builds in a fresh temporary directory
# outside the project (cargo runs there, so no .cargo/config.toml or rust-toolchain.toml
# of the change applies), and checks the binary's sha256 before it runs.
# First found:
#   MASTERMIND_HOOKS_BIN            path of a binary (an image that has one); refused inside
#                                   the project directory unless MASTERMIND_HOOKS_BIN_SHA256
#                                   pins it
#   `mastermind-hooks` on PATH      (the image route: the repository's Dockerfile), the same
#   MASTERMIND_HOOKS_RELEASE_URL    a release's download directory, with
#   + MASTERMIND_HOOKS_RELEASE_SHA256   the sha256 of mastermind-hooks-<target>.tar.gz (its
#                                   line in the release's SHA256SUMS); the download, cached
#                                   in .mastermind-hooks/, is checked against it on every use
#   MASTERMIND_HOOKS_SOURCE_URL     a git URL of mastermind-hooks, with
#   + MASTERMIND_HOOKS_SOURCE_REV   the full commit id to build (pinned: a branch or tag name
#                                   is refused), built with cargo and kept in
#                                   .mastermind-hooks/<rev>/ for later pipelines; a cached
#                                   build is used when MASTERMIND_HOOKS_BIN_SHA256 pins it, or
#                                   in a pipeline of a protected branch (GitLab keeps their
#                                   caches apart); elsewhere it is built again
#   MASTERMIND_HOOKS_SOURCE         a local source tree to build the same way
#
# Other variables:
#   MASTERMIND_HOOKS_BASE / _HEAD   --base / --head (default: from GitLab's variables; an
#                                   override that disagrees with them is refused)
#   MASTERMIND_HOOKS_FAIL_ON        error (default) or warning
#   MASTERMIND_HOOKS_REQUIRE_TASK   true: every change outside .mastermind/ must belong to a
#                                   checked task (read by check)
#   MASTERMIND_HOOKS_RERUN          true: `--rerun --rerun-timeout MASTERMIND_HOOKS_RERUN_TIMEOUT`;
#                                   the change's checks then run on the runner: use runners
#                                   that start every job fresh (ephemeral)
#   MASTERMIND_HOOKS_RERUN_JOBS     with rerun: checks of different tasks at once (--rerun-jobs)
#   MASTERMIND_HOOKS_RERUN_IN       with rerun: auto (default), workspace or worktree (--rerun-in)
#   MASTERMIND_HOOKS_ATTESTATION    with rerun: write the in-toto statement of the re-run to this
#                                   file (--attestation; its directory must exist); refused
#                                   without rerun
#   (With rerun, the job's cache directory .mastermind-hooks/ is added by name to the clone's
#   own .git/info/exclude, so it does not keep the re-run out of a workspace that is otherwise
#   a clean checkout of what lands. A check then runs with CI=true and NO_COLOR=1 unless the
#   job sets them.)
#   MASTERMIND_HOOKS_DEFAULT_BRANCH_REPORT  state (default): on the default branch the Code
#                                   Quality report states main's open findings, which is
#                                   none (what lands passed the gate); the push's findings
#                                   are in the log and the JUnit report. push: the push's
#                                   findings, as in any other pipeline.
#   MASTERMIND_HOOKS_CODEQUALITY    Code Quality report file (default gl-code-quality-report.json)
#   MASTERMIND_HOOKS_JUNIT          JUnit report file (default mastermind-hooks-junit.xml)
#   MASTERMIND_HOOKS_CMD            the gate subcommand and its arguments, split on blanks, for
#                                   tests and debugging outside CI only (refused in CI)
set -u # and safe under `set -e`, which GitLab uses for job scripts

codequality=${MASTERMIND_HOOKS_CODEQUALITY:-gl-code-quality-report.json}
junit=${MASTERMIND_HOOKS_JUNIT:-mastermind-hooks-junit.xml}
work=

cleanup() {
    [ -z "$work" ] || rm -rf "$work"
}
trap cleanup EXIT

# Both reports say "could not check", so the merge request shows why.
reports_could_not_check() {
    # One line of plain text: control characters out, then JSON and XML escaping.
    plain=$(printf '%s' "$1" | tr '\r\n\t' '   ' | tr -d '\000-\037\177')
    text=$(printf '%s' "$plain" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
    xml=$(printf '%s' "$plain" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g')
    printf '[{"description": "mastermind-hooks could not check: %s", "check_name": "internal_error", "fingerprint": "mastermind-hooks-setup", "severity": "blocker", "location": {"path": ".", "lines": {"begin": 1}}}]\n' "$text" >"$codequality" || true
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mastermind-hooks" tests="1" failures="0" errors="1">\n    <testsuite name="mastermind-hooks" tests="1" failures="0" errors="1">\n        <testcase name="setup" classname="mastermind-hooks">\n            <error message="%s" type="internal_error">%s</error>\n        </testcase>\n    </testsuite>\n</testsuites>\n' "$xml" "$xml" >"$junit" || true
}

# The reason on stderr, both reports saying "could not check"; then exit 2.
fail() {
    printf 'error: mastermind-hooks: %s\n' "$1" >&2
    reports_could_not_check "$1"
    exit 2
}

warn() {
    printf 'warning: mastermind-hooks: %s\n' "$1" >&2
}

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$@" | awk '{ print $1 }'
    else
        shasum -a 256 "$@" | awk '{ print $1 }'
    fi
}

# True for 64 lowercase hex digits.
is_sha256() {
    case "$1" in '' | *[!0-9a-f]*) return 1 ;; esac
    [ "${#1}" = 64 ]
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

# The physical path of a file, links followed (false when its directory is gone).
physical() {
    f=$1
    n=0
    while [ -L "$f" ] && [ "$n" -lt 40 ]; do
        l=$(readlink "$f") || return 1
        case "$l" in /*) f=$l ;; *) f=$(dirname "$f")/$l ;; esac
        n=$((n + 1))
    done
    d=$(cd "$(dirname "$f")" 2>/dev/null && pwd -P) || return 1
    printf '%s/%s' "$d" "$(basename "$f")"
}

project=$(cd "${CI_PROJECT_DIR:-.}" 2>/dev/null && pwd -P) || project=${CI_PROJECT_DIR:-.}

# True when $1 lies inside the project directory, which the change supplies.
in_project() {
    p=$(physical "$1") || p=$1
    case "$p" in "$project" | "$project"/*) return 0 ;; esac
    return 1
}

# The directory the job caches (GitLab caches only paths inside the project). A commit
# that tracks it would bring its own gate there: refused.
cache_root=$project/.mastermind-hooks
check_cache_root() {
    if [ -n "$(git -C "$project" ls-files -- .mastermind-hooks 2>/dev/null | head -n 1)" ]; then
        fail "the commit tracks .mastermind-hooks/, where this job caches the gate, so the change could bring its own: remove it (git rm -r --cached .mastermind-hooks) and ignore it (.gitignore)"
    fi
    if [ -L "$cache_root" ] || { [ -e "$cache_root" ] && [ ! -d "$cache_root" ]; }; then
        fail "$cache_root is not a directory: refused"
    fi
}

# A fresh directory outside the project for what the job unpacks and builds.
workdir() {
    if [ -z "$work" ]; then
        work=$(mktemp -d "${TMPDIR:-/tmp}/mastermind-hooks.XXXXXX") || fail "cannot create a temporary directory"
        if in_project "$work"; then
            fail "TMPDIR ($work) lies inside the project directory: refused"
        fi
    fi
}

# `cargo install` of the source at $1; sets $bin to the fresh binary outside the project.
build() {
    command -v cargo >/dev/null 2>&1 ||
        fail "building mastermind-hooks needs cargo: use a Rust image (the job's default), set MASTERMIND_HOOKS_RELEASE_URL and MASTERMIND_HOOKS_RELEASE_SHA256 to download a release in seconds, or set MASTERMIND_HOOKS_BIN"
    workdir
    printf 'mastermind-hooks: building %s\n' "$1" >&2
    # From the source directory: cargo and rustup read configuration from where they run.
    (cd "$1" && CARGO_TARGET_DIR=$work/target cargo install --locked --root "$work/build" --path "$1" >&2) ||
        fail "cargo install --path '$1' failed (the build log is above)"
    rm -rf "$work/target"
    bin=$work/build/bin/mastermind-hooks
}

# A build this job may take from the cache: pinned, or in a protected branch's pipeline.
cache_trusted() {
    [ -n "${MASTERMIND_HOOKS_BIN_SHA256:-}" ] && return 0
    [ "${CI_COMMIT_REF_PROTECTED:-}" = true ] && [ "${CI_PIPELINE_SOURCE:-}" != merge_request_event ]
}

# The cached build at $1 if it may be used (sets $bin), else false (and it is removed).
cached_build() {
    [ -f "$1" ] || return 1
    actual=$(sha256_of "$1")
    pin=${MASTERMIND_HOOKS_BIN_SHA256:-}
    if ! cache_trusted; then
        printf 'mastermind-hooks: the cached build is not used: merge request and unprotected pipelines share this cache (set MASTERMIND_HOOKS_BIN_SHA256 to reuse a build)\n' >&2
    elif [ -n "$pin" ] && [ "$actual" != "$pin" ]; then
        warn "the cached build has sha256 $actual, not the pinned MASTERMIND_HOOKS_BIN_SHA256 $pin: discarded, building again"
    else
        workdir
        mkdir -p "$work/cached" && cp "$1" "$work/cached/mastermind-hooks" && chmod +x "$work/cached/mastermind-hooks" ||
            fail "cannot copy the cached build"
        bin=$work/cached/mastermind-hooks
        [ "$(sha256_of "$bin")" = "$actual" ] || fail "the cached build changed while it was copied: refused"
        printf 'mastermind-hooks: using the cached build (sha256 %s)\n' "$actual" >&2
        return 0
    fi
    rm -f "$1"
    return 1
}

# Keep a fresh build for later pipelines.
keep_build() {
    mkdir -p "$(dirname "$1")" && cp "$bin" "$1.$$" && mv "$1.$$" "$1" || warn "cannot keep the build in $1"
    actual=$(sha256_of "$bin")
    pin=${MASTERMIND_HOOKS_BIN_SHA256:-}
    if [ -z "$pin" ]; then
        printf 'mastermind-hooks: built sha256 %s; set MASTERMIND_HOOKS_BIN_SHA256 to it to reuse the build in every pipeline\n' "$actual" >&2
    elif [ "$actual" != "$pin" ]; then
        warn "this build has sha256 $actual, not MASTERMIND_HOOKS_BIN_SHA256 $pin (a new toolchain?): update the variable"
    fi
}

# A binary the job did not make.
given() {
    if [ ! -f "$1" ] || [ ! -x "$1" ]; then
        fail "$2 '$1' is not an executable file"
    fi
    pin=${MASTERMIND_HOOKS_BIN_SHA256:-}
    if [ -n "$pin" ]; then
        is_sha256 "$pin" || fail "MASTERMIND_HOOKS_BIN_SHA256 must be 64 lowercase hex digits, not '$pin'"
        actual=$(sha256_of "$1")
        [ "$actual" = "$pin" ] || fail "$2 '$1' has sha256 $actual, not the pinned MASTERMIND_HOOKS_BIN_SHA256 $pin: refused"
    elif in_project "$1"; then
        fail "$2 '$1' lies inside the project directory, which the change supplies: refused. Install the gate outside it (an image), or pin it with MASTERMIND_HOOKS_BIN_SHA256"
    fi
    bin=$1
}

# Sets $bin.
resolve_bin() {
    if [ -n "${MASTERMIND_HOOKS_BIN:-}" ]; then
        given "$MASTERMIND_HOOKS_BIN" MASTERMIND_HOOKS_BIN
        return
    fi
    if command -v mastermind-hooks >/dev/null 2>&1; then
        given "$(command -v mastermind-hooks)" "the mastermind-hooks on PATH"
        return
    fi
    pin=${MASTERMIND_HOOKS_BIN_SHA256:-}
    if [ -n "$pin" ] && ! is_sha256 "$pin"; then
        fail "MASTERMIND_HOOKS_BIN_SHA256 must be 64 lowercase hex digits, not '$pin'"
    fi
    check_cache_root
    if [ -n "${MASTERMIND_HOOKS_RELEASE_URL:-}" ]; then
        expected=${MASTERMIND_HOOKS_RELEASE_SHA256:-}
        is_sha256 "$expected" ||
            fail "MASTERMIND_HOOKS_RELEASE_URL needs MASTERMIND_HOOKS_RELEASE_SHA256, the 64 lowercase hex digits of mastermind-hooks-<target>.tar.gz (its line in the release's SHA256SUMS): nothing unverified is installed"
        t=$(target) || fail "no release binary for $(uname -sm)"
        name=mastermind-hooks-$t.tar.gz
        url=${MASTERMIND_HOOKS_RELEASE_URL%/}/$name
        cached=$cache_root/release-$expected/$name
        workdir
        if [ -f "$cached" ]; then
            # Copied out first, so what is checked is what is unpacked.
            cp "$cached" "$work/$name" || fail "cannot read $cached"
            if [ "$(sha256_of "$work/$name")" != "$expected" ]; then
                warn "the cached download $cached does not match the pinned sha256: discarded, downloading again"
                rm -f "$cached" "$work/$name"
            fi
        fi
        if [ ! -f "$work/$name" ]; then
            download "$url" "$work/$name" || fail "cannot download $url"
            actual=$(sha256_of "$work/$name")
            [ "$actual" = "$expected" ] || fail "$url has sha256 $actual, not the pinned $expected: refused"
            mkdir -p "$(dirname "$cached")" && cp "$work/$name" "$cached" || warn "cannot keep the download in $cached"
        fi
        mkdir -p "$work/release" && tar -xzf "$work/$name" -C "$work/release" mastermind-hooks ||
            fail "cannot unpack $url"
        bin=$work/release/mastermind-hooks
        printf 'mastermind-hooks: using the release binary %s (sha256 %s, pinned)\n' "$url" "$expected" >&2
        return
    fi
    if [ -n "${MASTERMIND_HOOKS_SOURCE_URL:-}" ]; then
        rev=${MASTERMIND_HOOKS_SOURCE_REV:-}
        case "$rev" in
            '' | *[!0-9a-f]*) fail "MASTERMIND_HOOKS_SOURCE_REV must be the full commit id to build (40 or 64 lowercase hex digits), not '$rev': a branch or tag can move" ;;
        esac
        [ "${#rev}" = 40 ] || [ "${#rev}" = 64 ] || fail "MASTERMIND_HOOKS_SOURCE_REV must be a full commit id, not '$rev'"
        cached=$cache_root/$rev/bin/mastermind-hooks
        cached_build "$cached" && return
        workdir
        # The source's object format is the pinned id's: a SHA-256 project
        # cannot be fetched into a SHA-1 repository.
        format=sha1
        [ "${#rev}" = 64 ] && format=sha256
        git init -q --object-format="$format" "$work/src" &&
            git -C "$work/src" fetch -q --depth 1 "$MASTERMIND_HOOKS_SOURCE_URL" "$rev" 2>/dev/null ||
            git -C "$work/src" fetch -q "$MASTERMIND_HOOKS_SOURCE_URL" '+refs/heads/*:refs/remotes/source/*' '+refs/tags/*:refs/tags/*' ||
            fail "cannot fetch $MASTERMIND_HOOKS_SOURCE_URL"
        git -C "$work/src" -c advice.detachedHead=false checkout -q "$rev" ||
            fail "$MASTERMIND_HOOKS_SOURCE_URL has no commit $rev"
        build "$work/src"
        keep_build "$cached"
        return
    fi
    if [ -n "${MASTERMIND_HOOKS_SOURCE:-}" ] && [ -f "$MASTERMIND_HOOKS_SOURCE/Cargo.toml" ]; then
        src=$(cd "$MASTERMIND_HOOKS_SOURCE" && pwd -P)
        if in_project "$src/Cargo.toml"; then
            fail "MASTERMIND_HOOKS_SOURCE '$MASTERMIND_HOOKS_SOURCE' lies inside the project directory, so the change would build its own gate: refused"
        fi
        cached=$cache_root/source/bin/mastermind-hooks
        cached_build "$cached" && return
        build "$src"
        keep_build "$cached"
        return
    fi
    fail "no mastermind-hooks binary: set MASTERMIND_HOOKS_RELEASE_URL and MASTERMIND_HOOKS_RELEASE_SHA256 (a release, in seconds), MASTERMIND_HOOKS_SOURCE_URL and MASTERMIND_HOOKS_SOURCE_REV (a pinned source to build), or MASTERMIND_HOOKS_BIN, or use an image with mastermind-hooks on PATH"
}

# 0 and 1 are the gate's answers; anything else (2, a crash, a missing binary) is "could not check".
normalize() {
    case "$1" in
        0 | 1) printf '%s' "$1" ;;
        *) printf '2' ;;
    esac
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
rerun_jobs=${MASTERMIND_HOOKS_RERUN_JOBS:-}
case "$rerun_jobs" in
    *[!0-9]* | 0) fail "MASTERMIND_HOOKS_RERUN_JOBS must be a positive number, not '$rerun_jobs'" ;;
esac
rerun_in=${MASTERMIND_HOOKS_RERUN_IN:-}
case "$rerun_in" in
    '' | auto | workspace | worktree) ;;
    *) fail "MASTERMIND_HOOKS_RERUN_IN must be auto, workspace or worktree, not '$rerun_in'" ;;
esac
attestation=${MASTERMIND_HOOKS_ATTESTATION:-}
if [ -n "$attestation" ] && [ "$rerun" != true ]; then
    fail "MASTERMIND_HOOKS_ATTESTATION needs MASTERMIND_HOOKS_RERUN: \"true\": the statement describes the re-run; set both, or remove MASTERMIND_HOOKS_ATTESTATION"
fi
base_report=${MASTERMIND_HOOKS_DEFAULT_BRANCH_REPORT:-state}
case "$base_report" in
    state | push) ;;
    *) fail "MASTERMIND_HOOKS_DEFAULT_BRANCH_REPORT must be state or push, not '$base_report'" ;;
esac

resolve_bin

# The binary's digest now; checked again before each run, so nothing that runs in between
# (a re-run check of the change) can swap it.
verified=$(sha256_of "$bin")
run_gate() {
    now=$(sha256_of "$bin")
    if [ "$now" != "$verified" ]; then
        printf 'error: mastermind-hooks: the gate binary %s has sha256 %s, not the %s it had when it was verified: refused\n' "$bin" "$now" "$verified" >&2
        return 2
    fi
    "$bin" "$@"
}

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
        [ -z "$rerun_jobs" ] || set -- "$@" --rerun-jobs "$rerun_jobs"
        [ -z "$rerun_in" ] || set -- "$@" --rerun-in "$rerun_in"
        [ -z "$attestation" ] || set -- "$@" --attestation "$attestation"
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

# With rerun the checks run in this workspace when it is a clean checkout of what lands: the
# job's cache directory is the job's, not the change's, so the clone's own exclude file names
# it (only it) for git status. A commit that tracks it was refused above.
if [ "$rerun" = true ] && [ -z "${MASTERMIND_HOOKS_CMD:-}" ] &&
    exclude=$(git -C "$project" rev-parse --git-path info/exclude 2>/dev/null); then
    case "$exclude" in /*) ;; *) exclude=$project/$exclude ;; esac
    if ! grep -qxF '/.mastermind-hooks/' "$exclude" 2>/dev/null; then
        { mkdir -p "$(dirname "$exclude")" && printf '/.mastermind-hooks/\n' >>"$exclude"; } ||
            warn "cannot add .mastermind-hooks/ to $exclude; a re-run may use a worktree instead of the workspace"
    fi
fi

# GitLab renders colours in job logs; NO_COLOR turns them off.
if [ -n "${NO_COLOR:-}" ]; then color=never; else color=always; fi

# One run writes the log and both reports, when it ends; none is left from before.
rm -f "$codequality" "$junit"
# GitLab runs job scripts with `set -e`: every status is caught, never fatal.
rc=0
run_gate "$@" --format human --color "$color" --output "gitlab=$codequality" --output "junit=$junit" || rc=$?
status=$(normalize "$rc")
if [ ! -f "$codequality" ] || [ ! -f "$junit" ]; then
    # The gate stopped before it could write them (a refused option, a crash): the reports
    # say so, and a run without its reports is never a pass.
    status=2
    reports_could_not_check "the gate exited with status $rc without writing its reports; the job log says why"
fi

# The default branch's Code Quality report is what merge requests are compared with, so it
# states main's open findings, not the last push's: the gate only lets through what passes,
# so none. Findings of the push itself are in the log and the JUnit report above.
if [ "$base_report" = state ] && [ -z "${MASTERMIND_HOOKS_CMD:-}" ] &&
    [ "${CI_PIPELINE_SOURCE:-}" != merge_request_event ] && [ -n "${CI_DEFAULT_BRANCH:-}" ] &&
    [ "${CI_COMMIT_BRANCH:-}" = "$CI_DEFAULT_BRANCH" ]; then
    if grep -q '"severity": "minor"' "$codequality"; then warned=true; else warned=false; fi
    printf '[]\n' >"$codequality"
    printf 'mastermind-hooks: the Code Quality report of the default branch states main'"'"'s open findings (none); this push'"'"'s findings are above and in the JUnit report\n' >&2
else
    warned=
fi

if [ "$status" = 2 ] && [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    printf 'error: mastermind-hooks: this is a shallow clone, so the base may be missing from it: set the variable GIT_DEPTH: "0" on this job\n' >&2
fi

# fail-on warning: warnings are the Code Quality issues of severity "minor".
if [ -z "$warned" ]; then
    if grep -q '"severity": "minor"' "$codequality"; then warned=true; else warned=false; fi
fi
if [ "$status" = 0 ] && [ "$fail_on" = warning ] && [ "$warned" = true ]; then
    printf 'error: mastermind-hooks: warnings found and MASTERMIND_HOOKS_FAIL_ON is warning\n' >&2
    status=1
fi
exit "$status"
