/**
 * Which addresses the engine may reach on a caller's behalf (webhooks, callbacks, external
 * identity providers, an external TSA): public unicast ones only. Address classes come from
 * `ipaddr.js` (a kept library, pure JS), not from a hand-kept list. The same rules run on the
 * URL when it is given (registration, creation) and on every address DNS gives at connect time,
 * so a name that later resolves to a private address is still refused (DNS rebinding).
 */
import ipaddr from "ipaddr.js"

type Address = ipaddr.IPv4 | ipaddr.IPv6

// Ranges ipaddr.js 2.5 does not name: IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291 §2.5.5.1).
const EXTRA_V6 = { ipv4Compatible: [[ipaddr.IPv6.parse("::"), 96] as [ipaddr.IPv6, number]] }

const V4_WORDS: Readonly<Record<string, string>> = {
  unspecified: "unspecified address",
  broadcast: "broadcast address",
  multicast: "multicast address",
  linkLocal: "link-local address (cloud metadata lives here)",
  loopback: "loopback address",
  carrierGradeNat: "shared (carrier-grade NAT) address",
  private: "private address",
  reserved: "reserved address",
  as112: "AS112 address",
  amt: "AMT relay address",
}

const V6_WORDS: Readonly<Record<string, string>> = {
  unspecified: "unspecified address",
  linkLocal: "link-local address",
  multicast: "multicast address",
  loopback: "loopback address",
  uniqueLocal: "unique local (private) address",
  deprecatedSiteLocal: "site-local address",
  discard: "discard-only address",
  rfc6145: "IPv4-translated address",
  benchmarking: "benchmarking address",
  amt: "AMT address",
  as112v6: "AS112 address",
  deprecatedOrchid: "ORCHID address",
  orchid2: "ORCHIDv2 address",
  droneRemoteIdProtocolEntityTags: "DRIP address",
  segmentRouting: "segment routing address",
  reserved: "reserved or documentation address",
  ipv4Compatible: "IPv4-compatible address",
}

/** The parsed address, or undefined when `text` is not an IP address (brackets and zone ids are ignored). */
const parseAddress = (text: string): Address | undefined => {
  const s = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "")
  // only the dotted-quad form: a URL parser has already turned 0x7f.1 or 2130706433 into it
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(s) && ipaddr.IPv4.isValid(s)) return ipaddr.IPv4.parse(s)
  if (s.includes(":") && ipaddr.IPv6.isValid(s)) return ipaddr.IPv6.parse(s)
  return undefined
}

/** The IPv4 address an IPv6 transition address carries, with the name of the mechanism. */
export const embeddedIPv4 = (address: ipaddr.IPv6): { readonly mechanism: string; readonly ipv4: ipaddr.IPv4 } | undefined => {
  const p = address.parts
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255])
  switch (address.range() as string) {
    case "ipv4Mapped":
      return { mechanism: "IPv4-mapped", ipv4: v4(p[6]!, p[7]!) }
    case "rfc6145":
      return { mechanism: "IPv4-translated", ipv4: v4(p[6]!, p[7]!) }
    // RFC 3056 §2: 2002:V4ADDR::/48
    case "6to4":
      return { mechanism: "6to4", ipv4: v4(p[1]!, p[2]!) }
    // RFC 4380 §4: the client's address is the last 32 bits, inverted
    case "teredo":
      return { mechanism: "Teredo", ipv4: v4(~p[6]! & 0xffff, ~p[7]! & 0xffff) }
    case "rfc6052": {
      // RFC 6052 §2.2: the well-known /96 carries it in the last 32 bits; the local-use /48 in bits 48..63 and 72..87.
      if (p[1] === 0xff9b && p[2] === 0) return { mechanism: "NAT64", ipv4: v4(p[6]!, p[7]!) }
      return { mechanism: "local-use NAT64", ipv4: new ipaddr.IPv4([p[3]! >> 8, p[3]! & 255, p[4]! & 255, p[5]! >> 8]) }
    }
    default: {
      if (ipaddr.subnetMatch(address, EXTRA_V6, "unicast") === "ipv4Compatible" && address.range() !== "unspecified" && address.range() !== "loopback") {
        return { mechanism: "IPv4-compatible", ipv4: v4(p[6]!, p[7]!) }
      }
      return undefined
    }
  }
}

