// The demo's customers: Dutch and Belgian households and one company, with real-looking addresses
// and IBANs whose check digits are right (composeIBAN), which POST /customers validates again.
// The first twenty are written out; beyond them (--size) people are drawn from the same kinds of
// names, streets and towns by a generator seeded with the customer's number, so a run is repeatable.
import { composeIBAN } from 'ibantools';

type Kind = 'nl' | 'en' | 'nl-be' | 'fr';

interface Person {
  kind: Kind;
  gender: 'm' | 'f';
  first: string;
  middle: string | null;
  last: string;
  company?: string;
  street: string;
  number: string;
  add?: string;
  postcode: string;
  city: string;
  bank: string;
  account?: string;
}

// The twenty of the default sample, one per story (stories.ts), in story order.
const CAST: Person[] = [
  {
    kind: 'nl',
    gender: 'm',
    first: 'Jeroen',
    middle: 'van der',
    last: 'Geer',
    street: 'Keizersgracht',
    number: '313',
    postcode: '1016 EE',
    city: 'Amsterdam',
    bank: 'ABNA',
    account: '0417164300',
  },
  {
    kind: 'nl-be',
    gender: 'f',
    first: 'Emma',
    middle: null,
    last: 'Janssens',
    street: 'Meir',
    number: '34',
    postcode: '2000',
    city: 'Antwerpen',
    bank: '001',
  },
  {
    kind: 'nl',
    gender: 'f',
    first: 'Sanne',
    middle: null,
    last: 'Bakker',
    street: 'Oudegracht',
    number: '158',
    add: 'A',
    postcode: '3511 AZ',
    city: 'Utrecht',
    bank: 'RABO',
  },
  {
    kind: 'fr',
    gender: 'm',
    first: 'Lucas',
    middle: null,
    last: 'Peeters',
    street: 'Rue Saint-Gilles',
    number: '52',
    postcode: '4000',
    city: 'Liège',
    bank: '068',
  },
  {
    kind: 'en',
    gender: 'm',
    first: 'Daan',
    middle: 'de',
    last: 'Vries',
    street: 'Witte de Withstraat',
    number: '27',
    postcode: '3012 BM',
    city: 'Rotterdam',
    bank: 'INGB',
  },
  {
    kind: 'nl',
    gender: 'm',
    first: 'Noah',
    middle: null,
    last: 'Visser',
    street: 'Herestraat',
    number: '88',
    postcode: '9711 LM',
    city: 'Groningen',
    bank: 'ABNA',
  },
  {
    kind: 'en',
    gender: 'f',
    first: 'Julia',
    middle: 'van',
    last: 'Dijk',
    street: 'Lange Voorhout',
    number: '9',
    postcode: '2514 EA',
    city: 'Den Haag',
    bank: 'TRIO',
  },
  {
    kind: 'fr',
    gender: 'f',
    first: 'Camille',
    middle: null,
    last: 'Dubois',
    street: 'Rue Haute',
    number: '121',
    add: 'bte 3',
    postcode: '1000',
    city: 'Bruxelles',
    bank: '363',
  },
  {
    kind: 'nl',
    gender: 'm',
    first: 'Milan',
    middle: null,
    last: 'Smit',
    company: 'Smit Installatietechniek B.V.',
    street: 'Stratumseind',
    number: '42',
    postcode: '5611 ET',
    city: 'Eindhoven',
    bank: 'BUNQ',
  },
  {
    kind: 'nl',
    gender: 'f',
    first: 'Tess',
    middle: null,
    last: 'Meijer',
    street: 'Grote Houtstraat',
    number: '70',
    postcode: '2011 SR',
    city: 'Haarlem',
    bank: 'SNSB',
  },
  {
    kind: 'nl-be',
    gender: 'm',
    first: 'Thomas',
    middle: null,
    last: 'Claes',
    street: 'Naamsestraat',
    number: '15',
    postcode: '3000',
    city: 'Leuven',
    bank: '735',
  },
  {
    kind: 'nl',
    gender: 'f',
    first: 'Lotte',
    middle: 'de',
    last: 'Jong',
    street: 'Lange Hezelstraat',
    number: '33',
    postcode: '6511 CB',
    city: 'Nijmegen',
    bank: 'ASNB',
  },
  {
    kind: 'nl-be',
    gender: 'm',
    first: 'Bram',
    middle: null,
    last: 'Jacobs',
    street: 'Bruul',
    number: '61',
    postcode: '2800',
    city: 'Mechelen',
    bank: '973',
  },
  {
    kind: 'nl',
    gender: 'f',
    first: 'Fleur',
    middle: null,
    last: 'Mulder',
    street: 'Diezerstraat',
    number: '12',
    add: 'B',
    postcode: '8011 RH',
    city: 'Zwolle',
    bank: 'KNAB',
  },
  {
    kind: 'fr',
    gender: 'f',
    first: 'Sophie',
    middle: null,
    last: 'Lambert',
    street: 'Rue de Fer',
    number: '28',
    postcode: '5000',
    city: 'Namur',
    bank: '001',
  },
  {
    kind: 'nl',
    gender: 'm',
    first: 'Ruben',
    middle: null,
    last: 'Hendriks',
    street: 'Rechtstraat',
    number: '45',
    postcode: '6221 EH',
    city: 'Maastricht',
    bank: 'RABO',
  },
  {
    kind: 'nl-be',
    gender: 'f',
    first: 'Eline',
    middle: null,
    last: 'Wouters',
    street: 'Koning Albertstraat',
    number: '7',
    postcode: '3500',
    city: 'Hasselt',
    bank: '734',
  },
  {
    kind: 'nl',
    gender: 'm',
    first: 'Sem',
    middle: null,
    last: 'Vermeulen',
    street: 'Langestraat',
    number: '101',
    postcode: '3811 AJ',
    city: 'Amersfoort',
    bank: 'INGB',
  },
  {
    kind: 'fr',
    gender: 'f',
    first: 'Manon',
    middle: null,
    last: 'Lefèvre',
    street: 'Rue de Nimy',
    number: '19',
    postcode: '7000',
    city: 'Mons',
    bank: '103',
  },
  {
    kind: 'nl',
    gender: 'm',
    first: 'Pieter',
    middle: null,
    last: 'Bos',
    street: 'Breestraat',
    number: '117',
    postcode: '2311 CK',
    city: 'Leiden',
    bank: 'ABNA',
  },
];

