/* The exact search of replay/search.py (solve) on the C core: part of replay/_greedy.c, which
 * includes it last (it uses the game, the follows and the rollout player).
 *
 * The defenders' final points under perfect play from a position where every card is known:
 * alpha-beta, the defenders maximising and the declarer's side minimising, with make/unmake on
 * the game's count vectors and a transposition table keyed on a 64-bit hash of the holdings,
 * the trick so far, the leader and the points (Zobrist keys, added and taken away as cards
 * move), the choices tried the remembered best first, then best guess first (order_choices).
 * The choices at each node are those of search.choices and search.merge_touching (every
 * unit and every standing throw on a lead, every legal follow; identical cards one choice,
 * touching equivalent singles one), so the value is the Python search's; where a position
 * needs what only Python does (more than 400 follows, a special pattern led, sizes past the
 * tables) the whole search is handed back and Python solves it. The end of the hand is
 * settled by a Python function (the kitty and the ruleset's outcome), once per distinct end.
 */

#define INF_VALUE 1000000000

/* a position's bounds and the index (in its list of choices, which the position decides) of
 * the choice found best there, searched first when the position is met again (-1: none) */
typedef struct { uint64_t key; int low, high, best; } Slot;

/* search's table: positions (and settled ends) with their bounds, kept across the searches of
 * one deal (the alternatives of a decision meet the same positions) */
typedef struct {
    PyObject_HEAD
    Slot *slots;
    size_t cap, used;
} TableObject;

static uint64_t z_held[MAXP][NC], z_trick[MAXP][NC];
static int z_ready = 0;

static uint64_t splitmix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static void z_init(void) {
    if (z_ready) return;
    uint64_t seed = 0x5eed5eedULL;
    for (int s = 0; s < MAXP; s++)
        for (int c = 0; c < NC; c++) {
            z_held[s][c] = splitmix(seed++);
            z_trick[s][c] = splitmix(seed++);
        }
    z_ready = 1;
}

static Slot *table_find(TableObject *t, uint64_t key) {  /* NULL when absent */
    if (!t->cap) return NULL;
    size_t mask = t->cap - 1, i = (size_t)key & mask;
    while (t->slots[i].key) {
        if (t->slots[i].key == key) return &t->slots[i];
        i = (i + 1) & mask;
    }
    return NULL;
}

static Slot *table_put(TableObject *t, uint64_t key) {  /* found or added as (-1, inf) */
    if (2 * (t->used + 1) > t->cap) {
        /* small at first: most tables are a playout's last two tricks, a few dozen
         * positions, and a table is made for every deal */
        size_t cap = t->cap ? 2 * t->cap : 64;
        Slot *slots = calloc(cap, sizeof(Slot));
        if (!slots) return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].key) continue;
            size_t j = (size_t)t->slots[i].key & (cap - 1);
            while (slots[j].key) j = (j + 1) & (cap - 1);
            slots[j] = t->slots[i];
        }
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    size_t mask = t->cap - 1, i = (size_t)key & mask;
    while (t->slots[i].key) {
        if (t->slots[i].key == key) return &t->slots[i];
        i = (i + 1) & mask;
    }
    t->slots[i].key = key;
    t->slots[i].low = -1;
    t->slots[i].high = INF_VALUE;
    t->slots[i].best = -1;
    t->used++;
    return &t->slots[i];
}

static void table_dealloc(TableObject *t) {
    free(t->slots);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static Py_ssize_t table_len(TableObject *t) { return (Py_ssize_t)t->used; }

static PySequenceMethods table_as_sequence = {.sq_length = (lenfunc)table_len};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "replay._greedy.Table",
    .tp_basicsize = sizeof(TableObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The exact search's transposition table for one deal (len: the entries).",
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)table_dealloc,
    .tp_as_sequence = &table_as_sequence,
};

/* ------------------------------------------------------------------------------------------ */

enum { SOLVED = 0, FAILED = 1, HANDED_BACK = 2 };

/* the settlements of one decision's ends, across its deals (rollouts._settler's keys): within
 * a decision an end and the kitty's points decide the settlement; a last trick taken by the
 * declarer's side gives no kitty award, and a defender's award reads the cards, not which
 * defender took it */
typedef struct {
    TableObject *t;
    int kitty_points;
    int declaring;          /* bit s: seat s on the declarer's side; -1: every end by its seat */
} Ends;

typedef struct {
    Game *g;
    TableObject *t;
    PyObject *settle;       /* (face, winner, winning cards, special) -> final points */
    const Ends *ends;       /* NULL: none kept past the deal */
    uint64_t held_key;      /* sum of z_held[seat][card] over every card held */
    int status;
} Solver;

