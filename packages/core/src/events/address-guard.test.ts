import { describe, expect, it } from "vitest"
import { deliveryUrlProblem, nonPublicAddress } from "./address-guard.ts"

describe("address guard", () => {
  it.each([
    "http://example.com/hook", "https://127.0.0.1/hook", "https://127.1.2.3/", "https://10.0.0.1/", "https://10.255.255.255/x",
    "https://172.16.0.1/", "https://172.31.9.9/", "https://192.168.1.1/", "https://169.254.169.254/latest/meta-data/",
    "https://0.0.0.0/", "https://100.64.0.1/", "https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://[::ffff:7f00:1]/",
    "https://[::ffff:10.0.0.1]/", "https://[::ffff:169.254.169.254]/", "https://[fe80::1]/", "https://[fc00::1]/",
    "https://[fd12:3456::1]/", "https://[::]/", "https://localhost/hook", "https://api.localhost/", "https://metadata.google.internal/",
    "https://intranet/", "https://user:pw@example.com/", "not a url", "ftp://example.com/",
  ])("refuses %s", (url) => {
    expect(deliveryUrlProblem(url, false)).toBeDefined()
  })

  it.each(["https://example.com/hook", "https://hooks.rp.example:8443/signet", "https://8.8.8.8/", "https://[2606:4700::1111]/"])("accepts %s", (url) => {
    expect(deliveryUrlProblem(url, false)).toBeUndefined()
  })

  it("the development switch allows loopback over http, and nothing else", () => {
    expect(deliveryUrlProblem("http://127.0.0.1:8080/hook", true)).toBeUndefined()
    expect(deliveryUrlProblem("http://[::1]:8080/hook", true)).toBeUndefined()
    expect(deliveryUrlProblem("http://localhost:8080/hook", true)).toBeUndefined()
    expect(deliveryUrlProblem("http://10.0.0.1/hook", true)).toBeDefined()
    expect(deliveryUrlProblem("http://example.com/hook", true)).toBeDefined()
  })

  it("classifies resolved addresses as DNS would give them", () => {
    expect(nonPublicAddress("93.184.216.34")).toBeUndefined()
    expect(nonPublicAddress("2001:4860:4860::8888")).toBeUndefined()
    for (const a of ["127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "::ffff:192.168.0.1", "fe80::abcd", "fd00::1"]) {
      expect(nonPublicAddress(a), a).toBeDefined()
    }
  })
})
