import http from "node:http";
import type { AddressInfo } from "node:net";

/** One chat completion request the stand-in received. */
export interface ChatRequest {
  authorization: string | undefined;
  body: {
    model: string;
    stream?: boolean;
    messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; parameters: unknown } }[];
  };
}

/** What the stand-in answers to one request: pieces of tool-call arguments, or text pieces. */
export type ChatReply =
  | { toolCall: { id: string; name: string; argumentPieces: string[] } }
  | { textPieces: string[] };

/**
 * A local stand-in of an OpenAI-compatible chat completions server (vLLM, Ollama, llama.cpp,
 * LM Studio) on 127.0.0.1 and a free port: `POST /v1/chat/completions` with `stream: true`
 * answers server-sent `chat.completion.chunk`s — a tool call whose JSON arguments arrive in
 * several pieces, or text — then a usage chunk and `data: [DONE]`. `reply` decides per request.
 */
export async function startChatServer(reply: (req: ChatRequest, index: number) => ChatReply) {
  const requests: ChatRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    const request: ChatRequest = {
      authorization: req.headers.authorization,
      body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
    };
    requests.push(request);
    const answer = reply(request, requests.length - 1);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model: request.body.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`;
    const send = async (text: string) => {
      res.write(text);
      await new Promise((r) => setTimeout(r, 5));
    };
    if ("toolCall" in answer) {
      const { id, name, argumentPieces } = answer.toolCall;
      await send(
        chunk({
          role: "assistant",
          content: null,
          tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }],
        }),
      );
      for (const piece of argumentPieces) {
        await send(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
      }
      await send(chunk({}, "tool_calls"));
    } else {
      await send(chunk({ role: "assistant", content: "" }));
      for (const piece of answer.textPieces) await send(chunk({ content: piece }));
      await send(chunk({}, "stop"));
    }
    await send(
      `data: ${JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model: request.body.model,
        choices: [],
        usage: { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 },
      })}\n\n`,
    );
    res.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