static uint64_t position_key(const Solver *S) {
    const Game *g = S->g;
    uint64_t trick = 0;
    for (int q = 0; q < g->nplays; q++)
        for (int i = 0; i < g->pn[q]; i++) trick += z_trick[q][g->pcards[q][i]];
    uint64_t key = splitmix(S->held_key ^ splitmix(trick + ((uint64_t)g->leader << 48)
                                                   + ((uint64_t)g->face << 8) + 1));
    return key ? key : 1;
}

/* the key of a finished hand's end: in the deal's table, or (ends) across a decision's deals */
static uint64_t end_key(const Game *g, const Ends *ends) {
    uint64_t key = 0x1ea7ULL + ((uint64_t)g->face << 20) + (uint64_t)(g->last_special != 0);
    int by_seat = 1, by_cards = 1;
    if (ends) {
        key += (uint64_t)(unsigned)ends->kitty_points << 40;
        if (ends->declaring >= 0) {
            by_seat = 0;
            by_cards = !((ends->declaring >> g->last_winner) & 1);
            if (!by_cards)  /* the declarer's side took it: its face points alone */
                key = 0x5e771edULL + ((uint64_t)g->face << 20)
                      + ((uint64_t)(unsigned)ends->kitty_points << 40);
        }
    }
    if (by_seat) key += (uint64_t)g->last_winner << 4;
    if (by_cards)
        for (int i = 0; i < g->last_n; i++) key += z_trick[MAXP - 1][g->last_cards[i]];
    key = splitmix(key ^ (ends ? 0xe2d5ULL : 0xe2dULL));
    return key ? key : 1;
}

/* the defenders' final points of a finished hand: the Python settlement, kept by its end (in
 * the decision's ends where they are kept, else in the deal's table) */
static int settled(Solver *S) {
    const Game *g = S->g;
    TableObject *kept = S->ends ? S->ends->t : S->t;
    uint64_t key = end_key(g, S->ends);
    Slot *hit = table_find(kept, key);
    if (hit) return hit->low;
    PyObject *winning = int_list(g->last_cards, g->last_n);
    if (!winning) { S->status = FAILED; return 0; }
    PyObject *v = PyObject_CallFunction(S->settle, "iiNO", g->face, g->last_winner, winning,
                                        g->last_special ? Py_True : Py_False);
    if (!v) { S->status = FAILED; return 0; }
    long value = PyLong_AsLong(v);
    Py_DECREF(v);
    if (value == -1 && PyErr_Occurred()) { S->status = FAILED; return 0; }
    Slot *slot = table_put(kept, key);
    if (!slot) { PyErr_NoMemory(); S->status = FAILED; return 0; }
    slot->low = slot->high = (int)value;
    return (int)value;
}

/* ------------------------------------------------------------------------------------------ */
/* make and unmake                                                                               */

/* what a play changes besides the holdings: the scalars, the slot of the trick it takes (a
 * lead's trick reuses the slots of the trick before, which an unmake brings back), a lead's
 * kinds and a last trick's winning cards */
typedef struct {
    int nplays, lead_class, lead_size, special, nkinds, face, leader, finished;
    int last_winner, last_n, last_special;
    int slot_seat, slot_n;
    int slot_cards[MAXHAND];
    Kind kinds[MAXK];
    int last_cards[MAXHAND];
} Undo;

static int make(Solver *S, int seat, const int *cards, int n, Undo *u) {
    Game *g = S->g;
    int q = g->nplays;
    u->nplays = q; u->lead_class = g->lead_class; u->lead_size = g->lead_size;
    u->special = g->special; u->nkinds = g->nkinds; u->face = g->face; u->leader = g->leader;
    u->finished = g->finished; u->last_winner = g->last_winner; u->last_n = g->last_n;
    u->last_special = g->last_special;
    u->slot_seat = g->pseat[q]; u->slot_n = g->pn[q];
    if (u->slot_n > 0 && u->slot_n <= MAXHAND) memcpy(u->slot_cards, g->pcards[q], sizeof(int) * u->slot_n);
    if (q == 0 && g->nkinds > 0 && g->nkinds <= MAXK) memcpy(u->kinds, g->kinds, sizeof(Kind) * g->nkinds);
    if (q == g->P - 1 && g->last_n > 0) memcpy(u->last_cards, g->last_cards, sizeof(int) * g->last_n);
    if (!apply(g, seat, cards, n)) return 0;
    for (int i = 0; i < n; i++) S->held_key -= z_held[seat][cards[i]];
    return 1;
}

