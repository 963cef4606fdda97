/** A schema object's shape (API.md section 3): what schema.ts compiles and json-schema.ts reads into. */
export type ScalarType = 'string' | 'number' | 'integer' | 'boolean';
export type SchemaNode = ScalarType | SchemaObject | [SchemaNode];
export interface SchemaObject {
  [field: string]: SchemaNode;
}
