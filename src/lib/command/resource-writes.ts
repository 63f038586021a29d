// create and update verbs, from a resource's schema. Apart from resource.ts because the schemas
// bring zod, which the read verbs must not load (start-up time).
import type { Command } from 'commander';
import { addAttributeFlags, collectAttributes, type Shape } from './flags.js';
import { askChanges, askMissing, sendAnswers } from './prompting.js';
import type { Invoke } from './registry.js';
import { parseId, runWrite, send, type ResourceInfo } from './resource.js';

/**
 * create: flags (or --data) to a POST; what is missing is asked for, or named all at once. An
 * answer the service refuses is asked again.
 */
export function configureCreate(cmd: Command, info: ResourceInfo, shape: Shape, invoke: Invoke): void {
  addAttributeFlags(cmd, shape, { create: true });
  cmd.action((opts: Record<string, unknown>, command: Command) =>
    invoke(command, async (deps) => {
      const attributes = await collectAttributes(opts, shape, deps.io);
      const answered = await askMissing(deps, shape, attributes);
      await sendAnswers(deps, shape, attributes, answered, () =>
        runWrite(deps, { method: 'POST', path: info.path, type: info.type, attributes, done: `created ${info.noun}` }),
      );
    }),
  );
}

/**
 * update ID: the given flags (or --data) to a PATCH; attributes left out keep their value. With no
 * flags on a terminal, a person picks what to change and is shown the current values.
 */
export function configureUpdate(cmd: Command, info: ResourceInfo, shape: Shape, invoke: Invoke): void {
  cmd.argument('<id>', `${info.noun} id`);
  addAttributeFlags(cmd, shape, { create: false });
  cmd.action((idText: string, opts: Record<string, unknown>, command: Command) =>
    invoke(command, async (deps) => {
      const id = parseId(idText);
      let attributes = await collectAttributes(opts, shape, deps.io);
      let answered: string[] = [];
      if (Object.keys(attributes).length === 0) {
        const usage = `billing ${command.parent?.name()} update --help`;
        const current = deps.canPrompt
          ? (
              (await send(deps, { method: 'GET', path: `${info.path}/${id}` })).body as {
                data: { attributes?: Record<string, unknown> };
              }
            ).data.attributes
          : {};
        attributes = await askChanges(deps, shape, current ?? {}, usage);
        answered = Object.keys(attributes);
      }
      await sendAnswers(deps, shape, attributes, answered, () =>
        runWrite(deps, {
          method: 'PATCH',
          path: `${info.path}/${id}`,
          type: info.type,
          id,
          attributes,
          done: `updated ${info.noun}`,
        }),
      );
    }),
  );
}
