//! Writes the random-graph batch that tensorgraph-tests/tests/graphgen.rs compiles and runs (issue 18):
//! `GRAPHGEN_COUNT` graphs (default 300) from `GRAPHGEN_SEED` (default graphgen's CI
//! seed) starting at `GRAPHGEN_START` (default 0). NOTES.md has the soak command.

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
    println!("cargo:rerun-if-changed=build.rs");
}
