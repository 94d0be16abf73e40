#!/usr/bin/env node
/**
 * The admin CLI: the same RP operations as core's `registerRelyingParty`, `administerRelyingParty`
 * and `rotateSecrets`, against the database the server uses (same configuration).
 */
import { parseMasterKey } from "@signet/adapters-crypto"
import {
  administerRelyingParty,
  configureKyc,
  getRelyingParty,
  listIdentityProviders,
  recordOrganisationCheck,
  registerIdentityProvider,
  removeIdentityProvider,
  revokeCertificate,
  IdTokenAlgorithm,
  Loa,
  PlanId,
  RelyingParties,
  registerRelyingParty,
  rotateSecrets,
  rotateSigningKey,
  type RelyingParty,
  type RpCommand,
  Mailer,
  MailUndeliverable,
  renewArchive,
} from "@signet/core"
import { Effect, Layer, LogLevel, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { isPostgresUrl, loadConfig } from "../config.ts"
import { demoMasterKey } from "../demo.ts"
import { fileSource, makeEngine, signedFileWriter } from "@signet/adapters-http"
import { storageFor } from "../storage.ts"
import { rotateMasterKeyCommand } from "../master-key-rotation.ts"
import { backupSqlite, restoreSqlite } from "@signet/adapters-sqlite"
import { kycFixture } from "./kyc-fixture.ts"

const USAGE = `usage: pnpm admin <command> [--config file.json] [--demo]

  token                             a new administrator token for SIGNET_ADMIN_TOKEN (console and /admin/api)
  rp list
  rp show <clientId>
  rp create --name <name> [--origin <origin>]... [--rp-id <host>] [--plan starter|business|enterprise]
            [--max-loa LOA-2|LOA-4] [--contact <userId>] [--redirect-uri <uri>]... [--post-logout <uri>]... [--approve]
  rp approve|reject|suspend <clientId>
  rp set-plan <clientId> starter|business|enterprise|none
  rp set-max-loa <clientId> LOA-2|LOA-4
  rp set-kyc-verified <clientId> true|false
  rp set-origins <clientId> <origin>...
  rp set-rp-id <clientId> <host>
  rp set-contact <clientId> <userId>|none
  rp rotate-secrets <clientId> [client|ssc|both] [--no-grace]
  rp set-redirect-uris <clientId> <uri>...
  rp set-post-logout-uris <clientId> <uri>...
  rp set-id-token-alg <clientId> RS256|ES256
  rp org-check <clientId> verified|rejected --legal-name <name> --registration-number <no> --country <CC>
            --document <kind>=<reference>... --checked-by <name> [--note <text>]
  rp kyc <clientId> on|off [--scope rp|shared]
  idp add --issuer <url> --client-id <id> --name <name> [--scope <scope>]...
          (the client secret from --client-secret <secret> or, kept out of the process list, SIGNET_IDP_CLIENT_SECRET)
  idp list
  idp remove <providerId>
  keys rotate                       (new token-signing key; the previous one stays published for tokens in flight)
  backup <file>                     (SQLite: an online, consistent copy while the engine serves; PostgreSQL: docs/operations.md)
  restore <file>                    (SQLite: replaces the database by a backup; refused while any process has it open)
  rotate-master-key --new <key> [--batch-size N] [--pause-ms N]
                                    (engine stopped: re-seals every sealed key, secret and image under the new key, one transaction
                                    per batch; run it again to resume after an interruption; docs/operations.md)
  kyc-fixture [dir]                 (sandbox KYC fixture JPEGs, one per outcome, and fixtures.json, into dir (kyc-fixtures/); docs/kyc.md)
  cert revoke <serial> <reason>     (unspecified, keyCompromise, affiliationChanged, superseded, cessationOfOperation, privilegeWithdrawn)
  pdf timestamp <in.pdf> <out.pdf>  (PAdES archive renewal: the newest document timestamp's validation data into /DSS, then a new
                                    document timestamp from the engine's TSA; a B-LT file becomes B-LTA; docs/pades.md)

Configuration as for the server (SIGNET_DATABASE, SIGNET_MASTER_KEY, SIGNET_ENVIRONMENT, ...).
Secrets are printed once; the engine keeps only their hashes.`

/** An RP without its secret hashes (current or in grace), as the CLI prints it. */
const view = ({ clientSecretHash: _c, sscSecretHash: _s, retiredClientSecret, retiredSscSecret, ...rest }: RelyingParty) => ({
  ...rest,
  previousSecretsValidUntil: {
    client: retiredClientSecret === null ? null : new Date(retiredClientSecret.validUntil).toISOString(),
    ssc: retiredSscSecret === null ? null : new Date(retiredSscSecret.validUntil).toISOString(),
  },
})

const flags = (args: ReadonlyArray<string>, name: string): Array<string> =>
  args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]!] : []))

const decode = <A, I>(schema: Schema.Schema<A, I>, value: string | undefined, what: string): A => {
  const r = Schema.decodeUnknownEither(schema)(value)
  if (r._tag === "Left") throw new Error(`${what}: ${value ?? "(missing)"} is not valid`)
  return r.right
}

