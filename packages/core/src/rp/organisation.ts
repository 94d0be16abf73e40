/**
 * KYC of an RP's organisation, which unlocks LOA-4: the contact submits the organisation's
 * details, an administrator records the check (registration number, country, the documents
 * seen, who and when) and that record sets or clears `kycVerified`. The record is
 * append-only, so the history of every decision stays readable.
 */
import { Clock, Effect } from "effect"
import { InvalidRequest } from "../kernel/errors.ts"
import type { OrganisationDocument } from "./model.ts"
import { RpOrganisationChecks } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import { administerRelyingParty } from "./relying-parties.ts"

/** The organisation's details as the contact submits them or an administrator confirms them. */
export interface OrganisationDetails {
  readonly legalName: string
  readonly registrationNumber: string
  readonly country: string
  readonly documents: ReadonlyArray<OrganisationDocument>
}

const text = (value: string, field: string, max: number) => {
  const v = value.trim()
  return v === "" || v.length > max ? Effect.fail(new InvalidRequest({ detail: `${field} must be 1 to ${max} characters` })) : Effect.succeed(v)
}

const checkDetails = (d: OrganisationDetails, needDocuments: boolean) =>
  Effect.gen(function* () {
    const legalName = yield* text(d.legalName, "legalName", 200)
    const registrationNumber = yield* text(d.registrationNumber, "registrationNumber", 64)
    const country = d.country.trim().toUpperCase()
    if (!/^[A-Z]{2}$/.test(country)) return yield* new InvalidRequest({ detail: "country must be an ISO 3166-1 alpha-2 code such as KE" })
    if (d.documents.length > 20) return yield* new InvalidRequest({ detail: "at most 20 documents" })
    if (needDocuments && d.documents.length === 0) return yield* new InvalidRequest({ detail: "a verification names at least one checked document" })
    const documents: Array<OrganisationDocument> = []
    for (const doc of d.documents) {
      documents.push({ kind: yield* text(doc.kind, "document kind", 64), reference: yield* text(doc.reference, "document reference", 200) })
    }
    return { legalName, registrationNumber, country, documents }
  })

/** The contact submits (or resubmits) the organisation's details for review; `kycVerified` does not change. */
export const submitOrganisationDetails = (clientId: string, submittedBy: string, details: OrganisationDetails) =>
  Effect.gen(function* () {
    const checked = yield* checkDetails(details, false)
    const now = yield* Clock.currentTimeMillis
    return yield* Effect.flatMap(RpOrganisationChecks, (r) =>
      r.insert({
        clientId,
        status: "submitted",
        ...checked,
        submittedBy,
        checkedBy: null,
        note: null,
        createdAt: now,
      }),
    )
  })

/** What an administrator records after checking the organisation. */
export interface OrganisationCheckInput extends OrganisationDetails {
  readonly outcome: "verified" | "rejected"
  /** who checked (the administrator's name) */
  readonly checkedBy: string
  readonly note?: string | null | undefined
}

/**
 * An administrator's check: stored in the record and, in the same transaction, `kycVerified`
 * set (verified) or cleared (rejected: also withdraws an earlier verification).
 */
export const recordOrganisationCheck = (clientId: string, input: OrganisationCheckInput) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    return yield* storage.transaction(
      Effect.gen(function* () {
        const checked = yield* checkDetails(input, input.outcome === "verified")
        const checkedBy = yield* text(input.checkedBy, "checkedBy", 100)
        const note = input.note === undefined || input.note === null || input.note.trim() === "" ? null : yield* text(input.note, "note", 1000)
        const { rp } = yield* administerRelyingParty(clientId, { _tag: "SetKycVerified", kycVerified: input.outcome === "verified" })
        const now = yield* Clock.currentTimeMillis
        const check = yield* Effect.flatMap(RpOrganisationChecks, (r) =>
          r.insert({
            clientId,
            status: input.outcome,
            ...checked,
            submittedBy: null,
            checkedBy,
            note,
            createdAt: now,
          }),
        )
        return { rp, check }
      }),
    )
  })

/** An RP's organisation-KYC record, oldest first. */
export const organisationChecks = (clientId: string) => Effect.flatMap(RpOrganisationChecks, (r) => r.listByClientId(clientId))
