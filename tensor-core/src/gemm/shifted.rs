//! Convolutions whose im2col rows are shifted copies of the input (issue 31 item 7).
//!
//! With stride 1 on every spatial axis and an input whose spatial strides are the
//! row-major strides of the *output's* lengths (a "same" convolution of a contiguous
//! input: every 3×3 pads-1 convolution of a ResNet), the input index under kernel tap `t`
//! of output position `j` is `x.offset + c·chan_stride + j + shift(t)`: row `(c, t)` of the
//! im2col matrix is the input's channel `c` moved by `shift(t)`, with the positions whose
//! window falls in the padding zeroed. Which positions those are depends on the tap and
//! the position only, not on the channel.
//!
//! So the driver here packs one `B` micro-panel (`kb × NR` positions) at a time, right
//! before the tiles that use it, with one masked vector load per 16 positions and row
//! (the masks computed once per panel and tap): the packed panel stays in L1 while the
//! weight's panels, packed once per call, stream from L2. The general im2col path
//! (`Im2col::read_row_panels` into a `kc × nc` block) spent ~27% of C3 packing; this one
//! a few percent. The tile is 8×48 (`avx512::AVX512_F32_CONV`): output channel counts are
//! multiples of 8 in the networks this serves, where the 12-row tile wastes 1/9 of its
//! FMAs at 64 rows.
//!
//! A strided convolution becomes one of these through a copy of its input's stride phases
//! (gemm/phases.rs): each tap then reads one phase block, moved by a constant, as a
//! stride-1 tap reads the input. ResNet's 3×3 / 2 and 1×1 / 2 convolutions take it.
//!
//! AVX-512F, f32 only: elsewhere [`try_conv_f32`] declines and conv.rs takes the general
//! path. Every read is checked before the `unsafe` block against the slice the panels read
//! (the input, or the phase copy: a whole panel's reads lie between two indices tested per
//! tap), so a wrong mask could give wrong values but never a read outside the buffer.

// Off x86-64 only `try_conv_f32`'s `false` is compiled in; the rest is x86-64's.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code, unused_imports))]

use super::im2col::{ConvWindow, Im2col, SPATIAL};
use super::kernel::{even_split, Kernel};
use super::pack::{pack_a, with_workspace};
use super::phases::{AxisTap, Phases};
use super::source::PackSource;
use super::Options;
use std::borrow::Cow;

/// Bytes of the weight's packed block (rows `ic .. ic + mc`, all of `k`): it stays in L2
/// (2 MiB per core on the machine of BENCHMARKS.md) while the panels go by.
const A_BLOCK_BYTES: usize = 1 << 20;

/// An [`Im2col`] whose rows are shifted copies of the input (module doc), as the packer
/// reads it.
pub(super) struct Shifted<'a> {
    /// What the panels read: the caller's input (stride 1), or its phases (`Phases`).
    data: Cow<'a, [f32]>,
    /// Index of channel 0's element at output position 0 before any shift.
    offset: usize,
    channels: usize,
    chan_stride: isize,
    w: ConvWindow,
    /// Per axis, per kernel index `t < kernel[a]`: the output coordinates `lo ≤ y < hi`
    /// whose input coordinate under `t` lies inside the input (`panel_masks`).
    inside: [Vec<(isize, isize)>; SPATIAL],
    /// Per tap: row `(c, t)`, position `j` reads `data[offset + c·chan_stride + j +
    /// shift[t]]` when inside. Stride 1: `Σ_a (t_a·d_a − pad_a)·stride_a`.
    shift: Vec<isize>,
    /// Per tap: whether it is the first of its kernel row (`t % k2 == 0`), whose input
    /// row the packer prefetches for the next panel (`pack_tile_avx512`).
    row_start: Vec<bool>,
}

