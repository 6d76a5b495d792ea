#!/bin/sh
# mastermind-hooks gate for GitHub Actions (called by action.yml; runs locally too).
#
#   run.sh prepare   where a source build is cached: outputs cache-dir and cache-key
#   run.sh install   find or make the binary: outputs bin and its sha256 (or error); never
#                    fails the step, so the gate step always runs and always sets exit-code
#   run.sh           the gate: one `mastermind-hooks check --ci --format github` run prints
#                    annotations, appends a job summary to $GITHUB_STEP_SUMMARY and, from the
#                    same run, writes a SARIF log (`--output sarif=FILE`) and the re-run's
#                    attestation, so every check runs once and every output states one
#                    verdict; it exits with the gate's status: 0 pass,
#                    1 violations, 2 could not check (any other outcome of the binary is
#                    reported as 2, never as a pass). exit-code is written to $GITHUB_OUTPUT
#                    however the script ends.
#
# The binary is part of the trust base: it is kept where the change under judgement cannot
# write it ($RUNNER_TEMP, the tool cache), never in the workspace, and its sha256 is checked
# before every run of it. First found:
#   1. MASTERMIND_HOOKS_BIN (input binary-path), then `mastermind-hooks` on PATH: refused
#      when it lies inside $GITHUB_WORKSPACE (the checkout could have brought it) unless
#      MASTERMIND_HOOKS_BIN_SHA256 (input binary-sha256) pins it.
#   2. The release: when a version is known (input version, else the tag the action is used
#      at, github.action_ref, which action.yml passes as MASTERMIND_HOOKS_ACTION_REF because
#      GitHub leaves GITHUB_ACTION_REF empty in composite run steps: actions/runner issue
#      2473) or a download location is given (input download-url, else the variable
#      MASTERMIND_HOOKS_DOWNLOAD_URL; default
#      $GITHUB_SERVER_URL/<action repository>/releases/download/<version>, the repository from
#      github.action_repository, else from where the runner checked the action out). It downloads
#      mastermind-hooks-<target>.tar.gz, checks it against MASTERMIND_HOOKS_RELEASE_SHA256
#      (input sha256) or else the release's SHA256SUMS (`<sha256>  <file>` lines), keeps the
#      download in the tool cache (checked again on every use) and unpacks it into a fresh
#      directory of $RUNNER_TEMP. A mismatch is exit 2, never a fallback.
#   3. This action's own source, `cargo install --locked` into $RUNNER_TEMP (run outside the
#      workspace, so no .cargo/config.toml or rust-toolchain.toml of the change applies),
#      saved with actions/cache. A cached build is used only when binary-sha256 pins it, or
#      on a push, schedule or dispatch run of the default branch, whose cache scope only the
#      default branch's own runs write; elsewhere (a pull request's other jobs can write its
#      cache scope) it is built again.
#
# Environment of the gate (the action maps its inputs to these):
#   MASTERMIND_HOOKS_BASE / _HEAD  --base / --head (default: from the event; in CI an override
#                                  that disagrees with the event is refused by check --ci)
#   MASTERMIND_HOOKS_FORMAT        log format: github (default), human or json
#   MASTERMIND_HOOKS_FAIL_ON       error (default) or warning
#   MASTERMIND_HOOKS_REQUIRE_TASK  true: every change outside .mastermind/ must belong to a
#                                  checked task (read by check)
#   MASTERMIND_HOOKS_SARIF_FILE    also write a SARIF log to this file, from the same run (not
#                                  kept when exit 2)
#   MASTERMIND_HOOKS_MAX_ANNOTATIONS  annotations of each kind (default 10, GitHub's per-step cap)
#   MASTERMIND_HOOKS_RERUN         true: `--rerun --rerun-timeout MASTERMIND_HOOKS_RERUN_TIMEOUT`
#   MASTERMIND_HOOKS_RERUN_JOBS    with rerun: checks of different tasks at once (--rerun-jobs)
#   MASTERMIND_HOOKS_RERUN_IN      with rerun: auto (default), workspace or worktree (--rerun-in)
#   MASTERMIND_HOOKS_ATTESTATION   with rerun: write the in-toto statement of the re-run to this
#                                  file (--attestation; its directory must exist); refused
#                                  without rerun
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

