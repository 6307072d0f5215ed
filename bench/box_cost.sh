#!/usr/bin/env bash
# box_cost.sh: what the box costs a run, and that it changes no verdict.
# Runs mcp-fuzz alternately with the box (the default) and with --no-box on the
# demo and on the reference servers installed by e2e/setup.sh (server-everything,
# server-memory and server-filesystem over stdio; read-only tools only), checks
# that every case has the same verdict both ways, and prints the median wall
# times and their ratio, and the containment lines of the first boxed run.
# Usage:
#   bench/box_cost.sh [PAIRS]     (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/mcp-fuzz" ./cmd/mcp-fuzz
bash e2e/setup.sh >/dev/null
mods=e2e/testdata/node_modules/@modelcontextprotocol
now() { date +%s%N; }
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
verdicts() { jq -c '[.tools[] | .cases[]? | [.id, .verdict]] | sort' "$1"; }

# run_target NAME [demo] ARGS...: PAIRS alternating runs of mcp-fuzz on one
# target; "demo" first audits the built-in demo (its flags go after it).
run_target() {
	local name=$1 sub=()
	shift
	if [ "${1:-}" = demo ]; then
		sub=(demo)
		shift
	fi
	for i in $(seq "$pairs"); do
		for mode in box nobox; do
			flags=(--fail-on none)
			[ "$mode" = nobox ] && flags+=(--no-box)
			start=$(now)
			"$dir/mcp-fuzz" "${sub[@]}" "${flags[@]}" -o "$dir/$name-$mode-$i.json" "$@" >/dev/null 2>&1 || true
			echo $(( ($(now) - start) / 1000000 )) >>"$dir/$name-$mode.ms"
		done
		if [ "$(verdicts "$dir/$name-box-$i.json")" != "$(verdicts "$dir/$name-nobox-$i.json")" ]; then
			echo "$name, pair $i: verdicts differ with and without the box" >&2
			diff <(verdicts "$dir/$name-box-$i.json" | jq -c '.[]') <(verdicts "$dir/$name-nobox-$i.json" | jq -c '.[]') >&2 || true
		fi
	done
	local box nobox cases
	box=$(median "$dir/$name-box.ms")
	nobox=$(median "$dir/$name-nobox.ms")
	cases=$(jq '.summary.cases' "$dir/$name-box-1.json")
	echo "$name ($cases cases, $pairs pairs): --no-box median ${nobox} ms, box median ${box} ms, ratio $(awk -v b="$box" -v n="$nobox" 'BEGIN {printf "%.2f", b/n}')"
	jq -r '.run.containment | map("  containment: " + .) | .[]' "$dir/$name-box-1.json"
}

run_target demo demo
run_target everything -- node "$mods/server-everything/dist/index.js" stdio
run_target memory --env "MEMORY_FILE_PATH=$dir/memory.jsonl" -- node "$mods/server-memory/dist/index.js"
mkdir -p "$dir/fsroot/sub" && echo hello >"$dir/fsroot/a.txt"
run_target filesystem -- node "$mods/server-filesystem/dist/index.js" "$dir/fsroot"