// ---- drawn people (--size beyond the cast) ----

type Named = [string, 'm' | 'f'];
const split = (names: string, gender: 'm' | 'f'): Named[] => names.split(',').map((name) => [name, gender]);

const FIRST: Record<Kind, Named[]> = {
  nl: [
    ...split('Jeroen,Daan,Noah,Milan,Ruben,Sem,Pieter,Bas,Joost,Thijs,Niels,Stijn,Luuk,Wouter,Koen,Jesse', 'm'),
    ...split('Sanne,Julia,Tess,Lotte,Fleur,Anouk,Femke,Lieke,Maud,Roos,Eva,Iris,Sophie,Lisa,Noor,Saar', 'f'),
  ],
  en: [
    ...split('Oliver,James,Daniel,Ravi,Lukas,Mateo,Samuel,Ethan', 'm'),
    ...split('Emily,Hannah,Priya,Sofia,Grace,Chloe,Olivia,Amelia', 'f'),
  ],
  'nl-be': [
    ...split('Thomas,Bram,Arne,Wout,Nand,Mathis,Jens,Kobe,Tibo,Seppe,Warre,Lars', 'm'),
    ...split('Emma,Eline,Jana,Sien,Elise,Lore,Hanne,Ine,Fien,Lotte,Noor,Marie', 'f'),
  ],
  fr: [
    ...split('Lucas,Louis,Hugo,Nathan,Théo,Antoine,Maxime,Arthur,Victor,Jules,Martin,Simon', 'm'),
    ...split('Camille,Sophie,Manon,Chloé,Julie,Léa,Marie,Clara,Élise,Inès,Lucie,Zoé', 'f'),
  ],
};

