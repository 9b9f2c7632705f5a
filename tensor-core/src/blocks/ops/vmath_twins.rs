//! The dispatched f32 kernels (`vmath::block::*`: exp, exp_nonpos, tanh, sigmoid, erf,
//! gelu) as block ops of the debug backend, fast at opt-level 0 (issue 33 item 1; NOTES.md
//! "Debug backend, transcendentals at opt-level 0").
//!
//! A user's dev profile compiles this crate unoptimised: nothing is inlined but
//! `#[inline(always)]` functions, so the block kernels' vector code (core::arch intrinsics,
//! `wide` methods) costs a call per operation per vector: 9-13x std's precompiled
//! `expf`/`tanhf` in W2. Where this crate is built at opt-level 0 (`cfg(tensorgraph_opt0)`)
//! and the process's block kernels run their AVX2 + FMA or AVX-512 path
//! (`vmath::blocks_run_avx2_fma()`), each op runs instead:
//! - `exp`, `exp_nonpos`, `tanh` and gelu's common part: assembly block kernels
//!   (vmath_asm.rs), the block kernel's AVX2 + FMA instructions written out;
//! - `sigmoid`, `erf` and gelu's tail below -5.5: scalar twins (below): the kernel written
//!   for one f32 lane with plain operators and `#[inline(always)]` helpers, run as an
//!   element loop (`elementwise!`: groups of 8, no call per element). At opt-level 0 a
//!   twin still costs ~200 instructions of stack traffic per element (2.5-3x std's
//!   functions), which is why the hot ones are assembly.
//!
//! Elsewhere (an optimised build of this crate, a CPU without FMA, `TENSORGRAPH_SIMD=
//! baseline`, AVX2 builds, other architectures, Miri) the ops call the block kernels, as
//! before.
//!
//! Bit-identity with the block kernels (which the release kernels of default builds call),
//! by construction: a twin performs, lane by lane, the operations of its portable kernel
//! (vmath/f32_kernels.rs) in the same order with the same constants, each `mul_add` one
//! fused multiply-add (`fma` below). That is what the block kernels compute on the AVX2 +
//! FMA and AVX-512 paths (dispatch.rs: every path gives the per-vector AVX2 + FMA entry
//! points' bits; AVX-512's `vrndscaleps`/`vscalefps` give the portable forms' values).
//! Lane-wise rules of the vector operations, written out here: `maxps`/`minps` return their
//! second operand unless the first is strictly greater (smaller), so also where either is
//! NaN (`max_or_second`); a select on a compare is a branch on it; the kernels' "every lane
//! on one side" shortcuts give each lane the select's value. Checked bit for bit against
//! the block kernels by `tests::twins_match_the_block_kernels` (edge values, NaN payloads,
//! and a dense sweep of each kernel's ranges).

use super::*;
use crate::vmath;

