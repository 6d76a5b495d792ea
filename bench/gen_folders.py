#!/usr/bin/env python3
"""Build the "one change, many task folders" benchmark repository: main with
a README, then a branch `feature` whose one commit adds FOLDERS task folders
(each a spec with empty scope). Judging that commit should cost O(FOLDERS):
`bench/run.py --folders N` measures N and 2N folders in one hyperfine call
and reports the ratio (about 2 when the cost is linear, 4 when quadratic).

usage: gen_folders.py DIR FOLDERS
"""
import os
import subprocess
import sys

ENV = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid",
           GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
           GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")

SPEC = """---
task_id: t{i}
title: Task {i}
files:
  touches: []
  creates: []
---
# Task {i}
"""


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, env=ENV, check=True, stdout=subprocess.DEVNULL)


def main():
    repo, folders = sys.argv[1], int(sys.argv[2])
    os.makedirs(repo, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    with open(os.path.join(repo, "README.md"), "w") as fh:
        fh.write("bench\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    for i in range(folders):
        folder = os.path.join(repo, ".mastermind", "tasks", f"t{i:05d}")
        os.makedirs(folder)
        with open(os.path.join(folder, "spec.md"), "w") as fh:
            fh.write(SPEC.format(i=i))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{folders} task folders")


if __name__ == "__main__":
    main()
