-- Follows count_out_silent.lua, which scripts() puts before it.
-- KEYS[3] the started mark, KEYS[4] the audited mark, KEYS[5...] what a new crawl clears. A crawl is
-- new when nobody takes part in it and it was audited or never started: the first worker of a crawl
-- whose workers all died resumes it. A worker that comes back under the identity it had
-- (QIVRORA_WORKER_ID) hands back at once what it held before, without waiting to be counted out.
-- Returns whether the crawl is new, the workers counted out, and how many requests it handed back.
local new = redis.call('ZCARD', KEYS[1]) == 0
  and (redis.call('EXISTS', KEYS[3]) == 0 or redis.call('EXISTS', KEYS[4]) == 1)
if new then
  for i = 4, #KEYS do redis.call('DEL', KEYS[i]) end
  redis.call('SET', KEYS[3], ARGV[1])
end
local reclaimed = hand_back(ARGV[1])
redis.call('HDEL', prefix .. 'finished', ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
return {new and 1 or 0, gone, reclaimed}
