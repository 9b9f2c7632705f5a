//! Issue 33 item 4: no legal graph may crash or stall rustc. Builds a crate of 200 large
//! generated graphs (`graphgen::gen::ALL_LARGE`: literal sizes up to 1024, values up to
//! 2^20 elements, ranks up to 6, `tile`/`pad`/`concat` with large factors) in release and
//! requires rustc to finish within `SECONDS_PER_GRAPH` per graph. Its dependencies are built
//! first and not timed. Slow (minutes), so ignored by default:
//! `cargo test --release -p tensorgraph-tests --test release_build -- --ignored`
//! (`RELEASE_BUILD_COUNT=N` for another count, `RELEASE_BUILD_SEED=S` another seed).

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// The time limit per graph of the release build, on two shared cores. A graph of the
/// batch takes about a fifth of a second on average; a graph whose nests multiplied with its
/// pieces took 200 s or overflowed rustc's stack before `ir::MAX_REGIONS`.
const SECONDS_PER_GRAPH: f64 = 2.0;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().map_or(default, |v| {
        let v = v.trim();
        match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).expect("a hex number"),
            None => v.parse().expect("a number"),
        }
    })
}

#[test]
#[ignore = "minutes: builds 200 graphs in release (README.md's test commands)"]
fn large_graphs_build_in_release_within_the_limit() {
    let count = env_u64("RELEASE_BUILD_COUNT", 200);
    let seed = env_u64(
        "RELEASE_BUILD_SEED",
        graphgen::CI_SEED | graphgen::gen::ALL_LARGE,
    );
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let repo = repo.canonicalize().expect("the repository");
    let dir = repo.join("target").join("release-build-test");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"release-build-batch\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\ntensorgraph = {{ path = {:?} }}\ngraphgen = {{ path = {:?} }}\n\n[workspace]\n",
        repo.display().to_string(),
        repo.join("tools/graphgen").display().to_string(),
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let build = || {
        let started = Instant::now();
        let out = Command::new(env!("CARGO"))
            .args(["build", "--release", "--lib", "--quiet"])
            .env("CARGO_TARGET_DIR", dir.join("target"))
            .current_dir(&dir)
            .output()
            .expect("cargo runs");
        let elapsed = started.elapsed();
        assert!(
            out.status.success(),
            "the release build failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        elapsed
    };
    // Dependencies first, with an empty batch.
    std::fs::write(
        dir.join("src/lib.rs"),
        graphgen::harness::batch_source(seed, 0, 0),
    )
    .unwrap();
    build();
    // The batch is built again whatever the file times say.
    let fingerprints = dir.join("target/release/.fingerprint");
    for entry in std::fs::read_dir(&fingerprints).unwrap().flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with("release-build-batch-")
        {
            std::fs::remove_dir_all(entry.path()).unwrap();
        }
    }
    std::fs::write(
        dir.join("src/lib.rs"),
        graphgen::harness::batch_source(seed, 0, count),
    )
    .unwrap();
    let elapsed = build();
    let limit = Duration::from_secs_f64(SECONDS_PER_GRAPH * count as f64);
    eprintln!(
        "{count} large graphs of seed {seed:#x}: release build in {:.1} s ({:.2} s per graph; limit {SECONDS_PER_GRAPH} s)",
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() / count as f64
    );
    assert!(
        elapsed <= limit,
        "{count} graphs took {elapsed:?} in release, past {SECONDS_PER_GRAPH} s per graph"
    );
}
