/* The rule core in C: the review's rollout player and exact search, and the validator's checks
 * of recorded tricks, on count vectors; the same answers as the Python engine, many times
 * faster. This file holds the module's glue (the Python arguments, the orders and rulesets
 * parsed once and kept by their keys, play_out); its parts, included in this order:
 *
 *   _core_units.h     holdings, chains and units (replay/units.py)
 *   _core_patterns.h  打万分's special patterns (replay/rulesets/wanfen.py)
 *   _core_game.h      a position and a play's strength (replay/state.py, trick.py)
 *   _core_follows.h   the legal follows (legal.FollowSpec)
 *   _core_playout.h   the rollout player (replay/playout.py) and a play applied
 *   _core_judge.h     the validator's checks of recorded tricks (replay/phases/)
 *   _core_search.h    the exact search (replay/search.py) and playouts ending in it
 *   _core_deal.h      a round of the review's deals (replay/deals.py), on Python's random stream
 *
 * Every function mirrors one of the Python engine (named in its comment), down to the order in
 * which ties are broken: tests/test_native_playout.py, test_native_tricks.py and
 * test_native_search.py hold the two to the same plays, verdicts and values, and
 * bench/core_speed.py measures both. The build compiles the hash of this file and its parts in
 * (replay._native.greedy_core refuses an older build).
 *
 * Cards are indices 0..53 held as counts; a holding of one suit class keeps the order of its
 * dict in Python (the order decides which of two equal units comes first).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <structmember.h>

#define NC 54
#define MAXP 8           /* seats */
#define MAXLEN 16        /* ranks in a chain; answers are tabled up to this length */
#define MAXW 4           /* copies of a card */
#define MAXPOW 64        /* powers are below this */
#define MAXSAME 12       /* cards sharing one power in a holding */
#define MAXK 64          /* units in a lead */
#define MAXHAND 128      /* cards in a play */
#define TRUMP 4
#define LIMIT 48         /* playout.py's _ENUMERATE */

/* ------------------------------------------------------------------------------------------ */
/* orders and rulesets, parsed once and kept by their Python keys                             */

typedef struct { int w, l; } Kind;
typedef struct { int n; Kind *k; } Shape;   /* its parts in a pool of its answer list */
typedef struct { int n; Shape *s; Kind *pool; } AnsList;

typedef struct Order {
    long long uid;
    int power[NC], klass[NC];
    int straight[NC];                /* 打万分: the cards that may stand in a 同花顺 */
    int has_straight;
    int level;                       /* the level's rank (2..14; 0: none) */
    int nmem[5];
    int mem[5][NC];
    int bycard[5][NC];               /* each class's members in card order */
    int pos[NC];                     /* a card's place among its class's members */
    struct Order *next;
} Order;

typedef struct Rules {
    long long key;
    int max_width, trump_throws;
    int patterns;                    /* 打万分's special patterns are played */
    AnsList ans[MAXW + 1][MAXLEN + 1];
    struct Rules *next;
} Rules;

static Order *orders = NULL;
static Rules *rulesets = NULL;

#include "_core_units.h"     /* holdings and units */
#include "_core_patterns.h"  /* 打万分's special patterns */
#include "_core_game.h"      /* the game */
#include "_core_follows.h"   /* the legal follows */
#include "_core_playout.h"   /* the rollout player */

/* ------------------------------------------------------------------------------------------ */
/* Python                                                                                       */

static int int_at(PyObject *seq, Py_ssize_t i, int *out) {
    PyObject *item = PySequence_GetItem(seq, i);
    if (!item) return 0;
    long v = PyLong_AsLong(item);
    Py_DECREF(item);
    if (v == -1 && PyErr_Occurred()) return 0;
    *out = (int)v;
    return 1;
}

static int ints_of(PyObject *seq, int *out, int most, int *n) {
    PyObject *fast = PySequence_Fast(seq, "a sequence of ints");
    if (!fast) return 0;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > most) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "too many items"); return 0; }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < len; i++) {
        long v = PyLong_AsLong(items[i]);
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(fast); return 0; }
        out[i] = (int)v;
    }
    if (n) *n = (int)len;
    Py_DECREF(fast);
    return 1;
}

/* a new Python list of the ints v[0..n); NULL with an exception */
static PyObject *int_list(const int *v, int n) {
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (!x) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, x);
    }
    return out;
}

