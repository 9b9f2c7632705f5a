//! `bitwise_count` per integer dtype, measured in one run:
//! - "lanes: swar" is `BitCountLanes::bitwise_count_lanes` (the lane function kernels call),
//!   "lanes: map" the lane-by-lane `count_ones` map it replaced (`V::map` of the scalar
//!   reference), both over 1 Mi elements in 8-lane chunks;
//! - "graph" is `bitwise_count(x)` through `graph!` on one thread (load, count, store).
//!
//! `cargo bench --bench bitcount`; add `RUSTFLAGS="-C target-cpu=native"` for the host ISA.
//! `BITCOUNT_RATIO=1`: the two lane functions interleaved instead of criterion (`ratio`).

use criterion::{criterion_group, Criterion, Throughput};
use std::hint::black_box;
use tensorgraph::lanes::{BitCountLanes, LANES, V};
use tensorgraph::prelude::*;
use tensorgraph::reference::BitCount;

const N: usize = 1 << 20;

graph! {
    fn bc_u8(x: u8[1048576]) -> u8[1048576] { bitwise_count(x) }
    fn bc_i8(x: i8[1048576]) -> u8[1048576] { bitwise_count(x) }
    fn bc_u16(x: u16[1048576]) -> u8[1048576] { bitwise_count(x) }
    fn bc_i16(x: i16[1048576]) -> u8[1048576] { bitwise_count(x) }
    fn bc_u32(x: u32[1048576]) -> u8[1048576] { bitwise_count(x) }
    fn bc_i32(x: i32[1048576]) -> u8[1048576] { bitwise_count(x) }
    fn bc_u64(x: u64[1048576]) -> u8[1048576] { bitwise_count(x) }
    fn bc_i64(x: i64[1048576]) -> u8[1048576] { bitwise_count(x) }
}

fn lanes_swar<T: BitCountLanes>(x: &[T], out: &mut [u8]) {
    for (c, o) in x.chunks_exact(LANES).zip(out.chunks_exact_mut(LANES)) {
        let v = V::<T>(c.try_into().expect("a chunk is LANES long"));
        o.copy_from_slice(&T::bitwise_count_lanes(black_box(v)).0);
    }
}

fn lanes_map<T: BitCountLanes>(x: &[T], out: &mut [u8]) {
    for (c, o) in x.chunks_exact(LANES).zip(out.chunks_exact_mut(LANES)) {
        let v = V::<T>(c.try_into().expect("a chunk is LANES long"));
        o.copy_from_slice(&black_box(v).map(<T as BitCount>::bitwise_count).0);
    }
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool")
}

macro_rules! dtype_group {
    ($c:expr, $pool:expr, $t:ty, $graph:ident) => {{
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let data: Vec<$t> = (0..N)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s as $t
            })
            .collect();
        let mut out = vec![0u8; N];
        let mut g = $c.benchmark_group(concat!("bitwise_count ", stringify!($t), "[1048576]"));
        g.throughput(Throughput::Elements(N as u64));
        // Each iteration returns one result: without a read the optimiser may drop stores.
        g.bench_function("lanes: swar", |b| {
            b.iter(|| {
                lanes_swar::<$t>(black_box(&data), &mut out);
                black_box(&out)[N - 1]
            })
        });
        g.bench_function("lanes: map", |b| {
            b.iter(|| {
                lanes_map::<$t>(black_box(&data), &mut out);
                black_box(&out)[N - 1]
            })
        });
        let t = Tensor::<$t, Shape![1048576]>::from_vec(data.clone()).expect("length N");
        g.bench_function("graph", |b| {
            b.iter(|| $pool.install(|| $graph(black_box(&t))))
        });
        g.finish();
    }};
}

fn bench(c: &mut Criterion) {
    let pool = one_thread();
    dtype_group!(c, pool, u8, bc_u8);
    dtype_group!(c, pool, i8, bc_i8);
    dtype_group!(c, pool, u16, bc_u16);
    dtype_group!(c, pool, i16, bc_i16);
    dtype_group!(c, pool, u32, bc_u32);
    dtype_group!(c, pool, i32, bc_i32);
    dtype_group!(c, pool, u64, bc_u64);
    dtype_group!(c, pool, i64, bc_i64);
}

/// `BITCOUNT_RATIO=1 cargo bench --bench bitcount`: each round times 10 passes of the SWAR
/// lane function, then 10 of the map, over the same 1 Mi elements; each side keeps its
/// fastest of 200 rounds, so a slow phase of a shared machine hits both sides of a round
/// and the minimum is the undisturbed time (as `VMATH_RATIO` in benches/vmath.rs).
fn ratio() {
    fn time(pass: &mut dyn FnMut()) -> f64 {
        let t = std::time::Instant::now();
        for _ in 0..10 {
            pass();
        }
        t.elapsed().as_secs_f64() / 10.0
    }
    fn case<T: BitCountLanes>(name: &str, data: &[T]) {
        let mut out = vec![0u8; N];
        let (mut swar, mut map) = (f64::INFINITY, f64::INFINITY);
        // Each pass reads one result back (`sink`): without it the optimiser may drop the
        // stores of a pass (measured: every dtype at one identical, impossible speed).
        let mut sink = 0u64;
        for _ in 0..200 {
            swar = swar.min(time(&mut || {
                lanes_swar::<T>(black_box(data), &mut out);
                sink += black_box(&out)[N - 1] as u64;
            }));
            map = map.min(time(&mut || {
                lanes_map::<T>(black_box(data), &mut out);
                sink += black_box(&out)[N - 1] as u64;
            }));
        }
        black_box(sink);
        println!(
            "| {name} | {:.3} | {:.3} | {:.2} |",
            swar * 1e9 / N as f64,
            map * 1e9 / N as f64,
            map / swar
        );
    }
    macro_rules! data {
        ($t:ty) => {{
            let mut s = 0x9e37_79b9_7f4a_7c15u64;
            (0..N)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s as $t
                })
                .collect::<Vec<$t>>()
        }};
    }
    println!("| dtype | swar ns/element | map ns/element | map/swar |");
    println!("| --- | ---: | ---: | ---: |");
    case("u8", &data!(u8));
    case("i8", &data!(i8));
    case("u16", &data!(u16));
    case("i16", &data!(i16));
    case("u32", &data!(u32));
    case("i32", &data!(i32));
    case("u64", &data!(u64));
    case("i64", &data!(i64));
}

criterion_group!(benches, bench);

fn main() {
    if std::env::var("BITCOUNT_RATIO").is_ok() {
        ratio();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