static void unmake(Solver *S, int seat, const int *cards, int n, const Undo *u) {
    Game *g = S->g;
    for (int i = 0; i < n; i++) {
        give_card(g, seat, cards[i]);
        S->held_key += z_held[seat][cards[i]];
    }
    int q = u->nplays;
    g->nplays = q; g->lead_class = u->lead_class; g->lead_size = u->lead_size;
    g->special = u->special; g->nkinds = u->nkinds; g->face = u->face; g->leader = u->leader;
    g->finished = u->finished; g->last_winner = u->last_winner; g->last_n = u->last_n;
    g->last_special = u->last_special;
    g->pseat[q] = u->slot_seat; g->pn[q] = u->slot_n;
    if (u->slot_n > 0 && u->slot_n <= MAXHAND) memcpy(g->pcards[q], u->slot_cards, sizeof(int) * u->slot_n);
    if (q == 0 && u->nkinds > 0 && u->nkinds <= MAXK) memcpy(g->kinds, u->kinds, sizeof(Kind) * u->nkinds);
    if (q == g->P - 1 && u->last_n > 0) memcpy(g->last_cards, u->last_cards, sizeof(int) * u->last_n);
}

/* ------------------------------------------------------------------------------------------ */
/* choices (search.choices with legal.legal_leads; search.merge_touching)                       */

/* legal_leads' standing leads of seat: every unit, then (per class) the throws of 2, 3, ...
 * units that no other seat can beat, until past 400 leads; 0 to hand back, -1 on error */
static int leads(const Game *g, int seat, Plays *out) {
    const Order *o = g->o;
    int listed = 0, total = 0;
    total = cards_held(g, seat);
    for (int k = 0; k < 5; k++) {
        Hold h;
        holding(g, seat, k, &h);
        if (!h.n) continue;
        UnitVec uv;
        uv_init(&uv);
        if (!units_in(&h, o, g->r->max_width, &uv)) { uv_release(&uv); return -1; }
        int buf[MAXHAND];
        for (int q = 0; q < uv.n; q++) {
            const Unit *u = &uv.u[q];
            int nb = 0;
            for (int r = 0; r < u->l; r++)
                for (int t = 0; t < u->w; t++) buf[nb++] = u->cards[r];
            if (!plays_push(out, buf, nb)) { uv_release(&uv); return -1; }
            listed++;
        }
        if ((k == TRUMP && !g->r->trump_throws) || uv.n < 2) { uv_release(&uv); continue; }
        if (uv.n > MAXK) { uv_release(&uv); return 0; }
        Plays seen;
        if (!plays_init(&seen, total)) { uv_release(&uv); return -1; }
        int idx[MAXK];
        for (int size = 2; size <= total && size <= uv.n; size++) {
            for (int i = 0; i < size; i++) idx[i] = i;
            for (;;) {
                int nb = 0, fits = 1, cnt[NC];
                memset(cnt, 0, sizeof cnt);
                for (int i = 0; i < size && fits; i++) {
                    const Unit *u = &uv.u[idx[i]];
                    for (int r = 0; r < u->l && fits; r++) {
                        int c = u->cards[r];
                        cnt[c] += u->w;
                        if (cnt[c] > h.cnt[c] || nb + u->w > MAXHAND) fits = 0;
                        for (int t = 0; t < u->w && fits; t++) buf[nb++] = c;
                    }
                }
                if (fits) {
                    qsort(buf, nb, sizeof(int), cmp_int);
                    int again = 0;
                    for (int q = 0; q < seen.n && !again; q++)
                        again = seen.len[q] == nb &&
                                !memcmp(seen.cards + (size_t)q * seen.stride, buf, sizeof(int) * nb);
                    if (!again) {
                        if (!plays_push(&seen, buf, nb)) { plays_free(&seen); uv_release(&uv); return -1; }
                        Unit parts[MAXHAND];
                        int np = decompose(o, buf, nb, parts);
                        if (np >= 2) {
                            listed++;
                            if (!units_beaten(g, seat, k, parts, np) && !plays_push(out, buf, nb)) {
                                plays_free(&seen); uv_release(&uv); return -1;
                            }
                        }
                    }
                }
                int i = size - 1;  /* the next combination (itertools.combinations' order) */
                while (i >= 0 && idx[i] == uv.n - size + i) i--;
                if (i < 0) break;
                idx[i]++;
                for (int j = i + 1; j < size; j++) idx[j] = idx[j - 1] + 1;
            }
            if (listed > 400) break;
        }
        plays_free(&seen);
        uv_release(&uv);
    }
    return 1;
}

