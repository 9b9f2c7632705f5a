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
        let top = i0 + q * mr;
        if src.rows_are_contiguous() {
            for i in 0..rows {
                src.read_row(top + i, p0, kb, &mut panel[i..], mr);
            }
        } else {
            for (p, step) in panel.chunks_exact_mut(mr).enumerate() {
                src.read_col(top, p0 + p, rows, step, 1);
            }
        }
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
pub(super) fn pack_b<P: Copy + Default, S: PackSource<P>>(
    src: &S,
    (p0, kb): (usize, usize),
    (j0, nb): (usize, usize),
    nr: usize,
    out: &mut [P],
) {
    let panels = nb.div_ceil(nr);
    for (q, panel) in out.chunks_exact_mut(kb * nr).take(panels).enumerate() {
        let left = j0 + q * nr;
        pack_b_panel(src, (p0, kb), (left, nr.min(j0 + nb - left)), nr, panel);
    }
}

/// One panel of [`pack_b`]: rows `p0 .. p0 + kb`, columns `left .. left + cols` (`cols ≤
/// nr`) into `out[p·nr + j]`, zeros in the columns past `cols`; `out.len() == kb·nr`.
pub(super) fn pack_b_panel<P: Copy + Default, S: PackSource<P>>(
    src: &S,
    (p0, kb): (usize, usize),
    (left, cols): (usize, usize),
    nr: usize,
    out: &mut [P],
) {
    if src.rows_are_contiguous() {
        for (p, step) in out.chunks_exact_mut(nr).enumerate() {
            src.read_row(p0 + p, left, cols, step, 1);
        }
    } else {
        for j in 0..cols {
            src.read_col(p0, left + j, kb, &mut out[j..], nr);
        }
    }
    if cols < nr {
        for step in out.chunks_exact_mut(nr) {
            step[cols..].fill(P::default());
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
