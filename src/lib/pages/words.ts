// The pages' words in the five languages customers have (customers.language), and the way each
// writes money, dates and rates. Money is formatted from integer cents by string work only.
import type { Frequency } from '../core/schedule.js';
import { formatAmount } from '../schemas/money.js';

export const PAGE_LANGUAGES = ['nl', 'en', 'nl-be', 'de', 'fr'] as const;
export type Lang = (typeof PAGE_LANGUAGES)[number];

/** A customer's language as one the pages speak (Dutch when unknown). */
export const pageLanguage = (language: string | null | undefined): Lang =>
  (PAGE_LANGUAGES as readonly string[]).includes(language ?? '') ? (language as Lang) : 'nl';

/**
 * The language of a page that knows no customer (an error page): the first of Accept-Language the
 * pages speak, else Dutch. `nl-BE` is Belgian Dutch; any other `nl-*` Dutch, `de-*` German, ...
 */
export function languageFromHeader(header: string | undefined): Lang {
  if (!header) return 'nl';
  const ranked = header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
      return { tag: tag.trim(), q: q ? Number(q[1]) : 1, index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    if (tag === 'nl-be') return 'nl-be';
    const primary = tag.split('-')[0];
    if (primary === 'nl' || primary === 'en' || primary === 'de' || primary === 'fr') return primary;
  }
  return 'nl';
}

const NBSP = '\u00a0';

/** Digits (a non-negative integer's) in groups of three. */
function grouped(digits: string, separator: string): string {
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += separator;
    out += digits[i];
  }
  return out;
}

/** Cents as `<units><decimal><two digits>` with grouped units, cut from the digits (formatAmount): exact for every safe integer. */
function number(cents: number, group: string, decimal: string): string {
  const [units, hundredths] = formatAmount(Math.abs(cents)).split('.');
  return `${grouped(units, group)}${decimal}${hundredths}`;
}

/** Flemish writes the months as Dutch does. */
const DUTCH_MONTHS = [
  'januari',
  'februari',
  'maart',
  'april',
  'mei',
  'juni',
  'juli',
  'augustus',
  'september',
  'oktober',
  'november',
  'december',
];

const MONTHS: Record<Lang, readonly string[]> = {
  nl: DUTCH_MONTHS,
  'nl-be': DUTCH_MONTHS,
  en: [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ],
  de: [
    'Januar',
    'Februar',
    'März',
    'April',
    'Mai',
    'Juni',
    'Juli',
    'August',
    'September',
    'Oktober',
    'November',
    'Dezember',
  ],
  fr: [
    'janvier',
    'février',
    'mars',
    'avril',
    'mai',
    'juin',
    'juillet',
    'août',
    'septembre',
    'octobre',
    'novembre',
    'décembre',
  ],
};

export interface Formats {
  /** The `lang` attribute of the page. */
  htmlLang: string;
  money(cents: number): string;
  /** A local day, YYYY-MM-DD, written out. */
  date(day: string): string;
  /** A rate in hundredths of a percent (2100, 950) as a percentage. */
  rate(hundredths: number): string;
}

function rateText(hundredths: number, decimal: string, space: string): string {
  const [whole, digits] = formatAmount(Math.abs(hundredths)).split('.');
  const fraction = digits.replace(/0+$/, '');
  return `${hundredths < 0 ? '-' : ''}${whole}${fraction ? decimal + fraction : ''}${space}%`;
}

function dateText(lang: Lang, day: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return day;
  const [, y, m, d] = match;
  const month = MONTHS[lang][Number(m) - 1];
  const dayNumber = Number(d);
  if (lang === 'de') return `${dayNumber}. ${month} ${y}`;
  if (lang === 'fr') return `${dayNumber === 1 ? '1er' : dayNumber} ${month} ${y}`;
  return `${dayNumber} ${month} ${y}`;
}