/* every legal follow of seat (FollowSpec.enumerate with limit 400); 0 to hand back */
static int follows_all(const Game *g, int seat, Plays *out) {
    if (g->special) return 0;
    Spec *s = spec_new();
    if (!s) return -1;
    if (!follow_spec(g, seat, s)) { spec_free(s); return 0; }
    /* more than 400 ways to choose the follow's cards: Python samples. The ways are at most
     * C(cards held, cards played), which is enough to tell in most positions of a search */
    int total = cards_held(g, seat);
    long long bound = 1;
    for (int i = 0; i < s->n && bound <= 400; i++) bound = bound * (total - i) / (i + 1);
    if (bound > 400) {
        int card[NC], cnt[NC], ni = 0;  /* the seat's cards (their order counts for nothing) */
        for (int k = 0; k < 5; k++) {
            if (!g->class_left[seat][k]) continue;
            for (int i = 0; i < g->o->nmem[k]; i++) {
                int c = g->o->mem[k][i];
                if (g->held[seat][c]) { card[ni] = c; cnt[ni] = g->held[seat][c]; ni++; }
            }
        }
        if (multisets_count(card, cnt, ni, s->n) > 400) { spec_free(s); return 0; }
    }
    int r = follows(s, g->o, 1 << 28, out);
    spec_free(s);
    return r;
}

/* merge_touching: the single-card plays that play exactly like a lower one the seat holds
 * (touching_lowest) marked in drop */
static void touching(const Game *g, int seat, const Plays *plays, char *drop) {
    const Order *o = g->o;
    int singles = 0;
    for (int q = 0; q < plays->n; q++) singles += plays->len[q] == 1;
    if (g->r->patterns || singles < 2) return;
    int codes[NC], nc = 0, classes = 0;
    for (int q = 0; q < plays->n; q++) {
        if (plays->len[q] != 1) continue;
        int c = plays->cards[(size_t)q * plays->stride];
        if (g->held[seat][c] == 1) {
            codes[nc++] = (o->klass[c] * 256 + o->power[c]) * 64 + c;
            classes |= 1 << o->klass[c];
        }
    }
    /* per class of those singles, the powers that could come between: the other seats' cards
     * (read through the class's members, in the classes each of them holds any of) and the
     * trick's */
    uint64_t live[5] = {0, 0, 0, 0, 0};
    for (int k = 0; k < 5; k++) {
        if (!(classes >> k & 1)) continue;
        for (int other = 0; other < g->P; other++) {
            if (other == seat || !g->class_left[other][k]) continue;
            for (int i = 0; i < o->nmem[k]; i++) {
                int c = o->mem[k][i];
                if (g->held[other][c]) live[k] |= (uint64_t)1 << o->power[c];
            }
        }
    }
    for (int q = 0; q < g->nplays; q++)
        for (int i = 0; i < g->pn[q]; i++) {
            int c = g->pcards[q][i];
            live[o->klass[c]] |= (uint64_t)1 << o->power[c];
        }
    qsort(codes, nc, sizeof(int), cmp_int);
    char dropped[NC];
    memset(dropped, 0, sizeof dropped);
    int low = -1;
    for (int i = 0; i < nc; i++) {
        int c = codes[i] % 64;
        if (c == low) continue;
        if (low >= 0 && o->klass[c] == o->klass[low] && (c < 52 ? c / 13 : -1) == (low < 52 ? low / 13 : -1)
            && g->pts[c] == g->pts[low]) {
            int pl = o->power[low], pc = o->power[c];
            uint64_t span = (~(uint64_t)0 >> (63 - pc)) & (~(uint64_t)0 << pl);
            if (!(live[o->klass[c]] & span)) { dropped[c] = 1; continue; }
        }
        low = c;
    }
    for (int q = 0; q < plays->n; q++)
        drop[q] = plays->len[q] == 1 && dropped[plays->cards[(size_t)q * plays->stride]];
}

/* ------------------------------------------------------------------------------------------ */

/* the search's move ordering (after the choice the table remembers): each choice's guessed
 * worth to the side to move, best guess first, as alpha-beta cuts most when the best comes
 * first. A follow that leaves the trick with the mover's side first, the more points on it
 * and the cheaper the play the better; one that leaves it with the other side after, the fewer
 * points given and the cheaper the better; a lead, the strongest card first (a follow's
 * guess reads the trick so far; each seat may still come). Equal guesses keep the list's
 * order. Half the nodes of the one-deck searches of session 55's benchmark, the same values
 * (any order gives alpha-beta's exact value). At most ORDERED choices: ord gets their
 * indices, the table's choice first; returns how many. */
