// Package bench holds Herald's end-to-end Go benchmarks: the real HTTP
// handler over the real embedded engine, on a real TCP listener, driven by
// concurrent HTTP clients. Run them with
//
//	go test -run '^$' -bench . -benchtime 10s ./bench/
//
// BENCHMARKS.md records their results with the machine they ran on. The wrk
// script put.lua loads a separately running `herald serve` the same way.
// Three commands live below it: tcpfloor, the plain-TCP floor under a
// WebSocket fan-out; peers, which runs Herald side by side with its peers
// (fauxqs, ElasticMQ, moto, Centrifugo; its README.md); and scale, which
// measures how throughput grows with Herald nodes and with Cassandra nodes
// on the miniature cluster of scripts/cluster, each tier under a CPU quota
// (its README.md). dcs/sqs-mix.sh runs the SQS mix through both data
// centers of the two-DC rig.
package bench