export const FORMATS: Record<Lang, Formats> = {
  // Dutch: € 1.234,56 and € -1.234,56
  nl: {
    htmlLang: 'nl',
    money: (c) => `€${NBSP}${c < 0 ? '-' : ''}${number(c, '.', ',')}`,
    date: (d) => dateText('nl', d),
    rate: (r) => rateText(r, ',', ''),
  },
  'nl-be': {
    htmlLang: 'nl-BE',
    money: (c) => `€${NBSP}${c < 0 ? '-' : ''}${number(c, '.', ',')}`,
    date: (d) => dateText('nl-be', d),
    rate: (r) => rateText(r, ',', ''),
  },
  // English: €1,234.56 and -€1,234.56
  en: {
    htmlLang: 'en',
    money: (c) => `${c < 0 ? '-' : ''}€${number(c, ',', '.')}`,
    date: (d) => dateText('en', d),
    rate: (r) => rateText(r, '.', ''),
  },
  // German: 1.234,56 € and -1.234,56 €
  de: {
    htmlLang: 'de',
    money: (c) => `${c < 0 ? '-' : ''}${number(c, '.', ',')}${NBSP}€`,
    date: (d) => dateText('de', d),
    rate: (r) => rateText(r, ',', NBSP),
  },
  // French: 1 234,56 € (non-breaking spaces) and -1 234,56 €
  fr: {
    htmlLang: 'fr',
    money: (c) => `${c < 0 ? '-' : ''}${number(c, NBSP, ',')}${NBSP}€`,
    date: (d) => dateText('fr', d),
    rate: (r) => rateText(r, ',', NBSP),
  },
};

export interface MandateWords {
  title: string;
  intro: string;
  creditor: string;
  customer: string;
  company: string;
  account: string;
  plan: string;
  amount: string;
  frequency: string;
  startDate: string;
  mandateCode: string;
  terms: string;
  /** The SEPA core direct-debit mandate text; `recurring` false for a one-off collection. */
  sepa(creditor: string, recurring: boolean): string;
  /** For a customer who pays by card: what accepting authorises. */
  card(creditor: string, recurring: boolean): string;
  accept: string;
  acceptedTitle: string;
  accepted(date: string): string;
  thanksTitle: string;
  thanks: string;
  cancelledTitle: string;
  cancelled: string;
  expiredTitle: string;
  expired: string;
  backToForm: string;
  frequencies: Record<Frequency, string>;
}

