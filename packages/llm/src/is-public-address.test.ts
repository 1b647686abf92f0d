import { describe, expect, it } from "vitest";
import { isPublicAddress } from "./is-public-address.js";

describe("isPublicAddress", () => {
  it.each([
    "1.1.1.1",
    "8.8.8.8",
    "93.184.215.14",
    "100.63.255.255", // just below CGNAT
    "100.128.0.0", // just above it
    "172.15.255.255", // just below 172.16/12
    "172.32.0.0", // just above it
    "169.253.255.255",
    "192.0.1.255",
    "198.17.255.255",
    "223.255.255.255", // the last unicast address before multicast
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "2001:4860:4860::8888",
    "2001:200::1", // just above 2001::/23
    "::ffff:8.8.8.8", // IPv4-mapped, public
    "::ffff:808:808",
  ])("accepts the public address %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "this network"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.255", "CGNAT"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["192.0.2.1", "documentation"],
    ["192.88.99.1", "6to4 relay"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local with a zone"],
    ["2606:4700::1111%eth0", "a zone on a public address"],
    ["fc00::1", "ULA"],
    ["fd12:3456:789a::1", "ULA"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
    ["::ffff:10.0.0.1", "IPv4-mapped private"],
    ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
    ["::127.0.0.1", "IPv4-compatible (deprecated)"],
    ["64:ff9b::7f00:1", "NAT64"],
    ["2001::1", "Teredo"],
    ["2001:db8::1", "documentation"],
    ["2002:7f00:1::1", "6to4 embedding 127.0.0.1"],
    ["3fff::1", "documentation"],
    ["127.1", "a shorthand IPv4 form"],
    ["2130706433", "a decimal IPv4 form"],
    ["0x7f.0.0.1", "a hex IPv4 form"],
    ["docs.test", "a host name"],
    ["", "empty"],
  ])("refuses %s (%s)", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });
});
