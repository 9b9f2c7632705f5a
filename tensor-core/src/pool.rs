//! The runtime entry of `max_pool` (issue 31 item 7): one pass over the input per plane,
//! each element read once per output row whose window covers it, instead of the graph's
//! expression form (a `max` of one strided view of the padded input per kernel position,
//! which the fused kernels run as `k²` gathers per output vector: 20% of the memory bound).
//!
//! Per output row (every spatial axis but the last fixed) the kernel takes the elementwise
//! `max` of the input rows its window covers into a row buffer (contiguous vector loads),
//! splits that buffer into its `stride` phases (`phase_p[i] = buf[i·stride + p]`, one
//! deinterleave per row), and each vector of outputs reads each kernel tap as one
//! contiguous vector of a phase. The row buffer holds the padding as `-inf`, so a window
//! that overlaps it (ONNX's pads, `ceil_mode`'s extra end) needs no bounds arithmetic and a
//! window of padding alone gives `-inf`, as ONNX's definition. The input rows a few output
//! rows ahead are prefetched. `max` is the language's (NaN if either is NaN, `-0 < +0`:
//! `NumLanes::max_lanes`, `Num::max`, or `PoolMax`'s three-instruction AVX-512DQ form), so
//! the result is the expression form's whatever the order of the window (NaN payloads
//! aside).
//!
//! Generated code (tensor-macros emit/stages.rs) calls [`MaxPool::max_pool`] with the window
//! the checker computed (check/vision.rs, check/pool_kernel.rs); it is implemented for
//! `f32` and `f64` here, so a user's crate calls code compiled once in the runtime (issue
//! 17). Reads and writes are slice indexing, each range checked once per row or vector; the
//! only `unsafe` is `PoolMax`'s AVX-512 form (register casts and intrinsics, no memory).

use crate::lanes::{prefetch_chunk, NumLanes, LANES, V};

/// Output rows ahead whose new input rows are prefetched.
const PREFETCH_ROWS: usize = 3;
/// Bytes of a cache line.
const LINE: usize = 64;
use crate::reference::Num;

/// A pooling window over three spatial axes (a 1-D or 2-D pool leads with axes of length
/// 1, kernel 1, stride 1, no pads). Output index `o` along an axis reads input indices
/// `o·stride + t·dilation − pad` for `t < kernel`; those outside `0..len` are padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolWindow {
    /// Input lengths.
    pub lens: [usize; 3],
    /// Output lengths (ONNX's formula, floor or ceil: the caller's).
    pub outs: [usize; 3],
    /// Taps of the window.
    pub kernel: [usize; 3],
    /// Input elements between consecutive outputs' windows.
    pub strides: [usize; 3],
    /// Input elements between consecutive taps.
    pub dilations: [usize; 3],
    /// Padding before each axis; the end's is whatever the output lengths imply.
    pub pads: [usize; 3],
    /// Elements between the starts of consecutive input rows (over every plane): `lens[2]`
    /// for row-major planes, more for a row-strided view (an ndarray column block).
    pub row_pitch: usize,
}

impl PoolWindow {
    /// The input index output `o` reads at tap `t` along axis `a`, if it is not padding.
    fn input_index(&self, a: usize, o: usize, t: usize) -> Option<usize> {
        o.checked_mul(self.strides[a])?
            .checked_add(t.checked_mul(self.dilations[a])?)?
            .checked_sub(self.pads[a])
            .filter(|&i| i < self.lens[a])
    }

