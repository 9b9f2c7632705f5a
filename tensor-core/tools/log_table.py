"""Tables and polynomial for the AVX-512 log kernels in tensor-core/src/vmath/exp_log.rs
(`log_f32`, `log2_f32` on avx512f builds).

    python3 log_table.py [ncoef]     # default 4: log1p(r) = r + r^2 (A0 + A1 r + ... )

Reduction (in f64 lanes, on the bits of the widened f32 x): x = 2^k z with z in
[OFF, 2 OFF), OFF = 0.69921875 (f32 bits 0x3f330000), and i = the top 4 bits of z's
mantissa counted from OFF, so subinterval i holds the z whose f32 bits are in
[0x3f330000 + i 2^19, 0x3f330000 + (i + 1) 2^19) (exponents wrap: from z = 1 on, the
bits step in units twice as wide). For each i, c = the midpoint of the subinterval,
INVC[i] = RN(1/c) and LOGC[i] = RN(-ln INVC[i]) (so ln z = LOGC + ln(z INVC) exactly,
whatever INVC's rounding), and the same in base 2. The subinterval that holds 1 gets
INVC = 1 and LOGC = 0: there r = z - 1 exactly and ln x = log1p(r) keeps its full
relative accuracy however close x is to 1 (with c != 1, LOGC + log1p(r) would cancel).

r = z INVC - 1 (one FMA) is within R of 0 (printed). The polynomial minimises the
relative error of r + r^2 P(r) against log1p(r) on [-R, R] (Remez, mpmath, 60 digits,
`remez_trig.remez_around_zero`); the error is re-measured on a dense grid with the
coefficients rounded to f64.
"""
import struct
import sys

import mpmath as mp

from remez_trig import remez_around_zero

mp.mp.dps = 60

OFF = 0x3F330000
N = 16


def f32_of_bits(b):
    return mp.mpf(struct.unpack("<f", struct.pack("<I", b))[0])


def f64(v):
    return float(v)


def tables():
    invc, logc, log2c, rmax = [], [], [], mp.mpf(0)
    for i in range(N):
        lo = f32_of_bits(OFF + (i << 19))
        hi = f32_of_bits(OFF + ((i + 1) << 19))
        if lo <= 1 < hi:
            ic = mp.mpf(1)
        else:
            ic = mp.mpf(f64(1 / ((lo + hi) / 2)))
        invc.append(f64(ic))
        logc.append(f64(-mp.log(ic)))
        log2c.append(f64(-mp.log(ic, 2)))
        # z runs over [lo, hi): r = z * ic - 1 at both ends (hi excluded, bound kept)
        rmax = max(rmax, abs(lo * ic - 1), abs(hi * ic - 1))
    return invc, logc, log2c, rmax


def main():
    ncoef = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    invc, logc, log2c, rmax = tables()
    R = rmax * (1 + mp.mpf(2) ** -20)
    print("R = %.6f" % float(R))
    for name, t in (("LOG_INVC", invc), ("LOG_LNC", logc), ("LOG_LOG2C", log2c)):
        print("const %s: [f64; 16] = [" % name)
        for v in t:
            print("    %r," % v)
        print("];")
    f = lambda r: (mp.log1p(r) - r) / r**2
    w = lambda r: r**2 / abs(mp.log1p(r))
    c, mx, e = remez_around_zero(f, w, R, ncoef)
    print("ln: %d coefficients, relative error 2^%.2f (f64 coefficients 2^%.2f)"
          % (ncoef, float(mp.log(mx, 2)), float(mp.log(e, 2))))
    for v in c:
        print("    %r," % f64(v))
    print("log2 (the same divided by ln 2, rounded to f64):")
    for v in c:
        print("    %r," % f64(v / mp.log(2)))


if __name__ == "__main__":
    main()
