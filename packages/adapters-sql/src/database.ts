/**
 * Every table of the engine, as kysely's `DB` type parameter.
 *
 * Empty here on purpose: each capability module adds its own tables to it from its
 * `tables.ts` (`declare module "../database.ts" { interface Database { ... } }`), so a new
 * module adds tables without editing a shared file. `modules.ts` imports every module, so
 * the full interface is in scope wherever the package is.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface (not a type) so each module's tables.ts can merge its tables into it
export interface Database {}
