import { BlockList, isIPv4, isIPv6 } from "node:net";

function blockList(family: "ipv4" | "ipv6", subnets: readonly (readonly [string, number])[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, family);
  return list;
}

/**
 * IPv4 ranges that are not globally reachable unicast: the IANA special-purpose registry
 * (RFC 6890 and updates) plus multicast, the reserved class E and broadcast. A page the model asks
 * for must never come from the api's own network, a cloud metadata service (169.254.169.254) or
 * the carrier's (CGNAT).
 */
const NOT_PUBLIC_V4 = blockList("ipv4", [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // CGNAT, RFC 6598
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // TEST-NET-1
  ["192.88.99.0", 24], // 6to4 relay anycast, deprecated by RFC 7526
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // TEST-NET-2
  ["203.0.113.0", 24], // TEST-NET-3
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and 255.255.255.255
]);

/**
 * IPv6 is checked the other way round: only global unicast (2000::/3) is public, which leaves out
 * loopback, unspecified, ULA (fc00::/7), link-local, multicast, the deprecated IPv4-compatible
 * form and NAT64 (64:ff9b::/96, whose embedded IPv4 address we would otherwise have to vet).
 */
const GLOBAL_UNICAST_V6 = blockList("ipv6", [["2000::", 3]]);
const NOT_PUBLIC_V6 = blockList("ipv6", [
  ["2001::", 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4, which embeds an arbitrary IPv4 address
  ["3fff::", 20], // documentation, RFC 9637
]);
const IPV4_MAPPED = blockList("ipv6", [["::ffff:0:0", 96]]);

/**
 * Whether `ip` is a public unicast address, the only kind `fetch_url` may connect to. Anything
 * that is not an IP address in canonical text form, or that carries an IPv6 zone (`%eth0`), is
 * not. An IPv4-mapped IPv6 address is judged by its IPv4 address (BlockList maps it).
 */
export function isPublicAddress(ip: string): boolean {
  if (isIPv4(ip)) return !NOT_PUBLIC_V4.check(ip, "ipv4");
  if (!isIPv6(ip) || ip.includes("%")) return false;
  if (IPV4_MAPPED.check(ip, "ipv6")) return !NOT_PUBLIC_V4.check(ip, "ipv6");
  return GLOBAL_UNICAST_V6.check(ip, "ipv6") && !NOT_PUBLIC_V6.check(ip, "ipv6");
}