#define ORDERED 256
static int order_choices(const Game *g, int seat, const Plays *found, const char *drop,
                         int first, int *ord) {
    const Order *o = g->o;
    int n = 0, scores[ORDERED];
    if (first >= 0) { ord[n] = first; scores[n] = INT_MAX; n++; }
    int best_now = -1, winner = -1, on_table = 0;  /* the trick so far */
    for (int q = 0; q < g->nplays; q++) {
        int key = strength_in_trick(g, g->pcards[q], g->pn[q]);
        if (key >= 0 && key > best_now) { best_now = key; winner = g->pseat[q]; }
        for (int k = 0; k < g->pn[q]; k++) on_table += g->pts[g->pcards[q][k]];
    }
    for (int q = 0; q < found->n; q++) {
        if (drop[q] || q == first) continue;
        const int *cs = found->cards + (size_t)q * found->stride;
        int len = found->len[q], pts = 0, power = 0, top = 0;
        for (int k = 0; k < len; k++) {
            pts += g->pts[cs[k]];
            power += o->power[cs[k]];
            if (o->power[cs[k]] > top) top = o->power[cs[k]];
        }
        int score;
        if (g->nplays == 0) {
            score = top * 8 + len;
        } else {
            int key = strength_in_trick(g, cs, len);
            int ours = key >= 0 && key > best_now ? 1
                       : winner >= 0 && g->side[winner] == g->side[seat];
            score = ours ? 1000000 + (on_table + pts) * 1024 - power
                         : -(on_table + pts) * 1024 - power;
        }
        int i = n++;  /* insertion: after the equal guesses already placed */
        while (i > 0 && scores[i - 1] < score) { ord[i] = ord[i - 1]; scores[i] = scores[i - 1]; i--; }
        ord[i] = q;
        scores[i] = score;
    }
    return n;
}

static int solve_node(Solver *S, int alpha, int beta) {
    Game *g = S->g;
    if (g->finished) return settled(S);
    /* positions are tabled at a trick's start only (as DDS tables them): a probe is a cache
     * miss in a table of many positions, and within a trick few positions meet again */
    int tabled = g->nplays == 0;
    uint64_t key = tabled ? position_key(S) : 0;
    Slot *hit = tabled ? table_find(S->t, key) : NULL;
    int first = -1;  /* the choice found best when the position was last searched */
    if (hit) {
        int low = hit->low, high = hit->high;
        first = hit->best;
        if (low == high || low >= beta) return low;
        if (high <= alpha) return high;
        if (low > alpha) alpha = low;
        if (high < beta) beta = high;
    }
    int seat = to_play(g);
    int total = cards_held(g, seat);
    if (!total) { S->status = HANDED_BACK; return 0; }  /* a broken world */
    Plays found;
    if (!plays_init(&found, g->nplays == 0 ? total : g->lead_size > total ? g->lead_size : total)) {
        PyErr_NoMemory(); S->status = FAILED; return 0;
    }
    int r = g->nplays == 0 ? leads(g, seat, &found) : follows_all(g, seat, &found);
    if (r <= 0) {  /* past what is written here, or out of memory: Python does it all */
        plays_free(&found);
        S->status = HANDED_BACK;
        return 0;
    }
    char few[256];  /* most nodes list a few plays: no allocation for them */
    char *drop = found.n <= (int)sizeof few ? few : malloc((size_t)found.n);
    if (!drop) { plays_free(&found); PyErr_NoMemory(); S->status = FAILED; return 0; }
    memset(drop, 0, found.n ? (size_t)found.n : 1);
    touching(g, seat, &found, drop);
    int maximise = !g->side[seat];
    int best = maximise ? -1 : INF_VALUE, a = alpha, b = beta, best_q = -1;
    if (first >= found.n || (first >= 0 && drop[first])) first = -1;
    int few_ord[ORDERED], *ord = few_ord, nord = 0;
    if (found.n <= ORDERED) {
        nord = order_choices(g, seat, &found, drop, first, ord);
    } else {  /* a long list (a follow of many ways): the remembered choice, then in order */
        ord = malloc(sizeof(int) * (size_t)found.n);
        if (!ord) {
            if (drop != few) free(drop);
            plays_free(&found);
            PyErr_NoMemory(); S->status = FAILED; return 0;
        }
        if (first >= 0) ord[nord++] = first;
        for (int q = 0; q < found.n; q++) if (!drop[q] && q != first) ord[nord++] = q;
    }
    for (int k = 0; k < nord; k++) {
        int q = ord[k];
        const int *cards = found.cards + (size_t)q * found.stride;
        int n = found.len[q];
        Undo u;
        if (!make(S, seat, cards, n, &u)) { S->status = HANDED_BACK; break; }
        int value = solve_node(S, a, b);
        unmake(S, seat, cards, n, &u);
        if (S->status != SOLVED) break;
        if (maximise ? value > best : value < best) { best = value; best_q = q; }
        if (maximise && best > a) a = best;
        if (!maximise && best < b) b = best;
        if (a >= b) break;
    }
    if (ord != few_ord) free(ord);
    if (drop != few) free(drop);
    plays_free(&found);
    if (S->status != SOLVED) return 0;
    if (!tabled) return best;
    Slot *slot = table_put(S->t, key);
    if (!slot) { PyErr_NoMemory(); S->status = FAILED; return 0; }
    if (best <= alpha) slot->high = best;
    else if (best >= beta) slot->low = best;
    else slot->low = slot->high = best;
    if (maximise ? best > alpha : best < beta) slot->best = best_q;  /* else no choice told */
    return best;
}

