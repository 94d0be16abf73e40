/**
 * Master-key rotation over the tables: every column that holds a value sealed under the master
 * key, re-sealed in batches of rows, one transaction per batch. Each row is read and written in
 * the same transaction, and written only if it still holds what was read, so a batch is all or
 * nothing; the resealer leaves values already under the new key alone, so a rotation that was
 * interrupted (killed, crashed, a lost connection) resumes by running again from the start.
 */
import { fromBase64, toBase64 } from "@signet/core"
import type { Kysely } from "kysely"
import type { AnyDb } from "./migration.ts"

/** Moves one sealed value to the new master key; `undefined` when it is already there (structural: adapters-crypto implements it). */
export interface SealedValueResealer {
  readonly privateKey: (keyId: string, sealed: string) => Promise<string | undefined>
  readonly vault: (sealed: Uint8Array, purpose: string, aad: string) => Promise<Uint8Array | undefined>
}

type Row = Record<string, unknown>

/** A column of sealed values: its table, its primary key (one column), and how a row's value is re-sealed. */
interface SealedColumn {
  readonly table: string
  readonly key: string
  readonly column: string
  readonly also: ReadonlyArray<string>
  readonly reseal: (row: Row, resealer: SealedValueResealer) => Promise<unknown>
}

const base64Vault =
  (purpose: string, aad: (row: Row) => string, column: string) =>
  async (row: Row, resealer: SealedValueResealer): Promise<unknown> => {
    const bytes = fromBase64(String(row[column])) ?? new Uint8Array()
    const next = await resealer.vault(bytes, purpose, aad(row))
    return next === undefined ? undefined : toBase64(next)
  }

// The Vault purposes and bindings are the ones core seals with (events/webhooks.ts, kyc, pades/flow.ts,
// documents/signature-image.ts, identity-providers/registry.ts); a new sealed column is added here.
const SEALED_COLUMNS: ReadonlyArray<SealedColumn> = [
  {
    table: "keys",
    key: "key_id",
    column: "encrypted_private_key",
    also: [],
    reseal: (row, r) => r.privateKey(String(row["key_id"]), String(row["encrypted_private_key"])),
  },
  {
    table: "webhook_subscriptions",
    key: "id",
    column: "secret",
    also: ["client_id", "owner_user_id", "url"],
    reseal: async (row, r) => {
      // `sealed:v2:<base64>` (or v1): the prefix says how the secret is read, so it is kept.
      const stored = String(row["secret"])
      const prefix = /^sealed:v\d+:/.exec(stored)?.[0]
      if (prefix === undefined) return undefined
      const next = await r.vault(
        fromBase64(stored.slice(prefix.length)) ?? new Uint8Array(),
        "webhook-secrets",
        `webhook ${String(row["client_id"])} ${String(row["owner_user_id"])} ${String(row["url"])}`,
      )
      return next === undefined ? undefined : `${prefix}${toBase64(next)}`
    },
  },
  {
    table: "kyc_images",
    key: "id",
    column: "ciphertext",
    also: ["verification_id"],
    reseal: base64Vault("kyc-images", (row) => `${String(row["verification_id"])}:${String(row["id"])}`, "ciphertext"),
  },
  {
    table: "signature_images",
    key: "user_id",
    column: "sealed",
    also: [],
    reseal: base64Vault("signature-images", (row) => `signature-image ${String(row["user_id"])}`, "sealed"),
  },
  {
    table: "identity_providers",
    key: "id",
    column: "client_secret_sealed",
    also: [],
    reseal: base64Vault("idp-client-secrets", (row) => String(row["id"]), "client_secret_sealed"),
  },
  {
    table: "prepared_pdfs",
    key: "request_id",
    column: "sealed",
    also: [],
    reseal: (row, r) => r.vault(new Uint8Array(row["sealed"] as Uint8Array), "pades-document", String(row["request_id"])),
  },
]

/** What one table's pass did. */
export interface SealedTableRotation {
  readonly table: string
  /** rows read */
  readonly rows: number
  /** rows re-sealed by this run */
  readonly resealed: number
  /** rows found already under the new key (an earlier, interrupted run) */
  readonly already: number
}

/** Options of a rotation run. */
export interface RotateSealedOptions {
  /** rows per transaction (default 100) */
  readonly batchSize?: number
  /** called after each committed batch (progress lines, tests) */
  readonly onBatch?: (progress: SealedTableRotation) => void | Promise<void>
  /** a pause between batches, ms (default 0): lets other work on a shared database through */
  readonly pauseMs?: number
}

/** Re-seals every sealed column of the database with `resealer`, table by table, one transaction per batch. */
export const rotateSealedColumns = async (
  database: Kysely<never> | AnyDb,
  resealer: SealedValueResealer,
  options: RotateSealedOptions = {},
): Promise<ReadonlyArray<SealedTableRotation>> => {
  const db = database as AnyDb
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 100))
  const done: Array<SealedTableRotation> = []
  for (const sealed of SEALED_COLUMNS) {
    let after: unknown
    let rows = 0
    let resealed = 0
    let already = 0
    for (;;) {
      const batch = await db.transaction().execute(async (trx) => {
        let select = trx
          .selectFrom(sealed.table)
          .select([sealed.key, sealed.column, ...sealed.also])
          .orderBy(sealed.key)
          .limit(batchSize)
        if (after !== undefined) select = select.where(sealed.key, ">", after)
        const found = (await select.execute()) as Array<Row>
        let changed = 0
        for (const row of found) {
          const next = await sealed.reseal(row, resealer)
          if (next === undefined) continue
          await trx
            .updateTable(sealed.table)
            .set({ [sealed.column]: next })
            .where(sealed.key, "=", row[sealed.key])
            .where(sealed.column, "=", row[sealed.column])
            .execute()
          changed++
        }
        return { found, changed }
      })
      if (batch.found.length === 0) break
      after = batch.found[batch.found.length - 1]![sealed.key]
      rows += batch.found.length
      resealed += batch.changed
      already += batch.found.length - batch.changed
      await options.onBatch?.({ table: sealed.table, rows, resealed, already })
      if (batch.found.length < batchSize) break
      if ((options.pauseMs ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, options.pauseMs))
    }
    done.push({ table: sealed.table, rows, resealed, already })
  }
  return done
}
