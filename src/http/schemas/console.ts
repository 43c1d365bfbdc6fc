import { Type } from "typebox";
import { SCOPES } from "../../domain/auth/scopes.ts";
import { PASSWORD_MAX } from "../../domain/console/passwords.ts";
import { ApiKey, User } from "./account.ts";
import { Timestamp } from "./common.ts";

/** OpenAPI security of console-only operations: the session cookie (writes add `X-CSRF-Token`). */
export const CONSOLE_SECURITY = [{ cookieAuth: [] }];
/** OpenAPI security of operations that need no credential. */
export const NO_SECURITY: Record<string, string[]>[] = [];

const Email = Type.String({
  minLength: 3,
  maxLength: 320,
  pattern: "^[^\\s@]+@[^\\s@]+$",
  examples: ["owner@localhost"],
});
const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX });

/** `POST /api/v1/auth/login` body. */
export const LoginBody = Type.Object(
  { email: Email, password: Password },
  {
    title: "LoginBody",
    additionalProperties: false,
    examples: [{ email: "owner@localhost", password: "correct horse battery staple" }],
  },
);

/** `POST /api/v1/auth/setup` body: the token from the setup link and the new password. */
export const SetupBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 100 }), password: Password },
  {
    title: "SetupBody",
    additionalProperties: false,
    examples: [{ token: "crp_Hk3v9QmZrX2bW7yT1pLdQ8sN4fVc6eJa", password: "correct horse battery staple" }],
  },
);

/** `POST /api/v1/auth/signup` body (only with SIGNUP=open). */
export const SignupBody = Type.Object(
  { email: Email, name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), password: Password },
  {
    title: "SignupBody",
    additionalProperties: false,
    examples: [{ email: "editor@example.com", name: "Ada Editor", password: "correct horse battery staple" }],
  },
);

/** `POST /api/v1/auth/password` body. */
export const PasswordChangeBody = Type.Object(
  { currentPassword: Password, newPassword: Password },
  {
    title: "PasswordChangeBody",
    additionalProperties: false,
    examples: [
      { currentPassword: "correct horse battery staple", newPassword: "a longer passphrase of mine" },
    ],
  },
);

/** One console sign-in session. */
export const ConsoleSession = Type.Object(
  {
    id: Type.String({ examples: ["cns_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
    createdAt: Timestamp(),
    lastSeenAt: Timestamp("Updated at most once a minute"),
    expiresAt: Timestamp(),
    userAgent: Type.Union([Type.String(), Type.Null()]),
    ip: Type.Union([Type.String(), Type.Null()]),
    current: Type.Boolean({ description: "True for the session making this request" }),
  },
  { title: "ConsoleSession" },
);

/** The signed-in state: user, this session and its CSRF token. */
export const SessionState = Type.Object(
  {
    user: User,
    session: ConsoleSession,
    csrfToken: Type.String({ description: "Send as `X-CSRF-Token` on every cookie-authenticated write" }),
  },
  { title: "SessionState" },
);

/** `GET /api/v1/auth/options`: what the sign-in page may offer. */
export const AuthOptions = Type.Object(
  { signup: Type.Boolean({ description: "True when SIGNUP=open" }) },
  { title: "AuthOptions" },
);

/** `POST /api/v1/keys` body. */
export const KeyCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, examples: ["laptop"] }),
    scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), {
      minItems: 1,
      maxItems: 2,
      uniqueItems: true,
      description: '`["read"]` (read only) or `["read", "write"]` (read and write; `write` implies `read`)',
    }),
  },
  {
    title: "KeyCreate",
    additionalProperties: false,
    examples: [{ name: "laptop", scopes: ["read", "write"] }],
  },
);

/** `POST /api/v1/keys` response: the key and its secret, shown this once. */
export const KeyCreated = Type.Object(
  { key: ApiKey, secret: Type.String({ description: "The key `crk_…`, never shown again" }) },
  { title: "KeyCreated" },
);

/** A phone capture link. */
export const CaptureToken = Type.Object(
  {
    id: Type.String({ examples: ["cpt_01JD3Q5V0M8YB6Y2J4T6Z9KX1C"] }),
    projectId: Type.String(),
    createdAt: Timestamp(),
    expiresAt: Timestamp("30 minutes after creation"),
  },
  { title: "CaptureToken" },
);

/** `POST /api/v1/projects/{projectId}/capture-tokens` response: the token, shown this once, and the page's URL. */
export const CaptureTokenCreated = Type.Object(
  {
    captureToken: CaptureToken,
    token: Type.String({ description: "Bearer credential `crc_…` that may only POST /api/v1/uploads" }),
    url: Type.String({ description: "The phone capture page, `<PUBLIC_URL>/capture/<token>`" }),
  },
  { title: "CaptureTokenCreated" },
);
