#!/usr/bin/env python3
"""Regenerate build/hot-text.ld: the code a gate run executes, placed
together at the front of the executable's code.

usage: bench/hot_text.py [--out build/hot-text.ld]

Why: the release binary has about 5.5 MB of code, of which a hook run
executes about 1.5 MB, spread over the whole of it; the kernel maps a
program's code a 64 KB window at a time, at the first touch of each, so
a `check --staged` took a page fault in nearly every window of the file
(about 85) before it did any work (development chapter, "Build time and
binary size", item 7).

How: builds the release binary exactly as `cargo build --release` does
(same profile, so the same symbol names), in its own target directory,
with the current layout switched off (MASTERMIND_HOOKS_NO_HOT_TEXT) and the
linker's map of where each input section landed written beside it
(MASTERMIND_HOOKS_LINK_MAP); runs the commands hooks and an agent's stop
run under valgrind's callgrind on the bench's limit repository, recording
every instruction executed; and names every input section that holds one.
The compiler puts each Rust function in a section of its own
(`.text.<mangled name>`, `.text.unlikely.<name>` for code it judged cold);
C library code comes from members of libc.a. Each becomes a pattern of a
linker script (lld and GNU ld syntax) that build.rs passes to the linker.

Rust names are written without the 16-digit hash rustc appends to a
mangled name (it changes with the compiler version and the build flags;
the path before it does not), so the script keeps working across
toolchains; where the hash-less name also covers many instances of a
generic function that were not executed (sorting, iterators, serde), the
exact name is kept instead, so that cold code stays out of the hot
section. A name the build no longer has matches nothing, which costs
nothing but speed: the script never changes what the program does.

Needs valgrind (Debian: apt install valgrind), git, python3, the linker
rustc uses by default on Linux (rust-lld, whose map format is read here),
and the bench's generator (bench/run.py builds the repository on first use).
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile

import run

HOT_CMDS = [
    ["--version"],
    ["check", "--staged"],
    ["check", "--worktree"],
    ["check", "--ci", "--base", "HEAD~1", "--head", "HEAD"],
    ["digest", "--worktree"],
    ["digest", "--rev", "HEAD"],
    ["verification", "run", run.SPEC, "--id", "unit"],
]
LEGACY_HASH = re.compile(r"^(_ZN.*17h)[0-9a-f]{16}E$")
LLVM_SUFFIX = re.compile(r"\.llvm\.\d+$")
# An input section line of lld's map: VMA, LMA, size, alignment, then the
# input file and the section name.
MAP_LINE = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(\S.*):\((\.text[^)]*)\)$")
ARCHIVE_MEMBER = re.compile(r"([^/]+\.a)\(([^)]+\.o)\)$")
# Code valgrind's virtual CPU never runs, which a real one does: kernels
# chosen by CPU feature at run time (SHA extensions, AVX-512, carry-less
# multiply) have siblings in the profile but are not themselves executed.
# Their sections are small; these globs take them all. The C library's
# variants of one routine (memmove-evex-unaligned-erms.o beside
# memmove-avx-unaligned-erms.o) are taken as families instead (below).
CPU_KERNELS = ["_ZN*x86_sha*", "_ZN*shani*", "_ZN*avx512*", "_ZN*pclmul*"]
# A hash-less name stands for its whole group when the group is this small,
# or when the executed instances make up at least this share of its bytes.
SMALL_GROUP = 4
HOT_SHARE = 0.5


def probe_build(map_path):
    """The release binary laid out as without the script, and its map."""
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(run.ROOT, "target")
    return run.cargo_executable({
        "CARGO_TARGET_DIR": os.path.join(target, "hot-text-probe"),
        "MASTERMIND_HOOKS_NO_HOT_TEXT": "1",
        "MASTERMIND_HOOKS_LINK_MAP": map_path,
    })


def input_sections(map_path):
    """(address, size, file, section) of every code section the linker
    placed, sorted by address."""
    sections = []
    with open(map_path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            m = MAP_LINE.match(line.rstrip("\n"))
            if m and int(m.group(2), 16):
                sections.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4)))
    sections.sort()
    return sections


def executed(binary, repo, args, stdin=None):
    """Addresses of the instructions callgrind saw run (addresses as in the
    file, the same as the map's)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-pos=no",
                        f"--callgrind-out-file={out}", binary, *args], cwd=repo, stdin=stdin,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        addresses = set()
        with open(out, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("0x"):
                    addresses.add(int(line.split(maxsplit=1)[0], 16))
        return addresses


def hot_sections(sections, addresses):
    """Indexes into `sections` of those holding an executed instruction."""
    starts = [s[0] for s in sections]
    hot = set()
    for address in addresses:
        i = bisect.bisect_right(starts, address) - 1
        if i >= 0 and address < sections[i][0] + sections[i][1]:
            hot.add(i)
    return hot


def rust_name(section):
    """The mangled function name a Rust code section is named after."""
    for prefix in (".text.unlikely.", ".text."):
        if section.startswith(prefix):
            name = LLVM_SUFFIX.sub("", section[len(prefix):])
            return name if name.startswith(("_ZN", "_R")) else None
    return None


def group_of(name):
    m = LEGACY_HASH.match(name)
    return m.group(1) if m else name


def patterns(sections, hot):
    """The script's patterns: libc.a members, then Rust names (hash-less
    where that adds little cold code), hot sections in address order."""
    sizes = collections.Counter()
    groups = collections.defaultdict(set)
    for _, size, _, section in sections:
        name = rust_name(section)
        if name:
            sizes[name] += size
            groups[group_of(name)].add(name)
    hot_names = {rust_name(sections[i][3]) for i in hot} - {None}
    members, names, seen = [], [], set()
    for i in sorted(hot):
        _, _, path, section = sections[i]
        member = ARCHIVE_MEMBER.search(path)
        if member:
            # The archive's name without its version (libm-2.36.a), the
            # member with every variant of its routine (strlen-evex.o).
            archive = re.sub(r"-[0-9.]+\.a$", "*.a", member.group(1))
            stem = re.split(r"[-.]", member.group(2), maxsplit=1)[0]
            for pattern in (f"*{archive}:{stem}.o", f"*{archive}:{stem}-*.o"):
                if pattern not in members:
                    members.append(pattern)
            continue
        if not section.startswith(".text.") and path.endswith(".o"):
            pattern = f"*{os.path.basename(path)}"  # the C start file (rcrt1.o)
            if pattern not in members:
                members.append(pattern)
            continue
        name = rust_name(section)
        if not name:
            continue
        group = group_of(name)
        members_of = groups[group]
        hot_bytes = sum(sizes[n] for n in members_of if n in hot_names)
        whole = len(members_of) <= SMALL_GROUP or hot_bytes >= HOT_SHARE * sum(sizes[n] for n in members_of)
        pattern = group if whole else name
        if pattern not in seen:
            seen.add(pattern)
            names.append(pattern)
    hot_bytes = sum(sections[i][1] for i in hot)
    return members, names, hot_bytes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(run.ROOT, "build", "hot-text.ld"))
    args = parser.parse_args()
    for tool in ["valgrind", "git"]:
        if not run.has(tool):
            sys.exit(f"hot_text: {tool} is missing")
    os.makedirs(run.WORK, exist_ok=True)
    map_path = os.path.join(run.WORK, "hot-text-probe.map")
    binary = probe_build(map_path)
    run.BIN = binary
    sections = input_sections(map_path)
    if not sections:
        sys.exit(f"hot_text: no code sections in {map_path} (not an lld map?)")
    repo = run.repo_for("limit")
    addresses = set()
    for cmd in HOT_CMDS:
        print("callgrind:", " ".join(cmd), file=sys.stderr)
        addresses |= executed(binary, repo, cmd)
    with open(run.stop_payload(repo)) as payload:
        print("callgrind: agent-hook stop", file=sys.stderr)
        addresses |= executed(binary, repo, ["agent-hook", "stop", "--harness", "claude-code"], stdin=payload)
    demo = os.path.join(run.ROOT, "examples", "demo-task")
    for kind, doc in [("spec", "spec.md"), ("executor-report", "executor-report.md")]:
        print("callgrind: validate --kind", kind, file=sys.stderr)
        addresses |= executed(binary, demo, ["validate", "--kind", kind, doc])
    hot = hot_sections(sections, addresses)
    members, names, hot_bytes = patterns(sections, hot)
    total = sum(s[1] for s in sections)
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    with open(args.out, "w") as fh:
        fh.write("/* The code a gate run executes, first in the executable's code.\n"
                 " * Generated by bench/hot_text.py (see its doc for why and how); do not\n"
                 " * edit by hand, regenerate after large changes to the code.\n"
                 f" * Profiled with {rustc}: {len(hot)} of {len(sections)} code sections executed,\n"
                 f" * {hot_bytes // 1024} KiB of {total // 1024} KiB; "
                 f"{len(names)} Rust patterns, {len(members)} C patterns.\n"
                 " * build.rs passes it to the linker (`-T`) for release builds on Linux\n"
                 " * with glibc; MASTERMIND_HOOKS_NO_HOT_TEXT=1 leaves it out. */\n")
        fh.write("SECTIONS\n{\n  .text.hot : {\n")
        for member in members:
            fh.write(f"    {member}(.text .text.*)\n")
        for name in names + CPU_KERNELS:
            fh.write(f"    *(.text.{name}* .text.unlikely.{name}*)\n")
        fh.write("  }\n}\nINSERT BEFORE .text;\n")
    print(f"hot_text: wrote {args.out}: {len(hot)} sections ({hot_bytes // 1024} KiB) executed, "
          f"{len(names)} Rust patterns, {len(members)} C patterns", file=sys.stderr)


if __name__ == "__main__":
    main()