static Order *order_for(long long uid, PyObject *power, PyObject *klass, PyObject *members,
                        PyObject *straight, int level) {
    int n;
    for (Order *o = orders; o; o = o->next) {
        if (o->uid != uid) continue;
        if (straight != Py_None && !o->has_straight) {  /* an order shared by rulesets */
            if (!ints_of(straight, o->straight, NC, &n)) return NULL;
            o->has_straight = 1;
        }
        return o;
    }
    Order *o = calloc(1, sizeof(Order));
    if (!o) { PyErr_NoMemory(); return NULL; }
    o->uid = uid;
    if (!ints_of(power, o->power, NC, &n) || !ints_of(klass, o->klass, NC, &n)) { free(o); return NULL; }
    for (int c = 0; c < NC; c++) if (o->power[c] < 0 || o->power[c] >= MAXPOW) {
        free(o); PyErr_SetString(PyExc_ValueError, "a power out of range"); return NULL;
    }
    o->level = level;
    if (straight != Py_None) {
        if (!ints_of(straight, o->straight, NC, &n)) { free(o); return NULL; }
        o->has_straight = 1;
    }
    for (int k = 0; k < 5; k++) {
        PyObject *m = PySequence_GetItem(members, k);
        if (!m) { free(o); return NULL; }
        int ok = ints_of(m, o->mem[k], NC, &o->nmem[k]);
        Py_DECREF(m);
        if (!ok) { free(o); return NULL; }
        for (int i = 0; i < o->nmem[k]; i++) {
            int c = o->mem[k][i], j = i;
            if (c < 0 || c >= NC) { free(o); PyErr_SetString(PyExc_ValueError, "a card out of range"); return NULL; }
            o->pos[c] = i;
            for (; j > 0 && o->bycard[k][j - 1] > c; j--) o->bycard[k][j] = o->bycard[k][j - 1];
            o->bycard[k][j] = c;
        }
    }
    for (int c = 0; c < NC; c++)  /* every card a member of its class (holding reads so) */
        if (o->klass[c] < 0 || o->klass[c] >= 5 || o->mem[o->klass[c]][o->pos[c]] != c) {
            free(o); PyErr_SetString(PyExc_ValueError, "a card not a member of its class"); return NULL;
        }
    o->next = orders;
    orders = o;
    return o;
}

/* answers: a dict {(w, l): [shape, ...]} where a shape is a tuple of (w, l) pairs */
static Rules *rules_for(long long key, int max_width, int trump_throws, int patterns,
                        PyObject *answers) {
    for (Rules *r = rulesets; r; r = r->next) if (r->key == key) return r;
    Rules *r = calloc(1, sizeof(Rules));
    if (!r) { PyErr_NoMemory(); return NULL; }
    r->key = key; r->max_width = max_width; r->trump_throws = trump_throws;
    r->patterns = patterns;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(answers, &pos, &k, &v)) {
        int w, l;
        if (!int_at(k, 0, &w) || !int_at(k, 1, &l)) goto fail;
        if (w < 1 || w > MAXW || l < 1 || l > MAXLEN) continue;
        PyObject *fast = PySequence_Fast(v, "answers");
        if (!fast) goto fail;
        Py_ssize_t ns = PySequence_Fast_GET_SIZE(fast);
        Py_ssize_t parts = 0;
        for (Py_ssize_t i = 0; i < ns; i++) {
            Py_ssize_t np = PySequence_Size(PySequence_Fast_GET_ITEM(fast, i));
            if (np < 0 || np > MAXK) {
                Py_DECREF(fast);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a shape of too many parts");
                goto fail;
            }
            parts += np;
        }
        AnsList *al = &r->ans[w][l];
        al->s = malloc(sizeof(Shape) * (ns > 0 ? ns : 1));
        al->pool = malloc(sizeof(Kind) * (parts > 0 ? parts : 1));
        if (!al->s || !al->pool) { Py_DECREF(fast); PyErr_NoMemory(); goto fail; }
        al->n = (int)ns;
        Kind *next = al->pool;
        for (Py_ssize_t i = 0; i < ns; i++) {
            PyObject *sh = PySequence_Fast_GET_ITEM(fast, i);
            Py_ssize_t np = PySequence_Size(sh);
            al->s[i].n = (int)np;
            al->s[i].k = next;
            for (Py_ssize_t j = 0; j < np; j++) {
                PyObject *part = PySequence_GetItem(sh, j);
                if (!part) { Py_DECREF(fast); goto fail; }
                int ok = int_at(part, 0, &next[j].w) && int_at(part, 1, &next[j].l);
                Py_DECREF(part);
                if (!ok) { Py_DECREF(fast); goto fail; }
            }
            next += np;
        }
        Py_DECREF(fast);
    }
    r->next = rulesets;
    rulesets = r;
    return r;