/// The block op of `vmath::block::$kernel`: its twin where this crate is compiled at
/// opt-level 0 (`cfg(tensorgraph_opt0)`, build.rs) and this process's block kernels fuse
/// their multiply-adds (see the module doc), else the block kernel itself (optimised, the
/// block kernel's AVX code is far faster than a scalar twin; measured in BENCHMARKS.md
/// "Debug backend, transcendentals at opt-level 0"). `twin::$kernel` is the twin's
/// element loop.
macro_rules! twin_or_block {
    ($($(#[$doc:meta])* $op:ident = $kernel:ident => $twin:ident;)*) => {
        $(
            $(#[$doc])*
            pub(super) fn $op(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
                if cfg!(tensorgraph_opt0) && vmath::blocks_run_avx2_fma() {
                    // SAFETY: `blocks_run_avx2_fma()` (level 2 or 3) found FMA on the CPU.
                    unsafe { twin::$op(regs, out, args, n) }
                } else {
                    block_kernel(regs, out, args, vmath::block::$kernel)
                }
            }
        )*
        /// The twins' element loops.
        pub(super) mod twin {
            use super::*;
            $(
                #[doc = concat!("`", stringify!($twin), "` element by element.")]
                ///
                /// # Safety
                /// The CPU must support FMA.
                pub(in super::super) unsafe fn $op(
                    regs: &mut [Reg],
                    out: usize,
                    args: [u16; 3],
                    n: usize,
                ) {
                    // SAFETY (`$twin`'s contract): FMA, this function's contract.
                    elementwise!(regs, out, args, n, f32 => f32, |x| unsafe { super::$twin(x) })
                }
            )*
        }
    };
}

/// The block op of `vmath::block::$kernel`: at opt-level 0 on a CPU with AVX2 and FMA the
/// assembly kernel `vmath_asm::$asm` (the same bits), else the block kernel.
macro_rules! asm_or_block {
    ($($(#[$doc:meta])* $kernel:ident => $asm:ident;)*) => {$(
        $(#[$doc])*
        pub(super) fn $kernel(regs: &mut [Reg], out: usize, args: [u16; 3], _n: usize) {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            if cfg!(tensorgraph_opt0) && vmath::blocks_run_avx2_fma() {
                // SAFETY: `blocks_run_avx2_fma()` found AVX2 and FMA on the CPU.
                return block_kernel(regs, out, args, |b| unsafe { super::vmath_asm::$asm(b) });
            }
            block_kernel(regs, out, args, vmath::block::$kernel)
        }
    )*};
}

asm_or_block! {
    /// `exp` over a block.
    exp_f32 => exp;
    /// Softmax's `exp(x - max)` over a block.
    exp_nonpos_f32 => exp_nonpos;
    /// `tanh` over a block.
    tanh_f32 => tanh;
}

twin_or_block! {
    /// `sigmoid` over a block: the twin of `vmath::block::sigmoid_f32`.
    sigmoid_f32 = sigmoid_f32 => sigmoid;
    /// `erf` over a block: the twin of `vmath::block::erf_f32`.
    erf_f32 = erf_f32 => erf;
    /// The exact `gelu` over a block: the twin of `vmath::block::gelu_f32` (where the
    /// assembly kernel does not apply, see `gelu_f32`).
    twin_or_block_gelu_f32 = gelu_f32 => gelu;
}

/// The exact `gelu` over a block: at opt-level 0 on a CPU with AVX2 and FMA, in builds
/// without the `fma` target feature (the assembly has `square_exact`'s Dekker split), the
/// assembly `gelu_fast` over the block, then the scalar twin of `gelu_tail` for the
/// elements below -5.5 (the kernel's per-lane select; rare in activations); else
/// `twin_or_block_gelu_f32`.
pub(super) fn gelu_f32(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri), not(target_feature = "fma")))]
    if cfg!(tensorgraph_opt0) && vmath::blocks_run_avx2_fma() {
        // SAFETY: `blocks_run_avx2_fma()` found AVX2 and FMA on the CPU.
        unsafe { gelu_asm(regs, out, args, n) };
        return;
    }
    twin_or_block_gelu_f32(regs, out, args, n)
}

/// `vmath_asm::gelu_fast` over the block, then `gelu_tail` where x < -5.5.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(all(target_arch = "x86_64", not(miri), not(target_feature = "fma")))]
unsafe fn gelu_asm(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
    let (before, dst) = split(regs, out);
    let x = arg::<f32>(before, args[0]);
    let dst = f32::get_mut(dst);
    dst.copy_from_slice(x);
    // SAFETY: AVX2 and FMA, this function's contract.
    unsafe { super::vmath_asm::gelu_fast(dst) };
    let mut i = 0;
    while i < n {
        if x[i] < -5.5 {
            // SAFETY: FMA, this function's contract.
            dst[i] = unsafe { gelu_tail(x[i]) };
        }
        i += 1;
    }
}

// ---------------------------------------------------------------------------------------
// One-lane forms of the `F32Simd` operations (vmath/f32_kernels.rs). All
// `#[inline(always)]`: at opt-level 0 anything else is a call.
// ---------------------------------------------------------------------------------------

/// `a·b + c` rounded once: `vfmadd213ss`, the scalar form of the `vfmadd…ps` the vector
/// kernels run (IEEE fused multiply-add: one result, bit for bit, for every input but the
/// payload of a NaN, which both take from the first NaN operand in the same order).
/// `f32::mul_add` would give the same value, but at opt-level 0 it is two calls (std's
/// wrapper, then libm's `fmaf`), one per multiply-add of a twin.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn fma(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let r: f32;
        // SAFETY: the caller guarantees FMA; registers only (`nomem`, `nostack`).
        // `vfmadd213ss x, y, z` sets x = y·x + z, so x = a, y = b: a·b + c.
        unsafe {
            core::arch::asm!(
                "vfmadd213ss {a}, {b}, {c}",
                a = inout(xmm_reg) a => r,
                b = in(xmm_reg) b,
                c = in(xmm_reg) c,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        r
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    a.mul_add(b, c)
}

/// `maxps(x, o)` on one lane: `x` if it is greater, else `o` (also where either is NaN).
#[inline(always)]
fn max_or_second(x: f32, o: f32) -> f32 {
    if x > o {
        x
    } else {
        o
    }
}

/// `minps(x, o)` on one lane: `x` if it is smaller, else `o` (also where either is NaN).
#[inline(always)]
fn min_or_second(x: f32, o: f32) -> f32 {
    if x < o {
        x
    } else {
        o
    }
}

/// The bits of `x`. `f32::to_bits` (like `abs` and `mul_add`) is a call at opt-level 0
/// (read in `rustc -C opt-level=0 --emit asm`), a transmute is a register move.
#[inline(always)]
#[allow(unnecessary_transmutes)]
fn bits(x: f32) -> u32 {
    // SAFETY: f32 and u32 have the same size, and every bit pattern is a valid u32.
    unsafe { core::mem::transmute::<f32, u32>(x) }
}

/// The f32 of bits `b` (`f32::from_bits` is a call at opt-level 0, see `bits`).
#[inline(always)]
#[allow(unnecessary_transmutes)]
fn from_bits(b: u32) -> f32 {
    // SAFETY: f32 and u32 have the same size, and every bit pattern is a valid f32.
    unsafe { core::mem::transmute::<u32, f32>(b) }
}

/// |x|: the sign bit cleared (`andnps` with -0).
#[inline(always)]
fn abs(x: f32) -> f32 {
    from_bits(bits(x) & 0x7fff_ffff)
}

/// `with_sign_of`: m (sign bit clear) with the sign bit of `sign` ORed in.
#[inline(always)]
fn with_sign_of(m: f32, sign: f32) -> f32 {
    from_bits(bits(m) | (bits(sign) & 0x8000_0000))
}

/// `round_small`: rint(v) for |v| < 2^22, by adding and taking away 1.5·2^23.
#[inline(always)]
fn round_small(v: f32) -> f32 {
    (v + MAGIC_F) - MAGIC_F
}

/// `pow2`: 2^k for integer-valued k in [-126, 127], k + 127 in the exponent field
/// (`shl23` of k + 1.5·2^23 + 127: the shift drops the magic part).
#[inline(always)]
fn pow2(kf: f32) -> f32 {
    from_bits(bits(kf + (MAGIC_F + 127.0)) << 23)
}

/// `mul_pow2`: y·2^k in two products by normal powers of two, the first exact.
#[inline(always)]
fn mul_pow2(y: f32, kf: f32) -> f32 {
    let k1 = round_small(kf * 0.5);
    y * pow2(k1) * pow2(kf - k1)
}

/// `recip_approx`: 1/x to about 12 bits, `rcpss`, the scalar form of the `rcpps` the
/// vector kernels run (on AVX-512 too: `recip_approx` is `rcpps` on each 8-lane half).
/// The approximation is the CPU's table, the same for both forms on one CPU (checked on
/// sigmoid's sweep by the tests).
#[inline(always)]
fn recip_approx(x: f32) -> f32 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let r: f32;
        // SAFETY: `rcpss` is SSE, part of every x86-64 CPU; registers only.
        unsafe {
            core::arch::asm!(
                "rcpss {r}, {x}",
                r = out(xmm_reg) r,
                x = in(xmm_reg) x,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        r
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        1.0 / x
    }
}

// The kernels' constants, shared with vmath so that a change there changes the twins.
use crate::vmath::f32_kernels::{
    ERF_ONE, ERF_S, ERF_S0_HI, EXP_P, GELU_G0_LO, GELU_G_HI, GELU_G_LO, GELU_H, GELU_H0_LO,
    GELU_TAIL_END, LN2_HI_F, LN2_LO_F, LOG2E_F, MAGIC_F,
};

/// `estrin(t, c)` for 6 coefficients, in its order: the pairs c1·t + c0, c3·t + c2,
/// c5·t + c4, then (c3·t + c2)·t² + (c1·t + c0), then (c5·t + c4)·t⁴ + that.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn estrin6(t: f32, c: &[f32; 6]) -> f32 {
    // SAFETY: FMA, this function's contract.
    unsafe {
        let v0 = fma(c[1], t, c[0]);
        let v1 = fma(c[3], t, c[2]);
        let v2 = fma(c[5], t, c[4]);
        let p = t * t;
        let v0 = fma(v1, p, v0);
        fma(v2, p * p, v0)
    }
}

/// `estrin(t, c)` for 5 coefficients: c1·t + c0, c3·t + c2, then (c3·t + c2)·t² +
/// (c1·t + c0), then c4·t⁴ + that.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn estrin5(t: f32, c: &[f32; 5]) -> f32 {
    // SAFETY: FMA, this function's contract.
    unsafe {
        let v0 = fma(c[1], t, c[0]);
        let v1 = fma(c[3], t, c[2]);
        let p = t * t;
        let v0 = fma(v1, p, v0);
        fma(c[4], p * p, v0)
    }
}

