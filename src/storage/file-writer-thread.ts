// The writer thread behind `writeToFile` (file-writer.ts): hashes (SHA-256) the chunks it is
// sent as they arrive and writes them to already open file descriptors, one stream per `id`.
// Writes run on libuv's pool, at most one per stream at a time (chunks arriving meanwhile go
// out together in the next one), so hashing overlaps writing; after every WRITE_BEHIND_BYTES
// of a stream a background `fdatasync` starts, so that the caller's final fsync has little
// left to flush. Each chunk's memory is released as soon as it is written, rather than left to
// the garbage collector (the process's allocator then reuses it for the next socket reads).
// Loaded with Node's own loader: at run time it imports Node built-ins only (the protocol is types).
import { createHash, type Hash } from "node:crypto";
import { fdatasync, writev } from "node:fs";
import { parentPort } from "node:worker_threads";
import type { FromWriter, ToWriter, WriterError } from "./file-writer-protocol.ts";

/** Bytes of a stream written between two background flushes. */
const WRITE_BEHIND_BYTES = 32 * 1024 * 1024;

interface Stream {
  fd: number;
  hash: Hash;
  /** Bytes received (and hashed) so far. */
  bytes: number;
  /** File offset of the next write. */
  offset: number;
  /** Chunks received while a write was in progress: the next write. */
  queue: Uint8Array[];
  /** The write in progress, if any. */
  writing: Promise<void> | null;
  /** Bytes written since the last background flush started. */
  unflushed: number;
  /** The background flush in progress, if any. */
  flushing: Promise<void> | null;
  failed: boolean;
}

const port = parentPort;
if (!port) throw new Error("file-writer-thread.ts runs as a worker thread only");
const streams = new Map<number, Stream>();
const send = (msg: FromWriter) => port.postMessage(msg);

port.on("message", (msg: ToWriter) => {
  switch (msg.op) {
    case "open":
      streams.set(msg.id, {
        fd: msg.fd,
        hash: createHash("sha256"),
        bytes: 0,
        offset: 0,
        queue: [],
        writing: null,
        unflushed: 0,
        flushing: null,
        failed: false,
      });
      return;
    case "write":
      write(msg.id, msg.chunks);
      return;
    case "end":
      void end(msg.id);
      return;
    case "abort":
      void abort(msg.id);
      return;
  }
});

function write(id: number, chunks: Uint8Array[]): void {
  const s = streams.get(id);
  if (!s || s.failed) {
    send({ op: "ack", id, bytes: release(chunks) });
    return;
  }
  try {
    for (const c of chunks) s.hash.update(c);
  } catch (err) {
    fail(id, s, err);
    send({ op: "ack", id, bytes: release(chunks) });
    return;
  }
  s.bytes += byteLength(chunks);
  for (const c of chunks) s.queue.push(c);
  if (!s.writing) s.writing = writeQueued(id, s);
}

/** Writes the queue until it stays empty, acknowledging each write; settles after the last. */
async function writeQueued(id: number, s: Stream): Promise<void> {
  while (s.queue.length > 0) {
    const chunks = s.queue;
    s.queue = [];
    const bytes = byteLength(chunks);
    if (!s.failed) {
      try {
        await writeAll(s.fd, chunks, s.offset);
        s.offset += bytes;
        s.unflushed += bytes;
        if (s.unflushed >= WRITE_BEHIND_BYTES && !s.flushing) startFlush(id, s);
      } catch (err) {
        fail(id, s, err);
      }
    }
    release(chunks);
    send({ op: "ack", id, bytes });
  }
  s.writing = null;
}

/** `writev` at `position` until every byte is written (a short write is retried for the rest). */
async function writeAll(fd: number, chunks: Uint8Array[], position: number): Promise<void> {
  let rest = chunks;
  let at = position;
  while (rest.length > 0) {
    let n = await new Promise<number>((resolve, reject) => {
      writev(fd, rest, at, (err, written) => (err ? reject(err) : resolve(written)));
    });
    if (n === 0) throw new Error("write wrote nothing");
    at += n;
    let i = 0;
    while (i < rest.length && n >= (rest[i] as Uint8Array).byteLength)
      n -= (rest[i++] as Uint8Array).byteLength;
    rest = rest.slice(i);
    if (n > 0) rest[0] = (rest[0] as Uint8Array).subarray(n);
  }
}

/**
 * Frees the chunks' memory now (each owns its whole ArrayBuffer: it was transferred or copied
 * for this thread); a zero-length transfer detaches the buffer and drops its backing store.
 * @returns their byte count, taken before.
 */
function release(chunks: Uint8Array[]): number {
  const bytes = byteLength(chunks);
  for (const c of chunks) if (c.byteLength > 0) (c.buffer as ArrayBuffer).transfer(0);
  return bytes;
}

function byteLength(chunks: Uint8Array[]): number {
  let n = 0;
  for (const c of chunks) n += c.byteLength;
  return n;
}

/** Starts flushing what the stream wrote so far to disk, in the background (libuv's pool). */
function startFlush(id: number, s: Stream): void {
  s.unflushed = 0;
  s.flushing = new Promise((resolve) => {
    fdatasync(s.fd, (err) => {
      s.flushing = null;
      if (err && streams.get(id) === s) fail(id, s, err);
      resolve();
    });
  });
}

async function end(id: number): Promise<void> {
  const s = streams.get(id);
  if (!s) return;
  await s.writing;
  await s.flushing;
  if (s.failed) return; // the error was sent; the main thread answers with `abort`
  streams.delete(id);
  send({ op: "done", id, bytes: s.bytes, sha256: s.hash.digest("hex") });
}

async function abort(id: number): Promise<void> {
  const s = streams.get(id);
  if (s) {
    s.failed = true;
    await s.writing; // drops what is queued, waits for the write in progress
    await s.flushing;
    streams.delete(id);
  }
  send({ op: "aborted", id });
}

function fail(id: number, s: Stream, err: unknown): void {
  if (s.failed) return;
  s.failed = true;
  const e = err as NodeJS.ErrnoException;
  const error: WriterError = { message: e?.message ?? String(err) };
  if (e?.code !== undefined) error.code = e.code;
  if (e?.errno !== undefined) error.errno = e.errno;
  if (e?.syscall !== undefined) error.syscall = e.syscall;
  send({ op: "error", id, error });
}
