/* The game: a position on count vectors and a play's strength (replay/state.py, trick.py):
 * part of replay/_greedy.c. */

/* ------------------------------------------------------------------------------------------ */
/* the game                                                                                     */

typedef struct {
    const Order *o;
    const Rules *r;
    int P;
    int held[MAXP][NC];
    int class_left[MAXP][5];
    uint64_t bits[MAXP][5];          /* the members held, a bit per place in the class's order */
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
    const Order *o = g->o;
    const int *held = g->held[seat], *mem = o->mem[k];
    int n = 0;
    for (uint64_t b = g->bits[seat][k]; b; b &= b - 1) {  /* the members held, in order */
        int c = mem[__builtin_ctzll(b)];
        h->card[n++] = (unsigned char)c;
        h->cnt[c] = (unsigned char)held[c];
    }
    h->n = n;
}

/* A seat's counts read in: checked, and its cards per class and members held worked out from
 * them (0 where a count is out of range) */
static int count_held(Game *g, int seat) {
    const Order *o = g->o;
    const int *held = g->held[seat];
    memset(g->class_left[seat], 0, sizeof g->class_left[seat]);
    memset(g->bits[seat], 0, sizeof g->bits[seat]);
    for (int c = 0; c < NC; c++) {
        if (held[c] < 0 || held[c] > MAXW) return 0;
        g->class_left[seat][o->klass[c]] += held[c];
        if (held[c]) g->bits[seat][o->klass[c]] |= 1ULL << o->pos[c];
    }
    return 1;
}

/* a card taken from a seat's hand, or given back */
static void take_card(Game *g, int seat, int c) {
    int k = g->o->klass[c];
    g->class_left[seat][k]--;
    if (!--g->held[seat][c]) g->bits[seat][k] &= ~(1ULL << g->o->pos[c]);
}

static void give_card(Game *g, int seat, int c) {
    int k = g->o->klass[c];
    g->class_left[seat][k]++;
    g->held[seat][c]++;
    g->bits[seat][k] |= 1ULL << g->o->pos[c];
}

static int cards_held(const Game *g, int seat) {  /* from the seat's counts per class */
    const int *k = g->class_left[seat];
    return k[0] + k[1] + k[2] + k[3] + k[4];
}

static int to_play(const Game *g) {  /* search.to_play (the hand not over) */
    return g->nplays == 0 ? g->leader : (g->pseat[g->nplays - 1] + 1) % g->P;
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

