//! Compile-fail cases that pass ndarray arrays (ui-tests/ndarray/), which need the `ndarray`
//! feature: `cargo test -p tensorgraph-tests --features ndarray --test ui_ndarray` (README.md
//! and .ci/run). trybuild builds its cases with the features of this package that the crate
//! under test also has (its `features::find` reads this build's fingerprint), so this
//! package's `ndarray` feature turns on tensorgraph's, and the cases may `use ndarray::…`
//! (tensorgraph's optional dependency). The main batch (ui.rs) runs without the feature and
//! skips this folder. Regenerate with `TRYBUILD=overwrite` as there.
#![cfg(feature = "ndarray")]

#[test]
fn ui_ndarray() {
    // As in ui.rs: the cases are tests of the repository root's crate, with paths
    // `ui-tests/…` and line numbers in their `.stderr`.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tensorgraph-tests/ sits in the repository root");
    std::env::set_var("CARGO_MANIFEST_DIR", root);
    std::env::set_current_dir(root).unwrap();
    let n = std::fs::read_dir("ui-tests/ndarray")
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "rs")
        })
        .count();
    assert!(n > 0, "ui-tests/ndarray holds no case");
    trybuild::TestCases::new().compile_fail("ui-tests/ndarray/*.rs");
}
