import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { faceVerdict, initialKycState, kycStep, type KycMachineState } from "./machine.ts"
import { DEFAULT_KYC_SETTINGS } from "./model.ts"

const T = DEFAULT_KYC_SETTINGS.thresholds
const DOC = { docType: "passport", docNumber: "X", personalNumber: "", surname: "A", givenNames: "B", dateOfBirth: null, docExpiry: null, nationality: "KEN" }

interface Model {
  status: string
}
interface Real {
  state: KycMachineState
}

const outcomeOf = (r: Real, run: () => ReturnType<typeof kycStep<KycMachineState>>) => {
  const moved = run()
  if (Either.isRight(moved)) {
    r.state = moved.right.state
    return "ok"
  }
  return moved.left._tag
}

class Document implements fc.Command<Model, Real> {
  constructor(readonly accepted: boolean) {}
  check = () => true
  run(m: Model, r: Real) {
    const got = outcomeOf(r, () =>
      kycStep(
        r.state,
        { _tag: "SubmitDocument", outcome: this.accepted ? { accepted: true, document: DOC } : { accepted: false, reasons: ["document_not_authentic"] } },
        T,
      ),
    )
    if (m.status === "verified") return expect(got).toBe("AlreadyVerified")
    expect(got).toBe("ok")
    m.status = this.accepted ? "document_verified" : "failed"
    expect(r.state.status).toBe(m.status)
  }
  toString = () => `Document(${this.accepted})`
}

class Face implements fc.Command<Model, Real> {
  constructor(
    readonly liveness: number,
    readonly match: number,
  ) {}
  check = () => true
  run(m: Model, r: Real) {
    const got = outcomeOf(r, () => kycStep(r.state, { _tag: "SubmitFace", livenessScore: this.liveness, faceMatchScore: this.match }, T))
    const expected = { verified: "AlreadyVerified", pending: "SubmitDocumentFirst", failed: "ResubmitDocumentFirst" }[m.status] ?? "ok"
    expect(got).toBe(expected)
    if (expected !== "ok") return
    // The model: the spec's table written out directly.
    m.status = this.liveness < 0.5 ? "failed" : this.match >= 0.75 ? "verified" : this.match >= 0.65 ? "needs_review" : "failed"
    expect(r.state.status).toBe(m.status)
    expect(r.state.reasons).toEqual(
      m.status === "needs_review" ? ["face_match_borderline"] : m.status === "verified" ? [] : [this.liveness < 0.5 ? "liveness_failed" : "face_mismatch"],
    )
  }
  toString = () => `Face(${this.liveness}, ${this.match})`
}

const PROBLEMS = ["no_face", "several_faces", "face_too_small", "face_turned", "face_blurred", "face_too_dark"] as const

class Unusable implements fc.Command<Model, Real> {
  constructor(
    readonly side: "reference" | "probe",
    readonly reason: (typeof PROBLEMS)[number],
  ) {}
  check = () => true
  run(m: Model, r: Real) {
    const before = r.state.status
    const got = outcomeOf(r, () => kycStep(r.state, { _tag: "FaceUnusable", side: this.side, reason: this.reason }, T))
    const expected = { verified: "AlreadyVerified", pending: "SubmitDocumentFirst", failed: "ResubmitDocumentFirst" }[m.status] ?? "ok"
    expect(got).toBe(expected)
    if (expected !== "ok") return
    // a bad selfie keeps the state (the customer retakes it); a bad document portrait fails the verification
    if (this.side === "reference") m.status = "failed"
    expect(r.state.status).toBe(this.side === "probe" ? before : "failed")
    expect(r.state.reasons).toEqual([this.side === "probe" ? `selfie_${this.reason}` : `document_photo_${this.reason}`])
  }
  toString = () => `Unusable(${this.side}, ${this.reason})`
}

class Review implements fc.Command<Model, Real> {
  constructor(readonly approve: boolean) {}
  check = () => true
  run(m: Model, r: Real) {
    const got = outcomeOf(r, () => kycStep(r.state, { _tag: "Review", decision: this.approve ? "approve" : "reject" }, T))
    if (m.status !== "needs_review") return expect(got).toBe("KycReviewNotPending")
    expect(got).toBe("ok")
    m.status = this.approve ? "verified" : "failed"
    expect(r.state.status).toBe(m.status)
  }
  toString = () => `Review(${this.approve})`
}

// Scores around every boundary, exactly on it, and anywhere.
const score = fc.oneof(fc.constantFrom(0.49, 0.5, 0.51, 0.64, 0.65, 0.66, 0.74, 0.75, 0.76, 0, 1), fc.double({ min: 0, max: 1, noNaN: true }))

describe("verification machine against its model", () => {
  it("follows the spec's table and the documented open moves", () => {
    fc.assert(
      fc.property(
        fc.commands(
          [
            fc.boolean().map((b) => new Document(b)),
            fc.tuple(score, score).map(([l, f]) => new Face(l, f)),
            fc.tuple(fc.constantFrom("reference" as const, "probe" as const), fc.constantFrom(...PROBLEMS)).map(([side, reason]) => new Unusable(side, reason)),
            fc.boolean().map((b) => new Review(b)),
          ],
          { size: "+1" },
        ),
        (cmds) => {
          fc.modelRun(() => ({ model: { status: "pending" }, real: { state: initialKycState } }), cmds)
        },
      ),
      { numRuns: 300 },
    )
  })

  it("thresholds at their exact boundaries", () => {
    expect(faceVerdict(0.5, 0.75, T).status).toBe("verified")
    expect(faceVerdict(0.4999, 0.99, T).status).toBe("failed")
    expect(faceVerdict(0.5, 0.7499, T).status).toBe("needs_review")
    expect(faceVerdict(0.5, 0.65, T).status).toBe("needs_review")
    expect(faceVerdict(0.5, 0.6499, T).status).toBe("failed")
    expect(faceVerdict(0.9, 0.8, { liveness: 0.5, match: 0.85, review: 0.7 }).status).toBe("needs_review")
  })
})
