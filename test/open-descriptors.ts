// This process's descriptors open on a file, read from /proc/self/fd (the `devices` rule: Linux only), for the
// tests that hold a file is opened once, or closed when a run stops reading.
import { readdirSync, readlinkSync } from 'node:fs';

/** How many of this process's descriptors are open on `path` (other tests' descriptors come and go meanwhile). */
export const openOn = (path: string): number =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile
    }
  }).length;