export const MANDATE: Record<Lang, MandateWords> = {
  nl: {
    title: 'Machtiging voor automatische incasso',
    intro: 'Controleer de gegevens hieronder en geef akkoord op de machtiging.',
    creditor: 'Incassant',
    customer: 'Naam',
    company: 'Bedrijf',
    account: 'Rekeningnummer (IBAN)',
    plan: 'Abonnement',
    amount: 'Bedrag',
    frequency: 'Frequentie',
    startDate: 'Ingangsdatum',
    mandateCode: 'Kenmerk machtiging',
    terms: 'Voorwaarden',
    sepa: (c, recurring) =>
      `Door akkoord te geven op deze machtiging geeft u toestemming aan ${c} om ${recurring ? 'doorlopende' : 'een eenmalige'} incasso-opdracht${recurring ? 'en' : ''} te sturen naar uw bank om een bedrag van uw rekening af te schrijven en aan uw bank om ${recurring ? 'doorlopend ' : 'eenmalig '}een bedrag van uw rekening af te schrijven overeenkomstig de opdracht van ${c}. Als u het niet eens bent met deze afschrijving kunt u deze laten terugboeken. Neem hiervoor binnen 8 weken na afschrijving contact op met uw bank. Vraag uw bank naar de voorwaarden.`,
    card: (c, recurring) =>
      `Door akkoord te geven machtigt u ${c} om ${recurring ? 'periodiek' : 'eenmalig'} het hierboven genoemde bedrag van uw creditcard af te schrijven.`,
    accept: 'Ik ga akkoord met de machtiging',
    acceptedTitle: 'Machtiging al gegeven',
    accepted: (d) => `U hebt deze machtiging op ${d} gegeven. U hoeft niets meer te doen.`,
    thanksTitle: 'Bedankt',
    thanks: 'Uw machtiging is ontvangen. U hoeft niets meer te doen.',
    cancelledTitle: 'Abonnement beëindigd',
    cancelled: 'Dit abonnement is beëindigd; de machtiging kan niet meer worden gegeven.',
    expiredTitle: 'Formulier verlopen',
    expired:
      'Het formulier kon niet worden gecontroleerd. Open de pagina opnieuw en probeer het nog eens. Er is niets gewijzigd.',
    backToForm: 'Terug naar de machtiging',
    frequencies: {
      weekly: 'per week',
      monthly: 'per maand',
      quarterly: 'per kwartaal',
      half_yearly: 'per halfjaar',
      yearly: 'per jaar',
      once: 'eenmalig',
    },
  },
  'nl-be': {
    title: 'Mandaat voor Europese domiciliëring',
    intro: 'Controleer de gegevens hieronder en keur het mandaat goed.',
    creditor: 'Schuldeiser',
    customer: 'Naam',
    company: 'Onderneming',
    account: 'Rekeningnummer (IBAN)',
    plan: 'Abonnement',
    amount: 'Bedrag',
    frequency: 'Frequentie',
    startDate: 'Begindatum',
    mandateCode: 'Referentie van het mandaat',
    terms: 'Voorwaarden',
    sepa: (c, recurring) =>
      `Door dit mandaat goed te keuren, geeft u toestemming aan (A) ${c} om ${recurring ? 'herhaaldelijk ' : 'eenmalig '}een opdracht naar uw bank te sturen om uw rekening te debiteren en (B) uw bank om uw rekening te debiteren overeenkomstig de opdracht van ${c}. U hebt het recht om door uw bank terugbetaald te worden overeenkomstig de voorwaarden van de met uw bank gesloten overeenkomst. Het verzoek tot terugbetaling moet worden ingediend binnen 8 weken vanaf de datum waarop het bedrag van uw rekening werd gedebiteerd.`,
    card: (c, recurring) =>
      `Door goed te keuren geeft u ${c} de toestemming om ${recurring ? 'periodiek' : 'eenmalig'} het hierboven vermelde bedrag van uw kredietkaart af te schrijven.`,
    accept: 'Ik keur het mandaat goed',
    acceptedTitle: 'Mandaat al goedgekeurd',
    accepted: (d) => `U hebt dit mandaat op ${d} goedgekeurd. U hoeft niets meer te doen.`,
    thanksTitle: 'Dank u',
    thanks: 'Uw mandaat werd ontvangen. U hoeft niets meer te doen.',
    cancelledTitle: 'Abonnement beëindigd',
    cancelled: 'Dit abonnement werd beëindigd; het mandaat kan niet meer worden goedgekeurd.',
    expiredTitle: 'Formulier verlopen',
    expired:
      'Het formulier kon niet worden gecontroleerd. Open de pagina opnieuw en probeer het nog eens. Er werd niets gewijzigd.',
    backToForm: 'Terug naar het mandaat',
    frequencies: {
      weekly: 'per week',
      monthly: 'per maand',
      quarterly: 'per kwartaal',
      half_yearly: 'per halfjaar',
      yearly: 'per jaar',
      once: 'eenmalig',
    },
  },
  en: {
    title: 'Direct debit mandate',
    intro: 'Please check the details below and accept the mandate.',
    creditor: 'Creditor',
    customer: 'Name',
    company: 'Company',
    account: 'Account (IBAN)',
    plan: 'Subscription',
    amount: 'Amount',
    frequency: 'Frequency',
    startDate: 'Start date',
    mandateCode: 'Mandate reference',
    terms: 'Terms',
    sepa: (c, recurring) =>
      `By accepting this mandate, you authorise (A) ${c} to send ${recurring ? 'recurring ' : 'one-off '}instructions to your bank to debit your account and (B) your bank to debit your account in accordance with the instructions from ${c}. As part of your rights, you are entitled to a refund from your bank under the terms and conditions of your agreement with your bank. A refund must be claimed within 8 weeks starting from the date on which your account was debited.`,
    card: (c, recurring) =>
      `By accepting, you authorise ${c} to charge the amount above to your credit card ${recurring ? 'at every period' : 'once'}.`,
    accept: 'I accept the mandate',
    acceptedTitle: 'Mandate already accepted',
    accepted: (d) => `You accepted this mandate on ${d}. There is nothing more to do.`,
    thanksTitle: 'Thank you',
    thanks: 'Your mandate has been received. There is nothing more to do.',
    cancelledTitle: 'Subscription ended',
    cancelled: 'This subscription has been cancelled; its mandate can no longer be accepted.',
    expiredTitle: 'Form expired',
    expired: 'The form could not be verified. Please open the page again and retry. Nothing was changed.',
    backToForm: 'Back to the mandate',
    frequencies: {
      weekly: 'per week',
      monthly: 'per month',
      quarterly: 'per quarter',
      half_yearly: 'every six months',
      yearly: 'per year',
      once: 'once',
    },
  },
  de: {
    title: 'SEPA-Lastschriftmandat',
    intro: 'Bitte prüfen Sie die folgenden Angaben und erteilen Sie das Mandat.',
    creditor: 'Zahlungsempfänger',
    customer: 'Name',
    company: 'Firma',
    account: 'Konto (IBAN)',
    plan: 'Abonnement',
    amount: 'Betrag',
    frequency: 'Häufigkeit',
    startDate: 'Beginn',
    mandateCode: 'Mandatsreferenz',
    terms: 'Bedingungen',
    sepa: (c, recurring) =>
      `Ich ermächtige ${c}, ${recurring ? 'wiederkehrende Zahlungen' : 'eine einmalige Zahlung'} von meinem Konto mittels Lastschrift einzuziehen. Zugleich weise ich mein Kreditinstitut an, die von ${c} auf mein Konto gezogenen Lastschriften einzulösen. Hinweis: Ich kann innerhalb von acht Wochen, beginnend mit dem Belastungsdatum, die Erstattung des belasteten Betrages verlangen. Es gelten dabei die mit meinem Kreditinstitut vereinbarten Bedingungen.`,
    card: (c, recurring) =>
      `Ich ermächtige ${c}, den oben genannten Betrag ${recurring ? 'regelmäßig' : 'einmalig'} meiner Kreditkarte zu belasten.`,
    accept: 'Mandat erteilen',
    acceptedTitle: 'Mandat bereits erteilt',
    accepted: (d) => `Sie haben dieses Mandat am ${d} erteilt. Sie müssen nichts weiter tun.`,
    thanksTitle: 'Vielen Dank',
    thanks: 'Ihr Mandat ist eingegangen. Sie müssen nichts weiter tun.',
    cancelledTitle: 'Abonnement beendet',
    cancelled: 'Dieses Abonnement wurde gekündigt; das Mandat kann nicht mehr erteilt werden.',
    expiredTitle: 'Formular abgelaufen',
    expired:
      'Das Formular konnte nicht geprüft werden. Bitte öffnen Sie die Seite erneut und versuchen Sie es noch einmal. Es wurde nichts geändert.',
    backToForm: 'Zurück zum Mandat',
    frequencies: {
      weekly: 'wöchentlich',
      monthly: 'monatlich',
      quarterly: 'vierteljährlich',
      half_yearly: 'halbjährlich',
      yearly: 'jährlich',
      once: 'einmalig',
    },
  },
  fr: {
    title: 'Mandat de prélèvement SEPA',
    intro: 'Veuillez vérifier les informations ci-dessous et accepter le mandat.',
    creditor: 'Créancier',
    customer: 'Nom',
    company: 'Société',
    account: 'Compte (IBAN)',
    plan: 'Abonnement',
    amount: 'Montant',
    frequency: 'Fréquence',
    startDate: 'Date de début',
    mandateCode: 'Référence unique du mandat',
    terms: 'Conditions',
    sepa: (c, recurring) =>
      `En acceptant ce mandat, vous autorisez (A) ${c} à envoyer des instructions à votre banque pour débiter votre compte${recurring ? ' de façon récurrente' : ' une seule fois'}, et (B) votre banque à débiter votre compte conformément aux instructions de ${c}. Vous bénéficiez du droit d'être remboursé par votre banque selon les conditions décrites dans la convention que vous avez passée avec elle. Une demande de remboursement doit être présentée dans les 8 semaines suivant la date de débit de votre compte pour un prélèvement autorisé.`,
    card: (c, recurring) =>
      `En acceptant, vous autorisez ${c} à débiter le montant ci-dessus de votre carte de crédit ${recurring ? 'à chaque échéance' : 'une seule fois'}.`,
    accept: "J'accepte le mandat",
    acceptedTitle: 'Mandat déjà accepté',
    accepted: (d) => `Vous avez accepté ce mandat le ${d}. Vous n'avez plus rien à faire.`,
    thanksTitle: 'Merci',
    thanks: "Votre mandat a bien été reçu. Vous n'avez plus rien à faire.",
    cancelledTitle: 'Abonnement résilié',
    cancelled: 'Cet abonnement a été résilié ; son mandat ne peut plus être accepté.',
    expiredTitle: 'Formulaire expiré',
    expired: "Le formulaire n'a pas pu être vérifié. Veuillez rouvrir la page et réessayer. Rien n'a été modifié.",
    backToForm: 'Retour au mandat',
    frequencies: {
      weekly: 'par semaine',
      monthly: 'par mois',
      quarterly: 'par trimestre',
      half_yearly: 'par semestre',
      yearly: 'par an',
      once: 'une seule fois',
    },
  },
};

