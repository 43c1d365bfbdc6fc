import type { Plan } from "../quota/daily-quota.ts";
import type { Scope } from "./scopes.ts";

/**
 * Who a live API key belongs to, as the auth statement reads it: the owner and the key's own
 * details (never its secret). Dates are the database's timestamps.
 */
export interface CallerIdentity {
  userId: string;
  plan: Plan;
  user: { email: string; name: string; createdAt: Date; imageModel: string | null };
  key: {
    id: string;
    name: string;
    prefix: string;
    scopes: Scope[];
    createdAt: Date;
    lastUsedAt: Date | null;
  };
}
