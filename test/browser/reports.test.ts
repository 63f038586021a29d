// The reports' page in a real browser (Debian's headless Chromium through playwright-core, as the
// customers' pages are tested): `billing reports all --html FILE` on a store of the run's engine
// with a few months of history, opened from the file with scripts off. It asks for nothing beyond
// the file, its screenshot is not blank, every report has a chart drawn, and every figure in its
// tables is the one `billing reports NAME --json` prints.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/core/clock.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { simulateOutcome } from '../../src/lib/core/transaction-writes.js';
import { freshStoreLocation } from '../helpers/engine.js';
import { tempDir, testCore } from '../helpers/store.js';
import { context, createCustomer, makePlan, send } from '../api/support.js';
import { cli } from '../cli/harness.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const WAIT_MS = 15_000;
const REPORTS = ['mrr', 'subscriptions', 'collections', 'revenue', 'vat', 'overdue'];

let browser: Browser;
beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium); the browser tests need it`,
    );
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: WAIT_MS });
});
afterAll(async () => {
  await browser?.close();
});

const doc = (type: string, attributes: Record<string, unknown>, id?: string) => ({
  data: { type, ...(id ? { id } : {}), attributes },
});

/** Four months of two plans, a pause, a cancellation, invoices at two rates (one credited, one overdue), a charge-back. */
async function history(location: string): Promise<void> {
  const core = await testCore({ dbPath: location, clock: fixedClock('2026-09-10T09:00:00.000Z') });
  const ctx = await context(core);
  const plans = [
    await makePlan(core, { name: 'Monthly', amount: '12.50', frequency: 'monthly' }),
    await makePlan(core, { name: 'Weekly', amount: '17.50', frequency: 'weekly' }),
  ];
  const subs: string[] = [];
  for (let i = 1; i <= 4; i++) {
    const customer = await createCustomer(core, {
      first_name: `First${i}`,
      last_name: `Last${i}`,
      email: `c${i}@example.com`,
    });
    const made = await send(core, 'POST', '/subscriptions', {
      body: doc('subscription', {
        customer_id: customer,
        subscription_plan_id: plans[i % 2],
        status: 'active',
        mandate_accepted: true,
        mandate_accepted_date: '2026-09-10',
      }),
    });
    subs.push(made.body.data.id);
  }
  const invoice = async (sub: string) => {
    const made = await send(core, 'POST', '/invoices', { body: doc('invoice', { subscription_id: sub }) });
    for (const [amount, rate] of [
      ['45.00', '21'],
      ['3.50', '9'],
    ])
      await send(core, 'POST', '/invoice-lines', {
        body: doc('invoice-line', {
          invoice_id: Number(made.body.data.id),
          description: 'Item',
          amount,
          tax_rate: rate,
        }),
      });
    await send(core, 'PATCH', `/invoices/${made.body.data.id}/finalise`);
    return made.body.data.id as string;
  };
  const first = await invoice(subs[0]);
  await setClock(core, '2026-10-20T09:00:00.000Z');
  const tx = (
    (await send(core, 'GET', `/subscriptions/${subs[1]}/transactions`)).body.data as {
      id: string;
      attributes: { status: string };
    }[]
  ).find((t) => t.attributes.status === 'fulfilled')!;
  await simulateOutcome(ctx, tx.id, 'charged_back', 'AM04');
  await send(core, 'PATCH', `/subscriptions/${subs[2]}`, { body: doc('subscription', { status: 'paused' }, subs[2]) });
  await invoice(subs[2]); // on a paused subscription: nothing collects it, it stays open (overdue)
  await invoice(subs[3]);
  await setClock(core, '2026-11-25T09:00:00.000Z');
  const credit = await send(core, 'POST', `/invoices/${first}/credit`);
  await send(core, 'PATCH', `/invoices/${credit.body.data.id}/finalise`);
  await send(core, 'PATCH', `/subscriptions/${subs[3]}`, {
    body: doc('subscription', { status: 'cancelled' }, subs[3]),
  });
  await setClock(core, '2026-12-28T09:00:00.000Z');
  await core.store.close();
}

describe('the reports page in a browser', () => {
  it('is drawn (a screenshot that is not blank), asks for nothing else, and shows the figures of --json', async () => {
    const location = await freshStoreLocation();
    await history(location);
    const run = cli(location);
    const path = join(tempDir(), 'reports.html');
    const written = await run.run(['reports', 'all', '--from', '2026-09-01', '--html', path]);
    expect(written.code, written.stderr).toBe(0);

    const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    page.setDefaultTimeout(WAIT_MS);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`file://${path}`);
    expect(requested).toEqual([`file://${path}`]);
    expect(await page.title()).toBe('Reports');

    // Not blank: the screenshot, decoded by the browser itself, has many colours and ink on a good share of it.
    const png = await page.screenshot({ fullPage: true });
    const looker = await (await browser.newContext({ javaScriptEnabled: true })).newPage();
    const seen = await looker.evaluate(async (data) => {
      const image = new Image();
      image.src = `data:image/png;base64,${data}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      [canvas.width, canvas.height] = [image.width, image.height];
      const drawing = canvas.getContext('2d')!;
      drawing.drawImage(image, 0, 0);
      const pixels = drawing.getImageData(0, 0, image.width, image.height).data;
      const colours = new Set<number>();
      let inked = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        colours.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
        if (pixels[i] + pixels[i + 1] + pixels[i + 2] < 600) inked++;
      }
      return { colours: colours.size, inked: inked / (pixels.length / 4), height: image.height };
    }, png.toString('base64'));
    expect(seen.colours).toBeGreaterThan(50);
    expect(seen.inked).toBeGreaterThan(0.02);
    expect(seen.height).toBeGreaterThan(2000);

    for (const name of REPORTS) {
      const section = page.locator(`section[data-report="${name}"]`);
      // A chart: an SVG with marks drawn in it.
      expect(await section.locator('figure svg path, figure svg rect').count(), name).toBeGreaterThan(5);
      const json = JSON.parse(
        (await run.run(['reports', name, ...(name === 'overdue' ? [] : ['--from', '2026-09-01']), '--json'])).stdout,
      );
      for (const table of ['data', 'reasons', 'customers'].filter((t) => json[t] !== undefined)) {
        const shown = await section
          .locator(`table[data-table="${table}"] tbody tr`)
          .evaluateAll((rows) =>
            rows
              .filter((row) => row.querySelector('td[data-column]'))
              .map((row) =>
                Object.fromEntries(
                  [...row.querySelectorAll('td[data-column]')].map((cell) => [
                    cell.getAttribute('data-column'),
                    cell.getAttribute('data-value'),
                  ]),
                ),
              ),
          );
        const expected = (json[table] as Record<string, unknown>[]).map((row) =>
          Object.fromEntries(
            Object.entries(row).map(([key, value]) => [key, value === null ? '' : String(value as string | number)]),
          ),
        );
        expect(shown, `${name} ${table}`).toEqual(expected);
        expect(expected.length, `${name} ${table} has rows`).toBeGreaterThan(0);
      }
    }
    // The figures as people read them, beside their values: money with separators, shares in percent.
    const mrr = page.locator('section[data-report="mrr"] td[data-column="mrr"]').last();
    expect(await mrr.getAttribute('data-value')).toMatch(/^\d+\.\d\d$/);
    await page.context().close();
    await looker.context().close();
  }, 180_000);
});
