#!/usr/bin/env bash
# Rewrites crates/mcp-bastion/hot-symbols.txt: the functions a running gateway executes,
# which the `dist` build places next to each other (crates/mcp-bastion/build.rs), so that
# fewer pages of the binary's code stay resident.
#
# Usage: scripts/hot-symbols.sh BENCH_DIR
#   BENCH_DIR  the shared bench directory (drive.py, echo_server.py)
#
# Needs valgrind. Builds the `dist` binary, runs it under callgrind through three
# workloads (the bench harness's phases with fewer calls around its echo server, a
# minute of the soak traffic around the fault server, and `scan` of the hostile test
# server), collects the name of every function executed, writes them sorted (stable
# diffs), rebuilds, and reports how many of the listed symbols the new binary has.
# Run it again after a compiler or dependency upgrade: symbol names carry a hash of the
# crate's build, so an old list matches fewer functions (nothing breaks; it helps less).
set -euo pipefail
bench=${1:?usage: scripts/hot-symbols.sh BENCH_DIR}
bench=$(realpath "$bench")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 2; }
target=${CARGO_TARGET_DIR:-$root/target}
cargo build --quiet --profile dist -p mcp-bastion --bin mcp-bastion
binary="$target/dist/mcp-bastion"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/run" <<EOF
#!/bin/sh
exec valgrind --quiet --tool=callgrind --demangle=no --dump-instr=no \
  --callgrind-out-file="$work/cg.%p" "$binary" "\$@"
EOF
chmod +x "$work/run"
export MCP_BASTION_STORE="$work/store.db"

echo "workload 1/3: bench phases" >&2
(cd "$bench" && MCP_BASTION_CONFIG="$root/scripts/bench-config.toml" python3 drive.py --label profile \
  --m 300 --m64k 30 --m1m 4 --k 2000 --k64k 40 --warmup 10 --timeout 600 \
  --startup-timeout 300 -- "$work/run" wrap --name bench -- python3 echo_server.py >/dev/null)
echo "workload 2/3: soak traffic" >&2
python3 scripts/soak.py --binary "$work/run" --duration 60 --interval 30 >/dev/null
echo "workload 3/3: scan" >&2
"$work/run" scan -- python3 crates/bastion-gateway/tests/servers/hostile_server.py \
  >/dev/null 2>&1 || true

out=crates/mcp-bastion/hot-symbols.txt
cat "$work"/cg.* | sed -n 's/^c\{0,1\}fn=([0-9]*) //p' | grep -v ' ' | LC_ALL=C sort -u >"$work/hot.txt"
[ -s "$work/hot.txt" ] || { echo "callgrind recorded no function" >&2; exit 1; }
mv "$work/hot.txt" "$out"
cargo build --quiet --profile dist -p mcp-bastion --bin mcp-bastion
listed=$(wc -l <"$out")
present=$(nm "$binary" | awk '$2 ~ /^[tT]$/ {print $3}' | LC_ALL=C sort -u |
  LC_ALL=C comm -12 - "$out" | wc -l)
echo "$out: $listed functions listed, $present of them in $binary"
