-- Follows count_out_silent.lua, which scripts() puts before it.
-- KEYS[3] the queue, KEYS[4] the pending statuses, KEYS[5] the done mark; ARGV[3] how many requests
-- the worker still works on (0 when its engine is idle). The worker is idle: the crawl is done when
-- nothing is queued, nobody is busy and no status is pending. Whoever collects the statuses is busy
-- meanwhile, so that nobody else takes the crawl for done. An idle worker that has acknowledged all
-- it worked on holds nothing: leases left in its name were taken by an exchange whose reply it
-- never received (Redis restarted under it), and go back to the queue.
redis.call('ZADD', KEYS[1], now, ARGV[1])
if tonumber(ARGV[3]) > 0 then return {'wait', gone} end
hand_back(ARGV[1])
redis.call('SREM', KEYS[2], ARGV[1])
local verdict = 'done'
if redis.call('EXISTS', KEYS[5]) == 0 then
  if redis.call('ZCARD', KEYS[3]) > 0 or redis.call('SCARD', KEYS[2]) > 0 then
    verdict = 'wait'
  elseif redis.call('SCARD', KEYS[4]) > 0 then
    redis.call('SADD', KEYS[2], ARGV[1])
    verdict = 'settle'
  else
    redis.call('SET', KEYS[5], ARGV[1])
  end
end
return {verdict, gone}
