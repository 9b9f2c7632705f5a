//! Compile-fail cases: one mistake per file, in a folder per kind of mistake (ui-tests/
//! syntax, dtypes, shapes, signatures (declared types and dim names), reductions, ops,
//! products, habits (other languages' spellings), warnings, call_site), each with its
//! reviewed `.stderr`; and in ui-tests/pass/, programs that must compile (warnings silenced by
//! `#[allow]`, the parameter traits accepting tensors, views and `_into`). All cases run
//! in one trybuild batch (one build of the dependencies), without the `ndarray` feature; the
//! cases that pass ndarray arrays (ui-tests/ndarray/) are ui_ndarray.rs's, with it.
//! Regenerate after an intended message change with `TRYBUILD=overwrite cargo test --test ui`
//! and review the diff like code.
//!
//! A test of the `tensorgraph-tests` package, which has trybuild as a dev-dependency (the
//! root package's dev-dependencies stay light for the examples). trybuild builds its cases
//! as if they were tests of the crate in `CARGO_MANIFEST_DIR`, which it reads when the cases
//! run; pointing it at the repository root keeps what the cases always were, tests of
//! `tensorgraph` with paths `ui-tests/…` and line numbers in the `.stderr` files (from
//! `tensorgraph-tests/` trybuild would print `$WORKSPACE/ui-tests/…` without line numbers).

#[test]
fn ui() {
    // trybuild reads `CARGO_MANIFEST_DIR` when the cases run and expands the globs from the
    // current directory: both become the repository root. The other test of this binary
    // reads neither, so nothing races with these writes.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tensorgraph-tests/ sits in the repository root");
    std::env::set_var("CARGO_MANIFEST_DIR", root);
    std::env::set_current_dir(root).unwrap();
    // One folder per kind of mistake (ui-tests/<kind>/*.rs), programs that must compile
    // in ui-tests/pass/; ui-tests/ndarray/ needs the `ndarray` feature and is ui_ndarray.rs's. A glob that matches nothing would pass silently: every folder
    // holds cases, and all of them count.
    let mut kinds: Vec<String> = std::fs::read_dir("ui-tests")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "pass" && n != "ndarray"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    kinds.sort();
    let mut cases = 0;
    for kind in &kinds {
        let n = std::fs::read_dir(format!("ui-tests/{kind}"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "rs")
            })
            .count();
        assert!(n > 0, "ui-tests/{kind} holds no case");
        cases += n;
    }
    assert!(cases > 50, "found only {cases} ui-tests/*/*.rs");
    // No case left at the top level, where no glob reads it.
    assert!(
        !std::fs::read_dir("ui-tests").unwrap().any(|e| e
            .unwrap()
            .path()
            .extension()
            .is_some_and(|x| x == "rs")),
        "a case in ui-tests/ itself: put it in the folder of its kind"
    );
    let t = trybuild::TestCases::new();
    for kind in &kinds {
        t.compile_fail(format!("ui-tests/{kind}/*.rs"));
    }
    t.pass("ui-tests/pass/*.rs");
}
