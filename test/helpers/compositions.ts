import type { CompositionInput } from "@cutroom/client";

/**
 * A 2.5 s 320×180 25 fps composition: 1.5 s of a video upload, then 1 s of an image upload.
 * Typed with the TypeScript client's request type, so both HTTP tests and client tests use it.
 */
export function videoThenStill(input: {
  name: string;
  projectId: string;
  videoId: string;
  stillId: string;
}): CompositionInput {
  return {
    name: input.name,
    projectId: input.projectId,
    canvas: { width: 320, height: 180, fps: 25, background: "#000000" },
    tracks: [
      {
        kind: "video",
        clips: [
          { start: 0, duration: 1.5, asset: { type: "video", uploadId: input.videoId } },
          { start: 1.5, duration: 1, asset: { type: "image", uploadId: input.stillId } },
        ],
      },
    ],
  };
}
