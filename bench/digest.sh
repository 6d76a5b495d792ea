#!/usr/bin/env bash
# Benchmark (not a test): tree-v2 digest of a deterministic 10,000-file,
# 64 MiB repository, cold (no cache, as in CI) and with a warm sha256 cache,
# beside sha256sum over the same bytes in one process and in two.
# Usage: bash bench/digest.sh [RUNS]   (needs git, python3, sha256sum; openssl optional)
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
# Build first: the isolated HOME below would hide the toolchain.
# The executable cargo reports (target/release/ unless CARGO_TARGET_DIR
# says otherwise).
bin=$(cd "$here" && cargo build -q --release --message-format=json |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "mastermind-hooks":
        print(m["executable"])')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_STATE_HOME="$work/home/.local/state"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir -p "$HOME"
repo="$work/limit"
mkdir -p "$repo"
python3 - "$repo" <<'PY'
import os, random, sys
root = sys.argv[1]
rng = random.Random(20260101)
size = 64 * 1024 * 1024 // 10000
for i in range(10000):
    d = os.path.join(root, "d%03d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d.txt" % i), "wb") as f:
        f.write(rng.randbytes(size))
PY
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" -c user.name=b -c user.email=b@b commit -q -m limit
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
cd "$repo"
git ls-files -z > "$work/files"
echo "repository: $(git ls-files | wc -l) files, $(du -sb --exclude=.git . | cut -f1) bytes; $(nproc) cores; $runs runs, medians"
one=$(for _ in $(seq "$runs"); do time_ms xargs -0 sha256sum < "$work/files"; done | median)
two=$(for _ in $(seq "$runs"); do time_ms xargs -0 -P2 -n5000 sha256sum < "$work/files"; done | median)
echo "sha256sum, one process:             ${one} ms"
echo "sha256sum, two processes:           ${two} ms"
if command -v openssl >/dev/null; then
  o1=$(for _ in $(seq "$runs"); do time_ms xargs -0 openssl dgst -sha256 < "$work/files"; done | median)
  o2=$(for _ in $(seq "$runs"); do time_ms xargs -0 -P2 -n5000 openssl dgst -sha256 < "$work/files"; done | median)
  echo "openssl dgst -sha256, one process:  ${o1} ms"
  echo "openssl dgst -sha256, two processes: ${o2} ms"
fi
ours() { for _ in $(seq "$runs"); do time_ms "$@"; done | median; }
cold=$(ours "$bin" digest --rev HEAD --no-cache)
"$bin" digest --rev HEAD >/dev/null   # fill the cache
warm=$(ours "$bin" digest --rev HEAD)
tree=$(ours "$bin" digest --worktree)
echo "tree-v2 cold (HEAD, no cache):      ${cold} ms"
echo "tree-v2 warm (HEAD, cache, memo):   ${warm} ms"
echo "tree-v2 working tree (stat reuse):  ${tree} ms"
