//! Compile-fail cases: one mistake per file in ui-tests/, each with its reviewed
//! `.stderr`; and in ui-tests/pass/, programs that must compile (warnings silenced by
//! `#[allow]`, the parameter traits accepting tensors, views and `_into`). All cases run
//! in one trybuild batch (one build of the dependencies).
//! Regenerate after an intended message change with `TRYBUILD=overwrite cargo test --test ui`
//! and review the diff like code.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/*.rs");
    t.pass("ui-tests/pass/*.rs");
}
