package main

// pins are the versions of the peers this benchmark installs, the one
// place they are set. Node is the `node` package of the npm registry (a
// Node.js binary): fauxqs needs Node 22.5 or later.
var pins = struct {
	Node, Fauxqs, ElasticMQ, Moto, Centrifugo string
}{
	Node:       "22.23.3",
	Fauxqs:     "2.4.1",
	ElasticMQ:  "1.7.1", // org.elasticmq:elasticmq-server_2.13 on Maven Central
	Moto:       "5.2.5", // moto[server] on PyPI
	Centrifugo: "6.9.1", // the Go module github.com/centrifugal/centrifugo/v6
}
