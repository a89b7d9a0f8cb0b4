-- rocelab.lua: Wireshark/tshark dissector for rocelab's Geneve datagrams (UDP 6081).
--
-- Decodes every Geneve packet of a datagram: one frame, a train of frames (option 0x22 train
-- length on every packet but the last), or a control packet (O bit, options only: a promise).
-- Names our class-0xFFF0 options (docs/wire.md §3) and hands each inner frame to Wireshark's own
-- Ethernet dissector, so it decodes down to IPv4 / UDP 4791 / InfiniBand BTH; the body of a UET
-- pull (BTH opcode 0xC0, manufacturer-specific, docs/wire.md §1.6a) is named here.
--
-- Load:  wireshark -X lua_script:deploy/wireshark/rocelab.lua   (or tshark -X lua_script:...)
-- or copy this file into the personal Lua plugins folder (Help > About > Folders), e.g.
-- ~/.local/lib/wireshark/plugins/. It takes UDP 6081 over from the built-in Geneve dissector;
-- other ports: Decode As… "ROCELAB" (tshark: -d udp.port==N,rocelab).
--
-- A bundle (lockstep runs with several nodes per process, docs/realtime.md "Bundles": first byte
-- 0xB5) carries the datagrams one process sent another in one turn, each with the IPv4 address
-- and UDP port it came from and went to: every datagram in it is decoded as above.

local rocelab = Proto("rocelab", "rocelab Geneve (frames, trains, promises)")

local CLASS = 0xFFF0
local GENEVE_HEADER = 8

local OPTION_NAMES = {
  [0x01] = "HPCC INT",
  [0x02] = "MPCC INT",
  [0x03] = "HPCC active flows",
  [0x04] = "HPCC queue length high bits",
  [0x10] = "TX timestamp",
  [0x11] = "timestamp echo",
  [0x12] = "window",
  [0x13] = "ECN count",
  [0x14] = "CNP period",
  [0x15] = "fields",
  [0x16] = "SACK",
  [0x17] = "pull target",
  [0x20] = "meta",
  [0x21] = "arrival stamp",
  [0x22] = "train length",
  [0x23] = "promise",
  [0x24] = "link sequence",
  [0x25] = "end bound",
  [0x26] = "heard",
  [0x27] = "nack",
  [0x28] = "ack",
  [0x30] = "trimmed",
}

-- HPCC INT's 3-bit rate code indexes the run's line-rate table (docs/wire.md "Rate codes"): the
-- HPCC simulator's 25/50/100/200/400G when every switch port of the scenario runs at one of
-- those, else the scenario's distinct switch-port rates in ascending order. The capture does not
-- carry it: set the preference to the run's table (Gbit/s, comma-separated), e.g.
--   tshark -o rocelab.hpcc_rates:10,40,100 ...
local NS3_RATES = "25,50,100,200,400"
rocelab.prefs.hpcc_rates = Pref.string("HPCC INT rate table (Gbit/s)", NS3_RATES,
  "The run's HPCC INT line-rate table, code 0 first (docs/wire.md \"Rate codes\")")

-- Code -> bit/s of the table in the preference; codes past it (and a malformed preference) give 0.
local function hpcc_rate_bps(code)
  local i = 0
  for g in string.gmatch(rocelab.prefs.hpcc_rates, "[^,%s]+") do
    if i == code then
      local v = tonumber(g)
      return v ~= nil and v * 1e9 or 0
    end
    i = i + 1
  end
  return 0
end

