/* A round of the review's deals (replay/deals.py's deal, each followed by the draw that seeds
 * its agents: rollouts.rollout_samples) drawn from CPython's own random stream: part of
 * replay/_greedy.c.
 *
 * random.Random is the Mersenne Twister MT19937; its state (getstate()'s 624 words and the
 * index) is read here, advanced exactly as its methods would advance it, and handed back for
 * setstate(). A draw below n is CPython's _randbelow: k = n.bit_length() bits (the top k of
 * the next 32-bit word), again while the draw is n or more. */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t w[MT_N];
    int index;
} Twister;

static uint32_t mt_next(Twister *t) {  /* genrand_uint32 of CPython's _randommodule.c */
    uint32_t y;
    if (t->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N; kk++) {
            y = (t->w[kk] & 0x80000000U) | (t->w[(kk + 1) % MT_N] & 0x7fffffffU);
            t->w[kk] = t->w[(kk + MT_M) % MT_N] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
        }
        t->index = 0;
    }
    y = t->w[t->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

static int mt_below(Twister *t, uint32_t n) {  /* random._randbelow(n), n >= 1 */
    int k = 0;
    for (uint32_t m = n; m; m >>= 1) k++;
    uint32_t r = mt_next(t) >> (32 - k);
    while (r >= n) r = mt_next(t) >> (32 - k);
    return (int)r;
}

static void mt_shuffle(Twister *t, int *pool, int n) {  /* random.shuffle */
    for (int i = n - 1; i > 0; i--) {
        int j = mt_below(t, (uint32_t)(i + 1));
        int x = pool[i]; pool[i] = pool[j]; pool[j] = x;
    }
}

#define DEAL_MAX 256   /* cards in the pool */

typedef struct {  /* deals.SeatKnowledge, in the order of its other seats */
    int nothers, others[MAXP], need[MAXP], voids[MAXP];  /* voids: a bit per suit class */
    int nbase[MAXP], base[MAXP][MAXHAND];
    int npool, pool[DEAL_MAX];
    int takers[5], klass[NC];
    int kitty_size;
} DealSpec;

/* deals._by_takers: stably ordered by the seats that may take each card's class, fewest first */
static void by_takers(const DealSpec *d, const int *pool, int *out) {
    int n = 0;
    for (int want = 0; want <= MAXP; want++)
        for (int i = 0; i < d->npool; i++)
            if (d->takers[d->klass[pool[i]]] == want) out[n++] = pool[i];
}

#define MIX_STEPS 8  /* deals.MIX_STEPS */

/* deals._mix: with voids in several classes, MIX_STEPS swaps a constrained card */
static void deal_mix(const DealSpec *d, Twister *t, int hands[MAXP][MAXHAND], const int *nhand,
                     int *kitty, int nkitty) {
    int void_classes = 0;
    for (int q = 0; q < d->nothers; q++) void_classes |= d->voids[q];
    if (!(void_classes & (void_classes - 1))) return;  /* one class or none: already uniform */
    int *slot[DEAL_MAX], where[DEAL_MAX], constrained[DEAL_MAX], n = 0, m = 0;
    for (int q = 0; q <= d->nothers; q++) {
        int from = q < d->nothers ? d->nbase[q] : 0, to = q < d->nothers ? nhand[q] : nkitty;
        for (int i = from; i < to; i++) {
            slot[n] = q < d->nothers ? &hands[q][i] : &kitty[i];
            where[n] = q;
            if (void_classes >> d->klass[*slot[n]] & 1) constrained[m++] = n;
            n++;
        }
    }
    for (int step = 0; step < MIX_STEPS * m; step++) {
        int a = mt_below(t, (uint32_t)m), j = mt_below(t, (uint32_t)n), i = constrained[a];
        int x = *slot[i], y = *slot[j], to_j = where[j], to_i = where[i];
        if (to_i == to_j || (to_j < d->nothers && d->voids[to_j] >> d->klass[x] & 1)
                || (to_i < d->nothers && d->voids[to_i] >> d->klass[y] & 1))
            continue;
        *slot[i] = y; *slot[j] = x;
        if (!(void_classes >> d->klass[y] & 1)) constrained[a] = j;
    }
}

/* deals.deal: each other seat's cards (its pinned ones first) and the kitty's; a card goes to
 * a place with room that may take it (an other seat not void in its class, or the kitty: place
 * nothers), chosen in proportion to the room each has left */
static void deal_one(const DealSpec *d, Twister *t, int *pool, int hands[MAXP][MAXHAND],
                     int *nhand, int *kitty, int *nkitty) {
    int sorted_pool[DEAL_MAX];
    int nplaces = d->nothers + (d->kitty_size > 0);
    for (int attempt = 0; attempt < 20; attempt++) {
        mt_shuffle(t, pool, d->npool);
        by_takers(d, pool, sorted_pool);
        memcpy(pool, sorted_pool, sizeof(int) * d->npool);
        int room[MAXP + 1];
        for (int q = 0; q < d->nothers; q++) {
            memcpy(hands[q], d->base[q], sizeof(int) * d->nbase[q]);
            nhand[q] = d->nbase[q];
            room[q] = d->need[q] - d->nbase[q];
        }
        room[d->nothers] = d->kitty_size;
        /* the cards left each seat may take: a seat with no more of them than room takes the
           next one (else it could not be filled) */
        int avail[MAXP];
        for (int q = 0; q < d->nothers; q++) {
            avail[q] = 0;
            for (int i = 0; i < d->npool; i++) avail[q] += !(d->voids[q] >> d->klass[pool[i]] & 1);
        }
        *nkitty = 0;
        int ok = 1;
        for (int i = 0; i < d->npool; i++) {
            int c = pool[i], k = d->klass[c], q = -1;
            for (int o = 0; o < d->nothers; o++)
                if (room[o] > 0 && !(d->voids[o] >> k & 1) && avail[o] == room[o]) { q = o; break; }
            if (q < 0) {
                uint32_t total = 0;
                for (int o = 0; o < nplaces; o++)
                    if (room[o] > 0 && (o == d->nothers || !(d->voids[o] >> k & 1)))
                        total += (uint32_t)room[o];
                if (!total) { ok = 0; break; }
                int r = mt_below(t, total);
                for (q = 0; q < nplaces; q++)
                    if (room[q] > 0 && (q == d->nothers || !(d->voids[q] >> k & 1))) {
                        if (r < room[q]) break;
                        r -= room[q];
                    }
            }
            for (int o = 0; o < d->nothers; o++) avail[o] -= !(d->voids[o] >> k & 1);
            room[q]--;
            if (q == d->nothers) kitty[(*nkitty)++] = c;
            else hands[q][nhand[q]++] = c;
        }
        if (ok) {
            deal_mix(d, t, hands, nhand, kitty, *nkitty);
            return;
        }
    }
    /* the voids cannot all be kept: dealt ignoring them */
    mt_shuffle(t, pool, d->npool);
    int i = 0;
    for (int q = 0; q < d->nothers; q++) {
        memcpy(hands[q], d->base[q], sizeof(int) * d->nbase[q]);
        nhand[q] = d->nbase[q];
        for (int take = d->need[q] - d->nbase[q]; take > 0 && i < d->npool; take--)
            hands[q][nhand[q]++] = pool[i++];
    }
    *nkitty = 0;
    for (; i < d->npool && *nkitty < d->kitty_size; i++) kitty[(*nkitty)++] = pool[i];
}

static const char deal_round_doc[] =
    "deal_round(words, n, others, need, voids, pinned, pool, takers, klass, kitty_size)\n"
    "n deals of deals.deal, each followed by randrange(1 << 30), from the Mersenne Twister\n"
    "state words (random.getstate()[1]): ([((hands, kitty), draw)], the state's words after).";

static int read_words(PyObject *words, Twister *t) {  /* getstate()[1]: 624 words, index */
    PyObject *f = PySequence_Fast(words, "the Mersenne Twister's words");
    if (!f) return 0;
    int ok = PySequence_Fast_GET_SIZE(f) == MT_N + 1;
    for (int i = 0; ok && i < MT_N; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(f, i));
        if (v == (unsigned long)-1 && PyErr_Occurred()) ok = 0;
        t->w[i] = (uint32_t)v;
    }
    long index = ok ? PyLong_AsLong(PySequence_Fast_GET_ITEM(f, MT_N)) : -1;
    Py_DECREF(f);
    if (!ok || index < 0 || index > MT_N) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "not a Mersenne Twister state");
        return 0;
    }
    t->index = (int)index;
    return 1;
}

