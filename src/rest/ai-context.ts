import type { RestRoute } from './route-table';
export function renderAiContext(routes: readonly RestRoute[]): string {
  return routes.map((r) => `${r.method} ${r.path}`).join('\n');
}
