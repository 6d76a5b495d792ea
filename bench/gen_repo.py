#!/usr/bin/env python3
"""Build a deterministic synthetic repository for the benchmarks.

usage: gen_repo.py DIR FILES TOTAL_BYTES [MASTERMIND_HOOKS_BINARY [CHECK_EXECUTABLE]]

Creates DIR as a git repository with FILES files of pseudo-random content
(TOTAL_BYTES in all, seeded, so every run builds the same bytes): a base
commit, a commit adding a Mastermind task (spec, complete executor report)
with its change, and a staged second change inside the task's scope. The
task declares one observed check; given the binary, its tree receipt is
written (and staged) for both states, so the gate's freshness check runs.
The check runs `true`, or CHECK_EXECUTABLE (an absolute path) when given.
"""
import os
import random
import subprocess
import sys


def git(repo, *args, env=None):
    subprocess.run(["git", *args], cwd=repo, check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    repo, files, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(20261201)
    os.makedirs(repo, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    size = max(1, total // files)
    per_dir = 100
    for i in range(files):
        d = os.path.join(repo, "src", f"d{i // per_dir:04}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i % per_dir:03}.txt"), "wb") as fh:
            fh.write(rng.randbytes(size))
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-q", "--no-verify", "-m", "base", env=env)
    task = os.path.join(repo, ".mastermind", "tasks", "001-bench")
    os.makedirs(task, exist_ok=True)
    target = "src/d0000/f000.txt"
    command = sys.argv[5] if len(sys.argv) > 5 else "true"
    with open(os.path.join(task, "spec.md"), "w") as fh:
        fh.write(f"---\nmode: verified\ntouches:\n  - file: {target}\nverify:\n  - cmd: make test\n"
                 f"  - cmd: \"{command}\"\n    run:\n      id: unit\n      argv: [\"{command}\"]\n      cwd: .\n      timeout_secs: 60\n"
                 "acceptance:\n  - id: passes\n    statement: The observed check passes.\n    checks: [unit]\n"
                 "---\n# Bench task\n\n## Goals\nChange one file.\n")
    with open(os.path.join(task, "executor-report.md"), "w") as fh:
        fh.write(
            "# Report\n\n<!-- mastermind:report-begin -->\n```yaml\n"
            "schema_version: 1\nspec: .mastermind/tasks/001-bench/spec.md\nstatus: complete\n"
            "phases:\n  - id: plan-1\n    status: done\n"
            f"files_modified:\n  - {target}\nclaims: []\ndefects: []\n"
            "verifications:\n  - cmd: make test\n    result: pass\n    observed:\n      exit_code: 0\n"
            f"  - cmd: \"{command}\"\n    result: pass\n"
            "```\n<!-- mastermind:report-end -->\n")
    with open(os.path.join(repo, target), "ab") as fh:
        fh.write(b"changed\n")
    git(repo, "add", "-A", env=env)
    receipt(repo, env)
    git(repo, "commit", "-q", "--no-verify", "-m", "task", env=env)
    # The staged change: the task's file again, and the report touched.
    with open(os.path.join(repo, target), "ab") as fh:
        fh.write(b"changed again\n")
    with open(os.path.join(task, "executor-report.md"), "a") as fh:
        fh.write("\nSecond pass: the same file, changed again.\n")
    git(repo, "add", "-A", env=env)
    receipt(repo, env)


def receipt(repo, env):
    """Run the task's observed check so its receipt matches the staged tree."""
    if len(sys.argv) < 5:
        return
    subprocess.run([sys.argv[4], "verification", "run", ".mastermind/tasks/001-bench/spec.md",
                    "--id", "unit"], cwd=repo, check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    git(repo, "add", "-A", env=env)


if __name__ == "__main__":
    main()
