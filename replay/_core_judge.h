/* The validator's checks of recorded tricks (replay/phases/follow.py, throws.py and tricks.py):
 * part of replay/_greedy.c, which includes it after the Python helpers. */

/* ------------------------------------------------------------------------------------------ */
/* the validator's checks (replay/phases/follow.py, throws.py and tricks.py)                    */
/*
 * A Judge holds one card order and one ruleset's answer tables. Its checks answer the costly
 * questions of a recorded play on count vectors: True only where the Python check would find
 * no violation (the best answers shown; no unit of a throw beatable), False otherwise or past
 * the fixed sizes; the Python check then runs and words whatever it finds. So a verdict is
 * always the Python engine's; the C only lets it skip its search where nothing is wrong.
 */

typedef struct { PyObject_HEAD const Order *o; const Rules *r; } JudgeObject;

/* a list of 54 copies (a seat's held list) into out; 0 with an exception */
static int counts_of54(PyObject *held, int *out) {
    if (!PyList_Check(held) || PyList_GET_SIZE(held) != NC) {
        PyErr_SetString(PyExc_TypeError, "a holding is a list of 54 ints");
        return 0;
    }
    for (int c = 0; c < NC; c++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(held, c));
        if (v == -1 && PyErr_Occurred()) return 0;
        out[c] = (int)v;
    }
    return 1;
}

/* a list of (width, length) pairs; 1 read, 0 past the sizes, -1 with an exception */
static int kinds_of(PyObject *kinds, Kind *out, int *nk) {
    PyObject *fast = PySequence_Fast(kinds, "kinds");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n < 1 || n > MAXK) { Py_DECREF(fast); return 0; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *kd = PySequence_Fast_GET_ITEM(fast, i);
        if (!int_at(kd, 0, &out[i].w) || !int_at(kd, 1, &out[i].l)) { Py_DECREF(fast); return -1; }
        if (out[i].w < 1 || out[i].w > MAXW || out[i].l < 1 || out[i].l > MAXLEN) {
            Py_DECREF(fast); return 0;
        }
    }
    *nk = (int)n;
    Py_DECREF(fast);
    return 1;
}

/* cards as ints into out; 1 read, 0 past the sizes or not a card, -1 with an exception */
static int cards_of(PyObject *cards, int *out, int *n) {
    PyObject *fast = PySequence_Fast(cards, "cards");
    if (!fast) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > MAXHAND) { Py_DECREF(fast); return 0; }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < len; i++) {
        long v = PyLong_AsLong(items[i]);
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(fast); return -1; }
        if (v < 0 || v >= NC) { Py_DECREF(fast); return 0; }
        out[i] = (int)v;
    }
    *n = (int)len;
    Py_DECREF(fast);
    return 1;
}

/* follow.follow's structure check on count vectors: 1 when the follow's cards of the led
 * class (played) show the best answers to the lead's kinds that the holding before the play
 * (before) allowed within budget cards; 0 when not, -1 past the fixed sizes */
static int shows_best(const JudgeObject *self, const Hold *before, const Hold *played,
                      const Kind *kinds, int nk, int budget) {
    Spec s;
    s.suit = *before;
    hold_clear(&s.others);
    s.nu = nk;
    for (int i = 0; i < nk; i++) {
        s.u[i] = kinds[i];
        s.ans[i] = &self->r->ans[kinds[i].w][kinds[i].l];
        if (s.ans[i]->n == 0) return -1;
    }
    s.n = s.m = budget;
    find_required(&s, self->o);
    return search_from(&s, self->o, played, 0, budget);
}

PyDoc_STRVAR(follow_ok_doc,
"follow_ok(held, klass, in_suit, kinds, budget) -> bool\n"
"True when the cards of the led suit class a follow played (in_suit; held: the seat's\n"
"copies after the play) show the best answers to the lead's units (kinds) that its holding\n"
"before the play allowed within budget cards (follow.follow's structure check, D-2); False\n"
"when they do not or when this cannot tell (the Python check then decides).");

