/* Re-plays the Python engines' traces (engine_traces.py) with the viewer's JavaScript engines and prints every
   difference, naming the game, the decision and the field: node check_engines.js TRACES.json SCRIPT... (the
   engines' scripts as a page loads them, in order). Exits 1 if any game differs. */
"use strict";
var fs = require("fs");
var path = require("path");
process.argv.slice(3).forEach(function (script) { require(path.resolve(script)); });
var ENGINES = globalThis.BaliEngines || {};

// The first place where two plain values differ (maps compared as sets of keys), or null.
function difference(a, b, where) {
  if (a === b) { return null; }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) { return where + ": length " + a.length + " != " + b.length; }
    for (var i = 0; i < a.length; i++) {
      var d = difference(a[i], b[i], where + "[" + i + "]");
      if (d) { return d; }
    }
    return null;
  }
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    var ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
    if (ka.join(",") !== kb.join(",")) { return where + ": keys " + ka.join(",") + " != " + kb.join(","); }
    for (var k = 0; k < ka.length; k++) {
      var e = difference(a[ka[k]], b[ka[k]], where + "." + ka[k]);
      if (e) { return e; }
    }
    return null;
  }
  return where + ": " + JSON.stringify(a) + " != " + JSON.stringify(b);
}

// Where in the game a difference is: before decision n (numbered from 0, as in the record), or at the end.
function moment(n, step) {
  return step.options === undefined ? "at the end, " : "decision " + n + " (seat " + step.seat + "), ";
}

function checkGame(t) {
  var engine = ENGINES[t.game];
  if (!engine) { return "no engine for " + t.game; }
  var state = engine.newState(t.num_players, t.seed, t.options);
  var shown = 0;
  for (var n = 0; n < t.steps.length; n++) {
    var step = t.steps[n];
    var privates = [];
    for (var s = 0; s < t.num_players; s++) { privates.push(state.privateView(s)); }
    var events = state.eventVersions(shown);
    shown = state.numEvents();
    var got = {
      seat: state.currentPlayer(), decision: state.decision(), public: state.publicView(), privates: privates,
      referee: engine.refereePart(state, privates), events: events,
      lines: events.map(function (e) {
        return [engine.formatEvent(e[0]), e[1], e[2] === null ? null : engine.formatEvent(e[2])];
      })
    };
    var keys = ["seat", "decision", "public", "privates", "referee", "events", "lines"];
    for (var k = 0; k < keys.length; k++) {
      var d = difference(got[keys[k]], step[keys[k]], moment(n, step) + keys[k]);
      if (d) { return d; }
    }
    if (state.isTerminal() !== (step.options === undefined)) { return moment(n, step) + "isTerminal differs"; }
    if (step.options === undefined) { break; }
    var o = difference(state.options(), step.options, moment(n, step) + "options");
    if (o) { return o; }
    state.apply(step.index);
  }
  return difference(state.result(), t.result, "result");
}

var traces = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
var failed = 0;
traces.forEach(function (t) {
  var problem;
  try { problem = checkGame(t); } catch (err) { problem = "threw " + (err && err.stack || err); }
  if (problem) {
    failed++;
    if (failed <= 20) {
      console.log((t.name ? t.name + ": " : "") + t.game + " players " + t.num_players + " seed " + t.seed +
        " options " + JSON.stringify(t.options) + ": " + problem);
    }
  }
});
console.log(failed + " of " + traces.length + " games differ");
process.exit(failed ? 1 : 0);