impl<'a> Shifted<'a> {
    /// The shifted form of `b`, or `None` when its rows are not shifted copies: with
    /// stride 1, spatial strides other than the output's row-major ones; with a stride,
    /// a phase longer than the output that a tap would read past the output's length
    /// (`Phases::split`); a window of columns (`Im2col::columns`).
    pub(super) fn new(b: &Im2col<'a, f32>) -> Option<Self> {
        let (x, w, col0) = b.parts();
        if col0 != 0 {
            return None;
        }
        let k = w.kernel;
        let taps: Vec<[AxisTap; SPATIAL]> = (0..w.taps())
            .map(|t| {
                let tap = [t / (k[1] * k[2]), t / k[2] % k[1], t % k[2]];
                core::array::from_fn(|a| AxisTap::new(&w, x.lens, a, tap[a]))
            })
            .collect();
        let inside = core::array::from_fn(|a| {
            (0..k[a])
                .map(|t| AxisTap::new(&w, x.lens, a, t).inside())
                .collect()
        });
        let row_start = (0..w.taps()).map(|t| t % k[2] == 0).collect();
        if w.strides != [1; SPATIAL] {
            let phases = Phases::split(&x, &w, &taps)?;
            return Some(Shifted {
                data: Cow::Owned(phases.data),
                offset: 0,
                channels: x.channels,
                chan_stride: phases.chan_stride,
                w,
                inside,
                shift: phases.shift,
                row_start,
            });
        }
        // Output position j = Σ y_a·row_major_a; the input must advance by the same.
        let mut expect = 1isize;
        for a in (0..SPATIAL).rev() {
            if w.out[a] > 1 && x.strides[a] != expect {
                return None;
            }
            expect = expect.checked_mul(w.out[a] as isize)?;
        }
        // Fits: the box of the input (whose corners these reach) is inside the slice.
        let shift = taps
            .iter()
            .map(|tap| (0..SPATIAL).map(|a| tap[a].e * x.strides[a]).sum())
            .collect();
        Some(Shifted {
            data: Cow::Borrowed(x.data),
            offset: x.offset,
            channels: x.channels,
            chan_stride: x.chan_stride,
            w,
            inside,
            shift,
            row_start,
        })
    }

    /// Output positions.
    fn cols(&self) -> usize {
        self.w.positions()
    }

    /// The output coordinates along axis `a` whose input coordinate under kernel index `t`
    /// is inside the input: `lo ≤ y < hi`.
    #[inline(always)]
    fn inside(&self, a: usize, t: usize) -> (isize, isize) {
        self.inside[a][t]
    }

    /// `masks[t]`: bit `l` set when position `j0 + l` (`l < nb ≤ 64`) under tap `t` reads
    /// inside the input. Walks the panel one output row (last axis) at a time: rows are
    /// all in or all out along the first two axes, and an interval along the last.
    fn panel_masks(&self, j0: usize, nb: usize, masks: &mut [u64]) {
        debug_assert!(nb <= 64 && masks.len() == self.shift.len());
        masks.fill(0);
        let (o, k) = (self.w.out, self.w.kernel);
        let (mut j, end) = (j0, j0 + nb);
        while j < end {
            let y = [j / (o[1] * o[2]), j / o[2] % o[1], j % o[2]];
            let len = (o[2] - y[2]).min(end - j);
            let at = j - j0;
            let has = |a: usize, t: usize| {
                let (lo, hi) = self.inside(a, t);
                (lo..hi).contains(&(y[a] as isize))
            };
            for t0 in (0..k[0]).filter(|&t| has(0, t)) {
                for t1 in (0..k[1]).filter(|&t| has(1, t)) {
                    for t2 in 0..k[2] {
                        let (lo, hi) = self.inside(2, t2);
                        let lo = lo.max(y[2] as isize);
                        let hi = hi.min((y[2] + len) as isize);
                        if lo < hi {
                            // `hi - lo ≤ len ≤ 64 - at`: the run fits the word.
                            let run = (hi - lo) as u32;
                            let bits = if run == 64 {
                                u64::MAX
                            } else {
                                (1u64 << run) - 1
                            };
                            let start = at + (lo as usize - y[2]);
                            masks[(t0 * k[1] + t1) * k[2] + t2] |= bits << start;
                        }
                    }
                }
            }
            j += len;
        }
    }

    /// The input index of row `(c, t)`, position `j0`, as an offset that may lie outside
    /// the slice (only the masked lanes are ever read).
    #[inline(always)]
    fn row_base(&self, c: usize, t: usize, j0: usize) -> isize {
        self.offset as isize + c as isize * self.chan_stride + j0 as isize + self.shift[t]
    }

