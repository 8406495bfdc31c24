-- MarkBuilt: KEYS 7 the rebuild lock; ARGV 1 idle ms, 2 lease token ("" for
-- a queue just created), 3 index epoch. With a token, the queue is marked
-- built only while the lock still holds that token: a lease that ran out,
-- or was ended by Drop or by Redis losing its data, may have left the
-- rebuild partial. Returns 1 when marked, 0 when the lease is lost, -1
-- when the state is of a newer epoch than ARGV 3 (nothing changes).
if ARGV[2] ~= "" and redis.call("GET", KEYS[7]) ~= ARGV[2] then
  return 0
end
local have = tonumber(redis.call("HGET", K_META, "e"))
if have and have > tonumber(ARGV[3]) then
  return -1
end
redis.call("HSET", K_META, "b", LAYOUT, "e", ARGV[3])
redis.call("HDEL", K_META, "rp")
touch_idle(tonumber(ARGV[1]))
return 1
