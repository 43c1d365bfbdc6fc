/**
 * The chunks of a web `ReadableStream` or an async iterable, read with `getReader()` where
 * there is one (browsers do not all make streams async-iterable). Stopping early cancels the
 * stream, which closes the connection behind a response body.
 */
export async function* chunks<T>(stream: ReadableStream<T> | AsyncIterable<T>): AsyncGenerator<T> {
  if (!("getReader" in stream)) {
    yield* stream;
    return;
  }
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
