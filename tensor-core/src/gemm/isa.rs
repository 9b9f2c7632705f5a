//! Which micro-kernel a process uses: the CPU's instruction sets (AVX-512F, AVX2+FMA, or
//! the portable kernels over `wide`), capped by `TENSORGRAPH_GEMM_ISA`, chosen once. The
//! kernels' contract is kernel.rs's; this file only picks among kernel.rs, x86.rs and
//! avx512.rs.

use super::kernel::{
    generic_tile, Kernel, PORTABLE_F32, PORTABLE_F64, PORTABLE_I32_I32, PORTABLE_I64_I64,
};

/// The instruction sets the float kernels can use, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Isa {
    /// The portable kernels over `wide`.
    Portable,
    /// AVX2 + FMA (`x86.rs`).
    Avx2,
    /// AVX-512F (`avx512.rs`).
    Avx512,
}

/// The environment variable that caps the instruction set of this process's GEMM kernels:
/// `portable`, `avx2` or `avx512` (read once, at the first product). The kernels used are
/// the best the CPU runs up to that level, so a test run with `TENSORGRAPH_GEMM_ISA=avx2`
/// or `=portable` exercises the other kernels (float and integer, packed and small-product
/// paths) through the whole library, graphs included, on a CPU that would pick AVX-512.
/// It never raises the level above what the CPU runs; a value that is none of the three is
/// ignored. [`kernel_name_f32`] tells which kernel a process uses.
pub const GEMM_ISA_ENV: &str = "TENSORGRAPH_GEMM_ISA";

/// The level [`GEMM_ISA_ENV`] asks for, if it is set to one of its values.
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))]
fn requested_isa() -> Option<Isa> {
    match std::env::var(GEMM_ISA_ENV).ok()?.trim() {
        "portable" => Some(Isa::Portable),
        "avx2" => Some(Isa::Avx2),
        "avx512" => Some(Isa::Avx512),
        _ => None,
    }
}

/// The best instruction set this CPU runs, capped by [`GEMM_ISA_ENV`]. Under Miri: AVX2
/// only when the build enables both features (`-C target-feature=+avx2,+fma`), so a plain
/// `cargo miri test` runs the portable kernels and the Miri run with those flags checks
/// the raw-pointer code of `x86.rs` (NOTES.md, "Undefined-behaviour checks"); never
/// AVX-512.
pub(super) fn cpu_isa() -> Isa {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        static ISA: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *ISA.get_or_init(|| {
            let detected = if super::x86::has_avx2_fma() && super::avx512::has_avx512f() {
                Isa::Avx512
            } else if super::x86::has_avx2_fma() {
                Isa::Avx2
            } else {
                Isa::Portable
            };
            requested_isa().map_or(detected, |cap| cap.min(detected))
        })
    }
    #[cfg(all(target_arch = "x86_64", miri))]
    {
        if cfg!(all(target_feature = "avx2", target_feature = "fma")) {
            Isa::Avx2
        } else {
            Isa::Portable
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Isa::Portable
    }
}

/// Whether this process uses the AVX2 integer kernels.
fn use_avx2() -> bool {
    cpu_isa() >= Isa::Avx2
}

/// The f32 kernel for `isa` (which the CPU must run; the kernels assert it).
pub(super) fn f32_kernel_for(isa: Isa) -> &'static Kernel<f32, f32> {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => &super::avx512::AVX512_F32,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => &super::x86::AVX2_F32,
        _ => &PORTABLE_F32,
    }
}

/// The f64 kernel for `isa`.
pub(super) fn f64_kernel_for(isa: Isa) -> &'static Kernel<f64, f64> {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => &super::avx512::AVX512_F64,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => &super::x86::AVX2_F64,
        _ => &PORTABLE_F64,
    }
}

/// The f32 kernel of this process.
pub(super) fn f32_kernel() -> &'static Kernel<f32, f32> {
    f32_kernel_for(cpu_isa())
}

/// The f64 kernel of this process.
pub(super) fn f64_kernel() -> &'static Kernel<f64, f64> {
    f64_kernel_for(cpu_isa())
}

/// The `i32`-accumulating kernel (wrapping `acc = i32`).
pub(super) fn i32_kernel() -> &'static Kernel<i32, i32> {
    #[cfg(target_arch = "x86_64")]
    if use_avx2() {
        return &super::x86::AVX2_I32_I32;
    }
    &PORTABLE_I32_I32
}

/// The `i64` kernel for wide integer operands.
pub(super) fn i64_kernel() -> &'static Kernel<i64, i64> {
    &PORTABLE_I64_I64
}

/// The kernel for narrow integers: products summed in `i32` over `k` blocks of at most
/// `kc_safe` (where no sum can overflow), each block added into the `i64` output.
pub(super) fn i32_to_i64_kernel(kc_safe: usize) -> Kernel<i32, i64> {
    #[cfg(target_arch = "x86_64")]
    let base = if use_avx2() {
        super::x86::avx2_i32_i64()
    } else {
        Kernel {
            name: "portable 4x8",
            mr: 4,
            nr: 8,
            mc: 128,
            kc: 256,
            nc: 2048,
            run: generic_tile::<i32, i64, 4, 8>,
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let base = Kernel {
        name: "portable 4x8",
        mr: 4,
        nr: 8,
        mc: 128,
        kc: 256,
        nc: 2048,
        run: generic_tile::<i32, i64, 4, 8>,
    };
    Kernel {
        kc: base.kc.min(kc_safe),
        ..base
    }
}

/// The name of the f32 kernel this process uses (`"avx2-fma 6x16"` or `"portable wide 4x8"`).
pub fn kernel_name_f32() -> &'static str {
    f32_kernel().name
}

/// The name of the f64 kernel this process uses.
pub fn kernel_name_f64() -> &'static str {
    f64_kernel().name
}

/// The instruction sets this CPU runs, worst first (tests run every kernel of each).
#[cfg(test)]
pub(super) fn runnable_isas() -> Vec<Isa> {
    [Isa::Portable, Isa::Avx2, Isa::Avx512]
        .into_iter()
        .filter(|&isa| isa <= cpu_isa())
        .collect()
}

/// Every f32 kernel this CPU can run (tests run them all).
#[cfg(test)]
pub(super) fn all_f32_kernels() -> Vec<&'static Kernel<f32, f32>> {
    runnable_isas().into_iter().map(f32_kernel_for).collect()
}

/// Every f64 kernel this CPU can run.
#[cfg(test)]
pub(super) fn all_f64_kernels() -> Vec<&'static Kernel<f64, f64>> {
    runnable_isas().into_iter().map(f64_kernel_for).collect()
}
