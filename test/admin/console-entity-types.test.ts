import { TRACKED_ENTITY_TYPES } from '../../src/admin/console/src/api';
import { HISTORY_ENTITY_TYPES } from '../../src/admin/console/src/history-api';
import { HISTORY_ENTITIES } from '../../src/changes/history-writes';
import { TRACKED_ENTITIES } from '../../src/changes/tracked-entities';

/**
 * The console's menus of entity types are its own lists: the console is built apart from the
 * server, and GraphQL takes these types as String, so its schema cannot hold them. This can.
 */
describe('the console’s entity types', () => {
  it('lists every tracked entity in registry order (reconciliation, resync)', () => {
    expect(TRACKED_ENTITY_TYPES).toEqual(TRACKED_ENTITIES.map((e) => e.entityType));
  });

  it('lists exactly the entities that keep a history (the history page)', () => {
    expect(HISTORY_ENTITY_TYPES).toEqual(HISTORY_ENTITIES.map((e) => e.entityType));
  });
});
