import type { RestRoute } from '../routing/route-table';

const exampleLag = [
  { entityType: 'product', pending: 42, oldestPendingAgeSeconds: 315.2 },
  { entityType: 'stock', pending: 0, oldestPendingAgeSeconds: null },
];
const exampleChannel = {
  name: 'b2b-portal',
  startedFrom: 'all',
  createdAt: '2026-11-27T09:00:00.000Z',
  tokens: ['b2b-shop'],
  lag: exampleLag,
  push: null,
  newSecret: null,
};

const channelsDescription =
  'A channel is a consumer of the change feed with its own pending state: a change is pending for every channel until that channel acknowledges it, ' +
  'and an acknowledgement on one channel never changes what is pending on another. Channel `default` always exists and is what every install without channels uses. ' +
  'A webshop token is bound to one channel (`token create --role webshop --channel NAME`); its change lists, lookups and acknowledgements act on that channel only.';

export const channelRoutes: RestRoute[] = [
  {
    field: 'Query.channels',
    method: 'GET',
    path: '/v1/channels',
    extraErrors: ['FORBIDDEN'],
    tag: 'Channels',
    summary: 'List channels with their tokens and lag',
    description: `Admin only. ${channelsDescription} Each channel lists its live tokens and, per entity type, the pending count and the age of the oldest pending change.`,
    example: {
      response: [
        { name: 'default', startedFrom: null, createdAt: null, tokens: ['webshop'], lag: exampleLag, push: null, newSecret: null },
        exampleChannel,
      ],
    },
  },
  {
    field: 'Mutation.createChannel',
    method: 'POST',
    path: '/v1/channels',
    extraErrors: ['FORBIDDEN', 'CONFLICT'],
    tag: 'Channels',
    summary: 'Create a channel',
    description:
      `Admin only. ${channelsDescription} Body \`{"name": "b2b-portal", "from": "now" | "all"}\`: from \`now\` (default) nothing is pending for the new channel and it receives every later change; ` +
      'from `all` every current record is pending for it as new (isNew true, all fields), a full initial sync. Pushes wait while it starts. ' +
      '409 when the name is taken (`default` always is); 400 for a name other than lower-case letters, digits, - and _ (at most 63).',
    strictBody: true,
    responseStatus: 201,
    location: '/v1/channels/:name',
    example: { request: { name: 'b2b-portal', from: 'all' }, response: { ...exampleChannel, lag: exampleLag } },
  },
  {
    field: 'Mutation.deleteChannel',
    method: 'DELETE',
    path: '/v1/channels/:name',
    extraErrors: ['FORBIDDEN', 'CONFLICT'],
    tag: 'Channels',
    summary: 'Delete a channel and revoke its tokens',
    description:
      'Admin only. Removes the channel with its pending state and revokes every token bound to it (their live subscriptions end). ' +
      '404 when there is no such channel; 409 for `default`, which always exists. Answers the channel as it was.',
    example: { response: { ...exampleChannel, lag: [] } },
  },
  {
    field: 'Mutation.setChannelPush',
    method: 'POST',
    path: '/v1/channels/:name/push',
    extraErrors: ['FORBIDDEN'],
    tag: 'Channels',
    summary: 'Push a channel’s changes to a URL (change webhooks)',
    description:
      'Admin only. Body `{"url": "https://shop-b.example.com/hooks/changes", "batchSize": 100}`. From now on the channel (`default` included) pushes its change records ' +
      'to the URL instead of being polled: POSTs of `{"event":"changes","channel","entity_type","records":[…]}` (the change list’s records, one entity type, ' +
      'at most batchSize), signed with the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) and `X-Webhook-Signature`. ' +
      'A 2xx acknowledges exactly the revisions sent; any other answer retries on the delivery schedule with the same webhook-id; one batch at a time, ' +
      'so a later revision of a record never overtakes an earlier one. Its tokens’ change lists and acknowledgements answer 409 meanwhile. ' +
      'The first call answers the `whsec_` secret once in newSecret; later calls change the URL or batch size. Pause, resume, rotate and test it as webhook ' +
      'configuration `push.webhookId` (kind changes). 404 when there is no such channel.',
    strictBody: true,
    example: {
      request: { url: 'https://shop-b.example.com/hooks/changes', batchSize: 100 },
      response: {
        ...exampleChannel,
        push: { url: 'https://shop-b.example.com/hooks/changes', batchSize: 100, webhookId: 7, active: true },
        newSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
    },
  },
  {
    field: 'Mutation.stopChannelPush',
    method: 'DELETE',
    path: '/v1/channels/:name/push',
    extraErrors: ['FORBIDDEN'],
    tag: 'Channels',
    summary: 'Stop pushing: the channel is polled again',
    description:
      'Admin only. The channel stops pushing and its tokens poll it again; a batch not delivered yet stays pending (nothing is lost). 404 when there is no such channel.',
    example: { response: { ...exampleChannel, push: null, newSecret: null } },
  },
];
