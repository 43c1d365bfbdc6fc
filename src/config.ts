import path from "node:path";

/** What one render may cost, and how much rendering one account may start. */
export interface RenderLimits {
  /** Largest output width, pixels. */
  maxWidth: number;
  /** Largest output height, pixels. */
  maxHeight: number;
  /** Largest output frame area (width × height), pixels. */
  maxPixels: number;
  /** Highest output frame rate, frames per second. */
  maxFps: number;
  /** Longest timeline one composition may have (and one render may cover), seconds. */
  maxDurationSec: number;
  /** Most clips in one composition, over all tracks. */
  maxClips: number;
  /** Timeline seconds of renders an account may start per UTC day, by counted plan (admin is unlimited). */
  dailyRenderSec: { standard: number; upgraded: number };
  /** Most renders of one account that are queued or running at once. */
  maxActivePerAccount: number;
}

/** Storage settings: local disk under `DATA_DIR/blobs`, or an S3-compatible bucket. */
export type StorageConfig =
  | { driver: "local"; dir: string }
  | {
      driver: "s3";
      bucket: string;
      region: string;
      endpoint: string | undefined;
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
      forcePathStyle: boolean;
      /** Endpoint clients use for presigned URLs when it differs from `endpoint`. */
      publicEndpoint: string | undefined;
    };

/** The whole typed configuration, read once from the environment at start and passed down. */
export interface Config {
  port: number;
  host: string;
  /** Base URL clients reach this server at (used in signed file URLs), no trailing slash. */
  publicUrl: string;
  dataDir: string;
  /** PostgreSQL connection string; `undefined` means embedded PGlite under `dataDir/pglite`. */
  databaseUrl: string | undefined;
  /** Max connections in the node-postgres pool (PostgreSQL only). */
  databasePoolSize: number;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Daily call quotas of the counted plans (admin is unlimited). */
  planLimits: { standard: number; upgraded: number };
  /** Calls per UTC day allowed per client IP for requests without a valid key. */
  anonDailyLimit: number;
  /** Signed file downloads (`GET /files/...`) per UTC day per client IP. */
  filesDailyLimit: number;
  /** Days of quota counters kept (today included); older ones are deleted hourly. */
  quotaKeepDays: number;
  /** Trust `X-Forwarded-For` from a proxy in front (Fastify `trustProxy`). */
  trustProxy: boolean;
  /** Largest JSON body accepted, bytes. */
  bodyLimitBytes: number;
  /** Largest uploaded file, bytes (default 512 MiB). */
  uploadMaxBytes: number;
  /** Lifetime of signed file URLs, seconds. */
  signedUrlTtlSec: number;
  /** HMAC secret for local signed URLs; `undefined` → generated into `dataDir` on first start. */
  urlSigningSecret: string | undefined;
  storage: StorageConfig;
  /** Run the render/generation worker inside the API process. */
  workerInProcess: boolean;
  /** Concurrent jobs per worker process. */
  workerConcurrency: number;
  /** Port of the worker role's `/healthz` and `/metrics` (on HOST); 0 = no server. */
  workerPort: number;
  /** Render cost limits and per-account render allowances. */
  renderLimits: RenderLimits;
  /** ffmpeg without progress this long fails the render with TIMEOUT, seconds. */
  renderStallTimeoutSec: number;
  /** CPU niceness (0–19) of ffmpeg and the other media tools, with the lowest I/O priority above 0; 0 = the server's own. */
  mediaNice: number;
  /**
   * Renders (mp4) longer than this many seconds are split into segments of this length,
   * rendered by any workers in parallel and joined; 0 renders everything in one piece.
   */
  renderSegmentSec: number;
  /**
   * Move split renders' segment boundaries towards the sources' keyframes
   * (`planSplitSegments`; default on); off: every `renderSegmentSec` seconds.
   */
  renderSegmentKeyframes: boolean;
  /**
   * With the render cache on, make every mp4 render as segments (also one no longer than
   * `renderSegmentSec`; none when that is 0) so that later renders can copy them (default on).
   */
  renderSegmentAll: boolean;
  /**
   * Size cap of the render cache in bytes (parts of split renders kept for reuse by the same
   * account's later renders, least recently used evicted); 0 disables the cache.
   */
  renderCacheBytes: number;
  /** Scratch directory for render working files. */
  workDir: string;
  /** Serve Prometheus metrics at GET /metrics. */
  metricsEnabled: boolean;
  /** `open` lets anyone create an account from the console's sign-in page. */
  signup: "closed" | "open";
  /** Lifetime of a console sign-in session, seconds. */
  sessionTtlSec: number;
  /** Sign-in rate limits: attempts per IP and failures per account in one window. */
  loginLimits: { maxPerIp: number; maxFailuresPerAccount: number; windowSec: number };
  /** Folder holding the built web console (index.html and assets/). */
  consoleDir: string;
  /** Worker threads that run large analysis requests. */
  analysisThreads: number;
  /** Analysis inputs with at most this many characters of text run on the event loop. */
  analysisInlineMaxChars: number;
  /** A threaded analysis running longer than this is stopped with 413, seconds. */
  analysisTimeoutSec: number;
  /** The assistant's model: `offline`, `openai:<model>`, `anthropic:<model>` or `openai-compatible:<model>`. */
  assistantModel: string;
  /** Base URL of the model's API (required for `openai-compatible`, optional for the others). */
  assistantBaseUrl: string | undefined;
  /** API key of the model's provider; `undefined` → the provider's usual variable (OPENAI_API_KEY…). */
  assistantApiKey: string | undefined;
  /** Most model steps (model calls) in one orchestrator run. */
  assistantMaxSteps: number;
  /** Most paid vendor generations one assistant run may start. */
  assistantMaxPaidGenerationsPerRun: number;
  /** Image and video generation (fal.ai or the offline placeholder provider). */
  generation: GenerationConfig;
  /** Speech to text. */
  transcription: TranscriptionConfig;
  /** Webhook delivery. */
  webhooks: WebhookConfig;
  /** Limits of every outbound HTTP request (vendors, downloads, webhooks, remote assets). */
  outbound: OutboundHttpConfig;
}

