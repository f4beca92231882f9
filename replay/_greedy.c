/* The rollout player (replay/playout.py) in C: the same plays, many times faster.
 *
 * replay.playout.greedy_play_out hands a position here (every card placed, no special
 * patterns) and gets back the plays its rollout player would make to the end of the hand;
 * Python then applies them as before, so the final points come from the same engine. Every
 * choice below mirrors a function of replay/playout.py, replay/legal.py, replay/units.py or
 * replay/trick.py (named in its comment), down to the order in which ties are broken:
 * tests/test_native_playout.py holds the two to the same plays on thousands of positions of
 * every ruleset it serves, and bench/core_speed.py measures both.
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

/* ------------------------------------------------------------------------------------------ */
/* holdings and units                                                                          */

typedef struct {          /* a holding of cards in an order (the dict's), copies by card */
    int n;
    unsigned char card[NC];
    unsigned char cnt[NC];
} Hold;

typedef struct { int w, l, low; int cards[MAXLEN]; } Unit;

static void hold_clear(Hold *h) { h->n = 0; memset(h->cnt, 0, sizeof h->cnt); }

static void hold_add(Hold *h, int c, int k) {
    if (!h->cnt[c]) h->card[h->n++] = (unsigned char)c;
    h->cnt[c] = (unsigned char)(h->cnt[c] + k);
}

static int hold_total(const Hold *h) {
    int t = 0;
    for (int i = 0; i < h->n; i++) t += h->cnt[h->card[i]];
    return t;
}

static void hold_take(Hold *h, const Unit *u) {  /* entries stay, at 0 copies (as dicts do) */
    for (int j = 0; j < u->l; j++) h->cnt[u->cards[j]] = (unsigned char)(h->cnt[u->cards[j]] - u->w);
}

/* The highest power among the cards of a holding with at least w copies (-1: none). */
static int top_power(const Hold *a, const int *power, int w) {
    int top = -1;
    for (int i = 0; i < a->n; i++) {
        int c = a->card[i];
        if (a->cnt[c] >= w && power[c] > top) top = power[c];
    }
    return top;
}

/* Chains of (w, l) in a holding, as units.find_chains lists them: lows ascending (or
 * descending), and at each low every choice of cards among those sharing a power, the last
 * rank varying fastest (itertools.product). */
typedef struct {
    int l, w, desc;
    uint64_t present, cand;          /* powers held with the copies; lows a chain starts at */
    unsigned char ecount[MAXPOW];    /* valid where present */
    unsigned char ecards[MAXPOW][MAXSAME];
    int low;                         /* the current low (-1: none yet) */
    int idx[MAXLEN];
} ChainIter;

static void ci_init(ChainIter *it, const Hold *a, const Order *o, int w, int l, int desc) {
    it->w = w; it->l = l; it->desc = desc;
    uint64_t present = 0;
    for (int i = 0; i < a->n; i++) {
        int c = a->card[i];
        if (a->cnt[c] >= w) {
            int p = o->power[c];
            uint64_t bit = (uint64_t)1 << p;
            if (!(present & bit)) { present |= bit; it->ecount[p] = 0; }
            if (it->ecount[p] < MAXSAME) it->ecards[p][it->ecount[p]++] = (unsigned char)c;
        }
    }
    uint64_t cand = present;
    for (int k = 1; k < l && cand; k++) cand &= present >> k;
    it->present = present;
    it->cand = cand;
    it->low = -1;
}

static int ci_next(ChainIter *it, Unit *u) {
    for (;;) {
        if (it->low >= 0) {  /* the next choice at this low: odometer, last rank fastest */
            int low = it->low, k = it->l - 1;
            while (k >= 0) {
                if (++it->idx[k] < it->ecount[low + k]) break;
                it->idx[k] = 0;
                k--;
            }
            if (k >= 0) break;
            it->low = -1;
        }
        if (!it->cand) return 0;
        int low = it->desc ? 63 - __builtin_clzll(it->cand) : __builtin_ctzll(it->cand);
        it->cand &= ~((uint64_t)1 << low);
        it->low = low;
        for (int k = 0; k < it->l; k++) it->idx[k] = 0;
        break;
    }
    int low = it->low;
    u->w = it->w; u->l = it->l; u->low = low;
    for (int k = 0; k < it->l; k++) u->cards[k] = it->ecards[low + k][it->idx[k]];
    return 1;
}

/* units.decompose: the units of a lead, most significant first. */
static int sig_cmp(const Unit *a, const Unit *b) {  /* >0: a sorts before b (descending) */
    int sa0 = a->l >= 2, sb0 = b->l >= 2;
    if (sa0 != sb0) return sa0 - sb0;
    if (a->w != b->w) return a->w - b->w;
    if (a->l != b->l) return a->l - b->l;
    return (a->low + a->l) - (b->low + b->l);
}

static int decompose(const Order *o, const int *cards, int n, Unit *out) {
    int dcard[NC], dcnt[NC], nd = 0, seen[NC];
    memset(seen, -1, sizeof seen);
    for (int i = 0; i < n; i++) {
        int c = cards[i];
        if (seen[c] < 0) { seen[c] = nd; dcard[nd] = c; dcnt[nd] = 0; nd++; }
        dcnt[seen[c]]++;
    }
    int widths[NC], nw = 0;
    for (int i = 0; i < nd; i++) {
        int f = 0;
        for (int j = 0; j < nw; j++) if (widths[j] == dcnt[i]) { f = 1; break; }
        if (!f) widths[nw++] = dcnt[i];
    }
    int nu = 0;
    for (int wi = 0; wi < nw; wi++) {
        int w = widths[wi];
        /* by power, in order of first appearance: cards of this width */
        int pw[NC], np = 0, pc[NC][MAXSAME], pn[NC];
        for (int i = 0; i < nd; i++) {
            if (dcnt[i] != w) continue;
            int p = o->power[dcard[i]], f = -1;
            for (int j = 0; j < np; j++) if (pw[j] == p) { f = j; break; }
            if (f < 0) { f = np++; pw[f] = p; pn[f] = 0; }
            if (pn[f] < MAXSAME) pc[f][pn[f]++] = dcard[i];
        }
        if (w == 1) {
            for (int j = 0; j < np; j++)
                for (int q = 0; q < pn[j]; q++) {
                    Unit *u = &out[nu++];
                    u->w = 1; u->l = 1; u->low = pw[j]; u->cards[0] = pc[j][q];
                }
            continue;
        }
        /* powers ascending: adjacent ones chain (the first card of a power), the others
         * stand alone */
        int order_idx[NC];
        for (int j = 0; j < np; j++) order_idx[j] = j;
        for (int a = 1; a < np; a++) {
            int t = order_idx[a], b = a;
            while (b > 0 && pw[order_idx[b - 1]] > pw[t]) { order_idx[b] = order_idx[b - 1]; b--; }
            order_idx[b] = t;
        }
        int chain_p[MAXLEN * 4], chain_c[MAXLEN * 4], cl = 0;
        for (int a = 0; a < np; a++) {
            int j = order_idx[a], p = pw[j];
            if (cl && chain_p[cl - 1] != p - 1) {
                Unit *u = &out[nu++];
                u->w = w; u->l = cl; u->low = chain_p[0];
                for (int k = 0; k < cl && k < MAXLEN; k++) u->cards[k] = chain_c[k];
                cl = 0;
            }
            chain_p[cl] = p; chain_c[cl] = pc[j][0]; cl++;
            for (int q = 1; q < pn[j]; q++) {
                Unit *u = &out[nu++];
                u->w = w; u->l = 1; u->low = p; u->cards[0] = pc[j][q];
            }
        }
        if (cl) {
            Unit *u = &out[nu++];
            u->w = w; u->l = cl; u->low = chain_p[0];
            for (int k = 0; k < cl && k < MAXLEN; k++) u->cards[k] = chain_c[k];
        }
    }
    /* stable sort, most significant first */
    for (int a = 1; a < nu; a++) {
        Unit t = out[a];
        int b = a;
        while (b > 0 && sig_cmp(&t, &out[b - 1]) > 0) { out[b] = out[b - 1]; b--; }
        out[b] = t;
    }
    return nu;
}

