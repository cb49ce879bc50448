-- Follows count_out_silent.lua, which scripts() puts before it.
-- KEYS[3] the facts, KEYS[4] the workers that finished (a hash: how many facts each holds), KEYS[5]
-- the audited mark (the auditor and when, by Redis's clock), KEYS[6...] the frontier; ARGV[3] the
-- worker's CrawlInfo (a fact line), ARGV[4] why it leaves: 'done' (the crawl is), 'stop' (the
-- worker closes before that), 'depart' (it audited and has read the facts), ARGV[5] how many facts
-- it holds (its own and those of others it read).
-- A finished worker waits for those still registered, so that a worker counted out later, not the
-- audit, is what a dead one costs. Then the one that holds the most facts (ties: the first by name)
-- audits, once, since it reads the fewest back, while the others leave; it stays registered until it
-- has read the facts, so that a worker starting meanwhile does not clear them. The last one to go
-- clears the frontier of an audited crawl. A worker that stops hands back what it took and had not
-- started (its requests in flight it finished, and acknowledged, first).
redis.call('SREM', KEYS[2], ARGV[1])
if ARGV[4] == 'stop' then hand_back(ARGV[1]) end
if ARGV[4] == 'done' and redis.call('EXISTS', KEYS[5]) == 0 then
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[5])
  local auditor, most = nil, -1
  for _, worker in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local stored = redis.call('HGET', KEYS[4], worker)
    if not stored then return {'wait', gone} end
    stored = tonumber(stored)
    if stored > most or (stored == most and worker < auditor) then auditor, most = worker, stored end
  end
  if auditor ~= ARGV[1] then return {'wait', gone} end
  local time = redis.call('TIME')
  redis.call('SET', KEYS[5], string.format('%s %d.%06d', ARGV[1], tonumber(time[1]), tonumber(time[2])))
  redis.call('RPUSH', KEYS[3], ARGV[3])
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  return {'audit', gone}
end
if ARGV[4] ~= 'depart' then redis.call('RPUSH', KEYS[3], ARGV[3]) end
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZCARD', KEYS[1]) == 0 and redis.call('EXISTS', KEYS[5]) == 1 then
  for i = 6, #KEYS do redis.call('DEL', KEYS[i]) end
end
return {'left', gone}
