// Table Companion: the outbox's rules, apart from the page (outbox.js is the page's part): which
// forms are writes, the order writes go in, how long to wait before trying again, and what to
// do with each answer the laptop gives. Nothing here touches the page, the network or storage,
// so tests/js/ runs it under Node.
(() => {
  "use strict";

  // The table's writes (templates/tables/): a deal, a correction, undo, finish or reopen,
  // rematch, seating the players, confirming another phone's deals (issue 45) or asking for it. A table token's shape, [A-Za-z0-9_-]{16,64}, is a copy of
  // companion/tokens.py (TOKEN_PATTERN), the one definition; change them together.
  const WRITE = /^\/t\/([A-Za-z0-9_-]{16,64})\/(deals(?:\/(\d+)(\/dispute)?)?|undo|finish|rematch|players|confirm|confirming)$/;
  const FIRST_DELAY = 1000, MAX_DELAY = 5000;

  // {table, path, kind, edits} for a write's path, or null for any other path.
  function writeOfPath(path) {
    const m = WRITE.exec(path);
    if (!m) return null;
    const kind = m[4] ? "dispute" : m[2] === "deals" ? "deal" : m[3] ? "edit" : m[2] === "players" ? "seat" : m[2];
    return { table: m[1], path, kind, edits: m[3] ? parseInt(m[3], 10) : null };
  }

  // A write's fields are [name, value] pairs, as the form sends them.
  function field(item, name) {
    const pair = item.fields.find((p) => p[0] === name);
    return pair ? pair[1] : null;
  }
  function setField(item, name, value) {
    const pair = item.fields.find((p) => p[0] === name);
    if (pair) pair[1] = value; else item.fields.push([name, value]);
  }

  // --- the queue: a list of writes, oldest first (phoneStore keeps it)
  const withItem = (items, item) => items.filter((it) => it.id !== item.id).concat([item]);
  const without = (items, id) => items.filter((it) => it.id !== id);
  function changed(items, id, how) {
    items.forEach((it) => { if (it.id === id) how(it); });
    return items;
  }

  // The next write to send: the oldest of its table, and only if nothing before it of that table
  // is on its way (`inFlight`: ids being sent) or waiting for the player's choice. Each table's
  // writes go in order; other tables' writes don't wait for it.
  function nextToSend(items, inFlight) {
    const blocked = new Set();
    for (const it of items) {
      if (blocked.has(it.table)) continue;
      if (inFlight[it.id] || it.state !== "waiting") { blocked.add(it.table); continue; }
      return it;
    }
    return null;
  }
  // Another write of this table is still in the outbox: a new one goes behind it.
  const waitingBefore = (items, table, id) => items.some((it) => it.table === table && it.id !== id);
  // The highest deal number from `number` on still waiting here for this table (0 if none):
  // after a reload, the entry form is for the deal after it.
  function lastWaitingDeal(items, table, number) {
    let last = 0;
    for (const it of items) {
      if (it.table === table && it.kind === "deal" && it.state === "waiting" && it.number >= number) {
        last = Math.max(last, it.number);
      }
    }
    return last;
  }

  // --- the next form a live answer brings (app.js adopts it), as this phone's own writes see it.
  // `offered`: the deal the answer's form is for; `shown`: the deal this phone's form is for;
  // `stored`: deal numbers this page's outbox had stored (the laptop answered their write ids).
  //   "keep"   this phone still has that deal (or a later one) waiting here: its form is already
  //            past it; taking the answer's form would put it back on a deal it is sending
  //   "quiet"  every deal recorded since this phone's form was its own (sent from here): take
  //            the form, without "Deal n was just entered from another phone"
  //   "adopt"  another phone moved the table: take it as it came
  function nextFormFor(items, table, offered, shown, stored) {
    if (offered && lastWaitingDeal(items, table, offered)) return "keep";
    if (!offered || !shown || shown >= offered) return "adopt";
    for (let n = shown; n < offered; n++) if (!stored.includes(n)) return "adopt";
    return "quiet";
  }

  // --- when to try again: 1 s, then twice as long each time up to 5 s, each wait shaken by
  // ±20 % so a room of phones does not knock all at once.
  function backoff(random = Math.random) {
    let delay = FIRST_DELAY;
    return {
      next() {
        const wait = delay * (0.8 + 0.4 * random());
        delay = Math.min(delay * 2, MAX_DELAY);
        return wait;
      },
      reset() { delay = FIRST_DELAY; },
    };
  }

  // --- what to do with the laptop's answer to a write: {status, ok, conflictBox} where ok is
  // true for a 2xx or a redirect and conflictBox says the answer holds the recorded deal beside
  // this phone's. `onPage`: the entry form's own Save (htmx), whose answer the page shows itself.
  //   "stored"        done: drop it
  //   "fresh-token"   the security token was refused (a clock jump, an old session): get a
  //                   fresh one and send again, once
  //   "token"         refused again with a fresh token: the player decides
  //   "conflict"      another phone recorded this deal first, differently: keep mine until the
  //                   player chooses (save mine as the next deal, or discard)
  //   "refused"       a rule refused it (422), or this phone may no longer change the finished
  //                   match (403, issue 32): back to the form, or discard; never sent again
  //   "stale"         the table moved on (a stale button, 404/409): dismiss
  //   "later"         the laptop is there but could not save (5xx): keep it, try again later
  //   An on-page Save's 5xx that swaps nothing (HX-Reswap: none: the laptop's database away or
  //   too busy, its disk full or read-only, issue 46) is "later" too: the page shows no form back.
  function answerTo(item, answer, onPage) {
    if (answer.status === 400) return item.freshToken ? "token" : "fresh-token";
    if (answer.status >= 500 && answer.swapsNothing) return "later";
    if (answer.status === 409 && item.kind === "deal" && (answer.conflictBox || !onPage)) return "conflict";
    if (onPage || answer.ok) return "stored";  // the page shows any other answer as it came
    if (answer.status === 422 || answer.status === 403) return "refused";
    if (answer.status === 409 || answer.status === 404) return "stale";
    return "later";
  }

  // "Save mine as deal n": the same values as a new write (a new id) for deal n.
  function asNextDeal(item, n, id) {
    Object.assign(item, { id, number: n, state: "waiting", why: null, reason: "", next: null });
    setField(item, "number", String(n));
    setField(item, "write_id", id);
    return item;
  }
  // The player's choice after an answer: `why` as answerTo says it, what the laptop showed.
  function toDecide(item, why, reason, note, next) {
    Object.assign(item, { state: "decide", why, reason: reason || "", note: note || null, next: next || null });
    return item;
  }
  // A token refused twice is tried once more after a reload (the page brought a fresh session).
  function retryRefusedTokens(items) {
    return items.map((it) => (it.why === "token"
      ? Object.assign(it, { state: "waiting", why: null, freshToken: false, note: null }) : it));
  }

  // What the outbox calls a write ("deal 3", "undo deal 3", "finish"), in the page's words.
  function titleOf(item, say) {
    const n = item.number;
    if (item.kind === "finish") return field(item, "finished") === "0" ? say("reopen") : say("finish");
    if (["deal", "edit", "undo", "dispute"].includes(item.kind)) return say(item.kind, n);
    if (item.kind === "confirm") {  // one deal ("deal-4"), or all this phone may confirm
      const one = /^deal-(\d+)$/.exec(field(item, "item") || "");
      return one ? say("confirmDeal", one[1]) : say("confirm");
    }
    if (item.kind === "confirming") return say(item.kind);
    return say(item.kind === "rematch" ? "rematch" : "seat");
  }

  window.outboxQueue = {
    writeOfPath, field, setField, withItem, without, changed, nextToSend, waitingBefore, lastWaitingDeal,
    backoff, answerTo, asNextDeal, toDecide, retryRefusedTokens, titleOf, nextFormFor, FIRST_DELAY, MAX_DELAY,
  };
})();
