// Tables for people. Loaded only for table output (cli-table3 is not on the --json path).
import Table from 'cli-table3';
import { columnsFor, type ResourceLike } from './columns.js';
import { formatValue } from './format.js';

const plain = { head: [] as string[], border: [] as string[] };
// Rows without separator lines between them: lists stay one line per resource.
const compact = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

export function resourceTable(resource: ResourceLike, color: boolean, idLabel = 'id'): string {
  const table = new Table({ chars: compact, style: color ? { head: ['cyan'], border: ['grey'] } : plain });
  table.push({ [idLabel]: resource.id });
  for (const [name, value] of Object.entries(resource.attributes ?? {})) table.push({ [name]: formatValue(name, value) });
  for (const [name, relationship] of Object.entries(resource.relationships ?? {})) {
    const data = relationship.data;
    if (data === undefined) continue;
    const shown = data === null ? '' : Array.isArray(data) ? data.map((d: { id: string }) => d.id).join(', ') : (data as { id: string }).id;
    table.push({ [name]: shown });
  }
  return `${table.toString()}\n`;
}

export function listTable(resources: ResourceLike[], type: string, color: boolean): string {
  const columns = columnsFor(type, resources[0]);
  const table = new Table({ head: columns.map((c) => c.header), chars: compact, style: color ? { head: ['cyan'], border: ['grey'] } : plain });
  for (const resource of resources) table.push(columns.map((c) => c.value(resource)));
  return `${table.toString()}\n`;
}
