/**
 * The error catalogue: every failure the engine reports, with the exact message of the
 * interface spec ("Messages by condition") and its HTTP status. Each capability declares its
 * errors in its own `errors.ts` with the list of them; the catalogue is the union of those lists.
 * Nothing else in the code base writes an error message; the HTTP adapter only reads `status` and `message`.
 */
import { commonErrors } from "../kernel/errors.ts"
import { identityErrors } from "../identity/errors.ts"
import { rpErrors } from "../rp/errors.ts"
import { sscErrors } from "../ssc/errors.ts"
import { signingErrors } from "../signing/errors.ts"
import { kycErrors } from "../kyc/errors.ts"
import { pkiErrors } from "../pki/errors.ts"
import { identityProviderErrors } from "../identity-providers/errors.ts"
import { documentsErrors } from "../documents/errors.ts"
import { oidcErrors } from "../oidc/errors.ts"
import { billingErrors } from "../billing/errors.ts"
import { padesErrors } from "../pades/errors.ts"
import { authorizationErrors } from "../authorization/errors.ts"

/** Every catalogued error class, module by module: the list the HTTP adapter maps (a new module adds its list here). */
export const CATALOGUE = [
  ...commonErrors,
  ...identityErrors,
  ...rpErrors,
  ...sscErrors,
  ...signingErrors,
  ...kycErrors,
  ...pkiErrors,
  ...identityProviderErrors,
  ...documentsErrors,
  ...oidcErrors,
  ...billingErrors,
  ...padesErrors,
  ...authorizationErrors,
] as const

/** Every catalogued error; the HTTP adapter maps exactly these. */
export type CataloguedError = InstanceType<(typeof CATALOGUE)[number]>

const TAGS: ReadonlySet<string> = new Set(CATALOGUE.map((e) => e._tag))

/** True for an error of the catalogue: its tag is one of the catalogued ones and it carries a numeric `status`. */
export const isCatalogued = (u: unknown): u is CataloguedError =>
  typeof u === "object" &&
  u !== null &&
  "_tag" in u &&
  TAGS.has((u as { _tag: unknown })._tag as string) &&
  "status" in u &&
  typeof (u as { status: unknown }).status === "number"