    /// Elements of one input plane and one output plane, and the row buffer's length (see
    /// [`max_pool_planes`]); `None` for a window that cannot run (a 0 kernel, stride or
    /// dilation, or sizes whose products overflow).
    fn plan(&self) -> Option<(usize, usize, usize)> {
        if self.kernel.contains(&0) || self.strides.contains(&0) || self.dilations.contains(&0) {
            return None;
        }
        let product = |v: [usize; 3]| v.iter().try_fold(1usize, |p, &n| p.checked_mul(n));
        let (in_len, out_len) = (product(self.lens)?, product(self.outs)?);
        // The row buffer, indexed by `input index + pad`: the input row, and every index
        // a whole vector of outputs reads (`(outs - LANES + i)·stride + t·dilation` for
        // `i < LANES`, read as one run of `LANES·stride` from its first).
        let (s, d, k) = (self.strides[2], self.dilations[2], self.kernel[2]);
        let reach = self.outs[2]
            .checked_mul(s)?
            .checked_add((k - 1).checked_mul(d)?)?;
        let row = (self.pads[2].checked_add(self.lens[2])?).max(reach);
        Some((in_len, out_len, row))
    }
}

/// The element types `max_pool` runs on in the runtime.
pub trait MaxPool: Sized {
    /// `out[p][o] = max` over the window of output position `o` of `x[p][…]` for each of
    /// `planes` planes (`N·C`): planes of `window.lens` in `x`, rows `window.row_pitch`
    /// apart, and row-major planes of `window.outs` in `out`; padding counts as `-inf`.
    /// Writes nothing (and never reads out of bounds) if `x` or `out` is shorter than its
    /// planes, a row is longer than the pitch, or the window cannot run: generated code
    /// passes only consistent calls.
    fn max_pool(x: &[Self], out: &mut [Self], planes: usize, window: PoolWindow);
}

macro_rules! max_pool {
    ($($t:ty),*) => {$(
        impl MaxPool for $t {
            fn max_pool(x: &[$t], out: &mut [$t], planes: usize, window: PoolWindow) {
                max_pool_planes(x, out, planes, &window, <$t>::NEG_INFINITY);
            }
        }
    )*};
}
max_pool!(f32, f64);

