import { Effect, HashMap, Layer, Logger, type LogLevel } from "effect"
import { AuditLog, type AuditEvent } from "../authorization/ports.ts"
import { describe, expect, it } from "vitest"
import { revokeCertificate } from "./revocation.ts"
import { signingIdentityFor } from "./signer-certificate.ts"
import { pkiTestWorld, testUser } from "./test-layers.ts"

describe("revokeCertificate", () => {
  it("says in its audit event and log line who revoked: the holder or an administrator", async () => {
    const world = pkiTestWorld()
    const events: Array<AuditEvent> = []
    const audit = Layer.succeed(
      AuditLog,
      AuditLog.of({
        append: (e) =>
          Effect.sync(() => {
            events.push(e)
          }),
        recent: () => Effect.succeed(events),
      }),
    )
    const lines: Array<{ message: unknown; level: LogLevel.LogLevel; annotations: Record<string, unknown> }> = []
    const capture = Logger.make(({ message, logLevel, annotations }) => {
      lines.push({ message, level: logLevel, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
    })
    const user = testUser()
    await Effect.runPromise(
      Effect.gen(function* () {
        const first = yield* signingIdentityFor(user)
        yield* revokeCertificate(user.id, first.certificate.serial, "keyCompromise")
        const second = yield* signingIdentityFor(user)
        yield* revokeCertificate(null, second.certificate.serial, "superseded")
      }).pipe(Effect.provide(world.layer), Effect.provide(audit), Effect.provide(Logger.replace(Logger.defaultLogger, capture))),
    )
    const revoked = lines.filter((l) => JSON.stringify(l.message).includes("certificate.revoked"))
    expect(revoked.map((l) => [l.level.label, l.annotations["revokedBy"], l.annotations["reason"], l.annotations["holder"]])).toEqual([
      ["INFO", "holder", "keyCompromise", user.id],
      ["INFO", "administrator", "superseded", user.id],
    ])
    expect(events.map((e) => [e.action, e.detail["revokedBy"], e.actorClientId])).toEqual([
      ["certificate.revoked", "holder", null],
      ["certificate.revoked", "administrator", "admin"],
    ])
  })
})
