import { builder } from '../graphql/builder';
import { FAILURE_ENTITY_TYPES, FAILURE_SOURCES } from './failure.input';

/** Shared by failures, their live events and webhook configurations. */
export const FailureEntityType = builder.enumType('FailureEntityType', { values: FAILURE_ENTITY_TYPES });
export const FailureSource = builder.enumType('FailureSource', {
  description: 'The system that reports the failure.',
  values: FAILURE_SOURCES,
});
