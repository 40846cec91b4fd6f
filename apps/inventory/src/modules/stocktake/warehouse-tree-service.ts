import { sql } from 'drizzle-orm';
import { companyCondition, queryRows, type UseCaseContext } from '@wms/platform';
import type { TreeNode, TreeQuery } from './schemas.js';

/**
 * GET /api/v1/warehouse/tree (spec 4.6 rule 7, contract §8): the location tree built from the stock rows'
 * locations in the caller's scope, nodes { name, full_path, children } sorted by name. `prefixes` (comma
 * list) keeps the top-level nodes whose name or full path starts with one of them, each with its whole subtree.
 */
export async function warehouseTree(ctx: UseCaseContext, query: TreeQuery): Promise<TreeNode[]> {
  const company = companyCondition(ctx.scope(query.company), sql.raw('m.company_name'));
  const locations = await ctx.read((q) =>
    queryRows<{ location: string }>(
      q,
      sql`select distinct s.warehouse_location as location from stock_rows s join materials m on m.id = s.base_id
           where s.warehouse_location <> '' ${company ? sql`and ${company}` : sql``}`,
    ),
  );
  const roots = buildTree(locations.map((row) => row.location));
  const prefixes = (query.prefixes ?? '').split(',').map((prefix) => prefix.trim()).filter(Boolean);
  if (prefixes.length === 0) return roots;
  return roots.filter((node) => prefixes.some((prefix) => node.name.startsWith(prefix) || node.full_path.startsWith(prefix)));
}

export function buildTree(locations: readonly string[]): TreeNode[] {
  const roots: TreeNode[] = [];
  const byPath = new Map<string, TreeNode>();
  for (const location of locations) {
    let siblings = roots;
    let path = '';
    for (const name of location.split('/')) {
      path = path ? `${path}/${name}` : name;
      let node = byPath.get(path);
      if (!node) {
        node = { name, full_path: path, children: [] };
        byPath.set(path, node);
        siblings.push(node);
      }
      siblings = node.children;
    }
  }
  sortTree(roots);
  return roots;
}

function sortTree(nodes: TreeNode[]): void {
  nodes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const node of nodes) sortTree(node.children);
}