fail:
    for (int w = 0; w <= MAXW; w++)
        for (int l = 0; l <= MAXLEN; l++) { free(r->ans[w][l].s); free(r->ans[w][l].pool); }
    free(r);
    return NULL;
}

#include "_core_judge.h"     /* the validator's checks */

PyDoc_STRVAR(play_out_doc,
"play_out(order_uid, power, klass, members, straight, level, rules_key, max_width,\n"
"         trump_throws, patterns, answers, points, held, side, leader, plays, lead_class,\n"
"         lead_size, lead_kinds, special, face)\n"
"The rollout player's plays from a position to the end of the hand: (plays, face, winner,\n"
"winning, special), the plays as (seat, cards), the defenders' points from the tricks (face:\n"
"those so far), the last trick's winner, its winning cards and whether it was led as a\n"
"special pattern (打万分: straight and level give its 同花顺 cards and the level's rank;\n"
"special is the trick in progress's pattern, 1-4 in WanfenRules.pattern_kinds' order);\n"
"None where this position is one it does not play (Python then does).");

/* play_out's and solve's position (their arguments, parsed by POSITION_FORMAT) into g: 1, 0
 * with an exception set, -1 where it is a position the core does not take */
#define POSITION_FORMAT "LOOOOiLiiiO!OOOiOiiOii"
typedef struct {
    long long uid, rkey;
    PyObject *power, *klass, *members, *straight, *answers, *points, *held, *side, *plays;
    PyObject *lead_kinds;
    int level, max_width, trump_throws, patterns, leader, lead_class, lead_size, special, face;
} Position;

#define POSITION_ARGS(a) &(a).uid, &(a).power, &(a).klass, &(a).members, &(a).straight, \
    &(a).level, &(a).rkey, &(a).max_width, &(a).trump_throws, &(a).patterns, &PyDict_Type, \
    &(a).answers, &(a).points, &(a).held, &(a).side, &(a).leader, &(a).plays, \
    &(a).lead_class, &(a).lead_size, &(a).lead_kinds, &(a).special, &(a).face

static int load_position(Game *g, const Position *a) {
    g->o = order_for(a->uid, a->power, a->klass, a->members, a->straight, a->level);
    if (!g->o) return 0;
    if (a->max_width > MAXW) return -1;
    g->r = rules_for(a->rkey, a->max_width, a->trump_throws, a->patterns, a->answers);
    if (!g->r) return 0;
    int n;
    if (!ints_of(a->points, g->pts, NC, &n)) return 0;
    Py_ssize_t P = PySequence_Size(a->held);
    if (P < 0) return 0;
    if (P < 2 || P > MAXP) return -1;
    g->P = (int)P;
    for (int s = 0; s < g->P; s++) {
        PyObject *h = PySequence_GetItem(a->held, s);
        if (!h) return 0;
        int ok = ints_of(h, g->held[s], NC, &n);
        Py_DECREF(h);
        if (!ok) return 0;
        if (!count_held(g, s)) return -1;
    }
    if (!ints_of(a->side, g->side, MAXP, &n)) return 0;
    g->leader = a->leader;
    g->face = a->face;
    g->last_winner = -1;
    Py_ssize_t np = PySequence_Size(a->plays);
    if (np < 0) return 0;
    g->nplays = 0;
    if (np > 0) {
        if (np >= g->P) return -1;
        g->lead_class = a->lead_class;
        g->lead_size = a->lead_size;
        g->special = a->special;
        PyObject *fast = PySequence_Fast(a->lead_kinds, "kinds");
        if (!fast) return 0;
        Py_ssize_t nk = PySequence_Fast_GET_SIZE(fast);
        if (nk > MAXK) { Py_DECREF(fast); return -1; }
        g->nkinds = (int)nk;
        for (Py_ssize_t i = 0; i < nk; i++) {
            PyObject *kd = PySequence_Fast_GET_ITEM(fast, i);
            if (!int_at(kd, 0, &g->kinds[i].w) || !int_at(kd, 1, &g->kinds[i].l)) {
                Py_DECREF(fast);
                return 0;
            }
        }
        Py_DECREF(fast);
        for (Py_ssize_t i = 0; i < np; i++) {
            PyObject *pl = PySequence_GetItem(a->plays, i);
            if (!pl) return 0;
            PyObject *cs = PySequence_GetItem(pl, 1);
            int ok = cs && int_at(pl, 0, &g->pseat[i]) && ints_of(cs, g->pcards[i], MAXHAND, &g->pn[i]);
            Py_XDECREF(cs);
            Py_DECREF(pl);
            if (!ok) return 0;
        }
        g->nplays = (int)np;
    }
    return 1;
}

