/* The rollout player (replay/playout.py) and a play applied (tricks.play_legal): part of
 * replay/_greedy.c. */

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

/* The part of playout._choose_follow that reads the trick alone: whether the seat's side
 * wins the trick whatever comes (its card winning, no opponent still to play able to beat it:
 * the rollout player feeds it), the strongest play on the table and the strongest an opponent
 * still to play could make (-1: none), the seats still to play after this one and the points
 * on the table. */
typedef struct { int feed, best_now, threat, later, on_table; } TrickRead;

static TrickRead read_trick(const Game *g, int seat) {
    TrickRead t;
    int winner = -1;
    t.best_now = -1;
    for (int q = 0; q < g->nplays; q++) {
        int key = strength_in_trick(g, g->pcards[q], g->pn[q]);
        if (key >= 0 && key > t.best_now) { t.best_now = key; winner = g->pseat[q]; }
    }
    int side = team(g, seat);
    int opp[MAXP], no = 0;
    t.later = 0;
    for (int i = g->nplays + 1; i < g->P; i++) {
        int s2 = (g->pseat[0] + i) % g->P;
        t.later++;
        if (team(g, s2) != side) opp[no++] = s2;
    }
    t.threat = threat_of(g, opp, no);
    t.on_table = 0;
    for (int q = 0; q < g->nplays; q++)
        for (int k = 0; k < g->pn[q]; k++) t.on_table += g->pts[g->pcards[q][k]];
    t.feed = winner >= 0 && team(g, winner) == side
             && (t.threat < 0 || t.best_now < 0 || t.threat <= t.best_now);
    return t;
}

/* playout._choose_follow: the index of the follow chosen among found */
static int choose_follow(const Game *g, int seat, const Plays *found) {
    if (found->n == 1) return 0;
    const Order *o = g->o;
    TrickRead t = read_trick(g, seat);
    int best_now = t.best_now, threat = t.threat, nl = t.later, on_table = t.on_table;
    int small[2 * (LIMIT + 16)];  /* most lists are short: no malloc for them */
    int *pts = found->n <= LIMIT + 16 ? small : malloc(sizeof(int) * found->n * 2);
    if (!pts) return -1;
    int *pws = pts + found->n;
    for (int q = 0; q < found->n; q++) {
        int a = 0, b = 0;
        const int *cs = found->cards + (size_t)q * found->stride;
        for (int k = 0; k < found->len[q]; k++) { a += g->pts[cs[k]]; b += o->power[cs[k]]; }
        pts[q] = a; pws[q] = b;
    }
    int pick = 0;
    if (t.feed) {
        for (int i = 1; i < found->n; i++)
            if (pts[i] > pts[pick] || (pts[i] == pts[pick] && pws[i] < pws[pick])) pick = i;
        if (pts != small) free(pts);
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
        if (pts != small) free(pts);
        return wpick;
    }
    for (int i = 1; i < found->n; i++)
        if (pts[i] < pts[pick] || (pts[i] == pts[pick] && pws[i] < pws[pick])) pick = i;
    if (pts != small) free(pts);
    return pick;
}

/* Of the multisets of n cards from items (card, cnt: in card order), the one choose_follow
 * picks among plays that cannot win, all alike but for these cards: the fewest points, then
 * the lowest power (feed: the most points, then the lowest power); ties to the one the walk
 * lists first, which takes the most copies of the lowest card. The copies taken into take. */
static void cheapest_multiset(const Game *g, int feed, const int *card, const int *cnt, int ni,
                              int n, int *take) {
    int key[NC], order[NC];
    for (int i = 0; i < ni; i++) {  /* by key, a tie in card order */
        int c = card[i];
        key[i] = (feed ? -g->pts[c] : g->pts[c]) * 4096 + g->o->power[c];
        int j = i;
        while (j > 0 && key[order[j - 1]] > key[i]) { order[j] = order[j - 1]; j--; }
        order[j] = i;
        take[i] = 0;
    }
    for (int q = 0, need = n; q < ni && need > 0; q++) {
        int i = order[q];
        take[i] = cnt[i] < need ? cnt[i] : need;
        need -= take[i];
    }
}

/* choose_follow's pick among the follows that follows() would list, found without listing
 * them where none of them can win the trick, so the pick is the cheapest (feeding its side's
 * trick, the richest) by cheapest_multiset: a follow the led class cannot fill (s->m < s->n:
 * every card of it played, the rest from the other classes), or a pair or longer unit led that
 * the seat, holding none, follows with any cards of the class. 1 with the play in out; 0 to
 * list them (too many to list: then a few are built, lowest_each; or another shape). */
