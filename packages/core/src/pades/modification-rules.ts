/**
 * What a document's signatures allow to change after them (ISO 32000-1 §12.8.2.2 DocMDP,
 * §12.8.2.4 FieldMDP, §12.7.4.5 `/Lock`; ISO 32000-2 Table 257 `/P` in the lock dictionary):
 * the certification level of the document, the fields each signature locks, and whether one
 * more approval signature (into a new field or an existing empty one) is allowed. Signing uses
 * it to refuse; validation uses the same reading to judge the changes after a certification.
 */
import { Effect } from "effect"
import { PDF_BUDGETS, tooComplex } from "./budget.ts"
import { deref, dictAt, type PdfDocument, type PdfReadError } from "./document.ts"
import { PdfUnreadable } from "./errors.ts"
import { arrayOf, fromLatin1, nameOf, numberOf, PdfDict, PdfRef, PdfString, type PdfValue } from "./objects.ts"

/** DocMDP permissions: 1 no changes, 2 form filling and signing, 3 also annotations. */
export type MdpPermissions = 1 | 2 | 3

/** The document's certification: the `/Perms /DocMDP` signature and its permissions. */
export interface Certification {
  /** `/P` of the DocMDP transform parameters (2 when absent or not 1-3) */
  readonly permissions: MdpPermissions
  /** the certifying signature dictionary */
  readonly signature: PdfRef | null
  /** the field that holds it, when found in the AcroForm */
  readonly fieldName: string | null
}

/** Which fields a FieldMDP lock covers: all, only `fields`, or all but `fields`. */
export type LockAction = "All" | "Include" | "Exclude"

/** A field lock: set by a signed field's `/Lock` or its signature's FieldMDP reference. */
export interface FieldLock {
  /** the (signed) signature field whose signature sets the lock */
  readonly fieldName: string
  readonly action: LockAction
  /** fully qualified field names for Include / Exclude */
  readonly fields: ReadonlyArray<string>
  /** PDF 2.0: DocMDP-like permissions that apply once the field is signed */
  readonly permissions: MdpPermissions | null
}

/** A signature field of the AcroForm. */
export interface SignatureField {
  /** fully qualified name (`parent.child`) */
  readonly name: string
  readonly ref: PdfRef | null
  readonly field: PdfDict
  /** the signature dictionary in `/V`, when signed */
  readonly signature: PdfDict | null
  readonly signatureRef: PdfRef | null
  /** the field's own `/Lock` dictionary (applies once it is signed) */
  readonly lock: PdfDict | null
}

/** Everything the rules need to answer, read once from a document. */
export interface ModificationRules {
  readonly certification: Certification | null
  readonly signatureFields: ReadonlyArray<SignatureField>
  readonly locks: ReadonlyArray<FieldLock>
}

/** What a signer asks to do: sign into a new field, or fill the named existing field. */
export type ApprovalTarget = { readonly kind: "new" } | { readonly kind: "fill"; readonly field: string }

/** The answer: allowed, or refused with the rule that refuses it and why (a sentence for the user). */
export type ApprovalVerdict = { readonly allowed: true } | { readonly allowed: false; readonly rule: "DocMDP" | "FieldMDP" | "signed"; readonly reason: string }

/** A PDF text string: UTF-16BE with a BOM, else PDFDocEncoding read as Latin-1. */
export const textOf = (s: PdfString): string => {
  const b = s.bytes
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) {
    let out = ""
    for (let i = 2; i + 1 < b.length; i += 2) out += String.fromCharCode((b[i]! << 8) | b[i + 1]!)
    return out
  }
  return fromLatin1(b)
}

const mdp = (value: PdfValue | undefined): MdpPermissions | null => {
  const p = numberOf(value)
  return p === 1 || p === 2 || p === 3 ? p : null
}