export interface InvoiceWords {
  invoice: string;
  creditNote: string;
  creditFor(reference: string): string;
  reference: string;
  invoiceDate: string;
  dueDate: string;
  status: string;
  billedTo: string;
  vatNumber: string;
  description: string;
  quantity: string;
  unitPrice: string;
  vatRate: string;
  lineAmount: string;
  subtotal: string;
  /** The VAT of one rate, over its base. */
  vatAt(rate: string, base: string): string;
  vatTotal: string;
  total: string;
  printHint: string;
  statuses: Record<string, string>;
}

export const INVOICE: Record<Lang, InvoiceWords> = {
  nl: {
    invoice: 'Factuur',
    creditNote: 'Creditfactuur',
    creditFor: (r) => `Creditering van factuur ${r}`,
    reference: 'Factuurnummer',
    invoiceDate: 'Factuurdatum',
    dueDate: 'Incassodatum',
    status: 'Status',
    billedTo: 'Aan',
    vatNumber: 'Btw-nummer',
    description: 'Omschrijving',
    quantity: 'Aantal',
    unitPrice: 'Prijs per stuk',
    vatRate: 'Btw',
    lineAmount: 'Bedrag',
    subtotal: 'Totaal excl. btw',
    vatAt: (r, b) => `Btw ${r} over ${b}`,
    vatTotal: 'Totaal btw',
    total: 'Totaal incl. btw',
    printHint: 'Gebruik de afdrukfunctie van uw browser om deze factuur af te drukken of als PDF te bewaren.',
    statuses: {
      draft: 'Concept',
      open: 'Openstaand',
      paid: 'Betaald',
      charged_back: 'Gestorneerd',
      cancelled: 'Geannuleerd',
      completed: 'Afgehandeld',
    },
  },
  'nl-be': {
    invoice: 'Factuur',
    creditNote: 'Creditnota',
    creditFor: (r) => `Creditnota bij factuur ${r}`,
    reference: 'Factuurnummer',
    invoiceDate: 'Factuurdatum',
    dueDate: 'Domiciliëringsdatum',
    status: 'Status',
    billedTo: 'Aan',
    vatNumber: 'Btw-nummer',
    description: 'Omschrijving',
    quantity: 'Aantal',
    unitPrice: 'Eenheidsprijs',
    vatRate: 'Btw',
    lineAmount: 'Bedrag',
    subtotal: 'Totaal excl. btw',
    vatAt: (r, b) => `Btw ${r} op ${b}`,
    vatTotal: 'Totaal btw',
    total: 'Totaal incl. btw',
    printHint: 'Gebruik de afdrukfunctie van uw browser om deze factuur af te drukken of als PDF te bewaren.',
    statuses: {
      draft: 'Ontwerp',
      open: 'Openstaand',
      paid: 'Betaald',
      charged_back: 'Teruggeboekt',
      cancelled: 'Geannuleerd',
      completed: 'Afgehandeld',
    },
  },
  en: {
    invoice: 'Invoice',
    creditNote: 'Credit note',
    creditFor: (r) => `Credit for invoice ${r}`,
    reference: 'Invoice number',
    invoiceDate: 'Invoice date',
    dueDate: 'Collection date',
    status: 'Status',
    billedTo: 'Billed to',
    vatNumber: 'VAT number',
    description: 'Description',
    quantity: 'Quantity',
    unitPrice: 'Unit price',
    vatRate: 'VAT',
    lineAmount: 'Amount',
    subtotal: 'Total excl. VAT',
    vatAt: (r, b) => `VAT ${r} on ${b}`,
    vatTotal: 'Total VAT',
    total: 'Total incl. VAT',
    printHint: "Use your browser's print command to print this invoice or save it as a PDF.",
    statuses: {
      draft: 'Draft',
      open: 'Open',
      paid: 'Paid',
      charged_back: 'Charged back',
      cancelled: 'Cancelled',
      completed: 'Completed',
    },
  },
  de: {
    invoice: 'Rechnung',
    creditNote: 'Gutschrift',
    creditFor: (r) => `Gutschrift zu Rechnung ${r}`,
    reference: 'Rechnungsnummer',
    invoiceDate: 'Rechnungsdatum',
    dueDate: 'Einzugsdatum',
    status: 'Status',
    billedTo: 'An',
    vatNumber: 'USt-IdNr.',
    description: 'Beschreibung',
    quantity: 'Menge',
    unitPrice: 'Einzelpreis',
    vatRate: 'USt.',
    lineAmount: 'Betrag',
    subtotal: 'Summe netto',
    vatAt: (r, b) => `USt. ${r} auf ${b}`,
    vatTotal: 'Summe USt.',
    total: 'Gesamtbetrag brutto',
    printHint: 'Drucken Sie diese Rechnung mit der Druckfunktion Ihres Browsers oder speichern Sie sie als PDF.',
    statuses: {
      draft: 'Entwurf',
      open: 'Offen',
      paid: 'Bezahlt',
      charged_back: 'Rückbelastet',
      cancelled: 'Storniert',
      completed: 'Abgeschlossen',
    },
  },
  fr: {
    invoice: 'Facture',
    creditNote: 'Avoir',
    creditFor: (r) => `Avoir sur la facture ${r}`,
    reference: 'Numéro de facture',
    invoiceDate: 'Date de facture',
    dueDate: 'Date de prélèvement',
    status: 'Statut',
    billedTo: 'Facturé à',
    vatNumber: 'N° de TVA',
    description: 'Désignation',
    quantity: 'Quantité',
    unitPrice: 'Prix unitaire',
    vatRate: 'TVA',
    lineAmount: 'Montant',
    subtotal: 'Total HT',
    vatAt: (r, b) => `TVA ${r} sur ${b}`,
    vatTotal: 'Total TVA',
    total: 'Total TTC',
    printHint:
      'Utilisez la fonction d’impression de votre navigateur pour imprimer cette facture ou l’enregistrer en PDF.',
    statuses: {
      draft: 'Brouillon',
      open: 'À payer',
      paid: 'Payée',
      charged_back: 'Impayée (rejet)',
      cancelled: 'Annulée',
      completed: 'Soldée',
    },
  },
};

