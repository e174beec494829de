/**
 * The shared rate limits' Lua scripts: each decision is one script, so it is atomic on the
 * server and costs one round trip. Time is the server's (TIME), so relays' clocks never matter.
 *
 * Every rule has three keys (its requests bucket, tokens bucket, leases) and three arguments
 * (requests and tokens per minute, concurrent calls; 0: not limited). A bucket is a hash
 * { u: units used as of a, a: ms, l: the limit it was last used at }, refilled continuously at
 * its limit per minute, exactly as rate-bucket.ts does in memory. Leases are a sorted set of
 * lease ids scored by the ms they expire at.
 */

const BUCKET = `
local now
do local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local function level(key, limit)
  local v = redis.call('HMGET', key, 'u', 'a', 'l')
  local u, a, l = tonumber(v[1]) or 0, tonumber(v[2]) or now, tonumber(v[3]) or limit
  if now > a and u > 0 then u = math.max(0, u - (now - a) * l / 60000) end
  if l ~= limit and u > limit then u = limit end
  return u
end
local function store(key, limit, u)
  redis.call('HSET', key, 'u', tostring(u), 'a', now, 'l', limit)
  redis.call('PEXPIRE', key, math.ceil(u * 60000 / limit) + 1000)
end
`;

/**
 * Admits a call or says why not. ARGV: tokens, leaseMs, leaseId, then each rule's three limits.
 * Reply: { admitted (1|0), waitMs, the index (1-based) of the key that keeps it waiting longest,
 * then per rule: requests remaining, requests reset ms, tokens remaining, tokens reset ms, leases held }.
 */
export const ADMIT_SCRIPT = `${BUCKET}
local tokens, leaseMs, lease = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local n = #KEYS / 3
local used = {}
local wait, reason = 0, 0
for i = 0, n - 1 do
  local rpm, tpm, conc = tonumber(ARGV[4 + i * 3]), tonumber(ARGV[5 + i * 3]), tonumber(ARGV[6 + i * 3])
  if rpm > 0 then
    local u = level(KEYS[1 + i * 3], rpm); used[1 + i * 3] = u
    local over = u + 1 - rpm
    if over > 1e-9 and over * 60000 / rpm > wait then wait, reason = over * 60000 / rpm, 1 + i * 3 end
  end
  if tpm > 0 then
    local u = level(KEYS[2 + i * 3], tpm); used[2 + i * 3] = u
    local over = u + tokens - tpm
    if over > 1e-9 and over * 60000 / tpm > wait then wait, reason = over * 60000 / tpm, 2 + i * 3 end
  end
  if conc > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[3 + i * 3], '-inf', now)
    local held = redis.call('ZCARD', KEYS[3 + i * 3]); used[3 + i * 3] = held
    if held >= conc and 1000 > wait then wait, reason = 1000, 3 + i * 3 end
  end
end
local admitted = 0
if wait == 0 then
  admitted = 1
  for i = 0, n - 1 do
    local rpm, tpm, conc = tonumber(ARGV[4 + i * 3]), tonumber(ARGV[5 + i * 3]), tonumber(ARGV[6 + i * 3])
    if rpm > 0 then used[1 + i * 3] = used[1 + i * 3] + 1; store(KEYS[1 + i * 3], rpm, used[1 + i * 3]) end
    if tpm > 0 then used[2 + i * 3] = used[2 + i * 3] + tokens; store(KEYS[2 + i * 3], tpm, used[2 + i * 3]) end
    if conc > 0 then
      redis.call('ZADD', KEYS[3 + i * 3], now + leaseMs, lease)
      redis.call('PEXPIRE', KEYS[3 + i * 3], leaseMs + 1000)
      used[3 + i * 3] = used[3 + i * 3] + 1
    end
  end
end
local reply = { admitted, math.ceil(wait), reason }
for i = 0, n - 1 do
  local rpm, tpm = tonumber(ARGV[4 + i * 3]), tonumber(ARGV[5 + i * 3])
  for k, limit in ipairs({ rpm, tpm }) do
    local u = used[k + i * 3] or 0
    if limit > 0 then
      reply[#reply + 1] = math.max(0, math.floor(limit - u + 1e-9))
      reply[#reply + 1] = u <= 1e-9 and 0 or math.ceil(u * 60000 / limit)
    else
      reply[#reply + 1] = 0; reply[#reply + 1] = 0
    end
  end
  reply[#reply + 1] = used[3 + i * 3] or 0
end
return reply
`;

/** Ends a call's hold. ARGV: request given back (1|0), tokens given back (negative: taken), leaseId, then each rule's three limits. */
export const SETTLE_SCRIPT = `${BUCKET}
local request, tokens, lease = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
for i = 0, #KEYS / 3 - 1 do
  local rpm, tpm, conc = tonumber(ARGV[4 + i * 3]), tonumber(ARGV[5 + i * 3]), tonumber(ARGV[6 + i * 3])
  if rpm > 0 and request == 1 then store(KEYS[1 + i * 3], rpm, math.max(0, level(KEYS[1 + i * 3], rpm) - 1)) end
  if tpm > 0 and tokens ~= 0 then store(KEYS[2 + i * 3], tpm, math.max(0, level(KEYS[2 + i * 3], tpm) - tokens)) end
  if conc > 0 then redis.call('ZREM', KEYS[3 + i * 3], lease) end
end
return 1
`;

/** Extends leases still held. KEYS: lease sets; ARGV: leaseMs, then one lease id per key. */
export const RENEW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leaseMs = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', now + leaseMs, ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[i], leaseMs + 1000)
end
return #KEYS
`;
