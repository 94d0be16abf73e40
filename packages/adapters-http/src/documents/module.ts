/** The documents module of the HTTP adapter: encrypted files and signature images. */
import type { HttpModule } from "../module.ts"
import { documentEndpoints } from "./endpoints.ts"

/** The documents module: its endpoints. */
export const documentsHttp = {
  name: "documents",
  endpoints: () => documentEndpoints,
} satisfies HttpModule<never, unknown>
