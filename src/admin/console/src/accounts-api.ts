import { gql } from '@urql/core';

/** Admin accounts: the accounts page, sign-in, sign-out, registration and password resets (see schema.graphql). */

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
