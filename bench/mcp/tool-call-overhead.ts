// What an MCP tool call costs over the REST call it makes: sequential `GET /api/compositions/:id`
// over HTTP against `tools/call get_composition` with the SDK's client (one `POST /mcp` each),
// on one server, plus one `/metrics` scrape (process metrics and the queue gauges' statement).
// Usage: node bench/mcp/tool-call-overhead.ts [--n 300]   (TEST_DATABASE_URL=… for PostgreSQL)

import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startTestApp } from "../../test/helpers/app.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "300" } } });
const n = Number(values.n);
const t = await startTestApp({ env: { LOG_LEVEL: "warn", METRICS_ENABLED: "true" } });
try {
  const base = await t.listen();
  const { key } = await t.createAccount({ plan: "admin" });
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const created = await fetch(`${base}/api/compositions`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      name: "bench",
      canvas: { width: 160, height: 90, fps: 25, background: "#000000" },
      tracks: [
        { kind: "video", clips: [{ start: 0, duration: 1, asset: { type: "color", color: "#3366ff" } }] },
      ],
    }),
  });
  const { id } = (await created.json()) as { id: string };
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );

  const time = async (label: string, once: () => Promise<unknown>) => {
    for (let i = 0; i < 20; i++) await once(); // warm-up
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await once();
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    const at = (p: number) => (ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] as number).toFixed(2);
    console.log(`${label.padEnd(34)} p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  (n=${n})`);
    return Number(at(0.5));
  };
  const rest = await time("REST GET /api/compositions/:id", async () => {
    const res = await fetch(`${base}/api/compositions/${id}`, { headers });
    if (res.status !== 200) throw new Error(`REST ${res.status}`);
    await res.arrayBuffer();
  });
  const mcp = await time("MCP tools/call get_composition", async () => {
    const r = await client.callTool({ name: "get_composition", arguments: { id } });
    if (r.isError) throw new Error("tool error");
  });
  await time("GET /metrics", async () => (await fetch(`${base}/metrics`)).text());
  console.log(
    `MCP over REST at p50: +${(mcp - rest).toFixed(2)} ms; driver ${t.database.driver}; load ${loadavg()[0]?.toFixed(2)}`,
  );
  await client.close();
} finally {
  await t.close();
}
