#!/usr/bin/env python3
"""The benchmark harness: one run, every row side by side with its physical
limits (git itself, openssl, ajv-cli), medians and ratios, peak memory.

usage: bench/run.py [--sizes small,limit,large] [--runs N] [--rounds N] [--tasks N] [--folders N]
                    [--formats reftable,sha256] [--merges N] [--budgets-only] [--out bench/RESULTS.md]

Every budget of DESIGN.md section 8 / issues 18 and 53 is a row of the "budgets"
table: the command, its floor (git's own read of the same data, or openssl), both
measured side by side in the same hyperfine calls, the ratio against the limit and
its spread over the calls. `--merges N` adds the generated history of N merges
(bench/gen_merges.py): check --ci and a pre-receive push of it beside git log --raw. `--tasks N`
adds the many-tasks row (N tasks with distinct baselines, bench/gen_tasks.py);
`--folders N` the rows of one commit touching N and 2N task folders
(bench/gen_folders.py), whose ratio shows how the cost grows.

Needs hyperfine (Debian: apt install hyperfine), git, openssl, python3; ajv-cli
is installed into bench/work/ on first use when npm can reach its registry (the
row is marked n/a otherwise). The binary is the one `cargo build --release`
builds (under $CARGO_TARGET_DIR when set, else target/release/). Repositories are generated
deterministically under bench/work/ and reused across runs.
"""
import argparse
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORK = os.path.join(HERE, "work")
SIZES = {
    "small": (200, 2 * 1024 * 1024),
    "limit": (10_000, 64 * 1024 * 1024),
    "large": (100_000, 640 * 1024 * 1024),
}
# Set by build(): the executable cargo reports it built, and the one
# heaptrack runs (the same: a dynamically linked binary, whose heap heaptrack
# counts through LD_PRELOAD).
BIN = "mastermind-hooks"
HEAP_BIN = None
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def sh(cmd, cwd=None, check=True, env=None, capture=False):
    full_env = dict(os.environ, **GIT_ENV, **(env or {}))
    return subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), check=check, env=full_env,
                          stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                          stderr=subprocess.PIPE if capture else subprocess.DEVNULL, text=True)


def has(tool):
    return shutil.which(tool) is not None


def cargo_executable(env=None):
    """Build the release binary and return where cargo says it wrote it
    (target/release/ unless CARGO_TARGET_DIR says otherwise)."""
    out = sh(["cargo", "build", "--release", "--locked", "--message-format=json"], cwd=ROOT,
             capture=True, env=env).stdout
    found = None
    for line in out.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message.get("executable") \
                and message["target"]["name"] == "mastermind-hooks":
            found = message["executable"]
    if not found or not os.path.isfile(found):
        sys.exit(f"cargo built no mastermind-hooks executable ({env or 'default flags'})")
    return found


