// A phone's storage (static/drafts.js): deal drafts and the outbox, one owner for both.
import assert from "node:assert/strict";
import { test } from "node:test";
import { load, memoryStorage, refusingStorage } from "./load.mjs";

const plain = (value) => JSON.parse(JSON.stringify(value));
const TABLE = "abcdefghijklmnop", OTHER = "qrstuvwxyz012345";

test("a draft is kept per table and deal, and forgotten when empty", () => {
  const localStorage = memoryStorage();
  const S = load(["drafts.js"], { localStorage }).phoneStore;
  S.writeDraft(TABLE, 3, [["chips-0", "4"], ["tricks-0", "5"]]);
  assert.deepEqual(plain(S.readDraft(TABLE, 3)), [["chips-0", "4"], ["tricks-0", "5"]]);
  assert.equal(S.readDraft(TABLE, 4), null);
  assert.equal(S.readDraft(OTHER, 3), null);
  S.writeDraft(TABLE, 3, []);
  assert.equal(S.readDraft(TABLE, 3), null);
  assert.equal(localStorage.length, 0);
});

test("drafts of recorded deals go, later ones and other tables' stay", () => {
  const localStorage = memoryStorage();
  const S = load(["drafts.js"], { localStorage }).phoneStore;
  for (const n of [1, 2, 9, 10]) S.writeDraft(TABLE, n, [["n", String(n)]]);
  S.writeDraft(OTHER, 1, [["n", "1"]]);
  localStorage.setItem("tc:bid-mode", "number");  // not a draft
  S.forgetDraftsBefore(TABLE, 10);
  assert.deepEqual([1, 2, 9, 10].map((n) => S.readDraft(TABLE, n) !== null), [false, false, false, true]);
  assert.notEqual(S.readDraft(OTHER, 1), null);
  assert.equal(localStorage.getItem("tc:bid-mode"), "number");
});

test("a damaged draft reads as none", () => {
  const localStorage = memoryStorage();
  const S = load(["drafts.js"], { localStorage }).phoneStore;
  localStorage.setItem(`draft:${TABLE}:1`, "{not json");
  assert.equal(S.readDraft(TABLE, 1), null);
  localStorage.setItem(`draft:${TABLE}:1`, '{"a": 1}');
  assert.equal(S.readDraft(TABLE, 1), null);
});

test("the outbox survives the page (another page of the phone sees it)", () => {
  const localStorage = memoryStorage();
  const S = load(["drafts.js"], { localStorage }).phoneStore;
  S.keepOutbox([{ id: "a" }, { id: "b" }]);
  const again = load(["drafts.js"], { localStorage }).phoneStore;
  assert.deepEqual(plain(again.outboxItems()).map((it) => it.id), ["a", "b"]);
  again.keepOutbox([]);
  assert.equal(localStorage.length, 0);
  assert.ok(S.isOutboxKey("outbox:v1") && !S.isOutboxKey(`draft:${TABLE}:1`));
});

test("storage refused (private mode, full): the outbox is kept in memory, drafts are dropped", () => {
  const S = load(["drafts.js"], { localStorage: refusingStorage() }).phoneStore;
  S.keepOutbox([{ id: "a" }]);
  assert.deepEqual(plain(S.outboxItems()), [{ id: "a" }]);
  const copy = S.outboxItems();
  copy.push({ id: "b" });
  assert.equal(S.outboxItems().length, 1, "callers get a copy");
  S.writeDraft(TABLE, 1, [["a", "1"]]);
  assert.equal(S.readDraft(TABLE, 1), null);
});

test("the outbox and drafts work together through outbox_queue.js", () => {
  const page = load(["drafts.js", "outbox_queue.js"]);
  const { phoneStore: S, outboxQueue: Q } = page;
  S.keepOutbox(Q.withItem(S.outboxItems(), { id: "a", table: TABLE, state: "waiting" }));
  S.keepOutbox(Q.withItem(S.outboxItems(), { id: "b", table: TABLE, state: "waiting" }));
  assert.equal(Q.nextToSend(S.outboxItems(), {}).id, "a");
  S.keepOutbox(Q.without(S.outboxItems(), "a"));
  assert.equal(Q.nextToSend(S.outboxItems(), {}).id, "b");
});
