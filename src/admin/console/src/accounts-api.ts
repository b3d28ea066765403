import { graphql } from './graphql';

/** Admin accounts: the accounts page, sign-in, sign-out, registration and password resets (see schema.graphql). */

export const ACCOUNTS = graphql(`
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
`);

export const APPROVE_ACCOUNT = graphql(`
  mutation ApproveAccount($id: Int!) {
    approveAccount(id: $id) {
      id
      status
      approvedAt
      approvedBy
    }
  }
`);

export const LOGIN = graphql(`
  mutation Login($email: String!, $password: String!) {
    login(email: $email, password: $password) {
      token
      email
      expiresAt
    }
  }
`);

export const LOGOUT = graphql(`
  mutation Logout {
    logout {
      success
    }
  }
`);

export const REGISTER = graphql(`
  mutation Register($email: String!, $password: String!) {
    register(email: $email, password: $password) {
      email
      status
    }
  }
`);

export const REQUEST_RESET = graphql(`
  mutation RequestReset($email: String!) {
    requestPasswordReset(email: $email) {
      accepted
    }
  }
`);

export const CONFIRM_RESET = graphql(`
  mutation ConfirmReset($token: String!, $password: String!) {
    confirmPasswordReset(token: $token, password: $password) {
      success
    }
  }
`);
