-- Deduplicate: KEYS 1 record; ARGV 1 id, 2 window ms. Returns the id
-- recorded first within the window, or false after recording ARGV[1].
local old = redis.call("GET", KEYS[1])
if old then
  return old
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
return false
