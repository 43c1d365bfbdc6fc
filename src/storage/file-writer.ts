import type { Readable } from "node:stream";
import { isMarkedAsUntransferable, Worker } from "node:worker_threads";
import type { FromWriter, ToWriter } from "./file-writer-protocol.ts";

/** Options of {@link writeToFile}. */
export interface WriteToFileOptions {
  /**
   * Hand the body's chunks over instead of copying them: a chunk that spans its whole
   * ArrayBuffer is transferred to the writer thread, which detaches it (it reads as empty
   * afterwards); other chunks are copied. Set it only when nothing reads the chunks again,
   * e.g. for a request body. Default `false`: every chunk is copied.
   */
  transferChunks?: boolean;
  /** Stops reading, destroys `body` and rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** What {@link writeToFile} wrote. */
export interface WriteToFileResult {
  /** Bytes written. */
  bytes: number;
  /** Lower-case hex SHA-256 of those bytes. */
  sha256: string;
}

/** Chunks are sent to the writer thread in batches of about this many bytes. */
const BATCH_BYTES = 1024 * 1024;
/** Reading pauses while more than this many bytes are sent but not yet written… */
const HIGH_WATER_BYTES = 8 * 1024 * 1024;
/** …and resumes once at most this many are. */
const LOW_WATER_BYTES = 4 * 1024 * 1024;

/**
 * Streams `body` into the open file descriptor `fd` from offset 0, on a shared writer thread
 * that also computes the SHA-256 and flushes the file to disk in the background as it grows
 * (so a final fsync by the caller is short). The main thread only batches chunks and hands
 * them over; with `transferChunks` it also gives up their memory, which keeps a large upload's
 * buffers away from the main heap's garbage collector. Reading pauses while 8 MiB are queued
 * for the thread. The caller owns `fd` (opens it before, fsyncs and closes it after); once this
 * settles, the thread no longer touches it.
 *
 * @returns the byte count and SHA-256 once every byte is written (not yet fsynced).
 * @throws the error `body` fails with (it is then not read further), the signal's reason
 *   (`body` is destroyed), or the write's error (e.g. `ENOSPC`; `body` is destroyed with it).
 */
export async function writeToFile(
  fd: number,
  body: Readable,
  opts: WriteToFileOptions = {},
): Promise<WriteToFileResult> {
  const { signal } = opts;
  if (signal?.aborted) {
    body.destroy();
    throw abortReason(signal);
  }
  const stream = writerThread().open(fd, (err) => body.destroy(err));
  const onAbort = () => body.destroy(abortReason(signal as AbortSignal));
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const chunk of body) {
      stream.push(
        typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Uint8Array),
        opts.transferChunks,
      );
      if (stream.queued > HIGH_WATER_BYTES) await stream.drained();
    }
    return await stream.end();
  } catch (err) {
    await stream.abort();
    throw err;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error("The write was aborted");
}

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (err: Error) => void;
}

/** The main thread's end of one stream on the writer thread. */
class WriteStream {
  /** Bytes batched or sent but not yet written. */
  queued = 0;
  /** Chunks to send; each owns its whole ArrayBuffer, which is transferred with it. */
  private batch: Uint8Array[] = [];
  private batchBytes = 0;
  private flushScheduled = false;
  private failure: Error | null = null;
  /** The thread is done with the stream (`done`, `aborted`, or it died). */
  private settled = false;
  private drainWaiter: Waiter<void> | null = null;
  private endWaiter: Waiter<WriteToFileResult> | null = null;
  private abortWaiter: (() => void) | null = null;

  readonly id: number;
  private readonly thread: WriterThread;
  private readonly onFailure: (err: Error) => void;

  constructor(thread: WriterThread, id: number, onFailure: (err: Error) => void) {
    this.thread = thread;
    this.id = id;
    this.onFailure = onFailure;
  }

