/**
 * The module list of the SQL storage: the database type (each module's `tables.ts`), the
 * migrator (`migrations.ts`) and the storage layer (`storage.ts`) are composed from it.
 * A new capability is a new folder (`tables.ts`, `migrations.ts`, repositories, `module.ts`)
 * and one line here.
 */
import { authorizationSql } from "./authorization/module.ts"
import { billingSql } from "./billing/module.ts"
import { documentsSql } from "./documents/module.ts"
import { eventsSql } from "./events/module.ts"
import { identityProvidersSql } from "./identity-providers/module.ts"
import { identitySql } from "./identity/module.ts"
import { kernelSql } from "./kernel/module.ts"
import { kycSql } from "./kyc/module.ts"
import { oidcSql } from "./oidc/module.ts"
import { padesSql } from "./pades/module.ts"
import { pkiSql } from "./pki/module.ts"
import { rpSql } from "./rp/module.ts"
import { signingSql } from "./signing/module.ts"
import { sscSql } from "./ssc/module.ts"

/** Every module of the SQL storage (the order does not matter: migrations run by name). */
export const sqlModules = [
  kernelSql,
  rpSql,
  identitySql,
  pkiSql,
  signingSql,
  sscSql,
  eventsSql,
  kycSql,
  documentsSql,
  padesSql,
  oidcSql,
  billingSql,
  identityProvidersSql,
  authorizationSql,
] as const
