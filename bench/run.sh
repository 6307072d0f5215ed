#!/usr/bin/env bash
# Runs the mcp-fuzz benchmarks and prints a Markdown table of results (see
# bench/README.md). Builds mcp-fuzz, the bench fixtures and the bench programs
# into a temporary directory that is removed at the end; everything runs on
# this machine over stdio, nothing listens on a network.
#
# Usage: bench/run.sh [--rev REV] [--json FILE] [benchrun flags...]
#   --rev REV    build mcp-fuzz from commit REV instead of the working tree
#                (the fixtures and bench programs always come from the tree)
#   --json FILE  also write every measurement to FILE
#   other flags go to benchrun, e.g. --rows a,c --reps 5 --big-timeout 600s
#
# The whole run is bounded by BENCH_TIMEOUT seconds (default 2400).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "${here}/.." && pwd)"
cd "${root}"

rev=""
args=()
while [[ $# -gt 0 ]]; do
	case "$1" in
	--rev) rev="$2"; shift 2 ;;
	--rev=*) rev="${1#--rev=}"; shift ;;
	--json) args+=(-json "$(realpath -m "$2")"); shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done

for tool in go prlimit timeout; do
	command -v "${tool}" >/dev/null || { echo "bench/run.sh: ${tool} not found" >&2; exit 2; }
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/mcp-fuzz-bench.XXXXXX")"
cleanup() { rm -rf "${tmp}"; }
trap cleanup EXIT
mkdir -p "${tmp}/bin" "${tmp}/work"

if [[ -n "${rev}" ]]; then
	commit="$(git rev-parse --short "${rev}")"
	mkdir "${tmp}/src"
	git archive "${rev}" | tar -x -C "${tmp}/src"
	(cd "${tmp}/src" && go build -o "${tmp}/bin/mcp-fuzz" ./cmd/mcp-fuzz)
	built="commit ${commit}"
else
	commit="$(git rev-parse --short HEAD)"
	built="working tree at ${commit}"
	if [[ -n "$(git status --porcelain -- cmd internal pkg go.mod go.sum)" ]]; then
		built+=" + uncommitted changes"
	fi
	go build -o "${tmp}/bin/mcp-fuzz" ./cmd/mcp-fuzz
fi
go build -o "${tmp}/bin/" ./bench/cmd/rawfloor ./bench/cmd/benchrun \
	./testdata/servers/bench-tools ./testdata/servers/bench-huge

echo "mcp-fuzz benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "mcp-fuzz: ${built}; $(go version | cut -d' ' -f3-4); $(nproc) cores; $(free -g | awk '/^Mem:/ {print $2 " GiB"}') RAM"
echo

start=${SECONDS}
timeout --kill-after=30 "${BENCH_TIMEOUT:-2400}" "${tmp}/bin/benchrun" \
	-bin "${tmp}/bin" -work "${tmp}/work" \
	-node-modules "${root}/e2e/testdata/node_modules" "${args[@]}"
echo
echo "(benchmarks took $((SECONDS - start)) s)"
