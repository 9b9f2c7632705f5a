//! The block kernels the debug backend's hottest functions run at opt-level 0, as inline
//! assembly (x86-64 AVX2 + FMA): `exp`, `exp_nonpos` (softmax's `exp(x - max)`), `tanh` and
//! gelu's common part (`gelu_fast`; its tail below -5.5 is a scalar twin).
//!
//! Why assembly: at opt-level 0 the block kernels' intrinsics are calls (one per vector
//! operation) and a scalar twin (vmath_twins.rs) spends ~200 instructions of stack traffic
//! per element; `asm!` is emitted as written at every opt-level. Each kernel here is
//! `vmath::block::$kernel`'s AVX2 + FMA path instruction for instruction (the portable
//! kernel of vmath/f32_kernels.rs on `Avx2Fma`, 8 lanes per ymm register, the same
//! operations in the same order, each line commented with the Rust it runs), so it gives
//! the block kernel's bits by construction; `vmath_twins::tests` checks it bit for bit on
//! the same inputs as the twins. Operand order matters where a NaN can meet another NaN:
//! `vmaxps`/`vminps` return their second source unless the first is strictly greater
//! (smaller), exactly as `_mm256_max_ps(a, b)` with `a` first.
//!
//! Used only where `vmath::blocks_run_avx2_fma()` holds (the CPU has AVX2 and FMA), at
//! opt-level 0 (`cfg(tensorgraph_opt0)`), on x86-64 outside Miri (which cannot run
//! assembly).

use super::BLOCK;

/// 8 lanes of one constant, 32-byte aligned rows (the kernels read them as memory
/// operands: `[rsi + 32*row]`).
#[repr(C, align(32))]
struct Rows<const N: usize>([[f32; 8]; N]);

/// `[v; 8]`.
const fn lanes(v: f32) -> [f32; 8] {
    [v; 8]
}

use crate::vmath::f32_kernels::{
    EXP_P, GELU_G0_LO, GELU_G_HI, GELU_G_LO, LN2_HI_F, LN2_LO_F, LOG2E_F, MAGIC_F, TANH_Q,
    TANH_SMALL,
};

/// The kernels' constants, in the rows the assembly names (`[rsi + 32*row]`).
static K: Rows<57> = Rows([
    lanes(-104.0),                      // 0: exp's lower clamp
    lanes(89.0),                        // 1: exp's upper clamp
    lanes(LOG2E_F),                     // 2
    lanes(MAGIC_F),                     // 3: round_small's 1.5·2^23
    lanes(-LN2_HI_F),                   // 4
    lanes(-LN2_LO_F),                   // 5
    lanes(1.0),                         // 6
    lanes(EXP_P[0]),                    // 7
    lanes(EXP_P[1]),                    // 8
    lanes(EXP_P[2]),                    // 9
    lanes(EXP_P[3]),                    // 10
    lanes(EXP_P[4]),                    // 11
    lanes(EXP_P[5]),                    // 12
    lanes(0.5),                         // 13
    lanes(MAGIC_F + 127.0),             // 14: pow2's bias
    lanes(f32::from_bits(0x7fff_ffff)), // 15: abs's mask
    lanes(-0.0),                        // 16: the sign bit
    lanes(TANH_SMALL),                  // 17
    lanes(9.5),                         // 18: tanh_large's clamp
    lanes(2.0),                         // 19
    lanes(TANH_Q[0]),                   // 20
    lanes(TANH_Q[1]),                   // 21
    lanes(TANH_Q[2]),                   // 22
    lanes(TANH_Q[3]),                   // 23
    lanes(TANH_Q[4]),                   // 24
    lanes(25.0),                        // 25: mul_pow2_nonpos's 2^(k + 25)
    lanes(f32::from_bits(0x3300_0000)), // 26: 2^-25
    lanes(5.5),                         // 27: gelu_fast's clamp and its x = x side
    lanes(4097.0),                      // 28: Dekker's 2^12 + 1
    lanes(-0.5),                        // 29
    lanes(3.75),                        // 30: gelu G's upper centre
    lanes(GELU_G_LO[0]),                // 31..43: G on [0, 2)
    lanes(GELU_G_LO[1]),
    lanes(GELU_G_LO[2]),
    lanes(GELU_G_LO[3]),
    lanes(GELU_G_LO[4]),
    lanes(GELU_G_LO[5]),
    lanes(GELU_G_LO[6]),
    lanes(GELU_G_LO[7]),
    lanes(GELU_G_LO[8]),
    lanes(GELU_G_LO[9]),
    lanes(GELU_G_LO[10]),
    lanes(GELU_G_LO[11]),
    lanes(GELU_G_HI[0]), // 43..55: G on [2, 5.5]
    lanes(GELU_G_HI[1]),
    lanes(GELU_G_HI[2]),
    lanes(GELU_G_HI[3]),
    lanes(GELU_G_HI[4]),
    lanes(GELU_G_HI[5]),
    lanes(GELU_G_HI[6]),
    lanes(GELU_G_HI[7]),
    lanes(GELU_G_HI[8]),
    lanes(GELU_G_HI[9]),
    lanes(GELU_G_HI[10]),
    lanes(GELU_G_HI[11]),
    lanes(GELU_G0_LO.0), // 55
    lanes(GELU_G0_LO.1), // 56
]);

