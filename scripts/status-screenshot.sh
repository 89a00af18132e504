#!/usr/bin/env bash
# Regenerates docs/status.png: the first 1280 × 900 of the status page mid-run in
# TestStatusPageInBrowser (a test farm with 63 finished runs, 60 of them of 300 failed
# jobs, folded to a line each; its own run in progress with failed jobs; the workers'
# current jobs), as headless Chromium shows it. Built with -trimpath, so the panics' stack traces on it name no folder of
# this machine. Needs node and Debian's chromium (apt-get install
# chromium); playwright-core is installed into .ci/cache/ (git-ignored) as .ci/run does.
#
#   bash scripts/status-screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${SCHEDFARM_PLAYWRIGHT_CORE:=$PWD/.ci/cache/statuspage/node_modules/playwright-core}"
if [ ! -e "$SCHEDFARM_PLAYWRIGHT_CORE/index.mjs" ]; then
	npm install --silent --no-audit --no-fund --prefix .ci/cache/statuspage playwright-core@1.64.1
	SCHEDFARM_PLAYWRIGHT_CORE="$PWD/.ci/cache/statuspage/node_modules/playwright-core"
fi
export SCHEDFARM_PLAYWRIGHT_CORE SCHEDFARM_REQUIRE_BROWSER=1 SCHEDFARM_STATUS_PNG="$PWD/docs/status.png"
go test -trimpath ./cmd/schedfarm/ -run '^TestStatusPageInBrowser$' -count=1
echo "wrote docs/status.png"
