"""align_cuda_model.py - a lock-step NumPy model of the cuda backend's alignment
pass (src/cuda/align/align_kernel.cu and align_dispatch.cu: lanes as array
columns, shuffles as rolls, bands one after another) against a transliteration
of the CPU pass (src/cpu/align_pass.c), for the kernel's index arithmetic
without a GPU: wavefront steps, predicated and steady blocks, short last bands,
closed-form row 0 and column 0, checkpoint rows, the best-cell key, and that
every read of the band above's row follows a publish covering it. Rows per lane
(R) and the chunk are varied. Keep it in step with the kernel.
Run: python3 scripts/align_cuda_model.py [SEED [CASES]]  (prints MISMATCH and exits 1)."""
import numpy as np, random, sys

NEG = -(1 << 30)
I32MIN = -(1 << 31)

def consider(best, s, i, j):
    if best is None or s > best[0] or (s == best[0] and (i < best[1] or (i == best[1] and j < best[2]))):
        return (s, i, j)
    return best

# ---------------- CPU reference: src/cpu/align_pass.c run_sequential ----------------
def cpu_pass(P):
    a, b, rows, cols = P['a'], P['b'], P['rows'], P['cols']
    o, e = P['o'], P['e']
    h = [0] * (cols + 1); f = [0] * (cols + 1)
    best = None
    ev = NEG
    h[0] = 0 if P['free'] else P['h00']
    f[0] = NEG if P['free'] else P['f00']
    for j in range(1, cols + 1):
        ev = max(ev - e, h[j - 1] - o)
        h[j] = 0 if P['free'] else ev
        f[j] = NEG
    tr = P['track']
    if tr != 0:
        whole = tr == 1 or rows == 0
        for j in range(0 if whole else cols, cols + 1):
            best = consider(best, h[j], 0, j)
    saves = {}
    for i in range(1, rows + 1):
        diag = h[0]
        if P['free']:
            f[0] = NEG; h[0] = 0
        else:
            f[0] = max(f[0] - e, h[0] - o); h[0] = f[0]
        if tr == 1 or (tr == 2 and (i == rows or cols == 0)):
            best = consider(best, h[0], i, 0)
        left = h[0]; ev = NEG
        for j in range(1, cols + 1):
            up = h[j]
            fv = max(f[j] - e, up - o)
            ev = max(ev - e, left - o)
            hv = max(diag + P['s'](a[i - 1], b[j - 1]), max(ev, fv))
            if P['local']: hv = max(hv, 0)
            if tr == 1: best = consider(best, hv, i, j)
            diag = up; h[j] = hv; f[j] = fv; left = hv
        if tr == 2:
            if i == rows:
                for j in range(1, cols + 1): best = consider(best, h[j], i, j)
            elif cols >= 1:
                best = consider(best, h[cols], i, cols)
        if P['saves'] and i % P['every'] == 0 and i // P['every'] <= P['saves']:
            saves[i // P['every'] - 1] = (list(h), list(f))
    return h, f, saves, best

# ---------------- the GPU model ----------------
def col0(free, h00, f00, o, e, i):
    if free: return 0
    f1 = max(f00 - e, h00 - o)
    return f1 - (i - 1) * e

def row0(free, h00, o, e, j):
    if free: return 0
    ev1 = max(NEG - e, h00 - o)
    return ev1 - (j - 1) * e

def chk(x):
    x = np.asarray(x)
    assert (x >= I32MIN).all() and (x < (1 << 31)).all(), "int32 overflow"

def gpu_kernel(J, R, CH, rng):
    rows, cols = J['rows'], J['cols']
    o, e = J['o'], J['e']
    BAND = 32 * R
    bands = (rows + BAND - 1) // BAND
    chunks = (cols + CH - 1) // CH
    hbuf = np.array([rng.randint(-10**9, 10**9) for _ in range(cols + 1)], dtype=np.int64)
    fbuf = np.array([rng.randint(-10**9, 10**9) for _ in range(cols + 1)], dtype=np.int64)
    K = J['saves']
    save_h = np.full(max(K, 0) * (cols + 1), 777777, dtype=np.int64)
    save_f = np.full(max(K, 0) * (cols + 1), 777777, dtype=np.int64)
    key = 0
    slot = {}
    lane = np.arange(32)
    pub_cover = {}  # band -> list of (done, max column written)
    def h_col0(i):
        if i == 0: return 0 if J['free'] else J['h00']
        return col0(J['free'], J['h00'], J['f00'], o, e, i)
    for band in range(bands):
        top = band * BAND + 1
        first = top + lane * R
        full = top + BAND - 1 <= rows
        valid = np.zeros((32, R), bool); arow = np.zeros((32, R), np.int64)
        ho = np.zeros((32, R), np.int64); ev = np.full((32, R), NEG, np.int64)
        bs = np.full((32, R), I32MIN, np.int64); bjs = np.zeros((32, R), np.int64)
        save_r = np.full(32, -1); save_k = np.zeros(32, np.int64)
        for L in range(32):
            for r in range(R):
                i = first[L] + r
                inn = i <= rows
                valid[L, r] = inn
                code = J['a'][i - 1] if inn else 0
                arow[L, r] = code
                ho[L, r] = (h_col0(i) if inn else 0) - o
                if inn and K > 0 and i % J['every'] == 0 and i // J['every'] <= K:
                    assert save_r[L] == -1
                    save_r[L] = r; save_k[L] = i // J['every'] - 1
        diag = np.array([h_col0(first[L] - 1) - o for L in range(32)], np.int64)
        uh = np.zeros(32, np.int64); uf = np.zeros(32, np.int64)
        steps = cols + 31
        have = 0; published = 0; maxw = 0
        for t0 in range(0, steps, 32):
            jq = t0 + 1 + lane
            if band == 0:
                qh = np.array([row0(J['free'], J['h00'], o, e, x) - o for x in jq], np.int64)
                qf = np.full(32, NEG, np.int64)
            else:
                last = min(t0 + 32, cols); need = min((last + CH - 1) // CH, chunks)
                if need > have:
                    have = need
                # the band above published `have` chunks: columns covered?
                cover = cols if have >= chunks else have * CH
                pubs = [dd for dd in max_cover_at_publish[band - 1] if dd >= have]
                assert pubs, ("waits on a count never published", band, have)
                assert max_cover_at_publish[band - 1][min(pubs)] >= min(cover, cols), (band, have)
                qh = np.zeros(32, np.int64); qf = np.full(32, NEG, np.int64)
                for L in range(32):
                    if jq[L] <= cols:
                        assert jq[L] <= cover, ("read past the wait", band, t0, jq[L], cover)
                        qh[L] = hbuf[jq[L]] - o; qf[L] = fbuf[jq[L]]
            pred = not (full and t0 >= 32 and t0 + 32 <= cols)
            for k in range(32):
                t = t0 + k
                if pred and t >= steps: break
                j = t - lane + 1
                if pred:
                    active = (j >= 1) & (j <= cols)
                else:
                    active = np.ones(32, bool)
                    assert ((j >= 1) & (j <= cols)).all()
                bjx = np.clip(j, 1, cols) if pred else j
                bcode = np.array([J['b'][x - 1] for x in bjx])
                top_h, top_f = qh[k], qf[k]
                inh = np.roll(uh, 1); inf = np.roll(uf, 1)
                inh[0] = top_h; inf[0] = top_f
                d = diag.copy()
                diag = np.where(active, inh, diag)
                uh = inh.copy(); uf = inf.copy()
                hs = np.zeros(32, np.int64); fs = np.zeros(32, np.int64)
                for r in range(R):
                    f = np.maximum(uf - e, uh)
                    en = np.maximum(ev[:, r] - e, ho[:, r])
                    sc = np.array([J['s'](arow[L, r], bcode[L]) for L in range(32)], np.int64)
                    mx = np.maximum(en, f)
                    if J['local']: mx = np.maximum(mx, 0)
                    h = np.maximum(mx - o, d + sc)
                    chk(f); chk(en); chk(h); chk(d + sc)
                    ok = (active & valid[:, r]) if pred else np.ones(32, bool)
                    d = ho[:, r].copy()  # unconditional, as the kernel's t chain
                    ho[:, r] = np.where(ok, h, ho[:, r])
                    ev[:, r] = np.where(ok, en, ev[:, r])
                    uh = np.where(ok, h, uh); uf = np.where(ok, f, uf)
                    if J['track'] == 1:
                        keep = bs[:, r] >= h
                        nb = np.maximum(bs[:, r], h)
                        bjs[:, r] = np.where(ok & ~keep, j, bjs[:, r])
                        bs[:, r] = np.where(ok, nb, bs[:, r])
                    if K > 0:
                        sel = ok & (save_r == r)
                        hs = np.where(sel, h, hs); fs = np.where(sel, f, fs)
                if K > 0:
                    for L in range(32):
                        if save_r[L] >= 0 and active[L]:
                            at = save_k[L] * (cols + 1) + j[L]
                            save_h[at] = hs[L] + o; save_f[at] = fs[L]
                if active[31]:
                    assert j[31] == maxw + 1
                    hbuf[j[31]] = uh[31] + o; fbuf[j[31]] = uf[31]; maxw = j[31]
            written = min(t0 + 32, steps) - 31
            assert written == maxw, (written, maxw)
            done = chunks if written >= cols else written // CH
            if done > published:
                max_cover_at_publish[band][done] = maxw
                published = done
        assert published == chunks
        # band best
        if J['track'] != 0:
            best = (I32MIN, 2**31 - 1, 2**31 - 1)
            for L in range(32):
                cand = (I32MIN, 2**31 - 1, 2**31 - 1)
                for r in range(R):
                    if not valid[L, r]: continue
                    if J['track'] == 1 and bs[L, r] > cand[0]:
                        cand = (bs[L, r], first[L] + r, bjs[L, r])
                    if J['track'] == 2:
                        c2 = (ho[L, r], first[L] + r, cols)
                        if c2[0] > cand[0] or (c2[0] == cand[0] and (c2[1] < cand[1] or (c2[1] == cand[1] and c2[2] < cand[2]))):
                            cand = c2
                if cand[0] > best[0] or (cand[0] == best[0] and (cand[1] < best[1] or (cand[1] == best[1] and cand[2] < best[2]))):
                    best = cand
            if best[0] != I32MIN:
                slot[band] = (int(best[1]), int(best[2]))
                sc = ((int(best[0]) + o) & 0xffffffff) ^ 0x80000000
                kk = (sc << 32) | (0xffffffff - band)
                key = max(key, kk)
    return hbuf, fbuf, save_h, save_f, key, slot, bands

max_cover_at_publish = None

def gpu_pass(P, R, CH, rng):
    global max_cover_at_publish
    rows, cols, o, e = P['rows'], P['cols'], P['o'], P['e']
    free = P['free']
    best = None
    def c0h(i): return col0(free, P['h00'], P['f00'], o, e, i)
    def c0f(i): return NEG if free else col0(False, P['h00'], P['f00'], o, e, i)
    tr = P['track']
    if tr != 0:
        h00 = 0 if free else P['h00']
        whole = tr == 1 or rows == 0
        if whole:
            best = consider(best, h00, 0, 0)
            if cols >= 1: best = consider(best, row0(free, P['h00'], o, e, 1), 0, 1)
        else:
            best = consider(best, h00 if cols == 0 else row0(free, P['h00'], o, e, cols), 0, cols)
        if rows != 0:
            if tr == 1 or cols == 0: best = consider(best, c0h(1), 1, 0)
            if tr == 2: best = consider(best, c0h(rows), rows, 0)
    saves = {}
    if rows == 0 or cols == 0:
        if rows == 0:
            h = [0 if free else P['h00']] + [row0(free, P['h00'], o, e, j) for j in range(1, cols + 1)]
            f = [NEG if free else P['f00']] + [NEG] * cols
            return h, f, saves, best
        h = [c0h(rows)]; f = [c0f(rows)]
        for k in range(P['saves']):
            saves[k] = ([c0h((k + 1) * P['every'])], [c0f((k + 1) * P['every'])])
        return h, f, saves, best
    max_cover_at_publish = {bd: {} for bd in range(rows // (32 * R) + 2)}
    J = dict(P); J['rows'] = rows
    hbuf, fbuf, sh, sf, key, slot, bands = gpu_kernel(J, R, CH, rng)
    h = [c0h(rows)] + [int(x) for x in hbuf[1:]]
    f = [c0f(rows)] + [int(x) for x in fbuf[1:]]
    for k in range(P['saves']):
        rh = [int(x) for x in sh[k * (cols + 1):(k + 1) * (cols + 1)]]
        rf = [int(x) for x in sf[k * (cols + 1):(k + 1) * (cols + 1)]]
        rh[0] = c0h((k + 1) * P['every']); rf[0] = c0f((k + 1) * P['every'])
        saves[k] = (rh, rf)
    if tr == 2:
        for j in range(1, cols + 1): best = consider(best, h[j], rows, j)
    if key != 0:
        band = 0xffffffff - (key & 0xffffffff)
        assert 0 <= band < bands
        s = ((key >> 32) ^ 0x80000000)
        if s >= 1 << 31: s -= 1 << 32
        best = consider(best, s, slot[band][0], slot[band][1])
    return h, f, saves, best

def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    rng = random.Random(seed)
    n_cases = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    for case in range(n_cases):
        R = rng.choice([1, 2, 4, 16]) if case % 5 else 16
        CH = rng.choice([32, 64, 128])
        rows = rng.choice([0, 1, 2, 5, 31, 32, 33, 63, 64, 65, 100, 129, 200, 513, 700])
        cols = rng.choice([0, 1, 2, 5, 31, 32, 33, 63, 64, 65, 95, 96, 97, 130, 300])
        if rows * cols * (16 / R) > 600000: rows = min(rows, 130)
        letters = rng.randint(1, 4)
        matrix = rng.random() < 0.3
        sub = [[rng.randint(-6, 6) for _ in range(4)] for _ in range(4)]
        match, mismatch = rng.randint(0, 4), rng.randint(-5, 1)
        o = rng.choice([0, 1, 3, 5, 11]); e = rng.randint(0, o)
        if rng.random() < 0.1:
            o = 1000000; e = rng.choice([0, 500000, 1000000]); match = 300000; mismatch = -1000000
        s = (lambda x, y: sub[x][y]) if matrix else (lambda x, y: match if x == y else mismatch)
        free = rng.random() < 0.5
        local = rng.random() < 0.3
        track = rng.randint(0, 2)
        h00 = rng.choice([0, NEG, -7]); f00 = rng.choice([NEG, e - o, 0])
        every = rng.choice([64, 128]) if rows >= 128 else 64
        saves = rng.randint(0, rows // every) if rows >= every and rng.random() < 0.5 else 0
        P = dict(a=[rng.randint(0, letters - 1) for _ in range(rows)], b=[rng.randint(0, letters - 1) for _ in range(cols)],
                 rows=rows, cols=cols, o=o, e=e, s=s, free=free, local=local, track=track, h00=h00, f00=f00,
                 every=every, saves=saves)
        want = cpu_pass(P)
        got = gpu_pass(P, R, CH, rng)
        names = ['h', 'f', 'saves', 'best']
        for x in range(4):
            if want[x] != got[x]:
                print('MISMATCH case', case, names[x], dict((k, v) for k, v in P.items() if k not in 'ab' and k != 's'), 'R', R, 'CH', CH)
                if x == 3: print(want[3], got[3])
                elif x == 2:
                    for k in want[2]:
                        if want[2][k] != got[2].get(k):
                            print('save', k, [i for i in range(len(want[2][k][0])) if want[2][k][0][i] != got[2][k][0][i]][:10], [i for i in range(len(want[2][k][1])) if want[2][k][1][i] != got[2][k][1][i]][:10])
                else:
                    bad = [i for i in range(len(want[x])) if want[x][i] != got[x][i]]
                    print(' first bad', bad[:10], [want[x][i] for i in bad[:3]], [got[x][i] for i in bad[:3]])
                sys.exit(1)
        print('case', case, 'ok', rows, cols, 'R', R, 'CH', CH, 'track', track, 'saves', saves, flush=True)

if __name__ == "__main__":
    main()
