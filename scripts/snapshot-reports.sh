#!/usr/bin/env bash
# Writes every report mcp-fuzz produces for the demo and every fixture under
# testdata/servers into OUTDIR, with the run-dependent fields (timings, start
# time, version) zeroed, so two snapshots can be compared with `diff -r`.
# Used to show that a refactor leaves every report byte for byte the same.
#
# Usage: scripts/snapshot-reports.sh [--rev REV] [--render-only FROM] OUTDIR
#   --rev REV           build mcp-fuzz from commit REV instead of the working
#                       tree (the fixtures always come from the working tree)
#   --render-only FROM  audit nothing: render the report.json files of the
#                       snapshot FROM (the byte-exact check of the renderers,
#                       free of the timing races some hostile fixtures have)
#
# Each target is audited once with --seed 1 --timeout 1s --include-destructive
# (the fixtures are this repository's own and delete nothing). Every format is
# rendered twice: by the audit itself (-o) and by `mcp-fuzz report` from the
# normalized JSON, which is the byte-exact check of the renderers.
#
# Some fixtures race by design, so two audits of them can differ with no code
# change: hostile-dup-ids (when the duplicate answer lands), hostile-inherited-fds
# (ls -l of /proc), hostile-stderr-flood, hostile-secret-echo and stderr-panic
# (how much stderr is read before the exit), slow-bloated (the median latency
# in a message); on a loaded machine also hostile-bounds (how many stdout
# lines arrive within a call) and hostile-huge-answers (a slow flag). Compare
# them, and merged.*, with --render-only.
set -euo pipefail
shopt -s nullglob

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"

rev=""
from=""
while [[ $# -gt 1 ]]; do
	case "$1" in
	--rev) rev="$2"; shift 2 ;;
	--render-only) from="$(realpath "$2")"; shift 2 ;;
	*) break ;;
	esac
done
[[ $# -eq 1 ]] || { echo "usage: $0 [--rev REV] OUTDIR" >&2; exit 2; }
out="$(realpath -m "$1")"
command -v jq >/dev/null || { echo "$0: jq not found" >&2; exit 2; }

# The build directory is part of every target command: normalize spells it BIN.
bin="$(mktemp -d "${TMPDIR:-/tmp}/mcp-fuzz-snapshot.XXXXXX")"
src=""
cleanup() {
	rm -rf "${bin}"
	[[ -z "${src}" ]] || git worktree remove --force "${src}" >/dev/null 2>&1 || true
}
trap cleanup EXIT
rm -rf "${out}"
mkdir -p "${out}"
if [[ -n "${rev}" ]]; then
	src="$(mktemp -d)"
	git worktree add --detach "${src}" "${rev}" >/dev/null 2>&1
	(cd "${src}" && go build -o "${bin}/mcp-fuzz" ./cmd/mcp-fuzz)
else
	go build -o "${bin}/mcp-fuzz" ./cmd/mcp-fuzz
fi
go build -o "${bin}/" ./testdata/servers/...

# normalize zeroes what differs from run to run.
normalize() {
	jq -S --arg bin "${bin}" 'walk(if type == "string" then split($bin) | join("BIN")
		elif type == "object" then
		(if has("durationMs") then .durationMs = 0 else . end)
		| (if has("p50Ms") then .p50Ms = 0 else . end)
		| (if has("p95Ms") then .p95Ms = 0 else . end)
		| (if has("startedAt") then .startedAt = "2000-01-01T00:00:00Z" else . end)
		| (if has("elapsedMs") then .elapsedMs = 0 else . end)
		else . end) | .version = "snapshot"' "$1"
}

targets=(demo)
for d in testdata/servers/*/; do
	name="$(basename "${d}")"
	case "${name}" in internal | bench-*) continue ;; esac
	targets+=("${name}")
done

mf="${bin}/mcp-fuzz"

# audit runs mcp-fuzz on target $1 and leaves the normalized JSON report in
# $2/report.json (empty when the run wrote none), the exit code and stderr in
# $2/run.
audit() {
	local t="$1" dir="$2" rc=0 cmd
	mkdir -p "${dir}/run"
	local flags=(--seed 1 --timeout 1s --include-destructive --format json -o "${dir}/run/r.svg")
	if [[ "${t}" == demo ]]; then
		cmd=("${mf}" demo "${flags[@]}")
	else
		cmd=("${mf}" "${flags[@]}" -- "${bin}/${t}")
	fi
	(cd "${dir}" && NO_COLOR=1 timeout 300 "${cmd[@]}" >"${dir}/run/raw.json" 2>"${dir}/run/stderr") || rc=$?
	echo "${rc}" >"${dir}/run/rc"
	if [[ -s "${dir}/run/raw.json" ]]; then
		normalize "${dir}/run/raw.json" >"${dir}/report.json"
	else
		: >"${dir}/report.json"
	fi
	rm "${dir}/run/raw.json"
	# Timings also appear on stderr (progress); zero them there.
	sed -E -i -e 's/[0-9]+(\.[0-9]+)? ?(ms|s)\b/N\2/g' -e "s|${bin}|BIN|g" "${dir}/run/stderr"
}

# render writes every format of $1/report.json into $1/report.
render() {
	local dir="$1" f
	mkdir -p "${dir}/report"
	cd "${dir}"
	for f in md sarif xml svg json jsonl; do
		NO_COLOR=1 "${mf}" report report.json -o "report/r.${f}" >/dev/null 2>&1 || echo "report .${f} failed" >>report/errors
	done
	NO_COLOR=1 "${mf}" report report.json >report/stdout.txt 2>&1 || true
}

for t in "${targets[@]}"; do
	dir="${out}/${t}"
	mkdir -p "${dir}"
	if [[ -n "${from}" ]]; then
		cp "${from}/${t}/report.json" "${dir}/report.json"
	else
		audit "${t}" "${dir}"
	fi
	[[ -s "${dir}/report.json" ]] && (render "${dir}")
done
all=()
for t in "${targets[@]}"; do [[ -s "${out}/${t}/report.json" ]] && all+=("${out}/${t}/report.json"); done
(
	cd "${out}"
	"${mf}" merge "${all[@]#"${out}/"}" -o merged.md -o merged.json >/dev/null 2>merge-errors || true
)
echo "snapshot of ${#targets[@]} targets in ${out}"
