/**
 * Plans over HTTP: each plan's allowances enforced by the real signing endpoints, and
 * `/rp/usage` + `/rp/rate-limits` reporting exactly what was enforced; subscriptions bought
 * at checkout (card and mobile money sandboxes), their expiry by the test clock, idempotent
 * and signed payment callbacks, and KES pricing at the stored quote.
 */
import { StoragePostgres } from "@signet/adapters-postgres"
import { administerRelyingParty, Checkouts, PLANS, registerRelyingParty, Subscriptions, type Allowance, type PlanId } from "@signet/core"
import { enrol, ok, signIn, SoftwarePasskey, type ErrorBody, type TokenAnswer } from "@signet/testkit"
import { ManualClock } from "@signet/testkit/models"
import { findPostgres, withFreshSchema } from "@signet/testkit/storage"
import { Effect, Option } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PaymentsSandbox, paymentsUnconfigured, SANDBOX_CARDS, SANDBOX_PHONES } from "./payments-sandbox.ts"
import { startEngine } from "./test-support/running-engine.ts"

const SHA256 = "2.16.840.1.101.3.4.2.1"
const DAY = 86_400_000
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex")
const START = Date.parse("2026-12-01T10:00:00.000Z")

interface RateLimits {
  plan: {
    id: PlanId | null
    name: string
    source: string
    customAllowance: boolean
    subscription: Subscription | null
    latestSubscription: Subscription | null
  }
  limits: { signaturesPerDay: number; requestsPerMinute: number; documentsPerBatch: number; highestLoa: string; maximumLoa: string; kycVerified: boolean }
  daily: { used: number; limit: number; remaining: number; resetsAt: string }
  perMinute: {
    limit: number
    counter: string
    windowStart: string
    resetsAt: string
    users: Array<{ userId: string; requests: number; remaining: number }>
    signingToken: { requests: number; remaining: number }
  }
}
interface Usage {
  clientId: string
  day: string
  signaturesToday: number
  dayResetsAt: string
  perMinute: { windowStart: string; windowEnd: string; signingRequestsByUser: Array<{ userId: string; requests: number }>; signingTokenRequests: number }
}
interface Subscription {
  id: string
  plan: PlanId
  period: string
  status: string
  startsAt: string
  endsAt: string
}
interface CheckoutView {
  checkoutId: string
  status: string
  plan: PlanId
  period: string
  priceUsd: string
  amount: { currency: string; value: string }
  exchangeRate: { base: string; quote: string; rate: string; quotedAt: string; source: string } | null
  failureReason: string | null
  paidAt: string | null
  expiresAt: string
  subscription: Subscription | null
}

const postgres = await findPostgres()
const STORAGES: ReadonlyArray<readonly [string, string | undefined]> = [["SQLite", undefined], ...(postgres ? [["PostgreSQL", postgres] as const] : [])]

