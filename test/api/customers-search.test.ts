// Finding people the way support types them (filter[search]): every word, in any order, case and
// accents aside, in the name, company, email, IBAN or phone; best first. On both engines.
import { describe, expect, it } from 'vitest';
import { testCore } from '../helpers/store.js';
import { TestClock, createCustomer, customerBody, send } from './support.js';

const PEOPLE = [
  { first_name: 'Jeroen', middle_name: 'van der', last_name: 'Geer', email: 'jeroen@geer.example' },
  { first_name: 'Anouk', last_name: 'de Graaf', email: 'anouk.degraaf@mail.example', telephone: '+31 6 1234 5678' },
  { first_name: 'Zoë', last_name: 'Ångström', email: 'zoe@example.org', company_name: 'Fjord Bakkerij BV' },
  {
    first_name: 'Klaus',
    last_name: 'Groß',
    email: 'k.gross@example.de',
    iban: 'DE89370400440532013000',
    bank_holder: 'K. Groß',
  },
  { first_name: 'Geert', last_name: 'Jeroensen', email: 'geert@example.com', telephone: '010-123 45 67' },
  { first_name: 'Sean', last_name: "O'Brien", email: 'sean@obrien.example' },
  { first_name: 'Jeroen', last_name: 'Bakker', email: 'jb@example.com' },
];

async function setUp() {
  const core = await testCore({ clock: new TestClock() });
  const ids: Record<string, number> = {};
  for (const person of PEOPLE) ids[person.last_name] = Number(await createCustomer(core, person));
  const search = async (text: string): Promise<string[]> => {
    const answer = await send(core, 'GET', '/customers', { query: `filter[search]=${encodeURIComponent(text)}` });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.meta.total).toBe(answer.body.data.length);
    return answer.body.data.map((c: { attributes: { last_name: string } }) => c.attributes.last_name);
  };
  return { core, ids, search };
}

describe('filter[search] finds people the way support types them', () => {
  it('finds by the name as the name column shows it, by part of it, in any order and any case', async () => {
    const { search } = await setUp();
    expect(await search('Jeroen van der Geer')).toEqual(['Geer']);
    expect(await search('van der geer')).toEqual(['Geer']);
    // Both words whole (Jeroen van der Geer) before both words starting words (Geert Jeroensen).
    expect(await search('GEER JEROEN')).toEqual(['Geer', 'Jeroensen']);
    expect(await search('de Graaf')).toEqual(['de Graaf']);
    expect(await search("o'brien")).toEqual(["O'Brien"]);
    expect(await search('obrien')).toEqual(["O'Brien"]);
    expect(await search('jeroen nobody')).toEqual([]);
    // Nothing but separators: no word to find, so no one (not every customer).
    expect(await search('" ,')).toEqual([]);
  });

  it('takes accents and special letters as their plain letters, both ways', async () => {
    const { search } = await setUp();
    expect(await search('zoe')).toEqual(['Ångström']);
    expect(await search('Zoë angstrom')).toEqual(['Ångström']);
    expect(await search('gross')).toEqual(['Groß']);
    expect(await search('groß')).toEqual(['Groß']);
  });

  it('finds by company, by email or part of it', async () => {
    const { search } = await setUp();
    expect(await search('fjord bakkerij')).toEqual(['Ångström']);
    expect(await search('anouk.degraaf@mail.example')).toEqual(['de Graaf']);
    expect(await search('mail.example')).toEqual(['de Graaf']);
  });

  it('finds by the last 4 digits or the whole of an IBAN, grouped or not', async () => {
    const { search } = await setUp();
    expect(await search('3000')).toEqual(['Groß']);
    expect(await search('DE89 3704 0044 0532 0130 00')).toEqual(['Groß']);
    expect(await search('de89370400440532013000')).toEqual(['Groß']);
  });

  it('finds by a phone number in any spacing, international or national', async () => {
    const { search } = await setUp();
    for (const typed of [
      '+31 6 1234 5678',
      '+31612345678',
      '0031 6 12345678',
      '06-12345678',
      '06 1234 5678',
      '12345678',
    ])
      expect(await search(typed), typed).toEqual(['de Graaf']);
    expect(await search('010 1234567')).toEqual(['Jeroensen']);
  });

  it('ranks best first: the whole name, then names that start so, then words that start so, then the rest', async () => {
    const { search } = await setUp();
    // Jeroen Bakker and Jeroen van der Geer start with it (by name), Geert Jeroensen has a word that
    // starts with it, and the Bakker email holds it nowhere else.
    expect(await search('jeroen')).toEqual(['Bakker', 'Geer', 'Jeroensen']);
    expect(await search('jeroen bakker')).toEqual(['Bakker']);
    expect(await search('bakker')).toEqual(['Bakker', 'Ångström']);
  });

  it('reads the first ranks in order, page by page, as the ranking of every match orders them', async () => {
    const core = await testCore({ clock: new TestClock() });
    // Names that start with "anna" fall either side of the whole name "anna" (` | ` sorts between
    // a space and a letter), and a page may span the two ranks and both sides.
    const names = [
      ['Anna', 'Zwart'],
      ['Annabel', 'Jong'],
      ['Anna', 'de Vries'],
      ['Anna', 'Bakker'],
      ['Anna-Lena', 'Smit'],
      ['Annemiek', 'Visser'],
      ['Jan', 'Anna'],
      ['Anna', 'Bakker'],
    ];
    for (const [first_name, last_name] of names)
      await createCustomer(core, {
        first_name,
        last_name,
        email: `${first_name}.${last_name.replace(' ', '')}@x.example`,
      });
    // The ranking of every match (a condition beside the search takes that way), read whole.
    const whole = await send(core, 'GET', '/customers', {
      query: 'filter[search]=anna&filter[archived]=false&page[size]=100',
    });
    const expected = whole.body.data.map((c: { id: string }) => c.id);
    expect(whole.body.data.map((c: any) => `${c.attributes.first_name} ${c.attributes.last_name}`)).toEqual([
      'Anna Bakker',
      'Anna Bakker',
      'Anna de Vries',
      'Anna Zwart',
      'Anna-Lena Smit',
      'Annabel Jong',
      'Jan Anna',
    ]);
    for (const size of [1, 2, 3, 5]) {
      const got: string[] = [];
      for (let number = 1; number <= Math.ceil(expected.length / size); number++) {
        const answer = await send(core, 'GET', '/customers', {
          query: `filter[search]=anna&page[size]=${size}&page[number]=${number}`,
        });
        expect(answer.body.meta.total).toBe(expected.length);
        got.push(...answer.body.data.map((c: { id: string }) => c.id));
      }
      expect(got, `page size ${size}`).toEqual(expected);
    }
  });

  it('follows a change of name, email, IBAN or phone, and ranks alike with a sort asked for instead', async () => {
    const { core, ids, search } = await setUp();
    const id = ids['Groß'];
    const answer = await send(core, 'PATCH', `/customers/${id}`, {
      body: customerBody({ last_name: 'Weiß', email: 'klaus@weiss.example', telephone: '+49 30 1234567' }, id),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await search('gross')).toEqual([]);
    expect(await search('klaus weiss')).toEqual(['Weiß']);
    expect(await search('030 1234567')).toEqual(['Weiß']);
    const sorted = await send(core, 'GET', '/customers', { query: 'filter[search]=jeroen&sort=-last_name' });
    expect(sorted.body.data.map((c: { attributes: { last_name: string } }) => c.attributes.last_name)).toEqual([
      'Jeroensen',
      'Geer',
      'Bakker',
    ]);
  });
});