export interface ErrorWords {
  notFoundTitle: string;
  notFound: string;
  methodTitle: string;
  method: string;
  tooLargeTitle: string;
  tooLarge: string;
  unsupportedTitle: string;
  unsupported: string;
  failedTitle: string;
  failed: string;
  tooManyTitle: string;
  tooMany: string;
  busyTitle: string;
  busy: string;
}

export const ERRORS: Record<Lang, ErrorWords> = {
  nl: {
    notFoundTitle: 'Pagina niet gevonden',
    notFound: 'Deze pagina bestaat niet. Controleer de link die u hebt ontvangen.',
    methodTitle: 'Niet toegestaan',
    method: 'Deze pagina kan zo niet worden opgevraagd.',
    tooLargeTitle: 'Te groot',
    tooLarge: 'Het formulier is te groot.',
    unsupportedTitle: 'Niet ondersteund',
    unsupported: 'Het formulier is niet in een bekende vorm verstuurd.',
    failedTitle: 'Er ging iets mis',
    failed: 'Probeer het over een ogenblik opnieuw.',
    tooManyTitle: 'Te veel pogingen',
    tooMany: 'Er zijn te veel onjuiste links geprobeerd. Wacht even en open dan de link die u hebt ontvangen.',
    busyTitle: 'Even bezet',
    busy: 'Dit kon nu niet worden vastgelegd; er is niets veranderd. Probeer het over een ogenblik opnieuw.',
  },
  'nl-be': {
    notFoundTitle: 'Pagina niet gevonden',
    notFound: 'Deze pagina bestaat niet. Controleer de link die u ontvangen hebt.',
    methodTitle: 'Niet toegestaan',
    method: 'Deze pagina kan zo niet worden opgevraagd.',
    tooLargeTitle: 'Te groot',
    tooLarge: 'Het formulier is te groot.',
    unsupportedTitle: 'Niet ondersteund',
    unsupported: 'Het formulier werd niet in een gekende vorm verstuurd.',
    failedTitle: 'Er liep iets mis',
    failed: 'Probeer het binnen enkele ogenblikken opnieuw.',
    tooManyTitle: 'Te veel pogingen',
    tooMany: 'Er werden te veel foute links geprobeerd. Wacht even en open dan de link die u ontvangen hebt.',
    busyTitle: 'Even bezet',
    busy: 'Dit kon nu niet geregistreerd worden; er is niets veranderd. Probeer het binnen enkele ogenblikken opnieuw.',
  },
  en: {
    notFoundTitle: 'Page not found',
    notFound: 'This page does not exist. Please check the link you received.',
    methodTitle: 'Not allowed',
    method: 'This page cannot be requested that way.',
    tooLargeTitle: 'Too large',
    tooLarge: 'The form is too large.',
    unsupportedTitle: 'Not supported',
    unsupported: 'The form was not sent in a known format.',
    failedTitle: 'Something went wrong',
    failed: 'Please try again in a moment.',
    tooManyTitle: 'Too many attempts',
    tooMany: 'Too many wrong links were tried. Please wait a moment, then open the link you received.',
    busyTitle: 'Busy right now',
    busy: 'This could not be recorded just now; nothing was changed. Please try again in a moment.',
  },
  de: {
    notFoundTitle: 'Seite nicht gefunden',
    notFound: 'Diese Seite gibt es nicht. Bitte prüfen Sie den erhaltenen Link.',
    methodTitle: 'Nicht erlaubt',
    method: 'Diese Seite kann so nicht abgerufen werden.',
    tooLargeTitle: 'Zu groß',
    tooLarge: 'Das Formular ist zu groß.',
    unsupportedTitle: 'Nicht unterstützt',
    unsupported: 'Das Formular wurde in keinem bekannten Format gesendet.',
    failedTitle: 'Etwas ist schiefgegangen',
    failed: 'Bitte versuchen Sie es gleich noch einmal.',
    tooManyTitle: 'Zu viele Versuche',
    tooMany:
      'Es wurden zu viele falsche Links versucht. Bitte warten Sie kurz und öffnen Sie dann den erhaltenen Link.',
    busyTitle: 'Gerade ausgelastet',
    busy:
      'Das konnte gerade nicht gespeichert werden; es wurde nichts geändert. ' +
      'Bitte versuchen Sie es gleich noch einmal.',
  },
  fr: {
    notFoundTitle: 'Page introuvable',
    notFound: "Cette page n'existe pas. Veuillez vérifier le lien que vous avez reçu.",
    methodTitle: 'Non autorisé',
    method: 'Cette page ne peut pas être demandée de cette façon.',
    tooLargeTitle: 'Trop volumineux',
    tooLarge: 'Le formulaire est trop volumineux.',
    unsupportedTitle: 'Non pris en charge',
    unsupported: "Le formulaire n'a pas été envoyé dans un format connu.",
    failedTitle: 'Une erreur est survenue',
    failed: 'Veuillez réessayer dans un instant.',
    tooManyTitle: 'Trop de tentatives',
    tooMany:
      'Trop de liens erronés ont été essayés. Veuillez patienter un instant, puis ouvrir le lien que vous avez reçu.',
    busyTitle: 'Service occupé',
    busy:
      "Cela n'a pas pu être enregistré pour l'instant ; rien n'a été modifié. " + 'Veuillez réessayer dans un instant.',
  },
};
