/**
 * Which addresses a webhook or callback may reach: public ones only. The same rules run at
 * registration (on the URL) and at delivery (on every address DNS gives), so a name that
 * later resolves to a private address is still refused.
 */

/** Why an address is not public, or undefined when it is. */
export const nonPublicAddress = (address: string): string | undefined => {
  const v4 = parseIPv4(address)
  if (v4 !== undefined) return ipv4Problem(v4)
  const v6 = parseIPv6(address)
  if (v6 === undefined) return "not an IP address"
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms are judged as the IPv4 address they carry.
  if (v6.slice(0, 5).every((x) => x === 0) && (v6[5] === 0xffff || v6[5] === 0)) {
    const inner = [v6[6]! >> 8, v6[6]! & 255, v6[7]! >> 8, v6[7]! & 255]
    if (v6[5] === 0xffff || inner.some((b) => b !== 0)) return ipv4Problem(inner)
  }
  if (v6.every((x) => x === 0)) return "unspecified address"
  if (v6.slice(0, 7).every((x) => x === 0) && v6[7] === 1) return "loopback address"
  if ((v6[0]! & 0xffc0) === 0xfe80) return "link-local address"
  if ((v6[0]! & 0xfe00) === 0xfc00) return "unique local (private) address"
  if ((v6[0]! & 0xff00) === 0xff00) return "multicast address"
  if (v6[0] === 0x2001 && v6[1] === 0x0db8) return "documentation address"
  if (v6[0] === 0x64 && v6[1] === 0xff9b) return "NAT64 address"
  return undefined
}

/** Whether the address is a loopback address (the development switch allows these). */
export const isLoopback = (address: string): boolean => {
  const v4 = parseIPv4(address)
  if (v4 !== undefined) return v4[0] === 127
  const v6 = parseIPv6(address)
  return v6 !== undefined && ((v6.slice(0, 7).every((x) => x === 0) && v6[7] === 1) ||
    (v6.slice(0, 5).every((x) => x === 0) && v6[5] === 0xffff && v6[6]! >> 8 === 127))
}

const ipv4Problem = ([a, b]: ReadonlyArray<number>): string | undefined => {
  if (a === 0) return "unspecified address"
  if (a === 127) return "loopback address"
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return "private address"
  if (a === 169 && b === 254) return "link-local address (cloud metadata lives here)"
  if (a === 100 && b! >= 64 && b! <= 127) return "shared (carrier-grade NAT) address"
  if (a === 192 && b === 0) return "reserved address"
  if (a === 198 && (b === 18 || b === 19)) return "benchmarking address"
  if (a! >= 224) return "multicast or reserved address"
  return undefined
}

const parseIPv4 = (s: string): ReadonlyArray<number> | undefined => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s)
  if (m === null) return undefined
  const parts = m.slice(1).map(Number)
  return parts.every((p) => p <= 255) ? parts : undefined
}

const parseIPv6 = (input: string): ReadonlyArray<number> | undefined => {
  let s = input.replace(/^\[|\]$/g, "").replace(/%.*$/, "")
  if (!/^[0-9a-fA-F:.]+$/.test(s) || !s.includes(":")) return undefined
  // an embedded dotted IPv4 tail becomes two groups
  const tail = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(s)
  if (tail !== null) {
    const v4 = parseIPv4(tail[1]!)
    if (v4 === undefined) return undefined
    s = s.slice(0, -tail[1]!.length) + `${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`
  }
  const halves = s.split("::")
  if (halves.length > 2) return undefined
  const head = halves[0] === "" ? [] : halves[0]!.split(":")
  const rest = halves.length === 2 ? (halves[1] === "" ? [] : halves[1]!.split(":")) : []
  const missing = 8 - head.length - rest.length
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest]
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined
  return groups.map((g) => parseInt(g, 16))
}

/**
 * Why a webhook or callback URL is refused, or undefined: https with a host that is not an
 * internal name or a non-public IP literal. With `allowLoopbackHttp` (a development switch)
 * `http://127.0.0.1`, `http://[::1]` and `http://localhost` pass too.
 */
export const deliveryUrlProblem = (value: string, allowLoopbackHttp: boolean): string | undefined => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return "is not an absolute URL"
  }
  if (url.username !== "" || url.password !== "") return "must not carry credentials"
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase()
  const loopbackName = host === "localhost" || host.endsWith(".localhost")
  const literal = parseIPv4(host) !== undefined || parseIPv6(host) !== undefined
  if (allowLoopbackHttp && (loopbackName || (literal && isLoopback(host))) && (url.protocol === "http:" || url.protocol === "https:")) {
    return undefined
  }
  if (url.protocol !== "https:") return "must use https"
  if (loopbackName) return "points at a loopback name"
  if (host.endsWith(".internal") || host.endsWith(".local") || !host.includes(".") && !literal) return "points at an internal name"
  if (literal) {
    const problem = nonPublicAddress(host)
    if (problem !== undefined) return `points at a ${problem}`
  }
  return undefined
}
