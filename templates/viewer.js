/* shengji-toolkit hand viewer: draws each hand of the report from the JSON embedded once in
   the page (#sj-hands), when it is opened or scrolled into view. Every string from a record is
   set as text (textContent), never parsed as HTML. Keys: Left/Right a play, Up/Down a trick
   (when the viewer has focus), Home/End, N/P the next or previous hand, Space autoplay, ? the
   keys. The URL fragment #<hand>/<trick>[.<play>] keeps the place. */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("sj-config").textContent);
  var hands = JSON.parse(document.getElementById("sj-hands").textContent);
  var L = cfg.L, CARDS = cfg.cards;
  var TOKEN = {};
  (cfg.tokens || []).forEach(function (t, i) { TOKEN[t] = i; });
  var SYMBOL = {inaccuracy: "?!", mistake: "?", blunder: "??"};
  var byId = {};
  hands.forEach(function (h) { byId[h.id] = h; });
  var viewers = {};
  var active = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      parent.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return parent;
  }
  function put(parent, child) { parent.appendChild(child); return child; }
  function card(c) {
    var s = el("span", "c");
    if (c < 0) { s.classList.add("hidden"); s.textContent = "?"; }
    else { s.textContent = CARDS[c][0]; if (CARDS[c][1]) s.classList.add("red"); }
    s.setAttribute("data-card", c);
    return s;
  }
  function cardsEl(h, cards, cls) {
    var wrap = el("span", "cards" + (cls ? " " + cls : ""));
    cards.forEach(function (c) { wrap.appendChild(card(c)); });
    return wrap;
  }
  function groupedEl(h, cards, cls) {  // a holding: one group per suit, in trump order
    var wrap = el("span", "cards grouped" + (cls ? " " + cls : ""));
    var group = null, last = null;
    cards.forEach(function (c) {
      var k = c < 0 ? "hidden" : (h.cls ? h.cls[c] : 0);
      if (group === null || k !== last) {
        group = put(wrap, el("span", "suit-group"));
        if (k === 4) group.classList.add("trumps");
        last = k;
      }
      group.appendChild(card(c));
    });
    return wrap;
  }
  function tokensEl(h, tokens) { return cardsEl(h, tokens.map(function (t) { return TOKEN[t]; })); }
  function thresholdLabel(text) {  // the rulesets' chart labels, in the report's language
    if (cfg.lang === "en") return text;
    var m = /^(defenders|declarer) \+(\d+)$/.exec(text);
    if (m) return (m[1] === "defenders" ? L.thr_defenders : L.thr_declarer).replace("{n}", m[2]);
    if (text === "deal passes" || text === "defenders take the deal") return L.thr_passes;
    return text;
  }
  function named(h, text) {  // "seat 3" in a message: the name the page shows for it
    return String(text).replace(/\bseat (\d+)\b/g, function (all, s) {
      var i = parseInt(s, 10);
      return h.names[i] === undefined ? all : h.names[i];
    });
  }
  function message(h, v) {
    if (cfg.lang !== "zh" || !v[2]) return named(h, v[1]);
    var more = [];  // the statement, and the place and cards the English sentence names
    if (v[5] !== null && v[5] !== undefined) more.push(seatName(h, v[5]));
    if (v[7] && v[7].length) more.push(v[7].map(function (c) { return CARDS[c][0]; }).join(" "));
    return v[2] + (more.length ? "\uFF08" + more.join("\uFF1A") + "\uFF09" : "");
  }
  function violationEl(h, v, where) {
    var d = el("div", "violation");
    if (where) add(d, el("span", "where", where), " ");
    add(d, el("code", null, v[0]), " " + message(h, v));
    if (v[3] && cfg.lang !== "zh") add(d, " ", el("span", "req", L.required + ": " + named(h, v[3])));
    return d;
  }
  function markEl(d) {
    var m = el("span", "mark " + d.m, SYMBOL[d.m] || "");
    m.title = L[d.m] + ": " + d.sw + " " + L.points_lost;
    return m;
  }
  function fmt(x) { return (Math.round(x * 10) / 10).toFixed(1); }
  function swingText(h, d) {  // the swing in words
    if (!(d.sw > 0) && !(d.est > 0)) return L.as_good;
    return L.gave_away.replace("{n}", fmt(d.sw > 0 ? d.sw : d.est));
  }
  function reviewEl(h, d, who) {  // one line: the mark, who, the swing and the better play
    var box = el("div", "review-note");
    if (d.m) add(box, markEl(d), " ", el("b", null, L[d.m]), " \u00B7 ");
    add(box, who + " \u00B7 " + swingText(h, d) + " ");
    if (d.sw > 0 || d.est > 0) add(box, tokensEl(h, d.best));
    return box;
  }
  function lineEl(h, line, title) {  // what may follow a play, trick by trick
    var box = el("div", "line");
    add(box, el("b", null, title));
    line.forEach(function (t) {
      var row = put(box, el("div", "line-trick"));
      add(row, el("span", "where", L.trick + " " + t.trick + ": "));
      t.plays.forEach(function (p, i) {
        if (i) add(row, " \u00B7 ");
        add(row, el("span", "who", seatName(h, p[0]) + " "), tokensEl(h, p[1]));
      });
      if (t.winner !== null && t.winner !== undefined && t.plays.length === h.n) {
        add(row, " \u2192 ", el("b", null, seatName(h, t.winner)), " +" + t.points);
      }
    });
    return box;
  }
  function decisionEl(h, d, who) {  // a reviewed decision: every alternative with its value
    var box = el("div", "decision");
    var head = put(box, el("div", "decision-head"));
    if (d.m) add(head, markEl(d), " ", el("b", null, L[d.m]), " \u00B7 ");
    add(head, el("b", null, who), " \u00B7 " + swingText(h, d));
    if (d.sw > 0 || d.est > 0) add(head, " ", tokensEl(h, d.best));
    if (d.u) add(head, " \u00B7 ", el("span", "unclear", L.possibly.replace("{m}", L[d.u])));
    var note = L.estimate_note.replace(/\s*([(\uFF08])\u00B1 \{e\}([)\uFF09])/, function (all, a, b) {
      return d.e > 0 ? " " + a + "\u00B1 " + fmt(d.e) + b : "";
    });
    add(box, el("div", "how", d.x ? L.exact_note : note));
    var table = put(box, el("table", "alternatives"));
    var hr = put(put(table, el("thead")), el("tr"));
    add(hr, el("th", null, L.alternative), el("th", "num", L.value),
        el("th", "num", L.vs_made), el("th", "num", L.deals));
    var body = put(table, el("tbody"));
    var sign = d.def ? 1 : -1;  // a defender wants the defenders' points high
    var alts = d.alts.map(function (a, i) { return {a: a, i: i}; });
    alts.sort(function (x, y) { return sign * (y.a[1] - x.a[1]) || x.i - y.i; });
    var bestKey = d.best.join(" ");
    alts.forEach(function (o) {
      var a = o.a, row = put(body, el("tr", "alt"));
      var isBest = a[0].join(" ") === bestKey;
      if (o.i === 0) row.classList.add("made");
      if (isBest) row.classList.add("best");
      var c = put(row, el("td"));
      add(c, tokensEl(h, a[0]));
      if (o.i === 0) add(c, " ", el("span", "tag", L.play_made));
      if (isBest && o.i !== 0) add(c, " ", el("span", "tag best", L.best_choice));
      add(row, el("td", "num value", fmt(a[1]) + (a[2] ? " \u00B1 " + fmt(a[2]) : "")));
      var diff = sign * (a[1] - d.alts[0][1]);
      add(row, el("td", "num", o.i === 0 ? "" : (diff > 0 ? "+" : "") + fmt(diff)));
      add(row, el("td", "num", d.x ? L.all_deals : String(a[3] === null ? "" : a[3])));
    });
    var at = 0;  // the best's row, and whether a value on fewer deals (screened) ranks above it
    while (at < alts.length && alts[at].a[0].join(" ") !== bestKey) at++;
    if (!d.x && at < alts.length && alts.slice(0, at).some(function (o) {
      return o.a[3] !== null && o.a[3] < alts[at].a[3];
    })) add(box, el("p", "how screened", L.screened_note));
    if (d.g) add(box, el("p", "how", d.g));
    else if (d.n > d.alts.length) add(box, el("p", "how", L.first_of.replace("{n}", d.alts.length).replace("{m}", d.n)));
    if (d.lines && d.lines.length) {
      var lines = put(box, el("div", "lines"));
      add(lines, lineEl(h, d.lines[0], L.line_made));
      if (d.lines.length > 1 && (d.sw > 0 || d.est > 0)) add(lines, lineEl(h, d.lines[1], L.line_best));
      add(box, el("p", "how", L.line_note));
    }
    return box;
  }
  function seatName(h, s) {
    return (s === null || s === undefined) ? "?" : (h.names[s] === undefined ? "seat " + s : h.names[s]);
  }
  function trumpText(h) {
    if (h.trump === "NT") return L.no_trump;
    return ({S: "\u2660", H: "\u2665", C: "\u2663", D: "\u2666"})[h.trump] || "?";
  }

  /* -- a hand's plays, flattened, with each violation placed at its play ------------------- */
  function prepare(h) {
    if (h._flat) return;
    var flat = [], atPlay = {}, atTrick = {}, loose = [];
    h.tricks.forEach(function (t, ti) {
      t[7].forEach(function (p, k) { flat.push({t: ti, k: k, seat: p[0], cards: p[1]}); });
    });
    h.v.forEach(function (v) {
      var i = v[6];
      if (i !== null && i !== undefined && i < flat.length) (atPlay[i] = atPlay[i] || []).push(v);
      else if (v[4] !== null) (atTrick[v[4]] = atTrick[v[4]] || []).push(v);
      else loose.push(v);
    });
    h._flat = flat; h._atPlay = atPlay; h._atTrick = atTrick; h._loose = loose;
    h._rv = {};  // the decision review at each play (trick number and seat -> play index)
    if (h.rv) {
      var at = {};
      flat.forEach(function (f, i) { at[h.tricks[f.t][0] + ":" + f.seat] = i; });
      h.rv.d.forEach(function (d) {
        var i = at[d.t + ":" + d.s];
        if (i !== undefined) h._rv[i] = d;
      });
    }
    h._ends = [];  // position after each trick's last play
    var n = 0;
    h.tricks.forEach(function (t) { n += t[7].length; h._ends.push(n); });
  }

  /* -- the viewer --------------------------------------------------------------------------- */
  function Viewer(section, h) {
    prepare(h);
    this.h = h; this.section = section; this.pos = 0; this.view = -1;  // -1: all hands
    this.bottom = (h.me !== null && h.me !== undefined) ? h.me : 0;
    if (h.me !== null && h.me !== undefined && cfg.focus) this.view = h.me;
    var body = section.querySelector(".hand-body");
    body.textContent = "";
    add(body, this.summary());
    if (h._loose.length) {
      add(body, el("h3", null, L.violations));
      h._loose.forEach(function (v) { add(body, violationEl(h, v)); });
    }
    if (h.notes.length) {
      add(body, el("h3", null, L.notices));
      h.notes.forEach(function (n) { add(body, el("p", null, named(h, n))); });
    }
    if (h.incomplete) add(body, el("p", "incomplete", L.incomplete + " " + h.tricks.length));
    if (h.rv) h.rv.d.forEach(function (d) {  // the kitty burial's review (trick 0)
      if (d.t === 0) add(body, decisionEl(h, d, L.burial + " \u00B7 " + seatName(h, d.s)));
    });
    if (h.rv && h.rv.b && h.rv.b.length) {  // 标分: each bid or pass against its alternatives
      add(body, el("h3", null, L.auction_review));
      var said = function (v) { return v === null ? L.pass : L.bid + " " + v; };
      h.rv.b.forEach(function (b) {
        var p = el("p", "review-bid");
        if (b[5]) {
          var m = el("span", "mark " + b[5], SYMBOL[b[5]] || "");
          m.title = L[b[5]] + ": " + b[4] + " \u6863";
          add(p, m, " ", el("b", null, L[b[5]]), " \u00B7 ");
        }
        add(p, seatName(h, b[0]) + ": " + said(b[1]) + " \u00B7 " + L.as_declarer + " " + b[2]);
        if (b[4] > 0) add(p, " \u00B7 " + L.best_choice + " " + said(b[3]) + " (" + b[4] + " " + L.dang_lost + ")");
        body.appendChild(p);
      });
    }
    if (h.rv && h.rv.dc && h.rv.dc.length) {  // each trump declaration against its alternatives
      add(body, el("h3", null, L.declaration_review));
      h.rv.dc.forEach(function (c) {
        var p = el("p", "review-declaration");
        if (c[6]) {
          var m = el("span", "mark " + c[6], SYMBOL[c[6]] || "");
          m.title = L[c[6]] + ": " + c[4] + " \u00B1 " + c[5];
          add(p, m, " ", el("b", null, L[c[6]]), " \u00B7 ");
        }
        if (c[2] === null) {  // a declaration never made: its last chance
          add(p, seatName(h, c[0]) + ": " + L.declared_nothing + " \u00B7 " + L.last_chance +
              " " + c[1]);
        } else {
          add(p, seatName(h, c[0]) + ": " + L.declared_trump + " ", tokensEl(h, c[2]),
              " \u00B7 " + L.after_cards + " " + c[1]);
        }
        if (c[4] > 0) add(p, " \u00B7 " + L.best_choice + " ",
            c[3] === null ? L.not_yet : tokensEl(h, c[3]),
            " (" + c[4] + " \u00B1 " + c[5] + " " + L.levels_lost + ")");
        body.appendChild(p);
      });
    }
    this.root = put(body, el("div", "viewer"));
    this.root.setAttribute("tabindex", "0");
    this.root.setAttribute("role", "group");
    this.root.setAttribute("aria-label", L.viewer);
    this.build();
    if (h.tricks.length && h.rv && h.rv.d.length) {
      this.evalChart = put(body, el("div", "chart eval-chart"));
      this.plotEval();
    }
    if (h.tricks.length) {
      this.chart = put(body, el("div", "chart hand-chart"));
      this.plot();
    }
    add(body, el("h3", null, L.tricks));
    this.table = put(put(body, el("div", "scroll")), this.trickTable());
    add(body, this.legend());
    this.draw();
  }

  Viewer.prototype.summary = function () {
    var h = this.h, kv = el("div", "kv");
    function item(label, value, cls) {
      var d = el("div"); add(d, el("span", null, label));
      add(d, typeof value === "string" ? el("b", cls || null, value) : value);
      kv.appendChild(d);
    }
    item(L.ruleset, h.rs);
    item(L.trump, trumpText(h), (h.trump === "H" || h.trump === "D") ? "red" : null);
    item(L.level, h.level || "?");
    item(L.declarer, seatName(h, h.decl));
    if (h.contract !== null) item(L.contract, String(h.contract) + (h.surr ? " (" + L.surrendered + ")" : ""));
    var o = h.out;
    if (o) {
      item(L.defenders_points, String(o.dp));
      if (o.st) item("\u6863", o.st.join(" / "));
      item(L.multiplier, o.mult === null ? "\u2014" : String(o.mult));
      item(L.level_change, o.lc ? o.lc.join(" / ") : "\u2014");
      if (o.award !== null && o.award !== undefined) item(L.award, String(o.award));
      if (o.scores) item(L.score, o.scores.join(" / "));
      item(L.next_dealer, o.nd === null ? "\u2014" : seatName(h, o.nd));
    }
    if (h.rv && h.rv.acc) {
      var parts = [];
      for (var s = 0; s < h.n; s++) {
        if (h.rv.acc[String(s)] === undefined) continue;
        var span = h.rv.acci && h.rv.acci[String(s)];
        parts.push(seatName(h, s) + " " + Math.round(h.rv.acc[String(s)]) + "%" +
                   (span ? " (" + Math.round(span[0]) + "\u2013" + Math.round(span[1]) + ")" : ""));
      }
      if (parts.length) item(L.accuracy, parts.join(" \u00B7 "));
    }
    return kv;
  };

  Viewer.prototype.build = function () {
    var self = this, h = this.h, root = this.root;
    var bar = put(root, el("div", "controls"));
    function button(label, title, fn, cls) {
      var b = el("button", cls || null, label);
      b.type = "button"; b.title = title; b.setAttribute("aria-label", title);
      b.addEventListener("click", function () { active = self; fn(); });
      bar.appendChild(b);
      return b;
    }
    button("\u21E4", L.start, function () { self.go(0); }, "first");
    button("\u25C0\u25C0", L.prev_trick, function () { self.trick(-1); }, "prev-trick");
    button("\u25C0", L.prev_play, function () { self.go(self.pos - 1); }, "prev");
    button("\u25B6", L.next_play, function () { self.go(self.pos + 1); }, "next");
    button("\u25B6\u25B6", L.next_trick, function () { self.trick(1); }, "next-trick");
    button("\u21E5", L.end, function () { self.go(h._flat.length); }, "last");
    this.auto = button("\u25B7", L.autoplay, function () { self.autoplay(); }, "autoplay");
    var section = this.section;
    if (section.getAttribute("data-prev")) button("\u2190 " + L.hand, L.prev_hand, function () { self.hand(-1); }, "prev-hand");
    if (section.getAttribute("data-next")) button(L.hand + " \u2192", L.next_hand, function () { self.hand(1); }, "next-hand");
    button("?", L.keys, function () { self.help(); }, "help");
    this.where = put(bar, el("span", "where"));
    var select = el("select", "seat-view");
    select.setAttribute("aria-label", L.view);
    add(select, el("option", null, L.all_hands));
    select.options[0].value = "-1";
    for (var s = 0; s < h.n; s++) {
      var o = el("option", null, L.view_of + " " + s + " \u00B7 " + seatName(h, s));
      o.value = String(s);
      select.appendChild(o);
    }
    select.value = String(this.view);
    select.addEventListener("change", function () {
      self.view = parseInt(select.value, 10);
      if (self.view >= 0) self.bottom = self.view;
      active = self; self.draw();
    });
    add(bar, select);
    this.helpBox = put(root, el("div", "keys-help"));
    this.helpBox.hidden = true;
    L.keys_list.forEach(function (k) { add(self.helpBox, el("div", null, k)); });
    this.info = put(root, el("div", "info"));
    this.tableEl = put(root, el("div", "table seats-" + h.n));
    this.seats = []; this.spots = [];
    var mid = el("div", "mid");
    for (var i = 0; i < h.n; i++) {
      var box = put(this.tableEl, el("div", "seat"));
      this.seats.push(box);
      this.spots.push(put(mid, el("div", "spot")));
    }
    this.tableEl.appendChild(mid);
    this.kitty = put(root, el("div", "kitty"));
    this.notes = put(root, el("div", "play-notes"));
    root.addEventListener("focus", function () { active = self; });
    root.addEventListener("click", function () { active = self; });
  };

  Viewer.prototype.state = function () {
    var h = this.h, flat = h._flat, p = this.pos;
    var held = h.start.map(function (c) { return c.slice(); });
    for (var i = 0; i < p; i++) {
      var f = flat[i], hand = held[f.seat];
      if (!hand) continue;
      f.cards.forEach(function (c) {
        var j = hand.indexOf(c);
        if (j < 0) j = hand.indexOf(-1);
        if (j >= 0) hand.splice(j, 1);
      });
    }
    var ti = p > 0 ? flat[p - 1].t : -1, shown = p > 0 ? flat[p - 1].k + 1 : 0;
    var side = h.side, def = 0, dec = 0;
    for (var t = 0; t < h.tricks.length; t++) {
      var tr = h.tricks[t];
      if (t > ti || (t === ti && shown < tr[7].length)) break;
      if (tr[2] === null || !side.length) continue;
      if (side.indexOf(tr[2]) >= 0) dec += tr[3]; else def += tr[3];
    }
    return {held: held, ti: ti, shown: shown, def: def, dec: dec};
  };

  Viewer.prototype.draw = function () {
    var self = this, h = this.h, st = this.state(), n = h.n;
    var trick = st.ti >= 0 ? h.tricks[st.ti] : null;
    var complete = trick && st.shown === trick[7].length;
    // seats around the table, the bottom seat first, then in playing order
    var places = n === 3 ? ["bottom", "right", "left"] : ["bottom", "right", "top", "left"];
    for (var i = 0; i < n; i++) {
      var s = (this.bottom + i) % n, box = this.seats[i], spot = this.spots[i];
      box.className = "seat " + places[i];
      spot.className = "spot " + places[i];
      box.textContent = ""; spot.textContent = "";
      var head = put(box, el("div", "who"));
      add(head, el("b", null, seatName(h, s)), " ", el("span", "seatno", "#" + s));
      if (h.decl === s) add(head, " ", el("span", "tag", L.declarer));
      else if (h.side.indexOf(s) >= 0) add(head, " ", el("span", "tag", L.partner));
      var held = st.held[s] || [];
      add(head, " ", el("span", "count", held.length + " " + L.cards));
      box.setAttribute("data-seat", s);
      if (this.view < 0 || this.view === s) add(box, groupedEl(h, held, "holding"));
      else add(box, el("span", "cards holding concealed", "\uD83C\uDCA0 \u00D7 " + held.length));
      if (trick) {
        var plays = trick[7];
        for (var k = 0; k < st.shown; k++) {
          if (plays[k][0] !== s) continue;
          var idx = h._ends[st.ti] - plays.length + k;
          add(spot, el("span", "spot-who", seatName(h, s) + (k === 0 ? " \u00B7 " + L.lead : "")));
          var c = cardsEl(h, plays[k][1], "played");
          spot.appendChild(c);
          if (k === 0 && trick[6]) add(spot, el("span", "tag fail", L.failed_throw + ": "), cardsEl(h, trick[6]));
          else if (k === 0 && trick[4]) add(spot, el("span", "tag", L.throw));
          if (h._atPlay[idx]) spot.classList.add("bad");
          if (h._rv[idx] && h._rv[idx].m) spot.appendChild(markEl(h._rv[idx]));
          if (complete && trick[2] === s) spot.classList.add("win");
        }
      }
    }
    // the line above the table: where we are, trump, level and the points so far
    this.info.textContent = "";
    var where = trick ? L.trick + " " + trick[0] + " / " + h.tricks.length + " \u00B7 " + L.play + " " + st.shown + " / " + trick[7].length
                      : L.before_play;
    this.where.textContent = where;
    add(this.info, el("span", null, L.trump + " " + trumpText(h)), " \u00B7 ",
        el("span", null, L.level + " " + (h.level || "?")), " \u00B7 ",
        el("span", "pts-def", L.defenders + " " + st.def), " \u00B7 ",
        el("span", "pts-dec", L.declarers + " " + st.dec));
    if (trick) add(this.info, " \u00B7 ", el("span", null, L.leader + " " + seatName(h, trick[1])));
    if (complete && trick[2] !== null) add(this.info, " \u00B7 ", el("b", null, L.winner + " " + seatName(h, trick[2]) + " (+" + trick[3] + ")"));
    // the kitty: all of it in the all-hands view, in one seat's view only if it took it
    this.kitty.textContent = "";
    var sees = this.view < 0 || this.view === h.taker;
    if (h.kb || h.ka) {
      add(this.kitty, el("span", "label", L.kitty + ": "));
      if (sees) {
        if (h.kb) add(this.kitty, el("span", null, L.as_dealt + " "), cardsEl(h, h.kb, "kitty-dealt"), " ");
        if (h.ka) add(this.kitty, el("span", null, L.buried + " "), cardsEl(h, h.ka, "kitty-buried"));
      } else {
        add(this.kitty, el("span", "concealed", "\uD83C\uDCA0 \u00D7 " + (h.ka || h.kb).length));
      }
    }
    // violations and failed throws at the plays shown so far in this trick
    this.notes.textContent = "";
    if (trick) {
      var base = h._ends[st.ti] - trick[7].length;
      for (var k2 = 0; k2 < st.shown; k2++) {
        (h._atPlay[base + k2] || []).forEach(function (v) {
          add(self.notes, violationEl(h, v, L.trick + " " + trick[0] + " \u00B7 " + seatName(h, trick[7][k2][0])));
        });
      }
      if (complete) (h._atTrick[trick[0]] || []).forEach(function (v) { add(self.notes, violationEl(h, v, L.trick + " " + trick[0])); });
      for (var k3 = 0; k3 < st.shown; k3++) {  // the latest play's review in full, marks before it
        var rd = h._rv[base + k3], who = seatName(h, trick[7][k3][0]);
        if (rd && k3 === st.shown - 1) add(self.notes, decisionEl(h, rd, who));
        else if (rd && rd.m) add(self.notes, reviewEl(h, rd, who));
      }
      if (trick[6]) {
        var d = put(self.notes, el("div", "failed"));
        add(d, el("span", "tag fail", L.failed_throw), " " + seatName(h, trick[1]) + ": ", cardsEl(h, trick[6]));
      }
    }
    // the trick table follows
    if (this.rows) {
      this.rows.forEach(function (r, i) { r.classList.toggle("current", i === st.ti); });
    }
    this.markEval();
  };

  Viewer.prototype.autoplay = function () {
    var self = this;
    if (this.timer) {
      clearInterval(this.timer); this.timer = null;
      this.auto.textContent = "\u25B7"; this.auto.classList.remove("on");
      return;
    }
    if (this.pos >= this.h._flat.length) this.go(0);
    this.auto.textContent = "\u275A\u275A"; this.auto.classList.add("on");
    this.timer = setInterval(function () {
      if (self.pos >= self.h._flat.length) return self.autoplay();
      self.go(self.pos + 1);
    }, 900);
  };
  Viewer.prototype.hand = function (dir) {  // the next or previous hand of the report
    var id = this.section.getAttribute(dir > 0 ? "data-next" : "data-prev");
    if (!id) return;
    if (this.timer) this.autoplay();
    if (cfg.single) location.hash = "#" + id;
    else location.href = id + ".html";
  };
  Viewer.prototype.help = function () { this.helpBox.hidden = !this.helpBox.hidden; };

  Viewer.prototype.go = function (p, keepHash) {
    var n = this.h._flat.length;
    this.pos = Math.max(0, Math.min(n, p));
    this.draw();
    if (!keepHash) this.remember();
  };
  Viewer.prototype.trick = function (dir) {
    var ends = this.h._ends, p = this.pos, i;
    if (dir > 0) { for (i = 0; i < ends.length; i++) if (ends[i] > p) return this.go(ends[i]); return this.go(p); }
    for (i = ends.length - 1; i >= 0; i--) if (ends[i] < p) return this.go(ends[i]);
    return this.go(0);
  };
  Viewer.prototype.place = function () {
    var h = this.h, p = this.pos;
    if (p === 0) return h.id;
    var f = h._flat[p - 1], t = h.tricks[f.t];
    return h.id + "/" + t[0] + (f.k + 1 < t[7].length ? "." + (f.k + 1) : "");
  };
  Viewer.prototype.remember = function () {
    if (history.replaceState) history.replaceState(null, "", "#" + this.place());
  };
  Viewer.prototype.seek = function (trickNo, play) {
    var h = this.h;
    for (var i = 0; i < h.tricks.length; i++) {
      if (h.tricks[i][0] !== trickNo) continue;
      var before = h._ends[i] - h.tricks[i][7].length;
      var k = play ? Math.min(play, h.tricks[i][7].length) : h.tricks[i][7].length;
      return this.go(before + k, true);
    }
  };

  Viewer.prototype.trickTable = function () {
    var self = this, h = this.h, t = el("table", "tricks");
    var head = put(put(t, el("thead")), el("tr"));
    add(head, el("th", "num", L.trick));
    for (var s = 0; s < h.n; s++) add(head, el("th", null, s + " \u00B7 " + seatName(h, s)));
    add(head, el("th", null, L.winner), el("th", "num", L.points));
    var body = put(t, el("tbody"));
    this.rows = [];
    h.tricks.forEach(function (tr, ti) {
      var row = put(body, el("tr", "trick"));
      var defender = tr[2] !== null && h.side.length && h.side.indexOf(tr[2]) < 0;
      if (defender) row.classList.add("defender");
      var num = put(row, el("td", "num"));
      var a = put(num, el("a", null, String(tr[0])));
      a.href = "#" + h.id + "/" + tr[0];
      var plays = {};
      tr[7].forEach(function (p) { plays[p[0]] = p[1]; });
      var bad = false, base = h._ends[ti] - tr[7].length;
      tr[7].forEach(function (p, k) { if (h._atPlay[base + k]) bad = true; });
      if (bad || h._atTrick[tr[0]]) row.classList.add("bad");
      for (var s2 = 0; s2 < h.n; s2++) {
        var td = put(row, el("td", s2 === tr[2] ? "win" : null));
        if (s2 === tr[1]) { td.classList.add("leader"); add(td, el("span", "lead-mark", "\u25B8")); }
        if (plays[s2]) td.appendChild(cardsEl(h, plays[s2]));
        for (var k4 = 0; k4 < tr[7].length; k4++) {
          var rv = h._rv[base + k4];
          if (tr[7][k4][0] === s2 && rv && rv.m) td.appendChild(markEl(rv));
        }
        if (s2 === tr[1] && tr[6]) add(td, " ", el("span", "tag fail", L.failed_throw));
        else if (s2 === tr[1] && tr[4]) add(td, " ", el("span", "tag", L.throw));
      }
      var w = put(row, el("td", "winner", tr[2] === null ? "" : seatName(h, tr[2])));
      if (tr[5]) add(w, " ", el("span", "tag", L.trumped));
      add(row, el("td", "num points", String(tr[3])));
      row.addEventListener("click", function (e) {
        if (e.target.tagName === "A") return;  // the link sets the fragment itself
        active = self; self.seek(tr[0]); self.remember();
      });
      self.rows.push(row);
      var found = [];
      tr[7].forEach(function (p, k) {
        (h._atPlay[base + k] || []).forEach(function (v) { found.push([v, seatName(h, p[0])]); });
      });
      (h._atTrick[tr[0]] || []).forEach(function (v) { found.push([v, null]); });
      found.forEach(function (f) {
        var vr = put(body, el("tr", "bad"));
        put(vr, el("td"));
        var cell = put(vr, el("td"));
        cell.colSpan = h.n + 2;
        cell.appendChild(violationEl(h, f[0], f[1]));
      });
    });
    return t;
  };

  Viewer.prototype.legend = function () {
    var p = el("p", "legend");
    add(p, el("span", "lead-mark", "\u25B8"), " " + L.legend_leader + " \u00B7 ",
        el("span", "legend-win", L.winner), " " + L.legend_winner + " \u00B7 ",
        el("span", "legend-def", "10"), " " + L.legend_defenders + " \u00B7 ",
        el("span", "legend-bad", L.violations), " " + L.legend_bad);
    if (this.h.rv) add(p, " \u00B7 ", el("span", "mark inaccuracy", "?!"), el("span", "mark mistake", "?"),
                       el("span", "mark blunder", "??"), " " + L.legend_marks);
    return p;
  };

  /* the evaluation graph: the defenders' expected final points after each play (the value of
     the play made at each reviewed decision, carried to the next), the marks on it */
  Viewer.prototype.evalPoints = function () {
    var h = this.h, x = [], y = [], text = [], color = [], size = [], last = null;
    var colors = {inaccuracy: "#e6b800", mistake: "#e67e22", blunder: "#c0392b"};
    for (var i = 0; i < h._flat.length; i++) {
      var d = h._rv[i], f = h._flat[i];
      if (d) last = d.vm;
      if (last === null) continue;
      x.push(i + 1); y.push(last);
      var who = seatName(h, f.seat) + " \u00B7 " + L.trick + " " + h.tricks[f.t][0];
      text.push(d ? who + (d.m ? " \u00B7 " + L[d.m] + " (" + fmt(d.sw) + ")" : "") : who);
      color.push(d && d.m ? colors[d.m] : (d ? "#1b6ca8" : "#9aa7b4"));
      size.push(d && d.m ? 13 : (d ? 7 : 4));
    }
    if (h.out && h.out.dp !== null && h.out.dp !== undefined && x.length) {
      x.push(h._flat.length); y.push(h.out.dp); text.push(L.final_points);
      color.push("#23313f"); size.push(9);
    }
    return {x: x, y: y, text: text, color: color, size: size};
  };
  Viewer.prototype.plotEval = function () {
    if (!window.sjPlotly) return;
    var self = this, pts = this.evalPoints(), chart = this.evalChart;
    window.sjPlotly.then(function () {
      Plotly.newPlot(chart, [{type: "scatter", mode: "lines+markers", x: pts.x, y: pts.y,
        text: pts.text, hovertemplate: "%{text}<br>%{y:.1f}<extra></extra>", name: L.chart_eval,
        line: {shape: "hv", color: "#9aa7b4"}, marker: {color: pts.color, size: pts.size}}],
        {title: {text: L.chart_eval}, height: 280, margin: {l: 50, r: 20, t: 40, b: 40},
         xaxis: {title: {text: L.play_no}}, yaxis: {title: {text: L.expected_points}},
         shapes: [], showlegend: false},
        {displayModeBar: false, responsive: true}).then(function () {
          self.evalReady = true; self.markEval();
          chart.on("plotly_click", function (e) {
            if (e && e.points && e.points.length) { active = self; self.go(e.points[0].x); }
          });
        });
    });
  };
  Viewer.prototype.markEval = function () {  // a line at the current play
    if (!this.evalReady || !window.Plotly) return;
    Plotly.relayout(this.evalChart, {shapes: [{type: "line", yref: "paper", y0: 0, y1: 1,
      x0: this.pos, x1: this.pos, line: {color: "#1b6ca8", width: 1, dash: "dot"}}]});
  };

  Viewer.prototype.plot = function () {
    if (!window.sjPlotly) return;
    var h = this.h, x = [], y = [], run = 0;
    h.tricks.forEach(function (t) {
      if (t[2] !== null && h.side.length && h.side.indexOf(t[2]) < 0) run += t[3];
      x.push(t[0]); y.push(run);
    });
    var shapes = [], notes = [];
    h.thr.forEach(function (p) {
      shapes.push({type: "line", xref: "paper", x0: 0, x1: 1, y0: p[0], y1: p[0],
                   line: {dash: "dot", color: "#c0392b"}});
      notes.push({xref: "paper", x: 0, y: p[0], text: String(p[0]) + ": " + thresholdLabel(String(p[1])).replace(/</g, "&lt;"),
                  showarrow: false, xanchor: "left", yanchor: "bottom", font: {size: 11, color: "#c0392b"}});
    });
    var chart = this.chart;
    window.sjPlotly.then(function () { Plotly.newPlot(chart, [{type: "scatter", mode: "lines+markers", name: L.defenders_points, x: x, y: y}],
      {title: {text: L.chart_points}, shapes: shapes, annotations: notes, height: 300,
       margin: {l: 50, r: 20, t: 40, b: 40}, xaxis: {title: {text: L.trick}}, yaxis: {title: {text: L.points}}},
      {displayModeBar: false, responsive: true, staticPlot: false}); });
  };

  /* -- drawing on demand, and the fragment --------------------------------------------------- */
  function open(section) {
    var id = section.id;
    if (!viewers[id] && byId[id]) viewers[id] = new Viewer(section, byId[id]);
    return viewers[id];
  }
  function follow() {
    var frag = location.hash.slice(1);
    try { frag = decodeURIComponent(frag); } catch (e) { /* "#%": not an escape; as typed */ }
    if (!frag) return;
    var parts = frag.split("/"), section = document.getElementById(parts[0]);
    if (!section || !byId[parts[0]]) return;
    var v = open(section);
    active = v;
    if (parts.length > 1) {
      var tp = parts[1].split(".");
      v.seek(parseInt(tp[0], 10), tp.length > 1 ? parseInt(tp[1], 10) : 0);
      v.root.scrollIntoView({block: "start"});
    } else {
      section.scrollIntoView({block: "start"});
    }
  }
  var sections = document.querySelectorAll("section.hand[id]");
  if (sections.length === 1 && byId[sections[0].id]) {
    active = open(sections[0]);
  } else if ("IntersectionObserver" in window) {
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { seen.unobserve(e.target); open(e.target); }
      });
    }, {rootMargin: "300px 0px"});
    sections.forEach(function (s) { seen.observe(s); });
  } else {
    sections.forEach(open);
  }
  window.addEventListener("hashchange", follow);
  follow();

  document.addEventListener("keydown", function (e) {
    if (!active || e.altKey || e.ctrlKey || e.metaKey) return;
    var tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    var inside = active.root.contains(document.activeElement) || sections.length === 1;
    var v = active;
    switch (e.key) {
      case "ArrowRight": v.go(v.pos + 1); break;
      case "ArrowLeft": v.go(v.pos - 1); break;
      case "ArrowDown": if (!inside) return; v.trick(1); break;
      case "ArrowUp": if (!inside) return; v.trick(-1); break;
      case "PageDown": if (!inside) return; v.trick(1); break;
      case "PageUp": if (!inside) return; v.trick(-1); break;
      case "Home": if (!inside) return; v.go(0); break;
      case "End": if (!inside) return; v.go(v.h._flat.length); break;
      case "n": case "N": v.hand(1); break;
      case "p": case "P": v.hand(-1); break;
      case " ": if (!inside) return; v.autoplay(); break;
      case "?": v.help(); break;
      default: return;
    }
    e.preventDefault();
  });

  var loading = document.getElementById("sj-loading");
  if (loading) loading.hidden = true;

  /* -- the dashboard's table of hands: sort and filter in the page ---------------------------- */
  var index = document.getElementById("hand-index");
  if (index) {
    var tbody = index.tBodies[0], rows = Array.prototype.slice.call(tbody.rows);
    var q = function (id) { return document.getElementById(id); };
    // each row's fields read once: a filter then touches only the rows whose state changes
    var keys = rows.map(function (r) {
      var c = r.cells;
      return {match: c[0].textContent.toLowerCase(), decl: c[2].textContent.toLowerCase(),
              pts: parseFloat(c[5].textContent), bad: parseInt(c[6].textContent, 10) > 0,
              shown: true};
    });
    var filter = function () {
      var m = (q("f-match").value || "").toLowerCase(), d = (q("f-declarer").value || "").toLowerCase();
      var lo = parseFloat(q("f-min").value), hi = parseFloat(q("f-max").value), bad = q("f-bad").checked;
      var shown = 0;
      for (var i = 0; i < rows.length; i++) {
        var k = keys[i];
        var ok = k.match.indexOf(m) >= 0 && k.decl.indexOf(d) >= 0 &&
                 (isNaN(lo) || k.pts >= lo) && (isNaN(hi) || k.pts <= hi) && (!bad || k.bad);
        if (ok !== k.shown) { rows[i].hidden = !ok; k.shown = ok; }
        if (ok) shown++;
      }
      q("f-count").textContent = String(shown);
    };
    ["f-match", "f-declarer", "f-min", "f-max", "f-bad"].forEach(function (id) {
      if (q(id)) q(id).addEventListener("input", filter);
    });
    Array.prototype.forEach.call(index.tHead.rows[0].cells, function (th, col) {
      th.classList.add("sortable");
      th.setAttribute("tabindex", "0");
      var sort = function () {
        var numeric = th.classList.contains("num"), dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        Array.prototype.forEach.call(index.tHead.rows[0].cells, function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
        var order = rows.map(function (r, i) {
          var x = r.cells[col].textContent;
          if (numeric) { x = parseFloat(x); x = isNaN(x) ? -Infinity : x; }
          return {i: i, x: x};
        });
        order.sort(function (a, b) { return numeric ? dir * (a.x - b.x) : dir * a.x.localeCompare(b.x); });
        rows = order.map(function (o) { return rows[o.i]; });
        keys = order.map(function (o) { return keys[o.i]; });
        var frag = document.createDocumentFragment();
        rows.forEach(function (r) { frag.appendChild(r); });
        tbody.appendChild(frag);
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  }
})();
