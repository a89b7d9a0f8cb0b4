/**
 * Where every node of a real run listens: the address map. One UDP socket per node; a link's two
 * ends are the sockets of its two nodes, and the Geneve/VXLAN VNI names the sender's egress port
 * so parallel links between the same two nodes stay apart.
 *
 * Keys are `<node>` (the node's one address) or `<node>:<port>` (an address used for one of its
 * ports, when a launcher gives each link its own subnet, as netns does). Values are `ip:udpPort`.
 * The local launcher gives node i the address 127.A.B.(i+1) in a per-run block, all on the
 * overlay's standard port, so tshark decodes captures with no decode-as.
 */
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

/** Is `ip` one the testbed may send to (design: loopback, or 198.18.0.0/15 of netns/docker)? */
export function isAllowedAddress(ip: string): boolean {
  if (!isIPv4(ip)) return false;
  const [a, b] = ip.split('.').map(Number);
  return a === 127 || (a === 198 && (b === 18 || b === 19)) || ip === '0.0.0.0';
}

export function endpointKey(host: string, port: number): string {
  return `${host}:${port}`;
}

/** Address of (node, port): the per-port entry if the map has one, else the node's. */
export function addressOf(map: AddressMap, node: string, port?: number): Endpoint {
  const raw = (port !== undefined ? map[`${node}:${port}`] : undefined) ?? map[node];
  if (raw === undefined) throw new AddressError(`address map has no entry for ${node}`);
  const ep = parseEndpoint(raw, `address of ${node}`);
  if (!isAllowedAddress(ep.host))
    throw new AddressError(`address of ${node} (${ep.host}) is outside 127.0.0.0/8 and 198.18.0.0/15`);
  return ep;
}

/** Parse ADDRESS_MAP: a JSON object { "<node>[:<port>]": "ip:port" }. */
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
    parseEndpoint(v, `ADDRESS_MAP.${k}`);
    out[k] = v;
  }
  return out;
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
