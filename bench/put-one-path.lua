-- wrk script: durable single-message puts to Herald's HTTP API, every one a
-- new message (Herald assigns its message_uuid) on one hot path, with a
-- 1 KiB body. The request is built once, so wrk spends no CPU per request
-- on Lua (compare put.lua, which builds each request to spread puts over
-- 1,000 paths per connection).
--   wrk -t2 -c64 -d10s --latency -s bench/put-one-path.lua http://127.0.0.1:4566/v1/messages
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"metadata":{"paths":["feeds.breaking-news.12345"]},"body":"' .. string.rep("QUFB", 1024 / 3) .. 'QQ=="}'
