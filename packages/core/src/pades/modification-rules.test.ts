import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { pdfWithSignatureFields, type FixtureOptions } from "../../../testkit/src/pdf/forms.ts"
import { bytesSource } from "./byte-source.ts"
import { openPdf } from "./document.ts"
import { approvalAllowed, modificationRules } from "./modification-rules.ts"

const rulesOf = async (options: FixtureOptions) =>
  Effect.runPromise(Effect.flatMap(openPdf(bytesSource(await pdfWithSignatureFields(options))), modificationRules))

describe("modification rules (DocMDP, FieldMDP /Lock)", () => {
  it("an uncertified form: every signature field is listed, a new signature and filling the empty field are allowed", async () => {
    const rules = await rulesOf({ fields: [{ name: "Signature1" }, { name: "Approval", rect: [50, 50, 250, 120] }] })
    expect(rules.certification).toBeNull()
    expect(rules.signatureFields.map((f) => [f.name, f.signature === null])).toEqual([
      ["Signature1", true],
      ["Approval", true],
    ])
    expect(approvalAllowed(rules, { kind: "new" })).toEqual({ allowed: true })
    expect(approvalAllowed(rules, { kind: "fill", field: "Approval" })).toEqual({ allowed: true })
  })

  it.each([
    [1, false],
    [2, true],
    [3, true],
  ] as const)("certified with P=%i: a further approval signature allowed = %s", async (p, allowed) => {
    for (const xrefStream of [true, false]) {
      const rules = await rulesOf({ xrefStream, certifiedWith: p, fields: [{ name: "Certification", signed: true }, { name: "Signature2" }] })
      expect(rules.certification).toMatchObject({ permissions: p, fieldName: "Certification" })
      const verdict = approvalAllowed(rules, { kind: "fill", field: "Signature2" })
      expect(verdict.allowed).toBe(allowed)
      expect(approvalAllowed(rules, { kind: "new" }).allowed).toBe(allowed)
      if (!verdict.allowed) expect(verdict).toMatchObject({ rule: "DocMDP", reason: expect.stringContaining("DocMDP P=1") })
    }
  })

  it("a field already signed cannot be filled again", async () => {
    const rules = await rulesOf({ fields: [{ name: "Signature1", signed: true }] })
    expect(approvalAllowed(rules, { kind: "fill", field: "Signature1" })).toMatchObject({ allowed: false, rule: "signed" })
  })

  it("a signed field's /Lock forbids filling the fields it covers (Include, Exclude, All), and P=1 in the lock forbids any signature", async () => {
    const include = await rulesOf({
      fields: [{ name: "Manager", signed: true, lock: { action: "Include", fields: ["Witness"] } }, { name: "Witness" }, { name: "Clerk" }],
    })
    expect(include.locks).toEqual([{ fieldName: "Manager", action: "Include", fields: ["Witness"], permissions: null }])
    expect(approvalAllowed(include, { kind: "fill", field: "Witness" })).toMatchObject({ allowed: false, rule: "FieldMDP" })
    expect(approvalAllowed(include, { kind: "fill", field: "Clerk" }).allowed).toBe(true)
    expect(approvalAllowed(include, { kind: "new" }).allowed).toBe(true)

    const exclude = await rulesOf({
      fields: [{ name: "Manager", signed: true, lock: { action: "Exclude", fields: ["Witness"] } }, { name: "Witness" }, { name: "Clerk" }],
    })
    expect(approvalAllowed(exclude, { kind: "fill", field: "Witness" }).allowed).toBe(true)
    expect(approvalAllowed(exclude, { kind: "fill", field: "Clerk" }).allowed).toBe(false)

    const all = await rulesOf({ fields: [{ name: "Manager", signed: true, lock: { action: "All" } }, { name: "Witness" }] })
    expect(approvalAllowed(all, { kind: "fill", field: "Witness" }).allowed).toBe(false)

    const frozen = await rulesOf({ fields: [{ name: "Manager", signed: true, lock: { action: "Include", fields: [], permissions: 1 } }, { name: "Witness" }] })
    expect(approvalAllowed(frozen, { kind: "new" })).toMatchObject({ allowed: false, rule: "FieldMDP" })
  })

  it("a lock on an empty field is not in force until that field is signed", async () => {
    const rules = await rulesOf({ fields: [{ name: "Manager", lock: { action: "All" } }, { name: "Witness" }] })
    expect(rules.locks).toEqual([])
    expect(approvalAllowed(rules, { kind: "fill", field: "Witness" }).allowed).toBe(true)
  })
})
