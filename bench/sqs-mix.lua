-- wrk script: an SQS send + receive + delete mix against one queue, over
-- the AWS JSON 1.0 protocol, with 1 KiB bodies. wrk is a C load generator
-- that costs a fraction of the CPU of a Go client, so on a 2-core machine
-- it leaves more of it to the server than `herald bench sqs` does.
--
--   url=$(curl -s -X POST http://127.0.0.1:4566/ -H 'X-Amz-Target: AmazonSQS.CreateQueue' \
--     -H 'Content-Type: application/x-amz-json-1.0' -d '{"QueueName":"wrk-mix"}' | sed 's/.*"QueueUrl":"\([^"]*\)".*/\1/')
--   QUEUE_URL=$url wrk -t2 -c64 -d10s --latency -s bench/sqs-mix.lua http://127.0.0.1:4566
--
-- DELAY_MS=N makes each connection wait N ms after every answer before its
-- next request (wrk's delay()), to hold a chosen rate below saturation:
-- 64 connections at DELAY_MS=3 make about 15,000 calls/s on this machine.
-- wrk then measures each request from when it is sent (it does not count
-- the wait of a request that could not be sent on time).
--
-- Each wrk thread alternates SendMessage and ReceiveMessage (one message)
-- and deletes every message it received before anything else, so the mix
-- stays one send, one receive, one delete. The counts per action and the
-- non-200 answers are printed at the end.
local url = os.getenv("QUEUE_URL") or error("set QUEUE_URL to the queue's URL")
local body = string.rep("x", 1024)

local function call(action, json)
  return wrk.format("POST", "/", {
    ["Content-Type"] = "application/x-amz-json-1.0",
    ["X-Amz-Target"] = "AmazonSQS." .. action,
  }, json)
end

local delay_ms = tonumber(os.getenv("DELAY_MS") or "0")

function delay()
  return delay_ms
end

-- Built in init: wrk knows the Host header only once threads start.
local send, receive

function init(args)
  send = call("SendMessage", '{"QueueUrl":"' .. url .. '","MessageBody":"' .. body .. '"}')
  receive = call("ReceiveMessage", '{"QueueUrl":"' .. url .. '","MaxNumberOfMessages":1}')
end

local threads = {}
local handles, step = {}, 0
sends, receives, deletes, received, failures = 0, 0, 0, 0, 0

function setup(thread)
  table.insert(threads, thread)
end

function request()
  local h = table.remove(handles)
  if h then
    deletes = deletes + 1
    return call("DeleteMessage", '{"QueueUrl":"' .. url .. '","ReceiptHandle":"' .. h .. '"}')
  end
  step = step + 1
  if step % 2 == 1 then
    sends = sends + 1
    return send
  end
  receives = receives + 1
  return receive
end

function response(status, headers, body)
  if status ~= 200 then
    failures = failures + 1
    return
  end
  for h in body:gmatch('"ReceiptHandle":"([^"]+)"') do
    received = received + 1
    table.insert(handles, h)
  end
end

function done(summary, latency, requests)
  local t = { sends = 0, receives = 0, deletes = 0, received = 0, failures = 0 }
  for _, thread in ipairs(threads) do
    for k in pairs(t) do
      t[k] = t[k] + thread:get(k)
    end
  end
  local secs = summary.duration / 1e6
  io.write(string.format("SendMessage %d (%.0f/s), ReceiveMessage %d (%.0f/s, %d messages), DeleteMessage %d (%.0f/s), non-200 answers %d\n",
    t.sends, t.sends / secs, t.receives, t.receives / secs, t.received, t.deletes, t.deletes / secs, t.failures))
end