/** One engine on a test clock, a signer and a contact account, and RPs made to measure. */
const world = async (databaseUrl: string | undefined) => {
  const clock = new ManualClock(START)
  const payments = new PaymentsSandbox({ confirmationDelayMs: 20 })
  const env = await startEngine({
    clock,
    payments,
    housekeeping: false,
    deliveries: { worker: false },
    ...(databaseUrl === undefined ? {} : { storage: withFreshSchema(databaseUrl, StoragePostgres) }),
  })
  const signer = SoftwarePasskey.create({ origin: env.origin })
  const signerId = (await enrol(env.client, signer, { email: "signer@example.com" })).userId
  const contact = SoftwarePasskey.create({ origin: env.origin })
  const contactId = (await enrol(env.client, contact, { email: "contact@example.com" })).userId
  const stranger = SoftwarePasskey.create({ origin: env.origin })
  await enrol(env.client, stranger, { email: "stranger@example.com" })
  const tokenOf = async (passkey: SoftwarePasskey, clientId: string) => (ok(await signIn(env.client, passkey, { clientId })) as TokenAnswer).access_token

  /** An approved, KYC-verified LOA-4 RP (so the plan is the binding LOA cap) whose contact is `contact`. */
  const newRp = async (setup: { plan?: PlanId; customAllowance?: Allowance } = {}) => {
    const created = await env.engine.run(
      registerRelyingParty({
        name: "Plan RP",
        status: "approved",
        signingOrigins: [env.origin],
        maxLoa: "LOA-4",
        ...(setup.plan ? { plan: setup.plan } : {}),
      }),
    )
    const clientId = created.rp.clientId
    const tokens = { signer: "", contact: "" }
    await env.engine.run(administerRelyingParty(clientId, { _tag: "SetKycVerified", kycVerified: true }))
    await env.engine.run(administerRelyingParty(clientId, { _tag: "SetContact", userId: contactId }))
    if (setup.customAllowance) await env.engine.run(administerRelyingParty(clientId, { _tag: "SetCustomAllowance", allowance: setup.customAllowance }))
    /** signs in again (after the clock jumped past the tokens' lifetime) */
    const refresh = async () => {
      tokens.signer = await tokenOf(signer, clientId)
      tokens.contact = await tokenOf(contact, clientId)
    }
    await refresh()
    const rp = {
      clientId,
      clientSecret: created.clientSecret,
      refresh,
      single: (loa?: string) =>
        env.client.raw<ErrorBody>("POST", "/v2/sign/single", {
          headers: { authorization: `Bearer ${tokens.signer}` },
          body: { documentHash: sha256(randomBytes(8)), credentialId: signer.credentialId, ...(loa ? { loa } : {}) },
        }),
      batch: (size: number) =>
        env.client.raw<ErrorBody>("POST", "/v2/sign/batch", {
          headers: { authorization: `Bearer ${tokens.signer}` },
          body: {
            credentialId: signer.credentialId,
            documents: Array.from({ length: size }, (_, i) => ({ id: `d${i}`, hash: sha256(randomBytes(8)), hash_algo: SHA256 })),
          },
        }),
      usage: async (token = tokens.contact) =>
        ok(await env.client.raw<Usage | ErrorBody>("GET", `/rp/usage/${clientId}`, { headers: { authorization: `Bearer ${token}` } })) as Usage,
      limits: async (token = tokens.contact) =>
        ok(await env.client.raw<RateLimits | ErrorBody>("GET", `/rp/rate-limits/${clientId}`, { headers: { authorization: `Bearer ${token}` } })) as RateLimits,
      checkout: (body: Record<string, unknown>) =>
        env.client.raw<CheckoutView | ErrorBody>("POST", `/v2/relying-parties/${clientId}/checkout`, {
          headers: { authorization: `Bearer ${tokens.contact}` },
          body,
        }),
      checkoutStatus: async (id: string) =>
        ok(
          await env.client.raw<CheckoutView | ErrorBody>("GET", `/v2/relying-parties/${clientId}/checkout/${id}`, {
            headers: { authorization: `Bearer ${tokens.contact}` },
          }),
        ) as CheckoutView,
      subscriptions: () => env.engine.run(Effect.flatMap(Subscriptions, (s) => s.listForRp(clientId))),
    }
    return rp
  }
  /** Moves the clock to the start of the next 60-second window. */
  const nextMinute = () => clock.advance(60_000 - (clock.now % 60_000))
  /** Sends `attempt` until the first refusal; answers how many succeeded and the refusal. */
  const untilRefused = async (attempt: () => Promise<{ status: number; body: unknown }>, max: number) => {
    for (let granted = 0; granted <= max; granted++) {
      const answer = await attempt()
      if (answer.status !== 200) return { granted, refusal: answer }
    }
    throw new Error(`no refusal after ${max} requests`)
  }
  return { env, clock, payments, signerId, contact, stranger, tokenOf, newRp, nextMinute, untilRefused }
}