    /// The checks before a panel's masked reads: AVX-512F, the lengths, and that every set
    /// lane of every tap lies inside the input's slice for the first and the last channel
    /// (the index is linear in the channel, so every channel between is inside too).
    /// Panics otherwise.
    #[cfg(target_arch = "x86_64")]
    fn check_panel(&self, masks: &[u64], (pc, kb): (usize, usize), j0: usize, out: &[f32]) {
        assert!(super::avx512::has_avx512f(), "the packer needs AVX-512F");
        let taps = self.shift.len();
        assert!(masks.len() == taps && out.len() >= kb * PANEL && pc + kb <= self.channels * taps);
        let len = self.data.len() as isize;
        for (t, &mask) in masks.iter().enumerate() {
            if mask == 0 {
                continue;
            }
            let (first, last) = (
                mask.trailing_zeros() as isize,
                63 - mask.leading_zeros() as isize,
            );
            for c in [0, self.channels.saturating_sub(1)] {
                let base = self.row_base(c, t, j0);
                assert!(
                    base + first >= 0 && base + last < len,
                    "a window outside the input"
                );
            }
        }
    }
}

impl Shifted<'_> {
    /// Packs rows `pc .. pc + kb`, positions `j0 .. j0 + 48` of the im2col matrix (zeros
    /// where `masks` has no bit) into `out[(r - pc)·48 + l]` (`pack_b`'s layout for one
    /// panel of 48) while it computes the first row tile's product with it: the 8×48 tile
    /// `c = a_panel · panel` (`first`: overwrite, else add), of which its `mr × nr` corner
    /// is stored. The input's loads then overlap the tile's FMAs: a packing pass of its
    /// own stalled on them (8% of C3's samples; fused, C3 1.27-1.37 → 1.20-1.26 ms at the
    /// same `kc`). The other row tiles read `out` (`ker.run`).
    ///
    /// `check_panel` for the input, `check_tile`'s contract for the tile; panics on failure.
    #[cfg(target_arch = "x86_64")]
    #[allow(clippy::too_many_arguments)]
    fn pack_panel_with_tile(
        &self,
        masks: &[u64],
        (pc, kb): (usize, usize),
        j0: usize,
        out: &mut [f32],
        a_panel: &[f32],
        tile: &mut [f32],
        (ldc, mr, nr, first): (usize, usize, usize, bool),
    ) {
        self.check_panel(masks, (pc, kb), j0, out);
        super::kernel::check_tile(kb, a_panel, out, tile, ldc, (mr, nr), (8, PANEL));
        // SAFETY: AVX-512F is present (asserted by `check_panel`). Row `(c, t)` reads lane
        // `l` only where bit `l` of `masks[t]` is set, at `data[row_base(c, t, j0) + l]`
        // (`self.data`: the input or its phase copy), which `check_panel` asserted inside
        // that slice for c = 0 and c = channels - 1,
        // hence for every c between (`c < channels`: `pc + kb ≤ channels·taps`, asserted).
        // `out[..kb·48]`, `a_panel[..kb·8]` and the tile's `c[i·ldc + j]` for i < mr ≤ 8,
        // j < nr ≤ 48 are inside their slices (`check_tile` with the 8×48 tile).
        unsafe {
            self.pack_tile_avx512(
                masks,
                (pc, kb),
                j0,
                out.as_mut_ptr(),
                a_panel.as_ptr(),
                tile.as_mut_ptr(),
                (ldc, mr, nr, first),
            )
        }
    }

    /// # Safety
    /// AVX-512F present; for each row `r` of `pc .. pc + kb` (`c = r / taps`, `t = r %
    /// taps`) and each set bit `l` of `masks[t]`, `data[row_base(c, t, j0) + l]` is inside
    /// the slice; `out` valid for `kb·48` writes; `a` valid for `kb·8` reads; `c[i·ldc + j]`
    /// valid for reads and writes for `i < mr ≤ 8`, `j < nr ≤ 48`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn pack_tile_avx512(
        &self,
        masks: &[u64],
        (pc, kb): (usize, usize),
        j0: usize,
        out: *mut f32,
        a: *const f32,
        c: *mut f32,
        (ldc, mr, nr, first): (usize, usize, usize, bool),
    ) {
        use core::arch::x86_64::*;
        const MR: usize = 8;
        const NV: usize = PANEL / 16;
        let taps = self.shift.len();
        let data = self.data.as_ptr();
        let (mut t, cs) = (pc % taps, self.chan_stride);
        let mut chan = self.row_base(pc / taps, 0, j0) - self.shift[0];
        let mut acc = [[_mm512_setzero_ps(); NV]; MR];
        for p in 0..kb {
            let mask = masks[t];
            let src = data.wrapping_offset(chan + self.shift[t]);
            if PREFETCH_NEXT_PANEL && self.row_start[t] {
                // The next panel's stretch of this input row (50 floats from `src + 48`
                // for a 3-wide kernel row), into L2: a batch's or a large image's input is
                // not in L2, and its 64 channels × 3 rows per panel are more streams than
                // the hardware prefetcher follows.
                // A prefetch is a hint: it never faults and reads nothing the program
                // sees, so an address past the input (formed with `wrapping_add`, never
                // dereferenced) is harmless.
                for line in 0..4 {
                    _mm_prefetch::<_MM_HINT_T1>(src.wrapping_add(PANEL + 16 * line) as *const i8);
                }
            }
            let mut bv = [_mm512_setzero_ps(); NV];
            for (v, x) in bv.iter_mut().enumerate() {
                // SAFETY: the masked lanes are inside the input (caller's contract; the
                // others are never accessed); the store is inside `out[..kb·48]`.
                unsafe {
                    *x = _mm512_maskz_loadu_ps((mask >> (16 * v)) as u16, src.wrapping_add(16 * v));
                    _mm512_storeu_ps(out.add(p * PANEL + 16 * v), *x);
                }
            }
            for (i, row) in acc.iter_mut().enumerate() {
                // SAFETY: p < kb, i < 8: inside `a[..kb·8]`.
                let ai = _mm512_set1_ps(unsafe { *a.add(p * MR + i) });
                for (x, &bj) in row.iter_mut().zip(&bv) {
                    *x = _mm512_fmadd_ps(ai, bj, *x);
                }
            }
            t += 1;
            if t == taps {
                (t, chan) = (0, chan + cs);
            }
        }
        for (i, row) in acc.iter().enumerate().take(mr) {
            for (v, &x) in row.iter().enumerate() {
                let col = 16 * v;
                if col >= nr {
                    break;
                }
                let lanes = if nr - col >= 16 {
                    u16::MAX
                } else {
                    (1u16 << (nr - col)) - 1
                };
                // SAFETY: columns col .. min(nr, col + 16) of row i < mr: inside the
                // caller's contract; masked-off lanes are neither read nor written.
                unsafe {
                    let cp = c.add(i * ldc + col);
                    let sum = if first {
                        x
                    } else {
                        _mm512_add_ps(x, _mm512_maskz_loadu_ps(lanes, cp))
                    };
                    _mm512_mask_storeu_ps(cp, lanes, sum);
                }
            }
        }
    }
}

