#!/usr/bin/env python3
"""A stand-in coding-agent harness for tests/hooks/agent_hooks.rs.

usage: fake_harness.py SETTINGS PAYLOAD MODE [CAP]

Reads the Stop hook entries from SETTINGS (what `install --agent` wrote),
then plays a session: the "agent" finishes its turn, the harness runs every
Stop command the way Claude Code and Codex do (through the shell, the
PAYLOAD JSON on stdin; on exit 0 the decision JSON read from stdout, which
must be JSON when there is any; on exit 2 a block whose reason is stderr;
any other status a non-blocking error, so the stop goes through), and a
block sends the agent back to work with `stop_hook_active` set. MODE
`fixer`: the agent reverts every file the reason names under
[unexpected_file]. MODE `stubborn`: it changes nothing. CAP: the blocks in
a row after which the harness ends the turn itself (Claude Code: 8);
`none` (Codex, which has no cap): the harness keeps going, and a session
that has not stopped after 100 stops is a trap.
Prints one line per event; exits 0 when a stop finally goes through.
"""
import json
import os
import re
import subprocess
import sys


def stop_commands(settings):
    with open(settings) as fh:
        doc = json.load(fh)
    return [h["command"] for group in doc["hooks"]["Stop"] for h in group["hooks"]
            if h.get("type") == "command"]


def run_hook(command, payload):
    done = subprocess.run(command, shell=True, input=json.dumps(payload),
                          capture_output=True, text=True, timeout=120)
    if done.returncode == 2:
        return {"decision": "block", "reason": done.stderr}
    if done.returncode != 0:
        print(f"hook error (exit {done.returncode}): {done.stderr.strip().splitlines()[:1]}")
        return {}
    if not done.stdout.strip():
        return {}
    return json.loads(done.stdout)


def main():
    settings, payload_path, mode = sys.argv[1:4]
    cap = sys.argv[4] if len(sys.argv) > 4 else "8"
    limit = 100 if cap == "none" else int(cap)
    commands = stop_commands(settings)
    with open(payload_path) as fh:
        payload = json.load(fh)
    payload["cwd"] = os.getcwd()
    active = False
    for stop in range(1, limit + 1):
        payload["stop_hook_active"] = active
        answers = [run_hook(c, payload) for c in commands]
        notes = [a["systemMessage"] for a in answers if a.get("systemMessage")]
        blocks = [a["reason"] for a in answers if a.get("decision") == "block"]
        for note in notes:
            print(f"stop {stop}: note to user: {note.splitlines()[0]}")
        if not blocks:
            print(f"stop {stop}: allowed")
            return 0
        reason = blocks[0]
        named = re.findall(r"^- \[([a-z_]+)\] ([^:\s]+)", reason, re.M)
        if named:
            print(f"stop {stop}: blocked: " + ", ".join(f"{code} {path}" for code, path in named))
        else:
            print(f"stop {stop}: blocked: {reason.strip().splitlines()[0]}")
        if mode == "fixer":
            for code, path in named:
                if code == "unexpected_file" and os.path.exists(path):
                    os.remove(path)
                    print(f"agent: reverted {path}")
        active = True
    if cap == "none":
        print("harness: the agent never stopped")
        return 1
    print(f"harness: ended the turn after {limit} blocks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