/// `estrin(t, c)` for 9 coefficients: the pairs c(2i+1)·t + c(2i) (i < 4) and c8, then
/// three levels in t², t⁴, t⁸, each combining neighbours from the left.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn estrin9(t: f32, c: &[f32; 9]) -> f32 {
    // SAFETY: FMA, this function's contract.
    unsafe {
        let v0 = fma(c[1], t, c[0]);
        let v1 = fma(c[3], t, c[2]);
        let v2 = fma(c[5], t, c[4]);
        let v3 = fma(c[7], t, c[6]);
        let p = t * t;
        let w0 = fma(v1, p, v0);
        let w1 = fma(v3, p, v2);
        let p = p * p;
        let w0 = fma(w1, p, w0);
        fma(c[8], p * p, w0)
    }
}

/// `estrin(t, c)` for 11 coefficients: the pairs c(2i+1)·t + c(2i) (i < 5) and c10, then
/// levels in t² (three sums), t⁴ (one, the third carried), t⁸.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn estrin11(t: f32, c: &[f32; 11]) -> f32 {
    // SAFETY: FMA, this function's contract.
    unsafe {
        let v0 = fma(c[1], t, c[0]);
        let v1 = fma(c[3], t, c[2]);
        let v2 = fma(c[5], t, c[4]);
        let v3 = fma(c[7], t, c[6]);
        let v4 = fma(c[9], t, c[8]);
        let p = t * t;
        let w0 = fma(v1, p, v0);
        let w1 = fma(v3, p, v2);
        let w2 = fma(c[10], p, v4);
        let p = p * p;
        let x0 = fma(w1, p, w0);
        fma(w2, p * p, x0)
    }
}

