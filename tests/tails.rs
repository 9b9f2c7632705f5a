//! Lengths 0..=33 for every dtype: the flat loop's full chunks and every tail length of
//! both lane counts (LANES is 8, or 16 on AVX-512 builds: 0..=15 alone, 17..=31 after one
//! chunk of 16, 33 after two), against the scalar reference, bit for bit. Then the blocked
//! loops of default builds (`f32_block`) against the single-vector kernels.

mod common;
use common::*;
use tensorgraph::prelude::*;
use tensorgraph::reference::{Bitwise, Compare, Num};

/// `where(a > b, a * b, a - b) + 1` by the scalar reference.
fn reference_numeric<T: TestElem>(a: &[T], b: &[T]) -> Vec<T>
where
    T::Compute: Num + Compare,
{
    let one = T::one().to_compute();
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let (x, y) = (x.to_compute(), y.to_compute());
            let picked = if <T::Compute as Compare>::gt(x, y) {
                <T::Compute as Num>::mul(x, y)
            } else {
                <T::Compute as Num>::sub(x, y)
            };
            T::from_compute(<T::Compute as Num>::add(picked, one))
        })
        .collect()
}

macro_rules! numeric_tails {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            numeric_tails!(@lengths $t; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25
                26 27 28 29 30 31 32 33);
        }
    )*};
    (@lengths $t:ident; $($n:literal)*) => {$({
        let a = Tensor::<$t, Shape![$n]>::from_vec(<$t>::random($n, 11)).unwrap();
        let b = Tensor::<$t, Shape![$n]>::from_vec(<$t>::random($n, 12)).unwrap();
        let got = graph!(|a: $t[$n], b: $t[$n]| where(a > b, a * b, a - b) + 1)(&a, &b);
        let expected = reference_numeric(a.as_slice(), b.as_slice());
        assert_close(concat!("length ", stringify!($n)), got.as_slice(), &expected, |k| format!("{:?}, {:?}", a.as_slice()[k], b.as_slice()[k]), 0.0);
    })*};
}

numeric_tails!(tails_u8: u8, tails_u16: u16, tails_u32: u32, tails_u64: u64, tails_i8: i8, tails_i16: i16,
    tails_i32: i32, tails_i64: i64, tails_f16: f16, tails_bf16: bf16, tails_f32: f32, tails_f64: f64);

macro_rules! bool_tails {
    ($($n:literal)*) => {$({
        let a = Tensor::<bool, Shape![$n]>::from_vec(bool::random($n, 5)).unwrap();
        let b = Tensor::<bool, Shape![$n]>::from_vec(bool::random($n, 6)).unwrap();
        let got = graph!(|a: bool[$n], b: bool[$n]| where(a, b, !a) ^ (a || b))(&a, &b);
        let expected: Vec<bool> = a.as_slice().iter().zip(b.as_slice())
            .map(|(&x, &y)| <bool as Bitwise>::xor(if x { y } else { !x }, x || y))
            .collect();
        assert_close(concat!("length ", stringify!($n)), got.as_slice(), &expected, |k| k.to_string(), 0.0);
    })*};
}

#[test]
fn tails_bool() {
    bool_tails!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);
}

graph! {
    fn five(x: f32[555]) -> (f32[555], f32[555], f32[555], f32[555], f32[555]) {
        (exp(x), tanh(x), sigmoid(x), erf(x), gelu(x))
    }
    fn nested(x: f32[3, 600]) -> f32[3, 600] {
        exp(tanh(x) * 3.0) + sigmoid(x * x)
    }
    fn exp_sums(x: f32[3, 600]) -> f64[3] {
        sum(exp(x) as f64, axis = 1)
    }
    fn exp_half(h: f16[555]) -> f16[555] {
        exp(h)
    }
    fn named(x: f32[N]) -> f32[N] {
        gelu(x) * exp(-x)
    }
}

/// `f` (an f32x8 vmath function) over `x` 8 lanes at a time, the tail padded with 0.
fn per_vector(f: fn(wide::f32x8) -> wide::f32x8, x: &[f32]) -> Vec<f32> {
    x.chunks(8)
        .flat_map(|c| {
            let mut lanes = [0.0f32; 8];
            lanes[..c.len()].copy_from_slice(c);
            f(wide::f32x8::from(lanes)).to_array()[..c.len()].to_vec()
        })
        .collect()
}

/// Random f32 bit patterns (NaN, inf, subnormals included) and values in [-12, 12].
fn mixed_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|i| {
            let r = xorshift(&mut s);
            if i % 3 == 0 {
                f32::from_bits(r as u32)
            } else {
                (r >> 40) as f32 / (1u64 << 24) as f32 * 24.0 - 12.0
            }
        })
        .collect()
}

fn assert_same_bits(what: &str, got: &[f32], want: &[f32], x: &[f32]) {
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{what} at {k} (x = {:e}): {g:e}, the single-vector kernel gives {w:e}",
            x[k % x.len()]
        );
    }
}

