/* 打万分's special patterns (replay/rulesets/wanfen.py): part of replay/_greedy.c. */

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