describe.each(STORAGES)("plans enforced and reported on %s", (_name, databaseUrl) => {
  let w: Awaited<ReturnType<typeof world>>
  beforeAll(async () => {
    w = await world(databaseUrl)
  })
  afterAll(async () => w?.env.stop())

  const iso = (ms: number) => new Date(ms).toISOString()
  const midnight = () => iso((Math.floor(w.clock.now / DAY) + 1) * DAY)

  it("GET /v2/plans is the catalogue the engine enforces", async () => {
    const catalogue = ok(
      await w.env.client.raw<{ currency: string; plans: Array<Record<string, unknown>>; defaultAllowance: Allowance } | ErrorBody>("GET", "/v2/plans"),
    ) as { currency: string; plans: Array<Record<string, unknown>>; defaultAllowance: Allowance }
    expect(catalogue.currency).toBe("USD")
    expect(catalogue.plans).toEqual([
      {
        id: "starter",
        name: "Starter",
        priceUsd: { monthly: 69, annual: 828 },
        termDays: { monthly: 30, annual: 365 },
        allowance: { signaturesPerDay: 100, documentsPerBatch: 2, requestsPerMinute: 60, highestLoa: "LOA-2" },
        highestLoa: "LOA-2",
        agreedWithSales: false,
      },
      {
        id: "business",
        name: "Business",
        priceUsd: { monthly: 649, annual: 7788 },
        termDays: { monthly: 30, annual: 365 },
        allowance: { signaturesPerDay: 1000, documentsPerBatch: 10, requestsPerMinute: 300, highestLoa: "LOA-4" },
        highestLoa: "LOA-4",
        agreedWithSales: false,
      },
      {
        id: "enterprise",
        name: "Enterprise",
        priceUsd: null,
        termDays: { monthly: 30, annual: 365 },
        allowance: null,
        highestLoa: "LOA-4",
        agreedWithSales: true,
      },
    ])
    expect(catalogue.defaultAllowance).toEqual({ signaturesPerDay: 100, documentsPerBatch: 10, requestsPerMinute: 60, highestLoa: "LOA-2" })
  })

  it("the OpenAPI document describes the plan, checkout, callback, usage and rate-limit paths with their shapes", async () => {
    const doc = ok(
      await w.env.client.raw<
        { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> } | ErrorBody
      >("GET", "/openapi.json"),
    ) as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> }
    const find = (suffix: string) => Object.entries(doc.paths).find(([path]) => path.endsWith(suffix))?.[1]
    for (const [suffix, method] of [
      ["/v2/plans", "get"],
      ["/v2/relying-parties/{clientId}/checkout", "post"],
      ["/v2/relying-parties/{clientId}/checkout/{checkoutId}", "get"],
      ["/payments/callback/{provider}", "post"],
      ["/rp/usage/{clientId}", "get"],
      ["/rp/rate-limits/{clientId}", "get"],
    ] as const) {
      expect(find(suffix)?.[method], suffix).toBeDefined()
    }
    const usage = JSON.stringify(find("/rp/usage/{clientId}")!["get"]!.responses["200"])
    for (const field of ["signaturesToday", "dayResetsAt", "signingRequestsByUser"]) expect(usage).toContain(field)
    const limits = JSON.stringify(find("/rp/rate-limits/{clientId}")!["get"]!.responses["200"])
    for (const field of ["signaturesPerDay", "requestsPerMinute", "documentsPerBatch", "highestLoa", "resetsAt"]) expect(limits).toContain(field)
  })

  it("Starter (bought by card): batch 2, LOA-2, 60 a minute, 100 a day — enforced, then reported exactly", async () => {
    const rp = await w.newRp()
    const bought = ok(await rp.checkout({ plan: "starter", period: "monthly", method: "card", cardToken: `tok_${SANDBOX_CARDS.succeeds}` })) as CheckoutView
    expect(bought.status).toBe("paid")
    const limits = await rp.limits()
    expect(limits.plan).toMatchObject({ id: "starter", source: "subscription", subscription: { plan: "starter", period: "monthly", status: "active" } })
    expect(limits.limits).toEqual({
      signaturesPerDay: 100,
      requestsPerMinute: 60,
      documentsPerBatch: 2,
      highestLoa: "LOA-2",
      maximumLoa: "LOA-2",
      kycVerified: true,
    })

    w.nextMinute()
    expect(await rp.batch(3)).toMatchObject({ status: 429, body: { error: "Batch size 3 exceeds maximum 2" } })
    expect((await rp.batch(2)).status).toBe(200)
    expect(await rp.single("LOA-4")).toMatchObject({ status: 403, body: { error: "Requested LOA LOA-4 exceeds RP maximum LOA-2" } })
    // Refused creations give their reservation back (one transaction): only the granted batch counts.
    expect((await rp.usage()).perMinute.signingRequestsByUser).toEqual([{ userId: w.signerId, requests: 1 }])
    expect((await rp.usage()).signaturesToday).toBe(2)

    w.nextMinute()
    const minute = await w.untilRefused(() => rp.single(), 100)
    expect(minute.granted).toBe(60)
    expect(minute.refusal).toMatchObject({ status: 429, body: { error: "Rate limit exceeded. Please try again later." } })
    const windowEnd = iso(w.clock.now - (w.clock.now % 60_000) + 60_000)
    const usage = await rp.usage()
    expect(usage.signaturesToday).toBe(62)
    expect(usage.perMinute).toMatchObject({ windowEnd, signingRequestsByUser: [{ userId: w.signerId, requests: 60 }] })
    expect((await rp.limits()).perMinute).toMatchObject({ limit: 60, resetsAt: windowEnd, users: [{ userId: w.signerId, requests: 60, remaining: 0 }] })

    w.nextMinute()
    const day = await w.untilRefused(() => rp.single(), 100)
    expect(day.granted).toBe(38)
    expect(day.refusal).toMatchObject({ status: 429, body: { error: `Daily signing limit exceeded (100/100 used, resets at ${midnight()})` } })
    expect((await rp.limits()).daily).toEqual({ used: 100, limit: 100, remaining: 0, resetsAt: midnight() })
    expect(await rp.usage()).toMatchObject({ signaturesToday: 100, dayResetsAt: midnight(), day: iso(w.clock.now).slice(0, 10) })
  }, 120_000)

  it("Business (bought by mobile money in KES): batch 10, LOA-4, 300 a minute, 1,000 a day — enforced, then reported exactly", async () => {
    const rp = await w.newRp()
    const started = ok(await rp.checkout({ plan: "business", period: "monthly", method: "mobile_money", phone: SANDBOX_PHONES.succeeds })) as CheckoutView
    expect(started.status).toBe("pending")
    await w.payments.settled()
    expect((await rp.checkoutStatus(started.checkoutId)).status).toBe("paid")
    const limits = await rp.limits()
    expect(limits.plan).toMatchObject({ id: "business", source: "subscription" })
    expect(limits.limits).toEqual({
      signaturesPerDay: 1000,
      requestsPerMinute: 300,
      documentsPerBatch: 10,
      highestLoa: "LOA-4",
      maximumLoa: "LOA-4",
      kycVerified: true,
    })

    w.nextMinute()
    expect((await rp.single("LOA-4")).status).toBe(200)
    expect(await rp.batch(11)).toMatchObject({ status: 429, body: { error: "Batch size 11 exceeds maximum 10" } })

    w.nextMinute()
    const minute = await w.untilRefused(() => rp.single(), 400)
    expect(minute.granted).toBe(300)
    expect(minute.refusal).toMatchObject({ status: 429, body: { error: "Rate limit exceeded. Please try again later." } })
    expect((await rp.usage()).perMinute.signingRequestsByUser).toEqual([{ userId: w.signerId, requests: 300 }])
    expect((await rp.limits()).daily).toMatchObject({ used: 301, remaining: 699 })

    w.nextMinute()
    const batches = await w.untilRefused(() => rp.batch(10), 100)
    expect(batches.granted).toBe(69)
    expect(batches.refusal).toMatchObject({ status: 429, body: { error: `Daily signing limit exceeded (991/1000 used, resets at ${midnight()})` } })
    const singles = await w.untilRefused(() => rp.single(), 20)
    expect(singles.granted).toBe(9)
    expect(singles.refusal).toMatchObject({ status: 429, body: { error: `Daily signing limit exceeded (1000/1000 used, resets at ${midnight()})` } })
    const usage = await rp.usage()
    expect(usage.signaturesToday).toBe(1000)
    expect(usage.perMinute.signingRequestsByUser).toEqual([{ userId: w.signerId, requests: 69 + 9 }])
    expect((await rp.limits()).daily).toEqual({ used: 1000, limit: 1000, remaining: 0, resetsAt: midnight() })
  }, 180_000)

  it("Enterprise (granted by an administrator with an agreed allowance): its figures enforced and reported", async () => {
    const agreed: Allowance = { signaturesPerDay: 5, documentsPerBatch: 3, requestsPerMinute: 4, highestLoa: "LOA-4" }
    const rp = await w.newRp({ plan: "enterprise", customAllowance: agreed })
    const limits = await rp.limits()
    expect(limits.plan).toMatchObject({ id: "enterprise", name: "Enterprise", source: "administrator", customAllowance: true, subscription: null })
    expect(limits.limits).toEqual({
      signaturesPerDay: 5,
      requestsPerMinute: 4,
      documentsPerBatch: 3,
      highestLoa: "LOA-4",
      maximumLoa: "LOA-4",
      kycVerified: true,
    })

    w.nextMinute()
    const minute = await w.untilRefused(() => rp.single("LOA-4"), 10)
    expect(minute.granted).toBe(4)
    expect(minute.refusal).toMatchObject({ status: 429, body: { error: "Rate limit exceeded. Please try again later." } })
    expect((await rp.limits()).perMinute.users).toEqual([{ userId: w.signerId, requests: 4, remaining: 0 }])

    w.nextMinute()
    expect(await rp.batch(4)).toMatchObject({ status: 429, body: { error: "Batch size 4 exceeds maximum 3" } })
    expect(await rp.batch(3)).toMatchObject({ status: 429, body: { error: `Daily signing limit exceeded (4/5 used, resets at ${midnight()})` } })
    expect((await rp.single()).status).toBe(200)
    expect(await rp.single()).toMatchObject({ status: 429, body: { error: `Daily signing limit exceeded (5/5 used, resets at ${midnight()})` } })
    expect((await rp.usage()).signaturesToday).toBe(5)
    expect((await rp.limits()).daily).toEqual({ used: 5, limit: 5, remaining: 0, resetsAt: midnight() })
  })

  it("no plan: the default allowance (60 a minute, 100 a day, batch 10, LOA-2)", async () => {
    const rp = await w.newRp()
    const limits = await rp.limits()
    expect(limits.plan).toMatchObject({ id: null, name: "Default", source: "default", subscription: null, latestSubscription: null })
    expect(limits.limits).toEqual({
      signaturesPerDay: 100,
      requestsPerMinute: 60,
      documentsPerBatch: 10,
      highestLoa: "LOA-2",
      maximumLoa: "LOA-2",
      kycVerified: true,
    })
    expect(await rp.batch(11)).toMatchObject({ status: 429, body: { error: "Batch size 11 exceeds maximum 10" } })
    expect(await rp.single("LOA-4")).toMatchObject({ status: 403, body: { error: "Requested LOA LOA-4 exceeds RP maximum LOA-2" } })
  })

  it("a subscription ends after 30 (monthly) or 365 (annual) days and the RP falls back to the default allowance", async () => {
    const rp = await w.newRp()
    ok(await rp.checkout({ plan: "business", period: "monthly", method: "card", cardToken: `tok_${SANDBOX_CARDS.succeeds}` }))
    const paidAt = w.clock.now
    const active = await rp.limits()
    expect(active.plan.subscription).toMatchObject({ plan: "business", status: "active", startsAt: iso(paidAt), endsAt: iso(paidAt + 30 * DAY) })
    expect((await rp.single("LOA-4")).status).toBe(200)

    w.clock.advance(30 * DAY - 1)
    await rp.refresh()
    expect((await rp.limits()).plan.source).toBe("subscription")
    w.clock.advance(1)
    await rp.refresh()
    const lapsed = await rp.limits()
    expect(lapsed.plan).toMatchObject({ id: null, source: "default", subscription: null, latestSubscription: { plan: "business", status: "expired" } })
    expect(lapsed.limits).toMatchObject({ signaturesPerDay: 100, requestsPerMinute: 60, documentsPerBatch: 10, highestLoa: "LOA-2" })
    expect(await rp.single("LOA-4")).toMatchObject({ status: 403, body: { error: "Requested LOA LOA-4 exceeds RP maximum LOA-2" } })
    expect(await rp.batch(11)).toMatchObject({ status: 429, body: { error: "Batch size 11 exceeds maximum 10" } })

    ok(await rp.checkout({ plan: "starter", period: "annual", method: "card", cardToken: `tok_${SANDBOX_CARDS.succeeds}` }))
    const annualFrom = w.clock.now
    expect((await rp.limits()).plan.subscription).toMatchObject({ plan: "starter", period: "annual", endsAt: iso(annualFrom + 365 * DAY) })
    w.clock.advance(365 * DAY)
    await rp.refresh()
    expect((await rp.limits()).plan).toMatchObject({ source: "default", latestSubscription: { plan: "starter", status: "expired" } })
    await w.payments.settled()
  })

  it("an administrator's plan (rp set-plan) stays in force under and after a subscription", async () => {
    const rp = await w.newRp({ plan: "business" })
    expect((await rp.limits()).plan).toMatchObject({ id: "business", source: "administrator" })
    ok(await rp.checkout({ plan: "starter", period: "monthly", method: "card", cardToken: `tok_${SANDBOX_CARDS.succeeds}` }))
    expect((await rp.limits()).plan).toMatchObject({ id: "starter", source: "subscription" })
    w.clock.advance(30 * DAY)
    await rp.refresh()
    expect((await rp.limits()).plan).toMatchObject({ id: "business", source: "administrator" })
    await w.payments.settled()
  })

  it("usage and limits are the contact account's: another account's token gets 404, a client-credentials token 401", async () => {
    const rp = await w.newRp()
    const strangerToken = await w.tokenOf(w.stranger, rp.clientId)
    for (const path of [`/rp/usage/${rp.clientId}`, `/rp/rate-limits/${rp.clientId}`, "/rp/usage/rp_sbx_unknown"]) {
      expect(await w.env.client.raw("GET", path, { headers: { authorization: `Bearer ${strangerToken}` } })).toMatchObject({
        status: 404,
        body: { error: "Relying party not found" },
      })
    }
    expect(
      await w.env.client.raw("POST", `/v2/relying-parties/${rp.clientId}/checkout`, {
        headers: { authorization: `Bearer ${strangerToken}` },
        body: { plan: "starter", period: "monthly", method: "card", cardToken: `tok_${SANDBOX_CARDS.succeeds}` },
      }),
    ).toMatchObject({ status: 404, body: { error: "Relying party not found" } })
    const machine = (ok(await w.env.client.clientToken(rp.clientId, rp.clientSecret)) as TokenAnswer).access_token
    for (const path of [`/rp/usage/${rp.clientId}`, `/rp/rate-limits/${rp.clientId}`]) {
      expect(await w.env.client.raw("GET", path, { headers: { authorization: `Bearer ${machine}` } })).toMatchObject({
        status: 401,
        body: { error: "Token missing subject claim" },
      })
    }
    expect(await w.env.client.raw("GET", `/rp/usage/${rp.clientId}`)).toMatchObject({ status: 401, body: { error: "Missing Authorization header" } })
  })
})

