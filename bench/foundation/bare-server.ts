import Fastify from "fastify";

/** The comparison baseline: a bare Fastify route returning a constant, no logging. */
const app = Fastify({ logger: false });
app.get("/bare", async () => ({ ok: true }));
const port = Number(process.env.PORT ?? 0);
await app.listen({ port, host: "127.0.0.1" });
process.stdout.write(`listening ${(app.server.address() as { port: number }).port}\n`);