/// `exp_reduced(ymm2)` (`reduce_ln2`, then `exp_poly`): e^r rounded in ymm6, k in ymm3;
/// writes ymm3-ymm13.
macro_rules! exp_reduced {
    () => {
        concat!(
            "vmulps ymm3, ymm2, [rsi + 32*2]\n", // x·LOG2E
            "vaddps ymm3, ymm3, [rsi + 32*3]\n", // round_small: + MAGIC
            "vsubps ymm3, ymm3, [rsi + 32*3]\n", //   - MAGIC: kf
            "vmovaps ymm4, ymm2\n",
            "vfmadd231ps ymm4, ymm3, [rsi + 32*4]\n", // r1 = kf.mul_add(-LN2_HI, x)
            "vmovaps ymm5, ymm4\n",
            "vfmadd231ps ymm5, ymm3, [rsi + 32*5]\n", // r = kf.mul_add(-LN2_LO, r1)
            "vsubps ymm7, ymm4, ymm5\n",              // r1 - r
            "vfmadd231ps ymm7, ymm3, [rsi + 32*5]\n", // r_lo = kf.mul_add(-LN2_LO, r1 - r)
            "vaddps ymm6, ymm5, [rsi + 32*6]\n",      // sum = 1 + r
            "vsubps ymm4, ymm6, [rsi + 32*6]\n",      // sum - 1
            "vsubps ymm4, ymm5, ymm4\n",              // sum_lo = r - (sum - 1)
            "vmovaps ymm8, [rsi + 32*7]\n",           // estrin(r, EXP_P): v0 = c1·r + c0
            "vfmadd231ps ymm8, ymm5, [rsi + 32*8]\n",
            "vmovaps ymm9, [rsi + 32*9]\n", //   v1 = c3·r + c2
            "vfmadd231ps ymm9, ymm5, [rsi + 32*10]\n",
            "vmovaps ymm10, [rsi + 32*11]\n", //   v2 = c5·r + c4
            "vfmadd231ps ymm10, ymm5, [rsi + 32*12]\n",
            "vmulps ymm11, ymm5, ymm5\n",       //   p = r·r
            "vfmadd231ps ymm8, ymm9, ymm11\n",  //   v0 = v1·p + v0
            "vmulps ymm12, ymm11, ymm11\n",     //   p·p
            "vfmadd231ps ymm8, ymm10, ymm12\n", //   v0 = v2·p² + v0
            "vmovaps ymm13, ymm7\n",
            "vfmadd231ps ymm13, ymm7, ymm5\n", // r_lo.mul_add(r, r_lo)
            "vfmadd231ps ymm13, ymm11, ymm8\n", // small = (r·r).mul_add(estrin, …)
            "vaddps ymm4, ymm4, ymm13\n",      // lo = sum_lo + small
            "vaddps ymm6, ymm6, ymm4\n",       // e = sum + lo
        )
    };
}

