/** The documents module's tables: encrypted files and signature images. */
import type { BigIntColumn } from "../columns.ts"

/** `encrypted_files`: documents stored as CMS AuthEnvelopedData. */
export interface EncryptedFilesTable {
  readonly id: string
  readonly owner_user_id: string
  readonly name: string
  readonly size: BigIntColumn
  readonly envelope: string
  readonly created_at: BigIntColumn
}

/** `encrypted_file_recipients`: who a file is addressed to, in order. */
export interface EncryptedFileRecipientsTable {
  readonly file_id: string
  readonly user_id: string
  readonly position: number
}

/** `signature_images`: signers' own images, sealed in the Vault. */
export interface SignatureImagesTable {
  readonly user_id: string
  readonly sealed: string
  readonly width: number
  readonly height: number
  readonly size: number
  readonly updated_at: BigIntColumn
}

declare module "../database.ts" {
  interface Database {
    readonly encrypted_files: EncryptedFilesTable
    readonly encrypted_file_recipients: EncryptedFileRecipientsTable
    readonly signature_images: SignatureImagesTable
  }
}
