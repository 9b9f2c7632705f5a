"""Minimax fits for the f32 trigonometric kernels in tensor-core/src/vmath/trig.rs.

    python3 remez_trig.py sinpi 5   # sin(r)/r on |r| <= pi/2, P of degree 4 in z = r^2
    python3 remez_trig.py sin4 4    # sin(r)/r on |r| <= pi/4
    python3 remez_trig.py cos4 4    # cos(r) on |r| <= pi/4
    python3 remez_trig.py atan 5    # atan(t)/t on |t| <= tan(pi/8)  (historical: the
    python3 remez_trig.py asin 5    # asin(s)/s on |s| <= 1/2       former f64-lane kernels)
    python3 remez_trig.py atan1 8 f32  # f32 atan kernel: atan(t)/t on |t| <= 1, f32 coefficients
    python3 remez_trig.py asin 5 f32   # f32 asin/acos kernel: asin(s)/s on |s| <= 1/2, f32
    python3 remez_trig.py tanrat    # f32 tan kernel: tan(r)/r = P(z)/Q(z) on |r| <= TAN_R,
                                    #   P, Q of degree 2 with constant term 1, f32 coefficients

The second argument is the number of coefficients of P in f(z) = 1 + z*P(z) (z = r^2);
the relative error |(1 + z*P) - f| / f is minimised by a Remez exchange (mpmath, 60
digits) on [B*1e-4, B] (the weight vanishes at 0), and the maximum is re-measured on a
dense grid with the coefficients rounded to f64. Intervals carry a 2^-20 relative slack
for the reduction's rounding. Where the exchange cannot find enough alternation points
it stops and prints "fewer": the coefficients are then near-minimax, and the printed
error (measured, not claimed) is what vmath/trig.rs states.

The "f32" fits (after a kernel's name) are for the kernels that run in f32 lanes (atan,
asin, acos everywhere): the coefficients are f32, rounded one at a time from the first,
each time refitting the later ones to what the rounded ones leave (so the rounding of the
large leading coefficients is absorbed), and the error printed is measured with all
coefficients rounded to f32.

tanrat (tan on FMA builds) is a rational fit: the relative error of P/Q against tan(r)/r
is levelled by a Remez exchange on the nonlinear system (mpmath findroot), started from
the Pade approximant; the coefficients are then rounded to f32 one at a time (Q1, P1, Q2,
P2), the others refitted after each. Its interval is |r| <= TAN_R: pi/4 plus what the
reduction's f32 2/pi adds below TAN_MAX (see vmath/trig.rs).
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 60


def remez(f, w, a, b, n, iters=30):
    """Minimise max |w(z) (P(z) - f(z))| over [a, b], P of degree n."""
    N = n + 2
    xs = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / (N - 1)) for i in range(N)]
    grid = [a + (b - a) * mp.mpf(i) / 4000 for i in range(4001)]
    mx = None
    for _ in range(iters):
        A = mp.matrix(N, N)
        rhs = mp.matrix(N, 1)
        for i, x in enumerate(xs):
            for j in range(n + 1):
                A[i, j] = x**j
            A[i, n + 1] = (-1) ** i / w(x)
            rhs[i] = f(x)
        sol = mp.lu_solve(A, rhs)
        c = [sol[j] for j in range(n + 1)]
        es = [w(x) * (mp.polyval(c[::-1], x) - f(x)) for x in grid]
        mx = max(abs(e) for e in es)
        xs = exchange(grid, es, N)
        if xs is None:
            break
    return c, mx


def remez_around_zero(f, w, R, ncoef):
    """`remez` on [-R, R] for a weight w that vanishes at 0 (the interval is stretched by
    1e-3 on the right so that no Remez node or grid point falls on r = 0). Returns the
    mpf coefficients, the levelled error, and the error re-measured on a dense grid with
    the coefficients rounded to f64."""
    a, b = -R, R * (1 + mp.mpf("1e-3"))
    c, mx = remez(f, w, a, b, ncoef - 1)
    cf = [mp.mpf(float(x)) for x in c]
    grid = [a + (b - a) * mp.mpf(i) / 20001 for i in range(20002)]
    e = max(abs(w(r) * (mp.polyval(cf[::-1], r) - f(r))) for r in grid)
    return c, mx, e


def exchange(grid, es, n):
    """The n points of the next Remez step: the local extrema of the error es on grid,
    one per run of equal sign (the largest), trimmed from the smaller end to n; None
    (after printing "fewer") when the error alternates fewer than n times."""
    m = []
    for i, e in enumerate(es):
        left = es[i - 1] if i > 0 else None
        right = es[i + 1] if i < len(es) - 1 else None
        if (left is None or abs(e) >= abs(left)) and (right is None or abs(e) >= abs(right)):
            if m and mp.sign(m[-1][1]) == mp.sign(e):
                if abs(e) > abs(m[-1][1]):
                    m[-1] = (grid[i], e)
            else:
                m.append((grid[i], e))
    while len(m) > n:
        m.pop(0 if abs(m[0][1]) < abs(m[-1][1]) else -1)
    if len(m) < n:
        print("fewer", len(m))
        return None
    return [x for x, _ in m]


def report(name, f, w, b, ncoef):
    a = b * mp.mpf("1e-4")
    c, mx = remez(f, w, a, b, ncoef - 1)
    cf = [float(x) for x in c]
    grid = [a + (b - a) * mp.mpf(i) / 20000 for i in range(20001)]
    e2 = max(abs(w(x) * (mp.polyval([mp.mpf(v) for v in cf[::-1]], x) - f(x))) for x in grid)
    print(name, "coefficients", ncoef, "err 2^%.2f" % float(mp.log(mx, 2)),
          "with f64 coefficients 2^%.2f" % float(mp.log(e2, 2)))
    for v in cf:
        print("    %r," % v)


S = lambda z: mp.sin(mp.sqrt(z)) / mp.sqrt(z)
C = lambda z: mp.cos(mp.sqrt(z))
AT = lambda z: mp.atan(mp.sqrt(z)) / mp.sqrt(z)
AS = lambda z: mp.asin(mp.sqrt(z)) / mp.sqrt(z)
SLACK = 1 + mp.mpf(2) ** -20
KERNELS = {
    "sinpi": (S, (mp.pi / 2) ** 2 * SLACK),
    "sin4": (S, (mp.pi / 4) ** 2 * SLACK),
    "cos4": (C, (mp.pi / 4) ** 2 * SLACK),
    "atan": (AT, mp.tan(mp.pi / 8) ** 2 * SLACK),
    "asin": (AS, mp.mpf(0.25)),
    "atan1": (AT, mp.mpf(1)),  # t = |x| <= 1 or RN(1/|x|) <= 1: no slack needed
}


def f32(v):
    """v rounded to the nearest f32 (as an mpf)."""
    return mp.mpf(struct.unpack("f", struct.pack("f", float(v)))[0])


def fit_f32(f, fixed, b, ncoef, iters=30):
    """Minimax f(z) ~ fixed[0] + fixed[1] z + ... + c_k z^k + ... (ncoef free f32 coefficients
    after the fixed ones), relative error on [b*1e-4, b]; coefficients rounded to f32 one at a
    time, the later ones refitted after each rounding."""
    a = b * mp.mpf("1e-4")
    cs = [mp.mpf(v) for v in fixed]
    while len(cs) < len(fixed) + ncoef:
        k, done = len(cs), tuple(cs)
        gk = lambda z, k=k, done=done: (f(z) - sum(c * z**i for i, c in enumerate(done))) / z**k
        wk = lambda z, k=k: z**k / f(z)
        c, _ = remez(gk, wk, a, b, len(fixed) + ncoef - 1 - k, iters)
        cs.append(f32(c[0]))
    grid = [a + (b - a) * mp.mpf(i) / 20000 for i in range(20001)]
    e = max(abs(mp.polyval(cs[::-1], z) / f(z) - 1) for z in grid)
    return cs[len(fixed):], e


# tan kernel: |x| < TAN_MAX = 2^18, n = rint(x * c) with c = f32(2/pi), so
# |r| <= pi/4 + pi/2 * TAN_MAX * |c - 2/pi|; the reduction's error (< 2^-29 relative) is
# inside the 2^-20 slack.
TAN_MAX = 2**18
TAN_R = (mp.pi / 4 + mp.pi / 2 * TAN_MAX * abs(f32(2 / mp.pi) - 2 / mp.pi)) * SLACK


def fit_tan_rational(iters=12):
    """tan(r)/r ~ (1 + p1 z + p2 z^2) / (1 + q1 z + q2 z^2), z = r^2 <= TAN_R^2, minimax
    relative error; returns ([p1, p2, q1, q2] as f32, measured error)."""
    b = TAN_R**2
    a = b * mp.mpf("1e-6")
    f = lambda z: mp.tan(mp.sqrt(z)) / mp.sqrt(z)
    rel = lambda c, z: (1 + c[0] * z + c[1] * z**2) / (1 + c[2] * z + c[3] * z**2) / f(z) - 1
    grid = [a + (b - a) * mp.mpf(i) / 3000 for i in range(3001)]

    def level(c, fixed):
        free = [i for i in range(4) if i not in fixed]
        n = len(free) + 1
        zs = [a + (b - a) * (1 - mp.cos(mp.pi * i / (n - 1))) / 2 for i in range(n)]
        c, e = list(c), mp.mpf(0)
        for _ in range(iters):
            def eqs(*u):
                cc = list(c)
                for j, i in enumerate(free):
                    cc[i] = u[j]
                return [rel(cc, zs[k]) - (-1) ** k * u[-1] for k in range(n)]
            sol = mp.findroot(eqs, [c[i] for i in free] + [e])
            for j, i in enumerate(free):
                c[i] = sol[j]
            e = sol[-1]
            zs = exchange(grid, [rel(c, z) for z in grid], n)
            if zs is None:
                break
        return c

    pade = [mp.mpf(-105) / 945, mp.mpf(1) / 945, mp.mpf(-420) / 945, mp.mpf(15) / 945]
    c = level(pade, {})
    fixed = {}
    for i in [2, 0, 3, 1]:  # indices into [p1, p2, q1, q2]: Q1, P1, Q2, P2
        fixed[i] = f32(c[i])
        c = [fixed.get(k, v) for k, v in enumerate(level(c, fixed) if len(fixed) < 4 else c)]
    fine = [b * mp.mpf(i) / 20000 for i in range(1, 20001)]
    return c, max(abs(rel(c, z)) for z in fine)


if __name__ == "__main__":
    if sys.argv[1] == "tanrat":
        cs, e = fit_tan_rational()
        print("tanrat on z <=", mp.nstr(TAN_R**2, 8), "f32 [P1, P2, Q1, Q2]",
              "err 2^%.2f" % float(mp.log(e, 2)))
        for v in cs:
            print("    %r, // %s" % (float(v), hex(struct.unpack("I", struct.pack("f", float(v)))[0])))
        sys.exit()
    what, ncoef = sys.argv[1], int(sys.argv[2])
    if sys.argv[3:] == ["f32"]:
        # 20 exchange steps, as vmath/trig.rs's atan1/asin coefficients were made: 30 moves the
        # atan fit's last bits, and those measured worse over all f32 (1.58 vs 1.47 ulp).
        (g, b), fixed, iters = KERNELS[what], [1], 20
        cs, e = fit_f32(g, fixed, b, ncoef, iters)
        print(what, "on z <=", mp.nstr(b, 8), "f32 coefficients", ncoef,
              "err 2^%.2f" % float(mp.log(e, 2)))
        for v in cs:
            print("    %r, // %s" % (float(v), hex(struct.unpack("I", struct.pack("f", float(v)))[0])))
    else:
        g, b = KERNELS[what]
        report(what, lambda z: (g(z) - 1) / z, lambda z: z / g(z), b, ncoef)
