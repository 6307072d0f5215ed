#!/usr/bin/env bash
# concurrency_demo.sh: what --concurrency 5 adds to an audit's wall time.
# Runs `mcp-fuzz demo` alternately without and with --concurrency 5 (five
# demo-server processes at once for each confirmed tool that is safe to
# repeat, then five requests in flight on one session and a cancel) and
# prints the median wall times and their ratio. Usage:
#   bench/concurrency_demo.sh [PAIRS]     (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-7}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/mcp-fuzz" ./cmd/mcp-fuzz
now() { date +%s%N; }
for i in $(seq "$pairs"); do
	for mode in plain conc; do
		flags=()
		[ "$mode" = conc ] && flags=(--concurrency 5)
		start=$(now)
		"$dir/mcp-fuzz" demo "${flags[@]}" -o "$dir/$mode-$i.json" >/dev/null 2>&1
		echo $(( ($(now) - start) / 1000000 )) >>"$dir/$mode.ms"
	done
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
plain=$(median "$dir/plain.ms"); conc=$(median "$dir/conc.ms")
checks=$(jq '[.checks[]? | select(.group == "concurrency")] | length' "$dir/conc-1.json")
echo "demo, $pairs alternating pairs: without --concurrency median ${plain} ms, --concurrency 5 median ${conc} ms ($checks concurrency checks), ratio $(awk -v c="$conc" -v p="$plain" 'BEGIN {printf "%.2f", c/p}')"