say_warning() {
    printf '::warning title=mastermind-hooks::%s\n' "$(escape_data "$1")"
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

# True for 64 lowercase hex digits.
is_sha256() {
    case "$1" in '' | *[!0-9a-f]*) return 1 ;; esac
    [ "${#1}" = 64 ]
}

# The digest of $2 in a SHA256SUMS file $1 (`<sha256>  <name>`, or `<sha256> *<name>`).
sum_of() {
    awk -v name="$2" '($2 == name || $2 == "*" name) && NF == 2 { print $1; exit }' "$1"
}

# Where the job keeps what it downloads and builds: never the workspace.
temp_root() {
    printf '%s' "${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
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

# True when $1 lies inside the workspace the change was checked out into.
in_workspace() {
    [ -n "${GITHUB_WORKSPACE:-}" ] || return 1
    ws=$(cd "$GITHUB_WORKSPACE" 2>/dev/null && pwd -P) || return 1
    p=$(physical "$1") || p=$1
    case "$p" in "$ws" | "$ws"/*) return 0 ;; esac
    return 1
}

# This action's source: two directories above this script, found at run time (in a
# `container:` job GitHub's expressions name the host's path, this names the container's).
source_dir() {
    (cd "$(dirname "$0")/../.." 2>/dev/null && pwd -P)
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

# A key for the build of this source on this platform: the bytes of everything cargo reads,
# and the compiler that builds them.
source_key() {
    src=$1
    sum=$( (cd "$src" && find Cargo.toml Cargo.lock src schemas hooks -type f 2>/dev/null |
        LC_ALL=C sort | while IFS= read -r f; do printf '%s  %s\n' "$(sha256_of "$f")" "$f"; done
        rustc -V 2>/dev/null) | sha256_of)
    printf 'mastermind-hooks-%s-%s-%s-%s' "$(uname -s)" "$(uname -m)" "$(libc)" "$sum"
}

# The version of the release route: the input, else the tag the action is used at.
release_version() {
    if [ -n "${MASTERMIND_HOOKS_RELEASE_VERSION:-}" ]; then
        printf '%s' "$MASTERMIND_HOOKS_RELEASE_VERSION"
        return
    fi
    ref=${MASTERMIND_HOOKS_ACTION_REF:-${GITHUB_ACTION_REF:-}}
    case "$ref" in v[0-9]*) printf '%s' "$ref" ;; esac
}

# The download directory of the release route, or nothing when there is none.
release_url() {
    url=${MASTERMIND_HOOKS_DOWNLOAD_URL_INPUT:-${MASTERMIND_HOOKS_DOWNLOAD_URL:-}}
    if [ -n "$url" ]; then
        printf '%s' "${url%/}"
        return
    fi
    version=$(release_version)
    repository=${MASTERMIND_HOOKS_ACTION_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-}}
    if [ -z "$repository" ]; then
        # The runner checks an action out at .../_actions/<owner>/<repository>/<ref>/.
        src=$(source_dir) || src=
        case "$src" in
            */_actions/*/*/*) repository=$(basename "$(dirname "$(dirname "$src")")")/$(basename "$(dirname "$src")") ;;
        esac
    fi
    [ -n "$version" ] && [ -n "$repository" ] || return 0
    printf '%s/%s/releases/download/%s' "${GITHUB_SERVER_URL:-https://github.com}" "$repository" "$version"
}

