/**
 * The sandbox fixtures as files (`pnpm admin kyc-fixture <dir>`): one JPEG per document and selfie outcome
 * the sandbox adapters produce, and `fixtures.json` saying which file gives which result. Each file's
 * marker is the `SIGNET-SANDBOX {json}` comment segment docs/kyc.md describes.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { forgedId, idCard, passport, passportBadMrz, plainJpeg, selfie, unusableSelfie } from "./index.ts"

/** One fixture file: its name, what it is, and what the sandbox makes of it. */
export interface KycFixtureFile {
  readonly file: string
  readonly kind: "document" | "selfie"
  readonly use: string
  /** the verification's status and reasons after this image (a document after `start`; a selfie after `passport.jpg`) */
  readonly outcome: { readonly status: string; readonly reasons: ReadonlyArray<string> }
}

const FIXTURES: ReadonlyArray<KycFixtureFile & { readonly image: () => string }> = [
  {
    file: "passport.jpg",
    kind: "document",
    use: "passport photo page of Grace Akinyi Otieno (face alice), MRZ valid",
    outcome: { status: "document_verified", reasons: [] },
    image: () => passport("alice"),
  },
  {
    file: "id-card.jpg",
    kind: "document",
    use: "national ID card (TD1 MRZ) of the same person (face alice)",
    outcome: { status: "document_verified", reasons: [] },
    image: () => idCard("alice"),
  },
  {
    file: "passport-any-face.jpg",
    kind: "document",
    use: "passport whose face (*) matches any capture, a webcam's or a phone's too: for the hosted capture and the phone handoff",
    outcome: { status: "document_verified", reasons: [] },
    image: () => passport("*"),
  },
  {
    file: "passport-bad-mrz.jpg",
    kind: "document",
    use: "passport whose document-number check digit is off by one",
    outcome: { status: "failed", reasons: ["document_not_authentic", "mrz_check_failed"] },
    image: passportBadMrz,
  },
  {
    file: "passport-forged.jpg",
    kind: "document",
    use: "passport the reader flags as not authentic",
    outcome: { status: "failed", reasons: ["document_not_authentic"] },
    image: forgedId,
  },
  {
    file: "passport-expired.jpg",
    kind: "document",
    use: "passport that expired on 2020-01-01",
    outcome: { status: "failed", reasons: ["document_expired"] },
    image: () => passport("alice", { expiryDate: "200101" }),
  },
  {
    file: "passport-name-mismatch.jpg",
    kind: "document",
    use: "passport whose printed surname differs from its MRZ",
    outcome: { status: "failed", reasons: ["document_not_authentic", "mrz_name_mismatch"] },
    image: () => passport("alice", { visualSurname: "Kamau" }),
  },
  {
    file: "unreadable.jpg",
    kind: "document",
    use: "a JPEG without a marker: no document can be read from it",
    outcome: { status: "failed", reasons: ["document_not_authentic"] },
    image: plainJpeg,
  },
  {
    file: "selfie.jpg",
    kind: "selfie",
    use: "live capture of alice (liveness 0.95, similarity 0.95)",
    outcome: { status: "verified", reasons: [] },
    image: () => selfie("alice"),
  },
  {
    file: "selfie-borderline.jpg",
    kind: "selfie",
    use: "live capture of alice with similarity 0.70 (between review 0.65 and match 0.75)",
    outcome: { status: "needs_review", reasons: ["face_match_borderline"] },
    image: () => selfie("alice", 0.95, 0.7),
  },
  {
    file: "selfie-other-person.jpg",
    kind: "selfie",
    use: "live capture of someone else (mallory: similarity 0.10)",
    outcome: { status: "failed", reasons: ["face_mismatch"] },
    image: () => selfie("mallory"),
  },
  {
    file: "selfie-not-live.jpg",
    kind: "selfie",
    use: "capture with liveness 0.30 (below 0.50: a photo of a photo)",
    outcome: { status: "failed", reasons: ["liveness_failed"] },
    image: () => selfie("alice", 0.3),
  },
  {
    file: "selfie-face-turned.jpg",
    kind: "selfie",
    use: "live capture the matcher cannot use (face turned): the customer retakes it, the status stays",
    outcome: { status: "document_verified", reasons: ["selfie_face_turned"] },
    image: () => unusableSelfie("face_turned"),
  },
]

/** Writes every sandbox fixture JPEG and `fixtures.json` into `dir` (created if missing); returns the index. */
export const writeKycFixtures = (dir: string): ReadonlyArray<KycFixtureFile> => {
  mkdirSync(dir, { recursive: true })
  const index = FIXTURES.map(({ image, ...entry }) => {
    writeFileSync(join(dir, entry.file), Buffer.from(image(), "base64"))
    return entry
  })
  writeFileSync(join(dir, "fixtures.json"), `${JSON.stringify(index, null, 2)}\n`)
  return index
}
