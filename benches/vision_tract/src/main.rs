//! tract on the ONNX models benches/peers/vision_peers.py writes with `--save DIR`: each
//! model loaded, optimised (`into_optimized`) and run on the inputs of benches/vision.rs
//! (`((i·2654435761 + seed·40503) mod 2001)/1000 − 1`, times the scale), one thread (tract
//! runs on the calling thread), timed by this process's CPU time as benches/vision.rs.
//! RB (examples/resnet_block's network) takes its `u8` image. Prints `tract NAME ms sum=` per workload: the sums are comparable with ORT's and ours.
//!
//! `cargo run --release -- DIR [--secs S] [--only C3,DW]`, pinned with `taskset -c 1`.

use std::time::Duration;
use tract_onnx::prelude::*;

/// The workloads' input shapes (benches/vision.rs, vision_peers.py `model`).
const WORKLOADS: [(&str, [usize; 4]); 4] = [
    ("C3", [1, 64, 56, 56]),
    ("DW", [1, 32, 112, 112]),
    ("MP", [1, 64, 112, 112]),
    ("RS", [1, 64, 56, 56]),
];

/// This process's CPU time.
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The inputs' formula, as benches/vision.rs and vision_peers.py `values` (seed 1, scale 1).
fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    (0..n as u64)
        .map(|i| {
            let v = (i.wrapping_mul(2_654_435_761) + seed * 40_503) % 2001;
            (v as f32 / 1000.0 - 1.0) * scale
        })
        .collect()
}

fn main() -> TractResult<()> {
    let args: Vec<String> = std::env::args().collect();
    let dir = args
        .get(1)
        .expect("the models' directory (vision_peers.py --save DIR)");
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let secs: f64 = flag("--secs").map_or(3.0, |s| s.parse().expect("--secs S"));
    let only: Vec<String> =
        flag("--only").map_or(vec![], |s| s.split(',').map(String::from).collect());
    for (name, shape) in WORKLOADS {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let path = format!("{dir}/{name}.onnx");
        let model = match tract_onnx::onnx()
            .model_for_path(&path)
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
        {
            Ok(m) => m,
            Err(e) => {
                println!("tract {name} error: {e}");
                continue;
            }
        };
        let x: Tensor =
            tract_ndarray::Array4::from_shape_vec(shape, values(shape.iter().product(), 1, 1.0))?
                .into();
        run_model(name, &model, x, secs)?;
    }
    // RB, examples/resnet_block's network: a `u8[224, 224, 3]` image (vision_peers.py
    // `pixels`: byte `i` is `(i·2654435761 + seed·40503) mod 256`, seed 1).
    if only.is_empty() || only.iter().any(|o| o == "RB") {
        let path = format!("{dir}/RB.onnx");
        match tract_onnx::onnx()
            .model_for_path(&path)
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
        {
            Ok(model) => {
                let bytes: Vec<u8> = (0..224 * 224 * 3u64)
                    .map(|i| ((i.wrapping_mul(2_654_435_761) + 40_503) % 256) as u8)
                    .collect();
                let x: Tensor = tract_ndarray::Array3::from_shape_vec([224, 224, 3], bytes)?.into();
                run_model("RB", &model, x, secs)?;
            }
            Err(e) => println!("tract RB error: {e}"),
        }
    }
    Ok(())
}

/// Times `model` on `x` (warm-up, then calls for `secs` of CPU time, at least five) and
/// prints the line.
fn run_model(
    name: &str,
    model: &TypedRunnableModel<TypedModel>,
    x: Tensor,
    secs: f64,
) -> TractResult<()> {
    let input: TVec<TValue> = tvec!(x.into());
    let run = || model.run(input.clone());
    // Warm-up, then calls for `secs` of CPU time (at least five).
    let mut out = run()?;
    let start = cpu_time();
    let mut calls = 0u32;
    while calls < 5 || (cpu_time() - start).as_secs_f64() < secs {
        out = run()?;
        calls += 1;
    }
    let ms = (cpu_time() - start).as_secs_f64() * 1e3 / f64::from(calls);
    let sum: f64 = out[0]
        .as_slice::<f32>()?
        .iter()
        .map(|&v| f64::from(v))
        .sum();
    println!("tract {name} {ms:.4} sum={sum:.6e}");
    Ok(())
}
