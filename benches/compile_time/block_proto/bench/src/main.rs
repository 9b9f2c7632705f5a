//! Kernel speed of the block-kernel prototype against the fused kernels (and the
//! hand-written twins), after checking that blocked and fused give the same bits.
//! `cargo run --release -p bench` (ROUNDS, CALLS in the environment). Times are ns per call,
//! min and median over rounds that alternate the variants.
use std::hint::black_box;
use std::time::Instant;
use tensorgraph::prelude::*;

fn lcg(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 11) as f64) / ((1u64 << 53) as f64)
}
fn f32s(n: usize, seed: &mut u64) -> Vec<f32> {
    (0..n).map(|_| (lcg(seed) * 8.0 - 4.0) as f32).collect()
}
fn i32s(n: usize, seed: &mut u64) -> Vec<i32> {
    (0..n)
        .map(|_| (lcg(seed) * 2000.0 - 1000.0) as i32)
        .collect()
}

fn time(rounds: usize, calls: usize, variants: &mut [(&str, &mut dyn FnMut())]) {
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for _ in 0..rounds {
        for (k, (_, f)) in variants.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..calls {
                f();
            }
            samples[k].push(t.elapsed().as_nanos() as f64 / calls as f64);
        }
    }
    for (k, (name, _)) in variants.iter().enumerate() {
        let s = &mut samples[k];
        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "  {name:<14} min {:8.1} ns  median {:8.1} ns",
            s[0],
            s[s.len() / 2]
        );
    }
}

fn main() {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(21);
    let calls: usize = std::env::var("CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let mut seed = 17u64;
    println!(
        "LANES {} rounds {rounds} calls {calls}",
        tensorgraph::__private::LANES
    );

    // k16
    let (x, b) = (f32s(2048, &mut seed), f32s(128, &mut seed));
    let (mut o1, mut o2, mut o3) = (vec![0f32; 2048], vec![0f32; 2048], vec![0f32; 2048]);
    proto_fused_kernel::k16_into(&x, &b, 0.7, &mut o1);
    proto_blocked::k16_into(&x, &b, 0.7, &mut o2);
    let xt = Tensor::<f32, Shape![16, 128]>::from_vec(x.clone()).unwrap();
    let bt = Tensor::<f32, Shape![128]>::from_vec(b.clone()).unwrap();
    let g = proto_fused_graph::k16(&xt, &bt, 0.7);
    assert!(
        o1.iter().zip(&o2).all(|(a, b)| a.to_bits() == b.to_bits()),
        "k16 blocked != fused"
    );
    assert!(
        o1.iter()
            .zip(g.as_slice())
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "k16 kernel != graph"
    );
    println!("k16 f32[16,128] elementwise with exp (12 ops): blocked == fused bit for bit");
    time(
        rounds,
        calls,
        &mut [
            ("fused", &mut || {
                proto_fused_kernel::k16_into(black_box(&x), &b, 0.7, black_box(&mut o1))
            }),
            ("blocked", &mut || {
                proto_blocked::k16_into(black_box(&x), &b, 0.7, black_box(&mut o2))
            }),
            ("hand-written", &mut || {
                proto_hand::k16_into(black_box(&x), &b, 0.7, black_box(&mut o3))
            }),
        ],
    );

    // k9
    let (x, g, be) = (
        f32s(2048, &mut seed),
        f32s(128, &mut seed),
        f32s(128, &mut seed),
    );
    let (mut y1, mut y2, mut y3) = (vec![0f32; 2048], vec![0f32; 2048], vec![0f32; 2048]);
    let (mut m1, mut m2, mut m3) = (vec![0f32; 16], vec![0f32; 16], vec![0f32; 16]);
    proto_fused_kernel::k9_into(&x, &g, &be, &mut y1, &mut m1);
    proto_blocked::k9_into(&x, &g, &be, &mut y2, &mut m2);
    assert!(
        y1.iter().zip(&y2).all(|(a, b)| a.to_bits() == b.to_bits()),
        "k9 y blocked != fused"
    );
    assert!(
        m1.iter().zip(&m2).all(|(a, b)| a.to_bits() == b.to_bits()),
        "k9 max blocked != fused"
    );
    println!("k9 f32[16,128] layer norm + row max (10 ops): blocked == fused bit for bit");
    time(
        rounds,
        calls,
        &mut [
            ("fused", &mut || {
                proto_fused_kernel::k9_into(black_box(&x), &g, &be, black_box(&mut y1), &mut m1)
            }),
            ("blocked", &mut || {
                proto_blocked::k9_into(black_box(&x), &g, &be, black_box(&mut y2), &mut m2)
            }),
            ("hand-written", &mut || {
                proto_hand::k9_into(black_box(&x), &g, &be, black_box(&mut y3), &mut m3)
            }),
        ],
    );

    // k2
    let (a, b, c) = (
        i32s(2048, &mut seed),
        i32s(128, &mut seed),
        i32s(16, &mut seed),
    );
    let (mut o1, mut o2, mut o3) = (vec![0i32; 2048], vec![0i32; 2048], vec![0i32; 2048]);
    proto_fused_kernel::k2_into(&a, &b, &c, &mut o1);
    proto_blocked::k2_into(&a, &b, &c, &mut o2);
    proto_hand::k2_into(&a, &b, &c, &mut o3);
    assert_eq!(o1, o2, "k2 blocked != fused");
    assert_eq!(o1, o3, "k2 hand != fused");
    println!("k2 i32[16,128] integer (11 ops): blocked == fused");
    time(
        rounds,
        calls,
        &mut [
            ("fused", &mut || {
                proto_fused_kernel::k2_into(black_box(&a), &b, &c, black_box(&mut o1))
            }),
            ("blocked", &mut || {
                proto_blocked::k2_into(black_box(&a), &b, &c, black_box(&mut o2))
            }),
            ("hand-written", &mut || {
                proto_hand::k2_into(black_box(&a), &b, &c, black_box(&mut o3))
            }),
        ],
    );
}
