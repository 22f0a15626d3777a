/* bali-2017, with its Oracle and Demon variants, for the replay viewer: a step-for-step port of the rules and views
   of arena/games/bali2017 and of the viewer's referee table and scoring (arena/viewer/games/bali2017.py); base.js
   says how the engines are made and checked. Rule numbers are those of the game's README. */
globalThis.BaliCore.define("bali-2017", function (core, F) {
  "use strict";

  var range = core.range, zeros = core.zeros, seatOrNone = core.seatOrNone, pyList = core.pyList;

  // --- fixed facts (cards.py, state.py), emitted from the Python modules ------------------------------------------
  var SEAT_COLOURS = F.SEAT_COLOURS, OFFERING_NAMES = F.OFFERING_NAMES, TYPES = F.TYPES, KIND_NAMES = F.KIND_NAMES;
  var K = F.Kind.members;
  var STONEMASON = K.STONEMASON, PRIEST = K.PRIEST, SHRINE = K.SHRINE, ORACLE = K.ORACLE;
  var MAX_PLAYERS = F.MAX_PLAYERS, NUM_KINDS = F.NUM_KINDS, START_SET_SIZE = F.START_SET_SIZE;
  var DECK_KINDS = F.DECK_KINDS, NUM_ORACLES = F.NUM_ORACLES, FIRST_DECK_CARD = F.FIRST_DECK_CARD;
  var FIRST_ORACLE = F.FIRST_ORACLE, NUM_PLAY_CARDS = F.NUM_PLAY_CARDS, OFFERINGS_PER_TYPE = F.OFFERINGS_PER_TYPE;
  var OFFERING_TYPE = F.OFFERING_TYPE, NUM_ROWS = F.NUM_ROWS, ROW_SIZE = F.ROW_SIZE, HAND_SIZE = F.HAND_SIZE;
  var FIRST_STONES = F.FIRST_STONES, BUY_BASE_COST = F.BUY_BASE_COST, SHRINE_COST = F.SHRINE_COST;
  var MAX_FARMERS_PLAYED = F.MAX_FARMERS_PLAYED, EXTRA_FARMER_COST = F.EXTRA_FARMER_COST, ORACLE_LOOK = F.ORACLE_LOOK;
  var BONUS_MINIMUM = F.BONUS_MINIMUM, SHRINE_POINTS = F.SHRINE_POINTS, STONES_PER_POINT = F.STONES_PER_POINT;
  var ALTAR_VALUES = F.ALTAR_VALUES, GAME_END = F.GAME_END, PLAY_ORDER = F.PLAY_ORDER;
  var P = F.Phase.members, PHASE_WIRE = F.Phase.wires, A = F.Act.members, ACT_WIRE = F.Act.wires;
  var CARD_ACTS = F.CARD_ACTS, FARMERS = F.FARMERS;

  function offeringType(card) { return OFFERING_TYPE[card]; }
  function byType(counts) {
    var out = {};
    OFFERING_NAMES.forEach(function (name, t) { out[name] = counts[t]; });
    return out;
  }

  function action(act, fields) {
    var a = { act: act, kind: -1, row: -1, depth: -1, cost: -1, amount: -1 };
    Object.keys(fields || {}).forEach(function (key) { a[key] = fields[key]; });
    return a;
  }

  function actionDict(a) {
    var d = { action: ACT_WIRE[a.act] };
    if (a.row >= 0) { d.row = a.row; }
    if (a.depth >= 0) { d.depth = a.depth; }
    if (a.kind >= 0) {
      if (CARD_ACTS.indexOf(a.act) >= 0) { d.card = KIND_NAMES[a.kind]; } else { d.offering = OFFERING_NAMES[a.kind]; }
    }
    if (a.cost >= 0) { d.cost = a.cost; }
    if (a.amount >= 0) { d.amount = a.amount; }
    return d;
  }

  function pending(phase, seat, fields) {
    var p = { phase: phase, seat: seat, queue: [], kind: -1, count: 0, row: -1, bonus: -1, isBonus: false, look: 0 };
    Object.keys(fields || {}).forEach(function (key) { p[key] = fields[key]; });
    return p;
  }

  function cardKinds(startFarmers) {
    var kinds = [];
    startFarmers.forEach(function (farmers) {
      kinds.push(STONEMASON);
      farmers.forEach(function (name) { kinds.push(OFFERING_NAMES.indexOf(name)); });
    });
    return kinds.concat(DECK_KINDS, range(0, NUM_ORACLES).map(function () { return ORACLE; }));
  }

  function State(n, seed, options) {
    core.initState(this, n, seed, options);
    this.kinds = cardKinds(options.start_farmers);
    this.hands = range(0, n).map(function () { return []; });
    this.displays = range(0, n).map(function () { return []; });
    this.displayCounts = range(0, n).map(function () { return zeros(NUM_KINDS); });
    this.rows = range(0, NUM_ROWS).map(function () { return []; });
    this.deck = [];
    this.box = [];
    this.supply = TYPES.map(function () { return []; });
    this.offerings = range(0, n).map(function () { return []; });
    this.altar = [];
    this.altarUp = [];
    this.altarKnown = range(0, n).map(function () { return []; });
    this.offerKnown = range(0, n).map(function () { return range(0, n).map(function () { return zeros(4); }); });
    this.stones = zeros(n);
    this.points = zeros(n);
    this.demon = -1;
    this.active = 0;
    this.turn = 0;
    this.pending = pending(P.BUY, 0);
    this.endReason = "";
  }

  State.prototype.countKind = function (seat, kind) { return this.displayCounts[seat][kind]; };
  State.prototype.addToDisplay = function (seat, card) {
    this.displays[seat].push(card);
    this.displayCounts[seat][this.kinds[card]] += 1;
  };
  State.prototype.offeringCounts = function (seat) {
    var counts = zeros(4);
    this.offerings[seat].forEach(function (card) { counts[offeringType(card)] += 1; });
    return counts;
  };
  State.prototype.startSet = function (seat) { return range(seat * START_SET_SIZE, (seat + 1) * START_SET_SIZE); };

  // --- setup (rules §6-§9) --------------------------------------------------------------------------------------
  function setup(s) {
    var n = s.numPlayers, rng = s.rng, seat;
    for (seat = 0; seat < n; seat++) {
      var set = s.startSet(seat);
      s.addToDisplay(seat, set[0]);
      s.hands[seat] = set.slice(1);
    }
    s.box = [];
    for (seat = n; seat < MAX_PLAYERS; seat++) { s.box = s.box.concat(s.startSet(seat)); }
    s.supply = TYPES.map(function (t) { return range(t * OFFERINGS_PER_TYPE, (t + 1) * OFFERINGS_PER_TYPE); });
    for (seat = 0; seat < n; seat++) {
      s.offerings[seat] = TYPES.map(function (t) { return s.supply[t].pop(); });
      others(s, seat).forEach(function (viewer) { s.offerKnown[viewer][seat] = [1, 1, 1, 1]; });
    }
    if (s.opts.oracle) {
      var startAltar = TYPES.map(function (t) { return s.supply[t].pop(); });
      rng.shuffle(startAltar);
      startAltar.forEach(function (card) { pushAltar(s, card, false, -1); });
    }
    var deck = range(FIRST_DECK_CARD, FIRST_ORACLE);
    rng.shuffle(deck);
    s.rows = range(0, NUM_ROWS).map(function () { return range(0, ROW_SIZE).map(function () { return deck.pop(); }); });
    if (s.opts.oracle) {
      deck = deck.concat(range(FIRST_ORACLE, NUM_PLAY_CARDS));
      rng.shuffle(deck);
    }
    s.deck = deck;
    s.demon = s.opts.demon ? 0 : -1;
    s.stones = range(0, n).map(function (x) { return FIRST_STONES + x; });
    s.logEvent({ type: "setup", players: n, oracle: s.opts.oracle, demon: seatOrNone(s.demon),
      stones: s.stones.slice(), rows: s.rows.map(function (row) { return kindNames(s, row); }), deck: s.deck.length,
      altar: s.altar.length });
    for (seat = 0; seat < n; seat++) {
      s.logEvent({ type: "deal", seat: seat, count: s.hands[seat].length }, seat,
        { cards: kindNames(s, s.hands[seat]) });
    }
    beginTurn(s, 0);
  }

  // --- legal choices --------------------------------------------------------------------------------------------
  function buyCost(s, seat, offering) { return Math.max(0, BUY_BASE_COST - s.countKind(seat, offering)); }

  function buyActions(s) {
    var seat = s.active, acts = [action(A.SKIP)];
    TYPES.forEach(function (t) {
      if (s.supply[t].length) {
        var cost = buyCost(s, seat, t);
        if (cost <= s.stones[seat]) { acts.push(action(A.BUY, { kind: t, cost: cost })); }
      }
    });
    return acts;
  }

  function playable(s, seat) {
    var ranks = [];
    s.hands[seat].forEach(function (card) {
      var rank = PLAY_ORDER.indexOf(s.kinds[card]);
      if (ranks.indexOf(rank) < 0) { ranks.push(rank); }
    });
    ranks.sort(function (a, b) { return a - b; });
    var plays = ranks.map(function (rank) {
      var kind = PLAY_ORDER[rank];
      return action(A.PLAY, { kind: kind, cost: kind === SHRINE ? SHRINE_COST : 0 });
    });
    if (plays.length && plays[plays.length - 1].kind === SHRINE && s.stones[seat] < SHRINE_COST) { plays.pop(); }
    return plays;
  }

  function moreFarmersActions(s) {
    var p = s.pending, seat = s.active, acts = [action(A.STOP)];
    if (p.count < MAX_FARMERS_PLAYED && s.stones[seat] >= EXTRA_FARMER_COST &&
        s.hands[seat].some(function (card) { return s.kinds[card] === p.kind; })) {
      acts.push(action(A.PLAY, { kind: p.kind, cost: EXTRA_FARMER_COST }));
    }
    return acts;
  }

  function returnActions(s) {
    var kinds = [];
    s.hands[s.active].forEach(function (card) { if (kinds.indexOf(s.kinds[card]) < 0) { kinds.push(s.kinds[card]); } });
    kinds.sort(function (a, b) { return a - b; });
    return kinds.map(function (kind) { return action(A.RETURN, { kind: kind }); });
  }

  function ownOfferingActions(s) {
    var counts = s.offeringCounts(s.pending.seat);
    return TYPES.filter(function (t) { return counts[t]; }).map(function (t) { return action(A.OFFER, { kind: t }); });
  }

  function supplyOfferingActions(s) {
    return TYPES.filter(function (t) { return s.supply[t].length; })
      .map(function (t) { return action(A.OFFER, { kind: t }); });
  }

  function takeActions(s) {
    var acts = [];
    s.rows.forEach(function (row, r) {
      if (row.length && r !== s.demon) { acts.push(action(A.TAKE, { kind: s.kinds[row[row.length - 1]], row: r })); }
    });
    return acts;
  }

  function oracleActions(s) {
    var altar = s.altar;
    return range(0, s.pending.look).map(function (depth) {
      return action(A.PICK, { kind: offeringType(altar[altar.length - 1 - depth]), depth: depth });
    });
  }

  function shrineRewardActions(s) {
    var amount = shrineAmount(s, s.pending.seat);
    return [action(A.POINTS, { amount: amount }), action(A.STONES, { amount: amount })];
  }

  function substituteActions(s) {
    return TYPES.filter(function (t) { return s.supply[t].length; })
      .map(function (t) { return action(A.SUBSTITUTE, { kind: t }); });
  }

  var LEGAL = [buyActions, function (s) { return playable(s, s.active); }, moreFarmersActions, returnActions,
    ownOfferingActions, ownOfferingActions, supplyOfferingActions, takeActions, oracleActions, shrineRewardActions,
    substituteActions, function () { return []; }];

  // --- phases 1 and 2: buy and play (rules §10-§11) -------------------------------------------------------------
  function beginTurn(s, seat) {
    s.turn += 1;
    s.active = seat;
    s.logEvent({ type: "turn", turn: s.turn, seat: seat });
    s.pending = pending(P.BUY, seat);
  }

  function onBuy(s, a) {
    var seat = s.active;
    if (a.act === A.SKIP) {
      s.logEvent({ type: "skip_buy", seat: seat });
    } else {
      s.stones[seat] -= a.cost;
      s.offerings[seat].push(s.supply[a.kind].pop());
      others(s, seat).forEach(function (viewer) { s.offerKnown[viewer][seat][a.kind] += 1; });
      s.logEvent({ type: "buy", seat: seat, offering: OFFERING_NAMES[a.kind], cost: a.cost });
    }
    s.pending = pending(playable(s, seat).length ? P.PLAY : P.RETURN, seat);
  }

  function onPlay(s, a) {
    var seat = s.active;
    playCard(s, seat, a.kind, a.cost);
    if (FARMERS.indexOf(a.kind) >= 0) {
      s.pending = pending(P.MORE_FARMERS, seat, { kind: a.kind, count: 1 });
    } else if (a.kind === SHRINE) {
      startOffering(s);
    } else {
      if (a.kind === PRIEST && s.demon >= 0) {
        var before = s.demon;
        s.demon = (s.demon + 1) % NUM_ROWS;
        s.logEvent({ type: "demon", from: before, to: s.demon });
      }
      startTake(s);
    }
  }

  function onMoreFarmers(s, a) {
    if (a.act === A.STOP) { startTake(s); return; }
    playCard(s, s.active, a.kind, a.cost);
    s.pending.count += 1;
  }

  function onReturn(s, a) {
    var seat = s.active;
    s.box.push(removeKind(s, seat, a.kind));
    s.logEvent({ type: "return", seat: seat, card: KIND_NAMES[a.kind] });
    startTake(s);
  }

  function playCard(s, seat, kind, cost) {
    s.addToDisplay(seat, removeKind(s, seat, kind));
    s.stones[seat] -= cost;
    s.logEvent({ type: "play", seat: seat, card: KIND_NAMES[kind], cost: cost });
  }

  // --- the offering phase (rules §12) ---------------------------------------------------------------------------
  function startOffering(s) {
    var a = s.active;
    s.pending = pending(P.OFFER, a, { queue: s.clockwiseFrom(a).slice(1) });
    nextOfferer(s);
  }

  function nextOfferer(s) {
    var p = s.pending;
    while (p.queue.length) {
      var seat = p.queue.shift();
      if (s.offerings[seat].length) { p.phase = P.OFFER; p.seat = seat; return; }
      s.logEvent({ type: "no_offering", seat: seat });
    }
    p.seat = s.active;
    if (s.offerings[p.seat].length) { p.phase = P.OFFER_DOWN; return; }
    s.logEvent({ type: "no_offering", seat: p.seat });
    toSupplyOffering(s);
  }

  function toSupplyOffering(s) {
    if (s.supply.some(function (cards) { return cards.length; })) {
      s.pending = pending(P.OFFER_SUPPLY, s.active);
    } else {
      s.logEvent({ type: "no_offering", seat: s.active, from_supply: true });
      startTake(s);
    }
  }

  function onOffer(s, a) {
    var seat = s.pending.seat;
    pushAltar(s, removeOffering(s, seat, a.kind), true, seat);
    others(s, seat).forEach(function (viewer) {
      var known = s.offerKnown[viewer][seat];
      known[a.kind] = Math.max(0, known[a.kind] - 1);
    });
    s.logEvent({ type: "offer", seat: seat, face_up: true, offering: OFFERING_NAMES[a.kind] });
    nextOfferer(s);
  }

  function onOfferDown(s, a) {
    var seat = s.active;
    pushAltar(s, removeOffering(s, seat, a.kind), false, seat);
    // Nobody else can tell which card left, so every certainty about this display drops by one.
    others(s, seat).forEach(function (viewer) {
      s.offerKnown[viewer][seat] = s.offerKnown[viewer][seat].map(function (k) { return Math.max(0, k - 1); });
    });
    s.logEvent({ type: "offer", seat: seat, face_up: false }, seat, { offering: OFFERING_NAMES[a.kind] });
    toSupplyOffering(s);
  }

  function onOfferSupply(s, a) {
    var seat = s.active;
    pushAltar(s, s.supply[a.kind].pop(), true, seat);
    s.logEvent({ type: "offer", seat: seat, face_up: true, offering: OFFERING_NAMES[a.kind], from_supply: true });
    startTake(s);
  }

  function pushAltar(s, card, faceUp, placer) {
    s.altar.push(card);
    s.altarUp.push(faceUp);
    for (var viewer = 0; viewer < s.numPlayers; viewer++) { s.altarKnown[viewer].push(faceUp || viewer === placer); }
  }

  // --- phase 3: take, new rows, oracles, the end (rules §13-§14) ------------------------------------------------
  function startTake(s) { s.pending = pending(P.TAKE, s.active); }

  function onTake(s, a) {
    var seat = s.active;
    var card = s.rows[a.row].pop();
    s.hands[seat].push(card);
    s.pending.row = a.row;
    s.logEvent({ type: "take", seat: seat, row: a.row, card: KIND_NAMES[s.kinds[card]] });
    if (!s.rows[a.row].length) {
      formRow(s, a.row);
      if (s.pending.phase !== P.TAKE) { return; }
    }
    afterTake(s);
  }

  function afterTake(s) {
    if (s.hands[s.active].length >= HAND_SIZE) { score(s, s.pending.row); }
  }

  function formRow(s, row) {
    var removed = 0;
    for (;;) {
      if (!s.deck.length) { gameOver(s, GAME_END); return; }
      var drawn = [], count = Math.min(ROW_SIZE, s.deck.length);
      for (var i = 0; i < count; i++) { drawn.push(s.deck.pop()); }
      var oracles = drawn.filter(function (card) { return s.kinds[card] === ORACLE; });
      s.box = s.box.concat(oracles);
      removed += oracles.length;
      s.rows[row] = drawn.filter(function (card) { return s.kinds[card] !== ORACLE; });
      s.logEvent({ type: "new_row", row: row, cards: kindNames(s, s.rows[row]), oracles: oracles.length,
        deck: s.deck.length });
      if (!s.deck.length) { gameOver(s, GAME_END); return; }
      if (s.rows[row].length) { break; }
    }
    if (removed) { startOracleLook(s); }
  }

  function startOracleLook(s) {
    var seat = s.active;
    var look = Math.min(ORACLE_LOOK, s.altar.length);
    var top = s.altar.slice(s.altar.length - look);
    for (var i = s.altar.length - look; i < s.altar.length; i++) { s.altarKnown[seat][i] = true; }
    s.logEvent({ type: "oracle_look", seat: seat, count: look }, seat,
      { cards: top.slice().reverse().map(function (card) { return OFFERING_NAMES[offeringType(card)]; }) });
    if (look) { s.pending.phase = P.ORACLE; s.pending.look = look; }
  }

  function onPick(s, a) {
    var seat = s.active, look = s.pending.look;
    var start = s.altar.length - look;
    var after = {};
    others(s, seat).forEach(function (viewer) { after[viewer] = knownAfterPick(s, viewer, start); });
    var position = s.altar.length - 1 - a.depth;
    var card = s.altar.splice(position, 1)[0];
    s.altarUp.splice(position, 1);
    s.altarKnown.forEach(function (known) { known.splice(position, 1); });
    s.offerings[seat].push(card);
    others(s, seat).forEach(function (viewer) {
      var known = s.altarKnown[viewer];
      s.altarKnown[viewer] = known.slice(0, start).concat(after[viewer]);
    });
    if (s.altar.length && s.altarUp[s.altarUp.length - 1]) {
      s.altarKnown.forEach(function (known) { known[known.length - 1] = true; });
    }
    s.logEvent({ type: "oracle_pick", seat: seat, returned: look - 1 }, seat,
      { depth: a.depth, offering: OFFERING_NAMES[a.kind] });
    s.pending.phase = P.TAKE;
    s.pending.look = 0;
    afterTake(s);
  }

  // What viewer still knows of the looked-at cards that go back (rules §18): the card at each returned position is
  // the one that lay there or the one above, known exactly when viewer knew both and they are of one type.
  function knownAfterPick(s, viewer, start) {
    var known = s.altarKnown[viewer];
    var out = [];
    for (var i = start; i < s.altar.length - 1; i++) {
      out.push(known[i] && known[i + 1] && offeringType(s.altar[i]) === offeringType(s.altar[i + 1]));
    }
    return out;
  }

  // --- phase 4: scoring (rules §15) -----------------------------------------------------------------------------
  function soleMajority(counts) {
    var top = Math.max.apply(null, counts);
    var many = counts.filter(function (c) { return c === top; }).length;
    if (top < BONUS_MINIMUM || many !== 1) { return -1; }
    return counts.indexOf(top);
  }

  function score(s, row) {
    var cards = s.rows[row];
    var kind = s.kinds[cards[cards.length - 1]];
    var counts = range(0, s.numPlayers).map(function (seat) { return s.countKind(seat, kind); });
    var bonus = soleMajority(counts);
    var event = { type: "scoring", row: row, card: KIND_NAMES[kind], counts: counts, bonus: seatOrNone(bonus) };
    if (kind === STONEMASON || kind === PRIEST) { handOutTokens(s, kind, counts, bonus, event); return; }
    s.logEvent(event);
    var order = s.clockwiseFrom(s.active).filter(function (seat) { return counts[seat]; });
    if (kind === SHRINE) {
      s.pending = pending(P.SHRINE_REWARD, s.active, { queue: order, kind: kind, bonus: bonus });
      nextShrineReward(s);
    } else {
      s.pending = pending(P.SUBSTITUTE, s.active, { queue: order, kind: kind, bonus: bonus });
      nextFarmerReward(s);
    }
  }

  function handOutTokens(s, kind, counts, bonus, event) {
    var gains = counts.map(function (c, seat) { return c + (seat === bonus ? 1 : 0); });
    var tokens = kind === STONEMASON ? s.stones : s.points;
    gains.forEach(function (gain, seat) { tokens[seat] += gain; });
    event[kind === STONEMASON ? "stones" : "points"] = gains;
    s.logEvent(event);
    endTurn(s);
  }

  function shrineAmount(s, seat) { return s.countKind(seat, SHRINE) + (seat === s.pending.bonus ? 1 : 0); }

  function nextShrineReward(s) {
    var p = s.pending;
    if (p.queue.length) { p.seat = p.queue.shift(); } else { endTurn(s); }
  }

  function onShrineReward(s, a) {
    var seat = s.pending.seat;
    var tokens = a.act === A.POINTS ? s.points : s.stones;
    tokens[seat] += a.amount;
    s.logEvent({ type: "shrine_reward", seat: seat, reward: a.act === A.POINTS ? "points" : "stones",
      amount: a.amount });
    nextShrineReward(s);
  }

  function nextFarmerReward(s) {
    var p = s.pending;
    for (;;) {
      var seat, isBonus;
      if (p.queue.length) {
        seat = p.queue.shift(); isBonus = false;
      } else if (p.bonus >= 0) {
        seat = p.bonus; isBonus = true; p.bonus = -1;
      } else {
        endTurn(s);
        return;
      }
      if (s.supply[p.kind].length) {
        gain(s, seat, p.kind, isBonus, false);
      } else if (s.supply.some(function (cards) { return cards.length; })) {
        p.seat = seat;
        p.isBonus = isBonus;
        return;
      } else {
        s.logEvent({ type: "no_reward", seat: seat, bonus: isBonus });
      }
    }
  }

  function onSubstitute(s, a) {
    gain(s, s.pending.seat, a.kind, s.pending.isBonus, true);
    nextFarmerReward(s);
  }

  function gain(s, seat, offering, isBonus, substitute) {
    s.offerings[seat].push(s.supply[offering].pop());
    others(s, seat).forEach(function (viewer) { s.offerKnown[viewer][seat][offering] += 1; });
    s.logEvent({ type: "reward", seat: seat, offering: OFFERING_NAMES[offering], bonus: isBonus,
      substitute: substitute });
  }

  function endTurn(s) { beginTurn(s, (s.active + 1) % s.numPlayers); }

  // --- the end (rules §16-§17) ----------------------------------------------------------------------------------
  function altarCounts(s) {
    var counts = zeros(4);
    s.altar.forEach(function (card) { counts[offeringType(card)] += 1; });
    return counts;
  }

  function altarValues(counts) {
    var ranked = [];
    counts.forEach(function (c) { if (c > 0 && ranked.indexOf(c) < 0) { ranked.push(c); } });
    ranked.sort(function (a, b) { return b - a; });
    return counts.map(function (c) { return c > 0 ? ALTAR_VALUES[ranked.indexOf(c)] : 0; });
  }

  function scoreBreakdown(s, seat, values) {
    var shrines = s.countKind(seat, SHRINE);
    var offerings = 0;
    s.offerings[seat].forEach(function (card) { offerings += values[offeringType(card)]; });
    var parts = { points: s.points[seat], shrines: SHRINE_POINTS * shrines,
      stones: Math.floor(s.stones[seat] / STONES_PER_POINT), offerings: offerings };
    parts.total = parts.points + parts.shrines + parts.stones + parts.offerings;
    return parts;
  }

  // Python compares the keys (score, shrines, stones) as tuples.
  function better(a, b) {
    for (var i = 0; i < a.length; i++) { if (a[i] !== b[i]) { return a[i] > b[i]; } }
    return false;
  }

  function gameResult(s) {
    var values = altarValues(altarCounts(s));
    var seats = range(0, s.numPlayers);
    var scores = seats.map(function (seat) { return scoreBreakdown(s, seat, values).total; });
    var keys = seats.map(function (seat) { return [scores[seat], s.countKind(seat, SHRINE), s.stones[seat]]; });
    var ranks = keys.map(function (mine) {
      return 1 + keys.filter(function (other) { return better(other, mine); }).length;
    });
    return { scores: scores, ranks: ranks, reason: s.endReason };
  }

  function gameOver(s, reason) {
    s.pending = pending(P.OVER, -1);
    s.endReason = reason;
    // Final scoring turns the altar over and counts every offering display: nothing is hidden any more.
    s.altarKnown.forEach(function (known, viewer) { s.altarKnown[viewer] = s.altar.map(function () { return true; }); });
    for (var viewer = 0; viewer < s.numPlayers; viewer++) {
      others(s, viewer).forEach(function (seat) { s.offerKnown[viewer][seat] = s.offeringCounts(seat); });
    }
    var counts = altarCounts(s);
    var values = altarValues(counts);
    var r = gameResult(s);
    var seats = range(0, s.numPlayers);
    s.logEvent({ type: "game_over", reason: reason, altar: byType(counts), values: byType(values),
      offerings: seats.map(function (seat) { return byType(s.offeringCounts(seat)); }),
      breakdown: seats.map(function (seat) { return scoreBreakdown(s, seat, values); }),
      scores: r.scores.slice(), ranks: r.ranks.slice() });
  }

  // --- small helpers --------------------------------------------------------------------------------------------
  function others(s, seat) { return range(0, s.numPlayers).filter(function (other) { return other !== seat; }); }
  function kindNames(s, cards) { return cards.map(function (card) { return KIND_NAMES[s.kinds[card]]; }); }

  function removeKind(s, seat, kind) {
    var hand = s.hands[seat];
    for (var i = 0; i < hand.length; i++) { if (s.kinds[hand[i]] === kind) { return hand.splice(i, 1)[0]; } }
    throw new Error("seat " + seat + " holds no " + KIND_NAMES[kind]);
  }

  function removeOffering(s, seat, offering) {
    var cards = s.offerings[seat];
    for (var i = 0; i < cards.length; i++) { if (offeringType(cards[i]) === offering) { return cards.splice(i, 1)[0]; } }
    throw new Error("seat " + seat + " holds no " + OFFERING_NAMES[offering] + " offering");
  }

  var APPLY = [onBuy, onPlay, onMoreFarmers, onReturn, onOffer, onOfferDown, onOfferSupply, onTake, onPick,
    onShrineReward, onSubstitute];

  // --- views (views.py, rules §18) ------------------------------------------------------------------------------
  function display(s, seat) {
    var out = {};
    for (var kind = 0; kind < ORACLE; kind++) { out[KIND_NAMES[kind]] = s.displayCounts[seat][kind]; }
    return out;
  }

  function publicDict(s) {
    var n = s.numPlayers, seats = range(0, n);
    return {
      variants: { oracle: s.opts.oracle, demon: s.opts.demon }, turn: s.turn,
      active: s.active, hand_sizes: s.hands.map(function (h) { return h.length; }),
      displays: seats.map(function (x) { return display(s, x); }), stones: s.stones.slice(), points: s.points.slice(),
      offering_counts: s.offerings.map(function (o) { return o.length; }),
      rows: s.rows.map(function (row) { return kindNames(s, row); }), demon: seatOrNone(s.demon),
      deck: s.deck.length,
      oracles_in_deck: s.opts.oracle ?
        NUM_ORACLES - s.box.filter(function (card) { return s.kinds[card] === ORACLE; }).length : 0,
      supply: byType(s.supply.map(function (cards) { return cards.length; })),
      altar_top_face_up: s.altar.length ? s.altarUp[s.altarUp.length - 1] : null,
      decision: decisionDict(s)
    };
  }

  function privateDict(s, seat) {
    var known = s.altarKnown[seat];
    var hand = s.hands[seat].map(function (card) { return s.kinds[card]; }).sort(function (a, b) { return a - b; });
    return {
      seat: seat, hand: hand.map(function (kind) { return KIND_NAMES[kind]; }), offerings: byType(s.offeringCounts(seat)),
      offerings_known: range(0, s.numPlayers).map(function (x) {
        return byType(x === seat ? s.offeringCounts(x) : s.offerKnown[seat][x]);
      }),
      altar: s.altar.map(function (card, i) { return known[i] ? OFFERING_NAMES[offeringType(card)] : null; })
    };
  }

  function decisionDict(s) {
    var p = s.pending;
    var d = { kind: PHASE_WIRE[p.phase], seat: seatOrNone(p.seat), active: s.active };
    if (p.phase === P.MORE_FARMERS) {
      d.card = KIND_NAMES[p.kind];
      d.played = p.count;
    } else if (p.phase === P.TAKE) {
      d.to_take = HAND_SIZE - s.hands[s.active].length;
    } else if (p.phase === P.ORACLE) {
      d.looked = p.look;
    } else if (p.phase === P.SHRINE_REWARD) {
      d.bonus = p.seat === p.bonus;
    } else if (p.phase === P.SUBSTITUTE) {
      d.sold_out = OFFERING_NAMES[p.kind];
      d.bonus = p.isBonus;
    }
    return d;
  }

  // --- log text (views.format_event) ----------------------------------------------------------------------------
  var who = core.seatLabel(SEAT_COLOURS);
  function names(items) { return items.length ? items.join(", ") : "nothing"; }
  function cardText(name) { return name.replace(/_/g, " "); }
  function an(name) { var text = cardText(name); return ("aeiou".indexOf(text[0]) >= 0 ? "an " : "a ") + text; }
  function plural(count, noun) { return count === 1 ? count + " " + noun : count + " " + noun + "s"; }
  function stonesText(cost) { return cost ? " for " + plural(cost, "stone") : ""; }

  function scoringText(e) {
    var text = "scoring " + an(e.card) + " (bottom of row " + e.row + "): " + cardText(e.card) + "s per seat " +
      pyList(e.counts);
    ["stones", "points"].forEach(function (token) {
      if (e[token] !== undefined) { text += ", " + token + " gained " + pyList(e[token]); }
    });
    if (e.bonus !== null) { text += "; sole majority: " + who(e.bonus); }
    return text;
  }

  function gameOverText(e) {
    var altar = OFFERING_NAMES.map(function (t) { return t + " " + e.altar[t] + " (worth " + e.values[t] + ")"; });
    return "game over (" + e.reason + "): altar " + altar.join(", ") + "; scores " + pyList(e.scores) + ", ranks " +
      pyList(e.ranks);
  }

  function offerText(e, w) {
    if (e.from_supply) { return w + " puts " + an(e.offering) + " offering from the supply face up on the altar"; }
    if (!e.face_up) {
      return w + " puts an offering face down on the altar" + (e.offering !== undefined ? " (" + e.offering + ")" : "");
    }
    return w + " puts " + an(e.offering) + " offering face up on the altar";
  }

  function oracleText(e, w) {
    if (e.type === "oracle_look" && !e.count) { return w + " consults the oracle, but the altar is empty"; }
    if (e.type === "oracle_look") {
      var cards = e.cards !== undefined ? ": " + names(e.cards) + " (top first)" : "";
      return w + " consults the oracle and looks at the top " + plural(e.count, "altar card") + cards;
    }
    var picked = e.offering !== undefined ? " " + e.offering + " (depth " + e.depth + ")" : " one";
    return w + " keeps" + picked + " and puts " + e.returned + " back";
  }

  function formatEvent(e) {
    var t = e.type, w = who(e.seat);
    switch (t) {
      case "setup":
        return "setup: " + e.players + " players, stones " + pyList(e.stones) + ", deck " + e.deck +
          (e.oracle ? ", " + e.altar + " cards face down on the altar" : "") +
          (e.demon === null ? "" : ", demon on row " + e.demon) + "; " +
          e.rows.map(function (row, i) { return "row " + i + ": " + names(row.map(cardText)); }).join("; ");
      case "deal":
        return w + " takes " + e.count + " start farmers into its hand" +
          (e.cards !== undefined ? ": " + names(e.cards.map(cardText)) : "");
      case "turn": return "--- turn " + e.turn + ": " + w + " is active";
      case "skip_buy": return w + " buys nothing";
      case "buy": return w + " buys " + an(e.offering) + " offering" + (stonesText(e.cost) || " for free");
      case "play": return w + " plays " + an(e.card) + stonesText(e.cost);
      case "return": return w + " cannot play and returns " + an(e.card) + " to the box";
      case "demon": return "the demon moves from row " + e.from + " to row " + e.to;
      case "no_offering": return w + " has nothing to offer from " + (e.from_supply ? "the supply" : "its display");
      case "offer": return offerText(e, w);
      case "take": return w + " takes " + an(e.card) + " from row " + e.row;
      case "new_row":
        return "new row " + e.row + ": " + names(e.cards.map(cardText)) +
          (e.oracles ? " (" + plural(e.oracles, "oracle card") + " removed)" : "") + "; " +
          plural(e.deck, "card") + " left in the deck";
      case "oracle_look": case "oracle_pick": return oracleText(e, w);
      case "scoring": return scoringText(e);
      case "shrine_reward": return w + " takes " + e.amount + " " + e.reward + " for its shrines";
      case "reward":
        return w + " gains " + an((e.bonus ? "bonus " : "") + e.offering) + " offering" +
          (e.substitute ? " (substitute: sold out)" : "");
      case "no_reward": return w + " gains nothing: the supply is empty";
      case "game_over": return gameOverText(e);
      default: return JSON.stringify(e);
    }
  }

  // --- the viewer's tables (arena/viewer/games/bali2017.py) ------------------------------------------------------
  function refereePart(s, privates) {
    return {
      hands: privates.map(function (p) { return p.hand; }),
      offerings_known: privates.map(function (p) { return p.offerings; }),  // exact: each seat knows its own display
      altar: s.altar.map(function (card) { return OFFERING_NAMES[offeringType(card)]; }),
      altar_face_up: s.altarUp.slice()
    };
  }

  function scoring(view, gameOver) {
    var values = gameOver ? gameOver.values : byType(zeros(4));
    var rows = view.displays.map(function (shown, seat) {
      var offered = view.hands !== undefined || seat !== view.seat ? view.offerings_known[seat] : view.offerings;
      var row = { points: view.points[seat], shrines: SHRINE_POINTS * shown.shrine,
        stones: Math.floor(view.stones[seat] / STONES_PER_POINT),
        offerings: OFFERING_NAMES.reduce(function (sum, name) { return sum + offered[name] * values[name]; }, 0) };
      row.total = row.points + row.shrines + row.stones + row.offerings;
      return row;
    });
    return { columns: ["points", "shrines", "stones", "offerings", "total"], values: values, rows: rows };
  }

  return { State: State, over: P.OVER, legal: LEGAL, apply: APPLY, actionDict: actionDict,
    decisionDict: decisionDict, publicDict: publicDict, privateDict: privateDict, gameResult: gameResult, setup: setup,
    formatEvent: formatEvent, refereePart: refereePart, scoring: scoring };
});
