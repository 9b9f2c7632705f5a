//! The stride phases of a strided convolution's input, laid out so that every im2col row
//! is a shifted copy of one of them (gemm/shifted.rs).
//!
//! With stride `s` along an axis, kernel index `t` of output coordinate `y` reads input
//! coordinate `s·y + t·d − p = s·(y + e) + phase`, with `phase = (t·d − p) mod s` and
//! `e = ⌊(t·d − p) / s⌋`: element `y + e` of the axis's phase `phase_i = input[s·i +
//! phase]`. So if each phase is copied out as a block with the *output's* lengths and
//! row-major strides, the tap reads that block moved by a constant `Σ_a e_a·row_major_a`,
//! exactly as a stride-1 "same" convolution reads its input. One pass over the input
//! (the phases together hold each input element at most once) buys the stride-1 packer:
//! one masked load per 16 positions and im2col row.
//!
//! The copy holds, per channel, one block of `P` (the output's positions) per combination
//! of phases the kernel uses (4 for a 3×3 stride-2 kernel; 1 for a 1×1 stride-2 one).
//! A phase element past the output's length along an axis has no place in its block;
//! `split` declines when a tap would read one (a phase longer than the output *and* a
//! tap with `e > 0`, as in an unpadded convolution of an odd length), and conv.rs then
//! takes the chunked product.

use super::im2col::{ConvInput, ConvWindow, SPATIAL};

/// The phase copy of one convolution's input (module doc), and where its taps read it.
pub(super) struct Phases {
    /// `data[c·chan_stride + slot·P + j]`: channel `c`, phase combination `slot`, output
    /// position `j` (row-major over the output's lengths); zero where the phase is shorter
    /// than the output.
    pub(super) data: Vec<f32>,
    pub(super) chan_stride: isize,
    /// Per tap: `slot·P + Σ_a e_a·row_major_a`, the tap's offset from position `j`.
    pub(super) shift: Vec<isize>,
}

/// Where kernel index `t` of one axis reads (stride `s`, dilation `d`, pad `p`): input
/// coordinate `s·y + t·d − p = s·(y + e) + phase` for output coordinate `y`, i.e. element
/// `y + e` of the axis's phase `phase` (`phase_i = input[s·i + phase]`, `len` long).
/// Stride 1: phase 0 is the axis itself and `e = t·d − p`.
#[derive(Clone, Copy)]
pub(super) struct AxisTap {
    pub(super) phase: usize,
    pub(super) e: isize,
    pub(super) len: usize,
}

impl AxisTap {
    pub(super) fn new(w: &ConvWindow, lens: [usize; SPATIAL], a: usize, t: usize) -> Self {
        let s = w.strides[a] as isize;
        // Fits: `Im2col::new` checked `(k − 1)·d` and the pads against isize.
        let q = (t * w.dilations[a]) as isize - w.pads[a] as isize;
        let phase = q.rem_euclid(s) as usize;
        AxisTap {
            phase,
            e: q.div_euclid(s),
            len: lens[a].saturating_sub(phase).div_ceil(s as usize),
        }
    }

    /// The output coordinates whose input coordinate is inside: `0 ≤ y + e < len`.
    pub(super) fn inside(self) -> (isize, isize) {
        (-self.e, self.len as isize - self.e)
    }
}

