/**
 * A PDF tokenizer and object parser over a window of bytes (ISO 32000-1 §7.2–7.3). Reading runs
 * off the end of a window that is not the end of the file with `NeedMoreBytes`, so the caller can
 * read a larger window: a document is never read whole.
 */
import { PDF_BUDGETS } from "./budget.ts"
import { PdfDict, PdfName, PdfRef, PdfString, type PdfValue } from "./objects.ts"

/** The window ended before the object did (the file goes on). */
export class NeedMoreBytes {
  readonly _tag = "NeedMoreBytes"
}

/** The bytes are not valid PDF syntax. */
export class MalformedPdf {
  readonly _tag = "MalformedPdf"
  constructor(readonly detail: string) {}
}

/** The object nests arrays and dictionaries deeper than `PDF_BUDGETS.depth` (a budget, not malformed syntax). */
export class NestingTooDeep {
  readonly _tag = "NestingTooDeep"
  readonly detail = `arrays and dictionaries nested deeper than ${PDF_BUDGETS.depth}`
}

const isWhite = (c: number) => c === 0 || c === 9 || c === 10 || c === 12 || c === 13 || c === 32
const isDelimiter = (c: number) => c === 40 || c === 41 || c === 60 || c === 62 || c === 91 || c === 93 || c === 123 || c === 125 || c === 47 || c === 37
const isDigit = (c: number) => c >= 48 && c <= 57

/** A cursor over `bytes`; `final` says the window ends where the file ends. */
export class Cursor {
  pos = 0
  constructor(
    readonly bytes: Uint8Array,
    readonly final: boolean,
  ) {}

  private peekByte(): number | undefined {
    if (this.pos < this.bytes.length) return this.bytes[this.pos]
    if (this.final) return undefined
    throw new NeedMoreBytes()
  }

  /** Skips white space and comments. */
  skipSpace(): void {
    for (;;) {
      const c = this.peekByte()
      if (c === undefined) return
      if (isWhite(c)) this.pos++
      else if (c === 37) {
        while (this.peekByte() !== undefined && this.bytes[this.pos] !== 10 && this.bytes[this.pos] !== 13) this.pos++
      } else return
    }
  }

  /** The next regular-character run (keyword or number) without consuming it. */
  peekWord(): string {
    this.skipSpace()
    const start = this.pos
    let end = start
    for (;;) {
      if (end >= this.bytes.length) {
        if (!this.final) throw new NeedMoreBytes()
        break
      }
      const c = this.bytes[end]!
      if (isWhite(c) || isDelimiter(c)) break
      end++
    }
    let out = ""
    for (let i = start; i < end; i++) out += String.fromCharCode(this.bytes[i]!)
    return out
  }

  /** Consumes `word` (a keyword) or fails. */
  expectWord(word: string): void {
    const got = this.peekWord()
    if (got !== word) throw new MalformedPdf(`expected ${word}, found ${got.slice(0, 20) || "a delimiter"} at ${this.pos}`)
    this.pos += got.length
  }

  /** Consumes a non-negative integer. */
  readInteger(): number {
    const w = this.peekWord()
    if (!/^\d+$/.test(w)) throw new MalformedPdf(`expected an integer at ${this.pos}`)
    this.pos += w.length
    return Number(w)
  }

