#!/usr/bin/env bash
# security_cost.sh: what the security cases cost a run on the reference
# servers, and that they prove no flaw there. Runs mcp-fuzz alternately with
# the security cases (the default) and with --security=false on the servers
# installed by e2e/setup.sh (server-everything, server-memory with its file in
# {scratch}, server-filesystem confined to {scratch}, server-sequential-
# thinking; read-only tools only), and prints per server the median wall
# times and their ratio, the case counts, and every security finding (there
# should be none).
# Usage:
#   bench/security_cost.sh [PAIRS]     (default 5)
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
exploits='["path_traversal","command_injection","code_injection","sql_injection","ssrf"]'

run_target() {
	local name=$1
	shift
	for i in $(seq "$pairs"); do
		for mode in on off; do
			start=$(now)
			"$dir/mcp-fuzz" --fail-on none --security="$([ "$mode" = on ] && echo true || echo false)" \
				-o "$dir/$name-$mode-$i.json" "$@" >/dev/null 2>&1 || true
			echo $(( ($(now) - start) / 1000000 )) >>"$dir/$name-$mode.ms"
		done
	done
	local on off found
	on=$(median "$dir/$name-on.ms")
	off=$(median "$dir/$name-off.ms")
	found=$(cat "$dir/$name-on-"*.json | jq -r --argjson e "$exploits" '.findings[] | select(.code as $c | $e | index($c)) | .id' | sort -u)
	echo "$name: $(jq '.summary.cases' "$dir/$name-off-1.json") cases without, $(jq '.summary.cases' "$dir/$name-on-1.json") with ($(jq '[.tools[].cases[]? | select(.kind == "security")] | length' "$dir/$name-on-1.json") security cases); median ${off} ms without, ${on} ms with, ratio $(awk -v a="$on" -v b="$off" 'BEGIN {printf "%.2f", a/b}'); security findings: ${found:-none}"
}

run_target everything -- node "$mods/server-everything/dist/index.js" stdio
run_target memory --env 'MEMORY_FILE_PATH={scratch}/memory.jsonl' -- node "$mods/server-memory/dist/index.js"
run_target filesystem -- node "$mods/server-filesystem/dist/index.js" '{scratch}'
run_target sequential-thinking -- node "$mods/server-sequential-thinking/dist/index.js"