impl Phases {
    /// The phase copy of `x` for window `w`, whose taps along each axis are `taps[t][a]`;
    /// `None` when a tap would read a phase element past the output's length (module doc)
    /// or the input's last axis does not run forward in memory (stride ≤ 0).
    pub(super) fn split(
        x: &ConvInput<'_, f32>,
        w: &ConvWindow,
        taps: &[[AxisTap; SPATIAL]],
    ) -> Option<Self> {
        if x.strides[SPATIAL - 1] <= 0 {
            return None;
        }
        let out = w.out;
        // Every element a tap reads inside its phase (`y + e < len`, y < out) must have a
        // place in the phase's block: `y + e < out` too.
        for tap in taps {
            for (a, t) in tap.iter().enumerate() {
                if t.e > 0 && t.len > out[a] {
                    return None;
                }
            }
        }
        // The phases used along each axis, in order of first use: a tap's slot is their
        // combination's index.
        let used: [Vec<usize>; SPATIAL] = core::array::from_fn(|a| {
            let mut used: Vec<usize> = Vec::new();
            for tap in taps {
                if !used.contains(&tap[a].phase) {
                    used.push(tap[a].phase);
                }
            }
            used
        });
        let slot_of = |tap: &[AxisTap; SPATIAL]| -> usize {
            (0..SPATIAL).fold(0, |slot, a| {
                let i = used[a].iter().position(|&p| p == tap[a].phase);
                slot * used[a].len() + i.expect("every tap's phase is listed")
            })
        };
        let row_major = [(out[1] * out[2]) as isize, out[2] as isize, 1];
        let plane = w.positions();
        let slots: usize = used.iter().map(Vec::len).product();
        let chan_stride = slots.checked_mul(plane)?;
        let shift = taps
            .iter()
            .map(|tap| {
                (slot_of(tap) * plane) as isize
                    + (0..SPATIAL).map(|a| tap[a].e * row_major[a]).sum::<isize>()
            })
            .collect();
        let mut data = vec![0.0f32; x.channels.checked_mul(chan_stride)?];
        // The phase lengths along each axis, per used phase (clamped to the output's:
        // longer phases have no reader past it, checked above).
        let lens: [Vec<usize>; SPATIAL] = core::array::from_fn(|a| {
            used[a]
                .iter()
                .map(|&p| {
                    let s = w.strides[a];
                    x.lens[a].saturating_sub(p).div_ceil(s).min(out[a])
                })
                .collect()
        });
        let s = w.strides.map(|s| s as isize);
        let n2 = used[2].len();
        for (c, channel) in data.chunks_exact_mut(chan_stride.max(1)).enumerate() {
            let chan = x.offset as isize + c as isize * x.chan_stride;
            for (i0, &p0) in used[0].iter().enumerate() {
                for (i1, &p1) in used[1].iter().enumerate() {
                    // The blocks of the phase combinations (p0, p1, any p2), side by side.
                    let slot = (i0 * used[1].len() + i1) * n2;
                    let blocks = &mut channel[slot * plane..(slot + n2) * plane];
                    for y0 in 0..lens[0][i0] {
                        for y1 in 0..lens[1][i1] {
                            // Input (c, s0·y0 + p0, s1·y1 + p1, 0): inside the input's box
                            // (`y_a <` the phase's length), which `Im2col::new` checked
                            // against the slice; every read below is checked anyway.
                            let row = chan
                                + (s[0] * y0 as isize + p0 as isize) * x.strides[0]
                                + (s[1] * y1 as isize + p1 as isize) * x.strides[1];
                            let at = (y0 * out[1] + y1) * out[2];
                            let row = RowPhases {
                                data: x.data,
                                row: row as usize,
                                step: x.strides[2] as usize,
                                stride: w.strides[2],
                            };
                            row.copy(&used[2], &lens[2], blocks, plane, at);
                        }
                    }
                }
            }
        }
        Some(Phases {
            data,
            chan_stride: chan_stride as isize,
            shift,
        })
    }
}

/// One input row along the last axis: element `y` at `data[row + y·step]`, split into the
/// phases of `stride`.
struct RowPhases<'a> {
    data: &'a [f32],
    row: usize,
    step: usize,
    stride: usize,
}

impl RowPhases<'_> {
    /// For each phase `used[i]`, its first `lens[i]` elements into `blocks[i·plane + at..]`.
    /// Stride 2 of a contiguous row with both phases: one pass over the row's pairs.
    fn copy(&self, used: &[usize], lens: &[usize], blocks: &mut [f32], plane: usize, at: usize) {
        if self.stride == 2 && self.step == 1 && used.len() == 2 {
            let even = usize::from(used[0] != 0);
            let (first, second) = blocks.split_at_mut(plane);
            let (even_block, odd_block) = if even == 0 {
                (first, second)
            } else {
                (second, first)
            };
            let (n_even, n_odd) = (lens[even], lens[1 - even]);
            // Phase 1 is never longer than phase 0; the pairs cover phase 1.
            let pairs = n_odd.min(n_even);
            let src = &self.data[self.row..self.row + 2 * pairs];
            deinterleave(
                src,
                &mut even_block[at..at + pairs],
                &mut odd_block[at..at + pairs],
            );
            for i in pairs..n_even {
                even_block[at + i] = self.data[self.row + 2 * i];
            }
            return;
        }
        for (i, (&p, &n)) in used.iter().zip(lens).enumerate() {
            if n == 0 {
                continue;
            }
            let step = self.stride * self.step;
            let start = self.row + p * self.step;
            let src = &self.data[start..start + (n - 1) * step + 1];
            let dst = &mut blocks[i * plane + at..i * plane + at + n];
            for (d, &v) in dst.iter_mut().zip(src.iter().step_by(step)) {
                *d = v;
            }
        }
    }
}