const LAST: Record<Kind, string[]> = {
  nl: [
    'de Jong',
    'Jansen',
    'de Vries',
    'van den Berg',
    'van Dijk',
    'Bakker',
    'Janssen',
    'Visser',
    'Smit',
    'Meijer',
    'de Boer',
    'Mulder',
    'de Groot',
    'Bos',
    'Vos',
    'Peters',
    'Hendriks',
    'van Leeuwen',
    'Dekker',
    'Brouwer',
    'de Wit',
    'Dijkstra',
    'de Graaf',
    'van der Meer',
    'van der Linden',
    'Kok',
    'de Haan',
    'Vermeulen',
  ],
  en: [
    'Smith',
    'Walker',
    'Clarke',
    'Patel',
    'Becker',
    'Rossi',
    'Garcia',
    'Murphy',
    'Wright',
    'Sharma',
    'Kowalski',
    'Taylor',
  ],
  'nl-be': [
    'Peeters',
    'Janssens',
    'Maes',
    'Jacobs',
    'Mertens',
    'Willems',
    'Claes',
    'Goossens',
    'Wouters',
    'De Smet',
    'Hermans',
    'Aerts',
    'Michiels',
    'Van Damme',
    'De Clercq',
    'Lenaerts',
    'Cools',
    'Verstraeten',
  ],
  fr: [
    'Dubois',
    'Lambert',
    'Dupont',
    'Martin',
    'Simon',
    'Lefèvre',
    'Laurent',
    'Leroy',
    'Renard',
    'Dumont',
    'Denis',
    'Lemaire',
    'Collard',
    'Fontaine',
    'Lejeune',
    'Hubert',
    'Masson',
    'Gérard',
  ],
};

/** Dutch towns and the first two digits' range of their postcodes. */
const NL_TOWNS: [string, number, number][] = [
  ['Amsterdam', 1011, 1109],
  ['Rotterdam', 3011, 3089],
  ['Den Haag', 2491, 2597],
  ['Utrecht', 3511, 3585],
  ['Eindhoven', 5611, 5658],
  ['Groningen', 9711, 9747],
  ['Tilburg', 5011, 5049],
  ['Almere', 1311, 1365],
  ['Breda', 4811, 4839],
  ['Nijmegen', 6511, 6546],
  ['Haarlem', 2011, 2037],
  ['Arnhem', 6811, 6846],
  ['Zwolle', 8011, 8043],
  ['Leiden', 2311, 2334],
  ['Maastricht', 6211, 6229],
  ['Delft', 2611, 2629],
  ['Amersfoort', 3811, 3829],
  ['Apeldoorn', 7311, 7339],
];
const NL_STREETS = [
  'Kerkstraat',
  'Dorpsstraat',
  'Molenstraat',
  'Schoolstraat',
  'Stationsweg',
  'Julianastraat',
  'Wilhelminastraat',
  'Beatrixlaan',
  'Emmalaan',
  'Eikenlaan',
  'Lindelaan',
  'Beukenlaan',
  'Kastanjelaan',
  'Nieuwstraat',
  'Hoofdstraat',
  'Vondelstraat',
  'Rembrandtlaan',
  'Van Goghstraat',
];
// Postcode letters: F, I, O, Q, U and Y are not used, nor the pairs SA, SD and SS.
const NL_LETTERS = [...'ABCDEGHJKLMNPRSTVWXZ'];