/** Limits of the process's HTTP client, milliseconds and bytes (`OUTBOUND_*`). */
export interface OutboundHttpConfig {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  /** Longest silence between two pieces of a response body. */
  bodyTimeoutMs: number;
  /** Whole request of a vendor SDK, body included. */
  requestTimeoutMs: number;
  /** Largest decoded response body of a vendor SDK call. */
  maxResponseBytes: number;
}

/** Speech-to-text settings. `apiKey` is a secret: never log or return it. */
export interface TranscriptionConfig {
  /** `offline` (PocketSphinx), `fal` (fal.ai Whisper) or `openai-compatible:<model>`. */
  engine: string;
  /** Base URL of the engine's API (required for `openai-compatible`; fal: its queue origin). */
  baseUrl: string | undefined;
  /** The engine's API key (`fal` falls back to FAL_KEY). */
  apiKey: string | undefined;
}

/** Webhook delivery settings. */
export interface WebhookConfig {
  /** Allow loopback, private and link-local targets and plain http (self-hosting). */
  allowPrivate: boolean;
  /** Waits before each retry, seconds: a delivery is tried once plus once per entry. */
  retryScheduleSec: number[];
  /** An endpoint is disabled after this many deliveries in a row failed every try. */
  disableAfterFailures: number;
  /** Time limit of one try (connect, send, response headers and body), milliseconds. */
  timeoutMs: number;
  /** Finished deliveries (succeeded, or failed for good) are deleted this many days after their last try. */
  deliveryRetentionDays: number;
}

/** The default retry schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 h in all). */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_SEC = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

/** Which provider runs generations: `auto` = fal.ai when a key is set, else offline. */
export type GenerationProviderSetting = "auto" | "fal" | "offline";

/** Generation settings. `falKey` is a secret: never log or return it. */
export interface GenerationConfig {
  provider: GenerationProviderSetting;
  /** fal.ai API key (`FAL_KEY`), or undefined. */
  falKey: string | undefined;
  /** Origin of fal's queue API, no trailing slash (default `https://queue.fal.run`). */
  falQueueUrl: string;
  /** fal model id of still-to-video (default `fal-ai/veo3/fast/image-to-video`). */
  falVideoModel: string;
  /** How long `POST /generate/image` waits for the result before answering 202, seconds. */
  imageWaitSec: number;
  /** Per-account generation allowances. */
  limits: GenerationLimits;
}

/** How many generations one account may have and start (admin accounts: no daily limits). */
export interface GenerationLimits {
  /** Most generations of one account queued or running at once. */
  maxActivePerAccount: number;
  /** Generations an account may start per UTC day, by counted plan. */
  daily: { standard: number; upgraded: number };
  /** Of those, generations by a paid vendor (not the offline provider), by counted plan. */
  dailyPaid: { standard: number; upgraded: number };
}

