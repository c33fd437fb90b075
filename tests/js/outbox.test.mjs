// The outbox's rules (static/outbox_queue.js) without a browser: which forms are writes, the
// order writes go in, the backoff, and what each answer from the laptop leads to.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { load } from "./load.mjs";

const Q = load(["outbox_queue.js"]).outboxQueue;
const plain = (value) => JSON.parse(JSON.stringify(value));  // out of the script's own realm
const TABLE = "abcdefghijklmnop", OTHER = "qrstuvwxyz012345";

function write(id, { table = TABLE, kind = "deal", number = 1, state = "waiting", ...rest } = {}) {
  return { id, table, path: `/t/${table}/deals`, kind, number, state,
           fields: [["csrf_token", "t"], ["number", String(number)], ["write_id", id], ["chips-0", "4"]], ...rest };
}

describe("a confirm tap's title names its deal (issue 45)", () => {
  test("one deal, or all", () => {
    const say = (key, n) => key + (n === undefined ? "" : ":" + n);
    assert.equal(Q.titleOf({ kind: "confirm", fields: [["item", "deal-4"]] }, say), "confirmDeal:4");
    assert.equal(Q.titleOf({ kind: "confirm", fields: [["item", "all"]] }, say), "confirm");
  });
});

describe("which paths are writes", () => {
  test("each write of a table, by kind", () => {
    assert.deepEqual(plain(Q.writeOfPath(`/t/${TABLE}/deals`)),
                     { table: TABLE, path: `/t/${TABLE}/deals`, kind: "deal", edits: null });
    assert.deepEqual(plain(Q.writeOfPath(`/t/${TABLE}/deals/12`)),
                     { table: TABLE, path: `/t/${TABLE}/deals/12`, kind: "edit", edits: 12 });
    // Issue 45: confirming another phone's deals, asking for it, and saying what you saw.
    assert.deepEqual(plain(Q.writeOfPath(`/t/${TABLE}/deals/4/dispute`)),
                     { table: TABLE, path: `/t/${TABLE}/deals/4/dispute`, kind: "dispute", edits: 4 });
    for (const [path, kind] of [["undo", "undo"], ["finish", "finish"], ["rematch", "rematch"], ["players", "seat"],
                                ["confirm", "confirm"], ["confirming", "confirming"]]) {
      assert.equal(Q.writeOfPath(`/t/${TABLE}/${path}`).kind, kind);
    }
  });
  test("previews, pages and other sites' paths are not writes", () => {
    for (const path of [`/t/${TABLE}/preview`, `/t/${TABLE}`, `/t/short/deals`, `/t/${TABLE}/deals/1/preview`, "/tables"]) {
      assert.equal(Q.writeOfPath(path), null, path);
    }
  });
});

describe("the queue", () => {
  test("a write sent again replaces its older copy and goes to the end", () => {
    let items = [write("a"), write("b", { number: 2 })];
    items = Q.withItem(items, write("a", { number: 3 }));
    assert.deepEqual(items.map((it) => [it.id, it.number]), [["b", 2], ["a", 3]]);
    assert.deepEqual(Q.without(items, "b").map((it) => it.id), ["a"]);
  });

  test("each table's writes go oldest first, one at a time", () => {
    const items = [write("a", { number: 1 }), write("b", { number: 2 })];
    assert.equal(Q.nextToSend(items, {}).id, "a");
    assert.equal(Q.nextToSend(items, { a: true }), null, "b waits while a is on its way");
  });

  test("a write waiting for the player's choice holds back its table, not the others", () => {
    const items = [write("a", { state: "decide", why: "conflict" }), write("b", { number: 2 }),
                   write("c", { table: OTHER })];
    assert.equal(Q.nextToSend(items, {}).id, "c");
    assert.equal(Q.nextToSend(items, { c: true }), null);
  });

  test("a new write goes behind any other of its table still in the outbox", () => {
    const items = [write("a", { table: OTHER }), write("b")];
    assert.equal(Q.waitingBefore(items, TABLE, "new"), true);
    assert.equal(Q.waitingBefore(items, TABLE, "b"), false, "not behind itself");
    assert.equal(Q.waitingBefore([write("a", { table: OTHER })], TABLE, "new"), false);
  });

  test("after a reload the entry form is for the deal after the last one waiting", () => {
    const items = [write("a", { number: 3 }), write("b", { number: 4 }), write("c", { number: 9, table: OTHER }),
                   write("d", { number: 5, state: "decide" }), write("e", { number: 7, kind: "edit" })];
    assert.equal(Q.lastWaitingDeal(items, TABLE, 3), 4);
    assert.equal(Q.lastWaitingDeal(items, TABLE, 5), 0, "deals before the form's are on the laptop");
  });

  test("changed() changes the one write in place", () => {
    const items = Q.changed([write("a"), write("b")], "b", (it) => { it.note = "busy"; });
    assert.deepEqual(items.map((it) => it.note ?? null), [null, "busy"]);
  });
});

describe("the backoff", () => {
  test("1 s, then twice as long each time, up to 5 s; back to 1 s once reset", () => {
    const middle = Q.backoff(() => 0.5);  // the jitter's middle: the plain delays
    assert.deepEqual([1, 2, 3, 4, 5].map(() => middle.next()), [1000, 2000, 4000, 5000, 5000]);
    middle.reset();
    assert.equal(middle.next(), 1000);
  });
  test("each wait is shaken by at most 20 %", () => {
    const low = Q.backoff(() => 0), high = Q.backoff(() => 0.999999);
    assert.equal(low.next(), 800);
    assert.ok(Math.abs(high.next() - 1200) < 0.01);
    assert.equal(low.next(), 1600);
  });
});

