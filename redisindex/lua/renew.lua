-- Renew: KEYS 1 lock; ARGV 1 token, 2 lease ms. Extends the lock only if
-- still ours.
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0