prepare() {
    if [ -n "${MASTERMIND_HOOKS_BIN:-}" ] || command -v mastermind-hooks >/dev/null 2>&1 || [ -n "$(release_url)" ]; then
        exit 0
    fi
    src=$(source_dir) || exit 0
    [ -f "$src/Cargo.toml" ] || exit 0
    key=$(source_key "$src")
    output cache-dir "$(temp_root)/mastermind-hooks-build/$key"
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

# Record the binary the gate step runs and its digest, and end the install step.
installed() {
    output bin "$1"
    output sha256 "$(sha256_of "$1")"
    [ -z "${2:-}" ] || output built "$2"
    exit 0
}

# A binary the job did not make: binary-path or PATH.
use_given() {
    given=$1
    what=$2
    if [ ! -f "$given" ] || [ ! -x "$given" ]; then
        install_failed "$what '$given' is not an executable file"
    fi
    pin=${MASTERMIND_HOOKS_BIN_SHA256:-}
    if [ -n "$pin" ]; then
        is_sha256 "$pin" || install_failed "binary-sha256 must be 64 lowercase hex digits, not '$pin'"
        actual=$(sha256_of "$given")
        [ "$actual" = "$pin" ] || install_failed "$what '$given' has sha256 $actual, not the pinned binary-sha256 $pin: refused"
    elif in_workspace "$given"; then
        install_failed "$what '$given' lies inside the workspace, which the change under judgement supplies: refused. Install the gate outside \$GITHUB_WORKSPACE, or pin it with binary-sha256"
    fi
    installed "$given"
}

# The release binary, verified; sets $bin. False when there is no release route.
install_release() {
    url=$(release_url)
    [ -n "$url" ] || return 1
    version=$(release_version)
    t=$(target) || install_failed "no release binary for $(uname -sm): pass binary-path, or use the action without a version to build it"
    name=mastermind-hooks-$t.tar.gz
    pin=${MASTERMIND_HOOKS_RELEASE_SHA256:-}
    work=$(mktemp -d "$(temp_root)/mastermind-hooks.XXXXXX") || install_failed "cannot create a directory in $(temp_root)"
    if [ -n "$pin" ]; then
        is_sha256 "$pin" || install_failed "sha256 must be the 64 lowercase hex digits of $name, not '$pin'"
        expected=$pin
        source="the pinned sha256"
    else
        download "$url/SHA256SUMS" "$work/SHA256SUMS" ||
            install_failed "cannot download $url/SHA256SUMS to verify $name: check version and download-url, or pin the sha256 input"
        expected=$(sum_of "$work/SHA256SUMS" "$name")
        is_sha256 "$expected" || install_failed "$url/SHA256SUMS lists no sha256 for $name"
        source="$url/SHA256SUMS"
    fi
    # The tool cache keeps the download between jobs of a self-hosted runner; whatever it
    # holds is checked like a fresh download.
    slot=$(printf '%s' "$url" | sha256_of | cut -c1-16)
    cached=${RUNNER_TOOL_CACHE:-$(temp_root)}/mastermind-hooks/$slot/$name
    if [ -f "$cached" ] && [ "$(sha256_of "$cached")" != "$expected" ]; then
        say_warning "the cached download $cached does not match $source: discarded, downloading again"
        rm -f "$cached"
    fi
    if [ ! -f "$cached" ]; then
        download "$url/$name" "$work/$name" || install_failed "cannot download $url/$name"
        actual=$(sha256_of "$work/$name")
        [ "$actual" = "$expected" ] ||
            install_failed "the release binary $url/$name does not match $source ($actual, expected $expected): refused, nothing was installed"
        mkdir -p "$(dirname "$cached")" && cp "$work/$name" "$cached.$$" && mv "$cached.$$" "$cached" || cached=$work/$name
    fi
    mkdir -p "$work/bin" && tar -xzf "$cached" -C "$work/bin" mastermind-hooks ||
        install_failed "cannot unpack $name"
    bin=$work/bin/mastermind-hooks
    # The archive was verified; the binary it holds must be that release.
    if [ -n "$version" ]; then
        said=$("$bin" --version 2>/dev/null) || said=
        case " $said" in
            *" ${version#v}") ;;
            *) install_failed "$url/$name holds '$said', not mastermind-hooks ${version#v}: refused" ;;
        esac
    fi
    printf 'mastermind-hooks: using the release binary %s (sha256 %s, checked against %s)\n' "$url/$name" "$expected" "$source" >&2
}

