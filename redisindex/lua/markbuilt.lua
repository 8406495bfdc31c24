-- MarkBuilt: KEYS 7 the rebuild lock; ARGV 1 idle ms, 2 lease token ("" for
-- a queue just created). With a token, the queue is marked built only while
-- the lock still holds that token: a lease that ran out, or was ended by
-- Drop or by Redis losing its data, may have left the rebuild partial.
if ARGV[2] ~= "" and redis.call("GET", KEYS[7]) ~= ARGV[2] then
  return 0
end
redis.call("HSET", K_META, "b", LAYOUT)
redis.call("HDEL", K_META, "rp")
touch_idle(tonumber(ARGV[1]))
return 1
