// One PostgreSQL server for the whole run (both projects): every test that needs the engine
// makes a database of its own on it. If it cannot start, the run fails here, loudly.
import type { TestProject } from 'vitest/node';
import { startPostgres, type PostgresServer } from './helpers/postgres-server.js';

let server: PostgresServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  server = await startPostgres();
  project.provide('postgresUrl', server.url());
}

export async function teardown(): Promise<void> {
  await server?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}
