/**
 * What extraction answers: the schema's fields and where each value came from. A module of its
 * own so that the document processor's port can name it without importing the extractor.
 */
export interface ExtractOutput {
  json: Record<string, unknown>;
  sources: Record<string, string>;
}