// ---------------------------------------------------------------------------------------
// The kernels (vmath/f32_kernels.rs: `exp`, `exp_nonpos_poly`, `tanh`, `sigmoid`, `erf`,
// `gelu` with `gelu_fast` and `gelu_tail`), one lane.
// ---------------------------------------------------------------------------------------

/// `reduce_ln2`: (r, r_lo, k) with x = k·ln2 + r + r_lo.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn reduce_ln2(x: f32) -> (f32, f32, f32) {
    let kf = round_small(x * LOG2E_F);
    // SAFETY: FMA, this function's contract.
    unsafe {
        let r1 = fma(kf, -LN2_HI_F, x);
        let r = fma(kf, -LN2_LO_F, r1);
        (r, fma(kf, -LN2_LO_F, r1 - r), kf)
    }
}

/// `exp_poly_unrounded`: e^(r + r_lo) ~ hi + lo.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn exp_poly_unrounded(r: f32, r_lo: f32) -> (f32, f32) {
    let sum = 1.0 + r;
    let sum_lo = r - (sum - 1.0);
    // SAFETY: FMA, this function's contract.
    let small = unsafe { fma(r * r, estrin6(r, &EXP_P), fma(r_lo, r, r_lo)) };
    (sum, sum_lo + small)
}

/// `exp_reduced`: (e^r rounded, k) with x = k·ln2 + r + r_lo (`reduce_ln2`, then
/// `exp_poly`).
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn exp_reduced(x: f32) -> (f32, f32) {
    // SAFETY: FMA, this function's contract.
    unsafe {
        let (r, r_lo, kf) = reduce_ln2(x);
        let (hi, lo) = exp_poly_unrounded(r, r_lo);
        (hi + lo, kf)
    }
}

