#!/usr/bin/env python3
"""Build the "many tasks" benchmark repository: FILES files, then TASKS
commits on the base branch (the history the tasks started from), tagged
`bench-base`, then TASKS tasks, each in its own commit, each with its own
baseline (one of those base commits, as if the tasks had started at
different times), each changing two files inside its declared scope.

usage: gen_tasks.py DIR FILES TASKS

Every task has a spec (`touches` its two files), a complete executor report
naming them, and a state.json whose baseline_ref is the commit before the
task's start on the base branch, so 400 tasks have 400 distinct baselines,
all of them history the base already has (a baseline_ref outside the base
is refused: task_baseline_invalid). What a gate run over
the whole range should cost grows with the commits and changed paths (2 per
task), never with tasks x files. Deterministic: the same arguments build the
same repository.
"""
import os
import random
import subprocess
import sys

ENV = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid",
           GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
           GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, env=ENV,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout


def path_of(i, per_dir=100):
    return f"src/d{i // per_dir:04}/f{i % per_dir:03}.txt"


def main():
    repo, files, tasks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(20261202)
    os.makedirs(repo, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    for i in range(files):
        full = os.path.join(repo, path_of(i))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.write(rng.randbytes(256))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "base")
    starts = []
    for t in range(tasks):
        with open(os.path.join(repo, "HISTORY.txt"), "a") as fh:
            fh.write(f"base commit {t}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--no-verify", "-m", f"base {t}")
        starts.append(git(repo, "rev-parse", "HEAD").strip())
    git(repo, "tag", "bench-base")
    for t in range(tasks):
        baseline = starts[t]
        targets = [path_of(rng.randrange(files)), path_of(rng.randrange(files))]
        targets = sorted(set(targets))
        for target in targets:
            with open(os.path.join(repo, target), "ab") as fh:
                fh.write(f"task {t}\n".encode())
        task = os.path.join(repo, ".mastermind", "tasks", f"{t:03}-bench")
        os.makedirs(task, exist_ok=True)
        touches = "".join(f"  - file: {p}\n" for p in targets)
        listed = "".join(f"  - {p}\n" for p in targets)
        with open(os.path.join(task, "spec.md"), "w") as fh:
            fh.write(f"---\nmode: verified\ntouches:\n{touches}verify:\n  - cmd: make test\n---\n"
                     f"# Task {t}\n\n## Goals\nChange two files.\n")
        with open(os.path.join(task, "executor-report.md"), "w") as fh:
            fh.write("# Report\n\n<!-- mastermind:report-begin -->\n```yaml\n"
                     f"schema_version: 1\nspec: .mastermind/tasks/{t:03}-bench/spec.md\nstatus: complete\n"
                     "phases:\n  - id: plan-1\n    status: done\n"
                     f"files_modified:\n{listed}claims: []\ndefects: []\n"
                     "verifications:\n  - cmd: make test\n    result: pass\n    observed:\n      exit_code: 0\n"
                     "```\n<!-- mastermind:report-end -->\n")
        with open(os.path.join(task, "state.json"), "w") as fh:
            fh.write(f'{{"status": "approved", "baseline_ref": "{baseline}", "iteration": 1}}\n')
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--no-verify", "-m", f"task {t}")


if __name__ == "__main__":
    main()
