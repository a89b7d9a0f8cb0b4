/**
 * Where every node of a real run listens: the address map. One UDP socket per node; a link's two
 * ends are the sockets of its two nodes, and the Geneve/VXLAN VNI names the sender's egress port
 * so parallel links between the same two nodes stay apart.
 *
 * Keys are `<node>` (the node's one address) or `<node>:<port>` (an address used for one of its
 * ports, when a launcher gives each link its own subnet, as netns does). Values are `ip:udpPort`,
 * or `name:udpPort` with a DNS name (Kubernetes: `h1.rocelab:6081`, the headless Service's
 * record). A name is never sent to as is: `resolveAddressMap` turns every name into an address
 * and checks that address against the allowed ranges, and `addressOf` refuses unresolved names.
 * The local launcher gives node i the address 127.A.B.(i+1) in a per-run block, all on the
 * overlay's standard port, so tshark decodes captures with no decode-as.
 */
import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';

export const GENEVE_UDP_PORT = 6081;
export const VXLAN_UDP_PORT = 4789;

export interface Endpoint {
  host: string;
  port: number;
}

export type AddressMap = Record<string, string>;

export class AddressError extends Error {
  override name = 'AddressError';
}

export function parseEndpoint(s: string, what: string): Endpoint {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(s.trim());
  if (m === null || !isIPv4(m[1]))
    throw new AddressError(`${what}: expected ip:port, got ${JSON.stringify(s)}`);
  const port = Number(m[2]);
  if (!(port >= 1 && port <= 65535)) throw new AddressError(`${what}: UDP port ${port} out of range`);
  return { host: m[1], port };
}

/** RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, ≤ 253 chars. */
const DNS_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** Is `host` a DNS name (not an IPv4 address, not something else)? */
export function isDnsName(host: string): boolean {
  return !/^[\d.]+$/.test(host) && DNS_NAME.test(host);
}

/** `ip:port` or `name:port`; the host of a name endpoint is the name, unresolved. */
export function parseNamedEndpoint(s: string, what: string): Endpoint {
  const m = /^([^:\s]+):(\d{1,5})$/.exec(s.trim());
  if (m === null || !isDnsName(m[1])) return parseEndpoint(s, what);
  const port = Number(m[2]);
  if (!(port >= 1 && port <= 65535)) throw new AddressError(`${what}: UDP port ${port} out of range`);
  return { host: m[1].toLowerCase(), port };
}

/** Is `ip` one the testbed may send to (design: loopback, or 198.18.0.0/15 of netns/docker)? */
export function isAllowedAddress(ip: string): boolean {
  if (!isIPv4(ip)) return false;
  const [a, b] = ip.split('.').map(Number);
  return a === 127 || (a === 198 && (b === 18 || b === 19)) || ip === '0.0.0.0';
}

/**
 * Address of (node, port): the per-port entry if the map has one, else the node's. Only
 * addresses: an unresolved DNS name is an error here (resolveAddressMap first).
 */
export function addressOf(map: AddressMap, node: string, port?: number): Endpoint {
  const ep = endpointOf(map, node, port);
  if (isDnsName(ep.host))
    throw new AddressError(`address of ${node} is the DNS name ${ep.host}: resolve the address map first`);
  return ep;
}

/** Like addressOf, but a DNS name comes back as the endpoint's host, unresolved. */
export function endpointOf(map: AddressMap, node: string, port?: number): Endpoint {
  const raw = (port !== undefined ? map[`${node}:${port}`] : undefined) ?? map[node];
  if (raw === undefined) throw new AddressError(`address map has no entry for ${node}`);
  const ep = parseNamedEndpoint(raw, `address of ${node}`);
  if (isDnsName(ep.host)) return ep;
  if (!isAllowedAddress(ep.host))
    throw new AddressError(`address of ${node} (${ep.host}) is outside 127.0.0.0/8 and 198.18.0.0/15`);
  return ep;
}