static PyObject *write_words(const Twister *t) {
    PyObject *out = PyTuple_New(MT_N + 1);
    if (!out) return NULL;
    for (int i = 0; i <= MT_N; i++) {
        PyObject *x = i < MT_N ? PyLong_FromUnsignedLong(t->w[i]) : PyLong_FromLong(t->index);
        if (!x) { Py_DECREF(out); return NULL; }
        PyTuple_SET_ITEM(out, i, x);
    }
    return out;
}

static int read_spec(DealSpec *d, PyObject *others, PyObject *need, PyObject *voids,
                     PyObject *pinned, PyObject *pool, PyObject *takers, PyObject *klass) {
    int n1, n2, n3, n5, n6;
    if (!ints_of(others, d->others, MAXP, &d->nothers) || !ints_of(need, d->need, MAXP, &n1) ||
        !ints_of(voids, d->voids, MAXP, &n2) || !ints_of(pool, d->pool, DEAL_MAX, &d->npool) ||
        !ints_of(takers, d->takers, 5, &n5) || !ints_of(klass, d->klass, NC, &n6))
        return 0;
    PyObject *f = PySequence_Fast(pinned, "the pinned cards");
    if (!f) return 0;
    n3 = (int)PySequence_Fast_GET_SIZE(f);
    int ok = n1 == d->nothers && n2 == d->nothers && n3 == d->nothers && n5 == 5 && n6 == NC;
    for (int q = 0; ok && q < n3; q++)
        ok = ints_of(PySequence_Fast_GET_ITEM(f, q), d->base[q], MAXHAND, &d->nbase[q]);
    Py_DECREF(f);
    for (int q = 0; ok && q < d->nothers; q++)
        ok = d->need[q] >= d->nbase[q] && d->need[q] <= MAXHAND;
    for (int i = 0; ok && i < d->npool; i++) ok = d->pool[i] >= 0 && d->pool[i] < NC;
    for (int c = 0; ok && c < NC; c++) ok = d->klass[c] >= 0 && d->klass[c] < 5;
    if (!ok && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "past the fixed sizes");
    return ok;
}

