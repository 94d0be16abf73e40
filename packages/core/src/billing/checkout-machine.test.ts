/** Model-based test of the checkout machine: random command sequences against a plain model. */
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { applyCheckoutCommand, type CheckoutCommand } from "./checkout-machine.ts"
import { convertMinor, formatMinor, type Checkout, type CheckoutStatus } from "./model.ts"

const EXPIRES_AT = 15 * 60_000

const fresh = (): Checkout => ({
  id: "chk_model",
  clientId: "rp_sbx_model",
  userId: "u1",
  plan: "starter",
  period: "monthly",
  method: "card",
  priceUsdMinor: 6900,
  currency: "USD",
  amountMinor: 6900,
  rateQuote: null,
  status: "created",
  providerReference: null,
  failureReason: null,
  createdAt: 0,
  expiresAt: EXPIRES_AT,
  updatedAt: 0,
  paidAt: null,
})

interface Model {
  status: CheckoutStatus
  reference: string | null
  now: number
  subscriptionsStarted: number
}
interface Real {
  checkout: Checkout
  subscriptionsStarted: number
}

/** Applies `command` to the real machine and to the model's rules, and compares. */
class Step implements fc.Command<Model, Real> {
  constructor(
    readonly command: CheckoutCommand,
    readonly advanceMs: number,
  ) {}
  check = () => true
  run(m: Model, r: Real) {
    m.now += this.advanceMs
    const result = applyCheckoutCommand(r.checkout, this.command, m.now)
    const expected = this.expect(m)
    if (expected === "refused") {
      expect(Either.isLeft(result)).toBe(true)
      return
    }
    const step = Either.getOrThrow(result)
    const paid = step.events.filter((e) => e._tag === "CheckoutPaid").length
    r.subscriptionsStarted += paid
    r.checkout = step.checkout
    if (expected === "unchanged") {
      expect(step.events).toEqual([])
    } else {
      m.status = expected
      if (this.command._tag === "Submit") m.reference = this.command.reference
      if (expected === "paid") m.subscriptionsStarted += 1
    }
    expect(r.checkout.status).toBe(m.status)
    expect(r.checkout.providerReference).toBe(m.reference)
    // The property that matters to the RP: however often confirmations arrive, one paid term.
    expect(r.subscriptionsStarted).toBe(m.subscriptionsStarted)
    expect(r.subscriptionsStarted).toBeLessThanOrEqual(1)
  }
  // The model's rules, written independently of the machine's switch.
  expect(m: Model): CheckoutStatus | "unchanged" | "refused" {
    const open = m.status === "created" || m.status === "pending"
    switch (this.command._tag) {
      case "Submit":
        return m.status === "created" ? "pending" : "refused"
      case "Confirm":
        if (this.command.reference !== m.reference) return "refused"
        return m.status === "pending" ? "paid" : m.status === "paid" ? "unchanged" : "refused"
      case "Fail":
        return m.status === "failed" ? "unchanged" : open ? "failed" : "refused"
      case "Expire":
        return m.status === "expired" ? "unchanged" : open && m.now >= EXPIRES_AT ? "expired" : "refused"
    }
  }
  toString = () => `${JSON.stringify(this.command)}+${this.advanceMs}ms`
}

const reference = fc.constantFrom("ref-a", "ref-b")
const advance = fc.constantFrom(0, 1000, 10 * 60_000)
const commands = [
  fc.tuple(reference, advance).map(([ref, ms]) => new Step({ _tag: "Submit", reference: ref }, ms)),
  fc.tuple(reference, advance).map(([ref, ms]) => new Step({ _tag: "Confirm", reference: ref }, ms)),
  advance.map((ms) => new Step({ _tag: "Fail", reason: "card declined" }, ms)),
  advance.map((ms) => new Step({ _tag: "Expire" }, ms)),
]

describe("checkout machine", () => {
  it("follows the model for any command sequence; a paid checkout starts exactly one subscription", () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 30 }), (cmds) => {
        fc.modelRun(
          () => ({
            model: { status: "created" as CheckoutStatus, reference: null, now: 0, subscriptionsStarted: 0 },
            real: { checkout: fresh(), subscriptionsStarted: 0 },
          }),
          cmds,
        )
      }),
      { numRuns: 500 },
    )
  })

  it("a confirmation delivered twice is a no-op the second time", () => {
    const pending = Either.getOrThrow(applyCheckoutCommand(fresh(), { _tag: "Submit", reference: "r" }, 1)).checkout
    const paid = Either.getOrThrow(applyCheckoutCommand(pending, { _tag: "Confirm", reference: "r" }, 2))
    expect(paid.events).toEqual([{ _tag: "CheckoutPaid", checkoutId: "chk_model", at: 2 }])
    const again = Either.getOrThrow(applyCheckoutCommand(paid.checkout, { _tag: "Confirm", reference: "r" }, 3))
    expect(again).toEqual({ checkout: paid.checkout, events: [] })
  })

  it("refuses with the current status named", () => {
    const failed = Either.getOrThrow(applyCheckoutCommand(fresh(), { _tag: "Fail", reason: "card declined" }, 1)).checkout
    const refused = applyCheckoutCommand(failed, { _tag: "Submit", reference: "r" }, 2)
    expect(Either.isLeft(refused) && refused.left.message).toBe("Checkout in status failed cannot be submitted")
  })
})

describe("currency conversion", () => {
  it("converts USD cents at a decimal rate, half up, exactly", () => {
    expect(convertMinor(6900, "129.25")).toBe(891825)
    expect(formatMinor(891825)).toBe("8918.25")
    expect(convertMinor(778800, "129.25")).toBe(100659900)
    expect(convertMinor(1, "0.005")).toBe(0)
    expect(convertMinor(100, "0.005")).toBe(1)
    expect(formatMinor(5)).toBe("0.05")
  })
})
