import { graphql } from './graphql';

/** The Channels page's documents, and the channel names the API tokens page offers (see schema.graphql). */

export const CHANNELS = graphql(`
  query Channels {
    channels {
      name
      startedFrom
      createdAt
      tokens
      lag {
        entityType
        pending
        oldestPendingAgeSeconds
      }
    }
  }
`);

/** Without the lag, which costs a query per entity type and channel. */
export const CHANNEL_NAMES = graphql(`
  query ChannelNames {
    channels {
      name
    }
  }
`);

export const CREATE_CHANNEL = graphql(`
  mutation CreateChannel($name: String!, $from: ChannelStart) {
    createChannel(name: $name, from: $from) {
      name
    }
  }
`);

export const DELETE_CHANNEL = graphql(`
  mutation DeleteChannel($name: String!) {
    deleteChannel(name: $name) {
      name
      tokens
    }
  }
`);
