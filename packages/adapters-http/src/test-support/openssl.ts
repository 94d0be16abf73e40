/** Test support: the independent verifier, `openssl cms -verify`, over files in a temp folder. */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const work = mkdtempSync(join(tmpdir(), "signet-openssl-"))

/** Whether `openssl cms -verify` accepts a detached CMS signature (base64 DER) over `content`, chaining to `rootPem`. */
export const opensslVerifies = (signatureBase64: string, content: Uint8Array, rootPem: string): boolean => {
  const id = randomBytes(6).toString("hex")
  const [sig, doc, root] = [join(work, `${id}.der`), join(work, `${id}.bin`), join(work, `${id}-root.pem`)]
  writeFileSync(sig, Buffer.from(signatureBase64, "base64"))
  writeFileSync(doc, content)
  writeFileSync(root, rootPem)
  try {
    execFileSync(
      "openssl",
      ["cms", "-verify", "-binary", "-purpose", "any", "-inform", "DER", "-in", sig, "-content", doc, "-CAfile", root, "-out", "/dev/null"],
      { stdio: "pipe" },
    )
    return true
  } catch {
    return false
  }
}

/** `openssl cms -cmsout -print` of a CMS (base64 DER): its structure as text. */
export const opensslPrint = (signatureBase64: string): string => {
  const file = join(work, `${randomBytes(6).toString("hex")}.der`)
  writeFileSync(file, Buffer.from(signatureBase64, "base64"))
  return execFileSync("openssl", ["cms", "-cmsout", "-print", "-inform", "DER", "-in", file]).toString()
}
