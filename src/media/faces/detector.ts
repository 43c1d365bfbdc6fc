/**
 * Face detection off the event loop: a small pool of worker threads (piscina), each running
 * face-api's tiny face detector (a Tiny-YOLOv2-style single-shot detector; weights shipped in the
 * `@vladmandic/face-api` npm package) on TensorFlow.js's WebAssembly backend. The pool starts
 * on the first detection; each thread loads the model once (≈ 190 kB of weights).
 */
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";

/** A detected face: its box as fractions of the frame's width and height, and the detector's score 0..1. */
export interface FaceBox {
  x: number;
  y: number;
  w: number;
  h: number;
  score: number;
}

/** One batch for a thread: `count` frames of `width`×`height` RGB24 pixels, back to back. */
export interface FaceTask {
  rgb: ArrayBuffer;
  width: number;
  height: number;
  count: number;
  /** The detector's input size, pixels (a multiple of 32; the frame is scaled to fit it). */
  inputSize: number;
  /** Lowest score kept, 0..1. */
  minScore: number;
}

/** Detects faces in RGB frames; `close` ends the threads. */
export interface FaceDetector {
  /**
   * The faces of each frame of a batch (`frames.length` = `width × height × 3 × count` bytes).
   * @throws the signal's reason when `signal` aborts; Error when the model cannot run.
   */
  detect(
    frames: { rgb: Uint8Array; width: number; height: number; count: number },
    signal?: AbortSignal,
  ): Promise<FaceBox[][]>;
  close(): Promise<void>;
}

/** Input size of the detector, pixels: faces down to about 1/12 of the frame's larger side are found. */
export const FACE_INPUT_SIZE = 416;
/** Lowest detector score kept as a face. */
export const FACE_MIN_SCORE = 0.5;

const THREAD_FILE = fileURLToPath(new URL("./face-thread.ts", import.meta.url));

/**
 * A face detector over `threads` worker threads (at least 1), started on first use and ended
 * after a minute idle.
 */
export function createFaceDetector(opts: { threads: number } = { threads: 1 }): FaceDetector {
  let pool: Piscina | undefined;
  return {
    async detect(frames, signal) {
      pool ??= new Piscina({
        filename: THREAD_FILE,
        minThreads: 0,
        maxThreads: Math.max(1, opts.threads),
        idleTimeout: 60_000,
      });
      // A copy the thread owns (transferred, not cloned again).
      const rgb = frames.rgb.slice().buffer;
      const task: FaceTask = {
        rgb,
        width: frames.width,
        height: frames.height,
        count: frames.count,
        inputSize: FACE_INPUT_SIZE,
        minScore: FACE_MIN_SCORE,
      };
      // Piscina's TransferList type follows @types/node's postMessage overloads, which do not resolve to an array.
      const transferList = [rgb] as unknown as NonNullable<Parameters<Piscina["run"]>[1]>["transferList"];
      return (await pool.run(task, { transferList, ...(signal ? { signal } : {}) })) as FaceBox[][];
    },
    async close() {
      await pool?.destroy();
      pool = undefined;
    },
  };
}
