"""Minimax fits for the f32 trigonometric kernels in tensor-core/src/vmath.rs.

    python3 remez_trig.py sinpi 5   # sin(r)/r on |r| <= pi/2, P of degree 4 in z = r^2
    python3 remez_trig.py sin4 4    # sin(r)/r on |r| <= pi/4
    python3 remez_trig.py cos4 4    # cos(r) on |r| <= pi/4
    python3 remez_trig.py atan 5    # atan(t)/t on |t| <= tan(pi/8)
    python3 remez_trig.py asin 5    # asin(s)/s on |s| <= 1/2
    python3 remez_trig.py atan1 8 f32   # atan(t)/t on |t| <= 1, f32 coefficients
    python3 remez_trig.py asin 5 f32    # asin(s)/s on |s| <= 1/2, f32 coefficients

The second argument is the number of coefficients of P in f(z) = 1 + z*P(z) (z = r^2);
the relative error |(1 + z*P) - f| / f is minimised by a Remez exchange (mpmath, 60
digits) on [B*1e-4, B] (the weight vanishes at 0), and the maximum is re-measured on a
dense grid with the coefficients rounded to f64. Intervals carry a 2^-20 relative slack
for the reduction's rounding. Where the exchange cannot find enough alternation points
it stops and prints "fewer": the coefficients are then near-minimax, and the printed
error (measured, not claimed) is what vmath.rs states.

With "f32" (the kernels that run in f32 lanes on FMA builds) the coefficients are fixed
to f32 one at a time from the lowest degree: round c0 to f32, refit c1.. to what is left,
round c1, and so on; the error printed is that of the f32 coefficients.
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
        ext = []
        for i, e in enumerate(es):
            left = es[i - 1] if i > 0 else None
            right = es[i + 1] if i < len(es) - 1 else None
            if (left is None or abs(e) >= abs(left)) and (right is None or abs(e) >= abs(right)):
                ext.append((grid[i], e))
        m = []
        for x, e in ext:
            if m and mp.sign(m[-1][1]) == mp.sign(e):
                if abs(e) > abs(m[-1][1]):
                    m[-1] = (x, e)
            else:
                m.append((x, e))
        while len(m) > N:
            m.pop(0 if abs(m[0][1]) < abs(m[-1][1]) else -1)
        if len(m) < N:
            print("fewer", len(m))
            break
        xs = [x for x, _ in m]
    return c, mx


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
    "atan1": (AT, mp.mpf(1)),  # t = |x| <= 1 or t = RN(1/|x|) <= 1: no slack needed
}


def to_f32(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def report_f32(name, g, b, ncoef):
    """Fix the coefficients of 1 + z·P ~ g to f32 one at a time, refitting the rest."""
    a = b * mp.mpf("1e-4")
    fixed = []
    while len(fixed) < ncoef:
        k = len(fixed)

        def rest(z, fixed=tuple(fixed), k=k):
            done = sum(mp.mpf(c) * z**i for i, c in enumerate(fixed))
            return ((g(z) - 1) / z - done) / z**k

        def weight(z, k=k):
            return z / g(z) * z**k

        c, _ = remez(rest, weight, a, b, ncoef - 1 - k, iters=20)
        fixed.append(to_f32(c[0]))
    grid = [a + (b - a) * mp.mpf(i) / 8000 for i in range(8001)]
    err = max(abs(z / g(z) * (mp.polyval([mp.mpf(v) for v in fixed[::-1]], z) - (g(z) - 1) / z))
              for z in grid)
    print(name, "f32 coefficients", ncoef, "err 2^%.2f" % float(mp.log(err, 2)))
    for v in fixed:
        print("    %r," % v)

if __name__ == "__main__":
    what, ncoef = sys.argv[1], int(sys.argv[2])
    g, b = KERNELS[what]
    if sys.argv[3:] == ["f32"]:
        report_f32(what, g, b, ncoef)
    else:
        report(what, lambda z: (g(z) - 1) / z, lambda z: z / g(z), b, ncoef)
