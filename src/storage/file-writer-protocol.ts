// Messages between `writeToFile` (file-writer.ts, main thread) and its writer thread
// (file-writer-thread.ts). Each write stream has an `id` chosen by the main thread; the file
// descriptor stays owned by the main thread, which opens it before `open` and closes it only
// after `done` / `aborted` (or the thread's exit).

/** Main thread → writer thread. */
export type ToWriter =
  /** Start a stream writing at offset 0 of the open descriptor `fd`. */
  | { op: "open"; id: number; fd: number }
  /** The next bytes of stream `id`, in order (their buffers are transferred or copies). */
  | { op: "write"; id: number; chunks: Uint8Array[] }
  /** No more bytes: answer `done` once everything is written (and any background flush ended). */
  | { op: "end"; id: number }
  /** Give the stream up: answer `aborted` once the thread no longer touches `fd`. */
  | { op: "abort"; id: number };

/** Writer thread → main thread. */
export type FromWriter =
  /** `bytes` more of stream `id` were written, or dropped after a failure (one ack may cover several `write`s). */
  | { op: "ack"; id: number; bytes: number }
  /** Stream `id` failed (the first error only); later writes are dropped until `abort`. */
  | { op: "error"; id: number; error: WriterError }
  /** Stream `id` is written whole: byte count and lower-case hex SHA-256. */
  | { op: "done"; id: number; bytes: number; sha256: string }
  | { op: "aborted"; id: number };

/** An I/O error, as plain data (structured clone drops an Error's `code`). */
export interface WriterError {
  message: string;
  code?: string;
  errno?: number;
  syscall?: string;
}
