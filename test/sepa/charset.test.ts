import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identifierProblem, isEpcLatin, toEpcLatin } from '../../src/lib/sepa/charset.js';

describe('EPC basic Latin character set', () => {
  it('transliterates names in several languages, never dropping a letter', () => {
    const names: Array<[string, string]> = [
      ['Zoë Ångström', 'Zoe Angstrom'],
      ['Groß', 'Gross'],
      ['Søren Kierkegaard', 'Soren Kierkegaard'],
      ['Æbeltoft æble', 'AEbeltoft aeble'],
      ['Łukasz Żółć', 'Lukasz Zolc'],
      ['Antonín Dvořák', 'Antonin Dvorak'],
      ['François Müller-Lüdenscheidt', 'Francois Muller-Ludenscheidt'],
      ['Þóra Guðmundsdóttir', 'Thora Gudmundsdottir'],
      ['İsmail Şahin Çağrı', 'Ismail Sahin Cagri'],
      ['Ðorđe Đoković', 'Dorde Dokovic'],
      ['Œuvre Straße', 'Oeuvre Strasse'],
      ['Νίκος Παπαδόπουλος', 'Nikos Papadopoylos'],
      ['Дмитрий Шостакович', 'Dmitriy Shostakovich'],
      ['José Martínez Núñez', 'Jose Martinez Nunez'],
      ['Zoe\u0308 (decomposed)', 'Zoe (decomposed)'],
    ];
    for (const [name, expected] of names)
      expect(toEpcLatin(name), name).toBe(expected.replace('AEbeltoft', toEpcLatin('Æ') + 'beltoft'));
    expect(toEpcLatin('Æ')).toMatch(/^A[Ee]$/);
  });

  it('maps punctuation the set lacks to its nearest member, and collapses the rest into spaces', () => {
    expect(toEpcLatin('O’Brien “Jr.”')).toBe("O'Brien 'Jr.'");
    expect(toEpcLatin('Smith & Sons_Ltd; box [3]')).toBe('Smith + Sons-Ltd, box (3)');
    expect(toEpcLatin('  Jan\t\tJansen \n ')).toBe('Jan Jansen');
    expect(toEpcLatin('mail@example.com #1 50%')).toBe('mail example.com 1 50');
  });

  it('cuts by characters after transliteration and leaves no space at the cut', () => {
    expect(toEpcLatin('ßßß', 5)).toBe('sssss');
    expect(toEpcLatin('ab cd', 3)).toBe('ab');
    expect(toEpcLatin('Groß'.repeat(40), 70)).toHaveLength(70);
    expect(toEpcLatin('Jan', 70)).toBe('Jan');
  });

  it('always returns text of the set, within the length, trimmed and without double spaces', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.integer({ min: 1, max: 140 }), (text, max) => {
        const out = toEpcLatin(text, max);
        expect(isEpcLatin(out)).toBe(true);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(out).toBe(out.trim());
        expect(out).not.toContain('  ');
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves text already in the set as it is', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9/\-?:().,'+]{1,10}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 8 }), (words) => {
        expect(toEpcLatin(words.join(' '))).toBe(words.join(' '));
      }),
    );
  });

  it('gives every European letter with a diacritic a letter, never a space', () => {
    for (let cp = 0xc0; cp <= 0x17f; cp++) {
      // Latin-1 Supplement and Latin Extended-A: Europe's letters
      const ch = String.fromCodePoint(cp);
      if (!/\p{L}/u.test(ch)) continue;
      expect(toEpcLatin(ch), `U+${cp.toString(16)} ${ch}`).toMatch(/^'?[A-Za-z]+$/); // U+0149 ŉ is 'n
    }
  });

  it('checks identifiers against the EPC rule without changing them', () => {
    expect(identifierProblem('INV-1/2026')).toBeNull();
    expect(identifierProblem('MNDT 12+3')).toBeNull();
    expect(identifierProblem('A'.repeat(35))).toBeNull();
    expect(identifierProblem('')).toMatch(/empty/);
    expect(identifierProblem('A'.repeat(36))).toMatch(/35/);
    expect(identifierProblem('/abc')).toMatch(/'\/'/);
    expect(identifierProblem('abc/')).toMatch(/'\/'/);
    expect(identifierProblem('a//b')).toMatch(/'\/\/'/);
    expect(identifierProblem('Zoë-1')).toMatch(/characters/);
    expect(identifierProblem('a_b')).toMatch(/characters/);
    expect(identifierProblem(' ab')).toMatch(/space/);
  });
});
