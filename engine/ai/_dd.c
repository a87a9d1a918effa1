/*
 * C twin of engine/ai/_ddpy.py: the double-dummy search core for Klaverjassen / Klammern.
 *
 * Exposes one function with exactly the signature and semantics of _ddpy.search:
 *
 *   search(hands: tuple[int,int,int,int], trump, rule, roem: bool, four_low, pit, leader,
 *          trick: tuple[int,...], ns, ew, mode, playing, alpha, beta, new_tt: bool,
 *          limit: int = 0, budget_ms: float = 0.0)
 *       -> (value, best_card, nodes)      best_card -2: abandoned at the node/time limit
 *
 * Cards: index = suit*8 + rank (ranks 7 8 9 10 J Q K A natural), hands are 32-bit masks.
 * Values are absolute, North-South's view (NS maximises). mode 0: final NS-EW points
 * (card points, last trick 10, roem, pit); mode 1: NS-EW round score with the nat rule for
 * team `playing`. Fail-soft alpha-beta, transposition table at trick boundaries (2-way
 * buckets, generation-stamped, kept between calls unless new_tt or the settings change).
 * The algorithm, move ordering and pruning rules mirror the Python core line by line; any
 * change here must be made there too (tests compare the two on the same positions).
 *
 * Not re-entrant: one global search context (calls hold the GIL and never release it).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AMSTERDAM 0
#define ROTTERDAM 1
#define KLAMMERN 2
#define MODE_SCORE 1
#define PIT_BONUS 100
#define LAST_TRICK_BONUS 10
#define TT_BITS 19
#define TT_SIZE (1u << TT_BITS)
#define UNKNOWN 32000
#define CHECK_EVERY 1023 /* limits are checked when (nodes & CHECK_EVERY) == 0 */
#define ABANDONED (-2)

static const int TRUMP_POINTS[8] = {0, 0, 14, 10, 20, 3, 4, 11};
static const int PLAIN_POINTS[8] = {0, 0, 0, 10, 2, 3, 4, 11};
static const int TRUMP_STRENGTH[8] = {0, 1, 6, 4, 7, 2, 3, 5};
static const int PLAIN_STRENGTH[8] = {0, 1, 2, 6, 3, 4, 5, 7};

/* Per-trump tables, built once at import. */
static int POINTS[4][32];
static int STRENGTH[4][32];
static uint32_t ABOVE[4][32];
static uint32_t BETWEEN[4][32][32];
static uint32_t RUN_WIN[32][3]; /* other two cards of each natural 3-window with the card */
static int RUN_WIN_N[32];
static uint32_t RANK_OTHERS[32];
static const uint32_t SUITM[4] = {0xFFu, 0xFF00u, 0xFF0000u, 0xFF000000u};

typedef struct {
    uint32_t h[4];
    int16_t lo, hi;
    int16_t ns, ew; /* points so far: key part in score mode only */
    uint8_t meta;   /* leader | pit << 2 | mode << 4 */
    int8_t move;
    uint8_t gen;
    uint8_t depth; /* cards left, for replacement */
} Entry;

static Entry *TT = NULL;
static uint8_t GEN = 0;
static int SETTINGS[6] = {-1, -1, -1, -1, -1, -1};

/* The search context. */
static struct {
    uint32_t h[4];
    int trump, rule, roem, four_low, score, playing;
    const int *pts, *str;
    const uint32_t *above;
    uint32_t (*between)[32];
    long long nodes;
    long long limit;  /* abandon after this many nodes (0: none) */
    double deadline;  /* abandon after this CLOCK_MONOTONIC time in seconds (0: none) */
    int bounded, aborted;
} S;

static double now_seconds(void)
{
#ifdef _WIN32
    return (double)clock() / CLOCKS_PER_SEC; /* wall-clock time with MSVC */
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
}

static int over_limits(void)
{
    if (S.limit && S.nodes > S.limit) return 1;
    return S.deadline > 0 && now_seconds() > S.deadline;
}