/* A game set up from a parsed position (freed by the caller), or NULL with MemoryError set;
   *loaded is load_position's answer (1 loaded, 0 a Python error, -1 a position Python plays). */
static Game *open_game(const Position *a, int *loaded) {
    Game *g = calloc(1, sizeof(Game));
    if (!g) { PyErr_NoMemory(); return NULL; }
    *loaded = load_position(g, a);
    return g;
}

static PyObject *play_out(PyObject *self, PyObject *args) {
    Position a;
    if (!PyArg_ParseTuple(args, POSITION_FORMAT, POSITION_ARGS(a))) return NULL;
    int loaded;
    Game *g = open_game(&a, &loaded);
    if (!g) return NULL;
    PyObject *result = NULL;
    if (loaded <= 0) {
        if (loaded < 0) { result = Py_None; Py_INCREF(result); }
        goto done;
    }
    PyObject *out = PyList_New(0);
    if (!out) goto done;
    int cards[MAXHAND], nc, seat;
    while (!g->finished) {
        if (!greedy_step(g, &seat, cards, &nc)) {  /* a position it does not play: Python does */
            Py_DECREF(out);
            if (PyErr_Occurred()) goto done;
            result = Py_None; Py_INCREF(result);
            goto done;
        }
        PyObject *lst = int_list(cards, nc);
        if (!lst) { Py_DECREF(out); goto done; }
        PyObject *pair = Py_BuildValue("(iN)", seat, lst);
        if (!pair || PyList_Append(out, pair) < 0) { Py_XDECREF(pair); Py_DECREF(out); goto done; }
        Py_DECREF(pair);
    }
    if (g->last_winner < 0) {  /* no trick was taken: nothing to play */
        Py_DECREF(out);
        result = Py_None; Py_INCREF(result);
        goto done;
    }
    PyObject *winning = int_list(g->last_cards, g->last_n);
    if (!winning) { Py_DECREF(out); goto done; }
    result = Py_BuildValue("(NiiNN)", out, g->face, g->last_winner, winning,
                           PyBool_FromLong(g->last_special != 0));
done:
    free(g);
    return result;
}

#include "_core_search.h"    /* the exact search (search.solve) */
#include "_core_deal.h"      /* a round of the review's deals */

static PyMethodDef methods[] = {
    {"play_out", play_out, METH_VARARGS, play_out_doc},
    {"solve", solve, METH_VARARGS, solve_doc},
    {"play_value", play_value, METH_VARARGS, play_value_doc},
    {"play_values", play_values, METH_VARARGS, play_values_doc},
    {"play_values_deals", play_values_deals, METH_VARARGS, play_values_deals_doc},
    {"judge", make_judge, METH_VARARGS, judge_doc},
    {"deal_round", deal_round, METH_VARARGS, deal_round_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "replay._greedy",
    "The rollout player of replay/playout.py in C (see replay/_greedy.c).", -1, methods,
};

#ifndef GREEDY_PROFILED
#define GREEDY_PROFILED 0  /* 1 when setup.py builds this file with its profile (-fprofile-use) */
#endif

PyMODINIT_FUNC PyInit__greedy(void) {
    if (PyType_Ready(&JudgeType) < 0 || PyType_Ready(&TableType) < 0) return NULL;
    static const char *names[] = {"seat", "cards", "seq", "trick", "winner", "points",
                                  "lead", "follow", "trump", "discard"};
    PyObject **slots[] = {&s_seat, &s_cards, &s_seq, &s_trick, &s_winner, &s_points,
                          &s_lead, &s_follow, &s_trump, &s_discard};
    for (int i = 0; i < 10; i++)
        if (!*slots[i] && !(*slots[i] = PyUnicode_InternFromString(names[i]))) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&TableType);
    if (PyModule_AddObject(m, "Table", (PyObject *)&TableType) < 0) {
        Py_DECREF(&TableType); Py_DECREF(m); return NULL;
    }
    if (PyModule_AddIntConstant(m, "PROFILED", GREEDY_PROFILED) < 0) { Py_DECREF(m); return NULL; }
#ifdef GREEDY_SOURCE_HASH
    if (PyModule_AddStringConstant(m, "SOURCE_HASH", GREEDY_SOURCE_HASH) < 0) { Py_DECREF(m); return NULL; }
#endif
    return m;
}