  /** Batches `chunk` (transferred when allowed and whole, else copied); sends full batches. */
  push(chunk: Uint8Array, transferChunks: boolean | undefined): void {
    if (chunk.byteLength === 0 || this.failure) return;
    const ab = chunk.buffer;
    const whole =
      transferChunks === true &&
      ab instanceof ArrayBuffer &&
      chunk.byteOffset === 0 &&
      chunk.byteLength === ab.byteLength &&
      !isMarkedAsUntransferable(ab);
    const owned = whole ? chunk : new Uint8Array(chunk); // a copy owns a fresh ArrayBuffer
    this.batch.push(owned);
    this.batchBytes += owned.byteLength;
    this.queued += owned.byteLength;
    if (this.batchBytes >= BATCH_BYTES) this.flush();
    else if (!this.flushScheduled) {
      // A partial batch goes out once the reader waits for more input.
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.flush();
      });
    }
  }

  /** Resolves once at most LOW_WATER_BYTES are queued; rejects when the stream fails. */
  drained(): Promise<void> {
    this.flush();
    if (this.failure) return Promise.reject(this.failure);
    if (this.queued <= LOW_WATER_BYTES) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.drainWaiter = { resolve, reject };
    });
  }

  /** Sends what is batched and the end; resolves with the thread's count and hash. */
  end(): Promise<WriteToFileResult> {
    this.flush();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.endWaiter = { resolve, reject };
      this.thread.post({ op: "end", id: this.id });
    });
  }

  /** Gives the stream up; resolves once the thread no longer touches the file. */
  abort(): Promise<void> {
    this.failure ??= new Error("write aborted");
    this.batch = [];
    if (this.settled || !this.thread.alive) return Promise.resolve();
    return new Promise((resolve) => {
      this.abortWaiter = resolve;
      this.thread.post({ op: "abort", id: this.id });
    });
  }

  /** Handles the thread's message for this stream. */
  receive(msg: FromWriter): void {
    switch (msg.op) {
      case "ack":
        this.queued -= msg.bytes;
        if (this.drainWaiter && this.queued <= LOW_WATER_BYTES) {
          const w = this.drainWaiter;
          this.drainWaiter = null;
          w.resolve();
        }
        return;
      case "error":
        this.fail(Object.assign(new Error(msg.error.message), msg.error));
        return;
      case "done":
        this.settle();
        this.endWaiter?.resolve({ bytes: msg.bytes, sha256: msg.sha256 });
        this.endWaiter = null;
        return;
      case "aborted":
        this.settle();
        return;
    }
  }

  /** The writes failed or the thread died: stop the reader, fail whoever waits. */
  fail(err: Error, threadDied = false): void {
    if (!this.failure) {
      this.failure = err;
      this.onFailure(err);
    }
    const waiters = [this.drainWaiter, this.endWaiter];
    this.drainWaiter = null;
    this.endWaiter = null;
    for (const w of waiters) w?.reject(this.failure);
    if (threadDied) this.settle();
  }

  private flush(): void {
    if (this.batch.length === 0 || this.failure) return;
    const chunks = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    this.thread.post(
      { op: "write", id: this.id, chunks },
      chunks.map((c) => c.buffer as ArrayBuffer),
    );
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.thread.release(this.id);
    this.abortWaiter?.();
    this.abortWaiter = null;
  }
}

/** The writer thread shared by every stream of this process, started on first use. */
class WriterThread {
  alive = true;
  private readonly worker: Worker;
  private readonly streams = new Map<number, WriteStream>();
  private nextId = 1;

  constructor() {
    this.worker = new Worker(new URL("./file-writer-thread.ts", import.meta.url), {
      name: "cutroom-file-writer",
      // It frees the chunks it writes itself and allocates little: a small young generation
      // keeps its heap at a few MB, so its rare full collections cost ~1 ms.
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    this.worker.unref();
    this.worker.on("message", (msg: FromWriter) => this.streams.get(msg.id)?.receive(msg));
    this.worker.on("error", (err: Error) => this.die(err));
    this.worker.on("exit", (code) => this.die(new Error(`the file writer thread exited (code ${code})`)));
  }

  open(fd: number, onFailure: (err: Error) => void): WriteStream {
    const stream = new WriteStream(this, this.nextId++, onFailure);
    if (this.streams.size === 0) this.worker.ref(); // keep the process alive while writing
    this.streams.set(stream.id, stream);
    this.post({ op: "open", id: stream.id, fd });
    return stream;
  }

  post(msg: ToWriter, transfer?: ArrayBuffer[]): void {
    if (this.alive) this.worker.postMessage(msg, transfer);
  }

  release(id: number): void {
    if (this.streams.delete(id) && this.streams.size === 0 && this.alive) this.worker.unref();
  }

  private die(err: Error): void {
    if (!this.alive) return;
    this.alive = false;
    if (shared === this) shared = null;
    const streams = [...this.streams.values()];
    this.streams.clear();
    for (const s of streams) s.fail(err, true);
  }
}

let shared: WriterThread | null = null;

function writerThread(): WriterThread {
  shared ??= new WriterThread();
  return shared;
}
