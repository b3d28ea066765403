/**
 * Plans a partner batch against the stored tree: which records to reject (unknown parent,
 * circular reference, rejected parent) and in which order to apply the rest (parents first).
 * Iterative throughout, so trees hundreds of levels deep cannot overflow the stack.
 */

export type PartnerLink = {
  index: number;
  externalId: string;
  /** undefined: not sent, the stored parent stays. */
  parentExternalId: string | null | undefined;
};

export type PartnerPlan = {
  /** Indexes of the accepted records, parents before children. */
  order: number[];
  /** Rejected record index → reason. */
  rejected: Map<number, string>;
};

/** `stored` maps every stored partner the batch can reach (its records and their ancestors) to its parent. */
export function planPartnerBatch(records: readonly PartnerLink[], stored: ReadonlyMap<string, string | null>): PartnerPlan {
  const parents = new Map(stored);
  for (const r of records) {
    if (r.parentExternalId !== undefined) parents.set(r.externalId, r.parentExternalId);
    else if (!parents.has(r.externalId)) parents.set(r.externalId, null);
  }
  const active = new Set(records.map((r) => r.externalId));
  const reasons = new Map<string, string>();

  // Reject only direct failures (cycle members, unknown parents) per pass: a rejected record that
  // is stored falls back to its stored parent, which may make its batch children valid again.
  for (;;) {
    const { depth, problem, direct } = evaluate(parents, active, reasons);
    const failedDirectly = [...active].filter((id) => direct.has(id));
    const failed = failedDirectly.length > 0 ? failedDirectly : [...active].filter((id) => problem.has(id));
    if (failed.length === 0) {
      const accepted = records.filter((r) => active.has(r.externalId));
      const order = [...accepted]
        .sort((a, b) => depth.get(a.externalId)! - depth.get(b.externalId)! || a.index - b.index)
        .map((r) => r.index);
      const rejected = new Map(records.filter((r) => reasons.has(r.externalId)).map((r) => [r.index, reasons.get(r.externalId)!]));
      return { order, rejected };
    }
    for (const id of failed) {
      reasons.set(id, problem.get(id)!);
      active.delete(id);
      // A rejected record keeps what is stored; a rejected new record does not exist.
      if (stored.has(id)) parents.set(id, stored.get(id)!);
      else parents.delete(id);
    }
  }
}

type Fate = { depth: number } | { problem: string };

/** Depth of every node reachable from `starts`, or why it cannot be placed. */
function evaluate(
  parents: ReadonlyMap<string, string | null>,
  starts: ReadonlySet<string>,
  rejectedBefore: ReadonlyMap<string, string>,
): { depth: Map<string, number>; problem: Map<string, string>; direct: Set<string> } {
  const depth = new Map<string, number>();
  const problem = new Map<string, string>();
  const direct = new Set<string>();
  for (const start of starts) {
    let path: string[] = [];
    const onPath = new Map<string, number>();
    let node = start;
    let fate: Fate; // the fate of path[path.length - 1]'s parent, or of that node itself
    for (;;) {
      const known = depth.get(node);
      if (known !== undefined) {
        fate = { depth: known };
        break;
      }
      if (problem.has(node)) {
        fate = { problem: `parent ${node} is rejected` };
        break;
      }
      const seenAt = onPath.get(node);
      if (seenAt !== undefined) {
        const cycle = path.slice(seenAt);
        const message = `circular reference: ${[...cycle, node].join(' → ')}`;
        for (const member of cycle) {
          problem.set(member, message);
          direct.add(member);
        }
        path = path.slice(0, seenAt);
        fate = { problem: `parent ${node} is in a circular reference` };
        break;
      }
      onPath.set(node, path.length);
      path.push(node);
      const parent = parents.get(node);
      if (parent === null || parent === undefined) {
        fate = { depth: -1 };
        break;
      }
      if (!parents.has(parent)) {
        path.pop();
        direct.add(node);
        problem.set(node, rejectedBefore.has(parent) ? `parent ${parent} is rejected` : `unknown parent ${parent}`);
        fate = { problem: `parent ${node} is rejected` };
        break;
      }
      node = parent;
    }
    for (let i = path.length - 1; i >= 0; i--) {
      const id = path[i]!;
      if ('depth' in fate) {
        depth.set(id, fate.depth + 1);
        fate = { depth: fate.depth + 1 };
      } else {
        problem.set(id, fate.problem);
        fate = { problem: `parent ${id} is rejected` };
      }
    }
  }
  return { depth, problem, direct };
}