static PyObject *judge_follow_ok(JudgeObject *self, PyObject *args) {
    PyObject *held, *in_suit, *kinds;
    int k, budget;
    if (!PyArg_ParseTuple(args, "OiOOi", &held, &k, &in_suit, &kinds, &budget)) return NULL;
    const Order *o = self->o;
    int h[NC], cards[MAXHAND], n, nk, got;
    Kind kd[MAXK];
    if (k < 0 || k > TRUMP) Py_RETURN_FALSE;
    if (!counts_of54(held, h)) return NULL;
    if ((got = cards_of(in_suit, cards, &n)) <= 0) { if (got < 0) return NULL; Py_RETURN_FALSE; }
    if ((got = kinds_of(kinds, kd, &nk)) <= 0) { if (got < 0) return NULL; Py_RETURN_FALSE; }
    Hold before, played;
    hold_clear(&before);
    hold_clear(&played);
    for (int i = 0; i < o->nmem[k]; i++) {
        int c = o->mem[k][i];
        if (h[c] < 0 || h[c] > MAXW) Py_RETURN_FALSE;
        if (h[c]) hold_add(&before, c, h[c]);
    }
    for (int i = 0; i < n; i++) {
        int c = cards[i];
        if (o->klass[c] != k || before.cnt[c] >= MAXW) Py_RETURN_FALSE;
        hold_add(&before, c, 1);
        hold_add(&played, c, 1);
    }
    if (shows_best(self, &before, &played, kd, nk, budget) == 1) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

PyDoc_STRVAR(strength_doc,
"strength(lead_class, kinds, cards) -> int\n"
"trick.play_strength as rank * 65536 + value: -1 where the play cannot win, -2 where this\n"
"cannot tell (past its fixed sizes: the Python function then answers).");

static PyObject *judge_strength(JudgeObject *self, PyObject *args) {
    PyObject *kinds, *cards;
    int lead_class, nk, n, got;
    Kind kd[MAXK];
    int cs[MAXHAND];
    if (!PyArg_ParseTuple(args, "iOO", &lead_class, &kinds, &cards)) return NULL;
    if ((got = kinds_of(kinds, kd, &nk)) <= 0) { if (got < 0) return NULL; return PyLong_FromLong(-2); }
    if ((got = cards_of(cards, cs, &n)) <= 0) { if (got < 0) return NULL; return PyLong_FromLong(-2); }
    if (n == 0 || lead_class < 0 || lead_class > TRUMP) return PyLong_FromLong(-2);
    return PyLong_FromLong(play_strength(self->o, lead_class, kd, nk, cs, n));
}

PyDoc_STRVAR(throw_beaten_doc,
"throw_beaten(held, seat, klass, units) -> int\n"
"Whether another seat's known cards of the suit class (held: every seat's copies) beat a unit\n"
"of a throw (units: (width, length, low) each; units.beats_unit): 1 yes, 0 no, -1 where\n"
"this cannot tell (past its fixed sizes).");

static PyObject *judge_throw_beaten(JudgeObject *self, PyObject *args) {
    PyObject *held, *units;
    int seat, k;
    if (!PyArg_ParseTuple(args, "OiiO", &held, &seat, &k, &units)) return NULL;
    const Order *o = self->o;
    if (!PyList_Check(held) || k < 0 || k > TRUMP) return PyLong_FromLong(-1);
    Py_ssize_t P = PyList_GET_SIZE(held);
    PyObject *fast = PySequence_Fast(units, "units");
    if (!fast) return NULL;
    Py_ssize_t nu = PySequence_Fast_GET_SIZE(fast);
    if (nu > MAXK) { Py_DECREF(fast); return PyLong_FromLong(-1); }
    Unit us[MAXK];
    for (Py_ssize_t i = 0; i < nu; i++) {
        PyObject *u = PySequence_Fast_GET_ITEM(fast, i);
        if (!int_at(u, 0, &us[i].w) || !int_at(u, 1, &us[i].l) || !int_at(u, 2, &us[i].low)) {
            Py_DECREF(fast); return NULL;
        }
        if (us[i].w < 1 || us[i].w > MAXW || us[i].l < 1 || us[i].l > MAXLEN) {
            Py_DECREF(fast); return PyLong_FromLong(-1);
        }
    }
    Py_DECREF(fast);
    if (P < 2 || P > MAXP || seat < 0 || seat >= P) return PyLong_FromLong(-1);
    Game *g = malloc(sizeof(Game));
    if (!g) return PyErr_NoMemory();
    g->o = o; g->r = self->r; g->P = (int)P;
    memset(g->class_left, 0, sizeof g->class_left);
    for (int st = 0; st < g->P; st++) {
        if (!counts_of54(PyList_GET_ITEM(held, st), g->held[st])) { free(g); return NULL; }
        if (!count_held(g, st)) { free(g); return PyLong_FromLong(-1); }
    }
    int beaten = units_beaten(g, seat, k, us, (int)nu);
    free(g);
    return PyLong_FromLong(beaten);
}

static PyObject *s_seat, *s_cards, *s_seq, *s_trick, *s_winner, *s_points;
static PyObject *s_lead, *s_follow, *s_trump, *s_discard;

/* where the fields of the two event types the tricks are made of sit in their objects
 * (msgspec keeps a Struct's fields as slots: read directly, no attribute lookup) */
typedef struct {
    PyObject *play_type, *end_type;
    Py_ssize_t seat, cards, seq;     /* Play */
    Py_ssize_t trick, winner, points;  /* TrickEnd */
    PyObject *trick_play, *unit, *make_trick;  /* the Python classes and factory to build */
    PyObject *index;                 /* card token -> index */
    int stop_card;                   /* a trick won by copies of it is left to Python (-1) */
} Kinds;

static Py_ssize_t slot_of(PyObject *type, PyObject *name) {
    PyObject *d = PyObject_GetAttr(type, name);
    if (!d) return -1;
    Py_ssize_t off = -1;
    if (Py_TYPE(d) == &PyMemberDescr_Type) {
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type == T_OBJECT_EX || m->type == T_OBJECT) off = m->offset;
    }
    Py_DECREF(d);
    if (off < 0) PyErr_Format(PyExc_TypeError, "%R.%U is not a slot", type, name);
    return off;
}

