// The part of the WebAssembly JavaScript API that Cutroom uses. TypeScript ships these types
// only with its DOM library, which a Node.js service does not include; Node.js has the API.
declare namespace WebAssembly {
  class Module {
    constructor(bytes: BufferSource);
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(deltaPages: number): number;
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  function compile(bytes: BufferSource): Promise<Module>;
  type BufferSource = ArrayBufferView<ArrayBuffer> | ArrayBuffer;
}
