#!/usr/bin/env bash
# Installs what the test tiers need outside npm: a Java runtime for DynamoDB Local.
set -euo pipefail
if ! java -version >/dev/null 2>&1; then
  echo "installing a Java runtime for DynamoDB Local"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi
