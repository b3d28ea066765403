import { graphql } from './graphql';

/** The API tokens page's documents (see schema.graphql). */

export const API_TOKENS = graphql(`
  query ApiTokens {
    apiTokens {
      id
      name
      role
      channel
      createdAt
      lastUsedAt
      revokedAt
    }
  }
`);

export const CREATE_TOKEN = graphql(`
  mutation CreateToken($name: String!, $role: TokenRole, $channel: String) {
    createApiToken(name: $name, role: $role, channel: $channel) {
      token
      apiToken {
        id
        name
        role
        channel
      }
    }
  }
`);

export const REVOKE_TOKEN = graphql(`
  mutation RevokeToken($idOrName: String!) {
    revokeApiToken(idOrName: $idOrName) {
      id
      revokedAt
    }
  }
`);
