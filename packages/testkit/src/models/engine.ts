/** What the model-based suites share: an engine runtime on a storage adapter, a clock per run, outcomes by tag. */
import { KeyStoreSoftware, MasterKey, RandomWebCrypto } from "@signet/adapters-crypto"
import {
  administerRelyingParty,
  completeEnrolment,
  confirmEmailVerification,
  EngineConfig,
  registerRelyingParty,
  type Allowance,
  EventBusInProcess,
  Mailer,
  requestEnrolment,
  startEmailVerification,
  type EventBus,
  type KeyStore,
  type MailMessage,
  type Random,
  type RegistrationCredential,
  TimestampAuthorityBuiltIn,
  type TimestampAuthority,
} from "@signet/core"
import { Effect, Layer, ManagedRuntime } from "effect"
import { randomBytes } from "node:crypto"
import { SoftwarePasskey, type PasskeyFault } from "../passkey/software-passkey.ts"
import type { StorageTags } from "../storage/conformance.ts"
import type { ManualClock } from "./manual-clock.ts"

/** The services a model-based suite runs core programs with. */
export type ModelServices = StorageTags | EngineConfig | Random | KeyStore | EventBus | TimestampAuthority | Mailer

/** Every e-mail the model runtimes sent, newest last: the model's signers read their codes here. */
const modelMail: Array<MailMessage> = []
const ModelMailer = Layer.succeed(
  Mailer,
  Mailer.of({
    send: (message) =>
      Effect.sync(() => {
        modelMail.push(message)
      }),
  }),
)

/** The code in the newest e-mail to `to`. */
const codeFor = (to: string): string => {
  const mail = modelMail.findLast((m) => m.to === to)
  const code = mail?.text.match(/code is (\d+)/)?.[1]
  if (code === undefined) throw new Error(`no verification e-mail to ${to}`)
  return code
}

/** Runs a core program at the run's clock. */
export type ModelRun = <A, E>(effect: Effect.Effect<A, E, ModelServices>) => Promise<A>

/** An engine runtime (storage, software KeyStore, CSPRNG, sandbox settings at `origin`) for one suite. */
export const modelRuntime = (makeStorage: () => Layer.Layer<StorageTags, unknown>, origin: string) => {
  const storage = makeStorage()
  const keys = KeyStoreSoftware.pipe(Layer.provide(Layer.merge(storage, Layer.succeed(MasterKey, globalThis.crypto.getRandomValues(new Uint8Array(32))))))
  const base = Layer.mergeAll(
    storage,
    keys,
    RandomWebCrypto,
    EventBusInProcess,
    ModelMailer,
    Layer.succeed(EngineConfig, {
      environment: "sandbox",
      publicOrigin: origin,
      basePath: "/api",
      accessTokenTtlSeconds: 3600,
      ceremonyTtlSeconds: 300,
      sessionTtlSeconds: 3600,
    }),
  )
  return ManagedRuntime.make(Layer.provideMerge(TimestampAuthorityBuiltIn, base))
}

/** A `ModelRun` on `runtime` at `clock`'s time. */
export const runAt =
  (runtime: ManagedRuntime.ManagedRuntime<ModelServices, unknown>, clock: ManualClock): ModelRun =>
  (effect) =>
    runtime.runPromise(Effect.withClock(effect, clock))

/** Runs `effect` and answers `ok` with its value, or its failure's tag. */
export const outcome = <A, E extends { readonly _tag: string }>(run: ModelRun, effect: Effect.Effect<A, E, ModelServices>) =>
  run(
    Effect.match(effect, {
      onFailure: (e) => ({ ok: false as const, tag: e._tag }),
      onSuccess: (value) => ({ ok: true as const, tag: "ok", value }),
    }),
  )

/** The failure each broken-assertion switch must produce. */
export const FAULT_TAGS: Readonly<Record<Exclude<PasskeyFault, "counterBackwards">, string>> = {
  wrongOrigin: "OriginMismatch",
  wrongRpId: "RpIdMismatch",
  noUserVerification: "UserVerificationRequired",
  badSignature: "PasskeySignatureInvalid",
  otherChallenge: "ChallengeMismatch",
  unregisteredCredential: "CredentialNotRegistered",
}

/** Enrols a new signer with a software passkey through the core ceremony. */
export const enrolSigner = async (run: ModelRun, origin: string) => {
  const passkey = SoftwarePasskey.create({ origin })
  const email = `signer-${randomBytes(6).toString("hex")}@example.com`
  const proof = await run(startEmailVerification(email))
  await run(confirmEmailVerification({ verificationId: proof.verificationId, code: codeFor(email) }))
  const started = await run(requestEnrolment({ email, emailVerificationId: proof.verificationId }))
  const enrolled = await run(
    completeEnrolment({ enrolmentId: started.enrolmentId, credential: passkey.register(started.options) as unknown as RegistrationCredential }),
  )
  return { passkey, email, userId: enrolled.userId }
}

/** An approved RP at `origin` with an agreed allowance, for one model run. */
export const modelRelyingParty = async (run: ModelRun, origin: string, allowance: Allowance) => {
  const rp = await run(registerRelyingParty({ name: "Model RP", status: "approved", signingOrigins: [origin] }))
  await run(administerRelyingParty(rp.rp.clientId, { _tag: "SetCustomAllowance", allowance }))
  return rp
}
