import { createHash, type Hash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";

/** Options of {@link ByteMeter}. */
export interface ByteMeterOptions {
  /** Largest number of bytes let through; one byte more fails the stream at once. */
  maxBytes: number;
  /** Builds the error the stream fails with when `maxBytes` is exceeded. */
  tooLarge: () => Error;
}

/**
 * A pass-through Transform that counts bytes and computes SHA-256 on the way through, and fails
 * with `tooLarge()` the moment the count passes `maxBytes` (the offending chunk is not passed on),
 * so a size limit is enforced while the file streams, not after reading the rest.
 */
export class ByteMeter extends Transform {
  /** Bytes passed through so far. */
  bytes = 0;
  private readonly hash: Hash = createHash("sha256");
  private readonly maxBytes: number;
  private readonly tooLarge: () => Error;

  constructor(opts: ByteMeterOptions) {
    super();
    this.maxBytes = opts.maxBytes;
    this.tooLarge = opts.tooLarge;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(this.tooLarge());
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }

  /** Lower-case hex SHA-256 of everything passed through; call once, after the stream finished. */
  sha256(): string {
    return this.hash.digest("hex");
  }
}