/* the value of g searched (settled when the hand is over) into a Python result: the value,
 * None where the search handed it back, NULL with an exception */
static PyObject *searched(Game *g, TableObject *t, PyObject *settle, const Ends *ends) {
    Solver S = {g, t, settle, ends, 0, SOLVED};
    for (int s = 0; s < g->P; s++)
        for (int c = 0; c < NC; c++) S.held_key += (uint64_t)g->held[s][c] * z_held[s][c];
    int value = g->finished ? settled(&S) : solve_node(&S, -1, INF_VALUE);
    if (S.status == SOLVED) return PyLong_FromLong(value);
    if (S.status == HANDED_BACK) Py_RETURN_NONE;
    return NULL;
}

PyDoc_STRVAR(solve_doc,
"solve(<play_out's arguments>, table, settle) -> int or None\n"
"The defenders' final points under perfect play from the position (every card known), as\n"
"replay.search.solve finds them; table a Table kept for one deal, settle(face, winner,\n"
"winning, special) the final points of a finished hand. None where the position needs what\n"
"only the Python search does (it then solves it).");

static PyObject *solve(PyObject *self, PyObject *args) {
    Position a;
    TableObject *t;
    PyObject *settle;
    if (!PyArg_ParseTuple(args, POSITION_FORMAT "O!O", POSITION_ARGS(a), &TableType, &t, &settle))
        return NULL;
    z_init();
    int loaded;
    Game *g = open_game(&a, &loaded);
    if (!g) return NULL;
    PyObject *result = NULL;
    if (loaded < 0 || (loaded > 0 && g->special)) { result = Py_None; Py_INCREF(result); }
    if (loaded > 0 && !result) result = searched(g, t, settle, NULL);
    free(g);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* a rollout with an exact end (playout.greedy_value with endgame)                              */

PyDoc_STRVAR(play_value_doc,
"play_value(<play_out's arguments>, endgame, table, settle) -> int or None\n"
"The defenders' final points when the rollout player plays the position on until, at a\n"
"lead, every seat holds at most endgame cards, and the exact search values the rest (table\n"
"and settle as solve's). None where either part needs Python.");

/* the game played on by the rollout player until, at a lead, every seat holds at most
 * endgame cards, the rest searched: the defenders' final points, None where Python must play
 * it, NULL with an exception */
static PyObject *rollout_from(Game *g, int endgame, TableObject *t, PyObject *settle,
                              const Ends *ends) {
    int cards[MAXHAND], nc, seat;
    while (!g->finished) {
        if (g->nplays == 0) {
            int most = 0;
            for (int s = 0; s < g->P; s++) {
                int n = cards_held(g, s);
                if (n > most) most = n;
            }
            if (most <= endgame) break;
        }
        if (!greedy_step(g, &seat, cards, &nc)) {
            if (PyErr_Occurred()) return NULL;
            Py_RETURN_NONE;
        }
    }
    if (g->finished && g->last_winner < 0) Py_RETURN_NONE;
    return searched(g, t, settle, ends);
}

static PyObject *play_value(PyObject *self, PyObject *args) {
    Position a;
    int endgame;
    TableObject *t;
    PyObject *settle;
    if (!PyArg_ParseTuple(args, POSITION_FORMAT "iO!O", POSITION_ARGS(a), &endgame, &TableType,
                          &t, &settle))
        return NULL;
    z_init();
    int loaded;
    Game *g = open_game(&a, &loaded);
    if (!g) return NULL;
    PyObject *result = NULL;
    if (loaded < 0) { result = Py_None; Py_INCREF(result); }
    if (loaded > 0) result = rollout_from(g, endgame, t, settle, NULL);
    free(g);
    return result;
}

PyDoc_STRVAR(play_values_doc,
"play_values(<play_out's arguments>, seat, plays, endgame, table, settle[, ends,\n"
"kitty_points, declaring]) -> list or None\n"
"play_value of the position after each of plays (lists of cards) made by seat, the seat to\n"
"play: the position read once, each play applied to a copy (a throw that fails on this deal\n"
"handed back: the engine plays it as failed); endgame below 0: solve's value right\n"
"after the play. None in the list for a play it hands back, None for all where the position\n"
"needs Python. ends: a Table keeping the settlements of one decision's ends across its deals\n"
"(this deal's kitty holding kitty_points; declaring: bit s set for a seat on the declarer's\n"
"side, -1 to key every end by its seat), as replay.rollouts._settler keys them.");

/* the plays of a Python list of card lists into n rows of MAXHAND ints (malloc'd) and their
 * lengths; NULL with an exception */
static int *plays_of(PyObject *plays, Py_ssize_t n, int *lens) {
    int *cards = malloc(sizeof(int) * MAXHAND * (size_t)(n ? n : 1));
    if (!cards) { PyErr_NoMemory(); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *play = PyList_GET_ITEM(plays, i);
        if (!PyList_Check(play) || PyList_GET_SIZE(play) < 1 || PyList_GET_SIZE(play) > MAXHAND) {
            PyErr_SetString(PyExc_ValueError, "play_values: each play a list of 1 to MAXHAND cards");
            free(cards);
            return NULL;
        }
        lens[i] = (int)PyList_GET_SIZE(play);
        for (int k = 0; k < lens[i]; k++) {
            long c = PyLong_AsLong(PyList_GET_ITEM(play, k));
            if (c == -1 && PyErr_Occurred()) { free(cards); return NULL; }
            if (c < 0 || c >= NC) {
                PyErr_SetString(PyExc_ValueError, "play_values: a card out of range");
                free(cards);
                return NULL;
            }
            cards[i * MAXHAND + k] = (int)c;
        }
    }
    return cards;
}

/* each play's value from base (each applied to the copy g): a new list, None where the play is
 * handed back; NULL with an exception */
static PyObject *values_row(const Game *base, Game *g, int seat, const int *cards,
                            const int *lens, Py_ssize_t n, int endgame, TableObject *t,
                            PyObject *settle, const Ends *across) {
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        const int *cs = cards + i * MAXHAND;
        int nc = lens[i];
        memcpy(g, base, sizeof(Game));
        PyObject *value;
        if (g->finished || to_play(g) != seat
            || (g->nplays == 0 && throw_fails(g, seat, cs, nc))  /* Python plays it as failed */
            || !apply(g, seat, cs, nc)) {
            value = Py_None;
            Py_INCREF(value);
        } else if (endgame < 0) {  /* searched at once (solve's value) */
            if (g->special || (g->finished && g->last_winner < 0)) {
                value = Py_None;
                Py_INCREF(value);
            } else {
                value = searched(g, t, settle, across);
            }
        } else {
            value = rollout_from(g, endgame, t, settle, across);
        }
        if (!value) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, value);
    }
    return out;
}

