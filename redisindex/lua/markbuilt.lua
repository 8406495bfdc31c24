-- MarkBuilt: ARGV 1 idle ms.
redis.call("HSET", K_META, "b", "1")
touch_idle(tonumber(ARGV[1]))
return 1
