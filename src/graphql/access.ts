import { rolesOf, type Grant, type Role } from '../auth/roles';

/**
 * Who may call a root field (ADR 0044): spread into its options, `...allow('push')`. It replaces
 * the root type's admin-only default with the grant's roles (admin always among them) and records
 * the grant in the field's extensions, where the OpenAPI document and the role tests read it.
 * A root field without one stays admin's alone, and the route-table test fails until it names one.
 */
export function allow(grant: Grant) {
  return { skipTypeScopes: true, authScopes: scopesOf(grant), extensions: { grant } } as const;
}

/** The scope map of a grant: one scope per role it lets in. */
function scopesOf(grant: Grant): Partial<Record<Role, boolean>> {
  return Object.fromEntries(rolesOf(grant).map((role) => [role, true]));
}

/** Fields that need no token at all: signing in, registering, password resets. */
export const PUBLIC_ACCESS = { skipTypeScopes: true, authScopes: { public: true }, extensions: { grant: 'public' } } as const;

/** The grant a root field was given (extensions written by `allow`), if any. */
export function grantOf(field: { extensions?: unknown }): Grant | 'public' | undefined {
  const extensions = field.extensions as { grant?: Grant | 'public' } | undefined;
  return extensions?.grant;
}

/**
 * A nullable field only some roles may see (receivers' response bodies, token names): the others
 * get null rather than an error, so that a dashboard's whole answer still arrives.
 */
export function visibleTo(grant: Grant) {
  return { authScopes: scopesOf(grant), unauthorizedResolver: () => null } as const;
}
