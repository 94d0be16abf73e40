/**
 * `pnpm bench`: signatures per second, measured three ways in one run.
 *   (a) the floor: one passkey assertion verification plus one CMS signature, in process;
 *   (b) the engine in process on SQLite: create a request, then complete it;
 *   (c) the same over HTTP on loopback.
 * Each loop makes its assertions as it goes (a software passkey, as a browser would).
 */
import {
  administerRelyingParty,
  completeSigningRequest,
  createSigningRequest,
  fromHex,
  linkedChallenge,
  Passkeys,
  signDigest,
  signingIdentityFor,
  Users,
  verifyAssertion,
  type Assertion,
} from "@signet/core"
import { enrol, ok, signIn, SoftwarePasskey, type TokenAnswer } from "@signet/testkit"
import { Effect, Option } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { startEngine } from "../src/test-support/running-engine.ts"

const N = Number(process.env["BENCH_N"] ?? 300)
const WARMUP = 30
const hash = () => createHash("sha256").update(randomBytes(32)).digest("hex")

const time = async (label: string, run: (i: number) => Promise<void>) => {
  for (let i = 0; i < WARMUP; i++) await run(i)
  const started = performance.now()
  for (let i = 0; i < N; i++) await run(i)
  const seconds = (performance.now() - started) / 1000
  const perSecond = N / seconds
  console.log(`${label.padEnd(52)} ${perSecond.toFixed(1).padStart(8)} signatures/s   ${((seconds * 1000) / N).toFixed(2).padStart(7)} ms each`)
  return perSecond
}

const main = async () => {
  const env = await startEngine()
  try {
    await env.engine.run(
      administerRelyingParty(env.rp.clientId, {
        _tag: "SetCustomAllowance",
        allowance: { signaturesPerDay: 1_000_000, documentsPerBatch: 10, requestsPerMinute: 1_000_000, highestLoa: "LOA-4" },
      }),
    )
    const passkey = SoftwarePasskey.create({ origin: env.origin })
    const enrolled = await enrol(env.client, passkey, { email: "bench@example.com", displayName: "Bench" })
    const token = (ok(await signIn(env.client, passkey, { clientId: env.rp.clientId })) as TokenAnswer).access_token
    const user = { userId: enrolled.userId, clientId: env.rp.clientId, scope: ["basic"] }
    const account = await env.engine.run(Effect.flatMap(Users, (u) => u.findById(enrolled.userId)).pipe(Effect.map(Option.getOrThrow)))
    const identity = await env.engine.run(signingIdentityFor(account))
    const noHandle = { includeUserHandle: false } as const

    console.log(`Signet signing benchmark: ${N} signatures per figure after ${WARMUP} warm-up, Node ${process.version}, SQLite\n`)

    // (a) the floor: verify one assertion, make one CMS signature; no storage (the counter is kept in memory).
    let stored = await env.engine.run(Effect.flatMap(Passkeys, (p) => p.findById(passkey.credentialId)).pipe(Effect.map(Option.getOrThrow)))
    const floor = await time("(a) assertion verification + CMS signature", async (i) => {
      const challenge = await env.engine.run(linkedChallenge({ kind: "request", id: `bench-${i}`, documentHash: hash(), nonce: "n" }))
      const assertion = passkey.assert({ challenge }, noHandle) as Assertion
      await env.engine.run(
        Effect.gen(function* () {
          const verified = yield* verifyAssertion(assertion, stored, { challenge, origins: [env.origin], rpId: "localhost" })
          stored = { ...stored, counter: verified.newCounter }
          yield* signDigest({ identity, digest: fromHex(hash())!, digestAlgorithm: "SHA-256", signingTime: new Date() })
        }),
      )
    })

    // (b) the engine in process: create + complete through the core use cases on SQLite.
    const inProcess = await time("(b) engine in process (SQLite): create + complete", async () => {
      const pending = await env.engine.run(createSigningRequest(user, { documentHash: hash(), credentialId: passkey.credentialId }))
      await env.engine.run(completeSigningRequest(pending.requestId, passkey.assert({ challenge: pending.challenge }, noHandle) as Assertion))
    })

    // (c) over HTTP on loopback.
    const overHttp = await time("(c) engine over HTTP (loopback): create + complete", async () => {
      const created = await env.client.raw<{ requestId: string; challenge: string }>("POST", "/v2/sign/single", {
        body: { documentHash: hash(), credentialId: passkey.credentialId },
        headers: { authorization: `Bearer ${token}` },
      })
      const done = await env.client.raw("POST", `/v2/sign/auth/${created.body.requestId}`, {
        body: { assertion: passkey.assert({ challenge: created.body.challenge }, noHandle) },
      })
      if (done.status !== 200) throw new Error(`completion failed: ${JSON.stringify(done.body)}`)
    })

    console.log(`\nb/a = ${(inProcess / floor).toFixed(2)}   (aim >= 0.60)`)
    console.log(`c/a = ${(overHttp / floor).toFixed(2)}   (aim >= 0.35)`)
  } finally {
    await env.stop()
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