/** Thrown by {@link loadConfig} with one line per bad variable. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/**
 * Reads and validates the configuration from environment variables (see the README table).
 * Every bad value is reported, not only the first.
 *
 * @param env - the environment, normally `process.env`.
 * @param cwd - directory relative paths resolve against.
 * @throws {ConfigError} listing each invalid variable with the reason and an example.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];

  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return def;
    if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)}: must be an integer from ${min} to ${max}`);
      return def;
    }
    return Number(raw);
  };
  const bool = (name: string, def: boolean): boolean => {
    const raw = str(name)?.toLowerCase();
    if (raw === undefined) return def;
    if (["1", "true", "yes", "on"].includes(raw)) return true;
    if (["0", "false", "no", "off"].includes(raw)) return false;
    problems.push(`${name}=${JSON.stringify(raw)}: must be true or false`);
    return def;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], def: T): T => {
    const raw = str(name);
    if (raw === undefined) return def;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name}=${JSON.stringify(raw)}: must be one of ${allowed.join(", ")}`);
      return def;
    }
    return raw as T;
  };

  const port = int("PORT", 3000, 0, 65535);
  const host = str("HOST") ?? "127.0.0.1";
  const dataDir = path.resolve(cwd, str("DATA_DIR") ?? "data");

  const databaseUrl = str("DATABASE_URL");
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push("DATABASE_URL: must be a postgres:// or postgresql:// connection string");
  }

  let publicUrl =
    str("PUBLIC_URL") ?? `http://${host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host}:${port}`;
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("protocol");
    publicUrl = publicUrl.replace(/\/+$/, "");
  } catch {
    problems.push(
      `PUBLIC_URL=${JSON.stringify(publicUrl)}: must be an absolute http(s) URL, e.g. https://cutroom.example.com`,
    );
  }

  const driver = oneOf("STORAGE_DRIVER", ["local", "s3"] as const, "local");
  let storage: StorageConfig = { driver: "local", dir: path.join(dataDir, "blobs") };
  if (driver === "s3") {
    const bucket = str("S3_BUCKET");
    if (!bucket) problems.push("S3_BUCKET: required when STORAGE_DRIVER=s3");
    const endpoint = str("S3_ENDPOINT");
    if (endpoint !== undefined && !/^https?:\/\//.test(endpoint))
      problems.push("S3_ENDPOINT: must be an http(s) URL");
    storage = {
      driver: "s3",
      bucket: bucket ?? "",
      region: str("S3_REGION") ?? "us-east-1",
      endpoint,
      accessKeyId: str("S3_ACCESS_KEY_ID"),
      secretAccessKey: str("S3_SECRET_ACCESS_KEY"),
      forcePathStyle: bool("S3_FORCE_PATH_STYLE", endpoint !== undefined),
      publicEndpoint: str("S3_PUBLIC_ENDPOINT"),
    };
  }

  let falQueueUrl = str("FAL_QUEUE_URL") ?? "https://queue.fal.run";
  try {
    const u = new URL(falQueueUrl);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("protocol");
    falQueueUrl = u.origin;
  } catch {
    problems.push(
      `FAL_QUEUE_URL=${JSON.stringify(falQueueUrl)}: must be an http(s) origin, e.g. https://queue.fal.run`,
    );
  }
  const falVideoModel = str("FAL_VIDEO_MODEL");
  if (falVideoModel !== undefined && !/^[\w.-]+\/[\w.-]+(\/[\w.-]+)*$/.test(falVideoModel)) {
    problems.push(
      `FAL_VIDEO_MODEL=${JSON.stringify(falVideoModel)}: must be a fal model id such as fal-ai/veo3/fast/image-to-video`,
    );
  }
  const assistantModel = str("ASSISTANT_MODEL") ?? "offline";
  if (!/^(offline|(openai|anthropic|openai-compatible):\S+)$/.test(assistantModel)) {
    problems.push(
      `ASSISTANT_MODEL=${JSON.stringify(assistantModel)}: must be offline, openai:<model>, anthropic:<model> or openai-compatible:<model>`,
    );
  }
  const assistantBaseUrl = str("ASSISTANT_BASE_URL");
  if (assistantBaseUrl !== undefined && !/^https?:\/\//.test(assistantBaseUrl))
    problems.push("ASSISTANT_BASE_URL: must be an http(s) URL, e.g. http://127.0.0.1:11434/v1");
  if (assistantModel.startsWith("openai-compatible:") && assistantBaseUrl === undefined)
    problems.push("ASSISTANT_BASE_URL: required when ASSISTANT_MODEL=openai-compatible:<model>");

  const transcriptionEngine = str("TRANSCRIPTION_ENGINE") ?? "offline";
  if (!/^(offline|fal|openai-compatible:\S+)$/.test(transcriptionEngine)) {
    problems.push(
      `TRANSCRIPTION_ENGINE=${JSON.stringify(transcriptionEngine)}: must be offline, fal or openai-compatible:<model>`,
    );
  }
  const transcriptionBaseUrl = str("TRANSCRIPTION_BASE_URL");
  if (transcriptionBaseUrl !== undefined && !/^https?:\/\//.test(transcriptionBaseUrl))
    problems.push("TRANSCRIPTION_BASE_URL: must be an http(s) URL, e.g. http://127.0.0.1:8000/v1");
  if (transcriptionEngine.startsWith("openai-compatible:") && transcriptionBaseUrl === undefined)
    problems.push("TRANSCRIPTION_BASE_URL: required when TRANSCRIPTION_ENGINE=openai-compatible:<model>");
  if (transcriptionEngine === "fal" && !str("TRANSCRIPTION_API_KEY") && !str("FAL_KEY"))
    problems.push("TRANSCRIPTION_ENGINE=fal: needs TRANSCRIPTION_API_KEY or FAL_KEY");

  let retryScheduleSec = DEFAULT_WEBHOOK_RETRY_SCHEDULE_SEC;
  const schedule = str("WEBHOOK_RETRY_SCHEDULE");
  if (schedule !== undefined) {
    const parts = schedule.split(",").map((p) => p.trim());
    if (parts.length > 20 || !parts.every((p) => /^\d{1,6}$/.test(p))) {
      problems.push(
        `WEBHOOK_RETRY_SCHEDULE=${JSON.stringify(schedule)}: must be up to 20 comma-separated whole seconds (each at most 999999), e.g. 5,300,1800`,
      );
    } else {
      retryScheduleSec = parts.map(Number);
    }
  }

  const secret = str("URL_SIGNING_SECRET");
  if (secret !== undefined && secret.length < 32)
    problems.push("URL_SIGNING_SECRET: must be at least 32 characters");

  const config: Config = {
    port,
    host,
    publicUrl,
    dataDir,
    databaseUrl,
    databasePoolSize: int("DATABASE_POOL_SIZE", 10, 1, 500),
    logLevel: oneOf("LOG_LEVEL", LOG_LEVELS, "info"),
    planLimits: {
      standard: int("QUOTA_STANDARD_DAILY", 1000, 1, 2_147_483_646),
      upgraded: int("QUOTA_UPGRADED_DAILY", 10_000, 1, 2_147_483_646),
    },
    anonDailyLimit: int("ANON_DAILY_LIMIT", 1000, 0, 2_147_483_647),
    filesDailyLimit: int("FILES_DAILY_LIMIT", 100_000, 1, 2_147_483_647),
    quotaKeepDays: int("QUOTA_KEEP_DAYS", 7, 1, 3650),
    trustProxy: bool("TRUST_PROXY", false),
    bodyLimitBytes: int("BODY_LIMIT_BYTES", 2 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    uploadMaxBytes: int("UPLOAD_MAX_BYTES", 512 * 1024 * 1024, 1, 64 * 1024 * 1024 * 1024),
    signedUrlTtlSec: int("SIGNED_URL_TTL_SEC", 24 * 3600, 60, 7 * 24 * 3600),
    urlSigningSecret: secret,
    storage,
    workerInProcess: bool("WORKER_IN_PROCESS", true),
    workerConcurrency: int("WORKER_CONCURRENCY", 1, 1, 64),
    mediaNice: int("MEDIA_NICE", 10, 0, 19),
    workerPort: int("WORKER_PORT", 9464, 0, 65535),
    renderLimits: {
      maxWidth: int("RENDER_MAX_WIDTH", 3840, 16, 4096),
      maxHeight: int("RENDER_MAX_HEIGHT", 3840, 16, 4096),
      maxPixels: int("RENDER_MAX_PIXELS", 3840 * 2160, 256, 4096 * 4096),
      maxFps: int("RENDER_MAX_FPS", 60, 1, 60),
      maxDurationSec: int("RENDER_MAX_DURATION_SEC", 4 * 3600, 1, 86_400),
      maxClips: int("COMPOSITION_MAX_CLIPS", 1000, 1, 100_000),
      dailyRenderSec: {
        standard: int("RENDER_MINUTES_STANDARD_DAILY", 120, 1, 35_791_394) * 60,
        upgraded: int("RENDER_MINUTES_UPGRADED_DAILY", 1200, 1, 35_791_394) * 60,
      },
      maxActivePerAccount: int("RENDER_MAX_ACTIVE_PER_ACCOUNT", 5, 1, 10_000),
    },
    renderStallTimeoutSec: int("RENDER_STALL_TIMEOUT_SEC", 60, 1, 3600),
    renderSegmentSec: int("RENDER_SEGMENT_SEC", 20, 0, 3600),
    renderSegmentKeyframes: bool("RENDER_SEGMENT_KEYFRAMES", true),
    renderSegmentAll: bool("RENDER_SEGMENT_ALL", true),
    renderCacheBytes: int("RENDER_CACHE_BYTES", 10 * 1024 ** 3, 0, Number.MAX_SAFE_INTEGER),
    workDir: path.resolve(cwd, str("WORK_DIR") ?? path.join(dataDir, "work")),
    metricsEnabled: bool("METRICS_ENABLED", false),
    generation: {
      provider: oneOf("GENERATION_PROVIDER", ["auto", "fal", "offline"] as const, "auto"),
      falKey: str("FAL_KEY"),
      falQueueUrl,
      falVideoModel: falVideoModel ?? "fal-ai/veo3/fast/image-to-video",
      imageWaitSec: int("IMAGE_WAIT_SEC", 30, 0, 300),
      limits: {
        maxActivePerAccount: int("GENERATION_MAX_ACTIVE_PER_ACCOUNT", 4, 1, 10_000),
        daily: {
          standard: int("GENERATION_DAILY_STANDARD", 100, 0, 1_000_000),
          upgraded: int("GENERATION_DAILY_UPGRADED", 1000, 0, 1_000_000),
        },
        dailyPaid: {
          standard: int("GENERATION_DAILY_PAID_STANDARD", 10, 0, 1_000_000),
          upgraded: int("GENERATION_DAILY_PAID_UPGRADED", 100, 0, 1_000_000),
        },
      },
    },
    transcription: {
      engine: transcriptionEngine,
      baseUrl: transcriptionBaseUrl,
      apiKey: str("TRANSCRIPTION_API_KEY") ?? (transcriptionEngine === "fal" ? str("FAL_KEY") : undefined),
    },
    signup: oneOf("SIGNUP", ["closed", "open"] as const, "closed"),
    sessionTtlSec: int("SESSION_TTL_HOURS", 7 * 24, 1, 24 * 365) * 3600,
    loginLimits: {
      maxPerIp: int("LOGIN_MAX_ATTEMPTS_PER_IP", 30, 1, 1_000_000),
      maxFailuresPerAccount: int("LOGIN_MAX_FAILURES", 10, 1, 1_000_000),
      windowSec: int("LOGIN_WINDOW_MIN", 15, 1, 24 * 60) * 60,
    },
    consoleDir: path.resolve(
      cwd,
      str("CONSOLE_DIR") ?? path.join(import.meta.dirname, "..", "dist", "console"),
    ),
    analysisThreads: int("ANALYSIS_THREADS", 1, 1, 64),
    analysisInlineMaxChars: int("ANALYSIS_INLINE_MAX_CHARS", 32_768, 0, 64 * 1024 * 1024),
    analysisTimeoutSec: int("ANALYSIS_TIMEOUT_SEC", 30, 1, 3600),
    assistantModel,
    assistantBaseUrl,
    assistantApiKey: str("ASSISTANT_API_KEY"),
    assistantMaxSteps: int("ASSISTANT_MAX_STEPS", 12, 1, 100),
    assistantMaxPaidGenerationsPerRun: int("ASSISTANT_MAX_PAID_GENERATIONS_PER_RUN", 2, 0, 100),
    webhooks: {
      allowPrivate: bool("WEBHOOK_ALLOW_PRIVATE", false),
      retryScheduleSec,
      disableAfterFailures: int("WEBHOOK_DISABLE_AFTER_FAILURES", 5, 1, 1000),
      timeoutMs: 10_000,
      deliveryRetentionDays: int("WEBHOOK_DELIVERY_RETENTION_DAYS", 30, 1, 3650),
    },
    outbound: {
      connectTimeoutMs: int("OUTBOUND_CONNECT_TIMEOUT_MS", 10_000, 100, 600_000),
      headersTimeoutMs: int("OUTBOUND_HEADERS_TIMEOUT_MS", 60_000, 100, 3_600_000),
      bodyTimeoutMs: int("OUTBOUND_BODY_TIMEOUT_MS", 60_000, 100, 3_600_000),
      requestTimeoutMs: int("OUTBOUND_REQUEST_TIMEOUT_MS", 15 * 60_000, 100, 24 * 3_600_000),
      maxResponseBytes: int("OUTBOUND_MAX_RESPONSE_BYTES", 64 * 1024 * 1024, 1024, 2 ** 31 - 1),
    },
  };
  if (config.generation.provider === "fal" && !config.generation.falKey) {
    problems.push("GENERATION_PROVIDER=fal: needs FAL_KEY");
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
