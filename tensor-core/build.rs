//! `cfg(tensorgraph_opt0)`: this crate is being compiled at opt-level 0 (a default `dev`
//! profile). The lane functions then carry no `#[inline]` hint (see `src/lanes.rs`): at
//! opt-level 0 nothing is inlined anyway, and a hinted function is compiled again inside
//! every crate that calls it, so each graph crate's debug build would compile every lane
//! operation its kernels use (issue 17). A build at opt-level 1 or more with debug
//! assertions (`[profile.dev] opt-level = 1`) keeps the hint, so its kernels still inline.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(tensorgraph_opt0)");
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("OPT_LEVEL").as_deref() == Ok("0") {
        println!("cargo::rustc-cfg=tensorgraph_opt0");
    }
}
