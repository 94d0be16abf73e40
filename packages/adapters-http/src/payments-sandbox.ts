/**
 * Sandbox payment providers and exchange rates, so checkout runs end to end without a real
 * provider. The card and mobile-money sandboxes answer by test card number and test phone
 * number (docs/plans.md) and send their confirmations the way real providers do: later, as a
 * signed HTTP POST to `/payments/callback/{provider}` (HMAC-SHA256 of the raw body with a
 * secret the sandbox shares with the engine), retried on failure, so a confirmation can arrive
 * more than once.
 */
import {
  jsonDepthProblem,
  declareAdapter,
  ExchangeRates,
  NotConfigured,
  Payments,
  sandboxAdapter,
  type EngineConfig,
  type PaymentConfirmation,
  type PaymentOrder,
  type PaymentStart,
  type RateQuote,
} from "@signet/core"
import { Effect, Layer, Option } from "effect"

/** Test card numbers of the card sandbox (sent as the token `tok_<number>`). */
export const SANDBOX_CARDS = {
  /** paid at once (a confirmation callback follows too) */
  succeeds: "4242424242424242",
  /** declined at once: `card declined` */
  declined: "4000000000000002",
  /** accepted, then confirmed asynchronously by callback (like a 3-D Secure step) */
  confirmsLater: "4000000000003220",
} as const

/** Test phone numbers of the mobile-money sandbox. */
export const SANDBOX_PHONES = {
  /** the payer approves the prompt: a `succeeded` callback follows */
  succeeds: "+254700000001",
  /** a `failed` callback follows: `insufficient funds` */
  insufficientFunds: "+254700000002",
  /** the payer never answers: no callback; the checkout expires */
  timesOut: "+254700000003",
} as const

/** The fixed rate table of the sandbox: shillings per US dollar and when it was quoted. */
export const SANDBOX_RATES: Readonly<Record<"KES", { readonly rate: string; readonly quotedAt: string }>> = {
  KES: { rate: "129.25", quotedAt: "2026-11-02T06:00:00.000Z" },
}

/** Header carrying the callback signature: `v1=<hex HMAC-SHA256(secret, raw body)>`. */
export const SANDBOX_SIGNATURE_HEADER = "signet-sandbox-signature"

const PAYMENTS_SETTING = "the engine's `payments` option to a real provider, or leave it unset (a production engine then declines every checkout)"
const RATES_SETTING = "the engine's `exchangeRates` option to a real rate source, or leave it unset (a production engine then refuses checkouts in KES)"

/** The sandbox rate source: always the fixed table (refuses to run in production). */
export const ExchangeRatesSandbox: Layer.Layer<ExchangeRates, never, EngineConfig> = sandboxAdapter(
  { port: "exchange rates", setting: RATES_SETTING },
  Layer.succeed(ExchangeRates, {
    quote: (currency) =>
      Effect.succeed<RateQuote>({
        base: "USD",
        quote: currency,
        rate: SANDBOX_RATES[currency].rate,
        quotedAt: Date.parse(SANDBOX_RATES[currency].quotedAt),
        source: "sandbox fixed table",
      }),
  }),
)

/** No rate source (production without one): a checkout in another currency than USD is 503. */
export const ExchangeRatesUnconfigured: Layer.Layer<ExchangeRates> = declareAdapter(
  { port: "exchange rates", adapter: "none (checkouts in KES refused)", setting: RATES_SETTING },
  Layer.succeed(ExchangeRates, { quote: () => Effect.fail(new NotConfigured({ feature: "Currency conversion" })) }),
)

/** What an engine takes as its payment providers: the `Payments` layer, told where callbacks go once the engine runs. */
export interface PaymentProviders {
  /** the `Payments` service; a sandbox one reads EngineConfig to refuse production */
  readonly layer: Layer.Layer<Payments, never, EngineConfig>
  /** called once with the engine's handler and public base, for providers that call back in process */
  readonly connect?: (deliver: (request: Request) => Promise<Response>, callbackBase: string) => void
}

/** One callback delivery the sandbox made. */
export interface SandboxDelivery {
  readonly provider: "card" | "mobile_money"
  readonly body: string
  readonly signature: string
  readonly status: number
}

const hex = (bytes: ArrayBuffer) => Buffer.from(bytes).toString("hex")
const randomId = (prefix: string) => `${prefix}_${Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(12))).toString("hex")}`

/** The card and mobile-money sandbox providers of one engine. */
export class PaymentsSandbox implements PaymentProviders {
  /** the shared HMAC secret of the callbacks */
  readonly secret: string
  /** every callback delivery attempt, in order */
  readonly deliveries: Array<SandboxDelivery> = []
  readonly #delayMs: number
  readonly #refusal: string | undefined
  readonly #inFlight = new Set<Promise<void>>()
  #deliver: ((request: Request) => Promise<Response>) | undefined
  #callbackBase = ""
  #key: Promise<CryptoKey> | undefined

  /** `refuseAll`: decline every payment with this reason. */
  constructor(options: { readonly secret?: string; readonly confirmationDelayMs?: number; readonly refuseAll?: string } = {}) {
    this.secret = options.secret ?? Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString("base64url")
    this.#delayMs = options.confirmationDelayMs ?? 100
    this.#refusal = options.refuseAll
  }

  /** Where callbacks go: the engine's handler and its public base (`https://host/api`). */
  connect(deliver: (request: Request) => Promise<Response>, callbackBase: string): void {
    this.#deliver = deliver
    this.#callbackBase = callbackBase
  }

  /** `v1=<hex>` over `body` with the shared secret (what a provider puts in the header). */
  async sign(body: string): Promise<string> {
    const key = await this.#hmacKey()
    return `v1=${hex(await globalThis.crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)))}`
  }