const BE_TOWNS: Record<'nl-be' | 'fr', [string, string[]][]> = {
  'nl-be': [
    ['Antwerpen', ['2000', '2018', '2060']],
    ['Gent', ['9000', '9040', '9050']],
    ['Leuven', ['3000', '3010']],
    ['Brugge', ['8000', '8200']],
    ['Mechelen', ['2800']],
    ['Hasselt', ['3500']],
    ['Kortrijk', ['8500']],
    ['Oostende', ['8400']],
    ['Aalst', ['9300']],
    ['Sint-Niklaas', ['9100']],
  ],
  fr: [
    ['Bruxelles', ['1000', '1040', '1050']],
    ['Liège', ['4000', '4020']],
    ['Namur', ['5000']],
    ['Charleroi', ['6000']],
    ['Mons', ['7000']],
    ['Tournai', ['7500']],
    ['Wavre', ['1300']],
    ['Arlon', ['6700']],
    ['Verviers', ['4800']],
  ],
};
const BE_STREETS: Record<'nl-be' | 'fr', string[]> = {
  'nl-be': [
    'Kerkstraat',
    'Stationsstraat',
    'Dorpstraat',
    'Nieuwstraat',
    'Molenstraat',
    'Schoolstraat',
    'Kapelstraat',
    'Veldstraat',
    'Beekstraat',
    'Lindenlaan',
    'Brusselsesteenweg',
    'Kouter',
  ],
  fr: [
    'Rue de la Station',
    "Rue de l'Église",
    'Rue du Moulin',
    'Rue Haute',
    'Chaussée de Bruxelles',
    'Rue des Écoles',
    'Rue Neuve',
    'Place du Marché',
    'Rue du Château',
    'Avenue des Combattants',
  ],
};

const NL_BANKS = ['ABNA', 'RABO', 'INGB', 'TRIO', 'BUNQ', 'SNSB', 'ASNB', 'KNAB', 'RBRB'];
// Belgian bank codes: BNP Paribas Fortis, Belfius, KBC, ING, Argenta, Crelan.
const BE_BANKS = ['001', '068', '735', '363', '973', '103'];
const COMPANY_TRADES = ['Installatietechniek', 'Schilderwerken', 'Advies', 'Bouw', 'Klimaattechniek', 'Elektro'];
const DOMAINS = ['example.com', 'example.net', 'example.org'];