/// The language's `max` of two vectors (`NumLanes::max_lanes`: NaN if either is NaN,
/// `-0 < +0`). On AVX-512DQ builds `f32` takes a `vrangeps` with imm8 `0b0101` (max, sign
/// from the comparison: `-0 < +0`; it returns the number when one side is NaN), one
/// unordered compare and a masked add for the NaNs: three instructions where
/// `max_lanes` spends nine (`f64` the same with `vrangepd` on each half of its lanes); the pass is then closer to memory-bound (NOTES.md "max_pool
/// and resize kernels"). The unit tests below run it on native builds.
trait PoolMax: NumLanes {
    #[inline(always)]
    fn pool_max(a: V<Self>, b: V<Self>) -> V<Self> {
        Self::max_lanes(a, b)
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512dq", not(miri))))]
impl PoolMax for f64 {}

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512dq", not(miri))))]
impl PoolMax for f32 {}

/// `f64`'s form of the `f32` one below: `vrangepd` (imm8 `0b0101`) on each 8-lane half of
/// the 16 lanes, an unordered compare and a masked add for the NaNs.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512dq", not(miri)))]
impl PoolMax for f64 {
    #[inline(always)]
    fn pool_max(a: V<f64>, b: V<f64>) -> V<f64> {
        use core::arch::x86_64::{
            __m512d, _mm512_cmp_pd_mask, _mm512_mask_add_pd, _mm512_range_pd, _CMP_UNORD_Q,
        };
        // SAFETY: `LANES` is 16 on AVX-512 builds (dtype.rs), so `[f64; LANES]` and
        // `[__m512d; 2]` are both 128 bytes (`transmute` checks the sizes at compile time)
        // and every bit pattern is a valid value of each.
        let (a, b) = unsafe {
            (
                core::mem::transmute::<[f64; LANES], [__m512d; 2]>(a.0),
                core::mem::transmute::<[f64; LANES], [__m512d; 2]>(b.0),
            )
        };
        let half = |a: __m512d, b: __m512d| {
            // SAFETY: AVX-512F and DQ are enabled for the whole build (this impl exists
            // only under `target_feature = "avx512dq"`, which implies AVX-512F); the
            // intrinsics read and write registers only.
            unsafe {
                let m = _mm512_range_pd::<0b0101>(a, b);
                // `vrangepd` gives the number when one side is NaN: NaN where either is.
                let unordered = _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, b);
                _mm512_mask_add_pd(m, unordered, a, b)
            }
        };
        let m = [half(a[0], b[0]), half(a[1], b[1])];
        // SAFETY: as above, the other way.
        V(unsafe { core::mem::transmute::<[__m512d; 2], [f64; LANES]>(m) })
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx512dq", not(miri)))]
impl PoolMax for f32 {
    #[inline(always)]
    fn pool_max(a: V<f32>, b: V<f32>) -> V<f32> {
        use core::arch::x86_64::{
            __m512, _mm512_cmp_ps_mask, _mm512_mask_add_ps, _mm512_range_ps, _CMP_UNORD_Q,
        };
        // SAFETY: `LANES` is 16 on AVX-512 builds (dtype.rs), so `[f32; LANES]` and
        // `__m512` are both 64 bytes (`transmute` checks the sizes at compile time) and
        // every bit pattern is a valid value of each.
        let (a, b) = unsafe {
            (
                core::mem::transmute::<[f32; LANES], __m512>(a.0),
                core::mem::transmute::<[f32; LANES], __m512>(b.0),
            )
        };
        // SAFETY: AVX-512F and DQ are enabled for the whole build (this impl exists only
        // under `target_feature = "avx512dq"`, which implies AVX-512F), so every CPU the
        // build runs on has them; the three read and write registers only.
        let m = unsafe {
            let m = _mm512_range_ps::<0b0101>(a, b);
            // `vrangeps` gives the number when one side is NaN: NaN (`a + b`) where
            // either is, as `max_lanes`.
            let unordered = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, b);
            _mm512_mask_add_ps(m, unordered, a, b)
        };
        // SAFETY: as above, the other way.
        V(unsafe { core::mem::transmute::<__m512, [f32; LANES]>(m) })
    }
}

/// [`MaxPool::max_pool`] with `lowest` (`-inf`) for the padding.
///
/// Per output row: `buf` (the row buffer, indexed by input index + pad) gets the max of the
/// covered input rows; along the row, output `j` reads `buf[j·s + t·d]` at tap `t`, which is
/// element `j + (t·d) / s` of phase `(t·d) mod s` of `buf` (`phase_p[i] = buf[i·s + p]`), so
/// a vector of outputs reads each tap as one contiguous vector of a phase. Both buffers
/// are `lowest` outside the row and `LANES` past the last index any output reads, so the
/// last (partial) vector of a row reads whole vectors too.
fn max_pool_planes<T: PoolMax>(x: &[T], out: &mut [T], planes: usize, w: &PoolWindow, lowest: T) {
    let Some((in_len, out_len, row_len)) = w.plan() else {
        return;
    };
    let [_, h, width] = w.lens;
    let pitch = w.row_pitch;
    // Input rows per plane, and the elements `x` must hold: the last row's end.
    let plane_rows = w.lens[0] * h;
    let Some(rows) = planes.checked_mul(plane_rows) else {
        return;
    };
    let need_x = match rows.checked_sub(1) {
        Some(last) if width > 0 => match last.checked_mul(pitch).and_then(|e| e.checked_add(width))
        {
            Some(n) => n,
            None => return,
        },
        _ => 0,
    };
    let Some(need_out) = planes.checked_mul(out_len) else {
        return;
    };
    if x.len() < need_x || out.len() < need_out || out_len == 0 || pitch < width {
        return;
    }
    if in_len == 0 {
        // An empty input axis: every window is padding.
        out[..need_out].fill(lowest);
        return;
    }
    let oh = w.outs[1];
    let (pad, s) = (w.pads[2], w.strides[2]);
    // Each phase is `m` long; `buf` is `m·s` (every index `row_len + LANES` covers).
    let Some(m) = row_len.div_ceil(s).checked_add(LANES) else {
        return;
    };
    let Some(buf_len) = m.checked_mul(s) else {
        return;
    };
    let mut buf = vec![lowest; buf_len];
    let mut phases = vec![lowest; if s == 1 { 0 } else { buf_len }];
    // The chunks of `s` of `buf` that hold the input row (the others stay `lowest`).
    let (c0, c1) = (pad / s, (pad + width).div_ceil(s));
    let mut rows: Vec<usize> = Vec::with_capacity(w.kernel[0] * w.kernel[1]);
    for (p, op) in out[..need_out].chunks_exact_mut(out_len).enumerate() {
        let first_row = p * plane_rows;
        for (r, orow) in op.chunks_exact_mut(w.outs[2]).enumerate() {
            let (od, ohi) = (r / oh, r % oh);
            rows.clear();
            for td in 0..w.kernel[0] {
                let Some(id) = w.input_index(0, od, td) else {
                    continue;
                };
                for th in 0..w.kernel[1] {
                    if let Some(ih) = w.input_index(1, ohi, th) {
                        // `id < lens[0]`, `ih < h`: a row of this plane, so it ends at or
                        // before the last row's end, within `need_x`.
                        rows.push((first_row + id * h + ih) * pitch);
                    }
                }
            }
            // The rows the output row `PREFETCH_ROWS` ahead adds at the end of its window,
            // a cache line at a time: the hardware prefetchers alone left the pass
            // waiting on memory (measured, NOTES.md "max_pool and resize kernels").
            if let Some(&last) = rows.last() {
                let ahead = last + (1 + (PREFETCH_ROWS - 1) * w.strides[1]) * pitch;
                for row in (0..w.strides[1]).map(|r| ahead + r * pitch) {
                    for at in (row..row + width).step_by(LINE / core::mem::size_of::<T>()) {
                        prefetch_chunk(x, at);
                    }
                }
            }
            let dst = &mut buf[pad..pad + width];
            match rows.as_slice() {
                // Every input row of the window is padding.
                [] => {
                    orow.fill(lowest);
                    continue;
                }
                [r0] => dst.copy_from_slice(&x[*r0..][..width]),
                [r0, r1, rest @ ..] => {
                    max_of(dst, &x[*r0..][..width], &x[*r1..][..width]);
                    for &ri in rest {
                        max_into(dst, &x[ri..][..width]);
                    }
                }
            }
            let (d, k) = (w.dilations[2], w.kernel[2]);
            // A literal stride lets LLVM split the row into phases with whole vectors.
            match s {
                1 => along_row(&buf, m, orow, 1, d, k),
                2 => {
                    let (even, odd) = phases.split_at_mut(m);
                    let pairs = buf[2 * c0..2 * c1].chunks_exact(2);
                    for ((e, o), pair) in even[c0..c1].iter_mut().zip(&mut odd[c0..c1]).zip(pairs) {
                        (*e, *o) = (pair[0], pair[1]);
                    }
                    // ResNet's 3×3 / 2 window with literal taps (its loop unrolled).
                    if (k, d) == (3, 1) {
                        along_row(&phases, m, orow, 2, 1, 3);
                    } else {
                        along_row(&phases, m, orow, 2, d, k);
                    }
                }
                _ => {
                    for (i, chunk) in buf[s * c0..s * c1].chunks_exact(s).enumerate() {
                        for (p, &v) in chunk.iter().enumerate() {
                            phases[p * m + c0 + i] = v;
                        }
                    }
                    along_row(&phases, m, orow, s, d, k);
                }
            }
        }
    }
}

/// `dst[i] = max(dst[i], src[i])`, a vector at a time.
fn max_into<T: PoolMax>(dst: &mut [T], src: &[T]) {
    let mut d = dst.chunks_exact_mut(LANES);
    let mut s = src.chunks_exact(LANES);
    for (dc, sc) in (&mut d).zip(&mut s) {
        let a = V(<[T; LANES]>::try_from(&*dc).expect("a LANES chunk"));
        let b = V(<[T; LANES]>::try_from(sc).expect("a LANES chunk"));
        dc.copy_from_slice(&T::pool_max(a, b).0);
    }
    for (dv, &sv) in d.into_remainder().iter_mut().zip(s.remainder()) {
        *dv = <T as Num>::max(*dv, sv);
    }
}

/// `dst[i] = max(a[i], b[i])`, a vector at a time.
fn max_of<T: PoolMax>(dst: &mut [T], a: &[T], b: &[T]) {
    let mut d = dst.chunks_exact_mut(LANES);
    let (mut ac, mut bc) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    for ((dc, x), y) in (&mut d).zip(&mut ac).zip(&mut bc) {
        let x = V(<[T; LANES]>::try_from(x).expect("a LANES chunk"));
        let y = V(<[T; LANES]>::try_from(y).expect("a LANES chunk"));
        dc.copy_from_slice(&T::pool_max(x, y).0);
    }
    let tails = ac.remainder().iter().zip(bc.remainder());
    for (dv, (&x, &y)) in d.into_remainder().iter_mut().zip(tails) {
        *dv = <T as Num>::max(x, y);
    }
}

/// `out[j] = max_{t < k} buf[j·s + t·d]`, read from the phases of `buf` (`m` long each:
/// `phases[p·m + i] = buf[i·s + p]`; for `s = 1` the buffer itself), a vector of outputs
/// at a time. In bounds: the vector at `j0 < n` reads tap `t` at `j0 + (t·d)/s + LANES ≤
/// n − 1 + (k − 1)·d/s + LANES < m` in its phase (`m ≥ (n·s + (k − 1)·d)/s + LANES`,
/// `PoolWindow::plan` and `max_pool_planes`).
#[inline(always)]
fn along_row<T: PoolMax>(phases: &[T], m: usize, out: &mut [T], s: usize, d: usize, k: usize) {
    let n = out.len();
    let mut j0 = 0;
    while j0 < n {
        let tap = |t: usize| -> V<T> {
            let q = t * d;
            let at = (q % s) * m + q / s + j0;
            V(<[T; LANES]>::try_from(&phases[at..at + LANES]).expect("a LANES run"))
        };
        let mut acc = tap(0);
        for t in 1..k {
            acc = T::pool_max(acc, tap(t));
        }
        if j0 + LANES <= n {
            let whole: &mut [T; LANES] =
                (&mut out[j0..j0 + LANES]).try_into().expect("a LANES run");
            *whole = acc.0;
        } else {
            // The row's last, partial vector (an element loop: a `copy_from_slice` of a
            // run-time length is a `memcpy` call).
            for (o, &v) in out[j0..].iter_mut().zip(&acc.0) {
                *o = v;
            }
        }
        j0 += LANES;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ONNX MaxPool's definition in f64, one output at a time: the maximum of the window's
    /// elements inside the input (padding never wins; a window of padding alone is
    /// `-inf`), NaN if the window holds one (the language's `max`).
    fn reference(x: &[f64], planes: usize, w: &PoolWindow) -> Vec<f64> {
        let in_len: usize = w.lens.iter().product();
        let mut out = Vec::new();
        for p in 0..planes {
            for o0 in 0..w.outs[0] {
                for o1 in 0..w.outs[1] {
                    for o2 in 0..w.outs[2] {
                        let mut m = f64::NEG_INFINITY;
                        let mut nan = false;
                        for t0 in 0..w.kernel[0] {
                            for t1 in 0..w.kernel[1] {
                                for t2 in 0..w.kernel[2] {
                                    let at = |a: usize, o: usize, t: usize| {
                                        let i = (o * w.strides[a] + t * w.dilations[a]) as i64
                                            - w.pads[a] as i64;
                                        (0..w.lens[a] as i64).contains(&i).then_some(i as usize)
                                    };
                                    let (Some(i0), Some(i1), Some(i2)) =
                                        (at(0, o0, t0), at(1, o1, t1), at(2, o2, t2))
                                    else {
                                        continue;
                                    };
                                    let v = x[p * in_len + (i0 * w.lens[1] + i1) * w.lens[2] + i2];
                                    nan |= v.is_nan();
                                    if v > m || (v == 0.0 && m == 0.0 && v.is_sign_positive()) {
                                        m = v;
                                    }
                                }
                            }
                        }
                        out.push(if nan { f64::NAN } else { m });
                    }
                }
            }
        }
        out
    }

    /// ONNX's output length (floor, or ceil with `ceil`).
    fn out_len(len: usize, k: usize, s: usize, d: usize, pads: usize, ceil: bool) -> usize {
        let room = len + pads - (k - 1) * d - 1;
        if ceil {
            room.div_ceil(s) + 1
        } else {
            room / s + 1
        }
    }

    fn values(n: usize, seed: u64) -> Vec<f64> {
        (0..n as u64)
            // Multiples of 1/1024: exact in f32, so the f32 maxima are exact too.
            .map(|i| ((i * 2654435761 + seed * 40503) % 2001) as f64 / 1024.0 - 1.0)
            .collect()
    }

    /// Runs `f32` and `f64` against the reference over `planes` planes of `lens`.
    #[allow(clippy::too_many_arguments)]
    fn check(
        planes: usize,
        lens: [usize; 3],
        kernel: [usize; 3],
        strides: [usize; 3],
        dilations: [usize; 3],
        pads: [usize; 6],
        ceil: bool,
        specials: &[(usize, f64)],
    ) {
        let outs: [usize; 3] = core::array::from_fn(|a| {
            out_len(
                lens[a],
                kernel[a],
                strides[a],
                dilations[a],
                pads[a] + pads[3 + a],
                ceil,
            )
        });
        let w = PoolWindow {
            lens,
            outs,
            kernel,
            strides,
            dilations,
            pads: [pads[0], pads[1], pads[2]],
            row_pitch: lens[2],
        };
        let n = planes * lens.iter().product::<usize>();
        let mut x = values(n, 7);
        for &(at, v) in specials {
            x[at % n] = v;
        }
        let want = reference(&x, planes, &w);
        let same = |got: f64, want: f64| {
            (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits()
        };
        let mut out64 = vec![7.0f64; want.len()];
        f64::max_pool(&x, &mut out64, planes, w);
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut out32 = vec![7.0f32; want.len()];
        f32::max_pool(&x32, &mut out32, planes, w);
        for (i, &wv) in want.iter().enumerate() {
            // The inputs are exact in f32, so the maxima are too.
            assert!(same(out64[i], wv), "f64 {w:?} at {i}: {} vs {wv}", out64[i]);
            assert!(
                same(out32[i] as f64, wv),
                "f32 {w:?} at {i}: {} vs {wv}",
                out32[i]
            );
        }
    }

    #[test]
    fn max_pool_matches_the_definition_in_2d() {
        // The benchmark's shape, small: 3×3 / 2, pads 1 at every edge, odd and even sizes.
        for (h, w) in [(7, 9), (8, 8), (1, 1), (2, 35), (33, 3)] {
            check(
                3,
                [1, h, w],
                [1, 3, 3],
                [1, 2, 2],
                [1; 3],
                [0, 1, 1, 0, 1, 1],
                false,
                &[],
            );
        }
        // Stride 1, uneven pads, a kernel wider than the vector, dilation 2, stride 3.
        check(
            2,
            [1, 6, 40],
            [1, 2, 3],
            [1, 1, 1],
            [1; 3],
            [0, 0, 2, 0, 1, 0],
            false,
            &[],
        );
        check(
            1,
            [1, 5, 50],
            [1, 2, 19],
            [1, 1, 1],
            [1; 3],
            [0; 6],
            false,
            &[],
        );
        check(
            2,
            [1, 9, 41],
            [1, 3, 3],
            [1, 2, 3],
            [1, 2, 2],
            [0, 2, 1, 0, 1, 2],
            false,
            &[],
        );
        // ceil_mode: the last window runs past the end.
        check(
            2,
            [1, 8, 36],
            [1, 3, 3],
            [1, 2, 2],
            [1; 3],
            [0; 6],
            true,
            &[],
        );
        check(
            1,
            [1, 6, 37],
            [1, 2, 2],
            [1, 3, 3],
            [1; 3],
            [0, 1, 1, 0, 1, 1],
            true,
            &[],
        );
        // Pads wider than the window: whole windows of padding give -inf.
        check(
            1,
            [1, 3, 20],
            [1, 2, 2],
            [1, 1, 1],
            [1; 3],
            [0, 3, 3, 0, 3, 3],
            false,
            &[],
        );
    }

    #[test]
    fn max_pool_matches_the_definition_in_1d_and_3d() {
        for len in 1..12 {
            check(
                2,
                [1, 1, len],
                [1, 1, 3],
                [1, 1, 2],
                [1; 3],
                [0, 0, 1, 0, 0, 1],
                false,
                &[],
            );
            if len >= 2 {
                check(
                    1,
                    [1, 1, len],
                    [1, 1, 2],
                    [1; 3],
                    [1; 3],
                    [0; 6],
                    false,
                    &[],
                );
            }
        }
        check(
            1,
            [1, 1, 70],
            [1, 1, 4],
            [1, 1, 3],
            [1, 1, 2],
            [0, 0, 2, 0, 0, 1],
            true,
            &[],
        );
        check(
            2,
            [5, 6, 33],
            [3, 3, 3],
            [2, 2, 2],
            [1; 3],
            [1, 1, 1, 1, 1, 1],
            false,
            &[],
        );
        check(
            1,
            [4, 7, 18],
            [2, 3, 2],
            [1, 2, 3],
            [2, 1, 1],
            [0, 2, 1, 1, 0, 2],
            true,
            &[],
        );
    }

    #[test]
    fn max_pool_propagates_nan_and_orders_signed_zeros() {
        let specials = [
            (5, f64::NAN),
            (40, f64::INFINITY),
            (41, f64::NEG_INFINITY),
            (77, f64::NAN),
            (100, -0.0),
            (101, 0.0),
            (130, -0.0),
            (200, f64::NAN),
        ];
        check(
            2,
            [1, 9, 37],
            [1, 3, 3],
            [1, 2, 2],
            [1; 3],
            [0, 1, 1, 0, 1, 1],
            false,
            &specials,
        );
        // Only negative zeros and zeros in a window: `+0` wins over `-0` (`-0 < +0`).
        let w = PoolWindow {
            lens: [1, 1, 4],
            outs: [1, 1, 2],
            kernel: [1, 1, 2],
            strides: [1, 1, 2],
            dilations: [1; 3],
            pads: [0; 3],
            row_pitch: 4,
        };
        let mut out = [1.0f32; 2];
        f32::max_pool(&[-0.0, 0.0, -0.0, -0.0], &mut out, 1, w);
        assert_eq!(
            out.map(f32::to_bits),
            [0.0f32.to_bits(), (-0.0f32).to_bits()]
        );
        // Across rows (the vertical max, whole vectors and the tail): rows of -0 and +0 in
        // both orders, and a NaN in either row, over a row longer than two vectors.
        let w = PoolWindow {
            lens: [1, 4, 37],
            outs: [1, 2, 37],
            kernel: [1, 2, 1],
            strides: [1, 2, 1],
            dilations: [1; 3],
            pads: [0; 3],
            row_pitch: 37,
        };
        let mut x = [0.0f32; 4 * 37];
        x[..37].fill(-0.0);
        x[3 * 37..].fill(-0.0);
        x[37 + 5] = f32::NAN;
        x[3 * 37 + 36] = f32::NAN;
        let mut out = [1.0f32; 2 * 37];
        f32::max_pool(&x, &mut out, 1, w);
        for (i, v) in out.iter().enumerate() {
            if i == 5 || i == 37 + 36 {
                assert!(v.is_nan(), "{i}: {v}");
            } else {
                assert_eq!(v.to_bits(), 0.0f32.to_bits(), "{i}: {v}");
            }
        }
    }

    #[test]
    fn max_pool_reads_rows_a_pitch_apart() {
        // Rows of 13 (and 1-D rows of 29) every 16 or 32 elements, NaN between them: never
        // read.
        for (planes, lens, kernel, strides, pads) in [
            (3, [1, 7, 13], [1, 3, 3], [1, 2, 2], [0, 1, 1]),
            (2, [2, 3, 13], [2, 2, 2], [1, 1, 2], [1, 0, 0]),
            (4, [1, 1, 29], [1, 1, 3], [1, 1, 2], [0, 0, 1]),
        ] {
            let width: usize = lens[2];
            let pitch = width.next_multiple_of(16) + 3;
            let outs: [usize; 3] = core::array::from_fn(|a| {
                out_len(lens[a], kernel[a], strides[a], 1, 2 * pads[a], false)
            });
            let w = PoolWindow {
                lens,
                outs,
                kernel,
                strides,
                dilations: [1; 3],
                pads,
                row_pitch: width,
            };
            let rows = planes * lens[0] * lens[1];
            let dense = values(rows * width, 3);
            let mut pitched = vec![f64::NAN; (rows - 1) * pitch + width];
            for r in 0..rows {
                pitched[r * pitch..][..width].copy_from_slice(&dense[r * width..][..width]);
            }
            let want = reference(&dense, planes, &w);
            let mut got = vec![7.0f64; want.len()];
            f64::max_pool(
                &pitched,
                &mut got,
                planes,
                PoolWindow {
                    row_pitch: pitch,
                    ..w
                },
            );
            assert_eq!(got, want, "{w:?} at pitch {pitch}");
            let pitched32: Vec<f32> = pitched.iter().map(|&v| v as f32).collect();
            let mut got32 = vec![7.0f32; want.len()];
            f32::max_pool(
                &pitched32,
                &mut got32,
                planes,
                PoolWindow {
                    row_pitch: pitch,
                    ..w
                },
            );
            let got32: Vec<f64> = got32.iter().map(|&v| v as f64).collect();
            assert_eq!(got32, want, "f32 {w:?} at pitch {pitch}");
        }
    }

    #[test]
    fn max_pool_writes_nothing_for_inconsistent_calls() {
        let w = PoolWindow {
            lens: [1, 4, 4],
            outs: [1, 2, 2],
            kernel: [1, 2, 2],
            strides: [1, 2, 2],
            dilations: [1; 3],
            pads: [0; 3],
            row_pitch: 4,
        };
        let x = [1.0f32; 16];
        let mut out = [5.0f32; 4];
        f32::max_pool(&x[..15], &mut out, 1, w);
        f32::max_pool(&x, &mut out[..3], 1, w);
        f32::max_pool(&x, &mut out, 2, w);
        f32::max_pool(
            &x,
            &mut out,
            1,
            PoolWindow {
                strides: [1, 0, 2],
                ..w
            },
        );
        f32::max_pool(&x, &mut out, 1, PoolWindow { row_pitch: 3, ..w });
        f32::max_pool(
            &x,
            &mut out,
            1,
            PoolWindow {
                outs: [1, usize::MAX, 2],
                ..w
            },
        );
        assert_eq!(out, [5.0; 4]);
        f32::max_pool(&x, &mut out, 1, w);
        assert_eq!(out, [1.0; 4]);
    }
}
