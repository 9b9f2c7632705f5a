"""Polynomials with f32 coefficients for the f32-lane kernels in
tensor-core/src/vmath/f32_kernels.rs (exp, tanh, erf, gelu).

    python3 f32_fits.py tanh        # tanh(x)/x = 1 + z·Q(z), z = x² <= 0.625²
    python3 f32_fits.py erf_small   # erf(x)/x = S(z), z = x² <= 1, S(0) = 2/√π as hi + lo
    python3 f32_fits.py erf_large   # erfcx(x) = e^(x²)·erfc(x) ~ H(x - 2.5) on [1, 3.93]
    python3 f32_fits.py gelu_lo     # erfcx(a/√2) ~ G(a - 1) on [0, 2], G(1) as hi + lo
    python3 f32_fits.py gelu_hi     # erfcx(a/√2) ~ G(a - 3.75) on [2, 5.5], G(3.75) as hi + lo
    python3 f32_fits.py gelu_tail   # a·erfcx(a/√2) ~ H(a - 10) on [5.5, 14.375], H(10) as hi + lo
    python3 f32_fits.py exp         # the error of EXP_P (e^r = 1 + r + r²·P(r))

Each fit minimises the maximum relative error, and rounds the coefficients to f32 one
at a time from the constant term up, refitting the later ones after each rounding
(Lawson's iteratively reweighted least squares on 120 Chebyshev nodes, mpmath at 30
digits), so the rounding of one coefficient is absorbed by the others. The error printed
is re-measured on a 4001-point grid with the f32 coefficients.
EXP_P are SLEEF's `expf` coefficients (Boost licence); `exp` only measures them.
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 30


def f32(v):
    """v rounded to the nearest f32 (as an mpf)."""
    return mp.mpf(struct.unpack("f", struct.pack("f", float(v)))[0])


def seqfit(f, a, b, n, x0, lead=()):
    """f(x) ~ sum_{i<n} c_i (x - x0)^i on [a, b], relative error, f32 coefficients rounded
    one at a time; `lead` fixes the first ones exactly (the kernel carries them as f32
    hi + lo pairs)."""
    N = 120
    xs = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * (i + mp.mpf(1) / 2) / N) for i in range(N)]
    ts = [x - x0 for x in xs]
    fs = [f(x) for x in xs]
    fixed = [mp.mpf(c) for c in lead]
    for k in range(len(lead), n):
        m = n - k
        w = [mp.mpf(1)] * N
        for _ in range(30):
            A = mp.matrix(N, m)
            r = mp.matrix(N, 1)
            for i in range(N):
                known = sum(c * ts[i] ** j for j, c in enumerate(fixed))
                sc = mp.sqrt(w[i]) / fs[i]
                for j in range(m):
                    A[i, j] = ts[i] ** (k + j) * sc
                r[i] = (fs[i] - known) * sc
            sol, _ = mp.qr_solve(A, r)
            errs = []
            for i in range(N):
                p = sum(c * ts[i] ** j for j, c in enumerate(fixed))
                p += sum(sol[j] * ts[i] ** (k + j) for j in range(m))
                errs.append(abs(p / fs[i] - 1))
            tot = sum(w[i] * errs[i] for i in range(N))
            w = [w[i] * errs[i] / tot for i in range(N)]
        fixed.append(f32(sol[0]))
    return fixed, measure(f, fixed, a, b, x0)


def measure(f, cs, a, b, x0):
    grid = [a + (b - a) * mp.mpf(i) / 4000 for i in range(4001)]
    return max(abs((mp.polyval(cs[::-1], x - x0) - f(x)) / f(x)) for x in grid)


def show(name, cs, e):
    print("%s: %d f32 coefficients, relative error 2^%.2f" % (name, len(cs), float(mp.log(e, 2))))
    for c in cs:
        hi = f32(c)
        print("    %r,%s" % (float(hi), "  # + %r" % float(c - hi) if c != hi else ""))


GELU_G = lambda a: mp.erfc(a / mp.sqrt(2)) * mp.exp(a * a / 2)
GELU_G_TIMES_A = lambda a: a * GELU_G(a)
ERFCX = lambda x: mp.erfc(x) * mp.exp(x * x)
FITS = {
    "tanh": (lambda z: mp.tanh(mp.sqrt(z)) / mp.sqrt(z), mp.mpf("1e-8"), mp.mpf(0.625) ** 2, 6, 0),
    # S(0) = 2/√π exactly: its f32 rounding alone is 2^-24.2 relative at x -> 0.
    "erf_small": (lambda z: mp.erf(mp.sqrt(z)) / mp.sqrt(z), mp.mpf("1e-8"), mp.mpf(1), 9, 0,
                  (2 / mp.sqrt(mp.pi),)),
    "erf_large": (ERFCX, mp.mpf(1), mp.mpf("3.93"), 10, mp.mpf("2.5")),
    # G(x0) exactly as the constant term (the kernel carries it as hi + lo): a rounded
    # constant term cannot be absorbed at t = 0 and left 2^-24.9.
    "gelu_lo": (GELU_G, mp.mpf(0), mp.mpf(2), 12, mp.mpf(1), (GELU_G(mp.mpf(1)),)),
    "gelu_hi": (GELU_G, mp.mpf(2), mp.mpf("5.5"), 12, mp.mpf("3.75"), (GELU_G(mp.mpf("3.75")),)),
    # gelu's third interval, x < -5.5, as a·G(a) (x·G(a)/a = -1 there: no division and no
    # product by x; a·G(a) only moves from 0.774 to 0.794). 14.375: gelu(x) rounds to -0
    # below x = -14.356068.
    "gelu_tail": (GELU_G_TIMES_A, mp.mpf("5.5"), mp.mpf("14.375"), 12, mp.mpf(10),
                  (GELU_G_TIMES_A(mp.mpf(10)),)),
}
EXP_P = [0.5, 0.166666671633720397949219, 0.0416664853692054748535156,
         0.00833336077630519866943359, 0.00139304355252534151077271,
         0.000198527617612853646278381]


def main():
    what = sys.argv[1]
    if what == "exp":
        R = mp.log(2) / 2 + mp.mpf(2) ** -12
        grid = [-R + 2 * R * mp.mpf(i) / 20000 for i in range(20001)]
        e = max(abs((1 + r + r * r * mp.polyval([mp.mpf(c) for c in EXP_P[::-1]], r)) / mp.exp(r) - 1)
                for r in grid)
        print("exp: 1 + r + r²·P(r) against e^r on |r| <= ln2/2 + 2^-12: 2^%.2f" % float(mp.log(e, 2)))
        return
    f, a, b, n, x0, *lead = FITS[what]
    cs, e = seqfit(f, a, b, n, x0, *lead)
    show(what, cs, e)


if __name__ == "__main__":
    main()