describe.each(STORAGES)("checkout and payment callbacks on %s", (_name, databaseUrl) => {
  let w: Awaited<ReturnType<typeof world>>
  beforeAll(async () => {
    w = await world(databaseUrl)
  })
  afterAll(async () => w?.env.stop())

  const stored = (id: string) => w.env.engine.run(Effect.flatMap(Checkouts, (c) => c.findById(id))).then(Option.getOrThrow)

  it("KES: priced in USD, converted at the sandbox's quoted rate, the quote stored with the checkout", async () => {
    const rp = await w.newRp()
    const checkout = ok(await rp.checkout({ plan: "starter", period: "monthly", method: "mobile_money", phone: SANDBOX_PHONES.succeeds })) as CheckoutView
    expect(checkout).toMatchObject({
      status: "pending",
      plan: "starter",
      period: "monthly",
      priceUsd: "69.00",
      amount: { currency: "KES", value: "8918.25" },
      exchangeRate: { base: "USD", quote: "KES", rate: "129.25", quotedAt: "2026-11-02T06:00:00.000Z", source: "sandbox fixed table" },
    })
    const record = await stored(checkout.checkoutId)
    expect(record).toMatchObject({
      priceUsdMinor: 6900,
      currency: "KES",
      amountMinor: 891825,
      rateQuote: { rate: "129.25", quotedAt: Date.parse("2026-11-02T06:00:00.000Z") },
    })
    const annual = ok(
      await rp.checkout({ plan: "business", period: "annual", method: "card", currency: "KES", cardToken: `tok_${SANDBOX_CARDS.declined}` }),
    ) as CheckoutView
    expect(annual.amount).toEqual({ currency: "KES", value: "1006599.00" })
    const usd = ok(await rp.checkout({ plan: "business", period: "annual", method: "card", cardToken: `tok_${SANDBOX_CARDS.declined}` })) as CheckoutView
    expect(usd).toMatchObject({ amount: { currency: "USD", value: "7788.00" }, exchangeRate: null })
    await w.payments.settled()
    const paid = await rp.checkoutStatus(checkout.checkoutId)
    expect(paid).toMatchObject({
      status: "paid",
      amount: { currency: "KES", value: "8918.25" },
      subscription: { plan: "starter", period: "monthly", status: "active" },
    })
  })

  it("a confirmation delivered twice (and five more times at once) activates one subscription once", async () => {
    const rp = await w.newRp()
    const pending = ok(
      await rp.checkout({ plan: "business", period: "monthly", method: "card", cardToken: `tok_${SANDBOX_CARDS.confirmsLater}` }),
    ) as CheckoutView
    expect(pending.status).toBe("pending")
    expect(await rp.subscriptions()).toEqual([])
    await w.payments.settled()
    const delivered = w.payments.deliveries.filter((d) => JSON.parse(d.body).checkoutId === pending.checkoutId)
    expect(delivered.map((d) => d.status)).toEqual([200])
    const first = await rp.checkoutStatus(pending.checkoutId)
    expect(first.status).toBe("paid")
    expect(await rp.subscriptions()).toHaveLength(1)

    // The provider sends the same confirmation again, then five times concurrently.
    const { provider, body, signature } = delivered[0]!
    expect(await w.payments.send(provider, body, signature)).toBe(200)
    expect(await Promise.all(Array.from({ length: 5 }, () => w.payments.send(provider, body, signature)))).toEqual([200, 200, 200, 200, 200])
    const subscriptions = await rp.subscriptions()
    expect(subscriptions).toHaveLength(1)
    expect(subscriptions[0]!.checkoutId).toBe(pending.checkoutId)
    expect(await rp.checkoutStatus(pending.checkoutId)).toEqual(first)
  })

  it("a forged or tampered callback is refused and changes nothing", async () => {
    const rp = await w.newRp()
    const pending = ok(await rp.checkout({ plan: "starter", period: "monthly", method: "mobile_money", phone: SANDBOX_PHONES.timesOut })) as CheckoutView
    const reference = (await stored(pending.checkoutId)).providerReference!
    const body = JSON.stringify({ id: "evt_forged", type: "payment.succeeded", checkoutId: pending.checkoutId, reference, reason: null })
    const other = new PaymentsSandbox({ secret: "not-the-shared-secret" })
    const refused = { status: 401, body: { error: "Invalid payment callback signature" } }
    const post = (headers: Record<string, string>, raw = body, provider = "mobile_money") =>
      w.env.client.raw("POST", `/payments/callback/${provider}`, { body: raw, headers: { "content-type": "application/json", ...headers } })
    expect(await post({ "signet-sandbox-signature": await other.sign(body) })).toMatchObject(refused)
    expect(await post({})).toMatchObject(refused)
    expect(await post({ "signet-sandbox-signature": `v1=${"0".repeat(64)}` })).toMatchObject(refused)
    const genuine = await w.payments.sign(body)
    expect(await post({ "signet-sandbox-signature": genuine }, body.replace("evt_forged", "evt_forgex"))).toMatchObject(refused)
    expect(await post({ "signet-sandbox-signature": genuine }, body, "bank")).toMatchObject(refused)
    expect((await rp.checkoutStatus(pending.checkoutId)).status).toBe("pending")
    expect(await rp.subscriptions()).toEqual([])
    // The genuine signature over the same bytes is accepted.
    expect(ok(await post({ "signet-sandbox-signature": genuine }))).toMatchObject({ received: true, checkoutId: pending.checkoutId, status: "paid" })
  })

  it("the sandbox's test cards and phones: declined, insufficient funds, timeout (expired after 15 minutes)", async () => {
    const rp = await w.newRp()
    const declined = ok(await rp.checkout({ plan: "starter", period: "monthly", method: "card", cardToken: `tok_${SANDBOX_CARDS.declined}` })) as CheckoutView
    expect(declined).toMatchObject({ status: "failed", failureReason: "card declined", subscription: null })
    const poor = ok(await rp.checkout({ plan: "starter", period: "monthly", method: "mobile_money", phone: SANDBOX_PHONES.insufficientFunds })) as CheckoutView
    const silent = ok(await rp.checkout({ plan: "starter", period: "monthly", method: "mobile_money", phone: SANDBOX_PHONES.timesOut })) as CheckoutView
    await w.payments.settled()
    expect(await rp.checkoutStatus(poor.checkoutId)).toMatchObject({ status: "failed", failureReason: "insufficient funds" })
    expect((await rp.checkoutStatus(silent.checkoutId)).status).toBe("pending")
    w.clock.advance(15 * 60_000)
    await rp.refresh()
    expect(await rp.checkoutStatus(silent.checkoutId)).toMatchObject({ status: "expired", paidAt: null })
    expect(await rp.subscriptions()).toEqual([])
    expect((await rp.limits()).plan.source).toBe("default")
  })

  it("refuses bad checkouts with 400", async () => {
    const rp = await w.newRp()
    const bad = async (body: Record<string, unknown>, error: string) => expect(await rp.checkout(body)).toMatchObject({ status: 400, body: { error } })
    await bad(
      { plan: "enterprise", period: "monthly", method: "card", cardToken: "tok_4242424242424242" },
      "plan enterprise is agreed with sales and cannot be bought at checkout",
    )
    await bad({ plan: "gold", period: "monthly", method: "card", cardToken: "tok_4242424242424242" }, "plan must be one of starter | business | enterprise")
    await bad({ plan: "starter", period: "weekly", method: "card", cardToken: "tok_4242424242424242" }, "period must be one of monthly | annual")
    await bad({ plan: "starter", period: "monthly", method: "card" }, "cardToken is required for card payments (a token of the provider, tok_…)")
    await bad({ plan: "starter", period: "monthly", method: "mobile_money", phone: "0700" }, "phone is required for mobile money, in E.164 form (+2547…)")
    await bad({ plan: "starter", period: "monthly", method: "mobile_money", phone: SANDBOX_PHONES.succeeds, currency: "USD" }, "mobile money is charged in KES")
  })

  it("the plan table in the endpoint and enforcement is one source (rp/plans.ts)", () => {
    expect(PLANS.starter.allowance?.documentsPerBatch).toBe(2)
  })
})