/* units.beats_unit, as a yes or no */
static int beats_any(const Hold *a, const Order *o, const Unit *u) {
    if (u->l == 1) return top_power(a, o->power, u->w) > u->low;
    ChainIter it;
    Unit v;
    ci_init(&it, a, o, u->w, u->l, 1);
    if (ci_next(&it, &v)) return v.low > u->low;
    return 0;
}

/* units.cover as a yes or no: whether units of kinds k[0..nk) can all be taken from a, the
 * first unit tried in ascending order (or descending: desc); the first unit of the first
 * covering found goes to *first when it is not NULL */
static int first_cover(const Hold *a, const Order *o, const Kind *k, int nk, int desc, Unit *first) {
    if (nk == 0) return 1;
    ChainIter it;
    Unit u;
    ci_init(&it, a, o, k[0].w, k[0].l, desc);
    while (ci_next(&it, &u)) {
        Hold after = *a;
        hold_take(&after, &u);
        if (first_cover(&after, o, k + 1, nk - 1, 0, NULL)) {
            if (first) *first = u;
            return 1;
        }
    }
    return 0;
}

/* units.best_value: -1 for None */
static int best_value(const Hold *a, const Order *o, const Kind *kinds, int nk) {
    int singles = 1;
    for (int i = 0; i < nk; i++) if (kinds[i].w != 1) { singles = 0; break; }
    if (singles) return top_power(a, o->power, 1);
    Kind st[MAXK];
    int ns = 0;
    for (int i = 0; i < nk; i++) if (!(kinds[i].w == 1 && kinds[i].l == 1)) st[ns++] = kinds[i];
    Unit u;
    return first_cover(a, o, st, ns, 1, &u) ? u.low + u.l - 1 : -1;
}

/* ------------------------------------------------------------------------------------------ */
/* 打万分's special patterns (replay/rulesets/wanfen.py): 1 同花顺, 2 发财, 3 四季, 4 the four
 * jokers, in the order of its pattern_kinds; a card is suit * 13 + rank - 2, jokers 52 and 53 */

#define P_STRAIGHT 1
#define P_FORTUNE 2
#define P_SEASONS 3
#define P_JOKERS 4

/* WanfenRules.special_lead */
static int special_lead(const Order *o, const int *cards, int n) {
    if (n != 4 && n != 8) return 0;
    int big = 0, little = 0, top = 0;
    for (int i = 0; i < n; i++) {
        if (cards[i] == 53) big++;
        else if (cards[i] == 52) little++;
        if (cards[i] > top) top = cards[i];
    }
    if (n == 4 && big == 2 && little == 2) return P_JOKERS;
    if (top >= 52) return 0;
    int ranks[13] = {0}, suits[4] = {0}, nr = 0, ns = 0, lo = 13, hi = -1;
    for (int i = 0; i < n; i++) {
        int r = cards[i] % 13, su = cards[i] / 13;
        if (!ranks[r]++) nr++;
        if (!suits[su]++) ns++;
        if (r < lo) lo = r;
        if (r > hi) hi = r;
    }
    if (n == 8 && nr == 1) return P_FORTUNE;
    if (n == 4 && nr == 1 && ns == 4) return P_SEASONS;
    if (n == 8 && ns == 1 && nr == 8 && hi - lo == 7) {
        for (int i = 0; i < n; i++) if (!o->straight[cards[i]]) return 0;
        return P_STRAIGHT;
    }
    return 0;
}

/* WanfenRules.holds_pattern: the cards into out, their count (0: none) */
static int holds_pattern(const Order *o, int kind, const int *held, int *out) {
    if (kind == P_JOKERS) {
        if (held[53] >= 2 && held[52] >= 2) { out[0] = out[1] = 53; out[2] = out[3] = 52; return 4; }
        return 0;
    }
    if (kind == P_FORTUNE || kind == P_SEASONS) {
        for (int r = 0; r < 13; r++) {
            int q[4] = {r, 13 + r, 26 + r, 39 + r};
            if (kind == P_FORTUNE) {
                if (held[q[0]] + held[q[1]] + held[q[2]] + held[q[3]] < 8) continue;
                int k = 0;
                for (int j = 0; j < 4; j++)
                    for (int t = 0; t < held[q[j]] && k < 8; t++) out[k++] = q[j];
                return 8;
            }
            if (held[q[0]] && held[q[1]] && held[q[2]] && held[q[3]]) {
                for (int j = 0; j < 4; j++) out[j] = q[j];
                return 4;
            }
        }
        return 0;
    }
    if (kind == P_STRAIGHT) {
        for (int su = 0; su < 4; su++) {
            int base = su * 13;
            int ok = 1;
            for (int j = 5; j < 8; j++) if (!(held[base + j] && o->straight[base + j])) ok = 0;
            if (!ok) continue;
            int run = 0;
            for (int i = 0; i < 13; i++) {
                int c = base + i;
                if (held[c] && o->straight[c]) {
                    if (++run == 8) {
                        for (int j = 0; j < 8; j++) out[j] = base + i - 7 + j;
                        return 8;
                    }
                } else {
                    run = 0;
                }
            }
        }
    }
    return 0;
}

