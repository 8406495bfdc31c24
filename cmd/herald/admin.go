package main

import (
	"time"

	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/internal/buildinfo"
)

// nodeInfo describes this node to the console's admin API.
func nodeInfo(engine, region string) httpapi.NodeInfo {
	return httpapi.NodeInfo{Version: buildinfo.Get().Version, Engine: engine, Started: time.Now().UTC(), Region: region}
}