#define SLOT(ev, off) (*(PyObject **)((char *)(ev) + (off)))

/* a recorded play's seat and cards: 1 read, 0 not one this takes (the Python replay then
 * judges it) */
static int read_play(const Kinds *kd, PyObject *ev, int P, int *seat, int *cards, int *n) {
    PyObject *v = SLOT(ev, kd->seat), *tokens = SLOT(ev, kd->cards);
    if (!v || !tokens || !PyLong_CheckExact(v) || !PyList_Check(tokens)) return 0;
    long st = PyLong_AsLong(v);
    if (st == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    if (st < 0 || st >= P) return 0;
    *seat = (int)st;
    Py_ssize_t len = PyList_GET_SIZE(tokens);
    if (len < 1 || len > MAXHAND) return 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *c = PyDict_GetItemWithError(kd->index, PyList_GET_ITEM(tokens, i));
        if (!c) { PyErr_Clear(); return 0; }
        long x = PyLong_AsLong(c);
        if (x < 0 || x >= NC) { PyErr_Clear(); return 0; }
        cards[i] = (int)x;
    }
    *n = (int)len;
    return 1;
}

/* a trick's record close (TrickEnd) as the rules have it: 1 yes, 0 no */
static int claim_holds(const Kinds *kd, PyObject *ev, int number, int winner, int points) {
    Py_ssize_t offs[3] = {kd->trick, kd->winner, kd->points};
    int want[3] = {number, winner, points};
    for (int q = 0; q < 3; q++) {
        PyObject *v = SLOT(ev, offs[q]);
        if (!v) return 0;
        if (q == 2 && v == Py_None) continue;
        if (!PyLong_CheckExact(v)) return 0;
        long x = PyLong_AsLong(v);
        if (x == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
        if (x != want[q]) return 0;
    }
    return 1;
}

static PyObject *call_with(PyObject *f, PyObject **args, Py_ssize_t n) {
    PyObject *r = PyObject_Vectorcall(f, args, (size_t)n, NULL);
    for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(args[i]);
    return r;
}

/* the trick as Python objects (trick.made_trick); NULL with an exception */
static PyObject *build_trick(const Kinds *kd, PyObject *events, Py_ssize_t i, int number, int P,
                             const int *seats, const int *ns, int cards[][MAXHAND],
                             const int *roles, const Unit *units, int nu, int lead_class,
                             int lead_size, int singles, int thrown, int winner, int total,
                             int trumped) {
    PyObject *role_names[4] = {s_lead, s_follow, s_trump, s_discard};
    PyObject *plays = PyList_New(P), *us = PyList_New(nu), *kinds = PyList_New(nu);
    if (!plays || !us || !kinds) goto fail;
    for (int p = 0; p < P; p++) {
        PyObject *cl = PyList_New(ns[p]);
        if (!cl) goto fail;
        for (int q = 0; q < ns[p]; q++) PyList_SET_ITEM(cl, q, PyLong_FromLong(cards[p][q]));
        PyObject *seq = SLOT(PyList_GET_ITEM(events, i + p), kd->seq);
        Py_INCREF(seq);
        Py_INCREF(role_names[roles[p]]);
        PyObject *args[4] = {PyLong_FromLong(seats[p]), cl, seq, role_names[roles[p]]};
        PyObject *tp = call_with(kd->trick_play, args, 4);
        if (!tp) goto fail;
        PyList_SET_ITEM(plays, p, tp);
    }
    for (int q = 0; q < nu; q++) {
        PyObject *cs = PyTuple_New(units[q].l);
        if (!cs) goto fail;
        for (int r = 0; r < units[q].l; r++) PyTuple_SET_ITEM(cs, r, PyLong_FromLong(units[q].cards[r]));
        PyObject *args[4] = {PyLong_FromLong(units[q].w), PyLong_FromLong(units[q].l),
                             PyLong_FromLong(units[q].low), cs};
        PyObject *u = call_with(kd->unit, args, 4);
        if (!u) goto fail;
        PyList_SET_ITEM(us, q, u);
        PyObject *k = PyTuple_New(2);
        if (!k) goto fail;
        PyTuple_SET_ITEM(k, 0, PyLong_FromLong(units[q].w));
        PyTuple_SET_ITEM(k, 1, PyLong_FromLong(units[q].l));
        PyList_SET_ITEM(kinds, q, k);
    }
    PyObject *args[12] = {PyLong_FromLong(number), PyLong_FromLong(seats[0]), plays, us, kinds,
                          PyLong_FromLong(lead_class), PyLong_FromLong(lead_size),
                          PyBool_FromLong(singles), PyBool_FromLong(thrown),
                          PyLong_FromLong(winner), PyLong_FromLong(total), PyBool_FromLong(trumped)};
    return call_with(kd->make_trick, args, 12);
fail:
    Py_XDECREF(plays); Py_XDECREF(us); Py_XDECREF(kinds);
    return NULL;
}

/* judge one trick of recorded plays from events[i]: 1 when every play is one the Python
 * replay would find nothing wrong with (the trick built in *out, the events it took in
 * *used), 0 otherwise, -1 with an exception */
static int one_trick(const JudgeObject *self, const Kinds *kd, Game *g, PyObject *events,
                     Py_ssize_t i, int number, PyObject **out, Py_ssize_t *used) {
    const Order *o = self->o;
    Py_ssize_t nev = PyList_GET_SIZE(events);
    int P = g->P;
    if (i + P > nev) return 0;
    if (self->r->patterns && !o->has_straight) return 0;  /* patterns it does not know */
    int seats[MAXP], ns[MAXP], cards[MAXP][MAXHAND];
    Unit units[MAXHAND];
    int nu = 0, lead_class = 0, lead_size = 0, singles = 1, thrown = 0;
    Kind kinds[MAXK];
    for (int np = 0; np < P; np++) {
        PyObject *ev = PyList_GET_ITEM(events, i + np);
        if ((PyObject *)Py_TYPE(ev) != kd->play_type) return 0;
        int seat, n;
        if (!read_play(kd, ev, P, &seat, cards[np], &n)) return 0;
        int expected = np == 0 ? g->leader : (seats[np - 1] + 1) % P;
        if (seat != expected) return 0;
        seats[np] = seat;
        ns[np] = n;
        const int *cs = cards[np];
        int known_before = np ? g->class_left[seat][lead_class] : 0;
        for (int q = 0; q < n; q++) {  /* every card held (no hidden cards here) */
            int c = cs[q];
            if (g->held[seat][c] <= 0) return 0;
            take_card(g, seat, c);
        }
        if (np == 0) {  /* tricks._lead; a special pattern led is left to Python */
            if (n >= 4 && self->r->patterns && special_lead(o, cs, n)) return 0;
            lead_class = o->klass[cs[0]];
            lead_size = n;
            for (int q = 1; q < n; q++) if (o->klass[cs[q]] != lead_class) return 0;
            if (n == 1) {
                nu = 1;
                units[0].w = 1; units[0].l = 1; units[0].low = o->power[cs[0]]; units[0].cards[0] = cs[0];
            } else {
                nu = decompose(o, cs, n, units);
            }
            if (nu > MAXK) return 0;
            for (int q = 0; q < nu; q++) {
                kinds[q].w = units[q].w; kinds[q].l = units[q].l;
                if (units[q].w > MAXW || units[q].l > MAXLEN) return 0;
                if (units[q].w != 1 || units[q].l != 1) singles = 0;
            }
            if (nu > 1) {  /* throws.thrown_lead */
                thrown = 1;
                if (lead_class == TRUMP && !self->r->trump_throws) return 0;
                if (units_beaten(g, seat, lead_class, units, nu)) return 0;
            }
            continue;
        }
        /* follow.follow */
        if (n != lead_size) return 0;
        int in_suit = 0;
        Hold played;
        hold_clear(&played);
        for (int q = 0; q < n; q++)
            if (o->klass[cs[q]] == lead_class) { in_suit++; hold_add(&played, cs[q], 1); }
        int owed = lead_size < known_before ? lead_size : known_before;
        if (in_suit < owed) return 0;
        if (singles) continue;
        if (nu == 1 && units[0].l == 1 && in_suit >= units[0].w) {
            int first = -1;
            for (int q = 0; q < n; q++) if (o->klass[cs[q]] == lead_class) { first = cs[q]; break; }
            if (played.cnt[first] >= units[0].w) continue;  /* answered in kind */
        }
        Hold before;
        holding(g, seat, lead_class, &before);
        for (int q = 0; q < played.n; q++) {
            int c = played.card[q];
            if (before.cnt[c] + played.cnt[c] > MAXW) return 0;
            hold_add(&before, c, played.cnt[c]);
        }
        if (shows_best(self, &before, &played, kinds, nu, in_suit) != 1) return 0;
    }
    /* tricks._finish_trick */
    int best = -1, winner = seats[0], total = 0, roles[MAXP];
    for (int p = 0; p < P; p++) {
        const int *cs = cards[p];
        int n = ns[p], all_led = 1, all_trump = 1;
        for (int q = 0; q < n; q++) {
            total += g->pts[cs[q]];
            if (o->klass[cs[q]] != lead_class) all_led = 0;
            if (o->klass[cs[q]] != TRUMP) all_trump = 0;
        }
        roles[p] = p == 0 ? 0 : all_led ? 1 : (lead_class != TRUMP && all_trump) ? 2 : 3;
        if (best >= 0 && strength_bound(o, lead_class, cs, n) <= best) continue;
        int key = play_strength(o, lead_class, kinds, nu, cs, n);
        if (key >= 0 && key > best) { best = key; winner = seats[p]; }
    }
    if (kd->stop_card >= 0) {  /* won by that card alone: other leaders may follow */
        for (int p = 0; p < P; p++) {
            if (seats[p] != winner) continue;
            int only = 1;
            for (int q = 0; q < ns[p]; q++) if (cards[p][q] != kd->stop_card) { only = 0; break; }
            if (only) return 0;
            break;
        }
    }
    int left = 0;
    for (int st = 0; st < P && !left; st++) left = cards_held(g, st) > 0;
    Py_ssize_t take = P;
    if (i + P < nev && (PyObject *)Py_TYPE(PyList_GET_ITEM(events, i + P)) == kd->end_type) {
        if (!claim_holds(kd, PyList_GET_ITEM(events, i + P), number, winner, total)) return 0;
        take++;
    }
    *out = build_trick(kd, events, i, number, P, seats, ns, cards, roles, units, nu, lead_class,
                       lead_size, singles, thrown, winner, total, best >= 65536);
    if (!*out) return -1;
    if (!g->side[winner]) g->face += total;
    g->leader = winner;
    if (!left) g->finished = 1;  /* the last trick: the hand's settlement is Python's */
    *used = take;
    return 1;
}

PyDoc_STRVAR(run_tricks_doc,
"run_tricks(held, class_left, left, points, side, leader, number, events, start, play_type,\n"
"           end_type, index, trick_play, unit, make_trick, stop_card)\n"
"    -> (used, tricks, points, leader, finished)\n"
"The recorded tricks from events[start], each judged as the Python replay judges it, for as\n"
"long as every play of a trick is one it finds nothing wrong with (no hidden cards: the\n"
"caller sees to that; a special pattern led, or a trick won by stop_card alone, where other\n"
"seats may lead the next, is left to Python). Returns how many events it took (each\n"
"trick's plays and its TrickEnd), the tricks (made by make_trick from TrickPlay and Unit\n"
"objects), the defenders' points from them, the next leader and whether the last of them\n"
"ended the hand; held, class_left and left (lists, per seat) are updated in place.");

static PyObject *judge_run_tricks(JudgeObject *self, PyObject *args) {
    PyObject *held, *class_left, *left, *points, *side, *events;
    int leader, number;
    Py_ssize_t start;
    Kinds kd;
    if (!PyArg_ParseTuple(args, "OOOOOiiO!nOOO!OOOi", &held, &class_left, &left, &points, &side,
                          &leader, &number, &PyList_Type, &events, &start, &kd.play_type,
                          &kd.end_type, &PyDict_Type, &kd.index, &kd.trick_play, &kd.unit,
                          &kd.make_trick, &kd.stop_card))
        return NULL;
    if (!PyList_Check(held) || !PyList_Check(class_left) || !PyList_Check(left)) {
        PyErr_SetString(PyExc_TypeError, "held, class_left and left are lists");
        return NULL;
    }
    if ((kd.seat = slot_of(kd.play_type, s_seat)) < 0 || (kd.cards = slot_of(kd.play_type, s_cards)) < 0 ||
        (kd.seq = slot_of(kd.play_type, s_seq)) < 0 || (kd.trick = slot_of(kd.end_type, s_trick)) < 0 ||
        (kd.winner = slot_of(kd.end_type, s_winner)) < 0 || (kd.points = slot_of(kd.end_type, s_points)) < 0)
        return NULL;
    Py_ssize_t P = PyList_GET_SIZE(held);
    if (P < 2 || P > MAXP || PyList_GET_SIZE(class_left) != P || PyList_GET_SIZE(left) != P ||
        leader < 0 || leader >= P || start < 0)
        return Py_BuildValue("(n[]iiO)", (Py_ssize_t)0, 0, leader, Py_False);
    Game *g = malloc(sizeof(Game));
    PyObject *tricks = PyList_New(0), *result = NULL;
    int first[MAXP][NC], kept[MAXP][NC];
    if (!g || !tricks) { PyErr_NoMemory(); goto fail; }
    memset(g->class_left, 0, sizeof g->class_left);
    g->o = self->o; g->r = self->r; g->P = (int)P; g->leader = leader; g->face = 0; g->finished = 0;
    int n;
    if (!ints_of(points, g->pts, NC, &n) || !ints_of(side, g->side, MAXP, &n)) goto fail;
    for (int st = 0; st < g->P; st++) {
        if (!counts_of54(PyList_GET_ITEM(held, st), g->held[st])) goto fail;
        if (!count_held(g, st)) {
            result = Py_BuildValue("(nOiiO)", (Py_ssize_t)0, tricks, 0, leader, Py_False);
            goto fail;
        }
    }
    memcpy(first, g->held, sizeof first);
    memcpy(kept, g->held, sizeof kept);
    Py_ssize_t i = start;
    while (!g->finished) {
        PyObject *trick = NULL;
        Py_ssize_t used = 0;
        int got = one_trick(self, &kd, g, events, i, number, &trick, &used);
        if (got < 0) goto fail;
        if (got == 0) {  /* not taken: back to the last trick taken */
            memcpy(g->held, kept, sizeof kept);
            for (int st = 0; st < g->P; st++) count_held(g, st);  /* class_left as kept */
            break;
        }
        int ok = PyList_Append(tricks, trick);
        Py_DECREF(trick);
        if (ok < 0) goto fail;
        memcpy(kept, g->held, sizeof kept);
            i += used;
        number++;
    }
    for (int st = 0; st < g->P; st++) {  /* the Python state: what the tricks taken used */
        PyObject *h = PyList_GET_ITEM(held, st), *cl = PyList_GET_ITEM(class_left, st);
        int removed = 0, used_k[5] = {0};
        for (int c = 0; c < NC; c++) {
            int d = first[st][c] - g->held[st][c];
            if (!d) continue;
            removed += d;
            used_k[g->o->klass[c]] += d;
            PyObject *v = PyLong_FromLong(g->held[st][c]);
            if (!v || PyList_SetItem(h, c, v) < 0) goto fail;
        }
        if (!removed) continue;
        if (!PyList_Check(cl) || PyList_GET_SIZE(cl) != 5) {
            PyErr_SetString(PyExc_TypeError, "class_left holds five counts a seat");
            goto fail;
        }
        for (int k = 0; k < 5; k++) {
            if (!used_k[k]) continue;
            long was = PyLong_AsLong(PyList_GET_ITEM(cl, k));
            if (was == -1 && PyErr_Occurred()) goto fail;
            PyObject *v = PyLong_FromLong(was - used_k[k]);
            if (!v || PyList_SetItem(cl, k, v) < 0) goto fail;
        }
        long was = PyLong_AsLong(PyList_GET_ITEM(left, st));
        if (was == -1 && PyErr_Occurred()) goto fail;
        PyObject *v = PyLong_FromLong(was - removed);
        if (!v || PyList_SetItem(left, st, v) < 0) goto fail;
    }
    result = Py_BuildValue("(nOiiO)", i - start, tricks, g->face, g->leader,
                           g->finished ? Py_True : Py_False);
fail:
    Py_XDECREF(tricks);
    free(g);
    return result;
}

static PyMethodDef judge_methods[] = {
    {"follow_ok", (PyCFunction)judge_follow_ok, METH_VARARGS, follow_ok_doc},
    {"strength", (PyCFunction)judge_strength, METH_VARARGS, strength_doc},
    {"throw_beaten", (PyCFunction)judge_throw_beaten, METH_VARARGS, throw_beaten_doc},
    {"run_tricks", (PyCFunction)judge_run_tricks, METH_VARARGS, run_tricks_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject JudgeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "replay._greedy.Judge",
    .tp_basicsize = sizeof(JudgeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One card order's and one ruleset's checks of recorded plays (made by judge()).",
    .tp_methods = judge_methods,
};

PyDoc_STRVAR(judge_doc,
"judge(order_uid, power, klass, members, straight, level, rules_key, max_width,\n"
"      trump_throws, patterns, answers) -> Judge\n"
"The validator's checks for one card order and ruleset (the arguments as play_out's).");

static PyObject *make_judge(PyObject *self, PyObject *args) {
    long long uid, rkey;
    PyObject *power, *klass, *members, *straight, *answers;
    int level, max_width, trump_throws, patterns;
    if (!PyArg_ParseTuple(args, "LOOOOiLiiiO!", &uid, &power, &klass, &members, &straight,
                          &level, &rkey, &max_width, &trump_throws, &patterns, &PyDict_Type,
                          &answers))
        return NULL;
    if (max_width > MAXW) { PyErr_SetString(PyExc_ValueError, "units wider than the tables"); return NULL; }
    const Order *o = order_for(uid, power, klass, members, straight, level);
    if (!o) return NULL;
    const Rules *r = rules_for(rkey, max_width, trump_throws, patterns, answers);
    if (!r) return NULL;
    JudgeObject *j = PyObject_New(JudgeObject, &JudgeType);
    if (!j) return NULL;
    j->o = o;
    j->r = r;
    return (PyObject *)j;
}

