/* What the viewer's engines share, as arena/games/base.py holds it for the Python engines: the state machinery (the
   event log, the checked apply, the forced-choice loop, views, results), small helpers, and the registry of engines.
   Each engine (bali2001.js, bali2017.js) ports only its game's rules, views and log text, step for step, so that a
   record re-played here deals the same cards (rng.js is CPython's generator) and shows every seat exactly what the
   Python engine showed it; a rule changed in Python is changed in its engine too. The fixed facts (cards, counts,
   enums and their wire names) are not typed here: arena/viewer/facts.py emits them from the Python modules as
   data (BaliFacts), loaded before the engine. tests/viewer/test_js_engines.py and tests/stored_games.py hold the
   engines to the Python ones. */
(function (root) {
  "use strict";

  function range(from, to) { var out = []; for (var i = from; i < to; i++) { out.push(i); } return out; }
  function zeros(n) { var out = []; for (var i = 0; i < n; i++) { out.push(0); } return out; }
  function sum(items) { return items.reduce(function (a, b) { return a + b; }, 0); }
  function seatOrNone(seat) { return seat < 0 ? null : seat; }
  function assign(target, fields) {
    Object.keys(fields || {}).forEach(function (key) { target[key] = fields[key]; });
    return target;
  }
  // A list as Python prints it: "[3, 1]".
  function pyList(items) { return "[" + items.join(", ") + "]"; }
  // A seat as log text, "seat 2 (red)", or "nobody" (base.seat_label).
  function seatLabel(colours) {
    return function (seat) {
      return seat === null || seat === undefined || seat === -1 ? "nobody" : "seat " + seat + " (" + colours[seat] + ")";
    };
  }

  // An object whose every missing key is an error, not undefined: a fact the engine expects that Python lacks.
  function strict(object, what) {
    return new Proxy(object, { get: function (target, key) {
      if (typeof key === "string" && !(key in target)) { throw new Error(what + " has no " + key); }
      return target[key];
    } });
  }

  /** The fixed facts of a game, emitted from its Python modules (an enum as {members, wires}); an error if the
      page lacks them, and on reading a fact or an enum member they do not hold. */
  function facts(name) {
    var found = (root.BaliFacts || {})[name];
    if (!found) { throw new Error("no fixed facts for " + name + ": load its facts script before its engine"); }
    var out = {};
    Object.keys(found).forEach(function (key) {
      var value = found[key];
      out[key] = value && value.members && value.wires ?
        { members: strict(value.members, name + " " + key), wires: value.wires } : value;
    });
    return strict(out, "the facts of " + name);
  }

  /** The parts every state starts with (EngineState.__init__). */
  function initState(s, numPlayers, seed, options) {
    s.numPlayers = numPlayers;
    s.opts = options;
    s.rng = new root.BaliRandom(seed);
    s.log = [];
    s._legal = null;
  }

  /* The machinery of EngineState, put on an engine's State: spec holds the engine's over (the phase of a finished
     game), legal and apply (by phase), actionDict, decisionDict, publicDict, privateDict and gameResult. */
  function machinery(State, spec) {
    var proto = State.prototype;
    proto.logEvent = function (pub, seat, extra) {
      this.log.push([pub, seat === undefined ? -1 : seat, extra ? assign(assign({}, pub), extra) : null]);
    };
    proto.clockwiseFrom = function (seat) {
      var n = this.numPlayers;
      return range(0, n).map(function (i) { return (seat + i) % n; });
    };
    proto.isTerminal = function () { return this.pending.phase === spec.over; };
    proto.currentPlayer = function () { return this.isTerminal() ? null : this.pending.seat; };
    proto.legalActions = function () {
      if (this._legal === null) { this._legal = spec.legal[this.pending.phase](this); }
      return this._legal;
    };
    proto.options = function () { return this.legalActions().map(spec.actionDict); };
    proto.decision = function () { return spec.decisionDict(this); };
    proto.apply = function (index) {
      if (this.isTerminal()) { throw new Error("the game is over; no choice can be applied"); }
      var legal = this.legalActions();
      if (!(Number.isInteger(index) && index >= 0 && index < legal.length)) {
        throw new Error("option index must be an integer from 0 to " + (legal.length - 1) + ", got " + index);
      }
      spec.apply[this.pending.phase](this, legal[index]);
      this.settle();
    };
    // Apply every forced decision (a single legal choice) that follows, logged like any other.
    proto.settle = function () {
      for (;;) {
        this._legal = null;
        if (this.isTerminal()) { return; }
        var legal = spec.legal[this.pending.phase](this);
        if (legal.length !== 1) { this._legal = legal; return; }
        spec.apply[this.pending.phase](this, legal[0]);
      }
    };
    proto.publicView = function () {
      return assign({ game: spec.name, num_players: this.numPlayers }, spec.publicDict(this));
    };
    proto.privateView = function (seat) { return spec.privateDict(this, seat); };
    proto.eventVersions = function (since) { return this.log.slice(since || 0); };
    proto.numEvents = function () { return this.log.length; };
    proto.result = function () {
      var r = spec.gameResult(this);
      return { scores: r.scores, ranks: r.ranks };
    };
  }

  /* Register an engine under its game's name: spec is machinery's, plus State (its constructor takes the players,
     seed and options), setup, formatEvent, refereePart (the referee's part of the table) and scoring. */
  function register(name, spec) {
    machinery(spec.State, assign({ name: name }, spec));
    function newState(numPlayers, seed, options) {
      var s = new spec.State(numPlayers, seed, options);
      spec.setup(s);
      s.settle();
      return s;
    }
    var engines = root.BaliEngines = root.BaliEngines || {};
    engines[name] = { newState: newState, formatEvent: spec.formatEvent, refereePart: spec.refereePart,
      scoring: spec.scoring };
  }

  /** Define a game's engine: build(core, facts) gets this core and the game's facts, and returns register's spec. */
  function define(name, build) { register(name, build(root.BaliCore, facts(name))); }

  root.BaliCore = { range: range, zeros: zeros, sum: sum, seatOrNone: seatOrNone, assign: assign, pyList: pyList,
    seatLabel: seatLabel, initState: initState, define: define };
})(typeof globalThis !== "undefined" ? globalThis : this);
