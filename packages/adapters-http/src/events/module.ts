/** The events module of the HTTP adapter: the event stream and webhooks. */
import type { HttpModule } from "../module.ts"
import { eventStreamEndpoint } from "./endpoints.ts"
import { webhookEndpoints } from "./webhook-endpoints.ts"

/** The events module: its endpoints. */
export const eventsHttp = {
  name: "events",
  endpoints: () => [eventStreamEndpoint, ...webhookEndpoints],
} satisfies HttpModule<never, unknown>
