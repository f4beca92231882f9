/* The legal follows (legal.FollowSpec): part of replay/_greedy.c. */

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

typedef struct { int n, cap; int *len; int *cards; int stride; size_t lcap, ccap; } Plays;  /* a list of plays */

/* Freed plays' buffers kept for the next plays_init: a playout makes a list of plays at every
 * follow (its buffers tens of kilobytes), and malloc and free of them were a tenth of the
 * review's time. The core runs under the GIL (it never releases it), so one pool serves. */
#define POOL 32
static struct { int *len, *cards; size_t lcap, ccap; } pool[POOL];
static int npool = 0;

static int plays_init(Plays *p, int stride) {
    p->n = 0; p->stride = stride;
    size_t lneed = 64, cneed = (size_t)64 * stride;
    if (npool > 0) {
        npool--;
        p->len = pool[npool].len; p->cards = pool[npool].cards;
        p->lcap = pool[npool].lcap; p->ccap = pool[npool].ccap;
        if (p->lcap < lneed) {
            int *len = realloc(p->len, sizeof(int) * lneed);
            if (!len) { free(p->len); free(p->cards); p->len = p->cards = NULL; return 0; }
            p->len = len; p->lcap = lneed;
        }
        if (p->ccap < cneed) {
            int *cs = realloc(p->cards, sizeof(int) * cneed);
            if (!cs) { free(p->len); free(p->cards); p->len = p->cards = NULL; return 0; }
            p->cards = cs; p->ccap = cneed;
        }
    } else {
        p->len = malloc(sizeof(int) * lneed);
        p->cards = malloc(sizeof(int) * cneed);
        p->lcap = lneed; p->ccap = cneed;
    }
    size_t by_cards = p->ccap / (size_t)stride;
    p->cap = (int)(p->lcap < by_cards ? p->lcap : by_cards);
    return p->len && p->cards;
}

static void plays_free(Plays *p) {
    if (p->len && p->cards && npool < POOL) {
        pool[npool].len = p->len; pool[npool].cards = p->cards;
        pool[npool].lcap = p->lcap; pool[npool].ccap = p->ccap;
        npool++;
    } else {
        free(p->len); free(p->cards);
    }
    p->len = NULL; p->cards = NULL;
}

/* Likewise one freed Spec kept (several kilobytes, made at every follow). */
static Spec *spare_spec = NULL;
static Spec *spec_new(void) {
    if (spare_spec) { Spec *s = spare_spec; spare_spec = NULL; return s; }
    return malloc(sizeof(Spec));
}
static void spec_free(Spec *s) {
    if (!spare_spec) spare_spec = s; else free(s);
}

