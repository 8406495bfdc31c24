#!/usr/bin/env bash
# The SQS mix through both data centers of the two-DC rig (scripts/dcs):
# one Herald node per DC, both with --dc-peer-redis, queues homed in dc1;
# `herald bench sqs` through dc1 alone, through dc2 alone (every Index call
# crosses to dc1's Redis), then through both at once. BENCHMARKS.md, "Two
# data centers: SQS", quotes it. Needs root (the rig's namespaces) and the
# rig started (scripts/dcs start); run no other load meanwhile.
set -euo pipefail
cd "$(dirname "$0")/../.."
eval "$(scripts/dcs env)"
DURATION=${DURATION:-20s}
KS=herald_bench_dcs
BIN=$(mktemp -d)/herald
go build -o "$BIN" ./cmd/herald
scripts/dcs cql dc1 "DROP KEYSPACE IF EXISTS $KS" >/dev/null

# start DC NETNS HOST REDIS PEER PEER_REDIS PORT: a node, in the background.
start() {
  ip netns exec "$2" "$BIN" serve --listen "$3:$7" --data-dir "$(mktemp -d)" --store cassandra \
    --cassandra-hosts "$3:9042" --cassandra-keyspace $KS --cassandra-replication dc1:1,dc2:1 \
    --cassandra-local-dc "$1" --redis-addr "$4" --dc-peer-redis "$5=$6" \
    --sqs-receipt-secret bench-secret >"$BIN.$1.log" 2>&1 &
  echo $!
}
P1=$(start dc1 "$HERALD_DCS_NETNS1" 10.71.0.1 "$HERALD_DC1_REDIS" dc2 "$HERALD_DC2_REDIS" 4601)
P2=$(start dc2 "$HERALD_DCS_NETNS2" 10.71.0.2 "$HERALD_DC2_REDIS" dc1 "$HERALD_DC1_REDIS" 4602)
trap 'kill $P1 $P2 2>/dev/null; scripts/dcs cql dc1 "DROP KEYSPACE IF EXISTS $KS" >/dev/null' EXIT
DC1=http://10.71.0.1:4601 DC2=http://10.71.0.2:4602
for u in $DC1 $DC2; do
  for _ in $(seq 1 120); do curl -sf "$u/readyz" >/dev/null && break; sleep 1; done
done
bench() { "$BIN" bench sqs --queue-prefix hb-dcs- --queues 4 --keep --duration "$DURATION" "$@"; }
echo "== create the queues through dc1 (their home), warm up through both"
bench --server $DC1 --duration 3s --concurrency 8 | tail -1
bench --server $DC2 --duration 5s --concurrency 8 | tail -1
echo "== through dc1 only (the home)"
bench --server $DC1 --concurrency 32
echo "== through dc2 only (every Index call to dc1's Redis)"
bench --server $DC2 --concurrency 32
echo "== through both at once, 16 workers each"
bench --server $DC1 --concurrency 16 >"$BIN.both1" &
B1=$!
bench --server $DC2 --concurrency 16 >"$BIN.both2"
wait $B1
echo "-- dc1:" && cat "$BIN.both1"
echo "-- dc2:" && cat "$BIN.both2"