  /**
   * Parses one direct object (an `n g R` reference included). Recursion follows the nesting of
   * arrays and dictionaries, so it stops at `PDF_BUDGETS.depth` with `NestingTooDeep`.
   */
  readValue(depth = 0): PdfValue {
    if (depth > PDF_BUDGETS.depth) throw new NestingTooDeep()
    this.skipSpace()
    const c = this.peekByte()
    if (c === undefined) throw new MalformedPdf("unexpected end of file")
    if (c === 47) return this.readName()
    if (c === 40) return this.readLiteralString()
    if (c === 60) {
      this.pos++
      if (this.peekByte() === 60) {
        this.pos++
        return this.readDictBody(depth)
      }
      return this.readHexString()
    }
    if (c === 91) {
      this.pos++
      const items: Array<PdfValue> = []
      for (;;) {
        this.skipSpace()
        const d = this.peekByte()
        if (d === undefined) throw new MalformedPdf("unterminated array")
        if (d === 93) {
          this.pos++
          return items
        }
        items.push(this.readValue(depth + 1))
      }
    }
    const word = this.peekWord()
    if (word === "") throw new MalformedPdf(`unexpected character ${String.fromCharCode(c)} at ${this.pos}`)
    this.pos += word.length
    if (word === "true") return true
    if (word === "false") return false
    if (word === "null") return null
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
      // `num gen R`: look ahead for a second integer and R, else it is a plain number.
      if (/^\d+$/.test(word)) {
        const mark = this.pos
        try {
          const gen = this.peekWord()
          if (/^\d+$/.test(gen)) {
            this.pos += gen.length
            if (this.peekWord() === "R") {
              this.pos += 1
              return new PdfRef(Number(word), Number(gen))
            }
          }
        } catch (e) {
          if (!(e instanceof MalformedPdf)) throw e
        }
        this.pos = mark
      }
      return Number(word)
    }
    throw new MalformedPdf(`unexpected keyword ${word.slice(0, 20)} at ${this.pos - word.length}`)
  }

  private readName(): PdfName {
    this.pos++
    let out = ""
    for (;;) {
      const c = this.peekByte()
      if (c === undefined || isWhite(c) || isDelimiter(c)) break
      if (c === 35 && this.pos + 2 < this.bytes.length) {
        const hex = String.fromCharCode(this.bytes[this.pos + 1]!, this.bytes[this.pos + 2]!)
        if (/^[0-9a-fA-F]{2}$/.test(hex)) {
          out += String.fromCharCode(parseInt(hex, 16))
          this.pos += 3
          continue
        }
      }
      out += String.fromCharCode(c)
      this.pos++
    }
    return new PdfName(out)
  }

  private readDictBody(depth: number): PdfDict {
    const entries = new Map<string, PdfValue>()
    for (;;) {
      this.skipSpace()
      const c = this.peekByte()
      if (c === undefined) throw new MalformedPdf("unterminated dictionary")
      if (c === 62) {
        this.pos++
        if (this.peekByte() !== 62) throw new MalformedPdf(`expected >> at ${this.pos}`)
        this.pos++
        return new PdfDict(entries)
      }
      if (c !== 47) throw new MalformedPdf(`expected a name key at ${this.pos}`)
      const key = this.readName()
      entries.set(key.name, this.readValue(depth + 1))
    }
  }

  private readHexString(): PdfString {
    const out: Array<number> = []
    let half: number | undefined
    for (;;) {
      const c = this.peekByte()
      if (c === undefined) throw new MalformedPdf("unterminated hex string")
      this.pos++
      if (c === 62) break
      if (isWhite(c)) continue
      const v = parseInt(String.fromCharCode(c), 16)
      if (Number.isNaN(v)) throw new MalformedPdf(`bad hex digit at ${this.pos - 1}`)
      if (half === undefined) half = v
      else {
        out.push(half * 16 + v)
        half = undefined
      }
    }
    if (half !== undefined) out.push(half * 16)
    return new PdfString(Uint8Array.from(out), true)
  }

  private readLiteralString(): PdfString {
    this.pos++
    const out: Array<number> = []
    let depth = 1
    for (;;) {
      const c = this.peekByte()
      if (c === undefined) throw new MalformedPdf("unterminated string")
      this.pos++
      if (c === 92) {
        const e = this.peekByte()
        if (e === undefined) throw new MalformedPdf("unterminated string")
        this.pos++
        const simple: Record<number, number> = { 110: 10, 114: 13, 116: 9, 98: 8, 102: 12, 40: 40, 41: 41, 92: 92 }
        if (simple[e] !== undefined) out.push(simple[e]!)
        else if (e >= 48 && e <= 55) {
          let v = e - 48
          for (let k = 0; k < 2; k++) {
            const d = this.peekByte()
            if (d === undefined || d < 48 || d > 55) break
            v = v * 8 + (d - 48)
            this.pos++
          }
          out.push(v & 0xff)
        } else if (e === 13) {
          if (this.peekByte() === 10) this.pos++
        } else if (e !== 10) out.push(e)
        continue
      }
      if (c === 40) depth++
      if (c === 41 && --depth === 0) break
      out.push(c)
    }
    return new PdfString(Uint8Array.from(out))
  }

  /** After a stream dictionary: consumes `stream` and its end of line; the data starts at `pos`. */
  readStreamKeyword(): void {
    this.expectWord("stream")
    const c = this.peekByte()
    if (c === 13) {
      this.pos++
      if (this.peekByte() === 10) this.pos++
    } else if (c === 10) this.pos++
  }

  /** Reads `num gen obj`, answering the object number and generation. */
  readObjectHeader(): { readonly num: number; readonly gen: number } {
    const num = this.readInteger()
    const gen = this.readInteger()
    this.expectWord("obj")
    return { num, gen }
  }

  /** True if the next token is the keyword. */
  atWord(word: string): boolean {
    return this.peekWord() === word
  }

  /** True if the next bytes are `<<` (used to tell a dictionary from a hex string). */
  isDigitNext(): boolean {
    this.skipSpace()
    const c = this.peekByte()
    return c !== undefined && isDigit(c)
  }
}