/// `mul_pow2(ymm6, ymm3)`: e·2^k as two products by normal powers of two, in ymm6;
/// writes ymm4, ymm5.
macro_rules! mul_pow2 {
    () => {
        concat!(
            "vmulps ymm4, ymm3, [rsi + 32*13]\n", // kf·0.5
            "vaddps ymm4, ymm4, [rsi + 32*3]\n",  // round_small
            "vsubps ymm4, ymm4, [rsi + 32*3]\n",  //   k1
            "vsubps ymm5, ymm3, ymm4\n",          // kf - k1
            "vaddps ymm4, ymm4, [rsi + 32*14]\n", // pow2(k1)
            "vpslld ymm4, ymm4, 23\n",
            "vaddps ymm5, ymm5, [rsi + 32*14]\n", // pow2(kf - k1)
            "vpslld ymm5, ymm5, 23\n",
            "vmulps ymm6, ymm6, ymm4\n", // e·2^k1
            "vmulps ymm6, ymm6, ymm5\n", //   ·2^(k - k1)
        )
    };
}

/// Runs `$body` (8 lanes: x in ymm0, the result in `$result`) over the block in place,
/// with `K` in rsi.
///
/// SAFETY (the expansion's `unsafe` block): the caller guarantees AVX2 and FMA (each
/// kernel function's contract). The loop reads and writes `BLOCK / 8` ymm-wide chunks of
/// `buf` (exactly its `BLOCK` f32s) through rdi, counting them in rcx, and reads rows
/// 0..27 of `K` (32 bytes each) through rsi; every vector register it writes is
/// caller-saved in the C ABI (`clobber_abi`), and `vzeroupper` leaves no dirty upper
/// halves to the SSE code around it.
macro_rules! block_loop {
    ($buf:expr, $result:literal, $($body:expr),* $(,)?) => {{
        const { assert!(BLOCK.is_multiple_of(8)) };
        let buf: &mut [f32; BLOCK] = $buf;
        // SAFETY: see `block_loop`.
        unsafe {
            core::arch::asm!(
                "2:",
                "vmovups ymm0, [rdi]",
                $($body,)*
                concat!("vmovups [rdi], ", $result),
                "add rdi, 32",
                "sub rcx, 1",
                "jnz 2b",
                "vzeroupper",
                inout("rdi") buf.as_mut_ptr() => _,
                inout("rcx") BLOCK / 8 => _,
                in("rsi") &K,
                clobber_abi("C"),
                options(nostack),
            );
        }
    }};
}

/// `vmath::block::exp_f32`'s AVX2 + FMA path over `buf`, in place (`exp`).
///
/// # Safety
/// The CPU must support AVX2 and FMA.
pub(super) unsafe fn exp(buf: &mut [f32; BLOCK]) {
    block_loop!(
        buf,
        "ymm6",
        "vmaxps ymm2, ymm0, [rsi + 32*0]", // x.max_or_second(-104)
        "vminps ymm2, ymm2, [rsi + 32*1]", //   .min_or_second(89): xc
        exp_reduced!(),
        mul_pow2!(),
        "vcmpunordps ymm1, ymm0, ymm0",     // x.is_nan()
        "vblendvps ymm6, ymm6, ymm0, ymm1", //   .select(x, scale(e, kf))
    )
}