# A cached source build may be used: pinned, or restored on the default branch.
cache_trusted() {
    [ -n "${MASTERMIND_HOOKS_BIN_SHA256:-}" ] && return 0
    case "${GITHUB_EVENT_NAME:-}" in push | schedule | workflow_dispatch) ;; *) return 1 ;; esac
    [ -n "${MASTERMIND_HOOKS_DEFAULT_BRANCH:-}" ] && [ "${GITHUB_REF:-}" = "refs/heads/$MASTERMIND_HOOKS_DEFAULT_BRANCH" ]
}

install() {
    if [ -n "${MASTERMIND_HOOKS_BIN:-}" ]; then
        use_given "$MASTERMIND_HOOKS_BIN" binary-path
    fi
    if command -v mastermind-hooks >/dev/null 2>&1; then
        use_given "$(command -v mastermind-hooks)" "the mastermind-hooks on PATH"
    fi
    if install_release; then
        installed "$bin"
    fi
    src=$(source_dir) || src=
    if [ -z "$src" ] || [ ! -f "$src/Cargo.toml" ]; then
        install_failed "no mastermind-hooks binary: use the action at a release tag or with the version input, pass binary-path, or put mastermind-hooks on PATH"
    fi
    if in_workspace "$src"; then
        install_failed "this action's source lies inside the workspace (uses: ./...), so the change under judgement would build its own gate: use the action from its repository, pinned, with the version input"
    fi
    dir=${MASTERMIND_HOOKS_CACHE_DIR:-$(temp_root)/mastermind-hooks-build/local}
    pin=${MASTERMIND_HOOKS_BIN_SHA256:-}
    if [ -n "$pin" ] && ! is_sha256 "$pin"; then
        install_failed "binary-sha256 must be 64 lowercase hex digits, not '$pin'"
    fi
    cached=$dir/bin/mastermind-hooks
    if [ -f "$cached" ]; then
        actual=$(sha256_of "$cached")
        if ! cache_trusted; then
            printf 'mastermind-hooks: the cached build is not used: this run'"'"'s cache scope can be written by the change'"'"'s other jobs (pin binary-sha256 to reuse a build)\n' >&2
            rm -rf "$dir"
        elif [ -n "$pin" ] && [ "$actual" != "$pin" ]; then
            say_warning "the cached build has sha256 $actual, not the pinned binary-sha256 $pin: discarded, building again"
            rm -rf "$dir"
        elif [ -x "$cached" ]; then
            printf 'mastermind-hooks: using the cached build %s (sha256 %s)\n' "$cached" "$actual" >&2
            installed "$cached"
        fi
    fi
    command -v cargo >/dev/null 2>&1 ||
        install_failed "building mastermind-hooks from source needs cargo: use the action at a release tag (or pass the version input) to download a release in seconds, set up Rust first (for example dtolnay/rust-toolchain), or pass binary-path"
    work=$(mktemp -d "$(temp_root)/mastermind-hooks-target.XXXXXX") || install_failed "cannot create a directory in $(temp_root)"
    printf '::group::Building mastermind-hooks from %s (once per source and platform; cached)\n' "$src"
    # From the source directory, never the workspace: cargo and rustup read configuration
    # (.cargo/config.toml, rust-toolchain.toml) from the directory they run in.
    if ! (cd "$src" && CARGO_TARGET_DIR=$work cargo install --locked --root "$dir" --path "$src" >&2); then
        printf '::endgroup::\n'
        install_failed "cargo install --path '$src' failed (the build log is above)"
    fi
    printf '::endgroup::\n'
    rm -rf "$work"
    actual=$(sha256_of "$cached")
    if [ -n "$pin" ] && [ "$actual" != "$pin" ]; then
        say_warning "this build of $src has sha256 $actual, not binary-sha256 $pin (a new toolchain?): update the pin"
    elif [ -z "$pin" ]; then
        printf 'mastermind-hooks: built %s with sha256 %s; pin it as binary-sha256 to reuse it from the cache on every branch\n' "$cached" "$actual" >&2
    fi
    installed "$cached" true
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
rerun_jobs=${MASTERMIND_HOOKS_RERUN_JOBS:-}
case "$rerun_jobs" in
    *[!0-9]* | 0) fail "rerun-jobs must be a positive number, not '$rerun_jobs'" ;;
