// Composition history at scale through HTTP: a composition of 500 clips (five tracks of 100)
// written 1,000 times by PATCH (each moves or retitles one clip), then the p95 of listing its
// versions (a page of 25 at a random depth), reading one version, the diff between two and a
// revert, each version picked at random. Target: p95 ≤ 100 ms for each.
// Usage: node bench/compositions/versions.ts [--versions 1000] [--n 100] [--seed 7]
//        (TEST_DATABASE_URL=… for PostgreSQL; PGlite by default)

import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { startTestApp } from "../../test/helpers/app.ts";

const { values } = parseArgs({
  options: {
    versions: { type: "string", default: "1000" },
    n: { type: "string", default: "100" },
    seed: { type: "string", default: "7" },
  },
});
const VERSIONS = Number(values.versions);
const N = Number(values.n);
const TRACKS = 5;
const CLIPS_PER_TRACK = 100;
const TARGET_MS = 100;

// A small seeded PRNG (mulberry32), so runs pick the same versions.
let seed = Number(values.seed) >>> 0;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let x = seed;
  x = Math.imul(x ^ (x >>> 15), x | 1);
  x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
};
const pick = (max: number) => 1 + Math.floor(random() * max);

const t = await startTestApp({ env: { LOG_LEVEL: "warn" } });
try {
  const base = await t.listen();
  const { key } = await t.createAccount({ plan: "admin" });
  const auth = { authorization: `Bearer ${key}` };
  const tracks = Array.from({ length: TRACKS }, (_, k) => ({
    kind: "video",
    clips: Array.from({ length: CLIPS_PER_TRACK }, (_, i) =>
      k === 0
        ? { start: i * 2, duration: 1.5, asset: { type: "color", color: "#3366ff" } }
        : {
            start: i * 2,
            duration: 1,
            asset: { type: "text", text: `Title ${k}.${i}`, style: { family: "Sans", size: 48 } },
          },
    ),
  }));
  const created = await fetch(`${base}/api/compositions`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      name: "versions bench",
      canvas: { width: 1920, height: 1080, fps: 30, background: "#000000" },
      tracks,
    }),
  });
  if (created.status !== 201)
    throw new Error(`create: ${created.status} ${(await created.text()).slice(0, 300)}`);
  const { id } = (await created.json()) as { id: string };

  const patchMs: number[] = [];
  const t0 = performance.now();
  for (let v = 2; v <= VERSIONS; v++) {
    const track = Math.floor(random() * TRACKS);
    const clip = Math.floor(random() * CLIPS_PER_TRACK);
    const op =
      track === 0 || random() < 0.5
        ? { op: "replace", path: `/tracks/${track}/clips/${clip}/start`, value: clip * 2 + (v % 5) / 10 }
        : { op: "replace", path: `/tracks/${track}/clips/${clip}/asset/text`, value: `Title v${v}` };
    const s = performance.now();
    const res = await fetch(`${base}/api/compositions/${id}`, {
      method: "PATCH",
      headers: { ...auth, "content-type": "application/json-patch+json" },
      body: JSON.stringify([op]),
    });
    if (res.status !== 200) throw new Error(`patch ${v}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer();
    patchMs.push(performance.now() - s);
  }
  console.log(
    `${VERSIONS} versions of ${TRACKS * CLIPS_PER_TRACK} clips written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  // Cursors of every page of 25, to list at random depths.
  const cursors: (string | null)[] = [null];
  for (;;) {
    const last = cursors[cursors.length - 1];
    const res = await fetch(`${base}/api/compositions/${id}/versions${last ? `?cursor=${last}` : ""}`, {
      headers: auth,
    });
    const page = (await res.json()) as { nextCursor: string | null };
    if (!page.nextCursor) break;
    cursors.push(page.nextCursor);
  }

  const p = (ms: number[], q: number) => {
    const sorted = [...ms].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  };
  const rows: { label: string; p50: number; p95: number }[] = [];
  const time = async (label: string, n: number, once: () => Promise<Response>) => {
    for (let i = 0; i < 5; i++) await (await once()).arrayBuffer(); // warm-up
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const s = performance.now();
      const res = await once();
      await res.arrayBuffer();
      ms.push(performance.now() - s);
      if (res.status !== 200) throw new Error(`${label}: ${res.status}`);
    }
    rows.push({ label, p50: p(ms, 0.5), p95: p(ms, 0.95) });
  };
  await time("list (page of 25, random depth)", N, () => {
    const cursor = cursors[Math.floor(random() * cursors.length)];
    return fetch(`${base}/api/compositions/${id}/versions${cursor ? `?cursor=${cursor}` : ""}`, {
      headers: auth,
    });
  });
  await time("get one version", N, () =>
    fetch(`${base}/api/compositions/${id}/versions/${pick(VERSIONS)}`, { headers: auth }),
  );
  await time("diff between two versions", N, () =>
    fetch(`${base}/api/compositions/${id}/versions/${pick(VERSIONS)}/diff?from=${pick(VERSIONS)}`, {
      headers: auth,
    }),
  );
  let current = VERSIONS;
  await time("revert", Math.max(20, Math.floor(N / 2)), async () => {
    const res = await fetch(`${base}/api/compositions/${id}/revert`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "if-match": `"${current}"` },
      body: JSON.stringify({ version: pick(VERSIONS) }),
    });
    if (res.status === 200) current++;
    return res;
  });
  rows.push({ label: "PATCH of one clip (write + version)", p50: p(patchMs, 0.5), p95: p(patchMs, 0.95) });
  for (const r of rows) {
    const verdict = r.label.startsWith("PATCH") ? "(no target)" : r.p95 <= TARGET_MS ? "met" : "NOT met";
    console.log(
      `${r.label.padEnd(38)} p50 ${r.p50.toFixed(1).padStart(6)} ms  p95 ${r.p95.toFixed(1).padStart(6)} ms  ${verdict}`,
    );
  }
  console.log(
    `target p95 ≤ ${TARGET_MS} ms; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
} finally {
  await t.close();
}
