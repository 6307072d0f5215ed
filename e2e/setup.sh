#!/usr/bin/env bash
# Installs the MCP reference servers that the end-to-end tests run, at the
# exact versions pinned in testdata/package-lock.json, into
# testdata/node_modules.
#
# Idempotent: after a successful install it stores a hash of package.json and
# package-lock.json in node_modules/.mcp-fuzz-lock-hash and does nothing on
# later runs while that hash still matches. Install scripts of the packages are
# never run (--ignore-scripts).
#
# Exits 0 without installing anything when node or npm is not on PATH; the Go
# harness (go test -tags e2e ./e2e/) then skips its tests with a message.
set -euo pipefail

here="${BASH_SOURCE[0]}"
case "${here}" in
*/*) here="${here%/*}" ;;
*) here=. ;;
esac
cd "${here}/testdata"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "e2e/setup.sh: node or npm not found on PATH; reference servers not installed" >&2
	exit 0
fi

stamp=node_modules/.mcp-fuzz-lock-hash

# node is present, so use it to hash: sha256sum/shasum differ between systems.
want="$(node -e '
const crypto = require("crypto");
const fs = require("fs");
const h = crypto.createHash("sha256");
for (const f of ["package.json", "package-lock.json"]) h.update(fs.readFileSync(f));
process.stdout.write(h.digest("hex"));
')"

installed=yes
for pkg in server-everything server-memory server-filesystem server-sequential-thinking; do
	if [[ ! -f "node_modules/@modelcontextprotocol/${pkg}/package.json" ]]; then
		installed=no
	fi
done

if [[ "${installed}" == yes && -f node_modules/.package-lock.json && -f "${stamp}" && "$(<"${stamp}")" == "${want}" ]]; then
	echo "e2e/setup.sh: reference servers already installed (lock hash ${want:0:12})"
	exit 0
fi

echo "e2e/setup.sh: installing reference servers with npm ci (node $(node --version), npm $(npm --version))"
npm ci --ignore-scripts --no-audit --no-fund
printf '%s\n' "${want}" >"${stamp}.tmp"
mv "${stamp}.tmp" "${stamp}"
echo "e2e/setup.sh: done"
