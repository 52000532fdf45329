-- Charges weighted token buckets atomically: all of KEYS or none.
-- ARGV: for each key, 4 values (capacity, rate, cost, periodUs), then the TTL in ms.
-- Levels are units x periodUs, refilled by `rate` per elapsed microsecond (see
-- src/domain/ratelimit/tokenBucket.ts, which this mirrors). Time is Redis's own clock.
-- Returns {1, remaining...} when admitted, {0, rejectedIndex, remaining, retryAfterUs} when not.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local n = #KEYS
local levels = {}
local worst, worstWait = 0, 0
for i = 1, n do
  local base = (i - 1) * 4
  local cap = tonumber(ARGV[base + 1])
  local rate = tonumber(ARGV[base + 2])
  local cost = tonumber(ARGV[base + 3])
  local v = redis.call('HMGET', KEYS[i], 'l', 't')
  local level = cap
  if v[1] then
    local stored = tonumber(v[1])
    local full = math.ceil((cap - stored) / rate)
    if full < 0 then full = 0 end
    local elapsed = now - tonumber(v[2])
    if elapsed < 0 then elapsed = 0 end
    if elapsed > full then elapsed = full end
    level = math.min(cap, stored + elapsed * rate)
  end
  levels[i] = level
  if level < cost then
    local wait = math.ceil((cost - level) / rate)
    if wait > worstWait then
      worst = i
      worstWait = wait
    end
  end
end
if worst > 0 then
  local period = tonumber(ARGV[(worst - 1) * 4 + 4])
  return {0, worst - 1, math.floor(levels[worst] / period), worstWait}
end
local ttl = ARGV[n * 4 + 1]
local out = {1}
for i = 1, n do
  local base = (i - 1) * 4
  local after = levels[i] - tonumber(ARGV[base + 3])
  redis.call('HSET', KEYS[i], 'l', string.format('%.0f', after), 't', string.format('%.0f', now))
  redis.call('PEXPIRE', KEYS[i], ttl)
  out[i + 1] = math.floor(after / tonumber(ARGV[base + 4]))
end
return out