/// `exp`: x clamped to [-104, 89], NaN passed through.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn exp(x: f32) -> f32 {
    let xc = min_or_second(max_or_second(x, -104.0), 89.0);
    // SAFETY: FMA, this function's contract.
    let (e, kf) = unsafe { exp_reduced(xc) };
    #[allow(clippy::eq_op)]
    if x != x {
        x
    } else {
        mul_pow2(e, kf)
    }
}

/// `sigmoid` (FMA form): t = e^-|x|, then num/(1 + t) with 1 + t summed exactly and the
/// quotient corrected once by its residual, scaled by `rcpps`'s reciprocal.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn sigmoid(x: f32) -> f32 {
    // SAFETY: FMA, this function's contract.
    unsafe {
        let t = exp(-abs(x));
        let num = if x < 0.0 { t } else { 1.0 };
        let d = 1.0 + t;
        let d_lo = t - (d - 1.0);
        let q0 = num / d;
        let residual = fma(-q0, d, num) - q0 * d_lo;
        let q = fma(residual, recip_approx(d), q0);
        #[allow(clippy::eq_op)]
        if x != x {
            x
        } else {
            q
        }
    }
}

/// `erf` (FMA form): x·S(x²) below |x| = 1 (NaN too), 1 - e^(-x²)·G(√2·|x|) from 1 on
/// (|x| clamped at 3.88), 1 from ERF_ONE on, with x's sign.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn erf(x: f32) -> f32 {
    let a = abs(x);
    // SAFETY: FMA, this function's contract.
    unsafe {
        if a >= 1.0 {
            let ac = min_or_second(a, 3.88);
            let large = if a >= ERF_ONE {
                1.0
            } else {
                let g = gelu_g(ac * core::f32::consts::SQRT_2);
                let (e, kf) = exp_reduced(-(ac * ac));
                1.0 - (e * pow2(kf)) * g
            };
            with_sign_of(large, x)
        } else {
            let z = x * x;
            with_sign_of(fma(x, ERF_S0_HI, x * estrin9(z, &ERF_S)), x)
        }
    }
}

/// `gelu_g_parts`: G(a) = erfcx(a/√2) on [0, 5.5] as hi + lo, with the coefficients of
/// a's interval ([0, 2): GELU_G_LO around 1, else GELU_G_HI around 3.75; NaN: the second).
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn gelu_g_parts(a: f32) -> (f32, f32) {
    let lo = a < 2.0;
    let (c, c0_lo, centre) = if lo {
        (&GELU_G_LO, GELU_G0_LO.0, 1.0)
    } else {
        (&GELU_G_HI, GELU_G0_LO.1, 3.75)
    };
    let t = a - centre;
    let t2 = t * t;
    // SAFETY: FMA, this function's contract.
    unsafe {
        let p0 = fma(c[2], t, c[1]);
        let pairs = [
            fma(c[4], t, c[3]),
            fma(c[6], t, c[5]),
            fma(c[8], t, c[7]),
            fma(c[10], t, c[9]),
            c[11],
        ];
        let g = fma(estrin5(t2, &pairs), t2, p0);
        let c0 = c[0];
        let w = t * g;
        let w_lo = fma(t, g, -w);
        let hi = c0 + w;
        (hi, (w - (hi - c0)) + (w_lo + c0_lo))
    }
}

