/** The kernel's public surface: the ports every capability shares (storage, randomness, keys, configuration, event bus, vault, adapter declarations), encodings and digests, and the errors every capability may answer. */
export { SandboxAdapterRefused, adaptersOf, declareAdapter, mergeAdapters, refusedAdapters, sandboxAdapter } from "../ports/adapters.ts"
export type { AdapterInfo } from "../ports/adapters.ts"
export {
  DEFAULT_SECRET_GRACE_SECONDS,
  EngineConfig,
  Environment,
  INTERFACE_VERSION,
  engineRpIdOf,
  environmentPrefix,
  issuerOf,
} from "../ports/engine-config.ts"
export type { EngineSettings } from "../ports/engine-config.ts"
export { EventBus, EventBusInProcess } from "../ports/event-bus.ts"
export type { BusMessage } from "../ports/event-bus.ts"
export { KeyAlgorithm, KeyDecryptionFailed, KeyNotFound, KeyRecords, KeyStore } from "../ports/key-store.ts"
export type { KeyInfo, OaepHash, SignatureHash, StoredKey } from "../ports/key-store.ts"
export { Random, token, uuid } from "../ports/random.ts"
export { Storage, UniqueViolation } from "../ports/storage.ts"
export { Vault } from "../ports/vault.ts"
export { BodyFieldErrors, fieldErrorFor, fieldErrors } from "./contract.ts"
export type { FieldErrors } from "./contract.ts"
export { digest, sha256 } from "./digest.ts"
export { bytesEqual, concatBytes, constantTimeEqual, fromBase64, fromHex, toBase64, toBase64Url, toHex, utf8 } from "./encoding.ts"
export {
  AlreadyExists,
  InvalidRequest,
  MalformedJson,
  MethodNotAllowed,
  NotConfigured,
  OperationExpired,
  PayloadTooLarge,
  ProcessingDeadlineExceeded,
  ResourceNotFound,
  UnsupportedMediaType,
  commonErrors,
} from "./errors.ts"
export type { CommonError, ErrorStatus } from "./errors.ts"
export { MAX_JSON_DEPTH, jsonDepthProblem } from "./json-depth.ts"
export { PngProblem, decodePng, encodePng } from "./png.ts"
export type { Bitmap, PngLimits } from "./png.ts"
export { hashSecret, secretMatches } from "./secrets.ts"
export { traced } from "./tracing.ts"
export type { SpanOptions } from "./tracing.ts"
export {
  dbCommits,
  dbPoolConnections,
  dbTransactionSeconds,
  deliveryAttempts,
  deliveryLagSeconds,
  httpErrors,
  httpRequestSeconds,
  httpRequests,
  kycOutcomes,
  outboxDepth,
  outboxOldestSeconds,
  quotaRefusals,
  signaturesMade,
  sseClients,
  withTags,
} from "./metrics.ts"
export { setBounded } from "./bounded-map.ts"