/// `vmath::block::exp_nonpos_f32`'s AVX2 + FMA path over `buf`, in place
/// (`exp_nonpos_poly`).
///
/// # Safety
/// The CPU must support AVX2 and FMA.
pub(super) unsafe fn exp_nonpos(buf: &mut [f32; BLOCK]) {
    block_loop!(
        buf,
        "ymm3",
        "vmovaps ymm1, [rsi + 32*0]",      // -104
        "vmaxps ymm0, ymm1, ymm0",         // s(-104).max_or_second(x)
        "vxorps ymm1, ymm1, ymm1",         // 0
        "vminps ymm0, ymm1, ymm0",         // xc = s(0).min_or_second(…)
        "vmulps ymm1, ymm0, [rsi + 32*2]", // xc·LOG2E
        "vaddps ymm1, ymm1, [rsi + 32*3]", // round_small: + MAGIC
        "vsubps ymm1, ymm1, [rsi + 32*3]", //   - MAGIC: kf
        "vmovaps ymm2, ymm0",
        "vfmadd231ps ymm2, ymm1, [rsi + 32*4]", // kf.mul_add(-LN2_HI, xc)
        "vfmadd231ps ymm2, ymm1, [rsi + 32*5]", // r = kf.mul_add(-LN2_LO, …)
        "vaddps ymm3, ymm2, [rsi + 32*6]",      // sum = 1 + r
        "vsubps ymm4, ymm3, [rsi + 32*6]",      // sum - 1
        "vsubps ymm4, ymm2, ymm4",              // sum_lo = r - (sum - 1)
        "vmovaps ymm5, [rsi + 32*7]",           // estrin(r, EXP_P): v0 = c1·r + c0
        "vfmadd231ps ymm5, ymm2, [rsi + 32*8]",
        "vmovaps ymm6, [rsi + 32*9]", //   v1 = c3·r + c2
        "vfmadd231ps ymm6, ymm2, [rsi + 32*10]",
        "vmovaps ymm7, [rsi + 32*11]", //   v2 = c5·r + c4
        "vfmadd231ps ymm7, ymm2, [rsi + 32*12]",
        "vmulps ymm8, ymm2, ymm2",          //   p = r·r
        "vfmadd231ps ymm5, ymm6, ymm8",     //   v0 = v1·p + v0
        "vmulps ymm9, ymm8, ymm8",          //   p·p
        "vfmadd231ps ymm5, ymm7, ymm9",     //   v0 = v2·p² + v0
        "vfmadd231ps ymm4, ymm8, ymm5",     // (r·r).mul_add(estrin, sum_lo)
        "vaddps ymm3, ymm3, ymm4",          // e = sum + …
        "vaddps ymm1, ymm1, [rsi + 32*25]", // mul_pow2_nonpos: kf + 25
        "vaddps ymm1, ymm1, [rsi + 32*14]", //   pow2: + (MAGIC + 127)
        "vpslld ymm1, ymm1, 23",            //   shl23
        "vmulps ymm3, ymm3, ymm1",          //   e·2^(k+25)
        "vmulps ymm3, ymm3, [rsi + 32*26]", //   ·2^-25
    )
}

