/** PDF → markdown of its text: one paragraph per text block, pages separated by a rule. */
export async function pdfToMarkdown(bytes: Buffer): Promise<{ markdown: string; title: string | null }> {
  const { extractText, getDocumentProxy, getMeta } = await import('unpdf');
  const doc = await getDocumentProxy(new Uint8Array(bytes));
  const { text } = await extractText(doc, { mergePages: false });
  let title: string | null;
  try {
    const meta = await getMeta(doc);
    const t = (meta.info as Record<string, unknown> | undefined)?.Title;
    title = typeof t === 'string' && t.trim() ? t.trim() : null;
  } catch {
    title = null;
  }
  const pages = (text as string[]).map((p) =>
    p
      .split(/\n\s*\n/)
      .map((para) => para.replace(/\s*\n\s*/g, ' ').trim())
      .filter(Boolean)
      .join('\n\n'),
  );
  return { markdown: pages.filter(Boolean).join('\n\n---\n\n'), title };
}