/* what play_values and play_values_deals both read: the position (base), the plays (cards,
 * lens: n of them) and a game to apply each to (g) */
typedef struct { Game *base, *g; int *cards, *lens; Py_ssize_t n; } Batch;

/* a Batch opened on the parsed position and plays: 1 ready, 0 with an exception, -1 a
 * position Python plays; close_batch frees it in every case */
static int open_batch(const Position *a, PyObject *plays, Batch *b) {
    memset(b, 0, sizeof *b);
    z_init();
    int loaded;
    b->base = open_game(a, &loaded);
    if (!b->base) return 0;
    if (loaded <= 0) return loaded;
    b->n = PyList_GET_SIZE(plays);
    b->g = malloc(sizeof(Game));
    b->lens = malloc(sizeof(int) * (size_t)(b->n ? b->n : 1));
    if (!b->g || !b->lens) { PyErr_NoMemory(); return 0; }
    b->cards = plays_of(plays, b->n, b->lens);
    return b->cards != NULL;
}

static void close_batch(Batch *b) {
    free(b->cards);
    free(b->lens);
    free(b->g);
    free(b->base);
}

static PyObject *play_values(PyObject *self, PyObject *args) {
    Position a;
    int seat, endgame;
    PyObject *plays, *settle;
    TableObject *t, *kept = NULL;
    Ends ends = {NULL, 0, -1};
    if (!PyArg_ParseTuple(args, POSITION_FORMAT "iO!iO!O|O!ii", POSITION_ARGS(a), &seat,
                          &PyList_Type, &plays, &endgame, &TableType, &t, &settle,
                          &TableType, &kept, &ends.kitty_points, &ends.declaring))
        return NULL;
    ends.t = kept;
    Batch b;
    int ready = open_batch(&a, plays, &b);
    PyObject *out = NULL;
    if (ready > 0)
        out = values_row(b.base, b.g, seat, b.cards, b.lens, b.n, endgame, t, settle,
                         kept ? &ends : NULL);
    else if (ready < 0)
        out = Py_NewRef(Py_None);
    close_batch(&b);
    return out;
}