static void init_tables(void)
{
    for (int t = 0; t < 4; t++) {
        for (int c = 0; c < 32; c++) {
            int tr = (c >> 3) == t;
            POINTS[t][c] = (tr ? TRUMP_POINTS : PLAIN_POINTS)[c & 7];
            STRENGTH[t][c] = (tr ? TRUMP_STRENGTH : PLAIN_STRENGTH)[c & 7];
        }
        for (int c = 0; c < 32; c++) {
            uint32_t m = 0;
            for (int d = 8 * (c >> 3); d < 8 * (c >> 3) + 8; d++)
                if (STRENGTH[t][d] > STRENGTH[t][c]) m |= 1u << d;
            ABOVE[t][c] = m;
            for (int d = 0; d < 32; d++) {
                uint32_t b = 0;
                if ((c >> 3) == (d >> 3)) {
                    int lo = STRENGTH[t][c], hi = STRENGTH[t][d];
                    if (lo > hi) { int x = lo; lo = hi; hi = x; }
                    for (int e = 8 * (c >> 3); e < 8 * (c >> 3) + 8; e++)
                        if (STRENGTH[t][e] > lo && STRENGTH[t][e] < hi) b |= 1u << e;
                }
                BETWEEN[t][c][d] = b;
            }
        }
    }
    for (int c = 0; c < 32; c++) {
        int s = c >> 3, r = c & 7, n = 0;
        for (int k = (r - 2 > 0 ? r - 2 : 0); k <= (r < 5 ? r : 5); k++) {
            uint32_t w = 0;
            for (int j = k; j < k + 3; j++) w |= 1u << (8 * s + j);
            RUN_WIN[c][n++] = w & ~(1u << c);
        }
        RUN_WIN_N[c] = n;
        uint32_t o = 0;
        for (int t = 0; t < 4; t++) o |= 1u << (8 * t + r);
        RANK_OTHERS[c] = o & ~(1u << c);
    }
}

static inline int popcount32(uint32_t x) { return __builtin_popcount(x); }
static inline int lowbit(uint32_t x) { return __builtin_ctz(x); }

static inline int leaf(int ns, int ew, int pit)
{
    if (pit & 1) ns += PIT_BONUS;
    if (pit & 2) ew += PIT_BONUS;
    if (!S.score) return ns - ew;
    if (S.playing == 0) return ns > ew ? ns - ew : -(ns + ew);
    return ew > ns ? ns - ew : ns + ew;
}

/* rules.md §4.5 / §9.4 for a non-empty trick. */
static inline uint32_t legal(uint32_t hand, int led, int wcard, int partner_win)
{
    uint32_t tm = SUITM[S.trump], tr = hand & tm;
    if (led == S.trump) {
        uint32_t ht = tr & S.above[wcard];
        return ht ? ht : (tr ? tr : hand);
    }
    uint32_t f = hand & SUITM[led];
    if (f) return f;
    if (!tr) return hand;
    int wt = (wcard >> 3) == S.trump;
    uint32_t ht = wt ? (tr & S.above[wcard]) : tr;
    if (S.rule == ROTTERDAM) return ht ? ht : tr;
    uint32_t nt = hand & ~tm;
    if (S.rule == KLAMMERN || !partner_win) return ht ? ht : (nt ? nt : hand);
    if (!wt) return hand;
    uint32_t x = nt | ht;
    return x ? x : hand;
}

/* The moves of a node: any card when leading, else the duties above. */
static inline uint32_t gen_moves(uint32_t hand, int ntr, int led, int wcard, int partner_win)
{
    return ntr == 0 ? hand : legal(hand, led, wcard, partner_win);
}

/* rules.md §5: roem of a completed trick (4-card mask). */
static inline int roem4(uint32_t m)
{
    uint32_t four = m & (m >> 8) & (m >> 16) & (m >> 24) & 0xFFu;
    if (four) {
        int r = 31 - __builtin_clz(four);
        return r == 4 ? 200 : (r >= 3 ? 100 : S.four_low);
    }
    int t = 0;
    for (int s = 0; s < 4; s++) {
        uint32_t b = (m >> (8 * s)) & 0xFFu;
        uint32_t r3 = b & (b >> 1) & (b >> 2);
        if (r3) {
            t += (r3 & (b >> 3)) ? 50 : 20;
            break;
        }
    }
    uint32_t stuk = (1u << (8 * S.trump + 6)) | (1u << (8 * S.trump + 5));
    if ((m & stuk) == stuk) t += 20;
    return t;
}

static inline int roem_free(int c, uint32_t avail)
{
    for (int i = 0; i < RUN_WIN_N[c]; i++)
        if ((RUN_WIN[c][i] & avail) == RUN_WIN[c][i]) return 0;
    return !(S.four_low && (RANK_OTHERS[c] & avail) == RANK_OTHERS[c]);
}

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static inline Entry *tt_probe(uint32_t idx, uint8_t meta, int ns, int ew)
{
    for (int i = 0; i < 2; i++) {
        Entry *e = &TT[idx ^ i];
        if (e->gen == GEN && e->meta == meta && e->h[0] == S.h[0] && e->h[1] == S.h[1] &&
            e->h[2] == S.h[2] && e->h[3] == S.h[3] && e->ns == ns && e->ew == ew)
            return e;
    }
    return NULL;
}

