import type { RestRoute } from '../routing/route-table';

/** Public: these are how an admin gets a token in the first place. */
export const accountRoutes: RestRoute[] = [
  {
    field: 'Mutation.login',
    method: 'POST',
    path: '/v1/auth/login',
    tag: 'Admin accounts',
    summary: 'Sign in',
    description:
      'Public. Body {email, password}. Answers a bearer token with role admin and its expiry. 401 for a wrong email or password (the answer does not say which), ' +
      'or an account waiting for approval. 5 attempts per minute per IP and per account (429 beyond).',
    strictBody: true,
    public: true,
    example: {
      request: { email: 'ops@example.com', password: 'correct horse battery staple' },
      response: { token: 'sgs_…', expiresAt: '2026-11-22T16:30:00.000Z', email: 'ops@example.com', role: 'admin' },
    },
  },
  {
    field: 'Mutation.register',
    method: 'POST',
    path: '/v1/auth/register',
    extraErrors: ['FORBIDDEN', 'CONFLICT'],
    tag: 'Admin accounts',
    summary: 'Register an admin account',
    description:
      'Public. Body {email, password (12+ characters)}. 403 unless REGISTRATION is open (active at once) or approval (pending until an admin approves). 409 if the email exists. 5 per hour per IP.',
    strictBody: true,
    public: true,
    example: {
      request: { email: 'new@example.com', password: 'a long passphrase here' },
      response: { email: 'new@example.com', status: 'pending' },
    },
  },
  {
    field: 'Mutation.requestPasswordReset',
    method: 'POST',
    path: '/v1/auth/password-reset',
    tag: 'Admin accounts',
    summary: 'Ask for a password reset',
    description:
      'Public. Body {email}. Mails a single-use token valid for one hour (or writes it to the log when SMTP_URL is not set). The answer is the same whether the account exists or not. 3 per hour per IP and per account.',
    strictBody: true,
    public: true,
    example: { request: { email: 'ops@example.com' }, response: { accepted: true } },
  },
  {
    field: 'Mutation.confirmPasswordReset',
    method: 'POST',
    path: '/v1/auth/password-reset/confirm',
    tag: 'Admin accounts',
    summary: 'Set a new password with a reset token',
    description:
      'Public. Body {token, password}. 400 for an invalid, used or expired token. Ends the sessions opened with the old password. 3 per hour per IP.',
    strictBody: true,
    public: true,
    example: { request: { token: 'kq3…', password: 'a new long passphrase' }, response: { success: true } },
  },
];