# Build settings in question, measured with `--variant` beside the
# conventional build and never what ships: the environment cargo builds each
# with, into a target directory of its own (docs/src/development.md,
# Benchmarks).
VARIANTS = {
    "fat-lto": {"CARGO_PROFILE_RELEASE_LTO": "fat", "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "1"},
}


def build(variant=None):
    global BIN, HEAP_BIN
    env = None
    if variant:
        env = dict(VARIANTS[variant], CARGO_TARGET_DIR=os.path.join(WORK, f"target-{variant}"))
    BIN = cargo_executable(env)
    if has("heaptrack"):
        HEAP_BIN = BIN


def build_label(variant=None):
    """What the results say of the build they measured."""
    if not variant:
        return "`cargo build --release` (the conventional profile)"
    settings = " ".join(f"{k}={v}" for k, v in VARIANTS[variant].items())
    return f"`{settings} cargo build --release` (the {variant} variant, not what ships)"


# The repository formats `--formats` measures beside the default one (files
# refs, SHA-1 ids): git's defaults while the generator runs, so each is the
# same content in another format (issue 51).
FORMATS = {
    "reftable": {"GIT_DEFAULT_REF_FORMAT": "reftable"},
    "sha256": {"GIT_DEFAULT_HASH": "sha256"},
    "reftable+sha256": {"GIT_DEFAULT_REF_FORMAT": "reftable", "GIT_DEFAULT_HASH": "sha256"},
}


def repo_for(size, kind=None):
    suffix = f"-{kind.replace('+', '-')}" if kind else ""
    path = os.path.join(WORK, f"repo-{size}{suffix}")
    if not os.path.isdir(os.path.join(path, ".git")):
        # Built aside and moved into place only when complete: a generator
        # that failed halfway (its receipt step runs the binary) must not
        # leave a repository the next run would take as ready.
        files, total = SIZES[size]
        partial = path + ".partial"
        shutil.rmtree(partial, ignore_errors=True)
        sh([sys.executable, os.path.join(HERE, "gen_repo.py"), partial, str(files), str(total), BIN],
           env=FORMATS.get(kind) if kind else None)
        os.rename(partial, path)
    return path


def formats_rows(size, formats, runs):
    """The budgets on the same content in other repository formats, each
    beside git on that repository: (format, what git says it is, budget rows)."""
    out = []
    for kind in formats:
        repo = repo_for(size, kind)
        said = " ".join(sh(["git", "rev-parse", what], cwd=repo, capture=True).stdout.strip()
                        for what in ["--show-ref-format", "--show-object-format"])
        out.append((kind, said, budget_rows(repo, runs)))
    return out


def supports(*args):
    """True when the built binary knows this subcommand/flag."""
    return sh([BIN, *args, "--help"], check=False).returncode == 0


def hyperfine(name, command, cwd, runs, prepare=None, warmup=2, shell="none"):
    return hyperfine_many(name, [command], cwd, runs, prepare, warmup, shell)[0]


# Hyperfine calls each comparison is split into (`--rounds`).
ROUNDS = 3


def hyperfine_many(name, commands, cwd, runs, prepare=None, warmup=2, shell="none", env=None):
    """Medians of several commands measured side by side: on a shared
    machine the rows a budget compares must be measured under the same load.
    The runs are split into ROUNDS hyperfine calls, the commands' order
    reversed every other call, and each median is taken over all of a
    command's runs, so a machine that speeds up or slows down within the
    measurement weighs on both sides alike. `env` is added to every
    command's environment."""
    per_round = max(3, -(-runs // ROUNDS))
    times = [[] for _ in commands]
    rounds = [[] for _ in commands]
    for round_ in range(ROUNDS):
        order = list(range(len(commands)))
        if round_ % 2:
            order.reverse()
        out = tempfile.mktemp(suffix=".json")
        cmd = ["hyperfine", "--export-json", out, "--runs", str(per_round), "--warmup", str(warmup),
               "--ignore-failure", "-N" if shell == "none" else "--shell=sh"]
        if prepare:
            cmd += ["--prepare", prepare]
            if shell == "none":
                cmd.remove("-N")
                cmd.append("--shell=sh")
        cmd.extend(commands[i] for i in order)
        result = sh(cmd, cwd=cwd, check=False, capture=True, env=env)
        if result.returncode != 0 or not os.path.exists(out):
            print(f"  {name}: hyperfine failed: {result.stderr.strip()[:200]}", file=sys.stderr)
            return [None] * len(commands)
        with open(out) as fh:
            results = json.load(fh)["results"]
        os.unlink(out)
        for i, r in zip(order, results):
            times[i].extend(r["times"])
            rounds[i].append(statistics.median(r["times"]))
    medians = [statistics.median(t) for t in times]
    ROUND_MEDIANS[id_of(name, medians)] = rounds
    return medians


# Each call's per-round medians, by the call's name and medians
# (hyperfine_many): what the run-to-run spread of a ratio is taken from.
ROUND_MEDIANS = {}


def id_of(name, medians):
    return (name, tuple(medians))


def spread(name, medians, ours, floor):
    """The lowest and highest ratio of command `ours` to command `floor`
    (indexes into the call's commands) over the call's rounds, as text."""
    rounds = ROUND_MEDIANS.get(id_of(name, medians))
    if not rounds:
        return "n/a"
    ratios = [a / b for a, b in zip(rounds[ours], rounds[floor]) if b]
    return f"{min(ratios):.2f}-{max(ratios):.2f}x" if ratios else "n/a"


def peak_kib(command, cwd):
    """Peak resident set size of one run, from GNU time."""
    if not os.path.exists("/usr/bin/time"):
        return None
    result = sh(["/usr/bin/time", "-f", "%M", "sh", "-c", command], cwd=cwd, check=False, capture=True)
    try:
        return int(result.stderr.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def peak_heap_kib(command, cwd):
    """Peak heap of one run, from heaptrack when it is installed. Unlike the
    RSS this leaves out file pages mapped read-only (git's pack files), which
    the kernel can drop at any time."""
    if not has("heaptrack") or not has("heaptrack_print") or not HEAP_BIN:
        return None
    command = command.replace(BIN, HEAP_BIN, 1)
    out_dir = tempfile.mkdtemp()
    base = os.path.join(out_dir, "ht")
    try:
        subprocess.run(["heaptrack", "-o", base, *shlex.split(command)], cwd=cwd,
                       env=dict(os.environ, **GIT_ENV), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=300)
    except subprocess.TimeoutExpired:
        shutil.rmtree(out_dir, ignore_errors=True)
        return None
    files = [f for f in os.listdir(out_dir) if f.startswith("ht")]
    peak = None
    if files:
        report = sh(["heaptrack_print", os.path.join(out_dir, files[0])], check=False, capture=True).stdout
        for line in report.splitlines():
            if line.startswith("peak heap memory consumption:"):
                value = line.split(":", 1)[1].strip()
                units = {"B": 1 / 1024, "K": 1, "M": 1024, "G": 1024 * 1024}
                try:
                    peak = float(value[:-1]) * units[value[-1]]
                except (ValueError, KeyError):
                    peak = None
    shutil.rmtree(out_dir, ignore_errors=True)
    return peak


def mib(kib):
    return f"{kib / 1024:.1f} MiB" if kib else "n/a"


def tracked_files(repo):
    out = sh(["git", "ls-files", "-z"], cwd=repo, capture=True).stdout
    return [p for p in out.split("\0") if p and not p.startswith(".mastermind/")]


def openssl_commands(repo, work):
    files = tracked_files(repo)
    half = len(files) // 2
    lists = []
    for i, chunk in enumerate([files, files[:half], files[half:]]):
        path = os.path.join(work, f"files-{os.path.basename(repo)}-{i}.txt")
        with open(path, "w") as fh:
            fh.write("\n".join(chunk) + "\n")
        lists.append(path)
    one = f"xargs -a {lists[0]} openssl dgst -sha256 > /dev/null"
    two = (f"(xargs -a {lists[1]} openssl dgst -sha256 > /dev/null &"
           f" xargs -a {lists[2]} openssl dgst -sha256 > /dev/null; wait)")
    return one, two


def install_hooks(repo):
    hooks = os.path.join(repo, ".git", "hooks")
    os.makedirs(hooks, exist_ok=True)
    for name in os.listdir(hooks):
        if not name.endswith(".sample"):
            os.unlink(os.path.join(hooks, name))
    return hooks


def hooks_dir(name, pre_commit=None):
    """A hooks directory under bench/work/ for `git -c core.hooksPath=`:
    empty, or holding a `pre-commit` with the shell body `pre_commit`."""
    path = os.path.join(WORK, name)
    os.makedirs(path, exist_ok=True)
    if pre_commit is not None:
        hook = os.path.join(path, "pre-commit")
        with open(hook, "w") as fh:
            fh.write(f"#!/bin/sh\n{pre_commit}\n")
        os.chmod(hook, 0o755)
    return path


# The least any gate of what is staged does in its hook: git's own
# comparison of the index with HEAD (exec'd, as the installed shim execs
# the gate).
DIFF_HOOK = "exec git diff --cached --name-only >/dev/null"


def cache_dir(repo):
    common = sh(["git", "rev-parse", "--git-common-dir"], cwd=repo, capture=True).stdout.strip()
    return os.path.join(repo, common, "mastermind-hooks")


def gate_rows(repo, runs):
    rows = []
    cold = f"rm -rf {cache_dir(repo)}"
    status = hyperfine("status", "git status --porcelain", repo, runs)
    rows.append(("check --staged (cold)", hyperfine("staged-cold", f"{BIN} check --staged", repo, runs, prepare=cold)))
    rows.append(("check --ci (HEAD into HEAD~1)",
                 hyperfine("ci", f"{BIN} check --ci --base HEAD~1 --head HEAD", repo, runs)))
    rows.append(("tree-v2 digest, HEAD (cold, as CI)",
                 hyperfine("digest-cold", f"{BIN} digest --rev HEAD --no-cache", repo, runs)))
    rows.append(("tree-v2 digest, HEAD (warm cache)", hyperfine("digest", f"{BIN} digest --rev HEAD", repo, runs)))
    rows.append(("git status --porcelain", status))
    rows.append(("git diff --cached --name-only", hyperfine("diff", "git diff --cached --name-only", repo, runs)))
    one, two = openssl_commands(repo, WORK)
    rows.append(("openssl dgst -sha256, 1 process", hyperfine("openssl1", one, repo, max(3, runs // 3), shell="sh")))
    rows.append(("openssl dgst -sha256, 2 processes", hyperfine("openssl2", two, repo, max(3, runs // 3), shell="sh")))
    return rows


SPEC = ".mastermind/tasks/001-bench/spec.md"


def budget_rows(repo, runs):
    """The budgets, each as (name, ours, floor name, floor, limit, spread):
    the two commands of a row are measured in one hyperfine_many call, and
    the spread is the lowest and highest ratio over its rounds."""
    rows = []
    many = max(runs, 30)
    measured = hyperfine_many(
        "staged", [f"{BIN} check --staged", "git diff --cached --name-only"], repo, many)
    staged, diff = measured
    rows.append(("check --staged, warm", staged, "git diff --cached --name-only", diff, 1.5,
                 spread("staged", measured, 0, 1)))
    if supports("agent-hook", "stop"):
        payload = stop_payload(repo)
        measured = hyperfine_many(
            "stop", [f"{BIN} agent-hook stop --harness claude-code < {payload}",
                     "git status --porcelain"], repo, many, shell="sh")
        rows.append(("agent-hook stop (Claude Code payload, one task changed)", measured[0],
                     "git status --porcelain", measured[1], 1.1, spread("stop", measured, 0, 1)))
    measured = hyperfine_many(
        "worktree", [f"{BIN} check --worktree", f"{BIN} digest --worktree", "git status --porcelain"],
        repo, runs)
    worktree, digest_wt, status = measured
    rows.append(("check --worktree", worktree, "git status --porcelain", status, 1.2,
                 spread("worktree", measured, 0, 2)))
    rows.append(("digest --worktree", digest_wt, "git status --porcelain", status, 1.2,
                 spread("worktree", measured, 1, 2)))
    measured = hyperfine_many(
        "verification", [f"{BIN} verification run {SPEC} --id unit", "git status --porcelain"], repo, runs)
    rows.append(("verification run (two snapshots; the check is `true`)", measured[0],
                 "git status --porcelain", measured[1], 2.0, spread("verification", measured, 0, 1)))
    base = sh(["git", "rev-parse", "HEAD"], cwd=repo, capture=True).stdout.strip()
    install_hooks(repo)
    empty_hooks = hooks_dir("no-hooks")
    diff_hooks = hooks_dir("diff-hooks", DIFF_HOOK)
    sh([BIN, "install", "--hook", "pre-commit"], cwd=repo, check=False)
    measured = hyperfine_many(
        "commit", ["git commit -q -m bench", f"git -c core.hooksPath={diff_hooks} commit -q -m bench",
                   f"git -c core.hooksPath={empty_hooks} commit -q -m bench"],
        repo, runs, prepare=f"git reset -q --soft {base}")
    sh([BIN, "uninstall"], cwd=repo, check=False)
    sh(f"git reset -q --soft {base}", cwd=repo)
    hooked, differ_hooked, plain = measured
    rows.append(("git commit through the installed hook", hooked,
                 "git commit through a hook running git diff --cached --name-only", differ_hooked, 1.0,
                 spread("commit", measured, 0, 1)))
    rows.append(("git commit through the installed hook (beside no hook)", hooked, "git commit, no hook",
                 plain, 1.3, spread("commit", measured, 0, 2)))
    _, two = openssl_commands(repo, WORK)
    measured = hyperfine_many(
        "ci", [f"sh -c '{BIN} check --ci --base HEAD~1 --head HEAD > /dev/null'", two], repo,
        max(3, runs // 3), shell="sh")
    rows.append(("check --ci, cold (no cache, as CI)", measured[0], "openssl dgst -sha256, 2 processes",
                 measured[1], 0.7, spread("ci", measured, 0, 1)))
    return rows


def merges_rows(runs, merges=1000):
    """The generated history of `merges` merges (bench/gen_merges.py, the
    shape of issue 53's real history): `check --ci` over the whole range
    beside `git log --raw` of it, and a push of it to a bare repository
    judged by `check --receive` as its pre-receive hook (GitHub Enterprise
    Server allows 5 s) beside `git rev-list` of the pushed commits."""
    path = os.path.join(WORK, f"repo-merges-{merges}")
    if not os.path.isdir(os.path.join(path, ".git")):
        sh([sys.executable, os.path.join(HERE, "gen_merges.py"), path, "3000", str(merges)])
    rng = "bench-merges-base..main"
    measured = hyperfine_many(
        "merges-ci", [f"sh -c '{BIN} check --ci --base bench-merges-base --head main > /dev/null; test $? -le 1'",
                      f"git log --raw --no-renames {rng} > /dev/null"],
        path, max(3, runs // 3), shell="sh")
    ci, log = measured
    bare = path + "-receive.git"
    if not os.path.isdir(bare):
        sh(["git", "clone", "-q", "--bare", path, bare])
        old = sh(["git", "rev-parse", "bench-merges-base"], cwd=bare, capture=True).stdout.strip()
        new = sh(["git", "rev-parse", "main"], cwd=bare, capture=True).stdout.strip()
        with open(bare + ".input", "w") as fh:
            fh.write(f"{old} {new} refs/heads/main\n")
        # As during a real pre-receive: the branch still names the old tip.
        sh(["git", "update-ref", "refs/heads/main", old], cwd=bare)
    lines = bare + ".input"
    new = open(lines).read().split()[1]
    old = open(lines).read().split()[0]
    measured_push = hyperfine_many(
        "merges-receive", [f"{BIN} check --receive < {shlex.quote(lines)} 2>/dev/null; test $? -le 1",
                           f"git log --raw --no-renames {old}..{new} > /dev/null"],
        bare, max(3, runs // 3), shell="sh")
    receive, log2 = measured_push
    return [(f"check --ci over {merges:,} merges ({rng})", ci, "git log --raw of the range", log, 5.0,
             spread("merges-ci", measured, 0, 1)),
            (f"check --receive, push of {merges:,} merges (pre-receive)", receive, "git log --raw of the push",
             log2, 5.0, spread("merges-receive", measured_push, 0, 1))]


def floor_rows(repo, runs):
    """Where a staged check's time goes beyond git's, each pair measured
    side by side: starting the process (`--version`), a gate run with
    nothing staged (an index equal to HEAD, its cached trees all valid, in a
    temporary GIT_INDEX_FILE), which pays every fixed cost of the gate
    (discovery, configuration, the index read and checksummed, the views)
    but judges no task, a commit through a pre-commit hook that only exits
    0 (what git itself spends on any hook), and one through a hook that runs
    `git diff --cached` (the floor of any gate of what is staged). The full
    `check --staged` row above adds judging the one staged task."""
    many = max(runs, 30)
    ours_start, git_start = hyperfine_many("start", [f"{BIN} --version", "git --version"], repo, many)
    index = os.path.join(WORK, "head.index")
    env = {"GIT_INDEX_FILE": index}
    sh(["git", "read-tree", "HEAD"], cwd=repo, env=env)
    nothing, diff = hyperfine_many(
        "nothing-staged", [f"{BIN} check --staged", "git diff --cached --name-only"], repo, many, env=env)
    os.unlink(index)
    # What any pre-commit hook costs git before it does anything: git runs
    # it through a shell and reads the index again after it.
    base = sh(["git", "rev-parse", "HEAD"], cwd=repo, capture=True).stdout.strip()
    empty_hooks = hooks_dir("no-hooks")
    noop_hooks = hooks_dir("noop-hooks", "exit 0")
    # The commit budget is below the diff hook's floor wherever this row's
    # ratio is above it.
    diff_hooks = hooks_dir("diff-hooks", DIFF_HOOK)
    hooked, differ_hooked, plain = hyperfine_many(
        "noop-hook", [f"git -c core.hooksPath={noop_hooks} commit -q -m bench",
                      f"git -c core.hooksPath={diff_hooks} commit -q -m bench",
                      f"git -c core.hooksPath={empty_hooks} commit -q -m bench"],
        repo, runs, prepare=f"git reset -q --soft {base}")
    sh(f"git reset -q --soft {base}", cwd=repo)
    return [("process start", ours_start, "git --version", git_start),
            ("check --staged, nothing staged", nothing, "git diff --cached --name-only, same index", diff),
            ("git commit through a hook that only exits 0", hooked, "git commit, no hook", plain),
            ("git commit through a hook that runs git diff --cached --name-only", differ_hooked,
             "git commit, no hook", plain)]


def tasks_row(tasks, runs):
    """The many-tasks case: a gate run over the whole range of TASKS task
    commits (distinct baselines) on 20,000 files, beside git reading the
    same commits' changes."""
    path = os.path.join(WORK, f"repo-tasks-{tasks}")
    if not os.path.isdir(os.path.join(path, ".git")):
        sh([sys.executable, os.path.join(HERE, "gen_tasks.py"), path, "20000", str(tasks)])
    ours, floor = hyperfine_many(
        "tasks", [f"sh -c '{BIN} check --ci --base bench-base --head HEAD > /dev/null'",
                  "git log --raw --no-renames bench-base..HEAD"], path, max(3, runs // 3), shell="sh")
    heap = peak_heap_kib(f"{BIN} check --ci --base bench-base --head HEAD", path)
    rss = peak_kib(f"{BIN} check --ci --base bench-base --head HEAD", path)
    return ours, floor, heap, rss


def folders_rows(folders, runs):
    """One commit touching FOLDERS task folders and one touching twice as
    many, measured in one hyperfine call: the ratio says how the cost grows
    (2x linear, 4x quadratic)."""
    paths = []
    for n in (folders, 2 * folders):
        path = os.path.join(WORK, f"repo-folders-{n}")
        if not os.path.isdir(os.path.join(path, ".git")):
            sh([sys.executable, os.path.join(HERE, "gen_folders.py"), path, str(n)])
        paths.append(path)
    commands = [f"sh -c 'cd {p} && {BIN} check --ci --base main --head feature > /dev/null'"
                for p in paths]
    return hyperfine_many("folders", commands, WORK, max(3, runs // 3), shell="sh")


def stop_payload(repo):
    """A Claude Code Stop payload for `repo`, written under bench/work/;
    its path."""
    payload = os.path.join(WORK, "stop-payload.json")
    with open(payload, "w") as fh:
        json.dump({"session_id": "bench", "transcript_path": "/dev/null", "cwd": repo,
                   "permission_mode": "default", "hook_event_name": "Stop",
                   "stop_hook_active": False, "last_assistant_message": "done"}, fh)
    return payload


def agent_hook_rows(repo, runs):
    """`agent-hook stop` as Claude Code runs it: a Stop payload on stdin, on a
    repository with one task changed, beside `check --worktree` (the gate it
    runs), measured together."""
    payload = stop_payload(repo)
    hook, worktree = hyperfine_many(
        "agent-hook", [f"{BIN} agent-hook stop --harness claude-code < {payload}",
                       f"{BIN} check --worktree"], repo, max(runs, 20), shell="sh")
    return [("agent-hook stop (Claude Code payload, one task changed)", hook),
            ("check --worktree (same run)", worktree)]


def large_executable_rows(runs):
    """`check --staged` where the task's check runs a 64 MiB executable (as
    `node`, 95 MiB, or rustup's `cargo`, 20 MiB, are) beside the same
    repository whose check runs `true`: the gate compares the executable
    with its receipt on every hook, by file identity once it has hashed it
    (src/digest/file_memo.rs), so its size should not count."""
    tool = os.path.join(WORK, "large-tool")
    if not os.path.isfile(tool) or os.path.getsize(tool) != 64 * 1024 * 1024:
        with open(tool, "wb") as fh:
            head = b"#!/bin/sh\nexit 0\n"
            fh.write(head + b"#" * (64 * 1024 * 1024 - len(head)))
        os.chmod(tool, 0o755)
    # A file changed in the last 3 seconds is never remembered.
    settled = os.stat(tool).st_ctime + 3.5 - time.time()
    if settled > 0:
        time.sleep(settled)
    repos = []
    for name, extra in [("repo-small-tool", []), ("repo-large-tool", [tool])]:
        repo = os.path.join(WORK, name)
        if not os.path.isdir(os.path.join(repo, ".git")):
            partial = repo + ".partial"
            shutil.rmtree(partial, ignore_errors=True)
            sh([sys.executable, os.path.join(HERE, "gen_repo.py"), partial, "200",
                str(2 * 1024 * 1024), BIN, *extra])
            os.rename(partial, repo)
        repos.append(repo)
    small, large = repos
    return hyperfine_many(
        "large-tool", [f"cd {small} && {BIN} check --staged", f"cd {large} && {BIN} check --staged",
                       f"openssl dgst -sha256 {tool}"], WORK, max(runs, 20), shell="sh")


def receive_rows(repo, runs, commits=100):
    """`check --receive` judging a push of `commits` commits, as a bare
    repository's pre-receive hook would (GitHub Enterprise Server allows a
    pre-receive hook 5 seconds). A bare clone of the bench repository gets a
    branch of `commits` commits on top of HEAD, each changing one tracked
    file, the last also the task's report (so the task is judged); the hook
    input names the branch's old and new tip."""
    bare = os.path.join(WORK, os.path.basename(repo) + "-receive.git")
    if not os.path.isdir(bare):
        sh(["git", "clone", "-q", "--bare", repo, bare])
        scratch = tempfile.mkdtemp(dir=WORK)
        sh(["git", "clone", "-q", "--shared", bare, scratch])
        files = [f for f in tracked_files(scratch) if not f.startswith(".mastermind/")][:commits]
        reports = [f for f in tracked_files(scratch) if f.endswith("/executor-report.md")]
        for i, path in enumerate(files):
            with open(os.path.join(scratch, path), "ab") as fh:
                fh.write(f"\nbench change {i}\n".encode())
            if i == len(files) - 1 and reports:
                # The last commit touches the task too, so the gate judges it in full.
                report = os.path.join(scratch, reports[0])
                with open(report) as fh:
                    text = fh.read()
                with open(report, "w") as fh:
                    fh.write(text.replace("\n", "\n\nBench note.\n", 1))
            sh(["git", "commit", "-q", "--no-verify", "-am", f"bench change {i}"], cwd=scratch)
        sh(["git", "push", "-q", "origin", "HEAD:refs/heads/bench-receive"], cwd=scratch)
        shutil.rmtree(scratch)
        old = sh(["git", "rev-parse", f"bench-receive~{commits}"], cwd=bare, capture=True).stdout.strip()
        new = sh(["git", "rev-parse", "bench-receive"], cwd=bare, capture=True).stdout.strip()
        with open(bare + ".input", "w") as fh:
            fh.write(f"{old} {new} refs/heads/bench-receive\n")
        # As during a real pre-receive, the branch still names the old tip
        # and the pushed commits are reachable from no ref; otherwise the
        # gate rightly finds nothing new to judge.
        sh(["git", "update-ref", "refs/heads/bench-receive", old], cwd=bare)
    lines = bare + ".input"
    command = f"{BIN} check --receive < {shlex.quote(lines)} 2>/dev/null; test $? -le 1"
    return [(f"check --receive, push of {commits} commits (pre-receive)",
             hyperfine("receive", command, bare, max(3, runs // 3), shell="sh"))]


def validate_rows(runs):
    """validate over 1,000 reports in one process beside ajv-cli."""
    reports = os.path.join(WORK, "reports")
    if not os.path.isdir(reports):
        os.makedirs(reports)
        with open(os.path.join(ROOT, "examples", "demo-task", "executor-report.md")) as fh:
            text = fh.read()
        yaml_text = text.split("```yaml\n", 1)[1].split("```", 1)[0]
        for i in range(1000):
            body = yaml_text.replace("plan-1", f"plan-{i}")
            with open(os.path.join(reports, f"r{i:04}.md"), "w") as fh:
                fh.write(text.replace(yaml_text, body))
            with open(os.path.join(reports, f"r{i:04}.yaml"), "w") as fh:
                fh.write(body)
    ours = f"{BIN} validate --kind executor-report --format json {reports}/*.md"
    ajv = os.path.join(WORK, "node_modules", ".bin", "ajv")
    if not os.path.exists(ajv) and has("npm"):
        sh(["npm", "install", "--silent", "--prefix", WORK, "ajv-cli@5", "ajv-formats"], check=False)
    if not os.path.exists(ajv):
        return [("validate 1,000 reports (one process)", hyperfine("validate", ours, reports, max(runs, 30), shell="sh")),
                ("ajv-cli, same 1,000 reports", None)]
    schema = os.path.join(ROOT, "schemas", "executor-report-v1.schema.json")
    theirs = f"{ajv} validate --spec=draft2020 -s {schema} -d '{reports}/*.yaml' --errors=text"
    # Measured together, as the budget compares them.
    ours_s, theirs_s = hyperfine_many("validate", [ours, theirs], reports, max(runs, 20), shell="sh")
    return [("validate 1,000 reports (one process)", ours_s), ("ajv-cli, same 1,000 reports", theirs_s)]


BUDGET_HEAD = "| budget | ours | floor | floor median | ratio | spread (rounds) | limit | verdict |"
BUDGET_RULE = "|---|---|---|---|---|---|---|---|"


def budget_line(row):
    name, ours, floor_name, floor, limit, spread_text = row
    verdict = "n/a"
    if ours is not None and floor:
        verdict = "met" if ours / floor <= limit else f"missed by {ours / floor / limit - 1:.0%}"
    return (f"| {name} | {fmt(ours)} | {floor_name} | {fmt(floor)} | {ratio(ours, floor)} "
            f"| {spread_text} | <= {limit}x | {verdict} |")


def fmt(seconds):
    if seconds is None:
        return "n/a"
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.2f} s"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.2f}x"


def machine():
    cpu = ""
    flags = ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name") and not cpu:
                    cpu = line.split(":", 1)[1].strip()
                if line.startswith("flags") and not flags:
                    flags = line
    except OSError:
        pass
    sha = "SHA-NI" if " sha_ni" in flags else "no SHA-NI"
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {cpu} ({sha})"


def main():
    global ROUNDS
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="small,limit")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=ROUNDS,
                        help="hyperfine calls per comparison, the order reversed in every other one")
    parser.add_argument("--tasks", type=int, default=0)
    parser.add_argument("--folders", type=int, default=0)
    parser.add_argument("--formats", default="reftable,sha256",
                        help="other repository formats to measure the budgets in: "
                             + ", ".join(FORMATS) + " (empty: none)")
    parser.add_argument("--merges", type=int, default=1000,
                        help="the generated history of this many merges (bench/gen_merges.py; 0: none)")
    parser.add_argument("--budgets-only", action="store_true",
                        help="only the budgets and where a staged check's time goes (no memory, "
                             "gate, executable or validate rows): a shorter run on a loaded machine")
    parser.add_argument("--variant", choices=sorted(VARIANTS),
                        help="measure a build setting in question instead of the conventional build "
                             "(its results go to bench/work/RESULTS-<variant>.md unless --out says)")
    parser.add_argument("--out")
    args = parser.parse_args()
    if not args.out:
        args.out = (os.path.join(WORK, f"RESULTS-{args.variant}.md") if args.variant
                    else os.path.join(HERE, "RESULTS.md"))
    ROUNDS = max(1, args.rounds)
    formats = [f for f in args.formats.split(",") if f]
    for kind in formats:
        if kind not in FORMATS:
            sys.exit(f"bench: unknown format {kind}; known: {', '.join(FORMATS)}")
    for tool in ["hyperfine", "git", "openssl"]:
        if not has(tool):
            sys.exit(f"bench: {tool} is missing (Debian: apt install {tool})")
    os.makedirs(WORK, exist_ok=True)
    build(args.variant)
    started = load_average()
    lines = [f"Machine: {machine()}. Build: {build_label(args.variant)}. "
             f"Load average at the start: {started}.", ""]
    for size in args.sizes.split(","):
        repo = repo_for(size)
        files, total = SIZES[size]
        print(f"== {size}: {files} files, {total // (1024 * 1024)} MiB", file=sys.stderr)
        budgets = budget_rows(repo, args.runs)
        floors = floor_rows(repo, args.runs)
        if args.budgets_only:
            lines += [f"### {size}: {files:,} files, {total // (1024 * 1024)} MiB", "",
                      BUDGET_HEAD, BUDGET_RULE]
            lines += [budget_line(row) for row in budgets]
            lines += ["", "| where a staged check's time goes | ours | git | git median | ratio | ours - git |",
                      "|---|---|---|---|---|---|"]
            for name, ours, git_name, git in floors:
                extra = fmt(ours - git) if ours is not None and git is not None else "n/a"
                lines.append(f"| {name} | {fmt(ours)} | {git_name} | {fmt(git)} | {ratio(ours, git)} | {extra} |")
            lines.append("")
            lines += formats_lines(size, formats, budgets, args.runs)
            continue
        rows = dict(gate_rows(repo, args.runs))
        if supports("agent-hook", "stop"):
            rows.update(agent_hook_rows(repo, args.runs))
        if supports("check", "--receive"):
            rows.update(receive_rows(repo, args.runs))
        memory_rows = [
            ("check --staged", f"{BIN} check --staged"),
            ("check --ci", f"{BIN} check --ci --base HEAD~1 --head HEAD"),
            ("check --worktree", f"{BIN} check --worktree"),
            ("git archive HEAD (reads every blob once)", "git archive -o /dev/null HEAD"),
        ]
        peak = {name: (peak_kib(cmd, repo), peak_heap_kib(cmd, repo)) for name, cmd in memory_rows}
        status = rows.get("git status --porcelain")
        ssl2 = rows.get("openssl dgst -sha256, 2 processes")
        lines += [f"### {size}: {files:,} files, {total // (1024 * 1024)} MiB", "",
                  BUDGET_HEAD, BUDGET_RULE]
        lines += [budget_line(row) for row in budgets]
        heap = peak.get("check --ci", (None, None))[1]
        verdict = "n/a" if heap is None else ("met" if heap <= 32 * 1024 else f"missed by {heap / (32 * 1024) - 1:.0%}")
        lines.append(f"| check --ci peak heap | {mib(heap)} | | | | <= 32 MiB | {verdict} |")
        lines += ["", "| where a staged check's time goes | ours | git | git median | ratio | ours - git |",
                  "|---|---|---|---|---|---|"]
        for name, ours, git_name, git in floors:
            extra = fmt(ours - git) if ours is not None and git is not None else "n/a"
            lines.append(f"| {name} | {fmt(ours)} | {git_name} | {fmt(git)} | {ratio(ours, git)} | {extra} |")
        lines += ["", "| row | median | ratio | budget |", "|---|---|---|---|"]
        for name, value in rows.items():
            r, budget = "", ""
            if name.startswith("agent-hook stop"):
                r = f"{ratio(value, rows.get('check --worktree (same run)'))} of check --worktree"
                budget = "< 25 ms on the limit repo (DESIGN.md section 8)"
                if value is not None and size == "limit":
                    budget += ": met" if value < 0.025 else f": missed by {value / 0.025 - 1:.0%}"
            elif name.startswith("check --receive"):
                budget = "< 5 s (GitHub Enterprise Server's pre-receive limit)"
            elif name.startswith("check --"):
                r = f"{ratio(value, status)} of git status"
            elif name == "tree-v2 digest, HEAD (cold, as CI)":
                r = f"{ratio(value, ssl2)} of 2x openssl"
                budget = "(check --ci: <= 0.7x, above)"
            lines.append(f"| {name} | {fmt(value)} | {r} | {budget} |")
        lines.append("")
        lines += ["| process | peak RSS | peak heap | budget |", "|---|---|---|---|"]
        for name, (rss, heap) in peak.items():
            budget = "< 64 MiB on the limit repo" if name.startswith("check") else ""
            lines.append(f"| {name} | {mib(rss)} | {mib(heap)} | {budget} |")
        lines.append("")
        lines += formats_lines(size, formats, budgets, args.runs)
    if args.merges:
        lines += [f"### a history of {args.merges:,} merges (bench/gen_merges.py)", "",
                  BUDGET_HEAD, BUDGET_RULE]
        lines += [budget_line(row) for row in merges_rows(args.runs, args.merges)]
        lines.append("")
    if args.budgets_only:
        lines.append(f"Load average at the end: {load_average()}.")
        write_results(args.out, lines)
        return
    if args.tasks:
        ours, floor, heap, rss = tasks_row(args.tasks, args.runs)
        lines += [f"### {args.tasks} tasks, distinct baselines, 20,000 files", "",
                  "| row | median | floor (git log --raw of the range) | ratio | peak heap | peak RSS |",
                  "|---|---|---|---|---|---|",
                  f"| check --ci over every task commit | {fmt(ours)} | {fmt(floor)} | {ratio(ours, floor)} "
                  f"| {mib(heap)} | {mib(rss)} |", ""]
    if args.folders:
        one, two = folders_rows(args.folders, args.runs)
        lines += [f"### one change touching many task folders", "",
                  "| row | median | ratio | budget |", "|---|---|---|---|",
                  f"| check --ci, {args.folders:,} folders in one commit | {fmt(one)} | | |",
                  f"| check --ci, {2 * args.folders:,} folders in one commit | {fmt(two)} "
                  f"| {ratio(two, one)} of the row above | <= 2.5x (linear: 2x) |", ""]
    small, large, hashed = large_executable_rows(args.runs)
    lines += ["### a check whose executable is 64 MiB (200 files)", "",
              "| row | median | ratio | budget |", "|---|---|---|---|",
              f"| check --staged, the check runs `true` | {fmt(small)} | | |",
              f"| check --staged, the check runs a 64 MiB executable | {fmt(large)} "
              f"| {ratio(large, small)} of the row above | <= 1.1x (the executable's size does not count) |",
              f"| openssl dgst -sha256 of that executable | {fmt(hashed)} | | (what each hook paid before) |", ""]
    rows = dict(validate_rows(args.runs))
    ajv = rows.get("ajv-cli, same 1,000 reports")
    ours = rows.get("validate 1,000 reports (one process)")
    lines += ["### validate", "", "| row | median | ratio | budget |", "|---|---|---|---|",
              f"| validate 1,000 reports (one process) | {fmt(ours)} | {ratio(ours, ajv)} of ajv-cli | <= 0.1x ajv-cli |",
              f"| ajv-cli, same 1,000 reports | {fmt(ajv)} | | |", ""]
    lines.append(f"Load average at the end: {load_average()}.")
    write_results(args.out, lines)


def write_results(path, lines):
    text = "\n".join(lines)
    with open(path, "w") as fh:
        fh.write(text + "\n")
    print(text)


def load_average():
    """The 1, 5 and 15 minute load averages: on a shared machine the
    ratios hold, the absolute times do not."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "n/a"
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} cores)"


def formats_lines(size, formats, budgets, runs):
    """The same budgets in the other formats: each ratio against git on
    that repository, beside the default format's from above."""
    lines = []
    if not formats:
        return lines
    default = {name: (ours, floor) for name, ours, _, floor, _, _ in budgets}
    lines += [f"#### {size}: the same content in other repository formats", "",
              "| budget | format (git says) | ours | floor median | ratio | spread (rounds) | files/sha1 ratio | limit | verdict |",
              "|---|---|---|---|---|---|---|---|---|"]
    for kind, said, kind_budgets in formats_rows(size, formats, runs):
        for name, ours, _, floor, limit, spread_text in kind_budgets:
            verdict = "n/a"
            if ours is not None and floor:
                verdict = "met" if ours / floor <= limit else f"missed by {ours / floor / limit - 1:.0%}"
            base = default.get(name, (None, None))
            lines.append(f"| {name} | {kind} ({said}) | {fmt(ours)} "
                         f"| {fmt(floor)} | {ratio(ours, floor)} | {spread_text} | {ratio(*base)} "
                         f"| <= {limit}x | {verdict} |")
    lines.append("")
    return lines


if __name__ == "__main__":
    main()
