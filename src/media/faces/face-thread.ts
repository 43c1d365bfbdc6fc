/**
 * Entry of the face detector's worker thread (piscina): loads face-api's tiny face detector once
 * per thread, on its first task, from the weights shipped inside the `@vladmandic/face-api`
 * package (never downloaded), on TensorFlow.js's WebAssembly backend, and detects the faces of a
 * batch of RGB frames.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { FaceBox, FaceTask } from "./detector.ts";

type FaceApi = typeof import("@vladmandic/face-api/dist/face-api.node-wasm.js");

let loaded: Promise<FaceApi> | undefined;

/** The model directory inside the installed package. */
export function faceModelDir(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve("@vladmandic/face-api/package.json")), "model");
}

async function load(): Promise<FaceApi> {
  const faceapi = await import("@vladmandic/face-api/dist/face-api.node-wasm.js");
  // The bundled TensorFlow.js; its backend functions are missing from face-api's declarations.
  const tf = faceapi.tf as unknown as { setBackend(name: string): Promise<boolean>; ready(): Promise<void> };
  await tf.setBackend("wasm");
  await tf.ready();
  await faceapi.nets.tinyFaceDetector.loadFromDisk(faceModelDir());
  return faceapi;
}

/** Detects the faces of each frame of `task` (piscina calls this once per task). */
export default async function detect(task: FaceTask): Promise<FaceBox[][]> {
  loaded ??= load();
  const faceapi = await loaded;
  const { width, height, count } = task;
  const bytes = new Uint8Array(task.rgb);
  const frameBytes = width * height * 3;
  const options = new faceapi.TinyFaceDetectorOptions({
    inputSize: task.inputSize,
    scoreThreshold: task.minScore,
  });
  const out: FaceBox[][] = [];
  for (let i = 0; i < count; i += 1) {
    const pixels = bytes.subarray(i * frameBytes, (i + 1) * frameBytes);
    const tensor = faceapi.tf.tensor3d(pixels, [height, width, 3], "int32");
    try {
      const found = await faceapi.detectAllFaces(tensor as never, options);
      out.push(
        found.map((d) => ({
          x: d.box.x / width,
          y: d.box.y / height,
          w: d.box.width / width,
          h: d.box.height / height,
          score: d.score,
        })),
      );
    } finally {
      tensor.dispose();
    }
  }
  return out;
}
