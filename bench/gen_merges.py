#!/usr/bin/env python3
"""Build the "many merges" benchmark repository: a history shaped like a
busy project's default branch, where every change lands as a merge of a
short topic branch (`--no-ff`, as GitHub's merge button makes them).

usage: gen_merges.py DIR FILES MERGES

FILES text files (about 2 KiB each, in directories of 64), a base commit
tagged `bench-merges-base`, then MERGES first-parent commits on `main`, each
the merge of a topic branch of 1 to 4 commits (2.3 on average) forked 1 to 6 first-parent
commits back (so every merge has a merge base that is neither parent, and
git must merge the trees). Topic commits edit one to three files that `main`
has not touched since the fork, so every merge is clean and its result is
git's own merge; one merge in fifty also edits a file of its own (an edit
slipped into a merge, which the gate attributes to the merge). With 1,000
merges that is about 3,300 commits, the shape of the real-history figure
of issue 53 (3,072 files, 1,000 first-parent commits, 3,321 commits).

Written with `git fast-import` (seconds, not minutes), deterministic: the
same arguments build the same repository, byte for byte.
"""
import os
import random
import subprocess
import sys

ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
WHO = "bench <bench@example.invalid>"
EPOCH = 1767225600  # 2026-01-01T00:00:00Z


def path_of(i):
    return f"src/m{i // 64:03}/f{i % 64:02}.rs"


class Importer:
    """A fast-import stream being written, with marks for commits."""

    def __init__(self, out):
        self.out = out
        self.mark = 0
        self.clock = EPOCH

    def data(self, payload):
        self.out.write(f"data {len(payload)}\n".encode())
        self.out.write(payload)
        self.out.write(b"\n")

    def commit(self, ref, message, parents, changes):
        """Write a commit on `ref` with `parents` (marks; the first is the
        `from`), `changes` as {path: bytes}; its mark."""
        self.mark += 1
        self.clock += 60
        self.out.write(f"commit {ref}\nmark :{self.mark}\n".encode())
        self.out.write(f"author {WHO} {self.clock} +0000\n".encode())
        self.out.write(f"committer {WHO} {self.clock} +0000\n".encode())
        self.data(message.encode())
        if parents:
            self.out.write(f"from :{parents[0]}\n".encode())
            for other in parents[1:]:
                self.out.write(f"merge :{other}\n".encode())
        for path in sorted(changes):
            self.out.write(f"M 100644 inline {path}\n".encode())
            self.data(changes[path])
        self.out.write(b"\n")
        return self.mark


def main():
    repo, files, merges = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(20261208)
    os.makedirs(repo, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True, env=ENV)
    words = [w.encode() for w in
             "let mut fn impl pub use struct enum match return self where for in if else".split()]

    def line(n):
        return b" ".join(rng.choice(words) for _ in range(8)) + f" // {n}\n".encode()

    content = {path_of(i): b"".join(line(j) for j in range(36)) for i in range(files)}
    imp = subprocess.Popen(["git", "fast-import", "--quiet", "--done"], cwd=repo, env=ENV,
                           stdin=subprocess.PIPE)
    stream = Importer(imp.stdin)
    base = stream.commit("refs/heads/main", "base\n", [], content)
    stream.out.write(f"reset refs/tags/bench-merges-base\nfrom :{base}\n\n".encode())
    # main's first-parent commits (marks), the files each state of main has,
    # and when main last changed each file (index into `mains`).
    mains = [base]
    states = [dict(content)]
    touched = {path: 0 for path in content}
    paths = sorted(content)
    for m in range(merges):
        fork = max(0, len(mains) - 1 - rng.randrange(1, 7))
        state = dict(states[fork])
        free = [p for p in paths if touched[p] <= fork]
        tip = mains[fork]
        branch_changed = {}
        for c in range(rng.choices([1, 2, 3, 4], weights=[2, 3, 3, 1])[0]):
            edits = {}
            for path in rng.sample(free, rng.randrange(1, 4)):
                state[path] = state[path] + line(f"topic {m}.{c}")
                edits[path] = state[path]
            branch_changed.update(edits)
            tip = stream.commit(f"refs/heads/topic", f"topic {m}: step {c}\n", [tip], edits)
        merged = dict(states[-1])
        merged.update(branch_changed)
        own = {}
        if m % 50 == 49:
            # An edit slipped into the merge itself.
            path = rng.choice([p for p in paths if p not in branch_changed])
            merged[path] = merged[path] + line(f"merge {m}")
            own[path] = merged[path]
        changes = dict(branch_changed)
        changes.update(own)
        mark = stream.commit("refs/heads/main", f"Merge topic {m}\n", [mains[-1], tip], changes)
        mains.append(mark)
        states.append(merged)
        for path in changes:
            touched[path] = len(mains) - 1
    stream.out.write(b"done\n")
    imp.stdin.close()
    if imp.wait() != 0:
        sys.exit("git fast-import failed")
    subprocess.run(["git", "update-ref", "-d", "refs/heads/topic"], cwd=repo, env=ENV)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=repo, check=True, env=ENV)
    subprocess.run(["git", "gc", "-q"], cwd=repo, check=True, env=ENV)


if __name__ == "__main__":
    main()
