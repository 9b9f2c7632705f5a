"""Polynomial for `exp_poly_small` in tensor-core/src/vmath/exp_log.rs (e^r in f64 lanes for the
f32 exp, exp2, sigmoid and silu, where the 2^-41 of a degree-10 Taylor polynomial is more
than an f32 result needs).

    python3 exp_fit.py [ncoef]     # default 7: e^r = 1 + r (Q0 + Q1 r + ... )

e^r = 1 + r·Q(r) on |r| <= ln2/2 + 2^-20 (the reduction r = x - k·ln2 is within 2^-44 of
that interval), Q minimising the relative error of 1 + r·Q against e^r (Remez, mpmath,
60 digits, `remez_trig.remez_around_zero`); the error is re-measured on a dense grid
with the coefficients rounded to f64. The constant term is exactly 1, so e^0 = 1.
7 coefficients: 2^-34.3 (an f32 result within 0.5 + 2^-10 ulp); 6 give 2^-27.9.
"""
import sys

import mpmath as mp

from remez_trig import remez_around_zero

mp.mp.dps = 60


def main():
    ncoef = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    R = mp.log(2) / 2 + mp.mpf(2) ** -20
    f = lambda r: mp.expm1(r) / r
    w = lambda r: abs(r) / mp.exp(r)
    c, mx, e = remez_around_zero(f, w, R, ncoef)
    print("exp: %d coefficients of Q, relative error 2^%.2f (f64 coefficients 2^%.2f)"
          % (ncoef, float(mp.log(mx, 2)), float(mp.log(e, 2))))
    for v in c:
        print("    %r," % float(v))


if __name__ == "__main__":
    main()
