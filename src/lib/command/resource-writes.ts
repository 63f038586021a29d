// create and update verbs, from a resource's schema. Apart from resource.ts because the schemas
// bring zod, which the read verbs must not load (start-up time).
import type { Command } from 'commander';
import { UsageError } from './errors.js';
import { addAttributeFlags, collectAttributes, requireAll, type Shape } from './flags.js';
import type { Invoke } from './registry.js';
import { parseId, runWrite, type ResourceInfo } from './resource.js';

/** create: flags (or --data) to a POST; every missing required flag named at once. */
export function configureCreate(cmd: Command, info: ResourceInfo, shape: Shape, invoke: Invoke): void {
  addAttributeFlags(cmd, shape, { create: true });
  cmd.action((opts: Record<string, unknown>, command: Command) =>
    invoke(command, async (deps) => {
      const attributes = await collectAttributes(opts, shape, deps.io);
      requireAll(shape, attributes);
      await runWrite(deps, { method: 'POST', path: info.path, type: info.type, attributes, done: `created ${info.noun}` });
    }),
  );
}

/** update ID: the given flags (or --data) to a PATCH; attributes left out keep their value. */
export function configureUpdate(cmd: Command, info: ResourceInfo, shape: Shape, invoke: Invoke): void {
  cmd.argument('<id>', `${info.noun} id`);
  addAttributeFlags(cmd, shape, { create: false });
  cmd.action((idText: string, opts: Record<string, unknown>, command: Command) =>
    invoke(command, async (deps) => {
      const id = parseId(idText);
      const attributes = await collectAttributes(opts, shape, deps.io);
      if (Object.keys(attributes).length === 0) throw new UsageError(`nothing to change: give at least one flag (see billing ${command.parent?.name()} update --help)`);
      await runWrite(deps, { method: 'PATCH', path: `${info.path}/${id}`, type: info.type, id, attributes, done: `updated ${info.noun}` });
    }),
  );
}
