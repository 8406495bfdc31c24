-- wrk script: durable single-message puts to Herald's HTTP API, each to a
-- path of its own (1,000 per connection), with a 1 KiB body.
--   wrk -t2 -c64 -d10s --latency -s bench/put.lua http://127.0.0.1:4566
local body64 = string.rep("QUFB", 1024 / 3) .. "QQ=="  -- 1,024 bytes once decoded
local run = tostring(os.time())
local counter = 0
local thread_id = 0

function setup(thread)
  thread:set("thread_id", thread_id)
  thread_id = thread_id + 1
end

function request()
  counter = counter + 1
  local path = "wrk" .. run .. ".t" .. thread_id .. ".m" .. (counter % 1000)
  return wrk.format("POST", "/v1/messages", {["Content-Type"] = "application/json"},
    '{"metadata":{"paths":["' .. path .. '"]},"body":"' .. body64 .. '"}')
end

