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
//! Prints, per function, the ISA the blocks ran on, the number of inputs walked and of
//! differences (the first few are listed); exits with status 1 if any differ.
use tensorgraph::vmath as vm;
use wide::f32x8;

fn main() {
    const B: usize = vm::BLOCK;
    let functions: [(&str, fn(f32x8) -> f32x8, fn(&mut [f32; B])); 5] = [
        ("exp", vm::exp_f32, vm::block::exp_f32),
        ("tanh", vm::tanh_f32, vm::block::tanh_f32),
        ("sigmoid", vm::sigmoid_f32, vm::block::sigmoid_f32),
        ("erf", vm::erf_f32, vm::block::erf_f32),
        ("gelu", vm::gelu_f32, vm::block::gelu_f32),
    ];
    let only: Vec<String> = std::env::args().skip(1).collect();
    let mut failed = false;
    for (name, single, block) in functions {
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
            vm::f32_kernel_isa(),
            1u64 << 32,
            started.elapsed().as_secs_f64()
        );
    }
    std::process::exit(failed as i32);
}
