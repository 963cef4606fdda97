/** Every webhook event body, a monitor's or a job's, stays under this (contract section 5). */
export const MAX_BODY_BYTES = 256 * 1024;
