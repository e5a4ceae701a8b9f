#!/usr/bin/env bash
# Installs Debian's redis-server when it is absent. The Arena work queue is a
# real Redis (docs/arena-queue.md): tests start their own redis-server on a
# free loopback port (test/redis), and `make run` starts one under .local/.
# CI and the development machines run as root, so apt-get works as it is.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
	exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
${SUDO} apt-get update
${SUDO} apt-get install -y --no-install-recommends redis-server
command -v redis-server >/dev/null
