import { type TrackedEntity } from '../changes/tracked-entity';
import { entityOfTable } from '../changes/tracked-entities';
import { MAX_PARTNERS_PER_REQUEST, partnerInput } from './partner.input';

/** Partners: a hierarchy of billing, contact and delivery addresses pushed by the ERP. */
export const partnerEntity = {
  ...entityOfTable('partners'),
  tag: 'Partners',
  operations: {
    sync: 'syncPartners',
    list: 'updatedPartners',
    ackOne: 'acknowledgePartner',
    ackMany: 'acknowledgePartners',
    pendingCount: 'partners',
  },
  listPath: '/v1/updated-partners',
  push: {
    path: '/v1/partners',
    listArg: 'partners',
    maxItems: MAX_PARTNERS_PER_REQUEST,
    input: { name: 'PartnerInput', schema: partnerInput },
    context: true,
  },
} as const satisfies TrackedEntity;
