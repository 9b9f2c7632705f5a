//! The vision ops of random graphs (gen/vision.rs), from ONNX's definitions over
//! `[N, C, spatial…]`: `conv` as the sum of `x·w` over each output's window (padding
//! counts as zeros, so `0·inf` is NaN as in ONNX's padded input), `max_pool` as the
//! maximum of the window's elements (NaN propagates, as `max` does), `average_pool` as the
//! window's sum (padding's zeros included, as the views of the padded input the language
//! builds it from) over the count of its input elements or, with `count_include_pad`, of
//! all its positions.

use super::*;

/// Window attributes per spatial axis (`pads` as ONNX lists them: every begin, then
/// every end).
pub(super) struct Geometry {
    pub kernel: Vec<usize>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
    pub pads: Vec<usize>,
}

impl Geometry {
    fn outs(&self, lens: &[usize]) -> Vec<usize> {
        let r = lens.len();
        (0..r)
            .map(|a| {
                (lens[a] + self.pads[a] + self.pads[r + a]
                    - self.dilations[a] * (self.kernel[a] - 1)
                    - 1)
                    / self.strides[a]
                    + 1
            })
            .collect()
    }

    /// The input position that output position `out` reads at kernel position `tap`, or
    /// `None` in the padding.
    fn at(&self, lens: &[usize], out: &[usize], tap: &[usize]) -> Option<Vec<usize>> {
        (0..lens.len())
            .map(|a| {
                let p = (out[a] * self.strides[a] + tap[a] * self.dilations[a]) as i64
                    - self.pads[a] as i64;
                (0..lens[a] as i64).contains(&p).then_some(p as usize)
            })
            .collect()
    }
}

/// Every `(n, c)` then output position of an `[N, C, outs…]` result.
fn positions(
    n: usize,
    c: usize,
    outs: &[usize],
) -> impl Iterator<Item = (usize, usize, Vec<usize>)> {
    let outs = outs.to_vec();
    let per = count(&outs);
    (0..n * c * per).map(move |i| (i / per / c, i / per % c, unflatten(i % per, &outs)))
}

fn element(x: &T, n: usize, c: usize, at: &[usize]) -> E {
    let mut idx = vec![n, c];
    idx.extend_from_slice(at);
    x.data[flatten(&idx, &x.dims)]
}

pub(super) fn conv(x: &T, w: &T, bias: Option<&T>, geo: &Geometry, group: usize) -> T {
    let (n, lens) = (x.dims[0], &x.dims[2..]);
    let (outs_c, per_group) = (w.dims[0], w.dims[1]);
    let outs = geo.outs(lens);
    let taps = count(&geo.kernel);
    let data = positions(n, outs_c, &outs)
        .map(|(b, o, out)| {
            let g = o / (outs_c / group);
            // The products of kernel position `t`, one per input channel of the group.
            let tap_terms = |t: usize| -> Vec<(E, E)> {
                let tap = unflatten(t, &geo.kernel);
                (0..per_group)
                    .map(|ci| {
                        let xv = match geo.at(lens, &out, &tap) {
                            Some(at) => element(x, b, g * per_group + ci, &at),
                            None => E::F(0.0),
                        };
                        let mut wi = vec![o, ci];
                        wi.extend(&tap);
                        (xv, w.data[flatten(&wi, &w.dims)])
                    })
                    .collect()
            };
            let sum = if matches!(x.dtype, F16 | BF16) {
                // The language's f16/bf16 conv (docs/language.md, "Convolution"): per
                // kernel position, in row-major order, a depthwise conv multiplies
                // elementwise (in f32, not rounded: the fused pass keeps f32), any other
                // an `einsum` over the channels, a product stage accumulated in f32 and
                // stored rounded into the dtype; the positions are then added left to
                // right in f32 and the result rounded once on store.
                let depthwise = group == x.dims[1] && outs_c == x.dims[1];
                (0..taps)
                    .map(|t| {
                        let terms = tap_terms(t);
                        if depthwise {
                            let (a, b) = terms[0];
                            return apply("mul", x.dtype, &[a, b], &[]);
                        }
                        let wide: Vec<(E, E)> = terms
                            .into_iter()
                            .map(|(a, b)| (cast(x.dtype, a, F32), cast(x.dtype, b, F32)))
                            .collect();
                        cast(F32, dot(&wide, F32), x.dtype)
                    })
                    .reduce(|s, p| apply("add", x.dtype, &[s, p], &[]))
                    .expect("a kernel position")
            } else {
                let terms: Vec<(E, E)> = (0..taps).flat_map(tap_terms).collect();
                dot(&terms, x.dtype)
            };
            match bias {
                Some(b) => apply("add", x.dtype, &[sum, b.data[o]], &[]),
                None => sum,
            }
        })
        .collect();
    let mut dims = vec![n, outs_c];
    dims.extend(outs);
    T {
        dtype: x.dtype,
        dims,
        data,
    }
}

/// `max_pool` (`average: None`) or `average_pool` (`Some(count_include_pad)`).
pub(super) fn pool(x: &T, geo: &Geometry, average: Option<bool>) -> T {
    let (n, c, lens) = (x.dims[0], x.dims[1], &x.dims[2..]);
    let outs = geo.outs(lens);
    let taps = count(&geo.kernel);
    let data = positions(n, c, &outs)
        .map(|(b, ch, out)| {
            let window: Vec<Option<E>> = (0..taps)
                .map(|t| {
                    let at = geo.at(lens, &out, &unflatten(t, &geo.kernel))?;
                    Some(element(x, b, ch, &at))
                })
                .collect();
            let real: Vec<E> = window.iter().flatten().copied().collect();
            match average {
                None => real[1..]
                    .iter()
                    .fold(real[0], |m, &v| apply("max", x.dtype, &[m, v], &[])),
                Some(include_pad) => {
                    let terms: Vec<E> = window.iter().map(|v| v.unwrap_or(E::F(0.0))).collect();
                    let sum = float_sum(&terms, x.dtype);
                    let count = if include_pad { taps } else { real.len() };
                    apply("div", x.dtype, &[sum, E::F(count as f64)], &[])
                }
            }
        })
        .collect();
    let mut dims = vec![n, c];
    dims.extend(outs);
    T {
        dtype: x.dtype,
        dims,
        data,
    }
}
