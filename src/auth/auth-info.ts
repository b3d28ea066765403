import type { TokenRole } from '../generated/prisma/client';

/**
 * Who is calling: an API token or an admin session. `key` identifies it for rate limiting; it is
 * unique across databases too (a Redis may count for more than one deployment).
 */
export type AuthInfo = {
  key: string;
  name: string;
  role: TokenRole;
  /** The channel whose feed it lists and acknowledges; null: channel default (ADR 0045). */
  channelId: number | null;
  /** Set for an admin session (not an API token): what signing out revokes. */
  sessionTokenHash?: string;
  /** Set for an API token: what open live streams are re-verified by. */
  tokenHash?: string;
};
