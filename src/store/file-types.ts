/** The files the store keeps (screenshots): their types and the shape of their ids. */
export const FILE_TYPES = { png: 'image/png', jpeg: 'image/jpeg' } as const;
export type FileExt = keyof typeof FILE_TYPES;
/** Ids of files: 32 base62 characters, about 190 random bits. */
export const FILE_ID = /^[0-9A-Za-z]{32}$/;
