#!/usr/bin/env bash
# The playground's end-to-end test (docs/playground.md): builds the page
# (web/build.sh), then drives it in headless Chromium with playwright-core
# (`node --test web/tests/`). Needs Debian's `chromium` (CHROMIUM=/path to
# use another). Screenshot: target/playground-e2e.png.
set -euo pipefail
cd "$(dirname "$0")/.."
web/build.sh
if [ ! -d web/node_modules/playwright-core ]; then
  (cd web && npm ci --no-audit --no-fund)
fi
node --test --test-reporter=spec web/tests/e2e.test.mjs
