/** The CLI's screenshot files: named as what their bytes are (a PNG over the byte cap comes as a JPEG). */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileWriter } from '../../src/cli/scrape-options.js';

describe('trawl scrape --screenshot FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-cli-files-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the page to FILE, or beside it under the extension of what came (a JPEG for page.png)', async () => {
    const png = fileWriter(join(dir, 'a.png'), true);
    expect((await png.save(Buffer.from('png'), 'png')).ref).toBe(join(dir, 'a.png'));
    expect((await png.save(Buffer.from('png'), 'png')).ref).toBe(join(dir, 'a-action-1.png'));
    const jpeg = fileWriter(join(dir, 'b.png'), true);
    expect((await jpeg.save(Buffer.from('jpeg'), 'jpeg')).ref).toBe(join(dir, 'b.jpeg'));
    expect((await jpeg.save(Buffer.from('jpeg'), 'jpeg')).ref).toBe(join(dir, 'b-action-1.jpeg'));
    expect(existsSync(join(dir, 'b.png'))).toBe(false);
    const jpg = fileWriter(join(dir, 'c.jpg'), true);
    expect((await jpg.save(Buffer.from('jpeg'), 'jpeg')).ref).toBe(join(dir, 'c.jpg'));
  });
});
