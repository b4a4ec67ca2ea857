#!/usr/bin/env bash
# Runs every fuzz target in turn (nightly + cargo-fuzz), each until RUNS executions or
# SECS seconds, whichever comes first, from the seeds in corpus/<target>/ (see README),
# and prints one line per target: executions, seconds, crashes (artifacts/<target>/);
# libFuzzer's output goes to logs/<target>.log.
# Usage: fuzz/run-all.sh [SECS] [RUNS] [TARGET...]
# Environment: FUZZ_BUILD_FLAGS, extra `cargo fuzz build/run` flags (e.g.
# `--no-trace-compares`: about twice the executions per second, less guidance toward
# the constants a comparison expects); FUZZ_TIMEOUT, libFuzzer's per-input timeout in
# wall-clock seconds (default 10; raise it when the fuzzers share the cores with builds);
# FUZZ_MAX_LEN, the longest input in bytes (default 16384); FUZZ_NARROW=1, coverage
# instrumentation for bastion-core, pulldown-cmark and ammonia only (narrow-coverage.toml,
# copied to .cargo/config.toml for the run; built in target-narrow/).
set -uo pipefail
cd "$(dirname "$0")"
if [ "${FUZZ_NARROW:-0}" = 1 ]; then
  [ -e .cargo/config.toml ] && { echo ".cargo/config.toml exists; not replacing it" >&2; exit 1; }
  mkdir -p .cargo && cp narrow-coverage.toml .cargo/config.toml
  trap 'rm -f .cargo/config.toml; rmdir .cargo 2>/dev/null' EXIT
  FUZZ_BUILD_FLAGS="${FUZZ_BUILD_FLAGS:-} --target-dir target-narrow"
fi
secs=${1:-300}
runs=${2:-10000000}
shift $(( $# > 2 ? 2 : $# ))
read -r -a flags <<<"${FUZZ_BUILD_FLAGS:-}"
timeout=${FUZZ_TIMEOUT:-10}
max_len=${FUZZ_MAX_LEN:-16384}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build -s none "${flags[@]}" >/dev/null 2>&1 || { echo "build failed" >&2; exit 1; }
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t" logs
  log="logs/$t.log"
  start=$(date +%s)
  cargo +nightly fuzz run -s none "${flags[@]}" "$t" "corpus/$t" -- -dict=fuzz.dict -runs="$runs" \
    -max_total_time="$secs" -max_len="$max_len" -timeout="$timeout" -rss_limit_mb=2048 \
    -print_final_stats=1 >"$log" 2>&1
  rc=$?
  end=$(date +%s)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  crashes=$(find "artifacts/$t" -type f | wc -l)
  echo "$t execs=${execs:-?} secs=$((end - start)) rc=$rc crashes=$crashes"
done