/// On default x86-64 builds the loops over 256 elements and more evaluate exp, tanh,
/// sigmoid, erf and gelu on f32 a block at a time (`__private::f32_block`): two blocks,
/// chunks and a tail here (555 = 2·256 + 5·8 + 3), a row loop of 600 (two blocks and a
/// rest), a nest with two phases (`exp` of `tanh`), a reduction, and f16. Every result
/// must be the single-vector kernel's, bit for bit, whatever ISA the blocks ran on
/// (`TENSORGRAPH_SIMD=avx2` / `baseline` select the others). Only on those builds: with
/// AVX2 or AVX-512 enabled at compile time there are no blocks, and an AVX-512 build's
/// graphs run the 16-lane kernels, which are not the 8-lane single-vector ones bit for bit
/// (each within its bound: sigmoid at x = 1.45e-7 is 0.5 on one and 0.50000006, the
/// correctly rounded value, on the other; the ASan run of issue 37 on a native build).
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
#[test]
fn blocked_transcendentals_are_the_single_vector_kernels() {
    use tensorgraph::vmath as vm;
    let xs = mixed_f32(555, 21);
    let x = Tensor::<f32, Shape![555]>::from_vec(xs.clone()).unwrap();
    let (e, t, s, r, g) = five(&x);
    assert_same_bits("exp", e.as_slice(), &per_vector(vm::exp_f32, &xs), &xs);
    assert_same_bits("tanh", t.as_slice(), &per_vector(vm::tanh_f32, &xs), &xs);
    assert_same_bits(
        "sigmoid",
        s.as_slice(),
        &per_vector(vm::sigmoid_f32, &xs),
        &xs,
    );
    assert_same_bits("erf", r.as_slice(), &per_vector(vm::erf_f32, &xs), &xs);
    assert_same_bits("gelu", g.as_slice(), &per_vector(vm::gelu_f32, &xs), &xs);

    let ys = mixed_f32(1800, 22);
    let y = Tensor::<f32, Shape![3, 600]>::from_vec(ys.clone()).unwrap();
    let mut want = Vec::new();
    for row in ys.chunks(600) {
        let th: Vec<f32> = per_vector(vm::tanh_f32, row)
            .iter()
            .map(|v| v * 3.0)
            .collect();
        let sq: Vec<f32> = row.iter().map(|v| v * v).collect();
        let (a, b) = (
            per_vector(vm::exp_f32, &th),
            per_vector(vm::sigmoid_f32, &sq),
        );
        want.extend(a.iter().zip(&b).map(|(p, q)| p + q));
    }
    assert_same_bits(
        "exp(tanh(x) * 3) + sigmoid(x * x)",
        nested(&y).as_slice(),
        &want,
        &ys,
    );

    // Finite values only: the sums are compared within f64 rounding of the order.
    let zs: Vec<f32> = mixed_f32(1800, 23)
        .into_iter()
        .map(|v| {
            if v.is_finite() {
                v.clamp(-80.0, 80.0)
            } else {
                1.0
            }
        })
        .collect();
    let z = Tensor::<f32, Shape![3, 600]>::from_vec(zs.clone()).unwrap();
    let sums = exp_sums(&z);
    for (i, row) in zs.chunks(600).enumerate() {
        let want: f64 = per_vector(vm::exp_f32, row).iter().map(|&v| v as f64).sum();
        let got = sums.as_slice()[i];
        assert!(
            (got - want).abs() <= 1e-12 * want.abs(),
            "row {i}: {got} vs {want}"
        );
    }

    let hs: Vec<f16> = mixed_f32(555, 24)
        .into_iter()
        .map(|v| f16::from_f32(v.clamp(-10.0, 10.0)))
        .collect();
    let h = Tensor::<f16, Shape![555]>::from_vec(hs.clone()).unwrap();
    let hf: Vec<f32> = hs.iter().map(|v| v.to_f32()).collect();
    let want: Vec<f32> = per_vector(vm::exp_f32, &hf)
        .iter()
        .map(|&v| f16::from_f32(v).to_f32())
        .collect();
    let got: Vec<f32> = exp_half(&h).as_slice().iter().map(|v| v.to_f32()).collect();
    assert_same_bits("f16 exp", &got, &want, &hf);

    // A run-time length: no block, part of one, several, and a flat loop long enough to
    // be cut into rows (2^18 + 1000: blocks, chunks and a tail in its last, ragged row).
    for n in [0, 5, 255, 256, 1000, (1 << 18) + 1000] {
        let xs = mixed_f32(n, 25);
        let got = named(&xs).unwrap();
        let want: Vec<f32> = per_vector(vm::gelu_f32, &xs)
            .iter()
            .zip(per_vector(
                vm::exp_f32,
                &xs.iter().map(|v| -v).collect::<Vec<_>>(),
            ))
            .map(|(g, e)| g * e)
            .collect();
        assert_same_bits(
            &format!("gelu(x) * exp(-x), N = {n}"),
            got.as_slice(),
            &want,
            &xs,
        );
    }
}
