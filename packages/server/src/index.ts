/** @signet/server: the composition root. Configuration from the environment, storage choice, SMTP mailer, demo. */
export * from "./config.ts"
export * from "./storage.ts"
export * from "./mailer-smtp.ts"
export { demoMasterKey, ensureDemoRp, type DemoRp } from "./demo.ts"
export { makeRpDemo, type RpDemoOptions } from "./rp-demo.ts"