static inline void tt_store(uint32_t idx, uint8_t meta, int ns, int ew, int lo, int hi, int move,
                            int depth)
{
    Entry *e = tt_probe(idx, meta, ns, ew);
    if (e) {
        if (lo > e->lo) e->lo = (int16_t)lo;
        if (hi < e->hi) e->hi = (int16_t)hi;
        e->move = (int8_t)move;
        return;
    }
    Entry *a = &TT[idx], *b = &TT[idx ^ 1];
    if (a->gen != GEN) e = a;
    else if (b->gen != GEN) e = b;
    else e = (a->depth <= b->depth) ? a : b;
    memcpy(e->h, S.h, sizeof e->h);
    e->lo = (int16_t)lo;
    e->hi = (int16_t)hi;
    e->ns = (int16_t)ns;
    e->ew = (int16_t)ew;
    e->meta = meta;
    e->move = (int8_t)move;
    e->gen = GEN;
    e->depth = (uint8_t)depth;
}

/* Move ordering keys, as in _ddpy.order; returns the number of moves in `out`. */
static int order(uint32_t cards, int seat, int ntr, int wcard, int wseat, uint32_t others, int ttm,
                 int *out)
{
    int keys[8], n = 0;
    while (cards) {
        int c = lowbit(cards);
        cards &= cards - 1;
        int p = S.pts[c], k;
        if (c == ttm) {
            k = 1000;
        } else if (ntr == 0) {
            k = (S.above[c] & others) ? -p : 100 + p;
        } else {
            int cs = c >> 3, ws = wcard >> 3;
            int win = cs == ws ? S.str[c] > S.str[wcard] : cs == S.trump;
            int power = S.str[c] + (cs == S.trump ? 8 : 0);
            if (((wseat ^ seat) & 1) == 0) k = win ? p - 50 : p;
            else if (win) k = ntr == 3 ? 200 - power : 100 - power + p;
            else k = -p;
        }
        /* insertion sort: key descending, then card descending (as Python's tuple sort) */
        int i = n++;
        while (i > 0 && (keys[i - 1] < k || (keys[i - 1] == k && out[i - 1] < c))) {
            keys[i] = keys[i - 1];
            out[i] = out[i - 1];
            i--;
        }
        keys[i] = k;
        out[i] = c;
    }
    return n;
}