local f = {
  packets = ProtoField.uint16("rocelab.packets", "Geneve packets in datagram", base.DEC),
  packet = ProtoField.uint16("rocelab.packet", "Geneve packet", base.DEC),
  version = ProtoField.uint8("rocelab.geneve.version", "Version", base.DEC, nil, 0xC0),
  optlen = ProtoField.uint8("rocelab.geneve.optlen", "Options length (4-byte words)", base.DEC, nil, 0x3F),
  oam = ProtoField.bool("rocelab.geneve.oam", "O (control packet)", 8, nil, 0x80),
  critical = ProtoField.bool("rocelab.geneve.critical", "C (critical options)", 8, nil, 0x40),
  protocol = ProtoField.uint16("rocelab.geneve.protocol", "Protocol type", base.HEX),
  vni = ProtoField.uint24("rocelab.geneve.vni", "VNI (sender egress port)", base.HEX_DEC),
  inner_len = ProtoField.uint32("rocelab.inner_len", "Inner frame length", base.DEC),
  control = ProtoField.bool("rocelab.control", "Control packet (promise only)"),
  opt_class = ProtoField.uint16("rocelab.option.class", "Class", base.HEX),
  opt_type = ProtoField.uint8("rocelab.option.type", "Type", base.HEX, OPTION_NAMES),
  opt_len = ProtoField.uint8("rocelab.option.length", "Data bytes", base.DEC),
  opt_data = ProtoField.bytes("rocelab.option.data", "Data"),
  arrival = ProtoField.double("rocelab.arrival_ns", "Arrival stamp (ns)"),
  train_len = ProtoField.uint32("rocelab.train_len", "Train length (inner frame bytes)", base.DEC),
  promise = ProtoField.double("rocelab.promise_ns", "Promise (ns)"),
  end_bound = ProtoField.double("rocelab.end_bound_ns", "End bound (ns): the run ends no earlier (lockstep)"),
  heard = ProtoField.double("rocelab.heard_ns", "Heard (ns): the promise the sender heard from the receiver"),
  link_seq = ProtoField.uint32("rocelab.link_seq", "Link sequence", base.DEC),
  nack_seq = ProtoField.uint32("rocelab.nack_seq", "Nack: first reverse-link sequence missing", base.DEC),
  ack_seq = ProtoField.uint32("rocelab.ack_seq", "Ack: next reverse-link sequence expected", base.DEC),
  hpcc_nhop = ProtoField.uint16("rocelab.hpcc.nhop", "HPCC nhop", base.DEC),
  hpcc_hop = ProtoField.uint8("rocelab.hpcc.slot", "HPCC hop slot", base.DEC),
  hpcc_rate = ProtoField.uint8("rocelab.hpcc.rate", "Line rate code", base.DEC),
  hpcc_rate_bps = ProtoField.double("rocelab.hpcc.rate_bps", "Line rate (bit/s, rate table preference; 0: none)"),
  hpcc_time = ProtoField.uint32("rocelab.hpcc.time_ns", "Dequeue time (ns mod 2^24)", base.DEC),
  hpcc_tx = ProtoField.uint32("rocelab.hpcc.tx_units", "Bytes sent (units of 128·multi)", base.DEC),
  hpcc_qlen = ProtoField.uint32("rocelab.hpcc.qlen_units", "Queue length (units of 80·multi)", base.DEC),
  mpcc_nhop = ProtoField.uint16("rocelab.mpcc.nhop", "MPCC nhop", base.DEC),
  mpcc_qlen = ProtoField.uint32("rocelab.mpcc.qlen_bytes", "Queue length (bytes)", base.DEC),
  mpcc_flows = ProtoField.uint16("rocelab.mpcc.active_flows", "Active flows", base.DEC),
  active_flows = ProtoField.uint16("rocelab.active_flows", "Active flows (HPCC slot)", base.DEC),
  qlen_high = ProtoField.uint16("rocelab.hpcc.qlen_high_units", "Queue length bits 17..32 (units of 80·multi · 2^17, HPCC slot)", base.DEC),
  tx_ts = ProtoField.uint64("rocelab.tx_ts_ns", "TX timestamp (ns)", base.DEC),
  ts_echo = ProtoField.uint64("rocelab.ts_echo_ns", "Timestamp echo (ns)", base.DEC),
  window = ProtoField.uint32("rocelab.window_bytes", "Window (bytes)", base.DEC),
  ecn_count = ProtoField.uint32("rocelab.ecn_count", "ECN count", base.DEC),
  cnp_period = ProtoField.uint32("rocelab.cnp_period_ns", "CNP period (ns)", base.DEC),
  sack_last_hop = ProtoField.bool("rocelab.sack.last_hop", "Last-hop trim (NACK)", 32, nil, 0x80000000),
  sack_ref = ProtoField.uint32("rocelab.sack.ref_psn", "Answers PSN", base.DEC, nil, 0x00ffffff),
  sack_base = ProtoField.uint32("rocelab.sack.base_psn", "Bitmap base PSN", base.DEC),
  sack_lo = ProtoField.uint32("rocelab.sack.bits_lo", "Bitmap base..base+31", base.HEX),
  sack_hi = ProtoField.uint32("rocelab.sack.bits_hi", "Bitmap base+32..base+63", base.HEX),
  sack_ooo = ProtoField.uint32("rocelab.sack.ooo", "Packets held out of order", base.DEC),
  pull_target = ProtoField.uint32("rocelab.pull_target", "Pull target (256-byte quanta, cumulative)", base.DEC),
  pull_quanta = ProtoField.uint32("rocelab.pull.quanta", "Credit granted (256-byte quanta, cumulative)", base.DEC),
  pull_slow = ProtoField.bool("rocelab.pull.slow", "Slow pull (beyond the sender's target)", 8, nil, 0x01),
  field_name = ProtoField.string("rocelab.field.name", "Field", base.UNICODE),
  field_u32 = ProtoField.uint32("rocelab.field.u32", "Value (u32)", base.DEC),
  field_f64 = ProtoField.double("rocelab.field.f64", "Value (f64)"),
  meta_prio = ProtoField.uint8("rocelab.meta.prio", "Priority", base.DEC),
  meta_id = ProtoField.uint64("rocelab.meta.id", "Packet id", base.DEC),
  trim_hop = ProtoField.uint8("rocelab.trim.hop", "Trimmed at switch hop", base.DEC),
  trim_last_hop = ProtoField.bool("rocelab.trim.last_hop", "Last hop (egress faced the destination)", 8, nil, 0x01),
  trim_payload = ProtoField.uint16("rocelab.trim.payload_len", "Payload length before trimming", base.DEC),
  bundle_count = ProtoField.uint16("rocelab.bundle.count", "Datagrams in bundle", base.DEC),
  bundle_version = ProtoField.uint8("rocelab.bundle.version", "Bundle version", base.DEC),
  bundle_src = ProtoField.ipv4("rocelab.bundle.src", "From"),
  bundle_src_port = ProtoField.uint16("rocelab.bundle.src_port", "From port", base.DEC),
  bundle_dst = ProtoField.ipv4("rocelab.bundle.dst", "To"),
  bundle_dst_port = ProtoField.uint16("rocelab.bundle.dst_port", "To port", base.DEC),
  bundle_len = ProtoField.uint16("rocelab.bundle.length", "Datagram length", base.DEC),
}
local list = {}
for _, v in pairs(f) do
  list[#list + 1] = v
end
rocelab.fields = list

local ef_malformed = ProtoExpert.new("rocelab.malformed", "Malformed rocelab datagram", expert.group.MALFORMED, expert.severity.ERROR)
local ef_inner = ProtoExpert.new("rocelab.inner_malformed", "Malformed inner frame", expert.group.MALFORMED, expert.severity.ERROR)
rocelab.experts = { ef_malformed, ef_inner }

local eth = Dissector.get("eth_withoutfcs")

-- Shortest of %.15g / %.17g that reads back as the same double.
local function fmt_ns(v)
  if v == math.huge then
    return "+inf"
  elseif v == -math.huge then
    return "-inf"
  end
  local s = string.format("%.15g", v)
  if tonumber(s) ~= v then
    s = string.format("%.17g", v)
  end
  return s
end

-- The value an option's tree line shows, for the options of one value.
local function option_summary(tvb, type, d, n)
  if (type == 0x21 or type == 0x23 or type == 0x25 or type == 0x26) and n == 8 then
    return fmt_ns(tvb(d, 8):float()) .. " ns"
  elseif (type == 0x10 or type == 0x11) and n == 8 then
    return tvb(d, 8):uint64():tonumber() .. " ns"
  elseif (type == 0x22 or type == 0x24 or type == 0x27 or type == 0x28 or type == 0x17 or (type >= 0x12 and type <= 0x14)) and n == 4 then
    return tostring(tvb(d, 4):uint())
  end
  return nil
end

-- One option's data: named fields for our class, raw bytes otherwise.
local function dissect_option(tvb, t, type, d, n)
  if type == 0x01 and n == 44 then
    local nhop = tvb(d + 40, 2):le_uint()
    t:add_le(f.hpcc_nhop, tvb(d + 40, 2))
    for i = 0, math.min(nhop, 5) - 1 do
      local r = tvb(d + 8 * i, 8)
      local w = r:le_uint64()
      local h = t:add(f.hpcc_hop, r, i)
      local code = w:band(7):tonumber()
      h:add(f.hpcc_rate, r, code)
      h:add(f.hpcc_rate_bps, r, hpcc_rate_bps(code)):set_generated()
      h:add(f.hpcc_time, r, w:rshift(3):band(0xFFFFFF):tonumber())
      h:add(f.hpcc_tx, r, w:rshift(27):band(0xFFFFF):tonumber())
      h:add(f.hpcc_qlen, r, w:rshift(47):band(0x1FFFF):tonumber())
    end
  elseif type == 0x02 and n == 32 then
    local nhop = tvb(d, 2):uint()
    t:add(f.mpcc_nhop, tvb(d, 2))
    for i = 0, math.min(nhop, 5) - 1 do
      t:add(f.mpcc_qlen, tvb(d + 2 + 6 * i, 4))
      t:add(f.mpcc_flows, tvb(d + 6 + 6 * i, 2))
    end
  elseif type == 0x03 and n == 12 then
    for i = 0, 4 do
      t:add(f.active_flows, tvb(d + 2 * i, 2))
    end
  elseif type == 0x04 and n == 12 then
    for i = 0, 4 do
      t:add(f.qlen_high, tvb(d + 2 * i, 2))
    end
  elseif type == 0x10 and n == 8 then
    t:add(f.tx_ts, tvb(d, 8))
  elseif type == 0x11 and n == 8 then
    t:add(f.ts_echo, tvb(d, 8))
  elseif type == 0x12 and n == 4 then
    t:add(f.window, tvb(d, 4))
  elseif type == 0x13 and n == 4 then
    t:add(f.ecn_count, tvb(d, 4))
  elseif type == 0x14 and n == 4 then
    t:add(f.cnp_period, tvb(d, 4))
  elseif type == 0x16 and n == 20 then
    t:add(f.sack_last_hop, tvb(d, 4))
    t:add(f.sack_ref, tvb(d, 4))
    t:add(f.sack_base, tvb(d + 4, 4))
    t:add(f.sack_lo, tvb(d + 8, 4))
    t:add(f.sack_hi, tvb(d + 12, 4))
    t:add(f.sack_ooo, tvb(d + 16, 4))
  elseif type == 0x17 and n == 4 then
    t:add(f.pull_target, tvb(d, 4))
  elseif type == 0x15 then
    local p, e = d, d + n
    while p < e do
      local len = tvb(p, 1):uint()
      if len == 0 or p + 2 + len > e then
        break
      end
      local tag = tvb(p + 1 + len, 1):uint()
      local vlen = (tag == 0) and 4 or 8
      if p + 2 + len + vlen > e then
        break
      end
      local ft = t:add_packet_field(f.field_name, tvb(p + 1, len), ENC_UTF_8)
      if tag == 0 then
        ft:add(f.field_u32, tvb(p + 2 + len, 4))
      else
        ft:add(f.field_f64, tvb(p + 2 + len, 8))
      end
      p = p + 2 + len + vlen
    end
  elseif type == 0x20 and n == 12 then
    t:add(f.meta_prio, tvb(d, 1))
    t:add(f.meta_id, tvb(d + 4, 8))
  elseif type == 0x21 and n == 8 then
    t:add(f.arrival, tvb(d, 8))
  elseif type == 0x22 and n == 4 then
    t:add(f.train_len, tvb(d, 4))
  elseif type == 0x23 and n == 8 then
    t:add(f.promise, tvb(d, 8))
  elseif type == 0x24 and n == 4 then
    t:add(f.link_seq, tvb(d, 4))
  elseif type == 0x25 and n == 8 then
    t:add(f.end_bound, tvb(d, 8))
  elseif type == 0x26 and n == 8 then
    t:add(f.heard, tvb(d, 8))
  elseif type == 0x27 and n == 4 then
    t:add(f.nack_seq, tvb(d, 4))
  elseif type == 0x28 and n == 4 then
    t:add(f.ack_seq, tvb(d, 4))
  elseif type == 0x30 and n == 4 then
    t:add(f.trim_hop, tvb(d, 1))
    t:add(f.trim_last_hop, tvb(d + 1, 1))
    t:add(f.trim_payload, tvb(d + 2, 2))
  elseif n > 0 then
    t:add(f.opt_data, tvb(d, n))
  end
end

-- The body of a UET pull (BTH opcode 0xC0) in an inner frame: Wireshark's InfiniBand dissector
-- shows a manufacturer-specific opcode's bytes raw, so name them here.
local function dissect_pull(inner, t)
  local len = inner:len()
  if len < 14 then
    return
  end
  local ip = 14
  if inner(12, 2):uint() == 0x8100 then
    ip = 18
  end
  if len < ip + 20 or inner(ip - 2, 2):uint() ~= 0x0800 or inner(ip, 1):uint() ~= 0x45 then
    return
  end
  if inner(ip + 9, 1):uint() ~= 17 or inner(ip + 22, 2):uint() ~= 4791 then
    return
  end
  local bth = ip + 28
  if len < bth + 12 + 16 or inner(bth, 1):uint() ~= 0xC0 then
    return
  end
  local pt = t:add(rocelab, inner(bth + 12, 16), "UET pull")
  pt:add(f.pull_quanta, inner(bth + 12, 4))
  pt:add(f.pull_slow, inner(bth + 16, 1))
  pt:append_text(": " .. inner(bth + 12, 4):uint() .. " quanta")
end

-- Dissects the Geneve packet at `p`; returns its end offset, or nil and a reason when malformed.
local function dissect_packet(tvb, pinfo, tree, p, index, infos, summary)
  local len = tvb:len()
  if len - p < GENEVE_HEADER then
    return nil, "Geneve header cut short at offset " .. p
  end
  local b0 = tvb(p, 1):uint()
  local opt_end = p + GENEVE_HEADER + bit32.band(b0, 0x3F) * 4
  if opt_end > len then
    return nil, "Geneve options run past the datagram"
  end
  local oam = bit32.band(tvb(p + 1, 1):uint(), 0x80) ~= 0
  local t = tree:add(f.packet, tvb(p, opt_end - p), index)
  t:add(f.version, tvb(p, 1))
  t:add(f.optlen, tvb(p, 1))
  t:add(f.oam, tvb(p + 1, 1))
  t:add(f.critical, tvb(p + 1, 1))
  t:add(f.protocol, tvb(p + 2, 2))
  t:add(f.vni, tvb(p + 4, 3))
  if bit32.rshift(b0, 6) ~= 0 then
    return nil, "Geneve version " .. bit32.rshift(b0, 6)
  end

  local train_len = nil
  local q = p + GENEVE_HEADER
  while q < opt_end do
    if opt_end - q < 4 then
      return nil, "option header runs past OptLen"
    end
    local cls = tvb(q, 2):uint()
    local type = tvb(q + 2, 1):uint()
    local n = bit32.band(tvb(q + 3, 1):uint(), 0x1F) * 4
    if q + 4 + n > opt_end then
      return nil, "option runs past OptLen"
    end
    local name = (cls == CLASS and OPTION_NAMES[type]) or string.format("class 0x%04x type 0x%02x", cls, type)
    local ot = t:add(rocelab, tvb(q, 4 + n), "Option: " .. name)
    ot:add(f.opt_class, tvb(q, 2))
    ot:add(f.opt_type, tvb(q + 2, 1))
    ot:add(f.opt_len, tvb(q + 3, 1), n)
    if cls == CLASS then
      local value = option_summary(tvb, type, q + 4, n)
      if value ~= nil then
        ot:append_text(" = " .. value)
      end
      dissect_option(tvb, ot, type, q + 4, n)
      if type == 0x22 and n == 4 then
        train_len = tvb(q + 4, 4):uint()
      elseif type == 0x23 and n == 8 then
        summary.promise = tvb(q + 4, 8):float()
      elseif type == 0x24 and n == 4 then
        summary.seq = tvb(q + 4, 4):uint()
      end
    elseif n > 0 then
      ot:add(f.opt_data, tvb(q + 4, n))
    end
    q = q + 4 + n
  end

  if oam then
    t:add(f.control, tvb(p + 1, 1), true)
    t:set_text(string.format("Geneve control packet %d, VNI %d", index, tvb(p + 4, 3):uint()))
    if p ~= 0 or opt_end ~= len or train_len ~= nil then
      return nil, "a control packet stands alone, with no inner frame"
    end
    summary.control = true
    return len
  end
  local inner_end = len
  if train_len ~= nil then
    if train_len == 0 or opt_end + train_len >= len then
      return nil, "train length " .. train_len .. " is 0 or overruns the datagram"
    end
    inner_end = opt_end + train_len
  elseif opt_end == len then
    return nil, "Geneve packet with no inner frame"
  end
  t:set_len(inner_end - p)
  t:set_text(string.format("Geneve packet %d, VNI %d, inner frame %d bytes", index, tvb(p + 4, 3):uint(), inner_end - opt_end))
  t:add(f.inner_len, tvb(opt_end, inner_end - opt_end), inner_end - opt_end)
  local proto = tvb(p + 2, 2):uint()
  local inner = tvb(opt_end, inner_end - opt_end):tvb()
  -- A malformed inner frame raises an error in the called dissector: shown, and the next packet
  -- of the train is still dissected.
  local ok, why
  if proto == 0x6558 then
    ok, why = pcall(Dissector.call, eth, inner, pinfo, t)
  else
    ok, why = pcall(DissectorTable.try, DissectorTable.get("ethertype"), proto, inner, pinfo, t)
  end
  if not ok then
    t:add_proto_expert_info(ef_inner, "inner frame " .. index .. ": " .. tostring(why))
  elseif proto == 0x6558 then
    dissect_pull(inner, t)
  end
  infos[#infos + 1] = tostring(pinfo.cols.info)
  return inner_end
end

-- The Info line of a datagram or bundle: its head, what was malformed (also flagged on `root`),
-- then the lines of its parts joined by `sep`.
local function info_line(root, head, err, parts, sep)
  if err ~= nil then
    root:add_proto_expert_info(ef_malformed, err)
    head = head .. " [malformed: " .. err .. "]"
  end
  if #parts > 0 then
    head = head .. ": " .. table.concat(parts, sep)
  end
  return head
end

-- One overlay datagram (its Geneve packets: one frame, a train, or a control packet) under
-- `root`; returns its Info line.
local function dissect_datagram(tvb, pinfo, root)
  local len = tvb:len()
  local infos = {}
  local summary = { control = false, seq = nil, promise = nil }
  local p, index, err = 0, 0, nil
  while p < len do
    index = index + 1
    local e, why = dissect_packet(tvb, pinfo, root, p, index, infos, summary)
    if e == nil then
      err = why
      break
    end
    p = e
  end
  root:add(f.packets, tvb(0, 0), index):set_generated()
  pinfo.cols.protocol = "rocelab"
  local head
  if summary.control then
    head = "rocelab promise " .. fmt_ns(summary.promise or 0 / 0) .. " ns"
  elseif index > 1 then
    head = "rocelab train of " .. index
  else
    head = "rocelab"
  end
  if summary.seq ~= nil then
    head = head .. " seq " .. summary.seq
  end
  if summary.promise ~= nil and not summary.control then
    head = head .. " promise " .. fmt_ns(summary.promise) .. " ns"
  end
  root:append_text(": " .. head)
  return info_line(root, head, err, infos, " | ")
end

local BUNDLE_MAGIC = 0xB5
local BUNDLE_HEADER = 4
local BUNDLE_ENTRY_HEADER = 14

-- A bundle: version, count, then per datagram its addresses, its length and its bytes.
local function dissect_bundle(tvb, pinfo, tree)
  local len = tvb:len()
  local root = tree:add(rocelab, tvb(), "rocelab bundle")
  root:add(f.bundle_version, tvb(1, 1))
  root:add(f.bundle_count, tvb(2, 2))
  local count = tvb(2, 2):uint()
  local heads = {}
  local at = BUNDLE_HEADER
  local err = nil
  if tvb(1, 1):uint() ~= 1 then
    err = "bundle version " .. tvb(1, 1):uint() .. " is not 1"
    count = 0
  end
  for i = 1, count do
    if at + BUNDLE_ENTRY_HEADER > len then
      err = "bundle entry " .. i .. " of " .. count .. " runs past the datagram"
      break
    end
    local n = tvb(at + 12, 2):uint()
    if at + BUNDLE_ENTRY_HEADER + n > len then
      err = "bundle entry " .. i .. " (" .. n .. " bytes) runs past the datagram"
      break
    end
    local from = tostring(tvb(at, 4):ipv4()) .. ":" .. tvb(at + 4, 2):uint()
    local to = tostring(tvb(at + 6, 4):ipv4()) .. ":" .. tvb(at + 10, 2):uint()
    local sub = root:add(rocelab, tvb(at, BUNDLE_ENTRY_HEADER + n), "datagram " .. i .. ", " .. from .. " > " .. to)
    sub:add(f.bundle_src, tvb(at, 4))
    sub:add(f.bundle_src_port, tvb(at + 4, 2))
    sub:add(f.bundle_dst, tvb(at + 6, 4))
    sub:add(f.bundle_dst_port, tvb(at + 10, 2))
    sub:add(f.bundle_len, tvb(at + 12, 2))
    if n >= GENEVE_HEADER then
      heads[#heads + 1] = dissect_datagram(tvb(at + BUNDLE_ENTRY_HEADER, n):tvb(), pinfo, sub)
    else
      sub:add_proto_expert_info(ef_malformed, "datagram of " .. n .. " bytes is shorter than a Geneve header")
      heads[#heads + 1] = "[malformed]"
    end
    at = at + BUNDLE_ENTRY_HEADER + n
  end
  pinfo.cols.protocol = "rocelab"
  local head = "rocelab bundle of " .. count
  root:append_text(" of " .. count .. " datagrams")
  pinfo.cols.info = info_line(root, head, err, heads, " // ")
  return len
end

function rocelab.dissector(tvb, pinfo, tree)
  local len = tvb:len()
  if len >= BUNDLE_HEADER and tvb(0, 1):uint() == BUNDLE_MAGIC then
    return dissect_bundle(tvb, pinfo, tree)
  end
  if len < GENEVE_HEADER then
    return 0
  end
  local root = tree:add(rocelab, tvb())
  local head = dissect_datagram(tvb, pinfo, root)
  pinfo.cols.protocol = "rocelab"
  pinfo.cols.info = head
  return len
end

DissectorTable.get("udp.port"):add(6081, rocelab)
DissectorTable.get("udp.port"):add_for_decode_as(rocelab)
