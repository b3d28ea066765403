/** closed: admins are created with the CLI; approval: registrations wait for an admin; open. The values are the REGISTRATION setting's. */
export { REGISTRATION_MODES, type RegistrationMode } from '../config';