/// `gelu_g`: G(a), rounded.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn gelu_g(a: f32) -> f32 {
    // SAFETY: FMA, this function's contract.
    let (hi, lo) = unsafe { gelu_g_parts(a) };
    hi + lo
}

/// `square_exact`: a² = h + l, l by FMA where the build has the `fma` target feature, else
/// by Dekker's split, as the kernel chooses it (at compile time: the block kernels of a
/// default build use the split on every path, their AVX2 + FMA copies too).
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn square_exact(a: f32) -> (f32, f32) {
    let h = a * a;
    #[cfg(target_feature = "fma")]
    // SAFETY: FMA, this function's contract.
    let l = unsafe { fma(a, a, -h) };
    #[cfg(not(target_feature = "fma"))]
    let l = {
        let c = a * 4097.0;
        let ah = c - (c - a);
        let al = a - ah;
        ((ah * ah - h) + (ah * al + ah * al)) + al * al
    };
    (h, l)
}

/// `gelu_fast`: x·Φ(x) for x >= -5.5 (and NaN): x - x·Φ(-a) or x·Φ(-a), x from 5.5 on.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn gelu_fast(x: f32) -> f32 {
    let a = min_or_second(abs(x), 5.5);
    // SAFETY: FMA, this function's contract.
    unsafe {
        let (h, l) = square_exact(a);
        let (r, r_lo, kf) = reduce_ln2(h * -0.5);
        let (e, e_lo) = exp_poly_unrounded(r, fma(l, -0.5, r_lo));
        let two_k = pow2(kf);
        let (e, e_lo) = (e * two_k, e_lo * two_k);
        let (g, g_lo) = gelu_g_parts(a);
        let hx = x * 0.5;
        let u = hx * e;
        let u_lo = fma(hx, e, -u) + hx * e_lo;
        let xphi = fma(u, g, fma(u, g_lo, u_lo * g));
        let res = with_sign_of(if x < 0.0 { xphi } else { x - xphi }, x);
        if x >= 5.5 {
            x
        } else {
            res
        }
    }
}

/// `gelu_tail`: x·Φ(x) for x < -5.5: -½·e^(-a²/2)·H(a), a = min(|x|, 14.375), scaled by
/// 2^k last.
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn gelu_tail(x: f32) -> f32 {
    let a = min_or_second(abs(x), GELU_TAIL_END);
    let t = a - 10.0;
    let h_rest: &[f32; 11] = GELU_H[1..].try_into().expect("GELU_H has 12 coefficients");
    // SAFETY: FMA, this function's contract.
    unsafe {
        let w = t * estrin11(t, h_rest);
        let c0 = GELU_H[0];
        let hh = c0 + w;
        let hh_lo = (w - (hh - c0)) + GELU_H0_LO;
        let (h, l) = square_exact(a);
        let (r, r_lo, kf) = reduce_ln2(h * -0.5);
        let lo = fma(l, -0.5, r_lo);
        let r2 = r + lo;
        let rb = r2 - r;
        let r2_lo = (r - (r2 - rb)) + (lo - rb);
        let (e, e_lo) = exp_poly_unrounded(r2, r2_lo);
        let (u, u_lo) = (e * -0.5, e_lo * -0.5);
        let y = fma(u, hh, fma(u, hh_lo, u_lo * hh));
        mul_pow2(y, kf)
    }
}

