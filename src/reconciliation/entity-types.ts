import { validationFailed } from '../errors/app-error';
import { TRACKED_ENTITIES, type AnyTrackedEntity, type TrackedTableName } from '../changes/tracked-entities';

/** The entity types of resync and reconciliation, as API callers name them (the descriptors' entityType). */
export type EntityType = AnyTrackedEntity['entityType'];

/** An entity type's table, from its descriptor (ADR 0036). */
export const tableOfType = (type: EntityType): TrackedTableName => TRACKED_ENTITIES.find((e) => e.entityType === type)!.table;

export const ENTITY_TYPES: readonly EntityType[] = TRACKED_ENTITIES.map((e) => e.entityType);

/** Entity types whose records have an external id and a data object (what a digest covers). */
export const DIGESTED_TYPES: readonly EntityType[] = TRACKED_ENTITIES.filter((e) => e.keyed).map((e) => e.entityType);

/** The entity type named by `value`, or a 400 naming `field` and the accepted values. */
export function entityTypeOf(value: string, field: string, accepted: readonly EntityType[] = ENTITY_TYPES): EntityType {
  const found = accepted.find((type) => type === value);
  if (found) return found;
  throw validationFailed([{ field, message: `Unknown entity type "${value}"; one of ${accepted.join(', ')}` }]);
}
