import { gql } from '@urql/core';

/** The API tokens page's documents (see schema.graphql). */

export type ApiToken = { id: number; name: string; role: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };

export const API_TOKENS = gql`
  query ApiTokens {
    apiTokens {
      id
      name
      role
      createdAt
      lastUsedAt
      revokedAt
    }
  }
`;

export const CREATE_TOKEN = gql`
  mutation CreateToken($name: String!, $role: TokenRole) {
    createApiToken(name: $name, role: $role) {
      token
      apiToken {
        id
        name
        role
      }
    }
  }
`;

export const REVOKE_TOKEN = gql`
  mutation RevokeToken($idOrName: String!) {
    revokeApiToken(idOrName: $idOrName) {
      id
      revokedAt
    }
  }
`;
