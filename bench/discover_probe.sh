#!/usr/bin/env bash
# discover_probe.sh: what the server/discover probe costs a 2025-era server.
# Runs mcp-fuzz against the npm reference server-memory (legacy only: it
# answers server/discover with -32601) alternately with --era auto (probe,
# then initialize) and --era legacy (initialize only), and prints the
# medians of the reports' durationMs and their ratio. Usage:
#   bench/discover_probe.sh [PAIRS]     (default 15; needs e2e/setup.sh first)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-15}
server=e2e/testdata/node_modules/@modelcontextprotocol/server-memory/dist/index.js
[ -f "$server" ] || { echo "discover_probe.sh: run bash e2e/setup.sh first" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/mcp-fuzz" ./cmd/mcp-fuzz
for i in $(seq "$pairs"); do
	for era in auto legacy; do
		"$dir/mcp-fuzz" --era "$era" --fail-on none --cases 5 --repeat 1 \
			--env MEMORY_FILE_PATH="$dir/mem-$i-$era.jsonl" -o "$dir/$era-$i.json" -- node "$server" >/dev/null 2>&1
		jq .durationMs "$dir/$era-$i.json" >>"$dir/$era.ms"
	done
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
auto=$(median "$dir/auto.ms"); legacy=$(median "$dir/legacy.ms")
echo "server-memory, $pairs alternating pairs: --era auto median ${auto} ms, --era legacy median ${legacy} ms, ratio $(awk -v a="$auto" -v l="$legacy" 'BEGIN {printf "%.2f", a/l}')"
