/**
 * The client address rate limits count by. Behind a reverse proxy every request comes from the
 * proxy, so the address is taken from `X-Forwarded-For`, but only hops appended by a trusted
 * proxy are believed: the rightmost address that is not a trusted proxy is the client.
 * Without trusted proxies the header is ignored (a client could write any address into it).
 */
import ipaddr from "ipaddr.js"

/** A set of trusted proxy addresses and CIDR ranges (SIGNET_TRUSTED_PROXIES). */
export interface TrustedProxies {
  /** the entries as given */
  readonly entries: ReadonlyArray<string>
  readonly contains: (address: string) => boolean
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]

/** An address as one canonical string (IPv4-mapped IPv6 as IPv4), or undefined when it is not an IP address. */
export const canonicalAddress = (raw: string): string | undefined => {
  const text = raw.trim().replace(/^\[(.*)\](:\d+)?$/, "$1")
  if (!ipaddr.isValid(text)) return undefined
  return ipaddr.process(text).toString()
}

/** Parses `10.0.0.0/8, 192.168.1.7, ::1` (addresses or CIDRs); throws naming the first bad entry. */
export const parseTrustedProxies = (list: ReadonlyArray<string> | string): TrustedProxies => {
  const entries = (typeof list === "string" ? list.split(",") : list).map((e) => e.trim()).filter((e) => e !== "")
  const ranges: Array<Range> = entries.map((entry) => {
    try {
      if (!entry.includes("/")) {
        const address = ipaddr.process(entry)
        return [address, address.kind() === "ipv4" ? 32 : 128]
      }
      const [address, bits] = ipaddr.parseCIDR(entry)
      // ::ffff:10.0.0.0/104 is 10.0.0.0/8: addresses are compared in their IPv4 form.
      if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
        return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96]
      }
      return [address, bits]
    } catch {
      throw new Error(`trusted proxy entry "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, 2001:db8::/32, 127.0.0.1)`)
    }
  })
  return {
    entries,
    contains: (address) => {
      if (!ipaddr.isValid(address)) return false
      const parsed = ipaddr.process(address)
      return ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range as never, bits))
    },
  }
}

/**
 * The client address of a request that reached us from `peer`: `peer` itself unless it is a
 * trusted proxy; then X-Forwarded-For is walked from the right, skipping trusted proxies, and
 * the first address that is not one is the client. Every hop trusted: the leftmost.
 */
export const clientAddress = (peer: string, forwardedFor: string | null, trusted: TrustedProxies | undefined): string => {
  const direct = canonicalAddress(peer) ?? peer
  if (trusted === undefined || trusted.entries.length === 0 || !trusted.contains(direct) || forwardedFor === null) return direct
  const hops = forwardedFor.split(",")
  let client = direct
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonicalAddress(hops[i]!)
    // A hop that is not an address cannot be believed: the last trusted proxy is what we know.
    if (hop === undefined) return client
    client = hop
    if (!trusted.contains(hop)) return hop
  }
  return client
}

/**
 * What per-client limits count: an IPv4 address as it is, an IPv6 client by its /64 network.
 * One IPv6 subscriber is given a whole /64 (RFC 6177), so counting by address would let it
 * take a fresh counter for every request.
 */
export const limitedClient = (address: string): string => {
  const known = limited.get(address)
  if (known !== undefined) return known
  const counted = countedAs(address)
  remember(limited, address, counted)
  return counted
}

const countedAs = (address: string): string => {
  if (!ipaddr.isValid(address)) return address
  const parsed = ipaddr.process(address)
  if (parsed.kind() === "ipv4") return parsed.toString()
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`)
  return `${network.toString()}/64`
}

// Parsing addresses is most of what finding a request's client costs, and the same few clients
// come back request after request: answers are kept, up to a bound that strangers cannot exceed.
const KEPT = 4_096
const limited = new Map<string, string>()

/** Keeps `value` under `key`; a full map is emptied first (a flood of new addresses only costs the parsing again). */
export const remember = <K, V>(map: Map<K, V>, key: K, value: V): void => {
  if (map.size >= KEPT) map.clear()
  map.set(key, value)
}