/// Columns of the packed `B` panel: the conv kernel's `nr` (`avx512::AVX512_F32_CONV`).
const PANEL: usize = 48;

/// Whether the packer prefetches the next panel's input rows (`pack_tile_avx512`): CB4
/// (benches/vision.rs, a batch of 4 whose input is not in L2) 7.0-7.4 → 6.3-6.5 ms, C3
/// (its input in L2) unchanged (NOTES.md "Every convolution fused with its epilogue").
const PREFETCH_NEXT_PANEL: bool = true;

/// Adds `bias[i]` to row `i` of the `rows × cols` tile at the start of `tile` (rows `ldc`
/// apart): the convolution's bias on a finished tile, still in L1. Each element is then
/// `fl(Σ + bias)`, the value of the graph's `conv + b` computed after the product.
#[inline]
fn add_row_bias(tile: &mut [f32], ldc: usize, (rows, cols): (usize, usize), bias: &[f32]) {
    for (i, &b) in bias[..rows].iter().enumerate() {
        for v in &mut tile[i * ldc..i * ldc + cols] {
            *v += b;
        }
    }
}

/// `C = A · im2col(x) (+ bias per row)` on the calling thread for a shifted `b` (module
/// doc): rows of `a` in blocks of at most `A_BLOCK_BYTES` packed once, then for each panel
/// of 48 positions and each `k` block, the packed `B` micro-panel and every row tile of the
/// block; after a tile's last `k` block its bias row by row (`add_row_bias`), while the
/// tile is in L1. `c` is `a.rows() × ldc`, overwritten; `bias`, if any, holds `a.rows()`.
#[cfg(target_arch = "x86_64")]
fn conv_serial(
    ker: &Kernel<f32, f32>,
    a: &impl PackSource<f32>,
    b: &Shifted,
    bias: Option<&[f32]>,
    c: &mut [f32],
    ldc: usize,
) {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        for i in 0..m {
            c[i * ldc..i * ldc + n].fill(bias.map_or(0.0, |b| b[i]));
        }
        return;
    }
    let mr = ker.mr;
    let kc = even_split(k, ker.kc, 1);
    let mc_max = (A_BLOCK_BYTES / (k * 4)).max(mr) / mr * mr;
    let mc = even_split(m, mc_max, mr);
    let mut masks = vec![0u64; b.shift.len()];
    with_workspace::<f32, _>(mc * k, kc * PANEL, |a_buf, b_buf| {
        for ic in (0..m).step_by(mc) {
            let mb = mc.min(m - ic);
            pack_a(a, (ic, mb), (0, k), mr, a_buf);
            for j0 in (0..n).step_by(PANEL) {
                let nb = PANEL.min(n - j0);
                b.panel_masks(j0, nb, &mut masks);
                for pc in (0..k).step_by(kc) {
                    let kb = kc.min(k - pc);
                    // The tiles' last `k` block: their bias goes on after it.
                    let bias = bias.filter(|_| pc + kb == k);
                    {
                        // The first row tile packs the panel as it goes.
                        let mr_eff = mr.min(mb);
                        let a0 = pc * mr;
                        let start = ic * ldc + j0;
                        b.pack_panel_with_tile(
                            &masks,
                            (pc, kb),
                            j0,
                            b_buf,
                            &a_buf[a0..a0 + kb * mr],
                            &mut c[start..start + (mr_eff - 1) * ldc + nb],
                            (ldc, mr_eff, nb, pc == 0),
                        );
                        if let Some(bias) = bias {
                            add_row_bias(&mut c[start..], ldc, (mr_eff, nb), &bias[ic..]);
                        }
                    }
                    for (iq, ir) in (0..mb).step_by(mr).enumerate().skip(1) {
                        let mr_eff = mr.min(mb - ir);
                        let a0 = iq * k * mr + pc * mr;
                        let start = (ic + ir) * ldc + j0;
                        let tile = &mut c[start..start + (mr_eff - 1) * ldc + nb];
                        (ker.run)(
                            kb,
                            &a_buf[a0..a0 + kb * mr],
                            b_buf,
                            tile,
                            ldc,
                            mr_eff,
                            nb,
                            pc == 0,
                        );
                        if let Some(bias) = bias {
                            add_row_bias(tile, ldc, (mr_eff, nb), &bias[ic + ir..]);
                        }
                    }
                }
            }
        }
    });
}

