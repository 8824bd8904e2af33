// Defaults and fixed names, one place each.

export const DEFAULT_BASE_URL = 'https://api.valididentities.com';
export const DEFAULTS = {
  batchSize: 100,
  concurrency: 4,
  timeoutSeconds: 30,
  retries: 3,
  cacheTtl: '7d',
} as const;

export type Kind = 'emails' | 'domains';

export const ENDPOINT: Record<Kind, string> = {
  emails: '/emails/validate',
  domains: '/domains/validate',
};
/** The JSON field of request and response, and the output column name. */
export const FIELD: Record<Kind, string> = { emails: 'emails', domains: 'domains' };
export const COLUMN: Record<Kind, string> = { emails: 'email', domains: 'domain' };
