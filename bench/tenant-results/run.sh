#!/bin/bash
# usage: tenants.sh NAME [server flags...]
name=$1; shift
# Run from the repository root with herald built at /tmp/herald-t; RATE, FLOOD, CA, DUR set the bench.
rm -rf /tmp/tenants-data; mkdir -p /tmp/tenants-data bench/tenant-results
taskset -c 0 /tmp/herald-t serve --listen 127.0.0.1:4700 --data-dir /tmp/tenants-data --log-level warn \
  --aws-access-keys AKIDA:sa:111111111111,AKIDB:sb:222222222222 "$@" > /tmp/tenants-$name.log 2>&1 &
pid=$!
for i in $(seq 50); do curl -sf http://127.0.0.1:4700/healthz >/dev/null && break; sleep 0.2; done
taskset -c 1 /tmp/herald-t bench tenants --server http://127.0.0.1:4700 --key-a AKIDA:sa --key-b AKIDB:sb \
  --rate ${RATE:-500} --flood ${FLOOD:-10} --concurrency-a ${CA:-64} --duration ${DUR:-20s} --json bench/tenant-results/$name.json
kill $pid; wait $pid 2>/dev/null
