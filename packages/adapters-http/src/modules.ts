/**
 * The module list of the HTTP adapter: the engine routes every module's endpoints in this
 * order, then every module's pages. A new capability is a new folder (`endpoints.ts`,
 * `pages.ts`, `module.ts`) and one line here; `modules.test.ts` checks that no endpoint
 * shadows another, so the order only decides the OpenAPI document's order.
 */
import { adminHttp } from "./admin/module.ts"
import { authorizationHttp } from "./authorization/module.ts"
import { billingHttp } from "./billing/module.ts"
import { documentsHttp } from "./documents/module.ts"
import { eventsHttp } from "./events/module.ts"
import { identityProvidersHttp } from "./identity-providers/module.ts"
import { identityHttp } from "./identity/module.ts"
import { kycHttp } from "./kyc/module.ts"
import { observabilityHttp } from "./observability/module.ts"
import { oidcHttp } from "./oidc/module.ts"
import { padesHttp } from "./pades/module.ts"
import { pkiHttp } from "./pki/module.ts"
import { rpHttp } from "./rp/module.ts"
import { signingHttp } from "./signing/module.ts"
import { sscHttp } from "./ssc/module.ts"

/** Every module of the HTTP adapter, in routing order. */
export const httpModules = [
  identityHttp,
  authorizationHttp,
  oidcHttp,
  signingHttp,
  pkiHttp,
  documentsHttp,
  padesHttp,
  sscHttp,
  kycHttp,
  eventsHttp,
  rpHttp,
  adminHttp,
  billingHttp,
  identityProvidersHttp,
  observabilityHttp,
] as const
