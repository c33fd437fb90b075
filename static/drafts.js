// Table Companion: what a phone keeps for its tables, in one place. The drafts of deal forms
// (app.js: what is typed survives a reload; outbox.js: a refused write put back into the form)
// and the outbox's writes (outbox.js) live in localStorage under keys only this file knows.
// Storage refused (private mode, full): a draft is a comfort, not a promise, so it is dropped;
// the outbox keeps its writes in memory for the life of the page.
(() => {
  "use strict";

  const OUTBOX = "outbox:v1";
  const storage = () => window.localStorage;
  const draftPrefix = (table) => "draft:" + table + ":";
  const draftKey = (table, number) => draftPrefix(table) + number;

  // A deal form's draft: the [name, value] pairs typed for deal `number`, or null.
  function readDraft(table, number) {
    try {
      const pairs = JSON.parse(storage().getItem(draftKey(table, number)));
      return Array.isArray(pairs) ? pairs : null;
    } catch (e) { return null; }
  }
  // Pairs to keep for deal `number`; null (or none) forgets its draft.
  function writeDraft(table, number, pairs) {
    try {
      if (pairs && pairs.length) storage().setItem(draftKey(table, number), JSON.stringify(pairs));
      else storage().removeItem(draftKey(table, number));
    } catch (e) { /* no storage: the draft is not kept */ }
  }
  const forgetDraft = (table, number) => writeDraft(table, number, null);
  // Deals before `number` are recorded: their drafts are done with.
  function forgetDraftsBefore(table, number) {
    const prefix = draftPrefix(table);
    try {
      const store = storage();
      for (let i = store.length - 1; i >= 0; i--) {
        const key = store.key(i);
        if (key && key.startsWith(prefix) && parseInt(key.slice(prefix.length), 10) < number) store.removeItem(key);
      }
    } catch (e) { /* no storage */ }
  }

  // The outbox: its writes, oldest first.
  let memory = null;
  function outboxItems() {
    if (memory) return memory.slice();
    try {
      const items = JSON.parse(storage().getItem(OUTBOX) || "[]");
      return Array.isArray(items) ? items : [];
    } catch (e) { return []; }
  }
  function keepOutbox(items) {
    try {
      if (items.length) storage().setItem(OUTBOX, JSON.stringify(items)); else storage().removeItem(OUTBOX);
      memory = null;
    } catch (e) { memory = items.slice(); }
  }
  // Another page of this phone changed the outbox (a storage event with this key).
  const isOutboxKey = (key) => key === OUTBOX;

  window.phoneStore = { readDraft, writeDraft, forgetDraft, forgetDraftsBefore, outboxItems, keepOutbox, isOutboxKey };
})();
