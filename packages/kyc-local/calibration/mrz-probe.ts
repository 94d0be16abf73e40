import { composeTd3 } from "@signet/core"
import { ALICE, composeTd1 } from "@signet/testkit/kyc"
import { encodeJpeg, renderDocument } from "../../testkit/src/kyc/render.ts"
import { readMrz, stopOcr } from "../src/mrz-reader.ts"
const td3 = composeTd3({ issuingState: "KEN", ...ALICE })
const td1 = composeTd1({ issuingState: "KEN", ...ALICE, optionalData: ALICE.personalNumber })
for (const [layout, mrz] of [
  ["passport", td3],
  ["id-card", td1],
] as const) {
  const jpg = encodeJpeg(renderDocument(layout, { mrz }))
  const t = Date.now()
  const r = await readMrz(jpg)
  console.log(Date.now() - t, "ms", r.confidence.toFixed(2), r.skew)
  for (const [k, l] of (r.lines ?? []).entries()) console.log(l, l === mrz[k] ? "OK" : `XX ${mrz[k]}`)
}
await stopOcr()
