/* bali-2001's board in the replay viewer: the islands with their chips and piles, each seat's box and the discard
   pile. viewer.js draws the rest of the page and hands the board its drawing helpers (ui). */
(globalThis.BaliBoards = globalThis.BaliBoards || {})["bali-2001"] = function (ui) {
  "use strict";

  var stat = ui.stat, seatDot = ui.seatDot, esc = ui.esc, box = ui.box, seatBox = ui.seatBox;
  var ISLAND_SHORT = ui.legend.islands;

  // A Dalang card shows the letters of the two islands it names; every other card as the viewer draws it.
  function card(c) {
    if (c && c.kind === "dalang") {
      var pair = c.islands.map(function (i) { return ISLAND_SHORT[i] || i; }).join("");
      return '<span class="card k-dalang" title="Dalang ' + esc(c.islands.join("/")) + '">D ' + esc(pair) + "</span>";
    }
    return ui.card(c);
  }
  function cards(list) { return ui.cards(list, card); }

  function island(v, seat, name) {
    var chips = v.chips[name];
    var head = esc(name) + (v.dalang === name ? ' <span class="badge dalang">Dalang</span>' : "");
    var body = '<div class="chips">' + stat("prince", seatDot(chips.prince)) + stat("priest", seatDot(chips.priest)) +
      stat("seal", v.seals[name] === null ? "supply" : seatDot(v.seals[name])) + "</div>";
    body += '<table class="piles"><tbody>';
    for (var s = 0; s < v.num_players; s++) {
      var size = v.pile_sizes[s][name];
      var pile;
      if (v.hands) { pile = v.piles[s][name]; } else if (s === seat) { pile = v.piles[name]; } else { pile = null; }
      var village = [];
      if (chips.prince === s) { village.push("prince"); }
      if (chips.priest === s) { village.push("priest"); }
      body += "<tr><th>" + seatDot(s) + '</th><td class="village">' + esc(village.join(" ")) +
        '</td><td class="size">' + size + '</td><td class="pile">' +
        (pile ? cards(pile) : (size ? '<span class="hidden-pile">' + size + " face down</span>" :
          '<span class="none">none</span>')) + "</td></tr>";
    }
    body += "</tbody></table>";
    return box(head, body, "island" + (v.dalang === name ? " active-island" : ""));
  }

  function seatPart(v, seat, s) {
    var hand = v.hands ? v.hands[s] : (s === seat ? v.hand : null);
    var sealed = Object.keys(v.chips).filter(function (i) { return v.seals[i] === s; });
    var body = '<div class="chips">' + stat("score", "<b>" + v.scores[s] + "</b>") +
      stat("masks", v.masks[s].length ? esc(v.masks[s].join(" ")) : "none") +
      stat("seals", sealed.length ? esc(sealed.join(", ")) : "none") + stat("start card", v.start_cards[s]) +
      (v.fled.indexOf(s) >= 0 ? '<span class="badge fled">fled</span>' : "") + "</div>";
    body += '<div class="hand">' + stat("hand", v.hand_sizes[s]) + " " +
      (hand ? cards(hand) : '<span class="hidden-pile">hidden</span>') + "</div>";
    return seatBox(s, v, body);
  }

  function draw(v, seat) {
    var html = '<div class="stats">' + stat("turn", v.turn + " / " + v.max_turns) + stat("active", seatDot(v.active)) +
      stat("Dalang on", esc(v.dalang)) + stat("draw pile", v.draw_pile) + stat("discard", v.discard.length) +
      stat("masks left", v.masks_left.length ? esc(v.masks_left.join(" ")) : "none") + "</div>";
    html += '<div class="islands">' + Object.keys(v.chips).map(function (name) { return island(v, seat, name); })
      .join("") + "</div>";
    html += '<div class="seat-boxes">';
    for (var s = 0; s < v.num_players; s++) { html += seatPart(v, seat, s); }
    html += "</div>";
    var top = v.discard.slice(-12).reverse();
    html += box("Discard pile (" + v.discard.length + ", top first)",
      '<div class="hand">' + (top.length ? cards(top) : "empty") + (v.discard.length > top.length ? ' <span class="none">… and ' + (v.discard.length - top.length) +
        " below</span>" : "") + "</div>", "discard");
    return html;
  }

  return { draw: draw };
};