  /** Resolves once every scheduled callback was delivered (tests). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight])
  }

  /** Sends a callback now, as the provider would: signed POST; answers the HTTP status. */
  async send(provider: "card" | "mobile_money", body: string, signature?: string): Promise<number> {
    if (this.#deliver === undefined) throw new Error("payments sandbox not connected to an engine")
    const sig = signature ?? (await this.sign(body))
    const response = await this.#deliver(
      new Request(`${this.#callbackBase}/payments/callback/${provider}`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", [SANDBOX_SIGNATURE_HEADER]: sig },
      }),
    )
    await response.body?.cancel()
    this.deliveries.push({ provider, body, signature: sig, status: response.status })
    return response.status
  }

  /** The `Payments` service of this sandbox (refuses to run in production). */
  get layer(): Layer.Layer<Payments, never, EngineConfig> {
    return sandboxAdapter(
      { port: "payments", setting: PAYMENTS_SETTING },
      Layer.succeed(Payments, {
        start: (order) => Effect.sync(() => this.#start(order)),
        readCallback: (provider, header, body) => Effect.promise(() => this.#read(provider, header, body)),
      }),
    )
  }

  #hmacKey(): Promise<CryptoKey> {
    this.#key ??= globalThis.crypto.subtle.importKey("raw", new TextEncoder().encode(this.secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"])
    return this.#key
  }

  #start(order: PaymentOrder): PaymentStart {
    const reference = randomId(order.method === "card" ? "ch" : "mm")
    if (this.#refusal !== undefined) return { outcome: "declined", reference: null, reason: this.#refusal }
    const later = (outcome: "succeeded" | "failed", reason: string | null, delayMs: number) =>
      this.#schedule(order.method, { id: randomId("evt"), type: `payment.${outcome}`, checkoutId: order.checkoutId, reference, reason }, delayMs)
    if (order.method === "card") {
      const number = order.cardToken?.replace(/^tok_/, "")
      if (number === SANDBOX_CARDS.succeeds) {
        later("succeeded", null, 0)
        return { outcome: "succeeded", reference }
      }
      if (number === SANDBOX_CARDS.confirmsLater) {
        later("succeeded", null, this.#delayMs)
        return { outcome: "pending", reference }
      }
      return { outcome: "declined", reference, reason: number === SANDBOX_CARDS.declined ? "card declined" : "card not known to the sandbox" }
    }
    if (order.phone === SANDBOX_PHONES.succeeds) later("succeeded", null, this.#delayMs)
    else if (order.phone === SANDBOX_PHONES.insufficientFunds) later("failed", "insufficient funds", this.#delayMs)
    else if (order.phone !== SANDBOX_PHONES.timesOut) return { outcome: "declined", reference, reason: "phone number not known to the sandbox" }
    return { outcome: "pending", reference }
  }

  // Delivers after `delayMs`, retrying a refused or failed delivery up to three times.
  #schedule(provider: "card" | "mobile_money", event: Record<string, unknown>, delayMs: number): void {
    const body = JSON.stringify(event)
    const task = (async () => {
      for (let attempt = 0; attempt < 4; attempt++) {
        await new Promise((r) => setTimeout(r, attempt === 0 ? delayMs : 50 * attempt))
        const status = await this.send(provider, body).catch(() => 0)
        if (status >= 200 && status < 300) return
      }
    })()
    this.#inFlight.add(task)
    void task.finally(() => this.#inFlight.delete(task))
  }

  async #read(provider: string, header: (name: string) => string | null, body: string): Promise<Option.Option<PaymentConfirmation>> {
    if (provider !== "card" && provider !== "mobile_money") return Option.none()
    const given = /^v1=([0-9a-f]{64})$/.exec(header(SANDBOX_SIGNATURE_HEADER) ?? "")
    if (given === null) return Option.none()
    const key = await this.#hmacKey()
    // subtle.verify compares in constant time.
    const valid = await globalThis.crypto.subtle.verify("HMAC", key, Buffer.from(given[1]!, "hex"), new TextEncoder().encode(body))
    if (!valid) return Option.none()
    let event: { id?: unknown; type?: unknown; checkoutId?: unknown; reference?: unknown; reason?: unknown }
    try {
      // Signed by the provider, still parsed within the one JSON budget of every parser (docs/security).
      if (jsonDepthProblem(body) !== undefined) return Option.none()
      event = JSON.parse(body)
    } catch {
      return Option.none()
    }
    if (typeof event.id !== "string" || typeof event.checkoutId !== "string" || typeof event.reference !== "string") return Option.none()
    if (event.type !== "payment.succeeded" && event.type !== "payment.failed") return Option.none()
    return Option.some({
      eventId: event.id,
      checkoutId: event.checkoutId,
      reference: event.reference,
      outcome: event.type === "payment.succeeded" ? "succeeded" : "failed",
      reason: typeof event.reason === "string" ? event.reason : null,
    })
  }
}

/** Why a production engine without a payment provider declines a checkout. */
export const NO_PAYMENT_PROVIDER = "no payment provider is configured for production"

/** No payment provider (production without one): every checkout is declined, no callback is ever believed. */
export const paymentsUnconfigured: PaymentProviders = {
  layer: declareAdapter(
    { port: "payments", adapter: "none (checkouts declined)", setting: PAYMENTS_SETTING },
    Layer.succeed(Payments, {
      start: () => Effect.succeed<PaymentStart>({ outcome: "declined", reference: null, reason: NO_PAYMENT_PROVIDER }),
      readCallback: () => Effect.succeed(Option.none()),
    }),
  ),
}