/* WanfenRules.pattern_strength as rank * 65536 + value; -1 for None */
static int pattern_strength(const Order *o, int pattern, const int *cards, int n) {
    if (special_lead(o, cards, n) != pattern) return -1;
    if (pattern == P_STRAIGHT) {
        int top = cards[0];
        for (int i = 1; i < n; i++) if (cards[i] % 13 > top % 13) top = cards[i];
        return (o->klass[top] == TRUMP ? 65536 : 0) + o->power[top];
    }
    if (pattern == P_FORTUNE || pattern == P_SEASONS) {
        int rank = cards[0] % 13 + 2;
        return (rank == o->level ? 65536 : 0) + rank;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* the game                                                                                     */

typedef struct {
    const Order *o;
    const Rules *r;
    int P;
    int held[MAXP][NC];
    int class_left[MAXP][5];
    int side[MAXP];
    int pts[NC];
    int leader;
    int nplays;
    int pseat[MAXP], pn[MAXP];
    int pcards[MAXP][MAXHAND];
    int lead_class, lead_size, nkinds;
    Kind kinds[MAXK];
    int special;                     /* the trick's special pattern (0: none) */
    int finished;
    int face;                        /* the defenders' points from the tricks */
    int last_winner, last_n;         /* the last trick taken: its winner and winning play */
    int last_special;
    int last_cards[MAXHAND];
} Game;

static void holding(const Game *g, int seat, int k, Hold *h) {  /* state.class_holding */
    hold_clear(h);
    if (!g->class_left[seat][k]) return;
    const Order *o = g->o;
    for (int i = 0; i < o->nmem[k]; i++) {
        int c = o->mem[k][i];
        if (g->held[seat][c]) hold_add(h, c, g->held[seat][c]);
    }
}

static int rank_of(int first, int lead_class) {  /* trick._rank */
    if (first == lead_class) return 0;
    if (lead_class != TRUMP && first == TRUMP) return 1;
    return -1;
}

/* trick.play_strength as rank * 65536 + value; -1 for None */
static int play_strength(const Order *o, int lead_class, const Kind *kinds, int nk,
                         const int *cards, int n) {
    int first = o->klass[cards[0]];
    int rank = rank_of(first, lead_class);
    if (rank < 0) return -1;
    if (n == 1) return rank * 65536 + o->power[cards[0]];
    if (nk == 1 && kinds[0].l == 1 && kinds[0].w == n) {
        for (int i = 1; i < n; i++) if (cards[i] != cards[0]) return -1;
        return rank * 65536 + o->power[cards[0]];
    }
    for (int i = 0; i < n; i++) if (o->klass[cards[i]] != first) return -1;
    int singles = 1;
    for (int i = 0; i < nk; i++) if (kinds[i].w != 1) { singles = 0; break; }
    if (singles) {
        int top = -1;
        for (int i = 0; i < n; i++) if (o->power[cards[i]] > top) top = o->power[cards[i]];
        return rank * 65536 + top;
    }
    Hold h;
    hold_clear(&h);
    for (int i = 0; i < n; i++) hold_add(&h, cards[i], 1);
    int v = best_value(&h, o, kinds, nk);
    return v < 0 ? -1 : rank * 65536 + v;
}

static int strength_bound(const Order *o, int lead_class, const int *cards, int n) {
    int rank = rank_of(o->klass[cards[0]], lead_class);
    if (rank < 0) return -1;
    int top = 0;
    for (int i = 0; i < n; i++) if (o->power[cards[i]] > top) top = o->power[cards[i]];
    return rank * 65536 + top;
}

/* ------------------------------------------------------------------------------------------ */
/* follows (legal.FollowSpec)                                                                   */

typedef struct {
    int n, m;
    Hold suit, others;
    int nu;
    Kind u[MAXK];
    const AnsList *ans[MAXK];
    int req[MAXK];
} Spec;

typedef struct { int n, cap; int *len; int *cards; int stride; } Plays;  /* a list of plays */

static int plays_init(Plays *p, int stride) {
    p->n = 0; p->cap = 64; p->stride = stride;
    p->len = malloc(sizeof(int) * p->cap);
    p->cards = malloc(sizeof(int) * p->cap * stride);
    return p->len && p->cards;
}

static void plays_free(Plays *p) { free(p->len); free(p->cards); p->len = NULL; p->cards = NULL; }

static int plays_push(Plays *p, const int *cards, int n) {
    if (p->n == p->cap) {
        int cap = p->cap * 2;
        int *len = realloc(p->len, sizeof(int) * cap);
        if (!len) return 0;
        p->len = len;
        int *cs = realloc(p->cards, sizeof(int) * cap * p->stride);
        if (!cs) return 0;
        p->cards = cs;
        p->cap = cap;
    }
    memcpy(p->cards + (size_t)p->n * p->stride, cards, sizeof(int) * n);
    p->len[p->n++] = n;
    return 1;
}

static const Shape *shape_at(const Spec *s, int i) { return &s->ans[i]->s[s->req[i]]; }

static int shape_size(const Shape *sh) {
    int t = 0;
    for (int j = 0; j < sh->n; j++) t += sh->k[j].w * sh->k[j].l;
    return t;
}

static int search_from(const Spec *s, const Order *o, const Hold *avail, int i, int budget);

static int place_then(const Spec *s, const Order *o, const Hold *avail, const Shape *sh, int j,
                      int i, int budget) {
    if (j == sh->n) return search_from(s, o, avail, i + 1, budget - s->u[i].w * s->u[i].l);
    ChainIter it;
    Unit u;
    ci_init(&it, avail, o, sh->k[j].w, sh->k[j].l, 0);
    while (ci_next(&it, &u)) {
        Hold after = *avail;
        hold_take(&after, &u);
        if (place_then(s, o, &after, sh, j + 1, i, budget)) return 1;
    }
    return 0;
}

/* legal._search: can avail show the required answers for units i..? */
static int search_from(const Spec *s, const Order *o, const Hold *avail, int i, int budget) {
    if (i == s->nu) return 1;
    const Shape *sh = shape_at(s, i);
    int size = s->u[i].w * s->u[i].l;
    int room = size < budget ? size : budget;
    if (room < 0) room = 0;
    if (shape_size(sh) > room) return 0;
    return place_then(s, o, avail, sh, 0, i, budget);
}

/* the required answers (legal._find_required), given the answer lists */
static void find_required(Spec *s, const Order *o) {
    for (int i = 0; i < s->nu; i++) {
        int found = s->ans[i]->n - 1;
        for (int j = 0; j < s->ans[i]->n; j++) {
            s->req[i] = j;
            for (int q = i + 1; q < s->nu; q++) s->req[q] = s->ans[q]->n - 1;
            if (search_from(s, o, &s->suit, 0, s->m)) { found = j; break; }
        }
        s->req[i] = found;
    }
}

/* legal._multisets_count, saturating */
#define SAT 1000000000LL
static long long multisets_count(const int *card, const int *cnt, int ni, int n) {
    if (n <= 1) {
        if (n == 0) return 1;
        int t = 0;
        for (int i = 0; i < ni; i++) if (cnt[i] > 0) t++;
        return t;
    }
    long long ways[MAXHAND + 1], nw[MAXHAND + 1];
    if (n > MAXHAND) return SAT;
    for (int h = 0; h <= n; h++) ways[h] = 0;
    ways[0] = 1;
    for (int i = 0; i < ni; i++) {
        for (int h = 0; h <= n; h++) nw[h] = 0;
        for (int have = 0; have <= n; have++) {
            if (!ways[have]) continue;
            int most = cnt[i] < n - have ? cnt[i] : n - have;
            for (int take = 0; take <= most; take++) {
                nw[have + take] += ways[have];
                if (nw[have + take] > SAT) nw[have + take] = SAT;
            }
        }
        for (int h = 0; h <= n; h++) ways[h] = nw[h];
    }
    return ways[n];
}

/* legal._multisets with its walk: most copies of the first item first; stops past cap */
typedef struct {
    const int *card, *cnt;
    int ni;
    int room[NC + 1];
    int chosen[MAXHAND], nch;
    Plays *out;
    int cap;
    int oom;
} Walk;

static int walk(Walk *w, int i, int need) {
    if (need == 0) {
        if (!plays_push(w->out, w->chosen, w->nch)) { w->oom = 1; return 1; }
        return 0 <= w->cap && w->cap < w->out->n;
    }
    for (int j = i; j < w->ni; j++) {
        if (w->room[j] < need) return 0;
        int card = w->card[j], k = w->cnt[j];
        for (int take = (k < need ? k : need); take > 0; take--) {
            if (w->room[j + 1] < need - take) break;
            for (int t = 0; t < take; t++) w->chosen[w->nch++] = card;
            if (walk(w, j + 1, need - take)) return 1;
            w->nch -= take;
        }
    }
    return 0;
}

static int multisets(const int *card, const int *cnt, int ni, int n, int cap, Plays *out) {
    if (n == 1) {
        for (int i = 0; i < ni; i++)
            if (cnt[i] > 0 && !plays_push(out, &card[i], 1)) return 0;
        return 1;
    }
    Walk w;
    w.card = card; w.cnt = cnt; w.ni = ni; w.nch = 0; w.out = out; w.cap = cap; w.oom = 0;
    w.room[ni] = 0;
    for (int i = ni - 1; i >= 0; i--) w.room[i] = w.room[i + 1] + cnt[i];
    walk(&w, 0, n);
    return !w.oom;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static int plays_lex_cmp_len;
static const int *plays_lex_base;
static int plays_lex_stride;
static int cmp_play_idx(const void *a, const void *b) {
    const int *x = plays_lex_base + (size_t)(*(const int *)a) * plays_lex_stride;
    const int *y = plays_lex_base + (size_t)(*(const int *)b) * plays_lex_stride;
    for (int i = 0; i < plays_lex_cmp_len; i++) if (x[i] != y[i]) return x[i] - y[i];
    return 0;
}

/* legal._achieving: the m-card parts of the suit that show the required answers, in sorted
 * order; returns the count (more than cap: cap + 1), -1 when out of memory */
static int achieving(const Spec *s, const Order *o, const int *card, const int *cnt, int ni,
                     int cap, Plays *parts) {
    Plays all;
    if (!plays_init(&all, s->m > 0 ? s->m : 1)) return -1;
    if (!multisets(card, cnt, ni, s->m, -1, &all)) { plays_free(&all); return -1; }
    int *keep = malloc(sizeof(int) * (all.n + 1));
    if (!keep) { plays_free(&all); return -1; }
    int nk = 0;
    for (int q = 0; q < all.n; q++) {
        const int *cs = all.cards + (size_t)q * all.stride;
        Hold h;
        hold_clear(&h);
        for (int t = 0; t < all.len[q]; t++) hold_add(&h, cs[t], 1);
        if (search_from(s, o, &h, 0, s->m)) keep[nk++] = q;
    }
    int result = nk;
    if (nk <= cap) {
        plays_lex_base = all.cards; plays_lex_stride = all.stride; plays_lex_cmp_len = s->m;
        qsort(keep, nk, sizeof(int), cmp_play_idx);  /* multisets: each in card order already */
        for (int q = 0; q < nk; q++)
            if (!plays_push(parts, all.cards + (size_t)keep[q] * all.stride, s->m)) { result = -1; break; }
    } else {
        result = cap + 1;
    }
    free(keep);
    plays_free(&all);
    return result;
}

static void sorted_items(const Hold *h, int *card, int *cnt, int *ni) {
    int k = 0;
    for (int c = 0; c < NC; c++) if (h->cnt[c] > 0) { card[k] = c; cnt[k] = h->cnt[c]; k++; }
    *ni = k;
}

/* FollowSpec.follows(limit): 1 with the list, 0 for None, -1 on error */
static int follows(const Spec *s, const Order *o, int limit, Plays *out) {
    if (s->n == 1) {
        const Hold *h = s->suit.n ? &s->suit : &s->others;
        int card[NC], cnt[NC], ni;
        sorted_items(h, card, cnt, &ni);
        if (ni > limit) return 0;
        for (int i = 0; i < ni; i++) if (!plays_push(out, &card[i], 1)) return -1;
        return 1;
    }
    int scard[NC], scnt[NC], sn, ocard[NC], ocnt[NC], on = 0;
    sorted_items(&s->suit, scard, scnt, &sn);
    int rest = s->n - s->m;
    if (rest) sorted_items(&s->others, ocard, ocnt, &on);
    long long ways = multisets_count(ocard, ocnt, on, rest);
    if (ways > limit || multisets_count(scard, scnt, sn, s->m) > 50LL * limit) return 0;
    if (ways == 0) return -1;  /* fewer cards than the lead: a broken world */
    int cap = (int)(limit / ways);
    int structured = 0;
    for (int i = 0; i < s->nu; i++) if (shape_at(s, i)->n) { structured = 1; break; }
    Plays parts;
    if (!plays_init(&parts, s->m > 0 ? s->m : 1)) return -1;
    int nparts;
    if (!structured) {
        if (!multisets(scard, scnt, sn, s->m, cap, &parts)) { plays_free(&parts); return -1; }
        nparts = parts.n;
    } else if (s->nu == 1 && s->u[0].l == 1 && s->n == s->m && s->m == s->u[0].w
               && s->req[0] == 0 && s->ans[0]->s[0].n == 1 && s->ans[0]->s[0].k[0].w == s->u[0].w
               && s->ans[0]->s[0].k[0].l == 1) {
        int w = s->u[0].w, cs[MAXW];
        for (int i = 0; i < sn; i++) {
            if (scnt[i] < w) continue;
            for (int t = 0; t < w; t++) cs[t] = scard[i];
            if (!plays_push(&parts, cs, w)) { plays_free(&parts); return -1; }
        }
        nparts = parts.n;
    } else {
        nparts = achieving(s, o, scard, scnt, sn, cap, &parts);
        if (nparts < 0) { plays_free(&parts); return -1; }
    }
    if (nparts == 0) { plays_free(&parts); return -1; }  /* cannot be: a broken world */
    if (nparts > cap) { plays_free(&parts); return 0; }
    if (!rest) {
        for (int q = 0; q < parts.n; q++)
            if (!plays_push(out, parts.cards + (size_t)q * parts.stride, parts.len[q])) {
                plays_free(&parts); return -1;
            }
        plays_free(&parts);
        return 1;
    }
    Plays extras;
    if (!plays_init(&extras, rest)) { plays_free(&parts); return -1; }
    if (!multisets(ocard, ocnt, on, rest, -1, &extras)) {
        plays_free(&parts); plays_free(&extras); return -1;
    }
    int buf[MAXHAND];
    for (int q = 0; q < parts.n; q++) {
        for (int e = 0; e < extras.n; e++) {
            int k = 0;
            for (int t = 0; t < parts.len[q]; t++) buf[k++] = parts.cards[(size_t)q * parts.stride + t];
            for (int t = 0; t < extras.len[e]; t++) buf[k++] = extras.cards[(size_t)e * extras.stride + t];
            qsort(buf, k, sizeof(int), cmp_int);
            if (!plays_push(out, buf, k)) { plays_free(&parts); plays_free(&extras); return -1; }
        }
    }
    plays_free(&parts);
    plays_free(&extras);
    return 1;
}

/* FollowSpec._place: the required answers placed the first way that leaves the later ones
 * room (among the first 256 ways of each) */
typedef struct {
    const Spec *s;
    const Order *o;
    int i, budget;
    int count, done;
    Unit placed[MAXK];
    int np;
    Hold result;
    Unit chosen_units[MAXK];
    int nchosen;
} Place;

static void place_walk(Place *p, const Hold *avail, const Shape *sh, int j) {
    if (p->done || p->count >= 256) return;
    if (j == sh->n) {
        p->count++;
        if (search_from(p->s, p->o, avail, p->i + 1,
                        p->budget - p->s->u[p->i].w * p->s->u[p->i].l)) {
            p->done = 1;
            p->result = *avail;
            p->nchosen = p->np;
            for (int q = 0; q < p->np; q++) p->chosen_units[q] = p->placed[q];
        }
        return;
    }
    ChainIter it;
    Unit u;
    ci_init(&it, avail, p->o, sh->k[j].w, sh->k[j].l, 0);
    while (ci_next(&it, &u)) {
        Hold after = *avail;
        hold_take(&after, &u);
        p->placed[p->np++] = u;
        place_walk(p, &after, sh, j + 1);
        p->np--;
        if (p->done || p->count >= 256) return;
    }
}

static int key_of(const Game *g, int which, int c) {
    int pw = g->o->power[c], pt = g->pts[c], nt = g->o->klass[c] != TRUMP;
    switch (which) {
    case 0: return pt * 1024 + pw;
    case 1: return -pt * 1024 + pw;
    case 2: return nt * 4096 + (1024 - pw);
    default: return nt * 4096 + pw;
    }
}

static void stable_sort_by_key(const Game *g, int which, int *cs, int n) {
    for (int a = 1; a < n; a++) {
        int t = cs[a], kt = key_of(g, which, t), b = a;
        while (b > 0 && key_of(g, which, cs[b - 1]) > kt) { cs[b] = cs[b - 1]; b--; }
        cs[b] = t;
    }
}

/* FollowSpec.lowest_each with the rollout player's four keys */
static int lowest_each(const Game *g, const Spec *s, Plays *out) {
    Hold avail = s->suit;
    int chosen[MAXHAND], nc = 0, budget = s->m;
    for (int i = 0; i < s->nu; i++) {
        Place p;
        p.s = s; p.o = g->o; p.i = i; p.budget = budget; p.count = 0; p.done = 0; p.np = 0;
        place_walk(&p, &avail, shape_at(s, i), 0);
        if (p.done) {
            avail = p.result;
            for (int q = 0; q < p.nchosen; q++) {
                const Unit *u = &p.chosen_units[q];
                for (int r = 0; r < u->l; r++)
                    for (int t = 0; t < u->w; t++) if (nc < MAXHAND) chosen[nc++] = u->cards[r];
            }
        }
        budget -= s->u[i].w * s->u[i].l;
    }
    for (int which = 0; which < 4; which++) {
        int rs[MAXHAND], nr = 0, os[MAXHAND], no = 0, play[MAXHAND], np = 0;
        for (int q = 0; q < avail.n; q++) {
            int c = avail.card[q];
            for (int t = 0; t < avail.cnt[c] && nr < MAXHAND; t++) rs[nr++] = c;
        }
        for (int q = 0; q < s->others.n; q++) {
            int c = s->others.card[q];
            for (int t = 0; t < s->others.cnt[c] && no < MAXHAND; t++) os[no++] = c;
        }
        stable_sort_by_key(g, which, rs, nr);
        stable_sort_by_key(g, which, os, no);
        for (int q = 0; q < nc; q++) play[np++] = chosen[q];
        int more = s->m - np;
        for (int q = 0; q < more && q < nr; q++) play[np++] = rs[q];
        more = s->n - np;
        for (int q = 0; q < more && q < no; q++) play[np++] = os[q];
        if (!plays_push(out, play, np)) return 0;
    }
    return 1;
}

/* legal.follow_spec */
static int follow_spec(const Game *g, int seat, Spec *s) {
    const Order *o = g->o;
    int k = g->lead_class;
    s->n = 0;
    for (int i = 0; i < g->nkinds; i++) s->n += g->kinds[i].w * g->kinds[i].l;
    if (g->special) s->n = g->lead_size;  /* not holding the pattern: trumps, then any */
    holding(g, seat, k, &s->suit);
    hold_clear(&s->others);
    for (int c = 0; c < NC; c++) if (g->held[seat][c] && o->klass[c] != k) hold_add(&s->others, c, g->held[seat][c]);
    int total = hold_total(&s->suit);
    s->m = s->n < total ? s->n : total;
    s->nu = g->nkinds;
    int singles = 1;
    for (int i = 0; i < s->nu; i++) {
        s->u[i] = g->kinds[i];
        if (s->u[i].w > MAXW || s->u[i].l > MAXLEN) return 0;
        s->ans[i] = &g->r->ans[s->u[i].w][s->u[i].l];
        if (s->ans[i]->n == 0) return 0;
        if (s->ans[i]->n != 1 || s->ans[i]->s[0].n) singles = 0;
    }
    if (singles) {
        for (int i = 0; i < s->nu; i++) s->req[i] = 0;
    } else {
        find_required(s, o);
    }
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* the rollout player (playout.py)                                                              */

static int team(const Game *g, int seat) { return g->side[seat]; }

/* playout._strength: a play's strength in the trick in progress */
static int strength_in_trick(const Game *g, const int *cards, int n) {
    if (g->special) return pattern_strength(g->o, g->special, cards, n);
    return play_strength(g->o, g->lead_class, g->kinds, g->nkinds, cards, n);
}

/* playout._threat: -1 for None */
static int threat_of(const Game *g, const int *seats, int ns) {
    if (!ns || g->special) return -1;
    int k = g->lead_class, n = 0;
    for (int i = 0; i < g->nkinds; i++) n += g->kinds[i].w * g->kinds[i].l;
    int out = -1;
    for (int q = 0; q < ns; q++) {
        int o = seats[q];
        Hold h;
        holding(g, o, k, &h);
        int key = -1;
        if (h.n) {
            if (hold_total(&h) < n) continue;
            int v = best_value(&h, g->o, g->kinds, g->nkinds);
            key = v < 0 ? -1 : v;
        } else if (k != TRUMP) {
            holding(g, o, TRUMP, &h);
            if (hold_total(&h) < n) continue;
            int v = best_value(&h, g->o, g->kinds, g->nkinds);
            key = v < 0 ? -1 : 65536 + v;
        } else {
            continue;
        }
        if (key >= 0 && key > out) out = key;
    }
    return out;
}

/* playout._choose_follow: the index of the follow chosen among found */
static int choose_follow(const Game *g, int seat, const Plays *found) {
    if (found->n == 1) return 0;
    const Order *o = g->o;
    int best_now = -1, winner = -1;
    for (int q = 0; q < g->nplays; q++) {
        int key = strength_in_trick(g, g->pcards[q], g->pn[q]);
        if (key >= 0 && key > best_now) { best_now = key; winner = g->pseat[q]; }
    }
    int side = team(g, seat);
    int nl = 0, opp[MAXP], no = 0;
    for (int i = g->nplays + 1; i < g->P; i++) {
        int s2 = (g->pseat[0] + i) % g->P;
        nl++;
        if (team(g, s2) != side) opp[no++] = s2;
    }
    int threat = threat_of(g, opp, no);
    int on_table = 0;
    for (int q = 0; q < g->nplays; q++)
        for (int t = 0; t < g->pn[q]; t++) on_table += g->pts[g->pcards[q][t]];
    int *pts = malloc(sizeof(int) * found->n * 2);
    if (!pts) return -1;
    int *pws = pts + found->n;
    for (int q = 0; q < found->n; q++) {
        int a = 0, b = 0;
        const int *cs = found->cards + (size_t)q * found->stride;
        for (int t = 0; t < found->len[q]; t++) { a += g->pts[cs[t]]; b += o->power[cs[t]]; }
        pts[q] = a; pws[q] = b;
    }
    int pick = 0;
    if (winner >= 0 && team(g, winner) == side && (threat < 0 || best_now < 0 || threat <= best_now)) {
        for (int i = 1; i < found->n; i++)
            if (pts[i] > pts[pick] || (pts[i] == pts[pick] && pws[i] < pws[pick])) pick = i;
        free(pts);
        return pick;
    }
    int first_win = -1, any_points = 0, wpick = -1;
    for (int i = 0; i < found->n; i++) {
        const int *cs = found->cards + (size_t)i * found->stride;
        if (!g->special && best_now >= 0 &&
            strength_bound(o, g->lead_class, cs, found->len[i]) <= best_now) continue;
        int key = strength_in_trick(g, cs, found->len[i]);
        if (key >= 0 && (best_now < 0 || key > best_now) && (threat < 0 || threat <= key)) {
            if (first_win < 0) { first_win = i; wpick = i; }
            else if (pws[i] < pws[wpick] || (pws[i] == pws[wpick] && pts[i] > pts[wpick])) wpick = i;
            if (pts[i]) any_points = 1;
        }
    }
    if (first_win >= 0 && (on_table > 0 || nl == 0 || any_points)) {
        free(pts);
        return wpick;
    }
    for (int i = 1; i < found->n; i++)
        if (pts[i] < pts[pick] || (pts[i] == pts[pick] && pws[i] < pws[pick])) pick = i;
    free(pts);
    return pick;
}

/* playout.greedy_follow / the single-card branch of greedy_play: the play into out */
static int greedy_follow(const Game *g, int seat, int *out, int *nout) {
    Plays found;
    if (!plays_init(&found, MAXHAND)) return 0;
    int ok = 1;
    if (g->lead_size == 1 && !g->special) {
        Hold h;
        holding(g, seat, g->lead_class, &h);
        int any = h.n;
        int cards[NC], nc = 0;
        for (int c = 0; c < NC; c++)
            if (any ? h.cnt[c] > 0 : g->held[seat][c] > 0) cards[nc++] = c;
        if (nc <= LIMIT) {
            for (int i = 0; i < nc; i++) plays_push(&found, &cards[i], 1);
            goto choose;
        }
    }
    if (g->special) {  /* FollowSpec with a pattern held (ruling 15): the same kind of pattern */
        int pattern[8], np = holds_pattern(g->o, g->special, g->held[seat], pattern);
        if (np) {
            int card[NC], cnt[NC], ni = 0;
            for (int c = 0; c < NC; c++) if (g->held[seat][c]) { card[ni] = c; cnt[ni] = g->held[seat][c]; ni++; }
            if (multisets_count(card, cnt, ni, g->lead_size) > LIMIT) {  /* lowest_each */
                ok = plays_push(&found, pattern, np);
            } else {  /* enumerate: every multiset of the hand that makes one, in walk order */
                Plays all;
                ok = plays_init(&all, g->lead_size) && multisets(card, cnt, ni, g->lead_size, -1, &all);
                for (int q = 0; ok && q < all.n; q++) {
                    const int *cs = all.cards + (size_t)q * all.stride;
                    if (special_lead(g->o, cs, all.len[q]) == g->special)
                        ok = plays_push(&found, cs, all.len[q]);
                }
                plays_free(&all);
            }
            if (!ok || found.n == 0) { plays_free(&found); return 0; }
            goto choose;
        }
    }
    {
        Spec *s = malloc(sizeof(Spec));
        if (!s) { plays_free(&found); return 0; }
        if (!follow_spec(g, seat, s)) { free(s); plays_free(&found); return 0; }
        int r = follows(s, g->o, LIMIT, &found);
        if (r < 0) ok = 0;
        else if (r == 0) { found.n = 0; ok = lowest_each(g, s, &found); }
        free(s);
        if (!ok || found.n == 0) { plays_free(&found); return 0; }
    }
choose:;
    int pick = choose_follow(g, seat, &found);
    if (pick < 0) { plays_free(&found); return 0; }
    *nout = found.len[pick];
    memcpy(out, found.cards + (size_t)pick * found.stride, sizeof(int) * *nout);
    plays_free(&found);
    return 1;
}

/* legal.failing_units, as a yes or no: whether another seat's cards beat a unit of a throw */
/* throws.failing_units as a yes or no: whether another seat's cards of class k beat one of
 * the units us[0..nu) */
static int units_beaten(const Game *g, int seat, int k, const Unit *us, int nu) {
    for (int other = 0; other < g->P; other++) {
        if (other == seat) continue;
        Hold h;
        holding(g, other, k, &h);
        if (!h.n) continue;
        for (int q = 0; q < nu; q++) if (beats_any(&h, g->o, &us[q])) return 1;
    }
    return 0;
}

static int throw_fails(const Game *g, int seat, const int *cards, int n) {
    if (n < 2) return 0;
    Unit parts[MAXHAND];
    int np = decompose(g->o, cards, n, parts);
    if (np < 2 || (n >= 4 && g->r->patterns && special_lead(g->o, cards, n))) return 0;
    return units_beaten(g, seat, g->o->klass[cards[0]], parts, np);
}

typedef struct { int n, cap; Unit *u; } UnitVec;

static int uv_push(UnitVec *v, const Unit *u) {
    if (v->n == v->cap) {
        int cap = v->cap ? v->cap * 2 : 64;
        Unit *nu = realloc(v->u, sizeof(Unit) * cap);
        if (!nu) return 0;
        v->u = nu; v->cap = cap;
    }
    v->u[v->n++] = *u;
    return 1;
}

/* legal.units_in */
static int units_in(const Hold *h, const Order *o, int max_width, UnitVec *out) {
    Unit u;
    for (int w = 1; w <= max_width; w++) {
        ChainIter it;
        ci_init(&it, h, o, w, 1, 0);
        while (ci_next(&it, &u)) if (!uv_push(out, &u)) return 0;
        if (w >= 2) {
            for (int l = 2; l < 14; l++) {
                int before = out->n;
                ci_init(&it, h, o, w, l, 0);
                while (ci_next(&it, &u)) if (!uv_push(out, &u)) return 0;
                if (out->n == before) break;
            }
        }
    }
    return 1;
}

/* playout.greedy_lead */
static int greedy_lead(const Game *g, int seat, int *out, int *nout) {
    const Order *o = g->o;
    int opp[MAXP], no = 0;
    int side = team(g, seat);
    for (int s2 = 0; s2 < g->P; s2++) if (s2 != seat && team(g, s2) != side) opp[no++] = s2;
    int defender = !side;
    double best_score = 0.0;
    int have_best = 0, best_is_cards = 0;
    int best_cards[MAXHAND], nbest = 0;
    Unit best_unit;
    memset(&best_unit, 0, sizeof best_unit);
    Hold trumps[MAXP];
    for (int q = 0; q < no; q++) holding(g, opp[q], TRUMP, &trumps[q]);
    signed char ruffs[MAXP][5][MAXW + 1][MAXLEN + 1];
    memset(ruffs, -1, sizeof ruffs);
    UnitVec units = {0, 0, NULL};
    int ok = 1;
    for (int klass = 0; klass < 5 && ok; klass++) {
        Hold h;
        holding(g, seat, klass, &h);
        if (!h.n) continue;
        units.n = 0;
        if (!units_in(&h, o, g->r->max_width, &units)) { ok = 0; break; }
        Hold theirs[MAXP];
        int tops[MAXP];
        for (int q = 0; q < no; q++) {
            holding(g, opp[q], klass, &theirs[q]);
            tops[q] = top_power(&theirs[q], o->power, 1);
        }
        int *sure = malloc(sizeof(int) * (units.n + 1));
        if (!sure) { ok = 0; break; }
        int nsure = 0;
        for (int i = 0; i < units.n; i++) {
            const Unit *u = &units.u[i];
            int single = u->w == 1 && u->l == 1, beaten = 0;
            for (int q = 0; q < no && !beaten; q++) {
                if (single) { if (tops[q] > u->low) { beaten = 1; break; } }
                else if (beats_any(&theirs[q], o, u)) { beaten = 1; break; }
                signed char *r = &ruffs[opp[q]][klass][u->w][u->l];
                if (*r < 0) {
                    int can = 0;
                    if (klass != TRUMP && !g->class_left[opp[q]][klass] &&
                        hold_total(&trumps[q]) >= u->w * u->l) {
                        Kind kd = {u->w, u->l};
                        can = best_value(&trumps[q], o, &kd, 1) >= 0;
                    }
                    *r = (signed char)can;
                }
                if (*r) beaten = 1;
            }
            sure[i] = !beaten;
            nsure += sure[i];
        }
        if (nsure >= 2 && (klass != TRUMP || g->r->trump_throws)) {
            /* sorted(sure, key=(size, top), reverse=True): stable */
            int *ord = malloc(sizeof(int) * (nsure + 1));
            if (!ord) { free(sure); ok = 0; break; }
            int k2 = 0;
            for (int i = 0; i < units.n; i++) if (sure[i]) ord[k2++] = i;
            for (int a = 1; a < k2; a++) {
                int t = ord[a], b = a;
                const Unit *ut = &units.u[t];
                while (b > 0) {
                    const Unit *ub = &units.u[ord[b - 1]];
                    int sb = ub->w * ub->l, st = ut->w * ut->l;
                    int tb = ub->low + ub->l - 1, tt = ut->low + ut->l - 1;
                    if (sb < st || (sb == st && tb < tt)) { ord[b] = ord[b - 1]; b--; }
                    else break;
                }
                ord[b] = t;
            }
            int left[NC], thr[MAXHAND], nt = 0;
            for (int c = 0; c < NC; c++) left[c] = h.cnt[c];
            for (int a = 0; a < k2; a++) {
                const Unit *u = &units.u[ord[a]];
                int fits = 1;
                for (int r = 0; r < u->l; r++) if (left[u->cards[r]] < u->w) { fits = 0; break; }
                if (!fits) continue;
                for (int r = 0; r < u->l; r++) left[u->cards[r]] -= u->w;
                for (int r = 0; r < u->l; r++)
                    for (int t = 0; t < u->w; t++) if (nt < MAXHAND) thr[nt++] = u->cards[r];
            }
            free(ord);
            Unit parts[MAXHAND];
            if (decompose(o, thr, nt, parts) >= 2 && !throw_fails(g, seat, thr, nt)) {
                double score = 6.0 + (double)nt / 10;
                if (!have_best || score > best_score) {
                    best_score = score; have_best = 1; best_is_cards = 1;
                    memcpy(best_cards, thr, sizeof(int) * nt); nbest = nt;
                }
            }
        }
        int count = hold_total(&h);
        for (int i = 0; i < units.n; i++) {
            const Unit *u = &units.u[i];
            double score;
            if (sure[i]) {
                int held_points = 0;
                for (int r = 0; r < u->l; r++) held_points += g->pts[u->cards[r]];
                score = 3.0 + (double)(u->w * u->l) + (double)(held_points * u->w) / 20;
                if (klass == TRUMP) score -= defender ? 1.0 : 0.0;
            } else if (u->w > 1) {
                int top = u->low + u->l - 1;
                score = 1.0 + (double)(u->w * u->l) / 4 - (double)o->power[top] / 100;
            } else {
                int c = u->cards[0];
                score = (double)(-o->power[c]) / 100 - (double)g->pts[c] / 5
                        + (klass != TRUMP ? (double)count / 100 : -1.0);
            }
            if (!have_best || score > best_score) {
                best_score = score; have_best = 1; best_is_cards = 0; best_unit = *u;
            }
        }
        free(sure);
    }
    free(units.u);
    if (ok && g->r->patterns) {  /* 打万分's patterns: only their like beats them */
        for (int kind = P_STRAIGHT; kind <= P_JOKERS; kind++) {
            int found[8], nf = holds_pattern(o, kind, g->held[seat], found);
            if (!nf) continue;
            double score = 8.0 + (double)nf / 2;
            if (!have_best || score > best_score) {
                best_score = score; have_best = 1; best_is_cards = 1;
                memcpy(best_cards, found, sizeof(int) * nf); nbest = nf;
            }
        }
    }
    if (!ok || !have_best) return 0;
    if (best_is_cards) {
        memcpy(out, best_cards, sizeof(int) * nbest);
        *nout = nbest;
    } else {
        int k = 0;
        for (int r = 0; r < best_unit.l; r++)
            for (int t = 0; t < best_unit.w; t++) out[k++] = best_unit.cards[r];
        *nout = k;
    }
    return 1;
}

/* tricks.play_legal and _finish_trick: the play applied */
static int apply(Game *g, int seat, const int *cards, int n) {
    const Order *o = g->o;
    if (n <= 0 || n > MAXHAND) return 0;
    if (g->nplays == 0) {
        g->lead_class = o->klass[cards[0]];
        g->lead_size = n;
        g->special = n >= 4 && g->r->patterns ? special_lead(o, cards, n) : 0;
        if (g->special) {  /* led as a trump lead; only its like wins */
            g->lead_class = TRUMP;
            g->nkinds = 0;
        } else if (n == 1) {
            g->nkinds = 1; g->kinds[0].w = 1; g->kinds[0].l = 1;
        } else {
            Unit parts[MAXHAND];
            int np = decompose(o, cards, n, parts);
            if (np > MAXK) return 0;
            g->nkinds = np;
            for (int q = 0; q < np; q++) { g->kinds[q].w = parts[q].w; g->kinds[q].l = parts[q].l; }
        }
    }
    for (int i = 0; i < n; i++) {
        int c = cards[i];
        if (g->held[seat][c] <= 0) return 0;
        g->held[seat][c]--;
        g->class_left[seat][o->klass[c]]--;
    }
    int q = g->nplays++;
    g->pseat[q] = seat;
    g->pn[q] = n;
    memcpy(g->pcards[q], cards, sizeof(int) * n);
    if (g->nplays < g->P) return 1;
    int best = -1, winner = g->pseat[0], total = 0;
    for (int p = 0; p < g->nplays; p++) {
        for (int t = 0; t < g->pn[p]; t++) total += g->pts[g->pcards[p][t]];
        if (!g->special && best >= 0 &&
            strength_bound(o, g->lead_class, g->pcards[p], g->pn[p]) <= best) continue;
        int key = strength_in_trick(g, g->pcards[p], g->pn[p]);
        if (key >= 0 && key > best) { best = key; winner = g->pseat[p]; }
    }
    if (!g->side[winner]) g->face += total;
    for (int p = 0; p < g->nplays; p++)
        if (g->pseat[p] == winner) {
            g->last_winner = winner;
            g->last_special = g->special;
            g->last_n = g->pn[p];
            memcpy(g->last_cards, g->pcards[p], sizeof(int) * g->pn[p]);
            break;
        }
    g->leader = winner;
    g->nplays = 0;
    int left = 0;
    for (int s2 = 0; s2 < g->P && !left; s2++)
        for (int c = 0; c < NC; c++) if (g->held[s2][c]) { left = 1; break; }
    if (!left) g->finished = 1;
    return 1;
}

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
        for (int c = 0; c < NC; c++) {
            if (g->held[st][c] < 0 || g->held[st][c] > MAXW) { free(g); return PyLong_FromLong(-1); }
            g->class_left[st][o->klass[c]] += g->held[st][c];
        }
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
            g->held[seat][c]--;
            g->class_left[seat][o->klass[c]]--;
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
    for (int st = 0; st < P && !left; st++)
        for (int k = 0; k < 5; k++) if (g->class_left[st][k]) { left = 1; break; }
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
    int first[MAXP][NC], kept[MAXP][NC], kept_left[MAXP][5];
    if (!g || !tricks) { PyErr_NoMemory(); goto fail; }
    memset(g->class_left, 0, sizeof g->class_left);
    g->o = self->o; g->r = self->r; g->P = (int)P; g->leader = leader; g->face = 0; g->finished = 0;
    int n;
    if (!ints_of(points, g->pts, NC, &n) || !ints_of(side, g->side, MAXP, &n)) goto fail;
    for (int st = 0; st < g->P; st++) {
        if (!counts_of54(PyList_GET_ITEM(held, st), g->held[st])) goto fail;
        for (int c = 0; c < NC; c++) {
            if (g->held[st][c] < 0 || g->held[st][c] > MAXW) {
                result = Py_BuildValue("(nOiiO)", (Py_ssize_t)0, tricks, 0, leader, Py_False);
                goto fail;
            }
            g->class_left[st][g->o->klass[c]] += g->held[st][c];
        }
    }
    memcpy(first, g->held, sizeof first);
    memcpy(kept, g->held, sizeof kept);
    memcpy(kept_left, g->class_left, sizeof kept_left);
    Py_ssize_t i = start;
    while (!g->finished) {
        PyObject *trick = NULL;
        Py_ssize_t used = 0;
        int got = one_trick(self, &kd, g, events, i, number, &trick, &used);
        if (got < 0) goto fail;
        if (got == 0) {  /* not taken: back to the last trick taken */
            memcpy(g->held, kept, sizeof kept);
            memcpy(g->class_left, kept_left, sizeof kept_left);
            break;
        }
        int ok = PyList_Append(tricks, trick);
        Py_DECREF(trick);
        if (ok < 0) goto fail;
        memcpy(kept, g->held, sizeof kept);
        memcpy(kept_left, g->class_left, sizeof kept_left);
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
        for (int c = 0; c < NC; c++) {
            if (g->held[s][c] < 0 || g->held[s][c] > MAXW) return -1;
            g->class_left[s][g->o->klass[c]] += g->held[s][c];
        }
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

static PyObject *play_out(PyObject *self, PyObject *args) {
    Position a;
    if (!PyArg_ParseTuple(args, POSITION_FORMAT, POSITION_ARGS(a))) return NULL;
    Game *g = calloc(1, sizeof(Game));
    if (!g) return PyErr_NoMemory();
    PyObject *result = NULL;
    int loaded = load_position(g, &a);
    if (loaded <= 0) {
        if (loaded < 0) { result = Py_None; Py_INCREF(result); }
        goto done;
    }
    PyObject *out = PyList_New(0);
    if (!out) goto done;
    int cards[MAXHAND], nc;
    while (!g->finished) {
        int seat = g->nplays == 0 ? g->leader : (g->pseat[g->nplays - 1] + 1) % g->P;
        int any = 0;
        for (int c = 0; c < NC; c++) if (g->held[seat][c]) { any = 1; break; }
        int ok = any && (g->nplays == 0 ? greedy_lead(g, seat, cards, &nc)
                                         : greedy_follow(g, seat, cards, &nc));
        if (ok) ok = apply(g, seat, cards, nc);
        if (!ok) {  /* a position this does not play: Python plays it */
            Py_DECREF(out);
            if (PyErr_Occurred()) goto done;
            result = Py_None; Py_INCREF(result);
            goto done;
        }
        PyObject *lst = PyList_New(nc);
        if (!lst) { Py_DECREF(out); goto done; }
        for (int i = 0; i < nc; i++) PyList_SET_ITEM(lst, i, PyLong_FromLong(cards[i]));
        PyObject *pair = Py_BuildValue("(iN)", seat, lst);
        if (!pair || PyList_Append(out, pair) < 0) { Py_XDECREF(pair); Py_DECREF(out); goto done; }
        Py_DECREF(pair);
    }
    if (g->last_winner < 0) {  /* no trick was taken: nothing to play */
        Py_DECREF(out);
        result = Py_None; Py_INCREF(result);
        goto done;
    }
    PyObject *winning = PyList_New(g->last_n);
    if (!winning) { Py_DECREF(out); goto done; }
    for (int i = 0; i < g->last_n; i++) PyList_SET_ITEM(winning, i, PyLong_FromLong(g->last_cards[i]));
    result = Py_BuildValue("(NiiNN)", out, g->face, g->last_winner, winning,
                           PyBool_FromLong(g->last_special != 0));
done:
    free(g);
    return result;
}

#include "_search.h"  /* the exact search (search.solve) */

static PyMethodDef methods[] = {
    {"play_out", play_out, METH_VARARGS, play_out_doc},
    {"solve", solve, METH_VARARGS, solve_doc},
    {"play_value", play_value, METH_VARARGS, play_value_doc},
    {"judge", make_judge, METH_VARARGS, judge_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "replay._greedy",
    "The rollout player of replay/playout.py in C (see replay/_greedy.c).", -1, methods,
};

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
#ifdef GREEDY_SOURCE_HASH
    if (PyModule_AddStringConstant(m, "SOURCE_HASH", GREEDY_SOURCE_HASH) < 0) { Py_DECREF(m); return NULL; }
#endif
    return m;
}