/** Every signature field of the AcroForm, signed or empty, walking `/Kids` (bounded, no field twice). */
export const signatureFieldsOf = (doc: PdfDocument): Effect.Effect<ReadonlyArray<SignatureField>, PdfReadError> =>
  Effect.gen(function* () {
    const catalog = yield* dictAt(doc, doc.trailer.get("Root"), "the catalog")
    const acro = yield* deref(doc, catalog.get("AcroForm"))
    const fields = acro instanceof PdfDict ? (arrayOf(yield* deref(doc, acro.get("Fields"))) ?? []) : []
    const out: Array<SignatureField> = []
    const visited = new Set<number>()
    const stack: Array<{ item: PdfValue; type: string | undefined; prefix: string | null; depth: number }> = fields
      .map((item) => ({ item, type: undefined as string | undefined, prefix: null, depth: 0 }))
      .reverse()
    let nodes = 0
    while (stack.length > 0) {
      const { item, type: inherited, prefix, depth } = stack.pop()!
      if (item instanceof PdfRef) {
        if (visited.has(item.num)) return yield* new PdfUnreadable({ detail: `form field ${item.num} appears twice in the field tree` })
        visited.add(item.num)
      }
      if (++nodes > PDF_BUDGETS.walkNodes) return yield* tooComplex(`more than ${PDF_BUDGETS.walkNodes} form fields`)
      const field = yield* deref(doc, item)
      if (!(field instanceof PdfDict)) continue
      const type = nameOf(field.get("FT")) ?? inherited
      const t = field.get("T")
      const partial = t instanceof PdfString ? textOf(t) : null
      const name = partial === null ? prefix : prefix === null ? partial : `${prefix}.${partial}`
      const kids = arrayOf(yield* deref(doc, field.get("Kids")))
      // Kids without /T are the field's widgets, not fields of their own.
      const childFields = (kids ?? []).length > 0 && (yield* hasNamedKid(doc, kids!))
      if (type === "Sig" && name !== null && !childFields) {
        const vRaw = field.get("V")
        const v = yield* deref(doc, vRaw)
        const lock = yield* deref(doc, field.get("Lock"))
        out.push({
          name,
          ref: item instanceof PdfRef ? item : null,
          field,
          signature: v instanceof PdfDict ? v : null,
          signatureRef: vRaw instanceof PdfRef ? vRaw : null,
          lock: lock instanceof PdfDict ? lock : null,
        })
      }
      if (kids !== undefined && childFields && depth < PDF_BUDGETS.treeDepth) {
        for (let i = kids.length - 1; i >= 0; i--) stack.push({ item: kids[i]!, type, prefix: name, depth: depth + 1 })
      }
    }
    return out
  })

const hasNamedKid = (doc: PdfDocument, kids: ReadonlyArray<PdfValue>) =>
  Effect.gen(function* () {
    for (const kid of kids) {
      const k = yield* deref(doc, kid)
      if (k instanceof PdfDict && k.get("T") !== undefined) return true
    }
    return false
  })

/** The `/TransformParams` of the signature reference with `method` (DocMDP or FieldMDP), if any. */
const transformParams = (doc: PdfDocument, signature: PdfDict, method: "DocMDP" | "FieldMDP") =>
  Effect.gen(function* () {
    const refs = arrayOf(yield* deref(doc, signature.get("Reference"))) ?? []
    for (const r of refs.slice(0, 16)) {
      const d = yield* deref(doc, r)
      if (d instanceof PdfDict && nameOf(d.get("TransformMethod")) === method) {
        const params = yield* deref(doc, d.get("TransformParams"))
        return params instanceof PdfDict ? params : new PdfDict()
      }
    }
    return undefined
  })

