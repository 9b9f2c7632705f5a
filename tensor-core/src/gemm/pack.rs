//! Packing: copying (and converting) a block of an operand into the panel layout the
//! micro-kernel streams through, padded with zeros to whole tiles, so no kernel ever reads
//! past an edge.

use super::source::PackSource;
use std::cell::RefCell;

/// Packs rows `i0 .. i0 + mb`, columns `p0 .. p0 + kb` of `A` into panels of `mr` rows:
/// element `(i0 + q·mr + i, p0 + p)` goes to `out[q·kb·mr + p·mr + i]`, and the rows of the
/// last panel past `mb` are zeros. `out` holds at least `⌈mb/mr⌉·kb·mr` elements.
pub(super) fn pack_a<P: Copy + Default, S: PackSource<P>>(
    src: &S,
    (i0, mb): (usize, usize),
    (p0, kb): (usize, usize),
    mr: usize,
    out: &mut [P],
) {
    let panels = mb.div_ceil(mr);
    for (q, panel) in out.chunks_exact_mut(kb * mr).take(panels).enumerate() {
        let rows = mr.min(mb - q * mr);
        src.read_panel((i0 + q * mr, rows), (p0, kb), panel, mr);
        if rows < mr {
            for step in panel.chunks_exact_mut(mr) {
                step[rows..].fill(P::default());
            }
        }
    }
}

/// Packs rows `p0 .. p0 + kb`, columns `j0 .. j0 + nb` of `B` into panels of `nr` columns:
/// element `(p0 + p, j0 + q·nr + j)` goes to `out[q·kb·nr + p·nr + j]`, and the columns of
/// the last panel past `nb` are zeros. `out` holds at least `⌈nb/nr⌉·kb·nr` elements.
///
/// A row-major `B` is read row by row (each row of the block once, in order, writing one
/// step of every panel): reading panel by panel instead walks down `kb` rows `ldb` apart,
/// a new page per row, and cost 3-4x more on the Zen 5 of BENCHMARKS.md.
pub(super) fn pack_b<P: Copy + Default, S: PackSource<P>>(
    src: &S,
    (p0, kb): (usize, usize),
    (j0, nb): (usize, usize),
    nr: usize,
    out: &mut [P],
) {
    let panels = nb.div_ceil(nr);
    if panels == 0 {
        return;
    }
    let out = &mut out[..panels * kb * nr];
    let cols = |q: usize| nr.min(nb - q * nr);
    if src.rows_are_contiguous() {
        for p in 0..kb {
            src.read_row_panels(p0 + p, (j0, nb), nr, &mut out[p * nr..], kb * nr);
            let last = panels - 1;
            let step = &mut out[(last * kb + p) * nr..(last * kb + p + 1) * nr];
            step[cols(last)..].fill(P::default());
        }
    } else {
        for (q, panel) in out.chunks_exact_mut(kb * nr).enumerate() {
            src.read_col_panel((p0, kb), (j0 + q * nr, cols(q)), panel, nr);
            if cols(q) < nr {
                for step in panel.chunks_exact_mut(nr) {
                    step[cols(q)..].fill(P::default());
                }
            }
        }
    }
}

thread_local! {
    /// Each thread's packing buffers, kept between calls so small products allocate
    /// nothing. Stored as `u64` words and viewed as the packed type through `bytemuck`.
    static WORKSPACE: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
    /// The calling thread's buffer for a `B` packed once and shared by the threads of a
    /// split product (see `threads::run`).
    static SHARED_B: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Calls `f` with this thread's buffer for a shared packed `B`, of `len` elements (stale
/// contents); a nested call gets a fresh one.
pub(super) fn with_shared_b<P: bytemuck::Pod, R>(len: usize, f: impl FnOnce(&mut [P]) -> R) -> R {
    let words = (len * core::mem::size_of::<P>()).div_ceil(8);
    let run = |buf: &mut Vec<u64>| {
        if buf.len() < words {
            buf.resize(words, 0);
        }
        let all: &mut [P] = bytemuck::cast_slice_mut(&mut buf[..words]);
        f(&mut all[..len])
    };
    SHARED_B.with(|ws| match ws.try_borrow_mut() {
        Ok(mut buf) => run(&mut buf),
        Err(_) => run(&mut Vec::new()),
    })
}

/// Bytes the packed panels are aligned to (a cache line).
const ALIGN: usize = 64;

/// Calls `f` with two zeroed-or-stale scratch buffers of `a_len` and `b_len` elements,
/// each starting on a cache line when the allocator allows. Reuses the thread's buffer;
/// a nested call (an epilogue that multiplies) gets a fresh one.
pub(super) fn with_workspace<P: bytemuck::Pod, R>(
    a_len: usize,
    b_len: usize,
    f: impl FnOnce(&mut [P], &mut [P]) -> R,
) -> R {
    let size = core::mem::size_of::<P>();
    let slack = ALIGN / size;
    let words = ((a_len + b_len + 3 * slack) * size).div_ceil(8);
    let run = |buf: &mut Vec<u64>| {
        if buf.len() < words {
            buf.resize(words, 0);
        }
        let all: &mut [P] = bytemuck::cast_slice_mut(&mut buf[..words]);
        let skip = match all.as_ptr().align_offset(ALIGN) {
            off if off <= slack => off,
            _ => 0,
        };
        let (a, rest) = all[skip..].split_at_mut(a_len + slack);
        let skip_b = match rest.as_ptr().align_offset(ALIGN) {
            off if off <= slack => off,
            _ => 0,
        };
        f(&mut a[..a_len], &mut rest[skip_b..skip_b + b_len])
    };
    WORKSPACE.with(|ws| match ws.try_borrow_mut() {
        Ok(mut buf) => run(&mut buf),
        Err(_) => run(&mut Vec::new()),
    })
}
