/** closed: admins are created with the CLI; approval: registrations wait for an admin; open. */
export const REGISTRATION_MODES = ['closed', 'approval', 'open'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];