/// `vmath::block::tanh_f32`'s AVX2 + FMA path over `buf`, in place (`tanh`: both sides
/// computed and blended, the value the kernel's one-sided shortcuts give each lane).
///
/// # Safety
/// The CPU must support AVX2 and FMA.
pub(super) unsafe fn tanh(buf: &mut [f32; BLOCK]) {
    block_loop!(
        buf,
        "ymm13",
        "vandps ymm1, ymm0, [rsi + 32*15]",      // a = x.abs()
        "vcmpps ymm15, ymm1, [rsi + 32*17], 29", // is_large = a.ge(TANH_SMALL) (_CMP_GE_OQ)
        "vandps ymm14, ymm0, [rsi + 32*16]",     // x's sign bit (with_sign_of)
        // tanh_large(x, a)
        "vminps ymm2, ymm1, [rsi + 32*18]", // ac = a.min_or_second(9.5)
        "vaddps ymm2, ymm2, ymm2",          // ac + ac
        exp_reduced!(),
        mul_pow2!(),                       // e2 = scale(e, kf)
        "vaddps ymm6, ymm6, [rsi + 32*6]", // e2 + 1
        "vmovaps ymm7, [rsi + 32*19]",
        "vdivps ymm7, ymm7, ymm6", // 2/(e2 + 1)
        "vmovaps ymm6, [rsi + 32*6]",
        "vsubps ymm6, ymm6, ymm7", // 1 - …
        "vorps ymm6, ymm6, ymm14", // with_sign_of(…, x): large
        // tanh_small(x)
        "vmulps ymm8, ymm0, ymm0",      // z = x·x
        "vmulps ymm9, ymm0, ymm8",      // x·z
        "vmovaps ymm10, [rsi + 32*20]", // estrin(z, TANH_Q): v0 = c1·z + c0
        "vfmadd231ps ymm10, ymm8, [rsi + 32*21]",
        "vmovaps ymm11, [rsi + 32*22]", //   v1 = c3·z + c2
        "vfmadd231ps ymm11, ymm8, [rsi + 32*23]",
        "vmulps ymm12, ymm8, ymm8",                //   p = z·z
        "vfmadd231ps ymm10, ymm11, ymm12",         //   v0 = v1·p + v0
        "vmulps ymm12, ymm12, ymm12",              //   p·p
        "vfmadd231ps ymm10, ymm12, [rsi + 32*24]", // v0 = c4·p² + v0
        "vmovaps ymm13, ymm0",
        "vfmadd231ps ymm13, ymm9, ymm10", // (x·z).mul_add(estrin, x)
        "vorps ymm13, ymm13, ymm14",      // with_sign_of(…, x): small
        "vblendvps ymm13, ymm13, ymm6, ymm15", // is_large.select(large, small)
    )
}

/// `coeff(i)` of `gelu_g_parts` into `$reg`: GELU_G_LO[i] (row 31 + i) where the mask in
/// ymm4 (a < 2) is set, else GELU_G_HI[i] (row 43 + i). Only `gelu_fast` uses it.
#[cfg(not(target_feature = "fma"))]
macro_rules! g_coeff {
    ($reg:literal, $lo_row:literal, $hi_row:literal) => {
        concat!(
            "vmovaps ",
            $reg,
            ", [rsi + 32*",
            $hi_row,
            "]\n",
            "vblendvps ",
            $reg,
            ", ",
            $reg,
            ", [rsi + 32*",
            $lo_row,
            "], ymm4\n",
        )
    };
}

