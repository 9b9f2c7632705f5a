//! Writes the random-graph batch that tensorgraph-tests/tests/graphgen.rs compiles and runs (issue 18):
//! `GRAPHGEN_COUNT` graphs (default 300) from `GRAPHGEN_SEED` (default graphgen's CI
//! seed) starting at `GRAPHGEN_START` (default 0); and tests/graphgen_grad.rs's batch of
//! differentiable graphs, `GRADGEN_COUNT` (default 40) from `GRADGEN_SEED` at
//! `GRADGEN_START`. NOTES.md has the soak commands.

fn env_u64(name: &str, default: u64) -> u64 {
    println!("cargo:rerun-if-env-changed={name}");
    std::env::var(name).ok().map_or(default, |v| {
        let v = v.trim();
        match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).expect("a hex number"),
            None => v.parse().expect("a number"),
        }
    })
}

fn main() {
    let seed = env_u64("GRAPHGEN_SEED", graphgen::CI_SEED);
    let start = env_u64("GRAPHGEN_START", 0);
    let count = env_u64("GRAPHGEN_COUNT", 300);
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("graphgen_batch.rs");
    std::fs::write(out, graphgen::harness::batch_source(seed, start, count)).unwrap();
    // The differentiable graphs of tests/graphgen_grad.rs (issue 32 item 6).
    let seed = env_u64("GRADGEN_SEED", graphgen::grad::GRAD_CI_SEED);
    let start = env_u64("GRADGEN_START", 0);
    let count = env_u64("GRADGEN_COUNT", 40);
    let out =
        std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("graphgen_grad_batch.rs");
    std::fs::write(out, graphgen::grad::batch_source(seed, start, count)).unwrap();
    println!("cargo:rerun-if-changed=build.rs");
}