describe("what each answer leads to", () => {
  const deal = write("a"), undo = write("u", { kind: "undo" });
  const sent = (status, extra = {}) => ({ status, ok: status >= 200 && status < 400, ...extra });

  test("sent from the outbox", () => {
    assert.equal(Q.answerTo(deal, sent(200), false), "stored");
    assert.equal(Q.answerTo(deal, sent(303), false), "stored");
    assert.equal(Q.answerTo(deal, sent(400), false), "fresh-token");
    assert.equal(Q.answerTo({ ...deal, freshToken: true }, sent(400), false), "token");
    assert.equal(Q.answerTo(deal, sent(409), false), "conflict");
    assert.equal(Q.answerTo(undo, sent(409), false), "stale");
    assert.equal(Q.answerTo(deal, sent(404), false), "stale");
    assert.equal(Q.answerTo(deal, sent(422), false), "refused");
    assert.equal(Q.answerTo(undo, sent(403), false), "refused");  // a finished match this phone may no longer change
    for (const status of [500, 503, 507]) assert.equal(Q.answerTo(deal, sent(status), false), "later");
  });

  test("the entry form's own Save, whose answer the page shows", () => {
    assert.equal(Q.answerTo(deal, sent(200), true), "stored");
    assert.equal(Q.answerTo(deal, sent(422), true), "stored", "the form shows why, with what was typed");
    assert.equal(Q.answerTo(deal, sent(409, { conflictBox: true }), true), "conflict");
    assert.equal(Q.answerTo(deal, sent(409), true), "stored", "a stale form: the page says so");
    assert.equal(Q.answerTo(deal, sent(400), true), "fresh-token");
    assert.equal(Q.answerTo({ ...deal, freshToken: true }, sent(400), true), "token");
    assert.equal(Q.answerTo(deal, { status: undefined }, true), "stored");
    // The laptop could not save it and says so without swapping anything into the page (its
    // database away or too busy, its disk full, issue 46): kept here and sent again by itself.
    for (const status of [503, 507]) assert.equal(Q.answerTo(deal, sent(status, { swapsNothing: true }), true), "later");
    assert.equal(Q.answerTo(deal, sent(503), true), "stored", "the busy note at the page's foot: the form keeps it");
  });
});

describe("the player's choices", () => {
  test("save mine as the next deal: a new write for that deal", () => {
    const item = Q.toDecide(write("a", { number: 3 }), "conflict", "<div>recorded</div>", null, 4);
    assert.equal(item.state, "decide");
    assert.equal(item.next, 4);
    Q.asNextDeal(item, 4, "new-id");
    assert.deepEqual([item.id, item.number, item.state, item.why, item.next], ["new-id", 4, "waiting", null, null]);
    assert.equal(Q.field(item, "number"), "4");
    assert.equal(Q.field(item, "write_id"), "new-id");
    assert.equal(Q.field(item, "chips-0"), "4", "the values are kept");
  });

  test("a token refused twice is tried again after a reload, other choices stay", () => {
    const items = Q.retryRefusedTokens([Q.toDecide(write("a", { freshToken: true }), "token", "", "refused"),
                                        Q.toDecide(write("b"), "conflict", "box")]);
    assert.deepEqual(items.map((it) => [it.state, it.why, it.freshToken ?? false, it.note]),
                     [["waiting", null, false, null], ["decide", "conflict", false, null]]);
  });

  test("a write's name in the page's words", () => {
    const say = (key, n) => (n === undefined ? key : `${key} ${n}`);
    assert.equal(Q.titleOf(write("a", { number: 3 }), say), "deal 3");
    assert.equal(Q.titleOf(write("a", { kind: "edit", number: 2 }), say), "edit 2");
    assert.equal(Q.titleOf(write("a", { kind: "undo", number: 2 }), say), "undo 2");
    const finish = write("a", { kind: "finish" });
    assert.equal(Q.titleOf(finish, say), "finish");
    Q.setField(finish, "finished", "0");
    assert.equal(Q.titleOf(finish, say), "reopen");
    assert.equal(Q.titleOf(write("a", { kind: "seat" }), say), "seat");
    assert.equal(Q.titleOf(write("a", { kind: "rematch" }), say), "rematch");
  });
});

describe("the next form a live answer brings", () => {
  test("not for a deal this phone is still sending: its form stays past it", () => {
    const items = [write("a", { number: 1 }), write("b", { number: 2 })];
    assert.equal(Q.nextFormFor(items, TABLE, 1, 3, []), "keep");
    assert.equal(Q.nextFormFor(items, TABLE, 2, 3, [1]), "keep");
    assert.equal(Q.nextFormFor([write("b", { number: 2 })], TABLE, 3, 3, [1, 2]), "adopt", "past every waiting deal");
    assert.equal(Q.nextFormFor(items, OTHER, 1, 3, []), "adopt", "another table's writes");
  });
  test("deals this phone sent itself are not told as another phone's", () => {
    assert.equal(Q.nextFormFor([], TABLE, 3, 1, [1, 2]), "quiet");
    assert.equal(Q.nextFormFor([], TABLE, 2, 1, [1]), "quiet");
  });
  test("another phone's deal among them, or the match ended: as it came", () => {
    assert.equal(Q.nextFormFor([], TABLE, 3, 1, [1]), "adopt", "deal 2 was another phone's");
    assert.equal(Q.nextFormFor([], TABLE, 2, 1, []), "adopt");
    assert.equal(Q.nextFormFor([], TABLE, 0, 2, [1, 2]), "adopt", "no next deal: the match ended");
  });
});
