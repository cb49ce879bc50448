-- Follows count_out_silent.lua, which scripts() puts before it.
-- KEYS[3] the started mark, KEYS[4] the audited mark ('<auditor> <Redis time>'; the auditor alone
-- in keys written before it had the time), KEYS[5...] what a new crawl clears; ARGV[3] when this
-- worker started, by Redis's clock. A crawl is new when nobody takes part in it and it was audited
-- or never started: the first worker of a crawl whose workers all died resumes it. A worker whose
-- start predates the audit was started with that crawl, and slower to open: it belongs to it, and
-- takes no part in any. A worker that comes back under the identity it had (QIVRORA_WORKER_ID)
-- hands back at once what it held before, without waiting to be counted out.
-- Returns 'starts', 'joins' or 'audited', the workers counted out, how many requests it handed back,
-- and the auditor ('audited' only).
local nobody = redis.call('ZCARD', KEYS[1]) == 0
local audited = redis.call('GET', KEYS[4])
if nobody and audited then
  local auditor, at = string.match(audited, '^(%S+) (%S+)$')
  if at and tonumber(at) > tonumber(ARGV[3]) then return {'audited', gone, 0, auditor} end
end
local new = nobody and (redis.call('EXISTS', KEYS[3]) == 0 or audited)
if new then
  for i = 4, #KEYS do redis.call('DEL', KEYS[i]) end
  redis.call('SET', KEYS[3], ARGV[1])
end
local reclaimed = hand_back(ARGV[1])
redis.call('HDEL', prefix .. 'finished', ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
return {new and 'starts' or 'joins', gone, reclaimed, ''}