/** The certification of the document (`/Perms /DocMDP`), or null when it is not certified. */
export const certificationOf = (doc: PdfDocument, fields?: ReadonlyArray<SignatureField>): Effect.Effect<Certification | null, PdfReadError> =>
  Effect.gen(function* () {
    const catalog = yield* dictAt(doc, doc.trailer.get("Root"), "the catalog")
    const perms = yield* deref(doc, catalog.get("Perms"))
    if (!(perms instanceof PdfDict)) return null
    const docMdpRaw = perms.get("DocMDP")
    const signature = yield* deref(doc, docMdpRaw)
    if (!(signature instanceof PdfDict)) return null
    const params = yield* transformParams(doc, signature, "DocMDP")
    // ISO 32000-1 Table 254: /P defaults to 2.
    const permissions = mdp(params?.get("P")) ?? 2
    const ref = docMdpRaw instanceof PdfRef ? docMdpRaw : null
    const all = fields ?? (yield* signatureFieldsOf(doc))
    const holder = ref === null ? undefined : all.find((f) => f.signatureRef?.num === ref.num)
    return { permissions, signature: ref, fieldName: holder?.name ?? null }
  })

const lockFrom = (fieldName: string, params: PdfDict): FieldLock => {
  const action = nameOf(params.get("Action"))
  const fields = (arrayOf(params.get("Fields")) ?? []).flatMap((f) => (f instanceof PdfString ? [textOf(f)] : []))
  return { fieldName, action: action === "Include" || action === "Exclude" ? action : "All", fields, permissions: mdp(params.get("P")) }
}

/**
 * The locks in force: for each signed signature field, its signature's FieldMDP reference, or
 * else the field's `/Lock` (a lock on an empty field takes effect only once it is signed).
 */
export const fieldLocks = (doc: PdfDocument, fields?: ReadonlyArray<SignatureField>): Effect.Effect<ReadonlyArray<FieldLock>, PdfReadError> =>
  Effect.gen(function* () {
    const out: Array<FieldLock> = []
    for (const f of fields ?? (yield* signatureFieldsOf(doc))) {
      if (f.signature === null) continue
      const params = (yield* transformParams(doc, f.signature, "FieldMDP")) ?? f.lock
      if (params !== null && params !== undefined) out.push(lockFrom(f.name, params))
    }
    return out
  })

/** Reads the certification, the signature fields and the locks of a document. */
export const modificationRules = (doc: PdfDocument): Effect.Effect<ModificationRules, PdfReadError> =>
  Effect.gen(function* () {
    const fields = yield* signatureFieldsOf(doc)
    return { certification: yield* certificationOf(doc, fields), signatureFields: fields, locks: yield* fieldLocks(doc, fields) }
  })

/** Whether `lock` covers the field named `field`. */
export const lockCovers = (lock: FieldLock, field: string): boolean =>
  lock.action === "All" ? true : lock.action === "Include" ? lock.fields.includes(field) : !lock.fields.includes(field)

/**
 * Whether one more approval signature is allowed: refused at DocMDP P=1 (or a signed lock with
 * P=1), refused into a field already signed or one a signed field's lock covers; P=2 and P=3
 * allow a signature into a new field or an existing empty one.
 */
export const approvalAllowed = (rules: ModificationRules, target: ApprovalTarget): ApprovalVerdict => {
  if (rules.certification?.permissions === 1) {
    return { allowed: false, rule: "DocMDP", reason: "the document is certified with no changes allowed (DocMDP P=1)" }
  }
  const frozen = rules.locks.find((l) => l.permissions === 1)
  if (frozen !== undefined) {
    return { allowed: false, rule: "FieldMDP", reason: `the signature in ${frozen.fieldName} allows no changes after it (its /Lock has P=1)` }
  }
  if (target.kind === "fill") {
    const field = rules.signatureFields.find((f) => f.name === target.field)
    if (field?.signature !== null && field?.signature !== undefined) {
      return { allowed: false, rule: "signed", reason: `signature field ${target.field} is already signed` }
    }
    const lock = rules.locks.find((l) => lockCovers(l, target.field))
    if (lock !== undefined) {
      return {
        allowed: false,
        rule: "FieldMDP",
        reason: `signature field ${target.field} is locked by the signature in ${lock.fieldName} (FieldMDP /Action /${lock.action})`,
      }
    }
  }
  return { allowed: true }
}