static int plays_push(Plays *p, const int *cards, int n) {
    if (p->n == p->cap) {
        int cap = p->cap * 2;
        if ((size_t)cap > p->lcap) {
            int *len = realloc(p->len, sizeof(int) * cap);
            if (!len) return 0;
            p->len = len; p->lcap = cap;
        }
        if ((size_t)cap * p->stride > p->ccap) {
            int *cs = realloc(p->cards, sizeof(int) * (size_t)cap * p->stride);
            if (!cs) return 0;
            p->cards = cs; p->ccap = (size_t)cap * p->stride;
        }
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

/* At each complete placement of the required answers, the cards left (the holding less the
 * placed); 1 to stop the walk. */
typedef int (*Visit)(void *ctx, const Hold *left);

static int placements(const Spec *s, const Order *o, const Hold *avail, int i, int budget,
                      Visit visit, void *ctx);

static int place_then(const Spec *s, const Order *o, const Hold *avail, const Shape *sh, int j,
                      int i, int budget, Visit visit, void *ctx) {
    if (j == sh->n)
        return placements(s, o, avail, i + 1, budget - s->u[i].w * s->u[i].l, visit, ctx);
    ChainIter it;
    Unit u;
    ci_init(&it, avail, o, sh->k[j].w, sh->k[j].l, 0);
    while (ci_next(&it, &u)) {
        Hold after = *avail;
        hold_take(&after, &u);
        if (place_then(s, o, &after, sh, j + 1, i, budget, visit, ctx)) return 1;
    }
    return 0;
}

/* legal._search's walk over the placements of the required answers for units i.. in avail:
 * each complete one visited (NULL: the first stops it); 1 when stopped */
static int placements(const Spec *s, const Order *o, const Hold *avail, int i, int budget,
                      Visit visit, void *ctx) {
    if (i == s->nu) return visit ? visit(ctx, avail) : 1;
    const Shape *sh = shape_at(s, i);
    int size = s->u[i].w * s->u[i].l;
    int room = size < budget ? size : budget;
    if (room < 0) room = 0;
    if (shape_size(sh) > room) return 0;
    return place_then(s, o, avail, sh, 0, i, budget, visit, ctx);
}

/* legal._search: can avail show the required answers for units i..? */
static int search_from(const Spec *s, const Order *o, const Hold *avail, int i, int budget) {
    return placements(s, o, avail, i, budget, NULL, NULL);
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

/* legal._achieving: the m-card parts of the suit that show the required answers. Built, as
 * the Python is, from every placement of the required answers in the whole suit (the walk of
 * search_from, not stopped at the first), each filled with every choice of the cards left:
 * a part shows the answers exactly when it holds one such placement. (Until session 45 every
 * m-card multiset of the suit was listed and searched alone: at four decks nineteen in
 * twenty failed, two fifths of a review's time.) */
typedef struct {
    const int *card, *cnt;   /* the suit's cards in card order, and their copies */
    int ni, m, cap;
    int left[NC];            /* copies of each item not placed, at the placement visited */
    int fill[NC];            /* copies of each item chosen to fill */
    Plays *found;            /* the distinct parts, each in card order */
    uint64_t *hash;          /* an open-addressed set of found's indices, by hash */
    int *slot;
    int tcap;                /* slots (a power of two); 0: none yet */
    int oom;
} Ach;

static uint64_t ach_hash(const int *cs, int n) {
    uint64_t h = 1469598103934665603ULL;
    for (int t = 0; t < n; t++) { h ^= (uint64_t)(cs[t] + 1); h *= 1099511628211ULL; }
    return h ^ (h >> 29);
}

static int ach_grow(Ach *a) {
    int tcap = a->tcap ? a->tcap * 2 : 256;
    uint64_t *hash = malloc(sizeof(uint64_t) * tcap);
    int *slot = malloc(sizeof(int) * tcap);
    if (!hash || !slot) { free(hash); free(slot); return 0; }
    for (int t = 0; t < tcap; t++) slot[t] = -1;
    for (int q = 0; q < a->found->n; q++) {
        uint64_t h = ach_hash(a->found->cards + (size_t)q * a->found->stride, a->m);
        int t = (int)(h & (uint64_t)(tcap - 1));
        while (slot[t] >= 0) t = (t + 1) & (tcap - 1);
        slot[t] = q; hash[t] = h;
    }
    free(a->hash); free(a->slot);
    a->hash = hash; a->slot = slot; a->tcap = tcap;
    return 1;
}

/* the part made of the placed cards and the filling: added if new; 1 to stop */
static int ach_add(Ach *a) {
    int cs[MAXHAND], k = 0;
    for (int q = 0; q < a->ni; q++)
        for (int t = a->cnt[q] - a->left[q] + a->fill[q]; t > 0; t--) cs[k++] = a->card[q];
    if (2 * (a->found->n + 1) > a->tcap && !ach_grow(a)) { a->oom = 1; return 1; }
    uint64_t h = ach_hash(cs, k);
    int t = (int)(h & (uint64_t)(a->tcap - 1));
    for (; a->slot[t] >= 0; t = (t + 1) & (a->tcap - 1))
        if (a->hash[t] == h
            && !memcmp(a->found->cards + (size_t)a->slot[t] * a->found->stride, cs, sizeof(int) * k))
            return 0;
    if (!plays_push(a->found, cs, k)) { a->oom = 1; return 1; }
    a->slot[t] = a->found->n - 1; a->hash[t] = h;
    return a->found->n > a->cap;
}

/* every filling of need cards from items q.. (the copies not placed); 1 to stop */
static int ach_fill(Ach *a, int q, int need) {
    if (need == 0) return ach_add(a);
    for (; q < a->ni; q++) {
        for (int take = a->left[q] < need ? a->left[q] : need; take > 0; take--) {
            a->fill[q] = take;
            int stop = ach_fill(a, q + 1, need - take);
            a->fill[q] = 0;
            if (stop) return 1;
        }
    }
    return 0;
}

/* a placement visited: filled every way with the cards it leaves */
static int ach_visit(void *ctx, const Hold *left) {
    Ach *a = ctx;
    int need = a->m;
    for (int q = 0; q < a->ni; q++) {
        a->left[q] = left->cnt[a->card[q]];
        need -= a->cnt[q] - a->left[q];
    }
    return ach_fill(a, 0, need);
}

static int plays_lex_cmp_len;
static const int *plays_lex_base;
static int plays_lex_stride;
static int cmp_play_idx(const void *a, const void *b) {
    const int *x = plays_lex_base + (size_t)(*(const int *)a) * plays_lex_stride;
    const int *y = plays_lex_base + (size_t)(*(const int *)b) * plays_lex_stride;
    for (int i = 0; i < plays_lex_cmp_len; i++) if (x[i] != y[i]) return x[i] - y[i];
    return 0;
}

/* the parts in sorted order into parts; returns their count (more than cap: cap + 1), -1
 * when out of memory */
static int achieving(const Spec *s, const Order *o, const int *card, const int *cnt, int ni,
                     int cap, Plays *parts) {
    Plays found;
    if (!plays_init(&found, s->m > 0 ? s->m : 1)) return -1;
    Ach a;
    a.card = card; a.cnt = cnt; a.ni = ni; a.m = s->m; a.cap = cap;
    memset(a.fill, 0, sizeof a.fill);
    a.found = &found; a.hash = NULL; a.slot = NULL; a.tcap = 0; a.oom = 0;
    placements(s, o, &s->suit, 0, s->m, ach_visit, &a);
    free(a.hash); free(a.slot);
    int nk = found.n, result = nk;
    if (a.oom) {
        result = -1;
    } else if (nk <= cap) {
        int *keep = malloc(sizeof(int) * (nk + 1));
        if (!keep) { plays_free(&found); return -1; }
        for (int q = 0; q < nk; q++) keep[q] = q;
        plays_lex_base = found.cards; plays_lex_stride = found.stride; plays_lex_cmp_len = s->m;
        qsort(keep, nk, sizeof(int), cmp_play_idx);
        for (int q = 0; q < nk; q++)
            if (!plays_push(parts, found.cards + (size_t)keep[q] * found.stride, s->m)) { result = -1; break; }
        free(keep);
    } else {
        result = cap + 1;
    }
    plays_free(&found);
    return result;
}

/* the cards of h with copies, in card order, and their copies (read from h's entries, which
 * are few: an entry may stay at 0 copies, or come twice) */
static void sorted_items(const Hold *h, int *card, int *cnt, int *ni) {
    int k = 0;
    for (int i = 0; i < h->n; i++) {
        int c = h->card[i], j = k;
        if (h->cnt[c] <= 0) continue;
        while (j > 0 && card[j - 1] > c) j--;
        if (j > 0 && card[j - 1] == c) continue;
        memmove(card + j + 1, card + j, sizeof(int) * (size_t)(k - j));
        card[j] = c;
        k++;
    }
    for (int i = 0; i < k; i++) cnt[i] = h->cnt[card[i]];
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
        const int *pc = parts.cards + (size_t)q * parts.stride;
        for (int e = 0; e < extras.n; e++) {  /* the two in card order, merged */
            const int *ec = extras.cards + (size_t)e * extras.stride;
            int a = 0, b = 0, na = parts.len[q], nb = extras.len[e], k = 0;
            while (a < na && b < nb) buf[k++] = pc[a] <= ec[b] ? pc[a++] : ec[b++];
            while (a < na) buf[k++] = pc[a++];
            while (b < nb) buf[k++] = ec[b++];
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

/* The k cards of src[0..n) lowest by key_of(which), as a stable sort would put them first,
 * into dst (k at most n) */
static void lowest_by_key(const Game *g, int which, const int *src, int n, int k, int *dst) {
    int kept[MAXHAND], have = 0;
    if (k <= 0) return;
    for (int i = 0; i < n; i++) {
        int kc = key_of(g, which, src[i]);
        if (have == k && kept[k - 1] <= kc) continue;  /* a tie stays behind the earlier card */
        int b = have < k ? have++ : k - 1;
        while (b > 0 && kept[b - 1] > kc) { kept[b] = kept[b - 1]; dst[b] = dst[b - 1]; b--; }
        kept[b] = kc;
        dst[b] = src[i];
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
    int rs[MAXHAND], nr = 0, os[MAXHAND], no = 0;
    for (int q = 0; q < avail.n; q++) {
        int c = avail.card[q];
        for (int t = 0; t < avail.cnt[c] && nr < MAXHAND; t++) rs[nr++] = c;
    }
    for (int q = 0; q < s->others.n; q++) {
        int c = s->others.card[q];
        for (int t = 0; t < s->others.cnt[c] && no < MAXHAND; t++) os[no++] = c;
    }
    for (int which = 0; which < 4; which++) {
        int play[MAXHAND], np = 0;
        for (int q = 0; q < nc; q++) play[np++] = chosen[q];
        int more = s->m - np < nr ? s->m - np : nr;
        lowest_by_key(g, which, rs, nr, more, play + np);
        if (more > 0) np += more;
        more = s->n - np < no ? s->n - np : no;
        lowest_by_key(g, which, os, no, more, play + np);
        if (more > 0) np += more;
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
    int total = hold_total(&s->suit);
    s->m = s->n < total ? s->n : total;
    /* the seat's cards of the other classes, in card order: read only by a follow that the
     * led class cannot fill (s->m < s->n), so listed only then */
    s->others.n = 0;
    if (s->m < s->n) {
        hold_clear(&s->others);
        int rest = cards_held(g, seat) - g->class_left[seat][k];  /* the walk stops past the last */
        for (int c = 0; c < NC && rest > 0; c++)
            if (g->held[seat][c] && o->klass[c] != k) {
                hold_add(&s->others, c, g->held[seat][c]);
                rest -= g->held[seat][c];
            }
    }
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