static int ab(int seat, int ntr, uint32_t tcards, int led, int wcard, int wseat, int tp, int ns,
              int ew, int pit, int alpha, int beta, int *best_out)
{
    S.nodes++;
    if (S.bounded && !(S.nodes & CHECK_EVERY) && over_limits()) {
        S.aborted = 1;
        *best_out = ABANDONED;
        return 0;
    }
    int ttm = -1, base = 0, kns = 0, kew = 0;
    uint32_t idx = 0;
    uint8_t meta = 0;
    if (ntr == 0) {
        if (!(S.h[0] | S.h[1] | S.h[2] | S.h[3])) {
            *best_out = -1;
            return leaf(ns, ew, pit);
        }
        if (!(S.h[seat] & (S.h[seat] - 1))) {
            /* The last trick is forced: every player has one card left. */
            int wc = lowbit(S.h[seat]), ws = seat, tot = S.pts[wc] + LAST_TRICK_BONUS;
            uint32_t m = S.h[seat];
            for (int j = 1; j < 4; j++) {
                int s2 = (seat + j) & 3, c = lowbit(S.h[s2]);
                m |= S.h[s2];
                tot += S.pts[c];
                if ((c >> 3) == (wc >> 3) ? S.str[c] > S.str[wc] : (c >> 3) == S.trump) {
                    wc = c;
                    ws = s2;
                }
            }
            if (S.roem) tot += roem4(m);
            *best_out = lowbit(S.h[seat]);
            return (ws & 1) ? leaf(ns, ew + tot, pit & 2) : leaf(ns + tot, ew, pit & 1);
        }
        if (S.score) {
            kns = ns;
            kew = ew;
        } else {
            base = ns - ew;
        }
        meta = (uint8_t)(seat | (pit << 2) | (S.score << 4));
        uint64_t x = ((uint64_t)S.h[0] | ((uint64_t)S.h[1] << 32)) * 0x9E3779B97F4A7C15ULL;
        x ^= mix64(((uint64_t)S.h[2] | ((uint64_t)S.h[3] << 32)) + meta);
        x ^= (uint64_t)(uint16_t)kns * 0xD6E8FEB86659FD93ULL + (uint64_t)(uint16_t)kew;
        idx = (uint32_t)(mix64(x) >> (64 - TT_BITS));
        Entry *e = tt_probe(idx, meta, kns, kew);
        if (e && S.nodes == 1) {
            ttm = e->move; /* the root is always searched: its best card must be proven */
        } else if (e) {
            int lo = e->lo + base, hi = e->hi + base;
            ttm = e->move;
            if (lo >= beta || lo == hi) {
                *best_out = ttm;
                return lo;
            }
            if (hi <= alpha) {
                *best_out = ttm;
                return hi;
            }
            if (lo > alpha) alpha = lo;
            if (hi < beta) beta = hi;
        }
    }
    int a0 = alpha, b0 = beta;
    uint32_t hand = S.h[seat];
    int partner_win = ((wseat ^ seat) & 1) == 0;
    uint32_t moves = gen_moves(hand, ntr, led, wcard, partner_win);
    uint32_t others = (S.h[0] | S.h[1] | S.h[2] | S.h[3]) & ~hand;
    int maxing = (seat & 1) == 0;
    int best = maxing ? -100000 : 100000, best_card = -1, dummy;
    uint32_t searched = 0, blocking = others | tcards;
    int list[8];
    int n = order(moves, seat, ntr, wcard, wseat, others, ttm, list);
    for (int i = 0; i < n; i++) {
        int c = list[i];
        uint32_t eq = searched & SUITM[c >> 3];
        int skip = 0;
        while (eq) {
            int d = lowbit(eq);
            eq &= eq - 1;
            if (S.pts[d] == S.pts[c] && !(S.between[c][d] & blocking) &&
                (!S.roem || (roem_free(c, blocking) && roem_free(d, blocking)))) {
                skip = 1;
                break;
            }
        }
        if (skip) continue;
        uint32_t bit = 1u << c;
        searched |= bit;
        S.h[seat] = hand ^ bit;
        int v;
        if (ntr == 0) {
            v = ab((seat + 1) & 3, 1, bit, c >> 3, c, seat, S.pts[c], ns, ew, pit, alpha, beta,
                   &dummy);
        } else {
            int cs = c >> 3, ws = wcard >> 3;
            int win = cs == ws ? S.str[c] > S.str[wcard] : cs == S.trump;
            int nw = win ? c : wcard, nws = win ? seat : wseat;
            if (ntr < 3) {
                v = ab((seat + 1) & 3, ntr + 1, tcards | bit, led, nw, nws, tp + S.pts[c], ns, ew,
                       pit, alpha, beta, &dummy);
            } else {
                int total = tp + S.pts[c];
                if (S.roem) total += roem4(tcards | bit);
                if (!S.h[seat]) total += LAST_TRICK_BONUS;
                if (nws & 1)
                    v = ab(nws, 0, 0, 0, 0, 0, 0, ns, ew + total, pit & 2, alpha, beta, &dummy);
                else
                    v = ab(nws, 0, 0, 0, 0, 0, 0, ns + total, ew, pit & 1, alpha, beta, &dummy);
            }
        }
        S.h[seat] = hand;
        if (S.aborted) {
            *best_out = ABANDONED;
            return 0; /* unwinding: nothing is stored */
        }
        if (maxing) {
            if (v > best) {
                best = v;
                best_card = c;
                if (v > alpha) {
                    alpha = v;
                    if (alpha >= beta) break;
                }
            }
        } else if (v < best) {
            best = v;
            best_card = c;
            if (v < beta) {
                beta = v;
                if (alpha >= beta) break;
            }
        }
    }
    if (ntr == 0) {
        int lo = -UNKNOWN, hi = UNKNOWN;
        if (best <= a0) hi = best - base;
        else if (best >= b0) lo = best - base;
        else lo = hi = best - base;
        tt_store(idx, meta, kns, kew, lo, hi, best_card, popcount32(others | hand));
    }
    *best_out = best_card;
    return best;
}

/* The root's view of a partial trick (S.trump, S.pts, S.str set): the card mask, the card
 * points so far, and the position of the card now winning it (rules.md §4.6). */