/** A small generator seeded by the customer's number (mulberry32): the same people on every run. */
function generator(seed: number): (n: number) => number {
  let state = (seed * 2654435761) >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const pick = <T>(draw: (n: number) => number, items: readonly T[]): T => items[draw(items.length)];
const digits = (draw: (n: number) => number, count: number): string =>
  Array.from({ length: count }, () => draw(10)).join('');

/** The person of customer `index` (0-based), whose story is `index % CAST.length`: same country and language as the cast member it stands for. */
function personAt(index: number): Person {
  if (index < CAST.length) return CAST[index];
  const like = CAST[index % CAST.length];
  const draw = generator(index);
  const [first, gender] = pick(draw, FIRST[like.kind]);
  const family = pick(draw, LAST[like.kind]);
  // Dutch family names keep their prefix apart (the middle name); Belgian ones write it as part of the name.
  const prefix = like.kind === 'nl' || like.kind === 'en' ? /^((?:[a-z]+ )+)(.+)$/.exec(family) : null;
  const number = String(1 + draw(180));
  const common = {
    kind: like.kind,
    gender,
    first,
    middle: prefix ? prefix[1].trim() : null,
    last: prefix ? prefix[2] : family,
    number,
  };
  if (like.kind === 'nl' || like.kind === 'en') {
    const [city, from, to] = pick(draw, NL_TOWNS);
    let letters = pick(draw, NL_LETTERS) + pick(draw, NL_LETTERS);
    if (letters === 'SA' || letters === 'SD' || letters === 'SS') letters = 'AB';
    const company = like.company ? `${common.last} ${pick(draw, COMPANY_TRADES)} B.V.` : undefined;
    return {
      ...common,
      company,
      street: pick(draw, NL_STREETS),
      add: draw(8) === 0 ? pick(draw, ['A', 'B', 'bis', '1 hoog']) : undefined,
      postcode: `${from + draw(to - from + 1)} ${letters}`,
      city,
      bank: pick(draw, NL_BANKS),
    };
  }
  const [city, postcodes] = pick(draw, BE_TOWNS[like.kind]);
  return {
    ...common,
    street: pick(draw, BE_STREETS[like.kind]),
    add: draw(10) === 0 ? `bte ${1 + draw(12)}` : undefined,
    postcode: pick(draw, postcodes),
    city,
    bank: pick(draw, BE_BANKS),
  };
}

/** A Dutch account number that passes the old eleven test (weights 10 down to 1), as real ones do. */
function dutchAccount(draw: (n: number) => number): string {
  for (;;) {
    const body = digits(draw, 9);
    const sum = [...body].reduce((acc, digit, i) => acc + Number(digit) * (10 - i), 0);
    const check = (11 - (sum % 11)) % 11;
    if (check < 10) return body + check;
  }
}

/** A Belgian BBAN: bank code, seven digits, and the two check digits (mod 97, 97 for 0). */
function belgianBban(bank: string, draw: (n: number) => number): string {
  const ten = bank + digits(draw, 7);
  const check = Number(BigInt(ten) % 97n) || 97;
  return ten + String(check).padStart(2, '0');
}

function ibanOf(person: Person, index: number): string {
  const draw = generator(index + 7919);
  const belgian = person.kind === 'nl-be' || person.kind === 'fr';
  const iban = belgian
    ? composeIBAN({ countryCode: 'BE', bban: belgianBban(person.bank, draw) })
    : composeIBAN({ countryCode: 'NL', bban: person.bank + (person.account ?? dutchAccount(draw)) });
  if (!iban) throw new Error(`demo: no IBAN could be made for ${person.first} ${person.last}`);
  return iban;
}

const plain = (text: string): string =>
  text
    .normalize('NFD')
    .toLowerCase()
    .replace(/[^a-z]/g, '');

function telephone(person: Person, draw: (n: number) => number): string {
  if (person.kind === 'nl-be' || person.kind === 'fr')
    return `+32 4${7 + draw(3)}${draw(10)} ${digits(draw, 2)} ${digits(draw, 2)} ${digits(draw, 2)}`;
  return `+31 6 ${digits(draw, 8)}`;
}

/** The attributes of POST /customers for customer `index`. */
export function customerAttributes(index: number): Record<string, unknown> {
  const person = personAt(index);
  const draw = generator(index + 104729);
  const belgian = person.kind === 'nl-be' || person.kind === 'fr';
  const language = person.kind;
  // Past the cast a number keeps addresses apart, as people with the same name have.
  const email = `${plain(person.first)}.${plain(`${person.middle ?? ''}${person.last}`)}${index < CAST.length ? '' : index}@${person.company ? `${plain(person.last)}.${DOMAINS[index % DOMAINS.length]}` : DOMAINS[index % DOMAINS.length]}`;
  return {
    gender: person.gender,
    first_name: person.first,
    middle_name: person.middle,
    last_name: person.last,
    ...(person.company ? { company_name: person.company, vat_number: vatNumber(draw) } : {}),
    email,
    street: person.street,
    house_number: person.number,
    ...(person.add ? { house_number_add: person.add } : {}),
    postalcode: person.postcode,
    city: person.city,
    country_iso2: belgian ? 'BE' : 'NL',
    language,
    telephone: telephone(person, draw),
    iban: ibanOf(person, index),
    bank_holder: person.company ?? `${person.first[0]}. ${person.middle ? `${person.middle} ` : ''}${person.last}`,
  };
}

/** A Dutch VAT number (btw-id) of the form NL123456789B01. */
const vatNumber = (draw: (n: number) => number): string => `NL${1 + draw(9)}${digits(draw, 8)}B01`;
