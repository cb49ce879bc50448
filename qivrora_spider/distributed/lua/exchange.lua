-- KEYS[1] the facts, KEYS[2] the pending statuses, KEYS[3] the duplicate filter, KEYS[4] the queue,
-- KEYS[5] the busy workers, KEYS[6] the URLs asked for; ARGV[2] how many requests to take, ARGV[3] and
-- ARGV[4] how many facts and pending URLs follow, ARGV[5] how many URLs asked for this worker has
-- read, ARGV[6] how many more it reads at most, then the facts and the pending URLs, then a
-- (fingerprint, score, request, URL) quadruple for each request to queue: a fingerprint the filter
-- has seen drops its request ('': queued unfiltered), and the URL of a request queued is listed as
-- asked for ('': not listed). Taking marks the worker busy in the same step. Returns the requests
-- taken (scrapy-redis's queue: lowest score first), the places (0, 1, ...) of the requests dropped as
-- seen, the length of the facts list (the facts stored last), the URLs the others asked for since
-- this worker last read them, and how many it has read now. Those are read before its own are
-- listed, so that it skips its own unless it had more to read than it may.
local asked, most = {}, tonumber(ARGV[6])
if most > 0 then asked = redis.call('LRANGE', KEYS[6], ARGV[5], tonumber(ARGV[5]) + most - 1) end
local at = 7
for i = at, at + tonumber(ARGV[3]) - 1 do redis.call('RPUSH', KEYS[1], ARGV[i]) end
at = at + tonumber(ARGV[3])
for i = at, at + tonumber(ARGV[4]) - 1 do redis.call('SADD', KEYS[2], ARGV[i]) end
at = at + tonumber(ARGV[4])
local seen = {}
for i = at, #ARGV, 4 do
  if ARGV[i] ~= '' and redis.call('SADD', KEYS[3], ARGV[i]) == 0 then
    seen[#seen + 1] = (i - at) / 4
  else
    redis.call('ZADD', KEYS[4], ARGV[i + 1], ARGV[i + 2])
    if ARGV[i + 3] ~= '' then redis.call('RPUSH', KEYS[6], ARGV[i + 3]) end
  end
end
local taken = {}
if tonumber(ARGV[2]) > 0 then
  local top = redis.call('ZPOPMIN', KEYS[4], ARGV[2])
  for i = 1, #top, 2 do taken[#taken + 1] = top[i] end
  if #taken > 0 then redis.call('SADD', KEYS[5], ARGV[1]) end
end
local read = tonumber(ARGV[5]) + #asked
if #asked < most then read = redis.call('LLEN', KEYS[6]) end
return {taken, seen, redis.call('LLEN', KEYS[1]), asked, read}
