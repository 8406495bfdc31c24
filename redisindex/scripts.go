package redisindex

import (
	"embed"

	"github.com/redis/go-redis/v9"
)

//go:embed lua/*.lua
var luaFiles embed.FS

// The scripts run through EVALSHA, falling back to EVAL (which caches them)
// when Redis does not know them, e.g. after a restart.
var (
	scriptAdd        = queueScript("add")
	scriptRebuildAdd = queueScript("rebuildadd")
	scriptReceive    = queueScript("receive")
	scriptRemove     = queueScript("remove")
	scriptSetVisible = queueScript("setvisible")
	scriptHide       = queueScript("hide")
	scriptCounts     = queueScript("counts")
	scriptDrop       = queueScript("drop")
	scriptMarkBuilt  = queueScript("markbuilt")
	scriptMissing    = queueScript("missing")
	scriptUnlock     = plainScript("unlock")
	scriptRenew      = plainScript("renew")
	scriptDedup      = plainScript("dedup")
)

// queueScript is a script over a queue's state keys, with the shared
// prelude (key names and helpers) in front.
func queueScript(name string) *redis.Script {
	return redis.NewScript(readLua("common") + readLua(name))
}

func plainScript(name string) *redis.Script { return redis.NewScript(readLua(name)) }

func readLua(name string) string {
	b, err := luaFiles.ReadFile("lua/" + name + ".lua")
	if err != nil {
		panic("redisindex: missing script " + name + ": " + err.Error())
	}
	return string(b)
}