const v4Problem = (address: ipaddr.IPv4): string | undefined => {
  const range: string = address.range()
  return range === "unicast" ? undefined : (V4_WORDS[range] ?? `${range} address`)
}

const v6Problem = (address: ipaddr.IPv6): string | undefined => {
  const embedded = embeddedIPv4(address)
  if (embedded !== undefined) {
    const inner = v4Problem(embedded.ipv4)
    // Mapped and well-known NAT64 addresses reach the IPv4 address they carry: judged as that address
    // (a DNS64 network gives 64:ff9b::/96 for every IPv4-only receiver).
    if (embedded.mechanism === "IPv4-mapped" || embedded.mechanism === "NAT64") {
      return inner === undefined ? undefined : `${inner} (${embedded.mechanism} ${embedded.ipv4.toString()})`
    }
    // Tunnels and translations (6to4, Teredo, local-use NAT64, IPv4-translated, IPv4-compatible) are
    // refused outright: no receiver needs them, and they can relay to any IPv4 address.
    return `${embedded.mechanism} address${inner === undefined ? "" : ` carrying a ${inner} (${embedded.ipv4.toString()})`}`
  }
  const range: string = address.range()
  return range === "unicast" ? undefined : (V6_WORDS[range] ?? `${range} address`)
}

/** Why an address is not public, or undefined when it is. */
export const nonPublicAddress = (address: string): string | undefined => {
  const parsed = parseAddress(address)
  if (parsed === undefined) return "not an IP address"
  return parsed.kind() === "ipv4" ? v4Problem(parsed as ipaddr.IPv4) : v6Problem(parsed as ipaddr.IPv6)
}

/** Whether the address is a loopback address, also in IPv4-mapped form (the development switch allows these). */
export const isLoopback = (address: string): boolean => {
  const parsed = parseAddress(address)
  if (parsed === undefined) return false
  if (parsed.kind() === "ipv4") return parsed.range() === "loopback"
  const v6 = parsed as ipaddr.IPv6
  return v6.range() === "loopback" || (v6.isIPv4MappedAddress() && v6.toIPv4Address().range() === "loopback")
}

/** Whether `host` (as a URL gives it) is an IP literal. */
export const isAddressLiteral = (host: string): boolean => parseAddress(host) !== undefined

/**
 * A host name as the guard judges it: brackets off, lower case, trailing dots removed
 * (`localhost.` is `localhost`). IDNA is done by the WHATWG URL parser before this.
 */
export const normaliseHost = (hostname: string): string =>
  hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.+$/, "")

// Special-use and internal suffixes (RFC 6761, RFC 6762 appendix G, RFC 7686, RFC 8375) that never name a public receiver.
const INTERNAL_SUFFIXES = ["localhost", "local", "internal", "intranet", "private", "corp", "home", "lan", "home.arpa", "onion", "invalid", "test"]

/** Why a host name is internal, or undefined. */
const internalName = (host: string): string | undefined => {
  if (host === "localhost" || host.endsWith(".localhost")) return "points at a loopback name"
  if (!host.includes(".")) return "points at an internal name"
  if (INTERNAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) return "points at an internal name"
  if (host.endsWith(".arpa")) return "points at an internal name"
  return undefined
}

/**
 * Why a URL the engine would call on a caller's behalf is refused, or undefined: https with a
 * host that is neither an internal name nor a non-public IP literal. With `allowLoopbackHttp`
 * (a development switch) `http://127.0.0.1`, `http://[::1]` and `http://localhost` pass too.
 */
export const deliveryUrlProblem = (value: string, allowLoopbackHttp: boolean): string | undefined => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return "must be an absolute URL"
  }
  if (url.username !== "" || url.password !== "") return "must not carry credentials"
  const host = normaliseHost(url.hostname)
  const literal = isAddressLiteral(host)
  const loopbackName = host === "localhost" || host.endsWith(".localhost")
  if (allowLoopbackHttp && (loopbackName || (literal && isLoopback(host))) && (url.protocol === "http:" || url.protocol === "https:")) {
    return undefined
  }
  if (url.protocol !== "https:") return "must be an https URL"
  if (literal) {
    const problem = nonPublicAddress(host)
    return problem === undefined ? undefined : `points at a ${problem}`
  }
  if (host === "") return "must name a host"
  return internalName(host)
}
