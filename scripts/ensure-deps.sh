#!/usr/bin/env bash
# Installs what `npm start` and `npm test` need, so a fresh clone runs with those two commands alone:
# the npm dependencies (when missing or older than the lock file) and, with --java (the test suite), a
# Java runtime for DynamoDB Local, zsh and fish for the completion tests, and Chromium for the
# console's browser tests. `npm start` leaves Java
# to the user: it says in one line what to install.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install --no-save` rather than `npm ci`: the lock file cannot list the platform binaries of
  # oxlint that this registry does not serve, and `npm ci` refuses a lock that lacks them.
  echo "installing npm dependencies"
  npm install --no-save --no-audit --no-fund --loglevel=error
fi
if [ "${1:-}" = "--java" ]; then
  # The test suite: a Java runtime for DynamoDB Local, and zsh and fish, whose parsers check the CLI's
  # completion scripts (bash is always there). Debian packages, installed once, all in one go.
  missing=()
  java -version >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
  command -v zsh >/dev/null 2>&1 || missing+=(zsh)
  command -v fish >/dev/null 2>&1 || missing+=(fish)
  # The console's browser tests drive Debian's Chromium (playwright-core, no bundled browser).
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing ${missing[*]} (Debian packages the tests use)"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi
