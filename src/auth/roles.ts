import type { TokenRole } from '../generated/prisma/client';
import { AppError } from '../errors/app-error';

/**
 * What a token may do (issue 31, ADR 0044): least privilege per connected system. Each GraphQL root
 * field (and so each REST route SOFA makes of it) names the roles that may call it, with one of
 * the grants below; admin may call everything, and a field that names none is admin's alone.
 */
export type Role = TokenRole;

export const ROLES = ['erp', 'webshop', 'viewer', 'integration', 'admin'] as const satisfies readonly Role[];

/** What each role may do, in the words a refusal shows the caller. */
export const ROLE_MAY: Record<Role, string> = {
  erp: 'push inbound records (dry runs included), report failures as erp, and read failures, records and their history',
  webshop:
    'list and acknowledge the change lists of its channel, look records up, reconcile and resync its channel, ' +
    'report failures as webshop, and read failures',
  viewer: 'read: every GET route and GraphQL query, without marking anything as listed; live syncFailure subscriptions',
  integration: 'what a token could do before roles: both sides of the feed and the outbound queue, nothing of admin',
  admin: 'everything',
};

/**
 * Grants: who may call an operation, besides admin. Named for what they cover, so that a new
 * operation picks the grant of its kind rather than a list of roles of its own.
 */
export const GRANTS = {
  /** Inbound pushes and their dry runs: the ERP's side. */
  push: ['erp', 'integration'],
  /** Change lists: read by the webshop (marking what it was shown) and by viewers (marking nothing). */
  feed: ['webshop', 'integration', 'viewer'],
  /** Acknowledgements, resync and reconciliation of the feed: the webshop's side. */
  consume: ['webshop', 'integration'],
  /** Lookups, history, failures and pending counts: every role reads them. */
  read: ['erp', 'webshop', 'viewer', 'integration'],
  /** Reporting and resolving failures: both sides (a report's source must match the role). */
  report: ['erp', 'webshop', 'integration'],
  /** The outbound queue's and webhooks' state: dashboards. */
  monitor: ['integration', 'viewer'],
  /** Driving the webhook pipeline (retry, retry-failed, recover): SPEC's queue routes. */
  deliver: ['integration'],
  /** Admin's alone. */
  admin: [],
} as const satisfies Record<string, readonly Role[]>;

export type Grant = keyof typeof GRANTS;

/** The roles a grant lets in, admin always among them. */
export function rolesOf(grant: Grant): Role[] {
  return [...GRANTS[grant], 'admin'];
}

/** The refusal of an operation to a role: 403, naming the role and what it may do. */
export function forbidden(role: Role | undefined, operation: string): AppError {
  if (role === undefined) return new AppError('UNAUTHENTICATED', 'A bearer token is required');
  return new AppError('FORBIDDEN', `A token with role ${role} may not call ${operation}. Role ${role} may ${ROLE_MAY[role]}.`);
}

/** The one place that decides whether a caller may run an admin operation inside a resolver. */
export function requireAdmin(ctx: { auth: { role: Role } | null }, operation = 'this operation'): void {
  if (ctx.auth?.role !== 'admin') throw forbidden(ctx.auth?.role, operation);
}