static int trick_facts(const int *tc, int nt, uint32_t *tcards, int *tp)
{
    int wi = 0;
    *tcards = 0;
    *tp = 0;
    for (int i = 0; i < nt; i++) {
        int c = tc[i];
        *tcards |= 1u << c;
        *tp += S.pts[c];
        if (i && ((c >> 3) == (tc[wi] >> 3) ? S.str[c] > S.str[tc[wi]] : (c >> 3) == S.trump))
            wi = i;
    }
    return wi;
}

/* Parse a trick of at most 3 card indices into tc; returns its length, or -1 with an error. */
static Py_ssize_t parse_trick(PyObject *trick, int *tc)
{
    PyObject *seq = PySequence_Fast(trick, "trick must be a sequence of card indices");
    if (!seq) return -1;
    Py_ssize_t nt = PySequence_Fast_GET_SIZE(seq);
    if (nt > 3) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "at most 3 cards in the current trick");
        return -1;
    }
    for (Py_ssize_t i = 0; i < nt; i++) {
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (c < 0 || c > 31) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad card index");
            return -1;
        }
        tc[i] = (int)c;
    }
    Py_DECREF(seq);
    return nt;
}

/* Refuse a position the search cannot take (instead of running off its fixed-size stacks):
 * hands of 32-bit masks with at most 8 cards each, no card twice (hands and trick), and the
 * hand sizes of a real deal: the seats still to play to the current trick hold one card more
 * than those that played to it. Returns 0, or -1 with a ValueError. */
static int check_position(const unsigned long *h, const int *tc, Py_ssize_t nt, int leader)
{
    uint32_t seen = 0;
    int count[4];
    for (int i = 0; i < 4; i++) {
        if (h[i] > 0xFFFFFFFFUL) {
            PyErr_SetString(PyExc_ValueError, "a hand must be a mask of 32 bits");
            return -1;
        }
        count[i] = __builtin_popcount((uint32_t)h[i]);
        if (count[i] > 8) {
            PyErr_SetString(PyExc_ValueError, "a hand has at most 8 cards");
            return -1;
        }
        if (seen & (uint32_t)h[i]) {
            PyErr_SetString(PyExc_ValueError, "a card is in two hands");
            return -1;
        }
        seen |= (uint32_t)h[i];
    }
    for (Py_ssize_t i = 0; i < nt; i++) {
        uint32_t bit = (uint32_t)1 << tc[i];
        if (seen & bit) {
            PyErr_SetString(PyExc_ValueError, "a card of the trick is in a hand or twice in it");
            return -1;
        }
        seen |= bit;
    }
    int to_play = count[(leader + (int)nt) & 3];
    for (int k = 0; k < 4; k++) {
        int want = k < nt ? to_play - 1 : to_play;
        if (count[(leader + k) & 3] != want) {
            PyErr_SetString(PyExc_ValueError, "the hands' sizes do not fit the trick");
            return -1;
        }
    }
    return 0;
}

