#!/usr/bin/env bash
# What the tests need besides npm packages, made ready before `npm test` runs them: the
# machine's PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379 (started when they are
# down), and Debian's Chromium for the browser tests (npx playwright install cannot download
# browsers here). Safe to run again: whatever is already there is left alone.
set -euo pipefail

wait_for() {
  local what=$1 check=$2
  for _ in $(seq 1 60); do
    if eval "$check" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  echo "$what did not come up" >&2
  return 1
}

if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
fi
wait_for PostgreSQL "pg_isready -h 127.0.0.1 -p 5432 -q"

if ! redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
wait_for Redis "redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG"

if [ ! -x /usr/bin/chromium ]; then
  echo "installing Chromium (Debian's package) for the browser tests"
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "could not install Chromium; the browser tests need /usr/bin/chromium" >&2
    exit 1
  fi
fi