describe("a production engine without a payment provider", () => {
  it("declines every checkout, test cards included, and starts no subscription", async () => {
    const env = await startEngine({ environment: "production", deliveries: { worker: false } })
    try {
      const contact = SoftwarePasskey.create({ origin: env.origin })
      const contactId = (await enrol(env.client, contact, { email: "contact@example.com" })).userId
      await env.engine.run(administerRelyingParty(env.rp.clientId, { _tag: "SetContact", userId: contactId }))
      const token = (ok(await signIn(env.client, contact, { clientId: env.rp.clientId })) as TokenAnswer).access_token
      const answer = ok(
        await env.client.raw<CheckoutView | ErrorBody>("POST", `/v2/relying-parties/${env.rp.clientId}/checkout`, {
          headers: { authorization: `Bearer ${token}` },
          body: { plan: "starter", period: "monthly", method: "card", cardToken: `tok_${SANDBOX_CARDS.succeeds}` },
        }),
      ) as CheckoutView
      expect(answer).toMatchObject({ status: "failed", failureReason: "no payment provider is configured for production", subscription: null })
      // not the sandbox with a refusal: no sandbox provider at all, so no test card can ever pay
      expect(env.engine.payments).toBe(paymentsUnconfigured)
      expect(env.engine.adapters.filter((a) => a.sandbox)).toEqual([])
      const kes = await env.client.raw<ErrorBody>("POST", `/v2/relying-parties/${env.rp.clientId}/checkout`, {
        headers: { authorization: `Bearer ${token}` },
        body: { plan: "starter", period: "monthly", method: "mobile_money", phone: "+254700000001" },
      })
      expect(kes).toMatchObject({ status: 503, body: { error: "Currency conversion is not configured on this server" } })
    } finally {
      await env.stop()
    }
  })
})