const main = async () => {
  const argv = process.argv.slice(2)
  const args = argv.filter((a, i) => a !== "--demo" && a !== "--config" && argv[i - 1] !== "--config")
  const [group, command, clientId, ...rest] = args
  if (group === "token") {
    // 32 random bytes: as strong as the RP secrets; the server wants at least 32 characters.
    process.stdout.write(`${JSON.stringify({ adminToken: `adm_${randomBytes(32).toString("base64url")}` }, null, 2)}\n`)
    return
  }
  if (group === "rotate-master-key") return rotateMasterKeyCommand(process.argv.slice(2), process.env)
  if (group === "kyc-fixture") {
    process.stdout.write(`${JSON.stringify(await kycFixture(command), null, 2)}\n`)
    return
  }
  if (group === "backup" || group === "restore") {
    const config = loadConfig(process.env, process.argv, { demo: process.argv.includes("--demo") })
    if (command === undefined) throw new Error(`${group} needs a file`)
    if (isPostgresUrl(config.database)) {
      throw new Error(`${group} is for the embedded SQLite database; on PostgreSQL use pg_dump / pg_restore (docs/operations.md)`)
    }
    const done = group === "backup" ? await backupSqlite(config.database, command) : restoreSqlite(command, config.database)
    process.stdout.write(`${JSON.stringify({ [group === "backup" ? "backup" : "restored"]: done }, null, 2)}\n`)
    return
  }
  if ((group !== "rp" && group !== "cert" && group !== "idp" && group !== "keys" && group !== "pdf") || command === undefined) {
    process.stdout.write(`${USAGE}\n`)
    process.exit(group === undefined || group === "help" || group === "--help" ? 0 : 2)
  }
  const config = loadConfig(process.env, process.argv, { demo: process.argv.includes("--demo") })
  // SIGNET_DATABASE_POOL (the deployment's connection budget) holds for the CLI too.
  const { storage } = storageFor(config.database, { pool: config.databasePool, preparedStatements: config.databasePreparedStatements })
  const engine = await makeEngine({
    settings: config.settings,
    storage,
    masterKey: parseMasterKey(config.masterKey ?? demoMasterKey(config.database)),
    logLevel: LogLevel.None,
    // The loopback switch also lets discovery reach a provider on 127.0.0.1 (development, tests).
    deliveries: config.deliveries,
    // The CLI sends no e-mail; a production database must still open without a relay.
    mailer: Layer.succeed(Mailer, Mailer.of({ send: () => Effect.fail(new MailUndeliverable({ detail: "the admin CLI sends no e-mail" })) })),
  })
  const need = () => {
    if (clientId === undefined)
      throw new Error(`${group} ${command} needs ${group === "cert" ? "a certificate serial" : group === "idp" ? "a provider id" : "a client id"}`)
    return clientId
  }
  const admin = (c: RpCommand) => engine.run(administerRelyingParty(need(), c).pipe(Effect.map((r) => view(r.rp))))
  try {
    let out: unknown
    switch (group === "rp" ? command : `${group} ${command}`) {
      case "keys rotate":
        out = await engine.run(rotateSigningKey)
        break
      case "idp add": {
        const all = [clientId ?? "", ...rest]
        const secret = flags(all, "--client-secret")[0] ?? process.env["SIGNET_IDP_CLIENT_SECRET"] ?? ""
        out = await engine.run(
          registerIdentityProvider(
            { kind: "admin" },
            {
              issuer: flags(all, "--issuer")[0] ?? "",
              clientId: flags(all, "--client-id")[0] ?? "",
              clientSecret: secret,
              name: flags(all, "--name")[0] ?? "",
              ...(all.includes("--scope") ? { scopes: flags(all, "--scope") } : {}),
            },
          ),
        )
        break
      }
      case "idp list":
        out = await engine.run(listIdentityProviders({ kind: "admin" }))
        break
      case "idp remove":
        out = await engine.run(removeIdentityProvider({ kind: "admin" }, need()))
        break
      case "pdf timestamp": {
        const [input, output] = [clientId, rest[0]]
        if (input === undefined || output === undefined) throw new Error("pdf timestamp needs <in.pdf> <out.pdf>")
        const source = await fileSource(input)
        const writer = signedFileWriter(input, source.size, output)
        try {
          const update = await engine.run(renewArchive(source)).catch(async (e: unknown) => {
            await writer.abandon()
            throw e
          })
          await writer.finish(update)
          out = { input, output, appendedBytes: update.length }
        } finally {
          await source.close()
        }
        break
      }
      case "cert revoke": {
        const revoked = await engine.run(revokeCertificate(null, need(), rest[0] ?? ""))
        out = {
          serial: revoked.serial,
          subject: revoked.subject,
          status: revoked.status,
          revokedAt: revoked.revokedAt,
          revocationReason: revoked.revocationReason,
        }
        break
      }
      case "list":
        out = (await engine.run(Effect.flatMap(RelyingParties, (r) => r.list()))).map(view)
        break
      case "show":
        out = view(await engine.run(getRelyingParty(need())))
        break
      case "create": {
        const all = [clientId ?? "", ...rest]
        const plan = flags(all, "--plan")[0]
        const maxLoa = flags(all, "--max-loa")[0]
        const rpId = flags(all, "--rp-id")[0]
        const contact = flags(all, "--contact")[0]
        const created = await engine.run(
          registerRelyingParty({
            name: flags(all, "--name")[0] ?? "",
            signingOrigins: flags(all, "--origin"),
            ...(rpId ? { webauthnRpId: rpId } : {}),
            ...(plan ? { plan: decode(PlanId, plan, "--plan") } : {}),
            ...(maxLoa ? { maxLoa: decode(Loa, maxLoa, "--max-loa") } : {}),
            ...(contact ? { contactUserId: contact } : {}),
            redirectUris: flags(all, "--redirect-uri"),
            postLogoutRedirectUris: flags(all, "--post-logout"),
            status: all.includes("--approve") ? "approved" : "pending",
          }),
        )
        out = { ...view(created.rp), clientSecret: created.clientSecret, sscSecret: created.sscSecret }
        break
      }
      case "approve":
        out = await admin({ _tag: "Approve" })
        break
      case "reject":
        out = await admin({ _tag: "Reject" })
        break
      case "suspend":
        out = await admin({ _tag: "Suspend" })
        break
      case "set-plan":
        out = await admin({ _tag: "SetPlan", plan: rest[0] === "none" ? null : decode(PlanId, rest[0], "plan") })
        break
      case "set-max-loa":
        out = await admin({ _tag: "SetMaxLoa", loa: decode(Loa, rest[0], "LOA") })
        break
      case "set-kyc-verified":
        out = await admin({ _tag: "SetKycVerified", kycVerified: rest[0] === "true" })
        break
      case "set-origins":
        out = await admin({ _tag: "SetSigningOrigins", origins: rest })
        break
      case "set-redirect-uris":
        out = await admin({ _tag: "SetRedirectUris", uris: rest })
        break
      case "set-post-logout-uris":
        out = await admin({ _tag: "SetPostLogoutRedirectUris", uris: rest })
        break
      case "set-id-token-alg":
        out = await admin({ _tag: "SetIdTokenAlgorithm", alg: decode(IdTokenAlgorithm, rest[0], "algorithm") })
        break
      case "set-rp-id":
        out = await admin({ _tag: "SetWebAuthnRpId", rpId: rest[0] ?? "" })
        break
      case "set-contact":
        out = await admin({ _tag: "SetContact", userId: rest[0] === "none" || rest[0] === undefined ? null : rest[0] })
        break
      case "rotate-secrets": {
        const which = (rest.find((a) => !a.startsWith("--")) ?? "both") as "client" | "ssc" | "both"
        if (!["client", "ssc", "both"].includes(which)) throw new Error("rotate-secrets takes client, ssc or both")
        const r = await engine.run(rotateSecrets(need(), which, { grace: !rest.includes("--no-grace") }))
        out = {
          ...view(r.rp),
          ...("clientSecret" in r ? { clientSecret: r.clientSecret } : {}),
          ...("sscSecret" in r ? { sscSecret: r.sscSecret } : {}),
          previousValidUntil: r.previousValidUntil === null ? null : new Date(r.previousValidUntil).toISOString(),
        }
        break
      }
      case "org-check": {
        const outcome = rest[0]
        if (outcome !== "verified" && outcome !== "rejected") throw new Error("rp org-check takes verified or rejected")
        const documents = flags(rest, "--document").map((d) => {
          const i = d.indexOf("=")
          if (i <= 0) throw new Error(`--document ${d} is not <kind>=<reference>`)
          return { kind: d.slice(0, i), reference: d.slice(i + 1) }
        })
        const note = flags(rest, "--note")[0]
        const r = await engine.run(
          recordOrganisationCheck(need(), {
            outcome,
            legalName: flags(rest, "--legal-name")[0] ?? "",
            registrationNumber: flags(rest, "--registration-number")[0] ?? "",
            country: flags(rest, "--country")[0] ?? "",
            documents,
            checkedBy: flags(rest, "--checked-by")[0] ?? "",
            note: note ?? null,
          }),
        )
        out = { ...view(r.rp), check: r.check }
        break
      }
      case "kyc": {
        if (rest[0] !== "on" && rest[0] !== "off") throw new Error("rp kyc takes on or off")
        const scope = flags(rest, "--scope")[0]
        if (scope !== undefined && scope !== "rp" && scope !== "shared") throw new Error("--scope is rp or shared")
        await engine.run(getRelyingParty(need()))
        out = await engine.run(configureKyc(need(), { enabled: rest[0] === "on", ...(scope !== undefined ? { identityScope: scope } : {}) }))
        break
      }
      default:
        throw new Error(`unknown command ${group} ${command}\n\n${USAGE}`)
    }
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`)
  } finally {
    await engine.dispose()
  }
}

main().catch((e: unknown) => {
  const message =
    e instanceof Error ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e)
  process.stderr.write(`signet admin: ${message}\n`)
  process.exit(1)
})
