//! The block kernels the debug backend's hottest functions run at opt-level 0, as inline
//! assembly (x86-64 AVX2 + FMA): `exp_nonpos` (softmax's `exp(x - max)`).
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
/// operands: `[rsi + 32·row]`).
#[repr(C, align(32))]
struct Rows<const N: usize>([[f32; 8]; N]);

/// `[v; 8]`.
const fn lanes(v: f32) -> [f32; 8] {
    [v; 8]
}

use crate::vmath::f32_kernels::{EXP_P, LN2_HI_F, LN2_LO_F, LOG2E_F, MAGIC_F};

/// `exp_nonpos_poly`'s constants, in the rows the assembly names.
static EXP_NONPOS_K: Rows<14> = Rows([
    lanes(-104.0),          // 0: the lower clamp
    lanes(LOG2E_F),         // 1
    lanes(MAGIC_F),         // 2: round_small's 1.5·2^23
    lanes(-LN2_HI_F),       // 3
    lanes(-LN2_LO_F),       // 4
    lanes(1.0),             // 5
    lanes(EXP_P[0]),        // 6
    lanes(EXP_P[1]),        // 7
    lanes(EXP_P[2]),        // 8
    lanes(EXP_P[3]),        // 9
    lanes(EXP_P[4]),        // 10
    lanes(EXP_P[5]),        // 11
    lanes(25.0),            // 12: mul_pow2_nonpos's 2^(k + 25)
    lanes(MAGIC_F + 127.0), // 13: pow2's bias
]);
/// 2^-25 (`mul_pow2_nonpos`'s second factor).
static TWO_M25: Rows<1> = Rows([lanes(f32::from_bits(0x3300_0000))]);

/// `vmath::block::exp_nonpos_f32`'s AVX2 + FMA path over `buf`, in place.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
pub(super) unsafe fn exp_nonpos(buf: &mut [f32; BLOCK]) {
    const { assert!(BLOCK.is_multiple_of(8)) };
    // SAFETY: the caller guarantees AVX2 and FMA. The loop reads and writes `BLOCK / 8`
    // ymm-wide chunks of `buf` (exactly its `BLOCK` f32s) through `rdi`, and reads the 32-byte
    // rows 0..14 of `EXP_NONPOS_K` and row 0 of `TWO_M25` through `rsi`, `rdx`; every vector
    // register it writes is caller-saved in the C ABI (`clobber_abi`), and `vzeroupper`
    // leaves no dirty upper halves to the SSE code around it.
    unsafe {
        core::arch::asm!(
            "2:",
            "vmovups ymm0, [rdi]",                 // x
            "vmovaps ymm1, [rsi]",                 // -104
            "vmaxps ymm0, ymm1, ymm0",             // s(-104).max_or_second(x)
            "vxorps ymm1, ymm1, ymm1",             // 0
            "vminps ymm0, ymm1, ymm0",             // xc = s(0).min_or_second(…)
            "vmulps ymm1, ymm0, [rsi + 32]",       // xc·LOG2E
            "vaddps ymm1, ymm1, [rsi + 64]",       // round_small: + MAGIC
            "vsubps ymm1, ymm1, [rsi + 64]",       //   - MAGIC: kf
            "vmovaps ymm2, ymm0",
            "vfmadd231ps ymm2, ymm1, [rsi + 96]",  // kf.mul_add(-LN2_HI, xc)
            "vfmadd231ps ymm2, ymm1, [rsi + 128]", // r = kf.mul_add(-LN2_LO, …)
            "vaddps ymm3, ymm2, [rsi + 160]",      // sum = 1 + r
            "vsubps ymm4, ymm3, [rsi + 160]",      // sum - 1
            "vsubps ymm4, ymm2, ymm4",             // sum_lo = r - (sum - 1)
            "vmovaps ymm5, [rsi + 192]",           // estrin(r, EXP_P): v0 = c1·r + c0
            "vfmadd231ps ymm5, ymm2, [rsi + 224]",
            "vmovaps ymm6, [rsi + 256]",           //   v1 = c3·r + c2
            "vfmadd231ps ymm6, ymm2, [rsi + 288]",
            "vmovaps ymm7, [rsi + 320]",           //   v2 = c5·r + c4
            "vfmadd231ps ymm7, ymm2, [rsi + 352]",
            "vmulps ymm8, ymm2, ymm2",             //   p = r·r
            "vfmadd231ps ymm5, ymm6, ymm8",        //   v0 = v1·p + v0
            "vmulps ymm9, ymm8, ymm8",             //   p·p
            "vfmadd231ps ymm5, ymm7, ymm9",        //   v0 = v2·p² + v0
            "vfmadd231ps ymm4, ymm8, ymm5",        // (r·r).mul_add(estrin, sum_lo)
            "vaddps ymm3, ymm3, ymm4",             // e = sum + …
            "vaddps ymm1, ymm1, [rsi + 384]",      // kf + 25
            "vaddps ymm1, ymm1, [rsi + 416]",      // pow2: + (MAGIC + 127)
            "vpslld ymm1, ymm1, 23",               //   shl23
            "vmulps ymm3, ymm3, ymm1",             // e·2^(k+25)
            "vmulps ymm3, ymm3, [rdx]",           //   ·2^-25
            "vmovups [rdi], ymm3",
            "add rdi, 32",
            "sub rcx, 1",
            "jnz 2b",
            "vzeroupper",
            inout("rdi") buf.as_mut_ptr() => _,
            inout("rcx") BLOCK / 8 => _,
            in("rsi") &EXP_NONPOS_K,
            in("rdx") &TWO_M25,
            clobber_abi("C"),
            options(nostack),
        );
    }
}
