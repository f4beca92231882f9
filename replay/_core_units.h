/* Holdings and units (replay/units.py, legal.units_in's chains): part of replay/_greedy.c, which
 * includes it after the orders and rulesets. */

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

