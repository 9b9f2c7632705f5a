//! Vector math. (Placeholder until the SIMD implementations land: glibc's erf/erfc.)
extern "C" {
    fn erf(x: f64) -> f64;
    fn erfc(x: f64) -> f64;
}
pub fn erf_scalar_f64(x: f64) -> f64 {
    // SAFETY: a pure libm function taking and returning a double.
    unsafe { erf(x) }
}
pub fn erfc_scalar_f64(x: f64) -> f64 {
    // SAFETY: a pure libm function taking and returning a double.
    unsafe { erfc(x) }
}
