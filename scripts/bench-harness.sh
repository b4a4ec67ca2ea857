#!/usr/bin/env bash
# Runs the end-to-end stdio benchmark harness (drive.py, echo_server.py, relay.py,
# summarize.py: the shared bench directory) for `direct`, the trivial Python `relay` and
# `mcp-bastion wrap`, interleaved for ROUNDS rounds, and prints the summary table (medians,
# ratios to `direct` of the same run).
#
# Usage: scripts/bench-harness.sh BENCH_DIR [ROUNDS] [MCP_BASTION_BINARY]
#   BENCH_DIR           the directory holding drive.py, echo_server.py, relay.py, summarize.py
#   ROUNDS              default 3
#   MCP_BASTION_BINARY  default target/dist/mcp-bastion, the build users install (make it
#                       with `cargo build --profile dist -p mcp-bastion` first)
#
# The gateway runs with its defaults except two settings the harness needs
# (scripts/bench-config.toml: the echo tool is allowed without asking, and texts up to
# 4 MiB pass whole). Each gateway run gets a fresh
# SQLite store, so start-up includes creating it.
#
# Run it on an otherwise idle machine: the figures are ratios of two processes sharing the
# cores. Do not pause fuzzers with SIGSTOP to make room: libFuzzer's per-input timer keeps
# running and reports every paused input as a timeout; stop them with SIGINT instead.
set -euo pipefail
bench=${1:?usage: scripts/bench-harness.sh BENCH_DIR [ROUNDS] [MCP_BASTION_BINARY]}
rounds=${2:-3}
binary=${3:-target/dist/mcp-bastion}
[ -x "$binary" ] || { echo "no executable at $binary (cargo build --profile dist -p mcp-bastion)" >&2; exit 2; }
binary=$(realpath "$binary")
for f in drive.py echo_server.py relay.py summarize.py; do
  [ -f "$bench/$f" ] || { echo "no $f in $bench (the shared bench directory)" >&2; exit 2; }
done
# The dist build lays out the functions hot-symbols.txt names together; names carry a
# hash of each crate's build, so a dependency or compiler change makes the list stale
# and the gateway's resident code (its RSS) grows by up to ~11 MiB. Say so before
# measuring.
list=$(dirname "$0")/../crates/mcp-bastion/hot-symbols.txt
if command -v nm >/dev/null && [ -s "$list" ]; then
  listed=$(wc -l <"$list")
  present=$(nm "$binary" | awk '$2 ~ /^[tT]$/ {print $3}' | LC_ALL=C sort -u |
    LC_ALL=C comm -12 - <(LC_ALL=C sort -u "$list") | wc -l)
  if [ $((present * 100)) -lt $((listed * 80)) ]; then
    echo "warning: only $present of the $listed functions in hot-symbols.txt are in $binary; RSS will read high: run scripts/hot-symbols.sh BENCH_DIR" >&2
  fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config=$(realpath "$(dirname "$0")/bench-config.toml")
out="$work/runs.jsonl"
cd "$bench"
for round in $(seq 1 "$rounds"); do
  echo "round $round/$rounds" >&2
  python3 drive.py --label direct -- python3 echo_server.py >>"$out"
  python3 drive.py --label relay -- python3 relay.py -- python3 echo_server.py >>"$out"
  rm -f "$work"/store.db*
  MCP_BASTION_CONFIG="$config" MCP_BASTION_STORE="$work/store.db" \
    python3 drive.py --label bastion -- "$binary" wrap --name bench -- python3 echo_server.py >>"$out"
done
python3 summarize.py "$out"