/// The exact `gelu`: `gelu_tail` below -5.5, else `gelu_fast` (NaN too).
///
/// # Safety
/// The CPU must support FMA.
#[inline(always)]
unsafe fn gelu(x: f32) -> f32 {
    // SAFETY: FMA, this function's contract.
    unsafe {
        if x < -5.5 {
            gelu_tail(x)
        } else {
            gelu_fast(x)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values every twin must meet: NaNs (quiet and signalling, both signs, payloads),
    /// ±inf, ±0, subnormals, extremes, and each kernel's clamps and branch points with
    /// their neighbours.
    fn edges() -> Vec<f32> {
        let mut v = vec![
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7fc0_1234),
            f32::from_bits(0xffa0_0001), // signalling, negative
            f32::from_bits(0x7f80_0001), // signalling
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            1e-45,
            -1e-45,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            1.0,
            -1.0,
        ];
        for c in [
            -104.0f32,
            89.0,
            88.72284,
            -87.33655,
            -103.97208,
            0.625,
            9.5,
            9.0,
            1e-4,
            2.0f32.powi(-12),
            0.5 * core::f32::consts::LN_2,
            4e6,
            8.5e6,
            -150.0,
            200.0,
            1.0,
            2.0,
            3.88,
            3.919_206,
            5.5,
            14.375,
            14.356068,
            13.146378,
            2.0f32.sqrt(),
        ] {
            for base in [c, -c] {
                let b = base.to_bits();
                for d in 0..4u32 {
                    v.push(f32::from_bits(b.wrapping_add(d)));
                    v.push(f32::from_bits(b.wrapping_sub(d)));
                }
            }
        }
        v
    }

    /// A dense sweep: `count` values evenly spaced over [lo, hi], and every 2^13th (Miri: 2^26th) bit
    /// pattern of the whole f32 range (all exponents, both signs, NaNs).
    fn sweep(lo: f32, hi: f32, count: usize) -> Vec<f32> {
        let mut v: Vec<f32> = (0..count)
            .map(|i| lo + (hi - lo) * (i as f32 / (count - 1) as f32))
            .collect();
        let step = if cfg!(miri) { 1 << 26 } else { 1 << 13 };
        v.extend((0..(1u64 << 32) / step).map(|i| f32::from_bits((i * step) as u32 ^ 0x155)));
        v
    }

    /// A twin's element loop, called only where the CPU has FMA (the test returns before
    /// calling any elsewhere).
    type TwinLoop = unsafe fn(&mut [Reg], usize, [u16; 3], usize);

    /// `twin` (the element loop) against `kernel` (the block kernel, what the fused kernels
    /// of default builds call) on `inputs`, block by block, every bit (NaN payloads too);
    /// the register is filled to the block's end, so the last partial group is compared.
    fn agree(twin: TwinLoop, kernel: fn(&mut [f32; BLOCK]), inputs: &[f32], name: &str) {
        assert!(vmath::blocks_run_avx2_fma());
        for block in inputs.chunks(BLOCK) {
            let mut x = [0.5f32; BLOCK];
            x[..block.len()].copy_from_slice(block);
            let mut regs = vec![Reg::F32(x), Reg::F32([0.0; BLOCK])];
            // SAFETY: the assertion above: the CPU has FMA.
            unsafe { twin(&mut regs, 1, [0, 0, 0], BLOCK) };
            let mut want = x;
            kernel(&mut want);
            let got = arg::<f32>(&regs, 1);
            for i in 0..BLOCK {
                assert_eq!(
                    got[i].to_bits(),
                    want[i].to_bits(),
                    "{name}({:e} = {:#010x}): twin {:e}, kernel {:e}",
                    x[i],
                    x[i].to_bits(),
                    got[i],
                    want[i]
                );
            }
        }
    }

    /// `ours` (an assembly block kernel) against `kernel`, as `agree`.
    fn agree_blocks(
        ours: fn(&mut [f32; BLOCK]),
        kernel: fn(&mut [f32; BLOCK]),
        inputs: &[f32],
        name: &str,
    ) {
        assert!(vmath::blocks_run_avx2_fma());
        for block in inputs.chunks(BLOCK) {
            let mut x = [0.5f32; BLOCK];
            x[..block.len()].copy_from_slice(block);
            let (mut got, mut want) = (x, x);
            ours(&mut got);
            kernel(&mut want);
            for i in 0..BLOCK {
                assert_eq!(
                    got[i].to_bits(),
                    want[i].to_bits(),
                    "{name}({:e} = {:#010x}): ours {:e}, kernel {:e}",
                    x[i],
                    x[i].to_bits(),
                    got[i],
                    want[i]
                );
            }
        }
    }

    /// Every twin and assembly kernel against its block kernel on the same `inputs`.
    fn all_agree(inputs: &[f32]) {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            use super::super::vmath_asm;
            // SAFETY (each closure): the assertion in `agree_blocks`: AVX2 and FMA.
            agree_blocks(
                |b| unsafe { vmath_asm::exp(b) },
                vmath::block::exp_f32,
                inputs,
                "exp",
            );
            agree_blocks(
                |b| unsafe { vmath_asm::exp_nonpos(b) },
                vmath::block::exp_nonpos_f32,
                inputs,
                "exp_nonpos",
            );
            agree_blocks(
                |b| unsafe { vmath_asm::tanh(b) },
                vmath::block::tanh_f32,
                inputs,
                "tanh",
            );
            #[cfg(not(target_feature = "fma"))]
            // SAFETY: the assertion in `agree`: AVX2 and FMA.
            agree(
                |r, o, a, n| unsafe { gelu_asm(r, o, a, n) },
                vmath::block::gelu_f32,
                inputs,
                "gelu (assembly)",
            );
        }
        agree(
            twin::sigmoid_f32,
            vmath::block::sigmoid_f32,
            inputs,
            "sigmoid",
        );
        agree(twin::erf_f32, vmath::block::erf_f32, inputs, "erf");
        agree(
            twin::twin_or_block_gelu_f32,
            vmath::block::gelu_f32,
            inputs,
            "gelu",
        );
    }

    /// The walk behind ACCURACY.md's debug-backend rows: every f32 input (`TWIN_WALK_STRIDE`
    /// for every k-th bit pattern) through every twin and assembly kernel, bit for bit
    /// against the block kernel, whose ULP walks ACCURACY.md records. Ignored: minutes in
    /// release (`cargo test --release -p tensorgraph-core --lib -- --ignored
    /// twins_match_the_block_kernels_on_every_input`).
    #[test]
    #[ignore = "every f32 input through seven kernels: minutes in release (ACCURACY.md)"]
    fn twins_match_the_block_kernels_on_every_input() {
        if !vmath::blocks_run_avx2_fma() {
            eprintln!("the block kernels do not run the FMA path here: the twins are not used");
            return;
        }
        let stride: u64 = std::env::var("TWIN_WALK_STRIDE")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1);
        let mut chunk = Vec::with_capacity(1 << 20);
        let mut bits = 0u64;
        while bits < 1 << 32 {
            chunk.push(f32::from_bits(bits as u32));
            bits += stride;
            if chunk.len() == chunk.capacity() || bits >= 1 << 32 {
                all_agree(&chunk);
                chunk.clear();
            }
        }
    }

    /// Every twin gives its block kernel's bits on the edge values and dense sweeps of
    /// every kernel's ranges (the element loops themselves, whatever this build's
    /// opt-level; `all_agree`, as the ignored walk over every input above). On a CPU
    /// without FMA, or with `TENSORGRAPH_SIMD=baseline`, the twins are never used and the
    /// test only says so.
    #[test]
    fn twins_match_the_block_kernels() {
        if !vmath::blocks_run_avx2_fma() {
            eprintln!("the block kernels do not run the FMA path here: the twins are not used");
            return;
        }
        let n = if cfg!(miri) { 64 } else { 1 << 16 };
        // Every kernel over the edges and the dense sweeps of every kernel's ranges: exp,
        // exp_nonpos, tanh (and its small-|x| branch), sigmoid, erf (and its inner
        // branch), gelu (and its tail and central parts).
        let mut inputs = edges();
        for (lo, hi) in [
            (-105.0, 90.0),
            (-105.0, 0.0),
            (-10.0, 10.0),
            (-0.7, 0.7),
            (-105.0, 30.0),
            (-4.5, 4.5),
            (-1.1, 1.1),
            (-15.0, 6.0),
            (-6.0, -5.0),
            (-2.5, 2.5),
        ] {
            inputs.extend(sweep(lo, hi, n));
        }
        all_agree(&inputs);
    }
}
