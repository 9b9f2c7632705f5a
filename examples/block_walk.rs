//! Every f32 input (2^32 bit patterns) through the block entry points of the f32-lane
//! kernels (`vmath::block`, what graph loops of default x86-64 builds call) against the
//! single-vector entry points (`vmath::exp_f32` & co.), bit for bit (NaN = NaN).
//!
//! ```sh
//! nice -n 10 cargo build --release --example block_walk --target-dir target/us
//! target/us/release/examples/block_walk                          # AVX-512 blocks where the CPU has them
//! TENSORGRAPH_SIMD=avx2 target/us/release/examples/block_walk    # the AVX2 + FMA blocks
//! ```
//!
//! `--x16` walks the 16-lane functions (`vmath::x16`, what graph kernels of AVX-512
//! builds run: `vrndscaleps`/`vscalefps` there) against the f32x8 ones instead, in 16-lane
//! chunks of the block (a native build on an AVX-512 machine is where they differ in
//! code; sigmoid's f32x16 divides where f32x8 takes `rcpps`, and exp_nonpos's f32x16 is
//! the table kernel `exp_nonpos_table32`, so those two are expected to differ; each has
//! its own `ulp_sweep --x16` walk in ACCURACY.md).
//!
//! ```sh
//! RUSTFLAGS="-C target-cpu=native" nice -n 10 cargo build --release --example block_walk --target-dir target/usn
//! target/usn/release/examples/block_walk --x16 exp tanh erf gelu
//! ```
//!
//! Prints, per function, the ISA the blocks ran on, the number of inputs walked and of
//! differences (the first few are listed); exits with status 1 if any differ.
use tensorgraph::vmath as vm;
use wide::{f32x16, f32x8};

const B: usize = vm::BLOCK;

/// A 16-lane function over a block, 16 at a time.
macro_rules! x16_block {
    ($($name:ident => $f:path),*) => {$(
        fn $name(buf: &mut [f32; B]) {
            for chunk in buf.chunks_exact_mut(16) {
                let y: f32x16 = $f(f32x16::from(&*chunk));
                chunk.copy_from_slice(&y.to_array());
            }
        }
    )*};
}
x16_block!(exp16 => vm::x16::exp_f32x16, tanh16 => vm::x16::tanh_f32x16,
    sigmoid16 => vm::x16::sigmoid_f32x16, erf16 => vm::x16::erf_f32x16,
    gelu16 => vm::x16::gelu_f32x16, exp_nonpos16 => vm::x16::exp_nonpos_f32x16);

fn main() {
    let x16 = std::env::args().any(|a| a == "--x16");
    type Single = fn(f32x8) -> f32x8;
    type Block = fn(&mut [f32; B]);
    let functions: [(&str, Single, Block, Block); 6] = [
        ("exp", vm::exp_f32, vm::block::exp_f32, exp16),
        ("tanh", vm::tanh_f32, vm::block::tanh_f32, tanh16),
        (
            "sigmoid",
            vm::sigmoid_f32,
            vm::block::sigmoid_f32,
            sigmoid16,
        ),
        ("erf", vm::erf_f32, vm::block::erf_f32, erf16),
        ("gelu", vm::gelu_f32, vm::block::gelu_f32, gelu16),
        (
            "exp_nonpos",
            vm::exp_nonpos_f32,
            vm::block::exp_nonpos_f32,
            exp_nonpos16,
        ),
    ];
    let only: Vec<String> = std::env::args().skip(1).filter(|a| a != "--x16").collect();
    let mut failed = false;
    for (name, single, block, block16) in functions {
        let block = if x16 { block16 } else { block };
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let started = std::time::Instant::now();
        let mut differ = 0u64;
        let mut buf = [0.0f32; B];
        let mut bits: u64 = 0;
        while bits < 1 << 32 {
            for (k, v) in buf.iter_mut().enumerate() {
                *v = f32::from_bits((bits + k as u64) as u32);
            }
            let xs = buf;
            block(&mut buf);
            for (c, x) in xs.chunks_exact(8).enumerate() {
                let want = single(f32x8::from(x)).to_array();
                for i in 0..8 {
                    let (g, w) = (buf[c * 8 + i], want[i]);
                    if g.to_bits() != w.to_bits() && !(g.is_nan() && w.is_nan()) {
                        differ += 1;
                        if differ <= 5 {
                            println!(
                                "{name}: x = {:e} ({:#010x}): block {g:e}, single {w:e}",
                                x[i],
                                x[i].to_bits()
                            );
                        }
                    }
                }
            }
            bits += B as u64;
        }
        failed |= differ > 0;
        println!(
            "{name}: blocks on {}: {} inputs, {differ} differ ({:.0} s)",
            if x16 { "f32x16" } else { vm::f32_kernel_isa() },
            1u64 << 32,
            started.elapsed().as_secs_f64()
        );
    }
    std::process::exit(failed as i32);
}
