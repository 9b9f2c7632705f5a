//! Vision ops in random graphs (issue 31): `conv` (groups and depthwise, bias, strides,
//! pads, dilations), `max_pool` and `average_pool` (both `count_include_pad`s) over one to
//! three literal spatial axes of an `[N, C, spatial…]` value, the batch literal or named.
//!
//! Floats of every width: an `f16`/`bf16` conv is its expression form (a product stage
//! per kernel position, each rounded into the dtype, added in f32), which the
//! interpreter models position by position (interp/vision.rs). Pads stay below the kernel and a dilated window has none, so that every window
//! holds an element of the input (a window of padding alone has no value ONNX agrees on
//! across the pools).

use super::*;

/// One spatial axis's window: kernel length, stride, dilation, pads before and after.
struct Window {
    len: usize,
    kernel: usize,
    stride: usize,
    dilation: usize,
    pads: (usize, usize),
}

impl Window {
    /// `floor((L + pads − dilation·(k − 1) − 1) / stride) + 1`.
    fn out(&self) -> usize {
        (self.len + self.pads.0 + self.pads.1 - self.dilation * (self.kernel - 1) - 1) / self.stride
            + 1
    }
}

impl Gen {
    /// A random window over an axis of `len`, never longer than the padded axis.
    fn window(&mut self, len: usize) -> Window {
        let kernel = *self.rng.pick(&[1, 2, 2, 3, 3]);
        let stride = *self.rng.pick(&[1, 1, 2, 3]);
        let dilation = if kernel > 1 && self.rng.chance(0.25) {
            2
        } else {
            1
        };
        let pads = if dilation == 1 {
            let most = kernel - 1;
            (self.rng.below(most + 1), self.rng.below(most + 1))
        } else {
            (0, 0)
        };
        let w = Window {
            len,
            kernel,
            stride,
            dilation,
            pads,
        };
        if len + pads.0 + pads.1 >= dilation * (kernel - 1) + 1 {
            w
        } else {
            Window {
                len,
                kernel: 1,
                stride,
                dilation: 1,
                pads: (0, 0),
            }
        }
    }

    /// An input `[N, C, spatial…]`: a float value in scope of that form with literal
    /// channels and spatial lengths (1 to 9), or a new parameter.
    fn vision_input(&mut self, dt: DType) -> Val {
        let literal = |d: &Dim| matches!(d, Dim::Lit(n) if (1..=9).contains(n));
        let from_scope = self.pick_tensor(3).filter(|v| {
            (3..=5).contains(&v.ty.rank())
                && v.ty.dtype.is_float()
                && v.ty.dims[1..].iter().all(literal)
                && !matches!(v.ty.dims[0], Dim::Lit(0))
        });
        match from_scope {
            Some(v) if self.rng.chance(0.4) => v,
            _ => {
                let spatial = 1 + self.rng.weighted(&[3, 5, 1]);
                let mut dims = vec![self.base_dim(), Dim::Lit(*self.rng.pick(&[1, 2, 3, 4]))];
                for _ in 0..spatial {
                    dims.push(Dim::Lit(*self.rng.pick(&[1, 2, 3, 4, 5, 7, 9])));
                }
                self.add_param(dt, Some(dims))
            }
        }
    }

    pub(super) fn vision(&mut self) -> Option<Val> {
        let dt = *self.rng.pick(&[F32, F64, F32, F64, F16, BF16]);
        let x = self.vision_input(dt);
        let dt = x.ty.dtype;
        let lens: Vec<usize> = x.ty.dims[2..]
            .iter()
            .map(|d| match d {
                Dim::Lit(n) => *n,
                _ => unreachable!("literal spatial lengths"),
            })
            .collect();
        let windows: Vec<Window> = lens.iter().map(|&l| self.window(l)).collect();
        let ints = |f: &dyn Fn(&Window) -> usize| -> Vec<i64> {
            windows.iter().map(|w| f(w) as i64).collect()
        };
        let mut pads = ints(&|w| w.pads.0);
        pads.extend(ints(&|w| w.pads.1));
        let mut named = vec![
            ("strides", Arg::Ints(ints(&|w| w.stride))),
            ("pads", Arg::Ints(pads)),
            ("dilations", Arg::Ints(ints(&|w| w.dilation))),
        ];
        let mut dims = vec![x.ty.dims[0].clone(), x.ty.dims[1].clone()];
        dims.extend(windows.iter().map(|w| Dim::Lit(w.out())));
        let expr = match self.rng.weighted(&[4, 2, 2]) {
            0 => {
                let Dim::Lit(c) = x.ty.dims[1] else {
                    unreachable!("a literal channel count")
                };
                let groups: Vec<usize> = (1..=c).filter(|g| c % g == 0).collect();
                let group = *self.rng.pick(&groups);
                let outs = group * *self.rng.pick(&[1, 1, 2]);
                let mut wdims = vec![Dim::Lit(outs), Dim::Lit(c / group)];
                wdims.extend(windows.iter().map(|w| Dim::Lit(w.kernel)));
                let w = self.add_param(dt, Some(wdims));
                let mut args = vec![Arg::E(x.expr), Arg::E(w.expr)];
                if self.rng.chance(0.5) {
                    let b = self.add_param(dt, Some(vec![Dim::Lit(outs)]));
                    args.push(Arg::E(b.expr));
                }
                named.push(("group", Arg::Int(group as i64)));
                dims[1] = Dim::Lit(outs);
                call("conv", args, named)
            }
            pool => {
                named.insert(0, ("kernel_shape", Arg::Ints(ints(&|w| w.kernel))));
                let f = if pool == 1 {
                    "max_pool"
                } else {
                    if self.rng.chance(0.5) {
                        named.push(("count_include_pad", Arg::Bool(true)));
                    }
                    "average_pool"
                };
                call(f, vec![Arg::E(x.expr)], named)
            }
        };
        Some(Val {
            expr,
            ty: Ty { dtype: dt, dims },
            scalar: false,
        })
    }
}