/// `even[i] = src[2i]`, `odd[i] = src[2i + 1]` (all three of one length in pairs).
#[inline]
fn deinterleave(src: &[f32], even: &mut [f32], odd: &mut [f32]) {
    for ((e, o), pair) in even.iter_mut().zip(odd.iter_mut()).zip(src.chunks_exact(2)) {
        *e = pair[0];
        *o = pair[1];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tap of every output position reads, through the phase copy and the tap's
    /// shift, the input element the definition names (`s·y + t·d − p` per axis), wherever
    /// that element is inside the input: odd lengths, uneven pads, a dilation, strides 2
    /// and 3, a stride on one axis only. Runs without AVX-512 (and under Miri).
    /// Lengths, kernel, strides, dilations, pads at the start, pads at the end.
    type Case = (
        [usize; 3],
        [usize; 3],
        [usize; 3],
        [usize; 3],
        [usize; 3],
        [usize; 3],
    );

    #[test]
    fn phase_copy_reads_the_definitions_elements() {
        let cases: [Case; 5] = [
            // lens, kernel, strides, dilations, pads, pads at the end
            (
                [1, 8, 8],
                [1, 3, 3],
                [1, 2, 2],
                [1; 3],
                [0, 1, 1],
                [0, 1, 1],
            ),
            (
                [1, 9, 10],
                [1, 3, 3],
                [1, 2, 2],
                [1; 3],
                [0, 2, 0],
                [0, 0, 1],
            ),
            (
                [1, 12, 13],
                [1, 3, 3],
                [1, 2, 2],
                [1, 2, 2],
                [0, 2, 2],
                [0, 2, 2],
            ),
            (
                [1, 10, 11],
                [1, 5, 5],
                [1, 3, 3],
                [1; 3],
                [0, 2, 2],
                [0, 2, 2],
            ),
            (
                [3, 6, 7],
                [3, 1, 3],
                [2, 1, 2],
                [1; 3],
                [1, 0, 1],
                [1, 0, 1],
            ),
        ];
        for (lens, kernel, strides, dilations, pads, ends) in cases {
            let out: [usize; 3] = core::array::from_fn(|a| {
                (lens[a] + pads[a] + ends[a] - (kernel[a] - 1) * dilations[a] - 1) / strides[a] + 1
            });
            let w = ConvWindow {
                kernel,
                strides,
                dilations,
                pads,
                out,
            };
            let (channels, plane) = (2, lens.iter().product::<usize>());
            // Element i of the buffer is i + 1 (distinct, never 0), from offset 3.
            let data: Vec<f32> = (0..3 + channels * plane).map(|i| i as f32 + 1.0).collect();
            let x = ConvInput {
                data: &data,
                offset: 3,
                channels,
                chan_stride: plane as isize,
                lens,
                strides: [(lens[1] * lens[2]) as isize, lens[2] as isize, 1],
            };
            let taps: Vec<[AxisTap; SPATIAL]> = (0..w.taps())
                .map(|t| {
                    let tap = [
                        t / (kernel[1] * kernel[2]),
                        t / kernel[2] % kernel[1],
                        t % kernel[2],
                    ];
                    core::array::from_fn(|a| AxisTap::new(&w, lens, a, tap[a]))
                })
                .collect();
            let phases = Phases::split(&x, &w, &taps).expect("no phase past the output");
            for c in 0..channels {
                for (t, tap) in taps.iter().enumerate() {
                    let k = [
                        t / (kernel[1] * kernel[2]),
                        t / kernel[2] % kernel[1],
                        t % kernel[2],
                    ];
                    for j in 0..w.positions() {
                        let y = [j / (out[1] * out[2]), j / out[2] % out[1], j % out[2]];
                        let u: [isize; 3] = core::array::from_fn(|a| {
                            (y[a] * strides[a] + k[a] * dilations[a]) as isize - pads[a] as isize
                        });
                        let inside = (0..3).all(|a| u[a] >= 0 && (u[a] as usize) < lens[a]);
                        // The mask's rule (shifted.rs `panel_masks`) agrees with the definition.
                        let masked_in = (0..3).all(|a| {
                            let (lo, hi) = tap[a].inside();
                            (lo..hi).contains(&(y[a] as isize))
                        });
                        assert_eq!(inside, masked_in, "tap {t} position {j}");
                        if inside {
                            let want = 3
                                + c * plane
                                + (u[0] as usize * lens[1] + u[1] as usize) * lens[2]
                                + u[2] as usize;
                            let at = c as isize * phases.chan_stride + j as isize + phases.shift[t];
                            assert_eq!(
                                phases.data[at as usize],
                                data[want],
                                "lens {lens:?} kernel {kernel:?} strides {strides:?}: channel {c} tap {t} position {j}"
                            );
                        }
                    }
                }
            }
        }
    }
}
