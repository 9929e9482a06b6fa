#!/usr/bin/env bash
# The browser tier needs Debian's chromium: installed here if it is missing (needs root and apt).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
echo "test:report: installing Debian's chromium" >&2
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