static PyObject *py_search(PyObject *self, PyObject *args)
{
    unsigned long h0, h1, h2, h3;
    int trump, rule, roem, four_low, pit, leader, ns, ew, mode, playing, alpha, beta, new_tt;
    long long limit = 0;
    double budget_ms = 0.0;
    PyObject *trick;
    (void)self;
    if (!PyArg_ParseTuple(args, "(kkkk)iipiiiOiiiiiip|Ld", &h0, &h1, &h2, &h3, &trump, &rule,
                          &roem, &four_low, &pit, &leader, &trick, &ns, &ew, &mode, &playing,
                          &alpha, &beta, &new_tt, &limit, &budget_ms))
        return NULL;
    if (trump < 0 || trump > 3 || leader < 0 || leader > 3 || rule < 0 || rule > 2) {
        PyErr_SetString(PyExc_ValueError, "bad trump, leader or rule");
        return NULL;
    }
    if (mode != 0 && mode != MODE_SCORE) {
        PyErr_SetString(PyExc_ValueError, "bad mode");
        return NULL;
    }
    int tc[3];
    Py_ssize_t nt = parse_trick(trick, tc);
    if (nt < 0) return NULL;
    unsigned long hands[4] = {h0, h1, h2, h3};
    if (check_position(hands, tc, nt, leader) < 0) return NULL;
    if (!TT) {
        TT = (Entry *)calloc(TT_SIZE, sizeof(Entry));
        if (!TT) return PyErr_NoMemory();
    }
    int settings[6] = {trump, rule, roem, four_low, playing, 0};
    if (new_tt || memcmp(settings, SETTINGS, sizeof settings) != 0) {
        memcpy(SETTINGS, settings, sizeof settings);
        if (++GEN == 0) {
            memset(TT, 0, TT_SIZE * sizeof(Entry));
            GEN = 1;
        }
    }
    S.h[0] = (uint32_t)h0;
    S.h[1] = (uint32_t)h1;
    S.h[2] = (uint32_t)h2;
    S.h[3] = (uint32_t)h3;
    S.trump = trump;
    S.rule = rule;
    S.roem = roem;
    S.four_low = four_low;
    S.score = mode == MODE_SCORE;
    S.playing = playing;
    S.pts = POINTS[trump];
    S.str = STRENGTH[trump];
    S.above = ABOVE[trump];
    S.between = BETWEEN[trump];
    S.nodes = 0;
    S.limit = limit > 0 ? limit : 0;
    S.deadline = budget_ms > 0 ? now_seconds() + budget_ms * 1e-3 : 0.0;
    S.bounded = S.limit || S.deadline > 0;
    S.aborted = 0;
    int best = -1, v;
    pit &= 3;
    if (nt) {
        uint32_t tcards;
        int tp;
        int wi = trick_facts(tc, (int)nt, &tcards, &tp);
        int seat = (leader + (int)nt) & 3;
        v = ab(seat, (int)nt, tcards, tc[0] >> 3, tc[wi], (leader + wi) & 3, tp, ns, ew, pit,
               alpha, beta, &best);
    } else {
        v = ab(leader, 0, 0, 0, 0, 0, 0, ns, ew, pit, alpha, beta, &best);
    }
    if (S.aborted) {
        v = 0;
        best = ABANDONED;
    }
    return Py_BuildValue("iiL", v, best, S.nodes);
}

/* Test hook: the moves the search generates for the seat to play to `trick` (led by
 * `leader`), through the root set-up and move generator of search (rules.md §4.5, §9.4).
 * tests/engine/test_rules_core.py proves it equal to the engine's rules. */
static PyObject *py_legal_mask(PyObject *self, PyObject *args)
{
    unsigned long hand;
    int trump, rule, leader;
    PyObject *trick;
    (void)self;
    if (!PyArg_ParseTuple(args, "kiiiO", &hand, &trump, &rule, &leader, &trick)) return NULL;
    if (trump < 0 || trump > 3 || leader < 0 || leader > 3 || rule < 0 || rule > 2) {
        PyErr_SetString(PyExc_ValueError, "bad trump, leader or rule");
        return NULL;
    }
    int tc[3];
    Py_ssize_t nt = parse_trick(trick, tc);
    if (nt < 0) return NULL;
    if (hand > 0xFFFFFFFFUL || __builtin_popcount((uint32_t)hand) > 8) {
        PyErr_SetString(PyExc_ValueError, "a hand is a mask of 32 bits with at most 8 cards");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nt; i++) {
        if ((uint32_t)hand & ((uint32_t)1 << tc[i])) {
            PyErr_SetString(PyExc_ValueError, "a card of the trick is in the hand");
            return NULL;
        }
    }
    S.trump = trump;
    S.rule = rule;
    S.pts = POINTS[trump];
    S.str = STRENGTH[trump];
    S.above = ABOVE[trump];
    uint32_t moves = (uint32_t)hand;
    if (nt) {
        uint32_t tcards;
        int tp;
        int wi = trick_facts(tc, (int)nt, &tcards, &tp);
        int seat = (leader + (int)nt) & 3, wseat = (leader + wi) & 3;
        moves = gen_moves((uint32_t)hand, (int)nt, tc[0] >> 3, tc[wi], ((wseat ^ seat) & 1) == 0);
    }
    return PyLong_FromUnsignedLong(moves);
}

static PyMethodDef methods[] = {
    {"search", py_search, METH_VARARGS,
     "search(hands, trump, rule, roem, four_low, pit, leader, trick, ns, ew, mode, playing, "
     "alpha, beta, new_tt, limit=0, budget_ms=0.0) -> (value, best_card, nodes); see "
     "engine.ai._ddpy.search."},
    {"legal_mask", py_legal_mask, METH_VARARGS,
     "legal_mask(hand, trump, rule, leader, trick) -> mask: test hook, the search's moves; see "
     "engine.ai._ddpy.legal_mask."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_dd", "C double-dummy search core (twin of engine.ai._ddpy).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__dd(void)
{
    init_tables();
    return PyModule_Create(&moduledef);
}
