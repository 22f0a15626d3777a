/* bali-2017's board in the replay viewer: the rows, the supply, the altar and each seat's box; and the altar's
   values under the final scores. viewer.js draws the rest of the page and hands the board its drawing helpers
   (ui). */
(globalThis.BaliBoards = globalThis.BaliBoards || {})["bali-2017"] = function (ui) {
  "use strict";

  var stat = ui.stat, seatDot = ui.seatDot, esc = ui.esc, box = ui.box, seatBox = ui.seatBox, card = ui.card;
  var cards = ui.cards;

  function offering(type) {
    if (type === null) { return card(null); }
    return '<span class="card k-' + esc(type) + '_farmer" title="' + esc(type) + ' offering">' + esc(type) + "</span>";
  }

  function rows(v) {
    return '<div class="rows">' + v.rows.map(function (row, i) {
      var body = '<div class="column">' + row.map(function (c, j) {
        return '<div class="slot' + (j === row.length - 1 ? " bottom" : "") + '">' + card(c) + "</div>";
      }).join("") + (row.length ? "" : '<span class="none">empty</span>') + "</div>";
      return box("Row " + i + (v.demon === i ? ' <span class="badge demon">demon</span>' : ""), body, "row");
    }).join("") + "</div>";
  }

  function supplyAndAltar(v) {
    var supply = Object.keys(v.supply).map(function (t) { return stat(t, v.supply[t]); }).join("");
    var html = '<div class="pair">' + box("Supply", '<div class="chips">' + supply + "</div>", "supply");
    var altar = v.altar.slice().reverse();
    var faceUp = v.altar_face_up ? v.altar_face_up.slice().reverse() : null;
    var altarBody = altar.length ? '<div class="hand">' + altar.map(function (c, i) {
      var down = faceUp ? !faceUp[i] : (i === 0 && v.altar_top_face_up === false);
      return '<span class="' + (down ? "face-down" : "") + '">' + offering(c) + "</span>";
    }).join("") + "</div>" : '<span class="none">empty</span>';
    return html + box("Altar (" + v.altar.length + ", top first" +
      (v.altar.length ? ", top " + (v.altar_top_face_up ? "face up" : "face down") : "") + ")", altarBody, "altar") +
      "</div>";
  }

  function seatPart(v, seat, s) {
    var hand = v.hands ? v.hands[s] : (s === seat ? v.hand : null);
    var display = Object.keys(v.displays[s]).filter(function (k) { return v.displays[s][k]; }).map(function (k) {
      return card(k) + '<span class="times">×' + v.displays[s][k] + "</span>";
    }).join(" ");
    var own = !v.hands && s === seat;
    var known = own ? v.offerings : v.offerings_known[s];
    var exact = own || v.hands || v.decision.kind === "game_over";  // every display is counted at the end
    var offered = Object.keys(known).map(function (t) {
      return stat(t, known[t]);
    }).join("");
    var body = '<div class="chips">' + stat("stones", v.stones[s]) + stat("points", v.points[s]) +
      stat("offerings", v.offering_counts[s]) + "</div>" +
      '<div class="chips">' + stat("offering display" + (exact ? "" : " (at least)"), "") + offered + "</div>" +
      '<div class="hand">' + stat("display", "") + " " + (display || '<span class="none">empty</span>') + "</div>" +
      '<div class="hand">' + stat("hand", v.hand_sizes[s]) + " " +
      (hand ? cards(hand) : '<span class="hidden-pile">hidden</span>') + "</div>";
    return seatBox(s, v, body);
  }

  function draw(v, seat) {
    var variants = Object.keys(v.variants).filter(function (k) { return v.variants[k]; });
    var html = '<div class="stats">' + stat("turn", v.turn) + stat("active", seatDot(v.active)) + stat("deck", v.deck) +
      (v.variants.oracle ? stat("oracles in deck", v.oracles_in_deck) : "") +
      (v.demon !== null ? stat("demon on row", v.demon) : "") +
      stat("variants", variants.length ? esc(variants.join(", ")) : "none") + "</div>";
    html += rows(v) + supplyAndAltar(v) + '<div class="seat-boxes">';
    for (var s = 0; s < v.num_players; s++) { html += seatPart(v, seat, s); }
    return html + "</div>";
  }

  // Under the final scores: what each offering card on the altar was worth.
  function scoringNote(scoring) {
    return '<p class="note">altar values per offering card: ' +
      esc(Object.keys(scoring.values).map(function (t) { return t + " " + scoring.values[t]; }).join(", ")) + "</p>";
  }

  return { draw: draw, scoringNote: scoringNote };
};