static int unwinnable_follow(const Game *g, int seat, const Spec *s, int *out, int *nout) {
    for (int i = 0; i < s->nu; i++) if (shape_at(s, i)->n) return 0;
    int scard[NC], scnt[NC], sn, ocard[NC], ocnt[NC], on = 0, stake[NC], otake[NC];
    sorted_items(&s->suit, scard, scnt, &sn);
    int rest = s->n - s->m;
    if (rest) {
        sorted_items(&s->others, ocard, ocnt, &on);
        long long ways = multisets_count(ocard, ocnt, on, rest);
        if (ways > LIMIT || ways == 0) return 0;
        cheapest_multiset(g, read_trick(g, seat).feed, ocard, ocnt, on, rest, otake);
        for (int i = 0; i < sn; i++) stake[i] = scnt[i];
    } else {
        if (s->nu != 1 || s->u[0].w < 2 || multisets_count(scard, scnt, sn, s->m) > LIMIT) return 0;
        for (int i = 0; i < sn; i++) if (scnt[i] >= s->u[0].w) return 0;  /* it could match */
        cheapest_multiset(g, read_trick(g, seat).feed, scard, scnt, sn, s->m, stake);
    }
    int k = 0, a = 0, b = 0;  /* the two in card order, merged */
    while (a < sn || b < on) {
        if (b >= on || (a < sn && scard[a] < ocard[b])) {
            for (int t = 0; t < stake[a]; t++) out[k++] = scard[a];
            a++;
        } else {
            for (int t = 0; t < otake[b]; t++) out[k++] = ocard[b];
            b++;
        }
    }
    *nout = k;
    return 1;
}

/* playout.greedy_follow / the single-card branch of greedy_play: the play into out */
static int greedy_follow(const Game *g, int seat, int *out, int *nout) {
    if (g->lead_size == 1 && !g->special) {
        Hold h;
        holding(g, seat, g->lead_class, &h);
        int cards[NC + 1], nc = 0;  /* in card order, without a branch on each card */
        if (h.n) {
            const int *bycard = g->o->bycard[g->lead_class];
            for (int i = 0, m = g->o->nmem[g->lead_class]; i < m; i++) {
                int c = bycard[i];
                cards[nc] = c;
                nc += h.cnt[c] > 0;
            }
        } else
            for (int c = 0; c < NC; c++) { cards[nc] = c; nc += g->held[seat][c] > 0; }
        if (nc <= LIMIT) {  /* chosen among the cards as they lie: no list of plays made */
            int ones[NC + 1];
            for (int i = 0; i < nc; i++) ones[i] = 1;
            Plays each;
            memset(&each, 0, sizeof each);
            each.n = each.cap = nc; each.len = ones; each.cards = cards; each.stride = 1;
            int pick = choose_follow(g, seat, &each);
            if (pick < 0) return 0;
            out[0] = cards[pick];
            *nout = 1;
            return 1;
        }
    }
    Plays found;
    if (!plays_init(&found, MAXHAND)) return 0;
    int ok = 1;
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
        Spec *s = spec_new();
        if (!s) { plays_free(&found); return 0; }
        if (!follow_spec(g, seat, s)) { spec_free(s); plays_free(&found); return 0; }
        if (!g->special && s->m > 0 && s->n > 1 && unwinnable_follow(g, seat, s, out, nout)) {
            spec_free(s); plays_free(&found); return 1;
        }
        int r = follows(s, g->o, LIMIT, &found);
        if (r < 0) ok = 0;
        else if (r == 0) { found.n = 0; ok = lowest_each(g, s, &found); }
        spec_free(s);
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

/* Freed unit lists kept for the next uv_init (a lead lists its units at every lead of a
 * playout and at every lead node of a search; under the GIL, as the plays' pool) */
#define UV_POOL 4
static struct { Unit *u; int cap; } uv_pool[UV_POOL];
static int uv_npool = 0;

static void uv_init(UnitVec *v) {
    v->n = 0;
    if (uv_npool > 0) {
        uv_npool--;
        v->u = uv_pool[uv_npool].u; v->cap = uv_pool[uv_npool].cap;
    } else {
        v->u = NULL; v->cap = 0;
    }
}

static void uv_release(UnitVec *v) {
    if (v->u && uv_npool < UV_POOL) {
        uv_pool[uv_npool].u = v->u; uv_pool[uv_npool].cap = v->cap;
        uv_npool++;
    } else {
        free(v->u);
    }
    v->u = NULL; v->n = v->cap = 0;
}

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
    signed char ruffs[MAXP][MAXW + 1][MAXLEN + 1];  /* per opponent, for the class led */
    UnitVec units;
    uv_init(&units);
    int ok = 1;
    for (int klass = 0; klass < 5 && ok; klass++) {
        Hold h;
        holding(g, seat, klass, &h);
        if (!h.n) continue;
        units.n = 0;
        if (!units_in(&h, o, g->r->max_width, &units)) { ok = 0; break; }
        Hold theirs[MAXP];
        int tops[MAXP];
        memset(ruffs, -1, sizeof ruffs[0] * (size_t)no);
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
                signed char *r = &ruffs[q][u->w][u->l];
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
    uv_release(&units);
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
        take_card(g, seat, c);
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
    for (int s2 = 0; s2 < g->P && !left; s2++) left = cards_held(g, s2) > 0;
    if (!left) g->finished = 1;
    return 1;
}

/* one play of the rollout player (playout.greedy_play) applied: its seat and cards into *seat
 * and cards[0..*nc); 0 where it does not play the position (Python then does; an exception
 * may be set) */
static int greedy_step(Game *g, int *seat, int *cards, int *nc) {
    *seat = to_play(g);
    int any = 0;
    for (int c = 0; c < NC; c++) if (g->held[*seat][c]) { any = 1; break; }
    int ok = any && (g->nplays == 0 ? greedy_lead(g, *seat, cards, nc)
                                     : greedy_follow(g, *seat, cards, nc));
    return ok && apply(g, *seat, cards, *nc);
}
