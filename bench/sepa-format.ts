// The SEPA format layer alone, measured in one run, each side in a process of its own so its peak
// RSS is its own:
//   write: 100,000 debits (4 blocks, names needing transliteration, a BIC on every other one)
//          written by writePain008 to /dev/null through a stream, awaiting drain (backpressure);
//   read:  a camt.054.001.02 of 100,000 booked entries (made first, to a temporary file, by the
//          tests' generator) read by readBankReport from a file stream.
// It prints debits (entries) per second by wall clock and by CPU, and the process's peak RSS.
// The core's own bench (bench/collections.ts) adds the store's reads and writes to these.
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBankReport } from '../src/lib/sepa/reports.js';
import { writePain008, type Pain008Block, type Pain008Debit } from '../src/lib/sepa/pain008.js';
import { writeCamt } from '../test/helpers/bank-reports.js';
import { figure, info, start } from './advance.js';

const SELF = fileURLToPath(import.meta.url);
const COUNT = Number(process.env.BENCH_SEPA_COUNT ?? 100_000);
const NAMES = ['Jan Jansen', 'Zoë Ångström', 'Jürgen Groß', 'Søren Ærø', 'Łukasz Żółć', 'Marie-Claire'];

function debits(from: number, count: number): Iterable<Pain008Debit> {
  return {
    *[Symbol.iterator]() {
      for (let n = from; n < from + count; n++) {
        yield {
          endToEndId: `BENCH-${n}`,
          amountCents: 100 + (n % 50_000),
          mandateId: `MNDT-${n}`,
          mandateSignedOn: '2025-06-01',
          debtorName: `${NAMES[n % NAMES.length]} ${n}`,
          debtorIban: 'NL91ABNA0417164300',
          debtorBic: n % 2 ? 'ABNANL2A' : null,
          remittance: `Invoice INV-${n} — monthly box`,
        };
      }
    },
  };
}

const sumOf = (from: number, count: number) => {
  let sum = 0;
  for (let n = from; n < from + count; n++) sum += 100 + (n % 50_000);
  return sum;
};

/** Resolves once the stream took the chunk, or drained when it would not. */
const writer = (stream: NodeJS.WritableStream) => (chunk: string) =>
  stream.write(chunk) ? undefined : new Promise<void>((resolve) => stream.once('drain', () => resolve()));

async function measure(what: () => Promise<void>): Promise<{ wall: number; cpu: number; rss: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await what();
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1e6, rss: process.resourceUsage().maxRSS / 1024 };
}

async function write(): Promise<void> {
  const perBlock = COUNT / 4;
  const blocks: Pain008Block[] = ['FRST', 'RCUR', 'RCUR', 'OOFF'].map((seq, i) => ({
    paymentInfoId: `BENCH-${i + 1}`,
    sequenceType: seq as Pain008Block['sequenceType'],
    collectionDate: '2026-12-03',
    count: perBlock,
    controlSumCents: sumOf(i * perBlock, perBlock),
    debits: debits(i * perBlock, perBlock),
  }));
  const out = createWriteStream('/dev/null');
  const m = await measure(() =>
    writePain008(
      {
        messageId: 'BENCH',
        createdAt: '2026-12-01T09:00:00',
        count: COUNT,
        controlSumCents: sumOf(0, COUNT),
        initiatingPartyName: 'Bench',
        creditor: { name: 'Bench Club', iban: 'NL91ABNA0417164300', creditorId: 'NL57ZZZ999999999999' },
        blocks,
      },
      'pain.008.001.02',
      writer(out),
    ),
  );
  await new Promise((resolve) => out.end(resolve));
  console.log(JSON.stringify(m));
}

async function read(file: string): Promise<void> {
  let entries = 0;
  const m = await measure(async () => {
    entries = (await readBankReport(createReadStream(file))).entries.length;
  });
  if (entries !== COUNT) throw new Error(`read ${entries} entries, not ${COUNT}`);
  console.log(JSON.stringify(m));
}

/** Items per second by wall clock (against the target) and by CPU (what a loaded machine hides). */
function rate(name: string, m: { wall: number; cpu: number }, target: number): void {
  const perSecond = (seconds: number) => Math.round(COUNT / seconds).toLocaleString('en');
  figure(`${name} (wall)`, perSecond(m.wall), `≥ ${target.toLocaleString('en')}`, COUNT / m.wall >= target);
  info(`${name} (CPU)`, perSecond(m.cpu));
}

function child(args: string[]): { wall: number; cpu: number; rss: number } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', SELF, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (run.status !== 0) throw new Error(`bench child ${args.join(' ')} failed (${run.status})`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as { wall: number; cpu: number; rss: number };
}

start(async () => {
  const [mode, file] = process.argv.slice(2);
  if (mode === 'write') return write();
  if (mode === 'read') return read(file);

  console.log(`SEPA format layer, ${COUNT.toLocaleString('en')} debits / entries`);
  const w = child(['write']);
  rate('pain.008 written, debits/s', w, 20_000);
  figure('pain.008 writer, peak RSS MB', w.rss.toFixed(0), '≤ 200', w.rss <= 200);

  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-sepa-'));
  try {
    const camt = join(dir, 'camt054.xml');
    const out = createWriteStream(camt);
    const booked = (function* () {
      for (let n = 0; n < COUNT; n++)
        yield { endToEndId: `BENCH-${n}`, amountCents: 100 + (n % 50_000), messageId: 'BENCH' };
    })();
    await writeCamt({ bookedOn: '2026-12-03', booked }, writer(out));
    await new Promise((resolve) => out.end(resolve));
    info('camt.054 size, MB', (statSync(camt).size / 1024 / 1024).toFixed(0));
    const r = child(['read', camt]);
    rate('camt.054 read, entries/s', r, 10_000);
    info('camt.054 reader, peak RSS MB', r.rss.toFixed(0));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