/* a deal's holdings (one list of NC counts a seat) into g: 1, 0 with an exception, -1 past
 * the core's sizes */
static int load_held(Game *g, PyObject *held) {
    if (!PyList_Check(held) || PyList_GET_SIZE(held) != g->P) {
        PyErr_SetString(PyExc_ValueError, "play_values_deals: a holding for every seat");
        return 0;
    }
    for (int s = 0; s < g->P; s++) {
        int n;
        if (!ints_of(PyList_GET_ITEM(held, s), g->held[s], NC, &n)) return 0;
        if (!count_held(g, s)) return -1;
    }
    return 1;
}

PyDoc_STRVAR(play_values_deals_doc,
"play_values_deals(<play_out's arguments>, seat, plays, endgame, deals, ends, declaring)\n"
"    -> list or None\n"
"play_values on each of deals, (held, settle, kitty_points) triples, the position's other\n"
"parts the same: one row a deal (None where a play is handed back), each deal with a search\n"
"table of its own; ends (a Table, or None) and declaring as play_values'. None where the\n"
"position needs Python (so does every deal of it).");

static PyObject *play_values_deals(PyObject *self, PyObject *args) {
    Position a;
    int seat, endgame, declaring;
    PyObject *plays, *deals, *kept;
    if (!PyArg_ParseTuple(args, POSITION_FORMAT "iO!iO!Oi", POSITION_ARGS(a), &seat,
                          &PyList_Type, &plays, &endgame, &PyList_Type, &deals, &kept,
                          &declaring))
        return NULL;
    if (kept != Py_None && !PyObject_TypeCheck(kept, &TableType)) {
        PyErr_SetString(PyExc_TypeError, "play_values_deals: ends a Table or None");
        return NULL;
    }
    Ends ends = {kept == Py_None ? NULL : (TableObject *)kept, 0, declaring};
    Batch b;
    int ready = open_batch(&a, plays, &b);
    PyObject *out = NULL;
    TableObject *t = NULL;
    Py_ssize_t nd = PyList_GET_SIZE(deals);
    if (ready <= 0) {
        if (ready < 0) out = Py_NewRef(Py_None);
        goto done;
    }
    t = PyObject_New(TableObject, &TableType);
    if (!t) goto done;
    t->slots = NULL; t->cap = t->used = 0;
    out = PyList_New(nd);
    if (!out) goto done;
    for (Py_ssize_t d = 0; d < nd; d++) {
        PyObject *deal = PyList_GET_ITEM(deals, d), *held, *settle;
        if (!PyArg_ParseTuple(deal, "OOi", &held, &settle, &ends.kitty_points)) {
            Py_CLEAR(out);
            goto done;
        }
        int ok = load_held(b.base, held);
        if (ok <= 0) {
            Py_CLEAR(out);
            if (ok < 0) out = Py_NewRef(Py_None);
            goto done;
        }
        if (t->used) { memset(t->slots, 0, sizeof(Slot) * t->cap); t->used = 0; }
        PyObject *row = values_row(b.base, b.g, seat, b.cards, b.lens, b.n, endgame, t, settle,
                                   ends.t ? &ends : NULL);
        if (!row) { Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, d, row);
    }
done:
    Py_XDECREF(t);
    close_batch(&b);
    return out;
}
