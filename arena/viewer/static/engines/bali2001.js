/* bali-2001 for the replay viewer: the rules and views of arena/games/bali2001, and the viewer's referee table and
   scoring (arena/viewer/games/bali2001.py), ported step for step; base.js says how the engines are made and checked.
   Rule numbers are those of the game's README. */
globalThis.BaliCore.define("bali-2001", function (core, F) {
  "use strict";

  var range = core.range, zeros = core.zeros, sum = core.sum, seatOrNone = core.seatOrNone, pyList = core.pyList;

  // --- fixed facts (cards.py, state.py, views.py), emitted from the Python modules ---------------------------------
  var SEAT_COLOURS = F.SEAT_COLOURS, ISLAND_NAMES = F.ISLAND_NAMES, ISLANDS = F.ISLANDS, KIND_NAMES = F.KIND_NAMES;
  var K = F.Kind.members;
  var PRIEST = K.PRIEST, WARRIOR = K.WARRIOR, PRINCE = K.PRINCE, SCHOLAR = K.SCHOLAR, ARTIST = K.ARTIST;
  var FIRST_DALANG_TYPE = F.FIRST_DALANG_TYPE, NUM_CARD_TYPES = F.NUM_CARD_TYPES, DALANG_TYPES = F.DALANG_TYPES;
  var CARD_TYPE = F.CARD_TYPE, DECK_SIZE = F.DECK_SIZE, TYPE_ISLANDS = F.TYPE_ISLANDS, TYPE_FIELDS = F.TYPE_FIELDS;
  var SEAL_POINTS = F.SEAL_POINTS, NUM_START_CARDS = F.NUM_START_CARDS, SETUP_PILE_SIZE = F.SETUP_PILE_SIZE;
  var ACTIVE_DRAW = F.ACTIVE_DRAW, PASSIVE_DRAW = F.PASSIVE_DRAW, FLEE_KEEP = F.FLEE_KEEP;
  var EXCHANGE_LIMIT = F.EXCHANGE_LIMIT, SCORING_PICKUP = F.SCORING_PICKUP, COURT_PLAYS = F.COURT_PLAYS;
  var P = F.Phase.members, PHASE_WIRE = F.Phase.wires, A = F.Act.members, ACT_WIRE = F.Act.wires;
  var VERBS = F.EVENT_VERBS;

  function typeKind(t) { return Math.min(t, FIRST_DALANG_TYPE); }
  // A card type as options show it; a copy, since callers add to it.
  function typeFields(t) { return JSON.parse(JSON.stringify(TYPE_FIELDS[t])); }
  function cardDict(card) {
    var f = TYPE_FIELDS[CARD_TYPE[card]];
    var d = { id: card, kind: f.card };
    if (f.islands) { d.islands = f.islands.slice(); }
    return d;
  }

  function action(act, fields) {
    var a = { act: act, ctype: -1, island: -1, seat: -1, count: -1 };
    Object.keys(fields || {}).forEach(function (key) { a[key] = fields[key]; });
    return a;
  }

  function actionDict(a) {
    var d = { action: ACT_WIRE[a.act] };
    if (a.ctype >= 0) {
      var f = typeFields(a.ctype);
      Object.keys(f).forEach(function (key) { d[key] = f[key]; });
    }
    if (a.island >= 0) { d[a.act === A.PLAY ? "target" : "pile"] = ISLAND_NAMES[a.island]; }
    if (a.seat >= 0) { d.seat = a.seat; }
    if (a.count >= 0) { d.count = a.count; }
    return d;
  }

  function pending(phase, seat, fields) {
    var p = { phase: phase, seat: seat === undefined ? 0 : seat, queue: [], ctype: -1, mode: -1, done: 0,
      remaining: 0, island: -1, high: 0, highSeat: -1, turnEnded: false };
    Object.keys(fields || {}).forEach(function (key) { p[key] = fields[key]; });
    return p;
  }

  function State(n, seed, options) {
    core.initState(this, n, seed, options);
    this.hands = range(0, n).map(function () { return []; });
    this.piles = range(0, n).map(function () { return ISLANDS.map(function () { return []; }); });
    this.known = range(0, n).map(function () { return ISLANDS.map(function () { return []; }); });
    this.drawPile = [];
    this.discard = [];
    this.prince = [-1, -1, -1, -1];
    this.priest = [-1, -1, -1, -1];
    this.seals = [-1, -1, -1, -1];
    this.masksLeft = options.masks.slice().sort(function (a, b) { return a - b; });
    this.masksWon = range(0, n).map(function () { return []; });
    this.startCards = range(0, n).map(function () { return -1; });
    this.startPlayer = 0;
    this.active = 0;
    this.dalang = 0;
    this.absent = range(0, n).map(function () { return false; });
    this.turn = 0;
    this.pending = pending(P.TURN, 0);
    this.ender = -1;
    this.cutShort = false;
    this.endReason = "";
  }

  State.prototype.typeCounts = function (seat) {
    var counts = zeros(NUM_CARD_TYPES);
    this.hands[seat].forEach(function (card) { counts[CARD_TYPE[card]] += 1; });
    return counts;
  };
  State.prototype.presentPassives = function () {
    var absent = this.absent;
    return this.clockwiseFrom(this.active).slice(1).filter(function (s) { return !absent[s]; });
  };
  State.prototype.score = function (seat) {
    return sum(this.masksWon[seat]) + SEAL_POINTS * this.seals.filter(function (s) { return s === seat; }).length;
  };

  // --- setup (rules §6-§9) --------------------------------------------------------------------------------------
  function setup(s) {
    var n = s.numPlayers, rng = s.rng;
    var deck = range(0, DECK_SIZE);
    rng.shuffle(deck);
    ISLANDS.forEach(function (island) {
      for (var k = 0; k < SETUP_PILE_SIZE; k++) {
        for (var seat = 0; seat < n; seat++) {
          s.piles[seat][island].push(deck.pop());
          s.known[seat][island].push(false);
        }
      }
    });
    s.drawPile = deck;
    var numbers = range(1, NUM_START_CARDS + 1);
    rng.shuffle(numbers);
    s.startCards = numbers.slice(0, n);
    s.startPlayer = s.startCards.indexOf(Math.min.apply(null, s.startCards));
    s.startCards.forEach(function (number, seat) {
      var card = s.opts.start_cards[number - 1];
      s.prince[ISLAND_NAMES.indexOf(card.prince)] = seat;
      s.priest[ISLAND_NAMES.indexOf(card.priest)] = seat;
    });
    var rightOfStart = (s.startPlayer - 1 + n) % n;
    s.dalang = ISLAND_NAMES.indexOf(s.opts.start_cards[s.startCards[rightOfStart] - 1].dalang);
    s.active = s.startPlayer;
    s.logEvent({ type: "setup", start_cards: s.startCards.slice(), start_player: s.startPlayer,
      dalang: ISLAND_NAMES[s.dalang] });
    for (var seat = 0; seat < n; seat++) { pickUp(s, seat, s.dalang, null); }
    beginTurn(s, s.startPlayer);
  }

  // --- legal choices --------------------------------------------------------------------------------------------
  function turnActions(s) {
    var counts = s.typeCounts(s.active);
    var acts = [action(A.END_TURN)];
    COURT_PLAYS.forEach(function (t) {
      if (counts[t] === 0) { return; }
      if (t === WARRIOR && !s.presentPassives().length) { return; }
      if ((t === PRIEST || t === PRINCE) && counts[t] < 2) { return; }
      acts.push(action(A.PLAY, { ctype: t }));
    });
    DALANG_TYPES.forEach(function (t) {
      if (counts[t]) {
        TYPE_ISLANDS[t].forEach(function (i) { if (i !== s.dalang) { acts.push(action(A.PLAY, { ctype: t, island: i })); } });
      }
    });
    return acts;
  }

  function exemptActions(s) {
    return s.presentPassives().map(function (seat) { return action(A.EXEMPT, { seat: seat }); });
  }

  function challengeActions(s) {
    var warriors = s.typeCounts(s.pending.seat)[WARRIOR];
    var acts = [action(A.FLEE)];
    if (warriors >= 1) { acts.push(action(A.DEFEND)); }
    if (warriors >= 2 && !s.pending.turnEnded) { acts.push(action(A.DEFEND_AND_END)); }
    return acts;
  }

  function placeActions(s, seat) {
    var counts = s.typeCounts(seat), acts = [];
    counts.forEach(function (c, t) {
      if (!c) { return; }
      ISLANDS.forEach(function (i) { if (i !== s.dalang) { acts.push(action(A.PLACE, { ctype: t, island: i })); } });
    });
    return acts;
  }

  function fleeActions(s) { return placeActions(s, s.pending.seat); }

  function scholarActions(s) {
    var p = s.pending, acts = [action(A.STOP)];
    if (p.mode !== A.TAKE) { acts = acts.concat(placeActions(s, p.seat)); }
    if (p.mode !== A.PLACE) {
      var piles = s.piles[p.seat];
      ISLANDS.forEach(function (i) { if (i !== s.dalang && piles[i].length) { acts.push(action(A.TAKE, { island: i })); } });
    }
    return acts;
  }

  function artistActions(s) {
    var acts = [action(A.STOP)];
    s.typeCounts(s.pending.seat).forEach(function (c, t) { if (c) { acts.push(action(A.DISCARD, { ctype: t })); } });
    return acts;
  }

  function reactActions(s) {
    var p = s.pending, acts = [action(A.PASS)];
    if (s.typeCounts(p.seat)[p.ctype]) { acts.push(action(A.PLAY, { ctype: p.ctype })); }
    return acts;
  }

  function endOfferActions(s) {
    var p = s.pending, acts = [action(A.DECLINE)];
    if (!p.turnEnded && s.typeCounts(p.seat)[p.ctype]) { acts.push(action(A.PLAY_SECOND, { ctype: p.ctype })); }
    return acts;
  }

  function contestOpenActions(s) {
    var have = s.typeCounts(s.active)[s.pending.ctype];
    return range(1, have + 1).map(function (k) { return action(A.SHOW, { count: k }); });
  }

  function contestRespondActions(s) {
    var p = s.pending, have = s.typeCounts(p.seat)[p.ctype];
    return [action(A.PASS)].concat(range(p.high + 1, have + 1).map(function (m) { return action(A.SHOW, { count: m }); }));
  }

  function blockActions(s) {
    var p = s.pending, counts = s.typeCounts(p.seat), acts = [action(A.PASS)];
    DALANG_TYPES.forEach(function (t) {
      if (counts[t] && TYPE_ISLANDS[t].indexOf(p.island) >= 0) { acts.push(action(A.BLOCK, { ctype: t })); }
    });
    return acts;
  }

  function arrangeActions(s) {
    var acts = [];
    s.typeCounts(s.pending.seat).forEach(function (c, t) { if (c) { acts.push(action(A.ARRANGE, { ctype: t })); } });
    return acts;
  }

  var LEGAL = [turnActions, exemptActions, challengeActions, fleeActions, scholarActions, artistActions, reactActions,
    endOfferActions, contestOpenActions, contestRespondActions, blockActions, arrangeActions,
    function () { return []; }];

  // --- applying a choice ----------------------------------------------------------------------------------------
  function onTurn(s, a) {
    var seat = s.active;
    if (a.act === A.END_TURN) {
      s.logEvent({ type: "end_turn", seat: seat });
      endTurn(s);
      return;
    }
    play(s, seat, a.ctype, a.island);
    var kind = typeKind(a.ctype);
    s.pending = pending(P.TURN, seat, { ctype: a.ctype });
    if (kind === WARRIOR) {
      s.pending.phase = P.WARRIOR_EXEMPT;
    } else if (kind === SCHOLAR || kind === ARTIST) {
      s.pending.phase = kind === SCHOLAR ? P.SCHOLAR : P.ARTIST;
    } else if (kind === PRIEST || kind === PRINCE) {
      s.pending.phase = P.CONTEST_OPEN;
    } else {
      s.pending.island = a.island;
      s.pending.queue = s.presentPassives();
      nextBlocker(s);
    }
  }

  function onExempt(s, a) {
    s.logEvent({ type: "exempt", seat: s.active, exempt: a.seat });
    s.pending.queue = s.presentPassives().filter(function (seat) { return seat !== a.seat; });
    nextChallenged(s);
  }

  function askNext(s, phase, whenDone) {
    var p = s.pending;
    if (p.queue.length) { p.phase = phase; p.seat = p.queue.shift(); } else { whenDone(s); }
  }

  function nextChallenged(s) { askNext(s, P.CHALLENGE, afterCard); }

  function onChallenge(s, a) {
    var p = s.pending, seat = p.seat;
    if (a.act === A.FLEE) {
      s.logEvent({ type: "flee", seat: seat });
      p.remaining = Math.min(FLEE_KEEP, s.hands[seat].length);
      p.phase = P.FLEE;
      if (p.remaining === 0) { finishFlee(s); }
      return;
    }
    play(s, seat, WARRIOR);
    s.logEvent({ type: "defend", seat: seat });
    if (a.act === A.DEFEND_AND_END) {
      play(s, seat, WARRIOR);
      forceEnd(s, seat);
    }
    nextChallenged(s);
  }

  function onFlee(s, a) {
    var p = s.pending;
    place(s, p.seat, a.ctype, a.island);
    p.remaining -= 1;
    if (p.remaining === 0) { finishFlee(s); }
  }

  function finishFlee(s) {
    var seat = s.pending.seat;
    var rest = s.hands[seat];
    s.hands[seat] = [];
    discardCards(s, seat, rest);
    s.absent[seat] = true;
    nextChallenged(s);
  }

  function onScholar(s, a) {
    var p = s.pending;
    if (a.act === A.STOP) { finishExchange(s); return; }
    if (a.act === A.PLACE) { place(s, p.seat, a.ctype, a.island); } else { take(s, p.seat, a.island); }
    p.mode = a.act;
    p.done += 1;
    if (p.done === EXCHANGE_LIMIT) { finishExchange(s); }
  }

  function onArtist(s, a) {
    var p = s.pending;
    if (a.act === A.DISCARD) {
      discardCards(s, p.seat, [removeType(s, p.seat, a.ctype)]);
      p.done += 1;
      if (p.done < EXCHANGE_LIMIT) { return; }
    }
    if (p.done) { draw(s, p.seat, p.done); }
    finishExchange(s);
  }

  function finishExchange(s) {
    var p = s.pending;
    p.done = 0;
    p.mode = -1;
    if (p.seat === s.active) {
      p.queue = s.presentPassives();
      nextReactor(s);
    } else {
      p.phase = P.END_OFFER;
    }
  }

  function nextReactor(s) { askNext(s, P.REACT, afterCard); }

  function onReact(s, a) {
    var p = s.pending;
    if (a.act === A.PASS) {
      s.logEvent({ type: "pass", seat: p.seat });
      nextReactor(s);
      return;
    }
    play(s, p.seat, p.ctype);
    p.phase = p.ctype === SCHOLAR ? P.SCHOLAR : P.ARTIST;
  }

  function onEndOffer(s, a) {
    var p = s.pending;
    if (a.act === A.PLAY_SECOND) {
      play(s, p.seat, p.ctype);
      forceEnd(s, p.seat);
    }
    nextReactor(s);
  }

  function onContestOpen(s, a) {
    show(s, s.active, a.count);
    s.pending.queue = s.presentPassives();
    nextResponder(s);
  }

  function onContestRespond(s, a) {
    var p = s.pending;
    if (a.act === A.PASS) { s.logEvent({ type: "pass", seat: p.seat }); } else { show(s, p.seat, a.count); }
    nextResponder(s);
  }

  function show(s, seat, count) {
    var p = s.pending;
    p.high = count;
    p.highSeat = seat;
    s.logEvent({ type: "show", seat: seat, kind: KIND_NAMES[p.ctype], count: count });
  }

  function nextResponder(s) { askNext(s, P.CONTEST_RESPOND, resolveContest); }

  // The highest count shown takes the chip; both chips in one village take the seal (rules §18-§19).
  function resolveContest(s) {
    var p = s.pending;
    var chips = p.ctype === PRIEST ? s.priest : s.prince;
    var island = s.dalang;
    var before = chips[island];
    chips[island] = p.highSeat;
    s.logEvent({ type: "chip", chip: KIND_NAMES[p.ctype], island: ISLAND_NAMES[island], seat: p.highSeat,
      from: seatOrNone(before) });
    var owner = s.prince[island];
    if (owner >= 0 && owner === s.priest[island] && s.seals[island] !== owner) {
      s.logEvent({ type: "seal", island: ISLAND_NAMES[island], seat: owner, from: seatOrNone(s.seals[island]) });
      s.seals[island] = owner;
    }
    afterCard(s);
  }

  function nextBlocker(s) { askNext(s, P.BLOCK, moveDalang); }

  function onBlock(s, a) {
    var p = s.pending;
    if (a.act === A.PASS) {
      s.logEvent({ type: "pass", seat: p.seat });
      nextBlocker(s);
      return;
    }
    play(s, p.seat, a.ctype);
    s.logEvent({ type: "block", seat: p.seat, target: ISLAND_NAMES[p.island] });
    afterCard(s);
  }

  function moveDalang(s) {
    var left = s.dalang, target = s.pending.island;
    s.logEvent({ type: "dalang_move", from: ISLAND_NAMES[left], to: ISLAND_NAMES[target] });
    s.dalang = target;
    s.pending = pending(P.ARRANGE, 0, { island: left, queue: s.clockwiseFrom(s.active) });
    nextArranger(s);
  }

  function nextArranger(s) {
    var p = s.pending;
    while (p.queue.length) {
      p.seat = p.queue.shift();
      p.done = 0;
      if (s.hands[p.seat].length) { return; }
      s.logEvent({ type: "pile_down", seat: p.seat, island: ISLAND_NAMES[p.island], count: 0 });
    }
    arrival(s);
  }

  function onArrange(s, a) {
    var p = s.pending, seat = p.seat;
    var card = removeType(s, seat, a.ctype);
    s.piles[seat][p.island].push(card);
    s.known[seat][p.island].push(true);
    p.done += 1;
    if (s.hands[seat].length) { return; }
    var pile = s.piles[seat][p.island];
    s.logEvent({ type: "pile_down", seat: seat, island: ISLAND_NAMES[p.island], count: p.done }, seat,
      { cards: pile.map(cardDict) });
    nextArranger(s);
  }

  // Rules §21 after every hand is down: check scoring, pick up, and go on or end the turn.
  function arrival(s) {
    var island = s.dalang, a = s.active;
    var chips = [s.prince[island], s.priest[island]];
    var scored = chips.indexOf(a) >= 0;
    if (scored) {
      var other = -1;
      for (var i = 0; i < chips.length; i++) { if (chips[i] !== a && chips[i] !== -1) { other = chips[i]; break; } }
      var awards = [];
      if (other >= 0 && s.masksLeft.length >= 2) { awards.push([other, s.masksLeft.shift()]); }
      awards.push([a, s.masksLeft.shift()]);
      awards.forEach(function (award) { s.masksWon[award[0]].push(award[1]); });
      s.logEvent({ type: "scoring", island: ISLAND_NAMES[island], seat: a,
        masks: awards.map(function (award) { return { seat: award[0], value: award[1] }; }),
        masks_left: s.masksLeft.length });
    }
    s.clockwiseFrom(a).forEach(function (seat) { pickUp(s, seat, island, scored ? SCORING_PICKUP : null); });
    s.absent = range(0, s.numPlayers).map(function () { return false; });
    if (!scored) {
      s.pending = pending(P.TURN, a);
    } else if (!s.masksLeft.length) {
      s.ender = a;
      gameOver(s, "the last mask was handed out");
    } else {
      endTurn(s);
    }
  }

  // --- turns (rules §10-§11) ------------------------------------------------------------------------------------
  function beginTurn(s, seat) {
    if (s.turn >= s.opts.max_turns) {
      s.cutShort = true;
      gameOver(s, "max_turns (" + s.opts.max_turns + ") reached");
      return;
    }
    s.turn += 1;
    s.active = seat;
    s.absent = range(0, s.numPlayers).map(function () { return false; });
    s.logEvent({ type: "turn", turn: s.turn, seat: seat });
    draw(s, seat, ACTIVE_DRAW);
    s.clockwiseFrom(seat).slice(1).forEach(function (other) { draw(s, other, PASSIVE_DRAW); });
    s.pending = pending(P.TURN, seat);
  }

  function endTurn(s) { beginTurn(s, (s.active + 1) % s.numPlayers); }

  function afterCard(s) {
    if (s.pending.turnEnded) { endTurn(s); } else { s.pending = pending(P.TURN, s.active); }
  }

  function forceEnd(s, seat) {
    s.pending.turnEnded = true;
    s.logEvent({ type: "turn_ended_by", seat: seat, active: s.active });
    draw(s, seat, 1);
  }

  function gameOver(s, reason) {
    s.pending = pending(P.OVER, -1);
    s.endReason = reason;
    var r = gameResult(s);
    s.logEvent({ type: "game_over", reason: reason, scores: r.scores.slice(), ranks: r.ranks.slice() });
  }

  // Scores and ranks (rules §22; no tie-break when cut short, rules §24); Python compares the keys as tuples.
  function gameResult(s) {
    var scores = range(0, s.numPlayers).map(function (seat) { return s.score(seat); });
    var top = Math.max.apply(null, scores);
    var keys = scores.map(function (score, seat) {
      return [score, seat === s.ender && score === top && !s.cutShort ? 1 : 0];
    });
    var ranks = keys.map(function (mine) {
      return 1 + keys.filter(function (other) {
        return other[0] !== mine[0] ? other[0] > mine[0] : other[1] > mine[1];
      }).length;
    });
    return { scores: scores, ranks: ranks, reason: s.endReason, cutShort: s.cutShort };
  }

  // --- card movements -------------------------------------------------------------------------------------------
  function removeType(s, seat, ctype) {
    var hand = s.hands[seat];
    for (var i = 0; i < hand.length; i++) { if (CARD_TYPE[hand[i]] === ctype) { return hand.splice(i, 1)[0]; } }
    throw new Error("seat " + seat + " holds no card of type " + ctype);
  }

  function play(s, seat, ctype, target) {
    var card = removeType(s, seat, ctype);
    s.discard.push(card);
    var event = { type: "play", seat: seat, card: cardDict(card) };
    if (target !== undefined && target >= 0) { event.target = ISLAND_NAMES[target]; }
    s.logEvent(event);
    return card;
  }

  function discardCards(s, seat, cards) {
    if (!cards.length) { return; }
    s.discard = s.discard.concat(cards);
    s.logEvent({ type: "discard", seat: seat, cards: cards.map(cardDict) });
  }

  function place(s, seat, ctype, island) {
    var card = removeType(s, seat, ctype);
    s.piles[seat][island].push(card);
    s.known[seat][island].push(true);
    s.logEvent({ type: "place", seat: seat, pile: ISLAND_NAMES[island] }, seat, { card: cardDict(card) });
  }

  function take(s, seat, island) {
    var card = s.piles[seat][island].pop();
    s.known[seat][island].pop();
    s.hands[seat].push(card);
    s.logEvent({ type: "take", seat: seat, pile: ISLAND_NAMES[island] }, seat, { card: cardDict(card) });
  }

  function pickUp(s, seat, island, keep) {
    var pile = s.piles[seat][island];
    var kept = keep === null ? pile : pile.slice(0, keep);
    var rest = keep === null ? [] : pile.slice(keep);
    s.hands[seat] = s.hands[seat].concat(kept);
    s.piles[seat][island] = [];
    s.known[seat][island] = [];
    s.logEvent({ type: "pick_up", seat: seat, island: ISLAND_NAMES[island], count: kept.length }, seat,
      { cards: kept.map(cardDict) });
    if (rest.length) {
      s.discard = s.discard.concat(rest);
      s.logEvent({ type: "discard", seat: seat, cards: rest.map(cardDict) });
    }
  }

  function draw(s, seat, count) {
    var drawn = [];
    for (var k = 0; k < count; k++) {
      if (!s.drawPile.length) {
        if (!s.discard.length) { break; }
        s.drawPile = s.discard;
        s.discard = [];
        s.rng.shuffle(s.drawPile);
        s.logEvent({ type: "reshuffle", count: s.drawPile.length });
      }
      drawn.push(s.drawPile.pop());
    }
    s.hands[seat] = s.hands[seat].concat(drawn);
    s.logEvent({ type: "draw", seat: seat, count: drawn.length }, seat, { cards: drawn.map(cardDict) });
  }

  var APPLY = [onTurn, onExempt, onChallenge, onFlee, onScholar, onArtist, onReact, onEndOffer, onContestOpen,
    onContestRespond, onBlock, onArrange];

  // --- views (views.py, rules §23) ------------------------------------------------------------------------------
  function byIsland(value) {
    var out = {};
    ISLANDS.forEach(function (i) { out[ISLAND_NAMES[i]] = value(i); });
    return out;
  }

  function publicDict(s) {
    var n = s.numPlayers, seats = range(0, n);
    return {
      turn: s.turn, max_turns: s.opts.max_turns, active: s.active,
      start_player: s.startPlayer, start_cards: s.startCards.slice(), dalang: ISLAND_NAMES[s.dalang],
      hand_sizes: s.hands.map(function (h) { return h.length; }),
      pile_sizes: seats.map(function (x) { return byIsland(function (i) { return s.piles[x][i].length; }); }),
      draw_pile: s.drawPile.length, discard: s.discard.map(cardDict),
      chips: byIsland(function (i) { return { prince: seatOrNone(s.prince[i]), priest: seatOrNone(s.priest[i]) }; }),
      seals: byIsland(function (i) { return seatOrNone(s.seals[i]); }),
      masks_left: s.masksLeft.slice(), masks: s.masksWon.map(function (m) { return m.slice(); }),
      scores: seats.map(function (x) { return s.score(x); }),
      fled: seats.filter(function (x) { return s.absent[x]; }),
      decision: decisionDict(s)
    };
  }

  function privateDict(s, seat) {
    return {
      seat: seat, hand: s.hands[seat].map(cardDict),
      piles: byIsland(function (i) {
        var known = s.known[seat][i];
        return s.piles[seat][i].map(function (card, k) { return known[k] ? cardDict(card) : null; });
      })
    };
  }

  function decisionDict(s) {
    var p = s.pending;
    var d = { kind: PHASE_WIRE[p.phase], seat: seatOrNone(p.seat), active: s.active };
    if (p.phase === P.SCHOLAR || p.phase === P.ARTIST) {
      d.done = p.done;
      if (p.phase === P.SCHOLAR) { d.mode = p.mode < 0 ? null : ACT_WIRE[p.mode]; }
    } else if (p.phase === P.REACT || p.phase === P.END_OFFER) {
      d.card = KIND_NAMES[p.ctype];
      d.turn_ended = p.turnEnded;
    } else if (p.phase === P.CHALLENGE) {
      d.turn_ended = p.turnEnded;
    } else if (p.phase === P.FLEE) {
      d.remaining = p.remaining;
    } else if (p.phase === P.CONTEST_OPEN || p.phase === P.CONTEST_RESPOND) {
      d.chip = KIND_NAMES[p.ctype];
      d.highest = p.high;
      d.leader = seatOrNone(p.highSeat);
    } else if (p.phase === P.BLOCK) {
      d.target = ISLAND_NAMES[p.island];
    } else if (p.phase === P.ARRANGE) {
      d.island = ISLAND_NAMES[p.island];
      d.placed = p.done;
    }
    return d;
  }

  // --- log text (views.format_event) ----------------------------------------------------------------------------
  var who = core.seatLabel(SEAT_COLOURS);
  function count(n) { return n === 1 ? "1 card" : n + " cards"; }
  function cardText(card) { return card.kind === "dalang" ? "Dalang " + card.islands.join("/") : card.kind; }

  function formatEvent(e) {
    var t = e.type, w = who(e.seat);
    switch (t) {
      case "setup":
        return "setup: start cards " + pyList(e.start_cards) + ", start player " + who(e.start_player) +
          ", Dalang on " + e.dalang;
      case "turn": return "--- turn " + e.turn + ": " + w + " is active";
      case "draw":
        return w + " draws " + e.count + (e.cards !== undefined ? ": " + e.cards.map(cardText).join(", ") : "");
      case "reshuffle": return "the discard pile (" + e.count + " cards) is shuffled into a new draw pile";
      case "play": return w + " plays " + cardText(e.card) + (e.target !== undefined ? " targeting " + e.target : "");
      case "exempt": return w + " exempts " + who(e.exempt);
      case "defend": case "flee": case "pass": case "end_turn": return w + " " + VERBS[t];
      case "place":
        return w + " puts" + (e.card !== undefined ? " " + cardText(e.card) : " a card") + " on its pile at " + e.pile;
      case "take":
        return w + " takes the top card of its pile at " + e.pile +
          (e.card !== undefined ? " (" + cardText(e.card) + ")" : "");
      case "discard": return w + " discards " + e.cards.map(cardText).join(", ");
      case "turn_ended_by": return w + " ends the turn of " + who(e.active) + " and draws 1";
      case "show": return w + " shows " + e.count + " " + e.kind;
      case "chip": return "the " + e.chip + " chip on " + e.island + " goes to " + who(e.seat);
      case "seal": return w + " takes the seal of " + e.island;
      case "block": return w + " blocks the move to " + e.target;
      case "dalang_move": return "the Dalang moves from " + e.from + " to " + e.to;
      case "pile_down": return w + " lays " + count(e.count) + " down at " + e.island;
      case "pick_up": return w + " picks up " + count(e.count) + " at " + e.island;
      case "scoring":
        return "scoring on " + e.island + ": " + e.masks.map(function (m) {
          return who(m.seat) + " takes mask " + m.value;
        }).join(", ") + " (" + e.masks_left + " masks left)";
      case "game_over":
        return "game over (" + e.reason + "): scores " + pyList(e.scores) + ", ranks " + pyList(e.ranks);
      default: return JSON.stringify(e);
    }
  }

  // --- the viewer's tables (arena/viewer/games/bali2001.py) ------------------------------------------------------
  function refereePart(s, privates) {
    // Every card of every pile, including those no seat knows: the views only show a seat what it placed.
    return {
      hands: privates.map(function (p) { return p.hand; }),
      piles: range(0, s.numPlayers).map(function (seat) {
        return byIsland(function (i) { return s.piles[seat][i].map(cardDict); });
      })
    };
  }

  function scoring(view) {
    var seals = ISLAND_NAMES.map(function (name) { return view.seals[name]; });
    var rows = view.masks.map(function (masks, seat) {
      return { masks: sum(masks), seals: SEAL_POINTS * seals.filter(function (x) { return x === seat; }).length,
        total: view.scores[seat] };
    });
    return { columns: ["masks", "seals", "total"], rows: rows };
  }

  return { State: State, over: P.OVER, legal: LEGAL, apply: APPLY, actionDict: actionDict,
    decisionDict: decisionDict, publicDict: publicDict, privateDict: privateDict, gameResult: gameResult, setup: setup,
    formatEvent: formatEvent, refereePart: refereePart, scoring: scoring };
});
