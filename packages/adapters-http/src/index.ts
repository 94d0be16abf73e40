/** @signet/adapters-http: the web-standard handler, hosted pages, Node server and engine wiring. */
export * from "./engine.ts"
export * from "./storage.ts"
export * from "./config.ts"
export * from "./node-server.ts"
export * from "./http/endpoint.ts"
export * from "./http/handler.ts"
export * from "./http/openapi.ts"
export * from "./payments-sandbox.ts"
