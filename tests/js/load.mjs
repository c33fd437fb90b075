// Loads the phone's page scripts (static/*.js, each an IIFE that sets a window.* name) into a
// fresh Node context: `window` is the context itself, `localStorage` a Map-backed stand-in
// (or one that refuses every write, as a phone in private mode may).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

const STATIC = fileURLToPath(new URL("../../static/", import.meta.url));

export function memoryStorage() {
  const data = new Map();
  return {
    get length() { return data.size; },
    key: (i) => [...data.keys()][i] ?? null,
    getItem: (key) => (data.has(key) ? data.get(key) : null),
    setItem: (key, value) => { data.set(key, String(value)); },
    removeItem: (key) => { data.delete(key); },
    clear: () => data.clear(),
  };
}

export function refusingStorage() {
  const storage = memoryStorage();
  storage.setItem = () => { throw new Error("QuotaExceededError"); };
  return storage;
}

export function load(files, { localStorage = memoryStorage() } = {}) {
  const context = vm.createContext({ localStorage });
  context.window = context;
  for (const file of files) vm.runInContext(readFileSync(STATIC + file, "utf8"), context, { filename: file });
  return context;
}
