/**
 * The verification machine: (state, command) → (state, events) or a typed error. Pure;
 * scores and document outcomes come in with the command, thresholds as configuration.
 *
 * The spec's table, plus the moves it leaves open (docs/kyc.md):
 * - a new document is taken in `pending`, `document_verified`, `needs_review` and `failed`
 *   and is judged as from `pending` (it replaces the previous one); `verified` answers 409;
 * - the face step runs from `document_verified` and again from `needs_review` (a new live
 *   capture may settle it); from `pending` 409 "Submit…", from `failed` 409 "Resubmit…";
 * - liveness below its threshold → `failed` (`liveness_failed`); similarity below the
 *   review threshold → `failed` (`face_mismatch`);
 * - a face image the matcher cannot use: the selfie's problem keeps the state (the customer
 *   takes a new capture; reason `selfie_<problem>`), the document portrait's problem →
 *   `failed` (`document_photo_<problem>`: a new document photo is needed);
 * - a reviewer's decision moves `needs_review` to `verified` (approve) or `failed`
 *   (`review_rejected`); from any other state it is 409.
 */
import { Either } from "effect"
import { AlreadyVerified, KycReviewNotPending, ResubmitDocumentFirst, SubmitDocumentFirst } from "./errors.ts"
import type { FaceProblem, KycDocument, KycStatus, KycThresholds } from "./model.ts"

/** The part of a verification the machine moves. */
export interface KycMachineState {
  readonly status: KycStatus
  readonly document: KycDocument | null
  readonly livenessScore: number | null
  readonly faceMatchScore: number | null
  readonly reasons: ReadonlyArray<string>
}

/** The outcome of reading a document, decided before the machine runs. */
export type DocumentOutcome =
  | { readonly accepted: true; readonly document: KycDocument }
  | { readonly accepted: false; readonly reasons: ReadonlyArray<string> }

/** Commands on a verification. */
export type KycCommand =
  | { readonly _tag: "SubmitDocument"; readonly outcome: DocumentOutcome }
  | { readonly _tag: "SubmitFace"; readonly livenessScore: number; readonly faceMatchScore: number }
  | { readonly _tag: "FaceUnusable"; readonly side: "reference" | "probe"; readonly reason: FaceProblem }
  | { readonly _tag: "Review"; readonly decision: "approve" | "reject" }

/** What a move records in the audit log. */
export interface KycMachineEvent {
  readonly action: "document_submitted" | "face_submitted" | "reviewed"
  readonly from: KycStatus
  readonly to: KycStatus
}

/** Why a command cannot run in the current state. */
export type KycMachineError = AlreadyVerified | SubmitDocumentFirst | ResubmitDocumentFirst | KycReviewNotPending

/** Reason codes the machine gives. */
export const KYC_REASONS = {
  documentNotAuthentic: "document_not_authentic",
  borderline: "face_match_borderline",
  livenessFailed: "liveness_failed",
  faceMismatch: "face_mismatch",
  reviewRejected: "review_rejected",
} as const

/** The reason code of an unusable face image: `selfie_<problem>` (retake the selfie) or `document_photo_<problem>` (resubmit the document). */
export const faceProblemReason = (side: "reference" | "probe", problem: FaceProblem): string =>
  side === "probe" ? `selfie_${problem}` : `document_photo_${problem}`

/** A fresh verification's state. */
export const initialKycState: KycMachineState = { status: "pending", document: null, livenessScore: null, faceMatchScore: null, reasons: [] }

/** The face verdict for two scores under `thresholds`. */
export const faceVerdict = (liveness: number, match: number, t: KycThresholds): { readonly status: KycStatus; readonly reasons: ReadonlyArray<string> } => {
  if (liveness < t.liveness) return { status: "failed", reasons: [KYC_REASONS.livenessFailed] }
  if (match >= t.match) return { status: "verified", reasons: [] }
  if (match >= t.review) return { status: "needs_review", reasons: [KYC_REASONS.borderline] }
  return { status: "failed", reasons: [KYC_REASONS.faceMismatch] }
}

/** One move of the machine. */
export const kycStep = <S extends KycMachineState>(
  state: S,
  command: KycCommand,
  thresholds: KycThresholds,
): Either.Either<{ readonly state: S; readonly events: ReadonlyArray<KycMachineEvent> }, KycMachineError> => {
  const move = (changes: Partial<KycMachineState>, action: KycMachineEvent["action"]) => {
    const next = { ...state, ...changes } as S
    return Either.right({ state: next, events: [{ action, from: state.status, to: next.status }] })
  }
  switch (command._tag) {
    case "SubmitDocument": {
      if (state.status === "verified") return Either.left(new AlreadyVerified())
      const o = command.outcome
      return move(
        o.accepted
          ? { status: "document_verified", document: o.document, livenessScore: null, faceMatchScore: null, reasons: [] }
          : { status: "failed", document: null, livenessScore: null, faceMatchScore: null, reasons: o.reasons },
        "document_submitted",
      )
    }
    case "SubmitFace": {
      if (state.status === "verified") return Either.left(new AlreadyVerified())
      if (state.status === "pending") return Either.left(new SubmitDocumentFirst())
      if (state.status === "failed") return Either.left(new ResubmitDocumentFirst())
      const verdict = faceVerdict(command.livenessScore, command.faceMatchScore, thresholds)
      return move({ ...verdict, livenessScore: command.livenessScore, faceMatchScore: command.faceMatchScore }, "face_submitted")
    }
    case "FaceUnusable": {
      if (state.status === "verified") return Either.left(new AlreadyVerified())
      if (state.status === "pending") return Either.left(new SubmitDocumentFirst())
      if (state.status === "failed") return Either.left(new ResubmitDocumentFirst())
      const reasons = [faceProblemReason(command.side, command.reason)]
      // A bad selfie is the customer's to retake: the state (and any earlier scores) stay.
      return move(command.side === "probe" ? { reasons } : { status: "failed", livenessScore: null, faceMatchScore: null, reasons }, "face_submitted")
    }
    case "Review": {
      if (state.status !== "needs_review") return Either.left(new KycReviewNotPending({ current: state.status }))
      return move(
        command.decision === "approve" ? { status: "verified", reasons: [] } : { status: "failed", reasons: [KYC_REASONS.reviewRejected] },
        "reviewed",
      )
    }
  }
}