/// `c[i·n + j] = Σ_p a(i, p) · b(p, j) (+ bias[i])` (`n` = `b`'s columns, `c` at least
/// `m·n` long) through the shifted packer, if this process's f32 kernel is AVX-512F's and
/// `b`'s rows are shifted copies of its input (module doc); `false` (and nothing written)
/// otherwise. The bias is added to the finished sum (`fl(Σ + bias[i])`). With
/// [`Parallelism::Auto`](super::Parallelism) the rows are split across threads as the
/// engine's products are. Panics if `a.cols() != b.rows()`, `c` is short or `bias` holds
/// fewer than `m`.
pub fn try_conv_f32(
    a: &impl PackSource<f32>,
    b: &Im2col<'_, f32>,
    bias: Option<&[f32]>,
    c: &mut [f32],
    options: Options,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if super::isa::cpu_isa() == super::isa::Isa::Avx512 {
        let Some(shifted) = Shifted::new(b) else {
            return false;
        };
        let (m, k, n) = (a.rows(), a.cols(), shifted.cols());
        assert!(
            k == PackSource::<f32>::rows(b)
                && c.len() >= m * n
                && bias.is_none_or(|b| b.len() >= m),
            "conv product shapes"
        );
        let ker = &super::avx512::AVX512_F32_CONV;
        // `pack_tile_avx512` computes the first row tile with this kernel's shape.
        assert!(ker.mr == 8 && ker.nr == PANEL);
        let threads = super::threads::thread_count(m, k, n, ker.mr, options);
        if threads <= 1 {
            conv_serial(ker, a, &shifted, bias, c, n);
            return true;
        }
        #[cfg(feature = "parallel")]
        {
            use super::source::RowRange;
            use rayon::iter::{IntoParallelIterator, ParallelIterator};
            let share = m.div_ceil(threads).next_multiple_of(ker.mr);
            let parts: Vec<_> = c[..m * n]
                .chunks_mut(share * n)
                .enumerate()
                .map(|(q, part)| (q * share, part))
                .collect();
            parts.into_par_iter().for_each(|(row0, part)| {
                let rows = part.len() / n;
                let bias = bias.map(|b| &b[row0..]);
                conv_serial(
                    ker,
                    &RowRange { src: a, row0, rows },
                    &shifted,
                    bias,
                    part,
                    n,
                );
            });
        }
        return true;
    }
    let _ = (a, b, bias, c, options);
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::im2col::tests::{reference, values};
    use crate::gemm::im2col::ConvInput;
    use crate::gemm::{ConvWeights, MatRef};

    /// One convolution through `try_conv_f32` against the definition in f64: the input
    /// at an offset of a larger buffer, the weight as a `MatRef` and as `ConvWeights`.
    fn check(
        lens: [usize; 3],
        kernel: [usize; 3],
        dil: [usize; 3],
        pads: ([usize; 3], [usize; 3]),
        c: usize,
        o: usize,
    ) {
        check_strided(lens, kernel, [1; 3], dil, pads, c, o)
    }

    /// `check` with strides: the output's lengths `⌊(L + pads − (k − 1)·d − 1) / s⌋ + 1`.
    fn check_strided(
        lens: [usize; 3],
        kernel: [usize; 3],
        strides: [usize; 3],
        dil: [usize; 3],
        (pads, ends): ([usize; 3], [usize; 3]),
        c: usize,
        o: usize,
    ) {
        let out: [usize; 3] = core::array::from_fn(|a| {
            (lens[a] + pads[a] + ends[a] - (kernel[a] - 1) * dil[a] - 1) / strides[a] + 1
        });
        let win = ConvWindow {
            kernel,
            strides,
            dilations: dil,
            pads,
            out,
        };
        let plane: usize = lens.iter().product();
        let taps = win.taps();
        let x = values(c * plane, (c * 31 + o) as u64);
        let w = values(o * c * taps, (o * 17 + c) as u64);
        let mut xbuf = vec![f32::NAN; 5];
        xbuf.extend(x.iter().map(|&v| v as f32));
        xbuf.extend([f32::NAN; 5]);
        let w32: Vec<f32> = w.iter().map(|&v| v as f32).collect();
        let input = ConvInput {
            data: &xbuf[..],
            offset: 5,
            channels: c,
            chan_stride: plane as isize,
            lens,
            strides: [(lens[1] * lens[2]) as isize, lens[2] as isize, 1],
        };
        let b = Im2col::new(input, win).expect("in bounds");
        let p = win.positions();
        let k = c * taps;
        let flat = MatRef::new(&w32, o, k, k as isize, 1, 0).expect("in bounds");
        let strided = ConvWeights::new(
            &w32,
            0,
            (o, k as isize),
            [c, kernel[0], kernel[1], kernel[2]],
            [
                taps as isize,
                (kernel[1] * kernel[2]) as isize,
                kernel[2] as isize,
                1,
            ],
        )
        .expect("in bounds");
        // The definition only where the shifted path runs (not under Miri: its sums of
        // millions of products would take the run's hours).
        let mut want = None;
        let bias: Vec<f32> = values(o, (o * 7 + c) as u64)
            .iter()
            .map(|&v| v as f32)
            .collect();
        for options in [Options::SINGLE, Options::default()] {
            let mut got = vec![f32::NAN; o * p];
            let mut got2 = vec![f32::NAN; o * p];
            let mut biased = vec![f32::NAN; o * p];
            let ran = try_conv_f32(&flat, &b, None, &mut got, options);
            assert_eq!(ran, try_conv_f32(&strided, &b, None, &mut got2, options));
            assert_eq!(
                ran,
                try_conv_f32(&flat, &b, Some(&bias), &mut biased, options)
            );
            if !ran {
                // Declined only off AVX-512F (and under Miri): the general path is tested
                // by im2col.rs.
                assert!(super::super::isa::cpu_isa() != super::super::isa::Isa::Avx512);
                return;
            }
            let want = want.get_or_insert_with(|| reference(&x, (c, lens), &w, o, &win));
            for (i, ((g, g2), r)) in got.iter().zip(&got2).zip(want.iter()).enumerate() {
                let bound = 1e-5 * (1.0 + k as f64);
                assert!(
                    (*g as f64 - r).abs() <= bound && g.to_bits() == g2.to_bits(),
                    "lens {lens:?} kernel {kernel:?} strides {strides:?} dil {dil:?} pads {pads:?}/{ends:?} C {c} O {o}, \
                     element {i}: {g} / {g2} vs {r}"
                );
                // The bias goes on the finished sum: `fl(Σ + b)`, bit for bit, in every
                // tile (the first, packing one, and the others; partial ones too).
                assert_eq!(
                    biased[i].to_bits(),
                    (g + bias[i / p]).to_bits(),
                    "with its bias, element {i}"
                );
            }
        }
    }

    /// Odd sizes, padding at every edge (every position of a panel of 48 near a border,
    /// panels across output rows), dilations, 1-D to 3-D, rows of `A` not a multiple of 8,
    /// `k` blocks (`k` over the kernel's `kc`), several `A` blocks.
    #[test]
    fn conv_shifted_matches_the_definition() {
        let same = |p: [usize; 3]| (p, p);
        check([1, 56, 56], [1, 3, 3], [1; 3], same([0, 1, 1]), 3, 8);
        check([1, 7, 9], [1, 3, 3], [1; 3], same([0, 1, 1]), 5, 11);
        check([1, 5, 6], [1, 5, 5], [1; 3], same([0, 2, 2]), 2, 3);
        check([1, 9, 13], [1, 3, 3], [1, 1, 3], same([0, 1, 3]), 4, 9);
        check([1, 1, 101], [1, 1, 7], [1; 3], same([0, 0, 3]), 3, 2);
        check([3, 4, 5], [3, 3, 3], [1, 1, 1], same([1, 1, 1]), 2, 5);
        check([1, 2, 2], [1, 3, 3], [1; 3], same([0, 1, 1]), 1, 1);
        check([1, 1, 1], [1, 3, 3], [1; 3], same([0, 1, 1]), 3, 2);
        // Uneven pads with the output as long as the input: all at the start or the end
        // of an axis, or split 3 + 1 by a dilated kernel.
        check([1, 6, 50], [1, 3, 3], [1; 3], ([0, 2, 0], [0, 0, 2]), 3, 9);
        check(
            [1, 11, 5],
            [1, 3, 3],
            [1, 1, 2],
            ([0, 0, 3], [0, 2, 1]),
            2,
            8,
        );
        // `k` = 70·9 = 630 over `kc` (two `k` blocks), 17 rows (two tiles and a partial
        // one).
        check([1, 13, 11], [1, 3, 3], [1; 3], same([0, 1, 1]), 70, 17);
        // 420 rows of `k` = 630: two weight blocks (`A_BLOCK_BYTES`: 416 rows at most),
        // and with `Parallelism::Auto` two threads' shares (9.3M multiply-adds).
        check([1, 5, 7], [1, 3, 3], [1; 3], same([0, 1, 1]), 70, 420);
        // A 1×1 convolution (one tap, no shift).
        check([1, 7, 7], [1, 1, 1], [1; 3], same([0, 0, 0]), 6, 4);
    }

    /// Strided convolutions through the phase copy (gemm/phases.rs): ResNet's
    /// downsampling 3×3 / 2 and 1×1 / 2, odd lengths (phases of unequal lengths), uneven
    /// pads, a dilation, stride 3, a stride along one axis only, 1-D and 3-D, partial
    /// tiles and panels, `k` over `kc`.
    #[test]
    fn conv_strided_phases_match_the_definition() {
        let same = |p: [usize; 3]| (p, p);
        check_strided(
            [1, 56, 56],
            [1, 3, 3],
            [1, 2, 2],
            [1; 3],
            same([0, 1, 1]),
            3,
            8,
        );
        check_strided(
            [1, 14, 14],
            [1, 1, 1],
            [1, 2, 2],
            [1; 3],
            same([0, 0, 0]),
            5,
            11,
        );
        check_strided(
            [1, 13, 11],
            [1, 3, 3],
            [1, 2, 2],
            [1; 3],
            same([0, 1, 1]),
            4,
            9,
        );
        check_strided(
            [1, 9, 10],
            [1, 3, 3],
            [1, 2, 2],
            [1; 3],
            ([0, 2, 0], [0, 0, 1]),
            2,
            17,
        );
        check_strided(
            [1, 12, 17],
            [1, 3, 3],
            [1, 2, 2],
            [1, 2, 2],
            same([0, 2, 2]),
            3,
            8,
        );
        check_strided(
            [1, 10, 11],
            [1, 5, 5],
            [1, 3, 3],
            [1; 3],
            same([0, 2, 2]),
            2,
            5,
        );
        check_strided(
            [1, 8, 9],
            [1, 3, 3],
            [1, 2, 1],
            [1; 3],
            same([0, 1, 1]),
            3,
            7,
        );
        check_strided(
            [1, 1, 101],
            [1, 1, 7],
            [1, 1, 2],
            [1; 3],
            same([0, 0, 3]),
            3,
            2,
        );
        check_strided(
            [5, 6, 7],
            [3, 3, 3],
            [2, 2, 2],
            [1; 3],
            same([1, 1, 1]),
            2,
            5,
        );
        check_strided(
            [1, 3, 3],
            [1, 3, 3],
            [1, 2, 2],
            [1; 3],
            same([0, 1, 1]),
            1,
            1,
        );
        // `k` = 70·9 = 630 over `kc` (two `k` blocks), 17 rows.
        check_strided(
            [1, 11, 14],
            [1, 3, 3],
            [1, 2, 2],
            [1; 3],
            same([0, 1, 1]),
            70,
            17,
        );
    }

    /// A strided convolution whose taps would read a phase past the output's length (no
    /// padding, an odd length: phase 0 is one longer than the output and the last tap
    /// reads its last element): declined.
    #[test]
    fn conv_strided_declines_a_phase_past_the_output() {
        let data = vec![1.0f32; 2 * 7 * 7];
        let x = ConvInput {
            data: &data[..],
            offset: 0,
            channels: 2,
            chan_stride: 49,
            lens: [1, 7, 7],
            strides: [49, 7, 1],
        };
        let win = ConvWindow {
            kernel: [1, 3, 3],
            strides: [1, 2, 2],
            dilations: [1, 1, 1],
            pads: [0, 0, 0],
            out: [1, 3, 3],
        };
        let w = vec![1.0f32; 18];
        let a = MatRef::new(&w, 1, 18, 18, 1, 0).expect("in bounds");
        let mut c = vec![f32::NAN; 9];
        let b = Im2col::new(x, win).expect("in bounds");
        assert!(!try_conv_f32(&a, &b, None, &mut c, Options::SINGLE));
        assert!(c.iter().all(|v| v.is_nan()));
    }

    /// Not shifted copies: a column window, an input row pitch other than the output's row
    /// (stride 1): declined (`false`, nothing written).
    #[test]
    fn conv_shifted_declines_other_layouts() {
        let data = vec![1.0f32; 2 * 6 * 6];
        let win = ConvWindow {
            kernel: [1, 3, 3],
            strides: [1, 1, 1],
            dilations: [1, 1, 1],
            pads: [0, 1, 1],
            out: [1, 6, 6],
        };
        let x = ConvInput {
            data: &data[..],
            offset: 0,
            channels: 2,
            chan_stride: 36,
            lens: [1, 6, 6],
            strides: [36, 6, 1],
        };
        let w = vec![1.0f32; 18];
        let a = MatRef::new(&w, 1, 18, 18, 1, 0).expect("in bounds");
        let mut c = vec![f32::NAN; 36];
        let cases = [
            Im2col::new(x, win).expect("in bounds").columns(6, 30),
            Im2col::new(
                ConvInput {
                    lens: [1, 6, 5],
                    strides: [36, 6, 1],
                    ..x
                },
                ConvWindow {
                    out: [1, 6, 5],
                    ..win
                },
            )
            .expect("in bounds"),
        ];
        for b in &cases {
            assert!(!try_conv_f32(&a, b, None, &mut c, Options::SINGLE));
            assert!(!try_conv_f32(&a, b, Some(&[1.0]), &mut c, Options::SINGLE));
            assert!(c.iter().all(|v| v.is_nan()));
        }
    }
}
