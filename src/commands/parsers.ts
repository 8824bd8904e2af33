// Flag value parsers, for commander's argParser: each returns the typed value, or throws the sentence
// commander prints after "option '…' argument '…' is invalid.". Ranges are checked here, once.
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../duration.js';

export const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number => {
    const t = value.trim();
    if (!/^\d{1,15}$/.test(t) || Number(t) < min || Number(t) > max) {
      const range = max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : min > 0 ? ` of at least ${min}` : '';
      throw new InvalidArgumentError(`Give a whole number${range}.`);
    }
    return Number(t);
  };
/** The longest --timeout: a day (Node fires a timer set beyond 24.8 days at once, which would time every request out). */
export const MAX_TIMEOUT_SECONDS = 86_400;
export const positiveSeconds = (value: string) => {
  const t = value.trim();
  if (!/^\d{1,9}(\.\d{1,9})?$/.test(t) || !(Number(t) > 0) || Number(t) > MAX_TIMEOUT_SECONDS) {
    throw new InvalidArgumentError(`Give a number of seconds above 0, at most ${MAX_TIMEOUT_SECONDS} (a day).`);
  }
  return Number(t);
};
export const duration = (flag: string) => (value: string) => parseDuration(value, flag);
/** `ok, alias` → ['ok', 'alias']: names trimmed and lower-cased, empty ones dropped. */
export const statusList = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

