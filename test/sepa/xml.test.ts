import xmlbuilder from 'xmlbuilder';
import { describe, expect, it } from 'vitest';
import { indentedWriter, plainStringify } from '../../src/lib/sepa/xml.js';

/** A document written as the pain.008 writer writes it (callback writer, plainStringify). */
function written(build: (doc: ReturnType<typeof xmlbuilder.begin>) => void): string {
  const chunks: string[] = [];
  const doc = xmlbuilder.begin(
    { writer: xmlbuilder.stringWriter({ writer: indentedWriter() }), stringify: plainStringify },
    (chunk: string) => void chunks.push(chunk),
  );
  build(doc);
  doc.end();
  return chunks.join('');
}

describe('plainStringify (the writer stringifier that skips what plain SEPA text does not need)', () => {
  it('writes plain text as it is', () => {
    expect(written((doc) => doc.ele('Ustrd').txt("Box 12/2026 (Zoe-Angstrom), ref: A+B.'x'").up())).toBe(
      "<Ustrd>Box 12/2026 (Zoe-Angstrom), ref: A+B.'x'</Ustrd>",
    );
  });

  it("still escapes and checks any other text, by xmlbuilder's own rules", () => {
    expect(written((doc) => doc.ele('Nm').txt('Tom & <Jerry>\r').up())).toBe('<Nm>Tom &amp; &lt;Jerry&gt;&#xD;</Nm>');
    expect(() => written((doc) => doc.ele('Nm').txt('bell \u0007').up())).toThrow(/Invalid character/);
  });

  it('writes a plain attribute value as it is, and escapes and checks any other', () => {
    expect(written((doc) => doc.ele('InstdAmt', { Ccy: 'EUR' }).txt('12.50').up())).toBe(
      '<InstdAmt Ccy="EUR">12.50</InstdAmt>',
    );
    expect(written((doc) => doc.ele('X', { a: 'Tom & "Jerry" <x>' }).up())).toBe(
      '<X a="Tom &amp; &quot;Jerry&quot; &lt;x>"/>',
    );
    expect(() => written((doc) => doc.ele('X', { a: 'bell \u0007' }).up())).toThrow(/Invalid character/);
  });
});
