// What a bundler for the browser gets for `import 'idv'` (package.json's `browser` condition): the same names, so
// that the bundle builds, and one line saying why not when it loads. The service does not answer browsers (its
// CORS policy), and a key shipped to a browser is anyone's.
const SERVER_ONLY = "idv is server-side only: call it from Node (a server, a worker, a script), never from a browser, where the API key would be anyone's.";

const serverOnly = (): never => {
  throw new Error(SERVER_ONLY);
};

serverOnly();

export const validateEmails = serverOnly;
export const validateDomains = serverOnly;
export const readRecords = serverOnly;
export const startSandbox = serverOnly;
export class IdvError extends Error {}
