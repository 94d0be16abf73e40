import { Vault, utf8 } from "@signet/core"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { MasterKey } from "./key-store-software.ts"
import { VaultMasterKey } from "./vault-master-key.ts"

const withMaster = (fill: number) => VaultMasterKey.pipe(Layer.provide(Layer.succeed(MasterKey, new Uint8Array(32).fill(fill))))
const run = <A>(fill: number, program: Effect.Effect<A, never, Vault>) => Effect.runPromise(Effect.provide(program, withMaster(fill)))

describe("vault under the master key", () => {
  it("seals so that only the same master key, purpose and record open it", async () => {
    const secret = utf8("whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0")
    const sealed = await run(
      1,
      Effect.flatMap(Vault, (v) => v.seal(secret, "webhook-secrets", "subscription:7")),
    )
    expect(Buffer.from(sealed).includes(Buffer.from(secret))).toBe(false)
    expect(
      await run(
        1,
        Effect.flatMap(Vault, (v) => v.open(sealed, "webhook-secrets", "subscription:7")),
      ),
    ).toEqual(secret)
    await expect(
      run(
        2,
        Effect.flatMap(Vault, (v) => v.open(sealed, "webhook-secrets", "subscription:7")),
      ),
    ).rejects.toThrow()
    await expect(
      run(
        1,
        Effect.flatMap(Vault, (v) => v.open(sealed, "webhook-secrets", "subscription:8")),
      ),
    ).rejects.toThrow()
    await expect(
      run(
        1,
        Effect.flatMap(Vault, (v) => v.open(sealed, "kyc-images", "subscription:7")),
      ),
    ).rejects.toThrow()
    const altered = sealed.slice()
    altered[20]! ^= 1
    await expect(
      run(
        1,
        Effect.flatMap(Vault, (v) => v.open(altered, "webhook-secrets", "subscription:7")),
      ),
    ).rejects.toThrow()
  })
})