/** Parse ADDRESS_MAP: a JSON object { "<node>[:<port>]": "ip:port" | "name:port" }. */
export function parseAddressMap(text: string): AddressMap {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (err) {
    throw new AddressError(`ADDRESS_MAP is not JSON (${(err as Error).message})`);
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
    throw new AddressError('ADDRESS_MAP must be a JSON object of "node": "ip:port"');
  const out: AddressMap = {};
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v !== 'string') throw new AddressError(`ADDRESS_MAP.${k} must be a string "ip:port"`);
    parseNamedEndpoint(v, `ADDRESS_MAP.${k}`);
    out[k] = v;
  }
  return out;
}

/** Does the map name any host by DNS name? */
export function hasDnsNames(map: AddressMap): boolean {
  return Object.keys(map).some((k) => isDnsName(endpointOf(map, k).host));
}

/** IPv4 address of a name (tests inject; default the system resolver, which reads /etc/hosts). */
export type Lookup = (name: string) => Promise<string>;

export const systemLookup: Lookup = async (name) => (await lookup(name, { family: 4 })).address;

/**
 * The map with every DNS name replaced by its IPv4 address (names are looked up once each).
 * A name that does not resolve, or resolves outside 127.0.0.0/8 and 198.18.0.0/15, is an
 * AddressError: the testbed never sends to an address it was not meant to.
 */
export async function resolveAddressMap(map: AddressMap, look: Lookup = systemLookup): Promise<AddressMap> {
  const names = new Map<string, Promise<string>>();
  const out: AddressMap = {};
  for (const k of Object.keys(map)) {
    const ep = endpointOf(map, k);
    if (!isDnsName(ep.host)) {
      out[k] = map[k];
      continue;
    }
    let p = names.get(ep.host);
    if (p === undefined) {
      p = look(ep.host).catch((err: Error) => {
        throw new AddressError(`cannot resolve ${ep.host} (${k}): ${err.message}`);
      });
      names.set(ep.host, p);
    }
    const ip = await p;
    if (!isAllowedAddress(ip))
      throw new AddressError(`${ep.host} (${k}) resolves to ${ip}, outside 127.0.0.0/8 and 198.18.0.0/15`);
    out[k] = `${ip}:${ep.port}`;
  }
  return out;
}

/**
 * resolveAddressMap, retried while some name does not resolve yet (Kubernetes publishes a pod's
 * record only once the pod has an address), every `retryMs` until `timeoutMs`. A name that
 * resolves to a forbidden address fails at once.
 */
export async function resolveAddressMapRetrying(
  map: AddressMap,
  opts: { timeoutMs: number; retryMs?: number; lookup?: Lookup; onRetry?: (problem: string) => void },
): Promise<AddressMap> {
  const until = Date.now() + opts.timeoutMs;
  for (;;) {
    try {
      return await resolveAddressMap(map, opts.lookup);
    } catch (err) {
      const msg = (err as Error).message;
      if (!(err instanceof AddressError) || !msg.startsWith('cannot resolve') || Date.now() >= until)
        throw err;
      opts.onRetry?.(msg);
      await new Promise((r) => setTimeout(r, opts.retryMs ?? 500));
    }
  }
}

/**
 * Local addresses: node i → 127.A.B.(i+1) (wrapping into the next /24 past 254 nodes), all on
 * `udpPort`. `block` picks A.B so concurrent runs on one machine do not collide.
 */
export function localAddressMap(nodeNames: readonly string[], block: number, udpPort: number): AddressMap {
  const out: AddressMap = {};
  const a = 1 + (Math.floor(block / 250) % 250);
  let b = block % 250;
  let x = 1;
  for (const name of nodeNames) {
    if (x > 254) {
      x = 1;
      b = (b + 1) % 250;
    }
    out[name] = `127.${a}.${b + 1}.${x}:${udpPort}`;
    x++;
  }
  return out;
}
