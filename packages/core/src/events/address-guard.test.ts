import ipaddr from "ipaddr.js"
import { describe, expect, it } from "vitest"
import { deliveryUrlProblem, embeddedIPv4, nonPublicAddress, normaliseHost } from "./address-guard.ts"

describe("address guard", () => {
  it.each([
    "http://example.com/hook",
    "https://127.0.0.1/hook",
    "https://127.1.2.3/",
    "https://10.0.0.1/",
    "https://10.255.255.255/x",
    "https://172.16.0.1/",
    "https://172.31.9.9/",
    "https://192.168.1.1/",
    "https://169.254.169.254/latest/meta-data/",
    "https://0.0.0.0/",
    "https://100.64.0.1/",
    "https://[::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:10.0.0.1]/",
    "https://[::ffff:169.254.169.254]/",
    "https://[fe80::1]/",
    "https://[fc00::1]/",
    "https://[fd12:3456::1]/",
    "https://[::]/",
    "https://localhost/hook",
    "https://api.localhost/",
    "https://metadata.google.internal/",
    "https://intranet/",
    "https://user:pw@example.com/",
    "not a url",
    "ftp://example.com/",
  ])("refuses %s", (url) => {
    expect(deliveryUrlProblem(url, false)).toBeDefined()
  })

  // Issue 13 item 15: the classes the hand-kept list missed, and names with a trailing dot.
  it.each([
    ["https://[2002:7f00:1::1]/", /6to4 address carrying a loopback address \(127\.0\.0\.1\)/],
    ["https://[2002:a9fe:a9fe::]/", /6to4 address carrying a link-local/],
    ["https://[2002:5db8:d822::1]/", /6to4 address/],
    // Teredo: client 127.0.0.1 is stored inverted (80ff:fffe)
    ["https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", /Teredo address carrying a loopback address \(127\.0\.0\.1\)/],
    ["https://[2001::1]/", /Teredo address/],
    ["https://[fec0::1]/", /site-local address/],
    ["https://[64:ff9b:1::a00:1]/", /local-use NAT64 address/],
    ["https://[64:ff9b::7f00:1]/", /loopback address \(NAT64 127\.0\.0\.1\)/],
    ["https://[64:ff9b::a9fe:a9fe]/", /link-local/],
    ["https://[::127.0.0.1]/", /IPv4-compatible address/],
    ["https://[::ffff:0:a00:1]/", /IPv4-translated address/],
    ["https://[2001:db8::1]/", /documentation/],
    ["https://localhost./", /loopback name/],
    ["https://LOCALHOST../", /loopback name/],
    ["https://metadata.google.internal./", /internal name/],
    ["https://Metadata.Google.Internal/", /internal name/],
    ["https://metadata.google.internal\u3002/", /internal name/],
    ["https://ｌｏｃａｌｈｏｓｔ/", /loopback name/],
    ["https://127.0.0.1./", /loopback address/],
    ["https://0x7f.1/", /loopback address/],
    ["https://2130706433/", /loopback address/],
    ["https://printer.local/", /internal name/],
    ["https://router.home.arpa/", /internal name/],
    ["https://1.0.0.127.in-addr.arpa/", /internal name/],
  ])("refuses %s", (url, reason) => {
    expect(deliveryUrlProblem(url, false)).toMatch(reason)
  })

  it.each([
    "https://example.com/hook",
    "https://hooks.rp.example:8443/signet",
    "https://8.8.8.8/",
    "https://[2606:4700::1111]/",
    "https://example.com./hook",
    "https://bücher.example/",
    "https://[64:ff9b::808:808]/",
    "https://[::ffff:8.8.8.8]/",
  ])("accepts %s", (url) => {
    expect(deliveryUrlProblem(url, false)).toBeUndefined()
  })

  it("the development switch allows loopback over http, and nothing else", () => {
    expect(deliveryUrlProblem("http://127.0.0.1:8080/hook", true)).toBeUndefined()
    expect(deliveryUrlProblem("http://[::1]:8080/hook", true)).toBeUndefined()
    expect(deliveryUrlProblem("http://localhost:8080/hook", true)).toBeUndefined()
    expect(deliveryUrlProblem("http://localhost.:8080/hook", true)).toBeUndefined()
    expect(deliveryUrlProblem("http://10.0.0.1/hook", true)).toBeDefined()
    expect(deliveryUrlProblem("http://example.com/hook", true)).toBeDefined()
    expect(deliveryUrlProblem("http://[2002:7f00:1::1]/hook", true)).toBeDefined()
  })

  it("classifies resolved addresses as DNS would give them", () => {
    expect(nonPublicAddress("93.184.216.34")).toBeUndefined()
    expect(nonPublicAddress("2001:4860:4860::8888")).toBeUndefined()
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "169.254.169.254",
      "::1",
      "::ffff:192.168.0.1",
      "fe80::abcd",
      "fd00::1",
      "2002:c0a8:101::",
      "2001:0:53aa:64c:0:3ffe:3f57:fefe",
      "fec0::1",
      "64:ff9b:1::1",
      "255.255.255.255",
      "224.0.0.1",
    ]) {
      expect(nonPublicAddress(a), a).toBeDefined()
    }
  })

  it("extracts the IPv4 address every transition mechanism carries", () => {
    const inner = (a: string) => embeddedIPv4(ipaddr.IPv6.parse(a))
    expect(inner("2002:c0a8:0101::1")).toMatchObject({ mechanism: "6to4" })
    expect(inner("2002:c0a8:0101::1")!.ipv4.toString()).toBe("192.168.1.1")
    // RFC 4380 §4 example: client 192.0.2.45 behind the server 65.54.227.120
    expect(inner("2001:0:4136:e378:8000:63bf:3fff:fdd2")!.ipv4.toString()).toBe("192.0.2.45")
    expect(inner("64:ff9b::c000:221")!.ipv4.toString()).toBe("192.0.2.33")
    // RFC 6052 §2.4 example for a /48 prefix: 192.0.2.33 is c000:02 | u | 21
    expect(inner("64:ff9b:1:c000:2:2100::")!.ipv4.toString()).toBe("192.0.2.33")
    expect(inner("::ffff:10.0.0.1")!.ipv4.toString()).toBe("10.0.0.1")
    expect(inner("2606:4700::1111")).toBeUndefined()
  })

  it("normalises host names before judging them", () => {
    expect(normaliseHost("[::1]")).toBe("::1")
    expect(normaliseHost("Metadata.Google.Internal.")).toBe("metadata.google.internal")
  })
})
