package main

import (
	"runtime/debug"
	"time"

	"github.com/heraldmq/herald/httpapi"
)

// nodeInfo describes this node to the console's admin API.
func nodeInfo(engine, region string) httpapi.NodeInfo {
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	return httpapi.NodeInfo{Version: version, Engine: engine, Started: time.Now().UTC(), Region: region}
}
