/* The replay viewer: rebuilds every frame of a view from the page's inline data (re-playing a referee's page's
   record with the game's engine) and draws the table. */
(function () {
  "use strict";

  var marks = { start: performance.now() };
  var DATA = JSON.parse(document.getElementById("replay-data").textContent);
  if (DATA.mode === "record") {  // a record's decisions come as [seat, index, time, fault, cpu, charged, wait],
    // their logs apart
    DATA.decisions = DATA.decisions.map(function (d, k) {
      var log = DATA.logs[k];
      var decision = { seat: d[0], index: d[1], time: d[2], fault: d[3], cpu: d[4], charged: d[5], wait: d[6] };
      if (log) { decision.log = log[0]; decision.log_dropped = log[1]; }
      return decision;
    });
  }
  marks.parsed = performance.now();
  var N = DATA.decisions.length;          // frames 0..N-1 come before a decision, frame N is the end
  var REFEREE = "referee";
  var PLAY_MS = 450;       // a decision's time on screen at 1x
  var SPEEDS = [0.5, 1, 2, 4, 8, 16, 32];
  var LOG_WINDOW = 30;     // decisions shown in the log on either side of the current one
  var LOG_MARGIN = 8;      // how near the window's edge the current decision may come before the window moves
  var FRAGMENT_MS = 250;   // browsers throttle history updates: the fragment follows a fast stepper at this pace
  // The short forms the board draws cards with, and what each means: the game's facts, from the page.
  var KIND_SHORT = DATA.legend.cards;

  var cache = {};
  var REPLAYED = null;     // a record re-played: [public parts, own parts by view]
  var current = { step: 0, view: DATA.page_seat === null ? REFEREE : String(DATA.page_seat), speed: 1 };
  var playing = null;      // while playing: { step, time: where and when it (re)started, timer }
  var stepTimes = [];
  var faultsByDecision = {};
  var BOARD = null;        // the game's board: its script (static/boards/) registers it under the game's name
  DATA.faults.forEach(function (f) { if (f.decision !== null) { faultsByDecision[f.decision] = f; } });

  // --- data ------------------------------------------------------------------------------------------------------
  function applyPatch(value, patch) {
    if (patch === null || patch === undefined) { return value; }
    if (Array.isArray(patch)) { return patch[0]; }
    if (patch.k !== undefined) {
      var result = {};
      var removed = patch.x || [];
      Object.keys(value).forEach(function (key) { if (removed.indexOf(key) < 0) { result[key] = value[key]; } });
      Object.keys(patch.k).forEach(function (key) { result[key] = applyPatch(value[key], patch.k[key]); });
      return result;
    }
    var items = patch.l !== undefined ? value.slice(0, patch.l) : value.slice();
    if (patch.i) {
      Object.keys(patch.i).forEach(function (i) { items[+i] = applyPatch(items[+i], patch.i[i]); });
    }
    return patch.a ? items.concat(patch.a) : items;
  }

  // A referee's page holds the record (mode "record"): the game's engine re-plays it here and makes what a seat's
  // page holds already (mode "frames"): the public part of every frame and each view's own part, the log lines
  // and each decision's kind and options. Returns [public parts, own parts by view], or throws a ReplayProblem.
  function ReplayProblem(message) { this.message = message; }

  function replayRecord() {
    var engine = (window.BaliEngines || {})[DATA.game];
    if (!engine) { throw new ReplayProblem("this page has no engine for " + DATA.game); }
    var n = DATA.num_players, state = engine.newState(n, DATA.seed, DATA.parsed_options);
    var publics = [], owns = { referee: [] }, lines = [], shown = 0, s;
    for (s = 0; s < n; s++) { owns[String(s)] = []; }
    function snapshot() {
      publics.push(state.publicView());
      var privates = [];
      for (var seat = 0; seat < n; seat++) { privates.push(state.privateView(seat)); owns[String(seat)].push(privates[seat]); }
      owns.referee.push(engine.refereePart(state, privates));
      lines.push(state.eventVersions(shown).map(function (e) {
        return e[2] === null ? engine.formatEvent(e[0]) : [engine.formatEvent(e[0]), e[1], engine.formatEvent(e[2])];
      }));
      shown = state.numEvents();
    }
    DATA.decisions.forEach(function (d, k) {
      if (state.currentPlayer() !== d.seat) {
        throw new ReplayProblem("decision " + k + ": seat " + state.currentPlayer() + " is to move, but the record " +
          "says seat " + d.seat);
      }
      snapshot();
      d.kind = state.decision().kind;
      d.options = state.options();
      if (!(Number.isInteger(d.index) && d.index >= 0 && d.index < d.options.length)) {
        throw new ReplayProblem("decision " + k + ": the record chose option " + d.index + " of " + d.options.length);
      }
      state.apply(d.index);
    });
    if (!state.isTerminal()) { throw new ReplayProblem("the game is not over after the recorded decisions"); }
    snapshot();
    var scores = state.result().scores;
    if (JSON.stringify(scores) !== JSON.stringify(DATA.result.scores)) {
      throw new ReplayProblem("the re-played scores " + JSON.stringify(scores) + " are not the recorded " +
        JSON.stringify(DATA.result.scores));
    }
    var over = state.eventVersions(0).map(function (e) { return e[0]; })
      .filter(function (e) { return e.type === "game_over"; }).pop() || null;
    var last = publics.length - 1;
    DATA.events = lines;
    DATA.views = {};
    Object.keys(owns).forEach(function (view) {
      DATA.views[view] = { scoring: engine.scoring(Object.assign({}, publics[last], owns[view][last]), over) };
    });
    return [publics, owns];
  }

  // Every frame of a view: the public part every view shares, and the view's own part (from a seat's page, one
  // pass over the patches; unchanged parts are shared with the frame before).
  function frames(view) {
    if (!cache[view] && REPLAYED) {
      var own = REPLAYED[1][view];
      cache[view] = REPLAYED[0].map(function (pub, i) { return Object.assign({}, pub, own[i]); });
    } else if (!cache[view]) {
      var shared = DATA.public, patches = DATA.views[view].frames;
      var out = new Array(shared.length);
      var pub = null, mine = null;
      for (var i = 0; i < shared.length; i++) {
        pub = applyPatch(pub, shared[i]);
        mine = applyPatch(mine, patches[i]);
        out[i] = Object.assign({}, pub, mine);
      }
      cache[view] = out;
    }
    return cache[view];
  }

  // A log line as a view sees it: the same for every view, or [public, seat, private] where the seat (and the
  // referee) sees the private version.
  function lineFor(view, line) {
    if (typeof line === "string") { return line; }
    return view === REFEREE || +view === line[1] ? line[2] : line[0];
  }

  function viewSeat(view) { return view === REFEREE ? null : +view; }

  // --- text helpers ----------------------------------------------------------------------------------------------
  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function seatDot(seat) {
    if (seat === null || seat === undefined || seat < 0) { return '<span class="nobody">nobody</span>'; }
    return '<span class="dot c-' + esc(DATA.colours[seat]) + '" title="seat ' + seat + " (" +
      esc(DATA.colours[seat]) + "): " + esc(DATA.seats[seat].name) + '">' + seat + "</span>";
  }
  function seatName(seat) {
    return "seat " + seat + " (" + DATA.colours[seat] + ") " + DATA.seats[seat].name;
  }
  function optionText(option) {
    var parts = [option.action];
    Object.keys(option).forEach(function (key) {
      if (key === "action") { return; }
      var value = option[key];
      parts.push(key + " " + (Array.isArray(value) ? value.join("/") : String(value)));
    });
    return parts.join(" · ");
  }
  function firstLine(text) {
    var lines = text.replace(/\n$/, "").split("\n");
    return lines[0] + (lines.length > 1 ? " … (" + lines.length + " lines)" : "");
  }
  function ms(seconds) {
    return seconds === null ? "not asked" : (seconds * 1000).toFixed(1) + " ms";
  }
  function card(c) {
    if (c === null || c === undefined) { return '<span class="card unknown" title="unknown">?</span>'; }
    if (typeof c === "string") {
      return '<span class="card k-' + esc(c) + '" title="' + esc(c.replace("_", " ")) + '">' +
        esc(KIND_SHORT[c] || c) + "</span>";
    }
    return '<span class="card k-' + esc(c.kind) + '" title="' + esc(c.kind) + '">' + esc(KIND_SHORT[c.kind] || c.kind) +
      "</span>";
  }
  // A list of cards, each drawn by draw (default: card).
  function cards(list, draw) {
    return list.length ? list.map(draw || card).join("") : '<span class="none">none</span>';
  }
  function box(title, body, extra) {
    return '<div class="box ' + (extra || "") + '"><h3>' + title + "</h3>" + body + "</div>";
  }
  function stat(label, value) {
    return '<span class="stat"><span class="label">' + esc(label) + "</span> " + value + "</span>";
  }

  function seatBox(s, v, body) {
    var marks = (v.active === s ? ' <span class="badge">active</span>' : "") +
      (v.decision && v.decision.seat === s ? ' <span class="badge deciding">deciding</span>' : "");
    return box(seatDot(s) + " " + esc(DATA.seats[s].name) + marks, body,
      "seat-box" + (v.decision && v.decision.seat === s ? " deciding-box" : ""));
  }

  // --- the end ---------------------------------------------------------------------------------------------------
  function results(view) {
    var r = DATA.result;
    var scoring = DATA.views[view].scoring;
    var order = DATA.seats.map(function (s) { return s.seat; }).sort(function (a, b) {
      return r.match_ranks[a] - r.match_ranks[b] || a - b;
    });
    // The recorded score comes first, so that a phone shows it without scrolling; its breakdown follows.
    var head = '<tr><th>rank</th><th class="bot">bot</th><th>score</th>' + scoring.columns.map(function (c) {
      return '<th class="part">' + esc(c) + "</th>";
    }).join("") + "<th></th></tr>";
    var rows = order.map(function (s) {
      var parts = scoring.rows[s];
      return '<tr class="result-row" data-seat="' + s + '"><td>' + r.match_ranks[s] + '</td><td class="bot">' +
        seatDot(s) + " " + esc(DATA.seats[s].name) + '</td><td class="score"><b>' + r.scores[s] + "</b></td>" +
        scoring.columns.map(function (c) { return '<td class="part">' + parts[c] + "</td>"; }).join("") + "<td>" +
        (r.disqualified.indexOf(s) >= 0 ? '<span class="badge fault">disqualified</span>' : "") + "</td></tr>";
    }).join("");
    var values = BOARD.scoringNote ? BOARD.scoringNote(scoring) : "";
    var other = DATA.faults.filter(function (f) { return f.decision === null; }).map(faultHtml).join("");
    return box("Game over: " + esc(r.reason) + (r.cut_short ? " (cut short)" : ""),
      '<div class="scroll"><table class="results"><thead>' + head + "</thead><tbody>" + rows +
      "</tbody></table></div>" + values + other, "final");
  }

  function faultHtml(f) {
    var where = f.decision === null ? f.phase : "decision #" + f.decision;
    var html = '<div class="fault"><b>fault: ' + esc(f.kind) + "</b> " + seatDot(f.seat) + " " + esc(f.bot) + ", " +
      esc(where);
    if (f.detail !== undefined) {
      html += '<div class="detail">' + esc(f.detail) + "</div>";
      if (f.stderr) { html += '<pre class="stderr">' + esc(f.stderr) + "</pre>"; }
    }
    return html + "</div>";
  }

  // --- the decision panel and the log ----------------------------------------------------------------------------
  function decisionPanel(step) {
    if (step >= N) { return '<div class="box"><h3>The end</h3><p>' + N + " decisions. " +
      "The final scores are on the board.</p></div>"; }
    var d = DATA.decisions[step];
    var html = '<div class="box' + (d.fault ? " faulted" : "") + '"><h3>Decision #' + step + ": " + seatDot(d.seat) +
      " " + esc(DATA.seats[d.seat].name) + "</h3>" + '<div class="chips">' + stat("kind", esc(d.kind)) +
      stat("time", esc(ms(d.time))) +
      (d.cpu !== null && d.cpu !== undefined ? stat("CPU", esc(ms(d.cpu))) : "") +
      (d.charged !== null && d.charged !== undefined ? stat("charged", esc(ms(d.charged))) : "") +
      (d.wait !== null && d.wait !== undefined ? stat("waiting for a core", esc(ms(d.wait))) : "") +
      (d.fault ? '<span class="badge fault">' + esc(d.fault) + "</span>" : "") + "</div>";
    if (d.options) {
      html += '<ol class="options" start="0">' + d.options.map(function (o, i) {
        return "<li" + (i === d.index ? ' class="chosen"' : "") + ">" + esc(optionText(o)) +
          (i === d.index ? ' <span class="badge">chosen</span>' : "") + "</li>";
      }).join("") + "</ol>";
    } else {
      html += '<p class="note">Another seat\'s options and choice are not shown in this view.</p>';
    }
    if (faultsByDecision[step]) { html += faultHtml(faultsByDecision[step]); }
    return html + botLog(d) + "</div>";
  }

  // What the deciding bot wrote to stderr while it decided (on pages that hold it: the organiser's).
  function botLog(d) {
    if (d.log === undefined) { return ""; }
    return '<div class="bot-log"><h4>' + esc(DATA.seats[d.seat].name) + " wrote to stderr meanwhile</h4>" +
      (d.log ? '<pre class="said">' + esc(d.log) + "</pre>" : "") +
      (d.log_dropped ? '<p class="note">… and ' + d.log_dropped + " more bytes, not kept</p>" : "") + "</div>";
  }

  // The log shows a window of decisions around the current one, so that a long game's log costs no more to lay
  // out than a short one's; the window moves along as the viewer steps.
  function buildLog(view, center) {
    var events = DATA.events;
    var from = Math.max(0, center - LOG_WINDOW), to = Math.min(N, center + LOG_WINDOW);
    var parts = [];
    if (from > 0) {
      parts.push('<div class="entry more" data-step="' + (from - 1) + '">… ' + from + " earlier decisions</div>");
    }
    for (var k = from; k <= to; k++) {
      var lines = events[k].map(function (entry) {
        var line = lineFor(view, entry);
        return '<div class="event' + (line.indexOf("---") === 0 ? " turn-line" : "") + '">' + esc(line) + "</div>";
      }).join("");
      var line = "";
      if (k < N) {
        var d = DATA.decisions[k];
        var chosen = d.options ? " → " + esc(optionText(d.options[d.index])) : " " + esc(d.kind);
        line = '<div class="choice' + (d.fault ? " faulted" : "") + '">#' + k + " " + seatDot(d.seat) + chosen +
          ' <span class="time">' + esc(ms(d.time)) + "</span>" +
          (d.fault ? ' <span class="badge fault">' + esc(d.fault) + "</span>" : "") + "</div>" +
          (d.log ? '<div class="said-line" title="what the bot wrote to stderr">' + esc(firstLine(d.log)) +
            "</div>" : "");
      } else {
        line = '<div class="choice">game over</div>';
      }
      parts.push('<div class="entry" data-step="' + k + '">' + lines + line + "</div>");
    }
    if (to < N) {
      parts.push('<div class="entry more" data-step="' + (to + 1) + '">… ' + (N - to) + " later decisions</div>");
    }
    var log = document.getElementById("log");
    log.innerHTML = parts.join("");
    log.dataset.view = view;
    log.dataset.from = String(from);
    log.dataset.to = String(to);
  }

  function logCovers(log, view, step) {
    var from = +log.dataset.from, to = +log.dataset.to;
    return log.dataset.view === view && (from === 0 || step >= from + LOG_MARGIN) &&
      (to === N || step <= to - LOG_MARGIN);
  }

  // --- moving ----------------------------------------------------------------------------------------------------
  function turnOf(step) { return frames(current.view)[step].turn; }

  function render() {
    var step = current.step;
    var view = current.view;
    var v = frames(view)[step];
    var seat = viewSeat(view);
    var board = BOARD.draw(v, seat);
    document.getElementById("board").innerHTML = (step >= N ? results(view) : "") + board;
    document.getElementById("decision").innerHTML = decisionPanel(step);
    // A crash's stderr opens at its end: a traceback's last line says what went wrong.
    document.querySelectorAll(".fault .stderr").forEach(function (pre) { pre.scrollTop = pre.scrollHeight; });
    document.getElementById("position").textContent = (step < N ? "decision #" + step + " of " + N : "the end, after " +
      N + " decisions") + " · turn " + v.turn;
    document.getElementById("slider").value = String(step);
    var log = document.getElementById("log");
    if (!logCovers(log, view, step)) { buildLog(view, step); }
    var old = log.querySelector(".entry.current");
    if (old) { old.classList.remove("current"); }
    var entry = log.querySelector('.entry[data-step="' + step + '"]:not(.more)');
    entry.classList.add("current");
    log.scrollTop = Math.max(0, entry.offsetTop - log.clientHeight / 3);
    document.body.dataset.step = String(step);
    document.body.dataset.view = view;
    nameView(view);
    writeFragment();
  }

  // The title says whose view is shown, as the page's own title does (arena/viewer/__init__.py seat_view).
  function nameView(view) {
    var heading = document.getElementById("title");
    var seat = viewSeat(view);
    var text = heading.dataset.game + ", " + (seat === null ? "referee's view (everything)" :
      "seat " + seat + "'s view (" + DATA.seats[seat].name + ")");
    if (heading.textContent !== text) { heading.textContent = text; document.title = text; }
  }

  function show(step, view) {
    var start = performance.now();
    current.step = Math.max(0, Math.min(N, step));
    if (view !== undefined && DATA.views[view]) { current.view = view; }
    render();
    void document.body.offsetHeight;  // include the layout in the measured time
    stepTimes.push(performance.now() - start);
  }

  // A move by the user: playback, if on, goes on from there.
  function go(step, view) {
    show(step, view);
    if (playing) { restartClock(); }
  }

  function nextTurn(direction) {
    var step = current.step;
    var turn = turnOf(step);
    if (direction > 0) {
      while (step < N && turnOf(step) === turn) { step++; }
    } else {
      while (step > 0 && turnOf(step - 1) === turn) { step--; }  // the start of this turn
      if (step === current.step && step > 0) {
        turn = turnOf(step - 1);
        while (step > 0 && turnOf(step - 1) === turn) { step--; }
      }
    }
    go(step);
  }

  // Playback keeps to the clock, not to the drawing: the step shown is the one due at this moment (from where it
  // started, at PLAY_MS / speed a decision), and the decisions passed while a frame was drawn are skipped over, so
  // that a game plays at its speed however long a frame takes to draw.
  function setPlaying(on) {
    if (playing) { clearTimeout(playing.timer); playing = null; }
    if (on) {
      if (current.step >= N) { show(0); }
      playing = { timer: null };
      restartClock();
    }
    var button = document.getElementById("play");
    button.textContent = on ? "pause" : "play";
    button.setAttribute("aria-pressed", on ? "true" : "false");
  }

  function stepMs() { return PLAY_MS / current.speed; }

  function restartClock() {
    clearTimeout(playing.timer);
    playing.step = current.step;
    playing.time = performance.now();
    playing.timer = setTimeout(tick, stepMs());
  }

  function tick() {
    var passed = Math.floor((performance.now() - playing.time) / stepMs());
    var due = Math.min(N, playing.step + passed);
    if (due > current.step) { show(due); }
    if (current.step >= N) { setPlaying(false); return; }
    var next = playing.time + (passed + 1) * stepMs();
    playing.timer = setTimeout(tick, Math.max(0, next - performance.now()));
  }

  function setSpeed(speed) {
    if (SPEEDS.indexOf(speed) < 0 || speed === current.speed) { return; }
    current.speed = speed;
    document.getElementById("speed").value = String(speed);
    if (playing) { restartClock(); }
    writeFragment();
  }

  function changeSpeed(by) {
    var at = SPEEDS.indexOf(current.speed) + by;
    if (at >= 0 && at < SPEEDS.length) { setSpeed(SPEEDS[at]); }
  }

  // --- the fragment: #step=120&seat=2&speed=4 -------------------------------------------------------------------
  function readFragment() {
    var params = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var at = pair.indexOf("=");
      if (at > 0) { params[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1)); }
    });
    var step = /^\d+$/.test(params.step || "") ? +params.step : current.step;
    var view = current.view;
    if (DATA.page_seat === null && params.seat !== undefined) {
      view = DATA.views[params.seat] ? params.seat : REFEREE;
    }
    var speed = SPEEDS.indexOf(+params.speed) >= 0 ? +params.speed : current.speed;
    return { step: step, view: view, speed: speed };
  }

  var fragmentTimer = null;
  function writeFragment() {
    if (fragmentTimer === null) { fragmentTimer = setTimeout(flushFragment, FRAGMENT_MS); }
  }
  function flushFragment() {
    fragmentTimer = null;
    var hash = "#step=" + current.step + "&seat=" + current.view + "&speed=" + current.speed;
    if (location.hash === hash) { return; }
    try { history.replaceState(null, "", hash); } catch (e) { location.replace(hash); }
  }

  // --- wiring ----------------------------------------------------------------------------------------------------
  function drawLegend() {
    document.getElementById("legend-list").innerHTML = DATA.legend.entries.map(function (entry) {
      return '<div class="term"><dt>' + esc(entry[0]) + "</dt><dd>" + esc(entry[1]) + "</dd></div>";
    }).join("");
  }

  function setup() {
    drawLegend();
    var seats = document.getElementById("seats");
    seats.innerHTML = DATA.seats.map(function (s) {
      return '<span class="seat-chip">' + seatDot(s.seat) + " " + esc(s.name) + " " + esc(s.version) + "</span>";
    }).join("");
    var select = document.getElementById("view");
    Object.keys(DATA.views).forEach(function (key) {
      var option = document.createElement("option");
      option.value = key;
      option.textContent = key === REFEREE ? "referee (everything)" : "seat " + key + " (" + DATA.colours[+key] + ")";
      select.appendChild(option);
    });
    if (DATA.page_seat !== null) { select.disabled = true; }
    select.addEventListener("change", function () { go(current.step, select.value); });
    var slider = document.getElementById("slider");
    slider.max = String(N);
    slider.addEventListener("input", function () { go(+slider.value); });
    document.getElementById("first").addEventListener("click", function () { go(0); });
    document.getElementById("last").addEventListener("click", function () { go(N); });
    document.getElementById("back").addEventListener("click", function () { go(current.step - 1); });
    document.getElementById("forward").addEventListener("click", function () { go(current.step + 1); });
    document.getElementById("next-turn").addEventListener("click", function () { nextTurn(1); });
    document.getElementById("prev-turn").addEventListener("click", function () { nextTurn(-1); });
    document.getElementById("play").addEventListener("click", function () { setPlaying(!playing); });
    var speeds = document.getElementById("speed");
    SPEEDS.forEach(function (speed) {
      var option = document.createElement("option");
      option.value = String(speed);
      option.textContent = speed + "×";
      speeds.appendChild(option);
    });
    speeds.addEventListener("change", function () { setSpeed(+speeds.value); });
    document.getElementById("log").addEventListener("click", function (event) {
      var entry = event.target.closest(".entry");
      if (entry) { go(+entry.dataset.step); }
    });
    function faster() { changeSpeed(1); }
    function slower() { changeSpeed(-1); }
    document.addEventListener("keydown", function (event) {
      if (event.target.tagName === "SELECT" || event.altKey || event.ctrlKey || event.metaKey) { return; }
      var keys = {
        ArrowRight: function () { go(current.step + 1); }, ArrowLeft: function () { go(current.step - 1); },
        ArrowDown: function () { nextTurn(1); }, ArrowUp: function () { nextTurn(-1); },
        Home: function () { go(0); }, End: function () { go(N); }, " ": function () { setPlaying(!playing); },
        "+": faster, "=": faster, ">": faster, "]": faster, "-": slower, "<": slower, "[": slower
      };
      if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
    });
    window.addEventListener("hashchange", function () {
      var wanted = readFragment();
      setSpeed(wanted.speed);
      if (wanted.step !== current.step || wanted.view !== current.view) { go(wanted.step, wanted.view); }
    });
    var start = readFragment();
    current.view = start.view;
    current.speed = start.speed;
    speeds.value = String(current.speed);
    select.value = current.view;
    frames(current.view);
    marks.frames = performance.now();
    buildLog(current.view, start.step);
    marks.log = performance.now();
    go(start.step, start.view);
    marks.drawn = performance.now();
  }

  // The game's board, given the drawing helpers it shares with the rest of the page.
  function makeBoard() {
    var make = (window.BaliBoards || {})[DATA.game];
    if (!make) { throw new ReplayProblem("this page has no board for " + DATA.game); }
    return make({ esc: esc, stat: stat, seatDot: seatDot, card: card, cards: cards, box: box, seatBox: seatBox,
      legend: DATA.legend });
  }

  // A record that does not re-play here gets a page that says so (and why) instead of a wrong game.
  function start() {
    try {
      BOARD = makeBoard();
      if (DATA.mode === "record") { REPLAYED = replayRecord(); }
    } catch (err) {
      var reason = err instanceof ReplayProblem ? err.message : "the viewer failed: " + err;
      document.getElementById("board").innerHTML = '<div class="box problem"><h3>This game cannot be shown</h3><p>' +
        esc("Its record does not re-play: " + reason) + "</p></div>";
      window.arenaViewer = { data: DATA, problem: reason };
      if (!(err instanceof ReplayProblem)) { throw err; }
      return;
    }
    marks.replayed = performance.now();
    setup();
    window.arenaViewer = {
      data: DATA, frames: frames, go: go, next: function () { go(current.step + 1); },
      position: function () { return { step: current.step, view: current.view, last: N }; },
      speed: function () { return current.speed; }, playing: function () { return playing !== null; },
      loadMs: performance.now(), stepTimes: stepTimes, marks: marks
    };
  }

  start();
})();
