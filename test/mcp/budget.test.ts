/** Token budgets of the MCP tools: cuts on paragraph boundaries, continuation offsets, shares, JSON trimming. */
import { describe, expect, it } from 'vitest';
import { cutText, shareBudget, tokensToChars, trimJson } from '../../src/mcp/budget.js';

const paragraphs = (n: number) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i + 1} says something of its own, in a sentence or two of prose.`);

describe('cutText', () => {
  it('returns short text whole', () => {
    expect(cutText('# Title\n\nShort.', 100)).toEqual({ text: '# Title\n\nShort.', truncated: false, totalChars: 15 });
  });

  it('cuts at the last paragraph boundary within the budget and says where to go on', () => {
    const md = paragraphs(20).join('\n\n');
    const cut = cutText(md, 400);
    expect(cut.truncated).toBe(true);
    expect(cut.text.length).toBeLessThanOrEqual(400);
    expect(cut.text.length).toBeGreaterThan(200);
    expect(cut.text.endsWith('prose.')).toBe(true);
    // The next part starts exactly at the next paragraph, nothing skipped, nothing repeated.
    const next = cutText(md, 400, cut.nextOffset);
    expect(next.text.startsWith('Paragraph ')).toBe(true);
    expect(`${cut.text}\n\n${next.text}`).toBe(md.slice(0, cut.nextOffset! + next.text.length));
  });

  it('reads a whole text in parts by following nextOffset', () => {
    const md = paragraphs(50).join('\n\n');
    const parts: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const c = cutText(md, 500, offset);
      parts.push(c.text);
      offset = c.nextOffset;
    }
    expect(parts.length).toBeGreaterThan(5);
    expect(parts.join('\n\n')).toBe(md);
  });

  it('falls back to a line, a sentence, then a word boundary, and closes a code fence it cut into', () => {
    const oneParagraph =
      'First sentence is here. Second sentence follows it. Third one ends the run of words without any break at all';
    const c = cutText(oneParagraph, 60);
    expect(c.text).toBe('First sentence is here. Second sentence follows it.');
    const words = 'word '.repeat(100);
    expect(cutText(words, 52).text).toMatch(/^(word ){9}word$/);
    const code = `Intro.\n\n\`\`\`js\n${'const x = 1;\n'.repeat(40)}\`\`\`\n\nAfter.`;
    const inFence = cutText(code, 200);
    expect(inFence.text.endsWith('\n```')).toBe(true);
    expect((inFence.text.match(/```/g) ?? []).length).toBe(2);
  });

  it('never splits a surrogate pair on a hard cut', () => {
    const emoji = '😀'.repeat(100);
    const c = cutText(emoji, 51);
    expect(c.text).toBe('😀'.repeat(25));
    expect(c.nextOffset).toBe(50);
  });
});

describe('shareBudget', () => {
  it('gives short texts what they need and splits the rest evenly', () => {
    expect(shareBudget([100, 5000, 5000], 3100)).toEqual([100, 1500, 1500]);
    expect(shareBudget([10, 20], 1000)).toEqual([10, 20]);
    expect(shareBudget([500, 500], -5)).toEqual([0, 0]);
  });
});

describe('trimJson', () => {
  it('leaves JSON that fits alone, and cuts long strings then long lists to fit, saying so', () => {
    const small = { a: 1, b: 'x' };
    expect(trimJson(small, 100)).toEqual({ value: small, notes: [] });
    const big = {
      description: paragraphs(200).join('\n\n'),
      images: Array.from({ length: 300 }, (_, i) => `https://img.example/${i}.jpg`),
    };
    const t = trimJson(big, tokensToChars(1000));
    expect(JSON.stringify(t.value).length).toBeLessThanOrEqual(4000);
    const v = t.value as { description: string; images: string[] };
    expect(v.description).toMatch(/…\[cut: \d+ characters in all\]$/);
    expect(v.images.length).toBeLessThan(300);
    expect(v.images[0]).toBe('https://img.example/0.jpg');
    expect(t.notes.join(' ')).toMatch(/long text cut/);
    expect(t.notes.join(' ')).toMatch(/images: first \d+ of 300 items shown/);
  });
});