esac
rerun_in=${MASTERMIND_HOOKS_RERUN_IN:-}
case "$rerun_in" in
    '' | auto | workspace | worktree) ;;
    *) fail "rerun-in must be auto, workspace or worktree, not '$rerun_in'" ;;
esac
attestation=${MASTERMIND_HOOKS_ATTESTATION:-}
if [ -n "$attestation" ] && [ "$rerun" != true ]; then
    fail "attestation needs rerun: true (the statement describes the re-run): set rerun, or remove attestation"
fi

[ -z "${MASTERMIND_HOOKS_INSTALL_ERROR:-}" ] || fail "$MASTERMIND_HOOKS_INSTALL_ERROR"
bin=${MASTERMIND_HOOKS_BIN:-}
if [ -z "$bin" ]; then
    bin=$(command -v mastermind-hooks 2>/dev/null) ||
        fail "no mastermind-hooks binary: pass binary-path, or put mastermind-hooks on PATH"
fi
if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
    fail "binary-path '$bin' is not an executable file"
fi
# The digest the install step recorded (or, run alone, the binary's digest now): checked
# before every run, so nothing that runs in between (a re-run check) can swap the binary.
verified=${MASTERMIND_HOOKS_VERIFIED_SHA256:-$(sha256_of "$bin")}
run_gate() {
    now=$(sha256_of "$bin")
    if [ "$now" != "$verified" ]; then
        say_error "the gate binary $bin has sha256 $now, not the $verified it had when it was installed: refused"
        return 2
    fi
    "$bin" "$@"
}

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
        [ -z "$rerun_jobs" ] || set -- "$@" --rerun-jobs "$rerun_jobs"
        [ -z "$rerun_in" ] || set -- "$@" --rerun-in "$rerun_in"
        [ -z "$attestation" ] || set -- "$@" --attestation "$attestation"
    fi
fi

log=$(mktemp) || fail "cannot create a temporary file"

# One run: annotations and the job summary (--format github appends it to
# $GITHUB_STEP_SUMMARY), the SARIF log and the attestation, all from the same report.
if [ "$format" = github ]; then
    set -- "$@" --format github --max-annotations "$max_annotations"
else
    set -- "$@" --format "$format"
fi
sarif=${MASTERMIND_HOOKS_SARIF_FILE:-}
if [ -n "$sarif" ]; then
    # An empty directory is nothing to git, so it cannot keep a re-run out of the workspace.
    mkdir -p "$(dirname "$sarif")" || fail "cannot create the directory of sarif-file '$sarif'"
    rm -f "$sarif"
    set -- "$@" --output "sarif=$sarif"
fi
rc=0
run_gate "$@" >"$log" || rc=$?
status=$(normalize "$rc")
cat "$log"

if [ -n "$sarif" ] && [ "$status" = 2 ]; then
    # An analysis of a run that could not check lists no results, and uploading it would
    # close every open alert: no file, so the upload step (hashFiles) skips.
    rm -f "$sarif"
    printf '::notice title=mastermind-hooks::%s\n' "no SARIF written: the gate could not check, and an empty analysis would close open alerts"
elif [ -n "$sarif" ] && [ ! -f "$sarif" ]; then
    say_error "the gate exited with status $rc without writing the SARIF log $sarif"
    status=2
fi

if [ "$status" = 2 ] && [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    say_error "this is a shallow clone, so the base may be missing from it: set 'fetch-depth: 0' on actions/checkout"
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
