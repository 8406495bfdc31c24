-- Drop: KEYS 7 the rebuild lock; ARGV 1 group key prefix. Forgets every key
-- of the queue (not its deduplication records) and ends any rebuild lease,
-- so that a rebuild under way cannot mark built what it added before.
for _, key in ipairs({K_GROUPS, K_BLOCKED}) do
  for _, g in ipairs(redis.call("ZRANGE", key, 0, -1)) do
    redis.call("UNLINK", ARGV[1] .. g)
  end
end
redis.call("UNLINK", K_META, K_DATA, K_VIS, K_FLIGHT, K_GROUPS, K_BLOCKED, KEYS[7])
return 1