/// `vmath::block::gelu_f32`'s AVX2 + FMA path over `buf`, in place, but for the lanes
/// below -5.5, which the caller replaces by `gelu_tail`'s value (the kernel selects it
/// there): `gelu_fast` with `square_exact`'s Dekker split (the block kernels of builds
/// without the `fma` target feature, `cfg`-gated at the caller).
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(not(target_feature = "fma"))]
pub(super) unsafe fn gelu_fast(buf: &mut [f32; BLOCK]) {
    block_loop!(
        buf,
        "ymm8",
        "vandps ymm1, ymm0, [rsi + 32*15]", // x.abs()
        "vminps ymm1, ymm1, [rsi + 32*27]", // a = ….min_or_second(5.5)
        // square_exact(a), Dekker: h in ymm2, l in ymm3
        "vmulps ymm2, ymm1, ymm1",          // h = a·a
        "vmulps ymm3, ymm1, [rsi + 32*28]", // c = a·4097
        "vsubps ymm4, ymm3, ymm1",          // c - a
        "vsubps ymm4, ymm3, ymm4",          // ah = c - (c - a)
        "vsubps ymm5, ymm1, ymm4",          // al = a - ah
        "vmulps ymm6, ymm4, ymm4",          // ah·ah
        "vsubps ymm6, ymm6, ymm2",          //   - h
        "vmulps ymm7, ymm4, ymm5",          // ah·al
        "vaddps ymm7, ymm7, ymm7",          //   + ah·al
        "vaddps ymm6, ymm6, ymm7",
        "vmulps ymm8, ymm5, ymm5", // al·al
        "vaddps ymm3, ymm6, ymm8", // l
        // reduce_ln2(h·-0.5): kf ymm4, r ymm6, r_lo ymm7
        "vmulps ymm2, ymm2, [rsi + 32*29]", // h·-0.5
        "vmulps ymm4, ymm2, [rsi + 32*2]",  // ·LOG2E
        "vaddps ymm4, ymm4, [rsi + 32*3]",  // round_small
        "vsubps ymm4, ymm4, [rsi + 32*3]",  //   kf
        "vmovaps ymm5, ymm2",
        "vfmadd231ps ymm5, ymm4, [rsi + 32*4]", // r1 = kf.mul_add(-LN2_HI, ·)
        "vmovaps ymm6, ymm5",
        "vfmadd231ps ymm6, ymm4, [rsi + 32*5]", // r = kf.mul_add(-LN2_LO, r1)
        "vsubps ymm7, ymm5, ymm6",              // r1 - r
        "vfmadd231ps ymm7, ymm4, [rsi + 32*5]", // r_lo
        // exp_poly_unrounded(r, l.mul_add(-0.5, r_lo)): e ymm2, e_lo ymm3
        "vfmadd231ps ymm7, ymm3, [rsi + 32*29]", // rl = l.mul_add(-0.5, r_lo)
        "vaddps ymm2, ymm6, [rsi + 32*6]",       // sum = 1 + r
        "vsubps ymm3, ymm2, [rsi + 32*6]",       // sum - 1
        "vsubps ymm3, ymm6, ymm3",               // sum_lo = r - (sum - 1)
        "vmovaps ymm5, [rsi + 32*7]",            // estrin(r, EXP_P): v0 = c1·r + c0
        "vfmadd231ps ymm5, ymm6, [rsi + 32*8]",
        "vmovaps ymm8, [rsi + 32*9]", //   v1 = c3·r + c2
        "vfmadd231ps ymm8, ymm6, [rsi + 32*10]",
        "vmovaps ymm9, [rsi + 32*11]", //   v2 = c5·r + c4
        "vfmadd231ps ymm9, ymm6, [rsi + 32*12]",
        "vmulps ymm10, ymm6, ymm6",      //   p = r·r
        "vfmadd231ps ymm5, ymm8, ymm10", //   v0 = v1·p + v0
        "vmulps ymm8, ymm10, ymm10",     //   p·p
        "vfmadd231ps ymm5, ymm9, ymm8",  //   v0 = v2·p² + v0
        "vmovaps ymm8, ymm7",
        "vfmadd231ps ymm8, ymm7, ymm6",     // rl.mul_add(r, rl)
        "vfmadd231ps ymm8, ymm10, ymm5",    // small = (r·r).mul_add(estrin, …)
        "vaddps ymm3, ymm3, ymm8",          // e_lo = sum_lo + small
        "vaddps ymm4, ymm4, [rsi + 32*14]", // two_k = pow2(kf)
        "vpslld ymm4, ymm4, 23",
        "vmulps ymm2, ymm2, ymm4", // e·two_k
        "vmulps ymm3, ymm3, ymm4", // e_lo·two_k
        // gelu_g_parts(a): g ymm12, g_lo ymm13
        "vcmpps ymm4, ymm1, [rsi + 32*19], 17", // lo = a.lt(2.0) (_CMP_LT_OQ)
        "vmovaps ymm5, [rsi + 32*30]",
        "vblendvps ymm5, ymm5, [rsi + 32*6], ymm4", // lo.select(1.0, 3.75)
        "vsubps ymm5, ymm1, ymm5",                  // t
        "vmulps ymm6, ymm5, ymm5",                  // t2 = t·t
        g_coeff!("ymm7", "32", "44"),               // p0 = coeff(2).mul_add(t, coeff(1))
        g_coeff!("ymm8", "33", "45"),
        "vfmadd231ps ymm7, ymm8, ymm5",
        g_coeff!("ymm8", "34", "46"), // p1 = coeff(4).mul_add(t, coeff(3))
        g_coeff!("ymm9", "35", "47"),
        "vfmadd231ps ymm8, ymm9, ymm5",
        g_coeff!("ymm9", "36", "48"), // p2 = coeff(6).mul_add(t, coeff(5))
        g_coeff!("ymm10", "37", "49"),
        "vfmadd231ps ymm9, ymm10, ymm5",
        g_coeff!("ymm10", "38", "50"), // p3 = coeff(8).mul_add(t, coeff(7))
        g_coeff!("ymm11", "39", "51"),
        "vfmadd231ps ymm10, ymm11, ymm5",
        g_coeff!("ymm11", "40", "52"), // p4 = coeff(10).mul_add(t, coeff(9))
        g_coeff!("ymm12", "41", "53"),
        "vfmadd231ps ymm11, ymm12, ymm5",
        "vfmadd231ps ymm8, ymm9, ymm6", // estrin_lanes(t2, pairs): p2·t2 + p1
        "vfmadd231ps ymm10, ymm11, ymm6", //   p4·t2 + p3
        "vmulps ymm9, ymm6, ymm6",      //   t2·t2
        "vfmadd231ps ymm8, ymm10, ymm9", //   (p4·t2 + p3)·t2² + …
        "vmulps ymm9, ymm9, ymm9",      //   t2⁴
        g_coeff!("ymm12", "42", "54"),  //   coeff(11)
        "vfmadd231ps ymm8, ymm12, ymm9", //   coeff(11)·t2⁴ + …
        "vfmadd231ps ymm7, ymm8, ymm6", // g = estrin.mul_add(t2, p0)
        g_coeff!("ymm8", "31", "43"),   // c0
        "vmovaps ymm9, [rsi + 32*56]",
        "vblendvps ymm9, ymm9, [rsi + 32*55], ymm4", // c0_lo
        "vmulps ymm10, ymm5, ymm7",                  // w = t·g
        "vxorps ymm11, ymm10, [rsi + 32*16]",        // -w
        "vfmadd231ps ymm11, ymm5, ymm7",             // w_lo = t.mul_add(g, -w)
        "vaddps ymm12, ymm8, ymm10",                 // hi = c0 + w
        "vsubps ymm13, ymm12, ymm8",                 // hi - c0
        "vsubps ymm13, ymm10, ymm13",                // w - (hi - c0)
        "vaddps ymm11, ymm11, ymm9",                 // w_lo + c0_lo
        "vaddps ymm13, ymm13, ymm11",                // lo
        // x·Φ(-a) and the result
        "vmulps ymm4, ymm0, [rsi + 32*13]", // hx = x·0.5
        "vmulps ymm5, ymm4, ymm2",          // u = hx·e
        "vxorps ymm6, ymm5, [rsi + 32*16]", // -u
        "vfmadd231ps ymm6, ymm4, ymm2",     // hx.mul_add(e, -u)
        "vmulps ymm7, ymm4, ymm3",          // hx·e_lo
        "vaddps ymm6, ymm6, ymm7",          // u_lo
        "vmulps ymm7, ymm6, ymm12",         // u_lo·g
        "vfmadd231ps ymm7, ymm5, ymm13",    // u.mul_add(g_lo, …)
        "vfmadd231ps ymm7, ymm5, ymm12",    // xphi = u.mul_add(g, …)
        "vsubps ymm8, ymm0, ymm7",          // x - xphi
        "vxorps ymm9, ymm9, ymm9",
        "vcmpps ymm10, ymm0, ymm9, 17",      // x.lt(0.0)
        "vblendvps ymm8, ymm8, ymm7, ymm10", //   .select(xphi, x - xphi)
        "vandps ymm11, ymm0, [rsi + 32*16]",
        "vorps ymm8, ymm8, ymm11",               // with_sign_of(…, x)
        "vcmpps ymm10, ymm0, [rsi + 32*27], 29", // x.ge(5.5)
        "vblendvps ymm8, ymm8, ymm0, ymm10",     //   .select(x, res)
    )
}