/* one deal as deals.deal gives it: ({seat: cards}, kitty) */
static PyObject *deal_object(const DealSpec *d, int hands[MAXP][MAXHAND], const int *nhand,
                             const int *kitty, int nkitty) {
    PyObject *h = PyDict_New(), *k = int_list(kitty, nkitty);
    if (!h || !k) { Py_XDECREF(h); Py_XDECREF(k); return NULL; }
    for (int q = 0; q < d->nothers; q++) {
        PyObject *key = PyLong_FromLong(d->others[q]), *cards = int_list(hands[q], nhand[q]);
        int bad = !key || !cards || PyDict_SetItem(h, key, cards) < 0;
        Py_XDECREF(key); Py_XDECREF(cards);
        if (bad) { Py_DECREF(h); Py_DECREF(k); return NULL; }
    }
    return Py_BuildValue("(NN)", h, k);
}

static PyObject *deal_round(PyObject *self, PyObject *args) {
    PyObject *words, *others, *need, *voids, *pinned, *pool, *takers, *klass;
    int n, kitty_size;
    if (!PyArg_ParseTuple(args, "OiOOOOOOOi", &words, &n, &others, &need, &voids, &pinned,
                          &pool, &takers, &klass, &kitty_size))
        return NULL;
    DealSpec *d = calloc(1, sizeof(DealSpec));
    Twister *t = malloc(sizeof(Twister));
    PyObject *deals = NULL, *out = NULL;
    if (!d || !t) { PyErr_NoMemory(); goto done; }
    if (!read_words(words, t) || !read_spec(d, others, need, voids, pinned, pool, takers, klass))
        goto done;
    d->kitty_size = kitty_size;
    deals = PyList_New(0);
    if (!deals) goto done;
    int hands[MAXP][MAXHAND], nhand[MAXP], kitty[DEAL_MAX], nkitty;
    int cards[DEAL_MAX];  /* the pool as deals.deal keeps it: list(told.pool) for each deal */
    for (int i = 0; i < n; i++) {
        memcpy(cards, d->pool, sizeof(int) * d->npool);
        deal_one(d, t, cards, hands, nhand, kitty, &nkitty);
        int draw = mt_below(t, 1U << 30);  /* rng.randrange(1 << 30) */
        PyObject *one = deal_object(d, hands, nhand, kitty, nkitty);
        PyObject *item = one ? Py_BuildValue("(Ni)", one, draw) : NULL;
        if (!item || PyList_Append(deals, item) < 0) { Py_XDECREF(item); goto done; }
        Py_DECREF(item);
    }
    PyObject *after = write_words(t);
    if (after) out = Py_BuildValue("(ON)", deals, after);
done:
    Py_XDECREF(deals);
    free(d); free(t);
    return out;
}
