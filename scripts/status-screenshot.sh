#!/usr/bin/env bash
# Regenerates docs/status.png: the top of the status page at the end of
# TestStatusPageInBrowser (a test farm with 60 finished runs of 300 failed jobs, whose own
# run has failed jobs, a coordinator failover and a claim verdict), as headless Chromium
# shows it. Built with -trimpath, so the panics' stack traces on it name no folder of
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
