/**
 * One file to upload: a path on disk (Node only; read as it is sent), or a name with a Blob
 * or a stream: a web `ReadableStream` or any async iterable of bytes such as a Node
 * `Readable`. On Node a stream is spooled to a temporary file first, so memory stays flat,
 * and removed afterwards; in a browser it is collected into a Blob.
 */
export type UploadSource =
  | string
  | { name: string; blob: Blob }
  | { name: string; stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> };

/** A file ready for the multipart body. */
export interface UploadPart {
  name: string;
  blob: Blob;
}

/** The parts of an upload and how to release what was made for them (temporary files). */
export interface PreparedParts {
  parts: UploadPart[];
  release(): Promise<void>;
}
