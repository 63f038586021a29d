// `npm run docs`: writes docs/commands.md, the command line reference, from the commands themselves.
// Run it after changing a command, its options or its help; test/docs.test.ts fails until then.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { commandReference, REFERENCE_PATH } from './command-reference.js';

mkdirSync(dirname(REFERENCE_PATH), { recursive: true });
writeFileSync(REFERENCE_PATH, await commandReference());
console.log(`wrote ${relative(process.cwd(), REFERENCE_PATH)}`);
