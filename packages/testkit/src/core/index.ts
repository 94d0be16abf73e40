/**
 * A core test world: the engine's ports over the in-memory storage, real Web Crypto keys and
 * randomness, an in-process event bus and a mailbox tests read. The clock is not provided:
 * under `@effect/vitest`'s `it.effect` it is the `TestClock`, so tests move time themselves.
 */
import { KeyStoreSoftware, MasterKey, RandomWebCrypto, VaultMasterKey } from "@signet/adapters-crypto"
import { StorageMemory, type StorageMemoryServices } from "@signet/adapters-memory"
import {
  administerRelyingParty,
  completeEnrolment,
  confirmEmailVerification,
  EngineConfig,
  EventBusInProcess,
  Mailer,
  registerRelyingParty,
  requestEnrolment,
  startEmailVerification,
  TimestampAuthorityBuiltIn,
  type Allowance,
  type BearerUser,
  type IdTokenAlgorithm,
  type EventBus,
  type KeyStore,
  type MailMessage,
  type Random,
  type RegistrationCredential,
  type RpStatus,
  type TimestampAuthority,
  type Vault,
} from "@signet/core"
import { Context, Effect, Layer, TestClock } from "effect"
import { SoftwarePasskey } from "../passkey/software-passkey.ts"

/** The e-mails the engine sent in a test, oldest first. */
export class TestMailbox extends Context.Tag("@signet/testkit/TestMailbox")<
  TestMailbox,
  {
    readonly sent: () => ReadonlyArray<MailMessage>
    /** The code in the newest e-mail to `to`; dies when there is none. */
    readonly codeFor: (to: string) => Effect.Effect<string>
  }
>() {}

/** Every service `coreTestLayer` provides. */
export type CoreTestServices = StorageMemoryServices | EngineConfig | Random | KeyStore | Vault | EventBus | TimestampAuthority | Mailer | TestMailbox

/** Where the test engine lives: its public origin (the WebAuthn RP id is its host). */
export const CORE_TEST_ORIGIN = "http://localhost:3000"

/** 2026-11-25T12:00:00Z: a plain working day, far from the epoch the `TestClock` starts at. */
export const CORE_TEST_START = Date.UTC(2026, 10, 25, 12)

const mailbox = Layer.effectContext(
  Effect.sync(() => {
    const sent: Array<MailMessage> = []
    return Context.make(
      Mailer,
      Mailer.of({
        send: (message) =>
          Effect.sync(() => {
            sent.push(message)
          }),
      }),
    ).pipe(
      Context.add(
        TestMailbox,
        TestMailbox.of({
          sent: () => [...sent],
          codeFor: (to) =>
            Effect.suspend(() => {
              const code = sent.findLast((m) => m.to === to)?.text.match(/code is (\d+)/)?.[1]
              return code === undefined ? Effect.dieMessage(`no verification e-mail to ${to}`) : Effect.succeed(code)
            }),
        }),
      ),
    )
  }),
)

/**
 * A fresh engine world per build: in-memory storage, the software KeyStore and Vault under a
 * random master key, Web Crypto randomness, the built-in timestamp authority, an in-process
 * event bus, a recording mailer and a sandbox configuration at `origin`.
 */
export const coreTestLayer = (options: { readonly origin?: string } = {}): Layer.Layer<CoreTestServices> => {
  const master = Layer.sync(MasterKey, () => globalThis.crypto.getRandomValues(new Uint8Array(32)))
  const keys = Layer.mergeAll(KeyStoreSoftware, VaultMasterKey).pipe(Layer.provide(master))
  const base = Layer.mergeAll(
    StorageMemory,
    RandomWebCrypto,
    EventBusInProcess,
    mailbox,
    Layer.succeed(EngineConfig, {
      environment: "sandbox",
      publicOrigin: options.origin ?? CORE_TEST_ORIGIN,
      basePath: "/api",
      accessTokenTtlSeconds: 3600,
      ceremonyTtlSeconds: 300,
      sessionTtlSeconds: 3600,
    }),
  )
  return Layer.provideMerge(TimestampAuthorityBuiltIn, Layer.provideMerge(keys, base))
}

/** Sets the `TestClock` to `CORE_TEST_START` (plus `offsetMs`). */
export const atTestStart = (offsetMs = 0) => TestClock.setTime(CORE_TEST_START + offsetMs)

/** Enrols a new account with a software passkey through the core ceremony (e-mail proof first). */
export const enrolTestSigner = (email = `signer-${globalThis.crypto.randomUUID()}@example.com`, origin = CORE_TEST_ORIGIN) =>
  Effect.gen(function* () {
    const passkey = SoftwarePasskey.create({ origin })
    const proof = yield* startEmailVerification(email)
    yield* confirmEmailVerification({ verificationId: proof.verificationId, code: yield* Effect.flatMap(TestMailbox, (m) => m.codeFor(email)) })
    const started = yield* requestEnrolment({ email, emailVerificationId: proof.verificationId })
    const enrolled = yield* completeEnrolment({
      enrolmentId: started.enrolmentId,
      credential: passkey.register(started.options) as unknown as RegistrationCredential,
    })
    return { passkey, email, userId: enrolled.userId }
  })

/** A relying party with the given status (approved by default), signing origins, OpenID redirect URIs and, optionally, an agreed allowance. */
export const testRelyingParty = (
  options: {
    readonly status?: RpStatus
    readonly signingOrigins?: ReadonlyArray<string>
    readonly redirectUris?: ReadonlyArray<string>
    /** the RP's ID-token algorithm (the engine's default, RS256, when not given) */
    readonly idTokenAlg?: IdTokenAlgorithm
    /** the account that manages the RP (webhooks, secrets) */
    readonly contactUserId?: string
    readonly allowance?: Allowance
  } = {},
) =>
  Effect.gen(function* () {
    const registered = yield* registerRelyingParty({
      name: "Test RP",
      status: options.status ?? "approved",
      signingOrigins: [...(options.signingOrigins ?? [CORE_TEST_ORIGIN])],
      redirectUris: [...(options.redirectUris ?? [])],
      ...(options.idTokenAlg === undefined ? {} : { idTokenSignedResponseAlg: options.idTokenAlg }),
      ...(options.contactUserId === undefined ? {} : { contactUserId: options.contactUserId }),
    })
    if (options.allowance !== undefined) {
      yield* administerRelyingParty(registered.rp.clientId, { _tag: "SetCustomAllowance", allowance: options.allowance })
    }
    return registered
  })

/** A bearer user of `clientId` (what an access token carries). */
export const bearer = (userId: string, clientId: string, scope: ReadonlyArray<string> = ["basic"]): BearerUser => ({ userId, clientId, scope })
