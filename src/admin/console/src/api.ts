import { gql } from '@urql/core';

/** The GraphQL documents of the console and the shapes they return (see schema.graphql). */

export type Page<T> = { payload: T[]; meta: { total: number; limit: number; offset: number } };

export const ENTITY_TYPES = ['product', 'partner', 'sale_order'] as const;
export const SOURCES = ['erp', 'webshop'] as const;
export const QUEUE_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export const DIRECTIONS = ['to_erp', 'to_webshop'] as const;

export type Overview = {
  pendingChanges: Record<'products' | 'partners' | 'saleOrders' | 'priceItems' | 'stocks' | 'purchaseOrders', number>;
  openFailureCounts: Array<{ entity_type: string; source: string; open: number }>;
  outboundQueueStats: Record<(typeof QUEUE_STATUSES)[number], number>;
  deliveriesPerMinute: Array<{ minute: string; delivered: number; failed: number }>;
};

export const OVERVIEW = gql`
  query Overview {
    pendingChanges {
      products
      partners
      saleOrders
      priceItems
      stocks
      purchaseOrders
    }
    openFailureCounts {
      entity_type
      source
      open
    }
    outboundQueueStats {
      pending
      processing
      completed
      failed
    }
    deliveriesPerMinute(minutes: 15) {
      minute
      delivered
      failed
    }
  }
`;

export type FailureEvent = {
  failure_id: number;
  entity_type: string;
  external_id: string | null;
  source: string;
  error_message: string;
  failed_at: string;
};

export const FAILURE_EVENTS = gql`
  subscription FailureEvents {
    syncFailure {
      failure_id
      entity_type
      external_id
      source
      error_message
      failed_at
    }
  }
`;

export type FailureRow = {
  id: number;
  entity_type: string;
  external_id: string | null;
  middleware_id: number | null;
  source: string;
  status: string;
  error_message: string;
  createdAt: string;
  hasRawData: boolean;
};

export type FailureDetail = FailureRow & {
  error_details: Array<{ field: string; message: string }>;
  raw_data: unknown;
  resolvedAt: string | null;
  resolvedBy: string | null;
  resolutionNote: string | null;
};

export const FAILURES = gql`
  query Failures($status: FailureStatus, $entityType: FailureEntityType, $source: FailureSource, $limit: Int, $offset: Int) {
    failures(status: $status, entity_type: $entityType, source: $source, limit: $limit, offset: $offset) {
      payload {
        id
        entity_type
        external_id
        middleware_id
        source
        status
        error_message
        createdAt
        hasRawData
      }
      meta {
        total
        limit
        offset
      }
    }
  }
`;

export const FAILURE = gql`
  query Failure($id: Int!) {
    failure(id: $id) {
      id
      entity_type
      external_id
      middleware_id
      source
      status
      error_message
      createdAt
      hasRawData
      error_details {
        field
        message
      }
      raw_data
      resolvedAt
      resolvedBy
      resolutionNote
    }
  }
`;

export const RESOLVE_FAILURE = gql`
  mutation ResolveFailure($id: Int!, $note: String) {
    resolveFailure(id: $id, note: $note) {
      id
      status
      resolvedAt
      resolvedBy
      resolutionNote
    }
  }
`;

export type WebhookHealth = {
  state: 'healthy' | 'failing' | 'disabled';
  lastSuccessAt: string | null;
  failingSince: string | null;
  consecutiveFailedItems: number;
  autoDisabledAt: string | null;
};

export type WebhookConfig = {
  id: number;
  url: string;
  entityType: string;
  direction: string;
  active: boolean;
  updatedAt: string;
  health: WebhookHealth;
};

export const WEBHOOK_CONFIGS = gql`
  query WebhookConfigs {
    webhookConfigs {
      id
      url
      entityType
      direction
      active
      updatedAt
      health {
        state
        lastSuccessAt
        failingSince
        consecutiveFailedItems
        autoDisabledAt
      }
    }
  }
`;

export const CREATE_WEBHOOK = gql`
  mutation CreateWebhook(
    $url: String!
    $entityType: FailureEntityType!
    $direction: WebhookDirection!
    $secret: String!
    $active: Boolean
  ) {
    createWebhookConfig(url: $url, entityType: $entityType, direction: $direction, secret: $secret, active: $active) {
      id
    }
  }
`;

export const UPDATE_WEBHOOK = gql`
  mutation UpdateWebhook(
    $id: Int!
    $url: String
    $entityType: FailureEntityType
    $direction: WebhookDirection
    $secret: String
    $active: Boolean
  ) {
    updateWebhookConfig(id: $id, url: $url, entityType: $entityType, direction: $direction, secret: $secret, active: $active) {
      id
      url
      entityType
      direction
      active
      updatedAt
    }
  }
`;

export const REMOVE_WEBHOOK = gql`
  mutation RemoveWebhook($id: Int!) {
    removeWebhookConfig(id: $id) {
      id
    }
  }
`;

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

export type Account = {
  id: number;
  email: string;
  status: string;
  createdAt: string;
  approvedAt: string | null;
  approvedBy: string | null;
  lastLoginAt: string | null;
};

export const ACCOUNTS = gql`
  query Accounts {
    adminAccounts {
      id
      email
      status
      createdAt
      approvedAt
      approvedBy
      lastLoginAt
    }
  }
`;

export const APPROVE_ACCOUNT = gql`
  mutation ApproveAccount($id: Int!) {
    approveAccount(id: $id) {
      id
      status
      approvedAt
      approvedBy
    }
  }
`;

export const LOGIN = gql`
  mutation Login($email: String!, $password: String!) {
    login(email: $email, password: $password) {
      token
      email
      expiresAt
    }
  }
`;

export const LOGOUT = gql`
  mutation Logout {
    logout {
      success
    }
  }
`;

export const REGISTER = gql`
  mutation Register($email: String!, $password: String!) {
    register(email: $email, password: $password) {
      email
      status
    }
  }
`;

export const REQUEST_RESET = gql`
  mutation RequestReset($email: String!) {
    requestPasswordReset(email: $email) {
      accepted
    }
  }
`;

export const CONFIRM_RESET = gql`
  mutation ConfirmReset($token: String!, $password: String!) {
    confirmPasswordReset(token: $token, password: $password) {
      success
    }
  }
`;
